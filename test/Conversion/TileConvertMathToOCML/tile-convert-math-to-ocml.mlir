// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-math-to-ocml{chipset=gfx90a}))' \
// RUN:   | FileCheck %s
// RUN: not tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-math-to-ocml{chipset=gfx9zz}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=CHIPSET
// CHIPSET: error: tile-convert-math-to-ocml: unknown chipset 'gfx9zz'

// Math without an AMDGPU instruction becomes ocml calls in the kernel
// module; the rest of the module is left to convert-gpu-to-rocdl.

// CHECK-LABEL: gpu.module @k
// CHECK-DAG: llvm.func @__ocml_tanh_f32(f32) -> f32
// CHECK-DAG: llvm.func @__ocml_erf_f64(f64) -> f64
// CHECK: gpu.func @f
// CHECK: llvm.call @__ocml_tanh_f32(%{{.+}}) : (f32) -> f32
// CHECK: llvm.call @__ocml_erf_f64(%{{.+}}) : (f64) -> f64
// CHECK: memref.store
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>, %x: f64, %b: memref<4xf64>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xf32>
      %t = math.tanh %v : f32
      %e = math.erf %x : f64
      memref.store %t, %a[%c0] : memref<4xf32>
      memref.store %e, %b[%c0] : memref<4xf64>
      gpu.return
    }
  }
}
