//===- StagedStore.cpp - fragment-to-global copies through shared memory -===//
//
// The consumers of a warp-specialized kernel store whole fragments to 2-d
// global tensors through swizzled shared staging buffers instead of from
// registers: with bulk tensor copies (TMA, through a tensor map of the
// destination), or with their own 16-byte stores of each row's aligned
// body, which need no tensor map and take rows of any length and address.
//
//===----------------------------------------------------------------------===//

#include "Lowering/LoweringContext.h"
#include "Ops/OpModels.h"
#include "tile/Transforms/Lowering.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/SharedMemory.h"

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

/// Makes `b` insert under `tid == 0`: the one thread that issues the
/// bulk copies and waits for them.
static void insertInFirstThread(OpBuilder &b, Location loc, Value tid) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      cst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

namespace {
/// What both epilogues through shared memory plan alike: the copy's tile
/// cut into column chunks of one 128-byte row each, every vector of the
/// fragment's loop in one chunk on every thread.
struct StagedStore {
  /// The tile loop of a persistent kernel the copy sits in, or null.
  scf::ForOp tiles;
  scf::IfOp consumers;
  Type element;
  int64_t bytes, rows, cols, chunkCols, chunks, v;
  LoopMap lm;
  /// Per register: the chunk its vector belongs to (-1 inside a vector),
  /// and the fragment register it reads.
  SmallVector<int64_t> chunkOf, srcRegs;
};
} // namespace

/// Plans `op` as a copy of a whole fragment into a 2-d row-major global
/// tensor from outside the kernel, directly in the consumers' code of a
/// warp-specialized kernel (or in their tile loop); std::nullopt where it
/// is not one.
static std::optional<LogicalResult>
planStagedStore(LoweringContext &kl, CopyOp op, StagedStore &plan) {
  KernelOp kernel = kl.kernel;
  plan.tiles = getEnclosingTileLoop(op);
  Operation *outside =
      plan.tiles ? plan.tiles.getOperation() : op.getOperation();
  plan.consumers = dyn_cast<scf::IfOp>(outside->getParentOp());
  if (!warpSpecializes(kl.options.target) || !plan.consumers ||
      !plan.consumers->hasAttr(kConsumerAttr) ||
      outside->getBlock() != plan.consumers.thenBlock())
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
  plan.element = dstType.getElementType();
  if (!plan.element.isF16() && !plan.element.isBF16() && !plan.element.isF32())
    return std::nullopt;
  SmallVector<int64_t> tile = op.getTileShape();
  if (tile.size() != 2)
    return std::nullopt;
  plan.bytes = elementBytes(plan.element);
  plan.chunkCols = kStoreSwizzleBytes / plan.bytes;
  plan.rows = tile[0];
  plan.cols = tile[1];
  plan.chunks = plan.cols / plan.chunkCols;
  if (plan.rows % 8 != 0 || plan.rows > 256 || plan.cols % plan.chunkCols != 0)
    return std::nullopt;

  FailureOr<LoopMap> lm = kl.getLoopMap(op, tile, src);
  if (failed(lm))
    return failure();
  if (lm->perThread)
    return std::nullopt;
  plan.lm = *lm;
  int64_t maxWidth = 16 / plan.bytes;
  if (std::optional<uint64_t> w = op.getCoalescedWidth())
    maxWidth = std::min<int64_t>(maxWidth, *w);
  plan.v = pickVectorWidth(plan.lm, maxWidth, {});
  // Each vector of the loop must belong to one chunk on every thread, so
  // that a chunk is written by straight-line code.
  const Fragment &frag = kl.fragments[src].first;
  plan.chunkOf.assign(plan.lm.numRegs, -1);
  plan.srcRegs.assign(plan.lm.numRegs, -1);
  for (int64_t r = 0; r < plan.lm.numRegs; ++r) {
    bool notOwned = false;
    plan.srcRegs[r] = loopRegister(
        plan.lm, r, frag,
        [](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); }, notOwned);
    if (plan.srcRegs[r] < 0)
      return std::nullopt;
    if (r % plan.v != 0)
      continue;
    plan.chunkOf[r] = plan.lm.coords(0, r)[1] / plan.chunkCols;
    for (int64_t t = 1; t < plan.lm.activeThreads; ++t)
      if (plan.lm.coords(t, r)[1] / plan.chunkCols != plan.chunkOf[r])
        return std::nullopt;
  }
  return success();
}

