// RUN: tile-opt %s -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a pingpong=true persistent=true" -verify-diagnostics
// In a persistent kernel the consumer warpgroups take no turns when their
// readers run in several stages.
func.func @persistent_lagged(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf16>, %n: index, %gx: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%gx) threads(256) {
    %Qs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #tile.fragment>
    %P = tile.alloc : memref<128x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<128x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0] -> %Qs : memref<?x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Of : memref<128x64xf32, #tile.fragment>
    // expected-warning @+1 {{the consumer warpgroups do not take turns on the tensor cores (pingpong) in a persistent kernel whose readers run in several stages}}
    tile.pipelined %j = %c0 to %n step %c1 stages(3) order [0, 1, 2, 4, 3] stage [0, 0, 1, 1, 2] {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0] -> %Vs : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row) : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.parallel (%i, %jj) in (128, 64) {
        %s = memref.load %S[%i, %jj] : memref<128x64xf32, #tile.fragment>
        %p = arith.truncf %s : f32 to f16
        memref.store %p, %P[%i, %jj] : memref<128x64xf16, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row) : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x64xf16>
  }
  return
}
