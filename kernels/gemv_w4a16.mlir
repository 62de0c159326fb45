// The tile library W4A16 GEMV: Y = X * dequant(P)^T with X stored M x K in
// f16 or bf16 (M small), 4-bit weights packed eight per 32-bit word in P
// (N x ceil(K / 8) i32; word c of a row holds weights 8c + 2i in bits
// 4i..4i+3 and 8c + 2i + 1 in bits 16+4i..16+4i+3, i = 0..3), one scale per
// group of G consecutive weights of a row in S (N x ceil(K / G), the type of
// X) and, for `gemv_w4a16`, one zero point per group in Z (same shape and
// type); `gemv_w4a16_sym` takes no Z and subtracts 8. Weight (n, k) is
// (q - z) * s; products accumulate in CT.
// docs/Quantized.md describes the layout; bench/w4pack.py packs it.
//
// Each block owns BN rows of P, KT threads per row. A K step covers BK
// weights of each row: word w of the step (eight weights) belongs to
// thread w mod KT of the row's group, so that each load of a warp reads
// KT consecutive words of P and the matching 16-byte runs of X. The copies
// of P, X, S and Z go through shared memory in a tile.pipelined loop, so
// that STAGES - 1 steps are in flight while the block computes one (the
// stream of packed weights needs more bytes in flight than one step of
// registers holds). The scale is applied per word, not per weight: the
// eight weights of a word share their group's scale, so the products of
// the word's four weights of each parity are summed first (a multiply and
// three fmas in CT) and the sum is multiplied by the scale into the
// accumulator (one fma), where scaling each weight would take four
// multiplications more. The accumulator holds one element per word and
// parity; two tile.reduce after the K loop sum each row, within the
// thread and across its group.
//
// The unpacking is the tile.parallel of the TileLang paper's Fig. 17:
// weight k reads word k / 8 of the fragment, shifts it by
// 16 (k mod 2) + 4 ((k mod 8) / 2) and masks the nibble. The compiler runs
// the loop two weights (k, k + 1) at a time: both come from one word at
// offsets 16 apart, so one shift and one mask extract the pair into the
// two halves of a 32-bit register, and the conversion and the zero point
// are one packed f16x2 / bf16x2 operation each (docs/Quantized.md). The
// zero point is subtracted as (q + ZM) - (z + ZM): q + ZM is the
// magic-number conversion's own bits, so the pair costs one subtraction,
// exact for integer zero points (fractional ones are rounded to integers
// by z + ZM). In f16 the subtraction allows reassociation: the pairs at
// bits 4 and 12 are then taken unshifted, as 1024 + 16 q, and scaled back
// in one FMA whose addend is 960 - (z + ZM), so that a word's four pairs
// take one shift; each mask and OR is one lop3 on NVIDIA chips. The
// unscaled weights q - z go to a fragment, which a second tile.parallel
// multiplies with X and the scales into the accumulator in CT.
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS, KT, GROUPS, BN, BM  as in kernels/gemv.mlir
//   BK       weights per row per step: a multiple of 8 * KT
//   BKW      BK / 8, the 32-bit words of P per row per step
//   STAGES   steps of the pipelined K loop in flight or in use at once
//   G        group size: 32, 64 or 128 (G / 8 must divide KT)
//   GS       BK / G, the groups per row per step
//   GR       G / 8, the threads sharing one scale (words per group)
//   AT       type of X, S, Z and Y: f16 or bf16
//   ZM       the magic value of AT's integer conversion: 1024.0 for f16,
//            128.0 for bf16 (set by the tile.params(AT=bf16) line)
//   CT       type the products accumulate in during the K loop (the sums
//            over K steps), before the f32 reduction: f16 (the default
//            for f16; packed f16x2 FMAs on pairs of weights) or f32 (the
//            default for bf16, by the tile.params(AT=bf16) line)
//   MINB     blocks that must fit on one SM (tile-compile's
//            min-blocks-per-sm, which caps the registers): 5 (at most
//            102 registers) for the default build (G = 128, CT = f16), 4
//            (128) for the other one-row builds (G = 32 and 64, CT =
//            f32), under 5 of which they spill, and 0 (no cap) where
//            BM > 1; each fits without spilling. On sm_90a the default
//            build takes BN = 16 and MINB = 4 (126 registers): sixteen
//            words a thread per K step, over which the step's fixed work
//            (copy issue, slot arithmetic, barrier) is spread
//
// The pipelined loop runs on cp.async (a producer warpgroup would double
// the block for copies this small).
//
// Shape dispatch: `tile-compile --dispatch kernels/gemv_tuned.txt` builds
// the table's rules for the default f16 build on sm_90a into one artifact
// that picks its block by the rows of P at each launch: 8 rows per block
// (BN = 8, five blocks per SM) up to N = 12288, where 16-row blocks would
// fill one wave of the GPU and a sliver of a second (N = 9216: 576 blocks
// on 528 slots), and the 16-row default above (docs/Quantized.md).
// tile.dispatch: M=arg0.dim0 N=arg1.dim0 K=arg0.dim1
// tile.params(sm_90a): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
// tile.params(sm_80): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
// tile.options(sm_90a): no-warp-specialize=true min-blocks-per-sm=${MINB}
// tile.options(sm_80): min-blocks-per-sm=${MINB}
//
// tile.params: THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
// tile.params: STAGES=4 G=128 GR=16 GS=8 AT=f16 CT=f16 ZM=1024.0 MINB=5
// tile.params(AT=bf16): CT=f32 ZM=128.0
// tile.params(CT=f32): MINB=4
// tile.params(G=32): GR=4 GS=32 MINB=4
// tile.params(G=64): GR=8 GS=16 MINB=4
// tile.params(BM=2): MINB=0
// tile.params(BM=4): MINB=0
// tile.params(sm_90a AT=f16 CT=f16 G=128 BM=1): BN=16 MINB=4

