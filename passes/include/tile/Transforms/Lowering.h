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
namespace scf {
class ForOp;
} // namespace scf
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
  /// In warp-specialized kernels, the consumers stage those fragments in
  /// shared memory as for tmaStore but store them with their own threads:
  /// 16-byte stores of each row's 16-byte-aligned body, its ends element
  /// by element. Takes no tensor map, so the destination's rows may have
  /// any length and address. Takes precedence over tmaStore.
  bool threadStore = false;
  /// In warp-specialized kernels with two consumer warpgroups and a loop
  /// body of two or more gemms, the warpgroups take turns on the tensor
  /// cores: one runs the gemms from the last of an iteration to the first
  /// of the next while the other runs what lies between (see
  /// pipelineLoop()). Off by default: on the library FlashAttention it
  /// was measured slower (docs/FlashAttention.md).
  bool pingpong = false;
  /// Kernels become persistent (makePersistent()): each block walks the
  /// grid's tiles from its own index in steps of the number of blocks, and
  /// the launch has as many blocks as the device holds at once. Off by
  /// default: not measured yet.
  bool persistent = false;
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
/// The cluster barriers (arrive and wait) that one `tile.cluster_reduce`
/// takes: one before the blocks read each other's tiles, one after. The
/// producer warpgroup of a warp-specialized kernel takes as many.
inline constexpr int64_t kClusterReduceBarriers = 2;
/// Marks the operations by which two consumer warpgroups take turns on the
/// tensor cores (a unit attribute), and their loop.
inline constexpr llvm::StringLiteral kTurnAttr =
    TileDialect::TurnAttrHelper::getNameStr();

/// Marks a persistent tile.kernel (a unit attribute): its body walks the
/// grid's tiles itself, so convert-tile-to-gpu launches
/// min(tiles, resident blocks) x 1 x 1 blocks and rasterizes nothing.
inline constexpr llvm::StringLiteral kPersistentAttr =
    TileDialect::PersistentAttrHelper::getNameStr();
/// Marks the scf.for over the tiles of a persistent kernel (a unit
/// attribute), inside which pipelined loops may still be warp-specialized.
inline constexpr llvm::StringLiteral kTilesAttr =
    TileDialect::TilesAttrHelper::getNameStr();
/// Marks the host's index constant that stands for the blocks of a
/// persistent kernel the device holds at once (a unit attribute): its
/// value, 2^31 - 1 (the largest grid x), applies where no runtime replaces
/// it; tile-compile writes it as `resident_blocks` in the manifest.
inline constexpr llvm::StringLiteral kResidentBlocksAttr =
    TileDialect::ResidentBlocksAttrHelper::getNameStr();

/// Marks the griddepcontrol.wait by which a kernel waits for the grid
/// before it in the stream before it first touches a `tile.zero_init`
/// argument (a unit attribute); tile-compile writes `dependent-launch` for
/// a kernel that holds one.
inline constexpr llvm::StringLiteral kDependentLaunchAttr =
    TileDialect::DependentLaunchAttrHelper::getNameStr();

/// Makes `kernel` persistent (LoweringOptions::persistent): its
/// allocations move to the front and the rest of its body into an scf.for
/// (kTilesAttr) over t = blockIdx.x, blockIdx.x + gridDim.x, ... below the
/// number of tiles of its grid, in which the block indices are those of
/// tile t (x fastest), remapped by the kernel's `rasterize` clause as
/// convert-tile-to-gpu would have; a barrier ends each tile where the
/// kernel has shared memory. A kernel with a `cluster` clause stays as it
/// is, with a warning: its launch must be a whole number of clusters.
void makePersistent(KernelOp kernel);

/// Moves the tile.alloc operations of `kernel`'s body to its front, in
/// order, and returns them: what warp specialization and persistent tile
/// loops both need (allocations made once per block, seen by every role
/// and every tile).
SmallVector<Operation *> hoistAllocs(KernelOp kernel);

/// The tile loop of a persistent kernel that `op` sits directly in, or
/// null.
scf::ForOp getEnclosingTileLoop(Operation *op);

/// The block indices (bx, by) of a `rasterize(panel, order)` clause for
/// the indices (bx, by) of a gx x gy grid walked x fastest: consecutive
/// blocks walk panels of `panel` grid rows (order = row) or columns (order
/// = column), down each panel first, then across.
std::pair<Value, Value> rasterizeBlockIds(OpBuilder &b, Location loc, Value bx,
                                          Value by, Value gx, Value gy,
                                          int64_t panel, RasterOrder order);

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
/// Emits a block barrier that publishes the threads' shared-memory writes,
/// preceded, with `asyncProxy`, by the fence that orders them before reads
/// through the async proxy (wgmma operands, TMA stores).
void emitSharedBarrier(OpBuilder &b, Location loc, bool asyncProxy);
/// Emits the fence that orders the thread's generic-proxy accesses of
/// shared memory with the async proxy's (`fence.proxy.async.shared::cta`).
void emitAsyncProxyFence(OpBuilder &b, Location loc);

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
