// The tile library GEMV for weights stored K x N: Y = X * W with X stored
// M x K (M small: one row is the vector-matrix product y = x W), W stored
// K x N and Y stored M x N, all row-major and of any sizes, f32
// accumulation. It is what the NN GEMM with one row computes (and the TN
// GEMM with one row, on A's K x 1 viewed as 1 x K, and with XT = 1 the TN
// GEMM with two or four rows, on A's K x M); kernels/gemv.mlir is
// the same product for W stored N x K.
//
// Bound by the bandwidth of streaming W, like gemv.mlir, but W's rows now
// run along the outputs: a block owns BN consecutive columns of W, and
// each thread loads VE of them from each of its rows, so CT = BN / VE
// threads cover a row and GROUPS = THREADS / CT rows are read at once. Each
// K step of BK rows gives a thread R = BK / GROUPS consecutive rows, that
// many loads in flight, and the R elements of X it multiplies them by in
// one vector load per row of X. The products of four consecutive rows of a
// column are summed in one chain of f32 FMAs into an accumulator of the
// thread that loaded them (R / 4 per column and row of X: a quarter of the
// registers that one per product took, which leaves room for BM > 1 rows
// of X); after the K loop, `tile.reduce` sums each column over the
// thread's accumulators and across the GROUPS threads that share the
// column (through shared memory, as they span warps). X is a replicated
// fragment: each group's CT threads hold the group's rows of X. BM rows of
// X per block read W once for all of them; the dispatch tables take
// BM = M for two to four rows, as a partial tile of X (M < BM) would be
// copied with element loads at every step.
//
// VE = 8 loads 16 bytes per row and thread. Where W's rows are not 16-byte
// aligned (N not a multiple of 8) the copies fall back to element loads,
// and with VE = 8 a warp's load then touches 16-byte strides of 4 rows;
// VE = 1 gives each thread one column, so a warp's element loads read 64
// contiguous bytes of a row. With SPLIT > 1 the K steps are shared by the
// SPLIT blocks of a cluster along grid z (sm_90a), whose partial columns
// `tile.cluster_reduce` adds in f32 and stores once: outputs of fewer
// columns than 16384 leave too few blocks of BN columns for the SMs.
//
// Ragged sizes need no code: the copies give zeros outside W and X, and
// the store drops the columns outside Y.
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS  threads per block, a multiple of 32
//   CT       threads across a row of the block's columns: BN / VE
//   GROUPS   THREADS / CT, the rows read at once
//   VE       columns per thread per row: 8 (16 bytes of f16 or bf16), or 1
//            for rows that are not 16-byte aligned
//   BN       columns of W per block: CT * VE
//   BK       rows of W per K step: a multiple of 4 * GROUPS
//   BKU      BK / 4, the chains of four rows per step (set with BK for
//            BK = 32, 64, 128 and 256)
//   BM       rows of X per block
//   SPLIT    blocks of a cluster that split K (1: none; sm_90a, at most 8)
//   XT       1: X is stored K x M (the TN GEMM's A), read as its transpose
//            (element loads: its rows are M elements); 0: M x K
//   AT       element type of W and X: f16 or bf16 (the GEMMs' name)
//   OT       element type of Y: f16, bf16 or f32
// The defaults, 64 columns per block on 128 threads and 8 rows per thread
// per step (95 registers), were the best of three configurations for one
// row of X and N of 16384 or more on an H200; the GEMM dispatch tables
// split K 4 ways below that and take VE = 1 (32 columns per block) for
// misaligned rows (bench/RESULTS.md, "One-row NN and TN through a GEMV"
// and "One-row products: misaligned rows and a split K").
// On sm_90a it is built with 32-bit indices, as the GEMMs whose one-row
// products it runs (sizes and offsets below 2^31 elements, which the runtime
// checks at launch).
// MINB, when not 0, asks ptxas to fit that many blocks on a multiprocessor
// (--min-blocks-per-sm), capping the registers per thread.
// tile.options(sm_90a): index-bitwidth=32 min-blocks-per-sm=${MINB}
// tile.params: THREADS=128 CT=8 GROUPS=16 VE=8 BN=64 BK=128 BKU=32 BM=1 SPLIT=1 XT=0 AT=f16 OT=f16 MINB=0
// tile.params(BK=32): BKU=8
// tile.params(BK=64): BKU=16
// tile.params(BK=256): BKU=64
// The sizes that kernels/gemv_tuned.txt's gemv_kn rules range over
// (tile-compile --dispatch): M rows of Y, N its columns, K rows of W (X is
// M x K, or K x M with XT=1).
// tile.dispatch: M=arg2.dim0 N=arg2.dim1 K=arg1.dim0

#wtile = #tile.fragment<threads = ${THREADS}, map = (k, n) ->
  ((k floordiv (${BK} floordiv ${GROUPS})) * ${CT} + n floordiv ${VE},
   (k mod (${BK} floordiv ${GROUPS})) * ${VE} + n mod ${VE})>
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  ((k floordiv (${BK} floordiv ${GROUPS})) * ${CT} + s0,
   m * (${BK} floordiv ${GROUPS}) + k mod (${BK} floordiv ${GROUPS})),
  replicate = ${CT}>
// X stored K x M (XT = 1): the same registers, indexed (k, m).
#xttile = #tile.fragment<threads = ${THREADS}, map = (k, m)[s0] ->
  ((k floordiv (${BK} floordiv ${GROUPS})) * ${CT} + s0,
   m * (${BK} floordiv ${GROUPS}) + k mod (${BK} floordiv ${GROUPS})),
  replicate = ${CT}>
