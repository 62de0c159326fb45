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
#include "llvm/ADT/TypeSwitch.h"

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
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return MemorySpace::Global;
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
// FragmentAttr
//===----------------------------------------------------------------------===//

// Syntax: `#tile.fragment` or
// `#tile.fragment<threads = N, map = affine-map[, replicate = R]>`.
Attribute FragmentAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  if (failed(parser.parseOptionalLess()))
    return FragmentAttr::get(ctx);
  int64_t threads = 0, replicate = 1;
  AffineMap map;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword("threads") || parser.parseEqual() ||
      parser.parseInteger(threads) || parser.parseComma() ||
      parser.parseKeyword("map") || parser.parseEqual() ||
      parser.parseAffineMap(map))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("replicate") || parser.parseEqual() ||
       parser.parseInteger(replicate)))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FragmentAttr>(loc, ctx, threads, map, replicate);
}

void FragmentAttr::print(AsmPrinter &printer) const {
  if (isMemorySpace())
    return;
  printer << "<threads = " << getThreads() << ", map = " << getMap();
  if (getReplicate() != 1)
    printer << ", replicate = " << getReplicate();
  printer << ">";
}

LogicalResult
FragmentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t threads, AffineMap map, int64_t replicate) {
  if (!map) {
    if (threads != 0 || replicate != 1)
      return emitError() << "a fragment without a map takes no threads or "
                            "replicate parameters";
    return success();
  }
  if (threads <= 0)
    return emitError() << "expected a positive thread count, got " << threads;
  if (replicate <= 0)
    return emitError() << "expected a positive replication, got "
                       << replicate;
  if (map.getNumSymbols() != 0)
    return emitError() << "expected a fragment map without symbols, got "
                       << AffineMapAttr::get(map);
  if (map.getNumResults() != 2)
    return emitError() << "expected a fragment map with 2 results (thread, "
                          "register), got "
                       << map.getNumResults();
  return success();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 AffineMap map) {
  if (!map)
    return emitError() << "expected a layout map";
  if (map.getNumSymbols() != 0)
    return emitError() << "expected a layout map without symbols, got "
                       << AffineMapAttr::get(map);
  if (map.getNumResults() != 1)
    return emitError() << "expected a layout map with 1 result (the offset), "
                          "got "
                       << map.getNumResults();
  return success();
}
