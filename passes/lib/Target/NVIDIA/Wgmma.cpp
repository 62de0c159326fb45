//===- Wgmma.cpp - tile.gemm as warpgroup MMA ----------------------------===//
//
// On targets with wgmma (sm_90a), a gemm whose operands the descriptors
// can address runs as wgmma.mma_async: each warpgroup issues m64nNkK
// instructions over its part of C, with shared operands read through
// descriptors whose fields (start, leading and stride byte offsets,
// swizzle mode) come from the operand's tile layout, checked element by
// element, and A optionally from registers.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Accesses.h"
#include "Analysis/LayoutInferenceUtils.h"
#include "Lowering/LoweringContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {
/// The shared-memory matrix descriptor of one wgmma operand block, as
/// offsets in elements from the operand's element (0, 0): where the block
/// starts, the leading and stride byte offsets (in elements) and the
/// swizzle mode (1: 128-byte, 2: 64-byte, 3: 32-byte).
struct WgmmaBlock {
  int64_t start = 0, lbo = 0, sbo = 0;
};
} // namespace

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

/// Whether `op` or anything nested in it uses one of `values`, directly
/// or through a view of it.
static bool usesAny(Operation *op, ArrayRef<Value> values) {
  auto rootOf = [](Value v) {
    while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    return v;
  };
  return op
      ->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (llvm::is_contained(values, rootOf(v)))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The pending wait of an earlier wgmma gemm into the accumulator array
/// `c` that a gemm at `op` can take over: in the same block, with the same
/// accumulator registers `regs`, and nothing between its wait and `op`
/// touching `c` or `tileC` (the accumulator as a tile). The later gemm's
/// wgmmas then take the earlier group's results as they are and one wait
/// covers both groups: the tensor cores run the two gemms back to back
/// while the code between them (the next register operand being computed)
/// runs beside the first. Returns its index in `waits`, or -1.
static int64_t chainableWait(ArrayRef<LoweringContext::WgmmaWait> waits,
                             Operation *op, Value c, Value tileC,
                             ArrayRef<int64_t> regs) {
  for (int64_t i = int64_t(waits.size()) - 1; i >= 0; --i) {
    const LoweringContext::WgmmaWait &w = waits[i];
    if (w.c != c)
      continue;
    if (w.acc.empty() || w.regs != regs ||
        w.region->getBlock() != op->getBlock() ||
        !w.region->isBeforeInBlock(op))
      return -1;
    for (Operation *between = w.region->getNextNode(); between != op;
         between = between->getNextNode())
      if (usesAny(between, {c, tileC}))
        return -1;
    return i;
  }
  return -1;
}

/// One function: the descriptor fields of every operand block, checked
/// element by element, and the issue loop share the plan, the operand
/// layouts and the accumulator registers.
std::optional<LogicalResult>
LoweringContext::lowerWgmma(GemmOp op, const WgmmaPlan &plan) {
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
    // Offsets go to the descriptor in 16-byte units. The descriptors leave
    // the base offset 0: each block must start in the first row of the
    // swizzle's 8-row pattern (a view may start elsewhere).
    int64_t swizzleBytes = int64_t(128) >> (o.mode - 1);
    for (const WgmmaBlock &bl : o.blocks)
      ok = ok && (bl.start * bytes) % 16 == 0 && (bl.lbo * bytes) % 16 == 0 &&
           (bl.sbo * bytes) % 16 == 0 &&
           (bl.start * bytes) % (8 * swizzleBytes) < swizzleBytes;
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
  int64_t chained =
      promote || op.getClearAccum()
          ? -1
          : chainableWait(wgmmaWaits, op, cRegs, op.getC(), cRegOf);
  SmallVector<Value, 1> aArrays;
  if (chained >= 0) {
    WgmmaWait prev = wgmmaWaits[chained];
    wgmmaWaits.erase(wgmmaWaits.begin() + chained);
    wgmmaOps.erase(prev.wait);
    acc = prev.acc;
    aArrays = prev.a;
    prev.region->erase();
  }
  for (int64_t blk = 0; chained < 0 && blk < mBlocks * nBlocks; ++blk) {
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
  // An operand's type (f32 multiplicands are read as tf32) or, with
  // `accumulator`, C's.
  auto wgmmaType = [](Type t, bool accumulator = false) {
    if (t.isF32())
      return accumulator ? NVVM::WGMMATypes::f32 : NVVM::WGMMATypes::tf32;
    if (t.isBF16())
      return NVVM::WGMMATypes::bf16;
    if (isa<Float8E4M3FNType>(t))
      return NVVM::WGMMATypes::e4m3;
    if (isa<Float8E5M2Type>(t))
      return NVVM::WGMMATypes::e5m2;
    if (t.isInteger(8))
      return NVVM::WGMMATypes::s8;
    if (t.isInteger(32))
      return NVVM::WGMMATypes::s32;
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
  // Every A register is packed before the fence: a register written
  // between the fence and a wgmma that reads it makes ptxas add a fence of
  // its own before that wgmma.
  SmallVector<SmallVector<Value>> aWords;
  for (int64_t ks = 0; aInRegisters && ks < kSteps; ++ks)
    aWords.push_back(aRegisters(ks));
  wgmmaOps.insert(NVVM::WgmmaFenceAlignedOp::create(b, loc));
  for (int64_t ks = 0; ks < kSteps; ++ks)
    for (int64_t mb = 0; mb < mBlocks; ++mb)
      for (int64_t nb = 0; nb < nBlocks; ++nb) {
        Value &c = acc[mb * nBlocks + nb];
        if (aInRegisters) {
          c = emitRegisterAWgmma(b, loc, c, aWords[ks], descriptor(1, nb, ks),
                                 plan.instrN, aElt.isBF16() ? "bf16" : "f16",
                                 ops[1].kOuter);
          wgmmaOps.insert(c.getDefiningOp());
          continue;
        }
        c = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accType, c, descriptor(0, mb, ks), descriptor(1, nb, ks),
            NVVM::MMAShapeAttr::get(ctx, 64, plan.instrN, plan.k),
            NVVM::WGMMATypesAttr::get(ctx, wgmmaType(aElt)),
            NVVM::WGMMATypesAttr::get(ctx, wgmmaType(bElt)),
            NVVM::WGMMATypesAttr::get(ctx, wgmmaType(cElt, true)),
            NVVM::WGMMAScaleOutAttr::get(ctx, promote && ks == 0
                                                  ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, ops[0].kOuter ? NVVM::MMALayout::col
                                                        : NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, ops[1].kOuter ? NVVM::MMALayout::row
                                                        : NVVM::MMALayout::col),
            // Saturating, as the mma.sync lowering's integer instruction.
            isa<IntegerType>(cElt) ? NVVM::MMAIntOverflowAttr::get(
                                         ctx, NVVM::MMAIntOverflow::satfinite)
                                   : NVVM::MMAIntOverflowAttr());
        wgmmaOps.insert(c.getDefiningOp());
      }
  auto commit = NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  wgmmaOps.insert(commit);
  // The wait, in a region that placeWgmmaWaits() moves to the first use
  // of the accumulators, returns the accumulators it waited for, so that
  // no read of them can be scheduled before it.
  auto region = scf::ExecuteRegionOp::create(b, loc, TypeRange());
  b.setInsertionPointToStart(&region.getRegion().emplaceBlock());
  SmallVector<Value> values;
  for (Value s : acc)
    for (int64_t i = 0; i < accRegs; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += isa<IntegerType>(cElt) ? "=r," : "=f,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  auto allType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(values.size(), cElt));
  auto wait = LLVM::InlineAsmOp::create(
      b, loc, allType, values, "wgmma.wait_group.sync.aligned 0;", constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  wgmmaOps.insert(wait);
  for (size_t i = 0; i < values.size(); ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i);
    Value reg = cst(b, loc, cRegOf[i]);
    if (promote && !op.getClearAccum())
      e = arith::AddFOp::create(
          b, loc, memref::LoadOp::create(b, loc, cRegs, ValueRange{reg}), e);
    memref::StoreOp::create(b, loc, e, cRegs, ValueRange{reg});
  }
  scf::YieldOp::create(b, loc);
  if (aInRegisters && !llvm::is_contained(aArrays, fragments[op.getA()].second))
    aArrays.push_back(fragments[op.getA()].second);
  wgmmaWaits.push_back({region, wait, commit, cRegs, aArrays,
                        promote ? SmallVector<Value>() : acc, cRegOf});
  op.erase();
  return success();
}

/// Whether a wgmma wait that writes the register array `c` (and must
/// precede writes to `a`, the groups' register A operands) may move past
/// `op`: nothing in it touches `c`, writes `a` or touches memory other
/// than registers, and everything in it is free of other effects, a
/// warp shuffle, or part of a wgmma group (`wgmmaOps`).
static bool waitMayPass(Operation *op, Value c, ArrayRef<Value> a,
                        const llvm::DenseSet<Operation *> &wgmmaOps) {
  auto isRegisterArray = [](Value buffer) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        cast<MemRefType>(buffer.getType()).getMemorySpace());
    return space && space.getValue() == gpu::AddressSpace::Private;
  };
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(
            nested)) {
      SmallVector<TileAccess> accesses;
      getAccesses(nested, accesses);
      bool ok = llvm::all_of(accesses, [&](const TileAccess &access) {
        return isRegisterArray(access.buffer) && access.buffer != c &&
               !(access.kind != AccessKind::Read &&
                 llvm::is_contained(a, access.buffer));
      });
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    }
    // A named barrier's arrival (a warpgroup's turn given) waits for
    // nothing and touches no register.
    if (wgmmaOps.contains(nested) ||
        isa<NVVM::ShflOp, NVVM::BarrierArriveOp>(nested) ||
        nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(nested))
      if (!asmOp.getHasSideEffects())
        return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// The effect-free operations after `from` in its block that compute only
/// values stored into the register arrays `a` (the stored value, directly
/// or through other such operations): a wait that must precede the writes
/// of `a` stops before them too. Computed ahead of such a write, a new
/// value of the A operand could be given the register that the wgmma in
/// flight still reads, and ptxas would then serialize the wgmmas.
static llvm::DenseSet<Operation *> feedersOfWrites(Operation *from,
                                                   ArrayRef<Value> a) {
  llvm::DenseSet<Operation *> feeders;
  if (a.empty())
    return feeders;
  auto storesIntoA = [&](OpOperand &use) {
    auto store = dyn_cast<memref::StoreOp>(use.getOwner());
    return store && llvm::is_contained(a, store.getMemRef()) &&
           use.getOperandNumber() == store.getValueMutable().getOperandNumber();
  };
  Block *block = from->getBlock();
  for (Operation &op : llvm::reverse(*block)) {
    if (&op == from)
      break;
    if (op.getNumResults() == 0 || !isMemoryEffectFree(&op) ||
        op.getNumRegions() != 0)
      continue;
    bool onlyFeeds = llvm::all_of(op.getResults(), [&](Value r) {
      return !r.use_empty() && llvm::all_of(r.getUses(), [&](OpOperand &use) {
        return storesIntoA(use) || feeders.contains(use.getOwner());
      });
    });
    if (onlyFeeds)
      feeders.insert(&op);
  }
  return feeders;
}

void LoweringContext::placeWgmmaWaits() {
  for (WgmmaWait &w : wgmmaWaits) {
    // Blocks without a terminator (a kernel's body) end the walk too.
    Block *block = w.region->getBlock();
    llvm::DenseSet<Operation *> feeders = feedersOfWrites(w.region, w.a);
    Operation *next = w.region->getNextNode();
    while (next && !next->hasTrait<OpTrait::IsTerminator>() &&
           !feeders.contains(next) && waitMayPass(next, w.c, w.a, wgmmaOps))
      next = next->getNextNode();
    if (next)
      w.region->moveBefore(next);
    else
      w.region->moveBefore(block, block->end());
  }
  // Counts last: a wait may have moved past another's commit.
  for (WgmmaWait &w : wgmmaWaits) {
    int64_t later = 0;
    for (Operation *op = w.commit->getNextNode(); op != w.region;
         op = op->getNextNode())
      later += isa<NVVM::WgmmaGroupSyncAlignedOp>(op);
    w.wait.setAsmString("wgmma.wait_group.sync.aligned " +
                        std::to_string(later) + ";");
    Block &body = w.region.getRegion().front();
    body.getTerminator()->erase();
    w.region->getBlock()->getOperations().splice(w.region->getIterator(),
                                                 body.getOperations());
    w.region->erase();
  }
  wgmmaWaits.clear();
  wgmmaOps.clear();
}
