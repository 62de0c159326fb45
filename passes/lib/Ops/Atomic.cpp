//===- Atomic.cpp - tile.atomic ------------------------------------------===//
//
// tile.atomic and tile.cluster_reduce as tile operators: loop nests over
// the tile that combine it into memory, vectors of a row at a time where
// the destination allows. tile.atomic updates with atomics (tile.red
// vectors, memref.atomic_rmw elements); tile.cluster_reduce sums the tile
// over the blocks of a cluster through distributed shared memory
// (tile.remote_load) and stores each block's share.
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

//===----------------------------------------------------------------------===//
// tile.atomic
//===----------------------------------------------------------------------===//

/// The most elements of `elem` one reduction instruction adds on `target`:
/// NVIDIA chips add f16 pairs (`red.global.add.noftz.f16x2`, sm_60 and
/// later); with `vector_atomics` (sm_90) f16 and bf16 vectors of up to 8
/// and f32 vectors of up to 4 (16 bytes). A scalar f16 atomic has no
/// instruction of its own (ptxas emits a compare-and-swap loop on the
/// enclosing word), so the pairs matter even where nothing else does.
static int64_t maxAtomicVector(TargetAttr target, AtomicKind kind, Type elem) {
  if (kind != AtomicKind::add || !target || !target.isNVIDIA())
    return 1;
  bool wide = target.has(TargetFeature::vector_atomics);
  if (elem.isF16())
    return wide ? 8 : 2;
  if (elem.isBF16())
    return wide ? 8 : 1;
  if (elem.isF32())
    return wide ? 4 : 1;
  return 1;
}

namespace {
/// How a tile operator that reads tile `src` (shared or fragment) and
/// writes or updates global or shared `dst` element by element walks the
/// tile: its loop map, the fragment register behind each loop register,
/// the vector width (consecutive elements of a row, at most the width
/// asked for) and whether the destination needs bounds checks.
struct ElementLoop {
  LoopMap lm;
  SmallVector<int64_t> srcRegs;
  int64_t vector = 1;
  bool mask = false;
};
} // namespace

/// Plans the loop of `op` over `tile` from `src` into `dst`, with vectors of
/// up to `maxWidth` elements where `dst` is a global row with unit stride
/// and a shared source keeps them contiguous.
static FailureOr<ElementLoop>
planElementLoop(LoweringContext &lc, Operation *op, const Operand &src,
                const Operand &dst, ArrayRef<int64_t> tile, int64_t maxWidth) {
  bool fragmentSrc = src.space == MemorySpace::Fragment;
  FailureOr<LoopMap> lm =
      lc.getLoopMap(op, tile, fragmentSrc ? src.buffer : Value(),
                    src.space == MemorySpace::Local);
  if (failed(lm))
    return failure();
  ElementLoop plan;
  plan.lm = std::move(*lm);
  if (fragmentSrc) {
    const Fragment &frag = lc.fragments[src.buffer].first;
    for (int64_t r = 0; r < plan.lm.numRegs; ++r) {
      bool notOwned = false;
      int64_t reg = loopRegister(
          plan.lm, r, frag,
          [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); },
          notOwned);
      if (reg < 0)
        return op->emitOpError("the loop layout does not match the "
                               "fragment's layout");
      plan.srcRegs.push_back(reg);
    }
  }
  plan.mask = dst.space == MemorySpace::Global && needsMask(dst.type, tile);
  if (dst.space != MemorySpace::Global || !hasUnitInnerStride(dst.type))
    maxWidth = 1;
  SmallVector<const Layout *> storage;
  Layout srcLayout = Layout::rowMajor(op->getContext(), tile);
  if (maxWidth > 1 && src.space == MemorySpace::Shared) {
    Value root;
    const LoweringContext::Slot *slot = nullptr;
    if (lc.resolveShared(src.buffer, root, srcLayout, slot))
      storage.push_back(&srcLayout);
    else if (!lc.isRowMajor(src.buffer) || !hasUnitInnerStride(src.type))
      maxWidth = 1;
  }
  plan.vector = maxWidth > 1 ? pickVectorWidth(plan.lm, maxWidth, storage) : 1;
  return plan;
}

