//===- AttachTarget.h - record the compilation target ----------*- C++ -*-===//
//
// The logic of the tile-attach-target pass, callable without a pass
// manager (from the C API and from other drivers).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_ATTACHTARGET_H
#define TILE_TRANSFORMS_ATTACHTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;

namespace tile {

/// Sets `tile.target` on `op` to the known target of `chip`. Keeps a target
/// already attached for the same chip (it may describe a variant in full).
/// Emits an error at `op` and fails for an unknown chip or when `op` already
/// has a target for another chip.
LogicalResult attachTarget(Operation *op, llvm::StringRef chip);

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_ATTACHTARGET_H
