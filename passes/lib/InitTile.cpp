//===- InitTile.cpp - register tile and what its kernels use --------------===//
//
// Implements the registration entry points of InitTile.h.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/TileDialect.h"
#include "tile/Pipelines.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

void tile::registerTileDialect(DialectRegistry &registry) {
  registry.insert<tile::TileDialect>();
}

void tile::registerKernelDialects(DialectRegistry &registry) {
  registerTileDialect(registry);
  registerTileOpModels(registry);
  registry.insert<amdgpu::AMDGPUDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, ROCDL::ROCDLDialect,
                  scf::SCFDialect, vector::VectorDialect>();
  registerAllExtensions(registry);
  // Serialization (gpu-module-to-binary) needs the targets' interfaces and
  // the LLVM IR translations of every dialect a kernel lowers to.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerAllToLLVMIRTranslations(registry);
}

void tile::registerAllTilePasses() {
  registerTilePasses();
  registerTileConversionPasses();
  registerTilePipelines();
}
