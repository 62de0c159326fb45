//===- InitTile.h - register tile and what its kernels use ------*- C++ -*-===//
//
// One place that registers the tile dialect, the upstream dialects a tile
// kernel uses, their interface extensions, and the tile passes. tile-opt,
// the mlir-opt plugin and the C API all call these.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INITTILE_H
#define TILE_INITTILE_H

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
namespace tile {

/// Registers the tile dialect alone.
void registerTileDialect(DialectRegistry &registry);

/// Registers the tile dialect and the upstream dialects tile kernels use
/// (func, arith, math, memref, scf, cf, vector, gpu, nvgpu, nvvm, amdgpu,
/// rocdl, llvm) with the interface extensions their lowering needs.
void registerKernelDialects(DialectRegistry &registry);

/// Attaches TileOpInterface, the compiler's view of each tile operator
/// (layout inference, lowering, accesses), to the tile dialect's
/// operators. The tile passes add it themselves; callers of the C++ entry
/// points (inferLayouts(), lowerKernel()) on a context of their own add it
/// with this.
void registerTileOpModels(DialectRegistry &registry);

/// Registers every tile pass and pipeline with the global pass registry.
void registerAllTilePasses();

/// Reports, through `mgr`, text in its main buffer that the upstream parser
/// of this LLVM release crashes on instead of rejecting: a dense array of
/// `index` elements (`array<index: 4>`), whose element width it asks of a
/// type that has none. Returns true if it reported any. The tools run it
/// before parsing so that such input ends in a located error.
bool reportParserTraps(const llvm::SourceMgr &mgr);

} // namespace tile
} // namespace mlir

#endif // TILE_INITTILE_H
