//===- Layout.cpp - tile layouts and fragments as values ------------------===//
//
// Evaluation, composition, inversion and the Fragment primitives of the
// layout algebra, plus the built-in layouts and fragments: row-major,
// padded and swizzled shared-memory layouts, and the register fragments of
// the NVIDIA mma.sync / ldmatrix / wgmma and AMD MFMA instructions.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Layout.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

/// Exhaustive checks walk the whole tile; beyond this many elements they
/// give up rather than stall the compiler.
static constexpr int64_t kMaxEnumeratedElements = int64_t(1) << 22;

int64_t Swizzle::apply(int64_t offset) const {
  if (isIdentity())
    return offset;
  int64_t mask = (int64_t(1) << bits) - 1;
  return offset ^ (((offset >> (base + shift)) & mask) << base);
}

void mlir::tile::forEachCoordinate(ArrayRef<int64_t> shape,
                                   function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t extent : shape)
    if (extent <= 0)
      return;
  while (true) {
    fn(coords);
    int64_t dim = static_cast<int64_t>(shape.size()) - 1;
    for (; dim >= 0; --dim) {
      if (++coords[dim] < shape[dim])
        break;
      coords[dim] = 0;
    }
    if (dim < 0)
      return;
  }
}

int64_t mlir::tile::getNumElements(ArrayRef<int64_t> shape) {
  // Saturates, so that absurd shapes fail the size limits of the
  // exhaustive checks instead of wrapping around.
  int64_t n = 1;
  for (int64_t extent : shape)
    if (llvm::MulOverflow(n, extent, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

//===----------------------------------------------------------------------===//
// Compiled maps
//===----------------------------------------------------------------------===//

namespace mlir {
namespace tile {
namespace detail {
/// Straight-line code for the results of a quasi-affine map. Every
/// instruction writes the value slot of its own index; operands name
/// earlier slots. Shared subexpressions (the expressions are uniqued) are
/// computed once per result. Divisions by zero give 0 and symbols beyond
/// those passed read as 0, as the attribute verifiers leave nothing else
/// to define.
class MapProgram {
public:
  explicit MapProgram(AffineMap map);

  unsigned getNumResults() const { return results.size(); }
  /// Value of result `r` at dimensions `dims` and symbols `syms`.
  int64_t evaluate(unsigned r, ArrayRef<int64_t> dims,
                   ArrayRef<int64_t> syms) const;
  /// Values of all results into `out`, sharing the subexpressions the
  /// results have in common.
  void evaluateAll(ArrayRef<int64_t> dims, ArrayRef<int64_t> syms,
                   MutableArrayRef<int64_t> out) const;

private:
  enum class Op : uint8_t {
    Dim,
    Sym,
    Const,
    Add,
    Mul,
    FloorDiv,
    CeilDiv,
    Mod,
    // The right operand is the constant `imm` (how the simplifier leaves
    // almost every product, division and remainder).
    AddC,
    MulC,
    FloorDivC,
    CeilDivC,
    ModC,
  };
  struct Inst {
    Op op;
    uint32_t lhs = 0, rhs = 0;
    int64_t imm = 0;
  };
  /// Appends the code of `expr` to `code`, reusing the slots of the
  /// subexpressions already in `slots`; returns the slot of `expr`.
  static uint32_t emit(AffineExpr expr, SmallVectorImpl<Inst> &code,
                       DenseMap<AffineExpr, uint32_t> &slots);

  /// Runs `code`, leaving the value of instruction i in `values[i]`.
  static void run(ArrayRef<Inst> code, ArrayRef<int64_t> dims,
                  ArrayRef<int64_t> syms, int64_t *values);

  /// The code of each result on its own.
  SmallVector<SmallVector<Inst, 8>, 2> results;
  /// The code of all results together, and the slot of each result in it.
  SmallVector<Inst, 16> all;
  SmallVector<uint32_t, 2> resultSlots;
};
} // namespace detail
} // namespace tile
} // namespace mlir

using mlir::tile::detail::MapProgram;

MapProgram::MapProgram(AffineMap map) {
  for (AffineExpr expr : map.getResults()) {
    SmallVector<Inst, 8> code;
    DenseMap<AffineExpr, uint32_t> slots;
    emit(expr, code, slots);
    results.push_back(std::move(code));
  }
  DenseMap<AffineExpr, uint32_t> slots;
  for (AffineExpr expr : map.getResults())
    resultSlots.push_back(emit(expr, all, slots));
}

uint32_t MapProgram::emit(AffineExpr expr, SmallVectorImpl<Inst> &code,
                          DenseMap<AffineExpr, uint32_t> &slots) {
  auto it = slots.find(expr);
  if (it != slots.end())
    return it->second;
  Inst inst;
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    inst.op = Op::Dim;
    inst.lhs = dim.getPosition();
  } else if (auto sym = dyn_cast<AffineSymbolExpr>(expr)) {
    inst.op = Op::Sym;
    inst.lhs = sym.getPosition();
  } else if (auto cst = dyn_cast<AffineConstantExpr>(expr)) {
    inst.op = Op::Const;
    inst.imm = cst.getValue();
  } else {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    inst.lhs = emit(bin.getLHS(), code, slots);
    auto rhsCst = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (rhsCst)
      inst.imm = rhsCst.getValue();
    else
      inst.rhs = emit(bin.getRHS(), code, slots);
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      inst.op = rhsCst ? Op::AddC : Op::Add;
      break;
    case AffineExprKind::Mul:
      inst.op = rhsCst ? Op::MulC : Op::Mul;
      break;
    case AffineExprKind::FloorDiv:
      inst.op = rhsCst ? Op::FloorDivC : Op::FloorDiv;
      break;
    case AffineExprKind::CeilDiv:
      inst.op = rhsCst ? Op::CeilDivC : Op::CeilDiv;
      break;
    case AffineExprKind::Mod:
      inst.op = rhsCst ? Op::ModC : Op::Mod;
      break;
    default:
      inst = Inst{Op::Const, 0, 0, 0};
      break;
    }
    // A constant divisor of zero makes the whole expression 0.
    if (rhsCst && inst.imm == 0 &&
        (inst.op == Op::FloorDivC || inst.op == Op::CeilDivC ||
         inst.op == Op::ModC))
      inst = Inst{Op::Const, 0, 0, 0};
  }
  uint32_t slot = code.size();
  code.push_back(inst);
  slots[expr] = slot;
  return slot;
}

int64_t MapProgram::evaluate(unsigned r, ArrayRef<int64_t> dims,
                             ArrayRef<int64_t> syms) const {
  ArrayRef<Inst> code = results[r];
  SmallVector<int64_t, 32> values;
  values.resize_for_overwrite(code.size());
  run(code, dims, syms, values.data());
  return values[code.size() - 1];
}

void MapProgram::evaluateAll(ArrayRef<int64_t> dims, ArrayRef<int64_t> syms,
                             MutableArrayRef<int64_t> out) const {
  SmallVector<int64_t, 32> values;
  values.resize_for_overwrite(all.size());
  run(all, dims, syms, values.data());
  for (auto [r, slot] : llvm::enumerate(resultSlots))
    out[r] = values[slot];
}

void MapProgram::run(ArrayRef<Inst> code, ArrayRef<int64_t> dims,
                     ArrayRef<int64_t> syms, int64_t *values) {
  for (auto [i, inst] : llvm::enumerate(code)) {
    // Operand slots are only meaningful for the arithmetic instructions.
    auto lhs = [&] { return values[inst.lhs]; };
    auto rhs = [&] { return values[inst.rhs]; };
    int64_t &out = values[i];
    switch (inst.op) {
    case Op::Dim:
      out = dims[inst.lhs];
      break;
    case Op::Sym:
      out = inst.lhs < syms.size() ? syms[inst.lhs] : 0;
      break;
    case Op::Const:
      out = inst.imm;
      break;
    case Op::Add:
      out = lhs() + rhs();
      break;
    case Op::Mul:
      out = lhs() * rhs();
      break;
    case Op::FloorDiv:
      if (int64_t d = rhs())
        out = llvm::divideFloorSigned(lhs(), d);
      else
        out = 0;
      break;
    case Op::CeilDiv:
      if (int64_t d = rhs())
        out = llvm::divideCeilSigned(lhs(), d);
      else
        out = 0;
      break;
    case Op::Mod:
      if (int64_t d = rhs())
        out = llvm::mod(lhs(), d);
      else
        out = 0;
      break;
    case Op::AddC:
      out = lhs() + inst.imm;
      break;
    case Op::MulC:
      out = lhs() * inst.imm;
      break;
    case Op::FloorDivC:
      out = llvm::divideFloorSigned(lhs(), inst.imm);
      break;
    case Op::CeilDivC:
      out = llvm::divideCeilSigned(lhs(), inst.imm);
      break;
    case Op::ModC:
      out = llvm::mod(lhs(), inst.imm);
      break;
    }
  }
}

/// The compiled form of `map`, or null for a null map.
static std::shared_ptr<const MapProgram> compile(AffineMap map) {
  if (!map)
    return nullptr;
  return std::make_shared<const MapProgram>(map);
}

static bool isPowerOf2Shape(ArrayRef<int64_t> shape) {
  return !shape.empty() && llvm::all_of(shape, [](int64_t extent) {
    return extent > 0 && llvm::isPowerOf2_64(extent);
  });
}

/// `map` or its simplified form, whichever prints shorter: the simplifier
/// turns `(d0 mod 8) * 4` into `d0 * 4 - (d0 floordiv 8) * 32` but also
/// folds the divisions a reshape introduces.
static AffineMap pickReadable(AffineMap map) {
  AffineMap simplified = simplifyAffineMap(map);
  std::string a, b;
  llvm::raw_string_ostream osA(a), osB(b);
  map.print(osA);
  simplified.print(osB);
  return b.size() < a.size() ? simplified : map;
}

/// The map from the coordinates of `newShape` to those of `oldShape` that
/// keeps the row-major order of elements.
static AffineMap getReshapeMap(MLIRContext *ctx, ArrayRef<int64_t> newShape,
                               ArrayRef<int64_t> oldShape) {
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  int64_t stride = 1;
  for (int64_t i = newShape.size() - 1; i >= 0; --i) {
    linear = linear + getAffineDimExpr(i, ctx) * stride;
    stride *= newShape[i];
  }
  SmallVector<AffineExpr> results(oldShape.size());
  stride = 1;
  for (int64_t i = oldShape.size() - 1; i >= 0; --i) {
    AffineExpr coord = linear.floorDiv(stride);
    if (i != 0)
      coord = coord % oldShape[i];
    results[i] = coord;
    stride *= oldShape[i];
  }
  return AffineMap::get(newShape.size(), 0, results, ctx);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout Layout::affine(ArrayRef<int64_t> shape, AffineMap map, Swizzle swizzle) {
  Layout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.map = map;
  layout.program = compile(map);
  layout.numResults = map.getNumResults();
  layout.swizzle = swizzle;
  return layout;
}

Layout Layout::linear(MLIRContext *ctx, ArrayRef<int64_t> shape,
                      unsigned numResults, ArrayRef<int64_t> bases) {
  Layout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.map = AffineMap::get(shape.size(), 0, ctx);
  layout.numResults = numResults;
  layout.bases.assign(bases.begin(), bases.end());
  layout.linearForm = true;
  return layout;
}

Layout Layout::rowMajor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  // Built outermost dimension first, the way `d0 * 8 + d1` parses, so that
  // a hand-written row-major map is this very map and prints as the name.
  if (shape.empty())
    return affine(shape, AffineMap::get(0, 0, getAffineConstantExpr(0, ctx)));
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  AffineExpr offset = getAffineDimExpr(0, ctx) * strides[0];
  for (unsigned i = 1; i < shape.size(); ++i)
    offset = offset + getAffineDimExpr(i, ctx) * strides[i];
  return affine(shape, AffineMap::get(shape.size(), 0, offset));
}

Layout Layout::padded(MLIRContext *ctx, ArrayRef<int64_t> shape, int64_t pad) {
  AffineExpr offset =
      getAffineDimExpr(0, ctx) * (shape[1] + pad) + getAffineDimExpr(1, ctx);
  return affine(shape, AffineMap::get(2, 0, offset));
}

std::optional<Layout> Layout::swizzled(MLIRContext *ctx,
                                       ArrayRef<int64_t> shape,
                                       int64_t swizzleBytes,
                                       int64_t elementBits) {
  if (shape.size() != 2 ||
      (swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128) ||
      (elementBits != 8 && elementBits != 16 && elementBits != 32 &&
       elementBits != 64))
    return std::nullopt;
  int64_t atomCols = swizzleBytes * 8 / elementBits;
  if (shape[0] % 8 != 0 || shape[1] % atomCols != 0)
    return std::nullopt;
  // Columns beyond one swizzle row go to the next block of rows x atomCols
  // elements; the XOR only touches bits below one block (8 rows of at most
  // 128 bytes), so it can act on the whole offset.
  AffineExpr row = getAffineDimExpr(0, ctx), col = getAffineDimExpr(1, ctx);
  AffineExpr offset = row * atomCols + col % atomCols;
  if (shape[1] != atomCols)
    offset = offset + col.floorDiv(atomCols) * (shape[0] * atomCols);
  Swizzle swizzle;
  swizzle.bits = llvm::Log2_64(swizzleBytes / 16);
  swizzle.base = llvm::Log2_64(128 / elementBits);
  swizzle.shift = 3;
  return affine(shape, AffineMap::get(2, 0, offset), swizzle);
}

SmallVector<int64_t> Layout::apply(ArrayRef<int64_t> coords) const {
  SmallVector<int64_t> results(numResults, 0);
  if (linearForm) {
    unsigned bit = 0;
    for (auto [dim, extent] : llvm::enumerate(shape)) {
      unsigned numBits = llvm::Log2_64(extent);
      for (unsigned b = 0; b < numBits; ++b, ++bit)
        if ((coords[dim] >> b) & 1)
          for (unsigned r = 0; r < numResults; ++r)
            results[r] ^= bases[bit * numResults + r];
    }
    return results;
  }
  if (program)
    program->evaluateAll(coords, {}, results);
  if (numResults > 0)
    results[0] = swizzle.apply(results[0]);
  return results;
}

SmallVector<int64_t> Layout::getCodomainShape() const {
  SmallVector<int64_t> extents(numResults, 0);
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    for (auto [i, value] : llvm::enumerate(apply(coords)))
      extents[i] = std::max(extents[i], value + 1);
  });
  return extents;
}

