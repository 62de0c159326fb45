//===- ConvertNVGPUToNVVM.cpp - nvgpu to NVVM with a chosen index width --===//
//
// Runs upstream's nvgpu-to-NVVM patterns on an outlined GPU module with an
// LLVM type converter whose index width is an option, so kernels compiled
// with 32-bit indices keep one memref descriptor layout throughout.
//
// Tensor-map descriptor arguments of kernels become `!llvm.ptr` arguments
// here, before convert-gpu-to-nvvm (which cannot convert the descriptor
// type) lowers the signature; their positions in the lowered signature are
// recorded for tile-grid-constant-tensor-maps, which makes them 128-byte
// grid-constant parameters once the kernel is an llvm.func.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/TileOps.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECONVERTNVGPUTONVVM
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

/// Retypes the tensor-map descriptor arguments of kernel `func` to
/// `!llvm.ptr`, casting back to the descriptor for the body, and records on
/// `func` (tile::kTensorMapArgsAttrName) where each lands in the signature
/// that `converter` gives the function: the descriptor lives in the
/// kernel's parameter space, and the pointer is its address.
static LogicalResult
retypeTensorMapArguments(gpu::GPUFuncOp func,
                         const LLVMTypeConverter &converter) {
  if (!func.isKernel() || func.isExternal())
    return success();
  Block &entry = func.getBody().front();
  Type ptr = LLVM::LLVMPointerType::get(func.getContext());
  SmallVector<unsigned> tensorMaps;
  for (BlockArgument arg : entry.getArguments())
    if (isa<nvgpu::TensorMapDescriptorType>(arg.getType()))
      tensorMaps.push_back(arg.getArgNumber());
  if (tensorMaps.empty())
    return success();

  // Positions after lowering, as convert-gpu-to-nvvm will compute them
  // (memrefs expand to several arguments); computed before retyping, since
  // the descriptor and the pointer both take one slot.
  FunctionType type = func.getFunctionType();
  SmallVector<Type> inputs(type.getInputs());
  for (unsigned index : tensorMaps)
    inputs[index] = ptr;
  TypeConverter::SignatureConversion conversion(inputs.size());
  if (!converter.convertFunctionSignature(
          FunctionType::get(func.getContext(), inputs, type.getResults()),
          /*isVariadic=*/false, /*useBarePtrCallConv=*/false, conversion))
    return func.emitError() << "cannot lower the signature of kernel @"
                            << func.getName() << " with tensor maps";
  SmallVector<int64_t> positions;
  for (unsigned index : tensorMaps)
    positions.push_back(conversion.getInputMapping(index)->inputNo);

  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (unsigned index : tensorMaps) {
    BlockArgument arg = entry.getArgument(index);
    Type descriptor = arg.getType();
    arg.setType(ptr);
    auto cast = UnrealizedConversionCastOp::create(builder, arg.getLoc(),
                                                   descriptor, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
  }
  func.setFunctionType(
      FunctionType::get(func.getContext(), inputs, type.getResults()));
  func->setAttr(tile::kTensorMapArgsAttrName,
                DenseI64ArrayAttr::get(func.getContext(), positions));
  return success();
}

LogicalResult tile::checkIndexBitwidth(Operation *op, StringRef pass,
                                       unsigned indexBitwidth) {
  if (indexBitwidth == 32 || indexBitwidth == 64)
    return success();
  return op->emitError() << pass << ": index-bitwidth must be 32 or 64, got "
                         << indexBitwidth;
}

LogicalResult tile::checkKnownLaunchSizes(gpu::GPUModuleOp module) {
  bool ok = true;
  for (auto func : module.getOps<gpu::GPUFuncOp>()) {
    auto check = [&](StringRef name, std::optional<ArrayRef<int32_t>> sizes) {
      if (!sizes || llvm::all_of(*sizes, [](int32_t s) { return s >= 1; }))
        return;
      InFlightDiagnostic diag = func.emitError()
                                << name << " of @" << func.getName()
                                << " must be at least 1 in every dimension, "
                                   "got ";
      llvm::interleave(*sizes, diag, "x");
      ok = false;
    };
    check("known_block_size", func.getKnownBlockSize());
    check("known_grid_size", func.getKnownGridSize());
  }
  return success(ok);
}

namespace {
/// Lowers thread-level op `Op`, which addresses the element of its memref
/// operand at its indices.
template <typename Op>
struct ElementAccessLowering : public ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;

  /// The address of `op`'s element from the memref descriptor (all 64 bits
  /// of its base pointer, whatever the index width), in `space`.
  Value elementPointer(ConversionPatternRewriter &rewriter, Op op,
                       typename Op::Adaptor adaptor,
                       NVVM::NVVMMemorySpace space) const {
    Value ptr = this->getStridedElementPtr(
        rewriter, op.getLoc(), op.getMemref().getType(), adaptor.getMemref(),
        adaptor.getIndices());
    auto type = LLVM::LLVMPointerType::get(op.getContext(),
                                           static_cast<unsigned>(space));
    if (ptr.getType() != type)
      ptr = LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(), type, ptr);
    return ptr;
  }
};

/// tile.red as inline PTX `red.global.add`: the element's address from the
/// memref descriptor (all 64 bits of its base pointer, whatever the index
/// width), then the vector as f16x2 / bf16x2 words or f32 registers.
struct RedOpLowering : public ElementAccessLowering<tile::RedOp> {
  using ElementAccessLowering::ElementAccessLowering;

