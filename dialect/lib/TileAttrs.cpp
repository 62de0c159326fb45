//===- TileAttrs.cpp - tile dialect attributes ----------------------------===//
//
// Parsing, printing and verification of the tile attributes, and the
// classification of memrefs by memory space.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/TileAttrs.h"
#include "tile/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/TileOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/TileOpsAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/TileOpsAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

MemorySpace mlir::tile::getMemorySpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return MemorySpace::Global;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt() == 0 ? MemorySpace::Global
                                  : MemorySpace::Unsupported;
  if (auto fragment = dyn_cast<FragmentAttr>(space))
    return fragment.isMemorySpace() ? MemorySpace::Fragment
                                    : MemorySpace::Unsupported;
  // Global memory is a memref without a memory space: the lowering's TMA
  // descriptors and host code take no `#gpu.address_space<global>`.
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Workgroup:
      return MemorySpace::Shared;
    case gpu::AddressSpace::Private:
      return MemorySpace::Local;
    default:
      return MemorySpace::Unsupported;
    }
  }
  return MemorySpace::Unsupported;
}

int64_t mlir::tile::getBufferBytes(MemRefType type) {
  Type element = type.getElementType();
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  return (type.getNumElements() * bits + 7) / 8;
}

StringRef mlir::tile::stringifyMemorySpace(MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Fragment:
    return "fragment";
  case MemorySpace::Local:
    return "local";
  case MemorySpace::Unsupported:
    break;
  }
  return "unsupported";
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Layouts are checked on every coordinate up to this many elements;
/// larger tiles get the structural checks only.
static constexpr int64_t kMaxVerifiedElements = int64_t(1) << 16;

static std::string exprToString(AffineExpr expr) {
  std::string str;
  llvm::raw_string_ostream os(str);
  expr.print(os);
  return str;
}

/// Checks that `map` is quasi-affine with positive constant divisors, the
/// form evaluate() understands.
static LogicalResult
verifyQuasiAffine(function_ref<InFlightDiagnostic()> emitError, AffineMap map) {
  bool ok = true;
  map.walkExprs([&](AffineExpr expr) {
    auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!ok || !bin || expr.getKind() == AffineExprKind::Add)
      return;
    if (expr.getKind() == AffineExprKind::Mul) {
      if (!isa<AffineConstantExpr>(bin.getLHS()) &&
          !isa<AffineConstantExpr>(bin.getRHS())) {
        emitError() << "expected a product with a constant, got "
                    << exprToString(expr);
        ok = false;
      }
      return;
    }
    auto divisor = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!divisor || divisor.getValue() <= 0) {
      emitError() << "expected a positive constant divisor, got "
                  << exprToString(expr);
      ok = false;
    }
  });
  return success(ok);
}

static LogicalResult verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (extent <= 0)
      return emitError() << "expected positive extents, got " << extent;
    if (llvm::MulOverflow(elements, extent, elements))
      return emitError() << "expected at most 2^63-1 elements, got shape ["
                         << shape << "]";
  }
  return success();
}

namespace {
/// The closed range of values an affine expression takes over a box.
struct ExprBounds {
  __int128 min, max;
};
} // namespace

