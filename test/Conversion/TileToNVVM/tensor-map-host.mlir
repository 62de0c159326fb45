// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{index-bitwidth=32})' | FileCheck %s --check-prefix=I32
// RUN: rm -rf %t && tile-compile %s -o %t --no-cubin | FileCheck %s --check-prefix=COMPILE

// The kernel takes its tensor map as a 128-byte grid-constant parameter,
// and the host side of tile-to-nvvm passes exactly that: the map is encoded
// by the driver's cuTensorMapEncodeTiled into a 64-byte aligned buffer
// (dimensions innermost first, the row stride in bytes, the box, f16 = 6,
// rank 2, no interleave, 128B swizzle = 3, no L2 promotion, zero fill) and
// its 128 bytes are the launch's argument. tile-compile, which writes a
// manifest instead of host code, compiles the same file.

// CHECK:       llvm.func @cuTensorMapEncodeTiled(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
// CHECK-LABEL: llvm.func @load_tile(
// CHECK-SAME:    %[[ALLOC:.+]]: !llvm.ptr, %[[ALIGNED:.+]]: !llvm.ptr, %[[OFFSET:.+]]: i64, %[[SIZE0:.+]]: i64, %[[SIZE1:.+]]: i64, %[[STRIDE0:.+]]: i64, %[[STRIDE1:.+]]: i64)
// CHECK-DAG:     %[[ROW:.+]] = llvm.mlir.constant(64 : index) : i64
// CHECK-DAG:     %[[TWO:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG:     %[[F16:.+]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-DAG:     %[[RANK:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:     %[[NONE:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:     %[[SW128:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG:     %[[MAP:.+]] = llvm.alloca %{{.+}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK-DAG:     %[[DIMS:.+]] = llvm.alloca %{{.+}} x !llvm.array<2 x i64>
// CHECK-DAG:     %[[BASE:.+]] = llvm.getelementptr %[[ALIGNED]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-DAG:     llvm.store %[[SIZE1]], %[[DIMS]] : i64, !llvm.ptr
// CHECK-DAG:     %[[DIM1:.+]] = llvm.getelementptr %[[DIMS]][1]
// CHECK-DAG:     llvm.store %[[SIZE0]], %[[DIM1]] : i64, !llvm.ptr
// CHECK-DAG:     %[[BYTES:.+]] = llvm.mul %[[STRIDE0]], %[[TWO]] : i64
// CHECK-DAG:     llvm.store %[[BYTES]], %[[STRIDES:.+]] : i64, !llvm.ptr
// CHECK:         llvm.call @cuTensorMapEncodeTiled(%[[MAP]], %[[F16]], %[[RANK]], %[[BASE]], %[[DIMS]], %[[STRIDES]], %{{.+}}, %{{.+}}, %[[NONE]], %[[SW128]], %[[NONE]], %[[NONE]])
// CHECK:         %[[BYVAL:.+]] = llvm.load %[[MAP]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK:         gpu.launch_func @load_tile_kernel::@load_tile_kernel {{.*}} args(%[[BYVAL]] : !llvm.array<16 x i64>)
// CHECK:       gpu.binary @load_tile_kernel
// CHECK-SAME:    .param .align 64 .b8 load_tile_kernel_param_0[128]

// With 32-bit indices the sizes and strides are widened for the driver.
// I32-LABEL: llvm.func @load_tile(
// I32-SAME:    %{{.+}}: i32, %[[SIZE0:.+]]: i32, %[[SIZE1:.+]]: i32, %[[STRIDE0:.+]]: i32, %{{.+}}: i32)
// I32-DAG:     llvm.zext %[[SIZE1]] : i32 to i64
// I32-DAG:     llvm.zext %[[SIZE0]] : i32 to i64
// I32-DAG:     llvm.zext %[[STRIDE0]] : i32 to i64
// I32:         llvm.call @cuTensorMapEncodeTiled(
// I32:         gpu.launch_func {{.*}} args(%{{.+}} : !llvm.array<16 x i64>)

// COMPILE: tile-compile: load_tile_kernel -> {{.*}}load_tile_kernel.manifest (ptx)

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
