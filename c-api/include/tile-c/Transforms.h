//===- tile-c/Transforms.h - run tile passes from C ---------------*- C -*-===//
//
// Convenience entry points: run a textual pass pipeline on an operation,
// create tile passes for an MlirPassManager, and call the logic of the
// resource check directly on a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_C_TRANSFORMS_H
#define TILE_C_TRANSFORMS_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Parses `pipeline`, a textual pass pipeline such as
/// "builtin.module(canonicalize, tile-check-resources{chip=sm_80})", and runs
/// it on `op` (modified in place; it stays owned by the caller). The IR is
/// verified before and after the pipeline.
///
/// When the pipeline does not parse (an unknown pass, a bad option), the
/// error text is passed to `errorCallback` with `userData`, possibly in
/// several pieces, and failure is returned without touching `op`;
/// `errorCallback` may be NULL to drop the text. Errors raised while the
/// passes run are reported as diagnostics to the context's handlers, and
/// failure is returned. Passes must have been registered first
/// (mlirTileRegisterPasses, mlirRegisterTransformsPasses, ...). A null `op`
/// gives failure.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirTileRunPassPipeline(MlirOperation op, MlirStringRef pipeline,
                        MlirStringCallback errorCallback, void *userData);

/// Sets `tile.target` on `op` (usually the module; it stays owned by the
/// caller) to the compiler's target for `chip` ("sm_90a", "gfx942", ...;
/// an empty string means the default chip, mlirTileGetDefaultChip()), as
/// the `tile-attach-target` pass does. A target already attached for the
/// same chip is kept. Returns failure, with an error diagnostic at `op`,
/// for an unknown chip or a target already attached for another chip;
/// failure without a diagnostic for a null `op`.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTileAttachTarget(MlirOperation op,
                                                          MlirStringRef chip);

/// Creates a `tile-check-resources` pass for `chip` ("sm_80", "gfx942",
/// ...), emitting a remark per kernel when `remarks` is true. The caller
/// owns the pass until it hands it to mlirPassManagerAddOwnedPass or
/// mlirOpPassManagerAddOwnedPass. An unknown chip is reported when the pass
/// runs.
MLIR_CAPI_EXPORTED MlirPass mlirTileCreateCheckResourcesPass(MlirStringRef chip,
                                                             bool remarks);

/// Looks up the limits of one thread block on `chip`: the largest shared
/// memory in bytes and the largest number of 32-bit registers per thread.
/// Returns false, leaving the outputs untouched, for an unknown chip. Either
/// output pointer may be NULL.
MLIR_CAPI_EXPORTED bool mlirTileGetChipLimits(MlirStringRef chip,
                                              int64_t *sharedBytes,
                                              int64_t *registersPerThread);

/// Computes what the `tile.kernel` `op` allocates at the least: shared
/// memory in bytes and fragment and local registers per thread. Returns
/// failure, leaving the outputs untouched, when `op` is null, not a kernel,
/// or a kernel that tile-lower has lowered (its fragments are per-thread
/// arrays by then: ask before lowering). Either output pointer may be NULL.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTileKernelOpGetResources(
    MlirOperation op, int64_t *sharedBytes, int64_t *registersPerThread);

/// Checks the `tile.kernel` `op` against the limits of `chip`, as the
/// `tile-check-resources` pass does: emits an error diagnostic at the kernel
/// for each exceeded limit (and a remark with the figures when `remarks` is
/// true) and returns failure if one was exceeded. An unknown chip gives an
/// error at the kernel and failure; a null `op` or one that is not a kernel
/// gives failure without a diagnostic.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTileKernelOpCheckResources(
    MlirOperation op, MlirStringRef chip, bool remarks);

/// Software-pipelines, in place, every `tile.pipelined` loop of the
/// `tile.kernel` `op`, as `tile-lower` does first: global-to-shared copies
/// issued `stages - 1` iterations ahead as cp.async into multi-buffered
/// shared memory; loops without such copies become `scf.for`. Returns
/// failure with a diagnostic at the loop for a `stage` clause it cannot
/// follow; a null `op` or one that is not a kernel gives failure without a
/// diagnostic.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirTileKernelOpPipelineLoops(MlirOperation op);

/// Runs all of `tile-lower` on the `tile.kernel` `op` in place: pipelining,
/// barriers, then every tile operator to per-thread code (each gemm as the
/// instruction inference recorded on it), for the `#tile.target` attached
/// to the IR (mlirTileAttachTarget), else the default chip (sm_90a). The
/// kernel's layouts must have been inferred (`tile-infer-layout`). Returns failure with diagnostics at the offending
/// operations; a kernel lowered before gives an error at the kernel and
/// failure, leaving it as it was; a null `op` or one that is not a kernel
/// gives failure without a diagnostic.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTileKernelOpLower(MlirOperation op);

/// mlirTileKernelOpLower() for `chip` (e.g. "sm_90a": with `warpSpecialize`,
/// pipelined loops whose copies TMA can do get a producer warpgroup issuing
/// TMA loads and the host function gets the tensor maps); an empty `chip`
/// takes the attached target, else the default chip. An unknown chip is an
/// error at the kernel; a chip without a lowering yet (gfx942) too. The
/// layouts must have been inferred for the same chip. `chip` is borrowed; a
/// null or non-kernel `op` gives failure without a diagnostic.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTileKernelOpLowerForChip(
    MlirOperation op, MlirStringRef chip, bool warpSpecialize);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_TRANSFORMS_H