/// Bounds `expr` (quasi-affine, positive divisors) over dimensions `d` in
/// [0, shape[d]) and symbols in [0, symbolExtent), by interval arithmetic.
/// The bounds are exact for the sums of products of one dimension each
/// that layouts are made of, and never too tight otherwise.
static ExprBounds boundExpr(AffineExpr expr, ArrayRef<int64_t> shape,
                            int64_t symbolExtent) {
  // Past this the offsets already left int64; clamping keeps every
  // intermediate far from the limits of __int128.
  const __int128 cap = (__int128)1 << 100;
  auto clamp = [&](__int128 v) { return v > cap ? cap : v < -cap ? -cap : v; };
  auto floorDiv = [](__int128 a, __int128 b) {
    __int128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
  };
  switch (expr.getKind()) {
  case AffineExprKind::Constant: {
    __int128 v = cast<AffineConstantExpr>(expr).getValue();
    return {v, v};
  }
  case AffineExprKind::DimId: {
    unsigned pos = cast<AffineDimExpr>(expr).getPosition();
    return {0, pos < shape.size() ? shape[pos] - 1 : 0};
  }
  case AffineExprKind::SymbolId:
    return {0, symbolExtent - 1};
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  ExprBounds lhs = boundExpr(bin.getLHS(), shape, symbolExtent);
  ExprBounds rhs = boundExpr(bin.getRHS(), shape, symbolExtent);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return {clamp(lhs.min + rhs.min), clamp(lhs.max + rhs.max)};
  case AffineExprKind::Mul: {
    __int128 a = clamp(lhs.min * rhs.min), b = clamp(lhs.min * rhs.max),
             c = clamp(lhs.max * rhs.min), d = clamp(lhs.max * rhs.max);
    return {std::min({a, b, c, d}), std::max({a, b, c, d})};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    __int128 k = std::max<__int128>(rhs.min, 1);
    if (expr.getKind() == AffineExprKind::FloorDiv)
      return {floorDiv(lhs.min, k), floorDiv(lhs.max, k)};
    return {-floorDiv(-lhs.min, k), -floorDiv(-lhs.max, k)};
  }
  case AffineExprKind::Mod: {
    __int128 k = std::max<__int128>(rhs.max, 1);
    if (lhs.min >= 0 && lhs.max < k)
      return lhs;
    return {0, k - 1};
  }
  default:
    return {0, 0};
  }
}

/// Rejects maps whose results leave int64 over the tile: offsets are
/// computed in 64-bit (or narrower index) arithmetic, where they would wrap.
static LogicalResult
verifyOffsetRange(function_ref<InFlightDiagnostic()> emitError, AffineMap map,
                  ArrayRef<int64_t> shape, int64_t symbolExtent,
                  StringRef what) {
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    ExprBounds range = boundExpr(result, shape, symbolExtent);
    if (range.max <= INT64_MAX && range.min >= INT64_MIN)
      continue;
    auto toString = [](__int128 v) {
      if (v > INT64_MAX)
        return std::string("more than 2^63-1");
      if (v < INT64_MIN)
        return std::string("less than -2^63");
      return std::to_string(static_cast<int64_t>(v));
    };
    return emitError() << "expected " << what << " within int64 over the tile ["
                       << shape << "], got result " << i << " ("
                       << exprToString(result) << ") ranging from "
                       << toString(range.min) << " to " << toString(range.max);
  }
  return success();
}

static void printCoords(llvm::raw_ostream &os, ArrayRef<int64_t> coords) {
  os << "(";
  llvm::interleaveComma(coords, os);
  os << ")";
}

static std::string coordsToString(ArrayRef<int64_t> coords) {
  std::string str;
  llvm::raw_string_ostream os(str);
  printCoords(os, coords);
  return str;
}

/// Parses `[e0, e1, ...]` if present.
static ParseResult parseOptionalShape(AsmParser &parser,
                                      SmallVectorImpl<int64_t> &shape,
                                      bool &present) {
  present = succeeded(parser.parseOptionalLSquare());
  if (!present)
    return success();
  if (parser.parseCommaSeparatedList(
          [&]() { return parser.parseInteger(shape.emplace_back()); }) ||
      parser.parseRSquare())
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  printer << "[";
  llvm::interleaveComma(shape, printer);
  printer << "]";
}

//===----------------------------------------------------------------------===//
// FragmentAttr
//===----------------------------------------------------------------------===//

std::optional<Fragment> FragmentAttr::getFragment() const {
  if (isMemorySpace() || getShape().empty())
    return std::nullopt;
  return Fragment(getShape(), getMap(), getThreads(), getReplicate());
}

std::optional<Fragment>
FragmentAttr::getFragmentFor(ArrayRef<int64_t> bufferShape) const {
  if (isMemorySpace())
    return std::nullopt;
  if (getShape().empty())
    return bufferShape.size() == getMap().getNumDims()
               ? std::optional<Fragment>(Fragment(bufferShape, getMap(),
                                                  getThreads(), getReplicate()))
               : std::nullopt;
  if (getShape() != bufferShape)
    return std::nullopt;
  return getFragment();
}

