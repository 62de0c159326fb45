//===- LowerBarriers.cpp - barriers between shared-memory phases ----------===//
//
// Places gpu.barrier in a tile kernel, before lowering, wherever a shared
// buffer written by the block is later read or overwritten (a read-after-
// write, write-after-read or write-after-write hazard between threads). The
// analysis walks the kernel body in program order with the set of shared
// buffers read, written and atomically updated since the last barrier; loop
// bodies also get a barrier at their end when the next iteration would
// otherwise race with this one. The asynchronous copies of pipelined loops
// are left to the waits and barriers the pipeliner placed.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Accesses.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Shared buffers (their tile.alloc results) touched since the last barrier.
struct AccessSet {
  llvm::SetVector<Value> reads, writes, atomics;
  /// Of `reads`, those read through the async proxy (wgmma operands).
  llvm::SetVector<Value> asyncReads;

  void merge(const AccessSet &other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
    atomics.insert(other.atomics.begin(), other.atomics.end());
    asyncReads.insert(other.asyncReads.begin(), other.asyncReads.end());
  }
  void clear() {
    reads.clear();
    writes.clear();
    atomics.clear();
    asyncReads.clear();
  }
  /// True when `next` reads through the async proxy what this set wrote
  /// through the generic one: the writers must fence the proxies before
  /// the barrier.
  bool needsProxyFence(const AccessSet &next) const {
    return llvm::any_of(next.asyncReads, [&](Value v) {
      return writes.contains(v) || atomics.contains(v);
    });
  }
  /// True when an operation doing `next` after this set, without a barrier
  /// in between, may race with it.
  bool conflictsWith(const AccessSet &next) const {
    for (Value v : next.reads)
      if (writes.contains(v) || atomics.contains(v))
        return true;
    for (Value v : next.writes)
      if (reads.contains(v) || writes.contains(v) || atomics.contains(v))
        return true;
    // Atomic updates commute with each other, not with plain accesses.
    for (Value v : next.atomics)
      if (reads.contains(v) || writes.contains(v))
        return true;
    return false;
  }
};
} // namespace

/// The shared-memory accesses of `op` alone (not counting nested ones,
/// except inside tile operators with a body, whose body is one operation's
/// worth).
static AccessSet getOwnAccesses(Operation *op) {
  SmallVector<TileAccess> accesses;
  getAccesses(op, accesses);
  AccessSet set;
  for (const TileAccess &access : accesses) {
    Value root = getSharedRoot(access.buffer);
    if (!root)
      continue;
    switch (access.kind) {
    case AccessKind::Read:
      set.reads.insert(root);
      if (access.asyncProxy)
        set.asyncReads.insert(root);
      break;
    case AccessKind::Write:
      // Asynchronous copies of a pipelined loop are ordered by the loop's
      // own waits and barriers.
      if (!access.async)
        set.writes.insert(root);
      break;
    case AccessKind::Atomic:
      set.atomics.insert(root);
      break;
    }
  }
  return set;
}

/// All accesses of `op` including nested regions, and whether it holds a
/// barrier.
static AccessSet getAllAccesses(Operation *op, bool &hasBarrier) {
  AccessSet set;
  op->walk([&](Operation *inner) {
    if (isa<gpu::BarrierOp>(inner))
      hasBarrier = true;
    if (isa<TileOpInterface>(inner->getParentOp()))
      return;
    set.merge(getOwnAccesses(inner));
  });
  return set;
}

static bool isLoop(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, PipelinedOp>(op);
}

void mlir::tile::emitAsyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void mlir::tile::emitSharedBarrier(OpBuilder &b, Location loc,
                                   bool asyncProxy) {
  if (asyncProxy)
    emitAsyncProxyFence(b, loc);
  gpu::BarrierOp::create(b, loc);
}

static void placeBarrier(Operation *before, bool proxyFence) {
  OpBuilder b(before);
  emitSharedBarrier(b, before->getLoc(), proxyFence);
}

/// Walks `block` from `state`, inserting barriers where needed; `state` is
/// updated to what is pending at the block's end.
static void processBlock(Block &block, AccessSet &state);

/// True when running `block` from `state` hits a conflict before its first
/// barrier (without changing anything); `proxyFence` is set when the
/// conflict needs a proxy fence.
static bool conflictsBeforeBarrier(Block &block, const AccessSet &state,
                                   bool &proxyFence) {
  AccessSet pending = state;
  for (Operation &op : block) {
    if (isa<gpu::BarrierOp>(op))
      return false;
    bool hasBarrier = false;
    AccessSet access = getAllAccesses(&op, hasBarrier);
    if (pending.conflictsWith(access)) {
      proxyFence = pending.needsProxyFence(access);
      return true;
    }
    if (hasBarrier)
      return false;
    pending.merge(access);
  }
  return false;
}

static void processOp(Operation &op, AccessSet &state) {
  if (isa<gpu::BarrierOp>(op)) {
    state.clear();
    return;
  }
  if (op.getNumRegions() == 0 || isa<TileOpInterface>(op)) {
    AccessSet access = getOwnAccesses(&op);
    if (state.conflictsWith(access)) {
      placeBarrier(&op, state.needsProxyFence(access));
      state.clear();
    }
    state.merge(access);
    return;
  }
  // A barrier needed by anything inside goes before the op, where every
  // thread reaches it (not inside a branch that only some threads take).
  bool hasBarrier = false;
  AccessSet all = getAllAccesses(&op, hasBarrier);
  if (state.conflictsWith(all)) {
    placeBarrier(&op, state.needsProxyFence(all));
    state.clear();
  }
  // Regions: each is entered from the current state; the state after the
  // op is the union of what each may leave pending (and, for loops, of
  // the state before it for a zero-trip loop).
  AccessSet before = state, after;
  bool loop = isLoop(&op);
  if (loop)
    after = before;
  for (Region &region : op.getRegions()) {
    for (Block &block : region) {
      AccessSet inner = before;
      processBlock(block, inner);
      bool proxyFence = false;
      if (loop && conflictsBeforeBarrier(block, inner, proxyFence)) {
        Operation *end = block.empty() ? nullptr : &block.back();
        if (end && end->hasTrait<OpTrait::IsTerminator>()) {
          placeBarrier(end, proxyFence);
        } else {
          OpBuilder b(op.getContext());
          b.setInsertionPointToEnd(&block);
          emitSharedBarrier(b, op.getLoc(), proxyFence);
        }
        inner.clear();
      }
      after.merge(inner);
    }
  }
  state = after;
}

static void processBlock(Block &block, AccessSet &state) {
  for (Operation &op : llvm::make_early_inc_range(block))
    processOp(op, state);
}

void mlir::tile::insertSharedBarriers(KernelOp kernel) {
  AccessSet state;
  processBlock(kernel.getBody().front(), state);
}
