//===- tile-c/Dialect/Tile.h - C API of the tile dialect ----------*- C -*-===//
//
// The dialect handle of `tile`, queries on its operations (kernel launch
// shape, gemm flags, reduction kind, pipeline depth, ...), the
// `#tile.fragment` and `#tile.layout` attributes, the known targets
// (`#tile.target`, `#tile.mma`), and the classification of a memref by the
// memory space its tile lives in.
//
// Ownership: every handle passed in or returned is borrowed from the
// MlirContext that owns the IR; nothing here transfers ownership or needs
// freeing. Null handling: a null handle, or an operation or attribute of the
// wrong kind, is not an error; each function says what it returns then.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_C_DIALECT_TILE_H
#define TILE_C_DIALECT_TILE_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

/// Returns the handle of the tile dialect, `mlirGetDialectHandle__tile__`.
/// The handle is a static object owned by the library; it never needs
/// freeing. Registering it alone does not make the dialects a kernel uses
/// (func, arith, memref, gpu, ...) available: see tile-c/Registration.h.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

//===----------------------------------------------------------------------===//
// Enumerations (values equal those of the C++ dialect)
//===----------------------------------------------------------------------===//

/// Where a tile buffer lives, derived from the memory space of its memref.
typedef enum MlirTileMemorySpace {
  /// No memory space (or integer 0): global memory, e.g. kernel arguments.
  MLIR_TILE_MEMORY_SPACE_GLOBAL = 0,
  /// `#gpu.address_space<workgroup>`: shared memory.
  MLIR_TILE_MEMORY_SPACE_SHARED = 1,
  /// `#tile.fragment`: a register tile distributed over the block's threads.
  MLIR_TILE_MEMORY_SPACE_FRAGMENT = 2,
  /// `#gpu.address_space<private>`: per-thread local memory.
  MLIR_TILE_MEMORY_SPACE_LOCAL = 3,
  /// Any other memory space, or a value that is not a memref.
  MLIR_TILE_MEMORY_SPACE_UNSUPPORTED = 4
} MlirTileMemorySpace;

/// Kind of a `tile.reduce`.
typedef enum MlirTileReduceKind {
  /// Returned for an operation that is not a `tile.reduce`.
  MLIR_TILE_REDUCE_KIND_INVALID = -1,
  MLIR_TILE_REDUCE_KIND_SUM = 0,
  MLIR_TILE_REDUCE_KIND_MAX = 1,
  MLIR_TILE_REDUCE_KIND_MIN = 2,
  MLIR_TILE_REDUCE_KIND_ABSSUM = 3,
  MLIR_TILE_REDUCE_KIND_ABSMAX = 4
} MlirTileReduceKind;

/// Kind of a `tile.atomic` update.
typedef enum MlirTileAtomicKind {
  /// Returned for an operation that is not a `tile.atomic`.
  MLIR_TILE_ATOMIC_KIND_INVALID = -1,
  MLIR_TILE_ATOMIC_KIND_ADD = 0,
  MLIR_TILE_ATOMIC_KIND_MAX = 1,
  MLIR_TILE_ATOMIC_KIND_MIN = 2
} MlirTileAtomicKind;

/// How the warps of a block split the C tile of a `tile.gemm`.
typedef enum MlirTileGemmPolicy {
  /// Returned for an operation that is not a `tile.gemm`.
  MLIR_TILE_GEMM_POLICY_INVALID = -1,
  MLIR_TILE_GEMM_POLICY_SQUARE = 0,
  MLIR_TILE_GEMM_POLICY_FULL_ROW = 1,
  MLIR_TILE_GEMM_POLICY_FULL_COL = 2
} MlirTileGemmPolicy;

/// Order of the `rasterize` clause of a `tile.kernel`.
typedef enum MlirTileRasterOrder {
  /// The kernel has no `rasterize` clause, or the operation is not a kernel.
  MLIR_TILE_RASTER_ORDER_NONE = -1,
  MLIR_TILE_RASTER_ORDER_ROW = 0,
  MLIR_TILE_RASTER_ORDER_COLUMN = 1
} MlirTileRasterOrder;

