//===- PipelineLoops.cpp - tile.pipelined as a cp.async pipeline ---------===//
//
// Software-pipelines tile.pipelined loops (TileLang paper §4.4): the copies
// from global into shared memory at the top of the body (the producers) are
// issued `d` iterations ahead of the operations that read them (the
// consumers), into `d + 1` slots of a multi-buffered shared allocation, as
// asynchronous copies (cp.async) in one commit group per iteration. The
// loop becomes
//
//   prologue:  for s < d: if (s < n) producers(s) into slot s; commit
//              (an scf.for, so the producers are emitted twice, not d + 1
//              times)
//   loop i:    wait until group i has landed; barrier
//              if (i + d < n) producers(i + d) into slot (i + d) mod (d+1)
//              commit; consumers(i) on slot i mod (d+1)
//   after:     wait for every group
//
// where one barrier per iteration both publishes slot i and retires slot
// i - 1, which the producers of this iteration overwrite. With d = 0 the
// producers run in their own iteration, followed by a wait, a barrier, the
// consumers and a barrier. `d` is stages - 1, or what the `stage` clause
// says; `order` sets the issue order inside an iteration. Readers in later
// stages than the first run that many iterations (their lag) behind, in
// step i + lag of the loop, which runs L more steps (L the largest lag) and
// has L more slots; the warp-specialized consumers peel the steps where
// some iteration does not exist into a prologue and an epilogue. In the tile
// loop of a persistent kernel the pipeline runs on across the block's tiles
// where every tile has the same trip count: the prologue moves before the
// tile loop and the copies ahead of a tile's last steps are the next
// tile's first.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Accesses.h"
#include "Analysis/LayoutInference.h"
#include "tile/Transforms/Lowering.h"

#include "Lowering/LoweringContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;
using mlir::tile::lowering::sharedPointer;

/// Clones `op` at `b` through `map`. A memref.subview whose source maps to
/// a slot of a multi-buffered allocation (a memref of another layout) is
/// built again over it, with the result type that source gives.
static Operation *cloneThroughSlots(OpBuilder &b, Operation &op,
                                    IRMapping &map) {
  auto view = dyn_cast<memref::SubViewOp>(op);
  Value source = view ? map.lookupOrDefault(view.getSource()) : Value();
  if (!view || source.getType() == view.getSourceType())
    return b.clone(op, map);
  auto mapped = [&](ArrayRef<OpFoldResult> values) {
    SmallVector<OpFoldResult> result;
    for (OpFoldResult v : values)
      result.push_back(isa<Value>(v)
                           ? OpFoldResult(map.lookupOrDefault(cast<Value>(v)))
                           : v);
    return result;
  };
  SmallVector<OpFoldResult> offsets = mapped(view.getMixedOffsets()),
                            sizes = mapped(view.getMixedSizes()),
                            strides = mapped(view.getMixedStrides());
  auto type = memref::SubViewOp::inferRankReducedResultType(
      view.getType().getShape(), cast<MemRefType>(source.getType()), offsets,
      sizes, strides);
  auto clone =
      memref::SubViewOp::create(b, view.getLoc(), cast<MemRefType>(type),
                                source, offsets, sizes, strides);
  map.map(view.getResult(), clone.getResult());
  return clone;
}

/// Whether `op`, the asynchronous copy `copy`, can be a producer of
/// `loop`: global into a whole shared allocation that nothing outside the
/// loop touches and that the rest of the loop only reads.
static bool isProducer(PipelinedOp loop, Operation *op, const AsyncCopy &copy) {
  auto alloc = copy.dest.getDefiningOp<AllocOp>();
  if (!alloc || !copy.destIndices.empty() ||
      getMemorySpace(cast<MemRefType>(copy.source.getType())) !=
          MemorySpace::Global ||
      getMemorySpace(alloc.getType()) != MemorySpace::Shared ||
      op->getParentOp() != loop)
    return false;
  for (Operation *user : alloc->getUsers()) {
    if (!loop->isProperAncestor(user))
      return false;
    // Other users may only read it: the other slots are being written.
    if (user != op && !onlyReads(user, alloc.getResult()))
      return false;
  }
  return true;
}

/// The layout of `alloc` multi-buffered `slots` times: slot s at
/// s * size + layout(x). Fails when the layout's swizzle would not carry
/// over to the other slots unchanged.
static std::optional<Layout> multiBufferLayout(const Layout &layout,
                                               int64_t slots) {
  if (layout.isLinear() || layout.getNumResults() != 1)
    return std::nullopt;
  MLIRContext *ctx = layout.getContext();
  int64_t size = getNumElements(layout.getCodomainShape());
  SmallVector<int64_t> shape = {slots};
  llvm::append_range(shape, layout.getShape());
  AffineExpr slot = getAffineDimExpr(0, ctx);
  AffineExpr inner =
      layout.getMap().getResult(0).shiftDims(layout.getRank(), 1);
  Layout result = Layout::affine(
      shape, AffineMap::get(shape.size(), 0, slot * size + inner),
      layout.getSwizzle());
  bool ok = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> c) {
    if (ok)
      ok = result.apply(c)[0] == c[0] * size + layout.apply(c.drop_front())[0];
  });
  return ok ? std::optional(result) : std::nullopt;
}

/// Turns `loop` into an scf.for running its body in order.
static void convertToFor(PipelinedOp loop) {
  OpBuilder b(loop);
  auto forOp = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                  loop.getUpperBound(), loop.getStep());
  Block &body = loop.getBody().front();
  Block *forBody = forOp.getBody();
  loop.getInductionVar().replaceAllUsesWith(forOp.getInductionVar());
  forBody->getOperations().splice(forBody->getTerminator()->getIterator(),
                                  body.getOperations());
  loop.erase();
}

/// Why `op` (a producer) cannot be issued ahead of the rest of the body, or
/// an empty string: it depends on a non-pure operation of the body.
static std::string dependsOnBody(PipelinedOp loop, Operation *op) {
  SmallVector<Value> work(op->getOperands());
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getParentOp() != loop || !seen.insert(def).second)
      continue;
    if (!isPure(def))
      return "its operands depend on '" + def->getName().getStringRef().str() +
             "' in the loop body";
    llvm::append_range(work, def->getOperands());
  }
  return "";
}

/// Whether the cp.async pipeline of `loop`, directly in the tile loop
/// `tiles` of a persistent kernel, can run on across tiles: the loop's
/// bounds are the same for every tile (defined outside `tiles`), and what
/// the `producers` read from the tile's body outside `loop` is computed
/// from the tile index by side-effect-free operations. Those, and the
/// operations of the loop's body that the producers read, are added to
/// `needed`: what must be computed again for an iteration of a later tile
/// (and no more, as the rest may read the current tile's values).
static bool runsAcrossTiles(scf::ForOp tiles, PipelinedOp loop,
                            ArrayRef<Operation *> producers,
                            llvm::DenseSet<Operation *> &needed) {
  if (!tiles || loop->getParentOp() != tiles ||
      !llvm::all_of(ValueRange{loop.getLowerBound(), loop.getUpperBound(),
                               loop.getStep()},
                    [&](Value v) { return tiles.isDefinedOutsideOfLoop(v); }))
    return false;
  SmallVector<Value> work;
  for (Operation *op : producers)
    llvm::append_range(work, op->getOperands());
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || tiles.isDefinedOutsideOfLoop(v) ||
        v == tiles.getInductionVar() || v == loop.getInductionVar())
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    // The loop body's own operations are pure (dependsOnBody()).
    if (def->getParentOp() == loop) {
      needed.insert(def);
      llvm::append_range(work, def->getOperands());
      continue;
    }
    if (def->getBlock() != tiles.getBody() || !def->isBeforeInBlock(loop) ||
        def->getNumRegions() || !isMemoryEffectFree(def))
      return false;
    needed.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// A producer copy issued as TMA loads: a rows x cols tile read as
/// `blocks` boxes of rows x `boxCols` (one per swizzle atom of columns).
struct TmaLoad {
  Operation *op = nullptr;
  AsyncCopy copy;
  int64_t rows = 0, cols = 0, boxCols = 0, blocks = 1, elementBytes = 0;
  nvgpu::TensorMapSwizzleKind swizzle =
      nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  Layout layout;
  /// Blocks of the cluster that read the same tile and share it (1: the
  /// block loads it alone): each loads `rows / group` rows of every box
  /// and multicasts them to the group (planMulticast()).
  int64_t group = 1;
  /// Bit d set: the group spans the cluster along grid dimension d.
  unsigned groupDims = 0;
  /// Elements between the first rows of consecutive blocks' parts.
  int64_t partStride = 0;
};

/// The TMA form of `copy` when its source is a plain global memref of rank
/// 2 to 5 defined outside the kernel, its shared tile is 2-d (the two
/// innermost dimensions of the source; the outer ones are a box of extent
/// 1, as for one head of a [batch, heads, seq, dim] tensor) and laid out
/// the way TMA writes it: row-major, or one of the 32/64/128-byte swizzles
/// in column blocks of one swizzle row each; and its innermost origin is
/// a known multiple of 16 bytes.
static std::optional<TmaLoad> planTmaLoad(KernelOp kernel, Operation *op,
                                          const AsyncCopy &copy) {
  if (!copy.allowTma)
    return std::nullopt;
  auto srcType = dyn_cast<MemRefType>(copy.source.getType());
  auto alloc = copy.dest.getDefiningOp<AllocOp>();
  if (!srcType || !alloc || srcType.getRank() < 2 || srcType.getRank() > 5 ||
      alloc.getType().getRank() != 2 || !srcType.getLayout().isIdentity() ||
      kernel.getBody().isAncestor(Value(copy.source).getParentRegion()) ||
      alloc->getParentOp() != kernel)
    return std::nullopt;
  MemRefType dstType = alloc.getType();
  Type element = dstType.getElementType();
  if (element != srcType.getElementType() || !element.isIntOrFloat())
    return std::nullopt;
  int64_t bits = element.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32)
    return std::nullopt;
  MLIRContext *ctx = kernel.getContext();
  TmaLoad load;
  load.op = op;
  load.copy = copy;
  load.rows = dstType.getDimSize(0);
  load.cols = dstType.getDimSize(1);
  load.elementBytes = bits / 8;
  // A box whose innermost coordinate is not a multiple of 16 bytes faults
  // (an illegal instruction), whatever the tensor map says.
  if (copy.sourceIndices.empty() ||
      (knownDivisor(copy.sourceIndices.back()) * load.elementBytes) % 16)
    return std::nullopt;
  auto attr = dyn_cast_or_null<LayoutAttr>(alloc.getLayoutAttr());
  std::optional<Layout> layout =
      attr ? attr.getLayoutFor(dstType.getShape())
           : Layout::rowMajor(ctx, dstType.getShape());
  if (!layout || load.rows > 256)
    return std::nullopt;
  load.layout = *layout;
  if (layout->isEquivalentTo(Layout::rowMajor(ctx, dstType.getShape()))) {
    if (load.cols > 256 || (load.cols * load.elementBytes) % 16)
      return std::nullopt;
    load.boxCols = load.cols;
    return load;
  }
  for (auto [bytes, kind] :
       {std::pair{128, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B},
        std::pair{64, nvgpu::TensorMapSwizzleKind::SWIZZLE_64B},
        std::pair{32, nvgpu::TensorMapSwizzleKind::SWIZZLE_32B}}) {
    std::optional<Layout> swizzled =
        Layout::swizzled(ctx, dstType.getShape(), bytes, bits);
    if (!swizzled || !layout->isEquivalentTo(*swizzled))
      continue;
    load.swizzle = kind;
    load.boxCols = bytes / load.elementBytes;
    load.blocks = load.cols / load.boxCols;
    return load;
  }
  return std::nullopt;
}

