//===- FlushDenormals.cpp - f32 denormals flushed in kernels --------------===//
//
// The fast-math option of the NVVM pipeline: lowered kernels get the f32
// denormal mode preserve-sign, from which NVPTX selects the .ftz forms of
// f32 instructions; libdevice's exp2f becomes the llvm.exp2 intrinsic,
// which NVPTX then emits as one ex2.approx.ftz.f32, and its log2f one
// lg2.approx.ftz.f32. In modules for AMD chips only exp2 and log2 change:
// ocml's become the bare v_exp_f32 and v_log_f32.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEFLUSHDENORMALS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

bool tile::isAMDModule(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  return targets && llvm::any_of(targets, [](Attribute target) {
           return isa<ROCDL::ROCDLTargetAttr>(target);
         });
}

namespace {
struct TileFlushDenormalsPass
    : public tile::impl::TileFlushDenormalsBase<TileFlushDenormalsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (tile::isAMDModule(module)) {
      replaceCalls("__ocml_exp2_f32", [](OpBuilder &b, LLVM::CallOp call) {
        return ROCDL::ROCDLExp2::create(b, call.getLoc(),
                                        call.getResultTypes()[0],
                                        call.getOperand(0))
            .getResult();
      });
      replaceCalls("__ocml_log2_f32", [](OpBuilder &b, LLVM::CallOp call) {
        return ROCDL::ROCDLLog::create(b, call.getLoc(),
                                       call.getResultTypes()[0],
                                       call.getOperand(0))
            .getResult();
      });
      return;
    }
    StringAttr mode = StringAttr::get(&getContext(), "preserve-sign");
    module.walk(
        [&](LLVM::LLVMFuncOp func) { func.setDenormalFpMathF32Attr(mode); });
    // libdevice's exp2f picks its flushing form through __nvvm_reflect, which
    // the serializer does not set; the intrinsic follows the function's mode.
    replaceCalls("__nv_exp2f", [](OpBuilder &b, LLVM::CallOp call) {
      return LLVM::Exp2Op::create(b, call.getLoc(), call.getResultTypes(),
                                  call.getOperands())
          .getResult();
    });
    // NVPTX selects no instruction for llvm.log2, whatever its flags: the
    // flushing approximation is an NVVM intrinsic of its own.
    replaceCalls("__nv_log2f", [](OpBuilder &b, LLVM::CallOp call) {
      return LLVM::CallIntrinsicOp::create(
                 b, call.getLoc(), call.getResultTypes()[0],
                 b.getStringAttr("llvm.nvvm.lg2.approx.ftz.f"),
                 call.getOperands())
          .getResult(0);
    });
  }

  /// Replaces the f32 calls of `callee` by what `build` makes of each, and
  /// drops its declaration once unused.
  void replaceCalls(StringRef callee,
                    function_ref<Value(OpBuilder &, LLVM::CallOp)> build) {
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) {
      if (call.getCallee() == callee && call.getNumOperands() == 1 &&
          call.getNumResults() == 1 && call.getResult().getType().isF32())
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      OpBuilder b(call);
      call.getResult().replaceAllUsesWith(build(b, call));
      call.erase();
    }
    if (auto decl = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
            getOperation(), StringAttr::get(&getContext(), callee)))
      if (decl.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(decl, getOperation()))
        decl.erase();
  }
};
} // namespace
