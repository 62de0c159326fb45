//===- LayoutInferenceUtils.cpp - fragments that layout inference builds --===//
//
// The fragment constructions of layout inference that do not depend on the
// IR: coalesced thread bindings, slices of a fragment along some of its
// dimensions (a row reduction's result, a bias read in a loop over a gemm
// result) and the check that a loop's thread binding can touch a fragment.
//
// Slices go through the GF(2) form of a fragment: for power-of-two tiles,
// the built-in chains and the coalesced bindings send every coordinate bit
// to one bit of the thread or of the register. Dropping a dimension turns
// its thread bits into replicas and forgets its register bits; the
// remaining register bits are renumbered densely. A tile with other
// extents (a 176-key block, three warpgroups of 64 rows) is sliced through
// its power-of-two corner at the origin, whose slice's expressions then
// stand for the whole tile where a check of every element agrees.
//
//===----------------------------------------------------------------------===//

#include "Analysis/LayoutInferenceUtils.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

/// Exhaustive checks give up beyond this many (element, replica) pairs.
static constexpr int64_t kMaxPairs = int64_t(1) << 21;

AffineExpr mlir::tile::getReadableExpr(AffineExpr expr, unsigned numDims,
                                       unsigned numSymbols) {
  AffineExpr simplified = simplifyAffineExpr(expr, numDims, numSymbols);
  std::string a, b;
  llvm::raw_string_ostream osA(a), osB(b);
  expr.print(osA);
  simplified.print(osB);
  return b.size() < a.size() ? simplified : expr;
}

Fragment mlir::tile::getCoalescedFragment(MLIRContext *ctx,
                                          ArrayRef<int64_t> shape,
                                          int64_t threads, int64_t vector) {
  unsigned rank = shape.size();
  int64_t inner = shape.back();
  // Vectors are numbered row-major, the vector index taking the place of
  // the innermost coordinate; vector v goes to thread v mod threads.
  AffineExpr vec = getAffineConstantExpr(0, ctx);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    AffineExpr dim = getAffineDimExpr(d, ctx);
    AffineExpr coord = d == rank - 1 && vector > 1 ? dim.floorDiv(vector) : dim;
    vec = vec + coord * stride;
    stride *= d == rank - 1 ? inner / vector : shape[d];
  }
  int64_t numVectors = stride;
  // Where the vectors do not split evenly over the threads (1024 vectors on
  // 384 threads), the largest thread count that splits them copies them
  // and the other threads idle: every round stays contiguous and each
  // active thread takes the same number of vectors.
  int64_t active = threads;
  if (numVectors > threads)
    while (numVectors % active != 0)
      --active;
  AffineExpr lane = getAffineDimExpr(rank - 1, ctx) % vector;
  int64_t perRow = inner / vector;
  // Rounds that neither hold whole rows nor split one row (18 vectors a
  // row on 192 threads, from a 144-column tile) number the vectors with a
  // modulus the loop layouts cannot invert: take the largest thread count
  // that makes each round whole rows instead (144 threads, 8 rows a round).
  if (rank >= 2 && numVectors > active && active % perRow != 0 &&
      perRow % active != 0) {
    for (int64_t whole = threads / perRow * perRow; whole > 0; whole -= perRow)
      if (numVectors % whole == 0) {
        active = whole;
        break;
      }
  }
  if (rank >= 2 && numVectors > active && active % perRow == 0) {
    // Whole rows per round of threads: say it with the row index, which
    // reads better than the vector index.
    AffineExpr row = getAffineConstantExpr(0, ctx);
    int64_t rowStride = 1;
    for (int64_t d = rank - 2; d >= 0; --d) {
      row = row + getAffineDimExpr(d, ctx) * rowStride;
      rowStride *= shape[d];
    }
    int64_t rowsPerRound = active / perRow;
    AffineExpr inRow = getAffineDimExpr(rank - 1, ctx).floorDiv(vector);
    AffineExpr thread = (row % rowsPerRound) * perRow + inRow;
    AffineExpr reg = row.floorDiv(rowsPerRound) * vector + lane;
    return Fragment::get(shape, getReadableExpr(thread, rank, 0),
                         getReadableExpr(reg, rank, 0), threads);
  }
  AffineExpr thread = numVectors <= active ? vec : vec % active;
  AffineExpr reg =
      numVectors <= active ? lane : vec.floorDiv(active) * vector + lane;
  thread = getReadableExpr(thread, rank, 0);
  reg = getReadableExpr(reg, rank, 0);
  return Fragment::get(shape, thread, reg, threads);
}

