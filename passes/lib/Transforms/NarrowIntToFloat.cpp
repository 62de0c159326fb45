//===- NarrowIntToFloat.cpp - tile-narrow-int-to-float pass ---------------===//
//
// Conversions of small unsigned integers to f16 and bf16 as bit operations:
// the integer is OR-ed into the mantissa of a power of two whose mantissa
// step is 1, and the power of two is subtracted in the float type. On
// `vector<2x...>` values each step is one operation on a 32-bit register,
// where a conversion instruction handles one element; the lanes of a pair
// taken from one 32-bit word at bit offsets 16 apart are extracted together.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/NarrowIntToFloat.h"
#include "tile/Dialect/Tile/TileOps.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <optional>
#include <type_traits>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENARROWINTTOFLOAT
#include "tile/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The float whose bits OR-ed with an integer below `limit` give the float
/// (magic + integer): 1024.0 for f16, 128.0 for bf16.
struct Magic {
  uint64_t bits;
  double value;
  uint64_t limit;
};

std::optional<Magic> getMagic(Type floatType) {
  if (floatType.isF16())
    return Magic{0x6400, 1024.0, 1 << 10};
  if (floatType.isBF16())
    return Magic{0x4300, 128.0, 1 << 7};
  return std::nullopt;
}

/// Type `elementType` in the shape of `like` (a scalar or a vector).
Type withElementType(Type like, Type elementType) {
  if (auto vec = dyn_cast<VectorType>(like))
    return vec.clone(elementType);
  return elementType;
}

/// The integer every lane of `v` holds, where it is a constant (built as
/// one, or broadcast from one).
std::optional<APInt> getSplatInt(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c;
  if (auto bc = v.getDefiningOp<vector::BroadcastOp>())
    if (matchPattern(bc.getSource(), m_ConstantInt(&c)))
      return c;
  return std::nullopt;
}

/// The splat integer constant among the two operands of commutative `op`
/// and the other operand, where one of them is one.
std::optional<std::pair<APInt, Value>> getSplatIntOperand(Operation *op) {
  for (int i = 0; i < 2; ++i)
    if (std::optional<APInt> c = getSplatInt(op->getOperand(1 - i)))
      return std::make_pair(*c, op->getOperand(i));
  return std::nullopt;
}

/// The float every lane of `v` holds, where it is a constant.
std::optional<APFloat> getSplatFloat(Value v) {
  APFloat c(0.0);
  if (matchPattern(v, m_ConstantFloat(&c)))
    return c;
  if (auto bc = v.getDefiningOp<vector::BroadcastOp>())
    if (matchPattern(bc.getSource(), m_ConstantFloat(&c)))
      return c;
  return std::nullopt;
}

/// The largest value `v` (an unsigned integer or a vector of them) may hold
/// in any lane, where the operations defining it bound it.
std::optional<uint64_t> getMaxValue(Value v, unsigned depth = 0) {
  unsigned width = getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth();
  std::optional<uint64_t> byType =
      width < 64 ? std::optional<uint64_t>((uint64_t(1) << width) - 1)
                 : std::nullopt;
  if (depth > 6)
    return byType;
  auto min = [](std::optional<uint64_t> a, std::optional<uint64_t> b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return std::optional<uint64_t>(std::min(*a, *b));
  };
  if (std::optional<APInt> c = getSplatInt(v))
    return c->getActiveBits() <= 64 ? std::optional<uint64_t>(c->getZExtValue())
                                    : byType;
  Operation *def = v.getDefiningOp();
  if (!def)
    return byType;
  if (auto andOp = dyn_cast<arith::AndIOp>(def))
    return min(byType, min(getMaxValue(andOp.getLhs(), depth + 1),
                           getMaxValue(andOp.getRhs(), depth + 1)));
  if (auto ext = dyn_cast<arith::ExtUIOp>(def))
    return min(byType, getMaxValue(ext.getIn(), depth + 1));
  if (auto shr = dyn_cast<arith::ShRUIOp>(def))
    return min(byType, getMaxValue(shr.getLhs(), depth + 1));
  if (auto bc = dyn_cast<vector::BroadcastOp>(def))
    return bc.getSourceType() == getElementTypeOrSelf(v.getType())
               ? getMaxValue(bc.getSource(), depth + 1)
               : byType;
  if (auto trunc = dyn_cast<arith::TruncIOp>(def)) {
    std::optional<uint64_t> in = getMaxValue(trunc.getIn(), depth + 1);
    return in && byType && *in <= *byType ? in : byType;
  }
  return byType;
}

