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

#endif // TILE_TRANSFORMS_PASSES_TD
