// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" -verify-diagnostics

// 8-bit floats have no mma.sync form; wgmma takes them only with both
// operands stored K innermost, which B stored K x N is not.
func.func @f8_nn(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x128xf32, #tile.fragment>
    tile.clear %Cf : memref<64x128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf8E4M3FN> -> memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf8E4M3FN> -> memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' on sm_90a that fits its 64x128x128 tile on 128 threads}}
    tile.gemm %As, %Bs -> %Cf : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