/// Runs `perVector` on every group of `plan.vector` consecutive loop
/// registers (the first replica of a replicated loop only), with the
/// coordinates of the group's first element, and `element` for the group's
/// elements one by one where the vector does not lie inside `dst` at an
/// address aligned to its size (ragged edges, odd row strides, unaligned
/// views); a vector of one element goes to `element` alone. `prepare` runs
/// first on each group and returns its values; a false `take` skips it.
static void emitElementLoop(
    LoweringContext &lc, OpBuilder &b, Location loc, const ElementLoop &plan,
    const Operand &dst,
    function_ref<Value(OpBuilder &, ValueRange coords)> take,
    function_ref<SmallVector<Value>(OpBuilder &, int64_t r, ValueRange coords)>
        prepare,
    function_ref<void(OpBuilder &, ArrayRef<Value> values, ValueRange idx)>
        perVector,
    function_ref<void(OpBuilder &, Value value, ValueRange idx)> element) {
  int64_t v = plan.vector;
  int64_t elemBytes = elementBytes(dst.type.getElementType());
  auto masked = [&](OpBuilder &b, Value value, ValueRange coords) {
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    if (!plan.mask) {
      element(b, value, idx);
      return;
    }
    auto [m, mi] = lc.address(b, loc, dst.buffer, idx);
    auto ifOp = scf::IfOp::create(b, loc, inBounds(b, loc, m, mi, 0), false);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    element(tb, value, idx);
  };
  emitPerWrittenRegister(
      b, loc, plan.lm, lc.tid, lc.threads,
      [&](int64_t r) { return r % v == 0; },
      [&](OpBuilder &b, int64_t r, ArrayRef<Value> coords) {
        if (take) {
          auto ifOp = scf::IfOp::create(b, loc, take(b, coords), false);
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        }
        SmallVector<Value> values = prepare(b, r, coords);
        SmallVector<SmallVector<Value>> allCoords;
        for (int64_t k = 0; k < v; ++k) {
          SmallVector<Value> c(coords);
          if (k)
            c.back() = arith::AddIOp::create(b, loc, c.back(), cst(b, loc, k));
          allCoords.push_back(std::move(c));
        }
        if (v == 1) {
          masked(b, values[0], allCoords[0]);
          return;
        }
        SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
        Value ok = isAligned(b, loc, dst.buffer, idx, v * elemBytes, elemBytes);
        if (plan.mask)
          ok = arith::AndIOp::create(b, loc, ok,
                                     inBounds(b, loc, dst.buffer, idx, v - 1));
        auto ifOp = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
        OpBuilder tb(ifOp.thenBlock()->getTerminator());
        perVector(tb, values, idx);
        OpBuilder eb(ifOp.elseBlock()->getTerminator());
        for (int64_t k = 0; k < v; ++k)
          masked(eb, values[k], allCoords[k]);
      });
}

