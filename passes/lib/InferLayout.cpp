//===- InferLayout.cpp - tile-infer-layout pass ---------------------------===//
//
// Layout and fragment inference (TileLang paper §4.2). Every fragment and
// shared buffer of a kernel gets a layout, every tile.parallel a thread
// binding and every tile operator lowered as a loop nest a `tile.loop`
// binding, by priority levels: gemm operands first (tensor-core
// fragments, swizzled shared memory), then reductions (slices of their
// source), then loops (a loop runs each point on the threads holding what
// it touches, and hands its binding to the fragments it reaches first),
// then whatever is still free (coalesced bindings, widest vectors).
//
// Requirements are recorded with the op that made them, so a buffer that
// two ops want laid out differently is reported at the second op, naming
// the buffer, both layouts and where the first came from.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/InferLayout.h"
#include "LayoutInferenceUtils.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEINFERLAYOUT
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Who fixed a layout: the op, and how to say why in a diagnostic.
struct Source {
  Operation *op = nullptr;
  std::string why;
};

/// What is known about an on-chip buffer.
struct Buffer {
  MemorySpace space;
  std::optional<Fragment> fragment;
  std::optional<Layout> layout;
  Source source;
  bool annotated = false;
};

/// A buffer access in a loop: per buffer dimension, the loop dimension that
/// indexes it or -1 - c for a constant c.
struct Access {
  Value buffer;
  SmallVector<int64_t> index;
  bool write;
};

/// Something lowered as a loop nest over `shape` on the block's threads: a
/// tile.parallel, or a tile operator whose binding goes in `tile.loop`.
struct LoopSite {
  Operation *op;
  SmallVector<int64_t> shape;
  SmallVector<Access> accesses;
  std::optional<Fragment> layout;
  Source source;
  /// The vector width of a coalesced binding, in elements.
  int64_t vector = 1;
  /// The fragment whose layout the binding follows, if any.
  Value from;
  /// Per-thread operands: every thread runs every point.
  bool everyThread = false;
  /// Shared operands, whose layouts must keep vectors contiguous.
  SmallVector<Value, 2> sharedOperands;
};

class LayoutInference {
public:
  LayoutInference(KernelOp kernel, const InferLayoutOptions &options)
      : kernel(kernel), options(options), ctx(kernel.getContext()),
        threads(kernel.getThreads()) {}

  LogicalResult run();

private:
  LogicalResult collect();
  LogicalResult collectLoop(Operation *op);
  LogicalResult inferGemm(GemmOp gemm);
  /// The wgmma layouts of `gemm` (sm_90a) when planWgmma() takes it;
  /// std::nullopt, with nothing changed, for the mma.sync path.
  std::optional<LogicalResult> inferWgmmaGemm(GemmOp gemm, int64_t m, int64_t n,
                                              int64_t kDim);
  LogicalResult inferReductions(bool &progress);
  LogicalResult inferLoops(bool &progress);
  LogicalResult propagate();
  LogicalResult checkAll();
  void write();

  /// Records `fragment` for `value` as required by `source`, or reports
  /// the conflict with what is already there.
  LogicalResult requireFragment(Value value, const Fragment &fragment,
                                Source source);
  /// Sets a layout derived by inference (no previous layout).
  LogicalResult setFragment(Buffer &buffer, Value value,
                            const Fragment &fragment, Source source);
  InFlightDiagnostic reportConflict(Operation *at, Value value,
                                    const Fragment &wanted, StringRef why,
                                    const Buffer &buffer);
  Buffer *lookup(Value value) {
    auto it = buffers.find(value);
    return it == buffers.end() ? nullptr : &it->second;
  }
  std::string name(Value value);
  int64_t elementBytes(Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isIndex() ? 8 : (element.getIntOrFloatBitWidth() + 7) / 8;
  }
  int64_t maxVector(int64_t bytes) {
    return std::max<int64_t>(1,
                             options.vectorBytes / std::max<int64_t>(1, bytes));
  }
  Fragment defaultBinding(LoopSite &site);
  std::optional<Fragment> spreadOverReplicas(LoopSite &site);

  KernelOp kernel;
  const InferLayoutOptions &options;
  MLIRContext *ctx;
  int64_t threads;
  llvm::MapVector<Value, Buffer> buffers;
  SmallVector<LoopSite, 0> loops;
  SmallVector<GemmOp> gemms;
  SmallVector<Operation *> reductions;
  std::unique_ptr<AsmState> asmState;
};

} // namespace

