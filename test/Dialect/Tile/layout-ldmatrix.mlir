// RUN: tile-opt -test-tile-layout %s -o /dev/null | FileCheck %s

// ldmatrix hands each 8 x 16-byte matrix to the warp with thread t holding
// row t / 4 and the 4 bytes at column (t % 4) * 4 bytes (".trans": the
// transposed 8x8 of 16-bit elements), matrix i in register i. Loading the
// mma operands with ldmatrix needs no shuffles because the fragments agree
// element by element:
//   A of m16n8k16 = ldmatrix.x4 over the 16x16 tile,
//   B of m16n8k16 = ldmatrix.x2.trans over the 16x8 (K x N) tile,
//   B of m16n8k16 = ldmatrix.x2 over the 8x16 (N x K) tile, transposed,
//   C of m16n8k16 = ldmatrix.x2 over the 16x8 tile (stmatrix),
//   A of m16n8k8 (tf32) = ldmatrix.x4 of 32-bit elements, B transposed,
//   A of m16n8k32 (int8) = ldmatrix.x4 of 8-bit elements, B transposed.

func.func private @a_f16() attributes {layout = #tile.fragment<[16, 16], ldmatrix<16>>, equals = #tile.fragment<[16, 16], mma_m16n8k16_a>, print = "grid"}
// CHECK-LABEL: === a_f16: #tile.fragment<[16, 16], ldmatrix<16>>
// CHECK: threads: 32 registers: 8 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// CHECK-NEXT: equivalent: true

func.func private @b_f16_trans() attributes {layout = #tile.fragment<[16, 8], ldmatrix_trans<16>>, equals = #tile.fragment<[16, 8], mma_m16n8k16_b>}
// CHECK-LABEL: === b_f16_trans: #tile.fragment<[16, 8], ldmatrix_trans<16>>
// CHECK: equivalent: true

func.func private @b_f16_nk() attributes {layout = #tile.fragment<[8, 16], ldmatrix<16>>, transpose, transpose_equals = #tile.fragment<[16, 8], mma_m16n8k16_b>}
// CHECK-LABEL: === b_f16_nk: #tile.fragment<[8, 16], ldmatrix<16>>
// CHECK: transpose injective: true
// CHECK-NEXT: transpose equivalent: true

func.func private @c_f16() attributes {layout = #tile.fragment<[16, 8], ldmatrix<16>>, equals = #tile.fragment<[16, 8], mma_m16n8k16_c>}
// CHECK-LABEL: === c_f16:
// CHECK: equivalent: true

func.func private @a_tf32() attributes {layout = #tile.fragment<[16, 8], ldmatrix<32>>, equals = #tile.fragment<[16, 8], mma_m16n8k8_a>}
// The two are built alike, so the load prints as the mma operand.
// CHECK-LABEL: === a_tf32: #tile.fragment<[16, 8], mma_m16n8k8_a>
// CHECK: equivalent: true

func.func private @b_tf32() attributes {layout = #tile.fragment<[8, 8], ldmatrix<32>>, transpose, transpose_equals = #tile.fragment<[8, 8], mma_m16n8k8_b>}
// CHECK-LABEL: === b_tf32:
// CHECK: transpose equivalent: true

func.func private @a_i8() attributes {layout = #tile.fragment<[16, 32], ldmatrix<8>>, equals = #tile.fragment<[16, 32], mma_m16n8k32_a>}
// CHECK-LABEL: === a_i8: #tile.fragment<[16, 32], ldmatrix<8>>
// CHECK: equivalent: true

func.func private @b_i8() attributes {layout = #tile.fragment<[8, 32], ldmatrix<8>>, transpose, transpose_equals = #tile.fragment<[32, 8], mma_m16n8k32_b>}
// CHECK-LABEL: === b_i8:
// CHECK: transpose equivalent: true

// The transposed load is not the plain one.
func.func private @trans_is_not_a() attributes {layout = #tile.fragment<[16, 16], ldmatrix_trans<16>>, equals = #tile.fragment<[16, 16], mma_m16n8k16_a>}
// CHECK-LABEL: === trans_is_not_a:
// CHECK: equivalent: false
