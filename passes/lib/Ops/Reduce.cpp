//===- Reduce.cpp - tile.reduce and tile.cumsum --------------------------===//
//
// tile.reduce and tile.cumsum as tile operators: fragment-to-fragment
// forms whose destination layout inference derives from the source, loop
// nests over shared memory otherwise, and their lowering to per-thread
// partial results combined across threads with warp shuffles (and shared
// memory where a row spans warps).
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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

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

/// Folds element `x` into partial `acc`, extended first to `acc`'s type
/// where the destination is the wider float.
static Value accumulate(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                        Value x) {
  if (x.getType() != acc.getType())
    x = arith::ExtFOp::create(b, loc, acc.getType(), x);
  if (kind == ReduceKind::abssum || kind == ReduceKind::absmax)
    x = absOf(b, loc, x);
  return combine(b, loc, kind, acc, x);
}

/// `gpu.shuffle` of `v` by `mask` (xor) or offset (up, down) among the
/// `warpSize` lanes of a warp, widening narrow types to 32 bits.
static Value shuffle(OpBuilder &b, Location loc, Value v, int64_t mask,
                     int64_t warpSize,
                     gpu::ShuffleMode mode = gpu::ShuffleMode::XOR) {
  Type type = v.getType();
  Type wide = type;
  if (type.getIntOrFloatBitWidth() < 32)
    wide = isa<FloatType>(type) ? Type(b.getF32Type()) : b.getI32Type();
  Value w = convert(b, loc, v, wide);
  Value off = arith::ConstantIntOp::create(b, loc, b.getI32Type(), mask);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), warpSize);
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

/// Lowers `op`: per-thread partial results, combined across lanes with
/// shuffles and across warps through shared memory.
///
/// One function: the three phases share the grouping of source registers
/// by output, the xor pattern of the holders and the destination layout.
LogicalResult LoweringContext::lowerReduce(ReduceOp op) {
  MemRefType srcType = op.getSrc().getType(), dstType = op.getDst().getType();
  MemorySpace srcSpace = getMemorySpace(srcType),
              dstSpace = getMemorySpace(dstType);
  unsigned dim = op.getDim();
  ReduceKind kind = op.getKind();
  // Partial results take the destination's type (a wider float may be).
  Type elem = dstType.getElementType();
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
    (m < options.target.getWarpSize() ? laneMasks : warpMasks).push_back(m);

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
        acc = combine(b, loc, kind, acc,
                      shuffle(b, loc, acc, m, options.target.getWarpSize()));
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
LogicalResult LoweringContext::lowerFragmentCumsum(CumsumOp op) {
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
      if (extent % chunk != 0 || (lanes && lanes != count) ||
          count > options.target.getWarpSize() || !llvm::isPowerOf2_64(count) ||
          elems.front().first % chunk != 0 ||
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
        Value other =
            shuffle(b, loc, inclusive, off, options.target.getWarpSize(), mode);
        Value added = accumulate(b, loc, ReduceKind::sum, inclusive, other);
        inclusive =
            arith::SelectOp::create(b, loc, laneHas(off), added, inclusive);
      }
      Value before =
          shuffle(b, loc, inclusive, 1, options.target.getWarpSize(), mode);
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

LogicalResult LoweringContext::lowerCumsum(CumsumOp op) {
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
// TileOpInterface
//===----------------------------------------------------------------------===//

namespace {
/// tile.reduce and tile.cumsum: a derivation between fragments, or a loop
/// nest over a tile with a shared operand.
template <typename OpTy>
struct ReduceModel
    : public TileOpInterface::ExternalModel<ReduceModel<OpTy>, OpTy> {
  static constexpr bool isReduce = std::is_same_v<OpTy, ReduceOp>;

  static LogicalResult collect(OpTy op, LayoutInferenceState &state) {
    Value src = op.getSrc(), dst = op.getDst();
    auto srcType = cast<MemRefType>(src.getType());
    std::optional<int64_t> dim;
    if constexpr (isReduce)
      dim = op.getDim();
    bool fragments = getMemorySpace(srcType) == MemorySpace::Fragment &&
                     getMemorySpace(cast<MemRefType>(dst.getType())) ==
                         MemorySpace::Fragment;
    if (!fragments) {
      TileLoopOperands operands;
      operands.src = src;
      operands.dst = dst;
      operands.shape = llvm::to_vector(srcType.getShape());
      operands.reducedDim = dim;
      return state.collectTileLoop(op, operands);
    }
    // Layouts belong to allocations: the operands must be the buffers.
    for (Value operand : {src, dst})
      if (failed(state.isFragmentOperand(op, operand)))
        return failure();
    Derivation derivation;
    derivation.op = op;
    derivation.src = src;
    derivation.dst = dst;
    derivation.index.resize(srcType.getRank());
    std::iota(derivation.index.begin(), derivation.index.end(), 0);
    if (dim) {
      if (cast<MemRefType>(dst.getType()).getRank() == srcType.getRank())
        derivation.index[*dim] = -1;
      else
        derivation.index.erase(derivation.index.begin() + *dim);
    }
    // A prefix sum is element-wise: either side may lay out the other.
    derivation.reversible = !isReduce;
    state.addDerivation(std::move(derivation));
    return success();
  }

  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level == InferenceLevel::Collect)
      return collect(cast<OpTy>(op), state);
    if (failed(state.inferDerivation(op, level)))
      return failure();
    return state.inferLoop(op, level);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    if constexpr (isReduce)
      return context.lowerReduce(cast<OpTy>(op));
    else
      return context.lowerCumsum(cast<OpTy>(op));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    auto reduce = cast<OpTy>(op);
    accesses.push_back({reduce.getSrc(), AccessKind::Read});
    // A reduction without `clear` combines with what dst holds.
    if (isReduce)
      accesses.push_back({reduce.getDst(), AccessKind::Read});
    accesses.push_back({reduce.getDst(), AccessKind::Write});
  }
};
} // namespace

void mlir::tile::registerReduceModels(MLIRContext *ctx) {
  ReduceOp::attachInterface<ReduceModel<ReduceOp>>(*ctx);
  CumsumOp::attachInterface<ReduceModel<CumsumOp>>(*ctx);
}