/// How many staging buffers of `bufferBytes` the chunks go through: two
/// (alternating) where both fit beside the rest of the kernel's shared
/// memory, else one, else none; each at least `minBytes`.
static int64_t pickStagingBuffers(const LoweringContext &kl,
                                  const StagedStore &plan, int64_t bufferBytes,
                                  int64_t minBytes) {
  int64_t used = llvm::alignTo(
      planSharedMemory(kl.kernel, kDefaultSharedAlignment).totalBytes, 1024);
  for (int64_t n : {std::min<int64_t>(2, plan.chunks), int64_t(1)})
    if (n * bufferBytes >= minBytes &&
        used + n * bufferBytes <= kl.options.target.getSharedPerBlock())
      return n;
  return 0;
}

/// Allocates `buffers` staging buffers of rows x `rowElems` beside the
/// kernel's other shared allocations.
static Value allocStaging(const StagedStore &plan, int64_t buffers,
                          int64_t rowElems, Location loc) {
  OpBuilder sb(plan.consumers);
  auto shared =
      gpu::AddressSpaceAttr::get(sb.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({buffers, plan.rows, rowElems}, plan.element,
                              AffineMap(), shared);
  return AllocOp::create(sb, loc, type, Attribute());
}

/// Writes the consumers' elements of chunk `j` of `op`'s fragment,
/// converted, into a staging buffer at the indices `indexOf(row, column in
/// the chunk)` gives: each vector whole at its first element's where
/// `wholeVectors` (the indices keep it contiguous and aligned), else each
/// element at its own.
static void
writeChunk(LoweringContext &kl, CopyOp op, const StagedStore &plan,
           OpBuilder &b, Location loc, int64_t j, bool wholeVectors,
           function_ref<SmallVector<Value>(OpBuilder &, Value, Value)> indexOf,
           Value staging) {
  Value regs = kl.fragments[op.getSrc()].second;
  Type srcElem = op.getSrc().getType().getElementType();
  int64_t v = plan.v;
  emitPerWrittenRegister(
      b, loc, plan.lm, kl.tid, kl.threads,
      [&](int64_t r) { return plan.chunkOf[r] == j; },
      [&](OpBuilder &b, int64_t r, ArrayRef<Value> coords) {
        SmallVector<Value> elems;
        for (int64_t k = 0; k < v; ++k)
          elems.push_back(memref::LoadOp::create(
              b, loc, regs, ValueRange{cst(b, loc, plan.srcRegs[r + k])}));
        Value col = b.createOrFold<arith::SubIOp>(
            loc, coords[1], cst(b, loc, j * plan.chunkCols));
        if (v > 1 && wholeVectors) {
          Value value =
              convert(b, loc,
                      vector::FromElementsOp::create(
                          b, loc, VectorType::get({v}, srcElem), elems),
                      plan.element);
          SmallVector<Value> idx = indexOf(b, coords[0], col);
          vector::StoreOp::create(b, loc, value, staging, idx,
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(v * plan.bytes));
          return;
        }
        for (int64_t k = 0; k < v; ++k) {
          Value value = convert(b, loc, elems[k], plan.element);
          SmallVector<Value> idx =
              indexOf(b, coords[0],
                      b.createOrFold<arith::AddIOp>(loc, col, cst(b, loc, k)));
          memref::StoreOp::create(b, loc, value, staging, idx);
        }
      });
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
static std::optional<LogicalResult>
lowerTmaStore(LoweringContext &kl, CopyOp op, const StagedStore &plan) {
  KernelOp kernel = kl.kernel;
  int64_t rows = plan.rows, chunkCols = plan.chunkCols, chunks = plan.chunks;
  Type element = plan.element;
  // The staging index below, (row, c ^ ((row mod 8) * unitCols)), must be
  // where the 128-byte swizzle the TMA loads are planned with (and TMA
  // applies to a box of 128-byte rows) puts element (row, c).
  int64_t unitCols = 16 / plan.bytes;
  std::optional<Layout> swizzle =
      Layout::swizzled(kernel.getContext(), {rows, chunkCols},
                       kStoreSwizzleBytes, plan.bytes * 8);
  if (!swizzle)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < chunkCols; ++c)
      if (swizzle->apply({r, c})[0] !=
          r * chunkCols + (c ^ ((r % 8) * unitCols)))
        return std::nullopt;
  int64_t buffers =
      pickStagingBuffers(kl, plan, rows * kStoreSwizzleBytes, kStagingMinBytes);
  if (!buffers)
    return std::nullopt;

  MLIRContext *ctx = kernel.getContext();
  Location loc = op.getLoc();
  Value dst = op.getDst();
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
  Value staging = allocStaging(plan, buffers, chunkCols, loc);

  OpBuilder b(op);
  Value tid = kl.tid;
  Value desc = UnrealizedConversionCastOp::create(
                   b, loc, LLVM::LLVMPointerType::get(ctx), tensorMap)
                   .getResult(0);
  Value row0 =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), op.getDstIndices()[0]);
  Value col0 = op.getDstIndices()[1];
  for (int64_t j = 0; j < chunks; ++j) {
    int64_t p = j % buffers;
    // Stores committed after the last one that read buffer p: those of
    // this tile's chunks since then, or, for its first use in a tile of a
    // persistent kernel, the earlier tile's chunks after its last use of p
    // and this tile's chunks before j.
    std::optional<int64_t> after;
    if (j >= buffers)
      after = buffers - 1;
    else if (plan.tiles)
      after = (chunks - 1 - (chunks - 1 - p) / buffers * buffers - p) + j;
    if (after) {
      {
        OpBuilder::InsertionGuard guard(b);
        insertInFirstThread(b, loc, tid);
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, *after, b.getUnitAttr());
      }
      gpu::BarrierOp::create(b, loc);
    }
    // The 128-byte swizzle: 16-byte unit u of row r sits at unit
    // u ^ (r mod 8) of the row.
    writeChunk(
        kl, op, plan, b, loc, j, /*wholeVectors=*/true,
        [&](OpBuilder &b, Value row, Value col) -> SmallVector<Value> {
          Value unitXor = b.createOrFold<arith::MulIOp>(
              loc, b.createOrFold<arith::AndIOp>(loc, row, cst(b, loc, 7)),
              cst(b, loc, unitCols));
          return {cst(b, loc, p), row,
                  b.createOrFold<arith::XOrIOp>(loc, col, unitXor)};
        },
        staging);
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
    if (plan.tiles)
      b.setInsertionPointAfter(plan.tiles);
    insertInFirstThread(b, loc, tid);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
  }
  op.erase();
  return success();
}

