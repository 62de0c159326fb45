// RUN: tile-opt %s -split-input-file -verify-diagnostics \
// RUN:   -tile-infer-layout=chip=gfx942 -tile-lower=chip=gfx942

// The MFMA gemm reads shared operands from LDS through the tile's layout:
// a view whose offsets are only known at run time is refused.

func.func @mfma_operand_dynamic_view(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %big = tile.alloc : memref<64x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<32x32xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %big : memref<?x?xf16> -> memref<64x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %b : memref<?x?xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.clear %c : memref<32x32xf32, #tile.fragment>
    %a = memref.subview %big[%i, 0] [32, 16] [1, 1] : memref<64x16xf16, #gpu.address_space<workgroup>> to memref<32x16xf16, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected A to be a shared tile.alloc, one slot of a multi-buffered one or a static view of either (the MFMA gemm reads its operands from LDS)}}
    tile.gemm %a, %b -> %c : memref<32x16xf16, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>> -> memref<32x32xf32, #tile.fragment>
    tile.copy %c -> %C[%c0, %c0] : memref<32x32xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
