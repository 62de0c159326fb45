// The tile library W4A16 GEMM: Y = X * dequant(P)^T for large M, with X
// stored M x K in f16 or bf16, the 4-bit weights of an N x K matrix packed
// in P, one scale per group of G weights of a row in S and, for
// `gemm_w4a16`, one zero point per group in Z: the layout of
// kernels/gemv_w4a16.mlir (docs/Quantized.md; bench/w4pack.py packs it),
// so one packed model serves both kernels. Weight (n, k) is (q - z) * s,
// computed in the type of X; `gemm_w4a16_sym` takes no Z and subtracts 8.
// Products accumulate in f32 on the tensor cores.
//
// The structure is kernels/gemm_nt.mlir's (B stored N x K, transpose_b),
// with B read packed: each step of the pipelined K loop copies a BM x BK
// tile of X, the BN x BK / 8 words of P and the BN x 8 scales (and zeros)
// that start at group k / G into shared memory (TMA loads from a producer
// warpgroup on sm_90a), and the consumers dequantize the packed tile into
// a BN x BK tile of the type of X in shared memory with the tile.parallel
// of the TileLang paper's Fig. 17 (two weights per word at offsets 16
// apart, so pairs of weights unpack, convert and scale as f16x2 / bf16x2
// operations), which the gemm then reads as its B operand. Eight columns of
// scales from a multiple of 8 on are copied per step, not the one or two a
// step uses, because a TMA box row must be 16 bytes and start on a 16-byte
// boundary: with rows of S not a multiple of 16 bytes (ceil(K / G) not a
// multiple of 8), the runtime runs the cp.async build instead.
//
// Parameters (tile-compile -D NAME=VALUE):
//   BM, BN, BK, STAGES, THREADS, POLICY, PANEL, RASTER  as in
//               kernels/gemm_nn.mlir; BK divides G or G divides BK, and
//               BK <= 8 G
//   BKW         BK / 8, the 32-bit words of P per row per step
//   G           group size: 32, 64 or 128
//   AT          type of X, S, Z and Y: f16 or bf16
// tile.params(sm_90a): BM=256 BN=128 BK=128 BKW=16 STAGES=2 THREADS=256
// tile.params(sm_90a): CONSUMERS=256
// tile.params(sm_90a): PANEL=8
// tile.params(sm_80): BM=128 BN=128 BK=32 BKW=4 STAGES=4 THREADS=128 PANEL=8
// tile.options(sm_90a): index-bitwidth=32
// tile.options(sm_80): index-bitwidth=32
//
// tile.params: BM=128 BN=128 BK=32 BKW=4 STAGES=4 THREADS=128 POLICY=square
// tile.params: PANEL=8 RASTER=row G=128 AT=f16 CONSUMERS=128

// The dequantization: each thread unpacks whole words of P, the eight
// consecutive weights of one row a word holds, and stores them as one
// 16-byte vector.
#dequant = #tile.fragment<threads = ${CONSUMERS}, map = (j, k) ->
  ((j * ${BKW} + k floordiv 8) mod ${CONSUMERS},
   ((j * ${BKW} + k floordiv 8) floordiv ${CONSUMERS}) * 8 + k mod 8)>

func.func @gemm_w4a16(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                      %S: memref<?x?x${AT}>, %Z: memref<?x?x${AT}>,
                      %Y: memref<?x?x${AT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %g = arith.constant ${G} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS})
      rasterize(panel = ${PANEL}, order = ${RASTER}) {
    %Xs = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Ps = tile.alloc : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Zs = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Ws = tile.alloc : memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %Cf : memref<${BM}x${BN}xf32, #tile.fragment>
    %m = arith.muli %by, %bm : index
    %n = arith.muli %bx, %bn : index
    // The last K step reads past K; the masked copies give zeros there
    // (zero words of P and zero scales: zero weights).
    %K = memref.dim %X, %c1 : memref<?x?x${AT}>
    %steps = arith.ceildivui %K, %bk : index
    tile.pipelined %t = %c0 to %steps step %c1 stages(${STAGES}) {
      %kk = arith.muli %t, %bk : index
      %kw = arith.muli %t, %bkw : index
      // Scales from the group g0 of the step's first column on, copied
      // from g0 rounded down to a multiple of 8 (a TMA box starts on a
      // 16-byte boundary); column gb + k / G of the copy is group
      // (kk + k) / G.
      %g0 = arith.divui %kk, %g : index
      %g8q = arith.divui %g0, %c8 : index
      %g8 = arith.muli %g8q, %c8 : index
      %gb = arith.subi %g0, %g8 : index
      tile.copy %X[%m, %kk] -> %Xs
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %P[%n, %kw] -> %Ps
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %S[%n, %g8] -> %Ss
          : memref<?x?x${AT}> -> memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
      tile.copy %Z[%n, %g8] -> %Zs
          : memref<?x?x${AT}> -> memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
      tile.parallel (%j, %k) in (${BN}, ${BK}) layout(#dequant) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %cg = arith.constant ${G} : index
        %w8 = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %kg = arith.divui %k, %cg : index
        %gi = arith.addi %gb, %kg : index
        %word = memref.load %Ps[%j, %w8]
            : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
        // Bit offset 16 (k mod 2) + 4 ((k mod 8) / 2) of the nibble.
        %hi = arith.muli %odd, %c16i : index
        %lo = arith.muli %nib4, %c4i : index
        %shift = arith.addi %hi, %lo : index
        %shift32 = arith.index_cast %shift : index to i32
        %nib = arith.shrui %word, %shift32 : i32
        %c15 = arith.constant 15 : i32
        %q = arith.andi %nib, %c15 : i32
        %qf = arith.uitofp %q : i32 to ${AT}
        %sv = memref.load %Ss[%j, %gi]
            : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
        %zv = memref.load %Zs[%j, %gi]
            : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
        %d = arith.subf %qf, %zv : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %Ws[%j, %k]
            : memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
      }
      tile.gemm %Xs, %Ws -> %Cf transpose_b policy(${POLICY})
          : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>,
            memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BN}xf32, #tile.fragment>
    }
    tile.copy %Cf -> %Y[%m, %n]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}

