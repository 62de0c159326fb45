//===- TileDialect.cpp - tile dialect registration ------------------------===//
//
// Registers the tile operations and attributes with the dialect.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/TileDialect.h"
#include "tile/Dialect/Tile/TileAttrs.h"
#include "tile/Dialect/Tile/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/TileOpsDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/TileOps.cpp.inc"
      >();
  registerAttributes();
}