Fragment mlir::tile::getEveryThreadFragment(MLIRContext *ctx,
                                            ArrayRef<int64_t> shape,
                                            int64_t threads) {
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    linear = linear + getAffineDimExpr(d, ctx) * stride;
    stride *= shape[d];
  }
  return Fragment::get(shape, getAffineSymbolExpr(0, ctx), linear, threads,
                       threads);
}

namespace {
/// A fragment over a power-of-two tile in GF(2) form: for every bit of
/// every dimension (dimension 0 first, least significant first) the
/// thread and register it contributes, and for every bit of the replica
/// index the thread it contributes.
struct BitFragment {
  SmallVector<int64_t> shape;
  SmallVector<std::pair<int64_t, int64_t>> bits;
  SmallVector<int64_t> replicaBits;
};
} // namespace

static int64_t log2Exact(int64_t n) {
  return llvm::isPowerOf2_64(n) ? static_cast<int64_t>(llvm::Log2_64(n)) : -1;
}

/// The GF(2) form of `fragment`, when it has one (checked on every
/// coordinate).
static std::optional<BitFragment> toBits(const Fragment &fragment) {
  ArrayRef<int64_t> shape = fragment.getShape();
  int64_t replicas = fragment.getReplicate();
  if (log2Exact(replicas) < 0 ||
      llvm::any_of(shape, [](int64_t e) { return log2Exact(e) < 0; }))
    return std::nullopt;
  if (getNumElements(shape) > kMaxPairs / replicas)
    return std::nullopt;
  BitFragment result;
  result.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> coords(shape.size(), 0);
  if (fragment.getThread(coords) != 0 || fragment.getRegister(coords) != 0)
    return std::nullopt;
  for (unsigned d = 0; d < shape.size(); ++d) {
    for (int64_t b = 0; b < log2Exact(shape[d]); ++b) {
      coords[d] = int64_t(1) << b;
      result.bits.push_back(
          {fragment.getThread(coords), fragment.getRegister(coords)});
      coords[d] = 0;
    }
  }
  for (int64_t b = 0; b < log2Exact(replicas); ++b)
    result.replicaBits.push_back(fragment.getThread(coords, int64_t(1) << b));
  bool linear = true;
  forEachCoordinate(shape, [&](ArrayRef<int64_t> point) {
    if (!linear)
      return;
    int64_t thread = 0, reg = 0;
    unsigned bit = 0;
    for (unsigned d = 0; d < point.size(); ++d) {
      for (int64_t b = 0; b < log2Exact(shape[d]); ++b, ++bit) {
        if (point[d] >> b & 1) {
          thread ^= result.bits[bit].first;
          reg ^= result.bits[bit].second;
        }
      }
    }
    if (fragment.getRegister(point) != reg) {
      linear = false;
      return;
    }
    for (int64_t rep = 0; rep < replicas; ++rep) {
      int64_t t = thread;
      for (unsigned b = 0; b < result.replicaBits.size(); ++b)
        if (rep >> b & 1)
          t ^= result.replicaBits[b];
      if (fragment.getThread(point, rep) != t) {
        linear = false;
        return;
      }
    }
  });
  if (!linear)
    return std::nullopt;
  return result;
}

namespace {
/// Builds a sum of bit fields: input bits that land on single output bits,
/// grouped into runs of consecutive input and output bits.
struct BitSum {
  AffineExpr sum;
  // The run being built: input bits [runLow, runLow + runLen) of `runVar`
  // land on output bits from `runOut`.
  AffineExpr runVar;
  int64_t runLow = 0, runLen = 0, runOut = 0, varBits = 0;

