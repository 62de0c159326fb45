//===- TileAttrs.h - tile dialect attributes --------------------*- C++ -*-===//
//
// Declares the tile enumerations, the `#tile.fragment` memory space and
// layout attribute, the `#tile.layout` attribute and the `#tile.target` /
// `#tile.mma` attributes, plus helpers that classify a memref by the memory
// space it lives in.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEATTRS_H
#define TILE_DIALECT_TILE_TILEATTRS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "tile/Dialect/Tile/Layout.h"

#include "tile/Dialect/Tile/TileOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/TileOpsAttrs.h.inc"

namespace mlir {
namespace tile {

/// Where a tile buffer lives, derived from its memref memory space.
enum class MemorySpace { Global, Shared, Fragment, Local, Unsupported };

/// Classifies `type` by its memory space: none (or integer 0) is global,
/// `#gpu.address_space<workgroup>` shared, `#gpu.address_space<private>`
/// local, `#tile.fragment` fragment; anything else is unsupported.
MemorySpace getMemorySpace(MemRefType type);

/// True for shared, fragment and local buffers.
inline bool isOnChip(MemorySpace space) {
  return space == MemorySpace::Shared || space == MemorySpace::Fragment ||
         space == MemorySpace::Local;
}

/// Bytes a buffer of `type` occupies, packing sub-byte elements (index
/// counts as 64 bits).
int64_t getBufferBytes(MemRefType type);

/// Lowercase name of `space` for diagnostics ("shared", "fragment", ...).
llvm::StringRef stringifyMemorySpace(MemorySpace space);

} // namespace tile
} // namespace mlir

// The target table and the helpers around `#tile.target` and `#tile.mma`.
#include "tile/Dialect/Tile/Target.h"

#endif // TILE_DIALECT_TILE_TILEATTRS_H
