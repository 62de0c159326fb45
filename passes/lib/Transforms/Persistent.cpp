//===- Persistent.cpp - blocks that loop over a kernel's tiles ------------===//
//
// A persistent kernel launches only as many blocks as the device holds at
// once, and each block walks the output tiles of the original grid: tile t
// = blockIdx.x, blockIdx.x + gridDim.x, ..., or with the kernel's
// `persistent(chunk = N)` clause N consecutive tiles at a time (where the
// grid has more tiles than blocks), so that a kernel can pair tiles whose
// work adds up to the same in every pair. The per-tile fixed cost (the
// pipeline's fill, the epilogue) then overlaps with the neighbouring
// tiles' work: a warp-specialized producer warpgroup, or a cp.async
// pipeline's copies ahead, run into the next tile while this one is
// stored (PipelineLoops.cpp). The block
// indices of a tile, and their rasterization, are computed in the kernel,
// so convert-tile-to-gpu only shrinks the grid.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

std::pair<Value, Value> mlir::tile::rasterizeBlockIds(OpBuilder &b,
                                                      Location loc, Value bx,
                                                      Value by, Value gx,
                                                      Value gy, int64_t panel,
                                                      RasterOrder order) {
  // Column order is row order with the roles of x and y exchanged.
  bool column = order == RasterOrder::column;
  Value major = column ? bx : by, minor = column ? by : bx;
  Value majorSize = column ? gx : gy, minorSize = column ? gy : gx;
  Value panelSize = arith::ConstantIndexOp::create(b, loc, panel);
  Value pid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, major, minorSize), minor);
  Value perGroup = arith::MulIOp::create(b, loc, panelSize, minorSize);
  Value group = arith::DivUIOp::create(b, loc, pid, perGroup);
  Value first = arith::MulIOp::create(b, loc, group, panelSize);
  Value left = arith::SubIOp::create(b, loc, majorSize, first);
  Value rows = arith::MinUIOp::create(b, loc, left, panelSize);
  Value local = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value newMajor = arith::AddIOp::create(
      b, loc, first, arith::RemUIOp::create(b, loc, local, rows));
  Value newMinor = arith::DivUIOp::create(b, loc, local, rows);
  return column ? std::make_pair(newMajor, newMinor)
                : std::make_pair(newMinor, newMajor);
}

scf::ForOp mlir::tile::getEnclosingTileLoop(Operation *op) {
  auto loop = dyn_cast_or_null<scf::ForOp>(op->getParentOp());
  return loop && loop->hasAttr(kTilesAttr) ? loop : scf::ForOp();
}

/// The block indices of tile `t` of a grid of extents `grid` (x fastest,
/// the order in which the hardware numbers a grid's blocks).
static SmallVector<Value> tileBlockIds(OpBuilder &b, Location loc, Value t,
                                       ValueRange grid) {
  SmallVector<Value> ids;
  Value rest = t;
  for (auto [d, extent] : llvm::enumerate(grid)) {
    if (d + 1 == grid.size()) {
      ids.push_back(rest);
      break;
    }
    ids.push_back(arith::RemUIOp::create(b, loc, rest, extent));
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  return ids;
}

/// `value`, an extent of the grid of `kernel`, computed in the kernel:
/// its side-effect-free computation (memref sizes, arithmetic) is cloned
/// through `map`, so that the launch receives the memrefs it reads rather
/// than sizes computed on the host. Values it cannot clone are used as
/// they are.
static Value cloneIntoKernel(OpBuilder &b, Value value, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumRegions() || !isMemoryEffectFree(def))
    return value;
  for (Value operand : def->getOperands())
    map.map(operand, cloneIntoKernel(b, operand, map));
  b.clone(*def, map);
  return map.lookup(value);
}

SmallVector<Operation *> mlir::tile::hoistAllocs(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> allocs;
  for (Operation &op : body)
    if (isa<AllocOp>(op))
      allocs.push_back(&op);
  for (Operation *op : llvm::reverse(allocs))
    op->moveBefore(&body, body.begin());
  return allocs;
}

/// The number of tiles block `block` of `blocks` walks when each takes
/// `size` consecutive tiles of `tiles` at a time: the chunks c of the
/// block (c = block, block + blocks, ...) hold `size` tiles each, except
/// that the last may be cut short by the end of the grid.
static Value chunkedTileCount(OpBuilder &b, Location loc, Value tiles,
                              Value block, Value blocks, Value size) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value chunks = arith::CeilDivUIOp::create(b, loc, tiles, size);
  // ceil((chunks - block) / blocks), and 0 where block >= chunks: block <
  // blocks keeps the numerator from wrapping.
  Value owned = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, chunks,
                                arith::SubIOp::create(b, loc, blocks, idx(1))),
          block),
      blocks);
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, owned, idx(0));
  Value lastChunk = arith::AddIOp::create(
      b, loc, block,
      arith::MulIOp::create(
          b, loc, arith::SubIOp::create(b, loc, owned, idx(1)), blocks));
  Value lastEnd = arith::MinUIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::AddIOp::create(b, loc, lastChunk, idx(1)), size),
      tiles);
  // Every owned chunk but the last is full; the last ends at lastEnd.
  Value count = arith::SubIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, owned, size),
                            lastEnd),
      arith::MulIOp::create(
          b, loc, arith::AddIOp::create(b, loc, lastChunk, idx(1)), size));
  return arith::SelectOp::create(b, loc, any, count, idx(0));
}

