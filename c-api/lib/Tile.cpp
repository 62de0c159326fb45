//===- Tile.cpp - C API of the tile dialect -------------------------------===//
//
// Implements tile-c/Dialect/Tile.h: unwraps the C handles, calls the C++
// accessors of the tile operations and attributes, and wraps the results.
// Every query first checks that its handle is non-null and of the expected
// kind, so the C side never reaches an assertion.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Dialect/Tile.h"

#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileOps.h"

#include "mlir/CAPI/AffineMap.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::tile;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, mlir::tile::TileDialect)

// The C enums mirror the C++ ones value for value, so the conversions below
// are plain casts.
static_assert(MLIR_TILE_REDUCE_KIND_SUM == static_cast<int>(ReduceKind::sum) &&
                  MLIR_TILE_REDUCE_KIND_ABSMAX ==
                      static_cast<int>(ReduceKind::absmax),
              "MlirTileReduceKind out of sync with tile::ReduceKind");
static_assert(MLIR_TILE_ATOMIC_KIND_ADD == static_cast<int>(AtomicKind::add) &&
                  MLIR_TILE_ATOMIC_KIND_MIN ==
                      static_cast<int>(AtomicKind::min),
              "MlirTileAtomicKind out of sync with tile::AtomicKind");
static_assert(MLIR_TILE_GEMM_POLICY_SQUARE ==
                      static_cast<int>(GemmPolicy::square) &&
                  MLIR_TILE_GEMM_POLICY_FULL_COL ==
                      static_cast<int>(GemmPolicy::full_col),
              "MlirTileGemmPolicy out of sync with tile::GemmPolicy");
static_assert(MLIR_TILE_RASTER_ORDER_ROW ==
                      static_cast<int>(RasterOrder::row) &&
                  MLIR_TILE_RASTER_ORDER_COLUMN ==
                      static_cast<int>(RasterOrder::column),
              "MlirTileRasterOrder out of sync with tile::RasterOrder");
static_assert(MLIR_TILE_PERSISTENT_BLOCKS_RESIDENT ==
                      static_cast<int>(PersistentBlocks::resident) &&
                  MLIR_TILE_PERSISTENT_BLOCKS_PRIME ==
                      static_cast<int>(PersistentBlocks::prime),
              "MlirTilePersistentBlocks out of sync with "
              "tile::PersistentBlocks");
static_assert(MLIR_TILE_MEMORY_SPACE_GLOBAL ==
                      static_cast<int>(MemorySpace::Global) &&
                  MLIR_TILE_MEMORY_SPACE_SHARED ==
                      static_cast<int>(MemorySpace::Shared) &&
                  MLIR_TILE_MEMORY_SPACE_FRAGMENT ==
                      static_cast<int>(MemorySpace::Fragment) &&
                  MLIR_TILE_MEMORY_SPACE_LOCAL ==
                      static_cast<int>(MemorySpace::Local) &&
                  MLIR_TILE_MEMORY_SPACE_UNSUPPORTED ==
                      static_cast<int>(MemorySpace::Unsupported),
              "MlirTileMemorySpace out of sync with tile::MemorySpace");

/// Returns `op` as an `OpTy`, or a null op when `op` is null or of another
/// kind.
template <typename OpTy> static OpTy dynCastOp(MlirOperation op) {
  if (!op.ptr)
    return OpTy();
  return llvm::dyn_cast<OpTy>(unwrap(op));
}

/// Returns `attr` as an `AttrTy`, or a null attribute.
template <typename AttrTy> static AttrTy dynCastAttr(MlirAttribute attr) {
  return llvm::dyn_cast_if_present<AttrTy>(unwrap(attr));
}

/// Returns element `pos` of `values`, or -1 when `pos` is out of range.
static int64_t elementOr(llvm::ArrayRef<int64_t> values, intptr_t pos) {
  if (pos < 0 || static_cast<size_t>(pos) >= values.size())
    return -1;
  return values[pos];
}

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