  LogicalResult
  matchAndRewrite(tile::RedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ptr =
        elementPointer(rewriter, op, adaptor, NVVM::NVVMMemorySpace::Global);
    auto vec = cast<VectorType>(op.getValue().getType());
    Type elem = vec.getElementType();
    int64_t n = vec.getNumElements();
    SmallVector<Value> operands = {ptr};
    std::string text = "red.global.add", constraints = "l";
    if (elem.isF32()) {
      text += ".v" + std::to_string(n) + ".f32";
      for (int64_t i = 0; i < n; ++i) {
        operands.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, adaptor.getValue(),
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), i)));
        constraints += ",f";
      }
    } else {
      // 16-bit elements go as packed pairs, one 32-bit register each.
      int64_t words = n / 2;
      Value packed = LLVM::BitcastOp::create(
          rewriter, loc, VectorType::get({words}, rewriter.getI32Type()),
          adaptor.getValue());
      for (int64_t i = 0; i < words; ++i) {
        operands.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, packed,
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), i)));
        constraints += ",r";
      }
      text += ".noftz";
      if (words > 1)
        text += ".v" + std::to_string(words);
      text += elem.isF16() ? ".f16x2" : ".bf16x2";
    }
    text += " [$0], ";
    size_t count = operands.size() - 1;
    text += count > 1 ? "{" : "";
    for (size_t i = 1; i <= count; ++i)
      text += (i > 1 ? ", $" : "$") + std::to_string(i);
    text += count > 1 ? "};" : ";";
    LLVM::InlineAsmOp::create(rewriter, loc, Type(), operands, text,
                              constraints, /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                              ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.remote_load as `mapa` of the element's shared address into the
/// cluster's window (address space 7) and one load from there, which the
/// NVPTX backend emits as `ld.shared::cluster`.
struct RemoteLoadOpLowering : public ElementAccessLowering<tile::RemoteLoadOp> {
  using ElementAccessLowering::ElementAccessLowering;

  LogicalResult
  matchAndRewrite(tile::RemoteLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ptr =
        elementPointer(rewriter, op, adaptor, NVVM::NVVMMemorySpace::Shared);
    auto clusterPtr = LLVM::LLVMPointerType::get(
        op.getContext(),
        static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    Value remote =
        NVVM::MapaOp::create(rewriter, loc, clusterPtr, ptr, adaptor.getRank());
    auto vec = cast<VectorType>(op.getResult().getType());
    unsigned bytes =
        vec.getNumElements() * vec.getElementType().getIntOrFloatBitWidth() / 8;
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, vec, remote, bytes);
    return success();
  }
};

struct TileConvertNVGPUToNVVMPass
    : public tile::impl::TileConvertNVGPUToNVVMBase<
          TileConvertNVGPUToNVVMPass> {
  using TileConvertNVGPUToNVVMBase::TileConvertNVGPUToNVVMBase;

  void runOnOperation() override {
    if (failed(tile::checkIndexBitwidth(
            getOperation(), "tile-convert-nvgpu-to-nvvm", indexBitwidth)) ||
        failed(tile::checkKnownLaunchSizes(getOperation())))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    populateGpuMemorySpaceAttributeConversions(
        converter, [](gpu::AddressSpace space) -> unsigned {
          switch (space) {
          case gpu::AddressSpace::Global:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
          case gpu::AddressSpace::Workgroup:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
          case gpu::AddressSpace::Private:
            return 0;
          }
          llvm_unreachable("unknown address space");
        });
    // Async-copy tokens only order the nvgpu operations among themselves:
    // an i32 stands in for them. Tensor-map descriptors are pointers to
    // the kernel's grid-constant parameter. An mbarrier group is the
    // shared-memory array of its 64-bit barriers, and an mbarrier token
    // the 64-bit state that arrive returns.
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType type) -> Type {
      return IntegerType::get(type.getContext(), 32);
    });
    converter.addConversion([](nvgpu::TensorMapDescriptorType type) -> Type {
      return LLVM::LLVMPointerType::get(type.getContext());
    });
    converter.addConversion([&](nvgpu::MBarrierGroupType type) -> Type {
      return converter.convertType(
          nvgpu::getMBarrierMemrefType(type.getContext(), type));
    });
    converter.addConversion([](nvgpu::MBarrierTokenType type) -> Type {
      return IntegerType::get(type.getContext(), 64);
    });
    // Upstream would lower a descriptor made here to a call of a host
    // runtime function that device code cannot reach.
    WalkResult made = getOperation().walk([](nvgpu::TmaCreateDescriptorOp op) {
      op.emitError("tensor maps are made on the host and passed to the "
                   "kernel; nvgpu.tma.create.descriptor has no device "
                   "lowering");
      return WalkResult::interrupt();
    });
    if (made.wasInterrupted())
      return signalPassFailure();
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>())
      if (failed(retypeTensorMapArguments(func, converter)))
        return signalPassFailure();
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    patterns.add<RedOpLowering, RemoteLoadOpLowering>(converter);
    // mbarrier.create becomes a memref.global and memref.get_global, which
    // convert-gpu-to-nvvm lowers with the kernel's other memrefs.
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect, memref::MemRefDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    target.addIllegalOp<tile::RedOp, tile::RemoteLoadOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
