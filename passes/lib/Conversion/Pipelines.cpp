//===- Pipelines.cpp - named tile compilation pipelines -------------------===//
//
// Builds the tile-to-nvvm pipeline: the tile passes down to gpu.launch, then
// the upstream passes that outline kernels, lower them to NVVM and serialize
// them, with the dynamic shared-memory and tensor-map parameter fix-ups in
// between.
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

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

void tile::buildTileToGPUPipeline(OpPassManager &pm,
                                  const TileToNVVMPipelineOptions &options) {
  // The target is attached once; the passes after read it from the IR.
  pm.addPass(createTileAttachTarget({options.chip}));
  pm.addPass(createTileInferLayout());
  if (options.checkResources)
    pm.addPass(createTileCheckResources());
  TileLowerOptions lower;
  lower.warpSpecialize = options.warpSpecialize;
  lower.tmaStore = options.tmaStore;
  pm.addPass(createTileLower(lower));
  pm.addPass(createConvertTileToGPU());
}

/// True if `text` is made of letters, digits, `+,._-` and the characters of
/// `extra` only, so that it can be spliced into a textual pipeline.
static bool isPlainOption(StringRef text, StringRef extra = "") {
  return llvm::all_of(text, [&](char c) {
    return llvm::isAlnum(c) || StringRef("+,._-").contains(c) ||
           extra.contains(c);
  });
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
  std::string toolkit = getCudaToolkitPath(options.toolkit);
  if (!isPlainOption(toolkit, "/"))
    return errorHandler("tile-to-nvvm: unusable toolkit path '" + toolkit +
                        "'");

  // The textual pipeline below names upstream passes: make sure they are
  // registered when this runs outside tile-opt (C API, tile-compile).
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerConversionPasses();
    registerGPUPasses();
    memref::registerMemRefPasses();
    registerTransformsPasses();
    registerTileConversionPasses();
  });

  // The upstream GPU-to-NVVM pipeline, with the fix-ups of the dynamic
  // shared-memory symbol and of tensor-map parameters between device
  // lowering and serialization, and the host's tensor maps encoded before
  // gpu-to-llvm lowers the launches. Debug locations are stripped from the
  // kernels only after their lowering, so that its errors keep the place
  // in the source.
  std::string features =
      options.features.empty() ? "" : " features=" + options.features;
  std::string upstream = llvm::formatv(
      "gpu-kernel-outlining,convert-vector-to-scf,"
      "convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm{{{5}},"
      "expand-strided-metadata,nvvm-attach-target{{chip={0}{1} O={2}{7}},"
      "lower-affine,convert-arith-to-llvm{{{5}},convert-index-to-llvm{{{5}},"
      "canonicalize,cse,"
      "gpu.module(tile-convert-nvgpu-to-nvvm{{{5}},"
      "convert-gpu-to-nvvm{{{5}},canonicalize,cse,"
      "reconcile-unrealized-casts,tile-externalize-dynamic-shared,"
      "tile-grid-constant-tensor-maps,{6}strip-debuginfo),"
      "tile-lower-host-tensor-maps{{{5}},gpu-to-llvm,"
      "gpu-module-to-binary{{format={3}{4}},"
      "convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts",
      chip, features, options.optLevel.getValue(), format,
      toolkit.empty() ? "" : " toolkit=" + toolkit,
      "index-bitwidth=" + std::to_string(options.indexBitwidth.getValue()),
      options.fastMath ? "tile-flush-denormals," : "",
      options.fastMath ? " ftz=true" : "");
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

void tile::registerTilePipelines() {
  registerPassPipeline(
      "tile-to-nvvm",
      "compile tile kernels to NVVM and serialize them (PTX, cubin or "
      "fatbin)",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TileToNVVMPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return buildTileToNVVMPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(TileToNVVMPipelineOptions());
      });
}
