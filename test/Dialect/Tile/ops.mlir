// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --emit-bytecode | tile-opt | FileCheck %s

// Round-trips every tile operation and every optional clause through the
// custom form, the generic form and bytecode.

!shared = memref<128x32xf16, #gpu.address_space<workgroup>>
!frag = memref<128x128xf32, #tile.fragment>

// CHECK-LABEL: func @kernel_grids
func.func @kernel_grids(%n: index) {
  // CHECK: tile.kernel blocks(%bx) in (%{{.*}}) threads(128) {
  tile.kernel blocks(%x) in (%n) threads(128) {
  }
  // CHECK: tile.kernel blocks(%bx, %by) in (%{{.*}}, %{{.*}}) threads(256) {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(256) {
  }
  // CHECK: tile.kernel blocks(%bx, %by, %bz) in (%{{.*}}, %{{.*}}, %{{.*}}) threads(1024) {
  tile.kernel blocks(%x, %y, %z) in (%n, %n, %n) threads(1024) {
  }
  return
}

// CHECK-LABEL: func @kernel_clauses
func.func @kernel_clauses(%n: index) {
  // CHECK: tile.kernel blocks(%bx, %by) in (%{{.*}}, %{{.*}}) threads(128) rasterize(panel = 8) {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 8) {
  }
  // CHECK: threads(128) rasterize(panel = 4, order = row) {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 4, order = row) {
  }
  // CHECK: threads(128) rasterize(panel = 16, order = column) {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 16, order = column) {
  }
  // A cluster may name dimensions the grid lacks, with extent 1.
  // CHECK: threads(128) rasterize(panel = 8, order = row) persistent(chunk = 2) {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 8, order = row) persistent(chunk = 2) {
  }
  // CHECK: threads(128) persistent(chunk = 4) {
  tile.kernel blocks(%x) in (%n) threads(128) persistent(chunk = 4) {
  }
  // CHECK: threads(128) persistent(chunk = 2, blocks = prime) {
  tile.kernel blocks(%x) in (%n) threads(128) persistent(blocks = prime, chunk = 2) {
  }
  // CHECK: threads(128) persistent(blocks = resident) {
  tile.kernel blocks(%x) in (%n) threads(128) persistent(blocks = resident) {
  }
  // CHECK: threads(64) cluster(4, 1, 1) {
  tile.kernel blocks(%x) in (%n) threads(64) cluster(4, 1, 1) {
  }
  // CHECK: threads(384) cluster(2, 1, 1) {
  tile.kernel blocks(%x, %y, %z) in (%n, %n, %n) threads(384) cluster(2, 1, 1) {
  }
  // CHECK: threads(128) rasterize(panel = 2, order = column) cluster(2) attributes {tag = "k"} {
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 2, order = column) cluster(2) attributes {tag = "k"} {
  }
  return
}