  explicit BitSum(MLIRContext *ctx) : sum(getAffineConstantExpr(0, ctx)) {}

  void flush() {
    if (runLen == 0)
      return;
    AffineExpr field = runVar;
    if (runLow > 0)
      field = field.floorDiv(int64_t(1) << runLow);
    if (runLow + runLen < varBits)
      field = field % (int64_t(1) << runLen);
    sum = sum + field * (int64_t(1) << runOut);
    runLen = 0;
  }
  /// Adds input bit `bit` of `var` (which has `bits` bits) landing on
  /// output bit `out`.
  void add(AffineExpr var, int64_t bits, int64_t bit, int64_t out) {
    if (runLen && var == runVar && bit == runLow + runLen &&
        out == runOut + runLen) {
      ++runLen;
      return;
    }
    flush();
    runVar = var;
    varBits = bits;
    runLow = bit;
    runLen = 1;
    runOut = out;
  }
};
} // namespace

/// The slice of a loop whose extents are not all powers of two: the slice
/// of its corner of power-of-two extents at the origin, whose thread and
/// register expressions continue past the corner the way the built-in
/// chains' do (`(d0 floordiv 16) * 32` counts on through a third
/// warpgroup), kept where every element of the whole tile checks out.
static FailureOr<Fragment> sliceThroughCorner(const Fragment &loop,
                                              ArrayRef<int64_t> index,
                                              ArrayRef<int64_t> shape,
                                              std::string &reason) {
  SmallVector<int64_t> corner;
  for (int64_t extent : loop.getShape())
    corner.push_back(int64_t(llvm::bit_floor(uint64_t(extent))));
  if (corner == loop.getShape())
    return failure();
  SmallVector<int64_t> cornerShape;
  for (unsigned k = 0; k < shape.size(); ++k)
    cornerShape.push_back(index[k] >= 0 ? corner[index[k]] : 1);
  AffineMap map = loop.getMap();
  Fragment cornerLoop =
      Fragment::get(corner, map.getResult(0), map.getResult(1),
                    loop.getThreads(), loop.getReplicate());
  FailureOr<Fragment> cornerSlice =
      sliceFragment(cornerLoop, index, cornerShape, reason);
  if (failed(cornerSlice))
    return failure();
  AffineMap sliceMap = cornerSlice->getMap();
  Fragment result =
      Fragment::get(shape, sliceMap.getResult(0), sliceMap.getResult(1),
                    loop.getThreads(), cornerSlice->getReplicate());
  // Held exactly by the threads that run the points touching each
  // element: what a write through the loop would need.
  if (!result.isInjective() ||
      !loopCanAccess(loop, index, result, /*write=*/true)) {
    reason = "the slice of the tile's power-of-two corner does not extend "
             "to the whole tile";
    return failure();
  }
  return result;
}

