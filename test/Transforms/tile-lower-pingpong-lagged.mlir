// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a pingpong=true" -verify-diagnostics

// Turns with readers in two stages need gemms in the late readers: here
// only a copy of the key tile lags, so the epilogue would issue none and
// the turns would not pair up.
func.func @late_reader_without_gemm(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %Y: memref<64x64xf16>, %O: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Qs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0] -> %Qs : memref<?x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{the consumer warpgroups do not take turns on the tensor cores (pingpong): every step must issue adjacent gemms, in both lagging and leading readers, with 256 consumer threads and readers lagging by one iteration}}
    tile.pipelined %j = %c0 to %n step %c1 stages(3) order [0, 2, 1] stage [0, 2, 1] {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %jj) in (64, 64) {
        %k = memref.load %Ks[%i, %jj] : memref<64x64xf16, #gpu.address_space<workgroup>>
        memref.store %k, %Y[%i, %jj] : memref<64x64xf16>
      }
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row) : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %S -> %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x64xf16>
  }
  return
}
