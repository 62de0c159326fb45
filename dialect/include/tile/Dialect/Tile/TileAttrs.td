//===- TileAttrs.td - tile dialect attributes and enums -----*- tablegen -*-===//
//
// Enumerations used by the tile operators (reduction, atomic and warp
// partition kinds, rasterization order), the `#tile.fragment` memory space
// and the `#tile.layout` / `#tile.fragment<...>` layout annotations.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEATTRS_TD
#define TILE_DIALECT_TILE_TILEATTRS_TD

include "tile/Dialect/Tile/TileDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "tile reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"abssum", 3>,
    I32EnumAttrCase<"absmax", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind">;

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "tile atomic update kind", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic_kind">;

def Tile_GemmPolicy : I32EnumAttr<"GemmPolicy",
    "how the warps of a block partition a gemm tile", [
    I32EnumAttrCase<"square", 0>, I32EnumAttrCase<"full_row", 1>,
    I32EnumAttrCase<"full_col", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_GemmPolicyAttr : EnumAttr<Tile_Dialect, Tile_GemmPolicy, "policy">;

def Tile_RasterOrder : I32EnumAttr<"RasterOrder",
    "order in which rasterized block panels are walked", [
    I32EnumAttrCase<"row", 0>, I32EnumAttrCase<"column", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_RasterOrderAttr : EnumAttr<Tile_Dialect, Tile_RasterOrder, "raster_order">;

//===----------------------------------------------------------------------===//
// Memory space and layouts
//===----------------------------------------------------------------------===//

def Tile_FragmentAttr : Tile_Attr<"Fragment", "fragment"> {
  let summary = "register-fragment memory space, optionally with its layout";
  let description = [{
    Bare, `#tile.fragment` is the memory space of a block-level register tile:
    a buffer that the compiler distributes across the threads of the block
    (TileLang's `T.alloc_fragment`).

    ```mlir
    %acc = tile.alloc : memref<128x128xf32, #tile.fragment>
    ```

    With parameters it is a fragment layout: `map` sends the coordinates of
    a tile to a `(thread, register)` pair, the block runs `threads` threads,
    and each element is held by `replicate` threads (a bias row that every
    thread of a row group needs, paper Fig. 7). Used as the `layout` of an
    allocation or a `tile.parallel`.

    ```mlir
    #tile.fragment<threads = 128, map = (d0, d1) -> (d0, d1), replicate = 1>
    ```
  }];
  let parameters = (ins
    "int64_t":$threads,
    "::mlir::AffineMap":$map,
    "int64_t":$replicate);
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, 0, AffineMap(), 1); }]>
  ];
  let extraClassDeclaration = [{
    /// True for the bare memory-space form `#tile.fragment`.
    bool isMemorySpace() const { return !getMap(); }
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "memory layout of an on-chip tile";
  let description = [{
    Maps the coordinates of a tile to an element offset in its buffer
    (TileLang's `T.Layout`), used by `annotate_layout` on shared and local
    buffers.

    ```mlir
    %s = tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>}
        : memref<128x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let parameters = (ins "::mlir::AffineMap":$map);
  let assemblyFormat = "`<` $map `>`";
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILE_TILEATTRS_TD
