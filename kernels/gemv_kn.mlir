// The tile library GEMV for weights stored K x N: Y = X * W with X stored
// M x K (M small: one row is the vector-matrix product y = x W), W stored
// K x N and Y stored M x N, all row-major and of any sizes, f32
// accumulation. It is what the NN GEMM with one row computes (and the TN
// GEMM with one row, on A's K x 1 viewed as 1 x K); kernels/gemv.mlir is
// the same product for W stored N x K.
//
// Bound by the bandwidth of streaming W, like gemv.mlir, but W's rows now
// run along the outputs: a block owns BN consecutive columns of W, and
// each thread loads VE of them (16 bytes) from each of its rows, so CT =
// BN / VE threads cover a row and GROUPS = THREADS / CT rows are read at
// once. Each K step of BK rows gives a thread BK / GROUPS rows (rows k with
// k mod GROUPS its group), that many 16-byte loads in flight. Products are
// accumulated element-wise in f32 registers of the thread that loaded
// them; after the K loop, `tile.reduce` sums each column over the thread's
// rows and across the GROUPS threads that share the column (through shared
// memory, as they span warps). X is a replicated fragment: each group's CT
// threads hold the group's elements of X.
//
// Ragged sizes need no code: the copies give zeros outside W and X, and
// the store drops the columns outside Y; rows of W that are not 16-byte
// aligned (N not a multiple of 8) take the copies' element loads.
//
// Parameters (tile-compile -D NAME=VALUE):
//   THREADS  threads per block, a multiple of 32
//   CT       threads across a row of the block's columns: BN / VE
//   GROUPS   THREADS / CT, the rows read at once
//   VE       elements per thread per row: 8 (16 bytes of f16 or bf16)
//   BN       columns of W per block: CT * VE
//   BK       rows of W per K step: a multiple of GROUPS
//   BM       rows of X per block
//   AT       element type of W and X: f16 or bf16 (the GEMMs' name)
//   OT       element type of Y: f16, bf16 or f32
// The defaults, 64 columns per block on 128 threads and 8 rows per thread
// per step (154 registers), were the best of three configurations for one
// row of X and N of 16384 or more on an H200 (bench/RESULTS.md, "One-row
// NN and TN through a GEMV").
// tile.params: THREADS=128 CT=8 GROUPS=16 VE=8 BN=64 BK=128 BM=1 AT=f16 OT=f16

#wtile = #tile.fragment<threads = ${THREADS}, map = (k, n) ->
  ((k mod ${GROUPS}) * ${CT} + n floordiv ${VE},
   (k floordiv ${GROUPS}) * ${VE} + n mod ${VE})>
#xtile = #tile.fragment<threads = ${THREADS}, map = (m, k)[s0] ->
  ((k mod ${GROUPS}) * ${CT} + s0,
   m * (${BK} floordiv ${GROUPS}) + k floordiv ${GROUPS}),
  replicate = ${CT}>
#ptile = #tile.fragment<threads = ${THREADS}, map = (m, n, k) ->
  ((k mod ${GROUPS}) * ${CT} + n floordiv ${VE},
   (m * (${BK} floordiv ${GROUPS}) + k floordiv ${GROUPS}) * ${VE}
     + n mod ${VE})>

func.func @gemv_kn(%X: memref<?x?x${AT}>, %W: memref<?x?x${AT}>,
                   %Y: memref<?x?x${OT}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %M = memref.dim %X, %c0 : memref<?x?x${AT}>
  %K = memref.dim %X, %c1 : memref<?x?x${AT}>
  %N = memref.dim %W, %c1 : memref<?x?x${AT}>
  %gx = arith.ceildivui %M, %bm : index
  %gy = arith.ceildivui %N, %bn : index
  %steps = arith.ceildivui %K, %bk : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS}) {
    %w = tile.alloc {layout = #wtile} : memref<${BK}x${BN}x${AT}, #tile.fragment>
    %x = tile.alloc {layout = #xtile} : memref<${BM}x${BK}x${AT}, #tile.fragment>
    %p = tile.alloc {layout = #ptile}
        : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %y = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    tile.clear %p : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    scf.for %s = %c0 to %steps step %c1 {
      %k0 = arith.muli %s, %bk : index
      tile.copy %W[%k0, %n0] -> %w
          : memref<?x?x${AT}> -> memref<${BK}x${BN}x${AT}, #tile.fragment>
      tile.copy %X[%m0, %k0] -> %x
          : memref<?x?x${AT}> -> memref<${BM}x${BK}x${AT}, #tile.fragment>
      tile.parallel (%i, %j, %k) in (${BM}, ${BN}, ${BK}) {
        %acc = memref.load %p[%i, %j, %k]
            : memref<${BM}x${BN}x${BK}xf32, #tile.fragment>
        %wv = memref.load %w[%k, %j] : memref<${BK}x${BN}x${AT}, #tile.fragment>
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
