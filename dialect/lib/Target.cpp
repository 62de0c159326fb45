//===- Target.cpp - known targets and tensor-core instructions ------------===//
//
// The table of known targets (the only place chip names appear), parsing,
// printing and verification of `#tile.mma` and `#tile.target`, the lookup of
// the target a module is compiled for, the one unknown-chip diagnostic, and
// the element-type check of `tile.gemm` derived from the table.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Target.h"
#include "tile/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <array>

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// The target table
//===----------------------------------------------------------------------===//

namespace {
/// An element type of the table, resolved to an MLIR type per context.
enum class Elt { f16, bf16, f32, i8, i32, e4m3, e5m2, e4m3z, e5m2z };

/// One tensor-core instruction of the table.
struct MmaEntry {
  MmaFamily kind;
  int64_t m, n, k;
  Elt a, b, c;
};

/// One known chip. `mma` lists are concatenated in order, most preferred
/// first.
struct ChipEntry {
  llvm::StringLiteral chip;
  Vendor vendor;
  int64_t warpSize;
  int64_t sharedPerBlock, sharedPerSm;
  int64_t registersPerThread, registersPerSm;
  std::array<ArrayRef<MmaEntry>, 2> mma;
  TargetFeature features;
  int64_t threadsPerSm, blocksPerSm;
};
} // namespace

// NVIDIA: exactly what the NVIDIA gemm lowering emits. mma.sync takes A and
// B of one type; f32 operands run as tf32 (tf32-typed operands do not
// lower); integers are signless, as everywhere in tile operators. There is
// no 8-bit float mma.sync lowering.
static constexpr MmaEntry kMmaSync[] = {
    {MmaFamily::mma_sync, 16, 8, 16, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::mma_sync, 16, 8, 16, Elt::f16, Elt::f16, Elt::f16},
    {MmaFamily::mma_sync, 16, 8, 16, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::mma_sync, 16, 8, 8, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::mma_sync, 16, 8, 32, Elt::i8, Elt::i8, Elt::i32},
};

// sm_90a wgmma: f32 accumulators for floats, 8-bit floats in any OCP
// combination, f32 operands as tf32 (as mma.sync's); s32 for 8-bit
// integers (signless i8 read as s8). `n` is the widest instruction
// (MmaAttr::hasWgmmaWidth() says which narrower exist).
static constexpr MmaEntry kWgmma[] = {
    {MmaFamily::wgmma, 64, 256, 16, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 16, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 32, Elt::e4m3, Elt::e4m3, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 32, Elt::e4m3, Elt::e5m2, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 32, Elt::e5m2, Elt::e4m3, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 32, Elt::e5m2, Elt::e5m2, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 8, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::wgmma, 64, 256, 32, Elt::i8, Elt::i8, Elt::i32},
};

// AMD: the MFMA instructions of the AMD Instinct CDNA3 (gfx942) and CDNA2
// (gfx90a) ISA reference guides, larger blocks first; tile.gemm lowers to
// the one it records (passes/lib/Target/AMD/Mfma.cpp).
static constexpr MmaEntry kMfmaCdna3[] = {
    {MmaFamily::mfma, 32, 32, 8, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::mfma, 16, 16, 16, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::mfma, 32, 32, 8, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::mfma, 16, 16, 16, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::mfma, 32, 32, 2, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::mfma, 16, 16, 4, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::mfma, 32, 32, 16, Elt::i8, Elt::i8, Elt::i32},
    {MmaFamily::mfma, 16, 16, 32, Elt::i8, Elt::i8, Elt::i32},
    {MmaFamily::mfma, 32, 32, 16, Elt::e4m3z, Elt::e4m3z, Elt::f32},
    {MmaFamily::mfma, 32, 32, 16, Elt::e4m3z, Elt::e5m2z, Elt::f32},
    {MmaFamily::mfma, 32, 32, 16, Elt::e5m2z, Elt::e4m3z, Elt::f32},
    {MmaFamily::mfma, 32, 32, 16, Elt::e5m2z, Elt::e5m2z, Elt::f32},
    {MmaFamily::mfma, 16, 16, 32, Elt::e4m3z, Elt::e4m3z, Elt::f32},
    {MmaFamily::mfma, 16, 16, 32, Elt::e4m3z, Elt::e5m2z, Elt::f32},
    {MmaFamily::mfma, 16, 16, 32, Elt::e5m2z, Elt::e4m3z, Elt::f32},
    {MmaFamily::mfma, 16, 16, 32, Elt::e5m2z, Elt::e5m2z, Elt::f32},
};