LogicalResult LoweringContext::lowerAtomic(AtomicOp op) {
  MemRefType srcType = op.getSrc().getType();
  SmallVector<int64_t> tile(srcType.getShape());
  Operand src = makeOperand(op.getSrc(), {}, tile.size());
  Operand dst = makeOperand(op.getDst(), op.getDstIndices(), tile.size());
  if (dst.space != MemorySpace::Global && dst.space != MemorySpace::Shared)
    return op.emitOpError("atomic destination must be global or shared");
  Type dstElem = dst.type.getElementType();
  FailureOr<ElementLoop> plan =
      planElementLoop(*this, op, src, dst, tile,
                      maxAtomicVector(options.target, op.getKind(), dstElem));
  if (failed(plan))
    return failure();
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
  Location loc = op.getLoc();
  OpBuilder b(op);
  // The values of the group's registers, converted to the destination's
  // element type.
  auto prepare = [&](OpBuilder &b, int64_t r, ValueRange coords) {
    SmallVector<Value> values;
    for (int64_t k = 0; k < plan->vector; ++k) {
      Value value;
      if (src.space == MemorySpace::Fragment) {
        value = memref::LoadOp::create(
            b, loc, fragments[src.buffer].second,
            ValueRange{cst(b, loc, plan->srcRegs[r + k])});
      } else {
        SmallVector<Value> c(coords);
        if (k)
          c.back() = arith::AddIOp::create(b, loc, c.back(), cst(b, loc, k));
        auto [m, mi] = address(b, loc, src.buffer, c);
        value = memref::LoadOp::create(b, loc, m, mi);
      }
      values.push_back(convert(b, loc, value, dstElem));
    }
    return values;
  };
  emitElementLoop(
      *this, b, loc, *plan, dst, nullptr, prepare,
      [&](OpBuilder &b, ArrayRef<Value> values, ValueRange idx) {
        Value vec = vector::FromElementsOp::create(
            b, loc, VectorType::get({plan->vector}, dstElem), values);
        RedOp::create(b, loc, vec, dst.buffer, idx);
      },
      [&](OpBuilder &b, Value value, ValueRange idx) {
        auto [m, mi] = address(b, loc, dst.buffer, idx);
        memref::AtomicRMWOp::create(b, loc, rmw, value, m, mi);
      });
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.cluster_reduce
//===----------------------------------------------------------------------===//

/// Every thread of every block of the kernel's cluster arrives and waits
/// (release, then acquire: shared-memory writes before it are visible to
/// the cluster after it); a block barrier without a cluster.
static void syncCluster(OpBuilder &b, Location loc, bool cluster) {
  if (!cluster) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

/// `a` combined with `b` by `kind` (floats NaN-ignoring, as the atomics).
static Value combine(OpBuilder &b, Location loc, AtomicKind kind, Value x,
                     Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case AtomicKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case AtomicKind::max:
    return isFloat ? arith::MaxNumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case AtomicKind::min:
    return isFloat ? arith::MinNumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown atomic kind");
}

LogicalResult LoweringContext::lowerClusterReduce(ClusterReduceOp op) {
  MemRefType srcType = op.getSrc().getType();
  SmallVector<int64_t> tile(srcType.getShape());
  Operand src = makeOperand(op.getSrc(), {}, tile.size());
  Operand dst = makeOperand(op.getDst(), op.getDstIndices(), tile.size());
  int64_t blocks = 1;
  for (int64_t e : kernel.getClusterExtents())
    blocks *= e;
  Type srcElem = srcType.getElementType(), dstElem = dst.type.getElementType();
  // 16-bit floats are combined in f32: the partial sums of a split-K.
  Type accElem = srcElem;
  if (isa<FloatType>(srcElem) && srcElem.getIntOrFloatBitWidth() < 32)
    accElem = Float32Type::get(op.getContext());
  int64_t srcBytes = elementBytes(srcElem);
  FailureOr<ElementLoop> plan =
      planElementLoop(*this, op, src, dst, tile,
                      std::max<int64_t>(1, 16 / elementBytes(dstElem)));
  if (failed(plan))
    return failure();
  int64_t v = plan->vector;
  Location loc = op.getLoc();
  OpBuilder b(op);
  syncCluster(b, loc, blocks > 1);
  Value rank;
  if (blocks > 1)
    rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  // Each block stores the groups whose index in the row-major tile is its
  // rank modulo the cluster's size.
  auto take = [&](OpBuilder &b, ValueRange coords) -> Value {
    Value flat = cst(b, loc, 0);
    for (auto [c, extent] : llvm::zip(coords, tile))
      flat = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, flat, cst(b, loc, extent)), c);
    Value group = arith::DivUIOp::create(b, loc, flat, cst(b, loc, v));
    Value owner = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::RemUIOp::create(b, loc, group, cst(b, loc, blocks)));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, owner, rank);
  };
  // The group's elements combined over the cluster's blocks, each block's
  // in loads of at most 16 bytes.
  int64_t piece = std::min<int64_t>(v, std::max<int64_t>(1, 16 / srcBytes));
  auto prepare = [&](OpBuilder &b, int64_t, ValueRange coords) {
    SmallVector<Value> acc(v);
    for (int64_t peer = 0; peer < blocks; ++peer) {
      for (int64_t k0 = 0; k0 < v; k0 += piece) {
        SmallVector<Value> c(coords);
        if (k0)
          c.back() = arith::AddIOp::create(b, loc, c.back(), cst(b, loc, k0));
        auto [m, mi] = address(b, loc, src.buffer, c);
        SmallVector<Value> values;
        if (blocks > 1) {
          Value peerRank = arith::ConstantIntOp::create(b, loc, peer, 32);
          Value vec = RemoteLoadOp::create(
              b, loc, VectorType::get({piece}, srcElem), m, mi, peerRank);
          for (int64_t k = 0; k < piece; ++k)
            values.push_back(vector::ExtractOp::create(b, loc, vec, k));
        } else {
          for (int64_t k = 0; k < piece; ++k) {
            SmallVector<Value> ck(c);
            if (k)
              ck.back() =
                  arith::AddIOp::create(b, loc, c.back(), cst(b, loc, k));
            auto [mk, mik] = address(b, loc, src.buffer, ck);
            values.push_back(memref::LoadOp::create(b, loc, mk, mik));
          }
        }
        for (int64_t k = 0; k < piece; ++k) {
          Value x = convert(b, loc, values[k], accElem);
          Value &slot = acc[k0 + k];
          slot = slot ? combine(b, loc, op.getKind(), slot, x) : x;
        }
      }
    }
    for (Value &x : acc)
      x = convert(b, loc, x, dstElem);
    return acc;
  };
  emitElementLoop(
      *this, b, loc, *plan, dst,
      blocks > 1 ? function_ref<Value(OpBuilder &, ValueRange)>(take) : nullptr,
      prepare,
      [&](OpBuilder &b, ArrayRef<Value> values, ValueRange idx) {
        Value vec = vector::FromElementsOp::create(
            b, loc, VectorType::get({v}, dstElem), values);
        auto [m, mi] = address(b, loc, dst.buffer, idx);
        vector::StoreOp::create(b, loc, vec, m, mi, /*nontemporal=*/false,
                                llvm::MaybeAlign(v * elementBytes(dstElem)));
      },
      [&](OpBuilder &b, Value value, ValueRange idx) {
        auto [m, mi] = address(b, loc, dst.buffer, idx);
        memref::StoreOp::create(b, loc, value, m, mi);
      });
  syncCluster(b, loc, blocks > 1);
  op.erase();
  return success();
}

