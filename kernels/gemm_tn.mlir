// The tile library GEMM, TN layout: C = A^T * B with A stored K x M (each
// column of A is a row of the product's left operand), B stored K x N and
// C stored M x N, all row-major, of any sizes (memref<?x?xT>; the grid is
// ceildiv(N, BN) x ceildiv(M, BM) blocks, and the copies mask the ragged
// edges). Each block owns a BM x BN tile of C: it walks K in steps of BK
// through a STAGES-deep software pipeline that stages a BK x BM tile of A
// and a BK x BN tile of B in shared memory, multiplies them on the tensor
// cores (transpose_a) into a register accumulator, and writes the
// accumulator back converted to the output type. Every element of C is
// written (C is `tile.overwrite`: a staged C is copied back, never in).
//
// Parameters (set with tile-compile -D NAME=VALUE; see docs/GEMM.md):
//   BM, BN, BK  block tile: rows of C, columns of C, depth of one K step
//   STAGES      pipeline depth of tile.pipelined (1 = no overlap)
//   THREADS     threads per block, a multiple of 32 (64 on AMD chips)
//   POLICY      how the warps split the C tile: square, full_row, full_col
//   PANEL       block rasterization panel (1 = launch order), RASTER its
//               order: row or column
//   CM, CN      thread-block cluster (sm_90a): CM blocks along M share
//               their B tiles, CN blocks along N their A tiles, each
//               loading a part and multicasting it (1 x 1: no cluster)
//   AT          element type of A and B: f16, bf16 or i8
//   CT          accumulator type: f32 (f16, bf16) or i32 (i8)
//   OT          type of C, converted from CT on the way out: f16, bf16,
//               f32 or i32
//   SPLIT       blocks one tile's K is split across (1: none), for
//               shapes of few output tiles and long K: the SPLIT blocks
//               of a cluster along grid z each walk a share of the K steps
//               into f32 accumulators and sum their tiles through
//               distributed shared memory (tile.cluster_reduce), rounding
//               once to OT as an unsplit tile does (sm_90a; at most 8)
//   PERSISTENT  true: as many blocks as the device holds at once walk
//               the tiles (tile-compile --persistent, set by the per-chip
//               options lines below), so a tile's stores drain while the
//               block loads and multiplies its next one (sm_90a, sm_80;
//               not with clusters: CM, CN or SPLIT above 1)
//   THREAD_STORE true: C is staged in shared memory as for its TMA store
//               but stored by the threads, 16-byte stores of each row's
//               aligned body (tile-compile --thread-store): no tensor map
//               of C, so the runtime need not stage a C whose rows are not
//               16-byte aligned (sm_90a; the tuned table's rules for N not
//               a multiple of 8)
// The siblings gemm_nn.mlir (A stored M x K) and gemm_nt.mlir (B stored
// N x K) take the same parameters.
//
// Defaults per chip: with --chip CHIP and no -D, a `tile.params(CHIP)` line
// replaces the generic defaults it names (docs/GEMM.md, "Defaults per
// chip"). sm_90a: 128x256x64 tiles, 3 stages, two consumer warpgroups, the
// best of the tuning sweep on the paper's shapes (gemm_nn, measured; the NT
// and TN layouts take it over unmeasured). sm_80: analytic, not measured.
// gfx942 and gfx90a (MFMA, wave64, 64 KiB of LDS): analytic, never run on
// an AMD GPU (docs/AMD.md, "Library GEMM parameters"): 128x128 tiles on
// four waves of 64x64 (2x2 32x32x8 MFMA blocks each, 64 accumulator
// registers), 32-deep K steps, two LDS stages of 16 KiB.
// tile.params(sm_90a): BM=128 BN=256 BK=64 STAGES=3 THREADS=256 PANEL=8
// f32 operands (read as tf32) take 32-deep K steps, 128 bytes a row as
// f16's 64: three stages of f16's depth would need 288 KiB of shared memory.
// tile.params(sm_90a AT=f32): BK=32
// tile.params(sm_80): BM=128 BN=128 BK=32 STAGES=4 THREADS=128 PANEL=8
// tile.params(gfx942): BM=128 BN=128 BK=32 STAGES=2 THREADS=256 PANEL=8
// tile.params(gfx90a): BM=128 BN=128 BK=32 STAGES=2 THREADS=256 PANEL=8
// Options per chip (docs/GEMM.md, "Options per chip"; --index-bitwidth on
// the command line overrides them): on NVIDIA chips the kernel computes
// indices in 32 bits, cheaper address arithmetic that the runtime allows
// only for matrices of fewer than 2^31 elements (fewer than 2^31 rows and
// columns for those the sm_90a kernel reaches only through tensor maps),
// refusing larger ones with an error. AMD chips keep 64-bit indices: with 32-bit ones the
// ROCDL lowering of this kernel makes invalid LLVM IR (i32 and i64
// operands mixed in one instruction) and the compile fails.
// tile.options(sm_90a): index-bitwidth=32 persistent=${PERSISTENT} thread-store=${THREAD_STORE}
// tile.options(sm_80): index-bitwidth=32 persistent=${PERSISTENT}
// The sizes the shapes of kernels/gemm_tuned.txt stand for (tile-compile
// --dispatch writes its rules over them):
// tile.dispatch: M=arg2.dim0 N=arg2.dim1 K=arg0.dim0
//
// tile.params: BM=128 BN=128 BK=32 STAGES=5 THREADS=128 POLICY=square
// tile.params: PANEL=8 RASTER=row CM=1 CN=1 AT=f16 CT=f32 OT=f16
// tile.params: SPLIT=1 PERSISTENT=false THREAD_STORE=false
func.func @gemm_tn(%A: memref<?x?x${AT}>, %B: memref<?x?x${AT}>,
                   %C: memref<?x?x${OT}> {tile.overwrite}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %bk = arith.constant ${BK} : index
  %M = memref.dim %A, %c1 : memref<?x?x${AT}>
  %N = memref.dim %B, %c1 : memref<?x?x${AT}>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
// tile.if(SPLIT=1):
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(${THREADS})
      rasterize(panel = ${PANEL}, order = ${RASTER})
      cluster(${CN}, ${CM}) {
// tile.else:
  %split = arith.constant ${SPLIT} : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %split)
      threads(${THREADS}) rasterize(panel = ${PANEL}, order = ${RASTER})
      cluster(${CN}, ${CM}, ${SPLIT}) {
    %Cs = tile.alloc : memref<${BM}x${BN}x${CT}, #gpu.address_space<workgroup>>
// tile.endif
    %As = tile.alloc : memref<${BK}x${BM}x${AT}, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<${BK}x${BN}x${AT}, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<${BM}x${BN}x${CT}, #tile.fragment>
    tile.clear %Cf : memref<${BM}x${BN}x${CT}, #tile.fragment>
    %m = arith.muli %by, %bm : index
    %n = arith.muli %bx, %bn : index
    // The last K step reads past K; the masked copies give zeros there.
    %K = memref.dim %A, %c0 : memref<?x?x${AT}>
    %steps = arith.ceildivui %K, %bk : index
// tile.if(SPLIT=1):
    tile.pipelined %k = %c0 to %steps step %c1 stages(${STAGES}) {
// tile.else:
    // This block's share of the steps (none past K: it adds zeros).
    %kper = arith.ceildivui %steps, %split : index
    %first0 = arith.muli %bz, %kper : index
    %first = arith.minui %first0, %steps : index
    %end = arith.addi %first, %kper : index
    %last = arith.minui %end, %steps : index
    tile.pipelined %k = %first to %last step %c1 stages(${STAGES}) {
// tile.endif
      %kk = arith.muli %k, %bk : index
      tile.copy %A[%kk, %m] -> %As
          : memref<?x?x${AT}> -> memref<${BK}x${BM}x${AT}, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs
          : memref<?x?x${AT}> -> memref<${BK}x${BN}x${AT}, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf transpose_a policy(${POLICY})
          : memref<${BK}x${BM}x${AT}, #gpu.address_space<workgroup>>,
            memref<${BK}x${BN}x${AT}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BN}x${CT}, #tile.fragment>
    }
// tile.if(SPLIT=1):
    tile.copy %Cf -> %C[%m, %n]
        : memref<${BM}x${BN}x${CT}, #tile.fragment> -> memref<?x?x${OT}>
// tile.else:
    // The cluster's partial tiles, summed in CT and stored once.
    tile.copy %Cf -> %Cs
        : memref<${BM}x${BN}x${CT}, #tile.fragment>
       -> memref<${BM}x${BN}x${CT}, #gpu.address_space<workgroup>>
    tile.cluster_reduce add %Cs -> %C[%m, %n]
        : memref<${BM}x${BN}x${CT}, #gpu.address_space<workgroup>> -> memref<?x?x${OT}>
// tile.endif
  }
  return
}
