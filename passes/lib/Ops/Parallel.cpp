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
#include "mlir/Dialect/Math/IR/Math.h"
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

using RegisterMap = DenseMap<std::pair<Operation *, int64_t>, int64_t>;

/// Whether the body of a parallel loop over `lm` may run for registers 2p
/// and 2p + 1 at once, as operations on vector<2xT>: every pair of
/// registers holds, on every thread, two points adjacent along the last
/// dimension; the body has only elementwise, side-effect-free arith
/// operations and fmas on scalars, and memory accesses; each fragment
/// access reaches, for every pair, two consecutive registers (or one
/// register, for a load), the registers the body stores where it stores
/// into the fragment; shared and global buffers the body stores into it
/// does not load; and some operation computes in a 16-bit float type,
/// which two lanes fill one 32-bit register of (f16x2, bf16x2
/// arithmetic).
static bool
canRunInPairs(Block &body, const LoopMap &lm, const RegisterMap &regOf,
              const DenseMap<Value, std::pair<Fragment, Value>> &fragments) {
  if (lm.replicated || lm.perThread || lm.numRegs < 2 || lm.numRegs % 2)
    return false;
  for (int64_t t = 0; t < lm.activeThreads; ++t)
    for (int64_t r = 0; r < lm.numRegs; r += 2) {
      ArrayRef<int64_t> c0 = lm.coords(t, r), c1 = lm.coords(t, r + 1);
      if (c0.empty() || c0.drop_back() != c1.drop_back() ||
          c1.back() != c0.back() + 1)
        return false;
    }
  auto isScalar = [](Type type) {
    return isa<IntegerType, FloatType, IndexType>(type);
  };
  // A fragment the body writes is read only where it is written: with
  // both lanes' loads before both lanes' stores, lane 1 must not read what
  // lane 0 writes.
  DenseMap<Value, Operation *> stored;
  for (Operation &inner : body)
    if (auto st = dyn_cast<memref::StoreOp>(inner))
      stored.try_emplace(st.getMemref(), &inner);
  bool packs16 = false;
  for (Operation &inner : body) {
    if (inner.getNumRegions())
      return false;
    Value mem;
    bool load = false;
    if (auto l = dyn_cast<memref::LoadOp>(inner)) {
      mem = l.getMemref();
      load = true;
    } else if (auto st = dyn_cast<memref::StoreOp>(inner)) {
      mem = st.getMemref();
    }
    if (mem) {
      // Shared and global elements are loaded and stored per lane (or as
      // the vectors of `vectorStores`); lane 1 must not read what lane 0
      // stores.
      if (!fragments.count(mem)) {
        if (load && stored.count(mem))
          return false;
        continue;
      }
      for (int64_t r = 0; r < lm.numRegs; r += 2) {
        int64_t r0 = regOf.lookup({&inner, r});
        int64_t r1 = regOf.lookup({&inner, r + 1});
        if (r0 < 0 || r1 < 0 || (r1 != r0 + 1 && !(load && r1 == r0)))
          return false;
        if (Operation *store = stored.lookup(mem);
            store && (regOf.lookup({store, r}) != r0 ||
                      regOf.lookup({store, r + 1}) != r1))
          return false;
      }
      continue;
    }
    // arith operations and fma, whose vector forms every backend lowers
    // (math functions become library calls per element).
    bool constant = inner.hasTrait<OpTrait::ConstantLike>();
    if (!isa<arith::ArithDialect>(inner.getDialect()) &&
        !isa<math::FmaOp>(inner))
      return false;
    if ((!constant && !inner.hasTrait<OpTrait::Elementwise>()) ||
        !isMemoryEffectFree(&inner) ||
        !llvm::all_of(inner.getOperandTypes(), isScalar) ||
        !llvm::all_of(inner.getResultTypes(), isScalar))
      return false;
    if (!constant)
      packs16 |= llvm::any_of(inner.getResultTypes(), [](Type type) {
        return isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16;
      });
  }
  return packs16;
}

