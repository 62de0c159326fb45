//===- Target.h - known targets and tensor-core instructions ----*- C++ -*-===//
//
// The compiler's knowledge of chips, in one place: the table of known
// targets behind `#tile.target<"chip">`, the one default chip, where a
// module says what it is compiled for (`tile.target`), the one diagnostic
// for an unknown chip, and which element types `tile.gemm` accepts (those
// some known target's tensor cores compute).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TARGET_H
#define TILE_DIALECT_TILE_TARGET_H

#include "tile/Dialect/Tile/TileAttrs.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class Operation;

namespace tile {

/// The chip every pass, pipeline and tool compiles for when told none.
inline constexpr llvm::StringLiteral kDefaultChip = "sm_90a";

/// Names of the chips of the target table, in table order (NVIDIA first).
llvm::ArrayRef<llvm::StringRef> getKnownChips();

/// The table's target for `chip` ("sm_80", "gfx942", ...), owned by `ctx`
/// (which must have the tile dialect loaded: a pass calling it declares the
/// dialect as dependent); null for a chip the compiler does not know.
TargetAttr lookupTarget(MLIRContext *ctx, llvm::StringRef chip);

/// The target of kDefaultChip.
TargetAttr getDefaultTarget(MLIRContext *ctx);

/// What a known chip offers one thread block, without a context.
struct TargetLimits {
  Vendor vendor;
  /// Largest shared memory (LDS) of one block, in bytes.
  int64_t sharedPerBlock;
  /// Largest number of 32-bit registers of one thread.
  int64_t registersPerThread;
  /// The chip's optional features.
  TargetFeature features;
  /// Shared memory (LDS) and 32-bit registers of one multiprocessor
  /// (compute unit), and the most threads and blocks it holds at once.
  int64_t sharedPerSm, registersPerSm, threadsPerSm, blocksPerSm;
};
/// The limits of `chip` from the table; std::nullopt for an unknown chip.
std::optional<TargetLimits> lookupTargetLimits(llvm::StringRef chip);

/// How many blocks of one kernel a multiprocessor holds at once, and the
/// resource that stops one more: "registers", "shared memory", "threads" or
/// "blocks" (the chip's most resident blocks).
struct ResidentBlocks {
  int64_t blocks;
  llvm::StringRef limit;
};
/// The resident blocks of an NVIDIA kernel of `threads` threads a block,
/// `registers` 32-bit registers a thread and `sharedBytes` of shared memory
/// a block (static and dynamic), by the CUDA occupancy rules for the chips
/// of the table: registers allocated a warp at a time in units of 256,
/// shared memory in units of 128 bytes plus the 1 KiB the driver reserves
/// for each block. 0 blocks where one block does not fit.
ResidentBlocks residentBlocks(const TargetLimits &limits, int64_t threads,
                              int64_t registers, int64_t sharedBytes);

/// How many waves of one kernel each SIMD of an AMD compute unit holds at
/// once and the workgroups that makes per compute unit, with the resource
/// that stops one more: "VGPRs", "SGPRs", "waves" (the SIMD's most),
/// "LDS" or "threads".
struct ResidentWaves {
  int64_t wavesPerSimd, workgroups;
  llvm::StringRef limit;
};
/// The resident waves of an AMD kernel of `threads` threads a workgroup,
/// `vgprs` vector registers a lane (VGPRs and AGPRs together, as the code
/// object's `.vgpr_count` has them on CDNA), `sgprs` scalar registers
/// (`.sgpr_count`) and `ldsBytes` of LDS a workgroup (static and dynamic), by
/// LLVM's AMDGPU rules for the CDNA chips of the table: VGPRs allocated in
/// granules of 8 from 512 per lane, at most 8 waves per SIMD (7 past 100
/// SGPRs), 4 SIMDs and the table's LDS per compute unit. 0 workgroups where
/// one does not fit.
ResidentWaves residentWaves(const TargetLimits &limits, int64_t threads,
                            int64_t vgprs, int64_t sgprs, int64_t ldsBytes);

/// The one message for an unknown chip: "unknown chip 'sm_99'; known chips:
/// sm_80, ...". For callers that have no operation to report at.
std::string getUnknownChipMessage(llvm::StringRef chip);

/// The `tile.target` of `op` or of its nearest ancestor that has one; null
/// when none has.
TargetAttr getTargetFor(Operation *op);

/// The target a pass running on `op` compiles for: the table's target of
/// `chip` when it is not empty (emitting the unknown-chip diagnostic at
/// `op` and failing when the chip is unknown), else the `tile.target` of
/// `op` or an ancestor, else the default target.
FailureOr<TargetAttr> resolveTarget(Operation *op, llvm::StringRef chip);

/// True when some known target has a tensor-core instruction computing
/// `a` x `b` -> `c`: the element types `tile.gemm` accepts.
bool isSupportedGemmTypes(Type a, Type b, Type c);

/// The element-type check of the `tile.gemm` `gemm`, with A, B and C
/// element types `a`, `b`, `c`: the types must be supported by some known
/// target, by the gemm's `mma` when it has one (`mma` may be null), and by
/// the `tile.target` the gemm is compiled for when one is attached.
/// Emits the error at `gemm` and fails otherwise.
LogicalResult verifyGemmTypes(Operation *gemm, Type a, Type b, Type c,
                              MmaAttr mma);

} // namespace tile
} // namespace mlir

#endif // TILE_DIALECT_TILE_TARGET_H
