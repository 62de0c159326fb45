// RUN: tile-opt %s --tile-to-rocdl="chip=gfx942 format=isa" -split-input-file -verify-diagnostics

// Math on an fp8 type in a hand-written GPU module has no lowering (OCML has
// no fp8 functions): the pipeline reports the operation
// where it is written, before serialization would fail without a location.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%p: memref<4xf8E4M3FNUZ>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %p[%c0] : memref<4xf8E4M3FNUZ>
      // expected-error @below {{no lowering to LLVM for 'math.tanh' on f8E4M3FNUZ}}
      %t = math.tanh %v : f8E4M3FNUZ
      memref.store %t, %p[%c0] : memref<4xf8E4M3FNUZ>
      gpu.return
    }
  }
}

// -----

// An NVIDIA intrinsic in a module compiled for an AMD chip is reported where
// it is written.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%p: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'nvvm.read.ptx.sreg.tid.x' is an NVIDIA operation, in a module compiled for an AMD chip}}
      %t = nvvm.read.ptx.sreg.tid.x : i32
      memref.store %t, %p[%c0] : memref<4xi32>
      gpu.return
    }
  }
}
