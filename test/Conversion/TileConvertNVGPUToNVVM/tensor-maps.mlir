// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm))' | FileCheck %s --check-prefix=RETYPE
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,reconcile-unrealized-casts,tile-grid-constant-tensor-maps))' | FileCheck %s --check-prefix=PARAM
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,reconcile-unrealized-casts,tile-grid-constant-tensor-maps))' | FileCheck %s --check-prefix=DROPPED

// A tensor-map argument of a kernel becomes an !llvm.ptr before
// convert-gpu-to-nvvm sees the signature, and its position in the lowered
// signature is recorded: after a rank-1 memref (5 arguments once expanded)
// it is argument 5. tile-grid-constant-tensor-maps then makes that
// argument a 128-byte, 64-byte aligned byval grid constant, whose address
// the bulk tensor copy reads. mbarrier groups lower to their shared array.

// RETYPE-LABEL: gpu.func @tma
// RETYPE-SAME:    (%[[B:.+]]: memref<?xf32>, %[[MAP:.+]]: !llvm.ptr, %[[N:.+]]: i32)
// RETYPE-SAME:    tile.tensor_map_args = array<i64: 5>
// RETYPE:         memref.get_global @__mbarrier : memref<1xi64, 3>
// RETYPE:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[
// RETYPE-NOT:     nvgpu.

// PARAM-LABEL: llvm.func @tma
// PARAM-SAME:    %[[MAP:arg5]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// PARAM-SAME:    %arg6: i32)
// PARAM-SAME:    nvvm.kernel
// PARAM:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[

// The positions are consumed.
// DROPPED-NOT: tile.tensor_map_args

// A body that casts the descriptor to a pointer itself (for NVVM bulk
// tensor operations) gets the parameter's address once the casts meet.
// RETYPE-LABEL: gpu.func @cast
// RETYPE-SAME:    tile.tensor_map_args = array<i64: 0>
// PARAM-LABEL: llvm.func @cast
// PARAM-SAME:    %[[MAP2:arg0]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// PARAM:         nvvm.prefetch tensormap, %[[MAP2]] : !llvm.ptr

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @m {
  gpu.func @tma(%b: memref<?xf32>, %d: !map, %n: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dst = memref.alloca() : memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !bar
    nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
    nvgpu.tma.async.load %d[%c0, %c0], %bar[%c0] to %dst : !map, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
  gpu.func @cast(%d: !map) kernel {
    %p = builtin.unrealized_conversion_cast %d : !map to !llvm.ptr
    nvvm.prefetch tensormap, %p : !llvm.ptr
    gpu.return
  }
}
