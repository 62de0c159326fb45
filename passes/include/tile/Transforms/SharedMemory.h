//===- SharedMemory.h - where shared buffers sit in a kernel ----*- C++ -*-===//
//
// The byte layout of a kernel's shared buffers in its one dynamic
// shared-memory block: convert-tile-to-gpu lays the block out with it, and
// tile-lower asks it how much room is left (the TMA store staging buffers).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_SHAREDMEMORY_H
#define TILE_TRANSFORMS_SHAREDMEMORY_H

#include "tile/Dialect/Tile/TileOps.h"

#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlir {
namespace tile {

/// Byte layout of the shared buffers of one kernel in its dynamic
/// shared-memory block.
struct SharedMemoryPlan {
  /// Allocations in program order with their byte offsets.
  SmallVector<std::pair<AllocOp, int64_t>> buffers;
  /// Total size of the block in bytes.
  int64_t totalBytes = 0;
};

/// Assigns each shared tile.alloc of `kernel` an offset: `alignment` bytes,
/// or 1024 for buffers of 8 KiB or more.
SharedMemoryPlan planSharedMemory(KernelOp kernel, int64_t alignment);

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_SHAREDMEMORY_H