/// Lowers `op` as lowerTmaStore() does, but the consumers' threads store
/// each chunk themselves, so the destination needs no tensor map and its
/// rows may have any length and address. Row r of a chunk is staged
/// rotated by d(r), the elements its global start lies past a 16-byte
/// boundary (0 on aligned rows): column c at position (c + d(r)) mod
/// chunkCols, so that 16-byte unit u > 0 of the staged row is a 16-byte
/// unit of the global row (columns 8u - d(r) ... for halves), and unit 0
/// holds the row's ends: its head (columns 0 ... 7 - d(r)) and tail
/// (chunkCols - d(r) ...). Units are swizzled as the TMA staging is (unit
/// u of row r at u ^ (r mod 8)), which keeps the writes of the rows a warp
/// holds apart in the banks. Per chunk j (buffer p = j mod buffers):
///
///   consumer barrier where the last reader of buffer p was the chunk
///                    just before (one buffer, or an odd number of chunks
///                    in a tile loop)
///   every thread:    writes its elements of the chunk, converted and one
///                    by one, at their rotated positions
///   consumer barrier
///   every thread:    units i = tid, tid + threads, ... (row i / 8, unit
///                    i mod 8): one 16-byte load and store where the unit
///                    lies inside the tensor (unit 0 only on aligned rows),
///                    else element by element under masks
///   every thread:    elements i = tid, tid + threads, ... of the rows'
///                    unit 0 (row i / unit, element i mod unit) on rows not
///                    aligned: each to its head or tail column
///
/// Returns std::nullopt, with nothing built, where this does not apply.
static std::optional<LogicalResult>
lowerThreadStore(LoweringContext &kl, CopyOp op, const StagedStore &plan) {
  int64_t rows = plan.rows, chunkCols = plan.chunkCols, chunks = plan.chunks;
  int64_t unitCols = 16 / plan.bytes, units = chunkCols / unitCols;
  int64_t buffers =
      pickStagingBuffers(kl, plan, rows * kStoreSwizzleBytes, /*minBytes=*/0);
  if (!buffers)
    return std::nullopt;
  Location loc = op.getLoc();
  Value dst = op.getDst(), tid = kl.tid;
  Value staging = allocStaging(plan, buffers, chunkCols, loc);

  OpBuilder b(op);
  Value row0 = op.getDstIndices()[0], col0 = op.getDstIndices()[1];
  // The byte address of (row0 + r, col0 + j * chunkCols), mod 16, is that
  // of (row0, col0) plus r row strides (a chunk is 128 bytes); d(r) counts
  // it in elements.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, dst);
  Value rowStride = meta.getStrides()[0];
  Value numRows = meta.getSizes()[0], numCols = meta.getSizes()[1];
  Value bytes = cst(b, loc, plan.bytes);
  Value base = arith::AddIOp::create(
      b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dst),
      arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, meta.getOffset(),
              arith::AddIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, row0, rowStride),
                  col0)),
          bytes));
  auto shiftOf = [&](OpBuilder &b, Value row) -> Value {
    Value addr = b.createOrFold<arith::AddIOp>(
        loc, base,
        b.createOrFold<arith::MulIOp>(
            loc, b.createOrFold<arith::MulIOp>(loc, row, rowStride), bytes));
    return b.createOrFold<arith::DivUIOp>(
        loc, b.createOrFold<arith::AndIOp>(loc, addr, cst(b, loc, 15)), bytes);
  };
  // Position `pos` of staged row `row`, swizzled.
  auto swizzled = [&](OpBuilder &b, Value row, Value pos) -> Value {
    Value unitXor = b.createOrFold<arith::MulIOp>(
        loc, b.createOrFold<arith::AndIOp>(loc, row, cst(b, loc, 7)),
        cst(b, loc, unitCols));
    return b.createOrFold<arith::XOrIOp>(loc, pos, unitXor);
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) -> Value {
    return b.createOrFold<arith::CmpIOp>(loc, pred, x, y);
  };
  auto both = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::AndIOp>(loc, x, y);
  };

  auto unitType = VectorType::get({unitCols}, plan.element);
  for (int64_t j = 0; j < chunks; ++j) {
    int64_t p = j % buffers;
    // The chunks since the last that read buffer p, counted across the
    // tiles of a persistent kernel: one means no barrier has followed
    // its reads yet.
    std::optional<int64_t> distance;
    if (j >= buffers)
      distance = buffers;
    else if (plan.tiles)
      distance = chunks - (p + (chunks - 1 - p) / buffers * buffers) + j;
    if (distance && *distance < 2)
      gpu::BarrierOp::create(b, loc);
    writeChunk(
        kl, op, plan, b, loc, j, /*wholeVectors=*/false,
        [&](OpBuilder &b, Value row, Value col) -> SmallVector<Value> {
          Value pos = b.createOrFold<arith::AndIOp>(
              loc, b.createOrFold<arith::AddIOp>(loc, col, shiftOf(b, row)),
              cst(b, loc, chunkCols - 1));
          return {cst(b, loc, p), row, swizzled(b, row, pos)};
        },
        staging);
    emitSharedBarrier(b, loc, /*asyncProxy=*/false);

    Value chunkCol =
        arith::AddIOp::create(b, loc, col0, cst(b, loc, j * chunkCols));
    // First the units of the rows (`per` = units a row), then the
    // elements of their unit 0 (`per` = its elements).
    for (bool ends : {false, true}) {
      int64_t per = ends ? unitCols : units, total = rows * per;
      int64_t rounds = llvm::divideCeil(total, kl.threads);
      for (int64_t k = 0; k < rounds; ++k) {
        OpBuilder::InsertionGuard guard(b);
        Value i = b.createOrFold<arith::AddIOp>(loc, tid,
                                                cst(b, loc, k * kl.threads));
        Value row = b.createOrFold<arith::DivUIOp>(loc, i, cst(b, loc, per));
        Value slot = b.createOrFold<arith::RemUIOp>(loc, i, cst(b, loc, per));
        Value globalRow = b.createOrFold<arith::AddIOp>(loc, row0, row);
        Value shift = shiftOf(b, row);
        Value aligned = cmp(arith::CmpIPredicate::eq, shift, cst(b, loc, 0));
        Value live = cmp(arith::CmpIPredicate::ult, globalRow, numRows);
        if (total % kl.threads != 0 && k + 1 == rounds)
          live =
              both(live, cmp(arith::CmpIPredicate::ult, i, cst(b, loc, total)));
        if (ends) {
          // Element `slot` of unit 0 of a row not aligned: that position,
          // column (slot - d(row)) mod chunkCols.
          Value c = b.createOrFold<arith::AndIOp>(
              loc,
              b.createOrFold<arith::SubIOp>(
                  loc,
                  b.createOrFold<arith::AddIOp>(loc, slot,
                                                cst(b, loc, chunkCols)),
                  shift),
              cst(b, loc, chunkCols - 1));
          Value g = b.createOrFold<arith::AddIOp>(loc, chunkCol, c);
          Value ok = both(
              both(live, cmp(arith::CmpIPredicate::ne, shift, cst(b, loc, 0))),
              cmp(arith::CmpIPredicate::ult, g, numCols));
          auto ifOk = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
          b.setInsertionPoint(ifOk.thenBlock()->getTerminator());
          Value x = memref::LoadOp::create(
              b, loc, staging,
              ValueRange{cst(b, loc, p), row, swizzled(b, row, slot)});
          memref::StoreOp::create(b, loc, x, dst, ValueRange{globalRow, g});
          continue;
        }
        // Unit `slot` (> 0, or 0 on an aligned row): columns unitCols *
        // slot - d(row) ... of the chunk.
        Value unit = slot;
        Value first = b.createOrFold<arith::SubIOp>(
            loc,
            b.createOrFold<arith::MulIOp>(loc, unit, cst(b, loc, unitCols)),
            shift);
        Value globalCol = b.createOrFold<arith::AddIOp>(loc, chunkCol, first);
        Value body = b.createOrFold<arith::OrIOp>(
            loc, cmp(arith::CmpIPredicate::ne, unit, cst(b, loc, 0)), aligned);
        live = both(live, body);
        Value whole = both(live, cmp(arith::CmpIPredicate::ule,
                                     b.createOrFold<arith::AddIOp>(
                                         loc, globalCol, cst(b, loc, unitCols)),
                                     numCols));
        Value at = swizzled(
            b, row,
            b.createOrFold<arith::MulIOp>(loc, unit, cst(b, loc, unitCols)));
        auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(ifWhole.thenBlock()->getTerminator());
          Value value = vector::LoadOp::create(
              b, loc, unitType, staging, ValueRange{cst(b, loc, p), row, at},
              /*nontemporal=*/false, llvm::MaybeAlign(16));
          vector::StoreOp::create(b, loc, value, dst,
                                  ValueRange{globalRow, globalCol},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
        }
        // A unit the tensor's last column cuts: its elements left of it.
        b.setInsertionPoint(ifWhole.elseBlock()->getTerminator());
        auto ifCut = scf::IfOp::create(b, loc, live, /*withElse=*/false);
        b.setInsertionPoint(ifCut.thenBlock()->getTerminator());
        auto edge = scf::ForOp::create(b, loc, cst(b, loc, 0),
                                       cst(b, loc, unitCols), cst(b, loc, 1));
        b.setInsertionPoint(edge.getBody()->getTerminator());
        Value x = edge.getInductionVar();
        Value g = arith::AddIOp::create(b, loc, globalCol, x);
        auto ifIn = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::ult, g, numCols),
            /*withElse=*/false);
        b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
        Value v = memref::LoadOp::create(
            b, loc, staging,
            ValueRange{cst(b, loc, p), row,
                       arith::AddIOp::create(b, loc, at, x)});
        memref::StoreOp::create(b, loc, v, dst, ValueRange{globalRow, g});
      }
    }
  }
  op.erase();
  return success();
}

std::optional<LogicalResult> mlir::tile::lowerStagedStore(LoweringContext &kl,
                                                          CopyOp op) {
  const LoweringOptions &options = kl.options;
  if (!options.tmaStore && !options.threadStore)
    return std::nullopt;
  StagedStore plan;
  std::optional<LogicalResult> planned = planStagedStore(kl, op, plan);
  if (!planned || failed(*planned))
    return planned;
  return options.threadStore ? lowerThreadStore(kl, op, plan)
                             : lowerTmaStore(kl, op, plan);
}
