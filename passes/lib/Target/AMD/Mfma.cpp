//===- Mfma.cpp - tile.gemm as AMD matrix fused multiply-add -------------===//
//
// On CDNA chips (gfx90a, gfx942) a gemm runs as `amdgpu.mfma`: the block's
// waves split the C tile, each wave walks K and issues square MFMA
// instructions (32x32 or 16x16) over its part. Operands are read from
// shared memory (LDS): a lane reads the K run it hands to `pack`
// consecutive instructions as one vector (ds_read_b128 for 16-bit
// operands), from a layout whose XOR swizzle keeps those reads and the
// copies into LDS free of bank conflicts. C is computed transposed
// (A and B swap places in the instruction), so each lane ends up with
// four consecutive columns of a row, which the copy out stores as one
// vector. An operand in registers (rs, sr, rr) gets the instruction's
// operand layout with K runs of four per lane, which is where the
// accumulator keeps its columns: attention's P, a cast of the Q·Kᵀ
// accumulator, feeds the P·V gemm without leaving its lanes.
//
//===----------------------------------------------------------------------===//

#include "Target/AMD/Mfma.h"
#include "Analysis/LayoutInference.h"
#include "Analysis/LayoutInferenceUtils.h"
#include "Lowering/LoweringContext.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

std::optional<MfmaPlan>
mlir::tile::planMfma(MmaAttr mma, int64_t m, int64_t n, int64_t k,
                     int64_t threads, int64_t waveSize, int64_t elementBytes,
                     GemmPolicy policy, bool registerOperand) {
  MfmaPlan plan;
  plan.atom = mma.getM();
  plan.k = mma.getK();
  if (mma.getN() != plan.atom || waveSize % plan.atom != 0 ||
      threads % waveSize != 0 || k % plan.k != 0)
    return std::nullopt;
  int64_t groups = waveSize / plan.atom;
  if (plan.k % groups != 0)
    return std::nullopt;
  plan.perLane = plan.k / groups;
  plan.accPerLane = plan.atom * plan.atom / waveSize;
  std::optional<std::pair<int64_t, int64_t>> split =
      partitionWarps(m, n, threads / waveSize, policy, plan.atom, plan.atom);
  if (!split)
    return std::nullopt;
  std::tie(plan.wavesM, plan.wavesN) = *split;
  // A register operand: runs of four, the accumulator's columns per lane
  // and group, so that the operand layout holds a cast accumulator's
  // elements on the same lanes.
  if (registerOperand)
    for (int64_t pack : {4, 2, 1})
      if (plan.perLane * pack == 4 && k % (plan.k * pack) == 0) {
        plan.pack = pack;
        return plan;
      }
  // The widest vector read of at most 16 bytes whose K step divides K.
  for (int64_t pack : {4, 2, 1})
    if (plan.perLane * pack * elementBytes <= 16 && k % (plan.k * pack) == 0) {
      plan.pack = pack;
      break;
    }
  return plan;
}

Fragment mlir::tile::getMfmaAccumulator(MLIRContext *ctx, const MfmaPlan &plan,
                                        int64_t m, int64_t n, int64_t threads,
                                        int64_t waveSize) {
  AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  int64_t waveM = m / plan.wavesM, waveN = n / plan.wavesN;
  int64_t atomsN = waveN / plan.atom;
  int64_t groups = waveSize / plan.atom;
  AffineExpr wave = r.floorDiv(waveM) + c.floorDiv(waveN) * plan.wavesM;
  AffineExpr rr = r % waveM, cc = c % waveN;
  AffineExpr atomRow = rr % plan.atom, atomCol = cc % plan.atom;
  // The instruction's output, transposed: lane l holds row l mod atom of
  // the block and, in register e, column (e / 4) * 4 * groups +
  // (l / atom) * 4 + e mod 4.
  AffineExpr lane = atomRow + (atomCol.floorDiv(4) % groups) * plan.atom;
  AffineExpr element = atomCol % 4 + atomCol.floorDiv(4 * groups) * 4;
  AffineExpr atomIndex =
      rr.floorDiv(plan.atom) * atomsN + cc.floorDiv(plan.atom);
  AffineExpr thread = wave * waveSize + lane;
  AffineExpr reg = atomIndex * plan.accPerLane + element;
  return Fragment::get({m, n}, getReadableExpr(thread, 2, 0),
                       getReadableExpr(reg, 2, 0), threads);
}