// CHECK-LABEL: func @dynamic_grid
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[C:.*]]: memref<?x?xf32>)
func.func @dynamic_grid(%A: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  // CHECK: %[[MP:.*]] = arith.addi
  // CHECK: %[[GX:.*]] = arith.divui %[[MP]]
  %mp = arith.addi %m, %c127 : index
  %gx = arith.divui %mp, %c128 : index
  %np = arith.addi %n, %c127 : index
  %gy = arith.divui %np, %c128 : index
  // CHECK: tile.kernel blocks(%bx, %by) in (%[[GX]], %{{.*}}) threads(128)
  tile.kernel blocks(%x, %y) in (%gx, %gy) threads(128) {
    // CHECK: %[[ROW:.*]] = arith.muli %bx
    %row = arith.muli %x, %c128 : index
    %col = arith.muli %y, %c128 : index
    %s = tile.alloc : memref<128x128xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.copy %[[A]][%[[ROW]], %{{.*}}] -> %{{.*}} : memref<?x?xf16> -> memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%row, %col] -> %s : memref<?x?xf16> -> memref<128x128xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.copy %s -> %f : memref<128x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    // CHECK: tile.atomic add %{{.*}} -> %[[C]][%[[ROW]], %{{.*}}] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf32>
    tile.atomic add %f -> %C[%row, %col] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// CHECK-LABEL: func @alloc
func.func @alloc(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // CHECK: tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %0 = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc : memref<128x128xf32, #tile.fragment>
    %1 = tile.alloc : memref<128x128xf32, #tile.fragment>
    // CHECK: tile.alloc : memref<8xf32, #gpu.address_space<private>>
    %2 = tile.alloc : memref<8xf32, #gpu.address_space<private>>
    // CHECK: tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>} : memref<128x32xf16, #gpu.address_space<workgroup>>
    %3 = tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>} : memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc {layout = #tile.fragment<threads = 128, map = (d0, d1) -> (d0, d1)>} : memref<128x128xf32, #tile.fragment>
    %4 = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0, d1) -> (d0, d1)>} : memref<128x128xf32, #tile.fragment>
    // CHECK: tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0 floordiv 4, 0), replicate = 4>} : memref<128xf32, #tile.fragment>
    %5 = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0 floordiv 4, 0), replicate = 4>} : memref<128xf32, #tile.fragment>
    // CHECK: tile.alloc {layout = #tile.layout<(d0) -> (d0)>} : memref<4xi32, #gpu.address_space<private>>
    %6 = tile.alloc {layout = #tile.layout<(d0) -> (d0)>} : memref<4xi32, #gpu.address_space<private>>
    // CHECK: tile.alloc : memref<4x4xindex, #gpu.address_space<workgroup>>
    %7 = tile.alloc : memref<4x4xindex, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-LABEL: func @copy
// CHECK-SAME: (%[[G:.*]]: memref<1024x1024xf16>, %[[B:.*]]: memref<8x1024x1024xf16>, %[[O:.*]]: memref<1024x1024xbf16>)
func.func @copy(%G: memref<1024x1024xf16>, %B: memref<8x1024x1024xf16>, %O: memref<1024x1024xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 8 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK: %[[F:.*]] = tile.alloc : memref<128x32xf32, #tile.fragment>
    %s = tile.alloc : !shared
    %f = tile.alloc : memref<128x32xf32, #tile.fragment>
    %l = tile.alloc : memref<8xf16, #gpu.address_space<private>>
    // Indices on the source.
    // CHECK: tile.copy %[[G]][%{{.*}}, %{{.*}}] -> %[[S]] : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %G[%x, %c0] -> %s : memref<1024x1024xf16> -> !shared
    // Indices on the destination.
    // CHECK: tile.copy %[[F]] -> %[[O]][%{{.*}}, %{{.*}}] : memref<128x32xf32, #tile.fragment> -> memref<1024x1024xbf16>
    tile.copy %f -> %O[%x, %c0] : memref<128x32xf32, #tile.fragment> -> memref<1024x1024xbf16>
    // Indices on neither.
    // CHECK: tile.copy %[[S]] -> %[[F]] : memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<128x32xf32, #tile.fragment>
    tile.copy %s -> %f : !shared -> memref<128x32xf32, #tile.fragment>
    // Rank-reducing: a 2-d tile out of a batched 3-d tensor.
    // CHECK: tile.copy %[[B]][%{{.*}}, %{{.*}}, %{{.*}}] -> %[[S]] : memref<8x1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c1, %x, %c0] -> %s : memref<8x1024x1024xf16> -> !shared
    // CHECK: tile.copy %[[S]] -> %[[B]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<8x1024x1024xf16>
    tile.copy %s -> %B[%c1, %x, %c0] : !shared -> memref<8x1024x1024xf16>
    // CHECK: tile.copy %[[G]][%{{.*}}, %{{.*}}] -> %[[S]] {coalesced_width = 8 : i64} : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %G[%x, %c0] -> %s {coalesced_width = 8 : i64} : memref<1024x1024xf16> -> !shared
    // CHECK: tile.copy %[[G]][%{{.*}}, %{{.*}}] -> %[[S]] {disable_tma} : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %G[%x, %c0] -> %s {disable_tma} : memref<1024x1024xf16> -> !shared
    // CHECK: tile.copy %[[G]][%{{.*}}, %{{.*}}] -> %[[S]] {coalesced_width = 4 : i64, disable_tma} : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %G[%x, %c0] -> %s {coalesced_width = 4 : i64, disable_tma} : memref<1024x1024xf16> -> !shared
    // A sub-tile of an on-chip buffer, at constant indices.
    // CHECK: tile.copy %[[S]][%{{.*}}, %{{.*}}] -> %{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<8xf16, #gpu.address_space<private>>
    %c24 = arith.constant 24 : index
    tile.copy %s[%c1, %c24] -> %l : !shared -> memref<8xf16, #gpu.address_space<private>>
  }
  return
}