/// The `blocks` entry of the `persistent` clause of a `tile.kernel`: how
/// many blocks the kernel launches once made persistent.
typedef enum MlirTilePersistentBlocks {
  /// The clause has no `blocks` entry (the kernel launches every resident
  /// block), or the operation is not a kernel.
  MLIR_TILE_PERSISTENT_BLOCKS_NONE = -1,
  /// Every block the device holds at once.
  MLIR_TILE_PERSISTENT_BLOCKS_RESIDENT = 0,
  /// The largest prime number of blocks not above the resident ones.
  MLIR_TILE_PERSISTENT_BLOCKS_PRIME = 1
} MlirTilePersistentBlocks;

/// Returns the keyword of `kind` as written in the IR ("sum", "absmax"), or
/// an empty string for MLIR_TILE_REDUCE_KIND_INVALID or an unknown value.
/// The string is static and NUL-terminated; do not free it.
MLIR_CAPI_EXPORTED MlirStringRef
mlirTileReduceKindGetName(MlirTileReduceKind kind);

/// Returns the keyword of `kind` ("add", "max", "min"), or an empty string
/// for an invalid value. The string is static and NUL-terminated.
MLIR_CAPI_EXPORTED MlirStringRef
mlirTileAtomicKindGetName(MlirTileAtomicKind kind);

/// Returns the keyword of `policy` ("square", "full_row", "full_col"), or an
/// empty string for an invalid value. The string is static and
/// NUL-terminated.
MLIR_CAPI_EXPORTED MlirStringRef
mlirTileGemmPolicyGetName(MlirTileGemmPolicy policy);

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

/// Classifies the memref type `type` by the memory space its tile lives in.
/// Returns MLIR_TILE_MEMORY_SPACE_UNSUPPORTED for a null type or a type that
/// is not a memref.
MLIR_CAPI_EXPORTED MlirTileMemorySpace
mlirTileMemRefGetMemorySpaceKind(MlirType type);

/// Returns the lowercase name of `space` ("global", "shared", "fragment",
/// "local", "unsupported"); an empty string for a value outside the enum.
/// The string is static and NUL-terminated.
MLIR_CAPI_EXPORTED MlirStringRef
mlirTileMemorySpaceGetName(MlirTileMemorySpace space);

/// Returns true for the on-chip spaces: shared, fragment and local.
MLIR_CAPI_EXPORTED bool mlirTileMemorySpaceIsOnChip(MlirTileMemorySpace space);

//===----------------------------------------------------------------------===//
// #tile.fragment
//===----------------------------------------------------------------------===//

/// Returns true if `attr` is a `#tile.fragment`, bare or with a layout;
/// false for a null attribute.
MLIR_CAPI_EXPORTED bool mlirAttributeIsATileFragment(MlirAttribute attr);

/// Returns the bare `#tile.fragment` memory space, owned (uniqued) by
/// `ctx`; loads the tile dialect into `ctx` if it is not loaded yet. Use it
/// as the memory space of mlirMemRefTypeGet to build a fragment buffer type.
/// Returns a null attribute for a null context.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileFragmentAttrGet(MlirContext ctx);

/// Returns the fragment layout `#tile.fragment<threads = T, map = M,
/// replicate = R>`, owned by `ctx` (loading the tile dialect if needed).
/// When the parameters are invalid (a non-positive thread count or
/// replication, a map with symbols or without exactly two results (thread,
/// register)), emits an error diagnostic to `ctx` at an unknown location and
/// returns a null attribute. A null map with threads 0 and replicate 1 gives
/// the bare memory space. Returns a null attribute for a null context.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileFragmentLayoutAttrGet(
    MlirContext ctx, int64_t threads, MlirAffineMap map, int64_t replicate);

/// Returns true if `attr` is the bare memory-space form `#tile.fragment`;
/// false for a fragment layout, any other attribute, or null.
MLIR_CAPI_EXPORTED bool mlirTileFragmentAttrIsMemorySpace(MlirAttribute attr);

/// Returns the thread count of a fragment layout; 0 for the bare memory
/// space; -1 when `attr` is not a `#tile.fragment` or is null.
MLIR_CAPI_EXPORTED int64_t mlirTileFragmentAttrGetThreads(MlirAttribute attr);

