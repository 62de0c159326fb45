//===- consumer.c - a C program built against an installed tile -----------===//
//
// Parses the kernel file given on the command line, runs the pipeline given
// as the second argument, and prints the module and the threads of each
// kernel.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/IR.h"
#include "mlir-c/Transforms.h"

#include <inttypes.h>
#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirWalkResult printKernel(MlirOperation op, void *userData) {
  (void)userData;
  if (mlirTileIsAKernelOp(op))
    printf("kernel threads=%" PRId64 "\n", mlirTileKernelOpGetThreads(op));
  return MlirWalkResultAdvance;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <kernel.mlir> <pipeline>\n", argv[0]);
    return 2;
  }
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirRegisterTransformsPasses();
  mlirTileRegisterPasses();
  MlirModule module = mlirModuleCreateParseFromFile(
      ctx, mlirStringRefCreateFromCString(argv[1]));
  if (mlirModuleIsNull(module))
    return 1;
  MlirOperation op = mlirModuleGetOperation(module);
  if (mlirLogicalResultIsFailure(mlirTileRunPassPipeline(
          op, mlirStringRefCreateFromCString(argv[2]), print, NULL)))
    return 1;
  mlirOperationPrint(op, print, NULL);
  printf("\n");
  mlirOperationWalk(op, printKernel, NULL, MlirWalkPreOrder);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
