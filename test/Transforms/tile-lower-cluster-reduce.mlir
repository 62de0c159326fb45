// RUN: tile-opt %s -tile-attach-target=chip=sm_90a -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s

// tile.cluster_reduce in a cluster of four blocks: a cluster barrier, the
// block's rank, then for each group of four f32 (16 bytes) whose index in
// the row-major tile is the rank modulo 4, one tile.remote_load from every
// block of the cluster (ranks 0 to 3), the sums in f32 converted to f16
// and stored as one vector of four where aligned and inside Y, element by
// element (each bounds-checked) otherwise; a second cluster barrier keeps
// every block's tile alive until all have read it.

// CHECK-LABEL: func.func @splitk
// CHECK:       nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK-NEXT:  %[[RANK:.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:       %[[GROUP:.+]] = arith.divui %{{.+}}, %c4 : index
// CHECK:       %[[OWNER:.+]] = arith.remui %[[GROUP]], %c4 : index
// CHECK:       %[[OWNER32:.+]] = arith.index_cast %[[OWNER]] : index to i32
// CHECK:       %[[MINE:.+]] = arith.cmpi eq, %[[OWNER32]], %[[RANK]] : i32
// CHECK:       scf.if %[[MINE]] {
// CHECK:         tile.remote_load %{{.+}} rank %c0_i32 : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK:         tile.remote_load %{{.+}} rank %c1_i32
// CHECK-COUNT-4: arith.addf
// CHECK:         tile.remote_load %{{.+}} rank %c2_i32
// CHECK:         tile.remote_load %{{.+}} rank %c3_i32
// CHECK-COUNT-4: arith.truncf %{{.+}} : f32 to f16
// CHECK:         scf.if %{{.+}} {
// CHECK:           vector.store %{{.+}} {alignment = 8 : i64} : memref<?x?xf16>, vector<4xf16>
// CHECK:         } else {
// CHECK-COUNT-4:   memref.store %{{.+}} : memref<?x?xf16>
// CHECK:         }
// CHECK:       }
// CHECK:       nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK-NOT:   tile.cluster_reduce
func.func @splitk(%out: memref<?x?xf16>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %N = memref.dim %out, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %c1, %c4) threads(128) cluster(1, 1, 4) {
    %p = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    %cst = arith.constant 1.0 : f32
    tile.fill %p, %cst : memref<16x64xf32, #gpu.address_space<workgroup>>
    %m0 = arith.muli %by, %c16 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.cluster_reduce add %p -> %out[%m0, %n0] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
  }
  return
}

// -----

// Without a cluster the op is the block's own tile, converted and stored:
// a block barrier, local loads, no cluster instructions.

// CHECK-LABEL: func.func @one_block
// CHECK-NOT:   nvvm.cluster
// CHECK:       gpu.barrier
// CHECK-COUNT-4: memref.load %{{.+}} : memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: arith.truncf %{{.+}} : f32 to bf16
// CHECK:       vector.store %{{.+}} {alignment = 8 : i64} : memref<?x?xbf16>, vector<4xbf16>
// CHECK-NOT:   tile.remote_load
// CHECK-NOT:   nvvm.cluster
func.func @one_block(%out: memref<?x?xbf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %p = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    %cst = arith.constant 1.0 : f32
    tile.fill %p, %cst : memref<16x64xf32, #gpu.address_space<workgroup>>
    %n0 = arith.muli %bx, %c64 : index
    tile.cluster_reduce add %p -> %out[%n0, %n0] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
  }
  return
}

// -----

// max over a cluster of two, on integers: arith.maxsi, no conversion.

// CHECK-LABEL: func.func @max_i32
// CHECK:       tile.remote_load %{{.+}} rank %c0_i32 : memref<8x32xi32, #gpu.address_space<workgroup>> -> vector<4xi32>
// CHECK:       tile.remote_load %{{.+}} rank %c1_i32
// CHECK-COUNT-4: arith.maxsi
// CHECK:       vector.store %{{.+}} {alignment = 16 : i64} : memref<?x?xi32>, vector<4xi32>
func.func @max_i32(%out: memref<?x?xi32>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c2) threads(64) cluster(2) {
    %p = tile.alloc : memref<8x32xi32, #gpu.address_space<workgroup>>
    %cst = arith.constant 1 : i32
    tile.fill %p, %cst : memref<8x32xi32, #gpu.address_space<workgroup>>
    %n0 = arith.muli %bx, %c32 : index
    tile.cluster_reduce max %p -> %out[%n0, %n0] : memref<8x32xi32, #gpu.address_space<workgroup>> -> memref<?x?xi32>
  }
  return
}
