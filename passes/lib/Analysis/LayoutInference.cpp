//===- LayoutInference.cpp - layout and fragment inference ----------------===//
//
// Layout and fragment inference (TileLang paper §4.2). Every fragment and
// shared buffer of a kernel gets a layout, every tile.parallel a thread
// binding and every tile operator lowered as a loop nest a `tile.loop`
// binding, by priority levels (InferenceLevel): tensor-core operands first,
// then fragments derived from fragments (reductions), then loops (a loop
// runs each point on the threads holding what it touches, and hands its
// binding to the fragments it reaches first), then whatever is still free
// (coalesced bindings, widest vectors). The operators say what they need
// through TileOpInterface::inferLayout(); this file holds the driver and
// the machinery every operator shares: buffers, loop nests, derivations.
//
// Requirements are recorded with the op that made them, so a buffer that
// two ops want laid out differently is reported at the second op, naming
// the buffer, both layouts and where the first came from.
//
//===----------------------------------------------------------------------===//

#include "Analysis/LayoutInference.h"
#include "Analysis/LayoutInferenceUtils.h"
#include "Ops/OpModels.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

LayoutInferenceState::LayoutInferenceState(KernelOp kernel,
                                           const InferLayoutOptions &options)
    : kernel(kernel), options(options), ctx(kernel.getContext()),
      threads(kernel.getThreads()) {}

int64_t LayoutInferenceState::elementBytes(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIndex() ? 8 : (element.getIntOrFloatBitWidth() + 7) / 8;
}

BufferLayout *LayoutInferenceState::lookupOperand(Value value, Value &root) {
  root = value;
  while (auto view = root.getDefiningOp<memref::SubViewOp>()) {
    if (view.getSourceType().getRank() != view.getType().getRank() ||
        llvm::any_of(view.getStaticOffsets(), ShapedType::isDynamic) ||
        !llvm::all_of(view.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return nullptr;
    root = view.getSource();
  }
  BufferLayout *buffer = lookup(root);
  if (root != value && (!buffer || buffer->space != MemorySpace::Shared))
    return nullptr;
  return buffer;
}

std::string LayoutInferenceState::name(Value value) {
  if (!asmState) {
    Operation *scope = kernel;
    while (scope->getParentOp() &&
           !scope->hasTrait<OpTrait::IsIsolatedFromAbove>())
      scope = scope->getParentOp();
    asmState = std::make_unique<AsmState>(scope);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, *asmState);
  return text;
}

int64_t mlir::tile::knownDivisor(Value value, int depth) {
  constexpr int64_t kLarge = int64_t(1) << 30;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = std::abs(constant.getSExtValue());
    return c == 0 ? kLarge : std::min(c, kLarge);
  }
  Operation *def = value.getDefiningOp();
  if (!def || depth > 8)
    return 1;
  if (isa<arith::MulIOp>(def))
    return std::min(kLarge, knownDivisor(def->getOperand(0), depth + 1) *
                                knownDivisor(def->getOperand(1), depth + 1));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownDivisor(def->getOperand(0), depth + 1),
                    knownDivisor(def->getOperand(1), depth + 1));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return knownDivisor(def->getOperand(0), depth + 1);
  // A quotient keeps what is left of the dividend's divisor.
  if (isa<arith::DivUIOp, arith::DivSIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&constant)) &&
      constant.getSExtValue() > 0) {
    int64_t d = knownDivisor(def->getOperand(0), depth + 1);
    int64_t c = constant.getSExtValue();
    return d % c == 0 ? d / c : 1;
  }
  return 1;
}

/// True when every run of `vector` elements along the innermost dimension,
/// starting at a multiple of `vector`, sits at `vector` consecutive offsets
/// starting at a multiple of `vector`.
static bool keepsVectors(const Layout &layout, int64_t vector) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.empty() || shape.back() % vector != 0 ||
      getNumElements(shape) > (int64_t(1) << 20))
    return false;
  bool ok = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (!ok)
      return;
    int64_t lane = coords.back() % vector;
    int64_t offset = layout.apply(coords)[0];
    SmallVector<int64_t> first(coords.begin(), coords.end());
    first.back() -= lane;
    int64_t base = layout.apply(first)[0];
    ok = base % vector == 0 && offset == base + lane;
  });
  return ok;
}