// CDNA2 bf16 is the `_1k` forms (four-element K per lane, like f16); its
// 8-bit integer instructions have half the K of CDNA3's.
static constexpr MmaEntry kMfmaCdna2[] = {
    {MmaFamily::mfma, 32, 32, 8, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::mfma, 16, 16, 16, Elt::f16, Elt::f16, Elt::f32},
    {MmaFamily::mfma, 32, 32, 8, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::mfma, 16, 16, 16, Elt::bf16, Elt::bf16, Elt::f32},
    {MmaFamily::mfma, 32, 32, 2, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::mfma, 16, 16, 4, Elt::f32, Elt::f32, Elt::f32},
    {MmaFamily::mfma, 32, 32, 8, Elt::i8, Elt::i8, Elt::i32},
    {MmaFamily::mfma, 16, 16, 16, Elt::i8, Elt::i8, Elt::i32},
};

static constexpr TargetFeature kAmpere = TargetFeature::cp_async;
static constexpr TargetFeature kHopper =
    TargetFeature::cp_async | TargetFeature::tma |
    TargetFeature::vector_atomics | TargetFeature::clusters |
    TargetFeature::dependent_launch;
static constexpr TargetFeature kHopperA =
    kHopper | TargetFeature::warp_specialize;

// Shared memory: the largest opt-in allocation of one block and the shared
// memory of one SM, from the CUDA C++ Programming Guide's table of technical
// specifications per compute capability (8.0: 163 KB / 164 KB, 8.6 and
// 8.9: 99 KB / 100 KB, 9.0: 227 KB / 228 KB). Registers: 255 per thread and
// 64 K 32-bit registers per SM on all of them. Resident threads and blocks
// per SM from the same table: 2048 and 32 (8.0, 9.0), 1536 and 16 (8.6),
// 1536 and 24 (8.9).
//
// CDNA2 and CDNA3 (AMD Instinct MI200 / MI300 ISA reference guides and
// white papers): 64 KiB of LDS per workgroup and per CU; a wave64 lane has
// up to 512 VGPRs counting the AccVGPRs; a CU has 4 SIMDs, each with 512
// registers of 64 lanes (512 KiB of vector registers per CU), 8 waves of 64
// per SIMD (2048 threads per CU). residentWaves bounds an AMD kernel's
// workgroups by waves and LDS; the last column (resident blocks, NVIDIA's
// bound) is not used for these chips.
// One row per chip, kept on one line each.
// clang-format off
static const ChipEntry kChips[] = {
    {"sm_80", Vendor::nvidia, 32, 166912, 167936, 255, 65536, {kMmaSync, {}}, kAmpere, 2048, 32},
    {"sm_86", Vendor::nvidia, 32, 101376, 102400, 255, 65536, {kMmaSync, {}}, kAmpere, 1536, 16},
    {"sm_89", Vendor::nvidia, 32, 101376, 102400, 255, 65536, {kMmaSync, {}}, kAmpere, 1536, 24},
    {"sm_90", Vendor::nvidia, 32, 232448, 233472, 255, 65536, {kMmaSync, {}}, kHopper, 2048, 32},
    {"sm_90a", Vendor::nvidia, 32, 232448, 233472, 255, 65536, {kWgmma, kMmaSync}, kHopperA, 2048, 32},
    {"gfx90a", Vendor::amd, 64, 65536, 65536, 512, 4 * 512 * 64, {kMfmaCdna2, {}}, TargetFeature::buffer_load_lds, 2048, 32},
    {"gfx942", Vendor::amd, 64, 65536, 65536, 512, 4 * 512 * 64, {kMfmaCdna3, {}}, TargetFeature::buffer_load_lds, 2048, 32},
};
// clang-format on

