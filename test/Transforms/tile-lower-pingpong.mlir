// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a pingpong=true" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a | FileCheck %s --check-prefix=OFF

// Two consumer warpgroups, two gemms per iteration: warpgroup 1 gives
// warpgroup 0 the first turn (named barrier 2) before the loop; in the
// loop each waits for its turn (2 + w) before the first gemm of the first
// iteration and before the last gemm, and gives the other its turn (3 - w)
// once the first gemm is committed; warpgroup 0 gives back the last turn
// after the loop. The marks are gone once the kernel is lowered.
// CHECK-LABEL: func.func @turns
// CHECK: nvvm.setmaxregister increase
// CHECK: scf.if
// CHECK: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %{{.+}}
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: nvvm.barrier id = %[[MINE:.+]] number_of_threads
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.barrier.arrive id = %{{.+}} number_of_threads
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if
// CHECK: nvvm.barrier.arrive
// CHECK-NOT: tile.turn
// OFF-LABEL: func.func @turns
// OFF-NOT: nvvm.barrier.arrive
func.func @turns(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %C1 = tile.alloc : memref<128x64xf32, #tile.fragment>
    %C2 = tile.alloc : memref<128x64xf32, #tile.fragment>
    tile.clear %C1 : memref<128x64xf32, #tile.fragment>
    tile.clear %C2 : memref<128x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %C1 : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.gemm %As, %Bs -> %C2 : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %C1 -> %C[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x?xf32>
    tile.copy %C2 -> %D[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A barrier of all the consumers after the last gemm (the exchange of C2
// through shared memory) would fall inside a warpgroup's turn and wait
// for the other warpgroup, which waits for the turn: the loop keeps no
// turns.
// CHECK-LABEL: func.func @unsafe
// CHECK-NOT: nvvm.barrier.arrive
// CHECK-NOT: tile.turn
// CHECK: return
func.func @unsafe(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #gpu.address_space<workgroup>>
    %C1 = tile.alloc : memref<128x64xf32, #tile.fragment>
    %C2 = tile.alloc : memref<128x64xf32, #tile.fragment>
    tile.clear %C1 : memref<128x64xf32, #tile.fragment>
    tile.clear %C2 : memref<128x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %C1 : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.gemm %As, %Bs -> %C2 : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.copy %C2 -> %S : memref<128x64xf32, #tile.fragment> -> memref<128x64xf32, #gpu.address_space<workgroup>>
      tile.copy %S -> %C2 : memref<128x64xf32, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %C1 -> %C[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
