//===- Accesses.h - which buffers an operation reads and writes -*- C++ -*-===//
//
// The buffer accesses of any operation in a kernel body: tile operators
// answer through TileOpInterface, upstream loads, stores and atomics by
// their operands. Barrier placement and the pipeliner order operations by
// these. Private to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_ANALYSIS_ACCESSES_H
#define TILE_PASSES_LIB_ANALYSIS_ACCESSES_H

#include "tile/Dialect/Tile/TileOps.h"

namespace mlir {
namespace tile {

/// Appends the accesses of `op` alone (a tile operator with a body counts
/// its body's). An operation without regions that takes a buffer and is
/// neither a known access nor a view may read and write it.
void getAccesses(Operation *op, SmallVectorImpl<TileAccess> &accesses);

/// The shared tile.alloc that `value` is a view of, if any.
Value getSharedRoot(Value value);

/// Whether `user` only reads `buffer` (never writes or updates it).
bool onlyReads(Operation *user, Value buffer);

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_ANALYSIS_ACCESSES_H
