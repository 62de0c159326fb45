//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Custom assembly, builders, verifiers and canonicalizations of the tile
// operations. Verifiers name the offending values and shapes so that a user
// sees at once which operand is wrong and what was expected.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Formats a shape as "128x32" ("?" for dynamic extents, "scalar" if empty).
static std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return out;
}

/// Returns the `tile.kernel` whose body holds `op`, looking no further out
/// than the closest isolated-from-above operation (a function nested in a
/// kernel body does not run in the kernel's launch context).
static KernelOp getEnclosingKernel(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(parent))
      return kernel;
    if (parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return nullptr;
  }
  return nullptr;
}

LogicalResult mlir::tile::verifyInKernel(Operation *op) {
  if (!getEnclosingKernel(op))
    return op->emitOpError("expected to be nested in a 'tile.kernel'");
  return success();
}

/// Verifies that `type` lives in a memory space tile operators understand.
static LogicalResult verifySupportedSpace(Operation *op, StringRef role,
                                          MemRefType type) {
  if (getMemorySpace(type) == MemorySpace::Unsupported)
    return op->emitOpError()
           << "unsupported memory space " << type.getMemorySpace() << " for "
           << role << " " << type;
  return success();
}

/// Verifies that `type` is a shared, fragment or local buffer.
static LogicalResult verifyOnChip(Operation *op, StringRef role,
                                  MemRefType type) {
  if (failed(verifySupportedSpace(op, role, type)))
    return failure();
  MemorySpace space = getMemorySpace(type);
  if (!isOnChip(space))
    return op->emitOpError()
           << "expected " << role
           << " to be an on-chip buffer (shared, fragment or local), got "
           << stringifyMemorySpace(space) << " " << type;
  return success();
}

/// Verifies that `type` has a static shape.
static LogicalResult verifyStaticShape(Operation *op, StringRef role,
                                       MemRefType type) {
  if (!type.hasStaticShape())
    return op->emitOpError()
           << "expected " << role << " to have a static shape, got " << type;
  return success();
}

/// Element types tile operators store and move: signless integers, index
/// and floats. Signed and unsigned integers are not lowered (arith, which
/// the lowering emits, takes signless integers only), and tf32 has no
/// storage type in LLVM.
static LogicalResult verifyElementType(Operation *op, StringRef role,
                                       MemRefType type) {
  Type element = type.getElementType();
  if (!isa<FloatType, IntegerType, IndexType>(element))
    return op->emitOpError()
           << "unsupported element type " << element << " for " << role;
  if (auto integer = dyn_cast<IntegerType>(element);
      integer && !integer.isSignless())
    return op->emitOpError()
           << "unsupported element type " << element << " for " << role
           << ": integer element types must be signless (i"
           << integer.getWidth() << ")";
  if (element.isTF32())
    return op->emitOpError()
           << "unsupported element type " << element << " for " << role
           << ": tf32 cannot be stored; use f32 (tile.gemm computes f32 "
              "operands as tf32)";
  return success();
}

/// Verifies that `type`'s elements can be added and compared, as reduce,
/// cumsum and atomic do: integers, or floats of 16 to 64 bits (narrower
/// floats are storage formats without arithmetic).
static LogicalResult verifyArithmeticElementType(Operation *op, StringRef role,
                                                 MemRefType type) {
  Type element = type.getElementType();
  if (isa<FloatType>(element) && !element.isF16() && !element.isBF16() &&
      !element.isF32() && !element.isF64())
    return op->emitOpError()
           << "unsupported element type " << element << " for " << role
           << ": expected an integer or f16, bf16, f32 or f64";
  return success();
}

/// Verifies that `type`'s elements are ones the hardware's atomics update:
/// integers of 8 to 64 bits and f16, bf16, f32 or f64.
static LogicalResult verifyAtomicElementType(Operation *op, StringRef role,
                                             MemRefType type) {
  if (failed(verifyArithmeticElementType(op, role, type)))
    return failure();
  Type element = type.getElementType();
  if (!isa<FloatType>(element) &&
      !llvm::is_contained({8u, 16u, 32u, 64u},
                          element.isIndex() ? 0u
                                            : element.getIntOrFloatBitWidth()))
    return op->emitOpError()
           << "unsupported element type " << element << " for " << role
           << ": atomics update i8, i16, i32, i64, f16, bf16, f32 or f64";
  return success();
}

/// Returns the kernel's thread count, or 0 when `op` is not in a kernel.
static int64_t getKernelThreads(Operation *op) {
  if (KernelOp kernel = getEnclosingKernel(op))
    return kernel.getThreads();
  return 0;
}

/// Verifies a fragment layout used for a tile of rank `rank` inside `op`.
static LogicalResult verifyFragmentLayout(Operation *op, FragmentAttr layout,
                                          ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  if (layout.isMemorySpace())
    return op->emitOpError("expected a fragment layout with a map, got the "
                           "bare memory space #tile.fragment");
  if (!layout.getShape().empty() && layout.getShape() != shape)
    return op->emitOpError()
           << "expected a fragment layout over " << formatShape(shape)
           << ", got one over " << formatShape(layout.getShape());
  if (layout.getMap().getNumDims() != rank)
    return op->emitOpError()
           << "expected a fragment layout over " << rank << " dimensions, got "
           << layout.getMap().getNumDims();
  int64_t threads = getKernelThreads(op);
  if (threads != 0 && layout.getThreads() != threads)
    return op->emitOpError() << "fragment layout is for " << layout.getThreads()
                             << " threads, but the kernel has " << threads;
  return success();
}

