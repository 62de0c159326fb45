//===- LowerTile.cpp - tile operators to per-thread code ------------------===//
//
// Lowers the non-tensor-core tile operators to per-thread IR. Every
// operator is driven by a fragment over its iteration space (the loop
// layout): the pass inverts it once, at compile time, into a map from
// (thread, register) to coordinates, materialized as arith operations on the
// thread id with the register a constant, so that every per-thread loop is
// emitted fully unrolled and fragments live in constant-indexed private
// arrays that LLVM promotes to registers.
//
//===----------------------------------------------------------------------===//

#include "LowerTileInternal.h"
#include "tile/Conversion/Passes.h"
#include "tile/Transforms/Lowering.h"
#include "tile/Transforms/Passes.h"

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

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILELOWER
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

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
  if (lm.activeThreads * lm.numRegs > (int64_t(1) << 20))
    return op->emitOpError("layout too large to unroll: ")
           << lm.numRegs << " registers per thread";
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
static SmallVector<Value> emitCoords(OpBuilder &b, Location loc,
                                     const LoopMap &lm, Value tid, int64_t reg,
                                     Value *replica = nullptr) {
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
static void guardFirstReplica(OpBuilder &b, Location loc, Value replica) {
  if (!replica)
    return;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                      cst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// Emits `body` for every register, guarded to the active threads.
static void emitPerRegister(OpBuilder &b, Location loc, const LoopMap &lm,
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

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::init() {
  Block &body = kernel.getBody().front();
  OpBuilder b(&body, body.begin());
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
      SmallVector<ReassociationIndices> all(1);
      for (unsigned i = 0; i < type.getRank(); ++i)
        all[0].push_back(i);
      Value flat = type.getRank() == 1
                       ? alloc.getResult()
                       : memref::CollapseShapeOp::create(ab, alloc.getLoc(),
                                                         alloc.getResult(), all)
                             .getResult();
      sharedLayouts[alloc.getResult()] = {*layout, flat};
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

const KernelLowering::Slot *KernelLowering::getSlot(Value buffer) {
  auto cached = slots.find(buffer);
  if (cached != slots.end())
    return cached->second.get();
  slots[buffer] = nullptr;
  auto view = buffer.getDefiningOp<memref::SubViewOp>();
  auto alloc = view ? view.getSource().getDefiningOp<AllocOp>() : AllocOp();
  if (!alloc || getMemorySpace(alloc.getType()) != MemorySpace::Shared)
    return nullptr;
  MemRefType srcType = view.getSourceType();
  auto type = cast<MemRefType>(buffer.getType());
  unsigned lead = srcType.getRank() - type.getRank();
  if (srcType.getShape().drop_front(lead) != type.getShape() ||
      !llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return nullptr;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  Slot slot;
  slot.root = view.getSource();
  for (unsigned d = 0; d < srcType.getRank(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(view.getMixedSizes()[d]);
    if (!size || *size != (d < lead ? 1 : srcType.getDimSize(d)))
      return nullptr;
    if (d >= lead) {
      if (!isConstantIntValue(offsets[d], 0))
        return nullptr;
      continue;
    }
    slot.lead.push_back(offsets[d]);
  }
  // The layout of slot 0, over the view's shape.
  MLIRContext *ctx = buffer.getContext();
  auto it = sharedLayouts.find(slot.root);
  Layout layout = it != sharedLayouts.end()
                      ? it->second.first
                      : Layout::rowMajor(ctx, srcType.getShape());
  SmallVector<AffineExpr> inner(lead, getAffineConstantExpr(0, ctx));
  for (unsigned d = 0; d < type.getRank(); ++d)
    inner.push_back(getAffineDimExpr(d, ctx));
  std::optional<Layout> first = layout.compose(Layout::affine(
      type.getShape(), AffineMap::get(type.getRank(), 0, inner, ctx)));
  if (!first)
    return nullptr;
  slot.layout = *first;
  auto &entry = slots[buffer];
  entry = std::make_unique<Slot>(std::move(slot));
  return entry.get();
}

SmallVector<Value> KernelLowering::Slot::leadValues(OpBuilder &b,
                                                    Location loc) const {
  SmallVector<Value> values;
  for (OpFoldResult offset : lead)
    values.push_back(getValueOrCreateConstantIndexOp(b, loc, offset));
  return values;
}

std::pair<Value, SmallVector<Value>>
KernelLowering::address(OpBuilder &b, Location loc, Value buffer,
                        ValueRange coords) {
  if (const Slot *slot = getSlot(buffer)) {
    SmallVector<Value> full = slot->leadValues(b, loc);
    full.append(coords.begin(), coords.end());
    return address(b, loc, slot->root, full);
  }
  auto it = sharedLayouts.find(buffer);
  if (it == sharedLayouts.end())
    return {buffer, SmallVector<Value>(coords)};
  SmallVector<Value> off = materialize(b, loc, it->second.first, coords);
  return {it->second.second, off};
}

FailureOr<LoopMap> KernelLowering::buildCachedLoopMap(Operation *op,
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

FailureOr<LoopMap> KernelLowering::getLoopMap(Operation *op,
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
static int64_t
loopRegister(const LoopMap &lm, int64_t reg, const Fragment &frag,
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
static bool needsMask(MemRefType type, ArrayRef<int64_t> tile) {
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
static Value inBounds(OpBuilder &b, Location loc, Value buffer, ValueRange idx,
                      int64_t lastExtra) {
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

/// True at run time when the element `idx` of global `buffer` sits at an
/// address aligned to `bytes`.
static Value isAligned(OpBuilder &b, Location loc, Value buffer, ValueRange idx,
                       int64_t bytes, int64_t elemBytes) {
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
static Value isWholeAlignedTile(OpBuilder &b, Location loc, Value buffer,
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
static Value laneMask(OpBuilder &b, Location loc, Value count, int64_t lanes) {
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

namespace {
/// One side of a copy or atomic: the buffer, its space and its origin.
struct Operand {
  Value buffer;
  MemRefType type;
  MemorySpace space;
  SmallVector<Value> origin;
  unsigned lead = 0; // leading dimensions of extent 1 (rank-reducing)
};
} // namespace

static Operand makeOperand(Value buffer, ValueRange indices,
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
static SmallVector<Value> operandIndices(OpBuilder &b, Location loc,
                                         const Operand &o, ValueRange coords) {
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
static int64_t pickVectorWidth(const LoopMap &lm, int64_t maxWidth,
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

LogicalResult KernelLowering::lowerCopy(CopyOp op) {
  SmallVector<int64_t> tile = op.getTileShape();
  if (op.getSrcIndices().empty() && op.getDstIndices().empty() &&
      !op.getSrc().getType().hasStaticShape())
    tile = llvm::to_vector(op.getDst().getType().getShape());
  Operand src = makeOperand(op.getSrc(), op.getSrcIndices(), tile.size());
  Operand dst = makeOperand(op.getDst(), op.getDstIndices(), tile.size());
  Value fragOperand = src.space == MemorySpace::Fragment   ? src.buffer
                      : dst.space == MemorySpace::Fragment ? dst.buffer
                                                           : Value();
  bool local =
      src.space == MemorySpace::Local || dst.space == MemorySpace::Local;
  if (local && fragOperand)
    return op.emitOpError("copies between fragments and local buffers are "
                          "not supported");
  FailureOr<LoopMap> lm = getLoopMap(op, tile, fragOperand, local);
  if (failed(lm))
    return failure();
  Type srcElem = src.type.getElementType(), dstElem = dst.type.getElementType();
  // Registers take any width; memory operands take up to 16 bytes.
  int64_t maxBytes = 1;
  for (Operand *o : {&src, &dst})
    if (o->space != MemorySpace::Fragment)
      maxBytes = std::max(maxBytes, elementBytes(o->type.getElementType()));
  int64_t maxWidth = std::max<int64_t>(1, 16 / maxBytes);
  if (std::optional<uint64_t> w = op.getCoalescedWidth())
    maxWidth = std::min<int64_t>(maxWidth, *w);
  SmallVector<const Layout *> storage;
  SmallVector<Layout> reshaped;
  reshaped.reserve(2);
  OpBuilder b(op);
  Location loc = op.getLoc();
  for (Operand *o : {&src, &dst}) {
    if (const Slot *slot = getSlot(o->buffer)) {
      reshaped.push_back(slot->layout);
      storage.push_back(&reshaped.back());
      if (!o->origin.empty())
        maxWidth = 1;
      continue;
    }
    auto it = sharedLayouts.find(o->buffer);
    if (it == sharedLayouts.end())
      continue;
    if (o->origin.empty()) {
      storage.push_back(&it->second.first);
      continue;
    }
    // An indexed shared operand: vectors need unit stride, checked on the
    // buffer's own layout at the tile's origin 0 only.
    maxWidth = 1;
  }
  // Row-major operands are contiguous along the last dimension; a
  // rank-reducing or indexed one keeps that property.
  for (Operand *o : {&src, &dst})
    if (o->space == MemorySpace::Local && !o->origin.empty() &&
        o->type.getShape().back() % maxWidth != 0)
      maxWidth = 1;
  int64_t v = pickVectorWidth(*lm, maxWidth, storage);

  // Registers of a fragment operand for each register of the loop.
  auto fragRegs = [&](const Operand &o,
                      SmallVector<int64_t> &regs) -> LogicalResult {
    if (o.space != MemorySpace::Fragment)
      return success();
    const Fragment &frag = fragments[o.buffer].first;
    for (int64_t r = 0; r < lm->numRegs; ++r) {
      bool notOwned = false;
      int64_t reg = loopRegister(
          *lm, r, frag,
          [&](ArrayRef<int64_t> c) {
            SmallVector<int64_t> idx;
            for (unsigned d = 0; d < o.lead; ++d)
              idx.push_back(0);
            idx.append(c.begin(), c.end());
            return idx;
          },
          notOwned);
      if (reg < 0)
        return op.emitOpError("the copy's loop layout does not match the "
                              "fragment's layout");
      regs.push_back(reg);
    }
    return success();
  };
  SmallVector<int64_t> srcRegs, dstRegs;
  if (!src.origin.empty() && src.space == MemorySpace::Fragment)
    return op.emitOpError("indexed fragment operands are not supported");
  if (!dst.origin.empty() && dst.space == MemorySpace::Fragment)
    return op.emitOpError("indexed fragment operands are not supported");
  if (failed(fragRegs(src, srcRegs)) || failed(fragRegs(dst, dstRegs)))
    return failure();

  Type srcVecType = v > 1 ? Type(VectorType::get({v}, srcElem)) : srcElem;
  bool maskSrc = src.space == MemorySpace::Global && needsMask(src.type, tile);
  bool maskDst = dst.space == MemorySpace::Global && needsMask(dst.type, tile);
  // Set while emitting the path taken when the global tile is whole and
  // aligned: no masks, no alignment tests.
  bool trusted = false;

  // Elements of the vector at `memIdx` inside global `mem`: clamp(dim -
  // idx, 0, v) on an in-bounds row, else 0. Also the mask of the masked
  // vector accesses that edge vectors fall back to.
  auto validElements = [&](OpBuilder &b, Location loc, Value mem,
                           ArrayRef<Value> memIdx) -> Value {
    unsigned last = memIdx.size() - 1;
    Value rowOk = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    for (unsigned d = 0; d < last; ++d)
      rowOk = arith::AndIOp::create(
          b, loc, rowOk,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, memIdx[d],
                                memref::DimOp::create(b, loc, mem, d)));
    Value left = arith::SubIOp::create(
        b, loc, memref::DimOp::create(b, loc, mem, last), memIdx[last]);
    left = arith::MaxSIOp::create(b, loc, left, cst(b, loc, 0));
    left = arith::MinSIOp::create(b, loc, left, cst(b, loc, v));
    return arith::SelectOp::create(b, loc, rowOk, left, cst(b, loc, 0));
  };
  // Converts `value` (loop register `r`, at `coords`) to the destination's
  // element type and writes it.
  auto convertAndStore = [&](OpBuilder &b, int64_t r, ArrayRef<Value> coords,
                             Value value) {
    value = convert(b, loc, value, dstElem);
    // Write.
    if (dst.space == MemorySpace::Fragment) {
      Value regs = fragments[dst.buffer].second;
      for (int64_t k = 0; k < v; ++k) {
        Value e = v > 1
                      ? vector::ExtractOp::create(b, loc, value, k).getResult()
                      : value;
        memref::StoreOp::create(b, loc, e, regs,
                                ValueRange{cst(b, loc, dstRegs[r + k])});
      }
      return;
    }
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    auto [mem, memIdx] = address(b, loc, dst.buffer, idx);
    auto store = [&](OpBuilder &b) {
      if (v == 1)
        memref::StoreOp::create(b, loc, value, mem, memIdx);
      else
        vector::StoreOp::create(b, loc, value, mem, memIdx,
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(v * elementBytes(dstElem)));
    };
    if (dst.space != MemorySpace::Global || trusted || (!maskDst && v == 1)) {
      store(b);
      return;
    }
    Value ok = maskDst ? inBounds(b, loc, mem, memIdx, v - 1) : Value();
    if (v > 1) {
      Value al = isAligned(b, loc, mem, memIdx, v * elementBytes(dstElem),
                           elementBytes(dstElem));
      ok = ok ? arith::AndIOp::create(b, loc, ok, al).getResult() : al;
    }
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    store(tb);
    OpBuilder eb(ifOp.elseBlock()->getTerminator());
    if (v == 1) {
      // Only reached when masked: the element is outside.
      return;
    }
    // A straddling or misaligned vector: one masked store at element
    // alignment (all lanes on when the tensor is not masked).
    Value count =
        maskDst ? validElements(eb, loc, mem, memIdx) : cst(eb, loc, v);
    vector::MaskedStoreOp::create(eb, loc, mem, memIdx,
                                  laneMask(eb, loc, count, v), value);
  };

  // Copies a pipelined loop issues ahead go through cp.async (4, 8 or 16
  // bytes per thread, no conversion).
  int64_t copyBytes = v * elementBytes(srcElem);
  bool async = op->hasAttr(kAsyncCopyAttr) &&
               src.space == MemorySpace::Global &&
               dst.space == MemorySpace::Shared && srcElem == dstElem &&
               (copyBytes == 4 || copyBytes == 8 || copyBytes == 16);
  // cp.async of one vector; with `valid`, a vector wholly inside (valid ==
  // v) or wholly outside (valid == 0: nothing read, all zero-filled) the
  // source.
  auto emitAsyncCopy = [&](OpBuilder &b, Location loc, Value mem,
                           SmallVector<Value> memIdx, ArrayRef<Value> coords,
                           Value valid) {
    if (valid) {
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        valid, cst(b, loc, 0));
      for (Value &i : memIdx)
        i = arith::SelectOp::create(b, loc, any, i, cst(b, loc, 0));
    }
    SmallVector<Value> didx = operandIndices(b, loc, dst, coords);
    auto [dmem, dmemIdx] = address(b, loc, dst.buffer, didx);
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dmem, dmemIdx,
        mem, memIdx, b.getIndexAttr(v), valid,
        copyBytes == 16 ? b.getUnitAttr() : UnitAttr());
  };

  auto emitAll = [&](OpBuilder &b) {
    emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
      if (r % v != 0)
        return;
      OpBuilder::InsertionGuard guard(b);
      Value replica;
      SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
      if (dst.space != MemorySpace::Fragment)
        guardFirstReplica(b, loc, replica);
      // Read.
      Value value;
      if (src.space == MemorySpace::Fragment) {
        Value regs = fragments[src.buffer].second;
        SmallVector<Value> elems;
        for (int64_t k = 0; k < v; ++k)
          elems.push_back(memref::LoadOp::create(
              b, loc, regs, ValueRange{cst(b, loc, srcRegs[r + k])}));
        value = v > 1 ? vector::FromElementsOp::create(
                            b, loc, cast<VectorType>(srcVecType), elems)
                            .getResult()
                      : elems[0];
      } else {
        SmallVector<Value> idx = operandIndices(b, loc, src, coords);
        auto [mem, memIdx] = address(b, loc, src.buffer, idx);
        if (async && trusted) {
          emitAsyncCopy(b, loc, mem, memIdx, coords, Value());
          return;
        }
        if (async) {
          // cp.async where the source is aligned and the vector lies wholly
          // inside or wholly outside it (zero-filled); the synchronous path
          // below, in the else branch, for the rest. A partial cp.async
          // would be legal but reads past the tensor as far as memory
          // checkers can tell.
          Value ok = isAligned(b, loc, mem, memIdx, v * elementBytes(srcElem),
                               elementBytes(srcElem));
          Value valid;
          if (maskSrc) {
            valid = validElements(b, loc, mem, memIdx);
            Value edge = arith::OrIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, valid,
                                      cst(b, loc, v)),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, valid,
                                      cst(b, loc, 0)));
            ok = arith::AndIOp::create(b, loc, ok, edge);
          }
          auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
          OpBuilder tb(ifOp.thenBlock()->getTerminator());
          emitAsyncCopy(tb, loc, mem, memIdx, coords, valid);
          b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
        }
        auto load = [&](OpBuilder &b) -> Value {
          if (v == 1)
            return memref::LoadOp::create(b, loc, mem, memIdx);
          return vector::LoadOp::create(
              b, loc, cast<VectorType>(srcVecType), mem, memIdx,
              /*nontemporal=*/false,
              llvm::MaybeAlign(v * elementBytes(srcElem)));
        };
        if (src.space != MemorySpace::Global || trusted ||
            (!maskSrc && v == 1)) {
          value = load(b);
        } else {
          Value ok = maskSrc ? inBounds(b, loc, mem, memIdx, v - 1) : Value();
          if (v > 1) {
            Value al = isAligned(b, loc, mem, memIdx, v * elementBytes(srcElem),
                                 elementBytes(srcElem));
            ok = ok ? arith::AndIOp::create(b, loc, ok, al).getResult() : al;
          }
          auto ifOp = scf::IfOp::create(b, loc, TypeRange{srcVecType}, ok,
                                        /*withElse=*/true);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          scf::YieldOp::create(tb, loc, load(tb));
          OpBuilder eb = ifOp.getElseBodyBuilder();
          if (v == 1) {
            scf::YieldOp::create(eb, loc, zeroOf(eb, loc, srcElem));
            value = ifOp.getResult(0);
            return convertAndStore(b, r, coords, value);
          }
          // A straddling or misaligned vector: one masked load at element
          // alignment, zero outside the tensor.
          Value count =
              maskSrc ? validElements(eb, loc, mem, memIdx) : cst(eb, loc, v);
          Value lanes = laneMask(eb, loc, count, v);
          auto vecType = cast<VectorType>(srcVecType);
          Value zeros = arith::ConstantOp::create(
              eb, loc, vecType,
              DenseElementsAttr::get(vecType, eb.getZeroAttr(srcElem)));
          Value slow = vector::MaskedLoadOp::create(eb, loc, vecType, mem,
                                                    memIdx, lanes, zeros);
          scf::YieldOp::create(eb, loc, slow);
          value = ifOp.getResult(0);
        }
      }
      convertAndStore(b, r, coords, value);
    });
  };
  // One block-uniform test of the global operand picks between the
  // unchecked copy and the one that masks and tests each vector.
  Operand *global = src.space == MemorySpace::Global   ? &src
                    : dst.space == MemorySpace::Global ? &dst
                                                       : nullptr;
  bool masked = global == &src ? maskSrc : maskDst;
  if (!global || (!masked && v == 1)) {
    emitAll(b);
  } else {
    Value whole =
        isWholeAlignedTile(b, loc, global->buffer, global->origin, tile, masked,
                           v, elementBytes(global->type.getElementType()));
    auto ifOp = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    trusted = true;
    emitAll(tb);
    trusted = false;
    OpBuilder eb(ifOp.elseBlock()->getTerminator());
    emitAll(eb);
  }
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.fill / tile.clear
//===----------------------------------------------------------------------===//

static Value flatten(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (unsigned i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  return memref::CollapseShapeOp::create(b, loc, buffer, all);
}

LogicalResult KernelLowering::lowerFill(Operation *op, Value buffer,
                                        Value value) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  auto type = cast<MemRefType>(buffer.getType());
  if (!value)
    value = zeroOf(b, loc, type.getElementType());
  switch (getMemorySpace(type)) {
  case MemorySpace::Fragment: {
    auto &[frag, regs] = fragments[buffer];
    for (int64_t r = 0, e = frag.getNumRegisters(); r < e; ++r)
      memref::StoreOp::create(b, loc, value, regs, ValueRange{cst(b, loc, r)});
    break;
  }
  case MemorySpace::Local: {
    Value flat = flatten(b, loc, buffer);
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      memref::StoreOp::create(b, loc, value, flat, ValueRange{cst(b, loc, i)});
    break;
  }
  case MemorySpace::Shared: {
    // Every element gets the value, whatever the layout: stride the flat
    // buffer over the block.
    Value flat = flatten(b, loc, buffer);
    auto loop = scf::ForOp::create(
        b, loc, tid, cst(b, loc, type.getNumElements()), cst(b, loc, threads));
    OpBuilder lb(loop.getBody()->getTerminator());
    memref::StoreOp::create(lb, loc, value, flat,
                            ValueRange{loop.getInductionVar()});
    break;
  }
  default:
    return op->emitOpError("cannot fill a buffer in global memory");
  }
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.parallel
//===----------------------------------------------------------------------===//

/// Evaluates an index computed in a parallel body from the induction
/// variables (in `env`) and constants.
static std::optional<int64_t> evalIndex(Value v,
                                        const DenseMap<Value, int64_t> &env) {
  auto it = env.find(v);
  if (it != env.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto c = dyn_cast<arith::ConstantIndexOp>(def))
    return c.value();
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> l = evalIndex(def->getOperand(0), env);
  std::optional<int64_t> r = evalIndex(def->getOperand(1), env);
  if (!l || !r)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *l + *r;
  if (isa<arith::SubIOp>(def))
    return *l - *r;
  if (isa<arith::MulIOp>(def))
    return *l * *r;
  if (*r == 0)
    return std::nullopt;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def))
    return *l / *r;
  if (isa<arith::RemUIOp, arith::RemSIOp>(def))
    return *l % *r;
  return std::nullopt;
}

LogicalResult KernelLowering::lowerParallel(ParallelOp op) {
  std::optional<Fragment> frag;
  if (FragmentAttr attr = op.getLayoutAttr())
    frag = attr.getFragmentFor(op.getExtents());
  if (!frag)
    return op.emitOpError("expected a 'layout' on the parallel loop; run "
                          "tile-infer-layout first");
  if (frag->getThreads() != threads)
    return op.emitOpError("loop layout for ")
           << frag->getThreads() << " threads in a kernel of " << threads;
  FailureOr<LoopMap> lm = buildCachedLoopMap(op, *frag);
  if (failed(lm))
    return failure();
  Block &body = op.getBody().front();
  auto ivs = body.getArguments();

  // Register of every fragment access, per loop register: a constant when
  // uniform over the threads, else computed at run time.
  DenseMap<std::pair<Operation *, int64_t>, int64_t> regOf;
  bool failedAccess = false;
  body.walk([&](Operation *access) {
    Value mem;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(access)) {
      mem = load.getMemref();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(access)) {
      mem = store.getMemref();
      indices = store.getIndices();
    } else {
      return;
    }
    auto it = fragments.find(mem);
    bool rewritten =
        it != fragments.end() || sharedLayouts.count(mem) || getSlot(mem);
    if (rewritten && access->getBlock() != &body) {
      access->emitOpError("fragment and laid-out shared buffers may only be "
                          "accessed at the top level of a parallel body");
      failedAccess = true;
      return;
    }
    if (it == fragments.end())
      return;
    const Fragment &f = it->second.first;
    bool sameIvs =
        f == *frag && indices.size() == ivs.size() && llvm::equal(indices, ivs);
    for (int64_t r = 0; r < lm->numRegs; ++r) {
      if (sameIvs && !lm->replicated) {
        regOf[{access, r}] = r;
        continue;
      }
      bool notOwned = false, unknown = false;
      int64_t reg = loopRegister(
          *lm, r, f,
          [&](ArrayRef<int64_t> c) {
            DenseMap<Value, int64_t> env;
            for (auto [iv, x] : llvm::zip(ivs, c))
              env[iv] = x;
            SmallVector<int64_t> idx;
            for (Value i : indices) {
              std::optional<int64_t> x = evalIndex(i, env);
              if (!x)
                unknown = true;
              idx.push_back(x.value_or(-1));
            }
            return idx;
          },
          notOwned);
      if (notOwned && !unknown) {
        access->emitOpError("accesses fragment elements that the thread "
                            "running the iteration does not hold; the "
                            "fragment's layout does not match the loop's");
        failedAccess = true;
        return;
      }
      regOf[{access, r}] = reg;
    }
  });
  if (failedAccess)
    return failure();

  Location loc = op.getLoc();
  OpBuilder b(op);
  emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
    SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r);
    IRMapping mapping;
    mapping.map(ivs, coords);
    for (Operation &inner : body) {
      auto rewriteAccess = [&](Value mem, ValueRange indices,
                               SmallVector<Value> &outIdx) -> Value {
        SmallVector<Value> idx;
        for (Value i : indices)
          idx.push_back(mapping.lookupOrDefault(i));
        auto fit = fragments.find(mem);
        if (fit != fragments.end()) {
          int64_t reg = regOf[{&inner, r}];
          Value regIdx =
              reg >= 0 ? cst(b, loc, reg)
                       : materialize(
                             b, loc,
                             Layout::affine(
                                 fit->second.first.getShape(),
                                 AffineMap::get(
                                     idx.size(), 0,
                                     fit->second.first.getMap().getResult(1))),
                             idx)[0];
          outIdx = {regIdx};
          return fit->second.second;
        }
        auto [m, mi] = address(b, loc, mapping.lookupOrDefault(mem), idx);
        outIdx = mi;
        return m;
      };
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        SmallVector<Value> idx;
        Value m = rewriteAccess(load.getMemref(), load.getIndices(), idx);
        mapping.map(load.getResult(),
                    memref::LoadOp::create(b, loc, m, idx).getResult());
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(inner)) {
        SmallVector<Value> idx;
        Value m = rewriteAccess(store.getMemref(), store.getIndices(), idx);
        memref::StoreOp::create(
            b, loc, mapping.lookupOrDefault(store.getValueToStore()), m, idx);
        continue;
      }
      b.clone(inner, mapping);
    }
  });
  op.erase();
  return success();
}

/// Makes `loop` yield `value` (a loop built with iteration arguments and no
/// body builder may have no terminator yet).
static void setYield(scf::ForOp loop, Value value) {
  Block *body = loop.getBody();
  if (!body->empty() && isa<scf::YieldOp>(body->back())) {
    body->back().setOperands(value);
    return;
  }
  OpBuilder b = OpBuilder::atBlockEnd(body);
  scf::YieldOp::create(b, loop.getLoc(), value);
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

static Value identityOf(OpBuilder &b, Location loc, ReduceKind kind,
                        Type type) {
  if (kind == ReduceKind::sum || kind == ReduceKind::abssum)
    return zeroOf(b, loc, type);
  if (auto ft = dyn_cast<FloatType>(type)) {
    bool neg = kind == ReduceKind::max || kind == ReduceKind::absmax;
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), neg)));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt v = kind == ReduceKind::min ? APInt::getSignedMaxValue(bits)
                                    : APInt::getSignedMinValue(bits);
  if (kind == ReduceKind::absmax)
    v = APInt::getZero(bits);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

static Value absOf(OpBuilder &b, Location loc, Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::MaxNumFOp::create(b, loc, x,
                                    arith::NegFOp::create(b, loc, x));
  Value neg = arith::SubIOp::create(b, loc, zeroOf(b, loc, x.getType()), x);
  return arith::MaxSIOp::create(b, loc, x, neg);
}

/// Combines two partial results (already absolute for abs kinds).
static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value a,
                     Value c) {
  bool isFloat = isa<FloatType>(a.getType());
  switch (kind) {
  case ReduceKind::sum:
  case ReduceKind::abssum:
    return isFloat ? arith::AddFOp::create(b, loc, a, c).getResult()
                   : arith::AddIOp::create(b, loc, a, c).getResult();
  case ReduceKind::max:
  case ReduceKind::absmax:
    return isFloat ? arith::MaxNumFOp::create(b, loc, a, c).getResult()
                   : arith::MaxSIOp::create(b, loc, a, c).getResult();
  case ReduceKind::min:
    return isFloat ? arith::MinNumFOp::create(b, loc, a, c).getResult()
                   : arith::MinSIOp::create(b, loc, a, c).getResult();
  }
  return a;
}

/// Folds element `x` into partial `acc`.
static Value accumulate(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                        Value x) {
  if (kind == ReduceKind::abssum || kind == ReduceKind::absmax)
    x = absOf(b, loc, x);
  return combine(b, loc, kind, acc, x);
}

/// `gpu.shuffle` of `v` by `mask` (xor) or offset (up, down), widening
/// narrow types to 32 bits.
static Value shuffle(OpBuilder &b, Location loc, Value v, int64_t mask,
                     gpu::ShuffleMode mode = gpu::ShuffleMode::XOR) {
  Type type = v.getType();
  Type wide = type;
  if (type.getIntOrFloatBitWidth() < 32)
    wide = isa<FloatType>(type) ? Type(b.getF32Type()) : b.getI32Type();
  Value w = convert(b, loc, v, wide);
  Value off = arith::ConstantIntOp::create(b, loc, b.getI32Type(), mask);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  Value s =
      gpu::ShuffleOp::create(b, loc, w, off, width, mode).getShuffleResult();
  return convert(b, loc, s, type);
}

/// Output coordinate of source element `c` reduced along `dim` into a
/// destination of rank `dstRank`.
static SmallVector<int64_t> reduceCoord(ArrayRef<int64_t> c, unsigned dim,
                                        unsigned dstRank) {
  SmallVector<int64_t> o(c);
  if (dstRank == c.size())
    o[dim] = 0;
  else
    o.erase(o.begin() + dim);
  return o;
}

LogicalResult KernelLowering::lowerReduce(ReduceOp op) {
  MemRefType srcType = op.getSrc().getType(), dstType = op.getDst().getType();
  MemorySpace srcSpace = getMemorySpace(srcType),
              dstSpace = getMemorySpace(dstType);
  unsigned dim = op.getDim();
  ReduceKind kind = op.getKind();
  Type elem = srcType.getElementType();
  Location loc = op.getLoc();
  OpBuilder b(op);

  if (srcSpace == MemorySpace::Shared && dstSpace == MemorySpace::Shared) {
    // One output per thread at a time, looping over the reduced dimension.
    SmallVector<int64_t> outShape(srcType.getShape());
    outShape.erase(outShape.begin() + dim);
    int64_t numOut = getNumElements(outShape);
    auto loop = scf::ForOp::create(b, loc, tid, cst(b, loc, numOut),
                                   cst(b, loc, threads));
    OpBuilder lb(loop.getBody()->getTerminator());
    Value o = loop.getInductionVar();
    SmallVector<Value> outIdx(outShape.size());
    for (int d = outShape.size() - 1; d >= 0; --d) {
      outIdx[d] = arith::RemUIOp::create(lb, loc, o, cst(lb, loc, outShape[d]));
      o = arith::DivUIOp::create(lb, loc, o, cst(lb, loc, outShape[d]));
    }
    auto inner = scf::ForOp::create(
        lb, loc, cst(lb, loc, 0), cst(lb, loc, srcType.getDimSize(dim)),
        cst(lb, loc, 1), ValueRange{identityOf(lb, loc, kind, elem)});
    {
      OpBuilder ib(inner.getBody(), inner.getBody()->begin());
      SmallVector<Value> idx(outIdx);
      idx.insert(idx.begin() + dim, inner.getInductionVar());
      auto [m, mi] = address(ib, loc, op.getSrc(), idx);
      Value x = memref::LoadOp::create(ib, loc, m, mi);
      Value acc = accumulate(ib, loc, kind, inner.getRegionIterArgs()[0], x);
      setYield(inner, acc);
    }
    Value result = inner.getResult(0);
    SmallVector<Value> dIdx(outIdx);
    if (dstType.getRank() == srcType.getRank())
      dIdx.insert(dIdx.begin() + dim, cst(lb, loc, 0));
    auto [m, mi] = address(lb, loc, op.getDst(), dIdx);
    if (!op.getClear())
      result = combine(lb, loc, kind, memref::LoadOp::create(lb, loc, m, mi),
                       result);
    memref::StoreOp::create(lb, loc, result, m, mi);
    op.erase();
    return success();
  }
  bool toShared = dstSpace == MemorySpace::Shared;
  if (srcSpace != MemorySpace::Fragment ||
      (dstSpace != MemorySpace::Fragment && !toShared))
    return op.emitOpError("reduce between ")
           << stringifyMemorySpace(srcSpace) << " and "
           << stringifyMemorySpace(dstSpace)
           << " buffers is not supported; use two fragments, a fragment "
              "into a shared buffer, or two shared buffers";
  auto &[srcFrag, srcRegs] = fragments[op.getSrc()];
  Fragment dstFrag;
  Value dstRegs;
  if (!toShared)
    std::tie(dstFrag, dstRegs) = fragments[op.getDst()];
  if (srcFrag.getReplicate() > 1)
    return op.emitOpError("reducing a replicated fragment is not supported");
  FailureOr<LoopMap> lm = buildCachedLoopMap(op, srcFrag);
  if (failed(lm))
    return failure();
  unsigned dstRank = dstType.getRank();

  // Group each thread's registers by output element; the grouping must be
  // the same on every thread.
  SmallVector<SmallVector<int64_t>> groups;
  std::map<SmallVector<int64_t>, llvm::SmallDenseSet<int64_t>> sharers;
  for (int64_t t = 0; t < lm->activeThreads; ++t) {
    SmallVector<SmallVector<int64_t>> outs;
    SmallVector<SmallVector<int64_t>> tg;
    for (int64_t r = 0; r < lm->numRegs; ++r) {
      SmallVector<int64_t> o = reduceCoord(lm->coords(t, r), dim, dstRank);
      auto it = llvm::find(outs, o);
      if (it == outs.end()) {
        outs.push_back(o);
        tg.push_back({r});
      } else {
        tg[it - outs.begin()].push_back(r);
      }
      sharers[o].insert(t);
    }
    if (t == 0)
      groups = tg;
    else if (tg != groups)
      return op.emitOpError("unsupported source layout: threads group their "
                            "registers differently by output element");
  }
  // The threads sharing an output must be t ^ S for one xor-closed S.
  SmallVector<int64_t> span;
  {
    int64_t t0 = 0;
    SmallVector<int64_t> o =
        reduceCoord(lm->coords(t0, groups[0][0]), dim, dstRank);
    for (int64_t s : sharers[o])
      span.push_back(s ^ t0);
    llvm::sort(span);
  }
  for (int64_t t = 0; t < lm->activeThreads; ++t)
    for (auto &g : groups) {
      SmallVector<int64_t> o = reduceCoord(lm->coords(t, g[0]), dim, dstRank);
      SmallVector<int64_t> s;
      for (int64_t x : sharers[o])
        s.push_back(x ^ t);
      llvm::sort(s);
      if (s != span)
        return op.emitOpError("unsupported source layout: the threads "
                              "holding an output's inputs do not form an "
                              "xor pattern");
    }
  // A basis of the span, lanes first.
  SmallVector<int64_t> basis;
  {
    llvm::DenseSet<int64_t> reached = {0};
    for (int64_t s : span) {
      if (reached.contains(s))
        continue;
      basis.push_back(s);
      SmallVector<int64_t> now(reached.begin(), reached.end());
      for (int64_t x : now)
        reached.insert(x ^ s);
    }
    if (reached.size() != span.size())
      return op.emitOpError("unsupported source layout: the threads holding "
                            "an output's inputs do not form an xor pattern");
  }
  SmallVector<int64_t> laneMasks, warpMasks;
  for (int64_t m : basis)
    (m < 32 ? laneMasks : warpMasks).push_back(m);

  // Destination registers: uniform per group, and every holder of an
  // output must have computed it.
  SmallVector<int64_t> dstReg;
  // Into shared memory, one thread of each xor class writes: the one whose
  // bits under the span are all clear.
  int64_t writerMask = 0;
  for (int64_t m : span)
    writerMask |= m;
  if (toShared && int64_t(span.size()) !=
                      (int64_t(1) << llvm::popcount(uint64_t(writerMask))))
    return op.emitOpError("unsupported source layout for a reduce into "
                          "shared memory: the threads sharing an output "
                          "differ in more than whole bits");
  for (auto &g : groups) {
    if (toShared)
      break;
    int64_t q = -1;
    for (int64_t t = 0; t < lm->activeThreads; ++t) {
      SmallVector<int64_t> o = reduceCoord(lm->coords(t, g[0]), dim, dstRank);
      int64_t reg = dstFrag.getRegister(o);
      bool owns = false;
      for (int64_t rep = 0; rep < dstFrag.getReplicate(); ++rep) {
        int64_t h = dstFrag.getThread(o, rep);
        owns |= h == t;
        if (!sharers[o].contains(h))
          return op.emitOpError("unsupported layouts: a thread holding an "
                                "output of the destination holds none of "
                                "its inputs");
      }
      if (!owns || (q >= 0 && q != reg))
        return op.emitOpError("unsupported layouts: the destination's "
                              "registers do not line up with the source's "
                              "rows");
      q = reg;
    }
    dstReg.push_back(q);
  }

  Value scratch;
  if (!warpMasks.empty()) {
    Block &kb = kernel.getBody().front();
    OpBuilder sb(&kb, kb.begin());
    auto type =
        MemRefType::get({int64_t(groups.size()) * threads}, elem, AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    scratch = AllocOp::create(sb, loc, type, Attribute());
  }

  SmallVector<Value> partials;
  auto emitPartials = [&](OpBuilder &b) {
    for (auto &g : groups) {
      Value acc = identityOf(b, loc, kind, elem);
      for (int64_t r : g)
        acc = accumulate(b, loc, kind, acc,
                         memref::LoadOp::create(b, loc, srcRegs,
                                                ValueRange{cst(b, loc, r)}));
      for (int64_t m : laneMasks)
        acc = combine(b, loc, kind, acc, shuffle(b, loc, acc, m));
      partials.push_back(acc);
    }
  };
  auto emitWrite = [&](OpBuilder &b) {
    if (toShared) {
      OpBuilder::InsertionGuard guard(b);
      if (writerMask) {
        Value bits =
            arith::AndIOp::create(b, loc, tid, cst(b, loc, writerMask));
        Value writer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             bits, cst(b, loc, 0));
        auto ifOp = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      for (auto [i, p] : llvm::enumerate(partials)) {
        SmallVector<Value> c = emitCoords(b, loc, *lm, tid, groups[i][0]);
        if (dstRank == c.size())
          c[dim] = cst(b, loc, 0);
        else
          c.erase(c.begin() + dim);
        auto [m, mi] = address(b, loc, op.getDst(), c);
        Value v = p;
        if (!op.getClear())
          v = combine(b, loc, kind, memref::LoadOp::create(b, loc, m, mi), v);
        memref::StoreOp::create(b, loc, v, m, mi);
      }
      return;
    }
    for (auto [i, p] : llvm::enumerate(partials)) {
      Value idx = cst(b, loc, dstReg[i]);
      Value v = p;
      if (!op.getClear())
        v = combine(b, loc, kind, memref::LoadOp::create(b, loc, dstRegs, idx),
                    v);
      memref::StoreOp::create(b, loc, v, dstRegs, ValueRange{idx});
    }
  };
  bool guard = lm->activeThreads < threads;
  auto guarded = [&](function_ref<void(OpBuilder &)> fn) {
    if (!guard)
      return fn(b);
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                         cst(b, loc, lm->activeThreads));
    auto ifOp = scf::IfOp::create(b, loc, active, false);
    OpBuilder ib(ifOp.thenBlock()->getTerminator());
    fn(ib);
  };
  // Shuffles run on every lane (shfl.sync names the whole warp); threads
  // without inputs only exchange their unused registers among themselves,
  // as the xor classes of the working threads hold working threads only.
  emitPartials(b);
  if (warpMasks.empty()) {
    guarded([&](OpBuilder &ib) { emitWrite(ib); });
    op.erase();
    return success();
  }
  // Across warps: publish the warp-level partials, then each thread
  // combines those of the threads in its xor class.
  SmallVector<int64_t> warpSpan = {0};
  for (int64_t m : warpMasks) {
    SmallVector<int64_t> now(warpSpan);
    for (int64_t x : now)
      warpSpan.push_back(x ^ m);
  }
  guarded([&](OpBuilder &ib) {
    for (auto [i, p] : llvm::enumerate(partials)) {
      Value at = arith::AddIOp::create(ib, loc, tid,
                                       cst(ib, loc, int64_t(i) * threads));
      memref::StoreOp::create(ib, loc, p, scratch, ValueRange{at});
    }
  });
  gpu::BarrierOp::create(b, loc);
  guarded([&](OpBuilder &ib) {
    for (auto [i, p] : llvm::enumerate(partials)) {
      Value acc = identityOf(ib, loc, kind, elem);
      for (int64_t m : warpSpan) {
        Value other = arith::XOrIOp::create(ib, loc, tid, cst(ib, loc, m));
        Value at = arith::AddIOp::create(ib, loc, other,
                                         cst(ib, loc, int64_t(i) * threads));
        acc = combine(ib, loc, kind, acc,
                      memref::LoadOp::create(ib, loc, scratch, ValueRange{at}));
      }
      partials[i] = acc;
    }
    emitWrite(ib);
  });
  // The scratch buffer may be reused by a later iteration.
  gpu::BarrierOp::create(b, loc);
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.cumsum
//===----------------------------------------------------------------------===//

/// Cumsum of fragments whose every row (along `dim`) is held by one thread:
/// a running sum over the thread's registers of each row, in order.
LogicalResult KernelLowering::lowerFragmentCumsum(CumsumOp op) {
  auto &[srcFrag, srcRegs] = fragments[op.getSrc()];
  auto &[dstFrag, dstRegs] = fragments[op.getDst()];
  if (srcFrag.getReplicate() > 1)
    return op.emitOpError("cumsum of a replicated fragment is not supported");
  FailureOr<LoopMap> lm = buildCachedLoopMap(op, srcFrag);
  if (failed(lm))
    return failure();
  unsigned dim = op.getDim();
  int64_t extent = srcFrag.getShape()[dim];
  // Registers of each row, ordered along the row; the same on every thread.
  // A row is held either by one thread or in chunks by `lanes` consecutive
  // threads, chunk k on the k-th.
  SmallVector<SmallVector<int64_t>> rows;
  int64_t lanes = 0;
  std::map<SmallVector<int64_t>, int64_t> rowGroup;
  auto unsupported = [&]() {
    return op.emitOpError("cumsum of fragments needs each row along "
                          "dimension ")
           << dim
           << " held by one thread or in equal chunks by consecutive lanes "
              "of a warp, in order";
  };
  for (int64_t t = 0; t < lm->activeThreads; ++t) {
    std::map<SmallVector<int64_t>, SmallVector<std::pair<int64_t, int64_t>>>
        byRow;
    SmallVector<SmallVector<int64_t>> order;
    for (int64_t r = 0; r < lm->numRegs; ++r) {
      ArrayRef<int64_t> c = lm->coords(t, r);
      SmallVector<int64_t> key = reduceCoord(c, dim, c.size() - 1);
      if (!byRow.count(key))
        order.push_back(key);
      byRow[key].push_back({c[dim], r});
    }
    SmallVector<SmallVector<int64_t>> tr;
    for (auto &key : order) {
      auto &elems = byRow[key];
      llvm::sort(elems);
      int64_t chunk = elems.size(), count = extent / chunk;
      if (extent % chunk != 0 || (lanes && lanes != count) || count > 32 ||
          !llvm::isPowerOf2_64(count) || elems.front().first % chunk != 0 ||
          elems.front().first / chunk != t % count ||
          elems.back().first - elems.front().first != chunk - 1)
        return unsupported();
      lanes = count;
      auto [it, inserted] = rowGroup.insert({key, t / count});
      if (!inserted && it->second != t / count)
        return unsupported();
      tr.push_back({});
      for (auto [pos, r] : elems)
        tr.back().push_back(r);
    }
    if (t == 0)
      rows = tr;
    else if (tr != rows)
      return op.emitOpError("unsupported fragment layout: threads order "
                            "their registers differently");
  }
  SmallVector<int64_t> dstReg;
  for (int64_t r = 0; r < lm->numRegs; ++r) {
    bool notOwned = false;
    int64_t q = loopRegister(
        *lm, r, dstFrag,
        [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); }, notOwned);
    if (q < 0)
      return op.emitOpError("the destination's layout does not match the "
                            "source's");
    dstReg.push_back(q);
  }
  Location loc = op.getLoc();
  OpBuilder b(op);
  Type elem = op.getSrc().getType().getElementType();
  bool reverse = op.getReverse();
  // Per row: the thread's running sums, then (rows over several lanes) the
  // sum of the chunks before this one, from a Kogge-Stone scan of the chunk
  // totals with shuffles up (down when reversed), on every lane.
  Value lane;
  if (lanes > 1)
    lane = arith::AndIOp::create(b, loc, tid, cst(b, loc, lanes - 1));
  auto laneHas = [&](int64_t off) -> Value {
    // Whether the lane `off` lanes before (after, reversed) is in the row.
    if (!reverse)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane,
                                   cst(b, loc, off));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                 cst(b, loc, lanes - off));
  };
  gpu::ShuffleMode mode =
      reverse ? gpu::ShuffleMode::DOWN : gpu::ShuffleMode::UP;
  SmallVector<std::pair<int64_t, Value>> results;
  for (auto &row : rows) {
    SmallVector<int64_t> regs(row);
    if (reverse)
      std::reverse(regs.begin(), regs.end());
    Value acc = zeroOf(b, loc, elem);
    SmallVector<Value> sums;
    for (int64_t r : regs) {
      Value x =
          memref::LoadOp::create(b, loc, srcRegs, ValueRange{cst(b, loc, r)});
      acc = accumulate(b, loc, ReduceKind::sum, acc, x);
      sums.push_back(acc);
    }
    if (lanes > 1) {
      Value inclusive = acc;
      for (int64_t off = 1; off < lanes; off *= 2) {
        Value other = shuffle(b, loc, inclusive, off, mode);
        Value added = accumulate(b, loc, ReduceKind::sum, inclusive, other);
        inclusive =
            arith::SelectOp::create(b, loc, laneHas(off), added, inclusive);
      }
      Value before = shuffle(b, loc, inclusive, 1, mode);
      before = arith::SelectOp::create(b, loc, laneHas(1), before,
                                       zeroOf(b, loc, elem));
      for (Value &sum : sums)
        sum = accumulate(b, loc, ReduceKind::sum, before, sum);
    }
    for (auto [r, sum] : llvm::zip(regs, sums))
      results.push_back({dstReg[r], sum});
  }
  OpBuilder::InsertionGuard guard(b);
  if (lm->activeThreads < threads) {
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                         cst(b, loc, lm->activeThreads));
    auto ifOp = scf::IfOp::create(b, loc, active, false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  for (auto [q, sum] : results)
    memref::StoreOp::create(b, loc, sum, dstRegs, ValueRange{cst(b, loc, q)});
  op.erase();
  return success();
}

LogicalResult KernelLowering::lowerCumsum(CumsumOp op) {
  MemRefType type = op.getSrc().getType();
  if (getMemorySpace(type) == MemorySpace::Fragment &&
      getMemorySpace(op.getDst().getType()) == MemorySpace::Fragment)
    return lowerFragmentCumsum(op);
  if (getMemorySpace(type) != MemorySpace::Shared ||
      getMemorySpace(op.getDst().getType()) != MemorySpace::Shared)
    return op.emitOpError("cumsum needs two shared buffers or two "
                          "fragments");
  unsigned dim = op.getDim();
  Location loc = op.getLoc();
  OpBuilder b(op);
  Type elem = type.getElementType();
  SmallVector<int64_t> rowShape(type.getShape());
  int64_t n = rowShape[dim];
  rowShape.erase(rowShape.begin() + dim);
  auto loop = scf::ForOp::create(
      b, loc, tid, cst(b, loc, getNumElements(rowShape)), cst(b, loc, threads));
  OpBuilder lb(loop.getBody()->getTerminator());
  Value o = loop.getInductionVar();
  SmallVector<Value> rowIdx(rowShape.size());
  for (int d = rowShape.size() - 1; d >= 0; --d) {
    rowIdx[d] = arith::RemUIOp::create(lb, loc, o, cst(lb, loc, rowShape[d]));
    o = arith::DivUIOp::create(lb, loc, o, cst(lb, loc, rowShape[d]));
  }
  auto inner =
      scf::ForOp::create(lb, loc, cst(lb, loc, 0), cst(lb, loc, n),
                         cst(lb, loc, 1), ValueRange{zeroOf(lb, loc, elem)});
  OpBuilder ib(inner.getBody(), inner.getBody()->begin());
  Value k = inner.getInductionVar();
  if (op.getReverse())
    k = arith::SubIOp::create(ib, loc, cst(ib, loc, n - 1), k);
  SmallVector<Value> idx(rowIdx);
  idx.insert(idx.begin() + dim, k);
  auto [sm, si] = address(ib, loc, op.getSrc(), idx);
  Value x = memref::LoadOp::create(ib, loc, sm, si);
  Value acc =
      accumulate(ib, loc, ReduceKind::sum, inner.getRegionIterArgs()[0], x);
  auto [dm, di] = address(ib, loc, op.getDst(), idx);
  memref::StoreOp::create(ib, loc, acc, dm, di);
  setYield(inner, acc);
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.atomic
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerAtomic(AtomicOp op) {
  MemRefType srcType = op.getSrc().getType();
  SmallVector<int64_t> tile(srcType.getShape());
  Operand src = makeOperand(op.getSrc(), {}, tile.size());
  Operand dst = makeOperand(op.getDst(), op.getDstIndices(), tile.size());
  if (dst.space != MemorySpace::Global && dst.space != MemorySpace::Shared)
    return op.emitOpError("atomic destination must be global or shared");
  FailureOr<LoopMap> lm = getLoopMap(
      op, tile, src.space == MemorySpace::Fragment ? src.buffer : Value(),
      src.space == MemorySpace::Local);
  if (failed(lm))
    return failure();
  SmallVector<int64_t> srcRegs;
  if (src.space == MemorySpace::Fragment) {
    const Fragment &frag = fragments[src.buffer].first;
    for (int64_t r = 0; r < lm->numRegs; ++r) {
      bool notOwned = false;
      int64_t reg = loopRegister(
          *lm, r, frag,
          [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); },
          notOwned);
      if (reg < 0)
        return op.emitOpError("the atomic's loop layout does not match the "
                              "fragment's layout");
      srcRegs.push_back(reg);
    }
  }
  Type dstElem = dst.type.getElementType();
  bool isFloat = isa<FloatType>(dstElem);
  arith::AtomicRMWKind rmw;
  switch (op.getKind()) {
  case AtomicKind::add:
    rmw = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case AtomicKind::max:
    rmw = isFloat ? arith::AtomicRMWKind::maxnumf : arith::AtomicRMWKind::maxs;
    break;
  case AtomicKind::min:
    rmw = isFloat ? arith::AtomicRMWKind::minnumf : arith::AtomicRMWKind::mins;
    break;
  }
  bool mask = dst.space == MemorySpace::Global && needsMask(dst.type, tile);
  Location loc = op.getLoc();
  OpBuilder b(op);
  emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
    OpBuilder::InsertionGuard guard(b);
    Value replica;
    SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
    guardFirstReplica(b, loc, replica);
    Value value;
    if (src.space == MemorySpace::Fragment) {
      value = memref::LoadOp::create(b, loc, fragments[src.buffer].second,
                                     ValueRange{cst(b, loc, srcRegs[r])});
    } else {
      auto [m, mi] = address(b, loc, src.buffer, coords);
      value = memref::LoadOp::create(b, loc, m, mi);
    }
    value = convert(b, loc, value, dstElem);
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    auto [m, mi] = address(b, loc, dst.buffer, idx);
    if (!mask) {
      memref::AtomicRMWOp::create(b, loc, rmw, value, m, mi);
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, inBounds(b, loc, m, mi, 0), false);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    memref::AtomicRMWOp::create(tb, loc, rmw, value, m, mi);
  });
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Epilogue TMA stores
//===----------------------------------------------------------------------===//

