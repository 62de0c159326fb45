//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//
//
// Declares the tile dialect class (generated from TileDialect.td).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEDIALECT_H
#define TILE_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"
// The typed helpers of the dialect's discardable attributes name them.
#include "tile/Dialect/Tile/TileAttrs.h"

#include "tile/Dialect/Tile/TileOpsDialect.h.inc"

#endif // TILE_DIALECT_TILE_TILEDIALECT_H