/// Returns the replication factor of a fragment layout (1 for the bare
/// memory space); -1 when `attr` is not a `#tile.fragment` or is null.
MLIR_CAPI_EXPORTED int64_t mlirTileFragmentAttrGetReplicate(MlirAttribute attr);

/// Returns the (coordinates) -> (thread, register) map of a fragment layout,
/// owned by the context; a null map for the bare memory space, for an
/// attribute that is not a `#tile.fragment`, or for null.
MLIR_CAPI_EXPORTED MlirAffineMap mlirTileFragmentAttrGetMap(MlirAttribute attr);

/// Returns the TypeID of the `#tile.fragment` attribute class.
MLIR_CAPI_EXPORTED MlirTypeID mlirTileFragmentAttrGetTypeID(void);

//===----------------------------------------------------------------------===//
// #tile.layout
//===----------------------------------------------------------------------===//

/// Returns true if `attr` is a `#tile.layout`; false for null.
MLIR_CAPI_EXPORTED bool mlirAttributeIsATileLayout(MlirAttribute attr);

/// Returns `#tile.layout<map>`, owned by `ctx` (loading the tile dialect if
/// needed). When `map` is null or not a valid layout (it must have no
/// symbols and yield one offset), emits an error diagnostic to `ctx` at an
/// unknown location and returns a null attribute. Returns a null attribute
/// for a null context.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileLayoutAttrGet(MlirContext ctx,
                                                       MlirAffineMap map);

/// Returns the map of a `#tile.layout`, owned by the context; a null map
/// when `attr` is not a `#tile.layout` or is null.
MLIR_CAPI_EXPORTED MlirAffineMap mlirTileLayoutAttrGetMap(MlirAttribute attr);

/// Returns the TypeID of the `#tile.layout` attribute class.
MLIR_CAPI_EXPORTED MlirTypeID mlirTileLayoutAttrGetTypeID(void);

//===----------------------------------------------------------------------===//
// #tile.target and #tile.mma
//===----------------------------------------------------------------------===//

/// Family of a tensor-core instruction (`#tile.mma`).
typedef enum MlirTileMmaKind {
  /// Returned for an attribute that is not a `#tile.mma`.
  MLIR_TILE_MMA_KIND_INVALID = -1,
  MLIR_TILE_MMA_KIND_MMA_SYNC = 0,
  MLIR_TILE_MMA_KIND_WGMMA = 1,
  MLIR_TILE_MMA_KIND_MFMA = 2
} MlirTileMmaKind;

/// Returns the chip every pass, pipeline and tool compiles for when told
/// none ("sm_90a"). The string is static and NUL-terminated; do not free
/// it.
MLIR_CAPI_EXPORTED MlirStringRef mlirTileGetDefaultChip(void);

/// Returns the number of chips the compiler knows.
MLIR_CAPI_EXPORTED intptr_t mlirTileGetNumKnownChips(void);

/// Returns the name of known chip `pos` (a static NUL-terminated string; do
/// not free it); an empty string when `pos` is out of range.
MLIR_CAPI_EXPORTED MlirStringRef mlirTileGetKnownChip(intptr_t pos);

/// Returns `#tile.target<"chip">`, the compiler's target for `chip`
/// ("sm_80", "gfx942", ...), owned (uniqued) by `ctx`; loads the tile
/// dialect into `ctx` if needed. Returns a null attribute, without a
/// diagnostic, for an unknown chip or a null context.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileTargetAttrGet(MlirContext ctx,
                                                       MlirStringRef chip);

/// Returns true if `attr` is a `#tile.target`; false for null.
MLIR_CAPI_EXPORTED bool mlirAttributeIsATileTarget(MlirAttribute attr);

/// Returns the chip name of a `#tile.target`, owned by the context; an
/// empty string when `attr` is not a target or is null.
MLIR_CAPI_EXPORTED MlirStringRef mlirTileTargetAttrGetChip(MlirAttribute attr);

/// Returns the threads of a warp (wave) of the target; -1 when `attr` is
/// not a `#tile.target` or is null.
MLIR_CAPI_EXPORTED int64_t mlirTileTargetAttrGetWarpSize(MlirAttribute attr);