Fragment mlir::tile::getMfmaOperand(MLIRContext *ctx, const MfmaPlan &plan,
                                    bool isA, int64_t m, int64_t n,
                                    int64_t kDim, int64_t threads,
                                    int64_t waveSize) {
  AffineExpr mn = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
  AffineExpr replica = getAffineSymbolExpr(0, ctx);
  int64_t extent = isA ? m / plan.wavesM : n / plan.wavesN;
  int64_t atoms = extent / plan.atom;
  int64_t run = plan.perLane * plan.pack, kStep = plan.k * plan.pack;
  // Wave w owns block (w mod wavesM, w / wavesM) of C: A's rows follow
  // the first, B's columns the second; the other index picks the copy.
  AffineExpr along = mn.floorDiv(extent);
  AffineExpr wave =
      isA ? along + replica * plan.wavesM : replica + along * plan.wavesM;
  int64_t replicas = isA ? plan.wavesN : plan.wavesM;
  if (replicas == 1)
    wave = wave.replaceSymbols({getAffineConstantExpr(0, ctx)});
  AffineExpr inWave = mn % extent;
  AffineExpr lane = inWave % plan.atom + (k % kStep).floorDiv(run) * plan.atom;
  AffineExpr reg =
      (k.floorDiv(kStep) * atoms + inWave.floorDiv(plan.atom)) * run + k % run;
  return Fragment::get(
      {isA ? m : n, kDim},
      getReadableExpr(wave * waveSize + lane, 2, replicas == 1 ? 0 : 1),
      getReadableExpr(reg, 2, 0), threads, replicas);
}

/// The layout of a K x MN operand tile stored MN x K in LDS with the
/// gemm swizzle: a lane's K run, a column of the tile, is one vector in
/// LDS, and the copy into LDS scatters its rows instead.
static Layout getTransposedSharedLayout(MLIRContext *ctx,
                                        ArrayRef<int64_t> shape, int64_t bits) {
  Layout stored = getGemmSharedLayout(ctx, {shape[1], shape[0]}, bits);
  AffineMap swap = AffineMap::get(
      2, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(0, ctx)}, ctx);
  if (std::optional<Layout> composed =
          stored.compose(Layout::affine(shape, swap)))
    return *composed;
  return getGemmSharedLayout(ctx, shape, bits);
}

/// Whether `layout` of a K x MN tile keeps runs of `width` consecutive K
/// of a column contiguous and aligned.
static bool keepsColumnsContiguous(const Layout &layout, int64_t width) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.size() != 2 || shape[0] % width != 0)
    return false;
  for (int64_t c = 0; c < shape[1]; ++c)
    for (int64_t r0 = 0; r0 < shape[0]; r0 += width) {
      int64_t base = layout.apply({r0, c})[0];
      if (base % width != 0)
        return false;
      for (int64_t j = 1; j < width; ++j)
        if (layout.apply({r0 + j, c})[0] != base + j)
          return false;
    }
  return true;
}

