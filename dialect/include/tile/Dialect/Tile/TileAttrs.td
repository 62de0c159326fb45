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

def Tile_PersistentBlocks : I32EnumAttr<"PersistentBlocks",
    "how many blocks a persistent kernel launches", [
    I32EnumAttrCase<"resident", 0>, I32EnumAttrCase<"prime", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_PersistentBlocksAttr
    : EnumAttr<Tile_Dialect, Tile_PersistentBlocks, "persistent_blocks">;

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

    With parameters it is a fragment layout (paper §4.1): over a tile of
    `shape`, `map` sends the coordinates of an element to the pair
    `(thread, register)` that holds it, for a block of `threads` threads.
    An element may be held by `replicate` threads (a bias row that every
    thread of a row group needs, paper Fig. 7); the map's symbol `s0` is
    then the replica index in `[0, replicate)`, used by the thread result
    only. Built-in tensor-core fragments are written by name.

    ```mlir
    #tile.fragment<[16, 16], mma_m16n8k16_a>
    #tile.fragment<[16, 16], ldmatrix<16>>
    #tile.fragment<[32, 16], threads = 64, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2 + (d0 floordiv 16) * 32, d1 mod 2 + ((d0 mod 16) floordiv 8) * 2 + (d1 floordiv 8) * 4)>
    #tile.fragment<[16], threads = 64, (d0)[s0] -> (d0 * 4 + s0, 0), replicate = 4>
    ```

    Without a shape (`#tile.fragment<threads = N, map = ...>`) the tile is
    the buffer the layout is attached to.
  }];
  let parameters = (ins
    "int64_t":$threads,
    "::mlir::AffineMap":$map,
    "int64_t":$replicate,
    OptionalArrayRefParameter<"int64_t">:$shape);
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, 0, AffineMap(), 1,
                                       ArrayRef<int64_t>()); }]>,
    AttrBuilder<(ins "int64_t":$threads, "::mlir::AffineMap":$map,
                     "int64_t":$replicate), [{
      return $_get($_ctxt, threads, map, replicate, ArrayRef<int64_t>());
    }]>
  ];
  let extraClassDeclaration = [{
    /// True for the bare memory-space form `#tile.fragment`.
    bool isMemorySpace() const { return !getMap(); }
    /// The fragment as a value, when the attribute has a map and a shape.
    std::optional<::mlir::tile::Fragment> getFragment() const;
    /// The fragment of a buffer of `bufferShape`: a shapeless attribute
    /// takes that shape; none when the attribute's own shape differs.
    std::optional<::mlir::tile::Fragment>
    getFragmentFor(::llvm::ArrayRef<int64_t> bufferShape) const;
    /// The attribute of `fragment`.
    static FragmentAttr get(::mlir::MLIRContext *ctx,
                            const ::mlir::tile::Fragment &fragment);
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "memory layout of an on-chip tile";
  let description = [{
    Maps the coordinates of a tile of `shape` to an element offset in its
    buffer (TileLang's `T.Layout`), used by `annotate_layout` on shared and
    local buffers. A layout is one of:

    - a built-in: `row_major`, `padded<P>` (rows P elements longer than the
      tile), `swizzle<B, E>` (the NVIDIA B-byte shared-memory swizzle, B in
      32, 64, 128, for E-bit elements);
    - a quasi-affine map, optionally followed by `xor<bits, base, shift>`:
      the `bits` bits of the offset from bit `base + shift` are XORed into
      those from bit `base` (a swizzle no affine map can express);
    - `linear<[[...], ...]>`: a linear map over GF(2) with, for each
      dimension, the image of each of its bits, least significant first.

    ```mlir
    #tile.layout<[128, 32], row_major>
    #tile.layout<[128, 32], padded<8>>
    #tile.layout<[64, 64], swizzle<128, 16>>
    #tile.layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 3>>
    #tile.layout<[4, 4], linear<[[4, 8], [1, 2]]>>
    ```

    ```mlir
    %s = tile.alloc {layout = #tile.layout<[128, 32], padded<8>>}
        : memref<128x32xf16, #gpu.address_space<workgroup>>
    ```

    Without a shape (`#tile.layout<(d0, d1) -> (d0 * 40 + d1)>`) the tile
    is the buffer the layout is attached to.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$shape,
    "::mlir::AffineMap":$map,
    "unsigned":$swizzleBits,
    "unsigned":$swizzleBase,
    "unsigned":$swizzleShift,
    "unsigned":$linearResults,
    OptionalArrayRefParameter<"int64_t">:$bases);
  let builders = [
    AttrBuilder<(ins "::mlir::AffineMap":$map), [{
      return $_get($_ctxt, ArrayRef<int64_t>(), map, 0, 0, 0, 0,
                   ArrayRef<int64_t>());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The layout as a value, when the attribute has a shape.
    std::optional<::mlir::tile::Layout> getLayout() const;
    /// The layout of a buffer of `bufferShape`: a shapeless attribute takes
    /// that shape; none when the attribute's own shape differs.
    std::optional<::mlir::tile::Layout>
    getLayoutFor(::llvm::ArrayRef<int64_t> bufferShape) const;
    /// The attribute of `layout`.
    static LayoutAttr get(::mlir::MLIRContext *ctx,
                          const ::mlir::tile::Layout &layout);
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

include "tile/Dialect/Tile/TileTargetAttrs.td"

#endif // TILE_DIALECT_TILE_TILEATTRS_TD