MlirStringRef mlirTileReduceKindGetName(MlirTileReduceKind kind) {
  // Values outside the enum stringify to "", which is the documented answer.
  return wrap(stringifyReduceKind(static_cast<ReduceKind>(kind)));
}

MlirStringRef mlirTileAtomicKindGetName(MlirTileAtomicKind kind) {
  return wrap(stringifyAtomicKind(static_cast<AtomicKind>(kind)));
}

MlirStringRef mlirTileGemmPolicyGetName(MlirTileGemmPolicy policy) {
  return wrap(stringifyGemmPolicy(static_cast<GemmPolicy>(policy)));
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

MlirTileMemorySpace mlirTileMemRefGetMemorySpaceKind(MlirType type) {
  auto memref = llvm::dyn_cast_if_present<MemRefType>(unwrap(type));
  if (!memref)
    return MLIR_TILE_MEMORY_SPACE_UNSUPPORTED;
  return static_cast<MlirTileMemorySpace>(getMemorySpace(memref));
}

MlirStringRef mlirTileMemorySpaceGetName(MlirTileMemorySpace space) {
  if (space < MLIR_TILE_MEMORY_SPACE_GLOBAL ||
      space > MLIR_TILE_MEMORY_SPACE_UNSUPPORTED)
    return wrap(llvm::StringRef(""));
  return wrap(stringifyMemorySpace(static_cast<MemorySpace>(space)));
}

bool mlirTileMemorySpaceIsOnChip(MlirTileMemorySpace space) {
  return space == MLIR_TILE_MEMORY_SPACE_SHARED ||
         space == MLIR_TILE_MEMORY_SPACE_FRAGMENT ||
         space == MLIR_TILE_MEMORY_SPACE_LOCAL;
}

//===----------------------------------------------------------------------===//
// #tile.fragment
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATileFragment(MlirAttribute attr) {
  return static_cast<bool>(dynCastAttr<FragmentAttr>(attr));
}

/// Returns the context of `ctx` with the tile dialect loaded, so that its
/// attributes can be built even before any tile IR was parsed; null for a
/// null handle.
static MLIRContext *getTileContext(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  if (context)
    context->getOrLoadDialect<TileDialect>();
  return context;
}

MlirAttribute mlirTileFragmentAttrGet(MlirContext ctx) {
  MLIRContext *context = getTileContext(ctx);
  return wrap(context ? FragmentAttr::get(context) : FragmentAttr());
}

MlirAttribute mlirTileFragmentLayoutAttrGet(MlirContext ctx, int64_t threads,
                                            MlirAffineMap map,
                                            int64_t replicate) {
  MLIRContext *context = getTileContext(ctx);
  if (!context)
    return wrap(Attribute());
  return wrap(FragmentAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, threads,
      unwrap(map), replicate));
}

bool mlirTileFragmentAttrIsMemorySpace(MlirAttribute attr) {
  FragmentAttr fragment = dynCastAttr<FragmentAttr>(attr);
  return fragment && fragment.isMemorySpace();
}

int64_t mlirTileFragmentAttrGetThreads(MlirAttribute attr) {
  FragmentAttr fragment = dynCastAttr<FragmentAttr>(attr);
  return fragment ? fragment.getThreads() : -1;
}

int64_t mlirTileFragmentAttrGetReplicate(MlirAttribute attr) {
  FragmentAttr fragment = dynCastAttr<FragmentAttr>(attr);
  return fragment ? fragment.getReplicate() : -1;
}

MlirAffineMap mlirTileFragmentAttrGetMap(MlirAttribute attr) {
  FragmentAttr fragment = dynCastAttr<FragmentAttr>(attr);
  return wrap(fragment ? fragment.getMap() : AffineMap());
}

MlirTypeID mlirTileFragmentAttrGetTypeID(void) {
  return wrap(TypeID::get<FragmentAttr>());
}

//===----------------------------------------------------------------------===//
// #tile.layout
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATileLayout(MlirAttribute attr) {
  return static_cast<bool>(dynCastAttr<LayoutAttr>(attr));
}