/// The codomain of `layout` when the layout is bijective onto it (see
/// Layout::isBijective), from one walk over the tile.
static std::optional<SmallVector<int64_t>>
getBijectiveCodomain(const Layout &layout) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t numElements = getNumElements(shape);
  if (numElements > kMaxEnumeratedElements)
    return std::nullopt;
  unsigned numResults = layout.getNumResults();
  SmallVector<int64_t> images;
  images.reserve(numElements * numResults);
  SmallVector<int64_t> codomain(numResults, 0);
  bool negative = false;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    for (auto [i, value] : llvm::enumerate(layout.apply(coords))) {
      codomain[i] = std::max(codomain[i], value + 1);
      negative |= value < 0;
      images.push_back(value);
    }
  });
  if (negative || getNumElements(codomain) != numElements)
    return std::nullopt;
  // Every image lies in the codomain box, whose flat indices are
  // [0, numElements): a bit per index finds the collisions.
  llvm::BitVector seen(numElements);
  for (int64_t e = 0; e < numElements; ++e) {
    int64_t flat = 0;
    for (unsigned i = 0; i < numResults; ++i)
      flat = flat * codomain[i] + images[e * numResults + i];
    if (seen.test(flat))
      return std::nullopt;
    seen.set(flat);
  }
  return codomain;
}