/// Largest power of two dividing both.
int64_t mlir::tile::alignVectorTo(int64_t vector, int64_t divisor) {
  int64_t g = std::gcd(vector, divisor);
  return g <= 0 ? 1 : int64_t(1) << llvm::Log2_64(g);
}

/// The vector width a global or shared operand allows: its row stride and
/// the origin of the tile in it must be multiples of the vector.
int64_t mlir::tile::alignForOperand(int64_t vector, MemRefType type,
                                    ValueRange indices) {
  if (type.getRank() >= 2 && !ShapedType::isDynamic(type.getShape().back()))
    vector = alignVectorTo(vector, type.getShape().back());
  if (!indices.empty())
    vector = alignVectorTo(vector, knownDivisor(indices.back()));
  return vector;
}

//===----------------------------------------------------------------------===//
// Collecting the problem
FailureOr<bool> LayoutInferenceState::isFragmentOperand(Operation *op,
                                                        Value value) {
  auto type = cast<MemRefType>(value.getType());
  if (getMemorySpace(type) != MemorySpace::Fragment)
    return false;
  if (!lookup(value))
    return op->emitOpError()
           << "expects fragment operand " << name(value)
           << " to be a tile.alloc of the kernel, so that it can be laid out";
  return true;
}

void LayoutInferenceState::addBuffer(Value value, BufferLayout buffer) {
  buffers.insert({value, std::move(buffer)});
}

void LayoutInferenceState::addLoop(LoopSite site) {
  loopIndex[site.op] = loops.size();
  loops.push_back(std::move(site));
}

LoopSite *LayoutInferenceState::getLoop(Operation *op) {
  auto it = loopIndex.find(op);
  return it == loopIndex.end() ? nullptr : &loops[it->second];
}

void LayoutInferenceState::addDerivation(Derivation derivation) {
  derivationIndex[derivation.op] = derivations.size();
  derivations.push_back(std::move(derivation));
}

//===----------------------------------------------------------------------===//
// Collecting loop nests
//===----------------------------------------------------------------------===//

LogicalResult
LayoutInferenceState::collectTileLoop(Operation *op,
                                      const TileLoopOperands &operands) {
  const SmallVector<int64_t> &shape = operands.shape;
  if (shape.empty())
    return op->emitOpError()
           << "layout inference needs tiles of rank 1 or more";
  LoopSite site;
  site.op = op;
  site.shape = shape;
  Value src = operands.src, dst = operands.dst;
  int64_t bytes = elementBytes(src.getType());
  if (dst)
    bytes = std::max(bytes, elementBytes(dst.getType()));
  int64_t vector = alignVectorTo(maxVector(bytes), shape.back());
  struct Operand {
    Value value;
    ValueRange indices;
    bool write;
  };
  SmallVector<Operand> list = {{src, operands.srcIndices, operands.writesSrc}};
  if (dst)
    list.push_back({dst, operands.dstIndices, true});
  auto identity = [](int64_t rank) {
    SmallVector<int64_t> index(rank);
    std::iota(index.begin(), index.end(), 0);
    return index;
  };
  for (const Operand &operand : list) {
    auto type = cast<MemRefType>(operand.value.getType());
    MemorySpace space = getMemorySpace(type);
    if (space == MemorySpace::Local) {
      site.everyThread = true;
      continue;
    }
    if (space == MemorySpace::Global || space == MemorySpace::Shared) {
      vector = alignForOperand(vector, type, operand.indices);
      if (space == MemorySpace::Shared &&
          !(operands.dstMayScatter && operand.value == dst &&
            operand.indices.empty() &&
            !options.target.has(TargetFeature::cp_async)))
        site.sharedOperands.push_back(operand.value);
      continue;
    }
    FailureOr<bool> isFragment = isFragmentOperand(op, operand.value);
    if (failed(isFragment))
      return failure();
    if (!operand.indices.empty())
      return op->emitOpError()
             << "moves part of fragment " << name(operand.value)
             << "; layout inference needs whole fragments as copy operands";
    SmallVector<int64_t> index = identity(type.getRank());
    // The destination of a reduction drops (or keeps as 1) the reduced
    // dimension.
    if (operands.reducedDim && operand.value == dst) {
      int64_t dim = *operands.reducedDim;
      index = identity(shape.size());
      if (type.getRank() == static_cast<int64_t>(shape.size()))
        index[dim] = -1;
      else
        index.erase(index.begin() + dim);
    }
    site.accesses.push_back({operand.value, index, operand.write});
  }
  if (operands.vectorWidth)
    vector = *operands.vectorWidth;
  site.vector = vector;
  if (auto loop = op->getAttrOfType<FragmentAttr>(kLoopLayoutAttrName)) {
    site.layout = loop.getFragmentFor(site.shape);
    if (!site.layout || site.layout->getThreads() != threads ||
        !site.layout->isInjective())
      return op->emitOpError()
             << "expected '" << kLoopLayoutAttrName << "' to bind the "
             << site.shape.size() << "-d tile to distinct slots of the "
             << threads << " threads of the kernel, got " << loop;
    site.source = {op, "its '" + kLoopLayoutAttrName.str() + "' attribute"};
  }
  addLoop(std::move(site));
  return success();
}

