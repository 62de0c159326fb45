// ===- target.c - C API: known targets and tensor-core instructions -------===//
//
// Looks up known targets through the C API and reads their warp size,
// shared memory and tensor-core instructions, attaches a target to a module,
// and checks that unknown chips and wrong-kind handles give the documented
// answers instead of crashing.
//
// ===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-target 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/IR.h"

#include <inttypes.h>
#include <stdio.h>

static void printTarget(MlirContext ctx, const char *chip) {
  MlirAttribute target =
      mlirTileTargetAttrGet(ctx, mlirStringRefCreateFromCString(chip));
  MlirStringRef name = mlirTileTargetAttrGetChip(target);
  fprintf(stderr,
          "%.*s: target %d, warp %" PRId64 ", shared %" PRId64
          ", %d instructions\n",
          (int)name.length, name.data, mlirAttributeIsATileTarget(target),
          mlirTileTargetAttrGetWarpSize(target),
          mlirTileTargetAttrGetSharedPerBlock(target),
          (int)mlirTileTargetAttrGetNumMma(target));
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  MlirStringRef defaultChip = mlirTileGetDefaultChip();
  fprintf(stderr, "default: %.*s\n", (int)defaultChip.length, defaultChip.data);
  // CHECK: default: sm_90a
  for (intptr_t i = 0; i < mlirTileGetNumKnownChips(); ++i) {
    MlirStringRef chip = mlirTileGetKnownChip(i);
    fprintf(stderr, "%s%.*s", i ? ", " : "known: ", (int)chip.length,
            chip.data);
  }
  fprintf(stderr, "\n");
  // CHECK-NEXT: known: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942

  printTarget(ctx, "sm_80");
  printTarget(ctx, "sm_90a");
  printTarget(ctx, "gfx942");
  // CHECK-NEXT: sm_80: target 1, warp 32, shared 166912, 5 instructions
  // CHECK-NEXT: sm_90a: target 1, warp 32, shared 232448, 13 instructions
  // CHECK-NEXT: gfx942: target 1, warp 64, shared 65536, 16 instructions

  // The most preferred instruction of sm_90a is a wgmma; its shape and
  // types.
  MlirAttribute sm90a =
      mlirTileTargetAttrGet(ctx, mlirStringRefCreateFromCString("sm_90a"));
  MlirAttribute first = mlirTileTargetAttrGetMma(sm90a, 0);
  mlirAttributeDump(first);
  // CHECK-NEXT: #tile.mma<wgmma m64n256k16, f16 x f16 -> f32>
  fprintf(stderr, "mma %d, kind %d, m%" PRId64 "n%" PRId64 "k%" PRId64 ", c ",
          mlirAttributeIsATileMma(first), (int)mlirTileMmaAttrGetKind(first),
          mlirTileMmaAttrGetShape(first, 0), mlirTileMmaAttrGetShape(first, 1),
          mlirTileMmaAttrGetShape(first, 2));
  mlirTypeDump(mlirTileMmaAttrGetElementType(first, 2));
  // CHECK-NEXT: mma 1, kind 1, m64n256k16, c f32

  // Unknown chips, out-of-range positions and wrong kinds.
  MlirAttribute unknown =
      mlirTileTargetAttrGet(ctx, mlirStringRefCreateFromCString("sm_99"));
  fprintf(stderr, "unknown null: %d\n", mlirAttributeIsNull(unknown));
  // CHECK-NEXT: unknown null: 1
  fprintf(stderr, "past the end null: %d, known chip past the end: %d\n",
          mlirAttributeIsNull(mlirTileTargetAttrGetMma(sm90a, 13)),
          (int)mlirTileGetKnownChip(7).length);
  // CHECK-NEXT: past the end null: 1, known chip past the end: 0
  fprintf(
      stderr, "wrong kind: %d %" PRId64 " %" PRId64 " %d %d %" PRId64 " %d\n",
      mlirAttributeIsATileTarget(first), mlirTileTargetAttrGetWarpSize(first),
      mlirTileTargetAttrGetSharedPerBlock(first),
      (int)mlirTileTargetAttrGetNumMma(first),
      (int)mlirTileMmaAttrGetKind(sm90a), mlirTileMmaAttrGetShape(first, 3),
      mlirTypeIsNull(mlirTileMmaAttrGetElementType(first, 3)));
  // CHECK-NEXT: wrong kind: 0 -1 -1 -1 -1 -1 1

  // Attaching a target to a module, then an unknown chip.
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString("func.func @f() { return }"));
  MlirOperation op = mlirModuleGetOperation(module);
  MlirLogicalResult attached =
      mlirTileAttachTarget(op, mlirStringRefCreateFromCString("sm_80"));
  fprintf(stderr, "attach sm_80: %d\n", mlirLogicalResultIsSuccess(attached));
  mlirOperationDump(op);
  // CHECK-NEXT: attach sm_80: 1
  // CHECK-NEXT: module attributes {tile.target = #tile.target<"sm_80">}
  attached = mlirTileAttachTarget(op, mlirStringRefCreateFromCString("sm_99"));
  fprintf(stderr, "attach sm_99: %d\n", mlirLogicalResultIsSuccess(attached));
  // CHECK: error: unknown chip 'sm_99'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
  // CHECK-NEXT: attach sm_99: 0
  MlirOperation nullOp = {NULL};
  fprintf(stderr, "attach null: %d\n",
          mlirLogicalResultIsSuccess(mlirTileAttachTarget(
              nullOp, mlirStringRefCreateFromCString("sm_80"))));
  // CHECK-NEXT: attach null: 0

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