MlirAttribute mlirTileLayoutAttrGet(MlirContext ctx, MlirAffineMap map) {
  MLIRContext *context = getTileContext(ctx);
  if (!context)
    return wrap(Attribute());
  return wrap(LayoutAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context,
      unwrap(map)));
}

MlirAffineMap mlirTileLayoutAttrGetMap(MlirAttribute attr) {
  LayoutAttr layout = dynCastAttr<LayoutAttr>(attr);
  return wrap(layout ? layout.getMap() : AffineMap());
}

MlirTypeID mlirTileLayoutAttrGetTypeID(void) {
  return wrap(TypeID::get<LayoutAttr>());
}

//===----------------------------------------------------------------------===//
// #tile.target and #tile.mma
//===----------------------------------------------------------------------===//

static_assert(MLIR_TILE_MMA_KIND_MMA_SYNC ==
                      static_cast<int>(MmaFamily::mma_sync) &&
                  MLIR_TILE_MMA_KIND_WGMMA ==
                      static_cast<int>(MmaFamily::wgmma) &&
                  MLIR_TILE_MMA_KIND_MFMA == static_cast<int>(MmaFamily::mfma),
              "MlirTileMmaKind out of sync with tile::MmaFamily");

MlirStringRef mlirTileGetDefaultChip(void) { return wrap(kDefaultChip); }

intptr_t mlirTileGetNumKnownChips(void) { return getKnownChips().size(); }

MlirStringRef mlirTileGetKnownChip(intptr_t pos) {
  ArrayRef<StringRef> chips = getKnownChips();
  if (pos < 0 || static_cast<size_t>(pos) >= chips.size())
    return wrap(StringRef());
  return wrap(chips[pos]);
}

MlirAttribute mlirTileTargetAttrGet(MlirContext ctx, MlirStringRef chip) {
  MLIRContext *context = getTileContext(ctx);
  return wrap(context ? lookupTarget(context, unwrap(chip)) : TargetAttr());
}

bool mlirAttributeIsATileTarget(MlirAttribute attr) {
  return static_cast<bool>(dynCastAttr<TargetAttr>(attr));
}

MlirStringRef mlirTileTargetAttrGetChip(MlirAttribute attr) {
  TargetAttr target = dynCastAttr<TargetAttr>(attr);
  return wrap(target ? target.getChip() : StringRef());
}

int64_t mlirTileTargetAttrGetWarpSize(MlirAttribute attr) {
  TargetAttr target = dynCastAttr<TargetAttr>(attr);
  return target ? target.getWarpSize() : -1;
}

int64_t mlirTileTargetAttrGetSharedPerBlock(MlirAttribute attr) {
  TargetAttr target = dynCastAttr<TargetAttr>(attr);
  return target ? target.getSharedPerBlock() : -1;
}

intptr_t mlirTileTargetAttrGetNumMma(MlirAttribute attr) {
  TargetAttr target = dynCastAttr<TargetAttr>(attr);
  return target ? static_cast<intptr_t>(target.getMma().size()) : -1;
}

MlirAttribute mlirTileTargetAttrGetMma(MlirAttribute attr, intptr_t pos) {
  TargetAttr target = dynCastAttr<TargetAttr>(attr);
  if (!target || pos < 0 || static_cast<size_t>(pos) >= target.getMma().size())
    return wrap(Attribute());
  return wrap(target.getMma()[pos]);
}

bool mlirAttributeIsATileMma(MlirAttribute attr) {
  return static_cast<bool>(dynCastAttr<MmaAttr>(attr));
}

MlirTileMmaKind mlirTileMmaAttrGetKind(MlirAttribute attr) {
  MmaAttr mma = dynCastAttr<MmaAttr>(attr);
  return mma ? static_cast<MlirTileMmaKind>(mma.getKind())
             : MLIR_TILE_MMA_KIND_INVALID;
}

int64_t mlirTileMmaAttrGetShape(MlirAttribute attr, intptr_t dim) {
  MmaAttr mma = dynCastAttr<MmaAttr>(attr);
  if (!mma)
    return -1;
  return elementOr({mma.getM(), mma.getN(), mma.getK()}, dim);
}

