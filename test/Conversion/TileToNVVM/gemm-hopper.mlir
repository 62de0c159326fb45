// The library GEMM for sm_90a in its tuned Hopper shape (128x256x64 tiles,
// two consumer warpgroups, 4 stages): the two global operands reach the
// kernel as 128-byte grid-constant tensor maps; a third warpgroup gives up
// registers (setmaxnreg 40, the consumers take 232) and one of its threads
// issues per stage one TMA load of A (a 128x64 box) and four of B (64x64
// boxes, one per 128-byte swizzle row), announced on the stage's full
// mbarrier as 48 KiB; the consumers wait on it and multiply with four
// m64n256k16 wgmma per 64-deep K step, then release the stage. The block
// is 384 threads and nothing spills. The epilogue goes out through two
// 16 KiB swizzled staging buffers (230400 bytes of shared memory in all):
// per 64-column chunk the consumers write their halves, fence them for the
// async proxy and meet at named barrier 1, and one thread stores the
// 128x64 box with TMA through C's tensor map, the third grid-constant
// parameter; before a buffer is written again it waits until at most one
// store still reads shared memory, and at the end for all of them. With
// --no-tma-store the epilogue stores from registers. With --thread-store
// it is staged in the same buffers, each element by one
// 2-byte shared store at its row's rotated place, and the consumers store
// it: per chunk four rounds of a 16-byte shared load and a 16-byte global
// store, and the rows' ends two bytes at a time; C has no tensor map and
// nothing spills. With
// --no-warp-specialize the same
// kernel keeps its cp.async pipeline (for rows that TMA cannot address):
// each thread fences its landed copies for the async proxy before the
// barrier, and wgmma reads them.

// RUN: rm -rf %t && tile-compile %tile_src/kernels/gemm_nn.mlir -o %t --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 -D BM=128 -D BN=256 -D BK=64 -D THREADS=256 -D STAGES=4 > /dev/null
// RUN: FileCheck %s --implicit-check-not=.local < %t/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=INST < %t/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_nn_kernel.manifest
// RUN: FileCheck %s --check-prefix=STORE < %t/gemm_nn_kernel.ptx
// RUN: tile-compile %tile_src/kernels/gemm_nn.mlir -o %t/direct --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 -D BM=128 -D BN=256 -D BK=64 -D THREADS=256 -D STAGES=4 \
// RUN:   --no-tma-store > /dev/null
// RUN: FileCheck %s --check-prefix=DIRECT < %t/direct/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=DIRECT-MANIFEST < %t/direct/gemm_nn_kernel.manifest
// RUN: tile-compile %tile_src/kernels/gemm_nn.mlir -o %t/threads --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 -D BM=128 -D BN=256 -D BK=64 -D THREADS=256 -D STAGES=4 \
// RUN:   --thread-store > /dev/null
// RUN: FileCheck %s --check-prefix=THREADS --implicit-check-not=.local < %t/threads/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=THREADS-MANIFEST < %t/threads/gemm_nn_kernel.manifest
// RUN: tile-compile %tile_src/kernels/gemm_nn.mlir -o %t/cp --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 --no-warp-specialize -D BN=128 -D BK=32 -D THREADS=128 \
// RUN:   -D STAGES=4 > /dev/null
// RUN: FileCheck %s --check-prefix=CPASYNC < %t/cp/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=CPASYNC-WGMMA < %t/cp/gemm_nn_kernel.ptx
// RUN: tile-compile %tile_src/kernels/gemm_nt.mlir -o %t/f8 --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 -D AT=f8E4M3FN -D OT=f16 -D BM=128 -D BN=256 -D BK=128 \
// RUN:   -D THREADS=256 -D STAGES=3 > /dev/null
// RUN: FileCheck %s --check-prefix=FP8 < %t/f8/gemm_nt_kernel.ptx
// RUN: FileCheck %s --check-prefix=FP8-MANIFEST < %t/f8/gemm_nt_kernel.manifest

// CHECK: .visible .entry gemm_nn_kernel(
// CHECK-COUNT-3: .param .align 64 .b8 gemm_nn_kernel_param_{{[0-9]+}}[128]
// CHECK: .maxntid 384, 1, 1
// CHECK: mbarrier.init.shared.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;

