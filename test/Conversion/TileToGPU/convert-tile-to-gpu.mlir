// RUN: tile-opt %s -convert-tile-to-gpu -split-input-file | FileCheck %s

// Shared buffers share one dynamic block: 512 B at 0, then the 8 KiB buffer
// aligned to 1024; the local buffer becomes an alloca; the constants the
// body uses are rematerialized inside the launch.

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @shared_and_local
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<?xf32>, %[[N:[a-z0-9_]+]]: index)
// CHECK-DAG: %[[ONE:[a-z0-9_]+]] = arith.constant 1 : index
// CHECK-DAG: %[[BYTES:[a-z0-9_]+]] = arith.constant 9216 : i32
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[N]], %{{[a-z0-9_]+}} = %[[ONE]], %{{[a-z0-9_]+}} = %[[ONE]])
// CHECK-SAME: threads(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c128{{(_[0-9]+)?}}, %{{[a-z0-9_]+}} = %[[ONE]], %{{[a-z0-9_]+}} = %[[ONE]])
// CHECK-SAME: dynamic_shared_memory_size %[[BYTES]]
// CHECK-NEXT: %[[SUNK:[a-z0-9_]+]] = arith.constant 128 : index
// CHECK: %[[SMEM:[a-z0-9_]+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[OFF0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK: memref.view %[[SMEM]][%[[OFF0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[OFF1:[a-z0-9_]+]] = arith.constant 1024 : index
// CHECK: memref.view %[[SMEM]][%[[OFF1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK: arith.muli %[[BX]], %[[SUNK]]
// CHECK: gpu.terminator
// CHECK-NOT: tile.
func.func @shared_and_local(%in: memref<?xf32>, %n: index) {
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>
    %big = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    %l = tile.alloc : memref<4xf32, #gpu.address_space<private>>
    %tid = gpu.thread_id x
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<?xf32>
    memref.store %v, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// No shared memory: no dynamic size and no shared block. A 3-d grid and a
// cluster map one to one, except that the dynamic extent along the
// cluster's dimension is rounded up to a whole number of clusters.

// CHECK-LABEL: func.func @grid3d_cluster
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[Q:.*]] = arith.ceildivui %arg0, %[[TWO]] : index
// CHECK: %[[GX:.*]] = arith.muli %[[Q]], %[[TWO]] : index
// CHECK: gpu.launch
// CHECK-SAME: clusters(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C2:[a-z0-9_]+]], %{{[a-z0-9_]+}} = %[[C1:[a-z0-9_]+]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME: blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[GX]], %{{[a-z0-9_]+}} = %arg1, %{{[a-z0-9_]+}} = %arg2)
// CHECK-SAME: threads(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-NOT: dynamic_shared_memory_size
// CHECK-NOT: gpu.dynamic_shared_memory
func.func @grid3d_cluster(%x: index, %y: index, %z: index, %out: memref<?x?x?xi32>) {
  tile.kernel blocks(%bx, %by, %bz) in (%x, %y, %z) threads(64) cluster(2) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%bx, %by, %bz] : memref<?x?x?xi32>
  }
  return
}

// -----

// Row rasterization with panels of 4 block rows: the linear id walks down a
// panel first.

