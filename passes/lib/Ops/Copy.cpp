//===- Copy.cpp - tile.copy ----------------------------------------------===//
//
// tile.copy as a tile operator: its loop nest for layout inference, its
// accesses, its form as an asynchronous copy for pipelined loops, and its
// lowering to vectorized per-thread loads and stores (or, in the consumers
// of a warp-specialized kernel, to stores through shared staging buffers, by
// TMA or the threads: Target/NVIDIA/StagedStore.cpp).
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

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {
/// Register vectors that `lanes` neighbouring lanes exchange so that each
/// stores `lanes` of them as one wider vector (planLaneExchange()).
struct LaneExchange {
  int64_t lanes = 1;
  /// The blocks' registers R_0 ... R_k-1, by R_0 (the block is stored
  /// where the copy's per-register loop reaches R_0).
  llvm::DenseMap<int64_t, SmallVector<int64_t, 4>> blocks;
};
} // namespace

/// Where the vectors of `v` elements that a loop map `lm` gives each
/// thread lie, in every aligned group of `lanes` lanes, side by side in one
/// row (lane j's vector starts j * v after lane 0's), and every thread
/// holds `lanes` such vectors `lanes * v` apart in the row (R_0 ... R_k-1):
/// the k x k transpose of those vectors across the group's lanes gives
/// lane j the k * v contiguous elements of R_j's column block. Accumulator
/// fragments of mma.sync and wgmma have this shape (a quad holds 8
/// consecutive columns of a row, two each, in every 8-column group), so
/// that their rows leave in 16-byte stores rather than 4-byte ones: a
/// quarter of the store instructions, and of the 128-byte lines each
/// touches per row. std::nullopt where the map has another shape.
static std::optional<LaneExchange> planLaneExchange(const LoopMap &lm,
                                                    int64_t v, int64_t lanes,
                                                    int64_t warpSize) {
  if (lm.replicated || lm.perThread || lm.activeThreads % warpSize != 0 ||
      lm.numRegs % (v * lanes) != 0)
    return std::nullopt;
  int64_t stride = v * lanes;
  for (int64_t t = 0; t < lm.activeThreads; ++t) {
    int64_t j = t % lanes;
    for (int64_t r = 0; r < lm.numRegs; r += v) {
      ArrayRef<int64_t> c = lm.coords(t, r), c0 = lm.coords(t - j, r);
      if (c.drop_back() != c0.drop_back() || c.back() != c0.back() + j * v)
        return std::nullopt;
    }
  }
  // The blocks, found on thread 0 and checked on every group's first lane.
  std::map<SmallVector<int64_t>, int64_t> regAt;
  for (int64_t r = 0; r < lm.numRegs; r += v) {
    ArrayRef<int64_t> c = lm.coords(0, r);
    regAt[SmallVector<int64_t>(c.begin(), c.end())] = r;
  }
  LaneExchange plan;
  plan.lanes = lanes;
  for (int64_t r = 0; r < lm.numRegs; r += v) {
    ArrayRef<int64_t> c = lm.coords(0, r);
    if (c.back() % (stride * lanes) != 0)
      continue;
    SmallVector<int64_t, 4> block;
    for (int64_t m = 0; m < lanes; ++m) {
      SmallVector<int64_t> at(c.begin(), c.end());
      at.back() += m * stride;
      auto it = regAt.find(at);
      if (it == regAt.end())
        return std::nullopt;
      block.push_back(it->second);
    }
    plan.blocks[r] = block;
  }
  if (static_cast<int64_t>(plan.blocks.size()) * lanes * v != lm.numRegs)
    return std::nullopt;
  for (int64_t t = 0; t < lm.activeThreads; t += lanes)
    for (const auto &[first, block] : plan.blocks)
      for (int64_t m = 0; m < lanes; ++m) {
        ArrayRef<int64_t> c = lm.coords(t, block[m]),
                          c0 = lm.coords(t, block[0]);
        if (c.drop_back() != c0.drop_back() ||
            c.back() != c0.back() + m * stride)
          return std::nullopt;
      }
  return plan;
}