//===----------------------------------------------------------------------===//
// Requirements and conflicts
//===----------------------------------------------------------------------===//

InFlightDiagnostic
LayoutInferenceState::reportConflict(Operation *at, Value value,
                                     const Fragment &wanted, StringRef why,
                                     const BufferLayout &buffer) {
  InFlightDiagnostic diag = at->emitOpError();
  diag << "needs " << name(value) << " laid out as "
       << FragmentAttr::get(ctx, wanted) << " (from " << why << "), but "
       << buffer.source.op->getName() << " at " << buffer.source.op->getLoc()
       << " requires " << FragmentAttr::get(ctx, *buffer.fragment);
  diag.attachNote(buffer.source.op->getLoc())
      << name(value) << " gets its layout here, from " << buffer.source.why;
  return diag;
}

LogicalResult LayoutInferenceState::setFragment(BufferLayout &buffer,
                                                Value value,
                                                const Fragment &fragment,
                                                LayoutSource source) {
  // Every layout handed to the lowering must hold each element once per
  // thread.
  if (!fragment.isInjective())
    return source.op->emitOpError()
           << "would lay out " << name(value) << " as "
           << FragmentAttr::get(ctx, fragment) << " (" << source.why
           << "), which places two elements in one register";
  buffer.fragment = fragment;
  buffer.source = std::move(source);
  return success();
}

LogicalResult LayoutInferenceState::requireFragment(Value value,
                                                    const Fragment &fragment,
                                                    LayoutSource source) {
  BufferLayout *buffer = lookup(value);
  if (!buffer->fragment)
    return setFragment(*buffer, value, fragment, std::move(source));
  if (buffer->fragment->isEquivalentTo(fragment))
    return success();
  reportConflict(source.op, value, fragment, source.why, *buffer);
  return failure();
}

//===----------------------------------------------------------------------===//
// Derived fragments
//===----------------------------------------------------------------------===//

