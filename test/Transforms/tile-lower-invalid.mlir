// RUN: tile-opt %s -tile-lower -split-input-file -verify-diagnostics

func.func @missing_loop(%A: memref<?x?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<2x4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a 'tile.loop' layout; run tile-infer-layout first}}
    tile.copy %A[%i, %i] -> %s : memref<?x?xf32> -> memref<2x4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @missing_fragment_layout() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    // expected-error @+1 {{expected a '#tile.fragment' layout on the fragment buffer; run tile-infer-layout first}}
    %f = tile.alloc : memref<2x4xf32, #tile.fragment>
    tile.clear %f : memref<2x4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @missing_parallel_layout(%A: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    // expected-error @+1 {{expected a 'layout' on the parallel loop; run tile-infer-layout first}}
    tile.parallel (%i) in (8) {
      %v = memref.load %A[%i] : memref<8xf32>
      memref.store %v, %A[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// The loop gives element (i) to thread i, the fragment holds it on thread
// 7 - i.
#loop = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0)>
#rev = #tile.fragment<[8], threads = 8, (d0) -> (7 - d0, 0)>
func.func @not_owned() {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #rev} : memref<8xf32, #tile.fragment>
    tile.parallel (%i) in (8) layout(#loop) {
      // expected-error @+1 {{accesses fragment elements that the thread running the iteration does not hold}}
      memref.store %one, %f[%i] : memref<8xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Threads 0, 2, 4, 6 work, 1, 3, 5 do not.
#bad = #tile.fragment<[4], threads = 8, (d0) -> (d0 * 2, 0)>
func.func @not_bijective(%A: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported layout: its elements do not fill the (thread, register) slots of threads [0, 7) one to one}}
    tile.copy %A -> %s {tile.loop = #bad} : memref<4xf32> -> memref<4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

#loop = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0)>
func.func @nested_access(%c: i1) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #loop} : memref<8xf32, #tile.fragment>
    tile.parallel (%i) in (8) layout(#loop) {
      scf.if %c {
        // expected-error @+1 {{fragment and laid-out shared buffers may only be accessed at the top level of a parallel body}}
        memref.store %one, %f[%i] : memref<8xf32, #tile.fragment>
      }
    }
  }
  return
}