/// Returns the bytes of shared memory (LDS) one block may use on the
/// target; -1 when `attr` is not a `#tile.target` or is null.
MLIR_CAPI_EXPORTED int64_t
mlirTileTargetAttrGetSharedPerBlock(MlirAttribute attr);

/// Returns the number of tensor-core instructions the target offers; -1
/// when `attr` is not a `#tile.target` or is null.
MLIR_CAPI_EXPORTED intptr_t mlirTileTargetAttrGetNumMma(MlirAttribute attr);

/// Returns tensor-core instruction `pos` of the target (most preferred
/// first), a `#tile.mma` owned by the context; a null attribute when `attr`
/// is not a `#tile.target` or `pos` is out of range.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileTargetAttrGetMma(MlirAttribute attr,
                                                          intptr_t pos);

/// Returns true if `attr` is a `#tile.mma`; false for null.
MLIR_CAPI_EXPORTED bool mlirAttributeIsATileMma(MlirAttribute attr);

/// Returns the instruction family; MLIR_TILE_MMA_KIND_INVALID when `attr` is
/// not a `#tile.mma` or is null.
MLIR_CAPI_EXPORTED MlirTileMmaKind mlirTileMmaAttrGetKind(MlirAttribute attr);

/// Returns the M, N or K of the instruction shape (`dim` 0, 1 or 2); -1
/// when `attr` is not a `#tile.mma`, is null, or `dim` is out of range.
MLIR_CAPI_EXPORTED int64_t mlirTileMmaAttrGetShape(MlirAttribute attr,
                                                   intptr_t dim);

/// Returns the element type of operand `operand` (0: A, 1: B, 2: C), owned
/// by the context; a null type when `attr` is not a `#tile.mma`, is null,
/// or `operand` is out of range.
MLIR_CAPI_EXPORTED MlirType mlirTileMmaAttrGetElementType(MlirAttribute attr,
                                                          intptr_t operand);

//===----------------------------------------------------------------------===//
// Layout queries
//===----------------------------------------------------------------------===//
//
// The queries below evaluate a layout on the tile it describes. A layout
// attribute written without a shape describes the buffer it annotates; pass
// that buffer's shape as `shape` (`rank` entries). With a shaped attribute,
// `shape` may be NULL (rank 0) or must equal the attribute's shape. Every
// query fails (returns false, or -1) on a null or wrong-kind attribute, a
// shape that does not fit, or coordinates outside the tile; it never
// crashes.

/// Returns `#tile.layout<[rows, cols], swizzle<bytes, bits>>`, the NVIDIA
/// shared-memory swizzle of `swizzleBytes` (32, 64 or 128) for elements of
/// `elementBits` bits, owned by `ctx`; a null attribute when the shape does
/// not fit the swizzle (rows a multiple of 8, a multiple of `swizzleBytes`
/// bytes per row) or `ctx` is null.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileLayoutAttrGetSwizzled(
    MlirContext ctx, int64_t rows, int64_t cols, int64_t swizzleBytes,
    int64_t elementBits);

/// Writes the element offset of the tile coordinate `coords` under the
/// `#tile.layout` `attr` to `*offset` (non-null) and returns true; false on
/// failure (see above). `coords` has one entry per dimension of the tile:
/// as many as the attribute's shape has, or as `shape` (`rank` entries)
/// when the attribute has none; `rank` is the length of `shape`, 0 with a
/// NULL `shape`.
MLIR_CAPI_EXPORTED bool
mlirTileLayoutAttrGetOffset(MlirAttribute attr, const int64_t *shape,
                            const int64_t *coords, intptr_t rank,
                            int64_t *offset);

/// Returns true if the `#tile.layout` `attr` sends the tile one-to-one onto
/// the offsets [0, elements); false otherwise or on failure.
MLIR_CAPI_EXPORTED bool mlirTileLayoutAttrIsBijective(MlirAttribute attr,
                                                      const int64_t *shape,
                                                      intptr_t rank);

