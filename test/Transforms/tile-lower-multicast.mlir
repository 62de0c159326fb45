// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a | FileCheck %s

// TMA multicast in thread-block clusters (docs/GEMM.md, "Clusters and TMA
// multicast"): the warp-specialized producer shares a load among the
// blocks of a cluster that read the same tile.

// cluster(1, 2): the two blocks along y (M) read the same B tiles, whose
// indices do not use %by. Each loads 32 of the 64 rows of each of the four
// 64-column boxes (a 32x64 tensor map box) and multicasts them to both
// (mask 0b11 shifted by nothing); A stays the block's own 128x64 load. The
// full barriers still expect the whole 48 KiB; the empty barriers count
// one arrival per consumer warp of each block (8 x 2), and each warp's
// first lane releases the slot in both blocks through mapa. The cluster
// synchronizes after the barriers' initialization and at the end.

// CHECK-LABEL: func.func @share_b
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.kernel {{.*}} cluster(1, 2)
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c16_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.bar.warp.sync %c-1_i32
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c32
// CHECK: arith.cmpi eq, %[[LANE]]
// CHECK: nvvm.mapa %[[BAR:.+]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK: nvvm.mapa %[[BAR]], %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK-NOT: nvvm.read.ptx.sreg.cluster.ctaid.x
// CHECK: %[[Y:.+]] = nvvm.read.ptx.sreg.cluster.ctaid.y : i32
// CHECK-NOT: nvvm.read.ptx.sreg.cluster.ctaid.z
// CHECK: %[[MEMBER:.+]] = arith.addi %{{.+}}, %{{.+}} : i32
// CHECK: %[[SHIFTED:.+]] = arith.shli %c3_i32, %{{.+}} : i32
// CHECK: %[[MASK:.+]] = arith.trunci %[[SHIFTED]] : i32 to i16
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%{{.+}}, %{{.+}}] :
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %[[MASK]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
func.func @share_b(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c2, %gy) threads(256) cluster(1, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// cluster(2, 2): the blocks along x (N) also read the same A tiles: both
// loads are shared, A as two 64-row halves of its 128x64 box, and the
// slots are released in all four blocks.

// CHECK-LABEL: func.func @share_both
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.mbarrier.init %{{.+}}, %c32_i32
// CHECK-COUNT-4: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK: nvvm.read.ptx.sreg.cluster.ctaid.x
// CHECK: nvvm.read.ptx.sreg.cluster.ctaid.y
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask
func.func @share_both(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c2, %gy) threads(256) cluster(2, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// The trip count depends on the block's index along the cluster: the
// blocks would run different iterations, so nothing is shared and the
// kernel keeps the block-local protocol (a CTA barrier, one arrival per
// consumer thread).

// CHECK-LABEL: func.func @uneven_trips
// CHECK-NOT: memref<32x64xf16
// CHECK: nvvm.mbarrier.init %{{.+}}, %c256_i32
// CHECK: gpu.barrier
// CHECK-NOT: multicast_mask
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: return
func.func @uneven_trips(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c2, %gy) threads(256) cluster(1, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    %mine = arith.subi %steps, %by : index
    tile.pipelined %k = %c0 to %mine step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// Every load depends on the block's index along the cluster (B's column on
// %m, so on %by): no block reads another's tile, nothing is shared.

// CHECK-LABEL: func.func @nothing_shared
// CHECK: memref<64x64xf16
// CHECK-NOT: multicast_mask
// CHECK-NOT: nvvm.mapa
// CHECK: return
func.func @nothing_shared(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c2, %gy) threads(256) cluster(1, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      %nb = arith.addi %n, %m : index
      tile.copy %B[%kk, %nb] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
