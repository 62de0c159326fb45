//===- TileDialect.td - tile dialect definition -------------*- tablegen -*-===//
//
// The `tile` dialect: TileLang's block-level tile programming model as MLIR.
// This file declares the dialect itself and the base classes its operations
// and attributes derive from.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEDIALECT_TD
#define TILE_DIALECT_TILE_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernel programming (the TileLang model)";
  let description = [{
    The `tile` dialect expresses GPU kernels at the granularity of tiles, as
    in TileLang: a `tile.kernel` launch context, on-chip buffers allocated with
    `tile.alloc` in shared memory, register fragments or per-thread local
    memory, dataflow tile operators (`tile.copy`, `tile.gemm`, `tile.reduce`,
    `tile.cumsum`, `tile.atomic`, `tile.fill`, `tile.clear`) and scheduling
    primitives (`tile.parallel`, `tile.pipelined`, the `layout` annotation on
    allocations, the `rasterize` and `cluster` clauses of `tile.kernel`).

    Buffers are memrefs, and the memory space says where a tile lives:
    no memory space is global memory, `#gpu.address_space<workgroup>` is
    shared memory, `#gpu.address_space<private>` is per-thread local memory,
    and `#tile.fragment` is a block-level register tile that the compiler
    distributes across the threads of the block.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  // The attributes passes hand each other on operations they do not own,
  // each with one typed helper (TileDialect::get...AttrHelper()) and checked
  // by verifyOperationAttribute():
  // - `target`: on a module, function or kernel, the target it is compiled
  //   for (the nearest one applies, see getTargetFor());
  // - `loop`: the thread binding of a tile operator lowered as a loop nest;
  // - `async`: a copy a pipelined loop issues asynchronously;
  // - `consumers`: the scf.if of the consumer threads of a warp-specialized
  //   kernel, whose barriers leave the producer out;
  // - `producer_threads`: on tile.kernel, the producer warpgroup's threads,
  //   added after the kernel's own;
  // - `tensor_map_args`: on a kernel function, the arguments that are TMA
  //   tensor maps, passed as grid constants;
  // - `turn`: the named-barrier operations (and their consumer loop) by
  //   which two consumer warpgroups take turns on the tensor cores, until
  //   tile-lower has checked that no block-wide barrier can deadlock them;
  // - `persistent`: on tile.kernel, a kernel whose blocks loop over its
  //   grid's tiles (tile-lower's `persistent` option), launched with as
  //   many blocks as the device holds at once;
  // - `tiles`: the scf.for by which each block of a persistent kernel
  //   walks its tiles;
  // - `resident_blocks`: on the host's index constant that stands for the
  //   number of blocks of a persistent kernel the device holds at once,
  //   which the runtime evaluates at launch: a unit attribute, or
  //   `#tile<persistent_blocks prime>` for the largest prime not above
  //   that number (the kernel's `persistent(blocks = prime)`);
  // - `dependent_launch`: on the griddepcontrol.wait by which a kernel
  //   waits for the grid before it in the stream before it first touches a
  //   `tile.zero_init` argument, so the runtime may launch it while that
  //   argument is being zeroed (tile-compile writes `dependent-launch`).
  let discardableAttrs = (ins
    "::mlir::tile::TargetAttr":$target,
    "::mlir::tile::FragmentAttr":$loop,
    "::mlir::UnitAttr":$async,
    "::mlir::UnitAttr":$consumers,
    "::mlir::IntegerAttr":$producer_threads,
    "::mlir::DenseI64ArrayAttr":$tensor_map_args,
    "::mlir::UnitAttr":$lowered,
    "::mlir::UnitAttr":$turn,
    "::mlir::UnitAttr":$persistent,
    "::mlir::UnitAttr":$tiles,
    "::mlir::Attribute":$resident_blocks,
    "::mlir::UnitAttr":$dependent_launch
  );
  let hasOperationAttrVerify = 1;
  // On a function's memref argument, `tile.zero_init` (a unit attribute)
  // asks the launcher to zero it before every launch: an output the kernel
  // adds into (tile-compile writes it as the manifest's `zero` line).
  // `tile.overwrite` (a unit attribute) promises that every launch writes
  // every element and reads none it has not written, so a runtime that
  // stages the argument copies it back only (tile-compile writes `stage
  // NAME out`); not with `tile.zero_init`.
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes of TileAttrs.td.
    void registerAttributes();
  }];
}

/// Base class for every tile operation.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

/// Base class for every tile attribute.
class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TILE_DIALECT_TILE_TILEDIALECT_TD
