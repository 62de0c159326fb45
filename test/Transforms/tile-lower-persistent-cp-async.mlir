// RUN: tile-opt %s -tile-infer-layout=chip=sm_80 \
// RUN:   -tile-lower="chip=sm_80 persistent=true" -canonicalize -cse | FileCheck %s

// Without warp specialization (sm_80: cp.async, mma.sync) a persistent
// kernel runs the whole pipeline per tile inside the tile loop: the
// prologue's copies of the first two K steps, the main loop, the wait for
// every group and the epilogue. A barrier ends each tile, so that the next
// tile's prologue copies, which barrier placement leaves to the pipeline,
// never overwrite a slot that a slower warp still reads.

// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel {{.*}}attributes {tile.lowered, tile.persistent} {
// CHECK: tile.alloc {{.*}} : memref<3x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc {{.*}} : memref<3x64x128xf16, #gpu.address_space<workgroup>>
// CHECK: %[[TILES:.+]] = arith.muli
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %{{.+}} = %[[FIRST]] to %[[TILES]] step %[[STRIDE]] {
// CHECK-NOT: tile.alloc
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: vector.maskedstore
// CHECK: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
