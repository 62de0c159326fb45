//===- Mfma.h - tile.gemm as AMD matrix fused multiply-add ------*- C++ -*-===//
//
// What layout inference and tile-lower need from the MFMA gemm of CDNA
// chips (gfx90a, gfx942): how one instruction of the target's table is
// scheduled over a gemm's tile (the wave partition, the K packing), and
// the layout inference of a gemm for it. The lowering itself is
// LoweringContext::lowerMfma() (Mfma.cpp). Private to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_TARGET_AMD_MFMA_H
#define TILE_PASSES_LIB_TARGET_AMD_MFMA_H

#include "tile/Dialect/Tile/TileOps.h"

#include <optional>

namespace mlir {
namespace tile {
class LayoutInferenceState;

/// How a gemm's M x N x K tile runs as MFMA instruction `mma` (square
/// blocks of `atom` x `atom`) on waves of `waveSize` lanes.
struct MfmaPlan {
  /// Waves along M and N; wave w owns block (w mod wavesM, w / wavesM).
  int64_t wavesM = 1, wavesN = 1;
  /// The instruction's M (= N) and K, and the operand elements one lane
  /// gives one instruction (K split over waveSize / atom lane groups).
  int64_t atom = 0, k = 0, perLane = 0;
  /// Instructions whose K runs one lane reads as one vector: lane group q
  /// holds `perLane * pack` consecutive K elements of a `k * pack` step
  /// and hands each instruction `perLane` of them. Both operands are
  /// permuted alike along K, so the sum is the same.
  int64_t pack = 1;
  /// Accumulator elements per lane and instruction.
  int64_t accPerLane = 0;
};

/// The plan of `mma` (an mfma instruction of the target) for an M x N x K
/// tile of `threads` threads in waves of `waveSize` with `elementBytes`-
/// byte operands; std::nullopt when the tile does not split into whole
/// instructions per wave under `policy`. With `registerOperand` (A or B
/// in a fragment) the K packing gives a lane runs of four, the column run
/// of the accumulator, so an accumulator cast to the operand type is
/// already laid out as the operand.
std::optional<MfmaPlan> planMfma(MmaAttr mma, int64_t m, int64_t n, int64_t k,
                                 int64_t threads, int64_t waveSize,
                                 int64_t elementBytes, GemmPolicy policy,
                                 bool registerOperand = false);

/// The accumulator fragment of `plan` over an M x N tile: C is computed
/// transposed (the instruction's rows run along N), so a lane holds four
/// consecutive columns of a row and stores them as one vector.
Fragment getMfmaAccumulator(MLIRContext *ctx, const MfmaPlan &plan, int64_t m,
                            int64_t n, int64_t threads, int64_t waveSize);

/// The register fragment of operand A (`isA`) or B of `plan` in a gemm of
/// M x N x `kDim`, over the operand stored M x K (A) or N x K (B): wave w
/// holds its rows (A) or columns (B) for the whole of K, lane l the row or
/// column l mod atom of each block and, per K step, the run the K packing
/// gives lane group l / atom; waves of the other dimension hold copies.
Fragment getMfmaOperand(MLIRContext *ctx, const MfmaPlan &plan, bool isA,
                        int64_t m, int64_t n, int64_t kDim, int64_t threads,
                        int64_t waveSize);

/// Lays out `gemm` for `mma`, one of the target's MFMA instructions, and
/// records the instruction with its wave partition; std::nullopt, with
/// nothing changed, when the tile does not fit it. Operands in fragments
/// get getMfmaOperand()'s layout.
std::optional<LogicalResult> inferMfmaGemm(GemmOp gemm, MmaAttr mma,
                                           LayoutInferenceState &state,
                                           int64_t m, int64_t n, int64_t k);

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_TARGET_AMD_MFMA_H
