// The tile library W4A16 GEMM: Y = X * dequant(P)^T for large M, with X
// stored M x K in f16 or bf16, the 4-bit weights of an N x K matrix packed
// in P, one scale per group of G weights of a row in S and, for
// `gemm_w4a16`, one zero point per group in Z: the layout of
// kernels/gemv_w4a16.mlir (docs/Quantized.md; bench/w4pack.py packs it),
// so one packed model serves both kernels. Weight (n, k) is (q - z) * s,
// computed in the type of X; `gemm_w4a16_sym` takes no Z and subtracts 8.
// Products accumulate in f32 on the tensor cores.
//
// The product runs transposed, Y^T = dequant(P) X^T, so that the
// dequantized weights are the A operand and never leave registers: each
// block owns BN rows of P and BM rows of X. Each step of the pipelined K
// loop copies the BN x BK / 8 words of P, the BN x 8 scales (and zeros)
// that start at group k / G and a BM x BK tile of X into shared memory
// (TMA loads from a producer warpgroup on sm_90a); the tile.parallel of
// the TileLang paper's Fig. 17 unpacks the words into a register fragment
// (two weights per word at offsets 16 apart, so pairs of weights unpack,
// convert and scale as f16x2 / bf16x2 operations) whose layout the
// compiler infers from the gemm: the A-operand layout of wgmma (rs form)
// or mma.sync. No barrier joins the warps between the unpacking and the
// gemm: on sm_90a each consumer warpgroup unpacks its own 64 rows and
// issues its wgmmas, so one warpgroup's unpacking overlaps the other's
// tensor-core work.
// Eight columns of scales from a multiple of 8 on are copied per step,
// not the one or two a step uses, because a TMA box row must be 16 bytes
// and start on a 16-byte boundary: where the rows of S are not a multiple
// of 16 bytes (a column count not a multiple of 8, which bench/w4pack.py
// pads away), the runtime runs the cp.async build instead. The BN x BM
// accumulator is stored transposed into a BM x BN tile in shared memory
// and copied out row by row of Y. The tile's rows are BNP elements apart:
// with 128 halves (256 bytes) a row, the four accumulator column pairs of
// a warp's store land in one bank, a 4-way conflict on each of its 2-byte
// stores; with 136 no two of them share a bank (bench/RESULTS.md, "W4A16
// GEMM: padded epilogue rows and clusters along N").
//
// Parameters (tile-compile -D NAME=VALUE):
//   BN          rows of P (columns of Y) per block: 64 per warpgroup on
//               sm_90a, 16 per warp on sm_80
//   BM          rows of X (rows of Y) per block: the N of each wgmma
//               (at most 256) or mma.sync run
//   BK          weights per row per step, a multiple of 16; BK divides G
//               or G divides BK, and BK <= 8 G
//   BKW         BK / 8, the 32-bit words of P per row per step
//   STAGES      steps of the pipelined K loop in flight or in use at once
//   THREADS     BN / 16 warps
//   PANEL, RASTER  block rasterization as in kernels/gemm_nn.mlir
//   BNP         elements between rows of the shared tile of Y, at least BN
//   CM, CN      thread-block cluster (sm_90a): CM blocks along M share
//               their tiles of P, S and Z, CN blocks along N their X
//               tiles, each loading a part and multicasting it (1 x 1: no
//               cluster)
//   G           group size: 32, 64 or 128
//   AT          type of X, S, Z and Y: f16 or bf16
//   ZM          the magic value of AT's integer conversion: 1024.0 for f16,
//               128.0 for bf16 (set by the tile.params(AT=bf16) line)
// On sm_90a three stages measured 1-3% faster than four with zero points
// and in bf16, and even symmetric in f16 (bench/RESULTS.md, "W4A16 GEMM:
// three stages"). Pairs of blocks along N share their X tiles (CN=2):
// 4-6% faster than no cluster with each timing after a pause, and even at
// the power limit; pairs along M sharing P, S and Z (CM=2) were 6-7%
// slower (bench/RESULTS.md, "W4A16 GEMM: padded epilogue rows and
// clusters along N").
// tile.params(sm_90a): BM=256 BN=128 BK=64 BKW=8 STAGES=3 THREADS=256
// tile.params(sm_90a): PANEL=8 CN=2
// tile.params(sm_80): BM=128 BN=128 BK=32 BKW=4 STAGES=4 THREADS=256 PANEL=8
// gfx942 and gfx90a (MFMA, wave64, 64 KiB of LDS): two stages; never run
// on an AMD GPU.
// tile.params(gfx942): STAGES=2
// tile.params(gfx90a): STAGES=2
// tile.options(sm_90a): index-bitwidth=32
// tile.options(sm_80): index-bitwidth=32
//
// tile.params: BM=128 BN=128 BK=32 BKW=4 STAGES=4 THREADS=256
// tile.params: PANEL=8 RASTER=row CM=1 CN=1 G=128 AT=f16 ZM=1024.0 BNP=136
// tile.params(AT=bf16): ZM=128.0

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
      rasterize(panel = ${PANEL}, order = ${RASTER})
      cluster(${CN}, ${CM}) {
    %Xs = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Ps = tile.alloc : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Zs = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Wf = tile.alloc : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %Cf = tile.alloc : memref<${BN}x${BM}xf32, #tile.fragment>
    %Ysp = tile.alloc : memref<${BM}x${BNP}x${AT}, #gpu.address_space<workgroup>>
    %Ys = memref.subview %Ysp[0, 0] [${BM}, ${BN}] [1, 1]
        : memref<${BM}x${BNP}x${AT}, #gpu.address_space<workgroup>>
          to memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<${BN}x${BM}xf32, #tile.fragment>
    %n = arith.muli %bx, %bn : index
    %m = arith.muli %by, %bm : index
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
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
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
        // (q + ZM) - (z + ZM): q + ZM is the bits the conversion makes.
        %zm = arith.constant ${ZM} : ${AT}
        %qb = arith.addf %qf, %zm : ${AT}
        %zb = arith.addf %zv, %zm : ${AT}
        %d = arith.subf %qb, %zb : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %Wf[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      tile.gemm %Wf, %Xs -> %Cf transpose_b policy(full_row)
          : memref<${BN}x${BK}x${AT}, #tile.fragment>,
            memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BM}xf32, #tile.fragment>
    }
    // Y's tile is the accumulator transposed.
    tile.parallel (%j, %i) in (${BN}, ${BM}) {
      %v = memref.load %Cf[%j, %i] : memref<${BN}x${BM}xf32, #tile.fragment>
      %o = arith.truncf %v : f32 to ${AT}
      memref.store %o, %Ys[%i, %j]
          : memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>>
    }
    tile.copy %Ys -> %Y[%m, %n]
        : memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
  }
  return
}

