// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s

// Layout and fragment attributes print in their shortest form: built-ins by
// name, the rest as a quasi-affine map (with an XOR swizzle) or GF(2) bases,
// and every printed form parses back to the same attribute.

// CHECK-LABEL: func private @layouts()
// CHECK-SAME: a = #tile.layout<[128, 32], row_major>
// CHECK-SAME: b = #tile.layout<[128, 32], padded<8>>
// CHECK-SAME: c = #tile.layout<[64, 64], swizzle<128, 16>>
// CHECK-SAME: d = #tile.layout<[8, 32], swizzle<64, 16>>
// CHECK-SAME: e = #tile.layout<[8, 16], swizzle<32, 16>>
// CHECK-SAME: f = #tile.layout<[16, 128], swizzle<128, 16>>
// CHECK-SAME: g = #tile.layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 3>>
// CHECK-SAME: h = #tile.layout<[4, 4], linear<{{\[}}[4, 8], [1, 2]]>>
// CHECK-SAME: i = #tile.layout<[4, 2], linear<{{\[}}[(0, 1), (0, 2)], [(1, 0)]]>>
// CHECK-SAME: j = #tile.layout<[8, 8], row_major>
// CHECK-SAME: k = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>
// CHECK-SAME: l = #tile.layout<[1, 8], linear<{{\[}}[], [1, 2, 4]]>>
func.func private @layouts() attributes {
  a = #tile.layout<[128, 32], row_major>,
  b = #tile.layout<[128, 32], padded<8>>,
  c = #tile.layout<[64, 64], swizzle<128, 16>>,
  d = #tile.layout<[8, 32], swizzle<64, 16>>,
  e = #tile.layout<[8, 16], swizzle<32, 16>>,
  f = #tile.layout<[16, 128], swizzle<128, 16>>,
  g = #tile.layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 3>>,
  h = #tile.layout<[4, 4], linear<[[4, 8], [1, 2]]>>,
  i = #tile.layout<[4, 2], linear<[[(0, 1), (0, 2)], [(1, 0)]]>>,
  // A map that is a built-in prints as the built-in.
  j = #tile.layout<[8, 8], (d0, d1) -> (d0 * 8 + d1)>,
  // Without a shape, the layout takes the shape of its buffer.
  k = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>,
  l = #tile.layout<[1, 8], linear<[[], [1, 2, 4]]>>
}

// CHECK-LABEL: func private @fragments()
// CHECK-SAME: a = #tile.fragment<[16, 16], mma_m16n8k16_a>
// CHECK-SAME: b = #tile.fragment<[16, 8], mma_m16n8k16_b>
// CHECK-SAME: c = #tile.fragment<[16, 8], mma_m16n8k16_c>
// CHECK-SAME: d = #tile.fragment<[16, 8], mma_m16n8k8_a>
// CHECK-SAME: e = #tile.fragment<[8, 8], mma_m16n8k8_b>
// CHECK-SAME: f = #tile.fragment<[16, 32], mma_m16n8k32_a>
// CHECK-SAME: g = #tile.fragment<[32, 8], mma_m16n8k32_b>
// CHECK-SAME: h = #tile.fragment<[64, 256], wgmma_c>
// CHECK-SAME: i = #tile.fragment<[32, 8], mfma_32x32x8_a>
// CHECK-SAME: j = #tile.fragment<[8, 32], mfma_32x32x8_b>
// CHECK-SAME: k = #tile.fragment<[32, 32], mfma_32x32x8_c>
// CHECK-SAME: l = #tile.fragment<[16, 16], mfma_16x16x16_a>
// CHECK-SAME: m = #tile.fragment<[16, 16], mfma_16x16x16_b>
// CHECK-SAME: n = #tile.fragment<[16, 16], ldmatrix<16>>
// CHECK-SAME: o = #tile.fragment<[16, 8], ldmatrix_trans<16>>
// CHECK-SAME: p = #tile.fragment<[16, 32], ldmatrix<8>>
// CHECK-SAME: q = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 * 2 + s0, 0), replicate = 2>
// CHECK-SAME: r = #tile.fragment<[32, 16], mma_m16n8k16_a, repeat = [2, 1]>
// CHECK-SAME: s = #tile.fragment<threads = 128, map = (d0, d1) -> (d0, d1)>
// CHECK-SAME: t = #tile.fragment<threads = 64, map = (d0)[s0] -> (d0 + s0 * 32, 0), replicate = 2>
func.func private @fragments() attributes {
  a = #tile.fragment<[16, 16], mma_m16n8k16_a>,
  b = #tile.fragment<[16, 8], mma_m16n8k16_b>,
  c = #tile.fragment<[16, 8], mma_m16n8k16_c>,
  d = #tile.fragment<[16, 8], mma_m16n8k8_a>,
  e = #tile.fragment<[8, 8], mma_m16n8k8_b>,
  f = #tile.fragment<[16, 32], mma_m16n8k32_a>,
  g = #tile.fragment<[32, 8], mma_m16n8k32_b>,
  h = #tile.fragment<[64, 256], wgmma_c>,
  i = #tile.fragment<[32, 8], mfma_32x32x8_a>,
  j = #tile.fragment<[8, 32], mfma_32x32x8_b>,
  k = #tile.fragment<[32, 32], mfma_32x32x8_c>,
  l = #tile.fragment<[16, 16], mfma_16x16x16_a>,
  m = #tile.fragment<[16, 16], mfma_16x16x16_b>,
  n = #tile.fragment<[16, 16], ldmatrix<16>>,
  o = #tile.fragment<[16, 8], ldmatrix_trans<16>>,
  p = #tile.fragment<[16, 32], ldmatrix<8>>,
  q = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 * 2 + s0, 0), replicate = 2>,
  // mma_m16n8k16_a repeated twice along the rows (paper Fig. 6 warp_layout).
  r = #tile.fragment<[32, 16], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, d1 mod 2 + ((d0 mod 16) floordiv 8) * 2 + (d1 floordiv 8) * 4 + (d0 floordiv 16) * 8)>,
  // Without a shape, the fragment takes the shape of its buffer.
  s = #tile.fragment<threads = 128, map = (d0, d1) -> (d0, d1)>,
  t = #tile.fragment<threads = 64, map = (d0)[s0] -> (d0 + s0 * 32, 0), replicate = 2>
}

// The bare #tile.fragment is the memory space; layouts annotate buffers.
// CHECK-LABEL: func @buffers()
// CHECK: tile.alloc {layout = #tile.layout<[128, 32], swizzle<64, 16>>} : memref<128x32xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
// CHECK: tile.alloc : memref<64x64xf32, #tile.fragment>
func.func @buffers() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(32) {
    %s = tile.alloc {layout = #tile.layout<[128, 32], swizzle<64, 16>>} : memref<128x32xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    %g = tile.alloc : memref<64x64xf32, #tile.fragment>
  }
  return
}
