//===- ConvertTileToGPU.cpp - tile.kernel to gpu.launch -------------------===//
//
// Turns each lowered tile.kernel into a gpu.launch: grid, block and cluster
// sizes, one exactly sized dynamic shared-memory block holding every shared
// buffer of the kernel, per-thread allocas for local buffers, and the
// rasterized block order of the `rasterize` clause. A persistent kernel
// (tile-lower's `persistent` option) launches only as many blocks as the
// device holds at once, along x.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Checks that only shared and local allocations remain of the tile
/// operations in `kernel`.
static LogicalResult verifyLowered(KernelOp kernel) {
  Dialect *tileDialect = kernel->getDialect();
  WalkResult result = kernel.getBody().walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      if (getMemorySpace(alloc.getType()) == MemorySpace::Fragment) {
        alloc.emitOpError("fragment buffers must be distributed over the "
                          "threads before convert-tile-to-gpu");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    if (op->getDialect() == tileDialect && !isa<RedOp, RemoteLoadOp>(op)) {
      op->emitOpError("must be lowered to thread-level code before "
                      "convert-tile-to-gpu");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The first operation of `body` that reads or writes the memory of one of
/// `values` or of a view of one (descriptor reads, such as memref.dim, do
/// not count); null if none does.
static Operation *firstAccess(Block &body, llvm::SmallPtrSet<Value, 4> values) {
  for (Operation &top : body) {
    WalkResult walk = top.walk([&](Operation *op) {
      if (llvm::none_of(op->getOperands(),
                        [&](Value v) { return values.contains(v); }))
        return WalkResult::advance();
      if (isa<memref::DimOp, memref::ExtractStridedMetadataOp,
              memref::ExtractAlignedPointerAsIndexOp>(op))
        return WalkResult::advance();
      if (isa<ViewLikeOpInterface>(op)) {
        for (Value result : op->getResults())
          values.insert(result);
        return WalkResult::advance();
      }
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return &top;
  }
  return nullptr;
}

/// Makes `launch` wait (griddepcontrol.wait) for the grid before it in the
/// stream just before its body first touches a `tile.zero_init` argument
/// of `func`, the wait marked kDependentLaunchAttr: the runtime may then start
/// it while it zeroes those arguments, the part of the kernel before the
/// wait overlapping the zeroing. Everything before the wait must read only
/// what the stream's earlier work left, which the zeroing, launched after
/// that work, guarantees.
static void waitForZeroing(RewriterBase &rewriter, gpu::LaunchOp launch,
                           func::FuncOp func) {
  llvm::SmallPtrSet<Value, 4> zeroed;
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), "tile.zero_init"))
      zeroed.insert(arg);
  if (zeroed.empty())
    return;
  Operation *first = firstAccess(launch.getBody().front(), zeroed);
  if (!first)
    return;
  rewriter.setInsertionPoint(first);
  auto wait = NVVM::GriddepcontrolOp::create(rewriter, first->getLoc(),
                                             NVVM::GridDepActionKind::wait);
  wait->setAttr(kDependentLaunchAttr, rewriter.getUnitAttr());
}

FailureOr<gpu::LaunchOp>
mlir::tile::convertKernelToLaunch(RewriterBase &rewriter, KernelOp kernel,
                                  int64_t sharedAlignment) {
  if (failed(verifyLowered(kernel)))
    return failure();
  SharedMemoryPlan plan = planSharedMemory(kernel, sharedAlignment);
  if (plan.totalBytes > std::numeric_limits<int32_t>::max())
    return kernel.emitOpError()
           << "needs " << plan.totalBytes << " bytes of shared memory";

  Location loc = kernel.getLoc();
  TargetAttr target = getTargetFor(kernel);
  auto func = kernel->getParentOfType<func::FuncOp>();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(kernel);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value, 3> grid(kernel.getGrid());
  // A persistent kernel walks its tiles itself: as many blocks as there are
  // tiles or as the device holds at once (or the largest prime not above
  // that), whichever is fewer.
  if (kernel->hasAttr(kPersistentAttr)) {
    Value tiles = grid.front();
    for (Value extent : ArrayRef(grid).drop_front())
      tiles = arith::MulIOp::create(rewriter, loc, tiles, extent);
    auto resident = arith::ConstantIndexOp::create(
        rewriter, loc, std::numeric_limits<int32_t>::max());
    // With `blocks = prime`, the largest prime not above that count.
    Attribute count = rewriter.getUnitAttr();
    if (kernel.getPersistentBlocks() == PersistentBlocks::prime)
      count = PersistentBlocksAttr::get(rewriter.getContext(),
                                        PersistentBlocks::prime);
    resident->setAttr(kResidentBlocksAttr, count);
    grid.assign({arith::MinUIOp::create(rewriter, loc, tiles, resident)});
  }
  grid.resize(3, one);
  // A cluster of one block is none. The hardware tiles the grid with whole
  // clusters: extents not known to be multiples of the cluster's are
  // rounded up, and the blocks past them run with indices past them.
  // (makePersistent() leaves kernels with a cluster alone.)
  SmallVector<int64_t, 3> clusterDims = kernel.getClusterExtents();
  bool hasCluster = kernel.hasCluster();
  for (auto [extent, c] : llvm::zip(grid, clusterDims)) {
    std::optional<int64_t> known = getConstantIntValue(extent);
    if (c == 1 || (known && *known % c == 0))
      continue;
    Value size = arith::ConstantIndexOp::create(rewriter, loc, c);
    extent = arith::MulIOp::create(
        rewriter, loc, arith::CeilDivUIOp::create(rewriter, loc, extent, size),
        size);
  }
  // A warp-specialized kernel launches its producer warpgroup after its own
  // threads.
  int64_t producers = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr))
    producers = attr.getInt();
  Value threads = arith::ConstantIndexOp::create(
      rewriter, loc, kernel.getThreads() + producers);
  Value sharedBytes;
  if (plan.totalBytes > 0)
    sharedBytes = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), plan.totalBytes);
  SmallVector<Value, 3> cluster;
  if (hasCluster) {
    for (int64_t d : clusterDims)
      cluster.push_back(
          d == 1 ? one : arith::ConstantIndexOp::create(rewriter, loc, d));
  } else {
    cluster.resize(3, Value());
  }
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, grid[0], grid[1], grid[2], threads, one, one, sharedBytes,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
      /*workgroupAttributions=*/{}, /*privateAttributions=*/{}, cluster[0],
      cluster[1], cluster[2]);

  Block &body = launch.getBody().front();
  // The builder leaves out the cluster-index and cluster-size arguments
  // that the op's region carries when it has a cluster.
  if (launch.hasClusterSize())
    while (body.getNumArguments() < launch.getNumConfigRegionAttributes())
      body.addArgument(rewriter.getIndexType(), loc);
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>()) {
    rewriter.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  rewriter.setInsertionPointToStart(&body);
  gpu::KernelDim3 hwIds = launch.getBlockIds();
  SmallVector<Value, 3> ids = {hwIds.x, hwIds.y, hwIds.z};
  // A panel of one keeps every block where it is.
  std::optional<uint64_t> panel = kernel.getRasterizePanel();
  if (panel && *panel > 1) {
    // With a cluster, the clusters are rasterized and each keeps its
    // blocks together: a block's index is its cluster's times the cluster
    // extent plus its position in the cluster, which the hardware numbers
    // the same way.
    gpu::KernelDim3 gridSize = launch.getGridSize();
    Value hw[2] = {hwIds.x, hwIds.y}, ofCluster[2] = {hwIds.x, hwIds.y},
          clusters[2] = {gridSize.x, gridSize.y}, extent[2];
    for (int d = 0; d < 2; ++d) {
      if (clusterDims[d] == 1)
        continue;
      extent[d] = arith::ConstantIndexOp::create(rewriter, loc, clusterDims[d]);
      ofCluster[d] = arith::DivUIOp::create(rewriter, loc, hw[d], extent[d]);
      clusters[d] =
          arith::DivUIOp::create(rewriter, loc, clusters[d], extent[d]);
    }
    auto [bx, by] = rasterizeBlockIds(
        rewriter, loc, ofCluster[0], ofCluster[1], clusters[0], clusters[1],
        *panel, kernel.getRasterizeOrder().value_or(RasterOrder::row));
    ids[0] = bx;
    ids[1] = by;
    for (int d = 0; d < 2; ++d)
      if (extent[d])
        ids[d] = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, ids[d], extent[d]),
            arith::RemUIOp::create(rewriter, loc, hw[d], extent[d]));
  }
  ids.resize(kernel.getGrid().size());

  Value smem;
  if (!plan.buffers.empty()) {
    auto bytesType = MemRefType::get(
        {ShapedType::kDynamic}, rewriter.getI8Type(), AffineMap(),
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::AddressSpace::Workgroup));
    smem = gpu::DynamicSharedMemoryOp::create(rewriter, loc, bytesType);
  }
  rewriter.inlineBlockBefore(&kernel.getBody().front(), body.getTerminator(),
                             ids);
  rewriter.eraseOp(kernel);

  for (auto [alloc, offset] : plan.buffers) {
    rewriter.setInsertionPoint(alloc);
    Value byteOffset =
        arith::ConstantIndexOp::create(rewriter, alloc.getLoc(), offset);
    rewriter.replaceOpWithNewOp<memref::ViewOp>(alloc, alloc.getType(), smem,
                                                byteOffset, ValueRange());
  }
  SmallVector<AllocOp> locals;
  launch.walk([&](AllocOp alloc) { locals.push_back(alloc); });
  for (AllocOp alloc : locals) {
    rewriter.setInsertionPoint(alloc);
    rewriter.replaceOpWithNewOp<memref::AllocaOp>(alloc, alloc.getType());
  }
  // Constants, memref sizes and index arithmetic the body uses are
  // recomputed inside it, so that outlining passes the kernel only the
  // function's arguments. The sizes first, by hand: upstream sinking never
  // makes a memref the launch did not use one of its operands, and a
  // memref that the body only reads through tensor maps would otherwise
  // pass its sizes as host-computed scalars.
  Block &launchBody = launch.getBody().front();
  llvm::SmallSetVector<memref::DimOp, 4> outerDims;
  launch.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto dim = operand.getDefiningOp<memref::DimOp>())
        if (!launch->isAncestor(dim) && dim.getConstantIndex())
          outerDims.insert(dim);
  });
  for (memref::DimOp dim : outerDims) {
    rewriter.setInsertionPointToStart(&launchBody);
    Value index = arith::ConstantIndexOp::create(rewriter, dim.getLoc(),
                                                 *dim.getConstantIndex());
    Value inner =
        memref::DimOp::create(rewriter, dim.getLoc(), dim.getSource(), index);
    rewriter.replaceUsesWithIf(dim.getResult(), inner, [&](OpOperand &use) {
      return launch->isProperAncestor(use.getOwner());
    });
  }
  if (failed(sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
        if (op->getNumRegions() != 0 || !isPure(op))
          return false;
        return matchPattern(op, m_Constant()) || isa<memref::DimOp>(op) ||
               isa<arith::ArithDialect>(op->getDialect());
      })))
    return launch.emitOpError("could not sink constants into the launch");
  if (func && target && target.has(TargetFeature::dependent_launch))
    waitForZeroing(rewriter, launch, func);
  return launch;
}

