// RUN: tile-opt %s -split-input-file -verify-diagnostics \
// RUN:   -tile-attach-target=chip=sm_90a -tile-lower=warp-specialize=false

// tile-lower runs a gemm as the instruction recorded on it ('mma'), and
// refuses one it cannot emit rather than choosing another.

func.func @gemm_mfma_on_nvidia() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op cannot run as #tile.mma<mfma m32n32k8, f16 x f16 -> f32, groups 1x1> on sm_90a, which has no MFMA}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mfma m32n32k8, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// A wgmma record whose C fragment has the mma.sync layout.
func.func @gemm_wgmma_layouts_do_not_fit() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<64x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>} : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op cannot run as #tile.mma<wgmma m64n64k16, f16 x f16 -> f32, groups 1x1>: its operand layouts do not fit the instruction's descriptors}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<wgmma m64n64k16, f16 x f16 -> f32, groups 1x1>} : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}
