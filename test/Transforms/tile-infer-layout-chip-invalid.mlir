// RUN: tile-opt %s -verify-diagnostics -tile-infer-layout=chip=sm_80 -o /dev/null

// A chip given as an option, with no target attached: its instruction list
// decides, at the gemm.
func.func @fp8_gemm_on_sm80() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' on sm_80}}
    tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}