namespace {
/// The interface of an operator that combines its tile `src` into `dst` at
/// `dst_indices` in a loop nest over the tile (tile.atomic,
/// tile.cluster_reduce): `lower` lowers it, `dstAccess` is how it touches
/// `dst`.
template <typename Op, LogicalResult (LoweringContext::*lower_)(Op),
          AccessKind dstAccess>
struct CombineModel
    : public TileOpInterface::ExternalModel<CombineModel<Op, lower_, dstAccess>,
                                            Op> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level != InferenceLevel::Collect)
      return state.inferLoop(op, level);
    auto combine = cast<Op>(op);
    TileLoopOperands operands;
    operands.src = combine.getSrc();
    operands.dst = combine.getDst();
    operands.dstIndices = combine.getDstIndices();
    operands.shape = llvm::to_vector(combine.getSrc().getType().getShape());
    return state.collectTileLoop(op, operands);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    return (context.*lower_)(cast<Op>(op));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    auto combine = cast<Op>(op);
    accesses.push_back({combine.getSrc(), AccessKind::Read});
    accesses.push_back({combine.getDst(), dstAccess});
  }
};
} // namespace

void mlir::tile::registerAtomicModel(MLIRContext *ctx) {
  AtomicOp::attachInterface<CombineModel<
      AtomicOp, &LoweringContext::lowerAtomic, AccessKind::Atomic>>(*ctx);
  ClusterReduceOp::attachInterface<
      CombineModel<ClusterReduceOp, &LoweringContext::lowerClusterReduce,
                   AccessKind::Write>>(*ctx);
}
