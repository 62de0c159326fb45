//===- FlushDenormals.cpp - f32 denormals flushed in kernels --------------===//
//
// The fast-math option of the NVVM pipeline: lowered kernels get the f32
// denormal mode preserve-sign, from which NVPTX selects the .ftz forms of
// f32 instructions, and libdevice's exp2f becomes the llvm.exp2 intrinsic,
// which NVPTX then emits as one ex2.approx.ftz.f32.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEFLUSHDENORMALS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {
struct TileFlushDenormalsPass
    : public tile::impl::TileFlushDenormalsBase<TileFlushDenormalsPass> {
  void runOnOperation() override {
    StringAttr mode = StringAttr::get(&getContext(), "preserve-sign");
    getOperation().walk(
        [&](LLVM::LLVMFuncOp func) { func.setDenormalFpMathF32Attr(mode); });
    // libdevice's exp2f picks its flushing form through __nvvm_reflect, which
    // the serializer does not set; the intrinsic follows the function's mode.
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) {
      if (call.getCallee() == StringRef("__nv_exp2f") &&
          call.getNumOperands() == 1 && call.getNumResults() == 1)
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      OpBuilder b(call);
      Value exp2 = LLVM::Exp2Op::create(b, call.getLoc(), call.getResultTypes(),
                                        call.getOperands());
      call.getResult().replaceAllUsesWith(exp2);
      call.erase();
    }
    if (auto decl = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
            getOperation(), StringAttr::get(&getContext(), "__nv_exp2f")))
      if (decl.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(decl, getOperation()))
        decl.erase();
  }
};
} // namespace