FailureOr<Fragment> mlir::tile::sliceFragment(const Fragment &loop,
                                              ArrayRef<int64_t> index,
                                              ArrayRef<int64_t> shape,
                                              std::string &reason) {
  MLIRContext *ctx = loop.getContext();
  ArrayRef<int64_t> loopShape = loop.getShape();
  unsigned rank = shape.size();
  for (unsigned k = 0; k < rank; ++k) {
    if (index[k] >= 0 ? loopShape[index[k]] != shape[k] : shape[k] != 1) {
      reason = "the loop does not cover the buffer";
      return failure();
    }
  }
  // A permutation of the loop's dimensions keeps the placement as it is.
  SmallVector<int64_t> dims(index.begin(), index.end());
  llvm::sort(dims);
  bool permutation = rank == loopShape.size();
  for (unsigned k = 0; k < rank && permutation; ++k)
    permutation = dims[k] == static_cast<int64_t>(k);
  if (permutation) {
    SmallVector<AffineExpr> results(rank);
    for (unsigned k = 0; k < rank; ++k)
      results[index[k]] = getAffineDimExpr(k, ctx);
    std::optional<Fragment> composed = loop.compose(
        Layout::affine(shape, AffineMap::get(rank, 0, results, ctx)));
    if (!composed) {
      reason = "the loop layout cannot be permuted";
      return failure();
    }
    return *composed;
  }

  std::optional<BitFragment> bits = toBits(loop);
  if (!bits) {
    std::string cornerReason;
    FailureOr<Fragment> slice =
        sliceThroughCorner(loop, index, shape, cornerReason);
    if (succeeded(slice))
      return slice;
    reason = !cornerReason.empty()
                 ? cornerReason
                 : "slicing needs a power-of-two tile whose layout sends "
                   "each coordinate bit to one thread or register bit";
    return failure();
  }
  // Where each loop dimension's bits start in bits->bits.
  SmallVector<int64_t> firstBit;
  int64_t total = 0;
  for (int64_t extent : loopShape) {
    firstBit.push_back(total);
    total += log2Exact(extent);
  }
  // Thread bits of the dropped dimensions (and the loop's replicas) become
  // replicas; keep an independent set of them.
  SmallVector<int64_t> replicaBits;
  auto addReplica = [&](int64_t thread) {
    int64_t reduced = thread;
    for (int64_t basis : replicaBits)
      reduced = std::min(reduced, reduced ^ basis);
    if (reduced != 0)
      replicaBits.push_back(thread);
  };
  for (unsigned d = 0; d < loopShape.size(); ++d) {
    if (llvm::is_contained(index, static_cast<int64_t>(d)))
      continue;
    for (int64_t b = 0; b < log2Exact(loopShape[d]); ++b)
      if (int64_t thread = bits->bits[firstBit[d] + b].first)
        addReplica(thread);
  }
  for (int64_t thread : bits->replicaBits)
    addReplica(thread);
  // Renumber the kept register bits densely.
  SmallVector<int64_t> regBits;
  for (unsigned k = 0; k < rank; ++k) {
    if (index[k] < 0)
      continue;
    for (int64_t b = 0; b < log2Exact(shape[k]); ++b)
      if (int64_t reg = bits->bits[firstBit[index[k]] + b].second)
        regBits.push_back(reg);
  }
  auto isBit = [](int64_t v) { return v == 0 || llvm::isPowerOf2_64(v); };
  if (!llvm::all_of(regBits, isBit) || !llvm::all_of(replicaBits, isBit)) {
    reason = "the layout mixes coordinate bits";
    return failure();
  }
  llvm::sort(regBits);
  regBits.erase(llvm::unique(regBits), regBits.end());
  auto denseReg = [&](int64_t reg) {
    return static_cast<int64_t>(llvm::lower_bound(regBits, reg) -
                                regBits.begin());
  };

  BitSum thread(ctx), reg(ctx);
  for (unsigned k = 0; k < rank; ++k) {
    if (index[k] < 0)
      continue;
    AffineExpr dim = getAffineDimExpr(k, ctx);
    int64_t numBits = log2Exact(shape[k]);
    for (int64_t b = 0; b < numBits; ++b) {
      auto [t, r] = bits->bits[firstBit[index[k]] + b];
      if (!isBit(t)) {
        reason = "the layout mixes coordinate bits";
        return failure();
      }
      if (t)
        thread.add(dim, numBits, b, llvm::Log2_64(t));
      if (r)
        reg.add(dim, numBits, b, denseReg(r));
    }
  }
  AffineExpr replica = getAffineSymbolExpr(0, ctx);
  for (unsigned b = 0; b < replicaBits.size(); ++b)
    thread.add(replica, replicaBits.size(), b, llvm::Log2_64(replicaBits[b]));
  thread.flush();
  reg.flush();
  Fragment result = Fragment::get(shape, thread.sum, reg.sum, loop.getThreads(),
                                  int64_t(1) << replicaBits.size());
  if (!result.isInjective()) {
    reason = "the slice would place two elements in one register";
    return failure();
  }
  return result;
}

