// ===- layout.c - C API: evaluate layouts and fragments -------------------===//
//
// Builds the NVIDIA 128-byte swizzle and the mma.sync m16n8k16 accumulator
// fragment through the C API, evaluates them on coordinates whose images
// the PTX ISA and the swizzle definition fix, evaluates a shapeless layout
// parsed from text on a buffer shape, and checks that bad queries (wrong
// kind, coordinates outside the tile, a shape that does not fit, an unknown
// built-in) fail instead of crashing.
//
// ===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-layout 2>&1 | FileCheck %s

#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"

#include "mlir-c/IR.h"

#include <inttypes.h>
#include <stdio.h>

static void printOffset(MlirAttribute layout, const int64_t *shape,
                        intptr_t rank, int64_t row, int64_t col) {
  int64_t coords[2] = {row, col}, offset = -1;
  bool ok = mlirTileLayoutAttrGetOffset(layout, shape, coords, rank, &offset);
  fprintf(stderr, "(%" PRId64 ", %" PRId64 ") -> %s %" PRId64 "\n", row, col,
          ok ? "ok" : "failed", ok ? offset : -1);
}

static void printPlacement(MlirAttribute fragment, int64_t row, int64_t col) {
  int64_t coords[2] = {row, col}, thread = -1, reg = -1;
  bool ok = mlirTileFragmentAttrGetPlacement(fragment, NULL, coords, 0, 0,
                                             &thread, &reg);
  fprintf(stderr,
          "(%" PRId64 ", %" PRId64 ") -> %s T%" PRId64 ":R%" PRId64 "\n", row,
          col, ok ? "ok" : "failed", thread, reg);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);

  // 8x64 f16 under the 128-byte swizzle: the 16-byte chunk index of an
  // element is XORed with its row.
  MlirAttribute swizzle = mlirTileLayoutAttrGetSwizzled(ctx, 8, 64, 128, 16);
  mlirAttributeDump(swizzle);
  // CHECK: #tile.layout<[8, 64], swizzle<128, 16>>
  printOffset(swizzle, NULL, 0, 0, 0);
  printOffset(swizzle, NULL, 0, 1, 0);
  printOffset(swizzle, NULL, 0, 1, 8);
  printOffset(swizzle, NULL, 0, 7, 9);
  // CHECK-NEXT: (0, 0) -> ok 0
  // CHECK-NEXT: (1, 0) -> ok 72
  // CHECK-NEXT: (1, 8) -> ok 64
  // CHECK-NEXT: (7, 9) -> ok 497
  fprintf(stderr, "bijective: %d\n",
          mlirTileLayoutAttrIsBijective(swizzle, NULL, 0));
  // CHECK-NEXT: bijective: 1

  // Outside the tile, a shape that differs from the attribute's, a null
  // output: failures.
  printOffset(swizzle, NULL, 0, 8, 0);
  int64_t otherShape[2] = {16, 64};
  printOffset(swizzle, otherShape, 2, 0, 0);
  int64_t coords[2] = {0, 0};
  fprintf(stderr, "null output: %d\n",
          mlirTileLayoutAttrGetOffset(swizzle, NULL, coords, 0, NULL));
  // CHECK-NEXT: (8, 0) -> failed -1
  // CHECK-NEXT: (0, 0) -> failed -1
  // CHECK-NEXT: null output: 0

  // A swizzle that does not fit the shape (5 rows) gives a null attribute.
  fprintf(
      stderr, "misfit swizzle null: %d\n",
      mlirAttributeIsNull(mlirTileLayoutAttrGetSwizzled(ctx, 5, 64, 128, 16)));
  // CHECK-NEXT: misfit swizzle null: 1

  // A shapeless padded layout takes the buffer's shape: rows of 40.
  MlirAttribute padded = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#tile.layout<(d0, d1) -> (d0 * 40 + d1)>"));
  int64_t bufferShape[2] = {128, 32};
  printOffset(padded, bufferShape, 2, 3, 5);
  fprintf(stderr, "padded bijective: %d\n",
          mlirTileLayoutAttrIsBijective(padded, bufferShape, 2));
  // CHECK-NEXT: (3, 5) -> ok 125
  // CHECK-NEXT: padded bijective: 0

  // mma.sync m16n8k16 accumulator: c0/c1 at row groupID = lane / 4, column
  // 2 * (lane % 4) + i; c2/c3 eight rows lower.
  int64_t accShape[2] = {16, 8};
  MlirAttribute acc = mlirTileFragmentAttrGetBuiltin(
      ctx, mlirStringRefCreateFromCString("mma_m16n8k16_c"), accShape, 2, 0);
  mlirAttributeDump(acc);
  // CHECK-NEXT: #tile.fragment<[16, 8], mma_m16n8k16_c>
  printPlacement(acc, 0, 0);
  printPlacement(acc, 0, 1);
  printPlacement(acc, 0, 2);
  printPlacement(acc, 1, 0);
  printPlacement(acc, 8, 0);
  printPlacement(acc, 15, 7);
  // CHECK-NEXT: (0, 0) -> ok T0:R0
  // CHECK-NEXT: (0, 1) -> ok T0:R1
  // CHECK-NEXT: (0, 2) -> ok T1:R0
  // CHECK-NEXT: (1, 0) -> ok T4:R0
  // CHECK-NEXT: (8, 0) -> ok T0:R2
  // CHECK-NEXT: (15, 7) -> ok T31:R3
  fprintf(stderr, "registers: %" PRId64 "\n",
          mlirTileFragmentAttrGetNumRegisters(acc, NULL, 0));
  // CHECK-NEXT: registers: 4

  // Failures: an unknown built-in, a built-in on a shape it does not fit,
  // a fragment query on a layout, a replica that does not exist.
  fprintf(stderr, "unknown builtin null: %d\n",
          mlirAttributeIsNull(mlirTileFragmentAttrGetBuiltin(
              ctx, mlirStringRefCreateFromCString("mma_m1n1k1_c"), accShape, 2,
              0)));
  int64_t badShape[2] = {15, 8};
  fprintf(stderr, "misfit builtin null: %d\n",
          mlirAttributeIsNull(mlirTileFragmentAttrGetBuiltin(
              ctx, mlirStringRefCreateFromCString("mma_m16n8k16_c"), badShape,
              2, 0)));
  fprintf(stderr, "registers of a layout: %" PRId64 "\n",
          mlirTileFragmentAttrGetNumRegisters(swizzle, NULL, 0));
  int64_t thread, reg;
  fprintf(
      stderr, "replica 1: %d\n",
      mlirTileFragmentAttrGetPlacement(acc, NULL, coords, 0, 1, &thread, &reg));
  // CHECK-NEXT: unknown builtin null: 1
  // CHECK-NEXT: misfit builtin null: 1
  // CHECK-NEXT: registers of a layout: -1
  // CHECK-NEXT: replica 1: 0

  mlirContextDestroy(ctx);
  return 0;
}