// CHECK-LABEL: func @fill_clear
func.func @fill_clear(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf32, #tile.fragment>
    %s = tile.alloc : memref<64x64xi32, #gpu.address_space<workgroup>>
    %l = tile.alloc : memref<4xf16, #gpu.address_space<private>>
    %ninf = arith.constant 0xFF800000 : f32
    %one = arith.constant 1 : i32
    %h = arith.constant 2.0 : f16
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<128xf32, #tile.fragment>
    tile.fill %f, %ninf : memref<128xf32, #tile.fragment>
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<64x64xi32, #gpu.address_space<workgroup>>
    tile.fill %s, %one : memref<64x64xi32, #gpu.address_space<workgroup>>
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<4xf16, #gpu.address_space<private>>
    tile.fill %l, %h : memref<4xf16, #gpu.address_space<private>>
    // CHECK: tile.clear %{{.*}} : memref<128xf32, #tile.fragment>
    tile.clear %f : memref<128xf32, #tile.fragment>
    // CHECK: tile.clear %{{.*}} : memref<64x64xi32, #gpu.address_space<workgroup>>
    tile.clear %s : memref<64x64xi32, #gpu.address_space<workgroup>>
    // CHECK: tile.clear %{{.*}} : memref<4xf16, #gpu.address_space<private>>
    tile.clear %l : memref<4xf16, #gpu.address_space<private>>
  }
  return
}

// CHECK-LABEL: func @gemm_variants
func.func @gemm_variants(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %as = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %af = tile.alloc : memref<64x32xf16, #tile.fragment>
    %bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>
    %bf = tile.alloc : memref<32x128xf16, #tile.fragment>
    %at = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %bt = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.gemm %as, %bs -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} : memref<64x32xf16, #tile.fragment>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.gemm %af, %bs -> %c : memref<64x32xf16, #tile.fragment>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #tile.fragment> -> memref<64x128xf32, #tile.fragment>
    tile.gemm %as, %bf -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #tile.fragment> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} : memref<64x32xf16, #tile.fragment>, memref<32x128xf16, #tile.fragment> -> memref<64x128xf32, #tile.fragment>
    tile.gemm %af, %bf -> %c : memref<64x32xf16, #tile.fragment>, memref<32x128xf16, #tile.fragment> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_a : memref<32x64xf16
    tile.gemm %at, %bs -> %c transpose_a : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_b : memref<64x32xf16
    tile.gemm %as, %bt -> %c transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} transpose_a transpose_b clear_accum : memref<32x64xf16
    tile.gemm %at, %bt -> %c transpose_a transpose_b clear_accum : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // The default policy is not printed.
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} : memref<64x32xf16
    tile.gemm %as, %bs -> %c policy(square) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} policy(full_row) : memref<64x32xf16
    tile.gemm %as, %bs -> %c policy(full_row) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} clear_accum policy(full_col) : memref<64x32xf16
    tile.gemm %as, %bs -> %c clear_accum policy(full_col) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
  }
  return
}

