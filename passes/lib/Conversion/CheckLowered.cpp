//===- CheckLowered.cpp - operations left unlowered in a GPU module -------===//
//
// Reports, at their source locations, the operations of a lowered GPU module
// that no conversion turned into the LLVM dialect or the extension of the
// module's vendor (NVVM, or ROCDL for a module with a #rocdl.target).
// Serialization would stop at the first of them with an unlocated "LLVM
// Translation failed", once debug locations are stripped, and the other
// vendor's intrinsics would abort the backend.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECHECKLOWERED
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

/// The types of `op`'s operands and results, without repeats, in order.
static std::string typesOf(Operation *op) {
  SmallVector<Type> types;
  for (Type type :
       llvm::concat<const Type>(llvm::to_vector(op->getOperandTypes()),
                                llvm::to_vector(op->getResultTypes())))
    if (!llvm::is_contained(types, type))
      types.push_back(type);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

LogicalResult tile::checkLoweredToLLVM(gpu::GPUModuleOp module) {
  // The other vendor's intrinsics would abort the backend's instruction
  // selection.
  bool amd = isAMDModule(module);
  bool foreignFound = false;
  SmallVector<Operation *> unlowered, casts;
  module.getBody()->walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (isa_and_nonnull<LLVM::LLVMDialect>(dialect) ||
        (amd ? isa_and_nonnull<ROCDL::ROCDLDialect>(dialect)
             : isa_and_nonnull<NVVM::NVVMDialect>(dialect)))
      return;
    if (isa_and_nonnull<NVVM::NVVMDialect, ROCDL::ROCDLDialect>(dialect)) {
      op->emitError() << "'" << op->getName() << "' is an "
                      << (amd ? "NVIDIA" : "AMD")
                      << " operation, in a module compiled for an "
                      << (amd ? "AMD" : "NVIDIA") << " chip";
      foreignFound = true;
      return;
    }
    (isa<UnrealizedConversionCastOp>(op) ? casts : unlowered).push_back(op);
  });
  // The casts around an unlowered operation are what its conversion left;
  // the operation says more.
  for (Operation *op : unlowered) {
    InFlightDiagnostic diag = op->emitError() << "no lowering to LLVM for '"
                                              << op->getName() << "'";
    std::string types = typesOf(op);
    if (!types.empty())
      diag << " on " << types;
  }
  // Of the casts, those that produce a type LLVM does not have name the
  // culprit (a pair of casts to and back from it makes one report).
  auto producesForeignType = [](Operation *cast) {
    return !llvm::all_of(cast->getResultTypes(), LLVM::isCompatibleType);
  };
  bool anyForeign = llvm::any_of(casts, producesForeignType);
  if (unlowered.empty())
    for (Operation *op : casts)
      if (!anyForeign || producesForeignType(op))
        op->emitError() << "no lowering to LLVM for a value of type "
                        << op->getResultTypes()
                        << " (an unrealized conversion cast from "
                        << op->getOperandTypes() << " is left)";
  return success(!foreignFound && unlowered.empty() && casts.empty());
}

namespace {
struct TileCheckLoweredPass
    : public tile::impl::TileCheckLoweredBase<TileCheckLoweredPass> {
  void runOnOperation() override {
    if (failed(tile::checkLoweredToLLVM(getOperation())))
      signalPassFailure();
  }
};
} // namespace
