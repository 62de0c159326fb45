//===- LoweringContext.h - what the operator lowerings share ----*- C++ -*-===//
//
// The context every TileOpInterface::lower() receives: the per-kernel state
// of tile-lower (thread id, fragment register arrays, shared-memory layouts,
// the target and options) and the pieces the operator lowerings share:
// materializing layouts as index arithmetic, loop maps, element
// conversions, edge masks. Private to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_LOWERING_LOWERINGCONTEXT_H
#define TILE_PASSES_LIB_LOWERING_LOWERINGCONTEXT_H

#include "Analysis/LayoutInferenceUtils.h"
#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileOps.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

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
/// The accumulators of a tensor-core gemm, one vector of `accType` per atom:
/// zeros when `clear`, else element e of atom i read from the fragment's
/// register array `regs` at register `regOf[i * n + e]`, n the vector's
/// element count (row-major over its shape).
SmallVector<Value> loadAccumulators(OpBuilder &b, Location loc, Value regs,
                                    ArrayRef<int64_t> regOf, VectorType accType,
                                    bool clear);
/// Writes the accumulators `acc` back where loadAccumulators read them.
void storeAccumulators(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                       Value regs, ArrayRef<int64_t> regOf);
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

/// Coordinates of register `reg` of (thread `tid`) in `lm`, and in
/// `replica` the replica index of a replicated map.
SmallVector<Value> emitCoords(OpBuilder &b, Location loc, const LoopMap &lm,
                              Value tid, int64_t reg, Value *replica = nullptr);
/// Makes `b` insert under "`replica` == 0" (one replica of a replicated
/// loop writes).
void guardFirstReplica(OpBuilder &b, Location loc, Value replica);
/// Runs `body` for every register of `lm` on the active threads of a
/// block of `blockThreads`.
void emitPerRegister(OpBuilder &b, Location loc, const LoopMap &lm, Value tid,
                     int64_t blockThreads,
                     function_ref<void(OpBuilder &, int64_t)> body);
/// emitPerRegister() over the registers `keep` accepts, `body` given the
/// register's coordinates and run by one replica of a replicated map only:
/// the loop of a write that each element takes once.
void emitPerWrittenRegister(
    OpBuilder &b, Location loc, const LoopMap &lm, Value tid,
    int64_t blockThreads, function_ref<bool(int64_t)> keep,
    function_ref<void(OpBuilder &, int64_t, ArrayRef<Value>)> body);
/// The register of `frag` holding the element each (thread, reg) of `lm`
/// maps to through `indexOf`, when it is the same on every thread and held
/// by that thread; -1 otherwise.
int64_t
loopRegister(const LoopMap &lm, int64_t reg, const Fragment &frag,
             function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> indexOf,
             bool &notOwned);
/// Whether consecutive elements of the last dimension of `type` are
/// adjacent in memory (its last stride is statically 1), so that they can
/// move as vectors.
bool hasUnitInnerStride(MemRefType type);
/// Whether a tile of `tile` at a dynamic origin of a global `type` may
/// cross its edge.
bool needsMask(MemRefType type, ArrayRef<int64_t> tile);
/// `idx` (plus `lastExtra` in the last dimension) lies inside `buffer`.
Value inBounds(OpBuilder &b, Location loc, Value buffer, ValueRange idx,
               int64_t lastExtra);
/// The address of `idx` in `buffer` is a multiple of `bytes`.
Value isAligned(OpBuilder &b, Location loc, Value buffer, ValueRange idx,
                int64_t bytes, int64_t elemBytes);
/// The tile at `origin` lies wholly inside `buffer` (when `checkBounds`)
/// and its rows start at `vector`-element aligned addresses.
Value isWholeAlignedTile(OpBuilder &b, Location loc, Value buffer,
                         ValueRange origin, ArrayRef<int64_t> tile,
                         bool checkBounds, int64_t vector, int64_t elemBytes);
/// The mask of the first `count` of `lanes` lanes.
Value laneMask(OpBuilder &b, Location loc, Value count, int64_t lanes);

/// One side of a copy or atomic: the buffer, its space and its origin.
struct Operand {
  Value buffer;
  MemRefType type;
  MemorySpace space;
  SmallVector<Value> origin;
  unsigned lead = 0; // leading dimensions of extent 1 (rank-reducing)
};
/// `buffer` at `indices` as the operand of a tile of rank `tileRank`.
Operand makeOperand(Value buffer, ValueRange indices, unsigned tileRank);
/// Indices of tile element `coords` in `o`.
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, const Operand &o,
                                  ValueRange coords);
/// The widest vector (in elements, a power of two dividing the register
/// count) such that, on every thread, each group of consecutive registers
/// holds consecutive, aligned elements of the tile's last dimension, and
/// of every operand's storage.
int64_t pickVectorWidth(const LoopMap &lm, int64_t maxWidth,
                        ArrayRef<const Layout *> storage);

} // namespace lowering

/// The per-kernel state of tile-lower that every operator lowering reads.
struct LoweringContext {
  KernelOp kernel;
  LoweringOptions options;
  int64_t threads;
  Value tid;
  /// Fragment buffer -> (its fragment, its register array).
  DenseMap<Value, std::pair<Fragment, Value>> fragments;
  /// Shared buffer with a layout other than row-major -> (layout, flat view).
  DenseMap<Value, std::pair<Layout, Value>> sharedLayouts;