/// Clones into `b` the side-effect-free operations of `kernel` that `value`
/// depends on (block arguments of the kernel and values from outside it are
/// used as they are), through `map`. Null when `value` depends on anything
/// else. With a null `b` it only checks, recording the values it accepted
/// in `map` as themselves. Divisions by runtime values (a head index over a
/// group size) are accepted: what the loop's bounds and copy indices use is
/// computed unconditionally, in the kernel's body or the loop's, so the
/// clone runs no division the program would not have run.
static Value clonePure(OpBuilder *b, KernelOp kernel, Value value,
                       IRMapping &map) {
  if (Value mapped = map.lookupOrNull(value))
    return mapped;
  if (!kernel.getBody().isAncestor(value.getParentRegion()))
    return value;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == &kernel.getBody().front() ? value : Value();
  Operation *def = value.getDefiningOp();
  if (!isMemoryEffectFree(def) || def->getNumRegions())
    return Value();
  for (Value operand : def->getOperands())
    if (!clonePure(b, kernel, operand, map))
      return Value();
  if (!b) {
    map.map(value, value);
    return value;
  }
  b->clone(*def, map);
  return map.lookup(value);
}

/// Whether the TMA producer of a warp-specialized `loop` can compute what
/// it needs (bounds and copy indices, and those of the persistent kernel's
/// tile loop `tiles` where there is one) on its own.
static bool producerIsSelfContained(KernelOp kernel, PipelinedOp loop,
                                    scf::ForOp tiles, ArrayRef<TmaLoad> loads) {
  IRMapping accepted;
  accepted.map(loop.getInductionVar(), loop.getInductionVar());
  SmallVector<Value> needed = {loop.getLowerBound(), loop.getUpperBound(),
                               loop.getStep()};
  if (tiles) {
    accepted.map(tiles.getInductionVar(), tiles.getInductionVar());
    llvm::append_range(needed,
                       ValueRange{tiles.getLowerBound(), tiles.getUpperBound(),
                                  tiles.getStep()});
  }
  for (const TmaLoad &load : loads)
    llvm::append_range(needed, load.copy.sourceIndices);
  return llvm::all_of(needed, [&](Value v) {
    return clonePure(nullptr, kernel, v, accepted) != nullptr;
  });
}

/// The copies of `kernel`'s body before `loop` that its TMA producer can
/// issue ahead of the loop's loads: global into a whole shared allocation
/// that only the copy writes and only `loop` reads (FlashAttention's Q
/// tile), in a TMA form (planTmaLoad()), at indices the producer can
/// compute alone. The consumers then wait for them instead of copying.
static SmallVector<TmaLoad, 1>
planPrologueLoads(KernelOp kernel, PipelinedOp loop, scf::ForOp tiles) {
  SmallVector<TmaLoad, 1> loads;
  for (Operation &op : *loop->getBlock()) {
    if (&op == loop.getOperation())
      break;
    auto tileOp = dyn_cast<TileOpInterface>(&op);
    std::optional<AsyncCopy> copy =
        tileOp ? tileOp.getAsyncCopy() : std::nullopt;
    auto alloc = copy ? copy->dest.getDefiningOp<AllocOp>() : nullptr;
    if (!alloc || !copy->destIndices.empty() ||
        getMemorySpace(cast<MemRefType>(copy->source.getType())) !=
            MemorySpace::Global ||
        getMemorySpace(alloc.getType()) != MemorySpace::Shared)
      continue;
    bool onlyLoopReads = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
      return user == &op || (loop->isProperAncestor(user) &&
                             onlyReads(user, alloc.getResult()));
    });
    IRMapping check;
    if (tiles)
      check.map(tiles.getInductionVar(), tiles.getInductionVar());
    bool computable = llvm::all_of(copy->sourceIndices, [&](Value index) {
      return clonePure(nullptr, kernel, index, check) != nullptr;
    });
    if (!onlyLoopReads || !computable)
      continue;
    if (std::optional<TmaLoad> load = planTmaLoad(kernel, &op, *copy))
      loads.push_back(*load);
  }
  return loads;
}

/// The dimensions of `kernel`'s grid whose block index `value` depends on,
/// one bit per dimension; every dimension where it depends on anything but
/// side-effect-free operations of the kernel's body, the block indices and
/// the `uniform` values (the same in every block).
static unsigned blockDimsOf(KernelOp kernel, Value value,
                            ArrayRef<Value> uniform) {
  unsigned all = (1u << kernel.getGrid().size()) - 1;
  unsigned dims = 0;
  SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || llvm::is_contained(uniform, v) ||
        !kernel.getBody().isAncestor(v.getParentRegion()))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &kernel.getBody().front())
        return all;
      dims |= 1u << arg.getArgNumber();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return all;
    llvm::append_range(work, def->getOperands());
  }
  return dims;
}

/// Shares the TMA `loads` of the warp-specialized `loop` among the blocks
/// of `kernel`'s cluster that read the same tile. A load whose source
/// indices do not depend on the block index along a dimension where the
/// cluster has several blocks reads the same tile in the blocks that
/// differ only along it: each of those `group` blocks loads `rows / group`
/// of the tile's rows and multicasts them to all of them, so the tile
/// crosses from L2 once per group instead of once per block (a GEMM
/// cluster of two blocks along M shares its B tiles). Every block must
/// then run the same iterations (bounds independent of the cluster's
/// block indices), and each part must start on a row of the shared
/// layout that TMA's address-based swizzle agrees with (a multiple of 8
/// rows; each part's offset a fixed stride from the last). Returns whether
/// any load is shared.
static bool planMulticast(KernelOp kernel, PipelinedOp loop,
                          MutableArrayRef<TmaLoad> loads) {
  SmallVector<int64_t, 3> cluster = kernel.getClusterExtents();
  unsigned clusterDims = 0;
  for (auto [d, e] : llvm::enumerate(cluster))
    if (e > 1)
      clusterDims |= 1u << d;
  if (!clusterDims)
    return false;
  Value iv = loop.getInductionVar();
  for (Value bound :
       {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (blockDimsOf(kernel, bound, {}) & clusterDims)
      return false;
  bool any = false;
  for (TmaLoad &load : loads) {
    unsigned deps = 0;
    for (Value index : load.copy.sourceIndices)
      deps |= blockDimsOf(kernel, index, iv);
    unsigned shared = clusterDims & ~deps;
    int64_t group = 1;
    for (auto [d, e] : llvm::enumerate(cluster))
      if (shared & (1u << d))
        group *= e;
    if (group == 1 || load.rows % group)
      continue;
    int64_t part = load.rows / group;
    if (load.swizzle != nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE && part % 8)
      continue;
    int64_t origin = load.layout.apply({0, 0})[0];
    int64_t stride = load.layout.apply({part, 0})[0] - origin;
    bool regular = true;
    for (int64_t blk = 0; blk < load.blocks && regular; ++blk) {
      int64_t first = load.layout.apply({0, blk * load.boxCols})[0];
      for (int64_t j = 1; j < group && regular; ++j)
        regular = load.layout.apply({j * part, blk * load.boxCols})[0] ==
                  first + j * stride;
    }
    if (!regular)
      continue;
    load.group = group;
    load.groupDims = shared;
    load.partStride = stride;
    any = true;
  }
  return any;
}

namespace {
/// The named barriers by which two consumer warpgroups (`threads` = 256
/// consumer threads with ids `tid`) take turns on the tensor cores:
/// barrier 2 + w is warpgroup w's turn (`mine`), 3 - w the other's.
struct TurnBarriers {
  Value group, mine, other, count;
  TurnBarriers(OpBuilder &b, Location loc, Value tid, int64_t threads) {
    group = arith::IndexCastUIOp::create(
        b, loc, b.getI32Type(),
        arith::DivUIOp::create(b, loc, tid,
                               arith::ConstantIndexOp::create(b, loc, 128)));
    mine = arith::AddIOp::create(b, loc, i32(b, loc, 2), group);
    other = arith::SubIOp::create(b, loc, i32(b, loc, 3), group);
    count = i32(b, loc, threads);
  }
  static Value i32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  /// Gives warpgroup `w`'s turn away (arrives on `barrierId`) when `runs`
  /// and this is warpgroup w.
  scf::IfOp giveIf(OpBuilder &b, Location loc, Value runs, int64_t w,
                   int64_t barrierId) const {
    Value is = arith::AndIOp::create(
        b, loc, runs,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group,
                              i32(b, loc, w)));
    auto ifOp = scf::IfOp::create(b, loc, is, /*withElse=*/false);
    OpBuilder ib(ifOp.thenBlock()->getTerminator());
    NVVM::BarrierArriveOp::create(ib, loc, i32(ib, loc, barrierId), count);
    return ifOp;
  }
  /// Waits for this warpgroup's turn at `b`.
  Operation *wait(OpBuilder &b, Location loc) const {
    return NVVM::BarrierOp::create(b, loc, Type(), mine, count,
                                   NVVM::BarrierReductionAttr(), Value());
  }
};
} // namespace

/// Makes the two consumer warpgroups of `loop` (the consumers' loop of a
/// warp-specialized kernel, `threads` = 256 consumer threads with ids
/// `tid`, `trips` iterations) take turns on the tensor cores when its body
/// has two or more gemms: a warpgroup runs the last gemm of an iteration
/// and the first of the next (P·V of block j and Q·Kᵀ of block j + 1 in
/// attention) while the other runs the code between them (the softmax).
/// Named barrier 2 + w is warpgroup w's turn: it waits for it before the
/// last gemm (and before the first, in the first iteration) and gives the
/// other its turn once the first gemm is issued. Warpgroup 1 gives
/// warpgroup 0 the first turn before the loop and warpgroup 0 gives back
/// the last after it, so every wait has its arrival. The operations carry
/// kTurnAttr for finishTensorCoreTurns() to check once the kernel is
/// lowered.
static void takeTurnsOnTensorCores(scf::ForOp loop, Value tid, Value trips,
                                   int64_t threads) {
  SmallVector<Operation *> gemms;
  for (Operation &op : loop.getBody()->without_terminator())
    if (isa<GemmOp>(op))
      gemms.push_back(&op);
  if (threads != 256 || gemms.size() < 2)
    return;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  UnitAttr mark = b.getUnitAttr();
  TurnBarriers turns(b, loc, tid, threads);
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, trips,
                                     arith::ConstantIndexOp::create(b, loc, 0));
  // Arrivals outside the loop are not waits, so no barrier of the
  // consumers before or after the loop can deadlock on them.
  auto giveTurnIf = [&](int64_t w, int64_t barrierId) {
    turns.giveIf(b, loc, runs, w, barrierId)->setAttr(kTurnAttr, mark);
  };
  auto waitTurn = [&]() { turns.wait(b, loc)->setAttr(kTurnAttr, mark); };
  giveTurnIf(1, 2);
  b.setInsertionPoint(gemms.front());
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            loop.getInductionVar(), loop.getLowerBound());
  auto firstIf = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  firstIf->setAttr(kTurnAttr, mark);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(firstIf.thenBlock()->getTerminator());
    waitTurn();
  }
  b.setInsertionPointAfter(gemms.front());
  NVVM::BarrierArriveOp::create(b, loc, turns.other, turns.count)
      ->setAttr(kTurnAttr, mark);
  b.setInsertionPoint(gemms.back());
  waitTurn();
  b.setInsertionPointAfter(loop);
  giveTurnIf(0, 3);
  loop->setAttr(kTurnAttr, mark);
}

