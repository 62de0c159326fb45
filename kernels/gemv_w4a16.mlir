// The tile library W4A16 GEMV: Y = X * dequant(P)^T with X stored M x K in
// f16 or bf16 (M small), 4-bit weights packed eight per 32-bit word in P
// (N x at least ceil(K / 8) i32, rows of a multiple of 4 words loading 16
// bytes at a time, as bench/w4pack.py pads them; word c of a row holds
// weights 8c + 2i in bits 4i..4i+3 and 8c + 2i + 1 in bits 16+4i..16+4i+3,
// i = 0..3), one scale per
// group of G consecutive weights of a row in S (N x at least ceil(K / G),
// the type of X; rows of a multiple of 8 groups, as bench/w4pack.py pads
// them, load 16 bytes at a time) and, for `gemv_w4a16`, one zero point per
// group in Z (same shape and type); `gemv_w4a16_sym` takes no Z and subtracts 8. Weight (n, k) is
// (q - z) * s; products accumulate in CT.
// docs/Quantized.md describes the layout; bench/w4pack.py packs it.
//
// Each block owns BN rows of P, KT threads per row. A K step covers BK
// weights of each row, in chunks of four consecutive words (32 weights):
// chunk c of the step belongs to thread c mod KT of the row's group, so
// that each thread reads its chunk of P, and the 32 columns of X it
// multiplies, in 16-byte loads, and each load of a warp reads KT
// consecutive chunks. X is stored with the four 16-byte pieces of each
// chunk permuted (#xshared) so that those loads and the copies' stores are
// free of bank conflicts. The copies of P, X, S and Z go through shared
// memory in a tile.pipelined loop, so that STAGES - 1 steps are in flight
// while the block computes one (the stream of packed weights needs more
// bytes in flight than one step of registers holds). A chunk lies in one
// group (G is a multiple of 32), so a thread loads one scale and one zero
// point per row and chunk, and the scale is applied per chunk, not per
// weight: the sixteen products of each parity of the chunk are summed
// first (two chains of a multiply and seven fmas in CT, and an add) and
// the sum is multiplied by the scale into the accumulator (one fma). The
// accumulator holds one element per chunk and parity; two tile.reduce
// after the K loop sum each row, within the thread and across its group.
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
//   BK       weights per row per step: a multiple of 32 * KT
//   BKW      BK / 8, the 32-bit words of P per row per step
//   BCW      BK / 32, the chunks of four words per row per step
//   STAGES   steps of the pipelined K loop in flight or in use at once
//   G        group size: 32, 64 or 128 (G / 32 must divide KT)
//   GS       BK / G, the groups per row per step
//   GR       G / 32, the threads sharing one scale (chunks per group)
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
//            (128) for the other one-row builds: those accumulating in f32
//            spill under 5 (G = 32 and 64 no longer do, and are not
//            measured at 5), and 0 (no cap) where BM > 1; each fits
//            without spilling. On sm_90a the default build takes BN = 16
//            and MINB = 4 (128 registers): four chunks a thread per K
//            step, over which the step's fixed work (copy issue, slot
//            arithmetic, barrier) is spread
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
// tile.params(sm_90a): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BCW=32 BM=1
// tile.params(sm_80): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BCW=32 BM=1
// tile.options(sm_90a): no-warp-specialize=true min-blocks-per-sm=${MINB}
// tile.options(sm_80): min-blocks-per-sm=${MINB}
//
// tile.params: THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BCW=32 BM=1
// tile.params: STAGES=4 G=128 GR=4 GS=8 AT=f16 CT=f16 ZM=1024.0 MINB=5
// tile.params(AT=bf16): CT=f32 ZM=128.0
// tile.params(CT=f32): MINB=4
// tile.params(G=32): GR=1 GS=32 MINB=4
// tile.params(G=64): GR=2 GS=16 MINB=4
// tile.params(BM=2): MINB=0
// tile.params(BM=4): MINB=0
// tile.params(sm_90a AT=f16 CT=f16 G=128 BM=1): BN=16 MINB=4