/// Verifies the region an indexed operand of a copy or atomic addresses:
/// `indices` place a tile of shape `tile` in the trailing dimensions of
/// `type` (leading dimensions have extent 1). On-chip operands must contain
/// the region; where the indices are constants that is checked exactly.
static LogicalResult verifyTileRegion(Operation *op, StringRef role,
                                      MemRefType type, ValueRange indices,
                                      ArrayRef<int64_t> tile) {
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(indices.size()) != rank)
    return op->emitOpError()
           << "expected " << rank << " indices for the " << role << " of rank "
           << rank << ", got " << indices.size();
  if (rank < static_cast<int64_t>(tile.size()))
    return op->emitOpError() << "expected the " << role << " (rank " << rank
                             << ") to have at least the rank of the tile ("
                             << formatShape(tile) << ")";
  if (!isOnChip(getMemorySpace(type)))
    return success();
  int64_t lead = rank - tile.size();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = d < lead ? 1 : tile[d - lead];
    int64_t size = type.getDimSize(d);
    if (ShapedType::isDynamic(size))
      continue;
    if (extent > size)
      return op->emitOpError()
             << "tile of " << formatShape(tile) << " does not fit in the "
             << role << " " << type << " along dimension " << d;
    APInt value;
    if (!matchPattern(indices[d], m_ConstantInt(&value)))
      continue;
    // `extent <= size` here, so `size - extent` cannot overflow while
    // `start + extent` could for a huge constant.
    int64_t start = value.getSExtValue();
    if (start < 0 || start > size - extent)
      return op->emitOpError()
             << "tile of extent " << extent << " at index " << start
             << " along dimension " << d << " is out of bounds of the " << role
             << ", which has " << size << " elements";
  }
  return success();
}

/// Verifies where a tile of `src`'s shape lands in `dst`: the whole of a
/// `dst` of the same shape without `indices`, else the region they place.
static LogicalResult verifyDestination(Operation *op, MemRefType src,
                                       MemRefType dst, ValueRange indices) {
  if (indices.empty()) {
    if (src.getShape() != dst.getShape())
      return op->emitOpError()
             << "expected a destination of " << formatShape(src.getShape())
             << " when no indices are given, got "
             << formatShape(dst.getShape());
    return success();
  }
  return verifyTileRegion(op, "destination", dst, indices, src.getShape());
}

/// Parses `attributes {...}` after the custom clauses of `OpTy` and checks
/// the inherent attributes it names (`threads`, `cluster`, ...) against their
/// constraints: a value of the wrong kind would otherwise be dropped silently
/// when the operation stores it as a property.
template <typename OpTy>
static ParseResult parseAttrDictWithInherent(OpAsmParser &parser,
                                             OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return OpTy::verifyInherentAttrs(result.name, result.attributes,
                                   [&]() { return parser.emitError(loc); });
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, ValueRange grid,
                     int64_t threads) {
  state.addOperands(grid);
  state.addAttribute(getThreadsAttrName(state.name),
                     builder.getI64IntegerAttr(threads));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value extent : grid)
    block->addArgument(builder.getIndexType(), extent.getLoc());
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  static const char *names[] = {"bx", "by", "bz"};
  for (auto [i, arg] : llvm::enumerate(region.getArguments()))
    if (i < 3)
      setNameFn(arg, names[i]);
}

