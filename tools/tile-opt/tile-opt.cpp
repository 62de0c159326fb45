//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect and passes, the upstream dialects tile
// kernels use, and every upstream pass, for FileCheck-driven development.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::tile::test {
void registerTestLayoutPass();
} // namespace mlir::tile::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tile::registerAllTilePasses();
  mlir::tile::test::registerTestLayoutPass();
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
