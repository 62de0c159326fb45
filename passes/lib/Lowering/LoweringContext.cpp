//===- LoweringContext.cpp - what the operator lowerings share ------------===//
//
// The per-kernel state of tile-lower and the pieces every operator lowering
// uses. Every operator is driven by a fragment over its iteration space (the
// loop layout): the lowering inverts it once, at compile time, into a map
// from (thread, register) to coordinates, materialized as arith operations on
// the thread id with the register a constant, so that every per-thread loop
// is emitted fully unrolled and fragments live in constant-indexed private
// arrays that LLVM promotes to registers.
//
//===----------------------------------------------------------------------===//

#include "Lowering/LoweringContext.h"
#include "Ops/OpModels.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

static constexpr StringLiteral kLoopAttr = "tile.loop";
static constexpr StringLiteral kMissingLoop =
    "expected a 'tile.loop' layout; run tile-infer-layout first";

//===----------------------------------------------------------------------===//
// Materializing layouts
//===----------------------------------------------------------------------===//

Value lowering::cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The position of element `e` of a vector of `shape`, row-major.
static SmallVector<int64_t> vectorPosition(ArrayRef<int64_t> shape, int64_t e) {
  SmallVector<int64_t> position(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    position[d] = e % shape[d];
    e /= shape[d];
  }
  return position;
}

SmallVector<Value> lowering::loadAccumulators(OpBuilder &b, Location loc,
                                              Value regs,
                                              ArrayRef<int64_t> regOf,
                                              VectorType accType, bool clear) {
  int64_t perAtom = accType.getNumElements();
  SmallVector<Value> acc;
  for (int64_t i = 0, atoms = regOf.size() / perAtom; i < atoms; ++i) {
    if (clear) {
      acc.push_back(arith::ConstantOp::create(
          b, loc, accType,
          DenseElementsAttr::get(accType,
                                 b.getZeroAttr(accType.getElementType()))));
      continue;
    }
    SmallVector<Value> elems;
    for (int64_t e = 0; e < perAtom; ++e)
      elems.push_back(memref::LoadOp::create(
          b, loc, regs, ValueRange{cst(b, loc, regOf[i * perAtom + e])}));
    acc.push_back(vector::FromElementsOp::create(b, loc, accType, elems));
  }
  return acc;
}

void lowering::storeAccumulators(OpBuilder &b, Location loc,
                                 ArrayRef<Value> acc, Value regs,
                                 ArrayRef<int64_t> regOf) {
  for (auto [i, value] : llvm::enumerate(acc)) {
    auto type = cast<VectorType>(value.getType());
    int64_t perAtom = type.getNumElements();
    for (int64_t e = 0; e < perAtom; ++e) {
      Value element = vector::ExtractOp::create(
          b, loc, value, vectorPosition(type.getShape(), e));
      memref::StoreOp::create(b, loc, element, regs,
                              ValueRange{cst(b, loc, regOf[i * perAtom + e])});
    }
  }
}