/// Emits at `b` the readers of a warp-specialized loop whose readers run
/// in several stages: in step i, reader r runs on iteration i - lags[r]
/// (`consumers` in issue order), for steps 0 to trips + L - 1, L the
/// largest lag. The steps from L to trips - 1 run every reader unguarded;
/// a prologue (steps below L) and an epilogue (steps from trips) run each
/// run of readers of one lag only where its iteration exists. Step i first
/// waits for slot i (`waitFull`, which returns the slot) where iteration i
/// exists, and ends by releasing the slot of iteration i - L, whose last
/// readers have then run. Slots and phases count iterations from `base`
/// (the iterations of a persistent block's earlier tiles) where it is set.
static SmallVector<scf::ForOp, 3> emitLaggedReaders(
    OpBuilder &b, Location loc, ArrayRef<Operation *> consumers,
    ArrayRef<int64_t> lags, Value trips, int64_t slots, Value base,
    function_ref<Value(OpBuilder &, Value)> waitFull,
    function_ref<void(OpBuilder &, Value)> release,
    function_ref<void(OpBuilder &, ArrayRef<Operation *>, Value, Value)> emit) {
  int64_t maxLag = *llvm::max_element(lags);
  auto idx = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  auto counted = [&](OpBuilder &ob, Value iter) -> Value {
    return base ? arith::AddIOp::create(ob, loc, base, iter) : iter;
  };
  auto slotOf = [&](OpBuilder &ob, Value iter) -> Value {
    return arith::RemUIOp::create(ob, loc, counted(ob, iter), idx(ob, slots));
  };
  enum class Part { prologue, steady, epilogue };
  auto emitStep = [&](OpBuilder &ob, Value i, Part part) {
    if (part != Part::epilogue)
      waitFull(ob, counted(ob, i));
    for (size_t first = 0; first < consumers.size();) {
      size_t end = first;
      while (end < consumers.size() && lags[end] == lags[first])
        ++end;
      ArrayRef<Operation *> run = consumers.slice(first, end - first);
      int64_t lag = lags[first];
      first = end;
      // Iteration i - lag exists when lag <= i < trips + lag; the
      // prologue's steps are below trips, the epilogue's at least trips.
      Value cond;
      if (part == Part::epilogue) {
        if (lag == 0)
          continue;
        cond = arith::AndIOp::create(
            ob, loc,
            arith::CmpIOp::create(
                ob, loc, arith::CmpIPredicate::ult, i,
                arith::AddIOp::create(ob, loc, trips, idx(ob, lag))),
            arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge, i,
                                  idx(ob, lag)));
      } else if (part == Part::prologue && lag > 0) {
        // Prologue steps are below L: readers L behind never run there.
        if (lag == maxLag)
          continue;
        cond = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge, i,
                                     idx(ob, lag));
      }
      OpBuilder::InsertionGuard guard(ob);
      if (cond) {
        auto ifOp = scf::IfOp::create(ob, loc, cond, /*withElse=*/false);
        ob.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value iter = lag ? arith::SubIOp::create(ob, loc, i, idx(ob, lag)) : i;
      emit(ob, run, iter, slotOf(ob, iter));
    }
    if (part == Part::prologue)
      return;
    Value done = arith::SubIOp::create(ob, loc, i, idx(ob, maxLag));
    if (part == Part::steady) {
      release(ob, slotOf(ob, done));
      return;
    }
    auto ifOp = scf::IfOp::create(
        ob, loc,
        arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge, i,
                              idx(ob, maxLag)),
        /*withElse=*/false);
    OpBuilder rb(ifOp.thenBlock()->getTerminator());
    release(rb, slotOf(rb, done));
  };
  SmallVector<scf::ForOp, 3> loops;
  auto loopOver = [&](Value lb, Value ub, Part part) {
    auto forOp = scf::ForOp::create(b, loc, lb, ub, idx(b, 1));
    OpBuilder ob(forOp.getBody()->getTerminator());
    emitStep(ob, forOp.getInductionVar(), part);
    loops.push_back(forOp);
  };
  Value lag = idx(b, maxLag);
  loopOver(idx(b, 0), arith::MinUIOp::create(b, loc, lag, trips),
           Part::prologue);
  loopOver(lag, trips, Part::steady);
  loopOver(trips, arith::AddIOp::create(b, loc, trips, lag), Part::epilogue);
  return loops;
}

/// Makes the two consumer warpgroups (`threads` = 256, ids `tid`) of the
/// prologue, steady and epilogue `loops` of emitLaggedReaders() take turns
/// on the tensor cores, FlashAttention-3's ping-pong with intra-warpgroup
/// overlap: in each step that issues gemms, a warpgroup waits for its turn
/// (named barrier 2 + w) before the first and gives the other its turn
/// right after issuing the last, so that one warpgroup's softmax runs
/// while the other's gemms are issued. Warpgroup 1 gives warpgroup 0 the
/// first turn; every warpgroup takes trips + 1 turns (one step of each
/// loop issues gemms: the lag is 1), so warpgroup 1 gives no turn after
/// its last. Returns false, changing nothing, where a loop issues no gemm
/// or the gemms of a step are not adjacent in one block (a turn would then
/// span other code).
static bool takeTurnsInLaggedReaders(MutableArrayRef<scf::ForOp> loops,
                                     Value tid, Value trips, int64_t threads) {
  SmallVector<std::pair<Operation *, Operation *>> episodes;
  for (scf::ForOp loop : loops) {
    SmallVector<Operation *> gemms;
    loop.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    // Both warpgroups take one turn per loop: each must issue gemms.
    if (gemms.empty())
      return false;
    Operation *first = gemms.front(), *last = gemms.back();
    if (first->getBlock() != last->getBlock())
      return false;
    for (Operation *op = first; op != last; op = op->getNextNode())
      if (!isa<GemmOp>(op) && !isPure(op))
        return false;
    episodes.push_back({first, last});
  }
  if (threads != 256 || loops.size() != 3)
    return false;
  Location loc = loops.front().getLoc();
  OpBuilder b(loops.front());
  TurnBarriers turns(b, loc, tid, threads);
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, trips,
                                     arith::ConstantIndexOp::create(b, loc, 0));
  turns.giveIf(b, loc, runs, 1, 2);
  for (auto [n, episode] : llvm::enumerate(episodes)) {
    auto [firstGemm, lastGemm] = episode;
    OpBuilder wb(firstGemm);
    turns.wait(wb, loc);
    OpBuilder gb(lastGemm->getBlock(), std::next(lastGemm->getIterator()));
    if (n + 1 < episodes.size()) {
      NVVM::BarrierArriveOp::create(gb, loc, turns.other, turns.count);
      continue;
    }
    // The epilogue's turn is the last: warpgroup 0 gives warpgroup 1 its
    // last one; warpgroup 1 gives none.
    Value always = arith::ConstantIntOp::create(gb, loc, gb.getI1Type(), 1);
    turns.giveIf(gb, loc, always, 0, 3);
  }
  return true;
}

/// Whether `ops` may read or write what `loads` load through the generic
/// proxy (ld.shared, ldmatrix: all but wgmma's operand reads). The producer
/// then refills a slot they release through the other proxy, the TMA's, and
/// only a proxy fence orders their accesses before that write: without
/// one, mma.sync consumers were measured reading the next step's data in
/// 2-4% of launches (bench/RESULTS.md, "The proxy fence").
static bool accessesThroughGenericProxy(ArrayRef<Operation *> ops,
                                        ArrayRef<TmaLoad> loads,
                                        ArrayRef<TmaLoad> prologue) {
  llvm::DenseSet<Value> loaded;
  for (const TmaLoad &load : llvm::concat<const TmaLoad>(loads, prologue))
    loaded.insert(getSharedRoot(load.copy.dest));
  auto generic = [&](Operation *op) {
    // A tile operator describes the operations of its regions itself.
    if (op->getParentOp() && isa<TileOpInterface>(op->getParentOp()))
      return false;
    SmallVector<TileAccess> accesses;
    getAccesses(op, accesses);
    return llvm::any_of(accesses, [&](const TileAccess &access) {
      return access.genericProxy &&
             loaded.contains(getSharedRoot(access.buffer));
    });
  };
  return llvm::any_of(ops, [&](Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          return generic(inner) ? WalkResult::interrupt()
                                : WalkResult::advance();
        })
        .wasInterrupted();
  });
}