std::optional<LogicalResult>
mlir::tile::inferMfmaGemm(GemmOp gemm, MmaAttr mma, LayoutInferenceState &state,
                          int64_t m, int64_t n, int64_t k) {
  MLIRContext *ctx = state.getContext();
  TargetAttr target = state.getOptions().target;
  MemRefType aType = gemm.getA().getType();
  int64_t bytes =
      std::max<int64_t>(1, aType.getElementType().getIntOrFloatBitWidth() / 8);
  auto inRegisters = [&](Value operand) {
    BufferLayout *buffer = state.lookup(operand);
    return buffer && buffer->space == MemorySpace::Fragment;
  };
  std::optional<MfmaPlan> plan = planMfma(
      mma, m, n, k, state.getThreads(), target.getWarpSize(), bytes,
      gemm.getPolicy(), inRegisters(gemm.getA()) || inRegisters(gemm.getB()));
  if (!plan)
    return std::nullopt;
  std::string waves =
      std::to_string(plan->wavesM) + "x" + std::to_string(plan->wavesN);
  Fragment c = getMfmaAccumulator(ctx, *plan, m, n, state.getThreads(),
                                  target.getWarpSize());
  std::string why = "the C operand of the MFMA gemm, " + waves + " waves";
  if (failed(state.requireFragment(gemm.getC(), c, {gemm, why})))
    return failure();
  for (bool isA : {true, false}) {
    Value operand = isA ? gemm.getA() : gemm.getB();
    if (!inRegisters(operand))
      continue;
    Fragment fragment = getMfmaOperand(
        ctx, *plan, isA, m, n, k, state.getThreads(), target.getWarpSize());
    // Stored K x M (transpose_a) or K x N (B without transpose_b).
    if (isA ? gemm.getTransposeA() : !gemm.getTransposeB())
      fragment = fragment.transpose();
    std::string operandWhy = std::string("the register ") + (isA ? "A" : "B") +
                             " operand of the MFMA gemm, " + waves + " waves";
    if (failed(state.requireFragment(operand, fragment, {gemm, operandWhy})))
      return failure();
  }
  for (bool isA : {true, false}) {
    Value operand = isA ? gemm.getA() : gemm.getB();
    Value root;
    BufferLayout *buffer = state.lookupOperand(operand, root);
    // Annotated shared layouts win: any permutation is correct. A view
    // takes the layout of the tile it views.
    if (!buffer || buffer->space != MemorySpace::Shared || buffer->layout)
      continue;
    auto type = cast<MemRefType>(root.getType());
    int64_t bits = type.getElementType().getIntOrFloatBitWidth();
    bool kOuter = isA ? gemm.getTransposeA() : !gemm.getTransposeB();
    buffer->layout = kOuter
                         ? getTransposedSharedLayout(ctx, type.getShape(), bits)
                         : getGemmSharedLayout(ctx, type.getShape(), bits);
    buffer->source = {gemm, kOuter ? "a shared operand of the MFMA gemm "
                                     "stored K-outer (transposed in LDS)"
                                   : "a shared operand of the MFMA gemm"};
  }
  state.setChoice(gemm, mma.withGroups(plan->wavesM, plan->wavesN));
  return success();
}

