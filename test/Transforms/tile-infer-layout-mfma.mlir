// RUN: tile-opt %s -split-input-file -tile-infer-layout | FileCheck %s

// On gfx942 a gemm takes the first MFMA of the target's list that fits:
// 32x32x8 for f16, over a 2x2 split of the 128x128 tile between the four
// waves of 256 threads. The shared operands get the XOR swizzle that keeps
// eight rows' 16-byte reads conflict-free; C the accumulator of the
// transposed instruction: thread = wave * 64 + (row mod 32) + 32 * ((column
// mod 8) floordiv 4), four consecutive columns per register group.

// CHECK-LABEL: func.func @gfx942_f16
// CHECK: tile.alloc {layout = #tile.layout<[128, 32], swizzle<64, 16>>}
// CHECK: tile.alloc {layout = #tile.layout<[128, 32], swizzle<64, 16>>}
// CHECK: tile.alloc {layout = #tile.fragment<[128, 128], threads = 256,
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma m32n32k8, f16 x f16 -> f32, groups 2x2>}
func.func @gfx942_f16(%A: memref<128x32xf16>, %B: memref<128x32xf16>, %C: memref<128x128xf32>) attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.copy %A -> %a : memref<128x32xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<128x32xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c transpose_b clear_accum : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    tile.copy %c -> %C : memref<128x128xf32, #tile.fragment> -> memref<128x128xf32>
  }
  return
}

// -----

// A 16-column C on one wave fits no 32x32 block: 16x16x16 instead. gfx90a
// i8 takes its 16x16x16 form (gfx942's is 16x16x32).

// CHECK-LABEL: func.func @gfx90a_i8_narrow
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma m16n16k16, i8 x i8 -> i32, groups 1x1>}
func.func @gfx90a_i8_narrow(%A: memref<16x64xi8>, %B: memref<16x64xi8>, %C: memref<16x16xi32>) attributes {tile.target = #tile.target<"gfx90a">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc : memref<16x64xi8, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x64xi8, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<16x16xi32, #tile.fragment>
    tile.copy %A -> %a : memref<16x64xi8> -> memref<16x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<16x64xi8> -> memref<16x64xi8, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c transpose_b clear_accum : memref<16x64xi8, #gpu.address_space<workgroup>>, memref<16x64xi8, #gpu.address_space<workgroup>> -> memref<16x16xi32, #tile.fragment>
    tile.copy %c -> %C : memref<16x16xi32, #tile.fragment> -> memref<16x16xi32>
  }
  return
}