// P tile: row n on thread group n / RW (RW = BN / GROUPS); word w of the
// row step on thread w mod KT of the group, so that each load of a warp
// reads KT consecutive words.
#ptile = #tile.fragment<threads = ${THREADS}, map = (n, w) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + w mod ${KT},
   (n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv ${KT})
     + w floordiv ${KT})>
// X tile: the 8 columns of each word of P, on every group.
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  (s0 * ${KT} + (k floordiv 8) mod ${KT},
   (m * (${BKW} floordiv ${KT}) + k floordiv (${KT} * 8)) * 8 + k mod 8),
  replicate = ${GROUPS}>
// Scales (and zeros): group g of row n on the G / 8 threads whose words
// it covers.
#stile = #tile.fragment<threads = ${THREADS}, map = (n, g)[s0] ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT}
     + (g * (${G} floordiv 8) + s0) mod ${KT},
   (n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv ${KT})
     + (g * (${G} floordiv 8)) floordiv ${KT}),
  replicate = ${GR}>
// The dequantized weights: (n, k) where word k / 8 of row n is loaded.
#wtile = #tile.fragment<threads = ${THREADS}, map = (n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (k floordiv 8) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv ${KT})
     + k floordiv (${KT} * 8)) * 8 + k mod 8)>
// Products: element (m, n, w, e) sums the products of the weights of
// parity e in word w of row n, on the thread that holds the word.
#acctile = #tile.fragment<threads = ${THREADS}, map = (m, n, w, e) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + w mod ${KT},
   ((m * (${BN} floordiv ${GROUPS}) + n mod (${BN} floordiv ${GROUPS}))
       * (${BKW} floordiv ${KT})
     + w floordiv ${KT}) * 2 + e)>