// blocks(%bx, ...) in (%gx, ...) threads(N) [rasterize(panel = P,
// order = row)] [persistent(chunk = N, blocks = resident|prime)]
// [cluster(x, ...)]
// [attributes {...}] region
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> ids;
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  int64_t threads = 0;
  if (parser.parseKeyword("blocks") ||
      parser.parseArgumentList(ids, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, builder.getIndexType(), result.operands))
    return failure();
  SMLoc threadsLoc = parser.getCurrentLocation();
  if (ids.size() != grid.size())
    return parser.emitError(threadsLoc)
           << "expected as many block indices as grid extents, got "
           << ids.size() << " and " << grid.size();
  SMLoc countLoc;
  if (parser.parseKeyword("threads") || parser.parseLParen() ||
      parser.getCurrentLocation(&countLoc) || parser.parseInteger(threads) ||
      parser.parseRParen())
    return failure();
  if (threads < 1)
    return parser.emitError(countLoc)
           << "expected a positive thread count, got " << threads;
  result.addAttribute("threads", builder.getI64IntegerAttr(threads));

  if (succeeded(parser.parseOptionalKeyword("rasterize"))) {
    int64_t panel = 0;
    StringRef orderName;
    SMLoc orderLoc;
    SMLoc panelLoc;
    if (parser.parseLParen() || parser.parseKeyword("panel") ||
        parser.parseEqual() || parser.getCurrentLocation(&panelLoc) ||
        parser.parseInteger(panel))
      return failure();
    if (panel < 1)
      return parser.emitError(panelLoc)
             << "expected a positive rasterize panel, got " << panel;
    result.addAttribute("rasterize_panel", builder.getI64IntegerAttr(panel));
    if (succeeded(parser.parseOptionalComma())) {
      if (parser.parseKeyword("order") || parser.parseEqual())
        return failure();
      orderLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&orderName))
        return failure();
      std::optional<RasterOrder> order = symbolizeRasterOrder(orderName);
      if (!order)
        return parser.emitError(orderLoc)
               << "expected raster order 'row' or 'column', got '" << orderName
               << "'";
      result.addAttribute("rasterize_order",
                          RasterOrderAttr::get(builder.getContext(), *order));
    }
    if (parser.parseRParen())
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("persistent"))) {
    if (parser.parseLParen())
      return failure();
    do {
      SMLoc keyLoc = parser.getCurrentLocation(), valueLoc;
      StringRef key;
      if (parser.parseOptionalKeyword(&key, {"chunk", "blocks"}))
        return parser.emitError(keyLoc, "expected 'chunk' or 'blocks' in the "
                                        "persistent clause");
      if (parser.parseEqual() || parser.getCurrentLocation(&valueLoc))
        return failure();
      StringRef attrName =
          key == "chunk" ? "persistent_chunk" : "persistent_blocks";
      if (result.attributes.get(attrName))
        return parser.emitError(keyLoc)
               << "'" << key << "' given twice in the persistent clause";
      if (key == "chunk") {
        int64_t chunk = 0;
        if (parser.parseInteger(chunk))
          return failure();
        if (chunk < 1)
          return parser.emitError(valueLoc)
                 << "expected a positive persistent chunk, got " << chunk;
        result.addAttribute(attrName, builder.getI64IntegerAttr(chunk));
        continue;
      }
      StringRef blocksName;
      if (parser.parseKeyword(&blocksName))
        return failure();
      std::optional<PersistentBlocks> blocks =
          symbolizePersistentBlocks(blocksName);
      if (!blocks)
        return parser.emitError(valueLoc)
               << "expected persistent blocks 'resident' or 'prime', got '"
               << blocksName << "'";
      result.addAttribute(
          attrName, PersistentBlocksAttr::get(builder.getContext(), *blocks));
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("cluster"))) {
    SmallVector<int64_t> dims;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
              return parser.parseInteger(dims.emplace_back());
            }))
      return failure();
    result.addAttribute("cluster", builder.getDenseI64ArrayAttr(dims));
  }
  if (parseAttrDictWithInherent<KernelOp>(parser, result))
    return failure();
  for (OpAsmParser::Argument &id : ids)
    id.type = builder.getIndexType();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, ids);
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " blocks(";
  llvm::interleaveComma(getBlockIds(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in (" << getGrid() << ") threads(" << getThreads() << ")";
  if (auto panel = getRasterizePanel()) {
    p << " rasterize(panel = " << *panel;
    if (auto order = getRasterizeOrder())
      p << ", order = " << stringifyRasterOrder(*order);
    p << ")";
  }
  std::optional<uint64_t> chunk = getPersistentChunk();
  std::optional<PersistentBlocks> blocks = getPersistentBlocks();
  if (chunk || blocks) {
    p << " persistent(";
    if (chunk)
      p << "chunk = " << *chunk << (blocks ? ", " : "");
    if (blocks)
      p << "blocks = " << stringifyPersistentBlocks(*blocks);
    p << ")";
  }
  if (auto cluster = getCluster()) {
    p << " cluster(";
    llvm::interleaveComma(*cluster, p);
    p << ")";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getThreadsAttrName(), getRasterizePanelAttrName(),
       getRasterizeOrderAttrName(), getPersistentChunkAttrName(),
       getPersistentBlocksAttrName(), getClusterAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

/// The largest `persistent(chunk = N)`: a grid's x extent.
static constexpr int64_t kMaxPersistentChunk = (int64_t{1} << 31) - 1;

LogicalResult KernelOp::verify() {
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError("cannot be nested in another 'tile.kernel'");
  // The host code that launches the kernel is the body of a function; at
  // the top of a module there is nothing to launch it from.
  if (!(*this)->getParentOfType<FunctionOpInterface>())
    return emitOpError("expected to be nested in a function, which launches "
                       "it");
  size_t rank = getGrid().size();
  if (rank < 1 || rank > 3)
    return emitOpError() << "expected a grid of 1 to 3 dimensions, got "
                         << rank;
  if (getThreads() > 1024)
    return emitOpError() << "expected at most 1024 threads per block, got "
                         << getThreads();
  if (getRasterizeOrder() && !getRasterizePanel())
    return emitOpError("rasterize_order requires rasterize_panel");
  if (getRasterizePanel() && getGrid().size() < 2)
    return emitOpError("rasterize needs a grid of at least 2 dimensions");
  // A chunk is a run of tiles of one launch, whose tile count fits 64 bits
  // with room for the chunk arithmetic only below 2^31 tiles a chunk.
  if (std::optional<uint64_t> chunk = getPersistentChunk();
      chunk && *chunk > uint64_t{kMaxPersistentChunk})
    return emitOpError() << "expected a persistent chunk in [1, "
                         << kMaxPersistentChunk << "], got " << *chunk;

  // Extents known at compile time must be launchable: positive, and within
  // the hardware limits of each grid dimension.
  static const int64_t maxExtent[] = {(int64_t{1} << 31) - 1, 65535, 65535};
  SmallVector<std::optional<int64_t>> extents;
  for (auto [d, extent] : llvm::enumerate(getGrid())) {
    extents.push_back(getConstantIntValue(extent));
    if (!extents.back())
      continue;
    if (*extents.back() < 1 || *extents.back() > maxExtent[d])
      return emitOpError() << "expected grid extent " << d << " in [1, "
                           << maxExtent[d] << "], got " << *extents.back();
  }

  if (auto cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError() << "expected a cluster of 1 to 3 dimensions, got "
                           << cluster->size();
    int64_t blocks = 1;
    for (auto [d, c] : llvm::enumerate(*cluster)) {
      if (c < 1 || c > 16)
        return emitOpError()
               << "expected cluster extents in [1, 16], got " << c;
      blocks *= c;
      // Dimensions the grid does not have are 1, so the cluster must be too.
      if (d >= rank && c != 1)
        return emitOpError() << "expected cluster extent 1 along dimension "
                             << d << ", which the grid of " << rank
                             << " dimensions lacks, got " << c;
      // The hardware tiles the grid with whole clusters.
      if (d < rank && extents[d] && *extents[d] % c != 0)
        return emitOpError()
               << "expected grid extent " << d << " (" << *extents[d]
               << ") to be a multiple of the cluster extent " << c;
    }
    if (blocks > 16)
      return emitOpError() << "expected a cluster of at most 16 blocks, got "
                           << blocks;
  }
  return success();
}

/// Verifies the scalars `kernel` captures from the enclosing function, which
/// become kernel parameters: PTX has parameters of 8, 16, 32 and 64 bits
/// (i1 is widened), none of other integer widths.
static LogicalResult verifyCapturedScalars(KernelOp kernel) {
  Region &body = kernel.getBody();
  WalkResult result = body.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto integer = dyn_cast<IntegerType>(operand.getType());
      if (!integer ||
          llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth()))
        continue;
      // A value used before its definition (which the dominance check
      // rejects after this verifier) may not be in a region yet.
      Region *region = operand.getParentRegion();
      if (!region || body.isAncestor(region))
        continue;
      InFlightDiagnostic diag =
          kernel.emitOpError()
          << "captures a value of type " << integer
          << ", which cannot be a kernel parameter; pass i8, i16, i32 or i64 "
             "and convert it inside the kernel";
      diag.attachNote(op->getLoc()) << "used here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

static LogicalResult verifyBodyArithmetic(Operation *scope, Region &body);

LogicalResult KernelOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getGrid().size())
    return emitOpError() << "expected " << getGrid().size()
                         << " block-index arguments, got "
                         << entry.getNumArguments();
  for (BlockArgument arg : entry.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "expected block indices of type index, got "
                           << arg.getType();
  // A fragment's elements sit in the registers of different threads, so a
  // thread-level access only means something where tile.parallel says which
  // thread runs which point; elsewhere lowering could not place it.
  WalkResult walk = getBody().walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
      memref = atomic.getMemref();
    else
      return WalkResult::advance();
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || getMemorySpace(type) != MemorySpace::Fragment)
      return WalkResult::advance();
    if (isa<memref::AtomicRMWOp>(op)) {
      op->emitOpError()
          << "updates fragment " << type
          << " atomically; a fragment element belongs to one thread: use "
             "memref.load and memref.store inside 'tile.parallel', or "
             "tile.atomic to update a buffer in shared or global memory";
      return WalkResult::interrupt();
    }
    if (op->getParentOfType<ParallelOp>())
      return WalkResult::advance();
    op->emitOpError() << "accesses fragment " << type
                      << " outside 'tile.parallel'; its elements are spread "
                         "over the threads: access it inside a "
                         "'tile.parallel' over its shape, or move it with "
                         "tile.copy or tile.fill";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted() || failed(verifyBodyArithmetic(*this, getBody())))
    return failure();
  return verifyCapturedScalars(*this);
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  if (failed(verifySupportedSpace(*this, "the allocation", type)))
    return failure();
  MemorySpace space = getMemorySpace(type);
  if (!isOnChip(space))
    return emitOpError() << "expected a shared, fragment or local memory "
                            "space, got "
                         << stringifyMemorySpace(space) << " " << type;
  if (failed(verifyStaticShape(*this, "the allocation", type)) ||
      failed(verifyElementType(*this, "the allocation", type)))
    return failure();
  if (llvm::is_contained(type.getShape(), 0))
    return emitOpError() << "expected non-zero extents, got " << type;
  // No chip has 2 GiB of on-chip memory; bounding the size here also keeps
  // resource accounting in later passes free of overflow.
  Type element = type.getElementType();
  uint64_t bytes =
      element.isIndex() ? 8 : (element.getIntOrFloatBitWidth() + 7) / 8;
  constexpr uint64_t maxBytes = (uint64_t{1} << 31) - 1;
  for (int64_t extent : type.getShape()) {
    if (static_cast<uint64_t>(extent) > maxBytes / bytes)
      return emitOpError() << "expected an allocation of less than 2 GiB, got "
                           << type;
    bytes *= extent;
  }
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expected an identity memref layout, got " << type
                         << "; on-chip layouts go in the 'layout' attribute";
  Attribute layout = getLayoutAttr();
  if (!layout)
    return success();
  if (auto fragment = dyn_cast<FragmentAttr>(layout)) {
    if (space != MemorySpace::Fragment)
      return emitOpError() << "a fragment layout needs a fragment buffer, got "
                           << stringifyMemorySpace(space) << " " << type;
    return verifyFragmentLayout(*this, fragment, type.getShape());
  }
  if (auto memLayout = dyn_cast<LayoutAttr>(layout)) {
    if (space == MemorySpace::Fragment)
      return emitOpError() << "a fragment buffer needs a #tile.fragment "
                              "layout, got "
                           << layout;
    if (!memLayout.getShape().empty() &&
        memLayout.getShape() != type.getShape())
      return emitOpError() << "expected a layout over "
                           << formatShape(type.getShape()) << ", got one over "
                           << formatShape(memLayout.getShape());
    if (memLayout.getMap().getNumDims() != type.getRank())
      return emitOpError() << "expected a layout over " << type.getRank()
                           << " dimensions, got "
                           << memLayout.getMap().getNumDims();
    return success();
  }
  return emitOpError() << "expected a #tile.layout or #tile.fragment layout, "
                          "got "
                       << layout;
}

