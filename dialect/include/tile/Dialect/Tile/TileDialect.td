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