func.func @gemv_w4a16(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                      %S: memref<?x?x${AT}>, %Z: memref<?x?x${AT}>,
                      %Y: memref<?x?x${AT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %gs = arith.constant ${GS} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  %steps = arith.ceildivui %K, %bk : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS}) {
    %psh = tile.alloc
        : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %p = tile.alloc {layout = #ptile} : memref<${BN}x${BKW}xi32, #tile.fragment>
    %xsh = tile.alloc
        : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %x = tile.alloc {layout = #xtile}
        : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %ssh = tile.alloc
        : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %s = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %zsh = tile.alloc
        : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %z = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %wd = tile.alloc {layout = #wtile}
        : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %wc = tile.alloc {layout = #wtile}
        : memref<${BN}x${BK}x${CT}, #tile.fragment>
    %xc = tile.alloc {layout = #xtile}
        : memref<${BM}x${BK}x${CT}, #tile.fragment>
    %acc = tile.alloc {layout = #acctile}
        : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
    %sc = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${CT}, #tile.fragment>
    %acc2 = tile.alloc : memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %t = %c0 to %steps step %c1 stages(${STAGES}) {
      %k0 = arith.muli %t, %bk : index
      %b0 = arith.muli %t, %bkw : index
      %g0 = arith.muli %t, %gs : index
      tile.copy %P[%n0, %b0] -> %psh
          : memref<?x?xi32>
         -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %psh -> %p
          : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BKW}xi32, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %xsh
          : memref<?x?x${AT}>
         -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %xsh -> %x
          : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.copy %S[%n0, %g0] -> %ssh
          : memref<?x?x${AT}>
         -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %ssh -> %s
          : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.copy %Z[%n0, %g0] -> %zsh
          : memref<?x?x${AT}>
         -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %zsh -> %z
          : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %kw = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %word = memref.load %p[%j, %kw]
            : memref<${BN}x${BKW}xi32, #tile.fragment>
        // Bit offset 16 (k mod 2) + 4 ((k mod 8) / 2) of the nibble.
        %hi = arith.muli %odd, %c16i : index
        %lo = arith.muli %nib4, %c4i : index
        %shift = arith.addi %hi, %lo : index
        %shift32 = arith.index_cast %shift : index to i32
        %nib = arith.shrui %word, %shift32 : i32
        // The nibble as a masked word, not truncated to i4: LLVM would make
        // the unpacked fragment a vector of i4, which both backends build
        // through local memory (scratch on AMD).
        %c15 = arith.constant 15 : i32
        %q = arith.andi %nib, %c15 : i32
        %qf = arith.uitofp %q : i32 to ${AT}
        %cg = arith.constant ${G} : index
        %g = arith.divui %k, %cg : index
        %zv = memref.load %z[%j, %g] : memref<${BN}x${GS}x${AT}, #tile.fragment>
        // (q + ZM) - (z + ZM): q + ZM is the bits the conversion makes.
        %zm = arith.constant ${ZM} : ${AT}
        %qb = arith.addf %qf, %zm : ${AT}
        %zb = arith.addf %zv, %zm : ${AT}
        %d = arith.subf %qb, %zb fastmath<reassoc> : ${AT}
        memref.store %d, %wd[%j, %k]
            : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      // The products in CT: the copies convert (none when CT = AT), and
      // the multiply-add may contract into one fma (fma.rn.f16x2 on
      // pairs).
      tile.copy %wd -> %wc : memref<${BN}x${BK}x${AT}, #tile.fragment>
          -> memref<${BN}x${BK}x${CT}, #tile.fragment>
      tile.copy %x -> %xc : memref<${BM}x${BK}x${AT}, #tile.fragment>
          -> memref<${BM}x${BK}x${CT}, #tile.fragment>
      tile.copy %s -> %sc : memref<${BN}x${GS}x${AT}, #tile.fragment>
          -> memref<${BN}x${GS}x${CT}, #tile.fragment>
      // Parity e of word w: weights 8w + e + 2i, i = 0..3, share a scale.
      tile.parallel (%i, %j, %w, %e) in (${BM}, ${BN}, ${BKW}, 2) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c6i = arith.constant 6 : index
        %c8i = arith.constant 8 : index
        %cgr = arith.constant ${GR} : index
        %kw8 = arith.muli %w, %c8i : index
        %kk0 = arith.addi %kw8, %e : index
        %kk1 = arith.addi %kk0, %c2i : index
        %kk2 = arith.addi %kk0, %c4i : index
        %kk3 = arith.addi %kk0, %c6i : index
        %w0 = memref.load %wc[%j, %kk0] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w1 = memref.load %wc[%j, %kk1] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w2 = memref.load %wc[%j, %kk2] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w3 = memref.load %wc[%j, %kk3] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x0 = memref.load %xc[%i, %kk0] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x1 = memref.load %xc[%i, %kk1] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x2 = memref.load %xc[%i, %kk2] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x3 = memref.load %xc[%i, %kk3] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p0 = arith.mulf %w0, %x0 fastmath<contract> : ${CT}
        %p1 = arith.mulf %w1, %x1 fastmath<contract> : ${CT}
        %t1 = arith.addf %p1, %p0 fastmath<contract> : ${CT}
        %p2 = arith.mulf %w2, %x2 fastmath<contract> : ${CT}
        %t2 = arith.addf %p2, %t1 fastmath<contract> : ${CT}
        %p3 = arith.mulf %w3, %x3 fastmath<contract> : ${CT}
        %t3 = arith.addf %p3, %t2 fastmath<contract> : ${CT}
        %g = arith.divui %w, %cgr : index
        %sv = memref.load %sc[%j, %g] : memref<${BN}x${GS}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %w, %e]
            : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
        %u = arith.mulf %t3, %sv fastmath<contract> : ${CT}
        %sum = arith.addf %u, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %w, %e]
            : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %acc2 dim(3)
        : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
    tile.reduce sum %acc2 -> %y dim(2)
        : memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}

func.func @gemv_w4a16_sym(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                          %S: memref<?x?x${AT}>, %Y: memref<?x?x${AT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %gs = arith.constant ${GS} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  %steps = arith.ceildivui %K, %bk : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS}) {
    %psh = tile.alloc
        : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %p = tile.alloc {layout = #ptile} : memref<${BN}x${BKW}xi32, #tile.fragment>
    %xsh = tile.alloc
        : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %x = tile.alloc {layout = #xtile}
        : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %ssh = tile.alloc
        : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %s = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %wd = tile.alloc {layout = #wtile}
        : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %wc = tile.alloc {layout = #wtile}
        : memref<${BN}x${BK}x${CT}, #tile.fragment>
    %xc = tile.alloc {layout = #xtile}
        : memref<${BM}x${BK}x${CT}, #tile.fragment>
    %acc = tile.alloc {layout = #acctile}
        : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
    %sc = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${CT}, #tile.fragment>
    %acc2 = tile.alloc : memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %t = %c0 to %steps step %c1 stages(${STAGES}) {
      %k0 = arith.muli %t, %bk : index
      %b0 = arith.muli %t, %bkw : index
      %g0 = arith.muli %t, %gs : index
      tile.copy %P[%n0, %b0] -> %psh
          : memref<?x?xi32>
         -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %psh -> %p
          : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BKW}xi32, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %xsh
          : memref<?x?x${AT}>
         -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %xsh -> %x
          : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.copy %S[%n0, %g0] -> %ssh
          : memref<?x?x${AT}>
         -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %ssh -> %s
          : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %kw = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %word = memref.load %p[%j, %kw]
            : memref<${BN}x${BKW}xi32, #tile.fragment>
        %hi = arith.muli %odd, %c16i : index
        %lo = arith.muli %nib4, %c4i : index
        %shift = arith.addi %hi, %lo : index
        %shift32 = arith.index_cast %shift : index to i32
        %nib = arith.shrui %word, %shift32 : i32
        %c15 = arith.constant 15 : i32
        %q = arith.andi %nib, %c15 : i32
        %qf = arith.uitofp %q : i32 to ${AT}
        %zv = arith.constant 8.0 : ${AT}
        // (q + ZM) - (z + ZM): q + ZM is the bits the conversion makes.
        %zm = arith.constant ${ZM} : ${AT}
        %qb = arith.addf %qf, %zm : ${AT}
        %zb = arith.addf %zv, %zm : ${AT}
        %d = arith.subf %qb, %zb fastmath<reassoc> : ${AT}
        memref.store %d, %wd[%j, %k]
            : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      // The products in CT: the copies convert (none when CT = AT), and
      // the multiply-add may contract into one fma (fma.rn.f16x2 on
      // pairs).
      tile.copy %wd -> %wc : memref<${BN}x${BK}x${AT}, #tile.fragment>
          -> memref<${BN}x${BK}x${CT}, #tile.fragment>
      tile.copy %x -> %xc : memref<${BM}x${BK}x${AT}, #tile.fragment>
          -> memref<${BM}x${BK}x${CT}, #tile.fragment>
      tile.copy %s -> %sc : memref<${BN}x${GS}x${AT}, #tile.fragment>
          -> memref<${BN}x${GS}x${CT}, #tile.fragment>
      // Parity e of word w: weights 8w + e + 2i, i = 0..3, share a scale.
      tile.parallel (%i, %j, %w, %e) in (${BM}, ${BN}, ${BKW}, 2) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c6i = arith.constant 6 : index
        %c8i = arith.constant 8 : index
        %cgr = arith.constant ${GR} : index
        %kw8 = arith.muli %w, %c8i : index
        %kk0 = arith.addi %kw8, %e : index
        %kk1 = arith.addi %kk0, %c2i : index
        %kk2 = arith.addi %kk0, %c4i : index
        %kk3 = arith.addi %kk0, %c6i : index
        %w0 = memref.load %wc[%j, %kk0] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w1 = memref.load %wc[%j, %kk1] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w2 = memref.load %wc[%j, %kk2] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %w3 = memref.load %wc[%j, %kk3] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x0 = memref.load %xc[%i, %kk0] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x1 = memref.load %xc[%i, %kk1] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x2 = memref.load %xc[%i, %kk2] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %x3 = memref.load %xc[%i, %kk3] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p0 = arith.mulf %w0, %x0 fastmath<contract> : ${CT}
        %p1 = arith.mulf %w1, %x1 fastmath<contract> : ${CT}
        %t1 = arith.addf %p1, %p0 fastmath<contract> : ${CT}
        %p2 = arith.mulf %w2, %x2 fastmath<contract> : ${CT}
        %t2 = arith.addf %p2, %t1 fastmath<contract> : ${CT}
        %p3 = arith.mulf %w3, %x3 fastmath<contract> : ${CT}
        %t3 = arith.addf %p3, %t2 fastmath<contract> : ${CT}
        %g = arith.divui %w, %cgr : index
        %sv = memref.load %sc[%j, %g] : memref<${BN}x${GS}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %w, %e]
            : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
        %u = arith.mulf %t3, %sv fastmath<contract> : ${CT}
        %sum = arith.addf %u, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %w, %e]
            : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %acc2 dim(3)
        : memref<${BM}x${BN}x${BKW}x2x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
    tile.reduce sum %acc2 -> %y dim(2)
        : memref<${BM}x${BN}x${BKW}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}