/// Rewrites `kernel` around its pipelined `loop` into a producer
/// warpgroup, added after the kernel's threads, that issues the TMA
/// `loads` of every iteration into `slots` slots (the multi-buffered
/// allocations `slotted`), and the kernel's own threads (the consumers),
/// which run everything else, with the loop's `consumers` on each slot once
/// its loads have landed. Slot s has a "full" mbarrier (one arrival plus
/// the loads' bytes) and an "empty" one (every consumer thread arrives when
/// done with it); phases alternate every `slots` iterations. `trips` is
/// the loop's trip count and `emit` clones operations for an iteration and
/// slot, both in the consumer code. With `pingpong`, two consumer
/// warpgroups take turns on the tensor cores (takeTurnsOnTensorCores()).
/// With `multicast`, loads with a group (planMulticast()) are shared across
/// the cluster: a slot is free once every consumer warp of the cluster has
/// released it (each warp arrives on the slot's empty barrier in every
/// block), and the cluster synchronizes after the barriers' initialization
/// and before any block exits, since the others write into its shared
/// memory and barriers.
/// In a persistent kernel, `tiles` is the tile loop around `loop`: the
/// producer walks the same tiles in a loop of its own, and both sides
/// number iterations from the block's first tile (the iterations of its
/// earlier tiles, carried by each tile loop, plus the index in this tile),
/// so that slots and phases run on across tiles and the producer fills
/// the next tile's slots as soon as the consumers release them.
/// The `prologue` loads (planPrologueLoads()) are issued first, once,
/// against a barrier of their own, which the consumers wait for before the
/// loop in place of the copies.
/// One function: the producer branch, the consumer branch and the mbarrier
/// phases share the slots, the barriers and the cloned index computations.
static void warpSpecialize(
    KernelOp kernel, PipelinedOp loop, scf::ForOp tiles,
    ArrayRef<TmaLoad> loads, ArrayRef<TmaLoad> prologue,
    ArrayRef<Operation *> consumers, ArrayRef<int64_t> lags, int64_t slots,
    const llvm::MapVector<Value, Value> &slotted, Value trips, bool pingpong,
    bool multicast,
    function_ref<void(OpBuilder &, ArrayRef<Operation *>, Value, Value)> emit) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = loop.getLoc();
  int64_t consumerThreads = kernel.getThreads();
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto idx = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto i32 = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };

  // Host side: one tensor map per load, for the runtime to encode.
  SmallVector<Value> maps, prologueMaps;
  {
    OpBuilder hb(kernel);
    for (const TmaLoad &load : llvm::concat<const TmaLoad>(loads, prologue)) {
      auto srcType = cast<MemRefType>(load.copy.source.getType());
      Value unranked = memref::CastOp::create(
          hb, loc, UnrankedMemRefType::get(srcType.getElementType(), 0),
          load.copy.source);
      SmallVector<int64_t> boxShape(srcType.getRank() - 2, 1);
      llvm::append_range(
          boxShape, ArrayRef<int64_t>{load.rows / load.group, load.boxCols});
      auto box = MemRefType::get(boxShape, srcType.getElementType(),
                                 AffineMap(), shared);
      auto type = nvgpu::TensorMapDescriptorType::get(
          ctx, box, load.swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      SmallVector<Value> boxValues = llvm::map_to_vector(
          boxShape, [&](int64_t extent) { return idx(hb, extent); });
      maps.push_back(nvgpu::TmaCreateDescriptorOp::create(hb, loc, type,
                                                          unranked, boxValues));
    }
    prologueMaps.assign(maps.begin() + loads.size(), maps.end());
    maps.resize(loads.size());
  }

  // Allocations go first: shared ones where both roles see them, register
  // arrays in the entry block, where they can be promoted to registers.
  // Then the mbarriers: full[s] at s, empty[s] at slots + s, and the
  // prologue's at 2 * slots.
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> allocs = hoistAllocs(kernel);
  OpBuilder b(ctx);
  b.setInsertionPointAfter(allocs.back());
  // In a persistent kernel the prologue's buffers are loaded again for
  // every tile: a second barrier, at 2 * slots + 1, tells the producer that
  // the consumers are done with the previous tile's.
  bool prologuePerTile = tiles && !prologue.empty();
  int64_t numBarriers =
      2 * slots + (prologue.empty() ? 0 : 1) + (prologuePerTile ? 1 : 0);
  auto barType =
      MemRefType::get({numBarriers}, b.getI64Type(), AffineMap(), shared);
  Value bars = AllocOp::create(b, loc, barType, Attribute());
  auto barrier = [&](OpBuilder &ob, Value index) {
    return sharedPointer(ob, loc, bars,
                         arith::MulIOp::create(ob, loc, index, idx(ob, 8)));
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<int64_t, 3> cluster = kernel.getClusterExtents();
  int64_t clusterBlocks = multicast ? cluster[0] * cluster[1] * cluster[2] : 1;
  // Per thread, or with multicast per warp and block of the cluster.
  int64_t emptyArrivals =
      multicast ? consumerThreads / 32 * clusterBlocks : consumerThreads;
  {
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(b, 0));
    auto init = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder ib(init.thenBlock()->getTerminator());
    for (int64_t s = 0; s < slots; ++s) {
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, idx(ib, s)), i32(ib, 1),
                                   Value());
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, idx(ib, slots + s)),
                                   i32(ib, emptyArrivals), Value());
    }
    if (!prologue.empty())
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, idx(ib, 2 * slots)),
                                   i32(ib, 1), Value());
    if (prologuePerTile)
      NVVM::MBarrierInitOp::create(ib, loc,
                                   barrier(ib, idx(ib, 2 * slots + 1)),
                                   i32(ib, consumerThreads), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
  }
  auto clusterSync = [&](OpBuilder &ob) {
    NVVM::ClusterArriveOp::create(ob, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(ob, loc, UnitAttr());
  };
  if (multicast)
    clusterSync(b);
  else
    gpu::BarrierOp::create(b, loc);
  Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           tid, idx(b, consumerThreads));
  auto split = scf::IfOp::create(b, loc, isConsumer, /*withElse=*/true);
  split->setAttr(kConsumerAttr, b.getUnitAttr());
  kernel->setAttr(kProducerThreadsAttr, b.getI64IntegerAttr(128));
  Block *consumerBlock = split.thenBlock();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(split->getIterator()), body.end())))
    op.moveBefore(consumerBlock->getTerminator());
  if (multicast) {
    OpBuilder eb = OpBuilder::atBlockEnd(&body);
    clusterSync(eb);
  }

  // Registers move from the producer to the consumers: 40 per producer
  // thread, the rest (at most 240) shared by the consumers. Blocks of at
  // most 256 threads already get 255 registers each.
  bool moveRegisters = consumerThreads + 128 > 256;
  int64_t consumerRegs =
      std::min<int64_t>(240, ((65536 - 40 * 128) / consumerThreads) / 8 * 8);
  if (moveRegisters) {
    OpBuilder cb(consumerBlock, consumerBlock->begin());
    NVVM::SetMaxRegisterOp::create(cb, loc, consumerRegs,
                                   NVVM::SetMaxRegisterAction::increase);
  }
  auto slotAndPhase = [&](OpBuilder &ob, Value i, bool flip) {
    Value slot = arith::RemUIOp::create(ob, loc, i, idx(ob, slots));
    Value round = arith::DivUIOp::create(ob, loc, i, idx(ob, slots));
    Value parity = arith::RemUIOp::create(ob, loc, round, idx(ob, 2));
    Value phase =
        arith::IndexCastUIOp::create(ob, loc, ob.getI32Type(), parity);
    if (flip)
      phase = arith::XOrIOp::create(ob, loc, phase, i32(ob, 1));
    return std::make_pair(slot, phase);
  };
  // The suspend-time hint of the waits, in nanoseconds.
  constexpr int64_t kWaitHint = 10000000;
  // The phase of the prologue's barriers in tile `t` of a tile loop from
  // `first` by `stride`: the parity of the block's tile count so far.
  auto tilePhase = [&](OpBuilder &ob, Value t, Value first, Value stride) {
    Value q = arith::DivUIOp::create(
        ob, loc, arith::SubIOp::create(ob, loc, t, first), stride);
    return arith::IndexCastUIOp::create(
        ob, loc, ob.getI32Type(),
        arith::RemUIOp::create(ob, loc, q, idx(ob, 2)));
  };

  // Consumers: wait for the slot, run the body on it, release it.
  bool proxyFence = accessesThroughGenericProxy(consumers, loads, prologue);
  {
    // The iterations of the earlier tiles, which the tile loop carries.
    Value before;
    if (tiles) {
      IRRewriter rewriter(ctx);
      rewriter.setInsertionPoint(tiles);
      FailureOr<LoopLikeOpInterface> carried =
          tiles.replaceWithAdditionalYields(
              rewriter, ValueRange{idx(rewriter, 0)},
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &yb, Location, ArrayRef<BlockArgument> args) {
                return SmallVector<Value>{
                    arith::AddIOp::create(yb, loc, args.front(), trips)};
              });
      tiles = cast<scf::ForOp>(carried->getOperation());
      before = tiles.getRegionIterArgs().back();
    }
    // The warp's reads of slot `slot` are done: release it.
    auto release = [&](OpBuilder &cb, Value slot) {
      Value empty = arith::AddIOp::create(cb, loc, slot, idx(cb, slots));
      if (proxyFence)
        emitAsyncProxyFence(cb, loc);
      if (!multicast) {
        NVVM::MBarrierArriveOp::create(cb, loc, Type(), barrier(cb, empty),
                                       Value());
        return;
      }
      // The warp's reads of the slot are done once its lanes meet; its
      // first lane then releases the slot in every block of the cluster.
      // The arrivals order nothing but those reads (wgmma's are complete
      // once waited for), so they keep the default CTA scope: a
      // cluster-scope release is a fence that waits for the warp's memory
      // operations, measured to halve the GEMM's speed.
      NVVM::SyncWarpOp::create(cb, loc, i32(cb, -1));
      Value lane = arith::RemUIOp::create(cb, loc, tid, idx(cb, 32));
      Value first = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::eq,
                                          lane, idx(cb, 0));
      auto ifOp = scf::IfOp::create(cb, loc, first, /*withElse=*/false);
      OpBuilder rb(ifOp.thenBlock()->getTerminator());
      Value local = barrier(rb, empty);
      auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
      for (int64_t r = 0; r < clusterBlocks; ++r)
        NVVM::MBarrierArriveOp::create(
            rb, loc, Type(),
            NVVM::MapaOp::create(rb, loc, clusterPtr, local, i32(rb, r)),
            Value());
    };
    auto waitFull = [&](OpBuilder &cb, Value n) {
      auto [slot, phase] = slotAndPhase(cb, n, /*flip=*/false);
      NVVM::MBarrierTryWaitParityOp::create(cb, loc, barrier(cb, slot), phase,
                                            i32(cb, kWaitHint));
      return slot;
    };
    int64_t maxLag = lags.empty() ? 0 : *llvm::max_element(lags);
    OpBuilder cb(loop);
    // The prologue's copies become one wait for what the producer loaded;
    // per tile, in the phase of the block's tile count, and released once
    // the loop's readers are done with it.
    if (!prologue.empty()) {
      Value phase = prologuePerTile
                        ? tilePhase(cb, tiles.getInductionVar(),
                                    tiles.getLowerBound(), tiles.getStep())
                        : i32(cb, 0);
      NVVM::MBarrierTryWaitParityOp::create(cb, loc,
                                            barrier(cb, idx(cb, 2 * slots)),
                                            phase, i32(cb, kWaitHint));
      for (const TmaLoad &load : prologue)
        load.op->erase();
    }
    // Where the consumers release the prologue's buffers to the next
    // tile: after the loop, or, where only readers of no lag read them,
    // before the epilogue steps (the later readers' last iterations), so
    // that the next tile's loads overlap those and the tile's epilogue.
    Operation *prologueDone = loop;
    if (maxLag > 0) {
      SmallVector<scf::ForOp, 3> loops =
          emitLaggedReaders(cb, loc, consumers, lags, trips, slots, before,
                            waitFull, release, emit);
      auto readsPrologue = [&](Operation *op) {
        return llvm::any_of(prologue, [&](const TmaLoad &load) {
          return llvm::any_of(load.copy.dest.getUsers(), [&](Operation *user) {
            return op->isAncestor(user);
          });
        });
      };
      if (llvm::all_of(llvm::zip(consumers, lags), [&](auto pair) {
            return std::get<1>(pair) == 0 || !readsPrologue(std::get<0>(pair));
          }))
        prologueDone = loops.back();
      // Turns across the tiles of a persistent block are not implemented.
      if (pingpong && tiles)
        loop.emitWarning()
            << "the consumer warpgroups do not take turns on the tensor "
               "cores (pingpong) in a persistent kernel whose readers run in "
               "several stages";
      else if (pingpong &&
               (maxLag != 1 || !takeTurnsInLaggedReaders(loops, tid, trips,
                                                         consumerThreads)))
        loop.emitWarning()
            << "the consumer warpgroups do not take turns on the tensor "
               "cores (pingpong): every step must issue adjacent gemms, in "
               "both lagging and leading readers, with 256 consumer threads "
               "and readers lagging by one iteration";
    } else {
      auto forOp = scf::ForOp::create(cb, loc, idx(cb, 0), trips, idx(cb, 1));
      cb.setInsertionPoint(forOp.getBody()->getTerminator());
      Value i = forOp.getInductionVar();
      Value n = before ? arith::AddIOp::create(cb, loc, before, i) : i;
      Value slot = waitFull(cb, n);
      emit(cb, consumers, i, slot);
      release(cb, slot);
      if (pingpong)
        takeTurnsOnTensorCores(forOp, tid, trips, consumerThreads);
    }
    if (prologuePerTile) {
      OpBuilder ab(prologueDone);
      if (proxyFence)
        emitAsyncProxyFence(ab, loc);
      NVVM::MBarrierArriveOp::create(
          ab, loc, Type(), barrier(ab, idx(ab, 2 * slots + 1)), Value());
    }
  }

  // Producer: one thread of the added warpgroup issues every load.
  OpBuilder pb(split.elseBlock()->getTerminator());
  if (moveRegisters)
    NVVM::SetMaxRegisterOp::create(pb, loc, 40,
                                   NVVM::SetMaxRegisterAction::decrease);
  Value issuer = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid,
                                       idx(pb, consumerThreads));
  auto issue = scf::IfOp::create(pb, loc, issuer, /*withElse=*/false);
  // The consumers' cluster-wide collectives (after the loop, each once)
  // wait for every thread of the cluster: the producer warpgroup takes
  // their barriers after its loads.
  {
    OpBuilder cb(split.elseBlock()->getTerminator());
    consumerBlock->walk([&](ClusterReduceOp) {
      for (int64_t i = 0; i < kClusterReduceBarriers; ++i)
        clusterSync(cb);
    });
  }
  pb.setInsertionPoint(issue.thenBlock()->getTerminator());
  // The block's position in its cluster, for the shared loads: its part of
  // a load's rows (`member`) and the blocks of its group (`mask`).
  SmallVector<Value, 3> position;
  if (multicast) {
    Type i32Type = pb.getI32Type();
    position = {
        cluster[0] > 1 ? NVVM::BlockInClusterIdXOp::create(pb, loc, i32Type)
                       : i32(pb, 0),
        cluster[1] > 1 ? NVVM::BlockInClusterIdYOp::create(pb, loc, i32Type)
                       : i32(pb, 0),
        cluster[2] > 1 ? NVVM::BlockInClusterIdZOp::create(pb, loc, i32Type)
                       : i32(pb, 0)};
  }
  auto groupOf = [&](const TmaLoad &load) -> std::pair<Value, Value> {
    // Ranks are x + cx * (y + cy * z). The group holds the blocks whose
    // positions differ only along its dimensions: a fixed pattern of
    // ranks, shifted by the position along the others.
    int64_t pattern = 0;
    for (int64_t rank = 0; rank < cluster[0] * cluster[1] * cluster[2];
         ++rank) {
      int64_t rest = rank;
      bool inGroup = true;
      for (int64_t d = 0; d < 3; ++d) {
        inGroup &= (load.groupDims & (1u << d)) || rest % cluster[d] == 0;
        rest /= cluster[d];
      }
      if (inGroup)
        pattern |= int64_t(1) << rank;
    }
    Value shift = i32(pb, 0), member = i32(pb, 0);
    int64_t stride = 1, memberStride = 1;
    for (int64_t d = 0; d < 3; ++d) {
      if (load.groupDims & (1u << d)) {
        member = arith::AddIOp::create(
            pb, loc, member,
            arith::MulIOp::create(pb, loc, position[d], i32(pb, memberStride)));
        memberStride *= cluster[d];
      } else if (cluster[d] > 1) {
        shift = arith::AddIOp::create(
            pb, loc, shift,
            arith::MulIOp::create(pb, loc, position[d], i32(pb, stride)));
      }
      stride *= cluster[d];
    }
    Value mask = arith::TruncIOp::create(
        pb, loc, pb.getI16Type(),
        arith::ShLIOp::create(pb, loc, i32(pb, pattern), shift));
    return {arith::IndexCastUIOp::create(pb, loc, pb.getIndexType(), member),
            mask};
  };
  SmallVector<std::pair<Value, Value>> groups;
  for (const TmaLoad &load : loads)
    groups.push_back(load.group > 1 ? groupOf(load)
                                    : std::pair<Value, Value>());
  // Issues `load` at the indices `map` gives, into `buffer` from element
  // `base` on, completing on barrier `bar`; a shared load's part of the
  // rows (`member`) goes to every block of its group (`mask`).
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto issueLoad = [&](const TmaLoad &load, Value tensorMap, IRMapping &map,
                       Value buffer, Value base, Value bar, Value member,
                       Value mask) {
    // Coordinates innermost first: column, row, then the outer dimensions.
    SmallVector<Value> outerCoords;
    ValueRange indices = load.copy.sourceIndices;
    for (Value index : llvm::reverse(indices.drop_back(2)))
      outerCoords.push_back(arith::IndexCastOp::create(
          pb, loc, pb.getI32Type(), clonePure(&pb, kernel, index, map)));
    Value row0 = clonePure(&pb, kernel, indices[indices.size() - 2], map);
    Value partOffset;
    if (member) {
      row0 = arith::AddIOp::create(
          pb, loc, row0,
          arith::MulIOp::create(pb, loc, member,
                                idx(pb, load.rows / load.group)));
      partOffset =
          arith::MulIOp::create(pb, loc, member, idx(pb, load.partStride));
    }
    Value col0 = clonePure(&pb, kernel, indices.back(), map);
    Value desc = UnrealizedConversionCastOp::create(pb, loc, ptrType,
                                                    ValueRange{tensorMap})
                     .getResult(0);
    for (int64_t blk = 0; blk < load.blocks; ++blk) {
      Value col =
          arith::AddIOp::create(pb, loc, col0, idx(pb, blk * load.boxCols));
      SmallVector<Value> coords = {
          arith::IndexCastOp::create(pb, loc, pb.getI32Type(), col),
          arith::IndexCastOp::create(pb, loc, pb.getI32Type(), row0)};
      llvm::append_range(coords, outerCoords);
      // Without a buffer, the boxes are only fetched into L2.
      if (!buffer) {
        NVVM::CpAsyncBulkTensorPrefetchOp::create(pb, loc, desc, coords,
                                                  ValueRange(),
                                                  NVVM::TMALoadMode::TILE,
                                                  /*l2CacheHint=*/Value());
        continue;
      }
      int64_t offset = load.layout.apply({0, blk * load.boxCols})[0];
      Value elems = arith::AddIOp::create(pb, loc, base, idx(pb, offset));
      if (partOffset)
        elems = arith::AddIOp::create(pb, loc, elems, partOffset);
      Value dst = sharedPointer(
          pb, loc, buffer,
          arith::MulIOp::create(pb, loc, elems, idx(pb, load.elementBytes)));
      // The block's own shared memory, addressed in the cluster window.
      dst = LLVM::AddrSpaceCastOp::create(
          pb, loc, LLVM::LLVMPointerType::get(ctx, 7), dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          pb, loc, dst, desc, coords, bar, ValueRange(), mask, Value(),
          NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          NVVM::CTAGroupKindAttr(), Value());
    }
  };
  IRMapping outer;
  // The prologue's loads first, on their own barrier: once, or at the
  // start of every tile once the consumers are done with the last one's.
  auto issuePrologue = [&]() {
    int64_t bytes = 0;
    for (const TmaLoad &load : prologue)
      bytes += load.rows * load.cols * load.elementBytes;
    Value bar = barrier(pb, idx(pb, 2 * slots));
    NVVM::MBarrierArriveExpectTxOp::create(pb, loc, Type(), bar, i32(pb, bytes),
                                           NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false, Value());
    for (auto [load, tensorMap] : llvm::zip(prologue, prologueMaps)) {
      IRMapping map = outer;
      issueLoad(load, tensorMap, map, load.copy.dest, idx(pb, 0), bar, Value(),
                Value());
    }
  };
  if (!prologue.empty() && !prologuePerTile)
    issuePrologue();
  // The producer's own tile loop, carrying the iterations of the earlier
  // tiles as the consumers' does.
  scf::ForOp producerTiles;
  Value before;
  if (tiles) {
    Value first = clonePure(&pb, kernel, tiles.getLowerBound(), outer);
    Value last = clonePure(&pb, kernel, tiles.getUpperBound(), outer);
    Value stride = clonePure(&pb, kernel, tiles.getStep(), outer);
    producerTiles = scf::ForOp::create(pb, loc, first, last, stride,
                                       ValueRange{idx(pb, 0)});
    outer.map(tiles.getInductionVar(), producerTiles.getInductionVar());
    before = producerTiles.getRegionIterArgs().front();
    pb.setInsertionPointToStart(producerTiles.getBody());
    if (prologuePerTile) {
      // The block's next tile's prologue boxes go to L2 now, a tile ahead
      // of their load, which then waits for L2 rather than memory.
      Value t = producerTiles.getInductionVar();
      Value next = arith::AddIOp::create(pb, loc, t, stride);
      auto ahead = scf::IfOp::create(
          pb, loc,
          arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::ult, next, last),
          /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(pb);
        pb.setInsertionPoint(ahead.thenBlock()->getTerminator());
        for (auto [load, tensorMap] : llvm::zip(prologue, prologueMaps)) {
          // A fresh map: nothing computed for this tile may be reused.
          IRMapping map;
          map.map(tiles.getInductionVar(), next);
          issueLoad(load, tensorMap, map, Value(), Value(), Value(), Value(),
                    Value());
        }
      }
    }
  }
  // Per tile, the prologue's loads wait for the consumers' release of the
  // previous tile's, which completes the phase before this tile's (the
  // first tile passes at once). They follow the tile's first loads, which
  // need only a slot, so that those are in flight while the consumers
  // finish the previous tile.
  auto loadTilePrologue = [&]() {
    Value phase = arith::XOrIOp::create(
        pb, loc,
        tilePhase(pb, producerTiles.getInductionVar(),
                  producerTiles.getLowerBound(), producerTiles.getStep()),
        i32(pb, 1));
    NVVM::MBarrierTryWaitParityOp::create(
        pb, loc, barrier(pb, idx(pb, 2 * slots + 1)), phase,
        i32(pb, kWaitHint));
    issuePrologue();
  };
  Value lb = clonePure(&pb, kernel, loop.getLowerBound(), outer);
  Value ub = clonePure(&pb, kernel, loop.getUpperBound(), outer);
  Value step = clonePure(&pb, kernel, loop.getStep(), outer);
  Value span = arith::SubIOp::create(pb, loc, ub, lb);
  Value count = arith::SelectOp::create(
      pb, loc,
      arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::sgt, span,
                            idx(pb, 0)),
      arith::CeilDivSIOp::create(pb, loc, span, step), idx(pb, 0));
  if (prologuePerTile) {
    // A tile without iterations still loads its prologue for the consumers.
    auto none = scf::IfOp::create(
        pb, loc,
        arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, count,
                              idx(pb, 0)),
        /*withElse=*/false);
    OpBuilder::InsertionGuard guard(pb);
    pb.setInsertionPoint(none.thenBlock()->getTerminator());
    loadTilePrologue();
  }
  auto forOp = scf::ForOp::create(pb, loc, idx(pb, 0), count, idx(pb, 1));
  if (producerTiles) {
    OpBuilder yb = OpBuilder::atBlockEnd(producerTiles.getBody());
    scf::YieldOp::create(
        yb, loc, ValueRange{arith::AddIOp::create(yb, loc, before, count)});
  }
  pb.setInsertionPoint(forOp.getBody()->getTerminator());
  Value i = forOp.getInductionVar();
  Value n = before ? arith::AddIOp::create(pb, loc, before, i) : i;
  auto [slot, phase] = slotAndPhase(pb, n, /*flip=*/true);
  NVVM::MBarrierTryWaitParityOp::create(
      pb, loc,
      barrier(pb, arith::AddIOp::create(pb, loc, slot, idx(pb, slots))), phase,
      i32(pb, kWaitHint));
  int64_t bytes = 0;
  for (const TmaLoad &load : loads)
    bytes += load.rows * load.cols * load.elementBytes;
  Value full = barrier(pb, slot);
  NVVM::MBarrierArriveExpectTxOp::create(pb, loc, Type(), full, i32(pb, bytes),
                                         NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, Value());
  IRMapping map = outer;
  map.map(loop.getInductionVar(),
          arith::AddIOp::create(pb, loc, lb,
                                arith::MulIOp::create(pb, loc, i, step)));
  for (auto [load, tensorMap, group] : llvm::zip(loads, maps, groups)) {
    auto [member, mask] = group;
    Value slotBase =
        arith::MulIOp::create(pb, loc, slot, idx(pb, load.rows * load.cols));
    issueLoad(load, tensorMap, map, slotted.lookup(load.copy.dest), slotBase,
              full, member, mask);
  }
  if (prologuePerTile) {
    auto firstStep = scf::IfOp::create(
        pb, loc,
        arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, i,
                              idx(pb, 0)),
        /*withElse=*/false);
    pb.setInsertionPoint(firstStep.thenBlock()->getTerminator());
    loadTilePrologue();
  }
}