LogicalResult LayoutInferenceState::inferDerivation(Operation *op,
                                                    InferenceLevel level) {
  auto it = derivationIndex.find(op);
  if (it == derivationIndex.end())
    return success();
  Derivation &d = derivations[it->second];
  BufferLayout *from = lookup(d.src), *to = lookup(d.dst);
  auto dstType = cast<MemRefType>(d.dst.getType());
  if (level == InferenceLevel::Derived) {
    if (from->fragment && !to->fragment) {
      std::string reason;
      FailureOr<Fragment> slice =
          sliceFragment(*from->fragment, d.index, dstType.getShape(), reason);
      if (failed(slice))
        return op->emitOpError()
               << "cannot derive the layout of " << name(d.dst) << " from "
               << name(d.src) << " laid out as "
               << FragmentAttr::get(ctx, *from->fragment) << ": " << reason;
      if (failed(setFragment(*to, d.dst, *slice,
                             {op, "the " + op->getName().getStringRef().str() +
                                      " of " + name(d.src)})))
        return failure();
      markProgress();
    } else if (!from->fragment && to->fragment && d.reversible) {
      if (failed(setFragment(*from, d.src, *to->fragment,
                             {op, "the " + op->getName().getStringRef().str() +
                                      " into " + name(d.dst)})))
        return failure();
      markProgress();
    }
    return success();
  }
  if (level != InferenceLevel::Check)
    return success();
  if (loopCanAccess(*from->fragment, d.index, *to->fragment, /*write=*/true))
    return success();
  std::string reason;
  FailureOr<Fragment> wanted =
      sliceFragment(*from->fragment, d.index, dstType.getShape(), reason);
  std::string why = "the threads holding " + name(d.src);
  if (succeeded(wanted))
    reportConflict(op, d.dst, *wanted, why, *to);
  else
    op->emitOpError() << "cannot combine " << name(d.src) << " laid out as "
                      << FragmentAttr::get(ctx, *from->fragment) << " into "
                      << name(d.dst) << " laid out as "
                      << FragmentAttr::get(ctx, *to->fragment) << " by "
                      << to->source.op->getName() << " at "
                      << to->source.op->getLoc();
  return failure();
}

//===----------------------------------------------------------------------===//
// Loop nests
//===----------------------------------------------------------------------===//

LogicalResult LayoutInferenceState::inferLoop(Operation *op,
                                              InferenceLevel level) {
  LoopSite *site = getLoop(op);
  if (!site)
    return success();
  switch (level) {
  case InferenceLevel::Loop:
    break;
  case InferenceLevel::Free: {
    if (site->layout)
      return success();
    if (std::optional<Fragment> spread = spreadOverReplicas(*site)) {
      site->layout = spread;
    } else {
      site->layout = defaultBinding(*site);
      site->source = {site->op, "its default thread binding"};
    }
    if (!site->layout->isInjective())
      return op->emitOpError()
             << "would run as " << FragmentAttr::get(ctx, *site->layout)
             << ", which places two points in one register";
    markProgress();
    return success();
  }
  case InferenceLevel::Check:
    return checkLoop(*site);
  case InferenceLevel::Commit: {
    FragmentAttr attr = FragmentAttr::get(ctx, *site->layout);
    if (site->commit)
      site->commit(attr);
    else
      op->setAttr(kLoopLayoutAttrName, attr);
    return success();
  }
  default:
    return success();
  }
  if (!site->layout) {
    // The binding of the first laid-out fragment the loop walks whole.
    for (const LoopAccess &access : site->accesses) {
      BufferLayout *buffer = lookup(access.buffer);
      if (!buffer->fragment || access.index.size() != site->shape.size())
        continue;
      SmallVector<int64_t> dims = access.index;
      llvm::sort(dims);
      bool permutation = true;
      for (unsigned d = 0; d < dims.size(); ++d)
        permutation &= dims[d] == static_cast<int64_t>(d);
      if (!permutation)
        continue;
      // Point p runs where element index(p) is: compose with the map
      // from loop points to buffer coordinates.
      SmallVector<AffineExpr> results;
      for (int64_t i : access.index)
        results.push_back(getAffineDimExpr(i, ctx));
      std::optional<Fragment> layout = buffer->fragment->compose(Layout::affine(
          site->shape, AffineMap::get(site->shape.size(), 0, results, ctx)));
      // A loop wider than the fragment would run two points in one slot.
      if (!layout || !layout->isInjective())
        continue;
      site->layout = layout;
      site->source = {site->op, "the loop over " + name(access.buffer)};
      site->from = access.buffer;
      markProgress();
      break;
    }
  }
  if (!site->layout)
    return success();
  // Fragments the loop reaches first take the binding it implies.
  for (const LoopAccess &access : site->accesses) {
    BufferLayout *buffer = lookup(access.buffer);
    if (buffer->fragment)
      continue;
    std::string reason;
    FailureOr<Fragment> slice = sliceFragment(
        *site->layout, access.index,
        cast<MemRefType>(access.buffer.getType()).getShape(), reason);
    if (failed(slice))
      continue;
    std::string why = site->source.why;
    if (failed(setFragment(*buffer, access.buffer, *slice, {site->op, why})))
      return failure();
    markProgress();
  }
  return success();
}

