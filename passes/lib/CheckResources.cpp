//===- CheckResources.cpp - tile-check-resources pass ---------------------===//
//
// Checks that every tile.kernel fits the shared memory and register budget
// of one thread block on the target chip, so that an oversized tile
// configuration fails at compile time with the figures instead of at launch.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/Passes.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECHECKRESOURCES
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

std::optional<ChipLimits> mlir::tile::getChipLimits(StringRef chip) {
  // Opt-in shared memory per block from the CUDA programming guide's
  // compute-capability table; 64 KiB of LDS per workgroup on CDNA.
  return llvm::StringSwitch<std::optional<ChipLimits>>(chip)
      .Case("sm_80", ChipLimits{166912, 255})
      .Cases({"sm_86", "sm_89"}, ChipLimits{101376, 255})
      .Cases({"sm_90", "sm_90a"}, ChipLimits{232448, 255})
      .Cases({"sm_100", "sm_100a"}, ChipLimits{232448, 255})
      .Cases({"gfx90a", "gfx942"}, ChipLimits{65536, 512})
      .Default(std::nullopt);
}

/// Bytes of one element, rounding sub-byte types up.
static int64_t getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

KernelResources mlir::tile::computeKernelResources(KernelOp kernel) {
  KernelResources resources;
  int64_t threads = kernel.getThreads();
  kernel.walk([&](AllocOp alloc) {
    MemRefType type = alloc.getType();
    int64_t bytes =
        type.getNumElements() * getElementBytes(type.getElementType());
    int64_t words = (bytes + 3) / 4;
    switch (getMemorySpace(type)) {
    case MemorySpace::Shared:
      resources.sharedBytes += bytes;
      break;
    case MemorySpace::Fragment:
      resources.registersPerThread += (words + threads - 1) / threads;
      break;
    case MemorySpace::Local:
      resources.registersPerThread += words;
      break;
    default:
      break;
    }
  });
  return resources;
}

LogicalResult mlir::tile::checkKernelResources(KernelOp kernel,
                                               const ChipLimits &limits,
                                               bool remarks) {
  KernelResources used = computeKernelResources(kernel);
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
    std::optional<ChipLimits> limits = getChipLimits(chip);
    if (!limits) {
      getOperation()->emitError() << "unknown chip '" << chip << "'";
      return signalPassFailure();
    }
    bool ok = true;
    getOperation()->walk([&](KernelOp kernel) {
      ok &= succeeded(checkKernelResources(kernel, *limits, remarks));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