// P tile: row n on thread group n / RW (RW = BN / GROUPS); chunk c of
// four consecutive words of the row step (c = w / 4) on thread c mod KT of
// the group, so that each 16-byte load of a warp reads KT consecutive
// chunks.
#ptile = #tile.fragment<threads = ${THREADS}, map = (n, w) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (w floordiv 4) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv (${KT} * 4))
     + w floordiv (${KT} * 4)) * 4 + w mod 4)>
// X tile: the 32 columns of each chunk of P, on every group.
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  (s0 * ${KT} + (k floordiv 32) mod ${KT},
   (m * (${BKW} floordiv (${KT} * 4)) + k floordiv (${KT} * 32)) * 32
     + k mod 32),
  replicate = ${GROUPS}>
// X in shared memory: row-major with the 16-byte chunks of each thread's
// 64 bytes permuted (chunk u of thread t's four at u xor ((t / 2) mod 4)),
// so that the 16-byte loads of one word of eight consecutive threads, and
// the copies' 16-byte stores, hit eight different bank groups.
#xshared = #tile.layout<[${BM}, ${BK}], (m, k) -> (m * ${BK} + k), xor<2, 3, 3>>
// Scales (and zeros): group g of row n on the threads whose chunks it
// covers (GR of them).
#stile = #tile.fragment<threads = ${THREADS}, map = (n, g)[s0] ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT}
     + (g * ${GR} + s0) mod ${KT},
   (n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv (${KT} * 4))
     + (g * ${GR}) floordiv ${KT}),
  replicate = ${GR}>
// The dequantized weights: (n, k) where word k / 8 of row n is loaded.
#wtile = #tile.fragment<threads = ${THREADS}, map = (n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (k floordiv 32) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv (${KT} * 4))
     + k floordiv (${KT} * 32)) * 32 + k mod 32)>
