//===- OpModels.h - the TileOpInterface models of the tile ops --*- C++ -*-===//
//
// Each tile operator implements TileOpInterface in its own file of Ops/
// (and target-specific parts under Target/); this header names their
// registration functions and the check that the drivers run first. Private
// to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_OPS_OPMODELS_H
#define TILE_PASSES_LIB_OPS_OPMODELS_H

#include "tile/Dialect/Tile/TileOps.h"

namespace mlir {
class MLIRContext;
namespace tile {

void registerAllocModel(MLIRContext *ctx);
void registerAtomicModel(MLIRContext *ctx);
void registerCopyModel(MLIRContext *ctx);
void registerFillModels(MLIRContext *ctx);
void registerGemmModel(MLIRContext *ctx);
void registerParallelModel(MLIRContext *ctx);
void registerReduceModels(MLIRContext *ctx);

/// Fails, with a diagnostic, at the first operator of the tile dialect in
/// `root` that has no TileOpInterface model (the context was set up
/// without registerTileOpModels()).
LogicalResult checkTileOpModels(Operation *root);

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_OPS_OPMODELS_H