/// A loop that reads a laid-out fragment through fewer dimensions than it
/// has (a row vector broadcast over a tile) runs each point on a thread
/// holding that element: the replicas of the element share the points
/// (round robin over the other dimensions), which take new registers.
std::optional<Fragment>
LayoutInferenceState::spreadOverReplicas(LoopSite &site) {
  for (const LoopAccess &access : site.accesses) {
    BufferLayout *buffer = lookup(access.buffer);
    if (!buffer->fragment)
      continue;
    const Fragment &held = *buffer->fragment;
    // Loop dimensions the access does not use, and its coordinates.
    SmallVector<AffineExpr> coords;
    SmallVector<bool> used(site.shape.size(), false);
    for (int64_t i : access.index) {
      if (i >= 0) {
        if (used[i])
          return std::nullopt;
        used[i] = true;
      }
      coords.push_back(i >= 0 ? getAffineDimExpr(i, ctx)
                              : getAffineConstantExpr(-1 - i, ctx));
    }
    AffineExpr rest = getAffineConstantExpr(0, ctx);
    int64_t restPoints = 1;
    for (int64_t d = site.shape.size() - 1; d >= 0; --d) {
      if (used[d])
        continue;
      rest = rest + getAffineDimExpr(d, ctx) * restPoints;
      restPoints *= site.shape[d];
    }
    if (restPoints == 1)
      continue;
    int64_t replicas = held.getReplicate();
    int64_t share = std::min(replicas, restPoints);
    if (restPoints % share != 0)
      continue;
    SmallVector<AffineExpr> replica = {rest % share};
    AffineExpr thread = held.getMap().getResult(0).replaceDimsAndSymbols(
        coords, share == 1
                    ? SmallVector<AffineExpr>{getAffineConstantExpr(0, ctx)}
                    : replica);
    AffineExpr reg = held.getMap().getResult(1).replaceDimsAndSymbols(
                         coords, {getAffineConstantExpr(0, ctx)}) *
                         (restPoints / share) +
                     rest.floorDiv(share);
    unsigned rank = site.shape.size();
    Fragment loop = Fragment::get(site.shape, getReadableExpr(thread, rank, 0),
                                  getReadableExpr(reg, rank, 0), threads);
    if (!loop.isInjective())
      continue;
    site.source = {site.op, "the loop over " + name(access.buffer) +
                                ", spread over its replicas"};
    site.from = access.buffer;
    return loop;
  }
  return std::nullopt;
}

Fragment LayoutInferenceState::defaultBinding(LoopSite &site) {
  if (site.everyThread)
    return getEveryThreadFragment(ctx, site.shape, threads);
  // A vector must stay one aligned run of offsets in every shared
  // operand's layout (swizzles move 16-byte chunks whole; annotations may
  // not).
  int64_t vector = site.vector;
  for (Value shared : site.sharedOperands) {
    BufferLayout *buffer = lookup(shared);
    if (!buffer || !buffer->layout)
      continue;
    while (vector > 1 && !keepsVectors(*buffer->layout, vector))
      vector /= 2;
  }
  return getCoalescedFragment(ctx, site.shape, threads, vector);
}