// The symmetric form: no zero points, q - 8.
func.func @gemm_w4a16_sym(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                          %S: memref<?x?x${AT}>, %Y: memref<?x?x${AT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %g = arith.constant ${G} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS})
      rasterize(panel = ${PANEL}, order = ${RASTER}) {
    %Xs = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Ps = tile.alloc : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Ws = tile.alloc : memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %Cf : memref<${BM}x${BN}xf32, #tile.fragment>
    %m = arith.muli %by, %bm : index
    %n = arith.muli %bx, %bn : index
    %K = memref.dim %X, %c1 : memref<?x?x${AT}>
    %steps = arith.ceildivui %K, %bk : index
    tile.pipelined %t = %c0 to %steps step %c1 stages(${STAGES}) {
      %kk = arith.muli %t, %bk : index
      %kw = arith.muli %t, %bkw : index
      // Scales from the group g0 of the step's first column on, copied
      // from g0 rounded down to a multiple of 8 (a TMA box starts on a
      // 16-byte boundary); column gb + k / G of the copy is group
      // (kk + k) / G.
      %g0 = arith.divui %kk, %g : index
      %g8q = arith.divui %g0, %c8 : index
      %g8 = arith.muli %g8q, %c8 : index
      %gb = arith.subi %g0, %g8 : index
      tile.copy %X[%m, %kk] -> %Xs
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %P[%n, %kw] -> %Ps
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %S[%n, %g8] -> %Ss
          : memref<?x?x${AT}> -> memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
      tile.parallel (%j, %k) in (${BN}, ${BK}) layout(#dequant) {
        %c2i = arith.constant 2 : index
        %c4i = arith.constant 4 : index
        %c8i = arith.constant 8 : index
        %c16i = arith.constant 16 : index
        %cg = arith.constant ${G} : index
        %w8 = arith.divui %k, %c8i : index
        %pos = arith.remui %k, %c8i : index
        %odd = arith.remui %pos, %c2i : index
        %nib4 = arith.divui %pos, %c2i : index
        %kg = arith.divui %k, %cg : index
        %gi = arith.addi %gb, %kg : index
        %word = memref.load %Ps[%j, %w8]
            : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
        // Bit offset 16 (k mod 2) + 4 ((k mod 8) / 2) of the nibble.
        %hi = arith.muli %odd, %c16i : index
        %lo = arith.muli %nib4, %c4i : index
        %shift = arith.addi %hi, %lo : index
        %shift32 = arith.index_cast %shift : index to i32
        %nib = arith.shrui %word, %shift32 : i32
        %c15 = arith.constant 15 : i32
        %q = arith.andi %nib, %c15 : i32
        %qf = arith.uitofp %q : i32 to ${AT}
        %sv = memref.load %Ss[%j, %gi]
            : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
        %zv = arith.constant 8.0 : ${AT}
        %d = arith.subf %qf, %zv : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %Ws[%j, %k]
            : memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
      }
      tile.gemm %Xs, %Ws -> %Cf transpose_b policy(${POLICY})
          : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>,
            memref<${BN}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BN}xf32, #tile.fragment>
    }
    tile.copy %Cf -> %Y[%m, %n]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${AT}>
  }
  return
}
