//===- LayoutInference.h - the state of layout inference --------*- C++ -*-===//
//
// What tile-infer-layout knows while it runs: every on-chip buffer with the
// layout required of it and by whom, every loop nest over the block's
// threads with its binding, every fragment derived from another. Tile
// operators read and extend it from TileOpInterface::inferLayout(); the
// driver (LayoutInference.cpp) runs the priority levels to a fixed point.
// Private to passes/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PASSES_LIB_ANALYSIS_LAYOUTINFERENCE_H
#define TILE_PASSES_LIB_ANALYSIS_LAYOUTINFERENCE_H

#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileOps.h"
#include "tile/Transforms/InferLayout.h"

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <functional>
#include <memory>

namespace mlir {
namespace tile {

/// Who fixed a layout: the op, and how to say why in a diagnostic.
struct LayoutSource {
  Operation *op = nullptr;
  std::string why;
};

/// What is known about an on-chip buffer.
struct BufferLayout {
  MemorySpace space;
  std::optional<Fragment> fragment;
  std::optional<Layout> layout;
  LayoutSource source;
  bool annotated = false;
};

/// A buffer access in a loop: per buffer dimension, the loop dimension that
/// indexes it or -1 - c for a constant c.
struct LoopAccess {
  Value buffer;
  SmallVector<int64_t> index;
  bool write;
};

/// Something lowered as a loop nest over `shape` on the block's threads: a
/// tile.parallel, or a tile operator whose binding goes in `tile.loop`.
struct LoopSite {
  Operation *op;
  SmallVector<int64_t> shape;
  SmallVector<LoopAccess> accesses;
  std::optional<Fragment> layout;
  LayoutSource source;
  /// The vector width of a coalesced binding, in elements.
  int64_t vector = 1;
  /// The fragment whose layout the binding follows, if any.
  Value from;
  /// Per-thread operands: every thread runs every point.
  bool everyThread = false;
  /// Shared operands, whose layouts must keep vectors contiguous.
  SmallVector<Value, 2> sharedOperands;
  /// Writes the binding into the IR; by default as the op's `tile.loop`.
  std::function<void(FragmentAttr)> commit;
};

/// A fragment `dst` derived from fragment `src` by a reduction-like
/// operator: element i of `src` goes to `index`-mapped element of `dst`
/// (per `src` dimension the `dst` dimension, or -1 where it is reduced).
struct Derivation {
  Operation *op;
  Value src, dst;
  SmallVector<int64_t> index;
  /// `src` may also take the layout of `dst` (an element-wise prefix sum).
  bool reversible = false;
};

/// The operands of a tile operator lowered as a loop nest over a tile.
struct TileLoopOperands {
  Value src;
  ValueRange srcIndices;
  Value dst;
  ValueRange dstIndices;
  SmallVector<int64_t> shape;
  /// The operator writes `src` (fill, clear) rather than reading it.
  bool writesSrc = false;
  /// For a reduction, the reduced dimension of `src` (dropped or kept as 1
  /// in `dst`).
  std::optional<int64_t> reducedDim;
  /// A vector width the operator asks for.
  std::optional<int64_t> vectorWidth;
  /// The operator may write a shared `dst` element by element (a copy from
  /// global memory on a target without cp.async), so `dst`'s layout does
  /// not narrow the vectors of its global reads.
  bool dstMayScatter = false;
};

/// The state of layout inference over one kernel.
class LayoutInferenceState {
public:
  LayoutInferenceState(KernelOp kernel, const InferLayoutOptions &options);

  /// Runs the priority levels over every tile operator of the kernel and
  /// writes the layouts into the IR; leaves the IR unchanged on failure.
  LogicalResult run();

  MLIRContext *getContext() const { return ctx; }
  KernelOp getKernel() const { return kernel; }
  const InferLayoutOptions &getOptions() const { return options; }
  /// Threads of the kernel's block.
  int64_t getThreads() const { return threads; }
  /// Records that the current level fixed something.
  void markProgress() { progress = true; }
  /// What inference chose for `op` besides layouts (a gemm's instruction),
  /// written into the IR by the op at the Commit level; null if nothing.
  void setChoice(Operation *op, Attribute choice) { choices[op] = choice; }
  Attribute getChoice(Operation *op) const { return choices.lookup(op); }

