//===- Occupancy.cpp - a minimum of resident blocks per multiprocessor ----===//
//
// The min-blocks-per-sm option of the NVVM and ROCDL pipelines (CUDA's
// __launch_bounds__ minimum): each kernel of a GPU module asks the backend
// to fit that many of its blocks on one multiprocessor (compute unit) at
// once, which caps the registers per thread. Memory-bound kernels trade
// registers for more warps with loads in flight. A warp-specialized kernel
// that moves registers between its warpgroups (setmaxnreg) counts on one
// block per multiprocessor: it gets that minimum by default, since ptxas
// ignores setmaxnreg (and spills) where it cannot tell a kernel's
// registers at entry, and more than one block is an error.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEOCCUPANCY
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

/// Threads a multiprocessor (compute unit) holds at once on the chips the
/// pipelines compile for (sm_80, sm_90a: 2048; CDNA: 4 SIMDs of 8 or 10
/// wave64 slots, at least 2048).
static constexpr int64_t kThreadsPerMultiprocessor = 2048;
/// SIMDs of a CDNA compute unit and threads of its waves.
static constexpr int64_t kSimdsPerComputeUnit = 4;
static constexpr int64_t kWaveSize = 64;

/// Sets the occupancy attribute of kernel `func` for `blocks` resident
/// blocks: nvvm.minctasm, or on AMD rocdl.waves_per_eu (the waves each SIMD
/// must hold for `blocks` blocks of the kernel's size).
static LogicalResult setOccupancy(gpu::GPUFuncOp func, int64_t blocks,
                                  bool amd) {
  std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
  if (!known)
    return func.emitError() << "min-blocks-per-sm " << blocks << " needs the "
                            << "block size of @" << func.getName()
                            << ", which has no known_block_size";
  int64_t threads = 1;
  for (int32_t extent : *known)
    threads *= extent;
  if (blocks * threads > kThreadsPerMultiprocessor)
    return func.emitError()
           << "min-blocks-per-sm " << blocks << " of @" << func.getName()
           << " asks for " << blocks * threads
           << " resident threads, expected at most "
           << kThreadsPerMultiprocessor << " (blocks of " << threads
           << " threads)";
  Builder b(func.getContext());
  if (!amd) {
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(blocks));
    return success();
  }
  int64_t waves = (threads + kWaveSize - 1) / kWaveSize;
  int64_t perSimd =
      (blocks * waves + kSimdsPerComputeUnit - 1) / kSimdsPerComputeUnit;
  func->setAttr(
      ROCDL::ROCDLDialect::WavesPerEuAttrHelper(func.getContext()).getName(),
      b.getI32IntegerAttr(perSimd));
  return success();
}

namespace {
struct TileOccupancyPass
    : public tile::impl::TileOccupancyBase<TileOccupancyPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    int64_t blocks = minBlocksPerSM;
    if (blocks < 0) {
      module.emitError() << "min-blocks-per-sm must be 0 or more, got "
                         << blocks;
      return signalPassFailure();
    }
    bool amd = tile::isAMDModule(module);
    // setmaxnreg exists on the architecture-specific Hopper and later
    // chips only (sm_90a, sm_100a, ...); the backend aborts elsewhere.
    StringRef lacking;
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
          StringRef chip = nvvm.getChip();
          unsigned arch = 0;
          if (!chip.ends_with("a") ||
              chip.drop_front(3).drop_back().getAsInteger(10, arch) ||
              arch < 90)
            lacking = chip;
        }
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      bool movesRegisters = false;
      WalkResult walk = func.walk([&](NVVM::SetMaxRegisterOp op) {
        movesRegisters = true;
        if (lacking.empty())
          return WalkResult::advance();
        op.emitError() << "'nvvm.setmaxregister' needs an sm_90a-class chip "
                          "(sm_90a, sm_100a, ...), got "
                       << lacking;
        return WalkResult::interrupt();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      if (movesRegisters && blocks > 1) {
        func.emitError() << "min-blocks-per-sm " << blocks << " of @"
                         << func.getName()
                         << ", whose warpgroups share the registers of one "
                            "block per multiprocessor (setmaxnreg); expected "
                            "0 or 1 (or a kernel without warp "
                            "specialization)";
        return signalPassFailure();
      }
      int64_t want = blocks == 0 && movesRegisters ? 1 : blocks;
      if (want != 0 && failed(setOccupancy(func, want, amd)))
        return signalPassFailure();
    }
  }
};
} // namespace
