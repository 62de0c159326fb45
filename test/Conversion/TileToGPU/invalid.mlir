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

// -----

// Host code passes global memory only: a shared-memory argument of the
// function that launches the kernel has no address on the host.
// expected-error @+1 {{function @host_shared_argument takes argument 1 of type 'memref<4x3xf32, #gpu.address_space<workgroup>>', in memory space #gpu.address_space<workgroup>, which function lowering cannot map; pass global memory as a memref without a memory space}}
func.func @host_shared_argument(%n: index, %out: memref<4x3xf32, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%bx) in (%n) threads(4) {
  }
  return
}

// -----

// A scalar narrower than a byte cannot be a kernel parameter.
// expected-error @+1 {{function @host_f4_scalar takes argument 1 of type 'f4E2M1FN', narrower than a byte, which kernels cannot take as a scalar; pass it widened (f16) and truncate it in the kernel}}
func.func @host_f4_scalar(%n: index, %v: f4E2M1FN) {
  tile.kernel blocks(%bx) in (%n) threads(4) {
  }
  return
}

// -----

// expected-error @+1 {{function @host_fragment_result returns result 0 of type 'memref<4xf32, #tile.fragment>', in memory space #tile.fragment, which function lowering cannot map; pass global memory as a memref without a memory space}}
func.func private @host_fragment_result() -> memref<4xf32, #tile.fragment>

// -----

// Functions of a hand-written gpu.module are lowered by the same
// func-to-llvm.
gpu.module @m {
  // expected-error @+1 {{function @device_shared_argument takes argument 0 of type 'memref<128xf16, #gpu.address_space<workgroup>>', in memory space #gpu.address_space<workgroup>, which function lowering cannot map; pass global memory as a memref without a memory space}}
  func.func @device_shared_argument(%s: memref<128xf16, #gpu.address_space<workgroup>>) {
    return
  }
}

// -----

// GPU kernel outlining visits the top-level module's functions only (the
// declaration keeps the parser from taking the module as the top level).
func.func private @top_level()
module {
  func.func @nested_module(%n: index) {
    // expected-error @below {{'tile.kernel' op in a nested module; kernels are outlined from the functions of the top-level module only}}
    tile.kernel blocks(%bx) in (%n) threads(128) {
    }
    return
  }
}
