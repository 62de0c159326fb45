//===- consumer.cpp - a driver built against an installed tile ------------===//
//
// Parses a file with the tile dialect registered, runs tile-check-resources
// with remarks, prints the module and the number of kernels in it.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/TileOps.h"
#include "tile/InitTile.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  mlir::DialectRegistry registry;
  mlir::tile::registerKernelDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  mlir::tile::TileCheckResourcesOptions options;
  options.remarks = true;
  pm.addPass(mlir::tile::createTileCheckResources(options));
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  int kernels = 0;
  module->walk([&](mlir::tile::KernelOp) { ++kernels; });
  llvm::outs() << "kernels: " << kernels << "\n";
  return 0;
}
