//===- ConvertMathToOCML.cpp - math to ocml calls in AMD GPU modules -----===//
//
// Runs upstream's math-to-ROCDL patterns on an outlined GPU module, before
// convert-gpu-to-rocdl: there, the generic math-to-LLVM patterns can win and
// leave intrinsics (llvm.tanh) that the AMDGPU backend cannot lower.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToROCDL/MathToROCDL.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECONVERTMATHTOOCML
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {
struct TileConvertMathToOCMLPass
    : public tile::impl::TileConvertMathToOCMLBase<TileConvertMathToOCMLPass> {
  using TileConvertMathToOCMLBase::TileConvertMathToOCMLBase;

  void runOnOperation() override {
    if (failed(tile::checkIndexBitwidth(
            getOperation(), "tile-convert-math-to-ocml", indexBitwidth)) ||
        failed(tile::checkKnownLaunchSizes(getOperation())))
      return signalPassFailure();
    FailureOr<amdgpu::Chipset> chip = amdgpu::Chipset::parse(chipset);
    if (failed(chip)) {
      getOperation().emitError()
          << "tile-convert-math-to-ocml: unknown chipset '" << chipset << "'";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    RewritePatternSet patterns(ctx);
    populateMathToROCDLConversionPatterns(converter, patterns, *chip);
    // Only the math operations the patterns take change; the rest of the
    // module is convert-gpu-to-rocdl's.
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<ROCDL::ROCDLDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
