// Tensor maps the launch manifest cannot describe are errors at the
// operation that makes them, not crashes: a map of a buffer computed on the
// host, a box that is not constant, an unranked source, a box that differs
// from the descriptor's tile, a map that the host function receives instead
// of making, and a map made inside the kernel.

// RUN: rm -rf %t && split-file %s %t
// RUN: not tile-compile %t/computed.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=COMPUTED
// RUN: not tile-compile %t/box.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=BOX
// RUN: not tile-compile %t/unranked.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=UNRANKED
// RUN: not tile-compile %t/mismatch.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not tile-compile %t/received.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=RECEIVED
// RUN: not tile-compile %t/device.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=DEVICE

// COMPUTED: computed.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map source is computed by memref.alloc on the host; tile-compile encodes tensor maps from memref arguments of the function
// BOX: box.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map box dimension 0 is not a constant
// UNRANKED: unranked.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map source arg0 is of type 'memref<*xf16>', expected a ranked memref
// MISMATCH: mismatch.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map box 64x64 does not match the descriptor's tile 128x64
// RECEIVED: received.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map kernel operand is not made by nvgpu.tma.create.descriptor on the host
// DEVICE: device.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensor map made inside the kernel; make it on the host from a memref argument of the function

//--- computed.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%n: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %buf = memref.alloc(%n) : memref<?x64xf16>
  %u = memref.cast %buf : memref<?x64xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

//--- box.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%a: memref<?x?xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf16>
  %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%rows, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

//--- unranked.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%u: memref<*xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

//--- mismatch.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%a: memref<?x?xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

//--- received.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%d: !map) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

//--- device.mlir
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%a: memref<?x?xf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %u box[%k128, %k64] : memref<*xf16> -> !map
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}
