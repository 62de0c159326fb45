//===- TmaStore.cpp - fragment-to-global copies as TMA stores ------------===//
//
// On targets with TMA, the consumers of a warp-specialized kernel store
// whole fragments to 2-d global tensors through swizzled shared staging
// buffers with bulk tensor copies instead of from registers.
//
//===----------------------------------------------------------------------===//

#include "Lowering/LoweringContext.h"
#include "Ops/OpModels.h"
#include "tile/Transforms/SharedMemory.h"
#include "tile/Transforms/Lowering.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

//===----------------------------------------------------------------------===//
// Epilogue TMA stores
//===----------------------------------------------------------------------===//

/// TMA boxes of swizzled shared memory span one 128-byte swizzle row of
/// columns: 64 halves or 32 floats.
static constexpr int64_t kStoreSwizzleBytes = 128;
/// Staging buffers at least this large are 1024-byte aligned by
/// planSharedMemory(), which the 128-byte swizzle pattern requires.
static constexpr int64_t kStagingMinBytes = 8192;
/// The shared-alignment convert-tile-to-gpu uses by default.
static constexpr int64_t kDefaultSharedAlignment = 16;

/// bulk copies and waits for them.
static void insertInFirstThread(OpBuilder &b, Location loc, Value tid) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      cst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// Lowers `op`, a copy of a whole fragment into a 2-d global tensor run by
/// the consumers of a warp-specialized kernel, to TMA stores: the tile goes
/// out in column chunks of one 128-byte swizzle row (rows x chunkCols
/// boxes), each staged in a swizzled shared buffer. Per chunk j (buffer
/// p = j mod buffers):
///
///   if j >= buffers: thread 0 waits until at most buffers - 1 bulk groups
///                    still read shared memory; consumer barrier
///   every thread:    writes its elements of the chunk, converted, to
///                    staging[p][row][c ^ ((row mod 8) * 16 / elementBytes)]
///                    (c = column - j * chunkCols); fence.proxy.async
///   consumer barrier
///   thread 0:        TMA store of staging[p] to (row m, column n + j *
///                    chunkCols); commit the bulk group
///
/// and at the end thread 0 waits for every bulk group. In the tile loop of
/// a persistent kernel the chunks of successive tiles go through the same
/// buffers: chunk j < buffers of a tile also waits for the earlier tile's
/// last store from its buffer, and the final wait follows the tile loop.
/// TMA skips the parts of a box outside the tensor, so ragged edges need
/// no masks. Returns std::nullopt, with nothing built, where this does not
/// apply (the caller then stores from registers).
/// One function: the staging plan (chunks, buffers, swizzle) and the
/// emitted stores share the loop map and the chunk of every register.
std::optional<LogicalResult> mlir::tile::lowerTmaStore(LoweringContext &kl,
                                                       CopyOp op) {
  KernelOp kernel = kl.kernel;
  const LoweringOptions &options = kl.options;
  // Directly in the consumers' code, or in their tile loop.
  scf::ForOp tiles = getEnclosingTileLoop(op);
  Operation *outside = tiles ? tiles.getOperation() : op.getOperation();
  auto consumers = dyn_cast<scf::IfOp>(outside->getParentOp());
  if (!options.tmaStore || !warpSpecializes(options.target) || !consumers ||
      !consumers->hasAttr(kConsumerAttr) ||
      outside->getBlock() != consumers.thenBlock())
    return std::nullopt;
  Value src = op.getSrc(), dst = op.getDst();
  MemRefType dstType = op.getDst().getType();
  if (getMemorySpace(op.getSrc().getType()) != MemorySpace::Fragment ||
      !op.getSrcIndices().empty() || !kl.fragments.count(src) ||
      getMemorySpace(dstType) != MemorySpace::Global ||
      dstType.getRank() != 2 || !dstType.getLayout().isIdentity() ||
      op.getDstIndices().size() != 2 ||
      kernel.getBody().isAncestor(dst.getParentRegion()))
    return std::nullopt;
  Type element = dstType.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return std::nullopt;
  SmallVector<int64_t> tile = op.getTileShape();
  if (tile.size() != 2)
    return std::nullopt;
  int64_t bytes = elementBytes(element);
  int64_t chunkCols = kStoreSwizzleBytes / bytes;
  int64_t rows = tile[0], cols = tile[1], chunks = cols / chunkCols;
  if (rows % 8 != 0 || rows > 256 || cols % chunkCols != 0)
    return std::nullopt;
  // The staging index below, (row, c ^ ((row mod 8) * unitCols)), must be
  // where the 128-byte swizzle the TMA loads are planned with (and TMA
  // applies to a box of 128-byte rows) puts element (row, c).
  int64_t unitCols = 16 / bytes;
  std::optional<Layout> swizzle = Layout::swizzled(
      kernel.getContext(), {rows, chunkCols}, kStoreSwizzleBytes, bytes * 8);
  if (!swizzle)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < chunkCols; ++c)
      if (swizzle->apply({r, c})[0] !=
          r * chunkCols + (c ^ ((r % 8) * unitCols)))
        return std::nullopt;

  FailureOr<LoopMap> lm = kl.getLoopMap(op, tile, src);
  if (failed(lm))
    return failure();
  if (lm->perThread)
    return std::nullopt;
  int64_t maxWidth = 16 / bytes;
  if (std::optional<uint64_t> w = op.getCoalescedWidth())
    maxWidth = std::min<int64_t>(maxWidth, *w);
  int64_t v = pickVectorWidth(*lm, maxWidth, {});
  // Each vector of the loop must belong to one chunk on every thread, so
  // that a chunk is written by straight-line code.
  const Fragment &frag = kl.fragments[src].first;
  SmallVector<int64_t> chunkOf(lm->numRegs, -1), srcRegs(lm->numRegs, -1);
  for (int64_t r = 0; r < lm->numRegs; ++r) {
    bool notOwned = false;
    srcRegs[r] = loopRegister(
        *lm, r, frag,
        [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); }, notOwned);
    if (srcRegs[r] < 0)
      return std::nullopt;
    if (r % v != 0)
      continue;
    chunkOf[r] = lm->coords(0, r)[1] / chunkCols;
    for (int64_t t = 1; t < lm->activeThreads; ++t)
      if (lm->coords(t, r)[1] / chunkCols != chunkOf[r])
        return std::nullopt;
  }

  // Double-buffer the chunks where both buffers fit beside the rest of
  // the kernel's shared memory, else one buffer, else no TMA store.
  int64_t used = llvm::alignTo(
      planSharedMemory(kernel, kDefaultSharedAlignment).totalBytes, 1024);
  int64_t bufferBytes = rows * kStoreSwizzleBytes;
  int64_t buffers = 0;
  for (int64_t n : {std::min<int64_t>(2, chunks), int64_t(1)})
    if (n * bufferBytes >= kStagingMinBytes &&
        used + n * bufferBytes <= options.target.getSharedPerBlock()) {
      buffers = n;
      break;
    }
  if (!buffers)
    return std::nullopt;

  MLIRContext *ctx = kernel.getContext();
  Location loc = op.getLoc();
  auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);

  // Host side: the tensor map of the destination, one box per chunk.
  Value tensorMap;
  {
    OpBuilder hb(kernel);
    Value unranked = memref::CastOp::create(
        hb, loc, UnrankedMemRefType::get(element, 0), dst);
    auto box = MemRefType::get({rows, chunkCols}, element, AffineMap(), shared);
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    tensorMap = nvgpu::TmaCreateDescriptorOp::create(
        hb, loc, type, unranked,
        ValueRange{cst(hb, loc, rows), cst(hb, loc, chunkCols)});
  }

  // The staging buffers, beside the kernel's other shared allocations.
  Value staging;
  {
    OpBuilder sb(consumers);
    auto type = MemRefType::get({buffers, rows, chunkCols}, element,
                                AffineMap(), shared);
    staging = AllocOp::create(sb, loc, type, Attribute());
  }

  OpBuilder b(op);
  Value tid = kl.tid;
  Value desc = UnrealizedConversionCastOp::create(
                   b, loc, LLVM::LLVMPointerType::get(ctx), tensorMap)
                   .getResult(0);
  Value row0 =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), op.getDstIndices()[0]);
  Value col0 = op.getDstIndices()[1];
  Value regs = kl.fragments[src].second;
  Type srcElem = op.getSrc().getType().getElementType();
  for (int64_t j = 0; j < chunks; ++j) {
    int64_t p = j % buffers;
    // Stores committed after the last one that read buffer p: those of
    // this tile's chunks since then, or, for its first use in a tile of a
    // persistent kernel, the earlier tile's chunks after its last use of p
    // and this tile's chunks before j.
    std::optional<int64_t> after;
    if (j >= buffers)
      after = buffers - 1;
    else if (tiles)
      after = (chunks - 1 - (chunks - 1 - p) / buffers * buffers - p) + j;
    if (after) {
      {
        OpBuilder::InsertionGuard guard(b);
        insertInFirstThread(b, loc, tid);
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, *after, b.getUnitAttr());
      }
      gpu::BarrierOp::create(b, loc);
    }
    emitPerRegister(b, loc, *lm, tid, kl.threads, [&](OpBuilder &b, int64_t r) {
      if (chunkOf[r] != j)
        return;
      OpBuilder::InsertionGuard guard(b);
      Value replica;
      SmallVector<Value> coords = emitCoords(b, loc, *lm, tid, r, &replica);
      guardFirstReplica(b, loc, replica);
      SmallVector<Value> elems;
      for (int64_t k = 0; k < v; ++k)
        elems.push_back(memref::LoadOp::create(
            b, loc, regs, ValueRange{cst(b, loc, srcRegs[r + k])}));
      Value value = v > 1 ? vector::FromElementsOp::create(
                                b, loc, VectorType::get({v}, srcElem), elems)
                                .getResult()
                          : elems[0];
      value = convert(b, loc, value, element);
      // The 128-byte swizzle: 16-byte unit u of row r sits at unit
      // u ^ (r mod 8) of the row.
      Value row = coords[0];
      Value col = b.createOrFold<arith::SubIOp>(loc, coords[1],
                                                cst(b, loc, j * chunkCols));
      Value unitXor = b.createOrFold<arith::MulIOp>(
          loc, b.createOrFold<arith::AndIOp>(loc, row, cst(b, loc, 7)),
          cst(b, loc, unitCols));
      Value swizzled = b.createOrFold<arith::XOrIOp>(loc, col, unitXor);
      SmallVector<Value> idx = {cst(b, loc, p), row, swizzled};
      if (v > 1)
        vector::StoreOp::create(b, loc, value, staging, idx,
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(v * bytes));
      else
        memref::StoreOp::create(b, loc, value, staging, idx);
    });
    // The TMA engine reads the buffer through the async proxy.
    emitSharedBarrier(b, loc, /*asyncProxy=*/true);
    OpBuilder::InsertionGuard guard(b);
    insertInFirstThread(b, loc, tid);
    Value from = sharedPointer(b, loc, staging,
                               cst(b, loc, p * rows * kStoreSwizzleBytes));
    Value col = arith::AddIOp::create(b, loc, col0, cst(b, loc, j * chunkCols));
    SmallVector<Value> box = {
        arith::IndexCastOp::create(b, loc, b.getI32Type(), col), row0};
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, loc, desc, from, box, Value(),
        NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE), Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
  {
    // Every tile's stores go on while the next tile computes; the block
    // waits for them once, when it has no tile left.
    OpBuilder::InsertionGuard guard(b);
    if (tiles)
      b.setInsertionPointAfter(tiles);
    insertInFirstThread(b, loc, tid);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
  }
  op.erase();
  return success();
}