#ptile = #tile.fragment<threads = ${THREADS}, map = (m, n, kk) ->
  ((kk floordiv (${BKU} floordiv ${GROUPS})) * ${CT} + n floordiv ${VE},
   (m * (${BKU} floordiv ${GROUPS}) + kk mod (${BKU} floordiv ${GROUPS}))
     * ${VE} + n mod ${VE})>

func.func @gemv_kn(%X: memref<?x?x${AT}>, %W: memref<?x?x${AT}>,
                   %Y: memref<?x?x${OT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
// tile.if(XT=1):
  %M = memref.dim %X, %c1 : memref<?x?x${AT}>
  %K = memref.dim %X, %c0 : memref<?x?x${AT}>
// tile.else:
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
// tile.endif
  %N = memref.dim %W, %c1 : memref<?x?x${AT}>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  %steps = arith.ceildivui %K, %bk : index
// tile.if(SPLIT=1):
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS}) {
// tile.else:
  %split = arith.constant ${SPLIT} : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) cluster(1, 1, ${SPLIT}) {
    %ys = tile.alloc : memref<${BM}x${BN}xf32, #gpu.address_space<workgroup>>
// tile.endif
    %w = tile.alloc {layout = #wtile} : memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
    %x = tile.alloc {layout = #xttile} : memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
    %p = tile.alloc {layout = #ptile}
        : memref<${BM}x${BN}x${BKU}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %p : memref<${BM}x${BN}x${BKU}xf32, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
// tile.if(SPLIT=1):
    scf.for %s = %c0 to %steps step %c1 {
// tile.else:
    // This block's share of the steps (none past K: it adds zeros).
    %sper = arith.ceildivui %steps, %split : index
    %first0 = arith.muli %bz, %sper : index
    %first = arith.minui %first0, %steps : index
    %end = arith.addi %first, %sper : index
    %last = arith.minui %end, %steps : index
    scf.for %s = %first to %last step %c1 {
// tile.endif
      %k0 = arith.muli %s, %bk : index
      tile.copy %W[%k0, %n0] -> %w
          : memref<?x?x${AT}> -> memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
      tile.copy %X[%k0, %m0] -> %x
          : memref<?x?x${AT}> -> memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
      // Four consecutive rows of a column in one chain: the thread's
      // accumulators are a quarter of its products (registers for more
      // rows of X, or of W in flight).
      tile.parallel (%i, %j, %kk) in (${BM}, ${BN}, ${BKU}) {
        %acc = memref.load %p[%i, %j, %kk]
            : memref<${BM}x${BN}x${BKU}xf32, #tile.fragment>
        %c4 = arith.constant 4 : index
        %r0 = arith.muli %kk, %c4 : index
        %w0 = memref.load %w[%r0, %j] : memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
        %x0 = memref.load %x[%r0, %i] : memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
        %x0 = memref.load %x[%i, %r0] : memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
        %w0f = arith.extf %w0 : ${AT} to f32
        %x0f = arith.extf %x0 : ${AT} to f32
        %s0 = math.fma %w0f, %x0f, %acc : f32
        %r1 = arith.addi %r0, %c1 : index
        %w1 = memref.load %w[%r1, %j] : memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
        %x1 = memref.load %x[%r1, %i] : memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
        %x1 = memref.load %x[%i, %r1] : memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
        %w1f = arith.extf %w1 : ${AT} to f32
        %x1f = arith.extf %x1 : ${AT} to f32
        %s1 = math.fma %w1f, %x1f, %s0 : f32
        %c2 = arith.constant 2 : index
        %r2 = arith.addi %r0, %c2 : index
        %w2 = memref.load %w[%r2, %j] : memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
        %x2 = memref.load %x[%r2, %i] : memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
        %x2 = memref.load %x[%i, %r2] : memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
        %w2f = arith.extf %w2 : ${AT} to f32
        %x2f = arith.extf %x2 : ${AT} to f32
        %s2 = math.fma %w2f, %x2f, %s1 : f32
        %c3 = arith.constant 3 : index
        %r3 = arith.addi %r0, %c3 : index
        %w3 = memref.load %w[%r3, %j] : memref<${BK}x${BN}x${AT}, #tile.fragment>
// tile.if(XT=1):
        %x3 = memref.load %x[%r3, %i] : memref<${BK}x${BM}x${AT}, #tile.fragment>
// tile.else:
        %x3 = memref.load %x[%i, %r3] : memref<${BM}x${BK}x${AT}, #tile.fragment>
// tile.endif
        %w3f = arith.extf %w3 : ${AT} to f32
        %x3f = arith.extf %x3 : ${AT} to f32
        %s3 = math.fma %w3f, %x3f, %s2 : f32
        memref.store %s3, %p[%i, %j, %kk]
            : memref<${BM}x${BN}x${BKU}xf32, #tile.fragment>
      }
    }
    tile.reduce sum %p -> %y dim(2)
        : memref<${BM}x${BN}x${BKU}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #tile.fragment>
// tile.if(SPLIT=1):
    tile.copy %y -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<?x?x${OT}>
// tile.else:
    // The cluster's partial sums, added in f32 and stored once.
    tile.copy %y -> %ys
        : memref<${BM}x${BN}xf32, #tile.fragment>
       -> memref<${BM}x${BN}xf32, #gpu.address_space<workgroup>>
    tile.cluster_reduce add %ys -> %Y[%m0, %n0]
        : memref<${BM}x${BN}xf32, #gpu.address_space<workgroup>>
       -> memref<?x?x${OT}>
// tile.endif
  }
  return
}