MlirType mlirTileMmaAttrGetElementType(MlirAttribute attr, intptr_t operand) {
  MmaAttr mma = dynCastAttr<MmaAttr>(attr);
  if (!mma || operand < 0 || operand > 2)
    return wrap(Type());
  Type types[] = {mma.getA(), mma.getB(), mma.getC()};
  return wrap(types[operand]);
}

//===----------------------------------------------------------------------===//
// Layout queries
//===----------------------------------------------------------------------===//

/// The layout of `attr` over `shape` (the attribute's own when empty).
static std::optional<Layout> getLayoutOf(MlirAttribute attr,
                                         const int64_t *shape, intptr_t rank) {
  LayoutAttr layout = dynCastAttr<LayoutAttr>(attr);
  if (!layout || rank < 0 || (rank > 0 && !shape))
    return std::nullopt;
  if (rank == 0)
    return layout.getLayout();
  return layout.getLayoutFor(ArrayRef<int64_t>(shape, rank));
}

/// The fragment of `attr` over `shape` (the attribute's own when empty).
static std::optional<Fragment>
getFragmentOf(MlirAttribute attr, const int64_t *shape, intptr_t rank) {
  FragmentAttr fragment = dynCastAttr<FragmentAttr>(attr);
  if (!fragment || fragment.isMemorySpace() || rank < 0 || (rank > 0 && !shape))
    return std::nullopt;
  if (rank == 0)
    return fragment.getFragment();
  return fragment.getFragmentFor(ArrayRef<int64_t>(shape, rank));
}

/// True when `coords` (`rank` entries) lie inside `tileShape`.
static bool isInside(ArrayRef<int64_t> tileShape, const int64_t *coords,
                     intptr_t rank) {
  if (!coords || static_cast<size_t>(rank) != tileShape.size())
    return false;
  for (intptr_t i = 0; i < rank; ++i)
    if (coords[i] < 0 || coords[i] >= tileShape[i])
      return false;
  return true;
}

MlirAttribute mlirTileLayoutAttrGetSwizzled(MlirContext ctx, int64_t rows,
                                            int64_t cols, int64_t swizzleBytes,
                                            int64_t elementBits) {
  MLIRContext *context = getTileContext(ctx);
  if (!context || rows < 1 || cols < 1 || elementBits < 1)
    return wrap(Attribute());
  std::optional<Layout> layout =
      Layout::swizzled(context, {rows, cols}, swizzleBytes, elementBits);
  return wrap(layout ? LayoutAttr::get(context, *layout) : Attribute());
}

bool mlirTileLayoutAttrGetOffset(MlirAttribute attr, const int64_t *shape,
                                 const int64_t *coords, intptr_t rank,
                                 int64_t *offset) {
  std::optional<Layout> layout = getLayoutOf(attr, shape, rank);
  if (!layout || !offset ||
      !isInside(layout->getShape(), coords, layout->getRank()))
    return false;
  *offset = layout->apply(ArrayRef<int64_t>(coords, layout->getRank()))[0];
  return true;
}

bool mlirTileLayoutAttrIsBijective(MlirAttribute attr, const int64_t *shape,
                                   intptr_t rank) {
  std::optional<Layout> layout = getLayoutOf(attr, shape, rank);
  return layout && layout->isBijective();
}

MlirAttribute mlirTileFragmentAttrGetBuiltin(MlirContext ctx,
                                             MlirStringRef name,
                                             const int64_t *shape,
                                             intptr_t rank, int64_t param) {
  MLIRContext *context = getTileContext(ctx);
  if (!context || rank < 1 || !shape)
    return wrap(Attribute());
  std::string error;
  std::optional<Fragment> fragment = getBuiltinFragment(
      context, unwrap(name), ArrayRef<int64_t>(shape, rank), param, error);
  return wrap(fragment ? FragmentAttr::get(context, *fragment) : Attribute());
}