/// TMA boxes of swizzled shared memory span one 128-byte swizzle row of
/// columns: 64 halves or 32 floats.
static constexpr int64_t kStoreSwizzleBytes = 128;
/// Staging buffers at least this large are 1024-byte aligned by
/// planSharedMemory(), which the 128-byte swizzle pattern requires.
static constexpr int64_t kStagingMinBytes = 8192;
/// The shared-alignment convert-tile-to-gpu uses by default.
static constexpr int64_t kDefaultSharedAlignment = 16;

Value lowering::sharedPointer(OpBuilder &b, Location loc, Value buffer,
                              Value byteOffset) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value addr = arith::AddIOp::create(b, loc, base, byteOffset);
  Value word = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), addr);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), word);
}

/// Makes `b` insert under `tid == 0`, the consumer thread that issues the
/// bulk copies and waits for them.
static void insertInFirstThread(OpBuilder &b, Location loc, Value tid) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      cst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// Lowers `op`, a copy of a whole fragment into a 2-d global tensor run by
/// the consumers of a warp-specialized kernel, to TMA stores: the tile goes
/// out in column chunks of one 128-byte swizzle row (rows x chunkCols
/// boxes), each staged in a swizzled shared buffer. Per chunk j (buffer
/// p = j mod buffers):
///
///   if j >= buffers: thread 0 waits until at most buffers - 1 bulk groups
///                    still read shared memory; consumer barrier
///   every thread:    writes its elements of the chunk, converted, to
///                    staging[p][row][c ^ ((row mod 8) * 16 / elementBytes)]
///                    (c = column - j * chunkCols); fence.proxy.async
///   consumer barrier
///   thread 0:        TMA store of staging[p] to (row m, column n + j *
///                    chunkCols); commit the bulk group
///
/// and at the end thread 0 waits for every bulk group. TMA skips the parts
/// of a box outside the tensor, so ragged edges need no masks. Returns
/// std::nullopt, with nothing built, where this does not apply (the caller
/// then stores from registers).
static std::optional<LogicalResult>
lowerTmaStore(KernelLowering &kl, CopyOp op, const LoweringOptions &options) {
  KernelOp kernel = kl.kernel;
  auto consumers = dyn_cast<scf::IfOp>(op->getParentOp());
  if (!options.tmaStore || options.chip != "sm_90a" || !consumers ||
      !consumers->hasAttr(kConsumerAttr) ||
      op->getBlock() != consumers.thenBlock())
    return std::nullopt;
  Value src = op.getSrc(), dst = op.getDst();
  MemRefType dstType = op.getDst().getType();
  if (getMemorySpace(op.getSrc().getType()) != MemorySpace::Fragment ||
      !op.getSrcIndices().empty() || !kl.fragments.count(src) ||
      getMemorySpace(dstType) != MemorySpace::Global ||
      dstType.getRank() != 2 || !dstType.getLayout().isIdentity() ||
      op.getDstIndices().size() != 2 ||
      kernel.getBody().isAncestor(dst.getParentRegion()))
    return std::nullopt;
  Type element = dstType.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return std::nullopt;
  SmallVector<int64_t> tile = op.getTileShape();
  if (tile.size() != 2)
    return std::nullopt;
  int64_t bytes = elementBytes(element);
  int64_t chunkCols = kStoreSwizzleBytes / bytes;
  int64_t rows = tile[0], cols = tile[1], chunks = cols / chunkCols;
  if (rows % 8 != 0 || rows > 256 || cols % chunkCols != 0)
    return std::nullopt;
  // The staging index below, (row, c ^ ((row mod 8) * unitCols)), must be
  // where the 128-byte swizzle the TMA loads are planned with (and TMA
  // applies to a box of 128-byte rows) puts element (row, c).
  int64_t unitCols = 16 / bytes;
  std::optional<Layout> swizzle = Layout::swizzled(
      kernel.getContext(), {rows, chunkCols}, kStoreSwizzleBytes, bytes * 8);
  if (!swizzle)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < chunkCols; ++c)
      if (swizzle->apply({r, c})[0] !=
          r * chunkCols + (c ^ ((r % 8) * unitCols)))
        return std::nullopt;

  FailureOr<LoopMap> lm = kl.getLoopMap(op, tile, src);
  if (failed(lm))
    return failure();
  if (lm->perThread)
    return std::nullopt;
  int64_t maxWidth = 16 / bytes;
  if (std::optional<uint64_t> w = op.getCoalescedWidth())
    maxWidth = std::min<int64_t>(maxWidth, *w);
  int64_t v = pickVectorWidth(*lm, maxWidth, {});
  // Each vector of the loop must belong to one chunk on every thread, so
  // that a chunk is written by straight-line code.
  const Fragment &frag = kl.fragments[src].first;
  SmallVector<int64_t> chunkOf(lm->numRegs, -1), srcRegs(lm->numRegs, -1);
  for (int64_t r = 0; r < lm->numRegs; ++r) {
    bool notOwned = false;
    srcRegs[r] = loopRegister(
        *lm, r, frag,
        [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); }, notOwned);
    if (srcRegs[r] < 0)
      return std::nullopt;
    if (r % v != 0)
      continue;
    chunkOf[r] = lm->coords(0, r)[1] / chunkCols;
    for (int64_t t = 1; t < lm->activeThreads; ++t)
      if (lm->coords(t, r)[1] / chunkCols != chunkOf[r])
        return std::nullopt;
  }

  // Double-buffer the chunks where both buffers fit beside the rest of
  // the kernel's shared memory, else one buffer, else no TMA store.
  std::optional<ChipLimits> limits = getChipLimits(options.chip);
  int64_t used = llvm::alignTo(
      planSharedMemory(kernel, kDefaultSharedAlignment).totalBytes, 1024);
  int64_t bufferBytes = rows * kStoreSwizzleBytes;
  int64_t buffers = 0;
  for (int64_t n : {std::min<int64_t>(2, chunks), int64_t(1)})
    if (n * bufferBytes >= kStagingMinBytes &&
        used + n * bufferBytes <= limits->sharedBytes) {
      buffers = n;
      break;
    }
  if (!buffers)
    return std::nullopt;

  MLIRContext *ctx = kernel.getContext();
  Location loc = op.getLoc();
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);

  // Host side: the tensor map of the destination, one box per chunk.
  Value tensorMap;
  {
    OpBuilder hb(kernel);
    Value unranked = memref::CastOp::create(
        hb, loc, UnrankedMemRefType::get(element, 0), dst);
    auto box = MemRefType::get({rows, chunkCols}, element, AffineMap(), shared);
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    tensorMap = nvgpu::TmaCreateDescriptorOp::create(
        hb, loc, type, unranked,
        ValueRange{cst(hb, loc, rows), cst(hb, loc, chunkCols)});
  }

  // The staging buffers, beside the kernel's other shared allocations.
  Value staging;
  {
    OpBuilder sb(consumers);
    auto type = MemRefType::get({buffers, rows, chunkCols}, element,
                                AffineMap(), shared);
    staging = AllocOp::create(sb, loc, type, Attribute());
  }

  OpBuilder b(op);
  Value tid = kl.tid;
  Value desc = UnrealizedConversionCastOp::create(
                   b, loc, LLVM::LLVMPointerType::get(ctx), tensorMap)
                   .getResult(0);
  Value row0 =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), op.getDstIndices()[0]);
  Value col0 = op.getDstIndices()[1];
  Value regs = kl.fragments[src].second;
  Type srcElem = op.getSrc().getType().getElementType();
  for (int64_t j = 0; j < chunks; ++j) {
    int64_t p = j % buffers;
    if (j >= buffers) {
      OpBuilder::InsertionGuard guard(b);
      insertInFirstThread(b, loc, tid);
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, buffers - 1,
                                           b.getUnitAttr());
    }
    if (j >= buffers)
      gpu::BarrierOp::create(b, loc);
    emitPerRegister(b, loc, *lm, tid, kl.threads, [&](OpBuilder &b, int64_t r) {
      if (chunkOf[r] != j)
        return;
      OpBuilder::InsertionGuard guard(b);
      Value replica;
      SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
      guardFirstReplica(b, loc, replica);
      SmallVector<Value> elems;
      for (int64_t k = 0; k < v; ++k)
        elems.push_back(memref::LoadOp::create(
            b, loc, regs, ValueRange{cst(b, loc, srcRegs[r + k])}));
      Value value = v > 1 ? vector::FromElementsOp::create(
                                b, loc, VectorType::get({v}, srcElem), elems)
                                .getResult()
                          : elems[0];
      value = convert(b, loc, value, element);
      // The 128-byte swizzle: 16-byte unit u of row r sits at unit
      // u ^ (r mod 8) of the row.
      Value row = coords[0];
      Value col = b.createOrFold<arith::SubIOp>(loc, coords[1],
                                                cst(b, loc, j * chunkCols));
      Value unitXor = b.createOrFold<arith::MulIOp>(
          loc, b.createOrFold<arith::AndIOp>(loc, row, cst(b, loc, 7)),
          cst(b, loc, unitCols));
      Value swizzled = b.createOrFold<arith::XOrIOp>(loc, col, unitXor);
      SmallVector<Value> idx = {cst(b, loc, p), row, swizzled};
      if (v > 1)
        vector::StoreOp::create(b, loc, value, staging, idx,
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(v * bytes));
      else
        memref::StoreOp::create(b, loc, value, staging, idx);
    });
    // The TMA engine reads the buffer through the async proxy.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
    OpBuilder::InsertionGuard guard(b);
    insertInFirstThread(b, loc, tid);
    Value from = sharedPointer(b, loc, staging,
                               cst(b, loc, p * rows * kStoreSwizzleBytes));
    Value col = arith::AddIOp::create(b, loc, col0, cst(b, loc, j * chunkCols));
    SmallVector<Value> box = {
        arith::IndexCastOp::create(b, loc, b.getI32Type(), col), row0};
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, loc, desc, from, box, Value(),
        NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE), Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    insertInFirstThread(b, loc, tid);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
  }
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::lowerTileOps(KernelOp kernel,
                                       const LoweringOptions &options) {
  KernelLowering kl;
  kl.kernel = kernel;
  kl.chip = options.chip;
  if (failed(kl.init()))
    return failure();
  SmallVector<Operation *> ops;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<CopyOp, FillOp, ClearOp, ParallelOp, ReduceOp, CumsumOp, AtomicOp,
            GemmOp>(op)) {
      ops.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  bool ok = true;
  for (Operation *op : ops) {
    LogicalResult r =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](CopyOp o) {
              if (std::optional<LogicalResult> r =
                      lowerTmaStore(kl, o, options))
                return *r;
              return kl.lowerCopy(o);
            })
            .Case([&](FillOp o) {
              return kl.lowerFill(o, o.getBuffer(), o.getValue());
            })
            .Case([&](ClearOp o) {
              return kl.lowerFill(o, o.getBuffer(), Value());
            })
            .Case([&](ParallelOp o) { return kl.lowerParallel(o); })
            .Case([&](ReduceOp o) { return kl.lowerReduce(o); })
            .Case([&](CumsumOp o) { return kl.lowerCumsum(o); })
            .Case([&](AtomicOp o) { return kl.lowerAtomic(o); })
            .Case([&](GemmOp o) { return kl.lowerGemm(o); });
    ok &= succeeded(r);
  }
  if (!ok)
    return failure();
  // Fragment buffers still used by operators left for later passes (gemm)
  // stay; the others are gone.
  for (auto &[buffer, entry] : kl.fragments) {
    if (buffer.use_empty())
      buffer.getDefiningOp()->erase();
    else if (entry.second.use_empty())
      entry.second.getDefiningOp()->erase();
  }
  return success();
}

