//===- lower.c - C API: compile a tile kernel to PTX ----------------------===//
//
// Runs the tile-to-nvvm pipeline on a kernel through the C API and reads the
// PTX of the resulting `gpu.binary` with the upstream GPU dialect API, as a
// C driver that compiles kernels would. An unknown chip must fail with a
// diagnostic.
//
//===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-lower 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static const char *const kModule =
    "func.func @scale(%in: memref<?xf32>, %n: index) {\n"
    "  %c128 = arith.constant 128 : index\n"
    "  tile.kernel blocks(%bx) in (%n) threads(128) {\n"
    "    %s = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>\n"
    "    %tid = gpu.thread_id x\n"
    "    %base = arith.muli %bx, %c128 : index\n"
    "    %i = arith.addi %base, %tid : index\n"
    "    %v = memref.load %in[%i] : memref<?xf32>\n"
    "    memref.store %v, %s[%tid]\n"
    "        : memref<128xf32, #gpu.address_space<workgroup>>\n"
    "  }\n"
    "  return\n"
    "}\n";

/// Prints the object of every `gpu.binary` in the module: its target and
/// the PTX text.
static MlirWalkResult printBinaries(MlirOperation op, void *userData) {
  (void)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length != strlen("gpu.binary") ||
      strncmp(name.data, "gpu.binary", name.length) != 0)
    return MlirWalkResultAdvance;
  MlirAttribute objects = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("objects"));
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(objects); ++i) {
    MlirAttribute object = mlirArrayAttrGetElement(objects, i);
    if (!mlirAttributeIsAGPUObjectAttr(object))
      continue;
    fprintf(stderr, "object target: ");
    mlirAttributePrint(mlirGPUObjectAttrGetTarget(object), printToStderr, NULL);
    MlirStringRef ptx = mlirGPUObjectAttrGetObject(object);
    fprintf(stderr, "\nptx:\n%.*s\n", (int)ptx.length, ptx.data);
  }
  return MlirWalkResultAdvance;
}

static void compile(MlirContext ctx, const char *pipeline) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  MlirOperation op = mlirModuleGetOperation(module);
  MlirLogicalResult res = mlirTileRunPassPipeline(
      op, mlirStringRefCreateFromCString(pipeline), printToStderr, NULL);
  fprintf(stderr, "%s: %s\n", pipeline,
          mlirLogicalResultIsSuccess(res) ? "success" : "failure");
  if (mlirLogicalResultIsSuccess(res))
    mlirOperationWalk(op, printBinaries, NULL, MlirWalkPreOrder);
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  mlirTileRegisterPasses();

  compile(ctx, "builtin.module(tile-to-nvvm{chip=sm_80 format=isa})");
  // CHECK: builtin.module(tile-to-nvvm{chip=sm_80 format=isa}): success
  // CHECK-NEXT: object target: #nvvm.target<O = 3, chip = "sm_80">
  // CHECK-NEXT: ptx:
  // CHECK: .target sm_80
  // CHECK: .visible .entry scale_kernel(
  // CHECK: .maxntid 128, 1, 1
  // CHECK: ld.global
  // CHECK: st.shared

  compile(ctx, "builtin.module(tile-to-nvvm{chip=sm_12})");
  // CHECK: sm_12
  // CHECK: builtin.module(tile-to-nvvm{chip=sm_12}): failure
  // CHECK-NOT: ptx:

  mlirContextDestroy(ctx);
  return 0;
}
