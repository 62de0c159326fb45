// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile-grid-constant-tensor-maps))'

// Recorded tensor-map positions that do not name a pointer argument of an
// NVVM kernel are errors at the function.

gpu.module @m {
  // expected-error @below {{tensor-map argument 2 of @k out of range (2 arguments)}}
  llvm.func @k(%a: !llvm.ptr, %b: i32) attributes {nvvm.kernel, tile.tensor_map_args = array<i64: 2>} {
    llvm.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{tensor-map argument 1 of @k is 'i32', expected !llvm.ptr}}
  llvm.func @k(%a: !llvm.ptr, %b: i32) attributes {nvvm.kernel, tile.tensor_map_args = array<i64: 1>} {
    llvm.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{tensor-map arguments on @f, which is not an NVVM kernel}}
  llvm.func @f(%a: !llvm.ptr) attributes {tile.tensor_map_args = array<i64: 0>} {
    llvm.return
  }
}
