// The tile library W4A16 GEMV for a few rows of X (m up to 16, decoding
// a batch) on the tensor cores: Y = X * dequant(P)^T in the weight layout
// of kernels/gemv_w4a16.mlir (docs/Quantized.md; bench/w4pack.py packs
// it), so one packed model serves the one-row GEMV, this kernel and the
// GEMM. `gemv_w4a16_mma` takes zero points Z, `gemv_w4a16_mma_sym`
// subtracts 8.
//
// The one-row kernel spends one packed multiply-add per pair of weights
// and row of X; for 16 rows that is 16 times the arithmetic of the
// unpacking. Here the product runs transposed on the tensor cores: each
// block owns BN rows of P and computes Y^T's BN x BM tile as
// dequant(P) * X^T, the dequantized weights a register fragment in the
// A-operand layout of the instruction, X^T read from shared memory as the
// B operand. Each K step copies the block's BN x BK / 8
// words of P, its scales (and zeros) and X's BM x BK tile into shared
// memory in a cp.async pipeline; the tile.parallel of the TileLang paper's
// Fig. 17 unpacks P into the fragment (the pairs of weights a thread holds
// sit 16 bits apart in one word, so they unpack, convert and scale as
// f16x2 / bf16x2 operations), and one tile.gemm multiplies. Rows of X past
// M are zeros (the masked copy), so any m works; m <= 16 is what the tile
// is made for. The BN x BM accumulator goes through shared memory,
// transposed and converted, and one tile.atomic adds it into Y: on sm_90
// one red.global.add of 8 halves a thread (a scalar f16 atomic is a
// compare-and-swap loop in SASS, and those cost V5 7 us of its 41).
// The words of P sit in shared memory in rows padded by 16 bytes: the
// A fragment's eight row groups read one word of eight rows at a time,
// which in 128-byte rows all fall in one bank group (ncu: 5.5-way
// conflicts, 88% L1 throughput on V4).
//
// K is split across blocks (grid z) where the grid has fewer than SLOTS
// blocks (the blocks the chip holds at once), so shapes with few rows of
// P still keep every SM streaming: each of the `split` blocks of a tile
// walks ceildiv(steps, split) steps and adds its partial product into Y
// with atomics. Y is marked `tile.zero_init`: the launcher (the tile
// runtime, from the manifest's `zero` line) zeroes it before every launch,
// also where K is 0 and no block runs. On sm_90 the kernel waits for that
// zeroing only before its first atomic (the manifest's `dependent-launch`),
// so its main loop overlaps it.
// With RED=cluster (the tile.if regions below), K is split instead across
// the SPLIT blocks of a cluster, which sum their tiles of Y through
// distributed shared memory (tile.cluster_reduce) and store: no atomics,
// no zeroing (sm_90; the dispatch takes it from N = 16384, two blocks).
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS  threads per block: BN / 16 warps, one per 16 rows of P
//   BN       rows of P (columns of Y) per block
//   BM       rows of X per block: 16 (8 also compiles, as n8 instructions;
//            not measured)
//   BK       weights per row per step, a multiple of 16; G divides BK or
//            BK divides G
//   BKW      BK / 8, the 32-bit words of P per row per step
//   GS       scales per row per step: BK / G, at least 1
//   STAGES   steps of the pipelined K loop in flight or in use at once
//   G        group size: 32, 64 or 128
//   AT       type of X, S, Z and Y: f16 or bf16
//   ZM       the magic value of AT's integer conversion: 1024.0 for f16,
//            128.0 for bf16 (set by the tile.params(AT=bf16) line)
//   SLOTS    blocks the grid should have at least, splitting K to get them:
//            blocks per SM (shared memory allows) times the SMs
//   MAXSPLIT the most blocks one tile's K is split across
//   RED      how the split blocks combine: atomic (SLOTS and MAXSPLIT
//            choose the split) or cluster (SPLIT blocks in a cluster)
//   SPLIT    with RED=cluster, the blocks of a cluster along grid z
//   MINB     blocks that must fit on one SM (tile-compile's
//            min-blocks-per-sm, which caps the registers on sm_90a): 0, no
//            cap, by default
//   MMA, MMASHAPE  the tensor-core instruction of the gemm (its `mma`,
//            which layout inference then keeps): mma_sync m16n8k16 on
//            NVIDIA chips, mfma m16n16k16 on AMD ones
// sm_90a: mma.sync, not the m64n16k16 wgmma inference would choose: its
// register operands are read as it issues, so a warp unpacks the next
// weights while its products run, with 105-116 registers where wgmma's rs
// form held 137-163; two stages (37 KiB), and K split until the grid has
// 1024 blocks, at most six ways (SLOTS, MAXSPLIT).
// On an H200 1.38-1.39x fp16 cuBLAS with zero points and 1.56-1.57x
// symmetric at m = 16, against 1.30x and 1.39x with wgmma and three
// stages (bench/RESULTS.md, "mma.sync for the tensor-core GEMV").
// sm_80: three stages (54 KiB), three blocks on each of 108 SMs.
// gfx942 and gfx90a (MFMA, wave64, 64 KiB of LDS): two stages (37 KiB, so
// one block per CU: 304 on gfx942, 110 on gfx90a), two waves; never run on
// an AMD GPU.
//
// Shape dispatch: `tile-compile --dispatch kernels/gemv_tuned.txt` builds
// the f16 G = 128 kernel for sm_90a into one artifact that caps the
// registers at five blocks per SM (MINB = 5) above N = 16384 rows of P,
// where K is split at most two ways and the tiles fill several waves
// (docs/Quantized.md).
// tile.dispatch: M=arg0.dim0 N=arg1.dim0 K=arg0.dim1
// tile.params(sm_90a): STAGES=2 SLOTS=1024 MAXSPLIT=6
// tile.params(sm_80): SLOTS=324
// tile.params(gfx942): STAGES=2 SLOTS=304 MMA=mfma MMASHAPE=m16n16k16
// tile.params(gfx90a): STAGES=2 SLOTS=110 MMA=mfma MMASHAPE=m16n16k16
// tile.options(sm_90a): no-warp-specialize=true index-bitwidth=32 min-blocks-per-sm=${MINB}
// tile.options(sm_80): index-bitwidth=32
//
// tile.params: THREADS=128 BN=64 BM=16 BK=256 BKW=32 GS=2 STAGES=3
// tile.params: G=128 AT=f16 ZM=1024.0 SLOTS=528 MAXSPLIT=4 MINB=0
// tile.params: RED=atomic SPLIT=1
// tile.params: MMA=mma_sync MMASHAPE=m16n8k16
// tile.params(AT=bf16): ZM=128.0
// tile.params(G=64): GS=4
// tile.params(G=32): GS=8