/// The coordinates of the buffer element that loop point `point` touches.
static void project(ArrayRef<int64_t> point, ArrayRef<int64_t> index,
                    SmallVectorImpl<int64_t> &coords) {
  coords.clear();
  for (int64_t i : index)
    coords.push_back(i >= 0 ? point[i] : -1 - i);
}

static int64_t linearize(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    linear = linear * shape[d] + coords[d];
  return linear;
}

namespace {
/// A set of (element, thread) pairs of a tile of `numElements` elements and
/// a block of `threads` threads: a bit per pair when the block's threads
/// are few enough, a hash set for the rest (threads outside the block, or
/// blocks too large for the bits).
class ElementThreadSet {
public:
  ElementThreadSet(int64_t numElements, int64_t threads) : threads(threads) {
    int64_t numBits;
    if (threads > 0 && !llvm::MulOverflow(numElements, threads, numBits) &&
        numBits <= kMaxPairBits)
      bits.resize(numBits);
    else
      this->threads = 0;
  }

  void insert(int64_t linear, int64_t thread) {
    if (inRange(thread))
      bits.set(linear * threads + thread);
    else
      others.insert({linear, thread});
  }
  bool contains(int64_t linear, int64_t thread) const {
    return inRange(thread) ? bits.test(linear * threads + thread)
                           : others.contains({linear, thread});
  }
  /// Calls `fn(element, thread)` on every pair.
  void forEach(function_ref<void(int64_t, int64_t)> fn) const {
    for (unsigned bit : bits.set_bits())
      fn(bit / threads, bit % threads);
    for (auto [linear, thread] : others)
      fn(linear, thread);
  }

private:
  static constexpr int64_t kMaxPairBits = int64_t(1) << 27;
  bool inRange(int64_t thread) const { return thread >= 0 && thread < threads; }

  int64_t threads;
  llvm::BitVector bits;
  llvm::DenseSet<std::pair<int64_t, int64_t>> others;
};
} // namespace

bool mlir::tile::loopCanAccess(const Fragment &loop, ArrayRef<int64_t> index,
                               const Fragment &fragment, bool write) {
  ArrayRef<int64_t> shape = fragment.getShape();
  ArrayRef<int64_t> loopShape = loop.getShape();
  if (loop.getThreads() != fragment.getThreads() ||
      index.size() != shape.size())
    return false;
  for (unsigned k = 0; k < shape.size(); ++k) {
    int64_t high = index[k] >= 0 ? loopShape[index[k]] - 1 : -1 - index[k];
    if (high >= shape[k])
      return false;
  }
  if (getNumElements(loopShape) > kMaxPairs / loop.getReplicate() ||
      getNumElements(shape) > kMaxPairs / fragment.getReplicate())
    return false;
  // (element, thread) pairs of the fragment.
  int64_t numElements = getNumElements(shape);
  int64_t threads = fragment.getThreads();
  ElementThreadSet held(numElements, threads),
      written(write ? numElements : 0, threads);
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    int64_t linear = linearize(coords, shape);
    for (int64_t rep = 0; rep < fragment.getReplicate(); ++rep)
      held.insert(linear, fragment.getThread(coords, rep));
  });
  bool ok = true;
  SmallVector<int64_t> coords;
  forEachCoordinate(loopShape, [&](ArrayRef<int64_t> point) {
    if (!ok)
      return;
    project(point, index, coords);
    int64_t linear = linearize(coords, shape);
    for (int64_t rep = 0; rep < loop.getReplicate(); ++rep) {
      int64_t thread = loop.getThread(point, rep);
      if (!held.contains(linear, thread)) {
        ok = false;
        return;
      }
      if (write)
        written.insert(linear, thread);
    }
  });
  // Every copy of a written element must be written.
  if (ok && write) {
    llvm::BitVector touched(numElements);
    written.forEach([&](int64_t linear, int64_t) { touched.set(linear); });
    held.forEach([&](int64_t linear, int64_t thread) {
      if (touched.test(linear) && !written.contains(linear, thread))
        ok = false;
    });
  }
  return ok;
}