int64_t AllocOp::getFootprintBytes() {
  MemRefType type = getType();
  int64_t bytes = getBufferBytes(type);
  auto layout = dyn_cast_or_null<LayoutAttr>(getLayoutAttr());
  if (!layout || getMemorySpace(type) != MemorySpace::Shared)
    return bytes;
  std::optional<Layout> l = layout.getLayoutFor(type.getShape());
  if (!l || l->getNumResults() != 1)
    return bytes;
  int64_t span = l->getCodomainShape()[0];
  if (span <= type.getNumElements())
    return bytes;
  return getBufferBytes(MemRefType::get({span}, type.getElementType()));
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> CopyOp::getTileShape() {
  MemRefType from =
      getSrcIndices().empty() ? getSrc().getType() : getDst().getType();
  return llvm::to_vector(from.getShape());
}

LogicalResult CopyOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  if (failed(verifySupportedSpace(*this, "the source", srcType)) ||
      failed(verifySupportedSpace(*this, "the destination", dstType)) ||
      failed(verifyElementType(*this, "the source", srcType)) ||
      failed(verifyElementType(*this, "the destination", dstType)))
    return failure();
  // Conversions to and from 8-, 6- and 4-bit floats have no lowering to
  // NVVM: they would fail in LLVM translation, far from the copy.
  Type srcElem = srcType.getElementType(), dstElem = dstType.getElementType();
  // `index` has no width until the lowering picks one, so neither a
  // conversion nor an asynchronous copy of its bytes can be planned.
  if (srcElem.isIndex() || dstElem.isIndex())
    return emitOpError() << "cannot copy " << srcElem << " to " << dstElem
                         << ": index elements have no fixed width in memory; "
                            "store indices as i32 or i64";
  auto isNarrowFloat = [](Type t) {
    return isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 16;
  };
  if (srcElem != dstElem && (isNarrowFloat(srcElem) || isNarrowFloat(dstElem)))
    return emitOpError() << "cannot convert " << srcElem << " to " << dstElem
                         << ": copies to or from floats narrower than 16 "
                            "bits keep the element type; produce the narrow "
                            "values where they are computed (a tile.gemm "
                            "operand)";
  bool srcIndexed = !getSrcIndices().empty();
  bool dstIndexed = !getDstIndices().empty();
  if (srcIndexed && dstIndexed)
    return emitOpError("expected indices on at most one of the source and "
                       "the destination; the tile's extent is the shape of "
                       "the other");
  if (!srcIndexed && !dstIndexed) {
    if (srcType.getShape() != dstType.getShape())
      return emitOpError() << "expected source and destination of the same "
                              "shape, got "
                           << formatShape(srcType.getShape()) << " and "
                           << formatShape(dstType.getShape());
    if (!srcType.hasStaticShape() && !dstType.hasStaticShape())
      return emitOpError("expected a static tile shape");
  } else {
    MemRefType extentType = srcIndexed ? dstType : srcType;
    StringRef extentRole = srcIndexed ? "destination" : "source";
    if (!extentType.hasStaticShape())
      return emitOpError() << "the tile's extent is the shape of the "
                           << extentRole << ", which must be static, got "
                           << extentType;
    if (failed(srcIndexed ? verifyTileRegion(*this, "source", srcType,
                                             getSrcIndices(), getTileShape())
                          : verifyTileRegion(*this, "destination", dstType,
                                             getDstIndices(), getTileShape())))
      return failure();
  }
  // Every thread moves `coalesced_width` contiguous elements of a row.
  if (std::optional<uint64_t> width = getCoalescedWidth()) {
    SmallVector<int64_t> tile = getTileShape();
    int64_t inner = tile.empty() ? 1 : tile.back();
    if (inner % static_cast<int64_t>(*width) != 0)
      return emitOpError() << "expected coalesced_width (" << *width
                           << ") to divide the tile's innermost extent ("
                           << inner << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp / ClearOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  MemRefType type = getBuffer().getType();
  if (failed(verifyOnChip(*this, "the buffer", type)) ||
      failed(verifyElementType(*this, "the buffer", type)))
    return failure();
  return success();
}

namespace {
/// `tile.fill %buf, 0` is `tile.clear %buf`, which lowers to cheaper code
/// (no broadcast of a runtime value).
struct FillZeroToClear : public OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    Attribute value;
    if (!matchPattern(op.getValue(), m_Constant(&value)))
      return failure();
    bool zero = false;
    if (auto floatValue = dyn_cast<FloatAttr>(value))
      zero = floatValue.getValue().isPosZero();
    else if (auto intValue = dyn_cast<IntegerAttr>(value))
      zero = intValue.getValue().isZero();
    if (!zero)
      return failure();
    rewriter.replaceOpWithNewOp<ClearOp>(op, op.getBuffer());
    return success();
  }
};
} // namespace

void FillOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FillZeroToClear>(context);
}

LogicalResult ClearOp::verify() {
  MemRefType type = getBuffer().getType();
  if (failed(verifyOnChip(*this, "the buffer", type)) ||
      failed(verifyElementType(*this, "the buffer", type)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// Parses the policy of `policy(full_row)` as a bare keyword.
static ParseResult parseGemmPolicy(OpAsmParser &parser,
                                   GemmPolicyAttr &policy) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<GemmPolicy> value = symbolizeGemmPolicy(name);
  if (!value)
    return parser.emitError(loc)
           << "expected gemm policy 'square', 'full_row' or 'full_col', got '"
           << name << "'";
  policy = GemmPolicyAttr::get(parser.getContext(), *value);
  return success();
}

/// Prints the policy of `policy(full_row)` as a bare keyword (the
/// attribute's own printer would put a space after the parenthesis).
static void printGemmPolicy(OpAsmPrinter &p, GemmOp, GemmPolicyAttr policy) {
  p << stringifyGemmPolicy(policy.getValue());
}

LogicalResult GemmOp::verify() {
  MemRefType aType = getA().getType(), bType = getB().getType(),
             cType = getC().getType();
  struct Operand {
    StringRef name;
    MemRefType type;
  } operands[] = {{"A", aType}, {"B", bType}, {"C", cType}};
  for (const Operand &operand : operands) {
    if (failed(verifySupportedSpace(*this, operand.name, operand.type)) ||
        failed(verifyStaticShape(*this, operand.name, operand.type)))
      return failure();
    if (operand.type.getRank() != 2)
      return emitOpError() << "expected " << operand.name
                           << " to be a 2-d tile, got " << operand.type;
  }
  for (const Operand &operand : ArrayRef(operands).take_front(2)) {
    MemorySpace space = getMemorySpace(operand.type);
    if (space != MemorySpace::Shared && space != MemorySpace::Fragment)
      return emitOpError() << "expected " << operand.name
                           << " in shared memory or a fragment, got "
                           << stringifyMemorySpace(space) << " "
                           << operand.type;
  }
  if (getMemorySpace(cType) != MemorySpace::Fragment)
    return emitOpError() << "expected C to be a fragment, got "
                         << stringifyMemorySpace(getMemorySpace(cType)) << " "
                         << cType;

  // Tensor-core instructions are issued by whole warps.
  int64_t threads = getKernelThreads(*this);
  if (threads % 32 != 0)
    return emitOpError() << "expected a kernel of whole warps (a multiple of "
                            "32 threads), got "
                         << threads << " threads";

  ArrayRef<int64_t> a = aType.getShape(), b = bType.getShape(),
                    c = cType.getShape();
  int64_t m = getTransposeA() ? a[1] : a[0];
  int64_t k = getTransposeA() ? a[0] : a[1];
  int64_t n = getTransposeB() ? b[0] : b[1];
  // N is whatever B says; only K must agree with A.
  int64_t bk = getTransposeB() ? b[1] : b[0];
  if (bk != k)
    return emitOpError() << "expected B of "
                         << (getTransposeB() ? "Nx" + std::to_string(k) +
                                                   " (N x K, transpose_b)"
                                             : std::to_string(k) + "xN (K x N)")
                         << " to match A of " << formatShape(a)
                         << (getTransposeA() ? " (K x M, transpose_a)"
                                             : " (M x K)")
                         << ", got " << formatShape(b);
  if (c != ArrayRef<int64_t>{m, n})
    return emitOpError() << "expected C of " << m << "x" << n
                         << " (M x N), got " << formatShape(c);

  return verifyGemmTypes(*this, aType.getElementType(), bType.getElementType(),
                         cType.getElementType(), getMmaAttr());
}

//===----------------------------------------------------------------------===//
// ReduceOp / CumsumOp
//===----------------------------------------------------------------------===//

/// Verifies that `type` is a block-level buffer: shared memory or a
/// fragment. Local buffers are per thread, so a block-wide reduction or scan
/// over one has no meaning.
static LogicalResult verifySharedOrFragment(Operation *op, StringRef role,
                                            MemRefType type) {
  if (failed(verifySupportedSpace(op, role, type)))
    return failure();
  MemorySpace space = getMemorySpace(type);
  if (space != MemorySpace::Shared && space != MemorySpace::Fragment)
    return op->emitOpError()
           << "expected " << role << " in shared memory or a fragment, got "
           << stringifyMemorySpace(space) << " " << type;
  return success();
}

/// Shared checks of reduce and cumsum: on-chip operands of one element type
/// and a dimension inside the source's rank. `widerFloat` lets a float
/// source reduce into a wider float destination (f16 partial sums added
/// in f32).
static LogicalResult verifyAlongDim(Operation *op, MemRefType src,
                                    MemRefType dst, int64_t dim,
                                    bool widerFloat = false) {
  if (failed(verifySharedOrFragment(op, "the source", src)) ||
      failed(verifySharedOrFragment(op, "the destination", dst)) ||
      failed(verifyStaticShape(op, "the source", src)) ||
      failed(verifyStaticShape(op, "the destination", dst)) ||
      failed(verifyElementType(op, "the source", src)) ||
      failed(verifyArithmeticElementType(op, "the source", src)))
    return failure();
  // Threads exchange partial results in registers and shared memory of a
  // fixed width, which `index` does not have before the lowering.
  if (src.getElementType().isIndex() || dst.getElementType().isIndex())
    return op->emitOpError()
           << "cannot combine index elements across threads: they have no "
              "fixed width; compute on i32 or i64";
  if (dim < 0 || dim >= src.getRank())
    return op->emitOpError()
           << "expected dim in [0, " << src.getRank()
           << ") for a source of rank " << src.getRank() << ", got " << dim;
  Type srcElem = src.getElementType(), dstElem = dst.getElementType();
  auto srcFloat = dyn_cast<FloatType>(srcElem);
  auto dstFloat = dyn_cast<FloatType>(dstElem);
  bool wider = widerFloat && srcFloat && dstFloat &&
               dstFloat.getWidth() > srcFloat.getWidth();
  if (srcElem != dstElem && !wider)
    return op->emitOpError()
           << "expected a destination of element type " << srcElem
           << (widerFloat && srcFloat ? " or a wider float" : "") << ", got "
           << dstElem;
  return success();
}

LogicalResult ReduceOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  int64_t dim = getDim();
  if (failed(verifyAlongDim(*this, src, dst, dim, /*widerFloat=*/true)))
    return failure();
  SmallVector<int64_t> dropped = llvm::to_vector(src.getShape());
  dropped.erase(dropped.begin() + dim);
  SmallVector<int64_t> kept = llvm::to_vector(src.getShape());
  kept[dim] = 1;
  if (dst.getShape() != ArrayRef<int64_t>(dropped) &&
      dst.getShape() != ArrayRef<int64_t>(kept))
    return emitOpError() << "expected a destination of " << formatShape(dropped)
                         << " or " << formatShape(kept) << " (source "
                         << formatShape(src.getShape()) << " reduced along dim "
                         << dim << "), got " << formatShape(dst.getShape());
  return success();
}

LogicalResult CumsumOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  if (failed(verifyAlongDim(*this, src, dst, getDim())))
    return failure();
  if (src.getShape() != dst.getShape())
    return emitOpError() << "expected a destination of "
                         << formatShape(src.getShape()) << ", got "
                         << formatShape(dst.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  if (failed(verifyOnChip(*this, "the source", src)) ||
      failed(verifyStaticShape(*this, "the source", src)) ||
      failed(verifySupportedSpace(*this, "the destination", dst)) ||
      failed(verifyElementType(*this, "the source", src)) ||
      failed(verifyAtomicElementType(*this, "the source", src)))
    return failure();
  MemorySpace dstSpace = getMemorySpace(dst);
  if (dstSpace != MemorySpace::Global && dstSpace != MemorySpace::Shared)
    return emitOpError() << "expected a global or shared destination, got "
                         << stringifyMemorySpace(dstSpace) << " " << dst;
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "expected a destination of element type "
                         << src.getElementType() << ", got "
                         << dst.getElementType();
  return verifyDestination(*this, src, dst, getDstIndices());
}

//===----------------------------------------------------------------------===//
// ClusterReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ClusterReduceOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  if (failed(verifySupportedSpace(*this, "the source", src)) ||
      failed(verifySupportedSpace(*this, "the destination", dst)))
    return failure();
  // Only shared memory is visible to the other blocks of the cluster.
  if (getMemorySpace(src) != MemorySpace::Shared)
    return emitOpError() << "expected a shared source, got "
                         << stringifyMemorySpace(getMemorySpace(src)) << " "
                         << src;
  if (getMemorySpace(dst) != MemorySpace::Global)
    return emitOpError() << "expected a global destination, got "
                         << stringifyMemorySpace(getMemorySpace(dst)) << " "
                         << dst;
  if (failed(verifyStaticShape(*this, "the source", src)) ||
      failed(verifyElementType(*this, "the source", src)) ||
      failed(verifyArithmeticElementType(*this, "the source", src)) ||
      failed(verifyElementType(*this, "the destination", dst)) ||
      failed(verifyArithmeticElementType(*this, "the destination", dst)))
    return failure();
  if (isa<FloatType>(src.getElementType()) !=
      isa<FloatType>(dst.getElementType()))
    return emitOpError() << "expected source and destination elements both "
                            "floats or both integers, got "
                         << src.getElementType() << " and "
                         << dst.getElementType();
  return verifyDestination(*this, src, dst, getDstIndices());
}