/// The transpose of the planLaneExchange() block `words` (word m of vector
/// R_m of this lane) across `lanes` lanes with lane index `lane`: word s of
/// the result is lane s's word of R_lane. Each lane sends, in round x, the
/// word the lane `lane ^ x` needs, so both sides pick with selects on the
/// lane's bits rather than index registers.
static SmallVector<Value> transposeAcrossLanes(OpBuilder &b, Location loc,
                                               ArrayRef<Value> words,
                                               Value lane, int64_t warpSize) {
  int64_t lanes = words.size();
  // out[s] = in[s ^ lane], one stage of selects per bit of the lane.
  auto xorPermute = [&](SmallVector<Value> in) {
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    for (int64_t bit = 1; bit < lanes; bit <<= 1) {
      Value set = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, lane, i32(bit)), i32(0));
      SmallVector<Value> next;
      for (int64_t s = 0; s < lanes; ++s)
        next.push_back(
            arith::SelectOp::create(b, loc, set, in[s ^ bit], in[s]));
      in = std::move(next);
    }
    return in;
  };
  SmallVector<Value> send = xorPermute(SmallVector<Value>(words));
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), warpSize);
  for (int64_t x = 1; x < lanes; ++x) {
    Value mask = arith::ConstantIntOp::create(b, loc, b.getI32Type(), x);
    send[x] = gpu::ShuffleOp::create(b, loc, send[x], mask, width,
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
  }
  return xorPermute(send);
}