bool Layout::isBijective() const {
  return getBijectiveCodomain(*this).has_value();
}

bool Layout::isInjectiveOffset() const {
  if (numResults != 1 || getNumElements(shape) > kMaxEnumeratedElements)
    return false;
  SmallVector<int64_t> images;
  bool negative = false;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    int64_t value = apply(coords)[0];
    negative |= value < 0;
    images.push_back(value);
  });
  if (negative || images.empty())
    return !negative;
  // Gaps beyond this span are not padding any buffer needs, and the bit
  // per offset below must stay small.
  int64_t span = *llvm::max_element(images) + 1;
  if (span > std::max<int64_t>(kMaxEnumeratedElements,
                               16 * static_cast<int64_t>(images.size())))
    return false;
  llvm::BitVector seen(span);
  for (int64_t image : images) {
    if (seen.test(image))
      return false;
    seen.set(image);
  }
  return true;
}

bool Layout::isEquivalentTo(const Layout &other) const {
  if (shape != other.shape || numResults != other.numResults)
    return false;
  bool same = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (same && apply(coords) != other.apply(coords))
      same = false;
  });
  return same;
}

std::optional<Layout> Layout::toLinear() const {
  if (linearForm)
    return *this;
  if (!isPowerOf2Shape(shape) || getNumElements(shape) > kMaxEnumeratedElements)
    return std::nullopt;
  SmallVector<int64_t> zero(shape.size(), 0);
  if (llvm::any_of(apply(zero), [](int64_t v) { return v != 0; }))
    return std::nullopt;
  SmallVector<int64_t> linearBases;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    for (unsigned b = 0; b < llvm::Log2_64(extent); ++b) {
      SmallVector<int64_t> unit(shape.size(), 0);
      unit[dim] = int64_t(1) << b;
      llvm::append_range(linearBases, apply(unit));
    }
  }
  Layout result = linear(getContext(), shape, numResults, linearBases);
  if (!result.isEquivalentTo(*this))
    return std::nullopt;
  return result;
}

std::optional<Layout> Layout::compose(const Layout &inner) const {
  if (inner.numResults != getRank())
    return std::nullopt;
  if (!linearForm && !inner.linearForm && inner.swizzle.isIdentity()) {
    AffineMap composed = pickReadable(map.compose(inner.map));
    return affine(inner.shape, composed, swizzle);
  }
  std::optional<Layout> outerLinear = toLinear();
  std::optional<Layout> innerLinear = inner.toLinear();
  if (!outerLinear || !innerLinear)
    return std::nullopt;
  SmallVector<int64_t> composed;
  unsigned numBits = innerLinear->bases.size() / getRank();
  for (unsigned bit = 0; bit < numBits; ++bit) {
    ArrayRef<int64_t> basis =
        ArrayRef<int64_t>(innerLinear->bases).slice(bit * getRank(), getRank());
    for (auto [value, extent] : llvm::zip(basis, shape))
      if (value < 0 || value >= extent)
        return std::nullopt;
    llvm::append_range(composed, outerLinear->apply(basis));
  }
  return linear(getContext(), inner.shape, numResults, composed);
}

/// Inverts a linear layout by Gaussian elimination over GF(2).
static std::optional<Layout> invertLinear(const Layout &layout,
                                          ArrayRef<int64_t> codomain) {
  if (!isPowerOf2Shape(codomain))
    return std::nullopt;
  SmallVector<unsigned> outBits, inBits;
  unsigned numOut = 0, numIn = 0;
  for (int64_t extent : codomain) {
    outBits.push_back(llvm::Log2_64(extent));
    numOut += outBits.back();
  }
  for (int64_t extent : layout.getShape()) {
    inBits.push_back(llvm::Log2_64(extent));
    numIn += inBits.back();
  }
  if (numIn != numOut || numIn > 62)
    return std::nullopt;
  // Pairs (image, preimage) as bit vectors; results/dimensions in order,
  // each least significant bit first.
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
  unsigned numResults = layout.getNumResults();
  for (unsigned i = 0; i < numIn; ++i) {
    uint64_t image = 0;
    unsigned offset = 0;
    for (unsigned r = 0; r < numResults; ++r) {
      image |= uint64_t(layout.getBases()[i * numResults + r]) << offset;
      offset += outBits[r];
    }
    rows.push_back({image, uint64_t(1) << i});
  }
  for (unsigned bit = 0; bit < numOut; ++bit) {
    auto pivot =
        llvm::find_if(llvm::drop_begin(rows, bit),
                      [&](const auto &row) { return (row.first >> bit) & 1; });
    if (pivot == rows.end())
      return std::nullopt;
    std::swap(rows[bit], *pivot);
    for (unsigned i = 0; i < numIn; ++i) {
      if (i != bit && ((rows[i].first >> bit) & 1)) {
        rows[i].first ^= rows[bit].first;
        rows[i].second ^= rows[bit].second;
      }
    }
  }
  SmallVector<int64_t> bases;
  for (unsigned bit = 0; bit < numOut; ++bit) {
    uint64_t preimage = rows[bit].second;
    unsigned offset = 0;
    for (unsigned bits : inBits) {
      bases.push_back((preimage >> offset) & ((uint64_t(1) << bits) - 1));
      offset += bits;
    }
  }
  return Layout::linear(layout.getContext(), codomain, layout.getRank(), bases);
}

