//===- tile-c/Registration.h - register tile from C ---------------*- C -*-===//
//
// Registers the tile dialect together with the upstream dialects a tile
// kernel uses and their interface extensions, and the tile passes. Upstream
// pass groups (mlirRegisterTransformsPasses, mlirRegisterConversionPasses,
// mlirRegisterAllPasses, ...) are exported by the same library and are
// declared in the mlir-c headers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_C_REGISTRATION_H
#define TILE_C_REGISTRATION_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Inserts into `registry` the tile dialect and the upstream dialects tile
/// kernels use (func, arith, math, memref, scf, cf, vector, gpu, nvgpu, nvvm,
/// amdgpu, rocdl, llvm), with the interface extensions their lowering needs.
/// The registry stays owned by the caller. A null registry is ignored.
MLIR_CAPI_EXPORTED void
mlirTileRegisterKernelDialects(MlirDialectRegistry registry);

/// Makes the dialects of mlirTileRegisterKernelDialects available in
/// `context` (through a temporary registry that is freed before returning).
/// Dialects are loaded lazily, when IR that uses them is parsed or built;
/// call mlirContextLoadAllAvailableDialects to load them at once. A null
/// context is ignored.
MLIR_CAPI_EXPORTED void
mlirTileContextRegisterKernelDialects(MlirContext context);

/// Registers every tile pass and pipeline (`tile-check-resources`,
/// `convert-tile-to-gpu`, `tile-to-nvvm`, ...) with the global pass
/// registry, so that textual pipelines can name them. Safe to call more than
/// once and from several threads.
MLIR_CAPI_EXPORTED void mlirTileRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_REGISTRATION_H