// CHECK-LABEL: func.func @rasterized
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%[[GX:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %[[GY:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}})
// CHECK: %[[P:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.muli %[[BY]], %[[GX]] : index
// CHECK: %[[PID:[a-z0-9_]+]] = arith.addi %[[ROW]], %[[BX]] : index
// CHECK: %[[PER:[a-z0-9_]+]] = arith.muli %[[P]], %[[GX]] : index
// CHECK: %[[GROUP:[a-z0-9_]+]] = arith.divui %[[PID]], %[[PER]] : index
// CHECK: %[[FIRST:[a-z0-9_]+]] = arith.muli %[[GROUP]], %[[P]] : index
// CHECK: %[[LEFT:[a-z0-9_]+]] = arith.subi %[[GY]], %[[FIRST]] : index
// CHECK: %[[ROWS:[a-z0-9_]+]] = arith.minui %[[LEFT]], %[[P]] : index
// CHECK: %[[LOCAL:[a-z0-9_]+]] = arith.remui %[[PID]], %[[PER]] : index
// CHECK: %[[R:[a-z0-9_]+]] = arith.remui %[[LOCAL]], %[[ROWS]] : index
// CHECK: %[[NEWY:[a-z0-9_]+]] = arith.addi %[[FIRST]], %[[R]] : index
// CHECK: %[[NEWX:[a-z0-9_]+]] = arith.divui %[[LOCAL]], %[[ROWS]] : index
// CHECK: memref.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[NEWY]], %[[NEWX]]]
func.func @rasterized(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) rasterize(panel = 4, order = row) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// A kernel that is not persistent launches one block per tile: its
// persistent clause changes nothing.

// CHECK-LABEL: func.func @persistent_clause
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}})
// CHECK-NOT: arith.divui
// CHECK: memref.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[BY]], %[[BX]]]
func.func @persistent_clause(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) persistent(chunk = 2) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// A panel of one block row keeps every block where it is: no remapping.

// CHECK-LABEL: func.func @rasterized_panel_one
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}})
// CHECK-NOT: arith.divui
// CHECK: memref.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[BY]], %[[BX]]]
func.func @rasterized_panel_one(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) rasterize(panel = 1, order = row) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// Column order exchanges the roles of x and y.

// CHECK-LABEL: func.func @rasterized_column
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%[[GX:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %[[GY:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}})
// CHECK: %[[P:[a-z0-9_]+]] = arith.constant 2 : index
// CHECK: %[[COL:[a-z0-9_]+]] = arith.muli %[[BX]], %[[GY]] : index
// CHECK: %[[PID:[a-z0-9_]+]] = arith.addi %[[COL]], %[[BY]] : index
// CHECK: arith.subi %[[GX]], %{{[a-z0-9_]+}} : index
func.func @rasterized_column(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) rasterize(panel = 2, order = column) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// With a cluster, rasterization orders the clusters and keeps each one's
// blocks together: the hardware's ids are divided by the cluster extents,
// rasterized over the grid of clusters, and the position in the cluster is
// added back. A constant extent that is a whole number of clusters is kept;
// a cluster of one block is no cluster.

// CHECK-LABEL: func.func @raster_cluster
// CHECK: gpu.launch
// CHECK-SAME: clusters(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[ONE:[a-z0-9_]+]], %{{[a-z0-9_]+}} = %c2, %{{[a-z0-9_]+}} = %[[ONE]])
// CHECK-SAME: blocks(%[[HX:[a-z0-9_]+]], %[[HY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %arg0, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}},
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[Y:.*]] = arith.divui %[[HY]], %[[TWO]] : index
// CHECK: %[[GY:.*]] = arith.divui %{{.*}}, %[[TWO]] : index
// CHECK: %[[RY:.*]] = arith.remui %[[HY]], %[[TWO]] : index
// CHECK: %[[BY0:.*]] = arith.muli %{{.*}}, %[[TWO]] : index
// CHECK: arith.addi %[[BY0]], %[[RY]] : index
// CHECK-LABEL: func.func @no_cluster
// CHECK: gpu.launch blocks
// CHECK-NOT: clusters
func.func @raster_cluster(%x: index, %out: memref<?x?xi32>) {
  %c8 = arith.constant 8 : index
  tile.kernel blocks(%bx, %by) in (%x, %c8) threads(32)
      rasterize(panel = 4, order = row) cluster(1, 2) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}
func.func @no_cluster(%x: index, %out: memref<?xi32>) {
  tile.kernel blocks(%bx) in (%x) threads(32) cluster(1) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%bx] : memref<?xi32>
  }
  return
}
