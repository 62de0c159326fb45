//===- InferLayout.cpp - the tile-infer-layout pass -----------------------===//
//
// Runs layout inference (Analysis/LayoutInference.cpp) on every tile.kernel
// of the operation it is scheduled on.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/InferLayout.h"
#include "Ops/OpModels.h"
#include "tile/InitTile.h"
#include "tile/Transforms/Passes.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEINFERLAYOUT
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TileInferLayoutPass
    : public tile::impl::TileInferLayoutBase<TileInferLayoutPass> {
  using TileInferLayoutBase::TileInferLayoutBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    TileInferLayoutBase::getDependentDialects(registry);
    registerTileOpModels(registry);
  }

  void runOnOperation() override {
    if (vectorBytes < 1 || !llvm::isPowerOf2_64(vectorBytes)) {
      getOperation()->emitError()
          << "tile-infer-layout: vector-bytes must be a power of two, got "
          << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    bool ok = true;
    getOperation()->walk([&](KernelOp kernel) {
      FailureOr<TargetAttr> target = resolveTarget(kernel, chip);
      InferLayoutOptions options;
      options.target = succeeded(target) ? *target : TargetAttr();
      options.vectorBytes = vectorBytes;
      ok &= succeeded(target) && succeeded(inferLayouts(kernel, options));
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
