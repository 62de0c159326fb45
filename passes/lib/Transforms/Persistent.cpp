//===- Persistent.cpp - blocks that loop over a kernel's tiles ------------===//
//
// A persistent kernel launches only as many blocks as the device holds at
// once, and each block walks the output tiles of the original grid: tile t
// = blockIdx.x, blockIdx.x + gridDim.x, ... The per-tile fixed cost (the
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
  Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value stride = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, first, tiles, stride);
  loop->setAttr(kTilesAttr, b.getUnitAttr());
  Block *loopBody = loop.getBody();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(loop->getIterator()), body.end())))
    op.moveBefore(loopBody->getTerminator());

  b.setInsertionPointToStart(loopBody);
  SmallVector<Value> ids = tileBlockIds(b, loc, loop.getInductionVar(), grid);
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