/// A splat constant of `type` (a scalar or a vector).
Value splat(PatternRewriter &rewriter, Location loc, Type type,
            TypedAttr scalar) {
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(rewriter, loc,
                                     SplatElementsAttr::get(vec, scalar));
  return arith::ConstantOp::create(rewriter, loc, scalar);
}

/// uitofp(x) with x < 2^10 to f16 (2^7 to bf16) ->
/// bitcast(or(x as i16, bits of 1024.0)) - 1024.0.
struct UIToFPByMagic : OpRewritePattern<arith::UIToFPOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::UIToFPOp op,
                                PatternRewriter &rewriter) const override {
    Type outType = op.getType();
    Type floatType = getElementTypeOrSelf(outType);
    std::optional<Magic> magic = getMagic(floatType);
    if (!magic)
      return rewriter.notifyMatchFailure(op, "not a conversion to f16/bf16");
    Value in = op.getIn();
    std::optional<uint64_t> max = getMaxValue(in);
    if (!max || *max >= magic->limit)
      return rewriter.notifyMatchFailure(op, "operand not known to be small");
    Location loc = op.getLoc();
    Type i16 = rewriter.getI16Type();
    Type i16Type = withElementType(outType, i16);
    unsigned width = getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth();
    Value x = in;
    if (width > 16)
      x = arith::TruncIOp::create(rewriter, loc, i16Type, in);
    else if (width < 16)
      x = arith::ExtUIOp::create(rewriter, loc, i16Type, in);
    Value bits =
        arith::OrIOp::create(rewriter, loc, x,
                             splat(rewriter, loc, i16Type,
                                   rewriter.getIntegerAttr(i16, magic->bits)));
    Value f = arith::BitcastOp::create(rewriter, loc, outType, bits);
    Value m = splat(rewriter, loc, outType,
                    rewriter.getFloatAttr(floatType, magic->value));
    rewriter.replaceOpWithNewOp<arith::SubFOp>(op, f, m);
    return success();
  }
};

/// Where `v` is subf(B, M) with B = bitcast(or(x, bits of M)) and x below
/// M's limit (the integer x exactly, as UIToFPByMagic builds it): B and M.
std::optional<std::pair<Value, APFloat>> getMagicOperand(Value v,
                                                         const Magic &magic) {
  auto sub = v.getDefiningOp<arith::SubFOp>();
  std::optional<APFloat> m = sub ? getSplatFloat(sub.getRhs()) : std::nullopt;
  if (!m || !m->isExactlyValue(magic.value))
    return std::nullopt;
  auto cast = sub.getLhs().getDefiningOp<arith::BitcastOp>();
  auto orOp = cast ? cast.getIn().getDefiningOp<arith::OrIOp>() : nullptr;
  if (!orOp)
    return std::nullopt;
  auto bits = getSplatIntOperand(orOp);
  std::optional<uint64_t> max = bits ? getMaxValue(bits->second) : std::nullopt;
  if (!bits || bits->first != magic.bits || !max || *max >= magic.limit)
    return std::nullopt;
  return std::make_pair(Value(cast), *m);
}

