// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy{min-blocks-per-sm=4}))' -split-input-file | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy))' -split-input-file | FileCheck %s --check-prefix=NONE
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy{min-blocks-per-sm=4},convert-gpu-to-nvvm))' -split-input-file | FileCheck %s --check-prefix=LLVM

// Every kernel of an NVIDIA module asks for 4 resident blocks
// (nvvm.minctasm, `.minnctapersm 4` in PTX); functions that are not
// kernels are left alone, and convert-gpu-to-nvvm keeps the attribute on
// the llvm.func beside nvvm.maxntid. Without the option nothing changes.

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    // CHECK-LABEL: gpu.func @k()
    // CHECK-SAME: nvvm.minctasm = 4 : i32
    // NONE-LABEL: gpu.func @k()
    // NONE-NOT: minctasm
    // LLVM: llvm.func @k() attributes {{{.*}}nvvm.minctasm = 4 : i32{{.*}}}
    gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      gpu.return
    }
    // CHECK-LABEL: gpu.func @helper()
    // CHECK-NOT: minctasm
    gpu.func @helper() {
      gpu.return
    }
  }
}

// -----

// On AMD the request becomes waves per SIMD: 4 blocks of 256 threads are
// 16 waves of 64 over the compute unit's 4 SIMDs.

module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    // CHECK-LABEL: gpu.func @k()
    // CHECK-SAME: rocdl.waves_per_eu = 4 : i32
    // CHECK-NOT: minctasm
    gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
}