bool mlirTileFragmentAttrGetPlacement(MlirAttribute attr, const int64_t *shape,
                                      const int64_t *coords, intptr_t rank,
                                      int64_t replica, int64_t *thread,
                                      int64_t *reg) {
  std::optional<Fragment> fragment = getFragmentOf(attr, shape, rank);
  if (!fragment || !thread || !reg ||
      !isInside(fragment->getShape(), coords, fragment->getRank()) ||
      replica < 0 || replica >= fragment->getReplicate())
    return false;
  ArrayRef<int64_t> at(coords, fragment->getRank());
  *thread = fragment->getThread(at, replica);
  *reg = fragment->getRegister(at);
  return true;
}

int64_t mlirTileFragmentAttrGetNumRegisters(MlirAttribute attr,
                                            const int64_t *shape,
                                            intptr_t rank) {
  std::optional<Fragment> fragment = getFragmentOf(attr, shape, rank);
  return fragment ? fragment->getNumRegisters() : -1;
}

//===----------------------------------------------------------------------===//
// Operation kinds
//===----------------------------------------------------------------------===//

bool mlirTileIsAKernelOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<KernelOp>(op));
}
bool mlirTileIsAAllocOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<AllocOp>(op));
}
bool mlirTileIsACopyOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<CopyOp>(op));
}
bool mlirTileIsAFillOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<FillOp>(op));
}
bool mlirTileIsAClearOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<ClearOp>(op));
}
bool mlirTileIsAGemmOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<GemmOp>(op));
}
bool mlirTileIsAReduceOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<ReduceOp>(op));
}
bool mlirTileIsACumsumOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<CumsumOp>(op));
}
bool mlirTileIsAAtomicOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<AtomicOp>(op));
}
bool mlirTileIsAParallelOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<ParallelOp>(op));
}
bool mlirTileIsAPipelinedOp(MlirOperation op) {
  return static_cast<bool>(dynCastOp<PipelinedOp>(op));
}

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

int64_t mlirTileKernelOpGetThreads(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  return kernel ? static_cast<int64_t>(kernel.getThreads()) : -1;
}

intptr_t mlirTileKernelOpGetNumGridDims(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  return kernel ? static_cast<intptr_t>(kernel.getGrid().size()) : -1;
}

MlirValue mlirTileKernelOpGetGridSize(MlirOperation op, intptr_t pos) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || pos < 0 || static_cast<size_t>(pos) >= kernel.getGrid().size())
    return wrap(Value());
  return wrap(kernel.getGrid()[pos]);
}

MlirValue mlirTileKernelOpGetBlockId(MlirOperation op, intptr_t pos) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  // An unverified kernel may have an empty region; check before touching it.
  if (!kernel || kernel.getBody().empty() || pos < 0 ||
      static_cast<size_t>(pos) >= kernel.getBlockIds().size())
    return wrap(Value());
  return wrap(Value(kernel.getBlockIds()[pos]));
}

MlirBlock mlirTileKernelOpGetBody(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || kernel.getBody().empty())
    return wrap(static_cast<Block *>(nullptr));
  return wrap(&kernel.getBody().front());
}

int64_t mlirTileKernelOpGetRasterizePanel(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel)
    return 0;
  return static_cast<int64_t>(kernel.getRasterizePanel().value_or(0));
}

MlirTileRasterOrder mlirTileKernelOpGetRasterizeOrder(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || !kernel.getRasterizeOrder())
    return MLIR_TILE_RASTER_ORDER_NONE;
  return static_cast<MlirTileRasterOrder>(*kernel.getRasterizeOrder());
}

int64_t mlirTileKernelOpGetPersistentChunk(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel)
    return 0;
  return static_cast<int64_t>(kernel.getPersistentChunk().value_or(0));
}

MlirTilePersistentBlocks mlirTileKernelOpGetPersistentBlocks(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || !kernel.getPersistentBlocks())
    return MLIR_TILE_PERSISTENT_BLOCKS_NONE;
  return static_cast<MlirTilePersistentBlocks>(*kernel.getPersistentBlocks());
}