// Products: element (m, n, c, e) sums the products of the weights of
// parity e in chunk c of row n, on the thread that holds the chunk.
#acctile = #tile.fragment<threads = ${THREADS}, map = (m, n, c, e) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + c mod ${KT},
   ((m * (${BN} floordiv ${GROUPS}) + n mod (${BN} floordiv ${GROUPS}))
       * (${BKW} floordiv (${KT} * 4))
     + c floordiv ${KT}) * 2 + e)>

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
    %xsh = tile.alloc {layout = #xshared}
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
        : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
    %sc = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${CT}, #tile.fragment>
    %acc2 = tile.alloc : memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
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
      // Parity e of chunk c: weights 32c + 8u + 2v + e, u, v = 0..3, share
      // a scale: their sixteen products are summed, in two chains of fmas
      // in CT (words 0-1 and 2-3, for the latency), then multiplied by it
      // into the accumulator.
      tile.parallel (%i, %j, %c, %e) in (${BM}, ${BN}, ${BCW}, 2) {
        %c32i = arith.constant 32 : index
        %cgr = arith.constant ${GR} : index
        %kc = arith.muli %c, %c32i : index
        %kb = arith.addi %kc, %e : index
        %w00 = memref.load %wc[%j, %kb] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x00 = memref.load %xc[%i, %kb] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p00 = arith.mulf %w00, %x00 fastmath<contract> : ${CT}
        %o01 = arith.constant 2 : index
        %k01 = arith.addi %kb, %o01 : index
        %w01 = memref.load %wc[%j, %k01] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x01 = memref.load %xc[%i, %k01] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p01 = arith.mulf %w01, %x01 fastmath<contract> : ${CT}
        %a1 = arith.addf %p01, %p00 fastmath<contract> : ${CT}
        %o02 = arith.constant 4 : index
        %k02 = arith.addi %kb, %o02 : index
        %w02 = memref.load %wc[%j, %k02] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x02 = memref.load %xc[%i, %k02] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p02 = arith.mulf %w02, %x02 fastmath<contract> : ${CT}
        %a2 = arith.addf %p02, %a1 fastmath<contract> : ${CT}
        %o03 = arith.constant 6 : index
        %k03 = arith.addi %kb, %o03 : index
        %w03 = memref.load %wc[%j, %k03] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x03 = memref.load %xc[%i, %k03] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p03 = arith.mulf %w03, %x03 fastmath<contract> : ${CT}
        %a3 = arith.addf %p03, %a2 fastmath<contract> : ${CT}
        %o10 = arith.constant 8 : index
        %k10 = arith.addi %kb, %o10 : index
        %w10 = memref.load %wc[%j, %k10] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x10 = memref.load %xc[%i, %k10] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p10 = arith.mulf %w10, %x10 fastmath<contract> : ${CT}
        %a4 = arith.addf %p10, %a3 fastmath<contract> : ${CT}
        %o11 = arith.constant 10 : index
        %k11 = arith.addi %kb, %o11 : index
        %w11 = memref.load %wc[%j, %k11] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x11 = memref.load %xc[%i, %k11] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p11 = arith.mulf %w11, %x11 fastmath<contract> : ${CT}
        %a5 = arith.addf %p11, %a4 fastmath<contract> : ${CT}
        %o12 = arith.constant 12 : index
        %k12 = arith.addi %kb, %o12 : index
        %w12 = memref.load %wc[%j, %k12] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x12 = memref.load %xc[%i, %k12] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p12 = arith.mulf %w12, %x12 fastmath<contract> : ${CT}
        %a6 = arith.addf %p12, %a5 fastmath<contract> : ${CT}
        %o13 = arith.constant 14 : index
        %k13 = arith.addi %kb, %o13 : index
        %w13 = memref.load %wc[%j, %k13] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x13 = memref.load %xc[%i, %k13] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p13 = arith.mulf %w13, %x13 fastmath<contract> : ${CT}
        %a7 = arith.addf %p13, %a6 fastmath<contract> : ${CT}
        %o20 = arith.constant 16 : index
        %k20 = arith.addi %kb, %o20 : index
        %w20 = memref.load %wc[%j, %k20] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x20 = memref.load %xc[%i, %k20] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p20 = arith.mulf %w20, %x20 fastmath<contract> : ${CT}
        %o21 = arith.constant 18 : index
        %k21 = arith.addi %kb, %o21 : index
        %w21 = memref.load %wc[%j, %k21] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x21 = memref.load %xc[%i, %k21] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p21 = arith.mulf %w21, %x21 fastmath<contract> : ${CT}
        %b1 = arith.addf %p21, %p20 fastmath<contract> : ${CT}
        %o22 = arith.constant 20 : index
        %k22 = arith.addi %kb, %o22 : index
        %w22 = memref.load %wc[%j, %k22] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x22 = memref.load %xc[%i, %k22] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p22 = arith.mulf %w22, %x22 fastmath<contract> : ${CT}
        %b2 = arith.addf %p22, %b1 fastmath<contract> : ${CT}
        %o23 = arith.constant 22 : index
        %k23 = arith.addi %kb, %o23 : index
        %w23 = memref.load %wc[%j, %k23] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x23 = memref.load %xc[%i, %k23] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p23 = arith.mulf %w23, %x23 fastmath<contract> : ${CT}
        %b3 = arith.addf %p23, %b2 fastmath<contract> : ${CT}
        %o30 = arith.constant 24 : index
        %k30 = arith.addi %kb, %o30 : index
        %w30 = memref.load %wc[%j, %k30] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x30 = memref.load %xc[%i, %k30] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p30 = arith.mulf %w30, %x30 fastmath<contract> : ${CT}
        %b4 = arith.addf %p30, %b3 fastmath<contract> : ${CT}
        %o31 = arith.constant 26 : index
        %k31 = arith.addi %kb, %o31 : index
        %w31 = memref.load %wc[%j, %k31] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x31 = memref.load %xc[%i, %k31] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p31 = arith.mulf %w31, %x31 fastmath<contract> : ${CT}
        %b5 = arith.addf %p31, %b4 fastmath<contract> : ${CT}
        %o32 = arith.constant 28 : index
        %k32 = arith.addi %kb, %o32 : index
        %w32 = memref.load %wc[%j, %k32] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x32 = memref.load %xc[%i, %k32] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p32 = arith.mulf %w32, %x32 fastmath<contract> : ${CT}
        %b6 = arith.addf %p32, %b5 fastmath<contract> : ${CT}
        %o33 = arith.constant 30 : index
        %k33 = arith.addi %kb, %o33 : index
        %w33 = memref.load %wc[%j, %k33] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x33 = memref.load %xc[%i, %k33] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p33 = arith.mulf %w33, %x33 fastmath<contract> : ${CT}
        %b7 = arith.addf %p33, %b6 fastmath<contract> : ${CT}
        %t16 = arith.addf %a7, %b7 : ${CT}
        %g = arith.divui %c, %cgr : index
        %sv = memref.load %sc[%j, %g] : memref<${BN}x${GS}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %c, %e]
            : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
        %u = arith.mulf %t16, %sv fastmath<contract> : ${CT}
        %sum = arith.addf %u, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %c, %e]
            : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %acc2 dim(3)
        : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
    tile.reduce sum %acc2 -> %y dim(2)
        : memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
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
    %xsh = tile.alloc {layout = #xshared}
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
        : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
    %sc = tile.alloc {layout = #stile}
        : memref<${BN}x${GS}x${CT}, #tile.fragment>
    %acc2 = tile.alloc : memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
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
      // Parity e of chunk c: weights 32c + 8u + 2v + e, u, v = 0..3, share
      // a scale: their sixteen products are summed, in two chains of fmas
      // in CT (words 0-1 and 2-3, for the latency), then multiplied by it
      // into the accumulator.
      tile.parallel (%i, %j, %c, %e) in (${BM}, ${BN}, ${BCW}, 2) {
        %c32i = arith.constant 32 : index
        %cgr = arith.constant ${GR} : index
        %kc = arith.muli %c, %c32i : index
        %kb = arith.addi %kc, %e : index
        %w00 = memref.load %wc[%j, %kb] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x00 = memref.load %xc[%i, %kb] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p00 = arith.mulf %w00, %x00 fastmath<contract> : ${CT}
        %o01 = arith.constant 2 : index
        %k01 = arith.addi %kb, %o01 : index
        %w01 = memref.load %wc[%j, %k01] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x01 = memref.load %xc[%i, %k01] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p01 = arith.mulf %w01, %x01 fastmath<contract> : ${CT}
        %a1 = arith.addf %p01, %p00 fastmath<contract> : ${CT}
        %o02 = arith.constant 4 : index
        %k02 = arith.addi %kb, %o02 : index
        %w02 = memref.load %wc[%j, %k02] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x02 = memref.load %xc[%i, %k02] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p02 = arith.mulf %w02, %x02 fastmath<contract> : ${CT}
        %a2 = arith.addf %p02, %a1 fastmath<contract> : ${CT}
        %o03 = arith.constant 6 : index
        %k03 = arith.addi %kb, %o03 : index
        %w03 = memref.load %wc[%j, %k03] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x03 = memref.load %xc[%i, %k03] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p03 = arith.mulf %w03, %x03 fastmath<contract> : ${CT}
        %a3 = arith.addf %p03, %a2 fastmath<contract> : ${CT}
        %o10 = arith.constant 8 : index
        %k10 = arith.addi %kb, %o10 : index
        %w10 = memref.load %wc[%j, %k10] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x10 = memref.load %xc[%i, %k10] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p10 = arith.mulf %w10, %x10 fastmath<contract> : ${CT}
        %a4 = arith.addf %p10, %a3 fastmath<contract> : ${CT}
        %o11 = arith.constant 10 : index
        %k11 = arith.addi %kb, %o11 : index
        %w11 = memref.load %wc[%j, %k11] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x11 = memref.load %xc[%i, %k11] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p11 = arith.mulf %w11, %x11 fastmath<contract> : ${CT}
        %a5 = arith.addf %p11, %a4 fastmath<contract> : ${CT}
        %o12 = arith.constant 12 : index
        %k12 = arith.addi %kb, %o12 : index
        %w12 = memref.load %wc[%j, %k12] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x12 = memref.load %xc[%i, %k12] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p12 = arith.mulf %w12, %x12 fastmath<contract> : ${CT}
        %a6 = arith.addf %p12, %a5 fastmath<contract> : ${CT}
        %o13 = arith.constant 14 : index
        %k13 = arith.addi %kb, %o13 : index
        %w13 = memref.load %wc[%j, %k13] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x13 = memref.load %xc[%i, %k13] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p13 = arith.mulf %w13, %x13 fastmath<contract> : ${CT}
        %a7 = arith.addf %p13, %a6 fastmath<contract> : ${CT}
        %o20 = arith.constant 16 : index
        %k20 = arith.addi %kb, %o20 : index
        %w20 = memref.load %wc[%j, %k20] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x20 = memref.load %xc[%i, %k20] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p20 = arith.mulf %w20, %x20 fastmath<contract> : ${CT}
        %o21 = arith.constant 18 : index
        %k21 = arith.addi %kb, %o21 : index
        %w21 = memref.load %wc[%j, %k21] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x21 = memref.load %xc[%i, %k21] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p21 = arith.mulf %w21, %x21 fastmath<contract> : ${CT}
        %b1 = arith.addf %p21, %p20 fastmath<contract> : ${CT}
        %o22 = arith.constant 20 : index
        %k22 = arith.addi %kb, %o22 : index
        %w22 = memref.load %wc[%j, %k22] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x22 = memref.load %xc[%i, %k22] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p22 = arith.mulf %w22, %x22 fastmath<contract> : ${CT}
        %b2 = arith.addf %p22, %b1 fastmath<contract> : ${CT}
        %o23 = arith.constant 22 : index
        %k23 = arith.addi %kb, %o23 : index
        %w23 = memref.load %wc[%j, %k23] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x23 = memref.load %xc[%i, %k23] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p23 = arith.mulf %w23, %x23 fastmath<contract> : ${CT}
        %b3 = arith.addf %p23, %b2 fastmath<contract> : ${CT}
        %o30 = arith.constant 24 : index
        %k30 = arith.addi %kb, %o30 : index
        %w30 = memref.load %wc[%j, %k30] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x30 = memref.load %xc[%i, %k30] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p30 = arith.mulf %w30, %x30 fastmath<contract> : ${CT}
        %b4 = arith.addf %p30, %b3 fastmath<contract> : ${CT}
        %o31 = arith.constant 26 : index
        %k31 = arith.addi %kb, %o31 : index
        %w31 = memref.load %wc[%j, %k31] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x31 = memref.load %xc[%i, %k31] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p31 = arith.mulf %w31, %x31 fastmath<contract> : ${CT}
        %b5 = arith.addf %p31, %b4 fastmath<contract> : ${CT}
        %o32 = arith.constant 28 : index
        %k32 = arith.addi %kb, %o32 : index
        %w32 = memref.load %wc[%j, %k32] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x32 = memref.load %xc[%i, %k32] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p32 = arith.mulf %w32, %x32 fastmath<contract> : ${CT}
        %b6 = arith.addf %p32, %b5 fastmath<contract> : ${CT}
        %o33 = arith.constant 30 : index
        %k33 = arith.addi %kb, %o33 : index
        %w33 = memref.load %wc[%j, %k33] : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %x33 = memref.load %xc[%i, %k33] : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %p33 = arith.mulf %w33, %x33 fastmath<contract> : ${CT}
        %b7 = arith.addf %p33, %b6 fastmath<contract> : ${CT}
        %t16 = arith.addf %a7, %b7 : ${CT}
        %g = arith.divui %c, %cgr : index
        %sv = memref.load %sc[%j, %g] : memref<${BN}x${GS}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %c, %e]
            : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
        %u = arith.mulf %t16, %sv fastmath<contract> : ${CT}
        %sum = arith.addf %u, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %c, %e]
            : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %acc2 dim(3)
        : memref<${BM}x${BN}x${BCW}x2x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
    tile.reduce sum %acc2 -> %y dim(2)
        : memref<${BM}x${BN}x${BCW}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}