  LogicalResult init();
  /// The fragment and register array of `op`'s accumulator C; null, with
  /// an error at `op`, when C is not a laid-out fragment.
  const std::pair<Fragment, Value> *getAccumulator(GemmOp op);
  LogicalResult lowerCopy(CopyOp op);
  LogicalResult lowerFill(Operation *op, Value buffer, Value value);
  LogicalResult lowerParallel(ParallelOp op);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerCumsum(CumsumOp op);
  LogicalResult lowerFragmentCumsum(CumsumOp op);
  LogicalResult lowerAtomic(AtomicOp op);
  /// `op` as loads of every block's tile through distributed shared memory
  /// between two cluster barriers, each block storing its share
  /// (Ops/Atomic.cpp).
  LogicalResult lowerClusterReduce(ClusterReduceOp op);
  /// Tensorizes `op` (Ops/Gemm.cpp): wgmma where planWgmma() takes it,
  /// otherwise ldmatrix and mma.sync.
  LogicalResult lowerGemm(GemmOp op);
  /// `op` as wgmma.mma_async on shared-memory descriptors; std::nullopt,
  /// with nothing built, when its C fragment or operand layouts do not
  /// fit wgmma.
  std::optional<LogicalResult> lowerWgmma(GemmOp op, const WgmmaPlan &plan);
  /// The wait of a wgmma gemm's commit group, built right after the
  /// commit (`wait`, the inline asm, and the stores of what it returns, in
  /// `region`) and moved later by placeWgmmaWaits(): it writes the
  /// accumulator array `c`; the group's wgmmas read `a`, the register A
  /// arrays (none for shared A), until then. `acc` holds the group's last
  /// accumulator structs and `regs` the register of each of their
  /// elements, so that a later gemm into the same registers can take them
  /// in place of this wait (chainableWait in Target/NVIDIA/Wgmma.cpp).
  struct WgmmaWait {
    scf::ExecuteRegionOp region;
    LLVM::InlineAsmOp wait;
    Operation *commit;
    Value c;
    SmallVector<Value, 1> a;
    SmallVector<Value> acc;
    SmallVector<int64_t> regs;
  };
  SmallVector<WgmmaWait> wgmmaWaits;
  /// The fences, wgmmas, commits and waits of every wgmma group.
  llvm::DenseSet<Operation *> wgmmaOps;
  /// Moves each wgmma wait down its block to just before the first
  /// operation that touches its accumulator, writes its A registers or
  /// only computes values written into them, touches memory other than
  /// registers, or is not known to be free of other effects, and sets its
  /// count to the groups committed since its own, so that the code between
  /// a gemm and the first use of its result (another gemm included)
  /// overlaps the tensor cores (Target/NVIDIA/Wgmma.cpp).
  void placeWgmmaWaits();
  /// `op` as amdgpu.mfma over LDS operands (Target/AMD/Mfma.cpp).
  LogicalResult lowerMfma(GemmOp op);

  /// The loop layout of `op` over `shape`: its `tile.loop`, the layout of
  /// its fragment operand, or, with `perThread`, the whole tile on every
  /// thread (local buffers).
  FailureOr<lowering::LoopMap> getLoopMap(Operation *op,
                                          ArrayRef<int64_t> shape,
                                          Value fragmentOperand,
                                          bool perThread = false);
  /// A slot of a multi-buffered shared allocation, or a static view of
  /// one or of a shared allocation: `root` (an alloc with a layout) at
  /// leading indices `lead`, the view's element (i, j, ...) being the
  /// slot's (i + offsets[0], j + offsets[1], ...); `layout` gives the
  /// offsets of slot 0's elements over the view's shape.
  struct Slot {
    Value root;
    SmallVector<OpFoldResult> lead;
    SmallVector<int64_t> offsets;
    Layout layout;
    /// `lead` as index values, constants created at `b`.
    SmallVector<Value> leadValues(OpBuilder &b, Location loc) const;
  };
  /// `buffer` as a slot, when it is a memref.subview of a shared
  /// allocation (or of a slot) that drops leading unit dimensions only and
  /// takes a static box with unit strides of the rest; null otherwise.
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
  FailureOr<lowering::LoopMap> buildCachedLoopMap(Operation *op,
                                                  const Fragment &frag);
  /// Loop maps built so far, by fragment.
  std::vector<std::pair<Fragment, lowering::LoopMap>> loopMapCache;
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

/// Lowers `op`, a copy of a whole fragment into a 2-d global tensor run by
/// the consumers of a warp-specialized kernel, through shared staging
/// buffers (Target/NVIDIA/StagedStore.cpp): stored with TMA (`tmaStore`), or
/// by the consumers' threads with 16-byte stores of each row's aligned
/// body (`threadStore`); std::nullopt, with nothing built, where neither
/// applies.
std::optional<LogicalResult> lowerStagedStore(LoweringContext &lc, CopyOp op);

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_LOWERING_LOWERINGCONTEXT_H