/// True when `type` is the table's element type `elt` (integers are
/// signless).
static bool matches(Elt elt, Type type) {
  switch (elt) {
  case Elt::f16:
    return type.isF16();
  case Elt::bf16:
    return type.isBF16();
  case Elt::f32:
    return type.isF32();
  case Elt::i8:
    return type.isSignlessInteger(8);
  case Elt::i32:
    return type.isSignlessInteger(32);
  case Elt::e4m3:
    return isa<Float8E4M3FNType>(type);
  case Elt::e5m2:
    return isa<Float8E5M2Type>(type);
  case Elt::e4m3z:
    return isa<Float8E4M3FNUZType>(type);
  case Elt::e5m2z:
    return isa<Float8E5M2FNUZType>(type);
  }
  llvm_unreachable("unknown table element type");
}

/// The MLIR type of the table's element type `elt`.
static Type getType(MLIRContext *ctx, Elt elt) {
  Builder b(ctx);
  switch (elt) {
  case Elt::f16:
    return b.getF16Type();
  case Elt::bf16:
    return b.getBF16Type();
  case Elt::f32:
    return b.getF32Type();
  case Elt::i8:
    return b.getIntegerType(8);
  case Elt::i32:
    return b.getI32Type();
  case Elt::e4m3:
    return b.getType<Float8E4M3FNType>();
  case Elt::e5m2:
    return b.getType<Float8E5M2Type>();
  case Elt::e4m3z:
    return b.getType<Float8E4M3FNUZType>();
  case Elt::e5m2z:
    return b.getType<Float8E5M2FNUZType>();
  }
  llvm_unreachable("unknown table element type");
}

static const ChipEntry *findChip(StringRef chip) {
  for (const ChipEntry &entry : kChips)
    if (entry.chip == chip)
      return &entry;
  return nullptr;
}

ArrayRef<StringRef> mlir::tile::getKnownChips() {
  static const SmallVector<StringRef> chips = [] {
    SmallVector<StringRef> names;
    for (const ChipEntry &entry : kChips)
      names.push_back(entry.chip);
    return names;
  }();
  return chips;
}

TargetAttr mlir::tile::lookupTarget(MLIRContext *ctx, StringRef chip) {
  const ChipEntry *entry = findChip(chip);
  if (!entry)
    return {};
  // Its attributes need the dialect. Passes declare it as a dependency, so
  // this only loads it for callers outside a pass (tools, the C API).
  if (!ctx->getLoadedDialect<TileDialect>())
    ctx->getOrLoadDialect<TileDialect>();
  SmallVector<MmaAttr> mma;
  for (ArrayRef<MmaEntry> list : entry->mma)
    for (const MmaEntry &e : list)
      mma.push_back(MmaAttr::get(ctx, e.kind, e.m, e.n, e.k, getType(ctx, e.a),
                                 getType(ctx, e.b), getType(ctx, e.c)));
  return TargetAttr::get(ctx, entry->chip, entry->vendor, entry->warpSize,
                         entry->sharedPerBlock, entry->sharedPerSm,
                         entry->registersPerThread, entry->registersPerSm, mma,
                         entry->features);
}

std::optional<TargetLimits> mlir::tile::lookupTargetLimits(StringRef chip) {
  const ChipEntry *entry = findChip(chip);
  if (!entry)
    return std::nullopt;
  return TargetLimits{
      entry->vendor,       entry->sharedPerBlock, entry->registersPerThread,
      entry->features,     entry->sharedPerSm,    entry->registersPerSm,
      entry->threadsPerSm, entry->blocksPerSm};
}