/// Lowers `op` to vectorized per-thread loads and stores.
///
/// One function: the whole-tile test, the fast path and the masked edge
/// path share the loop map, the operands' origins and the vector width,
/// and each path emits the same per-register loop with different guards.
LogicalResult LoweringContext::lowerCopy(CopyOp op) {
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
  // The layout of a whole shared destination, which may scatter.
  const Layout *dstShared = nullptr;
  for (Operand *o : {&src, &dst}) {
    if (const Slot *slot = getSlot(o->buffer)) {
      reshaped.push_back(slot->layout);
      storage.push_back(&reshaped.back());
      if (!o->origin.empty())
        maxWidth = 1;
      else if (o == &dst)
        dstShared = storage.back();
      continue;
    }
    auto it = sharedLayouts.find(o->buffer);
    if (it == sharedLayouts.end())
      continue;
    if (o->origin.empty()) {
      storage.push_back(&it->second.first);
      if (o == &dst)
        dstShared = storage.back();
      continue;
    }
    // An indexed shared operand: vectors need unit stride, checked on the
    // buffer's own layout at the tile's origin 0 only.
    maxWidth = 1;
  }
  // Row-major operands are contiguous along the last dimension; a
  // rank-reducing or indexed one keeps that property. A global or shared
  // view whose last stride is not 1 (a transpose) moves element by element.
  bool contiguousRows = true;
  for (Operand *o : {&src, &dst}) {
    if (o->space == MemorySpace::Local && !o->origin.empty() &&
        o->type.getShape().back() % maxWidth != 0)
      maxWidth = 1;
    if ((o->space == MemorySpace::Global || o->space == MemorySpace::Shared) &&
        !hasUnitInnerStride(o->type))
      contiguousRows = false;
  }
  if (!contiguousRows)
    maxWidth = 1;
  int64_t v = pickVectorWidth(*lm, maxWidth, storage);
  // Without cp.async, a shared destination whose layout breaks the
  // source's vectors (an MFMA operand stored K-outer, transposed in LDS so
  // that the gemm reads K runs as vectors) takes the vectors element by
  // element: one wide global load and narrow LDS stores beat narrow loads
  // and stores. (cp.async needs the vector whole in both.)
  bool scatterDst = false;
  if (dstShared && src.space == MemorySpace::Global &&
      !options.target.has(TargetFeature::cp_async)) {
    SmallVector<const Layout *> others(llvm::make_filter_range(
        storage, [&](const Layout *l) { return l != dstShared; }));
    int64_t wide = pickVectorWidth(*lm, maxWidth, others);
    if (wide > v) {
      v = wide;
      scatterDst = true;
    }
  }

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

  // Registers stored to global memory in vectors narrower than 16 bytes
  // may go out wider after an exchange across lanes (planLaneExchange()):
  // `sv` elements a store.
  std::optional<LaneExchange> exchange;
  int64_t sv = v;
  int64_t dstBytes = elementBytes(dstElem);
  int64_t warpSize = options.target.getWarpSize();
  if (src.space == MemorySpace::Fragment && dst.space == MemorySpace::Global &&
      contiguousRows && (v * dstBytes) % 4 == 0) {
    int64_t limit = 16 / (v * dstBytes);
    if (std::optional<uint64_t> w = op.getCoalescedWidth())
      limit = std::min<int64_t>(limit, *w / v);
    for (int64_t lanes = limit; lanes >= 2 && !exchange; lanes /= 2)
      exchange = planLaneExchange(*lm, v, lanes, warpSize);
    if (exchange)
      sv = v * exchange->lanes;
  }

  Type srcVecType = v > 1 ? Type(VectorType::get({v}, srcElem)) : srcElem;
  // The vector of `v` fragment registers starting at loop register `r` of
  // the source (a scalar where v is 1).
  auto readFragment = [&](OpBuilder &b, int64_t r) -> Value {
    Value regs = fragments[src.buffer].second;
    SmallVector<Value> elems;
    for (int64_t k = 0; k < v; ++k)
      elems.push_back(memref::LoadOp::create(
          b, loc, regs, ValueRange{cst(b, loc, srcRegs[r + k])}));
    if (v == 1)
      return elems[0];
    return vector::FromElementsOp::create(b, loc, cast<VectorType>(srcVecType),
                                          elems);
  };
  bool maskSrc = src.space == MemorySpace::Global && needsMask(src.type, tile);
  bool maskDst = dst.space == MemorySpace::Global && needsMask(dst.type, tile);
  // Set while emitting the path taken when the global tile is whole and
  // aligned: no masks, no alignment tests.
  bool trusted = false;
  // Set while emitting the edge path of a tile whose rows have a dynamic
  // length, where cp.async runs narrower than a vector may serve the
  // vectors that are not 16-byte aligned: with rows of an odd number of
  // halves, every other row starts 4-byte aligned and its vectors stay
  // asynchronous in 4-byte runs.
  bool narrowRuns = false;

  // Elements of the vector at `memIdx` inside global `mem`: clamp(dim -
  // idx, 0, width) on an in-bounds row, else 0. Also the mask of the masked
  // vector accesses that edge vectors fall back to.
  auto validElements = [&](OpBuilder &b, Location loc, Value mem,
                           ArrayRef<Value> memIdx, int64_t width) -> Value {
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
    left = arith::MinSIOp::create(b, loc, left, cst(b, loc, width));
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
    if (scatterDst) {
      for (int64_t k = 0; k < v; ++k) {
        SmallVector<Value> at = llvm::to_vector(coords);
        at.back() =
            b.createOrFold<arith::AddIOp>(loc, at.back(), cst(b, loc, k));
        SmallVector<Value> idx = operandIndices(b, loc, dst, at);
        auto [mem, memIdx] = address(b, loc, dst.buffer, idx);
        memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, value, k).getResult(),
            mem, memIdx);
      }
      return;
    }
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    auto [mem, memIdx] = address(b, loc, dst.buffer, idx);
    auto store = [&](OpBuilder &b) {
      if (sv == 1)
        memref::StoreOp::create(b, loc, value, mem, memIdx);
      else
        vector::StoreOp::create(b, loc, value, mem, memIdx,
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(sv * elementBytes(dstElem)));
    };
    if (dst.space != MemorySpace::Global || trusted || (!maskDst && sv == 1)) {
      store(b);
      return;
    }
    Value ok = maskDst ? inBounds(b, loc, mem, memIdx, sv - 1) : Value();
    if (sv > 1) {
      Value al = isAligned(b, loc, mem, memIdx, sv * elementBytes(dstElem),
                           elementBytes(dstElem));
      ok = ok ? arith::AndIOp::create(b, loc, ok, al).getResult() : al;
    }
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    store(tb);
    OpBuilder eb(ifOp.elseBlock()->getTerminator());
    if (sv == 1) {
      // Only reached when masked: the element is outside.
      return;
    }
    // A straddling or misaligned vector: one masked store at element
    // alignment (all lanes on when the tensor is not masked).
    Value count =
        maskDst ? validElements(eb, loc, mem, memIdx, sv) : cst(eb, loc, sv);
    vector::MaskedStoreOp::create(eb, loc, mem, memIdx,
                                  laneMask(eb, loc, count, sv), value);
  };

  // Copies a pipelined loop issues ahead go through cp.async (4, 8 or 16
  // bytes per thread, no conversion, elements of a byte or more: cp.async
  // counts whole elements) where the target has it; elsewhere
  // (AMD) they are plain loads and LDS stores, into the slot the loop
  // fills ahead.
  int64_t copyBytes = v * elementBytes(srcElem);
  bool async = !scatterDst && op->hasAttr(kAsyncCopyAttr) &&
               options.target.has(TargetFeature::cp_async) &&
               src.space == MemorySpace::Global &&
               dst.space == MemorySpace::Shared && srcElem == dstElem &&
               srcElem.getIntOrFloatBitWidth() >= 8 &&
               (copyBytes == 4 || copyBytes == 8 || copyBytes == 16);
  // cp.async of `width` elements; with `valid`, a run wholly inside (valid
  // == width) or wholly outside (valid == 0: nothing read, all
  // zero-filled) the source.
  auto emitAsyncCopy = [&](OpBuilder &b, Location loc, Value mem,
                           SmallVector<Value> memIdx, ArrayRef<Value> coords,
                           Value valid, int64_t width) {
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
        mem, memIdx, b.getIndexAttr(width), valid,
        width * elementBytes(srcElem) == 16 ? b.getUnitAttr() : UnitAttr());
  };
  // The vector at `memIdx` (`coords`) as v / width cp.async runs of
  // `width` elements, each with its share of `valid`.
  auto emitAsyncRuns = [&](OpBuilder &b, Location loc, Value mem,
                           ArrayRef<Value> memIdx, ArrayRef<Value> coords,
                           Value valid, int64_t width) {
    for (int64_t j = 0; j < v; j += width) {
      SmallVector<Value> runIdx(memIdx), runCoords(coords);
      runIdx.back() =
          b.createOrFold<arith::AddIOp>(loc, runIdx.back(), cst(b, loc, j));
      runCoords.back() =
          b.createOrFold<arith::AddIOp>(loc, runCoords.back(), cst(b, loc, j));
      Value runValid;
      if (valid) {
        runValid = arith::SubIOp::create(b, loc, valid, cst(b, loc, j));
        runValid = arith::MaxSIOp::create(b, loc, runValid, cst(b, loc, 0));
        runValid = arith::MinSIOp::create(b, loc, runValid, cst(b, loc, width));
      }
      emitAsyncCopy(b, loc, mem, runIdx, runCoords, runValid, width);
    }
  };

  auto emitAll = [&](OpBuilder &b) {
    emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
      if (r % v != 0)
        return;
      OpBuilder::InsertionGuard guard(b);
      if (exchange) {
        // One block: its vectors as words, transposed across the lanes,
        // stored as lane j's column block, j * (lanes - 1) * v past its
        // own R_0.
        auto it = exchange->blocks.find(r);
        if (it == exchange->blocks.end())
          return;
        int64_t lanes = exchange->lanes, words = v * dstBytes / 4;
        auto wordType = VectorType::get({words}, b.getI32Type());
        SmallVector<SmallVector<Value>> perVector;
        for (int64_t reg : it->second) {
          Value vec = readFragment(b, reg);
          if (v == 1)
            vec = vector::FromElementsOp::create(
                b, loc, VectorType::get({1}, srcElem), ValueRange{vec});
          Value packed = vector::BitCastOp::create(
              b, loc, wordType, convert(b, loc, vec, dstElem));
          SmallVector<Value> ws;
          for (int64_t w = 0; w < words; ++w)
            ws.push_back(vector::ExtractOp::create(b, loc, packed, w));
          perVector.push_back(ws);
        }
        Value lane = arith::RemUIOp::create(b, loc, tid, cst(b, loc, lanes));
        Value laneI32 =
            arith::IndexCastUIOp::create(b, loc, b.getI32Type(), lane);
        SmallVector<SmallVector<Value>> out(lanes);
        for (int64_t w = 0; w < words; ++w) {
          SmallVector<Value> column;
          for (int64_t m = 0; m < lanes; ++m)
            column.push_back(perVector[m][w]);
          SmallVector<Value> t =
              transposeAcrossLanes(b, loc, column, laneI32, warpSize);
          for (int64_t m = 0; m < lanes; ++m)
            out[m].push_back(t[m]);
        }
        SmallVector<Value> all;
        for (ArrayRef<Value> ws : out)
          llvm::append_range(all, ws);
        Value wide = vector::FromElementsOp::create(
            b, loc, VectorType::get({lanes * words}, b.getI32Type()), all);
        Value value = vector::BitCastOp::create(
            b, loc, VectorType::get({sv}, dstElem), wide);
        SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r);
        coords.back() = arith::AddIOp::create(
            b, loc, coords.back(),
            arith::MulIOp::create(b, loc, lane, cst(b, loc, (lanes - 1) * v)));
        convertAndStore(b, r, coords, value);
        return;
      }
      Value replica;
      SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
      if (dst.space != MemorySpace::Fragment)
        guardFirstReplica(b, loc, replica);
      // Read.
      Value value;
      if (src.space == MemorySpace::Fragment) {
        value = readFragment(b, r);
      } else {
        SmallVector<Value> idx = operandIndices(b, loc, src, coords);
        auto [mem, memIdx] = address(b, loc, src.buffer, idx);
        if (async && trusted) {
          emitAsyncCopy(b, loc, mem, memIdx, coords, Value(), v);
          return;
        }
        if (async) {
          // cp.async where the source is aligned and the vector lies wholly
          // inside or wholly outside it (zero-filled). Where it is not,
          // narrower runs (down to cp.async's 4 bytes) that are aligned and
          // each wholly inside or outside: rows of 2, 4 or 6 halves, whose
          // vectors are only 4- or 8-byte aligned, stay asynchronous. The
          // synchronous path below, in the innermost else branch, takes
          // the rest. A partial cp.async would be legal but reads past the
          // tensor as far as memory checkers can tell.
          Value valid =
              maskSrc ? validElements(b, loc, mem, memIdx, v) : Value();
          int64_t narrowest = narrowRuns ? 4 : v * elementBytes(srcElem);
          for (int64_t width = v; width * elementBytes(srcElem) >= narrowest;
               width /= 2) {
            Value ok =
                isAligned(b, loc, mem, memIdx, width * elementBytes(srcElem),
                          elementBytes(srcElem));
            if (valid) {
              // Every run is whole or empty when width divides valid.
              Value whole = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, loc, valid, cst(b, loc, width)),
                  cst(b, loc, 0));
              ok = arith::AndIOp::create(b, loc, ok, whole);
            }
            auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
            OpBuilder tb(ifOp.thenBlock()->getTerminator());
            emitAsyncRuns(tb, loc, mem, memIdx, coords, valid, width);
            b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
          }
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
          auto vecType = cast<VectorType>(srcVecType);
          Value zeros = arith::ConstantOp::create(
              eb, loc, vecType,
              DenseElementsAttr::get(vecType, eb.getZeroAttr(srcElem)));
          auto maskedLoad = [&](OpBuilder &b, Value count) {
            Value slow =
                vector::MaskedLoadOp::create(b, loc, vecType, mem, memIdx,
                                             laneMask(b, loc, count, v), zeros);
            scf::YieldOp::create(b, loc, slow);
          };
          if (!maskSrc) {
            maskedLoad(eb, cst(eb, loc, v));
          } else {
            // A vector wholly outside (the lanes past a ragged block's
            // last column, rows past the end) yields zeros at once: the
            // masked load tests and branches around each element, and a
            // warp whose lanes straddle the edge runs both sides.
            Value count = validElements(eb, loc, mem, memIdx, v);
            Value none = arith::CmpIOp::create(
                eb, loc, arith::CmpIPredicate::eq, count, cst(eb, loc, 0));
            auto noneIf = scf::IfOp::create(eb, loc, TypeRange{vecType}, none,
                                            /*withElse=*/true);
            OpBuilder nb = noneIf.getThenBodyBuilder();
            scf::YieldOp::create(nb, loc, zeros);
            OpBuilder sb = noneIf.getElseBodyBuilder();
            maskedLoad(sb, count);
            scf::YieldOp::create(eb, loc, noneIf.getResult(0));
          }
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
  if (!global || (!masked && sv == 1)) {
    emitAll(b);
  } else {
    Value whole = isWholeAlignedTile(
        b, loc, global->buffer, global->origin, tile, masked,
        global == &dst ? sv : v, elementBytes(global->type.getElementType()));
    auto ifOp = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    trusted = true;
    emitAll(tb);
    trusted = false;
    OpBuilder eb(ifOp.elseBlock()->getTerminator());
    int64_t srcBytes = elementBytes(srcElem);
    // Rows of a static length that is a multiple of the vector hold whole
    // vectors, so narrower runs could only serve a misaligned base or
    // stride (a view) or a column origin off the vector grid: those take
    // the per-vector path, and the kernel is spared a third version of the
    // copy.
    int64_t rowLength = src.type.getShape().back();
    bool wholeVectorRows =
        !ShapedType::isDynamic(rowLength) && rowLength % v == 0;
    if (!async || global != &src || v * srcBytes <= 4 || wholeVectorRows) {
      emitAll(eb);
    } else {
      narrowRuns = true;
      emitAll(eb);
      narrowRuns = false;
    }
  }
  op.erase();
  return success();
}

