//===- LowerHostTensorMaps.cpp - encode tensor maps in host code ----------===//
//
// Lowers the host's nvgpu.tma.create.descriptor, whose tensor maps kernels
// take by value as 128-byte grid-constant parameters, to a call of the CUDA
// driver's cuTensorMapEncodeTiled into a 64-byte aligned stack buffer; the
// launch then passes the 128 loaded bytes, which is that parameter.
// Upstream's lowering calls a runtime wrapper that encodes the map into
// device memory and returns a pointer, which a grid-constant parameter
// cannot take, and gpu-to-llvm has no conversion for the descriptor type.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILELOWERHOSTTENSORMAPS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

/// The driver's entry point, declared in the module on first use.
static constexpr StringLiteral kEncodeFunction = "cuTensorMapEncodeTiled";

/// The driver's CUtensorMapDataType for `type`, if it has one.
static std::optional<int> getDriverDataType(Type type) {
  // TMA moves bytes: 8-bit floats travel as unsigned bytes.
  if (type.isInteger(8) ||
      (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8))
    return 0;
  if (type.isInteger(16))
    return 1;
  if (type.isInteger(32))
    return 3;
  if (type.isInteger(64))
    return 5;
  if (type.isF16())
    return 6;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  if (type.isBF16())
    return 9;
  return std::nullopt;
}

/// Returns the declaration of cuTensorMapEncodeTiled in `module`:
/// (map, dataType, rank, address, globalDim, globalStrides, boxDim,
/// elementStrides, interleave, swizzle, l2Promotion, oobFill) -> CUresult.
static FailureOr<LLVM::LLVMFuncOp> getEncodeFunction(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  auto type = LLVM::LLVMFunctionType::get(
      i32, {ptr, i32, i32, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32});
  if (Operation *existing = module.lookupSymbol(kEncodeFunction)) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(existing);
    if (!func || func.getFunctionType() != type) {
      existing->emitError() << "'" << kEncodeFunction
                            << "' is not the CUDA driver's function, which "
                               "tensor maps are encoded with";
      return failure();
    }
    return func;
  }
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, module.getLoc(), kEncodeFunction,
                                  type);
}

