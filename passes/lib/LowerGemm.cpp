//===- LowerGemm.cpp - tile.gemm to ldmatrix and mma.sync ----------------===//
//
// Tensorizes tile.gemm for the mma.sync path (sm_80 and later, TileLang
// paper §4.3). The block's warps split the C tile as layout inference did
// (partitionWarps); each warp walks K in steps of the instruction's K and
// issues, per step, one ldmatrix per 16-row block of A and per 16-column
// block of B (ldmatrix.trans where the operand is stored K-outer) and one
// nvgpu.mma.sync per 16x8 block of its C tile. Accumulators stay in vector
// values across the K steps and go back to the C fragment's registers at
// the end. Operands held in fragments (rs, sr, rr) are read from their
// registers; shared operands whose layout does not keep 16-byte rows
// contiguous are read element by element.
//
//===----------------------------------------------------------------------===//

#include "LayoutInferenceUtils.h"
#include "LowerTileInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {
/// The mma.sync instruction of a gemm: m16 n8 k`k`, with `perReg` operand
/// elements in each 32-bit register.
struct MmaKind {
  int64_t k = 0, perReg = 0;
  StringRef fragmentPrefix;
  bool tf32 = false;
  /// Types nvgpu.mma.sync does not lower (bf16, u8) go to nvvm.mma.sync
  /// with this multiplicand type.
  bool viaNVVM = false;
  std::optional<NVVM::MMATypes> ptxType;
};

/// One of A and B as the lowering reads it.
struct GemmOperand {
  Value value;
  bool isA = false;
  /// Stored K x M (A, transpose_a) or K x N (B without transpose_b).
  bool kOuter = false;
  bool inFragment = false;
  /// Shared operands: the tile.alloc it is (a slot of), the indices of the
  /// slot, and the layout of the alloc over its whole shape.
  Value root;
  SmallVector<Value> lead;
  Layout layout;
  /// Read with ldmatrix rather than element by element.
  bool ldmatrix = false;
};
} // namespace

static std::optional<MmaKind> selectMma(Type a, Type b, Type c) {
  if (a != b)
    return std::nullopt;
  if (a.isF16() && (c.isF32() || c.isF16()))
    return MmaKind{16, 2, "mma_m16n8k16", false, false, std::nullopt};
  if (a.isBF16() && c.isF32())
    return MmaKind{16, 2, "mma_m16n8k16", false, true, NVVM::MMATypes::bf16};
  if (a.isF32() && c.isF32())
    return MmaKind{8, 1, "mma_m16n8k8", true, false, std::nullopt};
  if (a.isInteger(8) && c.isInteger(32))
    return a.isUnsignedInteger()
               ? MmaKind{32, 4, "mma_m16n8k32", false, true, NVVM::MMATypes::u8}
               : MmaKind{32, 4, "mma_m16n8k32", false, false, std::nullopt};
  return std::nullopt;
}

/// nvvm.mma.sync m16n8k`k` on operand vectors shaped as nvgpu.mma.sync's
/// (rows of 32-bit registers), for multiplicand type `type`, A row-major and
/// B column-major.
static Value emitNVVMMma(OpBuilder &b, Location loc, Value a, Value bv, Value c,
                         int64_t k, NVVM::MMATypes type) {
  auto registers = [&](Value v) {
    auto vt = cast<VectorType>(v.getType());
    SmallVector<Value> regs;
    auto i32Row = VectorType::get({1}, b.getI32Type());
    for (int64_t r = 0; r < vt.getDimSize(0); ++r) {
      Value row = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{r});
      Value word = vector::BitCastOp::create(b, loc, i32Row, row);
      regs.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return regs;
  };
  auto ct = cast<VectorType>(c.getType());
  Type elt = ct.getElementType();
  SmallVector<Value> cRegs;
  for (int64_t i = 0; i < 4; ++i)
    cRegs.push_back(
        vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{i / 2, i % 2}));
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, elt));
  auto mma = NVVM::MmaOp::create(
      b, loc, resultType, registers(a), registers(bv), cRegs,
      ArrayRef<int64_t>{16, 8, k}, std::nullopt,
      elt.isInteger(32) ? std::optional(NVVM::MMAIntOverflow::wrapped)
                        : std::nullopt,
      std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, mma, i));
  return vector::FromElementsOp::create(b, loc, ct, out);
}

/// True when every run of `width` elements along the last dimension,
/// starting at a multiple of `width`, is contiguous and aligned in
/// `layout`: what ldmatrix needs of each 16-byte row it reads.
static bool keepsRowsContiguous(const Layout &layout, int64_t width) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.back() % width != 0)
    return false;
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c0 = 0; c0 < shape[1]; c0 += width) {
      int64_t base = layout.apply({r, c0})[0];
      if (base % width != 0)
        return false;
      for (int64_t j = 1; j < width; ++j)
        if (layout.apply({r, c0 + j})[0] != base + j)
          return false;
    }
  return true;
}