FragmentAttr FragmentAttr::get(MLIRContext *ctx, const Fragment &fragment) {
  return get(ctx, fragment.getThreads(), fragment.getMap(),
             fragment.getReplicate(), fragment.getShape());
}

/// The name (and parameter, 0 if none) of the built-in that `fragment` is.
static std::optional<std::pair<StringRef, int64_t>>
matchBuiltinFragment(const Fragment &fragment) {
  if (fragment.getReplicate() != 1 || fragment.getRank() != 2)
    return std::nullopt;
  MLIRContext *ctx = fragment.getContext();
  static const int64_t kElementBits[] = {8, 16, 32};
  static const int64_t kNoParam[] = {0};
  for (StringRef name : getBuiltinFragmentNames()) {
    for (int64_t param : builtinFragmentTakesParam(name)
                             ? ArrayRef<int64_t>(kElementBits)
                             : ArrayRef<int64_t>(kNoParam)) {
      std::string error;
      std::optional<Fragment> builtin =
          getBuiltinFragment(ctx, name, fragment.getShape(), param, error);
      if (builtin && *builtin == fragment)
        return std::make_pair(name, param);
    }
  }
  return std::nullopt;
}

// Syntax: `#tile.fragment`, `#tile.fragment<[shape], builtin[<param>]>`,
// `#tile.fragment<[shape], threads = N, map[, replicate = R]>`, or without
// a shape `#tile.fragment<threads = N, map = map[, replicate = R]>`.
Attribute FragmentAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  if (failed(parser.parseOptionalLess()))
    return FragmentAttr::get(ctx);
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  bool hasShape;
  if (parseOptionalShape(parser, shape, hasShape))
    return {};
  if (hasShape) {
    if (parser.parseComma())
      return {};
    if (failed(verifyShape([&] { return parser.emitError(loc); }, shape)))
      return {};
    SMLoc nameLoc = parser.getCurrentLocation();
    StringRef name;
    if (succeeded(parser.parseOptionalKeyword(&name)) && name != "threads") {
      BuiltinChain chain;
      chain.name = name;
      if (builtinFragmentTakesParam(name) &&
          (parser.parseLess() || parser.parseInteger(chain.param) ||
           parser.parseGreater()))
        return {};
      // Optional `, repeat = [..]`, `, repeat_on_thread = [..]` and
      // `, replicate = R`, applied in that order.
      auto parseFactors = [&](SmallVector<int64_t, 2> &factors) {
        return parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square,
            [&]() { return parser.parseInteger(factors.emplace_back()); });
      };
      while (succeeded(parser.parseOptionalComma())) {
        StringRef key;
        SMLoc keyLoc = parser.getCurrentLocation();
        if (parser.parseKeyword(&key) || parser.parseEqual())
          return {};
        ParseResult result =
            key == "repeat"             ? parseFactors(chain.repeat)
            : key == "repeat_on_thread" ? parseFactors(chain.repeatOnThread)
            : key == "replicate"        ? parser.parseInteger(chain.replicate)
                                        : parser.emitError(keyLoc)
                                       << "expected repeat, repeat_on_thread "
                                          "or replicate, got '"
                                       << key << "'";
        if (failed(result))
          return {};
      }
      if (parser.parseGreater())
        return {};
      std::string error;
      std::optional<Fragment> fragment =
          buildBuiltinChain(ctx, chain, shape, error);
      if (!fragment) {
        parser.emitError(nameLoc) << error;
        return {};
      }
      return FragmentAttr::get(ctx, *fragment);
    }
    if (name != "threads") {
      parser.emitError(nameLoc, "expected a built-in fragment name or "
                                "'threads'");
      return {};
    }
  } else if (parser.parseKeyword("threads")) {
    return {};
  }
  int64_t threads = 0, replicate = 1;
  AffineMap map;
  if (parser.parseEqual() || parser.parseInteger(threads) ||
      parser.parseComma())
    return {};
  if (!hasShape && (parser.parseKeyword("map") || parser.parseEqual()))
    return {};
  if (parser.parseAffineMap(map))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("replicate") || parser.parseEqual() ||
       parser.parseInteger(replicate)))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FragmentAttr>(loc, ctx, threads, map, replicate,
                                         shape);
}