/// Rewrites `create` as described in the file comment; the descriptor may
/// only be a kernel operand of host launches.
static LogicalResult lowerDescriptor(nvgpu::TmaCreateDescriptorOp create,
                                     const LLVMTypeConverter &converter,
                                     ModuleOp module) {
  Value tensor = create.getTensor();
  while (auto castOp = tensor.getDefiningOp<memref::CastOp>())
    tensor = castOp.getSource();
  auto memref = dyn_cast<MemRefType>(tensor.getType());
  if (!memref)
    return create.emitError("tensor map of an unranked memref: the host "
                            "lowering needs the ranked memref it was cast "
                            "from");
  std::optional<int> dataType = getDriverDataType(memref.getElementType());
  if (!dataType)
    return create.emitError() << "no tensor map data type for "
                              << memref.getElementType() << " elements";
  int64_t rank = memref.getRank();
  if (rank < 1 || rank > 5 ||
      static_cast<int64_t>(create.getBoxDimensions().size()) != rank)
    return create.emitError()
           << "tensor map of rank " << rank << " with a box of "
           << create.getBoxDimensions().size()
           << " dimensions, expected equal ranks from 1 to 5";
  for (Operation *user : create->getUsers())
    if (!isa<gpu::LaunchFuncOp>(user))
      return create.emitError()
             << "tensor map used by " << user->getName()
             << " on the host; the host lowering only passes tensor maps "
                "to kernels";
  auto func = create->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func)
    return create.emitError("tensor map made outside an LLVM function: "
                            "lower the host function to LLVM first");
  FailureOr<LLVM::LLVMFuncOp> encode = getEncodeFunction(module);
  if (failed(encode))
    return failure();

  MLIRContext *ctx = create.getContext();
  Location loc = create.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Type i64 = IntegerType::get(ctx, 64);
  Type indexType = converter.getIndexType();
  Type element = converter.convertType(memref.getElementType());
  Type descriptorType = converter.convertType(memref);
  if (!element || !descriptorType)
    return create.emitError() << "cannot lower " << memref << " to LLVM";
  int64_t elementBytes = memref.getElementTypeBitWidth() / 8;
  auto mapType = LLVM::LLVMArrayType::get(i64, 16);

  // Buffers at the function's entry, so a map made in a loop reuses them.
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  Value one = LLVM::ConstantOp::create(builder, loc, i64, 1);
  auto stackBuffer = [&](Type type, unsigned alignment) {
    return LLVM::AllocaOp::create(builder, loc, ptr, type, one, alignment);
  };
  Value map = stackBuffer(mapType, 64);
  Value dims = stackBuffer(LLVM::LLVMArrayType::get(i64, rank), 8);
  Value strides = stackBuffer(LLVM::LLVMArrayType::get(i64, rank), 8);
  Value box = stackBuffer(LLVM::LLVMArrayType::get(i32, rank), 4);
  Value elementStrides = stackBuffer(LLVM::LLVMArrayType::get(i32, rank), 4);

  builder.setInsertionPoint(create);
  auto constant = [&](Type type, int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type, value);
  };
  auto toLLVM = [&](Value value, Type type) -> Value {
    Value converted =
        UnrealizedConversionCastOp::create(builder, loc, indexType, value)
            .getResult(0);
    if (type == indexType)
      return converted;
    if (type.getIntOrFloatBitWidth() > indexType.getIntOrFloatBitWidth())
      return LLVM::ZExtOp::create(builder, loc, type, converted);
    return LLVM::TruncOp::create(builder, loc, type, converted);
  };
  auto widen = [&](Value value) -> Value {
    if (value.getType() == i64)
      return value;
    return LLVM::ZExtOp::create(builder, loc, i64, value);
  };
  auto store = [&](Value array, Type elementType, int64_t i, Value value) {
    Value slot =
        LLVM::GEPOp::create(builder, loc, ptr, elementType, array,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    LLVM::StoreOp::create(builder, loc, value, slot);
  };

  // The driver lists dimensions innermost first, with byte strides for all
  // but the innermost.
  MemRefDescriptor desc(
      UnrealizedConversionCastOp::create(builder, loc, descriptorType, tensor)
          .getResult(0));
  Value address = LLVM::GEPOp::create(builder, loc, ptr, element,
                                      desc.alignedPtr(builder, loc),
                                      ValueRange{desc.offset(builder, loc)});
  for (int64_t i = 0; i < rank; ++i) {
    unsigned dim = rank - 1 - i;
    store(dims, i64, i, widen(desc.size(builder, loc, dim)));
    store(box, i32, i, toLLVM(create.getBoxDimensions()[dim], i32));
    store(elementStrides, i32, i, constant(i32, 1));
    if (i > 0) {
      Value bytes = LLVM::MulOp::create(builder, loc,
                                        widen(desc.stride(builder, loc, dim)),
                                        constant(i64, elementBytes));
      store(strides, i64, i - 1, bytes);
    }
  }
  auto type = cast<nvgpu::TensorMapDescriptorType>(create.getType());
  LLVM::CallOp::create(
      builder, loc, *encode,
      ValueRange{map, constant(i32, *dataType), constant(i32, rank), address,
                 dims, strides, box, elementStrides,
                 constant(i32, static_cast<int64_t>(type.getInterleave())),
                 constant(i32, static_cast<int64_t>(type.getSwizzle())),
                 constant(i32, static_cast<int64_t>(type.getL2promo())),
                 constant(i32, static_cast<int64_t>(type.getOob()))});
  Value bytes = LLVM::LoadOp::create(builder, loc, mapType, map, 64);
  create.getResult().replaceAllUsesWith(bytes);
  Value source = create.getTensor();
  create.erase();
  while (auto castOp = source.getDefiningOp<memref::CastOp>()) {
    if (!castOp->use_empty())
      break;
    source = castOp.getSource();
    castOp.erase();
  }
  return success();
}

namespace {
struct TileLowerHostTensorMapsPass
    : public tile::impl::TileLowerHostTensorMapsBase<
          TileLowerHostTensorMapsPass> {
  using TileLowerHostTensorMapsBase::TileLowerHostTensorMapsBase;

  void runOnOperation() override {
    if (failed(tile::checkIndexBitwidth(
            getOperation(), "tile-lower-host-tensor-maps", indexBitwidth)))
      return signalPassFailure();
    LowerToLLVMOptions options(&getContext());
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(&getContext(), options);
    // Kernel modules make no tensor maps (tile-convert-nvgpu-to-nvvm).
    SmallVector<nvgpu::TmaCreateDescriptorOp> creates;
    getOperation().walk([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op))
        creates.push_back(create);
      return WalkResult::advance();
    });
    for (nvgpu::TmaCreateDescriptorOp create : creates)
      if (failed(lowerDescriptor(create, converter, getOperation())))
        return signalPassFailure();
  }
};
} // namespace