/// The buffer that `value` is a view of (itself if it is no view).
static Value viewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The buffers that `op` or an operation nested in it reads, and those it
/// writes (or updates).
static void collectBuffers(Operation *op, llvm::DenseSet<Value> &reads,
                           llvm::DenseSet<Value> &writes) {
  op->walk([&](Operation *nested) {
    SmallVector<TileAccess> accesses;
    getAccesses(nested, accesses);
    for (const TileAccess &access : accesses)
      (access.kind == AccessKind::Read ? reads : writes)
          .insert(viewRoot(access.buffer));
  });
}

/// Checks that a schedule keeps every two readers of `loop` (its
/// `scheduled` operations that are not producers) that touch a common
/// buffer, one of them writing, in program order. Reader i runs `lag[i]`
/// iterations behind the first readers, at `position[i]` of the issue
/// order: its instance of iteration k runs in step k + lag[i]. Of two
/// readers a before b in the body, a's iteration k comes before b's
/// iteration k' exactly when k' - k >= 0 in program order, and when
/// k' - k >= lag[a] - lag[b] (+1 when a is issued after b) in the
/// schedule: the two agree for every k, k' only when those thresholds are
/// equal.
static LogicalResult checkScheduleKeepsOrder(PipelinedOp loop,
                                             ArrayRef<Operation *> scheduled,
                                             ArrayRef<bool> isProd,
                                             ArrayRef<int64_t> lag,
                                             ArrayRef<int64_t> position) {
  int64_t n = scheduled.size();
  SmallVector<llvm::DenseSet<Value>> reads(n), writes(n);
  for (int64_t i = 0; i < n; ++i)
    if (!isProd[i])
      collectBuffers(scheduled[i], reads[i], writes[i]);
  auto conflict = [&](int64_t a, int64_t b) {
    auto touches = [&](const llvm::DenseSet<Value> &written, int64_t other) {
      return llvm::any_of(written, [&](Value buffer) {
        return reads[other].contains(buffer) || writes[other].contains(buffer);
      });
    };
    return touches(writes[a], b) || touches(writes[b], a);
  };
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = a + 1; b < n; ++b) {
      if (isProd[a] || isProd[b])
        continue;
      int64_t threshold = lag[a] - lag[b] + (position[a] < position[b] ? 0 : 1);
      if (threshold == 0 || !conflict(a, b))
        continue;
      InFlightDiagnostic diag =
          loop.emitOpError()
          << "unsupported schedule: scheduled operations " << a << " and " << b
          << " touch a common buffer, one writing, and the schedule "
             "reorders them";
      diag.attachNote(scheduled[a]->getLoc()) << "operation " << a;
      diag.attachNote(scheduled[b]->getLoc()) << "operation " << b;
      return diag;
    }
  return success();
}

