// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm))' -split-input-file -verify-diagnostics
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-math-to-ocml))' -split-input-file -verify-diagnostics

// Launch sizes a kernel declares become launch bounds (nvvm.maxntid,
// rocdl.flat_work_group_size); one below 1 is reported at the kernel,
// before LLVM translation would reject it without a location.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{known_block_size of @k must be at least 1 in every dimension, got -1x1x1}}
    gpu.func @k() kernel attributes {known_block_size = array<i32: -1, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{known_grid_size of @k must be at least 1 in every dimension, got 4x0x1}}
    gpu.func @k() kernel attributes {known_grid_size = array<i32: 4, 0, 1>} {
      gpu.return
    }
  }
}

// -----

// Positive sizes pass.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
      gpu.return
    }
  }
}