namespace {
struct CopyModel : public TileOpInterface::ExternalModel<CopyModel, CopyOp> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level != InferenceLevel::Collect)
      return state.inferLoop(op, level);
    auto copy = cast<CopyOp>(op);
    TileLoopOperands operands;
    operands.src = copy.getSrc();
    operands.srcIndices = copy.getSrcIndices();
    operands.dst = copy.getDst();
    operands.dstIndices = copy.getDstIndices();
    operands.shape = copy.getTileShape();
    if (std::optional<uint64_t> width = copy.getCoalescedWidth())
      operands.vectorWidth = *width;
    operands.dstMayScatter =
        getMemorySpace(copy.getSrc().getType()) == MemorySpace::Global;
    return state.collectTileLoop(op, operands);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    auto copy = cast<CopyOp>(op);
    if (std::optional<LogicalResult> stored = lowerStagedStore(context, copy))
      return *stored;
    return context.lowerCopy(copy);
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    auto copy = cast<CopyOp>(op);
    accesses.push_back({copy.getSrc(), AccessKind::Read});
    accesses.push_back({copy.getDst(), AccessKind::Write,
                        /*async=*/copy->hasAttr(kAsyncCopyAttr)});
  }

  std::optional<AsyncCopy> getAsyncCopy(Operation *op) const {
    auto copy = cast<CopyOp>(op);
    return AsyncCopy{copy.getSrc(), llvm::to_vector<4>(copy.getSrcIndices()),
                     copy.getDst(), llvm::to_vector<4>(copy.getDstIndices()),
                     !copy.getDisableTma()};
  }
};
} // namespace

void mlir::tile::registerCopyModel(MLIRContext *ctx) {
  CopyOp::attachInterface<CopyModel>(*ctx);
}
