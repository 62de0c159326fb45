// RUN: tile-opt %s -tile-lower -canonicalize | FileCheck %s
// The same kernel compiles to PTX, which converts through f32 as well:
// RUN: tile-opt %s -tile-to-nvvm="chip=sm_90" | FileCheck %s --check-prefix=NVVM

// A copy that converts f16 to bf16 goes through f32: the two have the same
// width, and arith has neither truncf nor extf between them. (Copies that
// convert to or from 8-bit floats are rejected by the verifier.)

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @f16_to_bf16
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : vector<8xf16> to vector<8xf32>
// CHECK: arith.truncf %[[W]] : vector<8xf32> to vector<8xbf16>
// CHECK-NOT: arith.truncf %{{.+}} : vector<8xf16> to vector<8xbf16>
// NVVM: gpu.binary @f16_to_bf16_kernel
// NVVM-SAME: cvt.f32.f16
// NVVM-SAME: cvt.rn.bf16x2.f32
func.func @f16_to_bf16(%A: memref<?x?xf16>, %B: memref<?x?xbf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf16, #tile.fragment>
    tile.copy %A[%i, %i] -> %f : memref<?x?xf16> -> memref<2x16xf16, #tile.fragment>
    tile.copy %f -> %B[%i, %i] : memref<2x16xf16, #tile.fragment> -> memref<?x?xbf16>
  }
  return
}