std::optional<Layout> Layout::inverse() const {
  std::optional<SmallVector<int64_t>> bijective = getBijectiveCodomain(*this);
  if (!bijective)
    return std::nullopt;
  ArrayRef<int64_t> codomain = *bijective;
  // Prefer divisions and remainders, which read better, and fall back to
  // GF(2) elimination for swizzles and other linear layouts; tiles that are
  // not powers of two have no linear form, but their dimensions may still
  // split into mixed radices.
  if (std::optional<Layout> inv = invertStrided(codomain, /*splitDims=*/false))
    return inv;
  if (std::optional<Layout> lin = toLinear())
    return invertLinear(*lin, codomain);
  return invertStrided(codomain, /*splitDims=*/true);
}

std::optional<Layout> Layout::invertStrided(ArrayRef<int64_t> codomain,
                                            bool splitDims) const {
  // A bijective strided layout (a permutation of mixed radices) inverts
  // into divisions and remainders.
  if (linearForm || !swizzle.isIdentity() || numResults != 1)
    return std::nullopt;
  SmallVector<int64_t> zero(shape.size(), 0);
  int64_t base = apply(zero)[0];
  /// A run of a dimension's values: coordinate c * weight + ... for c in
  /// [0, extent) lands at offset c * stride.
  struct Digit {
    int64_t stride, extent, weight;
    unsigned dim;
  };
  SmallVector<Digit> digits;
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1)
      continue;
    SmallVector<int64_t> point(zero);
    auto offset = [&](int64_t x) {
      point[i] = x;
      return apply(point)[0] - base;
    };
    for (int64_t weight = 1; weight < shape[i];) {
      int64_t stride = offset(weight), extent = 1;
      while (weight * (extent + 1) <= shape[i] &&
             (!splitDims || offset(weight * extent) == extent * stride))
        ++extent;
      if (shape[i] % (weight * extent) != 0)
        return std::nullopt;
      digits.push_back({stride, extent, weight, i});
      weight *= extent;
    }
  }
  llvm::sort(digits, [](const Digit &a, const Digit &b) {
    return a.stride < b.stride;
  });
  MLIRContext *ctx = getContext();
  AffineExpr offset = getAffineDimExpr(0, ctx);
  SmallVector<AffineExpr> results(shape.size(), getAffineConstantExpr(0, ctx));
  int64_t expected = 1;
  for (const Digit &digit : digits) {
    if (digit.stride != expected)
      return std::nullopt;
    AffineExpr value = offset.floorDiv(digit.stride);
    expected *= digit.extent;
    // The slowest digit needs no remainder.
    if (expected != getNumElements(shape))
      value = value % digit.extent;
    results[digit.dim] = results[digit.dim] + value * digit.weight;
  }
  Layout inv = affine(codomain, AffineMap::get(1, 0, results, ctx));
  // The strides only describe the layout if it is affine in each digit;
  // check the round trip on the whole tile.
  bool ok = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (ok && inv.apply(apply(coords)) != SmallVector<int64_t>(coords))
      ok = false;
  });
  if (!ok)
    return std::nullopt;
  return inv;
}

std::optional<Layout> Layout::reshape(ArrayRef<int64_t> newShape) const {
  if (getNumElements(newShape) != getNumElements(shape) ||
      llvm::any_of(newShape, [](int64_t e) { return e <= 0; }))
    return std::nullopt;
  MLIRContext *ctx = getContext();
  return compose(affine(newShape, getReshapeMap(ctx, newShape, shape)));
}

//===----------------------------------------------------------------------===//
// Fragment
//===----------------------------------------------------------------------===//

Fragment::Fragment(ArrayRef<int64_t> shape, AffineMap map, int64_t threads,
                   int64_t replicas)
    : shape(shape.begin(), shape.end()), map(map), threads(threads),
      replicas(replicas), program(compile(map)) {}

Fragment Fragment::get(ArrayRef<int64_t> shape, AffineExpr thread,
                       AffineExpr reg, int64_t threads, int64_t replicas) {
  AffineMap map = AffineMap::get(shape.size(), replicas > 1 ? 1 : 0,
                                 {thread, reg}, thread.getContext());
  return Fragment(shape, map, threads, replicas);
}

int64_t Fragment::getThread(ArrayRef<int64_t> coords, int64_t rep) const {
  return program ? program->evaluate(0, coords, {rep}) : 0;
}

int64_t Fragment::getRegister(ArrayRef<int64_t> coords) const {
  return program ? program->evaluate(1, coords, {0}) : 0;
}

static std::optional<int64_t> provenInjective(const Fragment &fragment);

int64_t Fragment::getNumRegisters() const {
  // Large fragments of the usual structure need no walk over every element.
  if (getNumElements(shape) > kMaxEnumeratedElements)
    if (std::optional<int64_t> regs = provenInjective(*this))
      return *regs;
  int64_t regs = 0;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    // Saturates rather than overflows at the largest index.
    int64_t reg = getRegister(coords);
    regs = std::max(regs,
                    reg == std::numeric_limits<int64_t>::max() ? reg : reg + 1);
  });
  return regs;
}

namespace {
/// `coef * ((x floordiv div) mod mod)` of one variable x (a dimension, or
/// the replica after the dimensions); `mod` 0 means no mod.
struct DigitTerm {
  int64_t coef;
  unsigned var;
  int64_t div, mod;
};

/// A map result as a sum of DigitTerms and a constant.
struct DigitSum {
  SmallVector<DigitTerm> terms;
  int64_t constant = 0;
};
} // namespace

/// The largest value of `(x floordiv div) mod mod` for x below `extent`.
static int64_t digitMax(const DigitTerm &t, ArrayRef<int64_t> extents) {
  int64_t top = (extents[t.var] - 1) / t.div;
  return t.mod ? std::min(top, t.mod - 1) : top;
}

/// Bounds of `sum` when every coefficient is positive; nullopt otherwise or
/// on overflow.
static std::optional<std::pair<int64_t, int64_t>>
digitBounds(const DigitSum &sum, ArrayRef<int64_t> extents) {
  int64_t max = sum.constant;
  for (const DigitTerm &t : sum.terms) {
    int64_t part;
    if (t.coef <= 0 || llvm::MulOverflow(t.coef, digitMax(t, extents), part) ||
        llvm::AddOverflow(max, part, max))
      return std::nullopt;
  }
  return std::make_pair(sum.constant, max);
}

