//===- CheckResources.cpp - tile-check-resources pass ---------------------===//
//
// Checks that every tile.kernel fits the shared memory and register budget
// of one thread block on the target chip, so that an oversized tile
// configuration fails at compile time with the figures instead of at launch.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/Layout.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECHECKRESOURCES
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// How many copies of `alloc` the pipeliner keeps: a shared buffer written
/// by a copy at the top level of a multi-stage tile.pipelined body is
/// multi-buffered once per stage.
static int64_t getBufferCopies(AllocOp alloc) {
  int64_t copies = 1;
  for (Operation *user : alloc->getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getDst() != alloc.getResult())
      continue;
    if (auto loop = dyn_cast<PipelinedOp>(copy->getParentOp()))
      copies = std::max(copies, loop.getStagesAttr().getInt());
  }
  return copies;
}

/// 32-bit registers per thread that the fragment `alloc` needs: from its
/// layout when it has one, else its elements spread evenly over `threads`.
static int64_t getFragmentRegisters(AllocOp alloc, int64_t threads) {
  MemRefType type = alloc.getType();
  Type element = type.getElementType();
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  if (auto layout = dyn_cast_or_null<FragmentAttr>(alloc.getLayoutAttr()))
    if (std::optional<Fragment> fragment =
            layout.getFragmentFor(type.getShape()))
      return llvm::divideCeil(fragment->getNumRegisters() * bits, 32);
  return llvm::divideCeil(llvm::divideCeil(type.getNumElements() * bits, 32),
                          threads);
}

KernelResources mlir::tile::computeKernelResources(KernelOp kernel) {
  KernelResources resources;
  int64_t threads = kernel.getThreads();
  kernel.walk([&](AllocOp alloc) {
    MemRefType type = alloc.getType();
    switch (getMemorySpace(type)) {
    case MemorySpace::Shared:
      resources.sharedBytes += getBufferBytes(type) * getBufferCopies(alloc);
      break;
    case MemorySpace::Fragment:
      resources.registersPerThread += getFragmentRegisters(alloc, threads);
      break;
    case MemorySpace::Local:
      resources.registersPerThread += llvm::divideCeil(getBufferBytes(type), 4);
      break;
    default:
      break;
    }
  });
  return resources;
}

LogicalResult mlir::tile::checkKernelResources(KernelOp kernel,
                                               TargetAttr target,
                                               bool remarks) {
  KernelResources used = computeKernelResources(kernel);
  struct {
    int64_t sharedBytes, registersPerThread;
  } limits = {target.getSharedPerBlock(), target.getRegistersPerThread()};
  if (remarks)
    kernel.emitRemark() << "shared memory " << used.sharedBytes << " bytes of "
                        << limits.sharedBytes
                        << ", fragment and local registers >= "
                        << used.registersPerThread << " per thread of "
                        << limits.registersPerThread;
  bool ok = true;
  if (used.sharedBytes > limits.sharedBytes) {
    kernel.emitError() << "kernel needs " << used.sharedBytes
                       << " bytes of shared memory, more than the "
                       << limits.sharedBytes << " a block may use";
    ok = false;
  }
  if (used.registersPerThread > limits.registersPerThread) {
    kernel.emitError() << "kernel needs at least " << used.registersPerThread
                       << " registers per thread for its fragments, more "
                          "than the "
                       << limits.registersPerThread << " available";
    ok = false;
  }
  return success(ok);
}

namespace {
struct TileCheckResourcesPass
    : public tile::impl::TileCheckResourcesBase<TileCheckResourcesPass> {
  using TileCheckResourcesBase::TileCheckResourcesBase;

  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk([&](KernelOp kernel) {
      FailureOr<TargetAttr> target = resolveTarget(kernel, chip);
      ok &= succeeded(target) &&
            succeeded(checkKernelResources(kernel, *target, remarks));
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
