// Math without an AMDGPU instruction goes to the device libraries:
// tile-convert-math-to-ocml calls ocml (__ocml_erf_f32, __ocml_tanh_f32;
// without it tanh became llvm.tanh, which the backend cannot select), and
// serialization links them from the toolkit's amdgcn/bitcode
// (rocm-device-libs), so the code object calls nothing and defines
// nothing but the kernel.

// REQUIRES: hsaco, rocm-device-libs
// RUN: rm -rf %t && tile-compile %s -o %t --chip gfx942 > /dev/null
// RUN: llvm-objdump -d %t/gelu_kernel.hsaco | FileCheck %s
// RUN: llvm-readelf --syms %t/gelu_kernel.hsaco | FileCheck %s --check-prefix=SYMS

// CHECK: <gelu_kernel>:
// CHECK-NOT: s_swappc
// CHECK-NOT: __ocml
// CHECK: s_endpgm
// SYMS-NOT: UND {{.*}}__ocml
// SYMS: gelu_kernel

func.func @gelu(%A: memref<4096xf32>, %B: memref<4096xf32>) {
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c16) threads(256) {
    %c256 = arith.constant 256 : index
    %o = arith.muli %bx, %c256 : index
    %f = tile.alloc : memref<256xf32, #tile.fragment>
    tile.copy %A[%o] -> %f : memref<4096xf32> -> memref<256xf32, #tile.fragment>
    tile.parallel (%i) in (256) {
      %x = memref.load %f[%i] : memref<256xf32, #tile.fragment>
      %e = math.erf %x : f32
      %t = math.tanh %e : f32
      memref.store %t, %f[%i] : memref<256xf32, #tile.fragment>
    }
    tile.copy %f -> %B[%o] : memref<256xf32, #tile.fragment> -> memref<4096xf32>
  }
  return
}
