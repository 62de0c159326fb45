//===- SharedMemory.cpp - where shared buffers sit in a kernel ------------===//
//
// Implements tile/Transforms/SharedMemory.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/SharedMemory.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

/// Buffers this large are aligned to 1024 bytes, the alignment the 128-byte
/// swizzle pattern repeats with (and TMA's requirement for swizzled boxes).
static constexpr int64_t kLargeBufferBytes = 8192;
static constexpr int64_t kLargeBufferAlignment = 1024;

SharedMemoryPlan mlir::tile::planSharedMemory(KernelOp kernel,
                                              int64_t alignment) {
  SharedMemoryPlan plan;
  kernel.walk([&](AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (getMemorySpace(type) != MemorySpace::Shared)
      return;
    int64_t bytes = alloc.getFootprintBytes();
    int64_t align = bytes >= kLargeBufferBytes
                        ? std::max(alignment, kLargeBufferAlignment)
                        : alignment;
    int64_t offset = llvm::alignTo(plan.totalBytes, align);
    plan.buffers.push_back({alloc, offset});
    plan.totalBytes = offset + bytes;
  });
  return plan;
}