/// The shared-memory matrix descriptor of one wgmma operand block, as
/// offsets in elements from the operand's element (0, 0): where the block
/// starts, the leading and stride byte offsets (in elements) and the
/// swizzle mode (1: 128-byte, 2: 64-byte, 3: 32-byte).
struct WgmmaBlock {
  int64_t start = 0, lbo = 0, sbo = 0;
};

/// The swizzle mode field of a descriptor for `layout`'s XOR swizzle, or 0
/// when it has none of the three wgmma swizzles.
static int64_t wgmmaSwizzleMode(const Layout &layout, int64_t elementBytes) {
  const Swizzle &swz = layout.getSwizzle();
  if (swz.isIdentity() || swz.shift != 3 ||
      (int64_t(1) << swz.base) * elementBytes != 16)
    return 0;
  switch (swz.bits) {
  case 3:
    return 1;
  case 2:
    return 2;
  case 1:
    return 3;
  default:
    return 0;
  }
}

/// Reads the canonical wgmma layout of the operand block of `layout` at
/// `origin` (row, column of the stored operand) spanning `mnExtent` rows or
/// columns of M/N and 16 of K: K-major when the operand is stored with K
/// innermost (`kOuter` false), M/N-major otherwise. Every element is
/// checked against what the hardware will address; std::nullopt when one
/// differs.
static std::optional<WgmmaBlock>
matchWgmmaBlock(const Layout &layout, int64_t atom, bool kOuter,
                ArrayRef<int64_t> origin, int64_t mnExtent, int64_t kExtent) {
  const Swizzle &swz = layout.getSwizzle();
  auto at = [&](int64_t r, int64_t c) {
    return swz.apply(layout.apply({origin[0] + r, origin[1] + c})[0]);
  };
  WgmmaBlock block;
  block.start = at(0, 0);
  int64_t rows = kOuter ? kExtent : mnExtent;
  int64_t cols = kOuter ? mnExtent : kExtent;
  if (rows > 8)
    block.sbo = at(8, 0) - block.start;
  if (kOuter && cols > atom)
    block.lbo = at(0, atom) - block.start;
  if (!kOuter && (origin[1] % atom) + kExtent > atom)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t canonical = block.start + (r % 8) * atom + (r / 8) * block.sbo +
                          (c % atom) + (c / atom) * block.lbo;
      if (!kOuter)
        canonical = block.start + (r % 8) * atom + (r / 8) * block.sbo + c;
      if (swz.apply(canonical) !=
          layout.apply({origin[0] + r, origin[1] + c})[0])
        return std::nullopt;
    }
  return block;
}

bool KernelLowering::resolveShared(Value buffer, Value &root, Layout &layout,
                                   const Slot *&slot) {
  slot = nullptr;
  if (buffer.getDefiningOp<AllocOp>()) {
    root = buffer;
    auto it = sharedLayouts.find(root);
    layout =
        it != sharedLayouts.end()
            ? it->second.first
            : Layout::rowMajor(buffer.getContext(),
                               cast<MemRefType>(buffer.getType()).getShape());
    return true;
  }
  if ((slot = getSlot(buffer))) {
    root = slot->root;
    layout = slot->layout;
    return true;
  }
  return false;
}

