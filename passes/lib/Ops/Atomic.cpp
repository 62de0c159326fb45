//===- Atomic.cpp - tile.atomic ------------------------------------------===//
//
// tile.atomic as a tile operator: a loop nest over the tile, lowered to
// one memref.atomic_rmw per element.
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

LogicalResult LoweringContext::lowerAtomic(AtomicOp op) {
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
  // Vectors of consecutive elements of a global row with unit stride, where
  // the target adds several at once; a shared source keeps them contiguous.
  int64_t maxWidth = 1;
  SmallVector<const Layout *> storage;
  Layout srcLayout = Layout::rowMajor(op.getContext(), tile);
  if (dst.space == MemorySpace::Global && hasUnitInnerStride(dst.type))
    maxWidth = maxAtomicVector(options.target, op.getKind(), dstElem);
  if (maxWidth > 1 && src.space == MemorySpace::Shared) {
    Value root;
    const Slot *slot = nullptr;
    if (resolveShared(src.buffer, root, srcLayout, slot))
      storage.push_back(&srcLayout);
    else if (!isRowMajor(src.buffer) || !hasUnitInnerStride(src.type))
      maxWidth = 1;
  }
  int64_t v = maxWidth > 1 ? pickVectorWidth(*lm, maxWidth, storage) : 1;
  int64_t elemBytes = elementBytes(dstElem);
  Location loc = op.getLoc();
  OpBuilder b(op);
  // The value of register `r` of the loop, converted to the destination's
  // element type.
  auto valueOf = [&](OpBuilder &b, int64_t r, ValueRange coords) -> Value {
    Value value;
    if (src.space == MemorySpace::Fragment) {
      value = memref::LoadOp::create(b, loc, fragments[src.buffer].second,
                                     ValueRange{cst(b, loc, srcRegs[r])});
    } else {
      auto [m, mi] = address(b, loc, src.buffer, coords);
      value = memref::LoadOp::create(b, loc, m, mi);
    }
    return convert(b, loc, value, dstElem);
  };
  auto scalarAtomic = [&](OpBuilder &b, Value value, ValueRange coords) {
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    auto [m, mi] = address(b, loc, dst.buffer, idx);
    if (!mask) {
      memref::AtomicRMWOp::create(b, loc, rmw, value, m, mi);
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, inBounds(b, loc, m, mi, 0), false);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    memref::AtomicRMWOp::create(tb, loc, rmw, value, m, mi);
  };
  emitPerRegister(b, loc, *lm, tid, threads, [&](OpBuilder &b, int64_t r) {
    if (r % v != 0)
      return;
    OpBuilder::InsertionGuard guard(b);
    Value replica;
    SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
    guardFirstReplica(b, loc, replica);
    if (v == 1) {
      scalarAtomic(b, valueOf(b, r, coords), coords);
      return;
    }
    SmallVector<SmallVector<Value>> allCoords;
    SmallVector<Value> values;
    for (int64_t k = 0; k < v; ++k) {
      SmallVector<Value> c = coords;
      if (k)
        c.back() = arith::AddIOp::create(b, loc, c.back(), cst(b, loc, k));
      values.push_back(valueOf(b, r + k, c));
      allCoords.push_back(std::move(c));
    }
    // One instruction where the vector lies inside the tensor at an
    // aligned address; element by element otherwise (ragged edges, odd
    // row strides, unaligned views).
    SmallVector<Value> idx = operandIndices(b, loc, dst, coords);
    Value ok = isAligned(b, loc, dst.buffer, idx, v * elemBytes, elemBytes);
    if (mask)
      ok = arith::AndIOp::create(b, loc, ok,
                                 inBounds(b, loc, dst.buffer, idx, v - 1));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
    OpBuilder tb(ifOp.thenBlock()->getTerminator());
    Value vec = vector::FromElementsOp::create(
        tb, loc, VectorType::get({v}, dstElem), values);
    RedOp::create(tb, loc, vec, dst.buffer, idx);
    OpBuilder eb(ifOp.elseBlock()->getTerminator());
    for (int64_t k = 0; k < v; ++k)
      scalarAtomic(eb, values[k], allCoords[k]);
  });
  op.erase();
  return success();
}

namespace {
struct AtomicModel
    : public TileOpInterface::ExternalModel<AtomicModel, AtomicOp> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level != InferenceLevel::Collect)
      return state.inferLoop(op, level);
    auto atomic = cast<AtomicOp>(op);
    TileLoopOperands operands;
    operands.src = atomic.getSrc();
    operands.dst = atomic.getDst();
    operands.dstIndices = atomic.getDstIndices();
    operands.shape = llvm::to_vector(atomic.getSrc().getType().getShape());
    return state.collectTileLoop(op, operands);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    return context.lowerAtomic(cast<AtomicOp>(op));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    auto atomic = cast<AtomicOp>(op);
    accesses.push_back({atomic.getSrc(), AccessKind::Read});
    accesses.push_back({atomic.getDst(), AccessKind::Atomic});
  }
};
} // namespace

void mlir::tile::registerAtomicModel(MLIRContext *ctx) {
  AtomicOp::attachInterface<AtomicModel>(*ctx);
}