/// Returns the fragment layout `name` (a built-in: "mma_m16n8k16_a",
/// "mma_m16n8k16_c", "wgmma_c", "mfma_32x32x8_a", ...; see
/// docs/Layouts.md) over a tile of `shape` (`rank` entries), owned by `ctx`;
/// a null attribute for an unknown name, a shape it does not fit, or a null
/// context. `param` is the element width in bits for "ldmatrix" and
/// "ldmatrix_trans", ignored otherwise.
MLIR_CAPI_EXPORTED MlirAttribute
mlirTileFragmentAttrGetBuiltin(MlirContext ctx, MlirStringRef name,
                               const int64_t *shape, intptr_t rank,
                               int64_t param);

/// Writes the thread that holds replica `replica` of the element at
/// `coords` and the register it sits in to `*thread` and `*reg` (both
/// non-null) under the fragment layout `attr`, and returns true; false on
/// failure (see above) or a replica outside [0, replicate). `coords` has
/// one entry per dimension of the tile, as for mlirTileLayoutAttrGetOffset;
/// `rank` is the length of `shape`.
MLIR_CAPI_EXPORTED bool
mlirTileFragmentAttrGetPlacement(MlirAttribute attr, const int64_t *shape,
                                 const int64_t *coords, intptr_t rank,
                                 int64_t replica, int64_t *thread,
                                 int64_t *reg);

/// Returns the number of registers each thread holds under the fragment
/// layout `attr`; -1 on failure.
MLIR_CAPI_EXPORTED int64_t mlirTileFragmentAttrGetNumRegisters(
    MlirAttribute attr, const int64_t *shape, intptr_t rank);

//===----------------------------------------------------------------------===//
// Operation kinds
//===----------------------------------------------------------------------===//

/// Returns true if `op` is a `tile.kernel`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAKernelOp(MlirOperation op);

/// Returns true if `op` is a `tile.alloc`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAAllocOp(MlirOperation op);

/// Returns true if `op` is a `tile.copy`; false for any other operation and for
/// a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsACopyOp(MlirOperation op);

/// Returns true if `op` is a `tile.fill`; false for any other operation and for
/// a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAFillOp(MlirOperation op);

/// Returns true if `op` is a `tile.clear`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAClearOp(MlirOperation op);

/// Returns true if `op` is a `tile.gemm`; false for any other operation and for
/// a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAGemmOp(MlirOperation op);

/// Returns true if `op` is a `tile.reduce`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAReduceOp(MlirOperation op);

/// Returns true if `op` is a `tile.cumsum`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsACumsumOp(MlirOperation op);

/// Returns true if `op` is a `tile.atomic`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAAtomicOp(MlirOperation op);

/// Returns true if `op` is a `tile.parallel`; false for any other operation and
/// for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAParallelOp(MlirOperation op);