// The symmetric form: no zero points, q - 8.
func.func @gemm_w4a16_sym(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                          %S: memref<?x?x${AT}>,
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
      rasterize(panel = ${PANEL}, order = ${RASTER})
      cluster(${CN}, ${CM}) {
    %Xs = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    %Ps = tile.alloc : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<${BN}x8x${AT}, #gpu.address_space<workgroup>>
    %Wf = tile.alloc : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %Cf = tile.alloc : memref<${BN}x${BM}xf32, #tile.fragment>
    %Ysp = tile.alloc : memref<${BM}x${BNP}x${AT}, #gpu.address_space<workgroup>>
    %Ys = memref.subview %Ysp[0, 0] [${BM}, ${BN}] [1, 1]
        : memref<${BM}x${BNP}x${AT}, #gpu.address_space<workgroup>>
          to memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<${BN}x${BM}xf32, #tile.fragment>
    %n = arith.muli %bx, %bn : index
    %m = arith.muli %by, %bm : index
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
      tile.parallel (%j, %k) in (${BN}, ${BK}) {
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
        %c8f = arith.constant 8.0 : ${AT}
        %d = arith.subf %qf, %c8f : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %Wf[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      tile.gemm %Wf, %Xs -> %Cf transpose_b policy(full_row)
          : memref<${BN}x${BK}x${AT}, #tile.fragment>,
            memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BM}xf32, #tile.fragment>
    }
    // Y's tile is the accumulator transposed.
    tile.parallel (%j, %i) in (${BN}, ${BM}) {
      %v = memref.load %Cf[%j, %i] : memref<${BN}x${BM}xf32, #tile.fragment>
      %o = arith.truncf %v : f32 to ${AT}
      memref.store %o, %Ys[%i, %j]
          : memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>>
    }
    tile.copy %Ys -> %Y[%m, %n]
        : memref<${BM}x${BN}x${AT}, strided<[${BNP}, 1]>, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
  }
  return
}
