// RUN: tile-opt %s -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(tile-infer-layout,tile-lower,tile-lower)'

// tile-lower leaves per-thread code; running it again is an error at the
// kernel rather than a second lowering of lowered IR.
func.func @twice(%X: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op is already lowered (tile-lower ran on it); run tile-lower once per kernel, after tile-infer-layout}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%bx, %bx] -> %f : memref<64x64xf32> -> memref<64x64xf32, #tile.fragment>
    tile.copy %f -> %X[%bx, %bx] : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}
