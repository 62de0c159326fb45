// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-lower -split-input-file -verify-diagnostics

// Each thread's iterations of a tile.parallel are unrolled: more than 2^16
// of them are refused instead of taking the compiler forever.
func.func @parallel_too_long(%out: memref<65536x256xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error @+1 {{'tile.parallel' op unrolls more than 65536 iterations per thread (extents 65536x256 over 128 threads); loop over smaller tiles with scf.for}}
    tile.parallel (%i, %j) in (65536, 256) {
      memref.store %one, %out[%i, %j] : memref<65536x256xf32>
    }
  }
  return
}
