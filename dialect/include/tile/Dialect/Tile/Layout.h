//===- Layout.h - tile layouts and fragments as values ----------*- C++ -*-===//
//
// The layout algebra behind `#tile.layout` and `#tile.fragment` (TileLang
// paper §4.1). A Layout maps the coordinates of a tile to one or more
// outputs (a memory offset for shared buffers); a Fragment maps them to a
// (thread, register) pair, optionally replicated over several threads.
//
// A layout has one of two forms:
//  - affine: a quasi-affine map (+, *, floordiv, mod by constants) followed
//    by an optional XOR swizzle of its first result, for any shape;
//  - linear: a linear map over GF(2), one basis vector per input bit, for
//    shapes whose extents are powers of two. It is closed under composition
//    and inversion, so it is what an affine layout turns into when a
//    swizzle must be composed with or inverted.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_LAYOUT_H
#define TILE_DIALECT_TILE_LAYOUT_H

#include "mlir/IR/AffineMap.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// An XOR swizzle of an integer offset: the `bits` bits starting at bit
/// `base + shift` are XORed into the `bits` bits starting at bit `base`.
/// With `shift >= bits` the source bits are left alone, so a swizzle is its
/// own inverse. The NVIDIA shared-memory swizzles XOR the row bits of a
/// 128-byte line into the 16-byte chunk index.
struct Swizzle {
  unsigned bits = 0, base = 0, shift = 0;

  /// True when the swizzle changes nothing.
  bool isIdentity() const { return bits == 0; }
  /// Applies the swizzle to `offset`.
  int64_t apply(int64_t offset) const;
  bool operator==(const Swizzle &other) const {
    return bits == other.bits && base == other.base && shift == other.shift;
  }
  bool operator!=(const Swizzle &other) const { return !(*this == other); }
};

namespace detail {
/// A quasi-affine map compiled to straight-line code, one program per
/// result (defined in Layout.cpp). Layouts and fragments compile their map
/// once when built, so that the exhaustive per-element walks do not chase
/// the uniqued expression tree for every element. Immutable, so copies of a
/// layout share it, also across threads.
class MapProgram;
} // namespace detail

/// Calls `fn` on every coordinate of `shape` in row-major order.
void forEachCoordinate(ArrayRef<int64_t> shape,
                       function_ref<void(ArrayRef<int64_t>)> fn);

/// Number of elements of `shape`, saturating at INT64_MAX.
int64_t getNumElements(ArrayRef<int64_t> shape);

/// A map from the coordinates of a tile of shape `shape` to `numResults`
/// integers. Value type; cheap to copy.
class Layout {
public:
  Layout() = default;

  /// Affine form: `map` has one dimension per entry of `shape` and no
  /// symbols; `swizzle` applies to its first result.
  static Layout affine(ArrayRef<int64_t> shape, AffineMap map,
                       Swizzle swizzle = {});
  /// Linear form over GF(2): `bases` holds, for every input bit (dimension
  /// 0's bits first, least significant first), `numResults` integers; the
  /// image of a coordinate is the XOR of the bases of its set bits. Every
  /// extent of `shape` must be a power of two.
  static Layout linear(MLIRContext *ctx, ArrayRef<int64_t> shape,
                       unsigned numResults, ArrayRef<int64_t> bases);

  /// Row-major offsets: the last dimension is contiguous.
  static Layout rowMajor(MLIRContext *ctx, ArrayRef<int64_t> shape);
  /// Row-major offsets of a 2-D tile whose rows are `pad` elements longer
  /// than the tile (the classic bank-conflict padding).
  static Layout padded(MLIRContext *ctx, ArrayRef<int64_t> shape, int64_t pad);
  /// NVIDIA shared-memory swizzle of `swizzleBytes` (32, 64 or 128) for
  /// elements of `elementBits`: 16-byte chunks of each `swizzleBytes`-byte
  /// row are XORed with row bits, as the TMA and wgmma canonical layouts
  /// do. A wider tile is stored as column blocks of `swizzleBytes` bytes.
  /// Fails (returns std::nullopt) unless the 2-D shape has a multiple of 8
  /// rows and a multiple of `swizzleBytes` bytes per row.
  static std::optional<Layout> swizzled(MLIRContext *ctx,
                                        ArrayRef<int64_t> shape,
                                        int64_t swizzleBytes,
                                        int64_t elementBits);

