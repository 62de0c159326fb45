//===- lower-twice.c - C API: lowered kernels and out-of-range layouts ----===//
//
// A kernel that tile-lower has lowered is per-thread code: lowering it again,
// through a pipeline or mlirTileKernelOpLower, is an error at the kernel
// that leaves valid IR, and its resources can no longer be read. Layouts
// whose offsets leave int64 are rejected when built, and the offset query
// refuses buffers that would take an unshaped layout beyond int64.
//
//===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-lower-twice 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdio.h>

static const char *const kModule =
    "func.func @add(%X: memref<64x64xf32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  tile.kernel blocks(%bx) in (%c1) threads(128) {\n"
    "    %f = tile.alloc : memref<64x64xf32, #tile.fragment>\n"
    "    tile.copy %X[%bx, %bx] -> %f\n"
    "        : memref<64x64xf32> -> memref<64x64xf32, #tile.fragment>\n"
    "    tile.copy %f -> %X[%bx, %bx]\n"
    "        : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32>\n"
    "  } loc(\"kernel.mlir\":3:3)\n"
    "  return\n"
    "}\n";

/// Prints the location and message of each diagnostic.
static MlirLogicalResult printLocated(MlirDiagnostic diagnostic,
                                      void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic at ");
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToStderr, NULL);
  fprintf(stderr, ": ");
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static MlirWalkResult findKernel(MlirOperation op, void *userData) {
  if (!mlirTileIsAKernelOp(op))
    return MlirWalkResultAdvance;
  *(MlirOperation *)userData = op;
  return MlirWalkResultInterrupt;
}

static const char *status(MlirLogicalResult r) {
  return mlirLogicalResultIsSuccess(r) ? "success" : "failure";
}

static MlirLogicalResult runPipeline(MlirModule module, const char *text) {
  return mlirTileRunPassPipeline(mlirModuleGetOperation(module),
                                 mlirStringRefCreateFromCString(text),
                                 printToStderr, NULL);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printLocated, NULL, NULL);
  mlirTileRegisterPasses();

  // tile-lower twice in one pipeline: the second one fails at the kernel,
  // as it does in tile-opt, and the IR stays valid.
  MlirModule piped =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  fprintf(stderr, "pipeline: %s\n",
          status(runPipeline(piped, "builtin.module(tile-infer-layout,"
                                    "tile-lower,tile-lower)")));
  // CHECK: diagnostic at loc("kernel.mlir":3:3): 'tile.kernel' op is already lowered (tile-lower ran on it); run tile-lower once per kernel, after tile-infer-layout
  // CHECK-NEXT: pipeline: failure
  fprintf(stderr, "verifies: %d\n",
          mlirOperationVerify(mlirModuleGetOperation(piped)));
  // CHECK-NEXT: verifies: 1
  mlirModuleDestroy(piped);

  // mlirTileKernelOpLower twice on one kernel.
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  fprintf(stderr, "infer: %s\n",
          status(runPipeline(module, "builtin.module(tile-infer-layout)")));
  // CHECK-NEXT: infer: success
  MlirOperation kernel = {NULL};
  mlirOperationWalk(moduleOp, findKernel, &kernel, MlirWalkPreOrder);
  int64_t shared = -7, registers = -7;
  fprintf(stderr, "resources: %s",
          status(mlirTileKernelOpGetResources(kernel, &shared, &registers)));
  fprintf(stderr, " %lld %lld\n", (long long)shared, (long long)registers);
  // 64 x 64 floats over 128 threads.
  // CHECK-NEXT: resources: success 0 32
  fprintf(stderr, "lower: %s\n", status(mlirTileKernelOpLower(kernel)));
  // CHECK-NEXT: lower: success
  fprintf(stderr, "lower again: %s\n", status(mlirTileKernelOpLower(kernel)));
  // CHECK-NEXT: diagnostic at loc("kernel.mlir":3:3): 'tile.kernel' op is already lowered
  // CHECK-NEXT: lower again: failure
  fprintf(stderr, "verifies: %d\n", mlirOperationVerify(moduleOp));
  // CHECK-NEXT: verifies: 1
  shared = registers = -7;
  fprintf(stderr, "resources after lowering: %s",
          status(mlirTileKernelOpGetResources(kernel, &shared, &registers)));
  fprintf(stderr, " %lld %lld\n", (long long)shared, (long long)registers);
  // CHECK-NEXT: resources after lowering: failure -7 -7
  mlirModuleDestroy(module);

  // A row-major tile of 2^32 x 2^32 is not a layout; an unshaped map that
  // would leave int64 on such a buffer answers no offset.
  MlirAttribute huge = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#tile.layout<[4294967296, 4294967296], row_major>"));
  fprintf(stderr, "huge layout: %s\n",
          mlirAttributeIsNull(huge) ? "rejected" : "accepted");
  // CHECK-NEXT: diagnostic at {{.*}}: expected at most 2^63-1 elements, got shape [4294967296, 4294967296]
  // CHECK-NEXT: huge layout: rejected
  MlirAffineExpr d0 = mlirAffineDimExprGet(ctx, 0);
  MlirAffineExpr d1 = mlirAffineDimExprGet(ctx, 1);
  MlirAffineExpr offset = mlirAffineAddExprGet(
      mlirAffineMulExprGet(d0, mlirAffineConstantExprGet(ctx, 4294967296)), d1);
  MlirAttribute unshaped =
      mlirTileLayoutAttrGet(ctx, mlirAffineMapGet(ctx, 2, 0, 1, &offset));
  const int64_t small[2] = {4, 4}, big[2] = {4294967296, 4294967296};
  const int64_t small1[2] = {3, 1}, big1[2] = {4294967295, 0};
  int64_t value = -7;
  bool ok = mlirTileLayoutAttrGetOffset(unshaped, small, small1, 2, &value);
  fprintf(stderr, "offset on 4x4: %d %lld\n", ok, (long long)value);
  // CHECK-NEXT: offset on 4x4: 1 12884901889
  value = -7;
  ok = mlirTileLayoutAttrGetOffset(unshaped, big, big1, 2, &value);
  fprintf(stderr, "offset on 2^32 x 2^32: %d %lld\n", ok, (long long)value);
  // CHECK-NEXT: offset on 2^32 x 2^32: 0 -7

  mlirContextDestroy(ctx);
  return 0;
}
