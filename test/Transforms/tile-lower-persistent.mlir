// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a persistent=true" -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a | FileCheck %s --check-prefix=OFF

// With `persistent`, the body of a kernel runs in a loop over the tiles of
// its grid, t = blockIdx.x, blockIdx.x + gridDim.x, ... below gx * gy: the
// block indices of tile t are (t mod gx, t / gx), then rasterized as the
// launch would have been (here: panels of 4 rows). The rasterize clause is
// consumed, and the kernel is marked for convert-tile-to-gpu.

// CHECK-LABEL: func.func @rasterized
// CHECK-SAME: (%[[GX:.+]]: index, %[[GY:.+]]: index, %[[OUT:.+]]: memref<?x?xi32>)
// CHECK: tile.kernel blocks(%{{.+}}, %{{.+}}) in (%[[GX]], %[[GY]]) threads(32) attributes {tile.lowered, tile.persistent} {
// CHECK: %[[TILES:.+]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %[[T:.+]] = %[[FIRST]] to %[[TILES]] step %[[STRIDE]] {
// CHECK-NEXT: %[[BX:.+]] = arith.remui %[[T]], %[[GX]] : index
// CHECK-NEXT: %[[BY:.+]] = arith.divui %[[T]], %[[GX]] : index
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %[[BY]], %[[GX]] : index
// CHECK-NEXT: %[[PID:.+]] = arith.addi %[[ROW]], %[[BX]] : index
// CHECK: %[[NEWY:.+]] = arith.addi
// CHECK-NEXT: %[[NEWX:.+]] = arith.divui
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]][%[[NEWY]], %[[NEWX]]]
// CHECK-NEXT: } {tile.tiles}

// OFF-LABEL: func.func @rasterized
// OFF: tile.kernel {{.*}} rasterize(panel = 4, order = row) attributes {tile.lowered} {
// OFF-NOT: scf.for
func.func @rasterized(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) rasterize(panel = 4, order = row) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// A 3-d grid: x fastest, then y, then z. Allocations stay in front of the
// tile loop, and a barrier ends each tile of a kernel with shared memory.

// CHECK-LABEL: func.func @grid3
// CHECK: %[[Z:.+]] = memref.dim %{{.+}}, %c0
// CHECK-NEXT: %[[Y:.+]] = memref.dim %{{.+}}, %c1
// CHECK-NEXT: %[[X:.+]] = memref.dim %{{.+}}, %c2
// CHECK-NEXT: tile.kernel
// CHECK-NEXT: %[[S:.+]] = tile.alloc {{.*}} : memref<32xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[XY:.+]] = arith.muli %[[X]], %[[Y]] : index
// CHECK-NEXT: %[[TILES:.+]] = arith.muli %[[XY]], %[[Z]] : index
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[TILES]] step %{{.+}} {
// CHECK-NEXT: %[[BX:.+]] = arith.remui %[[T]], %[[X]] : index
// CHECK-NEXT: %[[R:.+]] = arith.divui %[[T]], %[[X]] : index
// CHECK-NEXT: %[[BY:.+]] = arith.remui %[[R]], %[[Y]] : index
// CHECK-NEXT: %[[BZ:.+]] = arith.divui %[[R]], %[[Y]] : index
// CHECK: memref.store %{{.+}}, %[[S]][%[[BX]]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[S]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[BZ]], %[[BY]], %[[BX]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
func.func @grid3(%out: memref<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %out, %c0 : memref<?x?x?xi32>
  %d1 = memref.dim %out, %c1 : memref<?x?x?xi32>
  %d2 = memref.dim %out, %c2 : memref<?x?x?xi32>
  tile.kernel blocks(%bx, %by, %bz) in (%d2, %d1, %d0) threads(32) {
    %s = tile.alloc : memref<32xi32, #gpu.address_space<workgroup>>
    %v = arith.constant 1 : i32
    %i = arith.index_cast %bx : index to i32
    memref.store %i, %s[%bx] : memref<32xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%c0] : memref<32xi32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%bz, %by, %bx] : memref<?x?x?xi32>
  }
  return
}