  bool isLinear() const { return linearForm; }
  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  unsigned getNumResults() const { return numResults; }
  /// The quasi-affine map of the affine form (an empty map for the linear
  /// form).
  AffineMap getMap() const { return map; }
  Swizzle getSwizzle() const { return swizzle; }
  /// The bases of the linear form, flattened (see linear()).
  ArrayRef<int64_t> getBases() const { return bases; }
  MLIRContext *getContext() const { return map.getContext(); }

  /// Evaluates the layout on `coords` (one per dimension).
  SmallVector<int64_t> apply(ArrayRef<int64_t> coords) const;
  /// One more than the largest value of every result over the tile.
  SmallVector<int64_t> getCodomainShape() const;
  /// True when the layout is one-to-one on the tile and its image is the
  /// whole box getCodomainShape() (a permutation of the offsets).
  bool isBijective() const;
  /// True when the layout has one result and gives every coordinate of the
  /// tile its own non-negative offset (a permutation, or one that leaves
  /// gaps, as padding does), within a span of at most 16 times the tile or
  /// 2^22 offsets, whichever is more.
  bool isInjectiveOffset() const;
  /// True when the two layouts agree on every coordinate of the tile.
  bool isEquivalentTo(const Layout &other) const;

  /// The layout in linear form, when every extent is a power of two and
  /// the layout is linear over GF(2) (checked on every coordinate).
  std::optional<Layout> toLinear() const;
  /// `this ∘ inner`: `inner`'s results are the coordinates of this layout.
  /// Stays affine when it can, else goes through the linear form.
  std::optional<Layout> compose(const Layout &inner) const;
  /// The inverse of a bijective layout, over getCodomainShape().
  std::optional<Layout> inverse() const;
  /// The same offsets viewed through a tile of shape `newShape` (same
  /// element count, row-major order of elements).
  std::optional<Layout> reshape(ArrayRef<int64_t> newShape) const;

  bool operator==(const Layout &other) const {
    return shape == other.shape && numResults == other.numResults &&
           map == other.map && swizzle == other.swizzle &&
           bases == other.bases && linearForm == other.linearForm;
  }

private:
  /// inverse() of a permutation of mixed-radix strides: each dimension one
  /// stride, or with `splitDims` runs of its values (digits) with strides
  /// of their own, as a 192-row tile of three warpgroups has.
  std::optional<Layout> invertStrided(ArrayRef<int64_t> codomain,
                                      bool splitDims) const;

  SmallVector<int64_t> shape;
  unsigned numResults = 0;
  AffineMap map;
  Swizzle swizzle;
  SmallVector<int64_t> bases;
  bool linearForm = false;
  /// `map` compiled (affine form only); derived from `map`, so it takes no
  /// part in comparisons.
  std::shared_ptr<const detail::MapProgram> program;
};

/// A map from the coordinates of a tile to the (thread, register) pair that
/// holds each element, for a block of `threads` threads. An element may be
/// held by `replicate` threads: the map's one optional symbol is the
/// replica index in [0, replicate), used by the thread result only.
class Fragment {
public:
  Fragment() = default;
  Fragment(ArrayRef<int64_t> shape, AffineMap map, int64_t threads,
           int64_t replicas = 1);

  /// Fragment of `shape` whose thread is `thread` and register `reg`
  /// (expressions over the dimensions, and s0 for the replica).
  static Fragment get(ArrayRef<int64_t> shape, AffineExpr thread,
                      AffineExpr reg, int64_t threads, int64_t replicas = 1);

  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  AffineMap getMap() const { return map; }
  int64_t getThreads() const { return threads; }
  int64_t getReplicate() const { return replicas; }
  MLIRContext *getContext() const { return map.getContext(); }

  /// Thread holding replica `rep` of the element at `coords`.
  int64_t getThread(ArrayRef<int64_t> coords, int64_t rep = 0) const;
  /// Register index of the element at `coords` in its threads.
  int64_t getRegister(ArrayRef<int64_t> coords) const;
  /// Registers per thread: one more than the largest register index.
  int64_t getNumRegisters() const;
  /// True when every (thread, register) slot holds at most one element,
  /// every thread is in [0, threads) and the replicas of an element sit on
  /// distinct threads.
  bool isInjective() const;
  /// isInjective() and every slot of threads x registers is used.
  bool isBijective() const;
  /// True when the two fragments place every element identically.
  bool isEquivalentTo(const Fragment &other) const;

