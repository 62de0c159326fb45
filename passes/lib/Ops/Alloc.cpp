//===- Alloc.cpp - tile.alloc ---------------------------------------------===//
//
// tile.alloc in layout inference: every shared and fragment buffer is
// registered with its annotated layout, if any, and receives the layout
// inference chose. The buffers themselves are lowered by the lowering
// context (fragments to per-thread register arrays) before any operator.
//
//===----------------------------------------------------------------------===//

#include "Analysis/LayoutInference.h"
#include "Ops/OpModels.h"

using namespace mlir;
using namespace mlir::tile;

/// Registers `alloc` with the layout it is annotated with.
static LogicalResult collectAlloc(AllocOp alloc, LayoutInferenceState &state) {
  MemRefType type = alloc.getType();
  MemorySpace space = getMemorySpace(type);
  if (space != MemorySpace::Fragment && space != MemorySpace::Shared)
    return success();
  if (type.getRank() == 0)
    return alloc.emitOpError()
           << "layout inference needs tiles of rank 1 or more, got " << type
           << " (a one-element tile is memref<1x...>)";
  BufferLayout buffer;
  buffer.space = space;
  if (Attribute attr = alloc.getLayoutAttr()) {
    buffer.annotated = true;
    buffer.source = {alloc, "its layout annotation"};
    if (auto fragment = dyn_cast<FragmentAttr>(attr)) {
      buffer.fragment = fragment.getFragmentFor(type.getShape());
      if (!buffer.fragment || !buffer.fragment->isInjective())
        return alloc.emitOpError()
               << "expected a layout annotation over " << type
               << " that holds every element in a distinct register, got "
               << attr;
    } else if (auto layout = dyn_cast<LayoutAttr>(attr)) {
      buffer.layout = layout.getLayoutFor(type.getShape());
      // The lowering addresses a flat buffer of the layout's span: every
      // element needs its own offset, gaps (padding) are allowed.
      if (!buffer.layout || !buffer.layout->isInjectiveOffset())
        return alloc.emitOpError()
               << "expected a layout annotation that gives each of the "
               << type.getNumElements() << " elements of " << type
               << " its own offset, got " << attr;
    }
  }
  state.addBuffer(alloc.getResult(), std::move(buffer));
  return success();
}

namespace {
struct AllocModel : public TileOpInterface::ExternalModel<AllocModel, AllocOp> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    auto alloc = cast<AllocOp>(op);
    if (level == InferenceLevel::Collect)
      return collectAlloc(alloc, state);
    if (level != InferenceLevel::Commit)
      return success();
    BufferLayout *buffer = state.lookup(alloc.getResult());
    if (!buffer || buffer->annotated)
      return success();
    MLIRContext *ctx = op->getContext();
    if (buffer->fragment)
      alloc.setLayoutAttr(FragmentAttr::get(ctx, *buffer->fragment));
    else if (buffer->layout)
      alloc.setLayoutAttr(LayoutAttr::get(ctx, *buffer->layout));
    return success();
  }

  LogicalResult lower(Operation *, LoweringContext &) const {
    // LoweringContext::init() replaced the buffer already.
    return success();
  }

  void getTileAccesses(Operation *, SmallVectorImpl<TileAccess> &) const {}
};
} // namespace

void mlir::tile::registerAllocModel(MLIRContext *ctx) {
  AllocOp::attachInterface<AllocModel>(*ctx);
}
