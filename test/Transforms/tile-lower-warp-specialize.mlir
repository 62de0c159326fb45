// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a -convert-tile-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" | FileCheck %s --check-prefix=NOWS

// A 4-stage pipelined GEMM on sm_90a: the host encodes one tensor map per
// global operand (A: 128x64 boxes, B: 64x64 boxes, 128-byte swizzle, the
// 64x256 B tile in four column blocks); the kernel gains a producer
// warpgroup (threads 256..383) whose first thread waits for a free slot
// (its "empty" mbarrier, parity flipped so the first round passes),
// announces 48 KiB on the slot's "full" mbarrier and issues five TMA loads;
// the 256 consumer threads wait for "full", run the wgmma gemm on the slot
// and arrive on "empty". Registers move from producer (40) to consumers
// (232).

// CHECK-LABEL: func.func @gemm
// CHECK: nvgpu.tma.create.descriptor %{{.+}} box[%{{.+}}, %{{.+}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK: nvgpu.tma.create.descriptor %{{.+}} box[%{{.+}}, %{{.+}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: tile.kernel {{.*}} threads(256) {{.*}}attributes {tile.lowered, tile.producer_threads = 128 : i64}
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK-COUNT-4: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: } {tile.consumers}
// CHECK-NOT: gpu.barrier

// LAUNCH: %[[T:.+]] = arith.constant 384 : index
// LAUNCH: gpu.launch {{.*}} threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T]],

// NOWS-LABEL: func.func @gemm
// NOWS-NOT: nvgpu.tma.create.descriptor
// NOWS: nvvm.cp.async.commit.group
// NOWS: nvvm.wgmma.mma_async
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
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

// A copy marked disable_tma keeps the loop on cp.async, with the wgmma
// gemm and its proxy fence.

