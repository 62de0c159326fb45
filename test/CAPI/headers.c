//===- headers.c - C API: a program built from the public headers alone ---===//
//
// Compiled here by the plain C compiler with only two include paths, the
// tile C headers and the mlir-c headers, as a user outside the build would;
// linked only against libTileCAPI.so. Strict C11 with warnings as errors, so
// a header that needs C++ or a GNU extension fails the test.
//
//===----------------------------------------------------------------------===//

/* A block comment, since a // line may not end in a backslash under -Werror.
 * RUN: %cc -std=c11 -pedantic -Wall -Wextra -Werror \
 * RUN:     -I %tile_src/c-api/include -I %mlir_include \
 * RUN:     %s -o %t -L %tile_libs -lTileCAPI -Wl,-rpath,%tile_libs
 * RUN: %t 2>&1 | FileCheck %s
 */

#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/IR.h"

#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirTileRegisterPasses();
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @f(%n: index) {\n"
               "  %zero = arith.constant 0 : i32\n"
               "  tile.kernel blocks(%bx) in (%n) threads(64) {\n"
               "    %s = tile.alloc : memref<64xi32, #tile.fragment>\n"
               "    tile.fill %s, %zero : memref<64xi32, #tile.fragment>\n"
               "  }\n"
               "  return\n"
               "}\n"));
  if (mlirModuleIsNull(module))
    return 1;
  MlirOperation op = mlirModuleGetOperation(module);
  MlirLogicalResult res = mlirTileRunPassPipeline(
      op,
      mlirStringRefCreateFromCString(
          "builtin.module(tile-check-resources{chip=sm_90a})"),
      print, NULL);
  fprintf(stderr, "pipeline %s\n",
          mlirLogicalResultIsSuccess(res) ? "succeeded" : "failed");
  mlirOperationPrint(op, print, NULL);
  fprintf(stderr, "\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

// CHECK: pipeline succeeded
// CHECK: tile.kernel blocks(%{{.*}}) in (%{{.*}}) threads(64)
// CHECK: tile.fill
