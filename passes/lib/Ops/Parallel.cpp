//===- Parallel.cpp - tile.parallel --------------------------------------===//
//
// tile.parallel as a tile operator: the loop nest and fragment accesses
// layout inference binds to threads, and the per-thread, fully unrolled
// body it lowers to.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Accesses.h"
#include "Analysis/LayoutInference.h"
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
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/InterleavedRange.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

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

LogicalResult LoweringContext::lowerParallel(ParallelOp op) {
  std::optional<Fragment> frag;
  if (FragmentAttr attr = op.getLayoutAttr())
    frag = attr.getFragmentFor(op.getExtents());
  if (!frag)
    return op.emitOpError("expected a 'layout' on the parallel loop; run "
                          "tile-infer-layout first");
  if (frag->getThreads() != threads)
    return op.emitOpError("loop layout for ")
           << frag->getThreads() << " threads in a kernel of " << threads;
  // Every thread's iterations are unrolled: a domain far beyond any
  // register file would take the compiler forever to emit.
  constexpr int64_t kMaxIterationsPerThread = 1 << 16;
  uint64_t iterations = 1;
  for (int64_t extent : op.getExtents())
    iterations = llvm::SaturatingMultiply(iterations, uint64_t(extent));
  if (llvm::divideCeil(iterations, uint64_t(threads)) >
      uint64_t(kMaxIterationsPerThread))
    return op.emitOpError()
           << "unrolls more than " << kMaxIterationsPerThread
           << " iterations per thread (extents "
           << llvm::interleaved(op.getExtents(), "x") << " over " << threads
           << " threads); loop over smaller tiles with scf.for";
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

//===----------------------------------------------------------------------===//
// TileOpInterface
//===----------------------------------------------------------------------===//

/// Registers the loop nest of `parallel`: its iteration space, the
/// fragment elements its body reaches (through induction variables,
/// constants, or arithmetic of both: a thread can only reach what it
/// holds), and the widest
/// vector its global and shared accesses allow.
static LogicalResult collectParallel(ParallelOp parallel,
                                     LayoutInferenceState &state) {
  Operation *op = parallel;
  LoopSite site;
  site.op = op;
  site.shape.assign(parallel.getExtents().begin(), parallel.getExtents().end());
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
    bytes = std::max(bytes, LayoutInferenceState::elementBytes(type));
    FailureOr<bool> isFragment = state.isFragmentOperand(op, memref);
    if (failed(isFragment))
      return WalkResult::interrupt();
    if (!*isFragment) {
      // Vectors along the innermost loop dimension need the innermost
      // index to move with it, from an aligned origin.
      if (indices.empty() || getMemorySpace(type) == MemorySpace::Local)
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
    LoopAccess access{memref, {}, write};
    bool computed = false;
    for (Value index : indices) {
      auto arg = dyn_cast<BlockArgument>(index);
      APInt constant;
      if (arg && arg.getOwner() == &body) {
        access.index.push_back(arg.getArgNumber());
      } else if (matchPattern(index, m_ConstantInt(&constant)) &&
                 !constant.isNegative()) {
        access.index.push_back(-1 - constant.getSExtValue());
      } else if (isFragmentIndexOfIvs(index, body)) {
        computed = true;
      } else {
        InFlightDiagnostic diag =
            inner->emitOpError()
            << "indexes fragment " << state.name(memref)
            << " with something other than an induction variable of the "
               "enclosing 'tile.parallel' or a constant; a thread can only "
               "reach the elements it holds";
        diag.attachNote(parallel.getLoc()) << "enclosing 'tile.parallel'";
        return WalkResult::interrupt();
      }
    }
    // An index computed from the induction variables (`j floordiv 2` of a
    // packed operand) says nothing inference can bind a loop or a fragment
    // by: the fragment's layout must come from elsewhere, and lowering
    // checks, per register, that the thread running the iteration holds
    // the element.
    if (!computed)
      site.accesses.push_back(std::move(access));
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  site.vector =
      alignVectorTo(state.maxVector(bytes ? bytes : 4), site.shape.back());
  if (vector)
    site.vector = alignVectorTo(site.vector, vector);
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
  site.commit = [parallel](FragmentAttr attr) mutable {
    parallel.setLayoutAttr(attr);
  };
  state.addLoop(std::move(site));
  return success();
}

namespace {
struct ParallelModel
    : public TileOpInterface::ExternalModel<ParallelModel, ParallelOp> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level == InferenceLevel::Collect)
      return collectParallel(cast<ParallelOp>(op), state);
    return state.inferLoop(op, level);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    return context.lowerParallel(cast<ParallelOp>(op));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    // The body runs as one operator: its accesses are the operator's.
    op->walk([&](Operation *inner) {
      if (inner != op)
        getAccesses(inner, accesses);
    });
  }
};
} // namespace

void mlir::tile::registerParallelModel(MLIRContext *ctx) {
  ParallelOp::attachInterface<ParallelModel>(*ctx);
}
