// RUN: tile-opt %s -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm))'

// A tensor map made in device code is an error: upstream would lower it to
// a call of a host runtime function.

gpu.module @m {
  gpu.func @k(%u: memref<*xf16>) kernel {
    %c64 = arith.constant 64 : index
    // expected-error @below {{tensor maps are made on the host and passed to the kernel; nvgpu.tma.create.descriptor has no device lowering}}
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
    gpu.return
  }
}
