// RUN: tile-opt %s -tile-lower="chip=sm_90a persistent=true" -verify-diagnostics \
// RUN:   | FileCheck %s

// A cluster launch must be a whole number of clusters, which the resident
// block count need not be: the kernel keeps one block per tile.

// CHECK-LABEL: func.func @cluster
// CHECK: tile.kernel {{.*}} cluster(2) attributes {tile.lowered} {
// CHECK-NOT: scf.for
func.func @cluster(%out: memref<?xi32>) {
  %c4 = arith.constant 4 : index
  // expected-warning @+1 {{not made persistent: its cluster(2) needs a grid of whole clusters, which the resident-block count need not be}}
  tile.kernel blocks(%bx) in (%c4) threads(32) cluster(2) {
    %v = arith.constant 1 : i32
    memref.store %v, %out[%bx] : memref<?xi32>
  }
  return
}

// A cluster of one block is none: the kernel is made persistent.

// CHECK-LABEL: func.func @cluster_of_one
// CHECK: scf.for
func.func @cluster_of_one(%out: memref<?xi32>) {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(32) cluster(1) {
    %v = arith.constant 1 : i32
    memref.store %v, %out[%bx] : memref<?xi32>
  }
  return
}