// CHECK-LABEL: func @gemm_dtypes
func.func @gemm_dtypes(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a16 = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b16 = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %abf = tile.alloc : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %bbf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %a32 = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    %b32 = tile.alloc : memref<32x64xf32, #gpu.address_space<workgroup>>
    %a8 = tile.alloc : memref<64x32xi8, #gpu.address_space<workgroup>>
    %b8 = tile.alloc : memref<32x64xi8, #gpu.address_space<workgroup>>
    %ae4 = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %be4 = tile.alloc : memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %ae5 = tile.alloc : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
    %be5 = tile.alloc : memref<32x64xf8E5M2, #gpu.address_space<workgroup>>
    %au4 = tile.alloc : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %bu5 = tile.alloc : memref<32x64xf8E5M2FNUZ, #gpu.address_space<workgroup>>
    %c32 = tile.alloc : memref<64x64xf32, #tile.fragment>
    %c16 = tile.alloc : memref<64x64xf16, #tile.fragment>
    %ci = tile.alloc : memref<64x64xi32, #tile.fragment>
    // CHECK: memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %a16, %b16 -> %c32 : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
    tile.gemm %a16, %b16 -> %c16 : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
    // CHECK: memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %abf, %bbf -> %c32 : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %a32, %b32 -> %c32 : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
    tile.gemm %a8, %b8 -> %ci : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
    // The instruction chosen for a gemm.
    // CHECK: tile.gemm %{{.*}}, %{{.*}} -> %{{.*}} {mma = #tile.mma<mma_sync m16n8k32, i8 x i8 -> i32, groups 2x2>}
    tile.gemm %a8, %b8 -> %ci {mma = #tile.mma<mma_sync m16n8k32, i8 x i8 -> i32, groups 2x2>} : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
    // CHECK: memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %ae4, %be4 -> %c32 : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %ae4, %be5 -> %c32 : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %ae5, %be4 -> %c32 : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %ae5, %be5 -> %c32 : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // CHECK: memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2FNUZ, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.gemm %au4, %bu5 -> %c32 : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2FNUZ, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// CHECK-LABEL: func @reduce
func.func @reduce(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<128x64xf32, #tile.fragment>
    %rows = tile.alloc : memref<128xf32, #tile.fragment>
    %cols = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    %keep = tile.alloc : memref<128x1xf32, #tile.fragment>
    %keep0 = tile.alloc : memref<1x64xf32, #tile.fragment>
    %shared = tile.alloc : memref<128x64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.reduce sum %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.reduce sum %s -> %rows dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    // CHECK: tile.reduce max %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.reduce max %s -> %rows dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    // CHECK: tile.reduce min %{{.*}} -> %{{.*}} dim(0) : memref<128x64xf32, #tile.fragment> -> memref<64xf32, #gpu.address_space<workgroup>>
    tile.reduce min %s -> %cols dim(0) : memref<128x64xf32, #tile.fragment> -> memref<64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.reduce abssum %{{.*}} -> %{{.*}} dim(0) : memref<128x64xf32, #gpu.address_space<workgroup>> -> memref<64xf32, #gpu.address_space<workgroup>>
    tile.reduce abssum %shared -> %cols dim(0) : memref<128x64xf32, #gpu.address_space<workgroup>> -> memref<64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.reduce absmax %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128x1xf32, #tile.fragment>
    tile.reduce absmax %s -> %keep dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128x1xf32, #tile.fragment>
    // CHECK: tile.reduce sum %{{.*}} -> %{{.*}} dim(0) : memref<128x64xf32, #tile.fragment> -> memref<1x64xf32, #tile.fragment>
    tile.reduce sum %s -> %keep0 dim(0) : memref<128x64xf32, #tile.fragment> -> memref<1x64xf32, #tile.fragment>
    // CHECK: tile.reduce max %{{.*}} -> %{{.*}} dim(1) {clear = false} : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.reduce max %s -> %rows dim(1) {clear = false} : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    // f16 partial sums added in f32: a wider float destination.
    %h = tile.alloc : memref<128x64xf16, #tile.fragment>
    // CHECK: tile.reduce sum %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf16, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.reduce sum %h -> %rows dim(1) : memref<128x64xf16, #tile.fragment> -> memref<128xf32, #tile.fragment>
    // The default clear = true is not printed.
    // CHECK: tile.reduce sum %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    tile.reduce sum %s -> %rows dim(1) {clear = true} : memref<128x64xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
  }
  return
}

// CHECK-LABEL: func @cumsum
func.func @cumsum(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<64x64xf32, #tile.fragment>
    // CHECK: tile.cumsum %{{.*}} -> %{{.*}} dim(1) : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.cumsum %s -> %s dim(1) : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.cumsum %{{.*}} -> %{{.*}} dim(0) reverse : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.cumsum %f -> %s dim(0) reverse : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-LABEL: func @atomic
// CHECK-SAME: (%[[G:.*]]: memref<256x256xf32>, %[[I:.*]]: memref<64x64xi32>)
func.func @atomic(%G: memref<256x256xf32>, %I: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 4 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64x64xf32, #tile.fragment>
    %s = tile.alloc : memref<128x128xf32, #gpu.address_space<workgroup>>
    %fi = tile.alloc : memref<64x64xi32, #tile.fragment>
    %si = tile.alloc : memref<64x64xi32, #gpu.address_space<workgroup>>
    // CHECK: tile.atomic add %{{.*}} -> %[[G]][%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    tile.atomic add %f -> %G[%x, %c0] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    // CHECK: tile.atomic max %{{.*}} -> %[[G]][%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    tile.atomic max %f -> %G[%x, %c0] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    // CHECK: tile.atomic min %{{.*}} -> %[[G]][%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    tile.atomic min %f -> %G[%x, %c0] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
    // To shared memory, at constant indices.
    // CHECK: tile.atomic add %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment> -> memref<128x128xf32, #gpu.address_space<workgroup>>
    tile.atomic add %f -> %s[%c64, %c0] : memref<64x64xf32, #tile.fragment> -> memref<128x128xf32, #gpu.address_space<workgroup>>
    // Without indices.
    // CHECK: tile.atomic add %{{.*}} -> %[[I]] : memref<64x64xi32, #tile.fragment> -> memref<64x64xi32>
    tile.atomic add %fi -> %I : memref<64x64xi32, #tile.fragment> -> memref<64x64xi32>
    // CHECK: tile.atomic max %{{.*}} -> %{{.*}} : memref<64x64xi32, #tile.fragment> -> memref<64x64xi32, #gpu.address_space<workgroup>>
    tile.atomic max %fi -> %si : memref<64x64xi32, #tile.fragment> -> memref<64x64xi32, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-LABEL: func @parallel
func.func @parallel(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %c = tile.alloc : !frag
    %b = tile.alloc : memref<128xf32, #tile.fragment>
    // CHECK: tile.parallel (%i, %j) in (128, 128) {
    // CHECK-NEXT: memref.load %{{.*}}[%i, %j]
    // CHECK-NEXT: memref.load %{{.*}}[%j]
    tile.parallel (%p, %q) in (128, 128) {
      %v = memref.load %c[%p, %q] : !frag
      %w = memref.load %b[%q] : memref<128xf32, #tile.fragment>
      %s = arith.addf %v, %w : f32
      memref.store %s, %c[%p, %q] : !frag
    }
    // CHECK: tile.parallel (%i) in (128) layout(#tile.fragment<threads = 128, map = (d0) -> (d0, 0)>) {
    tile.parallel (%p) in (128) layout(#tile.fragment<threads = 128, map = (d0) -> (d0, 0)>) {
      %v = memref.load %b[%p] : memref<128xf32, #tile.fragment>
      memref.store %v, %b[%p] : memref<128xf32, #tile.fragment>
    }
    // CHECK: tile.parallel (%i, %j, %k) in (2, 4, 8) attributes {tag} {
    tile.parallel (%p, %q, %r) in (2, 4, 8) attributes {tag} {
    }
  }
  return
}

// CHECK-LABEL: func @pipelined
func.func @pipelined(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %as = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>
    %cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    // CHECK: tile.pipelined %k = %{{.*}} to %{{.*}} step %{{.*}} stages(3) {
    // CHECK-NEXT: arith.muli %k
    tile.pipelined %it = %c0 to %n step %c1 stages(3) {
      %kk = arith.muli %it, %c32 : index
      tile.copy %A[%x, %kk] -> %as : memref<?x?xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %A[%kk, %x] -> %bs : memref<?x?xf16> -> memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %as, %bs -> %cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    // CHECK: tile.pipelined %k = %{{.*}} to %{{.*}} step %{{.*}} stages(2) order [1, 0, 2] stage [0, 0, 1] {
    tile.pipelined %it = %c0 to %n step %c1 stages(2) order [1, 0, 2] stage [0, 0, 1] {
      tile.copy %A[%x, %it] -> %as : memref<?x?xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %A[%it, %x] -> %bs : memref<?x?xf16> -> memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %as, %bs -> %cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    // CHECK: tile.pipelined %k = %{{.*}} to %{{.*}} step %{{.*}} stages(1) order [0] {
    tile.pipelined %it = %c0 to %n step %c32 stages(1) order [0] {
      tile.clear %cf : memref<128x128xf32, #tile.fragment>
    }
    // `stage` may come before `order`; it prints after.
    // CHECK: tile.pipelined %k = %{{.*}} to %{{.*}} step %{{.*}} stages(2) order [0] stage [1] {
    tile.pipelined %it = %c0 to %n step %c1 stages(2) stage [1] order [0] {
      tile.clear %cf : memref<128x128xf32, #tile.fragment>
    }
    // CHECK: tile.pipelined %k = %{{.*}} to %{{.*}} step %{{.*}} stages(4) stage [3] attributes {tag} {
    tile.pipelined %it = %c0 to %n step %c1 stages(4) stage [3] attributes {tag} {
      tile.clear %cf : memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// Under a tile.target, the element types its tensor cores compute.
// CHECK-LABEL: module attributes {tile.target = #tile.target<"sm_90a">}
// CHECK: tile.gemm {{.*}} -> memref<64x64xf32, #tile.fragment>
module attributes {tile.target = #tile.target<"sm_90a">} {
  func.func @gemm_fp8_sm90a(%n: index) {
    tile.kernel blocks(%x) in (%n) threads(128) {
      %a = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
      %b = tile.alloc : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
      %c = tile.alloc : memref<64x64xf32, #tile.fragment>
      tile.gemm %a, %b -> %c transpose_b : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x32xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    return
  }
}

// tile.red: one vector reduction into global memory (thread level).
// CHECK-LABEL: func.func @red
// CHECK: tile.red %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<8xf16>, memref<?x?xf16>
// CHECK: tile.red %{{.*}}, %{{.*}}[%{{.*}}] : vector<4xf32>, memref<?xf32>
func.func @red(%v: vector<8xf16>, %g: memref<?x?xf16>, %w: vector<4xf32>, %f: memref<?xf32>, %i: index) {
  tile.red %v, %g[%i, %i] : vector<8xf16>, memref<?x?xf16>
  tile.red %w, %f[%i] : vector<4xf32>, memref<?xf32>
  return
}

// tile.cluster_reduce: a shared tile combined over the blocks of a cluster
// into a global view; tile.remote_load (thread level) reads another
// block's shared memory.
// CHECK-LABEL: func.func @cluster_reduce
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads(128) cluster(1, 4)
// CHECK: tile.cluster_reduce add %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
// CHECK: tile.cluster_reduce max %{{.*}} -> %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<16x64xf32>
func.func @cluster_reduce(%n: index, %y: memref<?x?xf16>, %z: memref<16x64xf32>) {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%x, %k) in (%n, %c4) threads(128) cluster(1, 4) {
    %p = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    %n0 = arith.muli %x, %c4 : index
    tile.cluster_reduce add %p -> %y[%n0, %n0] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
    tile.cluster_reduce max %p -> %z : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<16x64xf32>
  }
  return
}

// CHECK-LABEL: func.func @remote_load
// CHECK: tile.remote_load %{{.*}}[%{{.*}}, %{{.*}}] rank %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
func.func @remote_load(%s: memref<16x64xf32, #gpu.address_space<workgroup>>, %r: i32, %i: index) -> vector<4xf32> {
  %v = tile.remote_load %s[%i, %i] rank %r : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return %v : vector<4xf32>
}

// Function-argument attributes: an output zeroed before each launch, and
// one each launch overwrites.
// CHECK-LABEL: func.func @argument_attributes
// CHECK-SAME: memref<?xf32> {tile.zero_init}
// CHECK-SAME: memref<?x?xf16> {tile.overwrite}
func.func @argument_attributes(%y: memref<?xf32> {tile.zero_init},
                               %c: memref<?x?xf16> {tile.overwrite}) {
  return
}
