// The tile library GEMV: Y = X * W^T with X stored M x K (M small: one row is
// the matrix-vector product y = W x), W stored N x K and Y stored M x N, all
// row-major and of any sizes (memref<?x?xT>), f32 accumulation.
//
// It is bound by the bandwidth of streaming W, so every thread keeps several
// 16-byte loads of W in flight and nothing goes through shared memory. A
// block of THREADS threads owns BN rows of W and BM rows of X: KT consecutive
// threads share one row of W (the split of K across the block's threads),
// each loading VE contiguous elements (16 bytes) per chunk and
// BK / (KT * VE) chunks per row per K step of BK, for BN / GROUPS rows
// (GROUPS = THREADS / KT). The product of each element is accumulated in f32
// registers of the thread that loaded it, so the K loop only loads and
// multiplies; after it, `tile.reduce` sums each row's partial products
// within the thread and across its KT threads (warp shuffles, and shared
// memory when KT spans warps). X is held by every group of threads (a
// replicated fragment) and read through the cache: BM rows of X per block
// cost M / BM reads of W, which is why the grid walks the M blocks of one N
// tile next to each other (they share W in L2).
//
// `gemv_splitk` also splits K across SPLIT blocks (grid z) for outputs with
// too few rows of W to fill the GPU: each block adds its partial sums into
// the f32 Y with atomics; Y is `tile.zero_init`, so the launcher zeroes it
// before every launch.
//
// Ragged sizes need no code: the copies give zeros outside W and X, and the
// store and the atomics drop the elements outside Y.
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS  threads per block, a multiple of 32
//   KT       threads sharing one row of W: a power of two dividing THREADS
//   GROUPS   THREADS / KT, the groups of threads that split the rows
//   VE       elements per thread per chunk: 8 (16 bytes of f16 or bf16);
//            4, 2 or 1 where W's rows are not 16-byte aligned (K not a
//            multiple of 8), so that a warp's loads stay contiguous
//            (kernels/gemv_tuned.txt picks by K)
//   BN       rows of W per block: a multiple of GROUPS
//   BK       K per step: a multiple of KT * VE
//   BM       rows of X per block
//   SPLIT    blocks along K (gemv_splitk only)
//   AT       element type of W and X: f16 or bf16 (the GEMMs' name for their
//            operands, so that a GEMM's dispatch table can run this file)
//   OT       element type of Y (gemv): f16, bf16 or f32
// sm_80: a warp per row, two rows per warp and two 16-byte chunks per row
// per step (four loads of W in flight per thread, about 70 registers, so
// 7 blocks of 128 threads share an SM). sm_90a, f16, one row of X: one
// row per warp and four chunks of it per step (the same four loads in
// flight, twice the K per step and half the rows per block), 92 registers,
// measured against two rows of two chunks on an H200 (bench/RESULTS.md,
// "fp16 GEMV: one row of four chunks per warp"), in blocks of two warps,
// which fill the SMs' slots more evenly than blocks of four (bench/RESULTS.md,
// "fp16 GEMV: smaller blocks and steps of 2048"); bf16 alike.
// tile.params(sm_90a): THREADS=128 KT=32 GROUPS=4 BN=8 BK=512 BM=1 SPLIT=4
// tile.params(sm_80): THREADS=128 KT=32 GROUPS=4 BN=8 BK=512 BM=1 SPLIT=4
//
// tile.params: THREADS=128 KT=32 GROUPS=4 VE=8 BN=8 BK=512 BM=1 SPLIT=4 AT=f16 OT=f16
// tile.params(sm_90a BM=1 AT=f16): THREADS=64 GROUPS=2 BN=2 BK=1024
// tile.params(sm_90a BM=1 AT=bf16): THREADS=64 GROUPS=2 BN=2 BK=1024
// K steps of 1024 leave half a step where K is an odd multiple of 512
// (3584, 18944): kernels/gemv_tuned.txt takes steps of 512 there
// (tile-compile --dispatch, over the sizes below).
// tile.dispatch: M=arg0.dim0 N=arg1.dim0 K=arg0.dim1