std::string LayoutInference::name(Value value) {
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

/// A divisor of `value` known from the IR: constants, products and sums.
static int64_t knownDivisor(Value value, int depth = 0) {
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
static int64_t alignTo(int64_t vector, int64_t divisor) {
  int64_t g = std::gcd(vector, divisor);
  return g <= 0 ? 1 : int64_t(1) << llvm::Log2_64(g);
}

/// The vector width a global or shared operand allows: its row stride and
/// the origin of the tile in it must be multiples of the vector.
static int64_t alignForOperand(int64_t vector, MemRefType type,
                               ValueRange indices) {
  if (type.getRank() >= 2 && !ShapedType::isDynamic(type.getShape().back()))
    vector = alignTo(vector, type.getShape().back());
  if (!indices.empty())
    vector = alignTo(vector, knownDivisor(indices.back()));
  return vector;
}

//===----------------------------------------------------------------------===//
// Collecting the problem
//===----------------------------------------------------------------------===//

LogicalResult LayoutInference::collect() {
  WalkResult result = kernel.getBody().walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      MemRefType type = alloc.getType();
      MemorySpace space = getMemorySpace(type);
      if (space != MemorySpace::Fragment && space != MemorySpace::Shared)
        return WalkResult::advance();
      if (type.getRank() == 0) {
        alloc.emitOpError() << "layout inference needs tiles of rank 1 or "
                               "more, got "
                            << type << " (a one-element tile is memref<1x...>)";
        return WalkResult::interrupt();
      }
      Buffer buffer;
      buffer.space = space;
      if (Attribute attr = alloc.getLayoutAttr()) {
        buffer.annotated = true;
        buffer.source = {op, "its layout annotation"};
        if (auto fragment = dyn_cast<FragmentAttr>(attr)) {
          buffer.fragment = fragment.getFragmentFor(type.getShape());
          if (!buffer.fragment || !buffer.fragment->isInjective()) {
            alloc.emitOpError()
                << "expected a layout annotation over " << type
                << " that holds every element in a distinct register, got "
                << attr;
            return WalkResult::interrupt();
          }
        } else if (auto layout = dyn_cast<LayoutAttr>(attr)) {
          buffer.layout = layout.getLayoutFor(type.getShape());
          // The lowering addresses a flat buffer of the tile's size.
          if (!buffer.layout || buffer.layout->getNumResults() != 1 ||
              !buffer.layout->isBijective() ||
              buffer.layout->getCodomainShape()[0] != type.getNumElements()) {
            alloc.emitOpError()
                << "expected a layout annotation that permutes the "
                << type.getNumElements() << " elements of " << type << ", got "
                << attr;
            return WalkResult::interrupt();
          }
        }
      }
      buffers.insert({alloc.getResult(), std::move(buffer)});
      return WalkResult::advance();
    }
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      gemms.push_back(gemm);
      return WalkResult::advance();
    }
    if (isa<ReduceOp, CumsumOp>(op)) {
      Value src = op->getOperand(0), dst = op->getOperand(1);
      auto isFragment = [](Value v) {
        return getMemorySpace(cast<MemRefType>(v.getType())) ==
               MemorySpace::Fragment;
      };
      if (isFragment(src) && isFragment(dst)) {
        reductions.push_back(op);
        return WalkResult::advance();
      }
    }
    if (isa<CopyOp, AtomicOp, ReduceOp, CumsumOp, FillOp, ClearOp, ParallelOp>(
            op))
      if (failed(collectLoop(op)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // Operands must be the buffers themselves: layouts belong to allocations.
  SmallVector<Operation *> users(gemms.begin(), gemms.end());
  users.append(reductions.begin(), reductions.end());
  for (Operation *op : users) {
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || getMemorySpace(type) != MemorySpace::Fragment)
        continue;
      if (!lookup(operand))
        return op->emitOpError()
               << "expects fragment operand " << name(operand)
               << " to be a tile.alloc of the kernel, so that it can be laid "
                  "out";
    }
  }
  return success();
}

