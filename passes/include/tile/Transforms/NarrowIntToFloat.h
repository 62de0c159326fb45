//===- NarrowIntToFloat.h - narrow integers to 16-bit floats ----*- C++ -*-===//
//
// Rewrites of integer-to-float conversions of small integers into bit
// operations on whole 32-bit words (tile-narrow-int-to-float).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_NARROWINTTOFLOAT_H
#define TILE_TRANSFORMS_NARROWINTTOFLOAT_H

namespace mlir {
class RewritePatternSet;
namespace tile {

/// Adds the rewrites of tile-narrow-int-to-float to `patterns`:
/// - `uitofp` to f16 (bf16) of an integer known to be below 2^10 (2^7)
///   becomes an OR into the bits of 1024.0 (128.0), a bitcast and a
///   subtraction of 1024.0 (128.0);
/// - a `subf` of a constant from such a conversion subtracts the exact sum
///   of the constant and the magic value at once;
/// - a `vector<2xi16>` truncated from the lanes `(w >> s) & m` and
///   `(w >> (s + 16)) & m` of one i32 `w` becomes the bitcast of one
///   32-bit shift and mask.
void populateNarrowIntToFloatPatterns(RewritePatternSet &patterns);

/// Adds the rewrite that tile-narrow-int-to-float applies after those of
/// populateNarrowIntToFloatPatterns: a lane pair `(w >> s) & m` in magic
/// form (f16) at a shift s = 8k + t, t > 0, whose only use adds or subtracts
/// Y, becomes the pair `(w >> 8k) & (m << t)`, which holds 1024 + 2^t x,
/// and one multiply-add by 2^-t (contractible into an fma) with the
/// constant part and Y folded into its addend,
/// so that the pairs of a word at shifts 8k and 8k + t share one shift. A
/// constant Y folds where the constant sum is exact, a variable one only
/// under fastmath<reassoc>. The OR of the magic bits into a pair moves to
/// the 32-bit word, next to the pair's mask (NVIDIA fuses the two into one
/// lop3, tile-fuse-lop3).
void populateNarrowIntScalePatterns(RewritePatternSet &patterns);

} // namespace tile
} // namespace mlir

#endif // TILE_TRANSFORMS_NARROWINTTOFLOAT_H
