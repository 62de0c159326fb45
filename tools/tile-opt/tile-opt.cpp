//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect and passes, the upstream dialects tile
// kernels use, and every upstream pass, for FileCheck-driven development.
// Kernel templates (files with `${NAME}` parameters, such as the library
// GEMM) are not MLIR until tile-compile substitutes them, so tile-opt says
// how to instantiate one instead of failing at the first `$`.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::tile::test {
void registerTestLayoutPass();
} // namespace mlir::tile::test

/// Reports `path` if it is a kernel template: it declares parameters on a
/// `// tile.params:` line and uses one as `${NAME}`. Returns true if so.
static bool reportTemplate(llvm::StringRef path) {
  if (path == "-")
    return false;
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return false; // MlirOptMain reports unreadable files itself.
  llvm::StringRef text = (*file)->getBuffer();
  size_t use = text.find("${");
  if (use == llvm::StringRef::npos || !text.contains("tile.params:"))
    return false;
  size_t end = text.find('}', use);
  llvm::StringRef name =
      text.slice(use, end == llvm::StringRef::npos ? use + 2 : end + 1);
  llvm::SourceMgr mgr;
  mgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  const llvm::MemoryBuffer *buffer = mgr.getMemoryBuffer(1);
  mgr.PrintMessage(llvm::SMLoc::getFromPointer(buffer->getBufferStart() + use),
                   llvm::SourceMgr::DK_Error,
                   "'" + path +
                       "' is a kernel template with parameters such as '" +
                       name + "'; instantiate it first: tile-compile " + path +
                       " --print-source [-D NAME=VALUE]... | tile-opt ...");
  return true;
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tile::registerAllTilePasses();
  mlir::tile::test::registerTestLayoutPass();
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tile optimizer driver\n", registry);
  if (reportTemplate(input))
    return 1;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