//===----------------------------------------------------------------------===//
// RemoteLoadOp
//===----------------------------------------------------------------------===//

LogicalResult RemoteLoadOp::verify() {
  MemRefType type = getMemref().getType();
  auto vec = cast<VectorType>(getResult().getType());
  if (getMemorySpace(type) != MemorySpace::Shared)
    return emitOpError() << "expected a shared memref, got "
                         << stringifyMemorySpace(getMemorySpace(type)) << " "
                         << type;
  if (type.getElementType() != vec.getElementType())
    return emitOpError() << "expected a result of " << type.getElementType()
                         << " elements, got " << vec;
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "expected " << type.getRank() << " indices, got "
                         << getIndices().size();
  int64_t n = vec.getNumElements();
  int64_t bits = n * vec.getElementType().getIntOrFloatBitWidth();
  if (!llvm::isPowerOf2_64(n) || bits % 8 != 0 || bits > 128)
    return emitOpError() << "expected a power-of-two vector of at most 16 "
                            "bytes, got "
                         << vec;
  return success();
}

//===----------------------------------------------------------------------===//
// RedOp
//===----------------------------------------------------------------------===//

LogicalResult RedOp::verify() {
  MemRefType type = getMemref().getType();
  auto vec = cast<VectorType>(getValue().getType());
  if (getMemorySpace(type) != MemorySpace::Global)
    return emitOpError() << "expected a global memref, got "
                         << stringifyMemorySpace(getMemorySpace(type)) << " "
                         << type;
  if (type.getElementType() != vec.getElementType())
    return emitOpError() << "expected a memref of " << vec.getElementType()
                         << ", got " << type;
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "expected " << type.getRank() << " indices, got "
                         << getIndices().size();
  int64_t n = vec.getNumElements();
  bool ok = vec.getElementType().isF32() ? (n == 2 || n == 4)
                                         : (n == 2 || n == 4 || n == 8);
  if (!ok)
    return emitOpError() << "expected 2, 4 or 8 halves or 2 or 4 f32, got "
                         << vec;
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> extents) {
  state.addAttribute(getExtentsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(extents));
  Block *block = new Block();
  state.addRegion()->push_back(block);
  for (size_t i = 0, e = extents.size(); i < e; ++i)
    block->addArgument(builder.getIndexType(), state.location);
}