/// Rewrites the quasi-affine `expr` as a DigitSum, using the identities of
/// floordiv and mod over sums with multiples of the divisor; nullopt for
/// forms outside that (for instance a mod of two digits that can carry).
static std::optional<DigitSum> toDigits(AffineExpr expr,
                                        ArrayRef<int64_t> extents) {
  unsigned numDims = extents.size() - 1;
  switch (expr.getKind()) {
  case AffineExprKind::Constant: {
    DigitSum sum;
    sum.constant = cast<AffineConstantExpr>(expr).getValue();
    return sum;
  }
  case AffineExprKind::DimId:
  case AffineExprKind::SymbolId: {
    unsigned var = isa<AffineDimExpr>(expr)
                       ? cast<AffineDimExpr>(expr).getPosition()
                       : numDims + cast<AffineSymbolExpr>(expr).getPosition();
    if (var >= extents.size())
      return std::nullopt;
    DigitSum sum;
    sum.terms.push_back({1, var, 1, 0});
    return sum;
  }
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  std::optional<DigitSum> lhs = toDigits(bin.getLHS(), extents);
  if (!lhs)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add) {
    std::optional<DigitSum> rhs = toDigits(bin.getRHS(), extents);
    if (!rhs || llvm::AddOverflow(lhs->constant, rhs->constant, lhs->constant))
      return std::nullopt;
    llvm::append_range(lhs->terms, rhs->terms);
    return lhs;
  }
  auto rhsConst = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (expr.getKind() == AffineExprKind::Mul) {
    std::optional<DigitSum> rhs = toDigits(bin.getRHS(), extents);
    if (!rhs)
      return std::nullopt;
    // One side is a constant (quasi-affine maps).
    if (!rhs->terms.empty())
      std::swap(lhs, rhs);
    if (!rhs->terms.empty())
      return std::nullopt;
    int64_t k = rhs->constant;
    if (llvm::MulOverflow(lhs->constant, k, lhs->constant))
      return std::nullopt;
    for (DigitTerm &t : lhs->terms)
      if (llvm::MulOverflow(t.coef, k, t.coef))
        return std::nullopt;
    return lhs;
  }
  if (!rhsConst || rhsConst.getValue() <= 0 ||
      expr.getKind() == AffineExprKind::CeilDiv)
    return std::nullopt;
  int64_t k = rhsConst.getValue();
  bool isMod = expr.getKind() == AffineExprKind::Mod;
  // Multiples of k leave a mod and come out of a floordiv whole.
  DigitSum whole, rest;
  for (const DigitTerm &t : lhs->terms) {
    if (t.coef % k == 0)
      whole.terms.push_back({t.coef / k, t.var, t.div, t.mod});
    else
      rest.terms.push_back(t);
  }
  whole.constant = llvm::divideFloorSigned(lhs->constant, k);
  rest.constant = lhs->constant - whole.constant * k;
  DigitSum result = isMod ? DigitSum() : whole;
  std::optional<std::pair<int64_t, int64_t>> bounds =
      digitBounds(rest, extents);
  if (bounds && bounds->first >= 0 && bounds->second < k) {
    // The rest stays below k: unchanged by mod, gone in floordiv.
    if (isMod)
      return rest;
    return result;
  }
  if (rest.terms.size() != 1 || rest.constant != 0 ||
      k % rest.terms[0].coef != 0 || rest.terms[0].coef <= 0)
    return std::nullopt;
  DigitTerm t = rest.terms[0];
  int64_t k2 = k / t.coef;
  if (isMod) {
    // c * X mod (c * k2) = c * (X mod k2).
    if (t.mod && t.mod % k2 != 0)
      return std::nullopt;
    t.mod = k2;
    result.terms.push_back(t);
    return result;
  }
  // c * X floordiv (c * k2) = X floordiv k2.
  if (t.mod && t.mod % k2 != 0)
    return std::nullopt;
  if (llvm::MulOverflow(t.div, k2, t.div))
    return std::nullopt;
  t.mod = t.mod ? t.mod / k2 : 0;
  t.coef = 1;
  result.terms.push_back(t);
  return result;
}

/// Decides Fragment::isInjective without enumerating, for maps whose
/// results are sums of digits `(x floordiv a) mod b` of the coordinates
/// (and replica) with positive coefficients, as the coalesced and tensor
/// core fragments are. Each coordinate is split into the mixed-radix digits
/// its terms select; the map is injective when every digit appears in a
/// result whose digits have weights that leave no overlap (each weight
/// exceeds the largest sum of the lighter ones). Returns the number of
/// registers when that proves injectivity, nullopt when the structure does
/// not decide it.
static std::optional<int64_t> provenInjective(const Fragment &fragment) {
  AffineMap map = fragment.getMap();
  if (!map || map.getNumResults() != 2)
    return std::nullopt;
  SmallVector<int64_t> extents(fragment.getShape());
  extents.push_back(fragment.getReplicate());
  DigitSum results[2];
  for (unsigned r = 0; r < 2; ++r) {
    std::optional<DigitSum> sum = toDigits(map.getResult(r), extents);
    if (!sum)
      return std::nullopt;
    // Drop digits that are always 0; a mod that never wraps is no mod.
    DigitSum kept;
    kept.constant = sum->constant;
    for (DigitTerm t : sum->terms) {
      if (t.div >= extents[t.var])
        continue;
      if (t.mod && (extents[t.var] - 1) / t.div < t.mod)
        t.mod = 0;
      kept.terms.push_back(t);
    }
    results[r] = kept;
  }
  // Threads in range and registers non-negative.
  auto threadBounds = digitBounds(results[0], extents);
  auto regBounds = digitBounds(results[1], extents);
  if (!threadBounds || !regBounds || threadBounds->first < 0 ||
      threadBounds->second >= fragment.getThreads() || regBounds->first < 0)
    return std::nullopt;
  // The digit boundaries of each variable must divide one another.
  SmallVector<SmallVector<int64_t>> cuts(extents.size());
  for (unsigned v = 0; v < extents.size(); ++v)
    cuts[v] = {1, extents[v]};
  for (const DigitSum &sum : results)
    for (const DigitTerm &t : sum.terms) {
      cuts[t.var].push_back(t.div);
      int64_t top;
      if (t.mod && !llvm::MulOverflow(t.div, t.mod, top) &&
          top < extents[t.var])
        cuts[t.var].push_back(top);
    }
  for (SmallVector<int64_t> &c : cuts) {
    llvm::sort(c);
    c.erase(std::unique(c.begin(), c.end()), c.end());
    for (size_t i = 1; i < c.size(); ++i)
      if (c[i] % c[i - 1] != 0)
        return std::nullopt;
  }
  // Weight of digit (v, j) in each result; digit j spans [cuts[j],
  // cuts[j + 1]) of variable v.
  using Digit = std::pair<unsigned, unsigned>;
  llvm::DenseSet<Digit> covered;
  for (const DigitSum &sum : results) {
    llvm::DenseMap<Digit, int64_t> weights;
    for (const DigitTerm &t : sum.terms) {
      const SmallVector<int64_t> &c = cuts[t.var];
      int64_t top;
      if (!t.mod || llvm::MulOverflow(t.div, t.mod, top) ||
          top > extents[t.var])
        top = extents[t.var];
      for (unsigned j = 0; j + 1 < c.size(); ++j) {
        if (c[j] < t.div || c[j + 1] > top)
          continue;
        int64_t w;
        if (llvm::MulOverflow(t.coef, c[j] / t.div, w) ||
            llvm::AddOverflow(weights[{t.var, j}], w, weights[{t.var, j}]))
          return std::nullopt;
      }
    }
    SmallVector<std::pair<int64_t, int64_t>> digits; // weight, radix
    for (auto &[digit, w] : weights)
      digits.push_back({w, cuts[digit.first][digit.second + 1] /
                               cuts[digit.first][digit.second]});
    llvm::sort(digits);
    int64_t reach = 0; // the largest sum of the digits so far
    bool decodable = true;
    for (auto [w, radix] : digits) {
      int64_t part;
      if (w <= reach || llvm::MulOverflow(w, radix - 1, part) ||
          llvm::AddOverflow(reach, part, reach)) {
        decodable = false;
        break;
      }
    }
    if (decodable)
      for (auto &entry : weights)
        covered.insert(entry.first);
  }
  for (unsigned v = 0; v < extents.size(); ++v)
    for (unsigned j = 0; j + 1 < cuts[v].size(); ++j)
      if (!covered.contains({v, j}))
        return std::nullopt;
  return regBounds->second + 1;
}

