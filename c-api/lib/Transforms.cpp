//===- Transforms.cpp - run tile passes from C ----------------------------===//
//
// Implements tile-c/Transforms.h: textual pipelines run on an operation, the
// tile pass constructors, and direct calls into the resource check and the
// lowering.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Transforms.h"

#include "tile/Transforms/AttachTarget.h"
#include "tile/Transforms/Lowering.h"
#include "tile/Transforms/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <optional>

using namespace mlir;
using namespace mlir::tile;

MlirLogicalResult mlirTileRunPassPipeline(MlirOperation op,
                                          MlirStringRef pipeline,
                                          MlirStringCallback errorCallback,
                                          void *userData) {
  if (!op.ptr)
    return mlirLogicalResultFailure();
  Operation *operation = unwrap(op);

  FailureOr<OpPassManager> parsed = [&] {
    if (!errorCallback)
      return parsePassPipeline(unwrap(pipeline), llvm::nulls());
    mlir::detail::CallbackOstream errors(errorCallback, userData);
    return parsePassPipeline(unwrap(pipeline), errors);
  }();
  if (failed(parsed))
    return mlirLogicalResultFailure();

  // Passes may assume valid input; running them on broken IR could crash
  // rather than fail, so verify first (the pass manager verifies after each
  // pass itself).
  if (failed(verify(operation)))
    return mlirLogicalResultFailure();

  PassManager pm(operation->getContext(), parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  return wrap(pm.run(operation));
}

MlirLogicalResult mlirTileAttachTarget(MlirOperation op, MlirStringRef chip) {
  if (!op.ptr)
    return mlirLogicalResultFailure();
  return wrap(attachTarget(unwrap(op), unwrap(chip)));
}

MlirPass mlirTileCreateCheckResourcesPass(MlirStringRef chip, bool remarks) {
  TileCheckResourcesOptions options;
  options.chip = unwrap(chip).str();
  options.remarks = remarks;
  return wrap(createTileCheckResources(std::move(options)).release());
}

bool mlirTileGetChipLimits(MlirStringRef chip, int64_t *sharedBytes,
                           int64_t *registersPerThread) {
  std::optional<TargetLimits> limits = lookupTargetLimits(unwrap(chip));
  if (!limits)
    return false;
  if (sharedBytes)
    *sharedBytes = limits->sharedPerBlock;
  if (registersPerThread)
    *registersPerThread = limits->registersPerThread;
  return true;
}

/// Returns `op` as a kernel, or a null op when it is null or of another kind.
static KernelOp getKernel(MlirOperation op) {
  if (!op.ptr)
    return KernelOp();
  return llvm::dyn_cast<KernelOp>(unwrap(op));
}

MlirLogicalResult mlirTileKernelOpGetResources(MlirOperation op,
                                               int64_t *sharedBytes,
                                               int64_t *registersPerThread) {
  KernelOp kernel = getKernel(op);
  // A lowered kernel's fragments are per-thread arrays already: the figures
  // of its tile program are gone.
  if (!kernel || kernel->hasAttr(kLoweredAttr))
    return mlirLogicalResultFailure();
  KernelResources used = computeKernelResources(kernel);
  if (sharedBytes)
    *sharedBytes = used.sharedBytes;
  if (registersPerThread)
    *registersPerThread = used.registersPerThread;
  return mlirLogicalResultSuccess();
}

MlirLogicalResult mlirTileKernelOpCheckResources(MlirOperation op,
                                                 MlirStringRef chip,
                                                 bool remarks) {
  KernelOp kernel = getKernel(op);
  if (!kernel)
    return mlirLogicalResultFailure();
  FailureOr<TargetAttr> target = resolveTarget(kernel, unwrap(chip));
  if (failed(target))
    return mlirLogicalResultFailure();
  return wrap(checkKernelResources(kernel, *target, remarks));
}

MlirLogicalResult mlirTileKernelOpPipelineLoops(MlirOperation op) {
  KernelOp kernel = getKernel(op);
  if (!kernel)
    return mlirLogicalResultFailure();
  loadLoweringDialects(kernel->getContext());
  return wrap(pipelineLoops(kernel));
}

MlirLogicalResult mlirTileKernelOpLower(MlirOperation op) {
  return mlirTileKernelOpLowerForChip(op, mlirStringRefCreate(nullptr, 0),
                                      LoweringOptions().warpSpecialize);
}

MlirLogicalResult mlirTileKernelOpLowerForChip(MlirOperation op,
                                               MlirStringRef chip,
                                               bool warpSpecialize) {
  KernelOp kernel = getKernel(op);
  if (!kernel)
    return mlirLogicalResultFailure();
  loadLoweringDialects(kernel->getContext());
  FailureOr<TargetAttr> target = resolveTarget(kernel, unwrap(chip));
  if (failed(target))
    return mlirLogicalResultFailure();
  LoweringOptions options;
  options.target = *target;
  options.warpSpecialize = warpSpecialize;
  return wrap(lowerKernel(kernel, options));
}
