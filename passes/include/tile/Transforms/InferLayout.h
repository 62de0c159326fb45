//===- InferLayout.h - layout and fragment inference -------------*- C++
//-*-===//
//
// The entry point of `tile-infer-layout` (TileLang paper §4.2): chooses a
// fragment layout for every register tile, a memory layout for every
// shared tile and a thread binding for every tile.parallel loop and every
// tile operator lowered as a loop nest, so that the lowering passes find
// the attributes of the layout contract (docs/Layouts.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_INFERLAYOUT_H
#define TILE_TRANSFORMS_INFERLAYOUT_H

#include "tile/Dialect/Tile/TileOps.h"

#include <string>

namespace mlir {
namespace tile {

/// The discardable attribute that holds the thread binding of a tile
/// operator lowered as a loop nest (copy, atomic, and reduce, cumsum, fill
/// and clear over shared memory): a `#tile.fragment<...>` over the tile.
constexpr llvm::StringLiteral kLoopLayoutAttrName =
    TileDialect::LoopAttrHelper::getNameStr();

/// Options of layout inference.
struct InferLayoutOptions {
  /// What the kernel is compiled for (picks the tensor-core instructions of
  /// gemms); null: the target attached to the IR, else the default chip's.
  TargetAttr target;
  /// Widest vector a thread moves in one access, in bytes.
  int64_t vectorBytes = 16;
};

/// Infers and attaches the layouts of everything in `kernel`. On a
/// conflict, reports an error at the op that conflicts (with notes at the
/// ops whose requirements it contradicts) and leaves the IR unchanged.
LogicalResult inferLayouts(KernelOp kernel, const InferLayoutOptions &options);

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_INFERLAYOUT_H
