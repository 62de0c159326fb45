//===- Passes.h - tile transformation passes --------------------*- C++ -*-===//
//
// Declares the tile passes (generated from Passes.td), their registration,
// and the functions that hold their logic so other drivers (the C API, other
// compilers) can call it without running a pass.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tile/Dialect/Tile/TileOps.h"

#include <optional>

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "tile/Transforms/Passes.h.inc"

/// What one kernel needs at the least.
struct KernelResources {
  int64_t sharedBytes = 0;
  int64_t registersPerThread = 0;
};

/// Computes the resources `kernel` allocates. The staging buffers of
/// epilogue TMA stores are not counted: tile-lower adds them only where
/// they fit the chip's shared memory beside everything counted here.
KernelResources computeKernelResources(KernelOp kernel);

/// Checks `kernel` against the shared memory and registers one block may
/// use on `target`, emitting an error at the kernel for each exceeded
/// limit, and a remark with the figures when `remarks` is set.
LogicalResult checkKernelResources(KernelOp kernel, TargetAttr target,
                                   bool remarks);

#define GEN_PASS_REGISTRATION
#include "tile/Transforms/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_PASSES_H
