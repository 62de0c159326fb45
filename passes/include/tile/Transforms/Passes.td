//===- Passes.td - tile transformation passes ---------------*- tablegen -*-===//
//
// Declares the passes that transform tile IR, with their options and
// before/after examples.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target"> {
  let summary = "record the target the IR is compiled for";
  let description = [{
    Sets `tile.target` on the operation the pass runs on (a module) to the
    known target of `chip` (default: sm_90a), so that later passes read the
    target from the IR and a lowered module says what it was compiled for.
    An unknown chip is an error listing the known chips. A target already
    attached for the same chip is kept (it may describe a variant in full);
    one for another chip is an error.

    Example (`-tile-attach-target="chip=sm_80"`):

    ```mlir
    module {
      func.func @f() { return }
    }
    ```

    becomes

    ```mlir
    module attributes {tile.target = #tile.target<"sm_80">} {
      func.func @f() { return }
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string",
           /*default=*/"::mlir::tile::kDefaultChip.str()",
           "target chip: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCheckResources : Pass<"tile-check-resources"> {
  let summary = "check that each tile.kernel fits the target's on-chip resources";
  let description = [{
    Sums, per `tile.kernel`, the shared memory its allocations need (a
    buffer filled by a copy in a multi-stage `tile.pipelined` counts once
    per stage, as the pipeliner multi-buffers it) and the 32-bit registers
    per thread its fragments and local buffers need at the least (from the
    fragment's layout when it has one, replication included; else its
    elements divided evenly over the block's threads), counting each from
    the first to the last operation of the kernel's body that uses it and
    taking the largest total over those operations (fragments used one
    after the other need the larger, not the sum; those used inside one
    loop count together for the whole loop), and
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
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "target chip (sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942); empty: "
           "the #tile.target attached to the IR (tile-attach-target), else "
           "the default chip, sm_90a">,
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
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "target chip (sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942); empty: "
           "the #tile.target attached to the IR (tile-attach-target), else "
           "the default chip, sm_90a; picks the tensor-core instructions of "
           "gemms">,
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

    - `tile.gemm` as warp-level tensor-core code (the mma.sync path): the
      warps split C as layout inference did; per k step, `nvgpu.ldmatrix`
      (`.trans` for 16-bit operands stored K-outer) for shared operands
      whose 16-byte rows stay contiguous, element loads for other shared
      layouts, the registers of fragment operands (rs, sr, rr), and one
      `nvgpu.mma.sync` per 16x8 block of C: m16n8k16 for f16/bf16,
      m16n8k8 (tf32) for f32, m16n8k32 for signed i8. With `chip=sm_90a`,
      a gemm whose operands are both in shared memory and whose layouts
      layout inference made for wgmma (f16/bf16 into f32, the `wgmma_c`
      accumulator) becomes `nvvm.wgmma.mma_async` m64nNk16 per warpgroup on
      descriptors read off the operand layouts (32/64/128-byte swizzles,
      K- or M/N-major), fenced, committed and waited for as one group.
    - On AMD chips (gfx90a, gfx942), `tile.gemm` as `amdgpu.mfma`
      (32x32 or 16x16 blocks, as the target table lists them): the
      wave64 waves split C, each lane reads the K run it gives one or more
      instructions from LDS as one vector (`ds_read_b128` for 16-bit
      operands stored K-innermost, element loads for operands stored
      K-outer), and C is computed transposed so that each lane holds four
      consecutive columns of a row.

    `tile.pipelined` loops are software-pipelined first: their copies from
    global into whole shared buffers that the rest of the body only reads
    (gemm operands, copy, reduce and cumsum sources, loads in parallel
    bodies) run `stages - 1` iterations ahead (or as the `stage` clause says) into that many more
    slots of each buffer, as `nvgpu.device_async_copy` (cp.async, zero
    filling ragged edges) in one `nvvm.cp.async.commit.group` per
    iteration; each iteration waits for its own group
    (`nvvm.cp.async.wait.group`) and synchronizes the block once before
    issuing the next copies and running the rest of the body on its slot.
    On targets without cp.async (AMD) the copies ahead are plain vector
    loads and LDS stores into their slot, with the same barrier per
    iteration and no commit groups or waits.

    ```mlir
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      tile.copy %A[%m, %kk] -> %As : ...
      tile.gemm %As, %Bs -> %Cf : ...
    }
    ```
    becomes, with `%As` now `memref<3x128x32xf16, ...>`,
    ```mlir
    scf.if %c0 < %trips { cp.async copies of iteration 0 into slot 0 }
    nvvm.cp.async.commit.group
    scf.if %c1 < %trips { ... iteration 1 into slot 1 }
    nvvm.cp.async.commit.group
    scf.for %i = %c0 to %trips step %c1 {
      nvvm.cp.async.wait.group 1
      gpu.barrier
      scf.if %i + 2 < %trips { copies of iteration i + 2 into slot (i + 2) mod 3 }
      nvvm.cp.async.commit.group
      ldmatrix / mma.sync on slot i mod 3
    }
    nvvm.cp.async.wait.group 0
    ```
    A loop without such copies becomes a plain `scf.for`.

    With `chip=sm_90a` (and `warp-specialize`, the default), a loop directly
    in the kernel whose copies TMA can do is instead warp-specialized: the
    host makes one tensor map per copy (`nvgpu.tma.create.descriptor`), the
    kernel gains a producer warpgroup (`tile.producer_threads = 128`) whose
    first thread issues the copies as `cp.async.bulk.tensor` on per-stage
    "full" mbarriers after waiting on the stage's "empty" one, and the
    kernel's own threads run everything else, the loop body once its stage
    is full:
    ```mlir
    %d = nvgpu.tma.create.descriptor %A' box[%c128, %c64] : memref<*xf16> -> !nvgpu.tensormap.descriptor<...>
    tile.kernel ... threads(256) attributes {tile.producer_threads = 128 : i64} {
      (shared allocations, register arrays, 2 x 3 mbarriers)
      scf.if %tid == 0 { nvvm.mbarrier.init ... }   gpu.barrier
      scf.if %tid < 256 {
        nvvm.setmaxregister increase 232
        scf.for %i { nvvm.mbarrier.try_wait.parity full[i mod 3], (i / 3) mod 2
                     wgmma on slot i mod 3;  nvvm.mbarrier.arrive empty[i mod 3] }
        epilogue
      } else {
        nvvm.setmaxregister decrease 40
        scf.if %tid == 256 { scf.for %i {
          nvvm.mbarrier.try_wait.parity empty[i mod 3], 1 - (i / 3) mod 2
          nvvm.mbarrier.arrive.expect_tx full[i mod 3], 49152
          nvvm.cp.async.bulk.tensor.shared.cluster.global ... (5 boxes) } }
      } {tile.consumers}
    }
    ```

    A copy before such a loop into a whole shared tile that only the loop
    reads (FlashAttention's Q tile), at indices the producer can compute,
    becomes a TMA load of the producer too: issued once, before the loop's
    own, with `nvvm.mbarrier.arrive.expect_tx` on one more mbarrier, for
    which the consumers wait (parity 0) before their loop instead of
    copying. Not in persistent kernels or clusters.

    In a kernel with a `cluster` clause of several blocks, a TMA copy whose
    source indices do not use the block index along a dimension where the
    cluster has several blocks (B's `[%kk, %n]` in `cluster(1, 2)`) reads
    the same tile in those `g` blocks: each loads `rows / g` of its rows
    (the tensor map's box shrinks to match) with `multicast_mask` over the
    group, the empty barriers count one arrival per consumer warp of each
    block, released from every block through `nvvm.mapa`, and
    `nvvm.cluster.arrive`/`wait` replace the first `gpu.barrier` and end
    the kernel. Only where every block runs the same iterations (bounds
    independent of the cluster's block indices):
    ```mlir
    nvvm.mbarrier.init empty[s], 16                 (8 warps x 2 blocks)
    nvvm.cluster.arrive  nvvm.cluster.wait
    consumers, after slot i:  nvvm.bar.warp.sync -1
      scf.if lane == 0 { nvvm.mbarrier.arrive (nvvm.mapa empty[i mod 3], r)
                         for r in 0, 1 }
    producer: %y = nvvm.read.ptx.sreg.cluster.ctaid.y
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst + %y * 4096, %mapB,
          %full, box[%col, %kk + %y * 32] multicast_mask = 3   (x 4 boxes)
    ```

    In such a kernel (and with `tma-store`, the default), a copy of a whole
    fragment into a 2-d row-major f16, bf16 or f32 tensor from outside the
    kernel, directly in the consumers' code, is stored with TMA: the host
    makes a tensor map of the destination whose box is the tile's rows x
    one 128-byte swizzle row of columns (64 halves, 32 floats), and for
    each such column chunk the consumers write their converted elements
    into a 128-byte-swizzled shared staging buffer (two, alternating, where
    they fit), fence them for the async proxy and meet at a named barrier,
    and thread 0 issues the `cp.async.bulk.tensor` store of the chunk and
    commits it as a bulk group, waiting (`wait_group.read`) before a buffer
    is written again and for all groups at the end. TMA skips what lies
    outside the tensor, so ragged edges need no masks. Where this does not
    apply the copy stores from registers as usual.

    With `thread-store` such a copy is staged alike, chunk by chunk, but
    the consumers' threads store it and no tensor map is made, so the
    destination's rows may have any length and address (a TMA map needs
    16-byte row strides and base). Row r of a chunk is staged rotated by
    d(r), the elements by which its global start lies past a 16-byte
    boundary, so that every 16-byte unit of the staged row but the first
    is a 16-byte unit of the global row; the first holds the row's two
    ends. Each thread then stores units of the chunk (row i / 8, unit
    i mod 8 for i = tid, tid + threads, ...), 16 bytes at a time where a
    unit lies inside the tensor, element by element under masks where N
    cuts it, and after them the elements of the first units:
    ```mlir
    %d = (((aligned_pointer(C) + ((m + r) * stride + n) * 2) & 15) / 2
    memref.store %x, %staging[%p, %r, ((%c + %d) & 63) ^ ((%r & 7) * 8)]
    nvvm.barrier id = 1 number_of_threads = 256           (after the chunk)
    %v = vector.load %staging[%p, %row, (%u ^ (%row & 7)) * 8] : vector<8xf16>
    vector.store %v, %C[%m + %row, %n + 64 * j + 8 * %u - %d]   (u > 0 or d = 0)
    memref.store %e, %C[%m + %row, %n + 64 * j + ((%i mod 8 - %d) & 63)]
    ```

    With `persistent`, each kernel first becomes persistent (before its
    loops are pipelined): its allocations move to the front and the rest of
    its body into an `scf.for` marked `tile.tiles` over t =
    `gpu.block_id x`, t + `gpu.grid_dim x`, ... below the product of the
    grid's extents, in which the block indices are those of tile t (x
    fastest) remapped by the `rasterize` clause, which the kernel loses. A
    barrier ends each tile of a kernel with shared memory. The kernel is
    marked `tile.persistent`, which `convert-tile-to-gpu` launches with as
    many blocks as the device holds at once. A kernel with a `cluster`
    clause stays as it is, with a warning. A pipelined loop in the tile
    loop is warp-specialized as one directly in the kernel: the producer's
    issuing thread walks the same tiles in a tile loop of its own, and both
    sides number the iterations from the block's first tile (each tile loop
    carries the iterations of the earlier tiles, `iter_args`), so that
    slots and mbarrier phases run on across tiles and the producer loads
    the next tile while the consumers store this one. TMA stores in the
    tile loop wait, before a staging buffer's first use in a tile, until
    the earlier tile's store from it has read it, and for every store once
    after the loop. A cp.async pipeline (no warp specialization) in the
    tile loop runs on across tiles too when its bounds are the same for
    every tile and its copies read only values computed from the tile
    index without side effects: the prologue is issued once before the
    tile loop, each tile's main loop numbers its iterations from the
    block's first tile and carries the tile and step of the copies ahead
    (the next tile's first steps load during this tile's last steps and
    its epilogue), and one wait for every group follows the tile loop.
    Otherwise the whole pipeline runs per tile.

    Barriers (`gpu.barrier`) are then inserted where shared memory written
    by one operation is read or overwritten by a later one (loop back edges
    included), leaving the pipelined copies to the pipeline's own waits.

    A copy between a global tensor and a tile tests once, per block,
    whether the whole tile lies inside the tensor and is aligned for its
    vectors; only edge tiles take the path with per-vector masks.

    A copy, atomic, or shared-memory reduce/cumsum without the layout it
    needs is reported: "expected a 'tile.loop' layout; run
    tile-infer-layout first".
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "target chip (sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942); empty: "
           "the #tile.target attached to the IR (tile-attach-target), else "
           "the default chip, sm_90a">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"true",
           "on targets that warp-specialize (sm_90a), give pipelined loops "
           "whose copies TMA can do a "
           "producer warpgroup that issues them (false: cp.async pipeline)">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"true",
           "in warp-specialized kernels, store fragments to global tensors "
           "through swizzled shared memory with TMA (false: masked stores "
           "from registers)">,
    Option<"threadStore", "thread-store", "bool", /*default=*/"false",
           "in warp-specialized kernels, stage those fragments in shared "
           "memory as tma-store does but store them with the consumers' "
           "threads, 16-byte stores of each row's aligned body (no tensor "
           "map: rows of any length and address; wins over tma-store)">,
    Option<"pingpong", "pingpong", "bool", /*default=*/"false",
           "in warp-specialized kernels with two consumer warpgroups and "
           "two or more gemms per pipelined iteration, let the warpgroups "
           "take turns on the tensor cores with named barriers (default: "
           "both issue as they come)">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "make kernels persistent: launch as many blocks as the device "
           "holds at once, each looping over the grid's tiles (default: one "
           "block per tile)">
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileNarrowIntToFloat : Pass<"tile-narrow-int-to-float"> {
  let summary = "convert narrow integers to f16/bf16 with bit operations, "
                "two lanes per 32-bit word";
  let description = [{
    Rewrites `arith.uitofp` of an integer known to be small (masked by
    `arith.andi` with a constant, or zero-extended from a narrow type) to
    f16 or bf16 with the magic-number trick: the integer `x` (below 2^10
    for f16, 2^7 for bf16) is OR-ed into the bits of 1024.0 (f16,
    `0x6400`) or 128.0 (bf16, `0x4300`), which gives the float `1024 + x`
    (`128 + x`) exactly, and the magic value is subtracted in the float
    type. A `arith.subf` of a constant from the conversion subtracts the
    sum of both instead, and an `arith.addf` of one subtracts their
    difference (nothing when the constant is the magic value: `x + 1024.0`
    is the bits themselves), where that sum or difference is exact. On
    `vector<2x...>` the integer and float steps each take one 32-bit
    operation (`or.b32`, `sub.f16x2`).

    A `vector<2xi16>` truncated from lanes `(w >> s) & m` and
    `(w >> (s + 16)) & m` of one 32-bit `w` (with `m` below 2^16) becomes
    the bitcast of the one 32-bit `(w >> s) & (m | m << 16)`. The shift `s`
    may be a constant or a value (a lane-dependent nibble offset), the
    second lane's an addition of 16 to it. Equal operations inside each
    `tile.kernel` are merged first (CSE), since the lowering computes and
    loads each register's word anew.

    Then, once those rewrites are done, an f16 pair at a shift `s = 8k + t`
    (t > 0, here the nibbles at bits 4 and 12) whose only use adds or
    subtracts `Y` is taken where it lies, `(w >> 8k) & (m << t)`, which
    holds `1024 + 2^t x`, and becomes `B' * 2^-t + (1024 (1 - 2^-t) -/+ Y)`
    (a multiply-add that contracts into one fma): the pairs at `8k` and
    `8k + t` share one shift, a word's four nibble pairs one shift instead
    of three. A constant `Y` folds where the sum is exact; a variable one
    only under `fastmath<reassoc>` (the constant part minus `Y` is rounded
    on its own: exact for zero points `z` with `z + 1024` an integer below
    2048). The OR of the magic bits moves onto the 32-bit word, next to the
    pair's mask, where `tile-fuse-lop3` makes both one `lop3.b32`.

    The rewrites are `populateNarrowIntToFloatPatterns()` and
    `populateNarrowIntScalePatterns()` (`tile/Transforms/NarrowIntToFloat.h`);
    the NVVM and ROCDL pipelines run them after `tile-lower`.

    Example:

    ```mlir
    %m = arith.constant dense<15> : vector<2xi32>
    %q = arith.andi %x, %m : vector<2xi32>
    %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
    ```

    becomes

    ```mlir
    %t = arith.trunci %q : vector<2xi32> to vector<2xi16>
    %o = arith.ori %t, %c0x6400 : vector<2xi16>
    %b = arith.bitcast %o : vector<2xi16> to vector<2xf16>
    %f = arith.subf %b, %c1024 : vector<2xf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
