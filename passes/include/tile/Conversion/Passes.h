//===- Passes.h - tile conversion passes ------------------------*- C++ -*-===//
//
// Declares the tile conversion passes (generated from Passes.td) and the
// functions that hold their logic, so other drivers can call it directly.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_H
#define TILE_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tile/Dialect/Tile/TileOps.h"
#include "tile/Transforms/SharedMemory.h"

namespace mlir {
namespace gpu {
class LaunchOp;
} // namespace gpu
namespace tile {

#define GEN_PASS_DECL
#include "tile/Conversion/Passes.h.inc"

/// Attribute by which tile-convert-nvgpu-to-nvvm tells
/// tile-grid-constant-tensor-maps which arguments of a lowered kernel are
/// tensor maps (array of argument positions in the LLVM signature).
inline constexpr llvm::StringLiteral kTensorMapArgsAttrName =
    TileDialect::TensorMapArgsAttrHelper::getNameStr();

/// Emits "`pass`: index-bitwidth must be 32 or 64, got N" at `op` and fails
/// unless `indexBitwidth` is 32 or 64 (the widths the lowerings support).
LogicalResult checkIndexBitwidth(Operation *op, StringRef pass,
                                 unsigned indexBitwidth);

/// Emits an error at each kernel of `module` whose known_block_size or
/// known_grid_size has an extent below 1 (upstream's lowering would pass it
/// on as launch bounds that LLVM translation rejects without a location),
/// and fails if there was one.
LogicalResult checkKnownLaunchSizes(gpu::GPUModuleOp module);

/// Emits an error at each operation of the lowered `module` outside the
/// LLVM dialect and its vendor's extension (ROCDL for a module with a
/// `#rocdl.target`, NVVM otherwise), naming it and its types (a conversion
/// cast only where no other such operation was found), and fails if there
/// was one (see tile-check-lowered).
LogicalResult checkLoweredToLLVM(gpu::GPUModuleOp module);

/// True when `module` is compiled for an AMD chip (it has a
/// `#rocdl.target`), where the NVIDIA-only rewrites of the GPU-module passes
/// do not apply.
bool isAMDModule(gpu::GPUModuleOp module);

/// Rewrites `kernel` into a gpu.launch (see convert-tile-to-gpu). Fails with
/// a diagnostic when the kernel still holds tile operators or fragments.
FailureOr<gpu::LaunchOp> convertKernelToLaunch(RewriterBase &rewriter,
                                               KernelOp kernel,
                                               int64_t sharedAlignment);

#define GEN_PASS_REGISTRATION
#include "tile/Conversion/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // TILE_CONVERSION_PASSES_H