void FragmentAttr::print(AsmPrinter &printer) const {
  if (isMemorySpace())
    return;
  printer << "<";
  if (getShape().empty()) {
    printer << "threads = " << getThreads() << ", map = " << getMap();
  } else {
    printShape(printer, getShape());
    printer << ", ";
    if (auto builtin = matchBuiltinFragment(*getFragment())) {
      printer << builtin->first;
      if (builtinFragmentTakesParam(builtin->first))
        printer << "<" << builtin->second << ">";
      printer << ">";
      return;
    }
    if (auto chain = matchBuiltinChain(*getFragment())) {
      printer << chain->name;
      auto printFactors = [&](StringRef key, ArrayRef<int64_t> factors) {
        if (llvm::all_of(factors, [](int64_t f) { return f == 1; }))
          return;
        printer << ", " << key << " = [";
        llvm::interleaveComma(factors, printer);
        printer << "]";
      };
      printFactors("repeat", chain->repeat);
      printFactors("repeat_on_thread", chain->repeatOnThread);
      if (chain->replicate != 1)
        printer << ", replicate = " << chain->replicate;
      printer << ">";
      return;
    }
    printer << "threads = " << getThreads() << ", " << getMap();
  }
  if (getReplicate() != 1)
    printer << ", replicate = " << getReplicate();
  printer << ">";
}

LogicalResult FragmentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t threads, AffineMap map,
                                   int64_t replicate, ArrayRef<int64_t> shape) {
  if (!map) {
    if (threads != 0 || replicate != 1 || !shape.empty())
      return emitError() << "a fragment without a map takes no threads, "
                            "replicate or shape parameters";
    return success();
  }
  if (threads <= 0)
    return emitError() << "expected a positive thread count, got " << threads;
  if (replicate <= 0)
    return emitError() << "expected a positive replication, got " << replicate;
  if (replicate > threads)
    return emitError() << "expected at most " << threads
                       << " replicas (one per thread), got " << replicate;
  if (map.getNumSymbols() > 1)
    return emitError() << "expected a fragment map with at most one symbol "
                          "(the replica), got "
                       << AffineMapAttr::get(map);
  if (map.getNumResults() != 2)
    return emitError() << "expected a fragment map with 2 results (thread, "
                          "register), got "
                       << map.getNumResults();
  if (map.getNumSymbols() == 1 && map.getResult(1).isFunctionOfSymbol(0))
    return emitError() << "expected a register result independent of the "
                          "replica s0, got "
                       << exprToString(map.getResult(1));
  if (failed(verifyShape(emitError, shape)) ||
      failed(verifyQuasiAffine(emitError, map)))
    return failure();
  if (shape.empty())
    return success();
  if (map.getNumDims() != shape.size())
    return emitError() << "expected a fragment map over " << shape.size()
                       << " dimensions, got " << map.getNumDims();
  if (failed(verifyOffsetRange(emitError, map, shape, replicate,
                               "threads and registers")))
    return failure();
  if (getNumElements(shape) > kMaxVerifiedElements / replicate)
    return success();
  // Every element must land on a thread of the block, and no two elements
  // (or two replicas of one) may share a register of a thread.
  Fragment fragment(shape, map, threads, replicate);
  llvm::DenseMap<std::pair<int64_t, int64_t>, SmallVector<int64_t>> owner;
  LogicalResult result = success();
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (failed(result))
      return;
    int64_t reg = fragment.getRegister(coords);
    if (reg < 0) {
      result = emitError() << "element " << coordsToString(coords)
                           << " has negative register " << reg;
      return;
    }
    for (int64_t rep = 0; rep < replicate; ++rep) {
      int64_t thread = fragment.getThread(coords, rep);
      if (thread < 0 || thread >= threads) {
        result = emitError()
                 << "element " << coordsToString(coords) << " is on thread "
                 << thread << ", outside the " << threads << " threads";
        return;
      }
      auto [it, inserted] =
          owner.try_emplace({thread, reg}, SmallVector<int64_t>(coords));
      if (!inserted) {
        result = emitError()
                 << "elements " << coordsToString(it->second) << " and "
                 << coordsToString(coords) << " share register " << reg
                 << " of thread " << thread;
        return;
      }
    }
  });
  return result;
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

