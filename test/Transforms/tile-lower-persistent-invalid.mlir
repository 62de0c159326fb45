// RUN: tile-opt %s -tile-lower="chip=sm_80 persistent=true" -verify-diagnostics

// A persistent kernel's pipeline runs on across its tiles; readers in
// several stages are not supported there without warp specialization.
func.func @late_readers(%A: memref<?x16xf16>, %B: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported schedule: operations in later stages than the first readers are not supported in a persistent kernel without warp specialization}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [0, 1, 2] {
      tile.copy %A[%k, %c0] -> %a : memref<?x16xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i) in (16) {
        %v = memref.load %a[%i, %c0] : memref<16x16xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %v : f16 to f32
        memref.store %w, %B[%i] : memref<?xf32>
      }
      tile.parallel (%i) in (16) {
        %v = memref.load %a[%i, %c1] : memref<16x16xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %v : f16 to f32
        memref.store %w, %C[%i] : memref<?xf32>
      }
    }
  }
  return
}