/// subf(subf(B, M), C) -> subf(B, M + C) and addf(subf(B, M), C) ->
/// subf(B, M - C), or B itself where M - C is zero; B holds the bits of
/// M + x for a small integer x. Only where M + C (M - C) is exact: the
/// inner difference is x exactly, so both forms round x - C (x + C) once.
template <typename OpTy> struct FoldMagicConstant : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isAdd = std::is_same_v<OpTy, arith::AddFOp>;
    Type floatType = getElementTypeOrSelf(op.getType());
    std::optional<Magic> magic = getMagic(floatType);
    if (!magic)
      return failure();
    // An addition may hold the constant on either side.
    for (unsigned lhs = 0; lhs < (isAdd ? 2u : 1u); ++lhs) {
      auto b = getMagicOperand(op->getOperand(lhs), *magic);
      std::optional<APFloat> c = getSplatFloat(op->getOperand(1 - lhs));
      if (!b || !c)
        continue;
      APFloat d = b->second;
      APFloat::opStatus status =
          isAdd ? d.subtract(*c, APFloat::rmNearestTiesToEven)
                : d.add(*c, APFloat::rmNearestTiesToEven);
      if (status != APFloat::opOK || !d.isFinite())
        return rewriter.notifyMatchFailure(op, "magic and constant inexact");
      if (d.isZero()) {
        rewriter.replaceOp(op, b->first);
        return success();
      }
      Value dv = splat(rewriter, op.getLoc(), op.getType(),
                       rewriter.getFloatAttr(floatType, d));
      auto sub = rewriter.replaceOpWithNewOp<arith::SubFOp>(op, b->first, dv);
      sub.setFastmathAttr(op.getFastmathAttr());
      return success();
    }
    return failure();
  }
};

/// The i32 that all lanes of `v` hold: a broadcast or identical elements.
Value getSplatSource(Value v) {
  if (auto bc = v.getDefiningOp<vector::BroadcastOp>())
    return bc.getSourceType() == getElementTypeOrSelf(v.getType())
               ? bc.getSource()
               : Value();
  if (auto from = v.getDefiningOp<vector::FromElementsOp>()) {
    ValueRange elements = from.getElements();
    if (!elements.empty() && llvm::all_equal(elements))
      return elements.front();
  }
  return Value();
}

/// The lanes of a constant vector, built as one or element by element.
SmallVector<APInt> getConstantLanes(Value v) {
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)))
    return SmallVector<APInt>(dense.getValues<APInt>());
  SmallVector<APInt> lanes;
  if (auto from = v.getDefiningOp<vector::FromElementsOp>()) {
    for (Value e : from.getElements()) {
      APInt c;
      if (!matchPattern(e, m_ConstantInt(&c)))
        return {};
      lanes.push_back(c);
    }
  }
  return lanes;
}

/// Whether `hi` is `lo` + 16: an addition of 16 to `lo`, or the same cast
/// of two such values (an index truncated to i32 keeps the sum modulo
/// 2^32).
bool isSumWith16(Value hi, Value lo, unsigned depth = 0) {
  if (auto add = hi.getDefiningOp<arith::AddIOp>())
    for (int i = 0; i < 2; ++i) {
      APInt c;
      if (add->getOperand(i) == lo &&
          matchPattern(add->getOperand(1 - i), m_ConstantInt(&c)) && c == 16)
        return true;
    }
  Operation *h = hi.getDefiningOp(), *l = lo.getDefiningOp();
  if (depth < 2 && h && l && h->getName() == l->getName() &&
      isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::TruncIOp>(h))
    return isSumWith16(h->getOperand(0), l->getOperand(0), depth + 1);
  return false;
}

/// The shift of the lower lane where the two lanes of `shift` are s and
/// s + 16: constants (s + 16 below 32), or a value and its sum with 16 (a
/// shift by 32 or more would be poison, so s is below 16 there too). A null
/// value with `constant` set to s for constants.
std::optional<Value> getLanePairShift(Value shift, uint64_t &constant) {
  SmallVector<APInt> s = getConstantLanes(shift);
  if (s.size() == 2) {
    if (s[1].getZExtValue() != s[0].getZExtValue() + 16 ||
        s[1].getZExtValue() >= 32)
      return std::nullopt;
    constant = s[0].getZExtValue();
    return Value();
  }
  auto from = shift.getDefiningOp<vector::FromElementsOp>();
  if (!from || from.getElements().size() != 2 ||
      !isSumWith16(from.getElements()[1], from.getElements()[0]))
    return std::nullopt;
  return from.getElements()[0];
}

/// The i32 constant `value`.
Value constI32(PatternRewriter &rewriter, Location loc, uint64_t value) {
  return arith::ConstantOp::create(
      rewriter, loc, rewriter.getIntegerAttr(rewriter.getI32Type(), value));
}