/// One function: the schedule, the multi-buffered allocations, the
/// prologue and the steady state share the producers, the slot views and
/// the trip count.
LogicalResult mlir::tile::pipelineLoop(PipelinedOp loop,
                                       const LoweringOptions &options) {
  SmallVector<Operation *> scheduled = loop.getScheduledOps();
  SmallVector<bool> isProd;
  // The producers and what they copy, in schedule order.
  SmallVector<Operation *> producers;
  SmallVector<AsyncCopy, 4> copies;
  for (Operation *op : scheduled) {
    auto tileOp = dyn_cast<TileOpInterface>(op);
    std::optional<AsyncCopy> copy =
        tileOp ? tileOp.getAsyncCopy() : std::nullopt;
    bool prod = copy && isProducer(loop, op, *copy);
    std::string why = prod ? dependsOnBody(loop, op) : "";
    if (!why.empty()) {
      loop.emitWarning() << "not pipelined: the copy into shared memory "
                            "cannot be issued early: "
                         << why;
      convertToFor(loop);
      return success();
    }
    isProd.push_back(prod);
    if (prod) {
      producers.push_back(op);
      copies.push_back(*copy);
    }
  }
  if (producers.empty()) {
    convertToFor(loop);
    return success();
  }

  // Distance between the producers and their first consumers, in
  // iterations, and how many iterations each consumer runs behind those
  // (its lag: its stage minus the first consumers' stage).
  int64_t distance = loop.getStages() - 1;
  SmallVector<int64_t> lagOf(scheduled.size(), 0);
  int64_t maxLag = 0;
  if (std::optional<ArrayRef<int64_t>> stage = loop.getStage()) {
    std::optional<int64_t> prodStage, consStage;
    for (auto [i, s] : llvm::enumerate(*stage)) {
      if (!isProd[i]) {
        consStage = std::min(consStage.value_or(s), s);
        continue;
      }
      if (prodStage && *prodStage != s)
        return loop.emitOpError()
               << "unsupported schedule: expected every global-to-shared "
                  "copy in one stage, got stages "
               << *prodStage << " and " << s;
      prodStage = s; // the verifier keeps s in [0, stages)
    }
    distance = consStage.value_or(0) - prodStage.value_or(0);
    if (distance < 0)
      return loop.emitOpError()
             << "unsupported schedule: the copies into shared memory (stage "
             << *prodStage << ") must not come after their first readers "
             << "(stage " << *consStage << ")";
    for (auto [i, s] : llvm::enumerate(*stage))
      if (!isProd[i])
        maxLag = std::max(maxLag, lagOf[i] = s - *consStage);
  }
  int64_t slots = distance + 1 + maxLag;

  // Issue order inside an iteration.
  SmallVector<Operation *> issue(scheduled);
  SmallVector<int64_t> position =
      llvm::to_vector(llvm::seq<int64_t>(0, scheduled.size()));
  if (std::optional<ArrayRef<int64_t>> order = loop.getOrder()) {
    for (auto [i, p] : llvm::enumerate(*order))
      issue[p] = scheduled[i];
    position.assign(order->begin(), order->end());
  }
  if (failed(checkScheduleKeepsOrder(loop, scheduled, isProd, lagOf, position)))
    return failure();
  auto lagOfOp = [&](Operation *op) {
    return lagOf[llvm::find(scheduled, op) - scheduled.begin()];
  };
  if (maxLag > 0) {
    if (distance == 0)
      return loop.emitOpError()
             << "unsupported schedule: operations in later stages than the "
                "first readers need the copies at least one stage ahead of "
                "those readers";
    for (Operation *op : scheduled) {
      // Operations nested in a scheduled one count as its own.
      WalkResult uses = op->walk([&](Operation *user) {
        for (Value operand : user->getOperands())
          if (Operation *def = operand.getDefiningOp();
              def && def != op && llvm::is_contained(scheduled, def))
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (uses.wasInterrupted()) {
        InFlightDiagnostic diag =
            loop.emitOpError()
            << "unsupported schedule: a scheduled operation uses the result "
               "of another; with readers in several stages, the operations "
               "of a pipelined loop pass data through buffers only";
        diag.attachNote(op->getLoc()) << "the operation using it";
        return diag;
      }
    }
  }
  // In one stage, the readers must wait for the copies.
  if (distance == 0)
    std::stable_partition(issue.begin(), issue.end(), [&](Operation *op) {
      return llvm::is_contained(producers, op);
    });

  // On sm_90a, TMA loads issued by a producer warpgroup (warp
  // specialization), when every producer can be one and the producer can
  // compute its indices alone.
  auto kernel = loop->getParentOfType<KernelOp>();
  // In a persistent kernel, the loop may sit in the tile loop.
  scf::ForOp tiles = getEnclosingTileLoop(loop);
  Operation *outside = tiles ? tiles.getOperation() : loop.getOperation();
  SmallVector<TmaLoad, 4> tmaLoads;
  // The producer warpgroup joins the kernel's threads: the block must stay
  // within 1024 threads.
  // A cluster-wide collective needs every thread of the cluster: the
  // producer warpgroup takes its barriers once its loads are issued, which
  // it can count only where each collective runs once, directly in the
  // kernel's body after the loop.
  bool collectivesOnce = true;
  kernel.walk([&](ClusterReduceOp op) {
    collectivesOnce &= op->getBlock() == loop->getBlock() && !tiles &&
                       op->getParentOp() == kernel && loop->isBeforeInBlock(op);
  });
  bool specialize = warpSpecializes(options.target) && options.warpSpecialize &&
                    distance > 0 && outside->getParentOp() == kernel &&
                    kernel.getThreads() % 128 == 0 &&
                    kernel.getThreads() + 128 <= 1024 && collectivesOnce;
  for (auto [op, copy] : llvm::zip(producers, copies)) {
    std::optional<TmaLoad> load =
        specialize ? planTmaLoad(kernel, op, copy) : std::nullopt;
    specialize = specialize && load;
    if (load)
      tmaLoads.push_back(*load);
  }
  specialize =
      specialize && producerIsSelfContained(kernel, loop, tiles, tmaLoads);

  // Multi-buffered allocations.
  Location loc = loop.getLoc();
  // Old alloc -> [slots, ...] alloc, in creation order (the order the slot
  // views are emitted in).
  llvm::MapVector<Value, Value> slotted;
  for (const AsyncCopy &copy : copies) {
    auto alloc = copy.dest.getDefiningOp<AllocOp>();
    if (slots == 1 || slotted.count(alloc.getResult()))
      continue;
    MemRefType type = alloc.getType();
    auto attr = dyn_cast_or_null<LayoutAttr>(alloc.getLayoutAttr());
    std::optional<Layout> layout =
        attr ? attr.getLayoutFor(type.getShape())
             : Layout::rowMajor(loop.getContext(), type.getShape());
    std::optional<Layout> multi =
        layout ? multiBufferLayout(*layout, slots) : std::nullopt;
    if (!multi)
      return alloc.emitOpError()
             << "cannot be multi-buffered for the pipelined loop: its layout "
                "does not repeat per slot (use an affine layout, or "
                "stages(1))";
    SmallVector<int64_t> shape = {slots};
    llvm::append_range(shape, type.getShape());
    auto bigType = MemRefType::get(shape, type.getElementType(), AffineMap(),
                                   type.getMemorySpace());
    OpBuilder ab(alloc);
    auto big = AllocOp::create(ab, alloc.getLoc(), bigType,
                               LayoutAttr::get(loop.getContext(), *multi));
    slotted[alloc.getResult()] = big.getResult();
  }

  // In a persistent kernel without warp specialization, the pipeline runs
  // on across the block's tiles where it can: the copies of the next tile's
  // first steps are issued during this tile's last steps and its epilogue,
  // as the warp-specialized producer does.
  // Readers in later stages keep the pipeline in its tile: the steps that
  // run them behind the others end with the tile.
  llvm::DenseSet<Operation *> tileValues;
  bool across = !specialize && distance > 0 && maxLag == 0 &&
                runsAcrossTiles(tiles, loop, producers, tileValues);
  OpBuilder b(across ? tiles.getOperation() : loop.getOperation());
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  // Trip count: ceildiv(ub - lb, step), 0 when ub <= lb.
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value trips = arith::CeilDivSIOp::create(b, loc, span, step);
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span, c(0));
  trips = arith::SelectOp::create(b, loc, positive, trips, c(0));

  Block &body = loop.getBody().front();
  // Without cp.async (AMD) the copies ahead are synchronous loads and
  // stores into their own slot: the barrier that publishes a slot is all
  // they need (the compiler waits for each load before its store).
  bool cpAsync = options.target.has(TargetFeature::cp_async);
  auto commit = [&] {
    if (cpAsync)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };
  auto wait = [&](int64_t pending) {
    if (cpAsync)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  };
  // Makes the landed copies visible to the block. On sm_90a the readers
  // may be wgmma, which reads shared memory through the async proxy: each
  // thread orders its own copies for it before the barrier.
  bool asyncReaders =
      options.target.has(TargetFeature::tma) &&
      llvm::any_of(body, [](Operation &op) {
        SmallVector<TileAccess> accesses;
        getAccesses(&op, accesses);
        return llvm::any_of(accesses, [](const TileAccess &access) {
          return access.asyncProxy;
        });
      });
  auto publish = [&] { emitSharedBarrier(b, loc, asyncReaders); };
  // Clones `ops` for iteration `iter` (an index from 0) using slot `slot`
  // of the multi-buffered allocations, with the body's pure operations
  // first, starting from the values of `base` where given.
  auto emit = [&](ArrayRef<Operation *> ops, Value iter, Value slot,
                  const IRMapping *base = nullptr) {
    IRMapping map = base ? *base : IRMapping();
    Value iv = arith::AddIOp::create(b, loc, lb,
                                     arith::MulIOp::create(b, loc, iter, step));
    map.map(loop.getInductionVar(), iv);
    for (auto [old, big] : slotted) {
      auto bigType = cast<MemRefType>(big.getType());
      auto oldType = cast<MemRefType>(old.getType());
      SmallVector<OpFoldResult> offsets(bigType.getRank(), b.getIndexAttr(0)),
          sizes, strides(bigType.getRank(), b.getIndexAttr(1));
      offsets[0] = slot;
      sizes.push_back(b.getIndexAttr(1));
      for (int64_t e : oldType.getShape())
        sizes.push_back(b.getIndexAttr(e));
      auto viewType = memref::SubViewOp::inferRankReducedResultType(
          oldType.getShape(), bigType, offsets, sizes, strides);
      map.map(old, memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType),
                                             big, offsets, sizes, strides)
                       .getResult());
    }
    for (Operation &op : body)
      if (isPure(&op) && (!base || tileValues.contains(&op)))
        cloneThroughSlots(b, op, map);
    for (Operation *op : ops) {
      Operation *clone = b.clone(*op, map);
      if (llvm::is_contained(producers, op))
        clone->setAttr(kAsyncCopyAttr, b.getUnitAttr());
    }
  };
  auto slotOf = [&](Value iter) -> Value {
    return slots == 1 ? c(0) : arith::RemUIOp::create(b, loc, iter, c(slots));
  };
  // Producers of iteration `iter`, if it exists.
  auto emitProducers = [&](ArrayRef<Operation *> ops, Value iter) {
    Value exists =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iter, trips);
    auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    emit(ops, iter, slotOf(iter));
  };
  // Across tiles, the block numbers its iterations from its first tile
  // (iteration i of its q-th tile is q * trips + i) and the copies ahead
  // are those of step `step` of tile `tile`, into the slot of iteration
  // `iter`, when that tile exists. They read that tile's values
  // (`tileValues`), computed again from its index unless it is `current`,
  // the tile being run, whose values are at hand: the index arithmetic
  // (divisions by the grid's extents) then runs only near a tile's end.
  SmallVector<Value> tileResults;
  if (across)
    for (Operation &op : tiles.getBody()->without_terminator())
      if (tileValues.contains(&op))
        llvm::append_range(tileResults, op.getResults());
  auto emitProducersOfTile = [&](ArrayRef<Operation *> ops, Value tile,
                                 Value step, Value iter, Value current) {
    Value exists = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, trips, c(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile,
                              tiles.getUpperBound()));
    auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    auto cloneTileValues = [&](IRMapping &map) {
      map.map(tiles.getInductionVar(), tile);
      for (Operation &op : tiles.getBody()->without_terminator())
        if (tileValues.contains(&op))
          b.clone(op, map);
    };
    IRMapping map;
    if (!current || tileResults.empty()) {
      cloneTileValues(map);
    } else {
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tile,
                                         current);
      auto pick = scf::IfOp::create(b, loc, ValueRange(tileResults).getTypes(),
                                    same, /*withElse=*/true);
      b.setInsertionPointToStart(pick.thenBlock());
      scf::YieldOp::create(b, loc, tileResults);
      b.setInsertionPointToStart(pick.elseBlock());
      IRMapping other;
      cloneTileValues(other);
      scf::YieldOp::create(b, loc,
                           llvm::map_to_vector(tileResults, [&](Value v) {
                             return other.lookup(v);
                           }));
      b.setInsertionPointAfter(pick);
      map.map(tiles.getInductionVar(), tile);
      for (auto [old, picked] : llvm::zip(tileResults, pick.getResults()))
        map.map(old, picked);
    }
    emit(ops, step, slotOf(iter), &map);
  };
  // The tile and step of the block's iteration `n` across tiles: step
  // n mod trips of its tile n / trips (trips taken as 1 where it is 0, when
  // no copy exists).
  auto tileAndStep = [&](Value n) -> std::pair<Value, Value> {
    Value perTile = arith::MaxUIOp::create(b, loc, trips, c(1));
    Value q = arith::DivUIOp::create(b, loc, n, perTile);
    Value tile = arith::AddIOp::create(
        b, loc, tiles.getLowerBound(),
        arith::MulIOp::create(b, loc, q, tiles.getStep()));
    return {tile, arith::RemUIOp::create(b, loc, n, perTile)};
  };

  if (specialize) {
    SmallVector<Operation *> consumers;
    SmallVector<int64_t> lags;
    for (Operation *op : issue)
      if (!llvm::is_contained(producers, op)) {
        consumers.push_back(op);
        lags.push_back(lagOfOp(op));
      }
    auto emitAt = [&](OpBuilder &at, ArrayRef<Operation *> ops, Value iter,
                      Value slot) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(at.getInsertionBlock(), at.getInsertionPoint());
      emit(ops, iter, slot);
    };
    // Not in a persistent kernel, whose blocks walk tiles on their own.
    bool multicast = !tiles && planMulticast(kernel, loop, tmaLoads);
    // Not in a cluster, where each block would need its own prologue load.
    SmallVector<TmaLoad, 1> prologue;
    if (!multicast)
      prologue = planPrologueLoads(kernel, loop, tiles);
    warpSpecialize(kernel, loop, tiles, tmaLoads, prologue, consumers, lags,
                   slots, slotted, trips, options.pingpong, multicast, emitAt);
    loop.erase();
    for (auto [old, big] : slotted)
      old.getDefiningOp()->erase();
    return success();
  }

  // The prologue as a loop (one copy of the producers, not `distance`),
  // committing a group on every iteration so that the main loop's wait
  // counts hold even when there are fewer steps than stages.
  if (distance > 0) {
    auto prologue = scf::ForOp::create(b, loc, c(0), c(distance), c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(prologue.getBody()->getTerminator());
    SmallVector<Operation *> all(producers.begin(), producers.end());
    Value s = prologue.getInductionVar();
    if (across) {
      auto [tile, step] = tileAndStep(s);
      emitProducersOfTile(all, tile, step, s, Value());
    } else {
      emitProducers(all, s);
    }
    commit();
  }
  // Across tiles, the prologue runs once before the tile loop. The main
  // loop of the q-th tile of the block numbers its iterations from
  // q * trips and carries the tile and step of the copies ahead, which
  // move to the next tile of the block after its last step.
  Value before;
  SmallVector<Value> cursor;
  if (across) {
    b.setInsertionPoint(loop);
    Value q = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, tiles.getInductionVar(),
                              tiles.getLowerBound()),
        tiles.getStep());
    before = arith::MulIOp::create(b, loc, q, trips);
    auto [tile, step] =
        tileAndStep(arith::AddIOp::create(b, loc, before, c(distance)));
    cursor = {tile, step};
  }
  // With readers in later stages, L more steps run the last iterations'
  // lagging readers.
  Value steps =
      maxLag ? arith::AddIOp::create(b, loc, trips, c(maxLag)).getResult()
             : trips;
  auto forOp = scf::ForOp::create(b, loc, c(0), steps, c(1), cursor);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(forOp.getBody());
    if (!across)
      b.setInsertionPoint(forOp.getBody()->getTerminator());
    Value i = forOp.getInductionVar();
    // The iteration's number for the slots and the wait counts.
    Value n = across ? arith::AddIOp::create(b, loc, before, i).getResult() : i;
    if (distance > 0) {
      wait(distance - 1);
      publish();
    }
    Value ahead =
        distance > 0 ? arith::AddIOp::create(b, loc, n, c(distance)).getResult()
                     : i;
    // Walk the issue order: runs of producers go together under one guard,
    // each run of consumers as it comes.
    SmallVector<Operation *> run;
    bool runIsProducers = false;
    int64_t runLag = 0;
    Operation *lastProducer = nullptr;
    for (Operation *op : issue)
      if (llvm::is_contained(producers, op))
        lastProducer = op;
    auto flush = [&] {
      if (run.empty())
        return;
      if (runIsProducers) {
        if (across)
          emitProducersOfTile(run, forOp.getRegionIterArgs()[0],
                              forOp.getRegionIterArgs()[1], ahead,
                              tiles.getInductionVar());
        else if (distance > 0)
          emitProducers(run, ahead);
        else
          emit(run, i, c(0));
      } else if (maxLag == 0) {
        emit(run, i, slotOf(n));
      } else {
        // Step i runs these readers on iteration i - lag, if it exists.
        Value exists = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, i,
                                  c(runLag)),
            arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, i,
                arith::AddIOp::create(b, loc, trips, c(runLag))));
        auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        Value iter =
            runLag ? arith::SubIOp::create(b, loc, i, c(runLag)).getResult()
                   : i;
        emit(run, iter, slotOf(iter));
      }
      if (runIsProducers && run.back() == lastProducer) {
        commit();
        if (distance == 0) {
          wait(0);
          publish();
        }
      }
      run.clear();
    };
    for (Operation *op : issue) {
      bool prod = llvm::is_contained(producers, op);
      int64_t lag = lagOfOp(op);
      if (!run.empty() && (prod != runIsProducers || lag != runLag))
        flush();
      runIsProducers = prod;
      runLag = lag;
      run.push_back(op);
    }
    flush();
    if (distance == 0)
      gpu::BarrierOp::create(b, loc);
    if (across) {
      Value tile = forOp.getRegionIterArgs()[0];
      Value next =
          arith::AddIOp::create(b, loc, forOp.getRegionIterArgs()[1], c(1));
      Value wrap =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next, trips);
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::SelectOp::create(
                         b, loc, wrap,
                         arith::AddIOp::create(b, loc, tile, tiles.getStep()),
                         tile),
                     arith::SelectOp::create(b, loc, wrap, c(0), next)});
    }
  }
  if (across)
    b.setInsertionPointAfter(tiles);
  wait(0);

  loop.erase();
  for (auto [old, big] : slotted)
    old.getDefiningOp()->erase();
  return success();
}

