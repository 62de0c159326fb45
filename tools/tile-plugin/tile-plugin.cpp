//===- tile-plugin.cpp - tile as an mlir-opt plugin -----------------------===//
//
// Entry points that mlir-opt's --load-dialect-plugin and --load-pass-plugin
// look up in a shared library.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TileDialect", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::tile::registerTileDialect(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TilePasses", LLVM_VERSION_STRING,
          []() { mlir::tile::registerAllTilePasses(); }};
}
