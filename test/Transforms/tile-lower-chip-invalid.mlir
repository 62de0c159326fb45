// RUN: tile-opt %s -tile-lower=chip=sm_75x -verify-diagnostics

// tile-lower targets the chips of the target table; an unknown one is
// reported at the kernel, with the known chips.
func.func @unknown_chip(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{unknown chip 'sm_75x'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942}}
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    tile.copy %A -> %s : memref<64xf32> -> memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

