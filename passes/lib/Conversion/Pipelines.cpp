//===- Pipelines.cpp - named tile compilation pipelines -------------------===//
//
// Builds the tile-to-nvvm and tile-to-rocdl pipelines: the tile passes down
// to gpu.launch, then the upstream passes that outline kernels, lower them
// to NVVM (with the dynamic shared-memory and tensor-map parameter fix-ups
// in between) or to ROCDL, and serialize them.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines.h"
#include "tile/Conversion/Passes.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

/// The tile passes down to gpu.launch for `chip`.
static void addTilePasses(OpPassManager &pm, StringRef chip,
                          bool checkResources, const TileLowerOptions &lower) {
  // The target is attached once; the passes after read it from the IR.
  pm.addPass(createTileAttachTarget({chip.str()}));
  pm.addPass(createTileInferLayout());
  if (checkResources)
    pm.addPass(createTileCheckResources());
  pm.addPass(createTileLower(lower));
  // Small integers converted to 16-bit floats (unpacked weights) as bit
  // operations on whole registers.
  pm.addPass(createTileNarrowIntToFloat());
  pm.addPass(createConvertTileToGPU());
}

void tile::buildTileToGPUPipeline(OpPassManager &pm,
                                  const TileToNVVMPipelineOptions &options) {
  TileLowerOptions lower;
  lower.warpSpecialize = options.warpSpecialize;
  lower.tmaStore = options.tmaStore;
  lower.threadStore = options.threadStore;
  lower.pingpong = options.pingpong;
  lower.persistent = options.persistent;
  addTilePasses(pm, options.chip, options.checkResources, lower);
}

void tile::buildTileToGPUPipeline(OpPassManager &pm,
                                  const TileToROCDLPipelineOptions &options) {
  TileLowerOptions lower;
  lower.persistent = options.persistent;
  addTilePasses(pm, options.chip, options.checkResources, lower);
}

/// True if `text` is made of letters, digits, `+,._-` and the characters of
/// `extra` only, so that it can be spliced into a textual pipeline.
static bool isPlainOption(StringRef text, StringRef extra = "") {
  return llvm::all_of(text, [&](char c) {
    return llvm::isAlnum(c) || StringRef("+,._-").contains(c) ||
           extra.contains(c);
  });
}

/// The tile-occupancy step of a kernel module's pipeline for
/// `minBlocksPerSM` (with 0 it only marks kernels that move registers
/// between warpgroups).
static std::string occupancyPass(int minBlocksPerSM) {
  return "tile-occupancy{min-blocks-per-sm=" + std::to_string(minBlocksPerSM) +
         "},";
}

/// Registers the upstream passes the textual pipelines below name, for
/// when they run outside tile-opt (C API, tile-compile).
static void registerUpstreamPasses() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerConversionPasses();
    registerGPUPasses();
    memref::registerMemRefPasses();
    registerTransformsPasses();
    registerTileConversionPasses();
  });
}

/// True when `dir` holds what gpu-module-to-binary needs to link HSACO.
static bool isROCmToolkit(StringRef dir) {
  SmallString<256> lld(dir);
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  return llvm::sys::fs::exists(lld);
}

std::string tile::getROCmToolkitPath(StringRef requested) {
  if (!requested.empty())
    return requested.str();
  if (const char *rocm = std::getenv("ROCM_PATH"); rocm && isROCmToolkit(rocm))
    return rocm;
#ifdef TILE_ROCM_TOOLKIT_DIR
  if (isROCmToolkit(TILE_ROCM_TOOLKIT_DIR))
    return TILE_ROCM_TOOLKIT_DIR;
#endif
  return "";
}