namespace {
/// Stores of a parallel body into shared memory at the loop's own point
/// (indexed by the induction variables) whose registers hold aligned runs
/// of `width` consecutive elements of the buffer's storage: the values of
/// a run's registers are gathered and stored as one vector (a 16-byte
/// st.shared for eight f16), not element by element, which a swizzled
/// layout would keep LLVM from merging.
struct VectorStores {
  int64_t width = 1;
  SmallVector<Operation *> ops;
  /// Per store, the values of the current run's registers.
  DenseMap<Operation *, SmallVector<Value>> pending;
  /// The loop coordinates of the run's first register.
  SmallVector<Value> runCoords;

  bool has(Operation *op) const { return llvm::is_contained(ops, op); }
  void record(Operation *op, int64_t reg, Value value) {
    SmallVector<Value> &run = pending[op];
    run.resize(width);
    run[reg % width] = value;
  }
  /// Before register `reg`: starts a run at its coordinates.
  void begin(OpBuilder &b, Location loc, const LoopMap &lm, Value tid,
             int64_t reg) {
    if (width > 1 && reg % width == 0)
      runCoords = emitCoords(b, loc, lm, tid, reg);
  }
  /// After register `reg`: stores the run it completes.
  void end(OpBuilder &b, Location loc, LoweringContext &lc, int64_t reg) {
    if (width == 1 || reg % width != width - 1)
      return;
    for (Operation *op : ops) {
      auto store = cast<memref::StoreOp>(op);
      Type element = store.getValueToStore().getType();
      Value vec = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, element), pending[op]);
      auto [mem, idx] = lc.address(b, loc, store.getMemref(), runCoords);
      vector::StoreOp::create(
          b, loc, vec, mem, idx, /*nontemporal=*/false,
          llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
    }
  }
};
} // namespace

/// The stores of `body` that run as vectors over `lm`: those into shared
/// buffers the body does not also load, at the induction variables, of
/// elements of at most 16 bytes, with runs of registers contiguous and
/// aligned in the buffer's layout; the width is the narrowest such run.
static VectorStores planVectorStores(LoweringContext &lc, Block &body,
                                     const LoopMap &lm) {
  VectorStores vs;
  if (lm.perThread)
    return vs;
  DenseSet<Value> loaded;
  for (Operation &inner : body)
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      loaded.insert(load.getMemref());
  int64_t width = 0;
  for (Operation &inner : body) {
    auto store = dyn_cast<memref::StoreOp>(inner);
    if (!store || loaded.contains(store.getMemref()) ||
        !llvm::equal(store.getIndices(), body.getArguments()))
      continue;
    auto type = cast<MemRefType>(store.getMemref().getType());
    Type element = type.getElementType();
    Value root;
    Layout layout;
    const LoweringContext::Slot *slot;
    if (getMemorySpace(type) != MemorySpace::Shared ||
        !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 ||
        !lc.resolveShared(store.getMemref(), root, layout, slot))
      continue;
    int64_t maxWidth =
        std::max<int64_t>(1, 128 / element.getIntOrFloatBitWidth());
    int64_t v = pickVectorWidth(lm, maxWidth, {&layout});
    if (v < 2)
      continue;
    width = width ? std::min(width, v) : v;
    vs.ops.push_back(store);
  }
  if (width)
    vs.width = width;
  return vs;
}

namespace {
/// A value of a parallel body run for two registers at once: a vector<2xT>
/// and, once extracted, its lanes; or two scalars (the same one when
/// uniform).
struct PairValue {
  Value vec;
  Value lane[2];
};
} // namespace

