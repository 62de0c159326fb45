// RUN: tile-opt %s -split-input-file -tile-attach-target=chip=sm_90a -tile-infer-layout | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-attach-target=chip=sm_90a -tile-infer-layout \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" | FileCheck %s --check-prefix=LOWER

// A gemm that names its instruction keeps it: on sm_90a, where inference
// would choose wgmma m64n16k16 for this 64x16 tile, a gemm that asks for
// mma_sync m16n8k16 gets it (four warps along M), and lowers to mma.sync.

// CHECK-LABEL: func.func @pinned_mma_sync
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 4x1>}
// LOWER-LABEL: func.func @pinned_mma_sync
// LOWER: nvgpu.mma.sync
// LOWER-NOT: nvvm.wgmma.mma_async
func.func @pinned_mma_sync(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf transpose_b clear_accum policy(full_row)
        {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>}
        : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>> -> memref<64x16xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x16xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// Without the attribute the same gemm takes the target's first choice.

// CHECK-LABEL: func.func @chosen_wgmma
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<wgmma m64n16k16, f16 x f16 -> f32, groups 1x1>}
// LOWER-LABEL: func.func @chosen_wgmma
// LOWER: nvvm.wgmma.mma_async
func.func @chosen_wgmma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf transpose_b clear_accum policy(full_row)
        : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>> -> memref<64x16xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x16xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
