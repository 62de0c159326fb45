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

/// The positions, among the operations of the kernel's body, from the first
/// to the last that uses `alloc` (itself, or an operation holding a use);
/// an allocation nothing uses is where it is made.
static std::pair<int64_t, int64_t>
getLiveRange(AllocOp alloc, Block &body,
             const llvm::DenseMap<Operation *, int64_t> &position) {
  auto at = [&](Operation *op) {
    return position.lookup(body.findAncestorOpInBlock(*op));
  };
  int64_t first = at(alloc), last = first;
  bool used = false;
  for (Operation *user : alloc->getUsers()) {
    int64_t p = at(user);
    first = used ? std::min(first, p) : p;
    last = used ? std::max(last, p) : p;
    used = true;
  }
  return {first, last};
}

KernelResources mlir::tile::computeKernelResources(KernelOp kernel) {
  KernelResources resources;
  int64_t threads = kernel.getThreads();
  Block &body = kernel.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t count = 0;
  for (Operation &op : body)
    position[&op] = count++;
  // Registers per thread at each operation of the body: a fragment is
  // counted where it is live, so that fragments used one after the other
  // (a loop's, then an epilogue's) need the larger of the two, not the
  // sum. Fragments used inside one loop all count for the whole loop.
  std::vector<int64_t> registers(count + 1, 0);
  kernel.walk([&](AllocOp alloc) {
    MemRefType type = alloc.getType();
    int64_t regs = 0;
    switch (getMemorySpace(type)) {
    case MemorySpace::Shared:
      resources.sharedBytes +=
          alloc.getFootprintBytes() * getBufferCopies(alloc);
      return;
    case MemorySpace::Fragment:
      regs = getFragmentRegisters(alloc, threads);
      break;
    case MemorySpace::Local:
      regs = llvm::divideCeil(getBufferBytes(type), 4);
      break;
    default:
      return;
    }
    auto [first, last] = getLiveRange(alloc, body, position);
    for (int64_t p = first; p <= last; ++p)
      registers[p] += regs;
  });
  resources.registersPerThread = *llvm::max_element(registers);
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
