//===- TileInterfaces.td - the interface of tile operators --*- tablegen -*-===//
//
// `TileOpInterface`: what every tile operator tells the compiler about
// itself (TileLang paper §3.2, Fig. 4: each operator implements layout
// inference and lowering). The drivers of layout inference, barrier
// placement, software pipelining and lowering ask operators through it and
// name no operator class. The operators implement it as external models
// registered by the passes library (passes/lib/Ops), so the dialect library
// links no GPU dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILEINTERFACES_TD
#define TILE_DIALECT_TILE_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_TileOpInterface : OpInterface<"TileOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A tile operator: an operation on whole tiles that the compiler lays out
    and lowers to per-thread code.

    Layout inference runs in priority levels (`InferenceLevel`): every
    operator first describes its problem (`collect`: the buffers it reads
    and writes, the loop nest it runs over the block's threads), then the
    strictest requirements are fixed (tensor-core operands), then layouts
    derived from one fragment to another, then loop bindings, then defaults
    for what is still free; finally every operator checks its accesses and
    commits what was inferred for it to the IR.
  }];
  let methods = [
    InterfaceMethod<[{
        Takes part in layout inference at `level`: records requirements,
        derives layouts or checks them through `state`, and marks progress
        there when it fixed something. Fails, with a diagnostic at the
        operator, on a conflict.
      }], "::mlir::LogicalResult", "inferLayout",
      (ins "::mlir::tile::LayoutInferenceState &":$state,
           "::mlir::tile::InferenceLevel":$level)>,
    InterfaceMethod<[{
        Replaces the operator by per-thread code, reading the layouts that
        inference attached and the per-kernel state in `context`. Fails,
        with a diagnostic, where the layouts are missing or unsupported.
      }], "::mlir::LogicalResult", "lower",
      (ins "::mlir::tile::LoweringContext &":$context)>,
    InterfaceMethod<[{
        Appends the operator's accesses of buffers (global, shared or
        fragment operands, and for operators with a body the accesses of
        the body), which barrier placement and the pipeliner order.
      }], "void", "getTileAccesses",
      (ins "::llvm::SmallVectorImpl<::mlir::tile::TileAccess> &":$accesses)>,
    InterfaceMethod<[{
        The operator as an asynchronous copy from global into shared
        memory, which a pipelined loop may issue ahead of its readers;
        std::nullopt for operators that are not such copies.
      }], "std::optional<::mlir::tile::AsyncCopy>", "getAsyncCopy", (ins),
      /*methodBody=*/"", /*defaultImplementation=*/"return std::nullopt;">,
  ];
}

#endif // TILE_DIALECT_TILE_TILEINTERFACES_TD