void ParallelOp::getAsmBlockArgumentNames(Region &region,
                                          OpAsmSetValueNameFn setNameFn) {
  // i, j, k, then l, m, ... for deeper nests.
  for (auto [d, iv] : llvm::enumerate(region.getArguments()))
    if (d < 18)
      setNameFn(iv, std::string(1, static_cast<char>('i' + d)));
}

// (%i, %j) in (128, 64) [layout(#tile.fragment<...>)] [attributes {...}]
// region
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            return parser.parseInteger(extents.emplace_back());
          }))
    return failure();
  if (ivs.size() != extents.size())
    return parser.emitError(parser.getCurrentLocation())
           << "expected as many induction variables as extents, got "
           << ivs.size() << " and " << extents.size();
  result.addAttribute("extents", builder.getDenseI64ArrayAttr(extents));
  if (succeeded(parser.parseOptionalKeyword("layout"))) {
    FragmentAttr layout;
    if (parser.parseLParen() || parser.parseAttribute(layout) ||
        parser.parseRParen())
      return failure();
    result.addAttribute("layout", layout);
  }
  if (parseAttrDictWithInherent<ParallelOp>(parser, result))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = builder.getIndexType();
  return parser.parseRegion(*result.addRegion(), ivs);
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in (";
  llvm::interleaveComma(getExtents(), p);
  p << ")";
  if (auto layout = getLayoutAttr())
    p << " layout(" << layout << ")";
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getExtentsAttrName(), getLayoutAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> extents = getExtents();
  if (extents.empty())
    return emitOpError("expected at least one dimension");
  for (int64_t extent : extents)
    if (extent < 1)
      return emitOpError() << "expected positive extents, got " << extent;
  if (auto layout = getLayoutAttr())
    return verifyFragmentLayout(*this, layout, extents);
  return success();
}

bool mlir::tile::isFragmentIndexOfIvs(Value index, Block &body) {
  if (auto arg = dyn_cast<BlockArgument>(index))
    return arg.getOwner() == &body;
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)))
    return !constant.isNegative();
  Operation *def = index.getDefiningOp();
  if (!def || def->getBlock() != &body ||
      !isa<arith::AddIOp, arith::MulIOp, arith::DivUIOp, arith::DivSIOp,
           arith::FloorDivSIOp, arith::RemUIOp, arith::RemSIOp>(def))
    return false;
  // Operation verifiers run before the dominance check: an operand defined
  // by the operation itself or after it (IR that the dominance check will
  // reject) must end the walk rather than loop it.
  for (Value operand : def->getOperands())
    if (Operation *operandDef = operand.getDefiningOp())
      if (operandDef->getBlock() == &body && !operandDef->isBeforeInBlock(def))
        return false;
  return isFragmentIndexOfIvs(def->getOperand(0), body) &&
         isFragmentIndexOfIvs(def->getOperand(1), body);
}

