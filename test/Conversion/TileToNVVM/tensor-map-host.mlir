// RUN: not tile-opt %s --tile-to-nvvm 2>&1 | FileCheck %s
// RUN: rm -rf %t && tile-compile %s -o %t --no-cubin | FileCheck %s --check-prefix=COMPILE

// The kernel lowers (its tensor map becomes a grid-constant parameter), but
// the host launch cannot pass the map by value through gpu-to-llvm: the
// pipeline says so at the launch, with a note at the descriptor, instead of
// failing to legalize the launch. tile-compile, which lowers only the kernel
// module and describes the launch in a manifest, compiles the same file
// (see test/tools/tile-compile/tensormap.mlir).

// COMPILE: tile-compile: load_tile_kernel -> {{.*}}load_tile_kernel.manifest (ptx)

// CHECK-NOT: error
// CHECK: tensor-map-host.mlir:[[# @LINE + 15]]:3: error: kernel operand 0 is a tensor map, which the host lowering cannot pass: kernels take tensor maps by value, encoded at launch by the tile runtime from the launch manifest (compile with tile-compile)
// CHECK: tensor-map-host.mlir:[[# @LINE + 13]]:8: note: tensor map made here
// CHECK-NOT: error

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!shared = memref<?xi8, #gpu.address_space<workgroup>>

func.func @load_tile(%a: memref<?x?xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %smem = arith.constant 8192 : i32
  %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %smem {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %raw = gpu.dynamic_shared_memory : !shared
    %t = memref.view %raw[%k0][] : !shared to memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !bar
    nvgpu.mbarrier.init %bar[%k0], %k1 : !bar
    nvgpu.tma.async.load %d[%k0, %k0], %bar[%k0] to %t : !map, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