/// Fragment::isInjective, also giving the number of registers per thread
/// when it holds.
static bool isInjectiveFragment(const Fragment &fragment, int64_t &numRegs) {
  ArrayRef<int64_t> shape = fragment.getShape();
  int64_t replicas = fragment.getReplicate(), threads = fragment.getThreads();
  if (std::optional<int64_t> regs = provenInjective(fragment)) {
    numRegs = *regs;
    return true;
  }
  // Beyond the enumeration limit a map the structure does not decide is
  // reported as not injective: the callers then say what they cannot do.
  if (getNumElements(shape) > kMaxEnumeratedElements / replicas)
    return false;
  bool ok = true;
  numRegs = 0;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    int64_t reg = fragment.getRegister(coords);
    // The largest index has no register count (reg + 1 would overflow).
    ok &= reg >= 0 && reg < std::numeric_limits<int64_t>::max();
    if (ok)
      numRegs = std::max(numRegs, reg + 1);
  });
  if (!ok)
    return false;
  // Slots are thread * numRegs + reg once every thread is known in range;
  // a bit per slot finds the collisions, unless the slots are too many.
  int64_t numSlots;
  bool dense = !llvm::MulOverflow(threads, numRegs, numSlots) &&
               numSlots >= 0 && numSlots <= 4 * kMaxEnumeratedElements;
  llvm::BitVector seen(dense ? numSlots : 0);
  llvm::DenseSet<std::pair<int64_t, int64_t>> slots;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (!ok)
      return;
    int64_t reg = fragment.getRegister(coords);
    for (int64_t rep = 0; rep < replicas; ++rep) {
      int64_t thread = fragment.getThread(coords, rep);
      if (thread < 0 || thread >= threads) {
        ok = false;
        return;
      }
      if (dense) {
        int64_t slot = thread * numRegs + reg;
        if (seen.test(slot))
          ok = false;
        seen.set(slot);
      } else if (!slots.insert({thread, reg}).second) {
        ok = false;
      }
    }
  });
  return ok;
}

bool Fragment::isInjective() const {
  int64_t numRegs;
  return isInjectiveFragment(*this, numRegs);
}

bool Fragment::isBijective() const {
  int64_t numRegs;
  return isInjectiveFragment(*this, numRegs) &&
         getNumElements(shape) * replicas == threads * numRegs;
}

bool Fragment::isEquivalentTo(const Fragment &other) const {
  if (shape != other.shape || threads != other.threads ||
      replicas != other.replicas)
    return false;
  bool same = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (!same || getRegister(coords) != other.getRegister(coords)) {
      same = false;
      return;
    }
    SmallVector<int64_t> mine, theirs;
    for (int64_t rep = 0; rep < replicas; ++rep) {
      mine.push_back(getThread(coords, rep));
      theirs.push_back(other.getThread(coords, rep));
    }
    llvm::sort(mine);
    llvm::sort(theirs);
    same = mine == theirs;
  });
  return same;
}

Fragment Fragment::repeat(ArrayRef<int64_t> repeats, bool onThread,
                          bool lowerDimFirst) const {
  MLIRContext *ctx = getContext();
  SmallVector<int64_t> newShape;
  SmallVector<AffineExpr> inner;
  AffineExpr copy = getAffineConstantExpr(0, ctx);
  int64_t numCopies = 1;
  SmallVector<AffineExpr> tileIndex(shape.size());
  for (unsigned i = 0; i < shape.size(); ++i) {
    AffineExpr dim = getAffineDimExpr(i, ctx);
    newShape.push_back(shape[i] * repeats[i]);
    inner.push_back(repeats[i] == 1 ? dim : dim % shape[i]);
    tileIndex[i] = repeats[i] == 1 ? getAffineConstantExpr(0, ctx)
                                   : dim.floorDiv(shape[i]);
  }
  for (unsigned k = 0; k < shape.size(); ++k) {
    unsigned i = lowerDimFirst ? k : shape.size() - 1 - k;
    copy = copy + tileIndex[i] * numCopies;
    numCopies *= repeats[i];
  }
  SmallVector<AffineExpr> syms;
  for (unsigned s = 0; s < map.getNumSymbols(); ++s)
    syms.push_back(getAffineSymbolExpr(s, ctx));
  AffineExpr thread = map.getResult(0).replaceDimsAndSymbols(inner, syms);
  AffineExpr reg = map.getResult(1).replaceDimsAndSymbols(inner, syms);
  int64_t newThreads = threads;
  if (onThread) {
    thread = thread + copy * threads;
    newThreads = threads * numCopies;
  } else {
    reg = reg + copy * getNumRegisters();
  }
  AffineMap newMap =
      AffineMap::get(shape.size(), map.getNumSymbols(), {thread, reg}, ctx);
  return Fragment(newShape, newMap, newThreads, replicas);
}

Fragment Fragment::replicate(int64_t factor) const {
  MLIRContext *ctx = getContext();
  AffineExpr rep = getAffineSymbolExpr(0, ctx);
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0; i < shape.size(); ++i)
    dims.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineExpr> syms;
  if (map.getNumSymbols() == 1)
    syms.push_back(replicas == 1 ? getAffineConstantExpr(0, ctx)
                                 : rep % replicas);
  AffineExpr thread = map.getResult(0).replaceDimsAndSymbols(dims, syms) +
                      rep.floorDiv(replicas) * threads;
  AffineMap newMap =
      AffineMap::get(shape.size(), 1, {thread, map.getResult(1)}, ctx);
  return Fragment(shape, newMap, threads * factor, replicas * factor);
}