// W tile: row n on thread group n / RW (RW = BN / GROUPS rows per group),
// chunk c = k / VE of the row on thread c mod KT of the group.
#wtile = #tile.fragment<threads = ${THREADS}, map = (n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT}
     + (k floordiv ${VE}) mod ${KT},
   ((n mod (${BN} floordiv ${GROUPS}))
       * (${BK} floordiv (${KT} * ${VE}))
     + k floordiv (${KT} * ${VE})) * ${VE} + k mod ${VE})>
// X tile: the same columns as W, on every group (replica s0).
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  (s0 * ${KT} + (k floordiv ${VE}) mod ${KT},
   (m * (${BK} floordiv (${KT} * ${VE})) + k floordiv (${KT} * ${VE}))
     * ${VE} + k mod ${VE}),
  replicate = ${GROUPS}>
// Products: element (m, n, k) where W's (n, k) is.
#ptile = #tile.fragment<threads = ${THREADS}, map = (m, n, k) ->
  ((n floordiv (${BN} floordiv ${GROUPS})) * ${KT}
     + (k floordiv ${VE}) mod ${KT},
   ((m * (${BN} floordiv ${GROUPS})
       + n mod (${BN} floordiv ${GROUPS}))
       * (${BK} floordiv (${KT} * ${VE}))
     + k floordiv (${KT} * ${VE})) * ${VE} + k mod ${VE})>

func.func @gemv(%X: memref<?x?x${AT}>, %W: memref<?x?x${AT}>,
                %Y: memref<?x?x${OT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %W, %c0 : memref<?x?x${AT}>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  %steps = arith.ceildivui %K, %bk : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS}) {
    %w = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %p = tile.alloc {layout = #ptile}
        : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %p : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    scf.for %s = %c0 to %steps step %c1 {
      %k0 = arith.muli %s, %bk : index
      tile.copy %W[%n0, %k0] -> %w
          : memref<?x?x${AT}> -> memref<${BN}x${BK}x${AT}, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.parallel (%i, %j, %k) in (${BM}, ${BN}, ${BK}) {
        %acc = memref.load %p[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
        %wv = memref.load %w[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
        %xv = memref.load %x[%i, %k] : memref<${BM}x${BK}x${AT}, #tile.fragment>
        %wf = arith.extf %wv : ${AT} to f32
        %xf = arith.extf %xv : ${AT} to f32
        %sum = math.fma %wf, %xf, %acc : f32
        memref.store %sum, %p[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
      }
    }
    tile.reduce sum %p -> %y dim(2)
        : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${OT}>
  }
  return
}

func.func @gemv_splitk(%X: memref<?x?x${AT}>, %W: memref<?x?x${AT}>,
                       %Y: memref<?x?xf32> {tile.zero_init}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %split = arith.constant ${SPLIT} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %W, %c0 : memref<?x?x${AT}>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  // Each of the SPLIT blocks of a tile walks `per` steps of BK.
  %steps = arith.ceildivui %K, %bk : index
  %per = arith.ceildivui %steps, %split : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) {
    %w = tile.alloc {layout = #wtile} : memref<${BN}x${BK}x${AT}, #tile.fragment>
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %p = tile.alloc {layout = #ptile}
        : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %p : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    %first = arith.muli %bz, %per : index
    %end = arith.addi %first, %per : index
    %last = arith.minui %end, %steps : index
    scf.for %s = %first to %last step %c1 {
      %k0 = arith.muli %s, %bk : index
      tile.copy %W[%n0, %k0] -> %w
          : memref<?x?x${AT}> -> memref<${BN}x${BK}x${AT}, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.parallel (%i, %j, %k) in (${BM}, ${BN}, ${BK}) {
        %acc = memref.load %p[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
        %wv = memref.load %w[%j, %k] : memref<${BN}x${BK}x${AT}, #tile.fragment>
        %xv = memref.load %x[%i, %k] : memref<${BM}x${BK}x${AT}, #tile.fragment>
        %wf = arith.extf %wv : ${AT} to f32
        %xf = arith.extf %xv : ${AT} to f32
        %sum = math.fma %wf, %xf, %acc : f32
        memref.store %sum, %p[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
      }
    }
    tile.reduce sum %p -> %y dim(2)
        : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
    tile.atomic add %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