/// `word` with the 16-bit `value` in both halves applied by `OpTy` (an AND
/// of a mask, an OR of bits).
template <typename OpTy>
Value inBothHalves(PatternRewriter &rewriter, Location loc, Value word,
                   uint64_t value) {
  return OpTy::create(rewriter, loc, word,
                      constI32(rewriter, loc, value | value << 16));
}

/// The two 16-bit halves of the i32 `word` as a vector<2xi16> (or
/// `halvesType`, another 2 x 16-bit integer vector).
Value halvesOf(PatternRewriter &rewriter, Location loc, Value word,
               VectorType halvesType) {
  Value one = vector::BroadcastOp::create(
      rewriter, loc, VectorType::get({1}, rewriter.getI32Type()), word);
  return vector::BitCastOp::create(rewriter, loc, halvesType, one);
}

/// trunci(andi(shrui(splat(w), [s, s + 16]), splat(m))) : vector<2xi32> to
/// vector<2xi16>, m < 2^16 -> bitcast((w >> s) & (m | m << 16)), where s
/// is a constant or a value (as for a shift that depends on the lane).
struct PackLanePair : OpRewritePattern<arith::TruncIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncIOp op,
                                PatternRewriter &rewriter) const override {
    auto outType = dyn_cast<VectorType>(op.getType());
    auto inType = dyn_cast<VectorType>(op.getIn().getType());
    if (!outType || !inType || inType.getShape() != ArrayRef<int64_t>{2} ||
        !inType.getElementType().isInteger(32) ||
        !outType.getElementType().isInteger(16))
      return failure();
    auto andOp = op.getIn().getDefiningOp<arith::AndIOp>();
    if (!andOp)
      return failure();
    auto masked = getSplatIntOperand(andOp);
    if (!masked || masked->first.getZExtValue() > 0xFFFF)
      return failure();
    const APInt &mask = masked->first;
    Value shifted = masked->second;
    auto shr = shifted.getDefiningOp<arith::ShRUIOp>();
    uint64_t constant = 0;
    std::optional<Value> s =
        shr ? getLanePairShift(shr.getRhs(), constant) : std::nullopt;
    if (!s)
      return failure();
    Value word = getSplatSource(shr.getLhs());
    if (!word)
      return failure();
    Location loc = op.getLoc();
    Value x = word;
    if (*s)
      x = arith::ShRUIOp::create(rewriter, loc, x, *s);
    else if (constant != 0)
      x = arith::ShRUIOp::create(rewriter, loc, x,
                                 constI32(rewriter, loc, constant));
    x = inBothHalves<arith::AndIOp>(rewriter, loc, x, mask.getZExtValue());
    rewriter.replaceOp(op, halvesOf(rewriter, loc, x, outType));
    return success();
  }
};

/// The parts of B = bitcast(or(bitcast(broadcast((w >> s) & (m | m << 16))),
/// splat(bits of M))) : vector<2xf16|bf16>, a lane pair as PackLanePair and
/// UIToFPByMagic build it, with a constant s (0 where there is no shift).
struct MagicPair {
  Value word;
  uint64_t shift;
  uint64_t mask;
  Magic magic;
};

std::optional<MagicPair> getMagicPair(Value b) {
  auto type = dyn_cast<VectorType>(b.getType());
  if (!type || type.getShape() != ArrayRef<int64_t>{2})
    return std::nullopt;
  std::optional<Magic> magic = getMagic(type.getElementType());
  auto cast = b.getDefiningOp<arith::BitcastOp>();
  if (!magic || !cast)
    return std::nullopt;
  // The OR on the two halves, or (after OrSplatInWord) on the word.
  Value word;
  if (auto orOp = cast.getIn().getDefiningOp<arith::OrIOp>()) {
    auto bits = getSplatIntOperand(orOp);
    if (!bits || bits->first != magic->bits)
      return std::nullopt;
    auto halves = bits->second.getDefiningOp<vector::BitCastOp>();
    auto one = halves ? halves.getSource().getDefiningOp<vector::BroadcastOp>()
                      : nullptr;
    if (!one)
      return std::nullopt;
    word = one.getSource();
  } else if (auto halves = cast.getIn().getDefiningOp<vector::BitCastOp>()) {
    auto one = halves.getSource().getDefiningOp<vector::BroadcastOp>();
    auto orOp = one ? one.getSource().getDefiningOp<arith::OrIOp>() : nullptr;
    auto bits = orOp ? getSplatIntOperand(orOp) : std::nullopt;
    if (!bits || bits->first != (magic->bits | magic->bits << 16))
      return std::nullopt;
    word = bits->second;
  } else {
    return std::nullopt;
  }
  auto andOp = word.getDefiningOp<arith::AndIOp>();
  if (!andOp || !andOp.getType().isInteger(32))
    return std::nullopt;
  auto masked = getSplatIntOperand(andOp);
  if (!masked)
    return std::nullopt;
  uint64_t mask = masked->first.getZExtValue();
  if ((mask >> 16) != (mask & 0xFFFF))
    return std::nullopt;
  MagicPair pair{masked->second, 0, mask & 0xFFFF, *magic};
  APInt s;
  if (auto shr = pair.word.getDefiningOp<arith::ShRUIOp>();
      shr && matchPattern(shr.getRhs(), m_ConstantInt(&s))) {
    pair.word = shr.getLhs();
    pair.shift = s.getZExtValue();
  }
  return pair;
}

