//===- TileInterfaces.h - the interface of tile operators -------*- C++ -*-===//
//
// Declares `TileOpInterface` (generated from TileInterfaces.td) and the
// plain types its methods exchange with the compiler: inference levels,
// buffer accesses and asynchronous copies. The inference state and the
// lowering context are defined by the passes library; the dialect only
// names them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEINTERFACES_H
#define TILE_DIALECT_TILE_TILEINTERFACES_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace tile {

class LayoutInferenceState;
struct LoweringContext;

/// The priority levels of layout inference, in the order the driver runs
/// them (TileLang paper §4.2, strict to free).
enum class InferenceLevel {
  /// Describe the problem: loop nests over the block's threads and layouts
  /// derived from one buffer to another.
  Collect,
  /// Fix the layouts no other choice can serve: tensor-core operands.
  Strict,
  /// Derive a fragment from another one (reductions, prefix sums).
  Derived,
  /// Bind loops to the threads holding what they touch, and lay out the
  /// fragments a bound loop reaches first.
  Loop,
  /// Give a still-free loop its default binding (one per call).
  Free,
  /// Check that every access of the operator can be made with the layouts
  /// chosen.
  Check,
  /// Write what was inferred for the operator into the IR.
  Commit,
};

/// How an operator uses a buffer.
enum class AccessKind { Read, Write, Atomic };

/// One access of a buffer by a tile operator.
struct TileAccess {
  Value buffer;
  AccessKind kind;
  /// Issued asynchronously (a pipelined copy): ordered by the pipeline's
  /// own waits and barriers rather than by block barriers.
  bool async = false;
  /// Read through the async proxy (wgmma operands), which needs a proxy
  /// fence after generic-proxy writes.
  bool asyncProxy = false;
  /// Made, perhaps also, through the generic proxy (ld.shared, ldmatrix:
  /// everything but wgmma's operand reads), which needs a proxy fence
  /// before async-proxy writes (TMA) of the buffer that follow it.
  bool genericProxy = true;
};

/// A copy from global into shared memory that a pipelined loop may issue
/// ahead of its readers. It holds its own index lists, which outlive the
/// copy operation: the pipeliner erases copies it replaces before it has
/// emitted everything that reads their indices.
struct AsyncCopy {
  Value source;
  SmallVector<Value, 4> sourceIndices;
  Value dest;
  SmallVector<Value, 4> destIndices;
  /// The copy may be a bulk tensor copy (TMA) where the target has one.
  bool allowTma = true;
};

} // namespace tile
} // namespace mlir

#include "tile/Dialect/Tile/TileInterfaces.h.inc"

#endif // TILE_DIALECT_TILE_TILEINTERFACES_H
