// The tile library W4A16 GEMV: Y = X * dequant(P)^T with X stored M x K in
// f16 or bf16 (M small), 4-bit weights packed eight per 32-bit word in P
// (N x ceil(K / 8) i32; word c of a row holds weights 8c + 2i in bits
// 4i..4i+3 and 8c + 2i + 1 in bits 16+4i..16+4i+3, i = 0..3), one scale per
// group of G consecutive weights of a row in S (N x ceil(K / G), the type of
// X) and, for `gemv_w4a16`, one zero point per group in Z (same shape and
// type); `gemv_w4a16_sym` takes no Z and subtracts 8. Weight (n, k) is
// (q - z) * s, computed in the type of X; products accumulate in CT.
// docs/Quantized.md describes the layout; bench/w4pack.py packs it.
//
// The structure is kernels/gemv.mlir's (a row of P shared by KT threads,
// products accumulated in registers, one tile.reduce after the K loop), with
// 16-byte chunks of P holding 32 weights each: every thread loads whole
// chunks with one vector load and unpacks them in registers. The
// unpacking is the tile.parallel of the TileLang paper's Fig. 17: weight
// k reads word k / 8 of the fragment, shifts it by 16 (k mod 2) +
// 4 ((k mod 8) / 2) and masks the nibble. The compiler runs the loop two
// weights (k, k + 1) at a time: both come from one word at offsets 16
// apart, so one shift and one mask extract the pair into the two halves of
// a 32-bit register, and the conversion, zero point and scale are one
// packed f16x2 / bf16x2 operation each (docs/Quantized.md): the dequantized
// weights go to a fragment, which a second tile.parallel multiplies with X
// into the accumulator in CT.
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS, KT, GROUPS, BN, BM  as in kernels/gemv.mlir
//   BK       weights per row per step: a multiple of 32 * KT
//   BKW      BK / 8, the 32-bit words of P per row per step
//   G        group size: 32, 64 or 128 (G / 32 must divide KT)
//   GS       BK / G, the groups per row per step
//   GR       G / 32, the threads sharing one scale
//   AT       type of X, S, Z and Y: f16 or bf16
//   CT       type the products accumulate in during the K loop (the sums
//            over K steps), before the f32 reduction: f16 (the default
//            for f16; one fma.rn.f16x2 per pair of weights) or f32 (the
//            default for bf16, by the tile.params(AT=bf16) line)
// tile.params(sm_90a): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
// tile.params(sm_80): THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
//
// tile.params: THREADS=128 KT=32 GROUPS=4 BN=8 BK=1024 BKW=128 BM=1
// tile.params: G=128 GR=4 GS=8 AT=f16 CT=f16
// tile.params(AT=bf16): CT=f32

// P tile: row n on thread group n / RW (RW = BN / GROUPS), 16-byte chunk
// c (words 4c..4c+3) of the row on thread c mod KT of the group.
#ptile = #tile.fragment<threads = ${THREADS}, map = (n, w) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (w floordiv 4) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS})) * (${BKW} floordiv (${KT} * 4))
     + w floordiv (${KT} * 4)) * 4 + w mod 4)>
// X tile: the 32 columns of each chunk of P, on every group.
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  (s0 * ${KT} + (k floordiv 32) mod ${KT},
   (m * (${BK} floordiv (${KT} * 32)) + k floordiv (${KT} * 32)) * 32
     + k mod 32),
  replicate = ${GROUPS}>
// Scales (and zeros): group g of row n on the G / 32 threads whose chunks
// it covers.
#stile = #tile.fragment<threads = ${THREADS}, map = (n, g)[s0] ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT}
     + (g * (${G} floordiv 32) + s0) mod ${KT},
   (n mod (${BN} floordiv ${GROUPS})) * (${BK} floordiv (${KT} * 32))
     + (g * (${G} floordiv 32)) floordiv ${KT}),
  replicate = ${GR}>
// The dequantized weights: (n, k) where word k / 8 of row n is loaded.
#wtile = #tile.fragment<threads = ${THREADS}, map = (n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (k floordiv 32) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS})) * (${BK} floordiv (${KT} * 32))
     + k floordiv (${KT} * 32)) * 32 + k mod 32)>