ResidentBlocks mlir::tile::residentBlocks(const TargetLimits &limits,
                                          int64_t threads, int64_t registers,
                                          int64_t sharedBytes) {
  // A multiprocessor's registers are four equal files, one per scheduler;
  // a warp's registers come from one of them.
  constexpr int64_t kWarp = 32, kRegisterUnit = 256, kRegisterFiles = 4,
                    kSharedUnit = 128, kSharedReserved = 1024;
  auto roundUp = [](int64_t n, int64_t unit) {
    return (n + unit - 1) / unit * unit;
  };
  int64_t warps = (threads + kWarp - 1) / kWarp;
  ResidentBlocks least{limits.blocksPerSm, "blocks"};
  auto bound = [&](int64_t blocks, StringRef limit) {
    if (blocks < least.blocks)
      least = {blocks, limit};
  };
  bound(limits.threadsPerSm / std::max<int64_t>(threads, 1), "threads");
  if (registers > 0) {
    int64_t perWarp = roundUp(registers * kWarp, kRegisterUnit);
    int64_t residentWarps =
        limits.registersPerSm / kRegisterFiles / perWarp * kRegisterFiles;
    bound(residentWarps / std::max<int64_t>(warps, 1), "registers");
  }
  if (sharedBytes > limits.sharedPerBlock)
    bound(0, "shared memory");
  else
    bound(limits.sharedPerSm /
              (roundUp(sharedBytes, kSharedUnit) + kSharedReserved),
          "shared memory");
  return least;
}

ResidentWaves mlir::tile::residentWaves(const TargetLimits &limits,
                                        int64_t threads, int64_t vgprs,
                                        int64_t sgprs, int64_t ldsBytes) {
  constexpr int64_t kWave = 64, kSimds = 4, kVgprGranule = 8;
  int64_t maxWaves = limits.threadsPerSm / kWave / kSimds;
  ResidentWaves least{maxWaves, 0, "waves"};
  auto boundWaves = [&](int64_t waves, StringRef limit) {
    if (waves < least.wavesPerSimd) {
      least.wavesPerSimd = waves;
      least.limit = limit;
    }
  };
  if (vgprs > kVgprGranule) {
    int64_t granules = (vgprs + kVgprGranule - 1) / kVgprGranule;
    boundWaves(limits.registersPerThread / (granules * kVgprGranule), "VGPRs");
  }
  // GFX9's scalar register file: 8 waves up to 100 SGPRs, 7 past them.
  if (sgprs > 100)
    boundWaves(7, "SGPRs");
  int64_t waves = (threads + kWave - 1) / kWave;
  // A workgroup's waves are spread over the SIMDs.
  least.workgroups = least.wavesPerSimd * kSimds / std::max<int64_t>(waves, 1);
  auto boundWorkgroups = [&](int64_t workgroups, StringRef limit) {
    if (workgroups < least.workgroups) {
      least.workgroups = workgroups;
      least.limit = limit;
    }
  };
  boundWorkgroups(limits.threadsPerSm / std::max<int64_t>(threads, 1),
                  "threads");
  if (ldsBytes > limits.sharedPerBlock)
    boundWorkgroups(0, "LDS");
  else if (ldsBytes > 0)
    boundWorkgroups(limits.sharedPerSm / ldsBytes, "LDS");
  return least;
}

TargetAttr mlir::tile::getDefaultTarget(MLIRContext *ctx) {
  return lookupTarget(ctx, kDefaultChip);
}

std::string mlir::tile::getUnknownChipMessage(StringRef chip) {
  return ("unknown chip '" + chip +
          "'; known chips: " + llvm::join(getKnownChips(), ", "))
      .str();
}

TargetAttr mlir::tile::getTargetFor(Operation *op) {
  TileDialect::TargetAttrHelper helper(op->getContext());
  for (; op; op = op->getParentOp())
    if (TargetAttr target = helper.getAttr(op))
      return target;
  return {};
}

FailureOr<TargetAttr> mlir::tile::resolveTarget(Operation *op, StringRef chip) {
  if (chip.empty()) {
    if (TargetAttr attached = getTargetFor(op))
      return attached;
    return getDefaultTarget(op->getContext());
  }
  if (TargetAttr target = lookupTarget(op->getContext(), chip))
    return target;
  return op->emitError(getUnknownChipMessage(chip));
}

//===----------------------------------------------------------------------===//
// tile.gemm element types
//===----------------------------------------------------------------------===//

/// Calls `fn` on every instruction of the table, target by target.
template <typename Fn> static void forEachTableMma(Fn fn) {
  for (const ChipEntry &chip : kChips)
    for (ArrayRef<MmaEntry> list : chip.mma)
      for (const MmaEntry &e : list)
        fn(e);
}

