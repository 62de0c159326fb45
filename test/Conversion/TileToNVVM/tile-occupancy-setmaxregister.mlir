// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy))' | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-occupancy,convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=LLVM

// A warp-specialized kernel moves registers between its warpgroups
// (nvvm.setmaxregister) on the count of one block per multiprocessor: it
// asks for one block even without the option, since ptxas ignores
// setmaxnreg (and the consumers spill) where it cannot tell the registers
// at entry. Other kernels are left alone.

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    // CHECK-LABEL: gpu.func @specialized()
    // CHECK-SAME: nvvm.minctasm = 1 : i32
    // LLVM: llvm.func @specialized() attributes {{{.*}}nvvm.minctasm = 1 : i32{{.*}}}
    gpu.func @specialized() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      nvvm.setmaxregister increase 232
      gpu.return
    }
    // CHECK-LABEL: gpu.func @plain()
    // CHECK-NOT: minctasm
    gpu.func @plain() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      gpu.return
    }
  }
}
