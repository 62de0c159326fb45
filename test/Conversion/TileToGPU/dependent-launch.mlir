// RUN: tile-opt %s -convert-tile-to-gpu -split-input-file | FileCheck %s

// On sm_90a (dependent_launch), a kernel whose function has a
// tile.zero_init argument waits for the grid before it in the stream
// (griddepcontrol.wait, marked tile.dependent_launch for tile-compile)
// just before the first operation of its body that touches the argument's
// memory: its sizes (memref.dim) and views do not count, and the loop
// that reads another input runs before the wait.

// CHECK-LABEL: func.func @split
// CHECK:       gpu.launch
// CHECK:         memref.dim %arg1
// CHECK:         scf.for
// CHECK:           memref.load %arg0
// CHECK:         }
// CHECK:         arith.cmpi ult
// CHECK-NEXT:    nvvm.griddepcontrol wait {tile.dependent_launch}
// CHECK-NEXT:    scf.if
// CHECK:           memref.atomic_rmw addf %{{.+}}, %subview
// CHECK-NOT:     griddepcontrol
module attributes {tile.target = #tile.target<"sm_90a">} {
  func.func @split(%x: memref<?xf32>, %y: memref<?xf32> {tile.zero_init}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    tile.kernel blocks(%b) in (%c4) threads(32) attributes {tile.lowered} {
      %m = memref.dim %y, %c0 : memref<?xf32>
      %v = memref.subview %y[%b] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
      %zero = arith.constant 0.0 : f32
      %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %e = memref.load %x[%i] : memref<?xf32>
        %a = arith.addf %acc, %e : f32
        scf.yield %a : f32
      }
      %in = arith.cmpi ult, %b, %m : index
      scf.if %in {
        %r = memref.atomic_rmw addf %s, %v[%c0] : (f32, memref<1xf32, strided<[1], offset: ?>>) -> f32
      }
    }
    return
  }
}

// -----

// Without a zeroed argument, or on a chip without dependent launches
// (sm_80), no wait.

// CHECK-LABEL: func.func @plain
// CHECK-NOT:   griddepcontrol
module attributes {tile.target = #tile.target<"sm_90a">} {
  func.func @plain(%y: memref<?xf32>) {
    %c4 = arith.constant 4 : index
    tile.kernel blocks(%b) in (%c4) threads(32) attributes {tile.lowered} {
      %one = arith.constant 1.0 : f32
      memref.store %one, %y[%b] : memref<?xf32>
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @on_sm80
// CHECK-NOT:   griddepcontrol
module attributes {tile.target = #tile.target<"sm_80">} {
  func.func @on_sm80(%y: memref<?xf32> {tile.zero_init}) {
    %c4 = arith.constant 4 : index
    tile.kernel blocks(%b) in (%c4) threads(32) attributes {tile.lowered} {
      %one = arith.constant 1.0 : f32
      %r = memref.atomic_rmw addf %one, %y[%b] : (f32, memref<?xf32>) -> f32
    }
    return
  }
}
