//===- Lowering.h - tile ops to per-thread code -----------------*- C++ -*-===//
//
// Entry points of the tile-lower pass: barrier insertion over the tile
// operators of a kernel, and the lowering of every non-tensor-core tile
// operator (copy, fill, clear, parallel, reduce, cumsum, atomic) of a kernel
// into per-thread code driven by the layouts of the layout contract.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_LOWERING_H
#define TILE_TRANSFORMS_LOWERING_H

#include "mlir/Support/LLVM.h"
#include "tile/Dialect/Tile/TileOps.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
namespace tile {

/// What tile-lower targets.
struct LoweringOptions {
  /// What the kernel is compiled for; null: the target attached to the IR
  /// (tile-attach-target), else the default chip's (resolveTarget()).
  TargetAttr target;
  /// On targets that warp-specialize, pipelined loops whose copies TMA can
  /// do get a producer warpgroup issuing them (see pipelineLoop()).
  bool warpSpecialize = true;
  /// In warp-specialized kernels, the consumers store whole fragments to
  /// global tensors through swizzled shared memory with TMA instead of
  /// from registers.
  bool tmaStore = true;
  /// In warp-specialized kernels with two consumer warpgroups and a loop
  /// body of two or more gemms, the warpgroups take turns on the tensor
  /// cores: one runs the gemms from the last of an iteration to the first
  /// of the next while the other runs what lies between (see
  /// pipelineLoop()). Off by default: on the library FlashAttention it
  /// was measured slower (docs/FlashAttention.md).
  bool pingpong = false;
};

/// Whether tile-lower may warp-specialize pipelined loops for `target` (TMA
/// loads from a producer warpgroup, which give the kernel tensor maps).
inline bool warpSpecializes(TargetAttr target) {
  return target && target.has(TargetFeature::warp_specialize);
}

/// The target `op` is lowered for: `given`, else the one attached to `op`
/// or an ancestor, else the default chip's. Fails, with a diagnostic at
/// `op`, for a target the lowering does not emit code for yet.
FailureOr<TargetAttr> getLoweringTarget(Operation *op, TargetAttr given);

/// `options` (LoweringOptions or InferLayoutOptions) with their target
/// resolved for `op` by getLoweringTarget().
template <typename Options>
FailureOr<Options> withLoweringTarget(Operation *op, Options options) {
  FailureOr<TargetAttr> target = getLoweringTarget(op, options.target);
  if (failed(target))
    return failure();
  options.target = *target;
  return options;
}

/// The producer warpgroup of a warp-specialized kernel: threads added after
/// the kernel's own (an integer attribute on tile.kernel).
inline constexpr llvm::StringLiteral kProducerThreadsAttr =
    TileDialect::ProducerThreadsAttrHelper::getNameStr();
/// Marks a tile.kernel that tile-lower has lowered (a unit attribute): its
/// body is per-thread code that the tile passes must not lower again.
inline constexpr llvm::StringLiteral kLoweredAttr =
    TileDialect::LoweredAttrHelper::getNameStr();
/// Marks the scf.if that runs the consumer threads of a warp-specialized
/// kernel; its barriers must leave the producer out.
inline constexpr llvm::StringLiteral kConsumerAttr =
    TileDialect::ConsumersAttrHelper::getNameStr();
/// Marks the operations by which two consumer warpgroups take turns on the
/// tensor cores (a unit attribute), and their loop.
inline constexpr llvm::StringLiteral kTurnAttr =
    TileDialect::TurnAttrHelper::getNameStr();

/// Keeps the turns of the consumer loops of `kernel` (see
/// LoweringOptions::pingpong) where they are safe: a barrier of all the
/// consumers while a warpgroup holds its turn (after the loop body's last
/// gemm or before its first) would wait for the other warpgroup, which
/// waits for the turn; such loops lose their turns. Run on the lowered
/// kernel, when every barrier exists; drops the kTurnAttr marks.
void finishTensorCoreTurns(KernelOp kernel);

/// Inserts `gpu.barrier` in `kernel` wherever shared memory written by the
/// threads is later read or overwritten by other threads (tile operators
/// and thread-level accesses in program order, loop back edges included).
void insertSharedBarriers(KernelOp kernel);

/// Marks the copies a pipelined loop issues ahead as cp.async copies.
inline constexpr llvm::StringLiteral kAsyncCopyAttr =
    TileDialect::AsyncAttrHelper::getNameStr();
/// Software-pipelines `loop` (PipelineLoops.cpp): its global-to-shared
/// copies run stages - 1 iterations ahead into multi-buffered shared
/// memory as cp.async groups; without such copies it becomes an scf.for.
/// Fails, with a diagnostic, on a `stage` clause it cannot follow.
LogicalResult pipelineLoop(PipelinedOp loop,
                           const LoweringOptions &options = {});
/// pipelineLoop() on every tile.pipelined of `kernel`, inner loops first.
LogicalResult pipelineLoops(KernelOp kernel,
                            const LoweringOptions &options = {});

/// Lowers the copy, fill, clear, parallel, reduce, cumsum and atomic
/// operators of `kernel` to per-thread code and replaces its fragment
/// buffers by per-thread register arrays. Emits a diagnostic and fails on
/// a missing layout or a layout the lowering does not support.
LogicalResult lowerTileOps(KernelOp kernel,
                           const LoweringOptions &options = {});
/// All of tile-lower on one kernel: pipelineLoops(), insertSharedBarriers(),
/// then lowerTileOps().
LogicalResult lowerKernel(KernelOp kernel, const LoweringOptions &options = {});
/// Loads the dialects whose operations the functions above create (the
/// tile-lower pass declares them; a direct caller must load them first).
void loadLoweringDialects(MLIRContext *context);

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_LOWERING_H
