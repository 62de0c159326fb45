//===- TileInterfaces.cpp - the interface of tile operators ---------------===//
//
// The generated definitions of `TileOpInterface`. Its implementations live
// with the passes (passes/lib/Ops), attached as external models.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/TileInterfaces.h"

#include "tile/Dialect/Tile/TileInterfaces.cpp.inc"
