//===- Fill.cpp - tile.fill and tile.clear -------------------------------===//
//
// tile.fill and tile.clear as tile operators: a loop nest over shared
// buffers, or every register of a fragment, set to one value.
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
// tile.fill / tile.clear
//===----------------------------------------------------------------------===//

/// `buffer` as a rank-1 memref (a rank-0 one stays as it is: it has no
/// dimension to collapse).
static Value flatten(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() <= 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (unsigned i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  return memref::CollapseShapeOp::create(b, loc, buffer, all);
}

LogicalResult LoweringContext::lowerFill(Operation *op, Value buffer,
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
      memref::StoreOp::create(b, loc, value, flat,
                              type.getRank() ? ValueRange{cst(b, loc, i)}
                                             : ValueRange{});
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
                            type.getRank() ? ValueRange{loop.getInductionVar()}
                                           : ValueRange{});
    break;
  }
  default:
    return op->emitOpError("cannot fill a buffer in global memory");
  }
  op->erase();
  return success();
}

namespace {
/// tile.fill and tile.clear: `buffer` set to `value` (zero when null).
template <typename OpTy>
struct FillModel
    : public TileOpInterface::ExternalModel<FillModel<OpTy>, OpTy> {
  static Value getValue(OpTy op) {
    if constexpr (std::is_same_v<OpTy, FillOp>)
      return op.getValue();
    return Value();
  }

  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    if (level != InferenceLevel::Collect)
      return state.inferLoop(op, level);
    Value buffer = cast<OpTy>(op).getBuffer();
    auto type = cast<MemRefType>(buffer.getType());
    // Fills of fragments follow the fragment; of local buffers, the thread.
    if (getMemorySpace(type) != MemorySpace::Shared)
      return success();
    TileLoopOperands operands;
    operands.src = buffer;
    operands.writesSrc = true;
    operands.shape = llvm::to_vector(type.getShape());
    return state.collectTileLoop(op, operands);
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    auto fill = cast<OpTy>(op);
    return context.lowerFill(op, fill.getBuffer(), getValue(fill));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    accesses.push_back({cast<OpTy>(op).getBuffer(), AccessKind::Write});
  }
};
} // namespace

void mlir::tile::registerFillModels(MLIRContext *ctx) {
  FillOp::attachInterface<FillModel<FillOp>>(*ctx);
  ClearOp::attachInterface<FillModel<ClearOp>>(*ctx);
}