std::string tile::getCudaToolkitPath(StringRef requested) {
  if (!requested.empty())
    return requested.str();
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

LogicalResult tile::buildGPUToNVVMBinaryPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  StringRef chip = options.chip;
  std::optional<TargetLimits> known = lookupTargetLimits(chip);
  if (!known || !isPlainOption(chip))
    return errorHandler("tile-to-nvvm: " + getUnknownChipMessage(chip));
  if (known->vendor != Vendor::nvidia)
    return errorHandler("tile-to-nvvm: '" + chip +
                        "' is not an NVIDIA chip; the NVVM pipeline cannot "
                        "compile for it");
  if (!isPlainOption(options.features))
    return errorHandler("tile-to-nvvm: malformed features '" +
                        options.features + "'");
  StringRef format = options.format;
  if (!llvm::is_contained({"isa", "bin", "fatbin", "llvm"}, format))
    return errorHandler("tile-to-nvvm: unknown format '" + format +
                        "' (expected isa, bin, fatbin or llvm)");
  if (options.optLevel < 0 || options.optLevel > 3)
    return errorHandler("tile-to-nvvm: opt-level must be 0 to 3");
  if (options.indexBitwidth != 32 && options.indexBitwidth != 64)
    return errorHandler("tile-to-nvvm: index-bitwidth must be 32 or 64");
  if (options.minBlocksPerSM < 0)
    return errorHandler("tile-to-nvvm: min-blocks-per-sm must be 0 or more");
  std::string toolkit = getCudaToolkitPath(options.toolkit);
  if (!isPlainOption(toolkit, "/"))
    return errorHandler("tile-to-nvvm: unusable toolkit path '" + toolkit +
                        "'");

  registerUpstreamPasses();

  // The upstream GPU-to-NVVM pipeline, with the fix-ups of the dynamic
  // shared-memory symbol and of tensor-map parameters between device
  // lowering and serialization, and the host's tensor maps encoded before
  // gpu-to-llvm lowers the launches. Debug locations are stripped from the
  // kernels only after their lowering, so that its errors keep the place
  // in the source.
  // Vector reductions (`red.global.add.noftz.v4.f16x2`, the lowering of
  // tile.atomic on chips with vector_atomics) need PTX ISA 8.1, above
  // LLVM's default of 8.0 for sm_90; explicit features replace this.
  std::string ptxFeatures = options.features;
  if (ptxFeatures.empty() &&
      bitEnumContainsAll(known->features, TargetFeature::vector_atomics))
    ptxFeatures = "+ptx81";
  std::string features = ptxFeatures.empty() ? "" : " features=" + ptxFeatures;
  std::string upstream = llvm::formatv(
      "gpu-kernel-outlining,convert-vector-to-scf,"
      "convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm{{{5}},"
      "expand-strided-metadata,nvvm-attach-target{{chip={0}{1} O={2}{7}},"
      "lower-affine,convert-arith-to-llvm{{{5}},convert-index-to-llvm{{{5}},"
      "canonicalize,cse,"
      "gpu.module({8}tile-convert-nvgpu-to-nvvm{{{5}},"
      "convert-gpu-to-nvvm{{{5}},canonicalize,cse,tile-fuse-lop3,"
      "reconcile-unrealized-casts,tile-check-lowered,"
      "tile-externalize-dynamic-shared,"
      "tile-grid-constant-tensor-maps,{6}strip-debuginfo),"
      "tile-lower-host-tensor-maps{{{5}},gpu-to-llvm,"
      "gpu-module-to-binary{{format={3}{4}},"
      "convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts",
      chip, features, options.optLevel.getValue(), format,
      toolkit.empty() ? "" : " toolkit=" + toolkit,
      "index-bitwidth=" + std::to_string(options.indexBitwidth.getValue()),
      options.fastMath ? "tile-flush-denormals," : "",
      options.fastMath ? " ftz=true" : "",
      occupancyPass(options.minBlocksPerSM));
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(upstream, pm, errorStream)))
    return errorHandler("tile-to-nvvm: " + errors);
  return success();
}

LogicalResult tile::buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  buildTileToGPUPipeline(pm, options);
  return buildGPUToNVVMBinaryPipeline(pm, options, errorHandler);
}