func.func @gemv_w4a16_mma(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                          %S: memref<?x?x${AT}>, %Z: memref<?x?x${AT}>,
// tile.if(RED=cluster):
                          %Y: memref<?x?x${AT}>) {
// tile.else:
                          %Y: memref<?x?x${AT}> {tile.zero_init}) {
// tile.endif
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %g = arith.constant ${G} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  %steps = arith.ceildivui %K, %bk : index
// tile.if(RED=cluster):
  // K split across the SPLIT blocks of a cluster (grid z), which sum their
  // products through distributed shared memory; a block past K's steps
  // adds zeros.
  %split = arith.constant ${SPLIT} : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) cluster(1, 1, ${SPLIT}) {
// tile.else:
  // K split across blocks (grid z) until the grid has SLOTS blocks, at
  // most MAXSPLIT ways and one step each; `per` steps per block, and no
  // block without a step.
  %slots = arith.constant ${SLOTS} : index
  %maxsplit = arith.constant ${MAXSPLIT} : index
  %tiles = arith.muli %gx, %gy : index
  %want = arith.ceildivui %slots, %tiles : index
  %want1 = arith.maxui %want, %c1 : index
  %cap = arith.minui %want1, %maxsplit : index
  %cap1 = arith.minui %cap, %steps : index
  %capped = arith.maxui %cap1, %c1 : index
  %per0 = arith.ceildivui %steps, %capped : index
  %per = arith.maxui %per0, %c1 : index
  %split = arith.ceildivui %steps, %per : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) {
// tile.endif
    %xsh = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    // Rows padded by 16 bytes: the eight lanes that read one word of eight
    // rows (the A fragment's rows g and g + 8) hit eight bank groups.
    %psh = tile.alloc {layout = #tile.layout<[${BN}, ${BKW}], padded<4>>}
        : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %ssh = tile.alloc : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %zsh = tile.alloc : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %wf = tile.alloc : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %cf = tile.alloc : memref<${BN}x${BM}xf32, #tile.fragment>
    %ysh = tile.alloc : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>>
    tile.clear %cf : memref<${BN}x${BM}xf32, #tile.fragment>
    %n0 = arith.muli %bx, %bn : index
    %m0 = arith.muli %by, %bm : index
    // ceildiv(steps, split) = per: the grid's z extent, read here because
    // a division by a size computed on the host stays on the host.
    %nz = gpu.grid_dim z
    %kper = arith.ceildivui %steps, %nz : index
    %first0 = arith.muli %bz, %kper : index
    %first = arith.minui %first0, %steps : index
    %end = arith.addi %first, %kper : index
    %last = arith.minui %end, %steps : index
    tile.pipelined %t = %first to %last step %c1 stages(${STAGES}) {
      %k0 = arith.muli %t, %bk : index
      %w0 = arith.muli %t, %bkw : index
      // The step's first group; with BK < G a step lies inside one group.
      %g0 = arith.divui %k0, %g : index
      tile.copy %X[%m0, %k0] -> %xsh
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %P[%n0, %w0] -> %psh
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %S[%n0, %g0] -> %ssh
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %Z[%n0, %g0] -> %zsh
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
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
        %gi = arith.divui %k, %cg : index
        %word = memref.load %psh[%j, %kw]
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
        %sv = memref.load %ssh[%j, %gi]
            : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
        %zv = memref.load %zsh[%j, %gi]
            : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
        // (q + ZM) - (z + ZM): q + ZM is the bits the conversion makes.
        %zm = arith.constant ${ZM} : ${AT}
        %qb = arith.addf %qf, %zm : ${AT}
        %zb = arith.addf %zv, %zm : ${AT}
        %d = arith.subf %qb, %zb : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %wf[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      tile.gemm %wf, %xsh -> %cf transpose_b policy(full_row)
          {mma = #tile.mma<${MMA} ${MMASHAPE}, ${AT} x ${AT} -> f32>}
          : memref<${BN}x${BK}x${AT}, #tile.fragment>,
            memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BM}xf32, #tile.fragment>
    }
    // Y[m0 + i, n0 + j] += Y^T tile (j, i): the accumulator goes to shared
    // memory transposed and converted, and the block adds it into Y in
    // vectors along Y's rows (red.global.add of 8 halves a thread on
    // sm_90, f16 pairs on older chips), the ragged edges element by
    // element.
    tile.parallel (%i, %j) in (${BM}, ${BN}) {
      %v = memref.load %cf[%j, %i] : memref<${BN}x${BM}xf32, #tile.fragment>
      %o = arith.truncf %v : f32 to ${AT}
      memref.store %o, %ysh[%i, %j]
          : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>>
    }
// tile.if(RED=cluster):
    tile.cluster_reduce add %ysh -> %Y[%m0, %n0]
        : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
// tile.else:
    gpu.barrier
    tile.atomic add %ysh -> %Y[%m0, %n0]
        : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
// tile.endif
  }
  return
}

// The symmetric form: no zero points, q - 8.
func.func @gemv_w4a16_mma_sym(%X: memref<?x?x${AT}>, %P: memref<?x?xi32>,
                              %S: memref<?x?x${AT}>,
// tile.if(RED=cluster):
                              %Y: memref<?x?x${AT}>) {
// tile.else:
                              %Y: memref<?x?x${AT}> {tile.zero_init}) {
// tile.endif
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %bkw = arith.constant ${BKW} : index
  %g = arith.constant ${G} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %P, %c0 : memref<?x?xi32>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  %steps = arith.ceildivui %K, %bk : index
// tile.if(RED=cluster):
  // K split across the SPLIT blocks of a cluster (grid z), which sum their
  // products through distributed shared memory; a block past K's steps
  // adds zeros.
  %split = arith.constant ${SPLIT} : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) cluster(1, 1, ${SPLIT}) {
// tile.else:
  // K split across blocks (grid z) until the grid has SLOTS blocks, at
  // most MAXSPLIT ways and one step each; `per` steps per block, and no
  // block without a step.
  %slots = arith.constant ${SLOTS} : index
  %maxsplit = arith.constant ${MAXSPLIT} : index
  %tiles = arith.muli %gx, %gy : index
  %want = arith.ceildivui %slots, %tiles : index
  %want1 = arith.maxui %want, %c1 : index
  %cap = arith.minui %want1, %maxsplit : index
  %cap1 = arith.minui %cap, %steps : index
  %capped = arith.maxui %cap1, %c1 : index
  %per0 = arith.ceildivui %steps, %capped : index
  %per = arith.maxui %per0, %c1 : index
  %split = arith.ceildivui %steps, %per : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) {
// tile.endif
    %xsh = tile.alloc : memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
    // Rows padded by 16 bytes: the eight lanes that read one word of eight
    // rows (the A fragment's rows g and g + 8) hit eight bank groups.
    %psh = tile.alloc {layout = #tile.layout<[${BN}, ${BKW}], padded<4>>}
        : memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
    %ssh = tile.alloc : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
    %wf = tile.alloc : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %cf = tile.alloc : memref<${BN}x${BM}xf32, #tile.fragment>
    %ysh = tile.alloc : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>>
    tile.clear %cf : memref<${BN}x${BM}xf32, #tile.fragment>
    %n0 = arith.muli %bx, %bn : index
    %m0 = arith.muli %by, %bm : index
    // ceildiv(steps, split) = per: the grid's z extent, read here because
    // a division by a size computed on the host stays on the host.
    %nz = gpu.grid_dim z
    %kper = arith.ceildivui %steps, %nz : index
    %first0 = arith.muli %bz, %kper : index
    %first = arith.minui %first0, %steps : index
    %end = arith.addi %first, %kper : index
    %last = arith.minui %end, %steps : index
    tile.pipelined %t = %first to %last step %c1 stages(${STAGES}) {
      %k0 = arith.muli %t, %bk : index
      %w0 = arith.muli %t, %bkw : index
      // The step's first group; with BK < G a step lies inside one group.
      %g0 = arith.divui %k0, %g : index
      tile.copy %X[%m0, %k0] -> %xsh
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %P[%n0, %w0] -> %psh
          : memref<?x?xi32> -> memref<${BN}x${BKW}xi32, #gpu.address_space<workgroup>>
      tile.copy %S[%n0, %g0] -> %ssh
          : memref<?x?x${AT}> -> memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
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
        %gi = arith.divui %k, %cg : index
        %word = memref.load %psh[%j, %kw]
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
        %sv = memref.load %ssh[%j, %gi]
            : memref<${BN}x${GS}x${AT}, #gpu.address_space<workgroup>>
        %zv = arith.constant 8.0 : ${AT}
        // (q + ZM) - (z + ZM): q + ZM is the bits the conversion makes.
        %zm = arith.constant ${ZM} : ${AT}
        %qb = arith.addf %qf, %zm : ${AT}
        %zb = arith.addf %zv, %zm : ${AT}
        %d = arith.subf %qb, %zb : ${AT}
        %w = arith.mulf %d, %sv : ${AT}
        memref.store %w, %wf[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
      }
      tile.gemm %wf, %xsh -> %cf transpose_b policy(full_row)
          {mma = #tile.mma<${MMA} ${MMASHAPE}, ${AT} x ${AT} -> f32>}
          : memref<${BN}x${BK}x${AT}, #tile.fragment>,
            memref<${BM}x${BK}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BN}x${BM}xf32, #tile.fragment>
    }
    // Y[m0 + i, n0 + j] += Y^T tile (j, i): the accumulator goes to shared
    // memory transposed and converted, and the block adds it into Y in
    // vectors along Y's rows (red.global.add of 8 halves a thread on
    // sm_90, f16 pairs on older chips), the ragged edges element by
    // element.
    tile.parallel (%i, %j) in (${BM}, ${BN}) {
      %v = memref.load %cf[%j, %i] : memref<${BN}x${BM}xf32, #tile.fragment>
      %o = arith.truncf %v : f32 to ${AT}
      memref.store %o, %ysh[%i, %j]
          : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>>
    }
// tile.if(RED=cluster):
    tile.cluster_reduce add %ysh -> %Y[%m0, %n0]
        : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
// tile.else:
    gpu.barrier
    tile.atomic add %ysh -> %Y[%m0, %n0]
        : memref<${BM}x${BN}x${AT}, #gpu.address_space<workgroup>> -> memref<?x?x${AT}>
// tile.endif
  }
  return
}