/// Returns true if `op` is a `tile.pipelined`; false for any other operation
/// and for a null operation.
MLIR_CAPI_EXPORTED bool mlirTileIsAPipelinedOp(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

/// Returns the number of threads per block; -1 if `op` is not a
/// `tile.kernel` or is null.
MLIR_CAPI_EXPORTED int64_t mlirTileKernelOpGetThreads(MlirOperation op);

/// Returns the number of grid dimensions (1 to 3); -1 if `op` is not a
/// `tile.kernel` or is null.
MLIR_CAPI_EXPORTED intptr_t mlirTileKernelOpGetNumGridDims(MlirOperation op);

/// Returns the `index` value giving the grid extent of dimension `pos`
/// (x first); a null value if `op` is not a kernel or `pos` is out of range.
/// The value is owned by the IR.
MLIR_CAPI_EXPORTED MlirValue mlirTileKernelOpGetGridSize(MlirOperation op,
                                                         intptr_t pos);

/// Returns the block-index argument of the body for dimension `pos`; a null
/// value if `op` is not a kernel or `pos` is out of range.
MLIR_CAPI_EXPORTED MlirValue mlirTileKernelOpGetBlockId(MlirOperation op,
                                                        intptr_t pos);

/// Returns the single block of the kernel body, owned by the operation; a
/// null block if `op` is not a kernel.
MLIR_CAPI_EXPORTED MlirBlock mlirTileKernelOpGetBody(MlirOperation op);

/// Returns the panel size of the `rasterize` clause; 0 when the kernel has
/// none, or when `op` is not a kernel.
MLIR_CAPI_EXPORTED int64_t mlirTileKernelOpGetRasterizePanel(MlirOperation op);

/// Returns the order of the `rasterize` clause; MLIR_TILE_RASTER_ORDER_NONE
/// when the kernel has none, or when `op` is not a kernel.
MLIR_CAPI_EXPORTED MlirTileRasterOrder
mlirTileKernelOpGetRasterizeOrder(MlirOperation op);

/// Returns the chunk of the `persistent` clause (the tiles a persistent
/// block takes at a time); 0 when the kernel has none, or when `op` is not
/// a kernel.
MLIR_CAPI_EXPORTED int64_t mlirTileKernelOpGetPersistentChunk(MlirOperation op);

/// Returns the `blocks` entry of the `persistent` clause;
/// MLIR_TILE_PERSISTENT_BLOCKS_NONE when the kernel has none, or when `op`
/// is not a kernel.
MLIR_CAPI_EXPORTED MlirTilePersistentBlocks
mlirTileKernelOpGetPersistentBlocks(MlirOperation op);

/// Returns the number of dimensions of the `cluster` clause; 0 when the
/// kernel has none, or when `op` is not a kernel.
MLIR_CAPI_EXPORTED intptr_t mlirTileKernelOpGetNumClusterDims(MlirOperation op);

/// Returns the cluster extent of dimension `pos`; -1 when `op` is not a
/// kernel or `pos` is out of range.
MLIR_CAPI_EXPORTED int64_t mlirTileKernelOpGetClusterDim(MlirOperation op,
                                                         intptr_t pos);

//===----------------------------------------------------------------------===//
// tile.alloc
//===----------------------------------------------------------------------===//

/// Returns the `layout` annotation (`#tile.layout` or `#tile.fragment<...>`);
/// a null attribute when there is none or `op` is not a `tile.alloc`.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileAllocOpGetLayout(MlirOperation op);

/// Returns the memory space of the allocated buffer;
/// MLIR_TILE_MEMORY_SPACE_UNSUPPORTED when `op` is not a `tile.alloc`.
MLIR_CAPI_EXPORTED MlirTileMemorySpace
mlirTileAllocOpGetMemorySpaceKind(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.copy
//===----------------------------------------------------------------------===//

/// Returns the source buffer; a null value when `op` is not a `tile.copy`.
MLIR_CAPI_EXPORTED MlirValue mlirTileCopyOpGetSource(MlirOperation op);

/// Returns the destination buffer; a null value when `op` is not a
/// `tile.copy`.
MLIR_CAPI_EXPORTED MlirValue mlirTileCopyOpGetDest(MlirOperation op);

/// Returns the forced vector width in elements; 0 when not set or when `op`
/// is not a `tile.copy`.
MLIR_CAPI_EXPORTED int64_t mlirTileCopyOpGetCoalescedWidth(MlirOperation op);

/// Returns true if the copy carries `disable_tma`; false otherwise and for
/// operations that are not `tile.copy`.
MLIR_CAPI_EXPORTED bool mlirTileCopyOpGetDisableTma(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

/// Returns the A operand (M x K, or K x M with `transpose_a`), owned by the
/// IR; a null value when `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED MlirValue mlirTileGemmOpGetA(MlirOperation op);

/// Returns the B operand (K x N, or N x K with `transpose_b`), owned by the
/// IR; a null value when `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED MlirValue mlirTileGemmOpGetB(MlirOperation op);

/// Returns the C accumulator (M x N fragment), owned by the IR; a null value
/// when `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED MlirValue mlirTileGemmOpGetC(MlirOperation op);

/// Returns true if A is stored K x M (`transpose_a`); false when the flag is
/// absent or `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED bool mlirTileGemmOpGetTransposeA(MlirOperation op);

/// Returns true if B is stored N x K (`transpose_b`); false when the flag is
/// absent or `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED bool mlirTileGemmOpGetTransposeB(MlirOperation op);

/// Returns true if C is zeroed first (`clear_accum`); false when the flag is
/// absent or `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED bool mlirTileGemmOpGetClearAccum(MlirOperation op);

/// Returns the warp partition policy (square when not written);
/// MLIR_TILE_GEMM_POLICY_INVALID when `op` is not a `tile.gemm`.
MLIR_CAPI_EXPORTED MlirTileGemmPolicy mlirTileGemmOpGetPolicy(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.reduce, tile.cumsum, tile.atomic
//===----------------------------------------------------------------------===//

/// Returns the reduction kind; MLIR_TILE_REDUCE_KIND_INVALID when `op` is
/// not a `tile.reduce`.
MLIR_CAPI_EXPORTED MlirTileReduceKind mlirTileReduceOpGetKind(MlirOperation op);

/// Returns the reduced dimension; -1 when `op` is not a `tile.reduce`.
MLIR_CAPI_EXPORTED int64_t mlirTileReduceOpGetDim(MlirOperation op);

/// Returns the `clear` flag (true when not written); false when `op` is not
/// a `tile.reduce`.
MLIR_CAPI_EXPORTED bool mlirTileReduceOpGetClear(MlirOperation op);

/// Returns the scanned dimension; -1 when `op` is not a `tile.cumsum`.
MLIR_CAPI_EXPORTED int64_t mlirTileCumsumOpGetDim(MlirOperation op);

/// Returns true for a suffix sum (`reverse`); false otherwise and when `op`
/// is not a `tile.cumsum`.
MLIR_CAPI_EXPORTED bool mlirTileCumsumOpGetReverse(MlirOperation op);

/// Returns the update kind; MLIR_TILE_ATOMIC_KIND_INVALID when `op` is not a
/// `tile.atomic`.
MLIR_CAPI_EXPORTED MlirTileAtomicKind mlirTileAtomicOpGetKind(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.parallel
//===----------------------------------------------------------------------===//

/// Returns the rank of the iteration space; -1 when `op` is not a
/// `tile.parallel`.
MLIR_CAPI_EXPORTED intptr_t mlirTileParallelOpGetNumDims(MlirOperation op);

/// Returns the extent of dimension `pos`; -1 when `op` is not a
/// `tile.parallel` or `pos` is out of range.
MLIR_CAPI_EXPORTED int64_t mlirTileParallelOpGetExtent(MlirOperation op,
                                                       intptr_t pos);

/// Returns the `layout` (`#tile.fragment<...>`); a null attribute when there
/// is none or `op` is not a `tile.parallel`.
MLIR_CAPI_EXPORTED MlirAttribute mlirTileParallelOpGetLayout(MlirOperation op);

//===----------------------------------------------------------------------===//
// tile.pipelined
//===----------------------------------------------------------------------===//

/// Returns the number of pipeline stages; -1 when `op` is not a
/// `tile.pipelined`.
MLIR_CAPI_EXPORTED int64_t mlirTilePipelinedOpGetStages(MlirOperation op);

/// Returns the lower bound, an `index` value owned by the IR; a null value
/// when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED MlirValue mlirTilePipelinedOpGetLowerBound(MlirOperation op);

/// Returns the (exclusive) upper bound, an `index` value owned by the IR; a
/// null value when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED MlirValue mlirTilePipelinedOpGetUpperBound(MlirOperation op);

/// Returns the step, an `index` value owned by the IR; a null value when
/// `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED MlirValue mlirTilePipelinedOpGetStep(MlirOperation op);

/// Returns the induction variable (a block argument of the body); a null
/// value when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED MlirValue
mlirTilePipelinedOpGetInductionVar(MlirOperation op);

/// Returns true when the loop carries a hand-made schedule (`order` and
/// `stage`); false otherwise and when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED bool mlirTilePipelinedOpHasSchedule(MlirOperation op);

/// Returns the number of entries of the schedule; 0 without a schedule or
/// when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED intptr_t
mlirTilePipelinedOpGetNumScheduleEntries(MlirOperation op);

/// Returns the issue position (entry `pos` of `order`) of scheduled
/// operation `pos`; -1 without a schedule, when `pos` is out of range, or
/// when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED int64_t mlirTilePipelinedOpGetOrder(MlirOperation op,
                                                       intptr_t pos);

/// Returns the pipeline stage (entry `pos` of `stage`) of scheduled
/// operation `pos`; -1 without a schedule, when `pos` is out of range, or
/// when `op` is not a `tile.pipelined`.
MLIR_CAPI_EXPORTED int64_t mlirTilePipelinedOpGetStage(MlirOperation op,
                                                       intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_DIALECT_TILE_H */
