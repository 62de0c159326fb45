// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-lower | FileCheck %s --check-prefix=LOWER

// Tiles whose extents are not all powers of two. A row reduction of a
// wgmma accumulator of 176 columns: each row's statistic is replicated
// over the 4 threads of the quad that holds the row, exactly as for 128
// columns (the slice of the accumulator's power-of-two corner, checked on
// every element of the whole tile).

// CHECK-LABEL: func.func @columns_176
// CHECK: tile.alloc {layout = #tile.fragment<[128, 176], wgmma_c, repeat_on_thread = [2, 1]>}
// CHECK: tile.alloc {layout = #tile.fragment<[128], threads = 256, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 16) * 32 + s0, (d0 floordiv 8) mod 2), replicate = 4>}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (128, 176) layout(#tile.fragment<[128, 176], wgmma_c, repeat_on_thread = [2, 1]>)
func.func @columns_176(%A: memref<128x64xf16>, %B: memref<176x64xf16>, %M: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<176x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x176xf32, #tile.fragment>
    %m = tile.alloc : memref<128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<128x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<176x64xf16> -> memref<176x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %S transpose_b clear_accum policy(full_row) : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<176x64xf16, #gpu.address_space<workgroup>> -> memref<128x176xf32, #tile.fragment>
    tile.reduce max %S -> %m dim(1) : memref<128x176xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 176) {
      %s = memref.load %S[%i, %j] : memref<128x176xf32, #tile.fragment>
      %x = memref.load %m[%i] : memref<128xf32, #tile.fragment>
      %d = arith.subf %s, %x : f32
      memref.store %d, %S[%i, %j] : memref<128x176xf32, #tile.fragment>
    }
    tile.copy %m -> %M[%c0] : memref<128xf32, #tile.fragment> -> memref<128xf32>
  }
  return
}

// -----

// Three warpgroups of 64 rows (192 rows, 384 threads): the statistics'
// threads count on through the third warpgroup.

// CHECK-LABEL: func.func @rows_192
// CHECK: tile.alloc {layout = #tile.fragment<[192, 64], wgmma_c, repeat_on_thread = [3, 1]>}
// CHECK: tile.alloc {layout = #tile.fragment<[192], threads = 384, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 16) * 32 + s0, (d0 floordiv 8) mod 2), replicate = 4>}
// CHECK: tile.copy %{{.*}} -> %{{.*}}[%{{.*}}] {tile.loop = #tile.fragment<[192], threads = 384, {{.*}}, replicate = 4>}
func.func @rows_192(%A: memref<192x64xf16>, %B: memref<64x64xf16>, %M: memref<192xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(384) {
    %As = tile.alloc : memref<192x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<192x64xf32, #tile.fragment>
    %m = tile.alloc : memref<192xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<192x64xf16> -> memref<192x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %S transpose_b clear_accum policy(full_row) : memref<192x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<192x64xf32, #tile.fragment>
    tile.reduce sum %S -> %m dim(1) : memref<192x64xf32, #tile.fragment> -> memref<192xf32, #tile.fragment>
    tile.copy %m -> %M[%c0] : memref<192xf32, #tile.fragment> -> memref<192xf32>
  }
  return
}

// -----

// A copy whose vectors do not split evenly over the block's threads: the
// 1024 16-byte vectors of a 64x128 f16 tile on 384 threads go to the 256
// threads that split them (four each, rows of 16 vectors on consecutive
// threads); threads 256-383 take no part.

// CHECK-LABEL: func.func @copy_uneven
// CHECK: tile.copy %{{.*}} -> %{{.*}} {tile.loop = #tile.fragment<[64, 128], threads = 384, (d0, d1) -> ((d0 mod 16) * 16 + d1 floordiv 8, (d0 floordiv 16) * 8 + d1 mod 8)>}
func.func @copy_uneven(%A: memref<64x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(384) {
    %As = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %As : memref<64x128xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A copy of 64 x 144 halves, 1152 vectors of 8 on 256 threads: the
// largest count that splits them, 192, would number the vectors modulo
// 192 across rows of 18 (no loop layout inverts that), so 144 threads copy
// 8 whole rows a round and the other 112 idle. The lowering guards the
// 144 threads, each storing its 8 vectors (LOWER).

// CHECK-LABEL: func.func @columns_144_copy
// CHECK: tile.copy %{{.*}} -> %{{.*}} {tile.loop = #tile.fragment<[64, 144], threads = 256, (d0, d1) -> ((d0 mod 8) * 18 + d1 floordiv 8, (d0 floordiv 8) * 8 + d1 mod 8)>}
// LOWER-LABEL: func.func @columns_144_copy
// LOWER: %[[N:.*]] = arith.constant 144 : index
// LOWER: arith.cmpi ult, %{{.*}}, %[[N]] : index
// LOWER-NEXT: scf.if
// LOWER-COUNT-8: vector.store %{{.*}} : memref<64x144xf16, #gpu.address_space<workgroup>>, vector<8xf16>
func.func @columns_144_copy(%B: memref<64x144xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Bs = tile.alloc : memref<64x144xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x144xf16> -> memref<64x144xf16, #gpu.address_space<workgroup>>
  }
  return
}