// The blocks of the two roles come in any order.
// INST-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// INST-DAG: mbarrier.try_wait.parity.shared.b64
// INST-DAG: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// INST-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// INST-DAG: wgmma.fence.sync.aligned;
// INST-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// INST-DAG: wgmma.commit_group.sync.aligned;
// INST-DAG: wgmma.wait_group.sync.aligned 0;
// INST-DAG: mbarrier.arrive.shared.b64
// INST-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// INST-DAG: cp.async.bulk.commit_group;
// INST-DAG: cp.async.bulk.wait_group.read 1;
// INST-NOT: cp.async.cg.shared.global
// INST-NOT: st.global
// INST-NOT: mma.sync.aligned

// MANIFEST: param arg2 memref<?x?xf16> none
// MANIFEST: param arg2_tmap0 tensormap arg2 box 128x64 swizzle 128b interleave none l2 256b oob zero
// MANIFEST: param arg0_tmap0 tensormap arg0 box 128x64 swizzle 128b interleave none l2 256b oob zero
// MANIFEST: param arg1_tmap0 tensormap arg1 box 64x64 swizzle 128b interleave none l2 256b oob zero
// MANIFEST: block 384 1 1
// MANIFEST: shared 230400

// The four chunks of the epilogue, in order.
// STORE: fence.proxy.async.shared::cta;
// STORE-NEXT: bar.sync 1, 256;
// STORE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP:[0-9]+]], {%r{{[0-9]+}}, %r[[M:[0-9]+]]}], [%rd{{[0-9]+}}];
// STORE-NEXT: cp.async.bulk.commit_group;
// STORE: fence.proxy.async.shared::cta;
// STORE-NEXT: bar.sync 1, 256;
// STORE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[M]]}]
// STORE-NEXT: cp.async.bulk.commit_group;
// STORE-NEXT: cp.async.bulk.wait_group.read 1;
// STORE: bar.sync 1, 256;
// STORE: fence.proxy.async.shared::cta;
// STORE-NEXT: bar.sync 1, 256;
// STORE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[M]]}]
// STORE-NEXT: cp.async.bulk.commit_group;
// STORE-NEXT: cp.async.bulk.wait_group.read 1;
// STORE: bar.sync 1, 256;
// STORE: fence.proxy.async.shared::cta;
// STORE-NEXT: bar.sync 1, 256;
// STORE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[M]]}]
// STORE-NEXT: cp.async.bulk.commit_group;
// STORE-NEXT: cp.async.bulk.wait_group 0;
// STORE-NOT: cp.async.bulk.tensor.2d.global.shared::cta

// DIRECT-COUNT-2: .param .align 64 .b8 gemm_nn_kernel_param_{{[0-9]+}}[128]
// DIRECT-NOT: .param .align 64
// DIRECT-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// The accumulator's rows leave in 16-byte stores: the four threads of a
// row exchange their pairs of halves first.
// DIRECT: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, -1;
// DIRECT: st.global.v4.b32
// DIRECT-NOT: st.global.b32
// DIRECT-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// DIRECT-MANIFEST-NOT: tmap{{.*}}arg2
// DIRECT-MANIFEST: shared 196672
// THREADS-COUNT-2: .param .align 64 .b8 gemm_nn_kernel_param_{{[0-9]+}}[128]
// THREADS-NOT: .param .align 64
// THREADS-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// THREADS: st.shared.b16
// THREADS: bar.sync 1, 256;
// THREADS: ld.shared.v4.b32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}
// THREADS: st.global.v4.b32 [{{%rd[0-9]+}}], {[[A]], [[B]], [[C]], [[D]]};
// THREADS: st.global.b16
// THREADS-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// THREADS-MANIFEST-NOT: tmap{{.*}}arg2
// THREADS-MANIFEST: shared 230400

// CPASYNC: .maxntid 128, 1, 1
// CPASYNC-NOT: cp.async.bulk.tensor
// CPASYNC: cp.async.cg.shared.global
// CPASYNC: cp.async.wait_group 2;
// CPASYNC-NEXT: fence.proxy.async.shared::cta;
// CPASYNC-NEXT: bar.sync 0;
// CPASYNC-WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

// fp8 (NT, both operands K-major): 128-deep K steps of four k32 wgmma,
// 128x128 and 256x128 boxes of one-byte elements.
// FP8: setmaxnreg.inc.sync.aligned.u32 232;
// FP8-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// FP8-MANIFEST: param arg0 memref<?x?xf8E4M3FN> descriptor
// FP8-MANIFEST: param arg0_tmap0 tensormap arg0 box 128x128 swizzle 128b
// FP8-MANIFEST: param arg1_tmap0 tensormap arg1 box 256x128 swizzle 128b