std::optional<Fragment> Fragment::bindThreadRange(int64_t begin,
                                                  int64_t blockThreads) const {
  if (begin < 0 || begin + threads > blockThreads)
    return std::nullopt;
  AffineMap newMap = AffineMap::get(
      shape.size(), map.getNumSymbols(),
      {map.getResult(0) + begin, map.getResult(1)}, getContext());
  return Fragment(shape, newMap, blockThreads, replicas);
}

std::optional<Fragment> Fragment::compose(const Layout &inner) const {
  if (inner.isLinear() || !inner.getSwizzle().isIdentity() ||
      inner.getNumResults() != getRank())
    return std::nullopt;
  AffineMap composed = pickReadable(map.compose(inner.getMap()));
  return Fragment(inner.getShape(), composed, threads, replicas);
}

std::optional<Fragment> Fragment::reshape(ArrayRef<int64_t> newShape) const {
  if (getNumElements(newShape) != getNumElements(shape) ||
      llvm::any_of(newShape, [](int64_t e) { return e <= 0; }))
    return std::nullopt;
  return compose(
      Layout::affine(newShape, getReshapeMap(getContext(), newShape, shape)));
}

Fragment Fragment::transpose() const {
  MLIRContext *ctx = getContext();
  AffineMap swap = AffineMap::get(
      2, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(0, ctx)}, ctx);
  return *compose(Layout::affine({shape[1], shape[0]}, swap));
}

std::optional<Layout> Fragment::inverse() const {
  if (replicas != 1 || !isBijective())
    return std::nullopt;
  AffineMap plain =
      AffineMap::get(shape.size(), 0, map.getResults(), getContext());
  if (map.getNumSymbols() != 0)
    plain = map.replaceDimsAndSymbols(
        llvm::to_vector(llvm::map_range(
            llvm::seq<unsigned>(0, shape.size()),
            [&](unsigned i) { return getAffineDimExpr(i, getContext()); })),
        {getAffineConstantExpr(0, getContext())}, shape.size(), 0);
  return Layout::affine(shape, plain).inverse();
}

//===----------------------------------------------------------------------===//
// Built-in fragments
//===----------------------------------------------------------------------===//

namespace {
/// One built-in: its expected shape (0 = any, checked by the builder) and
/// the builder of (thread, register) from (row, col).
struct BuiltinFragment {
  StringRef name;
  int64_t rows, cols, threads;
  std::pair<AffineExpr, AffineExpr> (*build)(AffineExpr r, AffineExpr c);
};
} // namespace

/// Thread of a quad-based mma fragment: 4 threads per row group.
static AffineExpr quad(AffineExpr group, AffineExpr inGroup) {
  return group * 4 + inGroup;
}

/// The 16x8 accumulator of every mma.sync shape (m16n8k16, m16n8k8,
/// m16n8k32): two consecutive columns per register pair, rows 8 apart.
static std::pair<AffineExpr, AffineExpr> mmaAccumulator(AffineExpr r,
                                                        AffineExpr c) {
  return std::make_pair(quad(r % 8, c.floorDiv(2)), c % 2 + r.floorDiv(8) * 2);
}

static const BuiltinFragment kBuiltins[] = {
    // mma.m16n8k16, f16/bf16. A is 16x16 (row-major), B 16x8 (K x N), C
    // 16x8.
    {"mma_m16n8k16_a", 16, 16, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(r % 8, (c % 8).floorDiv(2)),
                             c % 2 + r.floorDiv(8) * 2 + c.floorDiv(8) * 4);
     }},
    {"mma_m16n8k16_b", 16, 8, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(c, (r % 8).floorDiv(2)),
                             r % 2 + r.floorDiv(8) * 2);
     }},
    {"mma_m16n8k16_c", 16, 8, 32, mmaAccumulator},
    // mma.m16n8k8, tf32: one element per 32-bit register.
    {"mma_m16n8k8_a", 16, 8, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(r % 8, c % 4),
                             r.floorDiv(8) + c.floorDiv(4) * 2);
     }},
    {"mma_m16n8k8_b", 8, 8, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(c, r % 4), r.floorDiv(4));
     }},
    {"mma_m16n8k8_c", 16, 8, 32, mmaAccumulator},
    // mma.m16n8k32, s8/u8: four elements per 32-bit register.
    {"mma_m16n8k32_a", 16, 32, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(r % 8, (c % 16).floorDiv(4)),
                             c % 4 + r.floorDiv(8) * 4 + c.floorDiv(16) * 8);
     }},
    {"mma_m16n8k32_b", 32, 8, 32,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(quad(c, (r % 16).floorDiv(4)),
                             r % 4 + r.floorDiv(16) * 4);
     }},
    {"mma_m16n8k32_c", 16, 8, 32, mmaAccumulator},
    // wgmma.m64nNk16 accumulator: warp w of the warp group owns rows
    // [16w, 16w + 16); within a warp, 8-column blocks repeat the mma C
    // pattern.
    {"wgmma_c", 64, 0, 128,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(
           r.floorDiv(16) * 32 + quad(r % 8, (c % 8).floorDiv(2)),
           c % 2 + (r % 16).floorDiv(8) * 2 + c.floorDiv(8) * 4);
     }},
    // AMD MFMA (wave64), f16 inputs, f32 accumulators.
    {"mfma_32x32x8_a", 32, 8, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(r + c.floorDiv(4) * 32, c % 4);
     }},
    {"mfma_32x32x8_b", 8, 32, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(c + r.floorDiv(4) * 32, r % 4);
     }},
    {"mfma_32x32x8_c", 32, 32, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(c + (r.floorDiv(4) % 2) * 32,
                             r % 4 + r.floorDiv(8) * 4);
     }},
    {"mfma_16x16x16_a", 16, 16, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(r + c.floorDiv(4) * 16, c % 4);
     }},
    {"mfma_16x16x16_b", 16, 16, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(c + r.floorDiv(4) * 16, r % 4);
     }},
    {"mfma_16x16x16_c", 16, 16, 64,
     [](AffineExpr r, AffineExpr c) {
       return std::make_pair(c + r.floorDiv(4) * 16, r % 4);
     }},
};

bool mlir::tile::builtinFragmentTakesParam(StringRef name) {
  return name == "ldmatrix" || name == "ldmatrix_trans";
}

ArrayRef<StringRef> mlir::tile::getBuiltinFragmentNames() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const BuiltinFragment &builtin : kBuiltins)
      result.push_back(builtin.name);
    result.push_back("ldmatrix");
    result.push_back("ldmatrix_trans");
    return result;
  }();
  return names;
}