/// Emits `expr` over `dims` (non-negative indices) with unsigned division.
static Value expandExpr(OpBuilder &b, Location loc, AffineExpr expr,
                        ValueRange dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return cst(b, loc, c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Value lhs = expandExpr(b, loc, bin.getLHS(), dims);
  Value rhs = expandExpr(b, loc, bin.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return b.createOrFold<arith::AddIOp>(loc, lhs, rhs);
  case AffineExprKind::Mul:
    return b.createOrFold<arith::MulIOp>(loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return b.createOrFold<arith::DivUIOp>(loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return b.createOrFold<arith::CeilDivUIOp>(loc, lhs, rhs);
  default:
    return b.createOrFold<arith::RemUIOp>(loc, lhs, rhs);
  }
}

/// Emits the results of `layout` on `inputs`: the affine map and its XOR
/// swizzle, or the GF(2) form as shifts, masks and XORs.
SmallVector<Value> lowering::materialize(OpBuilder &b, Location loc,
                                         const Layout &layout,
                                         ValueRange inputs) {
  SmallVector<Value> results;
  if (!layout.isLinear()) {
    for (AffineExpr expr : layout.getMap().getResults())
      results.push_back(expandExpr(b, loc, expr, inputs));
    Swizzle sw = layout.getSwizzle();
    if (!sw.isIdentity()) {
      Value off = results[0];
      Value shifted = b.createOrFold<arith::ShRUIOp>(
          loc, off, cst(b, loc, sw.base + sw.shift));
      Value masked = b.createOrFold<arith::AndIOp>(
          loc, shifted, cst(b, loc, (int64_t(1) << sw.bits) - 1));
      Value moved =
          b.createOrFold<arith::ShLIOp>(loc, masked, cst(b, loc, sw.base));
      results[0] = b.createOrFold<arith::XOrIOp>(loc, off, moved);
    }
    return results;
  }
  unsigned n = layout.getNumResults();
  ArrayRef<int64_t> bases = layout.getBases();
  results.assign(n, cst(b, loc, 0));
  unsigned bit = 0;
  for (auto [d, extent] : llvm::enumerate(layout.getShape())) {
    for (unsigned i = 0; (int64_t(1) << i) < extent; ++i, ++bit) {
      Value set = b.createOrFold<arith::AndIOp>(
          loc, b.createOrFold<arith::ShRUIOp>(loc, inputs[d], cst(b, loc, i)),
          cst(b, loc, 1));
      for (unsigned k = 0; k < n; ++k) {
        int64_t basis = bases[bit * n + k];
        if (basis == 0)
          continue;
        Value term =
            b.createOrFold<arith::MulIOp>(loc, set, cst(b, loc, basis));
        results[k] = b.createOrFold<arith::XOrIOp>(loc, results[k], term);
      }
    }
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Loop layouts: (thread, register) -> coordinates
//===----------------------------------------------------------------------===//

/// The most points (elements) of an op's loop layout one thread may unroll.
static constexpr int64_t kMaxPointsPerThread = 1024;

static FailureOr<LoopMap> buildLoopMap(Operation *op, const Fragment &frag,
                                       int64_t blockThreads) {
  LoopMap lm;
  lm.fragment = frag;
  MLIRContext *ctx = frag.getContext();
  ArrayRef<int64_t> shape = frag.getShape();
  AffineMap map = frag.getMap();
  SmallVector<int64_t> augShape(shape);
  SmallVector<AffineExpr> exprs(map.getResults());
  if (frag.getReplicate() > 1 || map.getNumSymbols() > 0) {
    lm.replicated = true;
    augShape.insert(augShape.begin(), frag.getReplicate());
    for (AffineExpr &e : exprs)
      e = e.shiftDims(shape.size(), 1).replaceSymbols(getAffineDimExpr(0, ctx));
  }
  AffineMap augMap = AffineMap::get(augShape.size(), 0, exprs, ctx);
  Layout forward = Layout::affine(augShape, augMap);
  SmallVector<int64_t> codomain = forward.getCodomainShape();
  // inverse() fails on layouts that are not bijective.
  std::optional<Layout> inverse = forward.inverse();
  if (!inverse && codomain.size() == 2 && forward.isBijective()) {
    // Invert the flat slot thread * registers + register instead: strided
    // maps of any extents invert in closed form as offsets.
    AffineExpr slot = exprs[0] * codomain[1] + exprs[1];
    Layout flat =
        Layout::affine(augShape, AffineMap::get(augShape.size(), 0, slot, ctx));
    inverse = flat.isBijective() ? flat.inverse() : std::nullopt;
    lm.flatSlots = inverse.has_value();
  }
  if (!inverse)
    return op->emitOpError("unsupported layout: its elements do not fill "
                           "the (thread, register) slots of threads [0, ")
           << codomain[0] << ") one to one";
  if (codomain[0] > blockThreads)
    return op->emitOpError("layout uses ")
           << codomain[0] << " threads, the kernel has " << blockThreads;
  lm.inverse = *inverse;
  lm.activeThreads = codomain[0];
  lm.numRegs = codomain[1];
  // Each thread's points are unrolled into straight-line code, whose size
  // LLVM's optimizations and NVPTX's code generation handle in worse than
  // linear time (a copy of 768 points a thread took 10 s, one of 1536 a
  // minute): beyond kMaxPointsPerThread the kernel gets a diagnostic.
  if (lm.numRegs > kMaxPointsPerThread)
    return op->emitOpError("layout unrolls to ")
           << lm.numRegs << " points per thread (" << lm.activeThreads
           << " threads), more than " << kMaxPointsPerThread
           << "; give the kernel more threads or the op a smaller tile";
  lm.table.reserve(lm.activeThreads * lm.numRegs);
  for (int64_t t = 0; t < lm.activeThreads; ++t)
    for (int64_t r = 0; r < lm.numRegs; ++r) {
      SmallVector<int64_t> c = lm.flatSlots
                                   ? lm.inverse.apply({t * codomain[1] + r})
                                   : lm.inverse.apply({t, r});
      if (lm.replicated)
        c.erase(c.begin());
      lm.table.push_back(std::move(c));
    }
  return lm;
}

/// Coordinates of register `reg` of thread `tid`, as values.
SmallVector<Value> lowering::emitCoords(OpBuilder &b, Location loc,
                                        const LoopMap &lm, Value tid,
                                        int64_t reg, Value *replica) {
  if (lm.perThread)
    tid = cst(b, loc, 0);
  SmallVector<Value> c;
  if (!lm.threadPart.empty()) {
    SmallVector<int64_t> regPart = lm.inverse.apply({0, reg});
    for (auto [t, r] : llvm::zip(lm.threadPart, regPart))
      c.push_back(
          r == 0 ? t : b.createOrFold<arith::XOrIOp>(loc, t, cst(b, loc, r)));
  } else {
    c = lm.flatSlots ? materialize(b, loc, lm.inverse,
                                   {b.createOrFold<arith::AddIOp>(
                                       loc,
                                       b.createOrFold<arith::MulIOp>(
                                           loc, tid, cst(b, loc, lm.numRegs)),
                                       cst(b, loc, reg))})
                     : materialize(b, loc, lm.inverse, {tid, cst(b, loc, reg)});
  }
  if (lm.replicated) {
    if (replica)
      *replica = c.front();
    c.erase(c.begin());
  }
  return c;
}

/// Makes `b` insert under `replica == 0`: one replica of a replicated loop
/// writes memory, the others would only repeat its stores or atomics.
void lowering::guardFirstReplica(OpBuilder &b, Location loc, Value replica) {
  if (!replica)
    return;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                      cst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// Emits `body` for every register, guarded to the active threads.
void lowering::emitPerRegister(OpBuilder &b, Location loc, const LoopMap &lm,
                               Value tid, int64_t blockThreads,
                               function_ref<void(OpBuilder &, int64_t)> body) {
  OpBuilder::InsertionGuard guard(b);
  if (!lm.perThread && lm.activeThreads < blockThreads) {
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                         cst(b, loc, lm.activeThreads));
    auto ifOp = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  // A GF(2) inverse is linear in the bits of (thread, register): the
  // thread's part is emitted once here, every register adds a constant.
  if (lm.inverse.isLinear() && !lm.flatSlots && !lm.perThread)
    lm.threadPart = materialize(b, loc, lm.inverse, {tid, cst(b, loc, 0)});
  for (int64_t r = 0; r < lm.numRegs; ++r)
    body(b, r);
  lm.threadPart.clear();
}

void lowering::emitPerWrittenRegister(
    OpBuilder &b, Location loc, const LoopMap &lm, Value tid,
    int64_t blockThreads, function_ref<bool(int64_t)> keep,
    function_ref<void(OpBuilder &, int64_t, ArrayRef<Value>)> body) {
  emitPerRegister(b, loc, lm, tid, blockThreads, [&](OpBuilder &b, int64_t r) {
    if (!keep(r))
      return;
    OpBuilder::InsertionGuard guard(b);
    Value replica;
    SmallVector<Value> coords = emitCoords(b, loc, lm, tid, r, &replica);
    guardFirstReplica(b, loc, replica);
    body(b, r, coords);
  });
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

const std::pair<Fragment, Value> *LoweringContext::getAccumulator(GemmOp op) {
  auto it = fragments.find(op.getC());
  if (it != fragments.end())
    return &it->second;
  op.emitOpError("expected C to be a tile.alloc fragment with a layout; run "
                 "tile-infer-layout first");
  return nullptr;
}

LogicalResult LoweringContext::init() {
  Block &body = kernel.getBody().front();
  OpBuilder b(&body, body.begin());
  // Launching in clusters needs the hardware's: ptxas would reject the
  // cluster attributes much later.
  if (kernel.hasCluster() &&
      (!options.target || !options.target.has(TargetFeature::clusters)))
    return kernel.emitOpError()
           << "runs in clusters, which "
           << (options.target ? options.target.getChip()
                              : "a kernel without target")
           << " does not have (thread-block clusters need sm_90)";
  tid = gpu::ThreadIdOp::create(b, kernel.getLoc(), gpu::Dimension::x);
  threads = kernel.getThreads();
  WalkResult walk = kernel.walk([&](AllocOp alloc) {
    MemRefType type = alloc.getType();
    MemorySpace space = getMemorySpace(type);
    if (space == MemorySpace::Fragment) {
      auto attr = dyn_cast_or_null<FragmentAttr>(alloc.getLayoutAttr());
      std::optional<Fragment> frag =
          attr ? attr.getFragmentFor(type.getShape()) : std::nullopt;
      if (!frag) {
        alloc.emitOpError("expected a '#tile.fragment' layout on the "
                          "fragment buffer; run tile-infer-layout first");
        return WalkResult::interrupt();
      }
      if (frag->getThreads() != threads) {
        alloc.emitOpError("fragment layout for ")
            << frag->getThreads() << " threads in a kernel of " << threads;
        return WalkResult::interrupt();
      }
      OpBuilder ab(alloc);
      auto regType = MemRefType::get(
          {frag->getNumRegisters()}, type.getElementType(), AffineMap(),
          gpu::AddressSpaceAttr::get(b.getContext(),
                                     gpu::AddressSpace::Private));
      Value regs = AllocOp::create(ab, alloc.getLoc(), regType, Attribute());
      fragments[alloc.getResult()] = {*frag, regs};
      return WalkResult::advance();
    }
    if (space == MemorySpace::Shared) {
      auto attr = dyn_cast_or_null<LayoutAttr>(alloc.getLayoutAttr());
      if (!attr)
        return WalkResult::advance();
      std::optional<Layout> layout = attr.getLayoutFor(type.getShape());
      if (!layout || layout->getNumResults() != 1) {
        alloc.emitOpError("unsupported shared layout");
        return WalkResult::interrupt();
      }
      if (layout->isEquivalentTo(
              Layout::rowMajor(b.getContext(), type.getShape())))
        return WalkResult::advance();
      OpBuilder ab(alloc->getBlock(), ++Block::iterator(alloc));
      int64_t span = layout->getCodomainShape()[0];
      Value flat;
      if (span > type.getNumElements()) {
        // A layout with gaps (padding): the flat view covers its span, which
        // the shared-memory plan reserves (AllocOp::getFootprintBytes()).
        auto flatType = MemRefType::get({span}, type.getElementType(),
                                        AffineMap(), type.getMemorySpace());
        flat = memref::ReinterpretCastOp::create(
                   ab, alloc.getLoc(), flatType, alloc.getResult(),
                   /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{span},
                   /*strides=*/ArrayRef<int64_t>{1})
                   .getResult();
      } else if (type.getRank() == 1) {
        flat = alloc.getResult();
      } else {
        SmallVector<ReassociationIndices> all(1);
        for (unsigned i = 0; i < type.getRank(); ++i)
          all[0].push_back(i);
        flat = memref::CollapseShapeOp::create(ab, alloc.getLoc(),
                                               alloc.getResult(), all)
                   .getResult();
      }
      sharedLayouts[alloc.getResult()] = {*layout, flat};
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

const LoweringContext::Slot *LoweringContext::getSlot(Value buffer) {
  auto cached = slots.find(buffer);
  if (cached != slots.end())
    return cached->second.get();
  slots[buffer] = nullptr;
  auto view = buffer.getDefiningOp<memref::SubViewOp>();
  if (!view ||
      !llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return nullptr;
  // A view of a view: the outer one must itself be a slot.
  const Slot *outer = nullptr;
  auto alloc = view.getSource().getDefiningOp<AllocOp>();
  if (!alloc && !(outer = getSlot(view.getSource())))
    return nullptr;
  if (alloc && getMemorySpace(alloc.getType()) != MemorySpace::Shared)
    return nullptr;
  MemRefType srcType = view.getSourceType();
  auto type = cast<MemRefType>(buffer.getType());
  unsigned lead = srcType.getRank() - type.getRank();
  if (outer && lead)
    return nullptr;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  // The view's offsets in its source's trailing dimensions.
  SmallVector<int64_t> own;
  Slot slot;
  slot.root = outer ? outer->root : view.getSource();
  if (outer)
    slot.lead = outer->lead;
  for (unsigned d = 0; d < srcType.getRank(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(view.getMixedSizes()[d]);
    if (d < lead) {
      if (size != 1)
        return nullptr;
      slot.lead.push_back(offsets[d]);
      continue;
    }
    // The view's trailing dimensions take a static box of the source's
    // (a K slice of an operand tile, the used part of a padded one).
    std::optional<int64_t> offset = getConstantIntValue(offsets[d]);
    if (!size || !offset)
      return nullptr;
    own.push_back(*offset);
    slot.offsets.push_back((outer ? outer->offsets[d - lead] : 0) + *offset);
  }
  // The layout of slot 0, over the view's shape.
  MLIRContext *ctx = buffer.getContext();
  Layout layout = Layout::rowMajor(ctx, srcType.getShape());
  if (outer) {
    layout = outer->layout;
  } else if (auto it = sharedLayouts.find(slot.root);
             it != sharedLayouts.end()) {
    layout = it->second.first;
  }
  SmallVector<AffineExpr> inner(lead, getAffineConstantExpr(0, ctx));
  for (unsigned d = 0; d < type.getRank(); ++d)
    inner.push_back(getAffineDimExpr(d, ctx) + own[d]);
  std::optional<Layout> first = layout.compose(Layout::affine(
      type.getShape(), AffineMap::get(type.getRank(), 0, inner, ctx)));
  if (!first)
    return nullptr;
  slot.layout = *first;
  auto &entry = slots[buffer];
  entry = std::make_unique<Slot>(std::move(slot));
  return entry.get();
}

SmallVector<Value> LoweringContext::Slot::leadValues(OpBuilder &b,
                                                     Location loc) const {
  SmallVector<Value> values;
  for (OpFoldResult offset : lead)
    values.push_back(getValueOrCreateConstantIndexOp(b, loc, offset));
  return values;
}

std::pair<Value, SmallVector<Value>>
LoweringContext::address(OpBuilder &b, Location loc, Value buffer,
                         ValueRange coords) {
  if (const Slot *slot = getSlot(buffer)) {
    SmallVector<Value> full = slot->leadValues(b, loc);
    for (auto [c, offset] : llvm::zip_equal(coords, slot->offsets))
      full.push_back(
          offset ? b.createOrFold<arith::AddIOp>(loc, c, cst(b, loc, offset))
                 : c);
    return address(b, loc, slot->root, full);
  }
  auto it = sharedLayouts.find(buffer);
  if (it == sharedLayouts.end())
    return {buffer, SmallVector<Value>(coords)};
  SmallVector<Value> off = materialize(b, loc, it->second.first, coords);
  return {it->second.second, off};
}

FailureOr<LoopMap> LoweringContext::buildCachedLoopMap(Operation *op,
                                                       const Fragment &frag) {
  // Inverting a layout walks its whole tile; the operators of a kernel
  // (and the copies a pipelined loop clones) share a few layouts.
  for (const auto &[f, lm] : loopMapCache)
    if (f == frag)
      return lm;
  FailureOr<LoopMap> lm = buildLoopMap(op, frag, threads);
  if (succeeded(lm))
    loopMapCache.emplace_back(frag, *lm);
  return lm;
}

FailureOr<LoopMap> LoweringContext::getLoopMap(Operation *op,
                                               ArrayRef<int64_t> shape,
                                               Value fragmentOperand,
                                               bool perThread) {
  std::optional<Fragment> frag;
  if (perThread) {
    // Every thread moves the whole tile of its own local buffer.
    MLIRContext *ctx = op->getContext();
    AffineExpr linear = getAffineConstantExpr(0, ctx);
    for (auto [d, extent] : llvm::enumerate(shape))
      linear = linear * extent + getAffineDimExpr(d, ctx);
    FailureOr<LoopMap> lm =
        buildLoopMap(op,
                     Fragment::get(shape, getAffineConstantExpr(0, ctx), linear,
                                   /*threads=*/1),
                     /*blockThreads=*/1);
    if (succeeded(lm))
      lm->perThread = true;
    return lm;
  }
  if (auto attr = op->getAttrOfType<FragmentAttr>(kLoopAttr))
    frag = attr.getFragmentFor(shape);
  else if (fragmentOperand && fragments.count(fragmentOperand))
    frag = fragments[fragmentOperand].first.reshape(shape);
  if (!frag)
    return op->emitOpError(kMissingLoop);
  if (frag->getThreads() != threads)
    return op->emitOpError("loop layout for ")
           << frag->getThreads() << " threads in a kernel of " << threads;
  return buildCachedLoopMap(op, *frag);
}

/// The register of `frag` holding the element each (thread, reg) of `lm`
/// maps to through `indexOf`, when it is the same on every thread and held
/// by that thread; -1 otherwise.
int64_t lowering::loopRegister(
    const LoopMap &lm, int64_t reg, const Fragment &frag,
    function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> indexOf,
    bool &notOwned) {
  return lowering::uniformRegister(
      frag, lm.activeThreads,
      [&](int64_t t) { return indexOf(lm.coords(t, reg)); }, &notOwned);
}

int64_t
lowering::uniformRegister(const Fragment &frag, int64_t threads,
                          function_ref<SmallVector<int64_t>(int64_t)> coordsOf,
                          bool *notOwned) {
  int64_t found = -1;
  for (int64_t t = 0; t < threads; ++t) {
    SmallVector<int64_t> idx = coordsOf(t);
    for (auto [i, e] : llvm::enumerate(frag.getShape()))
      if (idx[i] < 0 || idx[i] >= e)
        return -1;
    bool owns = false;
    for (int64_t rep = 0; rep < frag.getReplicate() && !owns; ++rep)
      owns = frag.getThread(idx, rep) == t;
    if (!owns) {
      if (notOwned)
        *notOwned = true;
      return -1;
    }
    int64_t r = frag.getRegister(idx);
    if (found >= 0 && found != r)
      return -1;
    found = r;
  }
  return found;
}

//===----------------------------------------------------------------------===//
// Element type conversion and global bounds
//===----------------------------------------------------------------------===//

Value lowering::convert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  Type target = to;
  if (auto vt = dyn_cast<VectorType>(v.getType()))
    target = VectorType::get(vt.getShape(), to);
  bool fromF = isa<FloatType>(from), toF = isa<FloatType>(to);
  if (fromF && toF) {
    // Same-width pairs (f16 and bf16) have neither extf nor truncf between
    // them: go through f32, which holds both exactly.
    if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
      return convert(b, loc, convert(b, loc, v, b.getF32Type()), to);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, target, v);
    return arith::TruncFOp::create(b, loc, target, v);
  }
  if (fromF)
    return arith::FPToSIOp::create(b, loc, target, v);
  if (toF)
    return arith::SIToFPOp::create(b, loc, target, v);
  if (from.isIndex() || to.isIndex())
    return arith::IndexCastOp::create(b, loc, target, v);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, target, v);
  return arith::TruncIOp::create(b, loc, target, v);
}

Value lowering::zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

/// True when accesses to global `type` around a tile of `tile` (trailing
/// dimensions) may fall outside it.
bool lowering::needsMask(MemRefType type, ArrayRef<int64_t> tile) {
  unsigned lead = type.getRank() - tile.size();
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t extent = type.getDimSize(d);
    if (ShapedType::isDynamic(extent))
      return true;
    if (d >= lead && extent % tile[d - lead] != 0)
      return true;
  }
  return false;
}

/// `idx[d] + extra < dim(d)` for every dimension (`extra` on the last).
Value lowering::inBounds(OpBuilder &b, Location loc, Value buffer,
                         ValueRange idx, int64_t lastExtra) {
  Value ok;
  for (auto [d, i] : llvm::enumerate(idx)) {
    Value dim = memref::DimOp::create(b, loc, buffer, d);
    Value v = i;
    if (d + 1 == idx.size() && lastExtra)
      v = arith::AddIOp::create(b, loc, i, cst(b, loc, lastExtra));
    Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v, dim);
    ok = ok ? arith::AndIOp::create(b, loc, ok, c).getResult() : c;
  }
  return ok;
}

bool lowering::hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// True at run time when the element `idx` of global `buffer` sits at an
/// address aligned to `bytes`.
Value lowering::isAligned(OpBuilder &b, Location loc, Value buffer,
                          ValueRange idx, int64_t bytes, int64_t elemBytes) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value flat = meta.getOffset();
  for (auto [i, stride] : llvm::zip(idx, meta.getStrides()))
    flat = arith::AddIOp::create(b, loc, flat,
                                 arith::MulIOp::create(b, loc, i, stride));
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value addr = arith::AddIOp::create(
      b, loc, ptr, arith::MulIOp::create(b, loc, flat, cst(b, loc, elemBytes)));
  Value rem = arith::AndIOp::create(b, loc, addr, cst(b, loc, bytes - 1));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                               cst(b, loc, 0));
}

/// True at run time when a whole tile of `tile` (trailing dimensions) at
/// `origin` of global `buffer` lies inside it (with `checkBounds`) and, for
/// vectors of `vector` elements, every vector of it is aligned: the tile's
/// first element is aligned and every stride but the last is a multiple of
/// `vector`. A copy takes its unchecked path under this condition, so the
/// per-element masks and alignment tests run only on edge tiles.
Value lowering::isWholeAlignedTile(OpBuilder &b, Location loc, Value buffer,
                                   ValueRange origin, ArrayRef<int64_t> tile,
                                   bool checkBounds, int64_t vector,
                                   int64_t elemBytes) {
  auto type = cast<MemRefType>(buffer.getType());
  unsigned lead = type.getRank() - tile.size();
  SmallVector<Value> idx(origin.begin(), origin.end());
  if (idx.empty())
    idx.assign(type.getRank(), cst(b, loc, 0));
  Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto andWith = [&](Value c) { ok = arith::AndIOp::create(b, loc, ok, c); };
  if (checkBounds)
    for (unsigned d = 0; d < type.getRank(); ++d) {
      int64_t extent = d < lead ? 1 : tile[d - lead];
      Value end = arith::AddIOp::create(b, loc, idx[d], cst(b, loc, extent));
      andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                    memref::DimOp::create(b, loc, buffer, d)));
    }
  if (vector > 1) {
    andWith(isAligned(b, loc, buffer, idx, vector * elemBytes, elemBytes));
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    for (Value stride : meta.getStrides().drop_back())
      andWith(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, stride, cst(b, loc, vector)),
          cst(b, loc, 0)));
  }
  return ok;
}

/// The mask of the first `count` of `lanes` lanes, as a comparison with the
/// lane numbers (which every GPU lowering handles, unlike
/// vector.create_mask).
Value lowering::laneMask(OpBuilder &b, Location loc, Value count,
                         int64_t lanes) {
  auto indexVec = VectorType::get({lanes}, b.getIndexType());
  SmallVector<Attribute> ids;
  for (int64_t i = 0; i < lanes; ++i)
    ids.push_back(b.getIndexAttr(i));
  Value step = arith::ConstantOp::create(b, loc, indexVec,
                                         DenseElementsAttr::get(indexVec, ids));
  Value bound = vector::BroadcastOp::create(b, loc, indexVec, count);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, step, bound);
}

int64_t lowering::elementBytes(Type t) {
  return t.isIndex() ? 8 : std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// tile.copy
//===----------------------------------------------------------------------===//

Operand lowering::makeOperand(Value buffer, ValueRange indices,
                              unsigned tileRank) {
  Operand o;
  o.buffer = buffer;
  o.type = cast<MemRefType>(buffer.getType());
  o.space = getMemorySpace(o.type);
  o.origin.assign(indices.begin(), indices.end());
  o.lead = o.type.getRank() - tileRank;
  return o;
}

/// Indices of tile element `coords` in `o`.
SmallVector<Value> lowering::operandIndices(OpBuilder &b, Location loc,
                                            const Operand &o,
                                            ValueRange coords) {
  SmallVector<Value> idx;
  for (unsigned d = 0; d < o.type.getRank(); ++d) {
    Value c = d >= o.lead ? coords[d - o.lead] : cst(b, loc, 0);
    if (!o.origin.empty())
      c = b.createOrFold<arith::AddIOp>(loc, o.origin[d], c);
    idx.push_back(c);
  }
  return idx;
}

/// The widest vector (in elements, a power of two dividing the register
/// count) such that, on every thread, each group of consecutive registers
/// holds consecutive, aligned elements of the tile's last dimension, and
/// of every operand's storage.
int64_t lowering::pickVectorWidth(const LoopMap &lm, int64_t maxWidth,
                                  ArrayRef<const Layout *> storage) {
  int64_t v = 1;
  while (v * 2 <= maxWidth && lm.numRegs % (v * 2) == 0)
    v *= 2;
  for (; v > 1; v /= 2) {
    bool ok = true;
    for (int64_t t = 0; t < lm.activeThreads && ok; ++t)
      for (int64_t r = 0; r < lm.numRegs && ok; r += v) {
        ArrayRef<int64_t> base = lm.coords(t, r);
        if (base.back() % v != 0) {
          ok = false;
          break;
        }
        SmallVector<int64_t> baseOff;
        for (const Layout *l : storage)
          baseOff.push_back(l->apply(base)[0]);
        for (const auto &off : baseOff)
          ok &= off % v == 0;
        for (int64_t k = 1; k < v && ok; ++k) {
          ArrayRef<int64_t> c = lm.coords(t, r + k);
          for (unsigned d = 0; d + 1 < c.size(); ++d)
            ok &= c[d] == base[d];
          ok &= c.back() == base.back() + k;
          for (auto [i, l] : llvm::enumerate(storage))
            ok &= ok && l->apply(c)[0] == baseOff[i] + k;
        }
      }
    if (ok)
      return v;
  }
  return 1;
}

Value lowering::sharedPointer(OpBuilder &b, Location loc, Value buffer,
                              Value byteOffset) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value addr = arith::AddIOp::create(b, loc, base, byteOffset);
  Value word = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), addr);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), word);
}

/// Makes `b` insert under `tid == 0`, the consumer thread that issues the