LogicalResult mlir::tile::pipelineLoops(KernelOp kernel,
                                        const LoweringOptions &given) {
  FailureOr<LoweringOptions> options = withLoweringTarget(kernel, given);
  if (failed(options))
    return failure();
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  for (PipelinedOp loop : loops)
    if (failed(pipelineLoop(loop, *options)))
      return failure();
  return success();
}

/// True if `op` is, or holds, a barrier of the whole block or of all the
/// consumers (the named barriers of the turns themselves excepted).
static bool holdsBlockBarrier(Operation *op) {
  WalkResult found = op->walk([](Operation *inner) {
    if (isa<gpu::BarrierOp>(inner) ||
        (isa<NVVM::BarrierOp>(inner) && !inner->hasAttr(kTurnAttr)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

void mlir::tile::finishTensorCoreTurns(KernelOp kernel) {
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kTurnAttr))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    // The turn is held from the last wait of the body to the body's end and
    // from its start to the arrival after the first gemm.
    Block *body = loop.getBody();
    Operation *arrive = nullptr, *wait = nullptr;
    for (Operation &op : body->without_terminator()) {
      if (!op.hasAttr(kTurnAttr))
        continue;
      if (isa<NVVM::BarrierArriveOp>(op) && !arrive)
        arrive = &op;
      if (isa<NVVM::BarrierOp>(op))
        wait = &op;
    }
    bool safe = arrive && wait;
    for (Operation &op : body->without_terminator()) {
      if (!safe || &op == arrive)
        break;
      safe = !holdsBlockBarrier(&op);
    }
    for (Operation *op = wait; safe && op && op != body->getTerminator();
         op = op->getNextNode())
      safe = !holdsBlockBarrier(op);
    // The loop's own marks, and the turn given before and after it.
    SmallVector<Operation *> marked;
    for (Operation &op : *body)
      if (op.hasAttr(kTurnAttr))
        marked.push_back(&op);
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
      if (op->hasAttr(kTurnAttr)) {
        marked.push_back(op);
        break;
      }
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
      if (op->hasAttr(kTurnAttr)) {
        marked.push_back(op);
        break;
      }
    loop->removeAttr(kTurnAttr);
    for (Operation *op : marked) {
      op->removeAttr(kTurnAttr);
      if (safe)
        continue;
      // An scf.if of a turn keeps its condition, now unused, for
      // canonicalization to remove.
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        SmallVector<Operation *> inner =
            llvm::map_to_vector(ifOp.thenBlock()->without_terminator(),
                                [](Operation &o) { return &o; });
        for (Operation *o : llvm::reverse(inner))
          o->erase();
      } else {
        op->erase();
      }
    }
    if (!safe)
      continue;
    for (Operation &op : *body)
      op.walk([](Operation *inner) { inner->removeAttr(kTurnAttr); });
    // The other warpgroup's turn starts once the first gemm is issued, not
    // done: its gemms queue behind this one's on the tensor cores.
    for (Operation *op = arrive->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
        arrive->moveAfter(op);
        break;
      }
      if (isa<scf::IfOp, NVVM::BarrierOp>(op))
        break;
    }
  }
}
