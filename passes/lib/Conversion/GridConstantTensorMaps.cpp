//===- GridConstantTensorMaps.cpp - tensor maps as grid constants ---------===//
//
// Turns the tensor-map arguments of lowered kernels, recorded by
// tile-convert-nvgpu-to-nvvm, into what the runtime passes: a 128-byte
// CUtensorMap by value in the kernel's parameter space, marked as a grid
// constant so that its address may be handed to cp.async.bulk.tensor
// without a copy to local memory.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEGRIDCONSTANTTENSORMAPS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

/// Size and alignment of a CUtensorMap, in bytes.
static constexpr int64_t kTensorMapBytes = 128;
static constexpr int64_t kTensorMapAlignment = 64;

/// Makes the arguments of `func` listed in its tensor-map attribute byval
/// grid constants and drops the attribute.
static LogicalResult markTensorMapArguments(LLVM::LLVMFuncOp func) {
  auto positions =
      func->getAttrOfType<DenseI64ArrayAttr>(tile::kTensorMapArgsAttrName);
  if (!positions)
    return success();
  func->removeAttr(tile::kTensorMapArgsAttrName);
  if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
    return func.emitError() << "tensor-map arguments on @" << func.getName()
                            << ", which is not an NVVM kernel";
  MLIRContext *ctx = func.getContext();
  Builder builder(ctx);
  Type bytes =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  for (int64_t position : positions.asArrayRef()) {
    if (position < 0 || position >= func.getNumArguments())
      return func.emitError()
             << "tensor-map argument " << position << " of @" << func.getName()
             << " out of range (" << func.getNumArguments() << " arguments)";
    auto ptr =
        dyn_cast<LLVM::LLVMPointerType>(func.getArgumentTypes()[position]);
    if (!ptr || ptr.getAddressSpace() != 0)
      return func.emitError()
             << "tensor-map argument " << position << " of @" << func.getName()
             << " is " << func.getArgumentTypes()[position]
             << ", expected !llvm.ptr";
    func.setArgAttr(position, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(bytes));
    func.setArgAttr(position, LLVM::LLVMDialect::getAlignAttrName(),
                    builder.getI64IntegerAttr(kTensorMapAlignment));
    func.setArgAttr(position, NVVM::NVVMDialect::getGridConstantAttrName(),
                    builder.getUnitAttr());
  }
  return success();
}

namespace {
struct TileGridConstantTensorMapsPass
    : public tile::impl::TileGridConstantTensorMapsBase<
          TileGridConstantTensorMapsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>())
      if (failed(markTensorMapArguments(func)))
        return signalPassFailure();
  }
};
} // namespace
