//===- Pipelines.h - named tile compilation pipelines -----------*- C++ -*-===//
//
// Declares the pipelines that take tile IR to a GPU binary
// (`tile-to-nvvm` for NVIDIA, `tile-to-rocdl` for AMD), their options, and
// their registration.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_H
#define TILE_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "tile/Dialect/Tile/Target.h"

namespace mlir {
class OpPassManager;
namespace tile {

/// Options of the `tile-to-nvvm` pipeline.
struct TileToNVVMPipelineOptions
    : public PassPipelineOptions<TileToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("target chip, e.g. sm_80 or sm_90a"),
      llvm::cl::init(kDefaultChip.str())};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (empty: the chip's default)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("binary format: isa (PTX), bin (cubin, needs ptxas) or "
                     "fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory, for libdevice (math functions) "
                     "and ptxas; empty: $CUDA_HOME, else /usr/local/cuda "
                     "when it exists"),
      llvm::cl::init("")};
  PassOptions::Option<int> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("width of index values in kernels, 32 or 64: 32 halves "
                     "the registers and instructions of address arithmetic "
                     "and suits tensors of fewer than 2^31 elements"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> checkResources{
      *this, "check-resources",
      llvm::cl::desc("reject kernels that exceed the chip's shared memory or "
                     "register budget"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("on sm_90a, load the tiles of pipelined loops with TMA "
                     "from a producer warpgroup (false: cp.async pipeline)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("flush f32 denormals to zero in kernels, so that exp2 "
                     "is one ex2.approx.ftz and f32 arithmetic takes .ftz"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("in warp-specialized kernels, store fragments to global "
                     "tensors through shared memory with TMA (false: masked "
                     "stores from registers)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> threadStore{
      *this, "thread-store",
      llvm::cl::desc("in warp-specialized kernels, stage those fragments in "
                     "shared memory as tma-store does but store them with the "
                     "threads, 16-byte stores of each row's aligned body: no "
                     "tensor map, so rows of any length and address"),
      llvm::cl::init(false)};
  PassOptions::Option<int> minBlocksPerSM{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("blocks of each kernel that must fit on one "
                     "multiprocessor at once, which caps its registers per "
                     "thread (tile-occupancy; 0: no request)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> pingpong{
      *this, "pingpong",
      llvm::cl::desc("in warp-specialized kernels with two consumer "
                     "warpgroups and several gemms per pipelined iteration, "
                     "let the warpgroups take turns on the tensor cores"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("launch as many blocks as the device holds at once, "
                     "each looping over the grid's tiles; with warp "
                     "specialization the producer loads the next tile while "
                     "the consumers store this one"),
      llvm::cl::init(false)};
};

/// Options of the `tile-to-rocdl` pipeline (AMD CDNA chips).
struct TileToROCDLPipelineOptions
    : public PassPipelineOptions<TileToROCDLPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("target chip: gfx90a or gfx942"),
      llvm::cl::init("gfx942")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("binary format: isa (AMDGPU assembly), bin (HSACO, "
                     "linked with ld.lld) or llvm (LLVM IR)"),
      llvm::cl::init("bin")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("ROCm toolkit directory: `llvm/bin/ld.lld` links HSACO "
                     "and `amdgcn/bitcode` holds the device libraries (ocml, "
                     "ockl); empty: the one the build assembled"),
      llvm::cl::init("")};
  PassOptions::Option<int> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("width of index values in kernels, 32 or 64"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> checkResources{
      *this, "check-resources",
      llvm::cl::desc("reject kernels that exceed the chip's LDS or register "
                     "budget"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("flush f32 denormals to zero in kernels, so that exp2 "
                     "is one v_exp_f32 without range reduction"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("launch as many blocks as the device holds at once, "
                     "each looping over the grid's tiles"),
      llvm::cl::init(false)};
  PassOptions::Option<int> minBlocksPerSM{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("blocks of each kernel that must fit on one "
                     "compute unit at once, which caps its registers per "
                     "thread (tile-occupancy; 0: no request)"),
      llvm::cl::init(0)};
};

/// The ROCm toolkit directory to use: `requested` when not empty, else
/// the directory the build assembled (links to ld.lld and the device
/// library bitcode), else "".
std::string getROCmToolkitPath(StringRef requested);

/// The CUDA toolkit directory to use: `requested` when not empty, else
/// $CUDA_HOME, else /usr/local/cuda when it exists, else "".
std::string getCudaToolkitPath(StringRef requested);

/// Adds the tile passes that run before kernel outlining: everything from
/// tile IR down to gpu.launch.
void buildTileToGPUPipeline(OpPassManager &pm,
                            const TileToNVVMPipelineOptions &options);

/// buildTileToGPUPipeline() for an AMD chip.
void buildTileToGPUPipeline(OpPassManager &pm,
                            const TileToROCDLPipelineOptions &options);

/// Adds the passes after buildTileToGPUPipeline for an AMD chip: kernel
/// outlining, ROCDL lowering of the device code (amdgpu, gpu, math),
/// host lowering and serialization to `options.format`. Fails, reporting
/// to `errorHandler`, on a chip that is not AMD or an unknown format.
LogicalResult buildGPUToROCDLBinaryPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds the whole tile-to-rocdl pipeline.
LogicalResult buildTileToROCDLPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds the passes after buildTileToGPUPipeline: kernel outlining, NVVM
/// lowering of the device code, host lowering and serialization to
/// `options.format`. Fails, reporting to `errorHandler`, on an unknown chip
/// or format or malformed features.
LogicalResult buildGPUToNVVMBinaryPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds the whole tile-to-nvvm pipeline: buildTileToGPUPipeline, then
/// outlining, NVVM lowering and serialization to `options.format`. Fails,
/// reporting to `errorHandler`, on an unknown chip or format or malformed
/// features.
LogicalResult buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Registers `tile-to-nvvm` and `tile-to-rocdl` with the global pipeline
/// registry.
void registerTilePipelines();

} // namespace tile
} // namespace mlir

#endif // TILE_PIPELINES_H