/// Emits the body of a parallel loop over `lm` for registers `r` and
/// `r + 1` as one: fragment loads and stores of the two registers,
/// index arithmetic per lane (a constant where it is the same on every
/// thread), operations on operands that are the same in both lanes once,
/// and every other operation on vector<2xT>.
static void emitPair(OpBuilder &b, Location loc, LoweringContext &lc,
                     Block &body, const LoopMap &lm, int64_t r,
                     const RegisterMap &regOf, VectorStores &vs) {
  Value tid = lc.tid;
  const DenseMap<Value, std::pair<Fragment, Value>> &fragments = lc.fragments;
  auto ivs = body.getArguments();
  SmallVector<Value> coords[2] = {emitCoords(b, loc, lm, tid, r),
                                  emitCoords(b, loc, lm, tid, r + 1)};
  DenseMap<Value, PairValue> vals;
  for (auto [i, iv] : llvm::enumerate(ivs))
    vals[iv] = {Value(), {coords[0][i], coords[1][i]}};
  auto isUniform = [&](Value v) {
    auto it = vals.find(v);
    return it == vals.end() ||
           (!it->second.vec && it->second.lane[0] == it->second.lane[1]);
  };
  auto laneOf = [&](Value v, int l) -> Value {
    auto it = vals.find(v);
    if (it == vals.end())
      return v;
    PairValue &pv = it->second;
    if (!pv.lane[l])
      pv.lane[l] = vector::ExtractOp::create(b, loc, pv.vec, int64_t(l));
    return pv.lane[l];
  };
  auto vecOf = [&](Value v) -> Value {
    auto it = vals.find(v);
    if (it != vals.end() && it->second.vec)
      return it->second.vec;
    auto type = VectorType::get({2}, v.getType());
    Value l0 = laneOf(v, 0), l1 = laneOf(v, 1);
    if (l0 == l1)
      return vector::BroadcastOp::create(b, loc, type, l0);
    Value vec =
        vector::FromElementsOp::create(b, loc, type, ValueRange{l0, l1});
    vals[v].vec = vec;
    return vec;
  };
  // An index the same on every thread in lane `l` is a constant.
  auto evalLane = [&](Value v, int l) -> std::optional<int64_t> {
    std::optional<int64_t> value;
    for (int64_t t = 0; t < lm.activeThreads; ++t) {
      DenseMap<Value, int64_t> env;
      for (auto [iv, x] : llvm::zip(ivs, lm.coords(t, r + l)))
        env[iv] = x;
      std::optional<int64_t> x = evalIndex(v, env);
      if (!x || (value && *x != *value))
        return std::nullopt;
      value = x;
    }
    return value;
  };
  // An index the same in both lanes on every thread is computed once.
  auto sameInLanes = [&](Value v) {
    for (int64_t t = 0; t < lm.activeThreads; ++t) {
      DenseMap<Value, int64_t> env[2];
      for (int l = 0; l < 2; ++l)
        for (auto [iv, x] : llvm::zip(ivs, lm.coords(t, r + l)))
          env[l][iv] = x;
      std::optional<int64_t> x0 = evalIndex(v, env[0]);
      if (!x0 || x0 != evalIndex(v, env[1]))
        return false;
    }
    return true;
  };
  // The lanes of the indices of a shared or global access.
  auto laneIndices = [&](ValueRange indices, int l) {
    SmallVector<Value> idx;
    for (Value i : indices)
      idx.push_back(laneOf(i, l));
    return idx;
  };
  for (Operation &inner : body) {
    if (auto load = dyn_cast<memref::LoadOp>(inner);
        load && !fragments.count(load.getMemref())) {
      SmallVector<Value> idx[2] = {laneIndices(load.getIndices(), 0),
                                   laneIndices(load.getIndices(), 1)};
      Value lanes[2];
      for (int l = 0; l < 2; ++l) {
        if (l == 1 && idx[1] == idx[0]) {
          lanes[1] = lanes[0];
          break;
        }
        auto [mem, memIdx] = lc.address(b, loc, load.getMemref(), idx[l]);
        lanes[l] = memref::LoadOp::create(b, loc, mem, memIdx);
      }
      vals[load.getResult()] = {Value(), {lanes[0], lanes[1]}};
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner);
        store && !fragments.count(store.getMemref())) {
      for (int l = 0; l < 2; ++l) {
        Value value = laneOf(store.getValueToStore(), l);
        if (vs.has(store)) {
          vs.record(store, r + l, value);
          continue;
        }
        auto [mem, memIdx] = lc.address(b, loc, store.getMemref(),
                                        laneIndices(store.getIndices(), l));
        memref::StoreOp::create(b, loc, value, mem, memIdx);
      }
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      Value regs = fragments.lookup(load.getMemref()).second;
      int64_t r0 = regOf.lookup({&inner, r}),
              r1 = regOf.lookup({&inner, r + 1});
      Value l0 = memref::LoadOp::create(b, loc, regs, cst(b, loc, r0));
      Value l1 = r1 == r0
                     ? l0
                     : memref::LoadOp::create(b, loc, regs, cst(b, loc, r1))
                           .getResult();
      vals[load.getResult()] = {Value(), {l0, l1}};
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner)) {
      Value regs = fragments.lookup(store.getMemref()).second;
      for (int l = 0; l < 2; ++l)
        memref::StoreOp::create(
            b, loc, laneOf(store.getValueToStore(), l), regs,
            ValueRange{cst(b, loc, regOf.lookup({&inner, r + l}))});
      continue;
    }
    if (llvm::all_of(inner.getOperands(), isUniform)) {
      IRMapping mapping;
      for (Value v : inner.getOperands())
        mapping.map(v, laneOf(v, 0));
      Operation *clone = b.clone(inner, mapping);
      for (auto [res, out] : llvm::zip(inner.getResults(), clone->getResults()))
        vals[res] = {Value(), {out, out}};
      continue;
    }
    bool index =
        llvm::any_of(inner.getOperandTypes(), llvm::IsaPred<IndexType>) ||
        llvm::any_of(inner.getResultTypes(), llvm::IsaPred<IndexType>);
    if (index) {
      SmallVector<Value> lanes[2];
      bool same = inner.getNumResults() == 1 &&
                  inner.getResult(0).getType().isIndex() &&
                  sameInLanes(inner.getResult(0));
      for (int l = 0; l < 2; ++l) {
        if (l == 1 && same) {
          lanes[1] = lanes[0];
          break;
        }
        std::optional<int64_t> c;
        if (inner.getNumResults() == 1 &&
            inner.getResult(0).getType().isIndex())
          c = evalLane(inner.getResult(0), l);
        if (c) {
          lanes[l].push_back(cst(b, loc, *c));
          continue;
        }
        IRMapping mapping;
        for (Value v : inner.getOperands())
          mapping.map(v, laneOf(v, l));
        llvm::append_range(lanes[l], b.clone(inner, mapping)->getResults());
      }
      for (auto [i, res] : llvm::enumerate(inner.getResults()))
        vals[res] = {Value(), {lanes[0][i], lanes[1][i]}};
      continue;
    }
    IRMapping mapping;
    for (Value v : inner.getOperands())
      mapping.map(v, vecOf(v));
    Operation *vec = b.clone(inner, mapping);
    for (auto [res, out] : llvm::zip(inner.getResults(), vec->getResults())) {
      out.setType(VectorType::get({2}, res.getType()));
      vals[res] = {out, {Value(), Value()}};
    }
  }
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
  RegisterMap regOf;
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
  VectorStores vs = planVectorStores(*this, body, *lm);
  if (canRunInPairs(body, *lm, regOf, fragments)) {
    emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
      if (r % 2)
        return;
      vs.begin(b, loc, *lm, tid, r);
      emitPair(b, loc, *this, body, *lm, r, regOf, vs);
      vs.end(b, loc, *this, r + 1);
    });
    op.erase();
    return success();
  }
  emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
    vs.begin(b, loc, *lm, tid, r);
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
        if (vs.has(store)) {
          vs.record(store, r, mapping.lookupOrDefault(store.getValueToStore()));
          continue;
        }
        SmallVector<Value> idx;
        Value m = rewriteAccess(store.getMemref(), store.getIndices(), idx);
        memref::StoreOp::create(
            b, loc, mapping.lookupOrDefault(store.getValueToStore()), m, idx);
        continue;
      }
      b.clone(inner, mapping);
    }
    vs.end(b, loc, *this, r);
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