/// Lowers `op` as its recorded MFMA instruction.
///
/// One function: the operand resolution, the accumulator registers checked
/// against C's layout and the unrolled K loop share the wave partition and
/// the lane's coordinates.
LogicalResult LoweringContext::lowerMfma(GemmOp op) {
  Location loc = op.getLoc();
  MmaAttr mma = op.getMmaAttr();
  MemRefType aType = op.getA().getType(), cType = op.getC().getType();
  Type aElt = aType.getElementType(),
       bElt = op.getB().getType().getElementType(),
       cElt = cType.getElementType();
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t kDim = aType.getDimSize(op.getTransposeA() ? 0 : 1);
  int64_t waveSize = options.target.getWarpSize();
  int64_t bytes = std::max<int64_t>(1, aElt.getIntOrFloatBitWidth() / 8);
  auto inFragment = [](Value operand) {
    return getMemorySpace(cast<MemRefType>(operand.getType())) ==
           MemorySpace::Fragment;
  };
  std::optional<MfmaPlan> plan =
      planMfma(mma, m, n, kDim, threads, waveSize, bytes, op.getPolicy(),
               inFragment(op.getA()) || inFragment(op.getB()));
  if (!plan || (mma.hasGroups() && (mma.getGroupsM() != plan->wavesM ||
                                    mma.getGroupsN() != plan->wavesN)))
    return op.emitOpError() << "cannot run as " << mma << " on " << threads
                            << " threads: its " << m << "x" << n << "x" << kDim
                            << " tile does not split into whole instructions "
                               "per wave";
  int64_t waveM = m / plan->wavesM, waveN = n / plan->wavesN;
  int64_t atomsM = waveM / plan->atom, atomsN = waveN / plan->atom;
  int64_t run = plan->perLane * plan->pack; // K elements per lane and step
  int64_t kStep = plan->k * plan->pack;
  int64_t steps = kDim / kStep;

  const std::pair<Fragment, Value> *accumulator = getAccumulator(op);
  if (!accumulator)
    return failure();
  const Fragment &cFrag = accumulator->first;
  Value cRegs = accumulator->second;
  // C registers of each (atom, accumulator element), the same on every
  // thread when C has the accumulator layout (getMfmaAccumulator()).
  int64_t groups = waveSize / plan->atom;
  SmallVector<int64_t> cRegOf;
  for (int64_t atom = 0; atom < atomsM * atomsN; ++atom)
    for (int64_t e = 0; e < plan->accPerLane; ++e) {
      int64_t reg = uniformRegister(cFrag, threads, [&](int64_t t) {
        int64_t wave = t / waveSize, lane = t % waveSize;
        int64_t row = (wave % plan->wavesM) * waveM +
                      (atom / atomsN) * plan->atom + lane % plan->atom;
        int64_t col = (wave / plan->wavesM) * waveN +
                      (atom % atomsN) * plan->atom + (e / 4) * 4 * groups +
                      (lane / plan->atom) * 4 + e % 4;
        return SmallVector<int64_t>{row, col};
      });
      if (reg < 0)
        return op.emitOpError()
               << "expected C laid out as the MFMA accumulator of "
               << plan->wavesM << "x" << plan->wavesN << " waves";
      cRegOf.push_back(reg);
    }

  // A and B in LDS, as (alloc, slot indices, layout), or in registers.
  struct Side {
    Value value, root;
    Layout layout;
    bool kOuter = false, vectorized = false;
    /// In a fragment: the register of element j of the run of (step,
    /// block), at (step * blocks + block) * run + j.
    Value registers;
    SmallVector<int64_t> regs;
  } sides[2];
  OpBuilder b(op);
  sides[0].value = op.getA();
  sides[0].kOuter = op.getTransposeA();
  sides[1].value = op.getB();
  sides[1].kOuter = !op.getTransposeB();
  for (Side &side : sides) {
    bool isA = &side == sides;
    if (inFragment(side.value)) {
      auto it = fragments.find(side.value);
      if (it == fragments.end())
        return op.emitOpError() << "expected " << (isA ? "A" : "B")
                                << " to be a tile.alloc fragment with a layout";
      const Fragment &frag = it->second.first;
      side.registers = it->second.second;
      int64_t blocks = isA ? atomsM : atomsN;
      for (int64_t step = 0; step < steps; ++step)
        for (int64_t block = 0; block < blocks; ++block)
          for (int64_t j = 0; j < run; ++j) {
            int64_t reg = uniformRegister(frag, threads, [&](int64_t t) {
              int64_t wave = t / waveSize, lane = t % waveSize;
              int64_t mn = (isA ? (wave % plan->wavesM) * waveM
                                : (wave / plan->wavesM) * waveN) +
                           block * plan->atom + lane % plan->atom;
              int64_t k = step * kStep + (lane / plan->atom) * run + j;
              return side.kOuter ? SmallVector<int64_t>{k, mn}
                                 : SmallVector<int64_t>{mn, k};
            });
            if (reg < 0)
              return op.emitOpError()
                     << "expected " << (isA ? "A" : "B")
                     << " laid out as the register operand of the MFMA gemm "
                        "of "
                     << plan->wavesM << "x" << plan->wavesN << " waves";
            side.regs.push_back(reg);
          }
      continue;
    }
    const Slot *slot = nullptr;
    if (!resolveShared(side.value, side.root, side.layout, slot))
      return op.emitOpError()
             << "expected " << (&side == sides ? "A" : "B")
             << " to be a shared tile.alloc, one slot of a multi-buffered "
                "one or a static view of either (the MFMA gemm reads its "
                "operands from LDS)";
    // Stored with K innermost, or K-outer in a layout that transposes it
    // (getTransposedSharedLayout()): one vector per lane and step. Else a
    // K-outer run is a column, read element by element.
    side.vectorized = side.kOuter ? keepsColumnsContiguous(side.layout, run)
                                  : keepsRowsContiguous(side.layout, run);
  }

  Value wave = arith::DivUIOp::create(b, loc, tid, cst(b, loc, waveSize));
  Value lane = arith::RemUIOp::create(b, loc, tid, cst(b, loc, waveSize));
  Value laneMN = arith::RemUIOp::create(b, loc, lane, cst(b, loc, plan->atom));
  Value laneK = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, cst(b, loc, plan->atom)),
      cst(b, loc, run));
  Value rowBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, wave, cst(b, loc, plan->wavesM)),
      cst(b, loc, waveM));
  Value colBase = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, wave, cst(b, loc, plan->wavesM)),
      cst(b, loc, waveN));
  auto add = [&](Value x, int64_t c) -> Value {
    return c == 0 ? x : b.createOrFold<arith::AddIOp>(loc, x, cst(b, loc, c));
  };
  auto addv = [&](Value x, Value y) -> Value {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  };
  // The lane's K run of step `step` in block `block` of `side`, at
  // row/column `mn`.
  auto loadRun = [&](Side &side, Type elt, Value mn, int64_t block,
                     int64_t step) -> Value {
    auto type = VectorType::get({run}, elt);
    if (side.registers) {
      int64_t blocks = &side == sides ? atomsM : atomsN;
      SmallVector<Value> elems;
      for (int64_t j = 0; j < run; ++j)
        elems.push_back(memref::LoadOp::create(
            b, loc, side.registers,
            ValueRange{
                cst(b, loc, side.regs[(step * blocks + block) * run + j])}));
      return vector::FromElementsOp::create(b, loc, type, elems);
    }
    Value k0 = addv(laneK, cst(b, loc, step * kStep));
    auto at = [&](Value k) {
      return address(b, loc, side.value,
                     ValueRange{side.kOuter ? k : mn, side.kOuter ? mn : k});
    };
    if (side.vectorized) {
      auto [mem, idx] = at(k0);
      return vector::LoadOp::create(b, loc, type, mem, idx,
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(run * bytes));
    }
    SmallVector<Value> elems;
    for (int64_t j = 0; j < run; ++j) {
      auto [mem, idx] = at(add(k0, j));
      elems.push_back(memref::LoadOp::create(b, loc, mem, idx));
    }
    return vector::FromElementsOp::create(b, loc, type, elems);
  };
  // The part of a run that instruction `p` of the pack takes.
  auto operandOf = [&](Value runValue, int64_t p) -> Value {
    if (plan->perLane == 1)
      return vector::ExtractOp::create(b, loc, runValue, ArrayRef<int64_t>{p});
    // A shuffle, which the GPU-to-LLVM conversions take as it is.
    SmallVector<int64_t> lanes;
    for (int64_t j = 0; j < plan->perLane; ++j)
      lanes.push_back(p * plan->perLane + j);
    return vector::ShuffleOp::create(b, loc, runValue, runValue, lanes);
  };

  auto accType = VectorType::get({plan->accPerLane}, cElt);
  SmallVector<Value> acc =
      loadAccumulators(b, loc, cRegs, cRegOf, accType, op.getClearAccum());

  for (int64_t step = 0; step < steps; ++step) {
    SmallVector<Value> aRuns, bRuns;
    for (int64_t i = 0; i < atomsM; ++i)
      aRuns.push_back(loadRun(
          sides[0], aElt, addv(add(rowBase, i * plan->atom), laneMN), i, step));
    for (int64_t j = 0; j < atomsN; ++j)
      bRuns.push_back(loadRun(
          sides[1], bElt, addv(add(colBase, j * plan->atom), laneMN), j, step));
    for (int64_t p = 0; p < plan->pack; ++p)
      for (int64_t i = 0; i < atomsM; ++i)
        for (int64_t jj = 0; jj < atomsN; ++jj) {
          // Snake through N so consecutive instructions share an operand.
          int64_t j = i % 2 ? atomsN - 1 - jj : jj;
          Value &c = acc[i * atomsN + j];
          // Transposed: the instruction's A is B (rows along N).
          c = amdgpu::MFMAOp::create(b, loc, accType, plan->atom, plan->atom,
                                     plan->k,
                                     /*blocks=*/1, operandOf(bRuns[j], p),
                                     operandOf(aRuns[i], p), c)
                  .getResult();
        }
  }

  storeAccumulators(b, loc, acc, cRegs, cRegOf);
  op.erase();
  return success();
}
