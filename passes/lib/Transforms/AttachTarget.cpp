//===- AttachTarget.cpp - tile-attach-target pass -------------------------===//
//
// Records in the IR the target a module is compiled for, once, so that every
// later pass reads `tile.target` instead of taking a chip option of its own,
// and a lowered module still says what it was compiled for.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/AttachTarget.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include "tile/Dialect/Tile/Target.h"
#include "tile/Dialect/Tile/TileDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

LogicalResult mlir::tile::attachTarget(Operation *op, StringRef chip) {
  // The pass declares the dialect; a direct caller may not have loaded it.
  op->getContext()->getOrLoadDialect<TileDialect>();
  FailureOr<TargetAttr> target =
      resolveTarget(op, chip.empty() ? StringRef(kDefaultChip) : chip);
  if (failed(target))
    return failure();
  TileDialect::TargetAttrHelper helper(op->getContext());
  if (TargetAttr existing = helper.getAttr(op)) {
    // A target written for this chip may be a variant described in full:
    // it is what the module is compiled for.
    if (existing.getChip() == target->getChip())
      return success();
    return op->emitError() << "already compiled for " << existing.getChip()
                           << " (its tile.target), cannot attach "
                           << target->getChip();
  }
  // One module becomes one vendor's binary: a function or kernel marked
  // for the other vendor's chips would be lowered to instructions the
  // module's serialization cannot translate.
  WalkResult mixed = op->walk([&](Operation *inner) {
    // A hand-written gpu.module names its own serialization target.
    if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(inner)) {
      for (Attribute t : gpuModule.getTargetsAttr()
                             ? gpuModule.getTargetsAttr().getValue()
                             : ArrayRef<Attribute>()) {
        bool amd = isa<ROCDL::ROCDLTargetAttr>(t);
        if (!amd && !isa<NVVM::NVVMTargetAttr>(t))
          continue;
        if (amd == (target->getVendor() == Vendor::amd))
          continue;
        gpuModule.emitError()
            << "gpu.module @" << gpuModule.getName() << " targets " << t
            << ", in a module compiled for " << target->getChip()
            << "; a module is compiled for one vendor's chips";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    TargetAttr own = inner == op ? TargetAttr() : helper.getAttr(inner);
    if (!own || own.getVendor() == target->getVendor())
      return WalkResult::advance();
    auto symbol = dyn_cast<SymbolOpInterface>(inner);
    InFlightDiagnostic diag = inner->emitError();
    if (symbol)
      diag << "@" << symbol.getName();
    else
      diag << "this " << inner->getName();
    diag << " has tile.target " << own.getChip() << ", an "
         << (own.isAMD() ? "AMD" : "NVIDIA")
         << " chip, in a module compiled for " << target->getChip()
         << "; a module is compiled for "
         << "one vendor's chips";
    return WalkResult::interrupt();
  });
  if (mixed.wasInterrupted())
    return failure();
  helper.setAttr(op, *target);
  return success();
}

namespace {
struct TileAttachTargetPass
    : public tile::impl::TileAttachTargetBase<TileAttachTargetPass> {
  using TileAttachTargetBase::TileAttachTargetBase;

  void runOnOperation() override {
    if (failed(attachTarget(getOperation(), chip)))
      signalPassFailure();
  }
};
} // namespace
