// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-flush-denormals))' | FileCheck %s

// Every function of the GPU module gets the f32 denormal mode
// preserve-sign; functions outside it keep theirs. The PTX it gives is
// checked in test/Kernels/flash-attn.test (ex2.approx.ftz.f32,
// lg2.approx.ftz.f32).

module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @kernels
  gpu.module @kernels {
    // CHECK: llvm.func @k(%{{.*}}: f32) -> f32 attributes {denormal_fp_math_f32 = "preserve-sign", nvvm.kernel}
    llvm.func @k(%x: f32) -> f32 attributes {nvvm.kernel} {
      %y = llvm.intr.exp2(%x) : (f32) -> f32
      llvm.return %y : f32
    }
    // CHECK: llvm.func @helper() attributes {denormal_fp_math_f32 = "preserve-sign"}
    llvm.func @helper() {
      llvm.return
    }
    // libdevice's exp2f becomes the intrinsic and its log2f the flushing
    // lg2.approx, and their unused declarations go; other libdevice calls
    // stay.
    // CHECK-NOT: llvm.func @__nv_exp2f
    // CHECK-NOT: llvm.func @__nv_log2f
    // CHECK: llvm.func @__nv_expf
    llvm.func @__nv_exp2f(f32) -> f32
    llvm.func @__nv_log2f(f32) -> f32
    llvm.func @__nv_expf(f32) -> f32
    // CHECK-LABEL: llvm.func @calls
    // CHECK: %[[A:.*]] = llvm.intr.exp2(%{{.*}}) : (f32) -> f32
    // CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%[[A]]) : (f32) -> f32
    // CHECK: llvm.call @__nv_expf(%[[L]])
    llvm.func @calls(%x: f32) -> f32 {
      %a = llvm.call @__nv_exp2f(%x) : (f32) -> f32
      %l = llvm.call @__nv_log2f(%a) : (f32) -> f32
      %b = llvm.call @__nv_expf(%l) : (f32) -> f32
      llvm.return %b : f32
    }
  }
  // CHECK: llvm.func @host()
  // CHECK-NOT: denormal
  llvm.func @host() {
    llvm.return
  }
}
