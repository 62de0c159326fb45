//===- Passes.td - tile transformation passes ---------------*- tablegen -*-===//
//
// Declares the passes that transform tile IR, with their options and
// before/after examples.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCheckResources : Pass<"tile-check-resources"> {
  let summary = "check that each tile.kernel fits the target's on-chip resources";
  let description = [{
    Sums, per `tile.kernel`, the shared memory its allocations need (a
    buffer filled by a copy in a multi-stage `tile.pipelined` counts once
    per stage, as the pipeliner multi-buffers it) and the 32-bit registers
    per thread its fragments and local buffers need at the least (from the
    fragment's layout when it has one, replication included; else its
    elements divided evenly over the block's threads), and
    reports an error at the kernel when either exceeds what one block may
    use on `chip`. With `remarks`, each kernel also gets a remark with the
    figures, so they can be inspected or FileCheck'd.

    Example (`-tile-check-resources="chip=sm_80 remarks=true"`):

    ```mlir
    tile.kernel blocks(%bx) in (%n) threads(128) {
      %a = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
      %c = tile.alloc : memref<128x128xf32, #tile.fragment>
    }
    ```

    reports `remark: shared memory 16384 bytes of 166912, fragment and
    local registers >= 128 per thread of 255`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "target chip: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, gfx90a, "
           "gfx942">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "emit a remark with the resource figures of each kernel">
  ];
}

def TileInferLayout : Pass<"tile-infer-layout"> {
  let summary = "infer fragment layouts, shared-memory layouts and thread bindings";
  let description = [{
    Layout inference (TileLang paper §4.2). For every `tile.kernel`, picks
    by priority level, each iterated to a fixed point:

    1. `tile.gemm`: the C fragment (the mma.sync accumulator repeated over
       the warps by `policy` and over registers to cover the tile), mma
       A/B fragments for register operands, NVIDIA swizzles (128, 64 or
       32 bytes by row width) for shared operands;
    2. `tile.reduce` / `tile.cumsum`: the result of a reduction is the
       slice of the source's fragment, replicated over the threads that
       share a row;
    3. `tile.parallel` and copies: a loop runs each point on the threads
       that hold the fragments it touches; fragments it reaches first get
       the layout the loop implies (a bias read as `bias[j]` in a loop over
       a gemm result is replicated over the threads sharing a column);
    4. everything left free: a coalesced thread binding with the widest
       legal vector (`vector-bytes`), one loop or buffer at a time, each
       followed by levels 2 and 3 again.

    User `layout` annotations (on `tile.alloc` and `tile.parallel`) and
    existing `tile.loop` attributes win and are checked. A requirement that
    contradicts one already made is an error at the op that makes it,
    naming the buffer and both layouts.

    The result is the layout contract of docs/Layouts.md: `layout` on every
    fragment and shared `tile.alloc` and every `tile.parallel`, `tile.loop`
    on copies, atomics and on reduce, cumsum, fill and clear over shared
    memory.

    Example: `tile.copy %A[%m, %k] -> %As` of a 128x32 f16 tile by 128
    threads gets
    `{tile.loop = #tile.fragment<[128, 32], threads = 128, (d0, d1) -> ((d0 mod 32) * 4 + d1 floordiv 8, (d0 floordiv 32) * 8 + d1 mod 8)>}`:
    four 16-byte vectors per thread, threads along the rows first.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "target chip (sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100): picks "
           "the tensor-core fragments of gemm operands">,
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"16",
           "widest vector access of one thread, in bytes (a power of two)">
  ];
}

def TileLower : Pass<"tile-lower", "ModuleOp"> {
  let summary = "lower tile operators to per-thread code using their layouts";
  let description = [{
    Lowers, inside every `tile.kernel`, the operators that need no tensor
    cores to thread-level IR, following the layout attributes that
    `tile-infer-layout` writes (or that the user wrote):

    - fragment buffers become per-thread register arrays (a private buffer
      of `Fragment::getNumRegisters()` elements, indexed by constants);
    - `tile.parallel` runs, on each thread, the iteration points its
      `layout` gives it, fully unrolled over the registers;
    - `tile.copy` moves the elements its `tile.loop` layout gives each
      thread, as vectors (up to 16 bytes) where consecutive registers are
      consecutive elements, with masked edges on global operands whose
      extents are dynamic or not multiples of the tile, and with element
      type conversion; a copy to or from a per-thread local buffer is done
      whole by every thread;
    - `tile.fill` / `tile.clear` on fragments, shared and local buffers;
    - `tile.reduce` on fragments: per-thread partials, `gpu.shuffle xor`
      across the lanes that share an output, shared scratch memory across
      warps, into a fragment or (from one lane per output) a shared
      buffer; on shared buffers a plain per-thread loop over the outputs;
    - `tile.cumsum` on shared buffers (one row per thread) and on
      fragments whose rows are held by one thread or in chunks by
      consecutive lanes (running sums, then a shuffle scan of the chunk
      totals);
    - `tile.atomic` as `memref.atomic_rmw` per element, masked at edges.

    Barriers (`gpu.barrier`) are inserted first, where shared memory
    written by one operation is read or overwritten by a later one (loop
    back edges included). A `tile.pipelined` loop without a `tile.gemm` is
    turned into an `scf.for` (its `stages` have no effect yet); `tile.gemm`
    and loops holding one are left for the gemm lowering.

    A copy, atomic, or shared-memory reduce/cumsum without the layout it
    needs is reported: "expected a 'tile.loop' layout; run
    tile-infer-layout first".
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
