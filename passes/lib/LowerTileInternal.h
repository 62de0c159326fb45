//===- LowerTileInternal.h - shared pieces of the tile lowering -*- C++ -*-===//
//
// What the operator lowerings of tile-lower share: materializing layouts as
// index arithmetic, element conversions, the loop map of an operator and
// the per-kernel state (thread id, fragment register arrays, shared-memory
// layouts). Private to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LOWERTILEINTERNAL_H
#define TILE_PASSES_LOWERTILEINTERNAL_H

#include "LayoutInferenceUtils.h"
#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

namespace mlir {
namespace tile {
namespace lowering {

/// An index constant.
Value cst(OpBuilder &b, Location loc, int64_t v);
/// Emits the results of `layout` on `inputs`: the affine map and its XOR
/// swizzle, or the GF(2) form as shifts, masks and XORs.
SmallVector<Value> materialize(OpBuilder &b, Location loc, const Layout &layout,
                               ValueRange inputs);
/// Converts scalar or vector `v` to element type `to` (float/int casts).
Value convert(OpBuilder &b, Location loc, Value v, Type to);
/// The zero of scalar `type`.
Value zeroOf(OpBuilder &b, Location loc, Type type);
/// Size in bytes of one element of `t` (at least 1).
int64_t elementBytes(Type t);
/// A pointer into shared memory (`!llvm.ptr<3>`): `buffer`'s base plus
/// `byteOffset`, both index values, as the NVVM bulk-copy and mbarrier
/// ops take it.
Value sharedPointer(OpBuilder &b, Location loc, Value buffer, Value byteOffset);
/// The register of fragment `frag` that holds, on each of threads [0,
/// `threads`), the element at `coordsOf(thread)`, when it is the same
/// register on every thread and the thread holds the element (as one of
/// its replicas); -1 otherwise, with `*notOwned` set (when given) if a
/// thread does not hold its element.
int64_t uniformRegister(const Fragment &frag, int64_t threads,
                        function_ref<SmallVector<int64_t>(int64_t)> coordsOf,
                        bool *notOwned = nullptr);

/// A fragment over an iteration space, inverted. A replicated fragment is
/// inverted over the space extended by a leading replica dimension, so that
/// every replica thread runs its points.
struct LoopMap {
  Fragment fragment;
  Layout inverse;
  bool replicated = false;
  /// The inverse takes the flat slot thread * numRegs + register.
  bool flatSlots = false;
  /// Every thread runs every point (a tile of per-thread local buffers).
  bool perThread = false;
  int64_t activeThreads = 0, numRegs = 0;
  /// Coordinates of (thread, register), computed once.
  SmallVector<SmallVector<int64_t>> table;
  /// For a GF(2) inverse, its results on (thread, register 0), emitted once
  /// by emitPerRegister() for the registers it visits: register r's
  /// coordinates are these XOR the constants of (0, r).
  mutable SmallVector<Value> threadPart;

  ArrayRef<int64_t> coords(int64_t thread, int64_t reg) const {
    return table[thread * numRegs + reg];
  }
};

struct KernelLowering {
  KernelOp kernel;
  /// The target chip: sm_90a enables wgmma.
  std::string chip = "sm_80";
  int64_t threads;
  Value tid;
  /// Fragment buffer -> (its fragment, its register array).
  DenseMap<Value, std::pair<Fragment, Value>> fragments;
  /// Shared buffer with a layout other than row-major -> (layout, flat view).
  DenseMap<Value, std::pair<Layout, Value>> sharedLayouts;

  LogicalResult init();
  LogicalResult lowerCopy(CopyOp op);
  LogicalResult lowerFill(Operation *op, Value buffer, Value value);
  LogicalResult lowerParallel(ParallelOp op);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerCumsum(CumsumOp op);
  LogicalResult lowerFragmentCumsum(CumsumOp op);
  LogicalResult lowerAtomic(AtomicOp op);
  /// Tensorizes `op` (LowerGemm.cpp): wgmma where planWgmma() takes it,
  /// otherwise ldmatrix and mma.sync.
  LogicalResult lowerGemm(GemmOp op);
  /// `op` as wgmma.mma_async on shared-memory descriptors; std::nullopt,
  /// with nothing built, when its C fragment or operand layouts do not
  /// fit wgmma.
  std::optional<LogicalResult> lowerWgmma(GemmOp op, const WgmmaPlan &plan);

  /// The loop layout of `op` over `shape`: its `tile.loop`, the layout of
  /// its fragment operand, or, with `perThread`, the whole tile on every
  /// thread (local buffers).
  FailureOr<LoopMap> getLoopMap(Operation *op, ArrayRef<int64_t> shape,
                                Value fragmentOperand, bool perThread = false);
  /// A slot of a multi-buffered shared allocation: `root` (an alloc with a
  /// layout) at leading indices `lead`, whose slot 0 is laid out as
  /// `layout` over the slot's shape.
  struct Slot {
    Value root;
    SmallVector<OpFoldResult> lead;
    Layout layout;
    /// `lead` as index values, constants created at `b`.
    SmallVector<Value> leadValues(OpBuilder &b, Location loc) const;
  };
  /// `buffer` as a slot, when it is a rank-reducing memref.subview taking
  /// whole trailing dimensions of a shared allocation; null otherwise.
  /// Matched once per value (addresses ask for every element).
  const Slot *getSlot(Value buffer);
  /// The shared tile.alloc that `buffer` reads (itself, or the alloc it is
  /// a slot of, then `slot` is set) as `root`, and the layout of `buffer`
  /// over its own shape; false when `buffer` is neither.
  bool resolveShared(Value buffer, Value &root, Layout &layout,
                     const Slot *&slot);
  /// getSlot() results by value (null: not a slot), stable addresses.
  DenseMap<Value, std::unique_ptr<Slot>> slots;
  /// buildLoopMap() of `frag` for this kernel, computed once per layout.
  FailureOr<LoopMap> buildCachedLoopMap(Operation *op, const Fragment &frag);
  /// Loop maps built so far, by fragment.
  std::vector<std::pair<Fragment, LoopMap>> loopMapCache;
  /// Element `coords` of on-chip or global `buffer` as (memref, indices).
  std::pair<Value, SmallVector<Value>> address(OpBuilder &b, Location loc,
                                               Value buffer, ValueRange coords);
  /// Whether `buffer` is stored row-major (so vectors along the last
  /// dimension are contiguous).
  bool isRowMajor(Value buffer) const {
    return !sharedLayouts.count(buffer) &&
           !buffer.getDefiningOp<memref::SubViewOp>();
  }
};

} // namespace lowering
} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LOWERTILEINTERNAL_H