intptr_t mlirTileKernelOpGetNumClusterDims(MlirOperation op) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || !kernel.getCluster())
    return 0;
  return static_cast<intptr_t>(kernel.getCluster()->size());
}

int64_t mlirTileKernelOpGetClusterDim(MlirOperation op, intptr_t pos) {
  KernelOp kernel = dynCastOp<KernelOp>(op);
  if (!kernel || !kernel.getCluster())
    return -1;
  return elementOr(*kernel.getCluster(), pos);
}

//===----------------------------------------------------------------------===//
// tile.alloc
//===----------------------------------------------------------------------===//

MlirAttribute mlirTileAllocOpGetLayout(MlirOperation op) {
  AllocOp alloc = dynCastOp<AllocOp>(op);
  if (!alloc)
    return wrap(Attribute());
  return wrap(alloc.getLayout().value_or(Attribute()));
}

MlirTileMemorySpace mlirTileAllocOpGetMemorySpaceKind(MlirOperation op) {
  AllocOp alloc = dynCastOp<AllocOp>(op);
  if (!alloc)
    return MLIR_TILE_MEMORY_SPACE_UNSUPPORTED;
  return mlirTileMemRefGetMemorySpaceKind(wrap(alloc.getResult().getType()));
}

//===----------------------------------------------------------------------===//
// tile.copy
//===----------------------------------------------------------------------===//

MlirValue mlirTileCopyOpGetSource(MlirOperation op) {
  CopyOp copy = dynCastOp<CopyOp>(op);
  return wrap(copy ? copy.getSrc() : Value());
}

MlirValue mlirTileCopyOpGetDest(MlirOperation op) {
  CopyOp copy = dynCastOp<CopyOp>(op);
  return wrap(copy ? copy.getDst() : Value());
}

int64_t mlirTileCopyOpGetCoalescedWidth(MlirOperation op) {
  CopyOp copy = dynCastOp<CopyOp>(op);
  if (!copy)
    return 0;
  return static_cast<int64_t>(copy.getCoalescedWidth().value_or(0));
}

bool mlirTileCopyOpGetDisableTma(MlirOperation op) {
  CopyOp copy = dynCastOp<CopyOp>(op);
  return copy && copy.getDisableTma();
}

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

MlirValue mlirTileGemmOpGetA(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return wrap(gemm ? gemm.getA() : Value());
}

MlirValue mlirTileGemmOpGetB(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return wrap(gemm ? gemm.getB() : Value());
}

MlirValue mlirTileGemmOpGetC(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return wrap(gemm ? gemm.getC() : Value());
}

bool mlirTileGemmOpGetTransposeA(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return gemm && gemm.getTransposeA();
}

bool mlirTileGemmOpGetTransposeB(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return gemm && gemm.getTransposeB();
}

bool mlirTileGemmOpGetClearAccum(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  return gemm && gemm.getClearAccum();
}

MlirTileGemmPolicy mlirTileGemmOpGetPolicy(MlirOperation op) {
  GemmOp gemm = dynCastOp<GemmOp>(op);
  if (!gemm)
    return MLIR_TILE_GEMM_POLICY_INVALID;
  return static_cast<MlirTileGemmPolicy>(gemm.getPolicy());
}

//===----------------------------------------------------------------------===//
// tile.reduce, tile.cumsum, tile.atomic
//===----------------------------------------------------------------------===//

MlirTileReduceKind mlirTileReduceOpGetKind(MlirOperation op) {
  ReduceOp reduce = dynCastOp<ReduceOp>(op);
  if (!reduce)
    return MLIR_TILE_REDUCE_KIND_INVALID;
  return static_cast<MlirTileReduceKind>(reduce.getKind());
}

int64_t mlirTileReduceOpGetDim(MlirOperation op) {
  ReduceOp reduce = dynCastOp<ReduceOp>(op);
  return reduce ? static_cast<int64_t>(reduce.getDim()) : -1;
}