/// wgmma.mma_async m64`n`k16 with A from registers (`a`: four 32-bit
/// registers of two `type` elements each) and B from shared memory
/// (`descB`, `transB` for B stored K x N), accumulating into the f32 struct
/// `acc`. Upstream's op has no register-A form, so this is inline PTX.
static Value emitRegisterAWgmma(OpBuilder &b, Location loc, Value acc,
                                ArrayRef<Value> a, Value descB, int64_t n,
                                StringRef type, bool transB) {
  auto accType = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t regs = accType.getBody().size();
  SmallVector<Value> operands;
  for (int64_t i = 0; i < regs; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  operands.append(a.begin(), a.end());
  operands.push_back(descB);
  std::string text, constraints;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << type << "."
     << type << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, {$" << 2 * regs << ", $" << 2 * regs + 1 << ", $" << 2 * regs + 2
     << ", $" << 2 * regs + 3 << "}, $" << 2 * regs + 4 << ", p, 1, 1, "
     << (transB ? 1 : 0) << ";\n}";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < regs; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  return LLVM::InlineAsmOp::create(b, loc, accType, operands, text, constraints,
                                   /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

std::optional<LogicalResult> KernelLowering::lowerWgmma(GemmOp op,
                                                        const WgmmaPlan &plan) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  MemRefType aType = op.getA().getType(), cType = op.getC().getType();
  Type aElt = aType.getElementType(), cElt = cType.getElementType();
  Type bElt = op.getB().getType().getElementType();
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t kDim = aType.getDimSize(op.getTransposeA() ? 0 : 1);
  int64_t wgRows = m / plan.wgM, wgCols = n / plan.wgN;
  int64_t mBlocks = wgRows / 64, nBlocks = wgCols / plan.instrN;
  int64_t kSteps = kDim / plan.k, accRegs = plan.instrN / 2;
  int64_t bytes = elementBytes(aElt);

  // Everything is checked before any IR is built: a C fragment or an
  // operand layout that wgmma cannot take leaves the gemm to mma.sync.
  auto cIt = fragments.find(op.getC());
  if (cIt == fragments.end())
    return std::nullopt;
  const Fragment &cFrag = cIt->second.first;
  Value cRegs = cIt->second.second;
  // The register of each accumulator element of each instruction.
  SmallVector<int64_t> cRegOf;
  for (int64_t mb = 0; mb < mBlocks; ++mb)
    for (int64_t nb = 0; nb < nBlocks; ++nb)
      for (int64_t i = 0; i < accRegs; ++i) {
        int64_t reg = uniformRegister(cFrag, threads, [&](int64_t t) {
          int64_t g = t / 128, w = (t % 128) / 32, lane = t % 32;
          int64_t row = (g % plan.wgM) * wgRows + mb * 64 + w * 16 + lane / 4 +
                        8 * ((i / 2) % 2);
          int64_t col = (g / plan.wgM) * wgCols + nb * plan.instrN +
                        (lane % 4) * 2 + i % 2 + 8 * (i / 4);
          return SmallVector<int64_t>{row, col};
        });
        if (reg < 0)
          return std::nullopt;
        cRegOf.push_back(reg);
      }

  OpBuilder b(op);
  // Per operand: the descriptor fields of every (block, k step), relative
  // to the operand's (0, 0), plus the offset of warpgroup row or column
  // block g as g times `perGroup`.
  struct Operand {
    Value value, root;
    SmallVector<Value> lead;
    Layout layout;
    bool kOuter = false;
    int64_t mode = 0;
    SmallVector<WgmmaBlock> blocks;
    int64_t perGroup = 0;
  } ops[2];
  ops[0].value = op.getA();
  ops[0].kOuter = op.getTransposeA();
  ops[1].value = op.getB();
  ops[1].kOuter = !op.getTransposeB();
  // A in registers (rs): the register of each (k step, element) of the
  // mma.sync-shaped A fragment of every warp.
  bool aInRegisters =
      getMemorySpace(op.getA().getType()) == MemorySpace::Fragment;
  SmallVector<int64_t> aRegOf;
  if (aInRegisters) {
    auto aIt = fragments.find(op.getA());
    std::string error;
    std::optional<Fragment> atom =
        getBuiltinFragment(ctx, "mma_m16n8k16_a", {16, 16}, 0, error);
    std::optional<Layout> inv = atom ? atom->inverse() : std::nullopt;
    if (aIt == fragments.end() || !inv || mBlocks != 1)
      return std::nullopt;
    for (int64_t ks = 0; ks < kSteps; ++ks)
      for (int64_t r = 0; r < 8; ++r) {
        int64_t reg =
            uniformRegister(aIt->second.first, threads, [&](int64_t t) {
              SmallVector<int64_t> rc = inv->apply({t % 32, r});
              int64_t g = t / 128;
              int64_t row = (g % plan.wgM) * 64 + ((t % 128) / 32) * 16 + rc[0];
              return SmallVector<int64_t>{row, ks * 16 + rc[1]};
            });
        if (reg < 0)
          return std::nullopt;
        aRegOf.push_back(reg);
      }
  }
  for (int i = aInRegisters ? 1 : 0; i < 2; ++i) {
    Operand &o = ops[i];
    const Slot *slot = nullptr;
    if (!resolveShared(o.value, o.root, o.layout, slot))
      return std::nullopt;
    o.mode = wgmmaSwizzleMode(o.layout, bytes);
    int64_t atom = o.mode ? (int64_t(128) >> (o.mode - 1)) / bytes : 0;
    int64_t groups = i == 0 ? plan.wgM : plan.wgN;
    int64_t perGroupMN = i == 0 ? wgRows : wgCols;
    int64_t blocks = i == 0 ? mBlocks : nBlocks;
    int64_t mnExtent = i == 0 ? 64 : plan.instrN;
    auto originOf = [&](int64_t mn, int64_t k) {
      return o.kOuter ? SmallVector<int64_t>{k, mn}
                      : SmallVector<int64_t>{mn, k};
    };
    bool ok = o.mode != 0;
    for (int64_t g = 0; ok && g < groups; ++g)
      for (int64_t bl = 0; ok && bl < blocks; ++bl)
        for (int64_t ks = 0; ok && ks < kSteps; ++ks) {
          std::optional<WgmmaBlock> block = matchWgmmaBlock(
              o.layout, atom, o.kOuter,
              originOf(g * perGroupMN + bl * mnExtent, ks * plan.k), mnExtent,
              plan.k);
          if (!block) {
            ok = false;
            break;
          }
          if (g == 0) {
            o.blocks.push_back(*block);
            continue;
          }
          // Warpgroups differ by a constant offset per group.
          const WgmmaBlock &first = o.blocks[bl * kSteps + ks];
          if (g == 1 && bl == 0 && ks == 0)
            o.perGroup = block->start - first.start;
          ok = block->start == first.start + g * o.perGroup &&
               block->lbo == first.lbo && block->sbo == first.sbo;
        }
    // Offsets go to the descriptor in 16-byte units.
    for (const WgmmaBlock &bl : o.blocks)
      ok = ok && (bl.start * bytes) % 16 == 0 && (bl.lbo * bytes) % 16 == 0 &&
           (bl.sbo * bytes) % 16 == 0;
    ok = ok && (o.perGroup * bytes) % 16 == 0;
    if (!ok)
      return std::nullopt;
    if (slot)
      o.lead = slot->leadValues(b, loc);
  }

  // Runtime descriptors: the operand's (0, 0) address in 16-byte units and
  // the constant fields, then per block an added start offset.
  Type i64 = b.getI64Type();
  auto i64cst = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value wg = arith::DivUIOp::create(b, loc, tid, cst(b, loc, 128));
  Value groupIndex[2] = {
      arith::RemUIOp::create(b, loc, wg, cst(b, loc, plan.wgM)),
      arith::DivUIOp::create(b, loc, wg, cst(b, loc, plan.wgM))};
  Value base[2];
  for (int i = aInRegisters ? 1 : 0; i < 2; ++i) {
    Operand &o = ops[i];
    SmallVector<Value> origin(o.lead);
    origin.append({cst(b, loc, 0), cst(b, loc, 0)});
    auto [mem, idx] = address(b, loc, o.root, origin);
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
    Value elems = idx.empty() ? cst(b, loc, 0) : idx[0];
    if (o.perGroup)
      elems =
          arith::AddIOp::create(b, loc, elems,
                                arith::MulIOp::create(b, loc, groupIndex[i],
                                                      cst(b, loc, o.perGroup)));
    Value addr = arith::AddIOp::create(
        b, loc, ptr, arith::MulIOp::create(b, loc, elems, cst(b, loc, bytes)));
    Value units = arith::ShRUIOp::create(
        b, loc, arith::IndexCastUIOp::create(b, loc, i64, addr), i64cst(4));
    const WgmmaBlock &first = o.blocks.front();
    int64_t fields = (((first.lbo * bytes) >> 4) & 0x3fff) << 16 |
                     (((first.sbo * bytes) >> 4) & 0x3fff) << 32 | o.mode << 62;
    base[i] = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, units, i64cst(0x3fff)),
        i64cst(fields));
  }
  auto descriptor = [&](int i, int64_t block, int64_t ks) -> Value {
    const WgmmaBlock &bl = ops[i].blocks[block * kSteps + ks];
    int64_t units = (bl.start * bytes) >> 4;
    return units ? arith::AddIOp::create(b, loc, base[i], i64cst(units))
                       .getResult()
                 : base[i];
  };

  // Accumulators, one struct per instruction block. 8-bit float wgmma adds
  // into a sum narrower than f32 (about 14 bits kept): the gemm's products
  // go to fresh accumulators (the first instruction ignores them) that are
  // then added to C in f32, so the narrow sums span one gemm's K only.
  bool promote = isa<Float8E4M3FNType, Float8E5M2Type>(aElt);
  auto accType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(accRegs, cElt));
  SmallVector<Value> acc;
  for (int64_t blk = 0; blk < mBlocks * nBlocks; ++blk) {
    Value s = LLVM::PoisonOp::create(b, loc, accType);
    for (int64_t i = 0; !promote && i < accRegs; ++i) {
      Value e = op.getClearAccum()
                    ? zeroOf(b, loc, cElt)
                    : memref::LoadOp::create(
                          b, loc, cRegs,
                          ValueRange{cst(b, loc, cRegOf[blk * accRegs + i])})
                          .getResult();
      s = LLVM::InsertValueOp::create(b, loc, s, e, i);
    }
    acc.push_back(s);
  }
  auto wgmmaType = [](Type t) {
    if (t.isBF16())
      return NVVM::WGMMATypes::bf16;
    if (isa<Float8E4M3FNType>(t))
      return NVVM::WGMMATypes::e4m3;
    if (isa<Float8E5M2Type>(t))
      return NVVM::WGMMATypes::e5m2;
    return NVVM::WGMMATypes::f16;
  };
  // Register A of k step `ks`: four 32-bit registers of two elements.
  auto aRegisters = [&](int64_t ks) {
    SmallVector<Value> words;
    Value aRegs = aInRegisters ? fragments[op.getA()].second : Value();
    auto pairType = VectorType::get({2}, aElt);
    auto wordType = VectorType::get({1}, b.getI32Type());
    for (int64_t j = 0; j < 4; ++j) {
      SmallVector<Value> pair;
      for (int64_t e = 0; e < 2; ++e)
        pair.push_back(memref::LoadOp::create(
            b, loc, aRegs,
            ValueRange{cst(b, loc, aRegOf[ks * 8 + 2 * j + e])}));
      Value v = vector::FromElementsOp::create(b, loc, pairType, pair);
      Value w = vector::BitCastOp::create(b, loc, wordType, v);
      words.push_back(
          vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{0}));
    }
    return words;
  };
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < kSteps; ++ks)
    for (int64_t mb = 0; mb < mBlocks; ++mb)
      for (int64_t nb = 0; nb < nBlocks; ++nb) {
        Value &c = acc[mb * nBlocks + nb];
        if (aInRegisters) {
          c = emitRegisterAWgmma(b, loc, c, aRegisters(ks),
                                 descriptor(1, nb, ks), plan.instrN,
                                 aElt.isBF16() ? "bf16" : "f16", ops[1].kOuter);
          continue;
        }
        c = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accType, c, descriptor(0, mb, ks), descriptor(1, nb, ks),
            NVVM::MMAShapeAttr::get(ctx, 64, plan.instrN, plan.k),
            NVVM::WGMMATypesAttr::get(ctx, wgmmaType(aElt)),
            NVVM::WGMMATypesAttr::get(ctx, wgmmaType(bElt)),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, promote && ks == 0
                                                  ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, ops[0].kOuter ? NVVM::MMALayout::col
                                                        : NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, ops[1].kOuter ? NVVM::MMALayout::row
                                                        : NVVM::MMALayout::col),
            NVVM::MMAIntOverflowAttr());
      }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The wait returns the accumulators it waited for, so that no read of
  // them can be scheduled before it.
  SmallVector<Value> values;
  for (Value s : acc)
    for (int64_t i = 0; i < accRegs; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += "=f,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  auto allType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(values.size(), cElt));
  auto wait = LLVM::InlineAsmOp::create(
      b, loc, allType, values, "wgmma.wait_group.sync.aligned 0;", constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  for (size_t i = 0; i < values.size(); ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i);
    Value reg = cst(b, loc, cRegOf[i]);
    if (promote && !op.getClearAccum())
      e = arith::AddFOp::create(
          b, loc, memref::LoadOp::create(b, loc, cRegs, ValueRange{reg}), e);
    memref::StoreOp::create(b, loc, e, cRegs, ValueRange{reg});
  }
  op.erase();
  return success();
}