/// addf/subf(B, Y) with B a lane pair (w >> s) & m in magic form, s = 8k + t
/// and m << t below the magic's limit -> B' * 2^-t + (M (1 - 2^-t) +/- Y),
/// free to contract into one fma,
/// with B' the pair ((w >> 8k) & (m << t)) in magic form, which holds M +
/// 2^t x: the pairs of one word at shifts 8k and 8k + t share a shift (a
/// word's four nibble pairs take one shift instead of three). B' 2^-t + M
/// (1 - 2^-t) is B exactly, so a constant Y folds where the constant sum is
/// exact; a variable Y only where the operation allows reassociation
/// (fastmath<reassoc>): the sum M (1 - 2^-t) - Y is rounded on its own.
template <typename OpTy> struct ScaleMagicPair : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isAdd = std::is_same_v<OpTy, arith::AddFOp>;
    for (unsigned lhs = 0; lhs < (isAdd ? 2u : 1u); ++lhs) {
      Value b = op->getOperand(lhs), y = op->getOperand(1 - lhs);
      std::optional<MagicPair> pair = getMagicPair(b);
      if (!pair || !b.hasOneUse())
        continue;
      uint64_t t = pair->shift % 8;
      if (t == 0 || (pair->mask << t) >= pair->magic.limit)
        continue;
      Type floatType = getElementTypeOrSelf(op.getType());
      const llvm::fltSemantics &sem =
          cast<FloatType>(floatType).getFloatSemantics();
      bool losesInfo = false;
      APFloat scale(std::ldexp(1.0, -int(t)));
      APFloat base(pair->magic.value - std::ldexp(pair->magic.value, -int(t)));
      scale.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
      base.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
      Location loc = op.getLoc();
      Value addend;
      if (std::optional<APFloat> c = getSplatFloat(y)) {
        APFloat d = base;
        APFloat::opStatus status =
            isAdd ? d.add(*c, APFloat::rmNearestTiesToEven)
                  : d.subtract(*c, APFloat::rmNearestTiesToEven);
        if (status != APFloat::opOK || !d.isFinite())
          continue;
        addend = splat(rewriter, loc, op.getType(),
                       rewriter.getFloatAttr(floatType, d));
      } else {
        if (!bitEnumContainsAll(op.getFastmath(),
                                arith::FastMathFlags::reassoc))
          continue;
        Value baseValue = splat(rewriter, loc, op.getType(),
                                rewriter.getFloatAttr(floatType, base));
        addend = isAdd ? Value(arith::AddFOp::create(rewriter, loc, baseValue,
                                                     y, op.getFastmath()))
                       : Value(arith::SubFOp::create(rewriter, loc, baseValue,
                                                     y, op.getFastmath()));
      }
      Value word = pair->word;
      if (uint64_t s = pair->shift - t)
        word = arith::ShRUIOp::create(rewriter, loc, word,
                                      constI32(rewriter, loc, s));
      Value x =
          inBothHalves<arith::AndIOp>(rewriter, loc, word, pair->mask << t);
      x = inBothHalves<arith::OrIOp>(rewriter, loc, x, pair->magic.bits);
      Value halves = halvesOf(rewriter, loc, x,
                              VectorType::get({2}, rewriter.getI16Type()));
      Value scaled =
          arith::BitcastOp::create(rewriter, loc, op.getType(), halves);
      Value factor = splat(rewriter, loc, op.getType(),
                           rewriter.getFloatAttr(floatType, scale));
      // A multiplication and an addition that may contract: math.fma on
      // f16 would go through f32 libdevice calls on NVIDIA. The product by
      // 2^-t is exact, so the fused and the separate forms agree.
      arith::FastMathFlags contract =
          op.getFastmath() | arith::FastMathFlags::contract;
      Value product =
          arith::MulFOp::create(rewriter, loc, scaled, factor, contract);
      rewriter.replaceOpWithNewOp<arith::AddFOp>(op, product, addend, contract);
      return success();
    }
    return failure();
  }
};

