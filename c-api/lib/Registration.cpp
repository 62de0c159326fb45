//===- Registration.cpp - register tile from C ----------------------------===//
//
// Implements tile-c/Registration.h on top of the C++ registration entry
// points of tile/InitTile.h, which tile-opt and the mlir-opt plugin share.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Registration.h"

#include "tile/InitTile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <mutex>

using namespace mlir;

void mlirTileRegisterKernelDialects(MlirDialectRegistry registry) {
  if (!registry.ptr)
    return;
  tile::registerKernelDialects(*unwrap(registry));
}

void mlirTileContextRegisterKernelDialects(MlirContext context) {
  if (!context.ptr)
    return;
  DialectRegistry registry;
  tile::registerKernelDialects(registry);
  unwrap(context)->appendDialectRegistry(registry);
}

void mlirTileRegisterPasses(void) {
  // The global pass registry is not thread-safe; registering once also keeps
  // repeated calls cheap.
  static std::once_flag once;
  std::call_once(once, [] { tile::registerAllTilePasses(); });
}
