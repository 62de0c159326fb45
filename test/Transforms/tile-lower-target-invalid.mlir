// RUN: tile-opt %s -verify-diagnostics -tile-lower
// RUN: tile-opt %s -verify-diagnostics -tile-infer-layout

// A known chip the lowering emits no code for yet.
func.func @amd_chip(%A: memref<64xf32>) attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op cannot be compiled for gfx942 yet: the tile lowering emits NVVM (NVIDIA) code only}}
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    tile.copy %A -> %s : memref<64xf32> -> memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}
