//===- Accesses.cpp - which buffers an operation reads and writes ---------===//
//
// Implements Accesses.h: the one place that knows how upstream operations
// in a kernel body touch buffers; tile operators describe themselves.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Accesses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::getAccesses(Operation *op,
                             SmallVectorImpl<TileAccess> &accesses) {
  if (auto tileOp = dyn_cast<TileOpInterface>(op)) {
    tileOp.getTileAccesses(accesses);
    return;
  }
  auto add = [&](Value buffer, AccessKind kind) {
    accesses.push_back({buffer, kind});
  };
  TypeSwitch<Operation *>(op)
      .Case(
          [&](memref::LoadOp load) { add(load.getMemref(), AccessKind::Read); })
      .Case([&](memref::StoreOp store) {
        add(store.getMemref(), AccessKind::Write);
      })
      .Case([&](vector::LoadOp load) { add(load.getBase(), AccessKind::Read); })
      .Case([&](vector::StoreOp store) {
        add(store.getBase(), AccessKind::Write);
      })
      .Case([&](memref::AtomicRMWOp rmw) {
        add(rmw.getMemref(), AccessKind::Atomic);
      })
      .Case([&](memref::ExtractAlignedPointerAsIndexOp) {
        // Taking the address is no access; what goes through it (mbarriers,
        // TMA) is ordered by the mbarriers themselves.
      })
      .Default([&](Operation *op) {
        if (op->getNumRegions() != 0 || isa<ViewLikeOpInterface>(op))
          return;
        for (Value operand : op->getOperands()) {
          if (!isa<MemRefType>(operand.getType()))
            continue;
          add(operand, AccessKind::Read);
          add(operand, AccessKind::Write);
        }
      });
}

Value mlir::tile::getSharedRoot(Value value) {
  while (value) {
    if (auto alloc = value.getDefiningOp<AllocOp>())
      return getMemorySpace(alloc.getType()) == MemorySpace::Shared ? value
                                                                    : Value();
    auto view = value.getDefiningOp<ViewLikeOpInterface>();
    if (!view)
      return Value();
    value = view.getViewSource();
  }
  return Value();
}

bool mlir::tile::onlyReads(Operation *user, Value buffer) {
  // A view reads nothing itself; what goes through it counts.
  if (auto view = dyn_cast<ViewLikeOpInterface>(user))
    return view.getViewSource() == buffer &&
           llvm::all_of(user->getUsers(), [&](Operation *viewUser) {
             return onlyReads(viewUser, view.getViewDest());
           });
  // Only operations that are known to read: anything unknown may write.
  if (!isa<TileOpInterface, memref::LoadOp, vector::LoadOp>(user))
    return false;
  SmallVector<TileAccess> accesses;
  getAccesses(user, accesses);
  return llvm::all_of(accesses, [&](const TileAccess &access) {
    return access.buffer != buffer || access.kind == AccessKind::Read;
  });
}