namespace {
struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  /// Functions pass global memory only: a memref argument or result in a
  /// GPU or tile memory space (shared, local, fragment, and even an explicit
  /// global one) has no address space in the pipeline's func-to-llvm, which
  /// lowers host functions and those of hand-written gpu.modules alike.
  /// Kernels reach on-chip memory through tile.alloc instead.
  static LogicalResult verifyFunctionSignatures(ModuleOp module) {
    bool ok = true;
    module.walk([&](func::FuncOp func) {
      FunctionType type = func.getFunctionType();
      auto check = [&](StringRef role, unsigned i, Type t) {
        // A kernel parameter is at least a byte: PTX has no 4-bit one.
        if (auto f = dyn_cast<FloatType>(t); ok && f && f.getWidth() < 8) {
          func.emitError() << "function @" << func.getSymName() << " " << role
                           << " " << i << " of type " << t
                           << ", narrower than a byte, which kernels cannot "
                              "take as a scalar; pass it widened (f16) and "
                              "truncate it in the kernel";
          ok = false;
          return;
        }
        auto memref = dyn_cast<MemRefType>(t);
        if (!ok || !memref || !memref.getMemorySpace() ||
            isa<IntegerAttr>(memref.getMemorySpace()))
          return;
        func.emitError() << "function @" << func.getSymName() << " " << role
                         << " " << i << " of type " << memref
                         << ", in memory space " << memref.getMemorySpace()
                         << ", which function lowering cannot map; pass "
                            "global memory as a memref without a memory "
                            "space";
        ok = false;
      };
      for (auto [i, t] : llvm::enumerate(type.getInputs()))
        check("takes argument", i, t);
      for (auto [i, t] : llvm::enumerate(type.getResults()))
        check("returns result", i, t);
    });
    return success(ok);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (sharedAlignment < 1 || !llvm::isPowerOf2_64(sharedAlignment)) {
      module.emitError() << "expected a power-of-two shared-alignment, got "
                         << sharedAlignment.getValue();
      return signalPassFailure();
    }
    if (failed(verifyFunctionSignatures(module)))
      return signalPassFailure();
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    bool ok = true;
    // GPU kernel outlining takes the launches of the top-level module's
    // functions only; one left in a nested module would reach the host's
    // LLVM lowering with its shared memory and fail there, unlocated.
    for (KernelOp kernel : kernels) {
      if (kernel->getParentOfType<ModuleOp>() == module)
        continue;
      kernel.emitOpError("in a nested module; kernels are outlined from "
                         "the functions of the top-level module only");
      ok = false;
    }
    if (!ok)
      return signalPassFailure();
    for (KernelOp kernel : kernels)
      ok &= succeeded(convertKernelToLaunch(rewriter, kernel, sharedAlignment));
    if (!ok)
      return signalPassFailure();
    if (!kernels.empty())
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      rewriter.getUnitAttr());
  }
};
} // namespace
