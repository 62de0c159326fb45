// RUN: tile-opt %s -tile-lower="persistent=true" -convert-tile-to-gpu | FileCheck %s

// A persistent kernel launches min(tiles, resident blocks) x 1 x 1 blocks.
// The resident-block count is a host constant marked tile.resident_blocks:
// tile-compile writes it as `resident_blocks` in the manifest, which the
// runtime evaluates at launch; elsewhere its value, 2^31 - 1 (the largest
// grid x), gives every tile a block. The launch computes the grid's extents
// from the memref it reads, not from sizes computed on the host, and
// rasterizes nothing itself: the tile loop did.

// CHECK-LABEL: func.func @fill
// CHECK-SAME: (%[[OUT:.+]]: memref<?x?xi32>)
// CHECK: %[[ROWS:.+]] = memref.dim %[[OUT]], %c0
// CHECK: %[[GX:.+]] = arith.ceildivui
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[TILES:.+]] = arith.muli %[[GX]], %[[ROWS]] : index
// CHECK-NEXT: %[[RESIDENT:.+]] = arith.constant {tile.resident_blocks} 2147483647 : index
// CHECK-NEXT: %[[BLOCKS:.+]] = arith.minui %[[TILES]], %[[RESIDENT]] : index
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[BLOCKS]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]])
// CHECK-NEXT: gpu.thread_id x
// CHECK-NOT: gpu.block_id
// CHECK: memref.dim %[[OUT]]
// CHECK: memref.dim %[[OUT]]
// CHECK: %[[INNER:.+]] = arith.muli
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %{{.+}} = %[[FIRST]] to %[[INNER]] step %[[STRIDE]] {
// CHECK: memref.store
// CHECK-NEXT: } {tile.tiles}
// CHECK-NEXT: gpu.terminator
func.func @fill(%out: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %rows = memref.dim %out, %c0 : memref<?x?xi32>
  %cols = memref.dim %out, %c1 : memref<?x?xi32>
  %gx = arith.ceildivui %cols, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %rows) threads(32) rasterize(panel = 2) {
    %v = arith.constant 7 : i32
    memref.store %v, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// With `blocks = prime` the constant stands for the largest prime not
// above the resident blocks (tile-compile: `primefloor(resident_blocks)`).
// CHECK-LABEL: func.func @prime
// CHECK: %[[PRIME:.+]] = arith.constant {tile.resident_blocks = #tile<persistent_blocks prime>} 2147483647 : index
// CHECK-NEXT: arith.minui %{{.+}}, %[[PRIME]] : index
func.func @prime(%out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xi32>
  tile.kernel blocks(%bx) in (%n) threads(32) persistent(chunk = 2, blocks = prime) {
    %v = arith.constant 7 : i32
    memref.store %v, %out[%bx] : memref<?xi32>
  }
  return
}
