// math.exp lowers to libdevice's __nv_expf, which tile-compile links from
// the CUDA toolkit it finds even without CUDA_HOME: the PTX keeps no call to
// it, and ptxas can assemble the cubin.
// REQUIRES: ptxas

// RUN: rm -rf %t && env -u CUDA_HOME tile-compile %s -o %t --chip sm_90a > /dev/null
// RUN: FileCheck %s < %t/exp_kernel.ptx
// RUN: test -s %t/exp_kernel.cubin

// CHECK: .visible .entry exp_kernel(
// CHECK-NOT: __nv_expf
// CHECK: ex2.approx

func.func @exp(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c128 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %tid = gpu.thread_id x
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %tid : index
    %inside = arith.cmpi ult, %i, %n : index
    scf.if %inside {
      %v = memref.load %x[%i] : memref<?xf32>
      %e = math.exp %v : f32
      memref.store %e, %y[%i] : memref<?xf32>
    }
  }
  return
}
