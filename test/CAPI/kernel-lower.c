//===- kernel-lower.c - C API: pipeline and lower one tile kernel ---------===//
//
// Infers the layouts of a pipelined GEMM kernel with a textual pipeline,
// then calls the lowering directly on the kernel from C: first only the
// software pipelining (the shared tiles get two slots and the copies become
// cp.async groups), then all of tile-lower (the gemm becomes mma.sync).
// A second copy, inferred and lowered for sm_90a, gets wgmma and a TMA
// producer warpgroup. Null operations and operations that are not kernels
// give failure.
//
//===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-kernel-lower 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>

static const char *const kModule =
    "func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>,\n"
    "                %C: memref<?x?xf32>, %kt: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c32 = arith.constant 32 : index\n"
    "  tile.kernel blocks(%bx) in (%c1) threads(128) {\n"
    "    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>\n"
    "    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>\n"
    "    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>\n"
    "    tile.clear %Cf : memref<64x64xf32, #tile.fragment>\n"
    "    tile.pipelined %k = %c0 to %kt step %c1 stages(2) {\n"
    "      %kk = arith.muli %k, %c32 : index\n"
    "      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16>\n"
    "          -> memref<64x32xf16, #gpu.address_space<workgroup>>\n"
    "      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16>\n"
    "          -> memref<32x64xf16, #gpu.address_space<workgroup>>\n"
    "      tile.gemm %As, %Bs -> %Cf\n"
    "          : memref<64x32xf16, #gpu.address_space<workgroup>>,\n"
    "            memref<32x64xf16, #gpu.address_space<workgroup>>\n"
    "         -> memref<64x64xf32, #tile.fragment>\n"
    "    }\n"
    "    tile.copy %Cf -> %C[%c0, %c0]\n"
    "        : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static MlirWalkResult findKernel(MlirOperation op, void *userData) {
  if (!mlirTileIsAKernelOp(op))
    return MlirWalkResultAdvance;
  *(MlirOperation *)userData = op;
  return MlirWalkResultInterrupt;
}

static const char *status(MlirLogicalResult r) {
  return mlirLogicalResultIsSuccess(r) ? "success" : "failure";
}

/// kModule parsed, compiled for `chip` and its layouts inferred; prints the
/// outcome.
static MlirModule parseAndInfer(MlirContext ctx, const char *chip) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  char pipeline[96];
  // The target is attached once; inference, pipelining and lowering read
  // it from the IR.
  snprintf(pipeline, sizeof(pipeline),
           "builtin.module(tile-attach-target{chip=%s},tile-infer-layout)",
           chip);
  fprintf(stderr, "infer %s: %s\n", chip,
          status(mlirTileRunPassPipeline(
              mlirModuleGetOperation(module),
              mlirStringRefCreateFromCString(pipeline), printToStderr, NULL)));
  return module;
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  mlirTileRegisterPasses();

  MlirModule module = parseAndInfer(ctx, "sm_80");
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  // CHECK: infer sm_80: success
  MlirOperation kernel = {NULL};
  mlirOperationWalk(moduleOp, findKernel, &kernel, MlirWalkPreOrder);
  fprintf(stderr, "pipeline: %s\n",
          status(mlirTileKernelOpPipelineLoops(kernel)));
  // CHECK-NEXT: pipeline: success
  mlirOperationPrint(kernel, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: tile.alloc {{.*}} : memref<2x64x32xf16, #gpu.address_space<workgroup>>
  // CHECK: scf.for
  // CHECK: tile.copy {{.*}} {tile.async
  // CHECK: nvvm.cp.async.commit.group
  // CHECK: nvvm.cp.async.wait.group 0
  // CHECK: gpu.barrier
  // CHECK: tile.gemm

  fprintf(stderr, "lower: %s\n", status(mlirTileKernelOpLower(kernel)));
  // CHECK: lower: success
  mlirOperationPrint(kernel, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: nvgpu.device_async_copy
  // CHECK: nvgpu.ldmatrix
  // CHECK: nvgpu.mma.sync
  // CHECK-NOT: tile.gemm

  // The same kernel for sm_90a: wgmma, TMA loads, a producer warpgroup.
  MlirModule hopper = parseAndInfer(ctx, "sm_90a");
  MlirOperation hopperOp = mlirModuleGetOperation(hopper);
  // CHECK: infer sm_90a: success
  MlirOperation hopperKernel = {NULL};
  mlirOperationWalk(hopperOp, findKernel, &hopperKernel, MlirWalkPreOrder);
  fprintf(stderr, "lower sm_90a: %s\n",
          status(mlirTileKernelOpLowerForChip(
              hopperKernel, mlirStringRefCreateFromCString("sm_90a"), true)));
  // CHECK: lower sm_90a: success
  mlirOperationPrint(hopperOp, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: nvgpu.tma.create.descriptor
  // CHECK: tile.producer_threads = 128
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
  mlirModuleDestroy(hopper);

  MlirOperation none = {NULL};
  fprintf(stderr, "null: %s %s\n", status(mlirTileKernelOpPipelineLoops(none)),
          status(mlirTileKernelOpLower(none)));
  // CHECK: null: failure failure
  fprintf(stderr, "module: %s %s\n", status(mlirTileKernelOpLower(moduleOp)),
          status(mlirTileKernelOpLowerForChip(
              none, mlirStringRefCreateFromCString("sm_90a"), true)));
  // CHECK-NEXT: module: failure failure
  // CHECK-NOT: error:

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
