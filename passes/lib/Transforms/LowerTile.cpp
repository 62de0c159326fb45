//===- LowerTile.cpp - the tile-lower pass -------------------------------===//
//
// Drives tile-lower: pipelines tile.pipelined loops, places barriers, then
// asks every tile operator to lower itself (TileOpInterface::lower).
//
//===----------------------------------------------------------------------===//

#include "Lowering/LoweringContext.h"
#include "Ops/OpModels.h"
#include "tile/InitTile.h"
#include "tile/Transforms/Lowering.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILELOWER
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir
//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::lowerTileOps(KernelOp kernel,
                                       const LoweringOptions &options) {
  if (failed(checkTileOpModels(kernel)))
    return failure();
  FailureOr<LoweringOptions> resolved = withLoweringTarget(kernel, options);
  if (failed(resolved))
    return failure();
  LoweringContext context;
  context.kernel = kernel;
  context.options = *resolved;
  if (failed(context.init()))
    return failure();
  // Operators lower themselves; those with bodies (tile.parallel) lower
  // what they hold.
  SmallVector<TileOpInterface> ops;
  kernel.walk<WalkOrder::PreOrder>([&](TileOpInterface op) {
    ops.push_back(op);
    return WalkResult::skip();
  });
  bool ok = true;
  for (TileOpInterface op : ops)
    ok &= succeeded(op.lower(context));
  if (!ok)
    return failure();
  context.placeWgmmaWaits();
  // Fragment buffers still used by operators left for later passes (gemm)
  // stay; the others are gone.
  for (auto &[buffer, entry] : context.fragments) {
    if (buffer.use_empty())
      buffer.getDefiningOp()->erase();
    else if (entry.second.use_empty())
      entry.second.getDefiningOp()->erase();
  }
  return success();
}

void mlir::tile::loadLoweringDialects(MLIRContext *context) {
  context->loadDialect<amdgpu::AMDGPUDialect, arith::ArithDialect,
                       gpu::GPUDialect, memref::MemRefDialect,
                       NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                       vector::VectorDialect, LLVM::LLVMDialect>();
}

FailureOr<TargetAttr> mlir::tile::getLoweringTarget(Operation *op,
                                                    TargetAttr given) {
  TargetAttr target = given ? given : getTargetFor(op);
  if (!target)
    target = getDefaultTarget(op->getContext());
  if (!target.isNVIDIA() && !target.isAMD())
    return op->emitOpError()
           << "cannot be compiled for " << target.getChip()
           << ": the tile lowering emits NVVM (NVIDIA) and ROCDL (AMD) code "
              "only";
  return target;
}

LogicalResult mlir::tile::lowerKernel(KernelOp kernel,
                                      const LoweringOptions &given) {
  FailureOr<LoweringOptions> resolved = withLoweringTarget(kernel, given);
  if (failed(resolved))
    return failure();
  const LoweringOptions &options = *resolved;
  // Lowering per-thread code again would place barriers after terminators
  // and distribute registers a second time.
  if (kernel->hasAttr(kLoweredAttr))
    return kernel.emitOpError()
           << "is already lowered (tile-lower ran on it); run tile-lower "
              "once per kernel, after tile-infer-layout";
  if (options.persistent)
    makePersistent(kernel);
  if (failed(pipelineLoops(kernel, options)))
    return failure();
  insertSharedBarriers(kernel);
  if (failed(lowerTileOps(kernel, options)))
    return failure();
  // Block-wide barriers among the consumers of a warp-specialized kernel
  // must not wait for the producer warpgroup: a named barrier over the
  // consumer threads only.
  kernel.walk([&](scf::IfOp consumers) {
    if (!consumers->hasAttr(kConsumerAttr))
      return;
    consumers.getThenRegion().walk([&](gpu::BarrierOp barrier) {
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      NVVM::BarrierOp::create(
          b, loc, Type(),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                       kernel.getThreads()),
          NVVM::BarrierReductionAttr(), Value());
      barrier.erase();
    });
  });
  finishTensorCoreTurns(kernel);
  kernel->setAttr(kLoweredAttr, UnitAttr::get(kernel->getContext()));
  return success();
}

namespace {
struct TileLowerPass : public tile::impl::TileLowerBase<TileLowerPass> {
  using TileLowerBase::TileLowerBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    TileLowerBase::getDependentDialects(registry);
    registerTileOpModels(registry);
  }

  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp k) { kernels.push_back(k); });
    bool ok = true;
    for (KernelOp kernel : kernels) {
      FailureOr<TargetAttr> target = resolveTarget(kernel, chip);
      LoweringOptions options;
      options.target = succeeded(target) ? *target : TargetAttr();
      options.warpSpecialize = warpSpecialize;
      options.tmaStore = tmaStore;
      options.threadStore = threadStore;
      options.pingpong = pingpong;
      options.persistent = persistent;
      ok &= succeeded(target) && succeeded(lowerKernel(kernel, options));
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
