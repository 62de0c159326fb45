// RUN: tile-opt %s -tile-lower=chip=sm_75x -verify-diagnostics

// tile-lower targets NVIDIA chips it knows (it picks wgmma and TMA by
// chip); anything else is reported at the kernel.
func.func @unknown_chip(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op cannot be lowered for unknown NVIDIA chip 'sm_75x'}}
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    tile.copy %A -> %s : memref<64xf32> -> memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}
