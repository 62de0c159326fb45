// RUN: tile-opt %s -convert-tile-to-gpu -split-input-file -verify-diagnostics

func.func @unlowered_op(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'tile.clear' op must be lowered to thread-level code before convert-tile-to-gpu}}
    tile.clear %s : memref<128xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @fragment(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    // expected-error @below {{'tile.alloc' op fragment buffers must be distributed over the threads before convert-tile-to-gpu}}
    %f = tile.alloc : memref<128xf32, #tile.fragment>
  }
  return
}
