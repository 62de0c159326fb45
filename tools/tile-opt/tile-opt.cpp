//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect and passes, the upstream dialects tile
// kernels use, and every upstream pass, for FileCheck-driven development.
// Kernel templates (files with `${NAME}` parameters, such as the library
// GEMM) are not MLIR until tile-compile substitutes them, so tile-opt says
// how to instantiate one instead of failing at the first `$`. Input the
// upstream parser would crash on is reported first, and an error from any
// pass fails the run even where the pass itself succeeds.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <atomic>

namespace mlir::tile::test {
void registerTestLayoutPass();
} // namespace mlir::tile::test

/// Reports `mgr`'s main buffer if it is a kernel template: it declares
/// parameters on a `// tile.params:` line and uses one as `${NAME}`.
/// Returns true if so.
static bool reportTemplate(const llvm::SourceMgr &mgr, llvm::StringRef path) {
  const llvm::MemoryBuffer *buffer = mgr.getMemoryBuffer(mgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  size_t use = text.find("${");
  if (use == llvm::StringRef::npos || !text.contains("tile.params:"))
    return false;
  size_t end = text.find('}', use);
  llvm::StringRef name =
      text.slice(use, end == llvm::StringRef::npos ? use + 2 : end + 1);
  mgr.PrintMessage(llvm::SMLoc::getFromPointer(buffer->getBufferStart() + use),
                   llvm::SourceMgr::DK_Error,
                   "'" + path +
                       "' is a kernel template with parameters such as '" +
                       name + "'; instantiate it first: tile-compile " + path +
                       " --print-source [-D NAME=VALUE]... | tile-opt ...");
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::tile::registerAllTilePasses();
  mlir::tile::test::registerTestLayoutPass();
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tile optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr mgr;
  mgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(
                             file->getMemBufferRef(), /*RequiresNull=*/false),
                         llvm::SMLoc());
  if (reportTemplate(mgr, input) || mlir::tile::reportParserTraps(mgr))
    return 1;

  // Some upstream conversions report an error and still succeed; outside
  // -verify-diagnostics, an error from any pass fails the run, as in
  // tile-compile.
  std::atomic<bool> passError{false};
  if (!config.shouldVerifyDiagnostics()) {
    mlir::MlirOptMainConfig base = config;
    config.setPassPipelineSetupFn([base, &passError](mlir::PassManager &pm) {
      pm.getContext()->getDiagEngine().registerHandler(
          [&passError](mlir::Diagnostic &diag) {
            if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
              passError = true;
            return mlir::failure(); // printed by the driver's own handler
          });
      return base.setupPassPipeline(pm);
    });
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)) ||
      passError)
    return 1;
  out->keep();
  return 0;
}
