//===- LayoutInferenceUtils.h - fragments that layout inference builds ----===//
//
// Fragment constructions and checks used by tile-infer-layout that depend
// only on the layout algebra, not on the IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_LAYOUTINFERENCEUTILS_H
#define TILE_PASSES_LIB_LAYOUTINFERENCEUTILS_H

#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileAttrs.h"

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir {
namespace tile {

/// `expr` or its simplified form, whichever prints shorter: the simplifier
/// folds constant terms but turns `x mod c` into subtractions.
AffineExpr getReadableExpr(AffineExpr expr, unsigned numDims,
                           unsigned numSymbols);

/// The coalesced binding of a tile to `threads` threads: runs of `vector`
/// consecutive elements of a row form vectors, numbered row-major, and
/// vector v goes to thread v mod threads (threads along the rows first).
/// `vector` must divide the innermost extent.
Fragment getCoalescedFragment(MLIRContext *ctx, ArrayRef<int64_t> shape,
                              int64_t threads, int64_t vector);

/// Every element on every thread, registers in row-major order: the
/// binding of a per-thread (local) buffer.
Fragment getEveryThreadFragment(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                int64_t threads);

/// The fragment of a buffer of `shape` that a loop with binding `loop`
/// touches at `index` (per buffer dimension: the loop dimension that
/// indexes it, or -1 - c for the constant c): the element a point touches
/// is held by the threads that run the point, replicated over the threads
/// that run the other points touching it. Fails, with `reason` set, when
/// the loop does not cover the buffer or the slice has no affine form.
FailureOr<Fragment> sliceFragment(const Fragment &loop, ArrayRef<int64_t> index,
                                  ArrayRef<int64_t> shape, std::string &reason);

/// True when every thread that runs a point of `loop` holds the element of
/// `fragment` the point touches at `index` and, for a write, every thread
/// holding a written element runs a point that writes it.
bool loopCanAccess(const Fragment &loop, ArrayRef<int64_t> index,
                   const Fragment &fragment, bool write);

/// How a gemm's warps split its M x N tile under `policy`: `wm` warps
/// along M and `wn` along N, each warp owning a multiple of `atomM` rows
/// and `atomN` columns (by default the mma.sync accumulator, 16 x 8).
/// Warp w is (w mod wm, w / wm).
std::optional<std::pair<int64_t, int64_t>>
partitionWarps(int64_t m, int64_t n, int64_t warps, GemmPolicy policy,
               int64_t atomM = 16, int64_t atomN = 8);

/// The layout of a shared gemm operand of `shape` with `elementBits`-bit
/// elements: the widest of the 128-, 64- and 32-byte XOR swizzles that fits
/// (eight rows reading the same 16-byte column hit distinct banks, and
/// 16-byte row vectors stay contiguous), else row-major.
Layout getGemmSharedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                           int64_t elementBits);

/// True when every run of `width` elements along the last dimension,
/// starting at a multiple of `width`, is contiguous and aligned in
/// `layout`: what a vector read of one such run (ldmatrix, ds_read_b128)
/// needs.
bool keepsRowsContiguous(const Layout &layout, int64_t width);

/// How a gemm runs as warpgroup MMA (wgmma.mma_async, sm_90a): `wgM`
/// warpgroups along M and `wgN` along N (warpgroup g is (g mod wgM,
/// g / wgM)), each issuing m64 x `instrN` x `k` instructions over its
/// (M / wgM) x (N / wgN) part of C.
struct WgmmaPlan {
  int64_t wgM = 1, wgN = 1;
  int64_t instrN = 0, k = 16;
};

/// The plan of a gemm as `mma` (a wgmma instruction of the target, whose
/// types the gemm's are), with A and B stored as `aShape` / `bShape`
/// (transposed as the gemm says) and an M x N x K tile on `threads`
/// threads, when that instruction can run it: both operands in shared
/// memory (`aShared`, `bShared`) and swizzlable, 8-bit and 32-bit (tf32)
/// operands stored K-major, M a multiple of 64 per warpgroup, N of 8, K of the
/// instruction's, and whole warpgroups. std::nullopt otherwise.
std::optional<WgmmaPlan>
planWgmma(MmaAttr mma, bool aShared, bool bShared, bool transposeA,
          bool transposeB, ArrayRef<int64_t> aShape, ArrayRef<int64_t> bShape,
          int64_t m, int64_t n, int64_t k, int64_t threads, GemmPolicy policy);

/// Whether wgmma can take A of element type `a` from registers (rs): f16
/// or bf16 stored M x K (not `transposeA`).
inline bool isWgmmaRegisterA(Type a, bool transposeA) {
  return (a.isF16() || a.isBF16()) && !transposeA;
}

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_LAYOUTINFERENCEUTILS_H