LogicalResult LayoutInferenceState::checkLoop(LoopSite &site) {
  for (const LoopAccess &access : site.accesses) {
    BufferLayout *buffer = lookup(access.buffer);
    if (loopCanAccess(*site.layout, access.index, *buffer->fragment,
                      access.write))
      continue;
    // What the buffer would be, had this loop laid it out.
    std::string reason;
    FailureOr<Fragment> wanted = sliceFragment(
        *site.layout, access.index,
        cast<MemRefType>(access.buffer.getType()).getShape(), reason);
    if (succeeded(wanted)) {
      InFlightDiagnostic diag = reportConflict(site.op, access.buffer, *wanted,
                                               site.source.why, *buffer);
      if (BufferLayout *from = site.from ? lookup(site.from) : nullptr;
          from && from->source.op != buffer->source.op)
        diag.attachNote(from->source.op->getLoc())
            << name(site.from) << " gets its layout here, from "
            << from->source.why;
      return failure();
    }
    InFlightDiagnostic diag = site.op->emitOpError();
    diag << "runs as " << FragmentAttr::get(ctx, *site.layout) << " (from "
         << site.source.why << "), which cannot "
         << (access.write ? "write " : "read ") << name(access.buffer)
         << " laid out as " << FragmentAttr::get(ctx, *buffer->fragment)
         << " by " << buffer->source.op->getName() << " at "
         << buffer->source.op->getLoc();
    diag.attachNote(buffer->source.op->getLoc())
        << name(access.buffer) << " gets its layout here, from "
        << buffer->source.why;
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Runs `level` on every operator of `ops` in program order.
static LogicalResult runLevel(ArrayRef<TileOpInterface> ops,
                              LayoutInferenceState &state,
                              InferenceLevel level) {
  for (TileOpInterface op : ops)
    if (failed(op.inferLayout(state, level)))
      return failure();
  return success();
}

LogicalResult LayoutInferenceState::propagate(ArrayRef<TileOpInterface> ops) {
  // Derived fragments first, to a fixed point; then one round of loops,
  // and again.
  while (true) {
    progress = false;
    if (failed(runLevel(ops, *this, InferenceLevel::Derived)))
      return failure();
    if (progress)
      continue;
    if (failed(runLevel(ops, *this, InferenceLevel::Loop)))
      return failure();
    if (!progress)
      return success();
  }
}

LogicalResult LayoutInferenceState::run() {
  if (failed(checkTileOpModels(kernel)))
    return failure();
  SmallVector<TileOpInterface> ops;
  WalkResult collected = kernel.getBody().walk([&](TileOpInterface op) {
    ops.push_back(op);
    return failed(op.inferLayout(*this, InferenceLevel::Collect))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (collected.wasInterrupted())
    return failure();
  if (failed(runLevel(ops, *this, InferenceLevel::Strict)) ||
      failed(propagate(ops)))
    return failure();
  // One at a time in program order, free loops and then free fragments get
  // a default binding, each followed by the levels above again.
  while (true) {
    progress = false;
    for (TileOpInterface op : ops) {
      if (failed(op.inferLayout(*this, InferenceLevel::Free)))
        return failure();
      if (progress)
        break;
    }
    if (progress) {
      if (failed(propagate(ops)))
        return failure();
      continue;
    }
    auto freeBuffer = llvm::find_if(buffers, [](const auto &entry) {
      return entry.second.space == MemorySpace::Fragment &&
             !entry.second.fragment;
    });
    if (freeBuffer == buffers.end())
      break;
    auto type = cast<MemRefType>(freeBuffer->first.getType());
    int64_t vector =
        alignVectorTo(maxVector(elementBytes(type)), type.getShape().back());
    if (failed(setFragment(
            freeBuffer->second, freeBuffer->first,
            getCoalescedFragment(ctx, type.getShape(), threads, vector),
            {freeBuffer->first.getDefiningOp(), "its default thread binding"})))
      return failure();
    if (failed(propagate(ops)))
      return failure();
  }
  for (auto &[value, buffer] : buffers)
    if (buffer.space == MemorySpace::Shared && !buffer.layout)
      buffer.layout =
          Layout::rowMajor(ctx, cast<MemRefType>(value.getType()).getShape());
  if (failed(runLevel(ops, *this, InferenceLevel::Check)))
    return failure();
  return runLevel(ops, *this, InferenceLevel::Commit);
}

LogicalResult mlir::tile::inferLayouts(KernelOp kernel,
                                       const InferLayoutOptions &given) {
  FailureOr<InferLayoutOptions> options = withLoweringTarget(kernel, given);
  if (failed(options))
    return failure();
  return LayoutInferenceState(kernel, *options).run();
}
