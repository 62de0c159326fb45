// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-to-nvvm

// Host tensor maps the driver cannot encode, or that the host uses for
// anything but a launch, are errors at the descriptor.

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xi1, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @bits(%a: memref<?x?xi1>) {
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<?x?xi1> to memref<*xi1>
  // expected-error @below {{no tensor map data type for 'i1' elements}}
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xi1> -> !map
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @unranked(%u: memref<*xf16>) {
  %c64 = arith.constant 64 : index
  // expected-error @below {{tensor map of an unranked memref: the host lowering needs the ranked memref it was cast from}}
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @prefetch(%a: memref<?x?xf16>) {
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
  // expected-error @below {{tensor map used by nvgpu.tma.prefetch.descriptor on the host; the host lowering only passes tensor maps to kernels}}
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  nvgpu.tma.prefetch.descriptor %d : !map
  return
}
