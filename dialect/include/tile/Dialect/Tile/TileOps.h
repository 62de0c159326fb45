//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// Declares the tile operations (generated from TileOps.td) and the InKernel
// trait that ties tile operators to an enclosing `tile.kernel`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEOPS_H
#define TILE_DIALECT_TILE_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/Dialect/Tile/TileAttrs.h"
#include "tile/Dialect/Tile/TileDialect.h"
#include "tile/Dialect/Tile/TileInterfaces.h"

namespace mlir {
namespace tile {

/// Verifies that `op` is nested (at any depth) in a `tile.kernel`.
LogicalResult verifyInKernel(Operation *op);

/// Whether `index`, an index of a fragment access in the body `body` of a
/// tile.parallel, is one the iteration can reach: an induction variable, a
/// non-negative constant, or computed from those in the body by addi,
/// muli, divui, divsi, floordivsi, remui or remsi (`j floordiv 2` into a
/// tile of packed pairs). Whether the thread holds that element is a
/// matter of the layouts, checked where they are known.
bool isFragmentIndexOfIvs(Value index, Block &body);

/// Trait of the operations that are only valid inside a `tile.kernel`.
template <typename ConcreteType>
class InKernel : public OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifyInKernel(op); }
};

} // namespace tile
} // namespace mlir

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/TileOps.h.inc"

#endif // TILE_DIALECT_TILE_TILEOPS_H
