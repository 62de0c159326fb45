//===- CheckHostTensorMaps.cpp - reject host-side tensor-map launches -----===//
//
// Kernels take TMA tensor maps by value, as 128-byte grid-constant
// parameters that the tile runtime encodes at launch from the launch
// manifest. Upstream's host lowering (gpu-to-llvm and its runtime
// wrappers) has no such parameter: it cannot convert the descriptor type,
// and its encoder returns a pointer to a map in device memory. This check
// reports, before gpu-to-llvm, each host launch that passes a tensor map,
// instead of leaving an unexplained legalization failure.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECHECKHOSTTENSORMAPS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {
struct TileCheckHostTensorMapsPass
    : public tile::impl::TileCheckHostTensorMapsBase<
          TileCheckHostTensorMapsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      // Kernel modules are lowered separately; only host code matters.
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
      if (!launch)
        return WalkResult::advance();
      for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
        if (!isa<nvgpu::TensorMapDescriptorType>(operand.getType()))
          continue;
        InFlightDiagnostic diag =
            launch.emitError()
            << "kernel operand " << i
            << " is a tensor map, which the host lowering cannot pass: "
               "kernels take tensor maps by value, encoded at launch by the "
               "tile runtime from the launch manifest (compile with "
               "tile-compile)";
        if (Operation *def = operand.getDefiningOp())
          diag.attachNote(def->getLoc()) << "tensor map made here";
        failed = true;
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