// Products: element (m, n, k) where weight (n, k) is unpacked.
#acctile = #tile.fragment<threads = ${THREADS}, map = (m, n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT} + (k floordiv 32) mod ${KT},
   ((m * (${BN} floordiv ${GROUPS}) + n mod (${BN} floordiv ${GROUPS}))
       * (${BK} floordiv (${KT} * 32))
     + k floordiv (${KT} * 32)) * 32 + k mod 32)>

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
    %p = tile.alloc {layout = #ptile} : memref<${BN}x${BKW}xi32, #tile.fragment>
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %s = tile.alloc {layout = #stile} : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %z = tile.alloc {layout = #stile} : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %wd = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %wc = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${CT}, #tile.fragment>
    %xc = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${CT}, #tile.fragment>
    %acc = tile.alloc {layout = #acctile}
        : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    scf.for %t = %c0 to %steps step %c1 {
      %k0 = arith.muli %t, %bk : index
      %b0 = arith.muli %t, %bkw : index
      %g0 = arith.muli %t, %gs : index
      tile.copy %P[%n0, %b0] -> %p
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.copy %S[%n0, %g0] -> %s
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.copy %Z[%n0, %g0] -> %z
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %cg = arith.constant ${G} : index
        %kw = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %g = arith.divui %k, %cg : index
        %word = memref.load %p[%j, %kw] : memref<${BN}x${BKW}xi32, #tile.fragment>
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
        %sv = memref.load %s[%j, %g] : memref<${BN}x${GS}x${AT}, #tile.fragment>
        %zv = memref.load %z[%j, %g] : memref<${BN}x${GS}x${AT}, #tile.fragment>
        %d = arith.subf %qf, %zv : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %wd[%j, %k]
            : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      // The products in CT: the copies convert (none when CT = AT), and
      // the multiply-add may contract into one fma (fma.rn.f16x2 on
      // pairs).
      tile.copy %wd -> %wc : memref<${BN}x${BK}x${AT}, #tile.fragment>
          -> memref<${BN}x${BK}x${CT}, #tile.fragment>
      tile.copy %x -> %xc : memref<${BM}x${BK}x${AT}, #tile.fragment>
          -> memref<${BM}x${BK}x${CT}, #tile.fragment>
      tile.parallel (%i, %j, %k) in (${BM}, ${BN}, ${BK}) {
        %wv = memref.load %wc[%j, %k]
            : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %xv = memref.load %xc[%i, %k]
            : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
        %prod = arith.mulf %wv, %xv fastmath<contract> : ${CT}
        %sum = arith.addf %prod, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %y dim(2)
        : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
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
    %p = tile.alloc {layout = #ptile} : memref<${BN}x${BKW}xi32, #tile.fragment>
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %s = tile.alloc {layout = #stile} : memref<${BN}x${GS}x${AT}, #tile.fragment>
    %wd = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %wc = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${CT}, #tile.fragment>
    %xc = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${CT}, #tile.fragment>
    %acc = tile.alloc {layout = #acctile}
        : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %acc : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    scf.for %t = %c0 to %steps step %c1 {
      %k0 = arith.muli %t, %bk : index
      %b0 = arith.muli %t, %bkw : index
      %g0 = arith.muli %t, %gs : index
      tile.copy %P[%n0, %b0] -> %p
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.copy %S[%n0, %g0] -> %s
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #tile.fragment>
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %cg = arith.constant ${G} : index
        %kw = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %g = arith.divui %k, %cg : index
        %word = memref.load %p[%j, %kw] : memref<${BN}x${BKW}xi32, #tile.fragment>
        %hi = arith.muli %odd, %c16i : index
        %lo = arith.muli %nib4, %c4i : index
        %shift = arith.addi %hi, %lo : index
        %shift32 = arith.index_cast %shift : index to i32
        %nib = arith.shrui %word, %shift32 : i32
        %c15 = arith.constant 15 : i32
        %q = arith.andi %nib, %c15 : i32
        %qf = arith.uitofp %q : i32 to ${AT}
        %sv = memref.load %s[%j, %g] : memref<${BN}x${GS}x${AT}, #tile.fragment>
        %zv = arith.constant 8.0 : ${AT}
        %d = arith.subf %qf, %zv : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %wd[%j, %k]
            : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      // The products in CT: the copies convert (none when CT = AT), and
      // the multiply-add may contract into one fma (fma.rn.f16x2 on
      // pairs).
      tile.copy %wd -> %wc : memref<${BN}x${BK}x${AT}, #tile.fragment>
          -> memref<${BN}x${BK}x${CT}, #tile.fragment>
      tile.copy %x -> %xc : memref<${BM}x${BK}x${AT}, #tile.fragment>
          -> memref<${BM}x${BK}x${CT}, #tile.fragment>
      tile.parallel (%i, %j, %k) in (${BM}, ${BN}, ${BK}) {
        %wv = memref.load %wc[%j, %k]
            : memref<${BN}x${BK}x${CT}, #tile.fragment>
        %xv = memref.load %xc[%i, %k]
            : memref<${BM}x${BK}x${CT}, #tile.fragment>
        %a = memref.load %acc[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
        %prod = arith.mulf %wv, %xv fastmath<contract> : ${CT}
        %sum = arith.addf %prod, %a fastmath<contract> : ${CT}
        memref.store %sum, %acc[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
      }
    }
    tile.reduce sum %acc -> %y dim(2)
        : memref<${BM}x${BN}x${BK}x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}
