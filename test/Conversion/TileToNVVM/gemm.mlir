// The bundled GEMM (examples/gemm.mlir: 128x128x32 tiles, 4 warps, 3
// stages) through the NVVM pipeline for sm_80: A and B go global -> shared
// by 16-byte cp.async (L1 bypassed) in commit groups (a prologue loop
// commits the first ones), the main loop waits
// for all but the newest group (3 stages: one group stays in flight), then
// ldmatrix (.trans for B, stored K x N) feeds mma.sync m16n8k16 with f32
// accumulators in registers, and nothing spills to local memory. The
// library GEMM for sm_90a with STAGES=4 leaves two groups in flight, fences
// the landed copies for the async proxy before the barrier, and multiplies
// with wgmma on shared-memory descriptors: per 32-deep K step two
// m64n128k16 instructions for each of the two 64-row halves, one commit
// group, and a wait for it.

// RUN: rm -rf %t && tile-compile %tile_src/examples/gemm.mlir -o %t --no-cubin --chip sm_80 > /dev/null
// RUN: FileCheck %s < %t/matmul_kernel.ptx
// RUN: FileCheck %s --check-prefix=INST < %t/matmul_kernel.ptx
// RUN: tile-compile %tile_src/kernels/gemm_nn.mlir -o %t/lib --no-cubin --chip sm_90a \
// RUN:   --index-bitwidth 32 -D STAGES=4 > /dev/null
// RUN: FileCheck %s --check-prefix=LIB < %t/lib/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=WGMMA < %t/lib/gemm_nn_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/lib/gemm_nn_kernel.manifest

// CHECK: .visible .entry matmul_kernel(
// CHECK-NOT: .local
// CHECK: cp.async.cg.shared.global [{{.+}}], [{{.+}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK-NEXT: bar.sync 0;

// The loop body's blocks come in any order.
// INST-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// INST-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// INST-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// INST-DAG: cp.async.wait_group 0;
// INST-NOT: cp.async.wait_group 2;

// LIB: .visible .entry gemm_nn_kernel(
// LIB-NOT: .local
// LIB: cp.async.cg.shared.global [{{.+}}], [{{.+}}], 16, %r{{[0-9]+}};
// LIB: cp.async.wait_group 2;
// LIB-NEXT: fence.proxy.async.shared::cta;
// LIB-NEXT: bar.sync 0;

// WGMMA: wgmma.fence.sync.aligned;
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA: wgmma.wait_group.sync.aligned 0;
// WGMMA-NOT: mma.sync.aligned.m16n8k16

// MANIFEST: index-bitwidth 32
// MANIFEST: shared 65536