/// The `s`-th tile of block `block` of `blocks` taking `size` consecutive
/// tiles at a time.
static Value chunkedTile(OpBuilder &b, Location loc, Value s, Value block,
                         Value blocks, Value size) {
  Value round = arith::DivUIOp::create(b, loc, s, size);
  Value chunkIndex = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, round, blocks), block);
  return arith::AddIOp::create(b, loc,
                               arith::MulIOp::create(b, loc, chunkIndex, size),
                               arith::RemUIOp::create(b, loc, s, size));
}

void mlir::tile::makePersistent(KernelOp kernel) {
  if (kernel.hasCluster()) {
    InFlightDiagnostic warning = kernel.emitWarning()
                                 << "not made persistent: its cluster(";
    llvm::interleaveComma(*kernel.getCluster(), warning);
    warning << ") needs a grid of whole clusters, which the resident-block "
               "count need not be";
    return;
  }
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();
  // Allocations are made once per block and reused by every tile.
  SmallVector<Operation *> allocs = hoistAllocs(kernel);
  bool shared = llvm::any_of(allocs, [](Operation *op) {
    return getMemorySpace(cast<AllocOp>(op).getType()) == MemorySpace::Shared;
  });

  OpBuilder b(kernel.getContext());
  if (allocs.empty())
    b.setInsertionPointToStart(&body);
  else
    b.setInsertionPointAfter(allocs.back());
  IRMapping outside;
  SmallVector<Value> grid = llvm::map_to_vector(kernel.getGrid(), [&](Value v) {
    return cloneIntoKernel(b, v, outside);
  });
  Value tiles = grid.front();
  for (Value extent : ArrayRef(grid).drop_front())
    tiles = arith::MulIOp::create(b, loc, tiles, extent);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  int64_t chunk = kernel.getPersistentChunk().value_or(1);
  kernel.removePersistentChunkAttr();
  // Chunks only where some block has more than one tile: a grid of no
  // more tiles than blocks keeps one tile a block rather than leave half
  // the blocks idle.
  Value size;
  if (chunk > 1)
    size = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, tiles, blocks),
        arith::ConstantIndexOp::create(b, loc, chunk),
        arith::ConstantIndexOp::create(b, loc, 1));
  scf::ForOp loop =
      chunk > 1 ? scf::ForOp::create(
                      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                      chunkedTileCount(b, loc, tiles, block, blocks, size),
                      arith::ConstantIndexOp::create(b, loc, 1))
                : scf::ForOp::create(b, loc, block, tiles, blocks);
  loop->setAttr(kTilesAttr, b.getUnitAttr());
  Block *loopBody = loop.getBody();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(loop->getIterator()), body.end())))
    op.moveBefore(loopBody->getTerminator());

  b.setInsertionPointToStart(loopBody);
  Value tile = loop.getInductionVar();
  if (chunk > 1)
    tile = chunkedTile(b, loc, tile, block, blocks, size);
  SmallVector<Value> ids = tileBlockIds(b, loc, tile, grid);
  std::optional<uint64_t> panel = kernel.getRasterizePanel();
  if (panel && *panel > 1) {
    // As convert-tile-to-gpu remaps a launch's block indices, with y = 0
    // in a grid of one row where the grid has no y.
    Value by =
        ids.size() > 1 ? ids[1] : arith::ConstantIndexOp::create(b, loc, 0);
    Value gy =
        grid.size() > 1 ? grid[1] : arith::ConstantIndexOp::create(b, loc, 1);
    auto [x, y] = rasterizeBlockIds(
        b, loc, ids[0], by, grid[0], gy, *panel,
        kernel.getRasterizeOrder().value_or(RasterOrder::row));
    ids[0] = x;
    if (ids.size() > 1)
      ids[1] = y;
  }
  kernel.removeRasterizePanelAttr();
  kernel.removeRasterizeOrderAttr();
  for (auto [arg, id] : llvm::zip(kernel.getBlockIds(), ids))
    arg.replaceAllUsesWith(id);
  // The next tile's writes to shared memory (its pipeline's asynchronous
  // copies, which barrier placement leaves to the pipeline) must not
  // overtake this tile's last reads.
  if (shared) {
    b.setInsertionPoint(loopBody->getTerminator());
    gpu::BarrierOp::create(b, loc);
  }
  kernel->setAttr(kPersistentAttr, b.getUnitAttr());
}
