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

// -----

// A view of a shared tile that starts inside the 8-row pattern of its
// swizzle (row 4 of the 128-byte swizzle) needs a descriptor base offset,
// which the lowering does not set.

func.func @wgmma_view_off_the_swizzle_atom(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<72x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x128xf32, #tile.fragment>
    tile.clear %Cf : memref<64x128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<72x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
    %a = memref.subview %As[4, 0] [64, 64] [1, 1] : memref<72x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.gemm' op cannot run as #tile.mma<wgmma m64n128k16, f16 x f16 -> f32, groups 1x1>: its operand layouts do not fit the instruction's descriptors}}
    tile.gemm %a, %Bs -> %Cf : memref<64x64xf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// The integer wgmma has no n40 (its widths step by 16 above n32).
func.func @pinned_integer_wgmma_width(%A: memref<?x?xi8>, %B: memref<?x?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<40x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x40xi32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xi8> -> memref<40x64xi8, #gpu.address_space<workgroup>>
    // expected-error @below {{'tile.gemm' op asks for #tile.mma<wgmma m64n40k32, i8 x i8 -> i32>, which sm_90a does not offer for 'i8' x 'i8' -> 'i32'}}
    tile.gemm %As, %Bs -> %Cf transpose_b clear_accum
        {mma = #tile.mma<wgmma m64n40k32, i8 x i8 -> i32>}
        : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<40x64xi8, #gpu.address_space<workgroup>> -> memref<64x40xi32, #tile.fragment>
  }
  return
}