/// ldmatrix: each 8 x 16-byte matrix goes to the warp as thread t holding
/// row t / 4 and the 4 bytes at column (t % 4) * 4 bytes; `.trans` hands
/// out columns instead (16-bit elements only). Matrices tile the shape in
/// column-major order, matching the mma A operand for a 16 x 32-byte tile.
static std::optional<Fragment> getLdmatrix(MLIRContext *ctx,
                                           ArrayRef<int64_t> shape,
                                           int64_t bits, bool trans,
                                           std::string &error) {
  if (bits != 8 && bits != 16 && bits != 32) {
    error = "expected ldmatrix element bits of 8, 16 or 32, got " +
            std::to_string(bits);
    return std::nullopt;
  }
  if (trans && bits != 16) {
    error = "ldmatrix_trans needs 16-bit elements, got " + std::to_string(bits);
    return std::nullopt;
  }
  int64_t perReg = 32 / bits, cols = 128 / bits;
  // With .trans the stored matrix is 8 x 8 of 16-bit elements as well.
  int64_t matRows = 8, matCols = trans ? 8 : cols;
  if (shape.size() != 2 || shape[0] % matRows || shape[1] % matCols) {
    error = "expected an ldmatrix tile of 8k x " + std::to_string(matCols) +
            "k elements";
    return std::nullopt;
  }
  int64_t rowTiles = shape[0] / matRows;
  int64_t numMatrices = rowTiles * (shape[1] / matCols);
  if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4) {
    error = "expected 1, 2 or 4 ldmatrix matrices, got " +
            std::to_string(numMatrices);
    return std::nullopt;
  }
  AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  AffineExpr matrix = r.floorDiv(matRows) + c.floorDiv(matCols) * rowTiles;
  AffineExpr thread, reg;
  if (trans) {
    thread = quad(c % 8, (r % 8).floorDiv(2));
    reg = matrix * 2 + r % 2;
  } else {
    thread = quad(r % 8, (c % cols).floorDiv(perReg));
    reg = matrix * perReg + c % perReg;
  }
  return Fragment::get(shape, thread, reg, 32);
}

std::optional<Fragment> mlir::tile::getBuiltinFragment(MLIRContext *ctx,
                                                       StringRef name,
                                                       ArrayRef<int64_t> shape,
                                                       int64_t param,
                                                       std::string &error) {
  if (name == "ldmatrix" || name == "ldmatrix_trans")
    return getLdmatrix(ctx, shape, param, name == "ldmatrix_trans", error);
  for (const BuiltinFragment &builtin : kBuiltins) {
    if (builtin.name != name)
      continue;
    bool fits =
        shape.size() == 2 && shape[0] == builtin.rows &&
        (builtin.cols ? shape[1] == builtin.cols
                      : shape[1] >= 8 && shape[1] <= 256 && shape[1] % 8 == 0);
    if (!fits) {
      error = "expected " + name.str() + " over a " +
              std::to_string(builtin.rows) + "x" +
              (builtin.cols ? std::to_string(builtin.cols)
                            : std::string("N (N = 8, 16, ..., 256)")) +
              " tile";
      return std::nullopt;
    }
    auto [thread, reg] =
        builtin.build(getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx));
    return Fragment::get(shape, thread, reg, builtin.threads);
  }
  error = "unknown built-in fragment '" + name.str() + "'";
  return std::nullopt;
}

SmallVector<SmallVector<int64_t, 2>>
mlir::tile::getBuiltinFragmentShapes(StringRef name,
                                     ArrayRef<int64_t> tileShape) {
  SmallVector<SmallVector<int64_t, 2>> shapes;
  for (const BuiltinFragment &builtin : kBuiltins) {
    if (builtin.name != name)
      continue;
    if (builtin.cols) {
      shapes.push_back({builtin.rows, builtin.cols});
    } else if (tileShape.size() == 2) {
      for (int64_t n = 256; n >= 8; n -= 8)
        if (tileShape[1] % n == 0)
          shapes.push_back({builtin.rows, n});
    }
  }
  return shapes;
}

std::optional<Fragment> mlir::tile::buildBuiltinChain(MLIRContext *ctx,
                                                      const BuiltinChain &chain,
                                                      ArrayRef<int64_t> shape,
                                                      std::string &error) {
  unsigned rank = shape.size();
  SmallVector<int64_t> repeat(chain.repeat.begin(), chain.repeat.end());
  SmallVector<int64_t> onThread(chain.repeatOnThread.begin(),
                                chain.repeatOnThread.end());
  if (repeat.empty())
    repeat.assign(rank, 1);
  if (onThread.empty())
    onThread.assign(rank, 1);
  if (repeat.size() != rank || onThread.size() != rank) {
    error = "expected " + std::to_string(rank) +
            " repeat factors, one per dimension";
    return std::nullopt;
  }
  SmallVector<int64_t> baseShape;
  for (unsigned i = 0; i < rank; ++i) {
    if (repeat[i] <= 0 || onThread[i] <= 0) {
      error = "expected positive repeat factors";
      return std::nullopt;
    }
    int64_t copies = repeat[i] * onThread[i];
    if (shape[i] % copies != 0) {
      error = "expected dimension " + std::to_string(i) + " of extent " +
              std::to_string(shape[i]) + " to be a multiple of its " +
              std::to_string(copies) + " copies";
      return std::nullopt;
    }
    baseShape.push_back(shape[i] / copies);
  }
  if (chain.replicate <= 0) {
    error = "expected a positive replication";
    return std::nullopt;
  }
  std::optional<Fragment> fragment =
      getBuiltinFragment(ctx, chain.name, baseShape, chain.param, error);
  if (!fragment)
    return std::nullopt;
  auto isCopy = [](ArrayRef<int64_t> factors) {
    return llvm::any_of(factors, [](int64_t f) { return f != 1; });
  };
  if (isCopy(repeat))
    fragment = fragment->repeat(repeat, /*onThread=*/false);
  if (isCopy(onThread))
    fragment = fragment->repeatOnThread(onThread);
  if (chain.replicate != 1)
    fragment = fragment->replicate(chain.replicate);
  return fragment;
}

std::optional<BuiltinChain>
mlir::tile::matchBuiltinChain(const Fragment &fragment) {
  if (fragment.getRank() != 2)
    return std::nullopt;
  ArrayRef<int64_t> shape = fragment.getShape();
  MLIRContext *ctx = fragment.getContext();
  for (const BuiltinFragment &builtin : kBuiltins) {
    for (ArrayRef<int64_t> base :
         getBuiltinFragmentShapes(builtin.name, shape)) {
      if (shape[0] % base[0] || shape[1] % base[1])
        continue;
      int64_t k0 = shape[0] / base[0], k1 = shape[1] / base[1];
      int64_t perCopy = builtin.threads * fragment.getReplicate();
      if (fragment.getThreads() % perCopy)
        continue;
      int64_t threadCopies = fragment.getThreads() / perCopy;
      for (int64_t t0 = 1; t0 <= k0; ++t0) {
        if (k0 % t0 || threadCopies % t0 || k1 % (threadCopies / t0))
          continue;
        int64_t t1 = threadCopies / t0;
        BuiltinChain chain;
        chain.name = builtin.name;
        chain.repeat = {k0 / t0, k1 / t1};
        chain.repeatOnThread = {t0, t1};
        chain.replicate = fragment.getReplicate();
        std::string error;
        std::optional<Fragment> candidate =
            buildBuiltinChain(ctx, chain, shape, error);
        if (candidate && *candidate == fragment)
          return chain;
      }
    }
  }
  return std::nullopt;
}