void mlir::tile::loadLoweringDialects(MLIRContext *context) {
  context
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, memref::MemRefDialect,
                    NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                    vector::VectorDialect, LLVM::LLVMDialect>();
}

LogicalResult mlir::tile::lowerKernel(KernelOp kernel,
                                      const LoweringOptions &options) {
  if (!StringRef(options.chip).starts_with("sm_") ||
      !getChipLimits(options.chip))
    return kernel.emitOpError() << "cannot be lowered for unknown NVIDIA chip '"
                                << options.chip << "'";
  // Lowering per-thread code again would place barriers after terminators
  // and distribute registers a second time.
  if (kernel->hasAttr(kLoweredAttr))
    return kernel.emitOpError()
           << "is already lowered (tile-lower ran on it); run tile-lower "
              "once per kernel, after tile-infer-layout";
  if (failed(pipelineLoops(kernel, options)))
    return failure();
  insertSharedBarriers(kernel);
  if (failed(lowerTileOps(kernel, options)))
    return failure();
  // Block-wide barriers among the consumers of a warp-specialized kernel
  // must not wait for the producer warpgroup: a named barrier over the
  // consumer threads only.
  kernel.walk([&](scf::IfOp consumers) {
    if (!consumers->hasAttr(kConsumerAttr))
      return;
    consumers.getThenRegion().walk([&](gpu::BarrierOp barrier) {
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      NVVM::BarrierOp::create(
          b, loc, Type(),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                       kernel.getThreads()),
          NVVM::BarrierReductionAttr(), Value());
      barrier.erase();
    });
  });
  kernel->setAttr(kLoweredAttr, UnitAttr::get(kernel->getContext()));
  return success();
}

namespace {
struct TileLowerPass : public tile::impl::TileLowerBase<TileLowerPass> {
  using TileLowerBase::TileLowerBase;

  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp k) { kernels.push_back(k); });
    LoweringOptions options;
    options.chip = chip;
    options.warpSpecialize = warpSpecialize;
    options.tmaStore = tmaStore;
    bool ok = true;
    for (KernelOp kernel : kernels)
      ok &= succeeded(lowerKernel(kernel, options));
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