std::optional<Layout> LayoutAttr::getLayout() const {
  if (getShape().empty())
    return std::nullopt;
  if (getLinearResults() != 0)
    return Layout::linear(getContext(), getShape(), getLinearResults(),
                          getBases());
  Swizzle swizzle{getSwizzleBits(), getSwizzleBase(), getSwizzleShift()};
  return Layout::affine(getShape(), getMap(), swizzle);
}

std::optional<Layout>
LayoutAttr::getLayoutFor(ArrayRef<int64_t> bufferShape) const {
  if (getShape().empty()) {
    if (bufferShape.size() != getMap().getNumDims())
      return std::nullopt;
    // The map was verified without a shape: on this buffer its offsets
    // must still fit int64.
    for (int64_t extent : bufferShape)
      if (extent <= 0)
        return std::nullopt;
    for (AffineExpr result : getMap().getResults()) {
      ExprBounds range = boundExpr(result, bufferShape, 1);
      if (range.max > INT64_MAX || range.min < INT64_MIN)
        return std::nullopt;
    }
    Swizzle swizzle{getSwizzleBits(), getSwizzleBase(), getSwizzleShift()};
    return Layout::affine(bufferShape, getMap(), swizzle);
  }
  if (getShape() != bufferShape)
    return std::nullopt;
  return getLayout();
}

LayoutAttr LayoutAttr::get(MLIRContext *ctx, const Layout &layout) {
  Swizzle swizzle = layout.getSwizzle();
  return get(ctx, layout.getShape(), layout.getMap(), swizzle.bits,
             swizzle.base, swizzle.shift,
             layout.isLinear() ? layout.getNumResults() : 0, layout.getBases());
}

/// Prints the built-in name `layout` is, if any.
static bool printBuiltinLayout(AsmPrinter &printer, const Layout &layout) {
  if (layout.isLinear())
    return false;
  MLIRContext *ctx = layout.getContext();
  ArrayRef<int64_t> shape = layout.getShape();
  if (Layout::rowMajor(ctx, shape) == layout) {
    printer << "row_major";
    return true;
  }
  if (shape.size() != 2 || layout.getNumResults() != 1)
    return false;
  if (layout.getSwizzle().isIdentity()) {
    int64_t pad = layout.apply({1, 0})[0] - shape[1];
    if (pad > 0 && Layout::padded(ctx, shape, pad) == layout) {
      printer << "padded<" << pad << ">";
      return true;
    }
    return false;
  }
  for (int64_t bytes : {32, 64, 128}) {
    for (int64_t bits : {8, 16, 32, 64}) {
      std::optional<Layout> swizzled =
          Layout::swizzled(ctx, shape, bytes, bits);
      if (swizzled && *swizzled == layout) {
        printer << "swizzle<" << bytes << ", " << bits << ">";
        return true;
      }
    }
  }
  return false;
}

