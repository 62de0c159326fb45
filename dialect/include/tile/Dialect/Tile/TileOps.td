//===- TileOps.td - tile dialect operations -----------------*- tablegen -*-===//
//
// The tile operators and scheduling primitives of the TileLang model: the
// kernel launch context, on-chip allocation, copy/fill/clear, gemm,
// reduce/cumsum/atomic, and the parallel and pipelined loops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEOPS_TD
#define TILE_DIALECT_TILE_TILEOPS_TD

include "tile/Dialect/Tile/TileDialect.td"
include "tile/Dialect/Tile/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

/// Operations that only make sense inside a `tile.kernel` body.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "block-level launch context of a tile kernel";
  let description = [{
    The body runs once per thread block of a 1-, 2- or 3-dimensional grid
    whose extents are SSA `index` values (so grids may depend on dynamic
    shapes). The entry block arguments are the block indices, in the order of
    the extents (x first). `threads` is the number of threads per block (at
    most 1024). The kernel sits in a function, whose body is the host code
    that launches it, and not in another kernel. Extents that are constants
    must be launchable: x in [1, 2^31 - 1], y and z in [1, 65535].

    Optional clauses:
    - `rasterize(panel = P, order = row|column)`: TileLang's `use_swizzle`;
      block indices are remapped so that consecutive blocks walk panels of
      `P` blocks, improving L2 reuse. The order defaults to `row`.
    - `persistent(chunk = N, blocks = resident|prime)`: where the kernel
      is made persistent (one block per resident slot walking the grid's
      tiles, `tile-compile --persistent`), each block takes `N` consecutive tiles of the launch
      order at a time: its s-th tile is
      `(s / N) * gridDim.x * N + blockIdx.x * N + s % N`, where the
      default is `blockIdx.x + s * gridDim.x`. A grid of no more tiles
      than blocks keeps one tile a block. A kernel whose tiles pair
      up into equal work (causal attention's row blocks i and n - 1 - i,
      placed next to each other) balances its blocks with `N = 2`. A
      kernel that is not made persistent ignores the clause. N is at
      most 2^31 - 1. `blocks = prime` launches the largest prime number
      of blocks not above the blocks the device holds at once (131 where
      it holds 132) rather than all of them (`blocks = resident`, the
      default): block b then takes the chunks b, b + G, b + 2G, ... of a
      prime G, which meet every residue of any period shorter than G of
      the chunks' work. Tiles of unequal work whose pattern repeats with
      a period sharing a factor with the resident count (causal
      attention with an odd number of row blocks, its pairs crossing from
      one head into the next) would otherwise give some blocks only the
      heavy chunks. Either entry may be left out:
      `persistent(chunk = 2, blocks = prime)`, `persistent(blocks = prime)`.
    - `cluster(cx, cy, cz)`: thread-block cluster shape (sm_90): at most 16
      blocks; constant grid extents must be multiples of the cluster
      extents, and dimensions the grid lacks have cluster extent 1. Dynamic
      extents are rounded up to whole clusters at launch: the blocks past
      an extent run with indices past it, and the body must mask them, as
      the masked copies do. A cluster of one block is none. TMA loads
      that read the same tile in several blocks of a cluster are shared
      among them (multicast).

    The body may mix tile operators with upstream operations (`scf`
    control flow, `arith`, `gpu.thread_id`, `nvvm.*`) for thread-level
    control. Tile operators must sit in the kernel's own body, not in a
    function it calls.

    ```mlir
    tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128)
        rasterize(panel = 8, order = row)
        persistent(chunk = 2, blocks = prime) {
      %acc = tile.alloc : memref<128x128xf32, #tile.fragment>
      tile.clear %acc : memref<128x128xf32, #tile.fragment>
    }
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$grid,
    ConfinedAttr<I64Attr, [IntPositive]>:$threads,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$rasterize_panel,
    OptionalAttr<Tile_RasterOrderAttr>:$rasterize_order,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$persistent_chunk,
    OptionalAttr<Tile_PersistentBlocksAttr>:$persistent_blocks,
    OptionalAttr<DenseI64ArrayAttr>:$cluster);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$grid, "int64_t":$threads)>
  ];
  let extraClassDeclaration = [{
    /// The block-index arguments of the body, one per grid dimension (none
    /// while the body has no block).
    ::mlir::Block::BlockArgListType getBlockIds() {
      return getBody().getArguments();
    }
    /// The cluster's extents along x, y and z: 1 where the kernel has no
    /// cluster or the clause leaves the dimension out.
    ::llvm::SmallVector<int64_t, 3> getClusterExtents() {
      ::llvm::SmallVector<int64_t, 3> extents(3, 1);
      if (auto cluster = getCluster())
        for (auto [d, e] : ::llvm::enumerate(*cluster))
          extents[d] = e;
      return extents;
    }
    /// Whether the kernel runs in clusters of more than one block (a
    /// cluster of one block is none).
    bool hasCluster() {
      auto e = getClusterExtents();
      return e[0] * e[1] * e[2] > 1;
    }
  }];
}

//===----------------------------------------------------------------------===//
// tile.alloc
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc", [Tile_InKernel]> {
  let summary = "allocate an on-chip tile buffer";
  let description = [{
    Allocates a statically shaped buffer in shared memory
    (`#gpu.address_space<workgroup>`, TileLang `T.alloc_shared`), as a
    register fragment (`#tile.fragment`, `T.alloc_fragment`) or in
    per-thread local memory (`#gpu.address_space<private>`, `T.alloc_local`).
    The shape is static with non-zero extents, the memref layout is the
    identity, and the element type is an integer, float or index type.
    The optional `layout` (TileLang `T.annotate_layout`) fixes the buffer's
    layout: a `#tile.layout` for shared and local buffers, a
    `#tile.fragment<...>` for fragments. Layout inference honours it. A
    shared layout may leave gaps (`padded<P>`, rows P elements longer, to
    spread a column over the memory banks): the buffer then occupies its
    layout's span.

    ```mlir
    %As = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc {layout = #tile.layout<[64, 32], padded<4>>}
        : memref<64x32xi32, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins OptionalAttr<AnyAttr>:$layout);
  let results = (outs Res<AnyMemRef, "", [MemAlloc<DefaultResource>]>:$memref);
  let assemblyFormat = "attr-dict `:` type($memref)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The bytes the buffer occupies: its tile's, or for a shared buffer
    /// whose `#tile.layout` leaves gaps, the layout's span.
    int64_t getFootprintBytes();
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "copy a tile between any two memory spaces";
  let description = [{
    Copies a tile (TileLang `T.copy`). One operand may carry indices, the
    position of the tile's origin in it; the tile's extent is the shape of
    the other operand. When the indexed operand has a higher rank, the tile
    fills its trailing dimensions and the leading ones have extent 1 (a 2-d
    tile taken from a batched 3-d tensor). Without indices on either side
    both operands must have the same shape. Element types may differ: the
    copy converts.

    Out-of-bounds elements of a global operand are masked: loads give zero
    and stores are dropped, so ragged edges need no user code. Copies between
    on-chip buffers must stay in bounds; the verifier rejects those it can
    prove are not.

    `coalesced_width` forces the vector width (in elements) of the
    generated accesses and must divide the tile's innermost extent;
    `disable_tma` keeps a global-to-shared copy on cp.async where TMA would
    be used.

    ```mlir
    tile.copy %A[%m, %k] -> %As
        : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %Cf -> %C[%m, %n]
        : memref<128x128xf32, #tile.fragment> -> memref<1024x1024xf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "source tile or tensor", [MemRead]>:$src,
    Variadic<Index>:$src_indices,
    Arg<AnyMemRef, "destination tile or tensor", [MemWrite]>:$dst,
    Variadic<Index>:$dst_indices,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$coalesced_width,
    UnitAttr:$disable_tma);
  let assemblyFormat = [{
    $src (`[` $src_indices^ `]`)? `->` $dst (`[` $dst_indices^ `]`)?
    attr-dict `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of the tile the copy moves.
    ::llvm::SmallVector<int64_t> getTileShape();
  }];
}

def Tile_FillOp : Tile_Op<"fill", [Tile_InKernel,
    TypesMatchWith<"value type matches the buffer's element type", "buffer",
                   "value", "::mlir::getElementTypeOrSelf($_self)">]> {
  let summary = "fill an on-chip buffer with a value";
  let description = [{
    Sets every element of a shared, fragment or local buffer to `value`
    (TileLang `T.fill`).

    ```mlir
    %ninf = arith.constant 0xFF800000 : f32
    tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$buffer, AnyType:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ClearOp : Tile_Op<"clear", [Tile_InKernel]> {
  let summary = "set an on-chip buffer to zero";
  let description = [{
    Zeroes a shared, fragment or local buffer (TileLang `T.clear`).

    ```mlir
    tile.clear %acc : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel]> {
  let summary = "tile matrix multiply-accumulate: C += op(A) op(B)";
  let description = [{
    TileLang's `T.gemm`. A and B live in shared memory or in fragments (the
    ss, rs, sr and rr variants); C is a fragment. `transpose_a` /
    `transpose_b` say that A is stored K x M / B is stored N x K.
    `clear_accum` zeroes C first. `policy` says how the block's warps split
    the C tile: `square` (default), `full_row` (each warp owns whole rows)
    or `full_col`.

    A is M x K, B is K x N and C is M x N; all three have static shapes.
    A shared A or B is a `tile.alloc` or a `memref.subview` of one with
    static offsets and unit strides, e.g. a K slice of a tile that a
    pipelined loop loads whole; the tile is laid out for its own shape, and
    the gemm reads the view's part of it (for `wgmma`, each instruction's
    part must start in the first row of the swizzle's 8-row pattern).
    The kernel must run whole warps (a multiple of 32 threads).
    The element types (A x B -> C) are those some known target's tensor
    cores compute (the `mma` lists of `#tile.target`): f16 x f16 -> f32 or
    f16; bf16 x bf16 -> f32; f32 x f32 -> f32 (computed as tf32 on NVIDIA);
    i8 x i8 -> i32 (signless: tile operators take no signed or unsigned
    integer types); f8E4M3FN /
    f8E5M2 in any combination -> f32 (sm_90a); f8E4M3FNUZ / f8E5M2FNUZ in
    any combination -> f32 (gfx942). Inside a module with a `tile.target`,
    that target must offer them.

    `mma`, when present, is the tensor-core instruction chosen for the
    gemm; it must compute the operands' types. Layout inference chooses it
    from the target's list, unless the gemm already names one: then it
    keeps that family and shape (for `wgmma`, its M and K, with N fitted
    to the tile; the warp groups are inferred), which the target must
    offer, e.g. `mma_sync` on sm_90a, where `wgmma` would come first.

    ```mlir
    tile.gemm %As, %Bs -> %Cf transpose_b policy(full_row)
        : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<128x32xf16, #gpu.address_space<workgroup>>
       -> memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$a,
    Arg<AnyMemRef, "", [MemRead]>:$b,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a, UnitAttr:$transpose_b, UnitAttr:$clear_accum,
    DefaultValuedAttr<Tile_GemmPolicyAttr, "::mlir::tile::GemmPolicy::square">:$policy,
    OptionalAttr<Tile_MmaAttr>:$mma);
  let assemblyFormat = [{
    $a `,` $b `->` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`clear_accum` $clear_accum^)? (`policy` `(` custom<GemmPolicy>($policy)^ `)`)?
    attr-dict `:` type($a) `,` type($b) `->` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_InKernel]> {
  let summary = "reduce a tile along one dimension";
  let description = [{
    TileLang's `T.reduce_{sum,max,min,abssum,absmax}`. Source and
    destination are shared-memory buffers or fragments (per-thread local
    buffers have no block-wide meaning) of one element type, or a float
    source and a wider float destination: the elements are extended and
    combined in the destination's type (f16 partial sums added in f32). The
    destination
    has the source's shape with `dim` removed (or kept with extent 1). With
    `clear = true` (the default) the destination is overwritten; with
    `clear = false` the reduction is combined with its current contents.

    ```mlir
    tile.reduce max %s -> %m dim(1)
        : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dst,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear);
  let assemblyFormat = [{
    $kind $src `->` $dst `dim` `(` $dim `)` attr-dict `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_CumsumOp : Tile_Op<"cumsum", [Tile_InKernel]> {
  let summary = "inclusive prefix sum of a tile along one dimension";
  let description = [{
    TileLang's `T.cumsum`: `dst[..., i, ...] = sum(src[..., 0..i, ...])`, or
    the suffix sum with `reverse`. Source and destination are shared-memory
    buffers or fragments of one shape and element type, and may be the same
    buffer.

    ```mlir
    tile.cumsum %s -> %s dim(1) : memref<64x64xf32, #gpu.address_space<workgroup>>
        -> memref<64x64xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    I64Attr:$dim, UnitAttr:$reverse);
  let assemblyFormat = [{
    $src `->` $dst `dim` `(` $dim `)` (`reverse` $reverse^)? attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicOp : Tile_Op<"atomic", [Tile_InKernel]> {
  let summary = "atomically combine a tile into global or shared memory";
  let description = [{
    TileLang's `T.atomic_add` / `atomic_max` / `atomic_min`: every element of
    `src` is combined into `dst` at the given origin with an atomic update.
    Out-of-bounds elements of a global destination are dropped.

    ```mlir
    tile.atomic add %part -> %out[%m, %n]
        : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
    ```
  }];
  let arguments = (ins
    Tile_AtomicKindAttr:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dst,
    Variadic<Index>:$dst_indices);
  let assemblyFormat = [{
    $kind $src `->` $dst (`[` $dst_indices^ `]`)? attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_ClusterReduceOp : Tile_Op<"cluster_reduce", [Tile_InKernel]> {
  let summary = "combine a shared tile across the blocks of a cluster";
  let description = [{
    A collective of the kernel's thread-block cluster: every block passes
    the same shared tile `src` and the same global destination, and `dst`
    receives, at the given origin, the element-wise combination (`add`,
    `max`, `min`) of `src` over all blocks of the cluster, converted to
    `dst`'s element type. Each block writes a share of the tile, reading
    the other blocks' `src` through distributed shared memory
    (`ld.shared::cluster`); 16-bit floats are combined in f32. The op
    synchronizes the cluster before (so every block's `src` is complete)
    and after (so no block reuses or releases its `src` while another still
    reads it): every thread of every block of the cluster must reach it.
    In a warp-specialized kernel the producer warpgroup takes the same two
    cluster barriers after its loads, which tile-lower can arrange only
    where the op runs once, after the pipelined loop; elsewhere the loop
    is not warp-specialized.

    This is a split-K reduction without atomics and without zeroing the
    output first: the blocks that split a tile's K form one cluster, and
    the sum is stored once, the same whatever order the blocks finish in.
    Out-of-bounds elements of the destination are dropped. Without a
    cluster (one block) the op stores `src`, converted. A kernel with a
    cluster of several blocks needs a target with thread-block clusters
    (the `clusters` feature, sm_90).

    ```mlir
    tile.cluster_reduce add %part -> %out[%m, %n]
        : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
    ```
  }];
  let arguments = (ins
    Tile_AtomicKindAttr:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$src,
    Arg<AnyMemRef, "", [MemWrite]>:$dst,
    Variadic<Index>:$dst_indices);
  let assemblyFormat = [{
    $kind $src `->` $dst (`[` $dst_indices^ `]`)? attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_RemoteLoadOp : Tile_Op<"remote_load"> {
  let summary = "load from another block's shared memory (thread level)";
  let description = [{
    Loads the consecutive elements of shared `memref` starting at `indices`
    as they are in block `rank` of the cluster (its rank in the cluster,
    `%cluster_ctarank`), as one `ld.shared::cluster` of at most 16 bytes.
    The element at `indices` must be aligned to the vector's size: the
    caller checks it.

    Not written by hand: tile-lower makes it from `tile.cluster_reduce`,
    and tile-convert-nvgpu-to-nvvm lowers it with `mapa`.

    ```mlir
    %v = tile.remote_load %buf[%i, %j] rank %r
        : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$memref,
    Variadic<Index>:$indices,
    I32:$rank);
  let results = (outs VectorOfRankAndType<[1], [AnyInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` `rank` $rank attr-dict `:` type($memref) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_RedOp : Tile_Op<"red"> {
  let summary = "one vector reduction into global memory (thread level)";
  let description = [{
    Adds the vector `value` to the consecutive elements of global `memref`
    starting at `indices`, as one reduction instruction: PTX
    `red.global.add` on f16 or bf16 pairs (`.f16x2`, `.v2.f16x2`,
    `.v4.f16x2`; bf16 and vectors need sm_90 and PTX ISA 8.1) or on 2 or 4
    f32. The element at `indices` must be aligned to the vector's size, and
    the vector must lie inside the memref: the caller checks both.

    Not written by hand: tile-lower makes it from `tile.atomic add` on
    targets with vector reductions, and tile-convert-nvgpu-to-nvvm lowers
    it with the full 64-bit address of the element, whatever the index
    width.

    ```mlir
    tile.red %v, %out[%i, %j] : vector<8xf16>, memref<?x?xf16>
    ```
  }];
  let arguments = (ins
    VectorOfRankAndType<[1], [F16, BF16, F32]>:$value,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
    Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` attr-dict `:` type($value) `,`
    type($memref)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scheduling primitives
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [Tile_InKernel, SingleBlock,
    NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "element-wise loop nest over a tile";
  let description = [{
    TileLang's `T.Parallel`: the body runs once for every point of the
    static iteration space; the compiler maps iterations to threads (from the
    layouts of the fragments the body touches) and vectorizes. The body uses
    `memref.load` / `memref.store`, `arith` and `math`; tile operators
    (including nested `tile.parallel` loops) are not allowed in it. An
    optional `layout` (`#tile.fragment<...>`) over the same number of
    dimensions and for the kernel's thread count fixes the thread mapping.

    ```mlir
    tile.parallel (%i, %j) in (128, 128) {
      %c = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %b = memref.load %bias[%j] : memref<128xf32, #tile.fragment>
      %s = arith.addf %c, %b : f32
      memref.store %s, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents, OptionalAttr<Tile_FragmentAttr>:$layout);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Builds the loop nest with an empty body holding one index induction
    // variable per extent.
    OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>
  ];
  let extraClassDeclaration = [{
    /// The induction variables, one per dimension of the iteration space
    /// (none while the body has no block).
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [Tile_InKernel, SingleBlock,
    NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "software-pipelined loop";
  let description = [{
    TileLang's `T.Pipelined`: a loop from `lb` to `ub` (exclusive) by `step`
    whose iterations the compiler overlaps in `stages` stages (at least 1):
    copies into shared memory for later iterations are issued while the
    current one computes, with the buffers they write multi-buffered. A
    constant `step` must be positive.

    `stages(1)` runs the loop without overlap. `stages` alone is enough.
    For a hand-made schedule, `order` gives the issue order (a permutation)
    and `stage` the pipeline stage (in [0, stages)) of each scheduled
    operation of the body, in program order; the two clauses may come in
    either order. Scheduled operations are the top-level operations of the
    body that are not pure (tile operators, loads, stores, nested loops);
    pure index arithmetic follows its users. `tile-lower` follows
    schedules that put every global-to-shared copy in one stage, before
    the first readers' stage (the copies then run that many iterations
    ahead). Readers in later stages run that many iterations behind the
    first readers, at their place in the issue order (the copies then get
    one more buffer slot per iteration of lag): FlashAttention issues P·V
    of block j - 1 right after Q·Kᵀ of block j. It reports schedules that
    would run two readers touching a common buffer, one writing, out of
    program order.

    For a body of copy K, copy V, S = Q Kᵀ, P = cast(S), O += P V, the
    schedule `stages(3) order [0, 1, 2, 4, 3] stage [0, 0, 1, 1, 2]` issues
    P V of block j - 1 right after Q Kᵀ of block j.

    ```mlir
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0, 1] stage [0, 1] {
      tile.copy %A[%m, %k] -> %As : memref<?x?xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
    I64Attr:$stages,
    OptionalAttr<DenseI64ArrayAttr>:$order,
    OptionalAttr<DenseI64ArrayAttr>:$stage);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Builds the loop with an empty body holding the induction variable.
    OpBuilder<(ins "::mlir::Value":$lowerBound, "::mlir::Value":$upperBound,
                   "::mlir::Value":$step, "int64_t":$stages)>
  ];
  let extraClassDeclaration = [{
    /// The loop induction variable (null while the body has no block or no
    /// argument, which the verifier rejects).
    ::mlir::Value getInductionVar() {
      ::mlir::Region &body = getBody();
      return body.getNumArguments() == 0 ? ::mlir::Value()
                                         : ::mlir::Value(body.getArgument(0));
    }
    /// The top-level operations of the body that `order` and `stage` index.
    ::llvm::SmallVector<::mlir::Operation *> getScheduledOps();
  }];
}

#endif // TILE_DIALECT_TILE_TILEOPS_TD
