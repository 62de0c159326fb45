// RUN: tile-opt %s -tile-infer-layout=chip=sm_80 \
// RUN:   -tile-lower="chip=sm_80 persistent=true" -canonicalize -cse | FileCheck %s

// Without warp specialization (sm_80: cp.async, mma.sync) the pipeline of
// a persistent kernel runs on across the block's tiles: the prologue's
// copies of the block's first two K steps are issued once, before the tile
// loop; each tile's main loop numbers its iterations from the block's
// first tile (for the slots and the wait counts) and carries the tile and
// step of the copies two iterations ahead, which move to the block's next
// tile (t + gridDim.x) after the last step, so that the next tile's first
// steps load during this tile's last steps and its epilogue. The copies
// ahead take the tile's row and column offsets from the running tile when
// they are its own and compute them again from the tile index otherwise.
// One wait for every group follows the tile loop. A barrier still ends
// each tile.

// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel {{.*}}attributes {tile.lowered, tile.persistent} {
// CHECK: tile.alloc {{.*}} : memref<3x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc {{.*}} : memref<3x64x128xf16, #gpu.address_space<workgroup>>
// CHECK: %[[TILES:.+]] = arith.muli
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK: %[[TRIPS:.+]] = arith.select
// The prologue: iteration s of the block is step s mod trips of its tile
// s / trips.
// CHECK-NEXT: scf.for %[[S:.+]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[PER:.+]] = arith.maxui %[[TRIPS]], %c1
// CHECK-NEXT: %[[Q:.+]] = arith.divui %[[S]], %[[PER]]
// CHECK-NEXT: %[[QS:.+]] = arith.muli %[[Q]], %[[STRIDE]]
// CHECK-NEXT: %[[T:.+]] = arith.addi %[[FIRST]], %[[QS]]
// CHECK: arith.cmpi ult, %[[T]], %[[TILES]]
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[TILE:.+]] = %[[FIRST]] to %[[TILES]] step %[[STRIDE]] {
// CHECK-NOT: tile.alloc
// CHECK-NOT: nvvm.cp.async.wait.group 0
// CHECK: %[[SINCE:.+]] = arith.subi %[[TILE]], %[[FIRST]]
// CHECK-NEXT: %[[ORD:.+]] = arith.divui %[[SINCE]], %[[STRIDE]]
// CHECK-NEXT: %[[BEFORE:.+]] = arith.muli %[[ORD]], %[[TRIPS]]
// CHECK: scf.for %[[I:.+]] = %c0 to %[[TRIPS]] step %c1 iter_args(%[[AT:.+]] = %{{.+}}, %[[STEP:.+]] = %{{.+}}) -> (index, index) {
// CHECK-NEXT: arith.addi %[[BEFORE]], %[[I]]
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[EXISTS:.+]] = arith.cmpi ult, %[[AT]], %[[TILES]]
// CHECK: scf.if
// CHECK-NEXT: %[[SAME:.+]] = arith.cmpi eq, %[[AT]], %[[TILE]]
// CHECK-NEXT: scf.if %[[SAME]] -> (index, index) {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: arith.remui %[[AT]]
// CHECK-NEXT: arith.divui %[[AT]]
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.mma.sync
// CHECK: %[[NEXT:.+]] = arith.addi %[[STEP]], %c1
// CHECK-NEXT: %[[WRAP:.+]] = arith.cmpi eq, %[[NEXT]], %[[TRIPS]]
// CHECK-NEXT: %[[ON:.+]] = arith.addi %[[AT]], %[[STRIDE]]
// CHECK-NEXT: %[[NT:.+]] = arith.select %[[WRAP]], %[[ON]], %[[AT]]
// CHECK-NEXT: %[[NS:.+]] = arith.select %[[WRAP]], %c0, %[[NEXT]]
// CHECK-NEXT: scf.yield %[[NT]], %[[NS]]
// CHECK-NEXT: }
// CHECK-NOT: nvvm.cp.async.wait.group 0
// CHECK: vector.maskedstore
// CHECK: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
// CHECK-NEXT: nvvm.cp.async.wait.group 0
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

// The K range of a tile depends on the tile (here its row of blocks): the
// trip count differs between tiles, so the pipeline runs per tile inside
// the tile loop, prologue, main loop and wait for every group included.

// CHECK-LABEL: func.func @per_tile
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NOT: tile.alloc
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK: nvgpu.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: vector.maskedstore
// CHECK: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @per_tile(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
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
    %mine = arith.minui %by, %steps : index
    tile.pipelined %k = %mine to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// Readers in later stages than the first (stage [0, 1, 2]) keep the
// pipeline in its tile: each tile issues its own first copies, runs its
// steps and the lagging readers' extra step, and waits for every group
// before the tile's closing barrier.

// CHECK-LABEL: func.func @late_readers
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for %{{.+}} = %{{.+}} to %c4 step %{{.+}} {
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for %{{.+}} = %c0 to %{{.+}} step %c1 {
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
func.func @late_readers(%A: memref<?x16xf16>, %B: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [0, 1, 2] {
      tile.copy %A[%k, %c0] -> %a : memref<?x16xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i) in (16) {
        %v = memref.load %a[%i, %c0] : memref<16x16xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %v : f16 to f32
        memref.store %w, %B[%i] : memref<?xf32>
      }
      tile.parallel (%i) in (16) {
        %v = memref.load %a[%i, %c1] : memref<16x16xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %v : f16 to f32
        memref.store %w, %C[%i] : memref<?xf32>
      }
    }
  }
  return
}