/// Verifies the fragment accesses (memref.load and memref.store) in the
/// body of `parallel`: each index is one of the loop's induction variables,
/// a non-negative constant, or integer arithmetic of those computed in the
/// body (isFragmentIndexOfIvs), so that it is known per iteration at
/// compile time. An index computed from anything else (a block index, a
/// loaded value) could name an element another thread holds, which no
/// thread can read from its own registers.
static LogicalResult verifyFragmentIndices(ParallelOp parallel) {
  Block &body = parallel.getBody().front();
  WalkResult result = parallel.getBody().walk([&](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemref();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemref();
      indices = store.getIndices();
    } else {
      return WalkResult::advance();
    }
    if (getMemorySpace(cast<MemRefType>(memref.getType())) !=
        MemorySpace::Fragment)
      return WalkResult::advance();
    for (auto [d, index] : llvm::enumerate(indices)) {
      if (isFragmentIndexOfIvs(index, body))
        continue;
      InFlightDiagnostic diag =
          op->emitOpError()
          << "indexes a fragment with something other than induction "
             "variables of the enclosing 'tile.parallel', non-negative "
             "constants and their sums, products, quotients and remainders "
             "computed in the body (index "
          << d << "); a thread can only reach the elements it holds";
      diag.attachNote(parallel.getLoc()) << "enclosing 'tile.parallel' here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Verifies that the arith and math operations in `body` (of `scope`, a
/// tile.parallel or a tile.kernel) compute on floats of 16 bits or more:
/// the NVVM lowering has no arithmetic (extf included) on fp8, fp6 or fp4
/// values, only constants, selects, bitcasts and truncations to them, which
/// store results.
static LogicalResult verifyBodyArithmetic(Operation *scope, Region &body) {
  auto isNarrowFloat = [](Type type) {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    return element && element.getWidth() < 16;
  };
  WalkResult result = body.walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if ((dialect != "arith" && dialect != "math") ||
        isa<arith::ConstantOp, arith::SelectOp, arith::TruncFOp,
            arith::BitcastOp>(op))
      return WalkResult::advance();
    Type narrow;
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type type : types)
      if (!narrow && isNarrowFloat(type))
        narrow = getElementTypeOrSelf(type);
    if (!narrow)
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError()
        << "computes on " << narrow
        << ", which has no arithmetic in the lowering; compute on f16, bf16, "
           "f32 or f64 and truncate the result to store it";
    diag.attachNote(scope->getLoc())
        << "enclosing '" << scope->getName() << "' here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult ParallelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getExtents().size())
    return emitOpError() << "expected " << getExtents().size()
                         << " induction variables, got "
                         << body.getNumArguments();
  for (BlockArgument iv : body.getArguments())
    if (!iv.getType().isIndex())
      return emitOpError() << "expected induction variables of type index, "
                              "got "
                           << iv.getType();
  // The body runs once per element; a tile operator there would be a
  // block-wide collective issued from every iteration.
  WalkResult nested = getBody().walk([&](Operation *op) {
    if (!isa<TileDialect>(op->getDialect()))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitOpError()
                              << "cannot be used in the body of a "
                                 "'tile.parallel', which runs once per "
                                 "element";
    diag.attachNote(getLoc()) << "enclosing 'tile.parallel' here";
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted() || failed(verifyFragmentIndices(*this)))
    return failure();
  return verifyBodyArithmetic(*this, getBody());
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

void PipelinedOp::build(OpBuilder &builder, OperationState &state,
                        Value lowerBound, Value upperBound, Value step,
                        int64_t stages) {
  state.addOperands({lowerBound, upperBound, step});
  state.addAttribute(getStagesAttrName(state.name),
                     builder.getI64IntegerAttr(stages));
  Block *block = new Block();
  state.addRegion()->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
}

void PipelinedOp::getAsmBlockArgumentNames(Region &region,
                                           OpAsmSetValueNameFn setNameFn) {
  if (region.getNumArguments() == 1)
    setNameFn(region.getArgument(0), "k");
}

// %k = %lb to %ub step %s stages(N) [order [..]] [stage [..]]
// [attributes {...}] region
ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  int64_t stages = 0;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseLParen() || parser.parseInteger(stages) ||
      parser.parseRParen() ||
      parser.resolveOperand(lb, index, result.operands) ||
      parser.resolveOperand(ub, index, result.operands) ||
      parser.resolveOperand(step, index, result.operands))
    return failure();
  result.addAttribute("stages", builder.getI64IntegerAttr(stages));
  // `order [...]` and `stage [...]`, each at most once, in either order.
  StringRef name;
  while (succeeded(parser.parseOptionalKeyword(&name, {"order", "stage"}))) {
    if (result.attributes.get(name))
      return parser.emitError(parser.getCurrentLocation())
             << "'" << name << "' given twice";
    SmallVector<int64_t> values;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              return parser.parseInteger(values.emplace_back());
            }))
      return failure();
    result.addAttribute(name, builder.getDenseI64ArrayAttr(values));
  }
  if (parseAttrDictWithInherent<PipelinedOp>(parser, result))
    return failure();
  iv.type = index;
  return parser.parseRegion(*result.addRegion(), iv);
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = " << getLowerBound() << " to " << getUpperBound() << " step "
    << getStep() << " stages(" << getStagesAttr().getInt() << ")";
  if (auto order = getOrder()) {
    p << " order [";
    llvm::interleaveComma(*order, p);
    p << "]";
  }
  if (auto stage = getStage()) {
    p << " stage [";
    llvm::interleaveComma(*stage, p);
    p << "]";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getStagesAttrName(), getOrderAttrName(), getStageAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

SmallVector<Operation *> PipelinedOp::getScheduledOps() {
  SmallVector<Operation *> ops;
  if (getBody().empty())
    return ops;
  for (Operation &op : getBody().front())
    if (!isPure(&op))
      ops.push_back(&op);
  return ops;
}

LogicalResult PipelinedOp::verify() {
  int64_t stages = getStagesAttr().getInt();
  if (stages < 1)
    return emitOpError() << "expected stages >= 1, got " << stages;
  // Each stage is a slot of every shared tile the loop fills.
  if (stages > 64)
    return emitOpError() << "expected at most 64 stages, got " << stages;
  std::optional<int64_t> step = getConstantIntValue(getStep());
  if (step && *step < 1)
    return emitOpError() << "expected a positive step, got " << *step;
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("expected one induction variable of type index");
  // Buffers belong before the loop: the pipeline multi-buffers and clones
  // the body's operations across iterations, not its allocations.
  for (Operation &op : body)
    if (auto alloc = dyn_cast<AllocOp>(op))
      return alloc.emitOpError()
             << "inside a tile.pipelined body: allocate the buffer before "
                "the loop";
  int64_t scheduled = getScheduledOps().size();
  if (auto order = getOrder()) {
    if (static_cast<int64_t>(order->size()) != scheduled)
      return emitOpError() << "expected 'order' to have one entry per "
                              "scheduled operation of the body ("
                           << scheduled << "), got " << order->size();
    llvm::SmallBitVector seen(scheduled);
    for (int64_t position : *order) {
      if (position < 0 || position >= scheduled || seen.test(position))
        return emitOpError()
               << "expected 'order' to be a permutation of [0, " << scheduled
               << "), got " << position
               << (position >= 0 && position < scheduled ? " twice" : "");
      seen.set(position);
    }
  }
  if (auto stage = getStage()) {
    if (static_cast<int64_t>(stage->size()) != scheduled)
      return emitOpError() << "expected 'stage' to have one entry per "
                              "scheduled operation of the body ("
                           << scheduled << "), got " << stage->size();
    int64_t stages = getStagesAttr().getInt();
    for (int64_t s : *stage)
      if (s < 0 || s >= stages)
        return emitOpError() << "expected 'stage' entries in [0, " << stages
                             << "), got " << s;
  }
  return success();
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/TileOps.cpp.inc"