// CHECK-LABEL: func.func @disable_tma
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK-NOT: tile.producer_threads
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
func.func @disable_tma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] -> %As {disable_tma} : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A block of 1024 threads has no room for a producer warpgroup (a block
// holds at most 1024): the loop stays on cp.async.

// CHECK-LABEL: func.func @no_room_for_producer
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK-NOT: tile.producer_threads
// CHECK-NOT: nvvm.setmaxregister
// CHECK: nvvm.cp.async.wait.group
// CHECK: nvvm.wgmma.mma_async
func.func @no_room_for_producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(1024) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A box must start on a 16-byte boundary of the row (TMA faults with an
// illegal instruction otherwise): a copy whose column origin is not a
// known multiple of 8 f16 (`k * 32 / 64`) keeps the loop on cp.async; the
// same copy from that origin rounded down to a multiple of 8 is a TMA load.

// CHECK-LABEL: func.func @unaligned_box_origin
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK-NOT: tile.producer_threads
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-LABEL: func.func @aligned_box_origin
// CHECK: nvgpu.tma.create.descriptor %{{.+}} : memref<*xf16> -> <tensor = memref<64x8xf16
func.func @unaligned_box_origin(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %S: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      %g = arith.divui %kk, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %S[%c0, %g] -> %Ss : memref<?x?xf16> -> memref<64x8xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
func.func @aligned_box_origin(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %S: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Ss = tile.alloc : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      %g = arith.divui %kk, %c64 : index
      %gq = arith.divui %g, %c8 : index
      %g8 = arith.muli %gq, %c8 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %S[%c0, %g8] -> %Ss : memref<?x?xf16> -> memref<64x8xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A copy before the loop into a shared tile that only the loop reads (as
// FlashAttention's Q) becomes a TMA load of the producer, issued once
// before the loop's own loads on a barrier of its own (the fifth mbarrier:
// two slots of full and empty, then this one), which the consumers wait
// for before the loop instead of copying. The copy into %Bs, which is also
// read after the loop, stays the consumers' own.

// CHECK-LABEL: func.func @prologue_load
// Q's and A's loads, and C's store:
// CHECK-COUNT-3: nvgpu.tma.create.descriptor
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: tile.kernel
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: vector.store
// CHECK: nvvm.mbarrier.try_wait.parity %{{.+}}, %c0_i32, %{{.+}}
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c8192_i32 :
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c8192_i32_{{[0-9]+}} :
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: } {tile.consumers}
func.func @prologue_load(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %Q: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Qs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    %m = arith.muli %bx, %c64 : index
    tile.copy %Q[%m, %c0] -> %Qs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%m, %c0] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%kk, %c0] -> %Ks : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %Cf transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.gemm %Bs, %Bs -> %Cf transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%m, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// K split across a cluster: the tile.cluster_reduce after the loop runs
// once, so the loop is warp-specialized. Its two cluster barriers need
// every thread of the cluster: the consumers take them in the reduction,
// the producer warpgroup after issuing its loads.

// CHECK-LABEL: func.func @splitk_cluster
// CHECK:       tile.producer_threads = 128
// CHECK:       nvvm.setmaxregister increase
// CHECK:       nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK:       tile.remote_load
// CHECK:       nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK-NEXT:  } else {
// CHECK-NEXT:  nvvm.setmaxregister decrease
// CHECK:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK-NEXT:  nvvm.cluster.arrive
// CHECK-NEXT:  nvvm.cluster.wait
// CHECK-NEXT:  } {tile.consumers}
func.func @splitk_cluster(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  %half = arith.ceildivui %steps, %c2 : index
  tile.kernel blocks(%bx, %bz) in (%c1, %c2) threads(256) cluster(1, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    %Cs = tile.alloc : memref<128x128xf32, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %n = arith.muli %bx, %c128 : index
    %first = arith.muli %bz, %half : index
    %end = arith.addi %first, %half : index
    %last = arith.minui %end, %steps : index
    tile.pipelined %k = %first to %last step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %Cs : memref<128x128xf32, #tile.fragment> -> memref<128x128xf32, #gpu.address_space<workgroup>>
    tile.cluster_reduce add %Cs -> %C[%c0, %n] : memref<128x128xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
  }
  return
}

// -----

// Gemms on K slices of the pipelined tiles (static views): the copies
// still become the producer's TMA loads into the multi-buffered tiles,
// each view is built again over the iteration's slot, and the two gemms
// read its halves (m64n128k16 twice each, one wait for both).

// CHECK-LABEL: func.func @pipelined_k_slices
// CHECK: %[[SLOT:.*]] = memref.subview %{{.*}}[%{{.*}}, 0, 0] [1, 64, 64] [1, 1, 1] : memref<3x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.subview %[[SLOT]][0, 32] [64, 32] [1, 1] : memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.wait_group
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// NOWS-LABEL: func.func @pipelined_k_slices
// NOWS: nvgpu.device_async_copy
// NOWS-COUNT-4: nvvm.wgmma.mma_async
func.func @pipelined_k_slices(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x128xf32, #tile.fragment>
    tile.clear %Cf : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      %A0 = memref.subview %As[0, 0] [64, 32] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
      %B0 = memref.subview %Bs[0, 0] [32, 128] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<32x128xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
      tile.gemm %A0, %B0 -> %Cf : memref<64x32xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>, memref<32x128xf16, strided<[128, 1]>, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
      %A1 = memref.subview %As[0, 32] [64, 32] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[64, 1], offset: 32>, #gpu.address_space<workgroup>>
      %B1 = memref.subview %Bs[32, 0] [32, 128] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<32x128xf16, strided<[128, 1], offset: 4096>, #gpu.address_space<workgroup>>
      tile.gemm %A1, %B1 -> %Cf : memref<64x32xf16, strided<[64, 1], offset: 32>, #gpu.address_space<workgroup>>, memref<32x128xf16, strided<[128, 1], offset: 4096>, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A tile.cluster_reduce that does not follow the loop once (here it runs
// in a loop of its own) would take its cluster barriers a number of times
// the producer cannot count: no warp specialization, the loop is a
// cp.async pipeline of the kernel's own 256 threads.

// CHECK-LABEL: func.func @splitk_cluster_repeated
// CHECK-NOT:   tile.producer_threads
// CHECK:       nvvm.cp.async.commit.group
// CHECK:       nvvm.cluster.arrive
// CHECK-NOT:   setmaxregister
func.func @splitk_cluster_repeated(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %bz) in (%c1, %c2) threads(256) cluster(1, 2) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    %Cs = tile.alloc : memref<128x128xf32, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %Cs : memref<128x128xf32, #tile.fragment> -> memref<128x128xf32, #gpu.address_space<workgroup>>
    scf.for %r = %c0 to %c2 step %c1 {
      tile.cluster_reduce add %Cs -> %C[%r, %n] : memref<128x128xf32, #gpu.address_space<workgroup>> -> memref<?x?xf16>
    }
  }
  return
}

// -----

// With 32 rows the gemm runs mma.sync, whose ldmatrix reads of a slot go
// through the generic proxy, and the producer refills the slot through
// the async proxy (TMA): each release is preceded by a proxy fence, or a
// warp may still be reading the slot as the next step lands in it (seen
// as wrong products on an H200 with two blocks on each SM).

// CHECK-LABEL: func.func @mma_sync_consumers
// CHECK: tile.producer_threads = 128
// CHECK: nvgpu.mma.sync
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
func.func @mma_sync_consumers(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<32x128xf32, #tile.fragment>
    tile.clear %Cf : memref<32x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %kk] -> %Bs : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf transpose_b : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<32x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<32x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
