//===- Gemm.cpp - tile.gemm ----------------------------------------------===//
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

#include "Analysis/Accesses.h"
#include "Analysis/LayoutInference.h"
#include "Analysis/LayoutInferenceUtils.h"
#include "Lowering/LoweringContext.h"
#include "Ops/OpModels.h"
#include "Target/AMD/Mfma.h"

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
  /// Shared operands: the tile.alloc it is (a slot or view of) and its
  /// layout over the operand's shape.
  Value root;
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
  if (a.isSignlessInteger(8) && c.isSignlessInteger(32))
    return MmaKind{32, 4, "mma_m16n8k32", false, false, std::nullopt};
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

bool LoweringContext::resolveShared(Value buffer, Value &root, Layout &layout,
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

/// Lowers `op` as its recorded instruction.
///
/// One function: the operand resolution, the register checks against the
/// layouts and the unrolled K loop of ldmatrix and mma.sync share the warp
/// partition, the operand descriptions and the accumulator registers.
LogicalResult LoweringContext::lowerGemm(GemmOp op) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(),
             cType = op.getC().getType();
  Type aElt = aType.getElementType(), cElt = cType.getElementType();
  // Layout inference chose the instruction; its layouts fit it.
  MmaAttr instruction = op.getMmaAttr();
  if (!instruction)
    return op.emitOpError() << "expected its tensor-core instruction (an "
                               "'mma' attribute); run tile-infer-layout first";
  if (instruction.getKind() == MmaFamily::wgmma) {
    WgmmaPlan plan;
    plan.wgM = instruction.getGroupsM();
    plan.wgN = instruction.getGroupsN();
    plan.instrN = instruction.getN();
    plan.k = instruction.getK();
    if (std::optional<LogicalResult> done = lowerWgmma(op, plan))
      return *done;
    return op.emitOpError() << "cannot run as " << instruction
                            << ": its operand layouts do not fit the "
                               "instruction's descriptors";
  }
  if (instruction.getKind() == MmaFamily::mfma) {
    if (!options.target.isAMD())
      return op.emitOpError()
             << "cannot run as " << instruction << " on "
             << options.target.getChip() << ", which has no MFMA";
    return lowerMfma(op);
  }
  if (!options.target.isNVIDIA())
    return op.emitOpError()
           << "cannot run as " << instruction << " on "
           << options.target.getChip() << ", which is not an NVIDIA chip";
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
      instruction.hasGroups()
          ? std::make_pair(instruction.getGroupsM(), instruction.getGroupsN())
          : partitionWarps(m, n, threads / options.target.getWarpSize(),
                           op.getPolicy());
  if (!split)
    return op.emitOpError()
           << "cannot split the " << m << "x" << n << " C tile over "
           << threads / options.target.getWarpSize() << " warps with policy "
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

  const std::pair<Fragment, Value> *accumulator = getAccumulator(op);
  if (!accumulator)
    return failure();
  const Fragment &cFrag = accumulator->first;
  Value cRegs = accumulator->second;

  // Thread t's warp position, for the compile-time register checks.
  auto warpOrigin = [&](int64_t t) {
    int64_t w = t / options.target.getWarpSize();
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
    if (!resolveShared(o.value, o.root, o.layout, slot))
      return op.emitOpError()
             << "expected " << name
             << " to be a shared tile.alloc, one slot of a multi-buffered "
                "one or a static view of either";
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
    return address(b, loc, o.value, ValueRange{row, col});
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
  SmallVector<Value> acc = loadAccumulators(
      b, loc, cRegs, cRegOf, VectorType::get({2, 2}, cElt), op.getClearAccum());

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

  storeAccumulators(b, loc, acc, cRegs, cRegOf);
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Layout inference
//===----------------------------------------------------------------------===//

/// Whether `buffer`, the tile `root` (lookupOperand()), is a shared buffer
/// whose layout the wgmma descriptors can read: inferred later, or
/// annotated as the operand swizzle.
static bool isWgmmaShared(BufferLayout *buffer, Value root) {
  if (!buffer || buffer->space != MemorySpace::Shared)
    return false;
  auto type = cast<MemRefType>(root.getType());
  if (!buffer->layout)
    return true;
  Layout swizzled =
      getGemmSharedLayout(type.getContext(), type.getShape(),
                          type.getElementType().getIntOrFloatBitWidth());
  return !swizzled.getSwizzle().isIdentity() &&
         buffer->layout->isEquivalentTo(swizzled);
}

/// The layouts of `gemm` as `mma`, one of the target's wgmma instructions,
/// when planWgmma() takes it (recording the instruction chosen); std::nullopt,
/// with nothing changed, when its operands or shapes do not fit.
static std::optional<LogicalResult> inferWgmmaGemm(GemmOp gemm, MmaAttr mma,
                                                   LayoutInferenceState &state,
                                                   int64_t m, int64_t n,
                                                   int64_t kDim) {
  MLIRContext *ctx = state.getContext();
  int64_t threads = state.getThreads();
  MemRefType aType = gemm.getA().getType(), bType = gemm.getB().getType(),
             cType = gemm.getC().getType();
  // A may also come from registers (rs): 16-bit, stored M x K, one m64
  // block per warpgroup.
  // A shared operand may be a view of a tile (a K slice): the descriptors
  // read the tile's layout.
  Value aRoot, bRoot;
  BufferLayout *aBuffer = state.lookupOperand(gemm.getA(), aRoot);
  BufferLayout *bBuffer = state.lookupOperand(gemm.getB(), bRoot);
  bool aInRegisters =
      aBuffer && aBuffer->space == MemorySpace::Fragment &&
      isWgmmaRegisterA(aType.getElementType(), gemm.getTransposeA());
  std::optional<WgmmaPlan> plan =
      planWgmma(mma, aInRegisters || isWgmmaShared(aBuffer, aRoot),
                isWgmmaShared(bBuffer, bRoot), gemm.getTransposeA(),
                gemm.getTransposeB(), aType.getShape(), bType.getShape(), m, n,
                kDim, threads, gemm.getPolicy());
  if (!plan || (aInRegisters && m != 64 * plan->wgM))
    return std::nullopt;
  BuiltinChain chain;
  chain.name = "wgmma_c";
  chain.repeat = {m / (64 * plan->wgM), 1};
  chain.repeatOnThread = {plan->wgM, plan->wgN};
  std::string error;
  std::optional<Fragment> c =
      buildBuiltinChain(ctx, chain, cType.getShape(), error);
  if (!c)
    return gemm.emitOpError() << "cannot build its wgmma C fragment: " << error;
  std::string why = "the C operand of the wgmma gemm, " +
                    std::to_string(plan->wgM) + "x" +
                    std::to_string(plan->wgN) + " warpgroups";
  if (failed(state.requireFragment(gemm.getC(), *c, {gemm, why})))
    return failure();
  if (aInRegisters) {
    // Warp w of the block holds rows 16w..16w+15 of A as the mma.sync A
    // fragment, for every k16 step; warpgroups along N hold copies.
    BuiltinChain a;
    a.name = "mma_m16n8k16_a";
    a.repeat = {1, kDim / 16};
    a.repeatOnThread = {4 * plan->wgM, 1};
    a.replicate = plan->wgN;
    std::optional<Fragment> fragment =
        buildBuiltinChain(ctx, a, aType.getShape(), error);
    if (!fragment)
      return gemm.emitOpError()
             << "cannot build the wgmma register fragment of A: " << error;
    if (failed(
            state.requireFragment(gemm.getA(), *fragment,
                                  {gemm, "the register A operand of the wgmma "
                                         "gemm"})))
      return failure();
  }
  for (auto [buffer, root] : {std::pair(aBuffer, aRoot), {bBuffer, bRoot}}) {
    if (buffer->space != MemorySpace::Shared || buffer->layout)
      continue;
    auto type = cast<MemRefType>(root.getType());
    buffer->layout = getGemmSharedLayout(
        ctx, type.getShape(), type.getElementType().getIntOrFloatBitWidth());
    buffer->source = {gemm, "a shared operand of the wgmma gemm"};
  }
  state.setChoice(gemm, mma.withShape(64, plan->instrN, plan->k)
                            .withGroups(plan->wgM, plan->wgN));
  return success();
}

/// Lays out the operands of `gemm` as `mma`, one of the target's mma.sync
/// instructions: the mma.sync fragments over a warp partition of its C
/// tile (recording the instruction and the partition chosen).
static LogicalResult inferMmaSyncGemm(GemmOp gemm, MmaAttr mma,
                                      LayoutInferenceState &state, int64_t m,
                                      int64_t n, int64_t kDim) {
  MLIRContext *ctx = state.getContext();
  int64_t threads = state.getThreads();
  MemRefType cType = gemm.getC().getType();
  int64_t k = mma.getK();
  std::string shapeName = "mma_m" + std::to_string(mma.getM()) + "n" +
                          std::to_string(mma.getN()) + "k" + std::to_string(k);
  if (kDim % k != 0)
    return gemm.emitOpError()
           << "expected K (" << kDim << ") to be a multiple of " << k
           << ", the K of " << StringRef(shapeName).drop_front(4);
  int64_t warps = threads / state.getOptions().target.getWarpSize();
  GemmPolicy policy = gemm.getPolicy();
  std::optional<std::pair<int64_t, int64_t>> split =
      partitionWarps(m, n, warps, policy);
  if (!split)
    return gemm.emitOpError()
           << "cannot split the " << m << "x" << n << " C tile over " << warps
           << " warps with policy " << stringifyGemmPolicy(policy)
           << ": each warp needs a multiple of 16 rows and 8 columns";
  auto [wm, wn] = *split;
  std::string why = "the C operand of the gemm, " + std::to_string(wm) + "x" +
                    std::to_string(wn) + " warps";

  std::string error;
  BuiltinChain cChain;
  std::string cName = shapeName + "_c";
  cChain.name = cName;
  cChain.repeat = {m / (16 * wm), n / (8 * wn)};
  cChain.repeatOnThread = {wm, wn};
  std::optional<Fragment> c =
      buildBuiltinChain(ctx, cChain, cType.getShape(), error);
  if (!c)
    return gemm.emitOpError() << "cannot build its C fragment: " << error;
  if (failed(state.requireFragment(gemm.getC(), *c, {gemm, why})))
    return failure();

  struct Operand {
    Value value;
    bool transposed;
    bool isA;
  } operands[] = {{gemm.getA(), gemm.getTransposeA(), true},
                  {gemm.getB(), gemm.getTransposeB(), false}};
  for (const Operand &operand : operands) {
    Value root;
    BufferLayout *buffer = state.lookupOperand(operand.value, root);
    if (!buffer)
      continue;
    if (buffer->space == MemorySpace::Shared) {
      // Annotated shared layouts win; any permutation is correct. A view
      // takes the layout of the tile it views.
      auto type = cast<MemRefType>(root.getType());
      if (!buffer->layout) {
        buffer->layout =
            getGemmSharedLayout(ctx, type.getShape(),
                                type.getElementType().getIntOrFloatBitWidth());
        buffer->source = {gemm, "a shared operand of the gemm"};
      }
      continue;
    }
    // Fragment operands: the mma operand fragment over each warp's part,
    // held by every warp that needs it.
    std::string fragmentName = shapeName + (operand.isA ? "_a" : "_b");
    std::optional<Fragment> fragment;
    if (operand.isA) {
      BuiltinChain chain;
      chain.name = fragmentName;
      chain.repeat = {m / (16 * wm), kDim / k};
      chain.repeatOnThread = {wm, 1};
      chain.replicate = wn;
      fragment = buildBuiltinChain(ctx, chain, {m, kDim}, error);
    } else {
      // Warp (w0, w1) is w0 + wm * w1 in the C fragment: B's column
      // blocks go to w1 and its replicas to w0.
      BuiltinChain chain;
      chain.name = fragmentName;
      int64_t cols = n / wn;
      chain.repeat = {1, cols / 8};
      std::optional<Fragment> warp =
          buildBuiltinChain(ctx, chain, {k, cols}, error);
      if (warp)
        warp = warp->repeat({kDim / k, 1}, /*onThread=*/false);
      if (warp) {
        AffineExpr r = getAffineDimExpr(0, ctx), col = getAffineDimExpr(1, ctx);
        AffineMap inner = warp->getMap();
        SmallVector<AffineExpr> dims = {r, col % cols};
        AffineExpr thread = inner.getResult(0).replaceDims(dims) +
                            getAffineSymbolExpr(0, ctx) * 32 +
                            col.floorDiv(cols) * (32 * wm);
        AffineExpr reg = inner.getResult(1).replaceDims(dims);
        if (wm == 1)
          thread = thread.replaceSymbols({getAffineConstantExpr(0, ctx)});
        fragment = Fragment::get({kDim, n}, getReadableExpr(thread, 2, 1),
                                 getReadableExpr(reg, 2, 0), threads, wm);
        if (wn == 1 || wm == 1) {
          // Then it is a chain, and prints as one.
          BuiltinChain block;
          block.name = fragmentName;
          block.repeat = {kDim / k, cols / 8};
          block.repeatOnThread = {1, wn};
          block.replicate = wm;
          if (std::optional<Fragment> chained =
                  buildBuiltinChain(ctx, block, {kDim, n}, error))
            fragment = chained;
        }
      }
    }
    if (!fragment)
      return gemm.emitOpError() << "cannot build the fragment of "
                                << (operand.isA ? "A" : "B") << ": " << error;
    if (operand.transposed)
      fragment = fragment->transpose();
    std::string operandWhy = std::string("the ") + (operand.isA ? "A" : "B") +
                             " operand of the gemm, " + std::to_string(wm) +
                             "x" + std::to_string(wn) + " warps";
    if (failed(state.requireFragment(operand.value, *fragment,
                                     {gemm, operandWhy})))
      return failure();
  }
  state.setChoice(gemm, mma.withGroups(wm, wn));
  return success();
}

/// Chooses the tensor-core instruction of `gemm`, once, from its target's
/// list in order of preference (the first whose operands, shapes and
/// threads fit), and lays out its operands for it. A gemm that already
/// names an instruction (`mma`) keeps its family and shape (for wgmma, its
/// M and K; N follows the tile), which the target must offer.
static LogicalResult inferGemm(GemmOp gemm, LayoutInferenceState &state) {
  TargetAttr target = state.getOptions().target;
  MemRefType aType = gemm.getA().getType(), bType = gemm.getB().getType(),
             cType = gemm.getC().getType();
  Type a = aType.getElementType(), b = bType.getElementType(),
       c = cType.getElementType();
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t kDim = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
  SmallVector<MmaAttr> candidates = target.getMmaCandidates(a, b, c);
  if (MmaAttr asked = gemm.getMmaAttr()) {
    llvm::erase_if(candidates, [&](MmaAttr offered) {
      bool wgmma = offered.getKind() == MmaFamily::wgmma;
      return offered.getKind() != asked.getKind() ||
             offered.getM() != asked.getM() || offered.getK() != asked.getK() ||
             (wgmma ? !offered.hasWgmmaWidth(asked.getN())
                    : asked.getN() != offered.getN());
    });
    if (candidates.empty())
      return gemm.emitOpError()
             << "asks for " << asked.withGroups(0, 0) << ", which "
             << target.getChip() << " does not offer for " << a << " x " << b
             << " -> " << c;
  }
  for (MmaAttr mma : candidates) {
    switch (mma.getKind()) {
    case MmaFamily::wgmma:
      if (std::optional<LogicalResult> done =
              inferWgmmaGemm(gemm, mma, state, m, n, kDim))
        return *done;
      continue;
    case MmaFamily::mma_sync:
      return inferMmaSyncGemm(gemm, mma, state, m, n, kDim);
    case MmaFamily::mfma:
      if (std::optional<LogicalResult> done =
              inferMfmaGemm(gemm, mma, state, m, n, kDim))
        return *done;
      continue;
    }
  }
  InFlightDiagnostic diag = gemm.emitOpError();
  diag << "has no tensor-core instruction for " << a << " x " << b << " -> "
       << c << " on " << target.getChip();
  if (!candidates.empty())
    diag << " that fits its " << m << "x" << n << "x" << kDim << " tile on "
         << state.getThreads() << " threads";
  return diag;
}

//===----------------------------------------------------------------------===//
// TileOpInterface
//===----------------------------------------------------------------------===//

namespace {
struct GemmModel : public TileOpInterface::ExternalModel<GemmModel, GemmOp> {
  LogicalResult inferLayout(Operation *op, LayoutInferenceState &state,
                            InferenceLevel level) const {
    auto gemm = cast<GemmOp>(op);
    if (level == InferenceLevel::Collect) {
      // Layouts belong to allocations: fragment operands must be buffers.
      for (Value operand : op->getOperands())
        if (failed(state.isFragmentOperand(op, operand)))
          return failure();
      return success();
    }
    if (level == InferenceLevel::Strict)
      return inferGemm(gemm, state);
    if (level == InferenceLevel::Commit)
      if (auto mma = dyn_cast_or_null<MmaAttr>(state.getChoice(op)))
        gemm.setMmaAttr(mma);
    return success();
  }

  LogicalResult lower(Operation *op, LoweringContext &context) const {
    return context.lowerGemm(cast<GemmOp>(op));
  }

  void getTileAccesses(Operation *op,
                       SmallVectorImpl<TileAccess> &accesses) const {
    auto gemm = cast<GemmOp>(op);
    // wgmma reads its shared operands through the async proxy, the other
    // instructions (ldmatrix, ld.shared) through the generic one; a gemm
    // whose instruction is not chosen yet may be either.
    MmaAttr mma = gemm.getMmaAttr();
    bool asyncProxy = !mma || mma.readsSharedThroughAsyncProxy();
    bool genericProxy = !mma || !mma.readsSharedThroughAsyncProxy();
    accesses.push_back(
        {gemm.getA(), AccessKind::Read, false, asyncProxy, genericProxy});
    accesses.push_back(
        {gemm.getB(), AccessKind::Read, false, asyncProxy, genericProxy});
    accesses.push_back({gemm.getC(), AccessKind::Read});
    accesses.push_back({gemm.getC(), AccessKind::Write});
  }
};
} // namespace

void mlir::tile::registerGemmModel(MLIRContext *ctx) {
  GemmOp::attachInterface<GemmModel>(*ctx);
}