std::optional<std::pair<int64_t, int64_t>>
mlir::tile::partitionWarps(int64_t m, int64_t n, int64_t warps,
                           GemmPolicy policy, int64_t atomM, int64_t atomN) {
  auto fits = [&](int64_t wm, int64_t wn) {
    return m % (atomM * wm) == 0 && n % (atomN * wn) == 0;
  };
  if (policy == GemmPolicy::full_row)
    return fits(warps, 1) ? std::optional(std::make_pair(warps, int64_t(1)))
                          : std::nullopt;
  if (policy == GemmPolicy::full_col)
    return fits(1, warps) ? std::optional(std::make_pair(int64_t(1), warps))
                          : std::nullopt;
  // square: per-warp tiles as close to square as possible, more warps
  // along M on a tie.
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t bestGap = 0;
  for (int64_t wm = warps; wm >= 1; --wm) {
    if (warps % wm || !fits(wm, warps / wm))
      continue;
    int64_t gap = std::abs(m / wm - n / (warps / wm));
    if (!best || gap < bestGap) {
      best = {wm, warps / wm};
      bestGap = gap;
    }
  }
  return best;
}

Layout mlir::tile::getGemmSharedLayout(MLIRContext *ctx,
                                       ArrayRef<int64_t> shape,
                                       int64_t elementBits) {
  for (int64_t bytes : {128, 64, 32})
    if (std::optional<Layout> layout =
            Layout::swizzled(ctx, shape, bytes, elementBits))
      return *layout;
  return Layout::rowMajor(ctx, shape);
}

bool mlir::tile::keepsRowsContiguous(const Layout &layout, int64_t width) {
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

std::optional<WgmmaPlan>
mlir::tile::planWgmma(MmaAttr mma, bool aShared, bool bShared, bool transposeA,
                      bool transposeB, ArrayRef<int64_t> aShape,
                      ArrayRef<int64_t> bShape, int64_t m, int64_t n, int64_t k,
                      int64_t threads, GemmPolicy policy) {
  if (!aShared || !bShared)
    return std::nullopt;
  Type a = mma.getA();
  int64_t instrK = mma.getK();
  // Only 16-bit operands may be M/N-major; 8-bit and tf32 ones are read
  // K-major only (A stored M x K, B stored N x K).
  if (a.getIntOrFloatBitWidth() != 16 && (transposeA || !transposeB))
    return std::nullopt;
  // Shared operands are read through swizzled descriptors: every operand
  // needs 8-row groups and rows of at least one 32-byte swizzle atom.
  int64_t atom = 32 / (a.getIntOrFloatBitWidth() / 8);
  for (ArrayRef<int64_t> shape : {aShape, bShape})
    if (shape.size() != 2 || shape[0] % 8 || shape[1] % atom)
      return std::nullopt;
  if (threads % 128 || k % instrK)
    return std::nullopt;
  int64_t groups = threads / 128;
  // Warpgroups split M first, under `square` too: one wide instruction
  // reads its A rows once for more columns. `full_col` splits N only.
  for (int64_t gm = policy == GemmPolicy::full_col ? 1 : groups; gm >= 1;
       --gm) {
    int64_t gn = groups / gm;
    if (groups % gm || m % (64 * gm) || n % (8 * gn) ||
        (policy == GemmPolicy::full_row && gn != 1))
      continue;
    WgmmaPlan plan;
    plan.wgM = gm;
    plan.wgN = gn;
    plan.k = instrK;
    // The widest instruction (at most n256) that divides the warpgroup's
    // columns.
    int64_t cols = n / gn;
    for (int64_t width = std::min<int64_t>(cols, mma.getN()); width >= 8;
         width -= 8)
      if (cols % width == 0 && mma.hasWgmmaWidth(width)) {
        plan.instrN = width;
        break;
      }
    if (!plan.instrN)
      continue;
    return plan;
  }
  return std::nullopt;
}