LogicalResult KernelLowering::lowerGemm(GemmOp op) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(),
             cType = op.getC().getType();
  Type aElt = aType.getElementType(), cElt = cType.getElementType();
  {
    auto space = [](Value v) {
      return getMemorySpace(cast<MemRefType>(v.getType()));
    };
    int64_t kDim = aType.getDimSize(op.getTransposeA() ? 0 : 1);
    if (std::optional<WgmmaPlan> plan =
            planWgmma(chip, aElt, bType.getElementType(), cElt,
                      space(op.getA()) == MemorySpace::Shared ||
                          (space(op.getA()) == MemorySpace::Fragment &&
                           isWgmmaRegisterA(aElt, op.getTransposeA())),
                      space(op.getB()) == MemorySpace::Shared,
                      op.getTransposeA(), op.getTransposeB(), aType.getShape(),
                      bType.getShape(), cType.getDimSize(0),
                      cType.getDimSize(1), kDim, threads, op.getPolicy()))
      if (std::optional<LogicalResult> done = lowerWgmma(op, *plan))
        return *done;
  }
  std::optional<MmaKind> mma = selectMma(aElt, bType.getElementType(), cElt);
  if (!mma)
    return op.emitOpError()
           << "has no mma.sync lowering for A " << aElt << ", B "
           << bType.getElementType() << ", C " << cElt
           << " (supported: f16 -> f32|f16, bf16 -> f32, f32 (as tf32) -> "
              "f32, i8 -> i32)";
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t kDim = aType.getDimSize(op.getTransposeA() ? 0 : 1);
  if (m % 16 || n % 8 || kDim % mma->k)
    return op.emitOpError() << "expected M, N and K to be multiples of 16, 8 "
                               "and "
                            << mma->k << " (the mma.sync shape m16n8k" << mma->k
                            << "), got " << m << "x" << n << "x" << kDim;
  std::optional<std::pair<int64_t, int64_t>> split =
      partitionWarps(m, n, threads / 32, op.getPolicy());
  if (!split)
    return op.emitOpError()
           << "cannot split the " << m << "x" << n << " C tile over "
           << threads / 32 << " warps with policy "
           << stringifyGemmPolicy(op.getPolicy());
  auto [wm, wn] = *split;
  int64_t warpM = m / wm, warpN = n / wn;
  int64_t mAtoms = warpM / 16, nAtoms = warpN / 8, kSteps = kDim / mma->k;
  int64_t perReg = mma->perReg;

  // (lane, register) -> coordinates of the three instruction fragments.
  std::string error;
  auto atomInverse = [&](StringRef suffix, ArrayRef<int64_t> shape) {
    std::optional<Fragment> f = getBuiltinFragment(
        ctx, (mma->fragmentPrefix + suffix).str(), shape, 0, error);
    return f ? f->inverse() : std::nullopt;
  };
  std::optional<Layout> aInv = atomInverse("_a", {16, mma->k});
  std::optional<Layout> bInv = atomInverse("_b", {mma->k, 8});
  std::optional<Layout> cInv = atomInverse("_c", {16, 8});
  if (!aInv || !bInv || !cInv)
    return op.emitOpError() << "internal error: mma fragments: " << error;

  auto cIt = fragments.find(op.getC());
  if (cIt == fragments.end())
    return op.emitOpError("expected C to be a tile.alloc fragment with a "
                          "layout; run tile-infer-layout first");
  const Fragment &cFrag = cIt->second.first;
  Value cRegs = cIt->second.second;

  // Thread t's warp position, for the compile-time register checks.
  auto warpOrigin = [&](int64_t t) {
    int64_t w = t / 32;
    return std::make_pair((w % wm) * warpM, (w / wm) * warpN);
  };

  // C registers of each (mAtom, nAtom, register of the atom).
  SmallVector<int64_t> cRegOf;
  for (int64_t mi = 0; mi < mAtoms; ++mi)
    for (int64_t ni = 0; ni < nAtoms; ++ni)
      for (int64_t r = 0; r < 4; ++r) {
        int64_t reg = uniformRegister(cFrag, threads, [&](int64_t t) {
          auto [row0, col0] = warpOrigin(t);
          SmallVector<int64_t> rc = cInv->apply({t % 32, r});
          return SmallVector<int64_t>{row0 + mi * 16 + rc[0],
                                      col0 + ni * 8 + rc[1]};
        });
        if (reg < 0)
          return op.emitOpError()
                 << "expected C laid out as the " << mma->fragmentPrefix
                 << "_c accumulator over " << wm << "x" << wn
                 << " warps (repeat = [" << mAtoms << ", " << nAtoms
                 << "], repeat_on_thread = [" << wm << ", " << wn << "])";
        cRegOf.push_back(reg);
      }

  OpBuilder b(op);
  GemmOperand ops[2];
  ops[0].value = op.getA();
  ops[0].isA = true;
  ops[0].kOuter = op.getTransposeA();
  ops[1].value = op.getB();
  ops[1].kOuter = !op.getTransposeB();
  int64_t elemBits = aElt.getIntOrFloatBitWidth();
  int64_t rowElems = 128 / elemBits; // a 16-byte ldmatrix row
  for (GemmOperand &o : ops) {
    StringRef name = o.isA ? "A" : "B";
    o.inFragment = getMemorySpace(cast<MemRefType>(o.value.getType())) ==
                   MemorySpace::Fragment;
    if (o.inFragment) {
      if (!fragments.count(o.value))
        return op.emitOpError() << "expected " << name
                                << " to be a tile.alloc fragment with a layout";
      continue;
    }
    const Slot *slot = nullptr;
    if (resolveShared(o.value, o.root, o.layout, slot)) {
      if (slot)
        o.lead = slot->leadValues(b, loc);
    } else {
      return op.emitOpError()
             << "expected " << name
             << " to be a shared tile.alloc or one slot of a multi-buffered "
                "one";
    }
    // ldmatrix.trans moves 16-bit elements only.
    o.ldmatrix = (!o.kOuter || elemBits == 16) &&
                 keepsRowsContiguous(o.layout, rowElems);
  }

  // Fragment operands: the register of each (atom, k step, register).
  auto operandRegisters = [&](GemmOperand &o,
                              SmallVector<int64_t> &regs) -> LogicalResult {
    const Fragment &frag = fragments[o.value].first;
    int64_t atoms = o.isA ? mAtoms : nAtoms;
    int64_t numRegs = (o.isA ? 4 : 2) * perReg;
    const Layout &inv = o.isA ? *aInv : *bInv;
    for (int64_t a = 0; a < atoms; ++a)
      for (int64_t ks = 0; ks < kSteps; ++ks)
        for (int64_t r = 0; r < numRegs; ++r) {
          int64_t reg = uniformRegister(frag, threads, [&](int64_t t) {
            auto [row0, col0] = warpOrigin(t);
            SmallVector<int64_t> c = inv.apply({t % 32, r});
            int64_t mn = o.isA ? row0 + a * 16 + c[0] : col0 + a * 8 + c[1];
            int64_t k = ks * mma->k + (o.isA ? c[1] : c[0]);
            return o.kOuter ? SmallVector<int64_t>{k, mn}
                            : SmallVector<int64_t>{mn, k};
          });
          if (reg < 0)
            return op.emitOpError()
                   << "expected " << (o.isA ? "A" : "B") << " laid out as the "
                   << mma->fragmentPrefix << (o.isA ? "_a" : "_b")
                   << " operand of " << wm << "x" << wn << " warps";
          regs.push_back(reg);
        }
    return success();
  };
  SmallVector<int64_t> fragRegs[2];
  for (int i = 0; i < 2; ++i)
    if (ops[i].inFragment && failed(operandRegisters(ops[i], fragRegs[i])))
      return failure();

  Value c32 = cst(b, loc, 32);
  Value lane = arith::RemUIOp::create(b, loc, tid, c32);
  Value warp = arith::DivUIOp::create(b, loc, tid, c32);
  Value rowBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, warp, cst(b, loc, wm)),
      cst(b, loc, warpM));
  Value colBase = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, warp, cst(b, loc, wm)),
      cst(b, loc, warpN));
  auto add = [&](Value x, int64_t c) {
    return c == 0 ? x : b.createOrFold<arith::AddIOp>(loc, x, cst(b, loc, c));
  };
  auto addv = [&](Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  };
  // lane / 8 mod 2, lane mod 8 and lane / 16: an ldmatrix lane's matrix
  // row and which of the four 8x8 matrices it addresses.
  Value laneRow = arith::RemUIOp::create(b, loc, lane, cst(b, loc, 8));
  Value laneHalf = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, cst(b, loc, 8)),
      cst(b, loc, 2));
  Value laneQuad = arith::DivUIOp::create(b, loc, lane, cst(b, loc, 16));

  Type opElt = aElt;
  auto fragType = [&](int64_t regs) {
    return VectorType::get({regs, perReg}, opElt);
  };
  auto sharedAddress = [&](GemmOperand &o, Value row, Value col) {
    SmallVector<Value> coords(o.lead);
    coords.push_back(row);
    coords.push_back(col);
    return address(b, loc, o.root, coords);
  };
  // Element by element: register r of the atom at (mn0, k0) of operand o.
  auto loadElements = [&](GemmOperand &o, Value mn0, Value k0, int64_t regs,
                          int64_t fragBase) -> Value {
    const Layout &inv = o.isA ? *aInv : *bInv;
    SmallVector<Value> elems;
    for (int64_t r = 0; r < regs * perReg; ++r) {
      if (o.inFragment) {
        elems.push_back(memref::LoadOp::create(
            b, loc, fragments[o.value].second,
            ValueRange{cst(b, loc, fragRegs[o.isA ? 0 : 1][fragBase + r])}));
        continue;
      }
      SmallVector<Value> c = materialize(b, loc, inv, {lane, cst(b, loc, r)});
      Value mn = addv(mn0, o.isA ? c[0] : c[1]);
      Value k = addv(k0, o.isA ? c[1] : c[0]);
      auto [mem, idx] =
          o.kOuter ? sharedAddress(o, k, mn) : sharedAddress(o, mn, k);
      elems.push_back(memref::LoadOp::create(b, loc, mem, idx));
    }
    return vector::FromElementsOp::create(b, loc, fragType(regs), elems);
  };
  // One ldmatrix of `tiles` 8x8 matrices. Matrix i covers rows
  // (i mod 2) * 8 (A) or (i / 2) * 8 (B) of M/N and the K half i / 2 (A)
  // or i mod 2 (B).
  auto loadMatrix = [&](GemmOperand &o, Value mn0, Value k0,
                        int64_t tiles) -> Value {
    Value mnSel = o.isA ? laneHalf : laneQuad;
    Value kSel = o.isA ? laneQuad : laneHalf;
    if (tiles == 2) // lanes 16..31 give no address: keep them in range
      mnSel = o.isA ? laneHalf : cst(b, loc, 0);
    Value mnOff = b.createOrFold<arith::MulIOp>(loc, mnSel, cst(b, loc, 8));
    Value row, col;
    if (!o.kOuter) {
      // Rows of the matrices run along M/N, 16-byte rows along K.
      row = addv(addv(mn0, mnOff), laneRow);
      col = addv(
          k0, b.createOrFold<arith::MulIOp>(loc, kSel, cst(b, loc, rowElems)));
    } else {
      // Stored K-outer: rows run along K, transposed on load.
      row = addv(
          addv(k0, b.createOrFold<arith::MulIOp>(loc, kSel, cst(b, loc, 8))),
          laneRow);
      col = addv(mn0, mnOff);
    }
    auto [mem, idx] = sharedAddress(o, row, col);
    return nvgpu::LdMatrixOp::create(b, loc, fragType(tiles), mem, idx,
                                     /*transpose=*/o.kOuter, tiles);
  };
  auto rowsOf = [&](Value v, int64_t first, int64_t count) -> Value {
    SmallVector<Value> elems;
    for (int64_t r = first; r < first + count; ++r)
      for (int64_t e = 0; e < perReg; ++e)
        elems.push_back(
            vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{r, e}));
    return vector::FromElementsOp::create(b, loc, fragType(count), elems);
  };

  // Accumulators.
  auto accType = VectorType::get({2, 2}, cElt);
  SmallVector<Value> acc(mAtoms * nAtoms);
  for (int64_t i = 0; i < mAtoms * nAtoms; ++i) {
    if (op.getClearAccum()) {
      acc[i] = arith::ConstantOp::create(
          b, loc, accType,
          DenseElementsAttr::get(accType, b.getZeroAttr(cElt)));
      continue;
    }
    SmallVector<Value> elems;
    for (int64_t r = 0; r < 4; ++r)
      elems.push_back(memref::LoadOp::create(
          b, loc, cRegs, ValueRange{cst(b, loc, cRegOf[i * 4 + r])}));
    acc[i] = vector::FromElementsOp::create(b, loc, accType, elems);
  }

  for (int64_t ks = 0; ks < kSteps; ++ks) {
    Value k0 = cst(b, loc, ks * mma->k);
    SmallVector<Value> aFrags, bFrags;
    GemmOperand &a = ops[0], &bo = ops[1];
    for (int64_t mi = 0; mi < mAtoms; ++mi) {
      Value m0 = add(rowBase, mi * 16);
      aFrags.push_back(
          a.ldmatrix
              ? loadMatrix(a, m0, k0, 4)
              : loadElements(a, m0, k0, 4, (mi * kSteps + ks) * 4 * perReg));
    }
    for (int64_t ni = 0; ni < nAtoms; ++ni) {
      Value n0 = add(colBase, ni * 8);
      if (!bo.ldmatrix) {
        bFrags.push_back(
            loadElements(bo, n0, k0, 2, (ni * kSteps + ks) * 2 * perReg));
        continue;
      }
      if (ni + 1 < nAtoms) {
        Value pair = loadMatrix(bo, n0, k0, 4);
        bFrags.push_back(rowsOf(pair, 0, 2));
        bFrags.push_back(rowsOf(pair, 2, 2));
        ++ni;
        continue;
      }
      bFrags.push_back(loadMatrix(bo, n0, k0, 2));
    }
    for (int64_t mi = 0; mi < mAtoms; ++mi)
      for (int64_t ni = 0; ni < nAtoms; ++ni) {
        // Snake through N so consecutive instructions share an operand.
        int64_t nj = mi % 2 ? nAtoms - 1 - ni : ni;
        Value &c = acc[mi * nAtoms + nj];
        c = mma->viaNVVM
                ? emitNVVMMma(b, loc, aFrags[mi], bFrags[nj], c, mma->k,
                              *mma->ptxType)
                : nvgpu::MmaSyncOp::create(b, loc, aFrags[mi], bFrags[nj], c,
                                           ArrayRef<int64_t>{16, 8, mma->k},
                                           mma->tf32)
                      .getResult();
      }
  }

  for (int64_t i = 0; i < mAtoms * nAtoms; ++i)
    for (int64_t r = 0; r < 4; ++r) {
      Value e = vector::ExtractOp::create(b, loc, acc[i],
                                          ArrayRef<int64_t>{r / 2, r % 2});
      memref::StoreOp::create(b, loc, e, cRegs,
                              ValueRange{cst(b, loc, cRegOf[i * 4 + r])});
    }
  op.erase();
  return success();
}
