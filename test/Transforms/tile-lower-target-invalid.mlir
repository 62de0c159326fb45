// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-lower

// tile-lower runs a gemm as the instruction recorded on it and refuses one
// of another vendor's family, on AMD chips as on NVIDIA ones
// (tile-lower-mma-invalid.mlir).

func.func @mma_sync_on_amd() attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op cannot run as #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1> on gfx942, which is not an NVIDIA chip}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// An MFMA record whose tile does not split into whole instructions (K of
// 4 for a K-8 instruction).
func.func @mfma_tile_does_not_split() attributes {tile.target = #tile.target<"gfx90a">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc : memref<32x4xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<4x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[32, 32], mfma_32x32x8_c>} : memref<32x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op cannot run as #tile.mma<mfma m32n32k8, f16 x f16 -> f32, groups 1x1> on 64 threads: its 32x32x4 tile does not split into whole instructions per wave}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mfma m32n32k8, f16 x f16 -> f32, groups 1x1>} : memref<32x4xf16, #gpu.address_space<workgroup>>, memref<4x32xf16, #gpu.address_space<workgroup>> -> memref<32x32xf32, #tile.fragment>
  }
  return
}

// -----

// Clusters need sm_90: a kernel launched in clusters on sm_80 is refused
// where it is lowered, not by ptxas later.
func.func @cluster_on_sm80(%out: memref<?x?xf32>) attributes {tile.target = #tile.target<"sm_80">} {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.kernel' op runs in clusters, which sm_80 does not have (thread-block clusters need sm_90)}}
  tile.kernel blocks(%bx) in (%c2) threads(64) cluster(2) {
    %p = tile.alloc : memref<8x32xf32, #gpu.address_space<workgroup>>
    tile.cluster_reduce add %p -> %out[%bx, %bx] : memref<8x32xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  return
}
