// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" -split-input-file -verify-diagnostics

// Math on an fp8 type in a hand-written GPU module has no lowering (neither
// NVVM nor libdevice computes on fp8): the pipeline reports the operation
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

// An AMD intrinsic in a module compiled for an NVIDIA chip is reported where
// it is written; instruction selection would abort on it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%p: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'rocdl.workitem.id.x' is an AMD operation, in a module compiled for an NVIDIA chip}}
      %t = rocdl.workitem.id.x : i32
      memref.store %t, %p[%c0] : memref<4xi32>
      gpu.return
    }
  }
}
