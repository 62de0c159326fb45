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
// says; `order` sets the issue order inside an iteration.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

/// Whether `copy` can be a producer of `loop`: global into a whole shared
/// allocation that nothing outside the loop touches and that the rest of
/// the loop only reads (gemm operands, copy, reduce and cumsum sources,
/// loads in parallel bodies).
static bool isProducer(PipelinedOp loop, CopyOp copy) {
  auto alloc = copy.getDst().getDefiningOp<AllocOp>();
  if (!alloc || !copy.getDstIndices().empty() ||
      getMemorySpace(copy.getSrc().getType()) != MemorySpace::Global ||
      getMemorySpace(alloc.getType()) != MemorySpace::Shared ||
      copy->getParentOp() != loop)
    return false;
  for (Operation *user : alloc->getUsers()) {
    if (!loop->isProperAncestor(user))
      return false;
    if (user == copy)
      continue;
    // Other users may only read it: the other slots are being written.
    Value buffer = alloc.getResult();
    bool reads = TypeSwitch<Operation *, bool>(user)
                     .Case([&](GemmOp g) { return g.getC() != buffer; })
                     .Case([&](CopyOp c) {
                       return c.getSrc() == buffer && c.getDst() != buffer;
                     })
                     .Case([&](ReduceOp r) {
                       return r.getSrc() == buffer && r.getDst() != buffer;
                     })
                     .Case([&](CumsumOp c) {
                       return c.getSrc() == buffer && c.getDst() != buffer;
                     })
                     .Case<memref::LoadOp, vector::LoadOp>(
                         [](Operation *) { return true; })
                     .Default([](Operation *) { return false; });
    if (!reads)
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

LogicalResult mlir::tile::pipelineLoop(PipelinedOp loop,
                                       const LoweringOptions &options) {
  SmallVector<Operation *> scheduled = loop.getScheduledOps();
  SmallVector<bool> isProd;
  SmallVector<CopyOp> producers;
  for (Operation *op : scheduled) {
    auto copy = dyn_cast<CopyOp>(op);
    bool prod = copy && isProducer(loop, copy);
    std::string why = prod ? dependsOnBody(loop, op) : "";
    if (!why.empty()) {
      loop.emitWarning() << "not pipelined: the copy into shared memory "
                            "cannot be issued early: "
                         << why;
      convertToFor(loop);
      return success();
    }
    isProd.push_back(prod);
    if (prod)
      producers.push_back(copy);
  }
  if (producers.empty()) {
    convertToFor(loop);
    return success();
  }

  // Distance between a producer and its consumers, in iterations.
  int64_t distance = loop.getStages() - 1;
  if (std::optional<ArrayRef<int64_t>> stage = loop.getStage()) {
    std::optional<int64_t> prodStage, consStage;
    for (auto [i, s] : llvm::enumerate(*stage)) {
      std::optional<int64_t> &slot = isProd[i] ? prodStage : consStage;
      if (slot && *slot != s)
        return loop.emitOpError()
               << "unsupported schedule: expected every global-to-shared "
                  "copy in one stage and every other operation in one "
                  "stage, got stages "
               << *slot << " and " << s << " for "
               << (isProd[i] ? "copies" : "other operations");
      slot = s; // the verifier keeps s in [0, stages)
    }
    distance = consStage.value_or(0) - prodStage.value_or(0);
    if (distance < 0)
      return loop.emitOpError()
             << "unsupported schedule: the copies into shared memory (stage "
             << *prodStage << ") must not come after their readers (stage "
             << *consStage << ")";
  }
  int64_t slots = distance + 1;

  // Issue order inside an iteration.
  SmallVector<Operation *> issue(scheduled);
  if (std::optional<ArrayRef<int64_t>> order = loop.getOrder())
    for (auto [i, position] : llvm::enumerate(*order))
      issue[position] = scheduled[i];
  // In one stage, the readers must wait for the copies.
  if (distance == 0)
    std::stable_partition(issue.begin(), issue.end(), [&](Operation *op) {
      return llvm::is_contained(producers, op);
    });

  // Multi-buffered allocations.
  Location loc = loop.getLoc();
  DenseMap<Value, Value> slotted; // old alloc -> [slots, ...] alloc
  for (CopyOp copy : producers) {
    auto alloc = copy.getDst().getDefiningOp<AllocOp>();
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

  OpBuilder b(loop);
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
  auto commit = [&] { NVVM::CpAsyncCommitGroupOp::create(b, loc); };
  auto wait = [&](int64_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  };
  // Makes the landed copies visible to the block. On sm_90a the readers
  // may be wgmma, which reads shared memory through the async proxy: each
  // thread orders its own copies for it before the barrier.
  bool asyncReaders =
      options.chip == "sm_90a" &&
      llvm::any_of(body, [](Operation &op) { return isa<GemmOp>(op); });
  auto publish = [&] {
    if (asyncReaders)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
  };
  // Clones `ops` for iteration `iter` (an index from 0) using slot `slot`
  // of the multi-buffered allocations, with the body's pure operations
  // first.
  auto emit = [&](ArrayRef<Operation *> ops, Value iter, Value slot) {
    IRMapping map;
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
      if (isPure(&op))
        b.clone(op, map);
    for (Operation *op : ops) {
      Operation *clone = b.clone(*op, map);
      if (isa<CopyOp>(clone) && llvm::is_contained(producers, op))
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

  // The prologue as a loop (one copy of the producers, not `distance`),
  // committing a group on every iteration so that the main loop's wait
  // counts hold even when there are fewer steps than stages.
  if (distance > 0) {
    auto prologue = scf::ForOp::create(b, loc, c(0), c(distance), c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(prologue.getBody()->getTerminator());
    emitProducers(SmallVector<Operation *>(producers.begin(), producers.end()),
                  prologue.getInductionVar());
    commit();
  }
  auto forOp = scf::ForOp::create(b, loc, c(0), trips, c(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    Value i = forOp.getInductionVar();
    if (distance > 0) {
      wait(distance - 1);
      publish();
    }
    Value ahead =
        distance > 0 ? arith::AddIOp::create(b, loc, i, c(distance)).getResult()
                     : i;
    // Walk the issue order: runs of producers go together under one guard,
    // each run of consumers as it comes.
    SmallVector<Operation *> run;
    bool runIsProducers = false;
    Operation *lastProducer = nullptr;
    for (Operation *op : issue)
      if (llvm::is_contained(producers, op))
        lastProducer = op;
    auto flush = [&] {
      if (run.empty())
        return;
      if (runIsProducers) {
        if (distance > 0)
          emitProducers(run, ahead);
        else
          emit(run, i, c(0));
      } else {
        emit(run, i, slotOf(i));
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
      if (!run.empty() && prod != runIsProducers)
        flush();
      runIsProducers = prod;
      run.push_back(op);
    }
    flush();
    if (distance == 0)
      gpu::BarrierOp::create(b, loc);
  }
  wait(0);

  loop.erase();
  for (auto [old, big] : slotted)
    old.getDefiningOp()->erase();
  return success();
}

LogicalResult mlir::tile::pipelineLoops(KernelOp kernel,
                                        const LoweringOptions &options) {
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  for (PipelinedOp loop : loops)
    if (failed(pipelineLoop(loop, options)))
      return failure();
  return success();
}
