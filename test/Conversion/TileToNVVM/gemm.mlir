// The bundled GEMM (examples/gemm.mlir: 128x128x32 tiles, 4 warps, 3
// stages) through the NVVM pipeline for sm_80: A and B go global -> shared
// by 16-byte cp.async (L1 bypassed) in commit groups (a prologue loop
// commits the first ones), the main loop waits
// for all but the newest group (3 stages: one group stays in flight), then
// ldmatrix (.trans for B, stored K x N) feeds mma.sync m16n8k16 with f32
// accumulators in registers, and nothing spills to local memory. The
// library GEMM with STAGES=4 leaves two groups in flight, and its
// 32-bit-index build still names every instruction. (sm_90a:
// gemm-hopper.mlir.)

// RUN: rm -rf %t && tile-compile %tile_src/examples/gemm.mlir -o %t --no-cubin --chip sm_80 > /dev/null
// RUN: FileCheck %s < %t/matmul_kernel.ptx
// RUN: FileCheck %s --check-prefix=INST < %t/matmul_kernel.ptx
// RUN: tile-compile %tile_src/kernels/gemm_nn.mlir -o %t/lib --no-cubin --chip sm_80 \
// RUN:   --index-bitwidth 32 -D STAGES=4 > /dev/null
// RUN: FileCheck %s --check-prefix=LIB < %t/lib/gemm_nn_kernel.ptx
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
// LIB-NEXT: bar.sync 0;

// MANIFEST: index-bitwidth 32
// MANIFEST: shared 65536
