// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-flush-denormals))' | FileCheck %s

// In a module for an AMD chip the functions keep their denormal mode (so
// the device library's functions still inline and f32 divisions do not
// switch modes); ocml's f32 exp2 becomes rocdl.exp2, the bare v_exp_f32,
// its f32 log2 rocdl.log, the bare v_log_f32, and their unused
// declarations go. Other ocml calls stay. The ISA it gives
// is checked in test/Conversion/TileToROCDL/flash-attn.test.

module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @kernels
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    // CHECK-NOT: denormal_fp_math_f32
    // CHECK-NOT: llvm.func @__ocml_exp2_f32
    // CHECK-NOT: llvm.func @__ocml_log2_f32
    // CHECK: llvm.func @__ocml_exp2_f64
    // CHECK: llvm.func @__ocml_exp_f32
    llvm.func @__ocml_exp2_f32(f32) -> f32
    llvm.func @__ocml_log2_f32(f32) -> f32
    llvm.func @__ocml_exp2_f64(f64) -> f64
    llvm.func @__ocml_exp_f32(f32) -> f32
    // CHECK-LABEL: llvm.func @k
    // CHECK: %[[A:.*]] = rocdl.exp2 %{{.*}} f32 -> f32
    // CHECK: %[[L:.*]] = rocdl.log %[[A]] f32 -> f32
    // CHECK: llvm.call @__ocml_exp_f32(%[[L]])
    // CHECK: llvm.call @__ocml_exp2_f64
    llvm.func @k(%x: f32, %d: f64) -> f32 attributes {rocdl.kernel} {
      %a0 = llvm.call @__ocml_exp2_f32(%x) : (f32) -> f32
      %a = llvm.call @__ocml_log2_f32(%a0) : (f32) -> f32
      %b = llvm.call @__ocml_exp_f32(%a) : (f32) -> f32
      %c = llvm.call @__ocml_exp2_f64(%d) : (f64) -> f64
      llvm.return %b : f32
    }
  }
}
