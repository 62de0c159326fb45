// The grid may read scalars and memref sizes the kernel itself does not
// take: they are declared with `none` so the runtime can evaluate the grid.
// A 2-d grid and a cluster appear in the manifest as given, the grid's x
// rounded up to a whole number of clusters.

// RUN: rm -rf %t && tile-compile %s -o %t --no-cubin --chip sm_90a > /dev/null
// RUN: FileCheck %s < %t/fill_kernel.manifest
// RUN: tile-run %t/fill_kernel.manifest --dry-run --arg arg0=100x30 --arg arg1=7 \
// RUN:   --arg arg2=64x64 | FileCheck %s --check-prefix=DRY

// CHECK:      kernel fill_kernel
// CHECK:      param arg0 memref<?x?xi32> descriptor
// CHECK-NEXT: param arg1 index none
// CHECK-NEXT: param arg2 memref<?x?xf32> none
// CHECK-NEXT: block 32 1 1
// CHECK-NEXT: cluster 2 1 1
// CHECK-NEXT: grid x (ceildiv(max(arg1, floordiv(arg2.dim1, 16)), 2) * 2)
// CHECK-NEXT: grid y (ceildiv(arg0.dim0, 32) - 1)
// CHECK-NEXT: grid z 1

// DRY: grid 8 3 1
// DRY: cluster 2 1 1
// DRY: kernel arguments 7

func.func @fill(%out: memref<?x?xi32>, %x: index, %shape: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cols = memref.dim %shape, %c1 : memref<?x?xf32>
  %q = arith.divui %cols, %c16 : index
  %gx = arith.maxui %x, %q : index
  %rows = memref.dim %out, %c0 : memref<?x?xi32>
  %r = arith.ceildivui %rows, %c32 : index
  %gy = arith.subi %r, %c1 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) cluster(2) {
    %v = arith.constant 7 : i32
    memref.store %v, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}