bool mlirTileReduceOpGetClear(MlirOperation op) {
  ReduceOp reduce = dynCastOp<ReduceOp>(op);
  return reduce && reduce.getClear();
}

int64_t mlirTileCumsumOpGetDim(MlirOperation op) {
  CumsumOp cumsum = dynCastOp<CumsumOp>(op);
  return cumsum ? static_cast<int64_t>(cumsum.getDim()) : -1;
}

bool mlirTileCumsumOpGetReverse(MlirOperation op) {
  CumsumOp cumsum = dynCastOp<CumsumOp>(op);
  return cumsum && cumsum.getReverse();
}

MlirTileAtomicKind mlirTileAtomicOpGetKind(MlirOperation op) {
  AtomicOp atomic = dynCastOp<AtomicOp>(op);
  if (!atomic)
    return MLIR_TILE_ATOMIC_KIND_INVALID;
  return static_cast<MlirTileAtomicKind>(atomic.getKind());
}

//===----------------------------------------------------------------------===//
// tile.parallel
//===----------------------------------------------------------------------===//

intptr_t mlirTileParallelOpGetNumDims(MlirOperation op) {
  ParallelOp parallel = dynCastOp<ParallelOp>(op);
  return parallel ? static_cast<intptr_t>(parallel.getExtents().size()) : -1;
}

int64_t mlirTileParallelOpGetExtent(MlirOperation op, intptr_t pos) {
  ParallelOp parallel = dynCastOp<ParallelOp>(op);
  return parallel ? elementOr(parallel.getExtents(), pos) : -1;
}

MlirAttribute mlirTileParallelOpGetLayout(MlirOperation op) {
  ParallelOp parallel = dynCastOp<ParallelOp>(op);
  if (!parallel || !parallel.getLayout())
    return wrap(Attribute());
  return wrap(Attribute(*parallel.getLayout()));
}

//===----------------------------------------------------------------------===//
// tile.pipelined
//===----------------------------------------------------------------------===//

int64_t mlirTilePipelinedOpGetStages(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return loop ? static_cast<int64_t>(loop.getStages()) : -1;
}

MlirValue mlirTilePipelinedOpGetLowerBound(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return wrap(loop ? loop.getLowerBound() : Value());
}

MlirValue mlirTilePipelinedOpGetUpperBound(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return wrap(loop ? loop.getUpperBound() : Value());
}

MlirValue mlirTilePipelinedOpGetStep(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return wrap(loop ? loop.getStep() : Value());
}

MlirValue mlirTilePipelinedOpGetInductionVar(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  if (!loop || loop.getBody().empty() ||
      loop.getBody().front().getNumArguments() == 0)
    return wrap(Value());
  return wrap(loop.getInductionVar());
}

bool mlirTilePipelinedOpHasSchedule(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return loop && loop.getOrder() && loop.getStage();
}

intptr_t mlirTilePipelinedOpGetNumScheduleEntries(MlirOperation op) {
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  if (!loop || !loop.getOrder() || !loop.getStage())
    return 0;
  // The verifier makes both arrays equally long; an unverified loop may not
  // have, so only the common prefix is exposed.
  return static_cast<intptr_t>(
      std::min(loop.getOrder()->size(), loop.getStage()->size()));
}

/// Returns entry `pos` of the `order` or the `stage` array of a
/// `tile.pipelined`, or -1.
static int64_t getScheduleEntry(MlirOperation op, intptr_t pos, bool order) {
  if (pos < 0 || pos >= mlirTilePipelinedOpGetNumScheduleEntries(op))
    return -1;
  PipelinedOp loop = dynCastOp<PipelinedOp>(op);
  return (order ? *loop.getOrder() : *loop.getStage())[pos];
}

int64_t mlirTilePipelinedOpGetOrder(MlirOperation op, intptr_t pos) {
  return getScheduleEntry(op, pos, /*order=*/true);
}

int64_t mlirTilePipelinedOpGetStage(MlirOperation op, intptr_t pos) {
  return getScheduleEntry(op, pos, /*order=*/false);
}