/// ori(bitcast(broadcast(x : i32) : vector<1xi32>) : vector<2xi16>,
/// splat(c)) -> bitcast(broadcast(ori(x, c | c << 16))): the OR of the magic
/// bits on the word the pair was taken from, next to its mask, where a
/// backend can fuse the two (NVIDIA: one lop3, tile-fuse-lop3).
struct OrSplatInWord : OpRewritePattern<arith::OrIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::OrIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getShape() != ArrayRef<int64_t>{2} ||
        !type.getElementType().isInteger(16))
      return failure();
    auto bits = getSplatIntOperand(op);
    auto halves = bits ? bits->second.getDefiningOp<vector::BitCastOp>()
                       : vector::BitCastOp();
    auto one = halves ? halves.getSource().getDefiningOp<vector::BroadcastOp>()
                      : vector::BroadcastOp();
    if (!one || !one.getSource().getType().isInteger(32))
      return failure();
    Location loc = op.getLoc();
    Value word = inBothHalves<arith::OrIOp>(rewriter, loc, one.getSource(),
                                            bits->first.getZExtValue());
    rewriter.replaceOp(op, halvesOf(rewriter, loc, word, type));
    return success();
  }
};

struct TileNarrowIntToFloatPass
    : public tile::impl::TileNarrowIntToFloatBase<TileNarrowIntToFloatPass> {
  void runOnOperation() override {
    // Constants folded first (broadcasts and casts of constants), so that
    // the patterns see masks and shift amounts as constants.
    // Constants stay where they are (not hoisted out of kernels, whose
    // outlining would make them arguments).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.enableConstantCSE(false);
    if (failed(applyPatternsGreedily(
            getOperation(), RewritePatternSet(&getContext()), config))) {
      signalPassFailure();
      return;
    }
    // The lowering computes the address of each register's word anew: the
    // two lanes of a pair load one word only once equal loads are merged.
    // Within each kernel, so that nothing inside comes to use a value
    // computed outside.
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance;
    getOperation()->walk([&](KernelOp kernel) {
      eliminateCommonSubExpressions(rewriter, dominance, kernel);
    });
    RewritePatternSet patterns(&getContext());
    populateNarrowIntToFloatPatterns(patterns);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
    // Pairs rescaled to share shifts only once the constants are folded into
    // the magic subtractions, which the rescaled form no longer matches.
    RewritePatternSet scale(&getContext());
    populateNarrowIntScalePatterns(scale);
    if (failed(applyPatternsGreedily(getOperation(), std::move(scale), config)))
      signalPassFailure();
    // The rescaled pairs of one word build the same shift, and those of one
    // zero point the same addend.
    getOperation()->walk([&](KernelOp kernel) {
      eliminateCommonSubExpressions(rewriter, dominance, kernel);
    });
  }
};

} // namespace

void mlir::tile::populateNarrowIntToFloatPatterns(RewritePatternSet &patterns) {
  patterns.add<UIToFPByMagic, FoldMagicConstant<arith::SubFOp>,
               FoldMagicConstant<arith::AddFOp>, PackLanePair>(
      patterns.getContext());
}

void mlir::tile::populateNarrowIntScalePatterns(RewritePatternSet &patterns) {
  patterns.add<ScaleMagicPair<arith::SubFOp>, ScaleMagicPair<arith::AddFOp>,
               OrSplatInWord>(patterns.getContext());
}