LogicalResult tile::buildGPUToROCDLBinaryPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  StringRef chip = options.chip;
  std::optional<TargetLimits> known = lookupTargetLimits(chip);
  if (!known || !isPlainOption(chip))
    return errorHandler("tile-to-rocdl: " + getUnknownChipMessage(chip));
  if (known->vendor != Vendor::amd)
    return errorHandler("tile-to-rocdl: '" + chip +
                        "' is not an AMD chip; the ROCDL pipeline cannot "
                        "compile for it");
  StringRef format = options.format;
  if (!llvm::is_contained({"isa", "bin", "llvm"}, format))
    return errorHandler("tile-to-rocdl: unknown format '" + format +
                        "' (expected isa, bin or llvm)");
  if (options.optLevel < 0 || options.optLevel > 3)
    return errorHandler("tile-to-rocdl: opt-level must be 0 to 3");
  if (options.indexBitwidth != 32 && options.indexBitwidth != 64)
    return errorHandler("tile-to-rocdl: index-bitwidth must be 32 or 64");
  if (options.minBlocksPerSM < 0)
    return errorHandler("tile-to-rocdl: min-blocks-per-sm must be 0 or more");
  std::string toolkit = getROCmToolkitPath(options.toolkit);
  if (!isPlainOption(toolkit, "/"))
    return errorHandler("tile-to-rocdl: unusable toolkit path '" + toolkit +
                        "'");
  // Serialization would only say that lld failed.
  if (format == "bin" && !isROCmToolkit(toolkit))
    return errorHandler("tile-to-rocdl: no ld.lld to link HSACO with: " +
                        (toolkit.empty()
                             ? std::string("no ROCm toolkit found")
                             : "'" + toolkit + "' has no llvm/bin/ld.lld") +
                        " (install lld-22 and rebuild, or pass toolkit=DIR)");
  registerUpstreamPasses();

  // Upstream's GPU-to-ROCDL lowering: amdgpu ops (mfma) to rocdl, then the
  // gpu, math (ocml calls), vector and memref ops of each kernel module;
  // the host side as for NVIDIA. Kernels are wave64 on CDNA.
  std::string upstream = llvm::formatv(
      "gpu-kernel-outlining,convert-vector-to-scf,convert-scf-to-cf,"
      "convert-func-to-llvm{{{4}},expand-strided-metadata,"
      "rocdl-attach-target{{chip={0} O={1}},"
      "lower-affine,convert-arith-to-llvm{{{4}},convert-index-to-llvm{{{4}},"
      "canonicalize,cse,"
      "gpu.module({6}convert-amdgpu-to-rocdl{{chipset={0}},"
      "tile-convert-math-to-ocml{{chipset={0} "
      "{4}},convert-gpu-to-rocdl{{chipset={0} runtime=HIP "
      "{4}},{5}canonicalize,cse,"
      "reconcile-unrealized-casts,tile-check-lowered,strip-debuginfo),"
      "gpu-to-llvm,gpu-module-to-binary{{format={2}{3}},"
      "convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts",
      chip, options.optLevel.getValue(), format,
      toolkit.empty() ? "" : " toolkit=" + toolkit,
      "index-bitwidth=" + std::to_string(options.indexBitwidth.getValue()),
      options.fastMath ? "tile-flush-denormals," : "",
      occupancyPass(options.minBlocksPerSM));
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(upstream, pm, errorStream)))
    return errorHandler("tile-to-rocdl: " + errors);
  return success();
}

LogicalResult tile::buildTileToROCDLPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  buildTileToGPUPipeline(pm, options);
  return buildGPUToROCDLBinaryPipeline(pm, options, errorHandler);
}

/// Registers `name`, whose options are parsed into `Options` and handed
/// to `build`.
template <typename Options>
static void registerPipeline(
    StringRef name, StringRef description,
    LogicalResult (*build)(OpPassManager &, const Options &,
                           function_ref<LogicalResult(const Twine &)>)) {
  registerPassPipeline(
      name, description,
      [build](OpPassManager &pm, StringRef optionsText,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return build(pm, options, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(Options());
      });
}

void tile::registerTilePipelines() {
  registerPipeline<TileToNVVMPipelineOptions>(
      "tile-to-nvvm",
      "compile tile kernels to NVVM and serialize them (PTX, cubin or "
      "fatbin)",
      buildTileToNVVMPipeline);
  registerPipeline<TileToROCDLPipelineOptions>(
      "tile-to-rocdl",
      "compile tile kernels for AMD chips to ROCDL and serialize them "
      "(AMDGPU assembly or HSACO)",
      buildTileToROCDLPipeline);
}