  /// Tiles the fragment `repeats[i]` times along dimension i. The copies
  /// take new registers (`onThread` false) or new threads (`onThread`
  /// true); copies are numbered with dimension 0 fastest when
  /// `lowerDimFirst`, else the last dimension fastest.
  Fragment repeat(ArrayRef<int64_t> repeats, bool onThread,
                  bool lowerDimFirst = true) const;
  /// repeat() onto new threads.
  Fragment repeatOnThread(ArrayRef<int64_t> repeats,
                          bool lowerDimFirst = true) const {
    return repeat(repeats, /*onThread=*/true, lowerDimFirst);
  }
  /// Holds every element on `factor` times as many threads: replica r of
  /// the result sits on thread `t + threads * (r / replicas)`.
  Fragment replicate(int64_t factor) const;
  /// Moves the fragment's threads to [begin, begin + threads) of a block
  /// of `blockThreads` threads (a warp group inside a block).
  std::optional<Fragment> bindThreadRange(int64_t begin,
                                          int64_t blockThreads) const;
  /// The fragment of the tile whose coordinates are `inner`'s results:
  /// element x of the new tile is held where element inner(x) was.
  std::optional<Fragment> compose(const Layout &inner) const;
  /// The same placement viewed through a tile of shape `newShape`.
  std::optional<Fragment> reshape(ArrayRef<int64_t> newShape) const;
  /// Swaps the two dimensions of a 2-D fragment.
  Fragment transpose() const;
  /// The map from (thread, register) to coordinates of an unreplicated,
  /// bijective fragment, as a layout over [threads, registers].
  std::optional<Layout> inverse() const;

  bool operator==(const Fragment &other) const {
    return shape == other.shape && map == other.map &&
           threads == other.threads && replicas == other.replicas;
  }

private:
  SmallVector<int64_t> shape;
  AffineMap map;
  int64_t threads = 0;
  int64_t replicas = 1;
  /// `map` compiled; derived from `map`.
  std::shared_ptr<const detail::MapProgram> program;
};

/// Built-in fragments, by name: "mma_m16n8k16_{a,b,c}" (f16/bf16),
/// "mma_m16n8k8_{a,b,c}" (tf32), "mma_m16n8k32_{a,b,c}" (int8),
/// "wgmma_c" (m64nNk16 accumulator, shape [64, N]),
/// "mfma_32x32x8_{a,b,c}" and "mfma_16x16x16_{a,b,c}" (f16),
/// "ldmatrix" and "ldmatrix_trans" (with `param` the element bits).
/// Returns std::nullopt and sets `error` when `name` is unknown or does not
/// fit `shape`.
std::optional<Fragment> getBuiltinFragment(MLIRContext *ctx, StringRef name,
                                           ArrayRef<int64_t> shape,
                                           int64_t param, std::string &error);

/// The shapes a parameterless built-in fragment `name` can have as the base
/// of a tile of `tileShape` (one shape for most; for "wgmma_c" every valid
/// N that divides the tile's columns, widest first).
SmallVector<SmallVector<int64_t, 2>>
getBuiltinFragmentShapes(StringRef name, ArrayRef<int64_t> tileShape);

/// A built-in fragment tiled over a larger tile: `repeat` copies on new
/// registers, then `repeatOnThread` copies on new threads, then every
/// element replicated `replicate` times (TileLang's block layouts).
struct BuiltinChain {
  StringRef name;
  int64_t param = 0;
  SmallVector<int64_t, 2> repeat, repeatOnThread;
  int64_t replicate = 1;
};

/// Builds `chain` for a tile of `shape`; std::nullopt with `error` set when
/// the built-in or the factors do not fit.
std::optional<Fragment> buildBuiltinChain(MLIRContext *ctx,
                                          const BuiltinChain &chain,
                                          ArrayRef<int64_t> shape,
                                          std::string &error);

/// The chain that builds exactly (structurally) `fragment`, if any.
std::optional<BuiltinChain> matchBuiltinChain(const Fragment &fragment);

/// True for the built-in fragment names that take a parameter.
bool builtinFragmentTakesParam(StringRef name);

/// Names every built-in fragment; "ldmatrix*" are listed once.
ArrayRef<StringRef> getBuiltinFragmentNames();

} // namespace tile
} // namespace mlir

#endif // TILE_DIALECT_TILE_LAYOUT_H
