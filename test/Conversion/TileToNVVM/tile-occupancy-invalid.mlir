// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy{min-blocks-per-sm=4}))' -split-input-file -verify-diagnostics
// RUN: not tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy{min-blocks-per-sm=-1}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: error: min-blocks-per-sm must be 0 or more, got -1

// Four blocks of 1024 threads do not fit on one multiprocessor.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    // expected-error @below {{min-blocks-per-sm 4 of @k asks for 4096 resident threads, expected at most 2048 (blocks of 1024 threads)}}
    gpu.func @k() kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// The block size is what the request is made of.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    // expected-error @below {{min-blocks-per-sm 4 needs the block size of @k, which has no known_block_size}}
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// Warpgroups that share one block's registers (setmaxnreg) cannot fit two
// blocks.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    // expected-error @below {{min-blocks-per-sm 4 of @k, whose warpgroups share the registers of one block per multiprocessor (setmaxnreg); expected 0 or 1 (or a kernel without warp specialization)}}
    gpu.func @k() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      nvvm.setmaxregister increase 232
      gpu.return
    }
  }
}

// -----

// setmaxnreg is an sm_90a-class instruction: the backend cannot select it
// for sm_80.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      // expected-error @below {{'nvvm.setmaxregister' needs an sm_90a-class chip (sm_90a, sm_100a, ...), got sm_80}}
      nvvm.setmaxregister increase 232
      gpu.return
    }
  }
}
