//===- OpModels.cpp - registering the TileOpInterface models --------------===//
//
// Attaches every tile operator's TileOpInterface model to the tile dialect
// when it is loaded, and checks that a context has them.
//
//===----------------------------------------------------------------------===//

#include "Ops/OpModels.h"
#include "tile/InitTile.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::registerTileOpModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TileDialect *) {
    registerAllocModel(ctx);
    registerAtomicModel(ctx);
    registerCopyModel(ctx);
    registerFillModels(ctx);
    registerGemmModel(ctx);
    registerParallelModel(ctx);
    registerReduceModels(ctx);
  });
}

LogicalResult mlir::tile::checkTileOpModels(Operation *root) {
  // The models are attached together, so one operator tells for all.
  std::optional<RegisteredOperationName> copy = RegisteredOperationName::lookup(
      CopyOp::getOperationName(), root->getContext());
  if (copy && copy->hasInterface<TileOpInterface>())
    return success();
  return root->emitOpError()
         << "has tile operators without their TileOpInterface models; set up "
            "the context with mlir::tile::registerTileOpModels() "
            "(tile/InitTile.h)";
}