  /// Registers buffer `value` (a tile.alloc result) with what is known.
  void addBuffer(Value value, BufferLayout buffer);
  /// What is known about on-chip buffer `value`; null for other values.
  BufferLayout *lookup(Value value) {
    auto it = buffers.find(value);
    return it == buffers.end() ? nullptr : &it->second;
  }
  /// The buffer a tensor-core operand reads: lookup(value), or for a
  /// memref.subview of the same rank with static offsets and unit strides
  /// (a K slice of a shared tile), the shared buffer it views; `root` is
  /// set to the buffer's value. Null when neither.
  BufferLayout *lookupOperand(Value value, Value &root);
  /// Whether `value`, an operand of `op`, is a fragment; fails, with a
  /// diagnostic at `op`, for a fragment that is not a buffer of the kernel.
  FailureOr<bool> isFragmentOperand(Operation *op, Value value);
  /// `value` as it prints in diagnostics (`%As`).
  std::string name(Value value);

  /// Records `fragment` for `value` as required by `source`, or reports
  /// the conflict with what is already there.
  LogicalResult requireFragment(Value value, const Fragment &fragment,
                                LayoutSource source);
  /// Sets a layout derived by inference (no previous layout).
  LogicalResult setFragment(BufferLayout &buffer, Value value,
                            const Fragment &fragment, LayoutSource source);
  /// Reports at `at` that `value` is wanted as `wanted` (from `why`) but
  /// `buffer` already requires another layout.
  InFlightDiagnostic reportConflict(Operation *at, Value value,
                                    const Fragment &wanted, StringRef why,
                                    const BufferLayout &buffer);

  /// Registers the loop nest of `site.op`.
  void addLoop(LoopSite site);
  /// Registers the loop nest of a tile operator over a tile, from its
  /// operands; fails with a diagnostic at `op` on operands it cannot lay
  /// out.
  LogicalResult collectTileLoop(Operation *op,
                                const TileLoopOperands &operands);
  /// The Loop, Free, Check and Commit levels of the loop nest `op`
  /// registered; success with nothing done for other levels.
  LogicalResult inferLoop(Operation *op, InferenceLevel level);

  /// Registers a fragment derived from another.
  void addDerivation(Derivation derivation);
  /// The Derived and Check levels of the derivation `op` registered.
  LogicalResult inferDerivation(Operation *op, InferenceLevel level);

  /// Size in bytes of one element of `type`.
  static int64_t elementBytes(Type type);
  /// The widest vector, in elements of `bytes`, of one access.
  int64_t maxVector(int64_t bytes) const {
    return std::max<int64_t>(1,
                             options.vectorBytes / std::max<int64_t>(1, bytes));
  }

private:
  LogicalResult propagate(ArrayRef<TileOpInterface> ops);
  std::optional<Fragment> spreadOverReplicas(LoopSite &site);
  Fragment defaultBinding(LoopSite &site);
  LogicalResult checkLoop(LoopSite &site);
  LoopSite *getLoop(Operation *op);

  KernelOp kernel;
  InferLayoutOptions options;
  MLIRContext *ctx;
  int64_t threads;
  bool progress = false;
  llvm::MapVector<Value, BufferLayout> buffers;
  SmallVector<LoopSite, 0> loops;
  DenseMap<Operation *, unsigned> loopIndex;
  SmallVector<Derivation, 0> derivations;
  DenseMap<Operation *, unsigned> derivationIndex;
  DenseMap<Operation *, Attribute> choices;
  std::unique_ptr<AsmState> asmState;
};

/// A divisor of `value` known from the IR: constants, products, sums and
/// quotients by constants (2^30 for zero).
int64_t knownDivisor(Value value, int depth = 0);
/// Largest power of two dividing both.
int64_t alignVectorTo(int64_t vector, int64_t divisor);
/// The vector width a global or shared operand allows: its row stride and
/// the origin of the tile in it must be multiples of the vector.
int64_t alignForOperand(int64_t vector, MemRefType type, ValueRange indices);

} // namespace tile
} // namespace mlir

#endif // TILE_PASSES_LIB_ANALYSIS_LAYOUTINFERENCE_H