// Syntax: see the attribute description.
Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  bool hasShape;
  if (parser.parseLess() || parseOptionalShape(parser, shape, hasShape))
    return {};
  auto emitError = [&] { return parser.emitError(loc); };
  if (hasShape) {
    if (parser.parseComma() || failed(verifyShape(emitError, shape)))
      return {};
    SMLoc nameLoc = parser.getCurrentLocation();
    StringRef name;
    if (succeeded(parser.parseOptionalKeyword(&name))) {
      std::optional<Layout> layout;
      if (name == "row_major") {
        layout = Layout::rowMajor(ctx, shape);
      } else if (name == "padded") {
        int64_t pad;
        if (parser.parseLess() || parser.parseInteger(pad) ||
            parser.parseGreater())
          return {};
        if (shape.size() != 2 || pad < 0) {
          parser.emitError(nameLoc)
              << "expected a 2-d tile and a non-negative padding, got "
              << shape.size() << "-d and " << pad;
          return {};
        }
        layout = Layout::padded(ctx, shape, pad);
      } else if (name == "swizzle") {
        int64_t bytes, bits;
        if (parser.parseLess() || parser.parseInteger(bytes) ||
            parser.parseComma() || parser.parseInteger(bits) ||
            parser.parseGreater())
          return {};
        layout = Layout::swizzled(ctx, shape, bytes, bits);
        if (!layout) {
          parser.emitError(nameLoc)
              << "expected a 2-d tile with a multiple of 8 rows and of "
                 "the swizzle width per row, swizzle bytes 32, 64 or 128 "
                 "and element bits 8, 16, 32 or 64, got swizzle<"
              << bytes << ", " << bits << "> of " << shape.size() << "-d tile ["
              << shape << "]";
          return {};
        }
      } else if (name == "linear") {
        SmallVector<int64_t> bases;
        int64_t numResults = -1;
        auto parseBasis = [&]() -> ParseResult {
          SmallVector<int64_t> basis;
          if (succeeded(parser.parseOptionalLParen())) {
            if (parser.parseCommaSeparatedList([&]() {
                  return parser.parseInteger(basis.emplace_back());
                }) ||
                parser.parseRParen())
              return failure();
          } else if (parser.parseInteger(basis.emplace_back())) {
            return failure();
          }
          if (numResults < 0)
            numResults = basis.size();
          if (numResults != static_cast<int64_t>(basis.size()))
            return parser.emitError(parser.getCurrentLocation())
                   << "expected bases of " << numResults << " values, got "
                   << basis.size();
          llvm::append_range(bases, basis);
          return success();
        };
        // One list of bases per dimension, one basis per bit of its extent.
        unsigned dim = 0;
        auto parseDim = [&]() -> ParseResult {
          SMLoc dimLoc = parser.getCurrentLocation();
          size_t before = bases.size();
          if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                             parseBasis))
            return failure();
          if (dim < shape.size() && llvm::isPowerOf2_64(shape[dim])) {
            size_t expected = llvm::Log2_64(shape[dim]);
            size_t got =
                numResults > 0 ? (bases.size() - before) / numResults : 0;
            if (got != expected)
              return parser.emitError(dimLoc)
                     << "expected " << expected << " bases for dimension "
                     << dim << " of extent " << shape[dim] << ", got " << got;
          }
          ++dim;
          return success();
        };
        if (parser.parseLess() ||
            parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                           parseDim) ||
            parser.parseGreater() || parser.parseGreater())
          return {};
        if (dim != shape.size()) {
          parser.emitError(nameLoc) << "expected bases for " << shape.size()
                                    << " dimensions, got " << dim;
          return {};
        }
        return parser.getChecked<LayoutAttr>(
            loc, ctx, shape, AffineMap::get(shape.size(), 0, ctx), 0u, 0u, 0u,
            static_cast<unsigned>(std::max<int64_t>(numResults, 1)), bases);
      } else {
        parser.emitError(nameLoc)
            << "expected a layout map or one of row_major, padded, "
               "swizzle, linear, got '"
            << name << "'";
        return {};
      }
      if (name != "linear" && parser.parseGreater())
        return {};
      // Named layouts are verified too: a row-major tile of 2^32 x 2^32
      // has offsets beyond int64.
      Swizzle swizzle = layout->getSwizzle();
      return parser.getChecked<LayoutAttr>(
          loc, ctx, layout->getShape(), layout->getMap(), swizzle.bits,
          swizzle.base, swizzle.shift, 0u, ArrayRef<int64_t>());
    }
  }
  AffineMap map;
  if (parser.parseAffineMap(map))
    return {};
  unsigned bits = 0, base = 0, shift = 0;
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("xor") || parser.parseLess() ||
       parser.parseInteger(bits) || parser.parseComma() ||
       parser.parseInteger(base) || parser.parseComma() ||
       parser.parseInteger(shift) || parser.parseGreater()))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(loc, ctx, shape, map, bits, base, shift,
                                       0u, ArrayRef<int64_t>());
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (!getShape().empty()) {
    printShape(printer, getShape());
    printer << ", ";
    Layout layout = *getLayout();
    if (printBuiltinLayout(printer, layout)) {
      printer << ">";
      return;
    }
    if (layout.isLinear()) {
      printer << "linear<[";
      unsigned bit = 0, numResults = layout.getNumResults();
      llvm::interleaveComma(layout.getShape(), printer, [&](int64_t extent) {
        printer << "[";
        unsigned numBits = llvm::Log2_64(extent);
        for (unsigned b = 0; b < numBits; ++b, ++bit) {
          if (b)
            printer << ", ";
          ArrayRef<int64_t> basis =
              layout.getBases().slice(bit * numResults, numResults);
          if (numResults == 1) {
            printer << basis[0];
          } else {
            printer << "(";
            llvm::interleaveComma(basis, printer);
            printer << ")";
          }
        }
        printer << "]";
      });
      printer << "]>>";
      return;
    }
  }
  printer << getMap();
  if (getSwizzleBits() != 0)
    printer << ", xor<" << getSwizzleBits() << ", " << getSwizzleBase() << ", "
            << getSwizzleShift() << ">";
  printer << ">";
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, AffineMap map,
                                 unsigned swizzleBits, unsigned swizzleBase,
                                 unsigned swizzleShift, unsigned linearResults,
                                 ArrayRef<int64_t> bases) {
  if (!map)
    return emitError() << "expected a layout map";
  if (failed(verifyShape(emitError, shape)))
    return failure();
  if (linearResults != 0) {
    if (shape.empty())
      return emitError() << "expected a shape for a linear layout";
    unsigned numBits = 0;
    for (int64_t extent : shape) {
      if (!llvm::isPowerOf2_64(extent))
        return emitError() << "expected power-of-two extents for a linear "
                              "layout, got "
                           << extent;
      numBits += llvm::Log2_64(extent);
    }
    if (bases.size() != numBits * linearResults)
      return emitError() << "expected " << numBits
                         << " bases (one per input bit), got "
                         << bases.size() / linearResults;
    for (int64_t value : bases)
      if (value < 0)
        return emitError() << "expected non-negative bases, got " << value;
    return success();
  }
  if (!bases.empty())
    return emitError() << "expected no bases for an affine layout";
  if (map.getNumSymbols() != 0)
    return emitError() << "expected a layout map without symbols, got "
                       << AffineMapAttr::get(map);
  // A layout without a shape only exists as a buffer annotation, so it is
  // an offset map; a shaped layout may have several results (an index
  // transformation, the inverse of a layout).
  if (shape.empty() && map.getNumResults() != 1)
    return emitError() << "expected a layout map with 1 result (the offset), "
                          "got "
                       << map.getNumResults();
  if (map.getNumResults() < 1)
    return emitError() << "expected a layout map with at least 1 result, got "
                       << AffineMapAttr::get(map);
  if (failed(verifyQuasiAffine(emitError, map)))
    return failure();
  if (swizzleBits != 0 && (swizzleShift < swizzleBits ||
                           swizzleBase + swizzleShift + swizzleBits > 48))
    return emitError() << "expected a swizzle shift of at least its bits and "
                          "below bit 48, got xor<"
                       << swizzleBits << ", " << swizzleBase << ", "
                       << swizzleShift << ">";
  if (shape.empty())
    return success();
  if (map.getNumDims() != shape.size())
    return emitError() << "expected a layout map over " << shape.size()
                       << " dimensions, got " << map.getNumDims();
  if (failed(verifyOffsetRange(emitError, map, shape, 1, "offsets")))
    return failure();
  if (getNumElements(shape) > kMaxVerifiedElements)
    return success();
  Layout layout = Layout::affine(
      shape, map, Swizzle{swizzleBits, swizzleBase, swizzleShift});
  LogicalResult result = success();
  forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
    if (failed(result))
      return;
    for (int64_t value : layout.apply(coords))
      if (value < 0) {
        result = emitError() << "expected non-negative offsets, got " << value
                             << " at " << coordsToString(coords);
        return;
      }
  });
  return result;
}