bool mlir::tile::isSupportedGemmTypes(Type a, Type b, Type c) {
  bool found = false;
  forEachTableMma([&](const MmaEntry &e) {
    found |= matches(e.a, a) && matches(e.b, b) && matches(e.c, c);
  });
  return found;
}

/// "A x B -> C" of every distinct element-type combination of the table.
static std::string describeSupportedGemmTypes(MLIRContext *ctx) {
  SmallVector<std::string> combos;
  llvm::StringSet<> seen;
  forEachTableMma([&](const MmaEntry &e) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << getType(ctx, e.a) << " x " << getType(ctx, e.b) << " -> "
       << getType(ctx, e.c);
    if (seen.insert(text).second)
      combos.push_back(text);
  });
  return llvm::join(combos, ", ");
}

LogicalResult mlir::tile::verifyGemmTypes(Operation *gemm, Type a, Type b,
                                          Type c, MmaAttr mma) {
  auto emit = [&](StringRef what) {
    return gemm->emitOpError()
           << what << "A " << a << ", B " << b << ", C " << c;
  };
  if (!isSupportedGemmTypes(a, b, c))
    return emit("unsupported element types: ")
           << " (supported A x B -> C: "
           << describeSupportedGemmTypes(gemm->getContext()) << ")";
  if (mma && !mma.accepts(a, b, c))
    return gemm->emitOpError()
           << "has mma " << mma << ", which does not compute A " << a << ", B "
           << b << ", C " << c;
  if (TargetAttr target = getTargetFor(gemm))
    if (!target.selectMma(a, b, c))
      return emit("has no tensor-core instruction for ")
             << " on its target " << target.getChip();
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.mma
//===----------------------------------------------------------------------===//

bool MmaAttr::accepts(Type a, Type b, Type c) const {
  return getA() == a && getB() == b && getC() == c;
}

bool MmaAttr::readsSharedThroughAsyncProxy() const {
  return getKind() == MmaFamily::wgmma;
}

int64_t MmaAttr::getIssueThreads(int64_t warpSize) const {
  return getKind() == MmaFamily::wgmma ? 4 * warpSize : warpSize;
}

bool MmaAttr::hasWgmmaWidth(int64_t n) const {
  if (n <= 0 || n > getN() || n % 8 != 0)
    return false;
  // The integer shapes step by 16 above n32 (PTX ISA, wgmma.mma_async).
  return !isa<IntegerType>(getA()) || n <= 24 || n % 16 == 0;
}

MmaAttr MmaAttr::withShape(int64_t m, int64_t n, int64_t k) const {
  return MmaAttr::get(getContext(), getKind(), m, n, k, getA(), getB(), getC(),
                      getGroupsM(), getGroupsN());
}

MmaAttr MmaAttr::withGroups(int64_t groupsM, int64_t groupsN) const {
  return MmaAttr::get(getContext(), getKind(), getM(), getN(), getK(), getA(),
                      getB(), getC(), groupsM, groupsN);
}

/// Parses the decimal number at the front of `text`, dropping it; fails
/// when `text` does not start with a digit.
static bool consumeNumber(StringRef &text, int64_t &value) {
  size_t digits = text.find_if_not(llvm::isDigit);
  if (digits == 0)
    return false;
  StringRef number = text.take_front(digits);
  text = text.drop_front(digits);
  return !number.getAsInteger(10, value);
}

/// Parses an instruction shape such as `m16n8k16`.
static bool parseShapeKeyword(StringRef text, int64_t &m, int64_t &n,
                              int64_t &k) {
  return text.consume_front("m") && consumeNumber(text, m) &&
         text.consume_front("n") && consumeNumber(text, n) &&
         text.consume_front("k") && consumeNumber(text, k) && text.empty();
}

Attribute MmaAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kindName, shapeName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<MmaFamily> kind = symbolizeMmaFamily(kindName);
  if (!kind) {
    parser.emitError(loc) << "expected mma kind 'mma_sync', 'wgmma' or "
                             "'mfma', got '"
                          << kindName << "'";
    return {};
  }
  SMLoc shapeLoc = parser.getCurrentLocation();
  int64_t m = 0, n = 0, k = 0;
  if (parser.parseKeyword(&shapeName))
    return {};
  if (!parseShapeKeyword(shapeName, m, n, k)) {
    parser.emitError(shapeLoc)
        << "expected an instruction shape such as 'm16n8k16', got '"
        << shapeName << "'";
    return {};
  }
  Type a, b, c;
  if (parser.parseComma() || parser.parseType(a) || parser.parseKeyword("x") ||
      parser.parseType(b) || parser.parseArrow() || parser.parseType(c))
    return {};
  SmallVector<int64_t, 2> groups = {0, 0};
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc groupsLoc;
    if (parser.parseKeyword("groups"))
      return {};
    groupsLoc = parser.getCurrentLocation();
    groups.clear();
    if (parser.parseDimensionList(groups, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return {};
    if (groups.size() != 2) {
      parser.emitError(groupsLoc)
          << "expected groups MxN, got " << groups.size() << " extents";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return MmaAttr::getChecked([&] { return parser.emitError(loc); },
                             parser.getContext(), *kind, m, n, k, a, b, c,
                             groups[0], groups[1]);
}

void MmaAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMmaFamily(getKind()) << " m" << getM() << "n"
          << getN() << "k" << getK() << ", " << getA() << " x " << getB()
          << " -> " << getC();
  if (hasGroups())
    printer << ", groups " << getGroupsM() << "x" << getGroupsN();
  printer << ">";
}

LogicalResult MmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              MmaFamily kind, int64_t m, int64_t n, int64_t k,
                              Type a, Type b, Type c, int64_t groupsM,
                              int64_t groupsN) {
  if (m <= 0 || n <= 0 || k <= 0)
    return emitError() << "expected a positive instruction shape, got m" << m
                       << "n" << n << "k" << k;
  for (auto [role, type] :
       {std::pair<StringRef, Type>{"A", a}, std::pair<StringRef, Type>{"B", b},
        std::pair<StringRef, Type>{"C", c}})
    if (!type || !isa<IntegerType, FloatType>(type))
      return emitError() << "expected an integer or float " << role
                         << " element type, got " << type;
  if ((groupsM > 0) != (groupsN > 0) || groupsM < 0 || groupsN < 0)
    return emitError() << "expected positive groups (or none), got " << groupsM
                       << "x" << groupsN;
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.target
//===----------------------------------------------------------------------===//

/// Every single-bit feature, in bit order.
static constexpr TargetFeature kAllFeatures[] = {
    TargetFeature::cp_async,        TargetFeature::tma,
    TargetFeature::warp_specialize, TargetFeature::buffer_load_lds,
    TargetFeature::vector_atomics,  TargetFeature::clusters,
    TargetFeature::dependent_launch};

bool TargetAttr::has(TargetFeature feature) const {
  return bitEnumContainsAll(getFeatures(), feature);
}

SmallVector<MmaAttr> TargetAttr::getMmaCandidates(Type a, Type b,
                                                  Type c) const {
  SmallVector<MmaAttr> candidates;
  for (MmaAttr mma : getMma())
    if (mma.accepts(a, b, c))
      candidates.push_back(mma);
  return candidates;
}

MmaAttr TargetAttr::selectMma(Type a, Type b, Type c) const {
  for (MmaAttr mma : getMma())
    if (mma.accepts(a, b, c))
      return mma;
  return {};
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  // Short form: a known chip by name.
  std::string chip;
  if (succeeded(parser.parseOptionalString(&chip))) {
    if (parser.parseGreater())
      return {};
    TargetAttr target = lookupTarget(ctx, chip);
    if (!target)
      parser.emitError(loc) << getUnknownChipMessage(chip);
    return target;
  }

  // Full form: every key, in order.
  // Both return true on failure, as ParseResult converts.
  auto parseKey = [&](StringRef key) -> bool {
    return parser.parseKeyword(key) || parser.parseEqual();
  };
  auto parseInt = [&](StringRef key, int64_t &value) -> bool {
    return parser.parseComma() || parseKey(key) || parser.parseInteger(value);
  };
  int64_t warpSize = 0, sharedPerBlock = 0, sharedPerSm = 0;
  int64_t registersPerThread = 0, registersPerSm = 0;
  StringRef vendorName;
  if (parseKey("chip") || parser.parseString(&chip) || parser.parseComma() ||
      parseKey("vendor"))
    return {};
  SMLoc vendorLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&vendorName))
    return {};
  std::optional<Vendor> vendor = symbolizeVendor(vendorName);
  if (!vendor) {
    parser.emitError(vendorLoc)
        << "expected vendor 'nvidia' or 'amd', got '" << vendorName << "'";
    return {};
  }
  if (parseInt("warp_size", warpSize) ||
      parseInt("shared_per_block", sharedPerBlock) ||
      parseInt("shared_per_sm", sharedPerSm) ||
      parseInt("registers_per_thread", registersPerThread) ||
      parseInt("registers_per_sm", registersPerSm) || parser.parseComma() ||
      parseKey("mma"))
    return {};
  SmallVector<MmaAttr> mma;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseAttribute(mma.emplace_back());
      }))
    return {};
  TargetFeature features = TargetFeature::none;
  if (parser.parseComma() || parseKey("features") ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&]() -> ParseResult {
            SMLoc featureLoc = parser.getCurrentLocation();
            StringRef name;
            if (parser.parseKeyword(&name))
              return failure();
            std::optional<TargetFeature> feature = symbolizeTargetFeature(name);
            if (!feature || !llvm::is_contained(kAllFeatures, *feature))
              return parser.emitError(featureLoc)
                     << "unknown target feature '" << name
                     << "' (known: cp_async, tma, warp_specialize, "
                        "vector_atomics, buffer_load_lds, clusters, "
                        "dependent_launch)";
            features = features | *feature;
            return success();
          }) ||
      parser.parseGreater())
    return {};
  return TargetAttr::getChecked(
      [&] { return parser.emitError(loc); }, ctx, StringRef(chip), *vendor,
      warpSize, sharedPerBlock, sharedPerSm, registersPerThread, registersPerSm,
      ArrayRef<MmaAttr>(mma), features);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (*this == lookupTarget(getContext(), getChip())) {
    printer.printString(getChip());
    printer << ">";
    return;
  }
  printer << "chip = ";
  printer.printString(getChip());
  printer << ", vendor = " << stringifyVendor(getVendor())
          << ", warp_size = " << getWarpSize()
          << ", shared_per_block = " << getSharedPerBlock()
          << ", shared_per_sm = " << getSharedPerSm()
          << ", registers_per_thread = " << getRegistersPerThread()
          << ", registers_per_sm = " << getRegistersPerSm() << ", mma = [";
  llvm::interleaveComma(getMma(), printer,
                        [&](MmaAttr mma) { printer.printAttribute(mma); });
  printer << "], features = [";
  llvm::interleaveComma(
      llvm::make_filter_range(kAllFeatures,
                              [&](TargetFeature f) { return has(f); }),
      printer, [&](TargetFeature f) { printer << stringifyTargetFeature(f); });
  printer << "]>";
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, Vendor vendor,
                                 int64_t warpSize, int64_t sharedPerBlock,
                                 int64_t sharedPerSm,
                                 int64_t registersPerThread,
                                 int64_t registersPerSm, ArrayRef<MmaAttr> mma,
                                 TargetFeature features) {
  if (chip.empty())
    return emitError() << "expected a non-empty chip name";
  if (warpSize != 32 && warpSize != 64)
    return emitError() << "expected warp_size 32 or 64, got " << warpSize;
  for (auto [key, value] :
       {std::pair<StringRef, int64_t>{"shared_per_block", sharedPerBlock},
        {"shared_per_sm", sharedPerSm},
        {"registers_per_thread", registersPerThread},
        {"registers_per_sm", registersPerSm}})
    if (value <= 0)
      return emitError() << "expected a positive " << key << ", got " << value;
  if (sharedPerBlock > sharedPerSm)
    return emitError() << "expected shared_per_block (" << sharedPerBlock
                       << ") at most shared_per_sm (" << sharedPerSm << ")";
  for (MmaAttr entry : mma) {
    if (!entry)
      return emitError() << "expected #tile.mma entries in mma";
    bool nvidiaKind = entry.getKind() != MmaFamily::mfma;
    if (nvidiaKind != (vendor == Vendor::nvidia))
      return emitError() << "expected "
                         << (vendor == Vendor::nvidia ? "mma_sync or wgmma"
                                                      : "mfma")
                         << " instructions on an " << stringifyVendor(vendor)
                         << " target, got " << entry;
    if (entry.hasGroups())
      return emitError() << "expected mma entries without groups (a gemm "
                            "chooses them), got "
                         << entry;
  }
  TargetFeature vendorFeatures =
      vendor == Vendor::nvidia
          ? TargetFeature::cp_async | TargetFeature::tma |
                TargetFeature::warp_specialize | TargetFeature::vector_atomics |
                TargetFeature::clusters | TargetFeature::dependent_launch
          : TargetFeature::buffer_load_lds;
  for (TargetFeature feature : kAllFeatures)
    if (bitEnumContainsAll(features, feature) &&
        !bitEnumContainsAll(vendorFeatures, feature))
      return emitError() << "feature " << stringifyTargetFeature(feature)
                         << " is not available on an "
                         << stringifyVendor(vendor) << " target";
  if (bitEnumContainsAll(features, TargetFeature::warp_specialize) &&
      !bitEnumContainsAll(features, TargetFeature::tma))
    return emitError() << "feature warp_specialize needs tma (its producer "
                          "issues TMA loads)";
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got "
                           << value;
  };
  if (name == TargetAttrHelper::getNameStr())
    return expect(isa<TargetAttr>(value), "a #tile.target");
  if (name == LoopAttrHelper::getNameStr())
    return expect(isa<FragmentAttr>(value), "a #tile.fragment");
  if (name == AsyncAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  if (name == ConsumersAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  if (name == ProducerThreadsAttrHelper::getNameStr())
    return expect(isa<IntegerAttr>(value), "an integer");
  if (name == ResidentBlocksAttrHelper::getNameStr())
    return expect(isa<UnitAttr, PersistentBlocksAttr>(value),
                  "a unit attribute or a #tile<persistent_blocks ...>");
  if (name == TensorMapArgsAttrHelper::getNameStr())
    return expect(isa<DenseI64ArrayAttr>(value), "an array<i64>");
  if (name == LoweredAttrHelper::getNameStr() ||
      name == TurnAttrHelper::getNameStr() ||
      name == PersistentAttrHelper::getNameStr() ||
      name == TilesAttrHelper::getNameStr() ||
      name == DependentLaunchAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  return op->emitError() << "unknown tile attribute '" << name
                         << "' (known: tile.target, tile.loop, tile.async, "
                            "tile.consumers, tile.producer_threads, "
                            "tile.tensor_map_args, tile.lowered, tile.turn, "
                            "tile.persistent, tile.tiles, "
                            "tile.resident_blocks, tile.dependent_launch)";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != "tile.zero_init" && name != "tile.overwrite")
    return op->emitError() << "unknown tile argument attribute '" << name
                           << "' (known: tile.zero_init, tile.overwrite)";
  Type type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  auto memref = dyn_cast<MemRefType>(type);
  if (!isa<UnitAttr>(attribute.getValue()) || !memref ||
      memref.getMemorySpace())
    return op->emitError() << "'" << name
                           << "' must be a unit attribute on a "
                              "global memref argument, got "
                           << attribute.getValue() << " on argument "
                           << argIndex << " of type " << type;
  // An output the kernel adds into needs what it held (zeros): the kernel
  // does not overwrite it.
  if (auto function = dyn_cast<FunctionOpInterface>(op);
      function && name == "tile.overwrite" &&
      function.getArgAttr(argIndex, "tile.zero_init"))
    return op->emitError() << "argument " << argIndex
                           << " is both 'tile.overwrite' and "
                              "'tile.zero_init': a zeroed output is added "
                              "into, not overwritten";
  return success();
}