LogicalResult LayoutInference::collectLoop(Operation *op) {
  LoopSite site;
  site.op = op;
  auto fragmentBuffer = [&](Value value) -> FailureOr<bool> {
    auto type = cast<MemRefType>(value.getType());
    if (getMemorySpace(type) != MemorySpace::Fragment)
      return false;
    if (!lookup(value))
      return op->emitOpError()
             << "expects fragment operand " << name(value)
             << " to be a tile.alloc of the kernel, so that it can be laid "
                "out";
    return true;
  };
  auto identity = [](int64_t rank) {
    SmallVector<int64_t> index(rank);
    std::iota(index.begin(), index.end(), 0);
    return index;
  };
  auto isLocal = [](Value v) {
    return getMemorySpace(cast<MemRefType>(v.getType())) == MemorySpace::Local;
  };

  if (auto parallel = dyn_cast<ParallelOp>(op)) {
    site.shape.assign(parallel.getExtents().begin(),
                      parallel.getExtents().end());
    int64_t bytes = 0;
    int64_t vector = 0;
    Block &body = parallel.getBody().front();
    BlockArgument innermost = body.getArguments().back();
    WalkResult result = parallel.getBody().walk([&](Operation *inner) {
      Value memref;
      ValueRange indices;
      bool write = false;
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        memref = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(inner)) {
        memref = store.getMemRef();
        indices = store.getIndices();
        write = true;
      } else {
        return WalkResult::advance();
      }
      auto type = cast<MemRefType>(memref.getType());
      bytes = std::max(bytes, elementBytes(type));
      FailureOr<bool> isFragment = fragmentBuffer(memref);
      if (failed(isFragment))
        return WalkResult::interrupt();
      if (!*isFragment) {
        // Vectors along the innermost loop dimension need the innermost
        // index to move with it, from an aligned origin.
        if (indices.empty() || isLocal(memref))
          return WalkResult::advance();
        Value last = indices.back();
        int64_t allowed = 0;
        if (last == innermost) {
          allowed = alignForOperand(1 << 20, type, {});
        } else if (auto add = last.getDefiningOp<arith::AddIOp>();
                   add &&
                   (add.getLhs() == innermost || add.getRhs() == innermost)) {
          Value other = add.getLhs() == innermost ? add.getRhs() : add.getLhs();
          allowed = alignForOperand(1 << 20, type, other);
        } else if (parallel->isProperAncestor(
                       last.getParentBlock()->getParentOp()) ||
                   last.getParentBlock() == &body) {
          allowed = 1;
        }
        if (allowed)
          vector = vector ? std::gcd(vector, allowed) : allowed;
        return WalkResult::advance();
      }
      Access access{memref, {}, write};
      for (Value index : indices) {
        auto arg = dyn_cast<BlockArgument>(index);
        APInt constant;
        if (arg && arg.getOwner() == &body) {
          access.index.push_back(arg.getArgNumber());
        } else if (matchPattern(index, m_ConstantInt(&constant)) &&
                   !constant.isNegative()) {
          access.index.push_back(-1 - constant.getSExtValue());
        } else {
          InFlightDiagnostic diag =
              inner->emitOpError()
              << "indexes fragment " << name(memref)
              << " with something other than an induction variable of the "
                 "enclosing 'tile.parallel' or a constant; a thread can only "
                 "reach the elements it holds";
          diag.attachNote(parallel.getLoc()) << "enclosing 'tile.parallel'";
          return WalkResult::interrupt();
        }
      }
      site.accesses.push_back(std::move(access));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    site.vector = alignTo(maxVector(bytes ? bytes : 4), site.shape.back());
    if (vector)
      site.vector = alignTo(site.vector, vector);
    if (FragmentAttr layout = parallel.getLayoutAttr()) {
      site.layout = layout.getFragmentFor(site.shape);
      if (!site.layout || !site.layout->isInjective())
        return parallel.emitOpError()
               << "expected a layout over the iteration space "
               << "that runs every point on distinct (thread, register) "
                  "slots, got "
               << layout;
      site.source = {op, "its layout annotation"};
    }
    loops.push_back(std::move(site));
    return success();
  }

  // Tile operators: the loop nest runs over the tile they move.
  Value src, dst;
  ValueRange srcIndices, dstIndices;
  SmallVector<int64_t> shape;
  if (auto copy = dyn_cast<CopyOp>(op)) {
    src = copy.getSrc();
    dst = copy.getDst();
    srcIndices = copy.getSrcIndices();
    dstIndices = copy.getDstIndices();
    shape = copy.getTileShape();
  } else if (auto atomic = dyn_cast<AtomicOp>(op)) {
    src = atomic.getSrc();
    dst = atomic.getDst();
    dstIndices = atomic.getDstIndices();
    shape = llvm::to_vector(atomic.getSrc().getType().getShape());
  } else if (isa<ReduceOp, CumsumOp>(op)) {
    src = op->getOperand(0);
    dst = op->getOperand(1);
    shape = llvm::to_vector(cast<MemRefType>(src.getType()).getShape());
  } else {
    Value buffer = op->getOperand(0);
    auto type = cast<MemRefType>(buffer.getType());
    // Fills of fragments follow the fragment; of local buffers, the thread.
    if (getMemorySpace(type) != MemorySpace::Shared)
      return success();
    src = buffer;
    shape = llvm::to_vector(type.getShape());
  }
  if (shape.empty())
    return op->emitOpError()
           << "layout inference needs tiles of rank 1 or more";
  site.shape = shape;
  int64_t bytes = elementBytes(src.getType());
  if (dst)
    bytes = std::max(bytes, elementBytes(dst.getType()));
  int64_t vector = alignTo(maxVector(bytes), shape.back());
  struct Operand {
    Value value;
    ValueRange indices;
    bool write;
  };
  SmallVector<Operand> operands = {{src, srcIndices, isa<FillOp, ClearOp>(op)}};
  if (dst)
    operands.push_back({dst, dstIndices, true});
  for (const Operand &operand : operands) {
    auto type = cast<MemRefType>(operand.value.getType());
    MemorySpace space = getMemorySpace(type);
    if (space == MemorySpace::Local) {
      site.everyThread = true;
      continue;
    }
    if (space == MemorySpace::Global || space == MemorySpace::Shared) {
      vector = alignForOperand(vector, type, operand.indices);
      if (space == MemorySpace::Shared)
        site.sharedOperands.push_back(operand.value);
      continue;
    }
    FailureOr<bool> isFragment = fragmentBuffer(operand.value);
    if (failed(isFragment))
      return failure();
    if (!operand.indices.empty())
      return op->emitOpError()
             << "moves part of fragment " << name(operand.value)
             << "; layout inference needs whole fragments as copy operands";
    SmallVector<int64_t> index = identity(type.getRank());
    // The destination of a reduction drops (or keeps as 1) the reduced
    // dimension.
    if (auto reduce = dyn_cast<ReduceOp>(op); reduce && operand.value == dst) {
      int64_t dim = reduce.getDim();
      index = identity(shape.size());
      if (type.getRank() == static_cast<int64_t>(shape.size()))
        index[dim] = -1;
      else
        index.erase(index.begin() + dim);
    }
    site.accesses.push_back({operand.value, index, operand.write});
  }
  if (auto copy = dyn_cast<CopyOp>(op))
    if (std::optional<uint64_t> width = copy.getCoalescedWidth())
      vector = *width;
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
  loops.push_back(std::move(site));
  return success();
}

//===----------------------------------------------------------------------===//
// Requirements and conflicts
//===----------------------------------------------------------------------===//

InFlightDiagnostic LayoutInference::reportConflict(Operation *at, Value value,
                                                   const Fragment &wanted,
                                                   StringRef why,
                                                   const Buffer &buffer) {
  InFlightDiagnostic diag = at->emitOpError();
  diag << "needs " << name(value) << " laid out as "
       << FragmentAttr::get(ctx, wanted) << " (from " << why << "), but "
       << buffer.source.op->getName() << " at " << buffer.source.op->getLoc()
       << " requires " << FragmentAttr::get(ctx, *buffer.fragment);
  diag.attachNote(buffer.source.op->getLoc())
      << name(value) << " gets its layout here, from " << buffer.source.why;
  return diag;
}

LogicalResult LayoutInference::setFragment(Buffer &buffer, Value value,
                                           const Fragment &fragment,
                                           Source source) {
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

LogicalResult LayoutInference::requireFragment(Value value,
                                               const Fragment &fragment,
                                               Source source) {
  Buffer *buffer = lookup(value);
  if (!buffer->fragment)
    return setFragment(*buffer, value, fragment, std::move(source));
  if (buffer->fragment->isEquivalentTo(fragment))
    return success();
  reportConflict(source.op, value, fragment, source.why, *buffer);
  return failure();
}

//===----------------------------------------------------------------------===//
// Level 1: gemm
//===----------------------------------------------------------------------===//

/// The NVIDIA swizzle of a shared operand stored as `shape`: the widest of
/// 128, 64 and 32 bytes that divides its rows; row-major when none does.
static Layout getOperandLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                               int64_t elementBits) {
  for (int64_t bytes : {128, 64, 32})
    if (std::optional<Layout> layout =
            Layout::swizzled(ctx, shape, bytes, elementBits))
      return *layout;
  return Layout::rowMajor(ctx, shape);
}

/// Whether `value` is a shared buffer whose layout the wgmma descriptors
/// can read: inferred later, or annotated as the operand swizzle.
static bool isWgmmaShared(Buffer *buffer, MemRefType type) {
  if (!buffer || buffer->space != MemorySpace::Shared)
    return false;
  if (!buffer->layout)
    return true;
  Layout swizzled =
      getOperandLayout(type.getContext(), type.getShape(),
                       type.getElementType().getIntOrFloatBitWidth());
  return !swizzled.getSwizzle().isIdentity() &&
         buffer->layout->isEquivalentTo(swizzled);
}

std::optional<LogicalResult> LayoutInference::inferWgmmaGemm(GemmOp gemm,
                                                             int64_t m,
                                                             int64_t n,
                                                             int64_t kDim) {
  MemRefType aType = gemm.getA().getType(), bType = gemm.getB().getType(),
             cType = gemm.getC().getType();
  // A may also come from registers (rs): 16-bit, stored M x K, one m64
  // block per warpgroup.
  Buffer *aBuffer = lookup(gemm.getA());
  bool aInRegisters =
      aBuffer && aBuffer->space == MemorySpace::Fragment &&
      isWgmmaRegisterA(aType.getElementType(), gemm.getTransposeA());
  std::optional<WgmmaPlan> plan = planWgmma(
      options.chip, aType.getElementType(), bType.getElementType(),
      cType.getElementType(), aInRegisters || isWgmmaShared(aBuffer, aType),
      isWgmmaShared(lookup(gemm.getB()), bType), gemm.getTransposeA(),
      gemm.getTransposeB(), aType.getShape(), bType.getShape(), m, n, kDim,
      threads, gemm.getPolicy());
  if (!plan || (aInRegisters && m != 64 * plan->wgM))
    return std::nullopt;
  BuiltinChain chain;
  chain.name = "wgmma_c";
  chain.repeat = {m / (64 * plan->wgM), 1};
  chain.repeatOnThread = {plan->wgM, plan->wgN};
  std::string error;
  std::optional<Fragment> c =
      buildBuiltinChain(ctx, chain, cType.getShape(), error);
  if (!c)
    return gemm.emitOpError() << "cannot build its wgmma C fragment: " << error;
  std::string why = "the C operand of the wgmma gemm, " +
                    std::to_string(plan->wgM) + "x" +
                    std::to_string(plan->wgN) + " warpgroups";
  if (failed(requireFragment(gemm.getC(), *c, {gemm, why})))
    return failure();
  if (aInRegisters) {
    // Warp w of the block holds rows 16w..16w+15 of A as the mma.sync A
    // fragment, for every k16 step; warpgroups along N hold copies.
    BuiltinChain a;
    a.name = "mma_m16n8k16_a";
    a.repeat = {1, kDim / 16};
    a.repeatOnThread = {4 * plan->wgM, 1};
    a.replicate = plan->wgN;
    std::optional<Fragment> fragment =
        buildBuiltinChain(ctx, a, aType.getShape(), error);
    if (!fragment)
      return gemm.emitOpError()
             << "cannot build the wgmma register fragment of A: " << error;
    if (failed(requireFragment(gemm.getA(), *fragment,
                               {gemm, "the register A operand of the wgmma "
                                      "gemm"})))
      return failure();
  }
  for (Value operand : {gemm.getA(), gemm.getB()}) {
    Buffer *buffer = lookup(operand);
    if (buffer->space != MemorySpace::Shared || buffer->layout)
      continue;
    auto type = cast<MemRefType>(operand.getType());
    buffer->layout = getOperandLayout(
        ctx, type.getShape(), type.getElementType().getIntOrFloatBitWidth());
    buffer->source = {gemm, "a shared operand of the wgmma gemm"};
  }
  return success();
}

LogicalResult LayoutInference::inferGemm(GemmOp gemm) {
  MemRefType aType = gemm.getA().getType(), cType = gemm.getC().getType();
  Type element = aType.getElementType();
  // The mma.sync shape by operand type: m16n8k16 for 16-bit, m16n8k8 for
  // tf32, m16n8k32 for 8-bit.
  StringRef shapeName;
  int64_t k = 0;
  if (element.isF16() || element.isBF16()) {
    shapeName = "mma_m16n8k16";
    k = 16;
  } else if (element.isF32() || element.isTF32()) {
    shapeName = "mma_m16n8k8";
    k = 8;
  } else if (element.getIntOrFloatBitWidth() == 8) {
    shapeName = "mma_m16n8k32";
    k = 32;
  } else {
    return gemm.emitOpError()
           << "has no tensor-core fragment for " << element << " operands on "
           << options.chip
           << " (layout inference knows f16, bf16, f32/tf32 and 8-bit types)";
  }
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t kDim = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
  if (std::optional<LogicalResult> wgmma = inferWgmmaGemm(gemm, m, n, kDim))
    return *wgmma;
  if (kDim % k != 0)
    return gemm.emitOpError()
           << "expected K (" << kDim << ") to be a multiple of " << k
           << ", the K of " << shapeName.drop_front(4);
  int64_t warps = threads / 32;
  GemmPolicy policy = gemm.getPolicy();
  std::optional<std::pair<int64_t, int64_t>> split =
      partitionWarps(m, n, warps, policy);
  if (!split)
    return gemm.emitOpError()
           << "cannot split the " << m << "x" << n << " C tile over " << warps
           << " warps with policy " << stringifyGemmPolicy(policy)
           << ": each warp needs a multiple of 16 rows and 8 columns";
  auto [wm, wn] = *split;
  std::string why = "the C operand of the gemm, " + std::to_string(wm) + "x" +
                    std::to_string(wn) + " warps";

  std::string error;
  BuiltinChain cChain;
  std::string cName = shapeName.str() + "_c";
  cChain.name = cName;
  cChain.repeat = {m / (16 * wm), n / (8 * wn)};
  cChain.repeatOnThread = {wm, wn};
  std::optional<Fragment> c =
      buildBuiltinChain(ctx, cChain, cType.getShape(), error);
  if (!c)
    return gemm.emitOpError() << "cannot build its C fragment: " << error;
  if (failed(requireFragment(gemm.getC(), *c, {gemm, why})))
    return failure();

  struct Operand {
    Value value;
    bool transposed;
    bool isA;
  } operands[] = {{gemm.getA(), gemm.getTransposeA(), true},
                  {gemm.getB(), gemm.getTransposeB(), false}};
  for (const Operand &operand : operands) {
    auto type = cast<MemRefType>(operand.value.getType());
    Buffer *buffer = lookup(operand.value);
    if (!buffer)
      continue;
    if (buffer->space == MemorySpace::Shared) {
      // Annotated shared layouts win; any permutation is correct.
      if (!buffer->layout) {
        buffer->layout =
            getOperandLayout(ctx, type.getShape(),
                             type.getElementType().getIntOrFloatBitWidth());
        buffer->source = {gemm, "a shared operand of the gemm"};
      }
      continue;
    }
    // Fragment operands: the mma operand fragment over each warp's part,
    // held by every warp that needs it.
    std::string fragmentName = shapeName.str() + (operand.isA ? "_a" : "_b");
    std::optional<Fragment> fragment;
    if (operand.isA) {
      BuiltinChain chain;
      chain.name = fragmentName;
      chain.repeat = {m / (16 * wm), kDim / k};
      chain.repeatOnThread = {wm, 1};
      chain.replicate = wn;
      fragment = buildBuiltinChain(ctx, chain, {m, kDim}, error);
    } else {
      // Warp (w0, w1) is w0 + wm * w1 in the C fragment: B's column
      // blocks go to w1 and its replicas to w0.
      BuiltinChain chain;
      chain.name = fragmentName;
      int64_t cols = n / wn;
      chain.repeat = {1, cols / 8};
      std::optional<Fragment> warp =
          buildBuiltinChain(ctx, chain, {k, cols}, error);
      if (warp)
        warp = warp->repeat({kDim / k, 1}, /*onThread=*/false);
      if (warp) {
        AffineExpr r = getAffineDimExpr(0, ctx), col = getAffineDimExpr(1, ctx);
        AffineMap inner = warp->getMap();
        SmallVector<AffineExpr> dims = {r, col % cols};
        AffineExpr thread = inner.getResult(0).replaceDims(dims) +
                            getAffineSymbolExpr(0, ctx) * 32 +
                            col.floorDiv(cols) * (32 * wm);
        AffineExpr reg = inner.getResult(1).replaceDims(dims);
        if (wm == 1)
          thread = thread.replaceSymbols({getAffineConstantExpr(0, ctx)});
        fragment = Fragment::get({kDim, n}, getReadableExpr(thread, 2, 1),
                                 getReadableExpr(reg, 2, 0), threads, wm);
        if (wn == 1 || wm == 1) {
          // Then it is a chain, and prints as one.
          BuiltinChain block;
          block.name = fragmentName;
          block.repeat = {kDim / k, cols / 8};
          block.repeatOnThread = {1, wn};
          block.replicate = wm;
          if (std::optional<Fragment> chained =
                  buildBuiltinChain(ctx, block, {kDim, n}, error))
            fragment = chained;
        }
      }
    }
    if (!fragment)
      return gemm.emitOpError() << "cannot build the fragment of "
                                << (operand.isA ? "A" : "B") << ": " << error;
    if (operand.transposed)
      fragment = fragment->transpose();
    std::string operandWhy = std::string("the ") + (operand.isA ? "A" : "B") +
                             " operand of the gemm, " + std::to_string(wm) +
                             "x" + std::to_string(wn) + " warps";
    if (failed(requireFragment(operand.value, *fragment, {gemm, operandWhy})))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Levels 2 and 3: reductions and loops
//===----------------------------------------------------------------------===//

LogicalResult LayoutInference::inferReductions(bool &progress) {
  for (Operation *op : reductions) {
    Value src = op->getOperand(0), dst = op->getOperand(1);
    Buffer *from = lookup(src), *to = lookup(dst);
    auto dstType = cast<MemRefType>(dst.getType());
    SmallVector<int64_t> index(cast<MemRefType>(src.getType()).getRank());
    std::iota(index.begin(), index.end(), 0);
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      int64_t dim = reduce.getDim();
      if (dstType.getRank() == cast<MemRefType>(src.getType()).getRank())
        index[dim] = -1;
      else
        index.erase(index.begin() + dim);
    }
    if (from->fragment && !to->fragment) {
      std::string reason;
      FailureOr<Fragment> slice =
          sliceFragment(*from->fragment, index, dstType.getShape(), reason);
      if (failed(slice))
        return op->emitOpError()
               << "cannot derive the layout of " << name(dst) << " from "
               << name(src) << " laid out as "
               << FragmentAttr::get(ctx, *from->fragment) << ": " << reason;
      if (failed(setFragment(*to, dst, *slice,
                             {op, "the " + op->getName().getStringRef().str() +
                                      " of " + name(src)})))
        return failure();
      progress = true;
    } else if (!from->fragment && to->fragment && isa<CumsumOp>(op)) {
      if (failed(setFragment(*from, src, *to->fragment,
                             {op, "the cumsum into " + name(dst)})))
        return failure();
      progress = true;
    }
  }
  return success();
}

LogicalResult LayoutInference::inferLoops(bool &progress) {
  for (LoopSite &site : loops) {
    if (!site.layout) {
      // The binding of the first laid-out fragment the loop walks whole.
      for (const Access &access : site.accesses) {
        Buffer *buffer = lookup(access.buffer);
        if (!buffer->fragment || access.index.size() != site.shape.size())
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
        std::optional<Fragment> layout = buffer->fragment->compose(
            Layout::affine(site.shape,
                           AffineMap::get(site.shape.size(), 0, results, ctx)));
        // A loop wider than the fragment would run two points in one slot.
        if (!layout || !layout->isInjective())
          continue;
        site.layout = layout;
        site.source = {site.op, "the loop over " + name(access.buffer)};
        site.from = access.buffer;
        progress = true;
        break;
      }
    }
    if (!site.layout)
      continue;
    // Fragments the loop reaches first take the binding it implies.
    for (const Access &access : site.accesses) {
      Buffer *buffer = lookup(access.buffer);
      if (buffer->fragment)
        continue;
      std::string reason;
      FailureOr<Fragment> slice = sliceFragment(
          *site.layout, access.index,
          cast<MemRefType>(access.buffer.getType()).getShape(), reason);
      if (failed(slice))
        continue;
      std::string why = site.source.why;
      if (failed(setFragment(*buffer, access.buffer, *slice, {site.op, why})))
        return failure();
      progress = true;
    }
  }
  return success();
}

LogicalResult LayoutInference::propagate() {
  bool progress = true;
  while (progress) {
    progress = false;
    if (failed(inferReductions(progress)))
      return failure();
    if (progress)
      continue;
    if (failed(inferLoops(progress)))
      return failure();
  }
  return success();
}

/// A loop that reads a laid-out fragment through fewer dimensions than it
/// has (a row vector broadcast over a tile) runs each point on a thread
/// holding that element: the replicas of the element share the points
/// (round robin over the other dimensions), which take new registers.
std::optional<Fragment> LayoutInference::spreadOverReplicas(LoopSite &site) {
  for (const Access &access : site.accesses) {
    Buffer *buffer = lookup(access.buffer);
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

Fragment LayoutInference::defaultBinding(LoopSite &site) {
  if (site.everyThread)
    return getEveryThreadFragment(ctx, site.shape, threads);
  // A vector must stay one aligned run of offsets in every shared
  // operand's layout (swizzles move 16-byte chunks whole; annotations may
  // not).
  int64_t vector = site.vector;
  for (Value shared : site.sharedOperands) {
    Buffer *buffer = lookup(shared);
    if (!buffer || !buffer->layout)
      continue;
    while (vector > 1 && !keepsVectors(*buffer->layout, vector))
      vector /= 2;
  }
  return getCoalescedFragment(ctx, site.shape, threads, vector);
}

LogicalResult LayoutInference::checkAll() {
  for (LoopSite &site : loops) {
    for (const Access &access : site.accesses) {
      Buffer *buffer = lookup(access.buffer);
      if (loopCanAccess(*site.layout, access.index, *buffer->fragment,
                        access.write))
        continue;
      // What the buffer would be, had this loop laid it out.
      std::string reason;
      FailureOr<Fragment> wanted = sliceFragment(
          *site.layout, access.index,
          cast<MemRefType>(access.buffer.getType()).getShape(), reason);
      if (succeeded(wanted)) {
        InFlightDiagnostic diag = reportConflict(
            site.op, access.buffer, *wanted, site.source.why, *buffer);
        if (Buffer *from = site.from ? lookup(site.from) : nullptr;
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
  }
  for (Operation *op : reductions) {
    Value src = op->getOperand(0), dst = op->getOperand(1);
    Buffer *from = lookup(src), *to = lookup(dst);
    auto dstType = cast<MemRefType>(dst.getType());
    SmallVector<int64_t> index(from->fragment->getRank());
    std::iota(index.begin(), index.end(), 0);
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      int64_t dim = reduce.getDim();
      if (dstType.getRank() == static_cast<int64_t>(index.size()))
        index[dim] = -1;
      else
        index.erase(index.begin() + dim);
    }
    if (loopCanAccess(*from->fragment, index, *to->fragment, /*write=*/true))
      continue;
    std::string reason;
    FailureOr<Fragment> wanted =
        sliceFragment(*from->fragment, index, dstType.getShape(), reason);
    std::string why = "the threads holding " + name(src);
    if (succeeded(wanted))
      reportConflict(op, dst, *wanted, why, *to);
    else
      op->emitOpError() << "cannot combine " << name(src) << " laid out as "
                        << FragmentAttr::get(ctx, *from->fragment) << " into "
                        << name(dst) << " laid out as "
                        << FragmentAttr::get(ctx, *to->fragment) << " by "
                        << to->source.op->getName() << " at "
                        << to->source.op->getLoc();
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

void LayoutInference::write() {
  for (auto &[value, buffer] : buffers) {
    auto alloc = value.getDefiningOp<AllocOp>();
    if (buffer.annotated)
      continue;
    if (buffer.fragment)
      alloc.setLayoutAttr(FragmentAttr::get(ctx, *buffer.fragment));
    else if (buffer.layout)
      alloc.setLayoutAttr(LayoutAttr::get(ctx, *buffer.layout));
  }
  for (LoopSite &site : loops) {
    FragmentAttr attr = FragmentAttr::get(ctx, *site.layout);
    if (auto parallel = dyn_cast<ParallelOp>(site.op))
      parallel.setLayoutAttr(attr);
    else
      site.op->setAttr(kLoopLayoutAttrName, attr);
  }
}

LogicalResult LayoutInference::run() {
  if (failed(collect()))
    return failure();
  // Level 1: tensor-core operands.
  for (GemmOp gemm : gemms)
    if (failed(inferGemm(gemm)))
      return failure();
  // Levels 2 and 3 to a fixed point; then, one at a time in program order,
  // free loops and free fragments get a coalesced binding, each followed
  // by levels 2 and 3 again.
  if (failed(propagate()))
    return failure();
  while (true) {
    auto freeLoop =
        llvm::find_if(loops, [](const LoopSite &site) { return !site.layout; });
    if (freeLoop != loops.end()) {
      if (std::optional<Fragment> spread = spreadOverReplicas(*freeLoop)) {
        freeLoop->layout = spread;
      } else {
        freeLoop->layout = defaultBinding(*freeLoop);
        freeLoop->source = {freeLoop->op, "its default thread binding"};
      }
      if (!freeLoop->layout->isInjective())
        return freeLoop->op->emitOpError()
               << "would run as " << FragmentAttr::get(ctx, *freeLoop->layout)
               << ", which places two points in one register";
      if (failed(propagate()))
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
        alignTo(maxVector(elementBytes(type)), type.getShape().back());
    if (failed(setFragment(
            freeBuffer->second, freeBuffer->first,
            getCoalescedFragment(ctx, type.getShape(), threads, vector),
            {freeBuffer->first.getDefiningOp(), "its default thread binding"})))
      return failure();
    if (failed(propagate()))
      return failure();
  }
  for (auto &[value, buffer] : buffers)
    if (buffer.space == MemorySpace::Shared && !buffer.layout)
      buffer.layout =
          Layout::rowMajor(ctx, cast<MemRefType>(value.getType()).getShape());
  if (failed(checkAll()))
    return failure();
  write();
  return success();
}

LogicalResult mlir::tile::inferLayouts(KernelOp kernel,
                                       const InferLayoutOptions &options) {
  return LayoutInference(kernel, options).run();
}

namespace {
struct TileInferLayoutPass
    : public tile::impl::TileInferLayoutBase<TileInferLayoutPass> {
  using TileInferLayoutBase::TileInferLayoutBase;

  void runOnOperation() override {
    if (!StringRef(chip).starts_with("sm_") || !getChipLimits(chip)) {
      getOperation()->emitError()
          << "tile-infer-layout: unknown chip '" << chip << "'";
      return signalPassFailure();
    }
    if (vectorBytes < 1 || !llvm::isPowerOf2_64(vectorBytes)) {
      getOperation()->emitError()
          << "tile-infer-layout: vector-bytes must be a power of two, got "
          << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    InferLayoutOptions options;
    options.chip = chip;
    options.vectorBytes = vectorBytes;
    bool ok = true;
    getOperation()->walk([&](KernelOp kernel) {
      ok &= succeeded(inferLayouts(kernel, options));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
