// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a -canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" -canonicalize \
// RUN:   | FileCheck %s --check-prefix=NOWS

// Readers in two stages (the FlashAttention schedule): the second gemm
// (stage 2) runs one iteration behind the first (stage 1) and is issued
// right after it. The producer fills three slots (copies in stage 0, one
// ahead of the first readers, plus one for the late readers). The
// consumers run a prologue (Q·Kᵀ and the cast of block 0), a steady loop
// from 1 where Q·Kᵀ of block i and P·V of block i - 1 are both in flight
// before the first wait, which waits for Q·Kᵀ only (wait_group 1), and the
// cast waits for P·V (it rewrites P, P·V's register operand); and an
// epilogue running the last P·V and releasing its slot.

// CHECK-LABEL: func.func @attention_like
// CHECK-COUNT-6: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister increase 232
// Prologue: step 0 runs the first readers only.
// CHECK: scf.for %{{.+}} = %c0 to %{{.+}} step %c1 {
// CHECK-NEXT: arith.remui
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: }
// Steady state.
// CHECK: scf.for %{{.+}} = %c1 to %{{.+}} step %c1 {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wait_group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$64, $65, $66, $67}
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.fence
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: arith.truncf
// CHECK: nvvm.mbarrier.arrive
// CHECK-NEXT: }
// Epilogue: the last P·V, then its slot is released.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: scf.if
// CHECK-NEXT: arith.remui
// CHECK: nvvm.mbarrier.arrive
// Producer.
// CHECK: nvvm.setmaxregister decrease 40

// Without warp specialization: one cp.async loop of trips + 1 steps whose
// readers run under guards for the iteration they belong to.
// NOWS-LABEL: func.func @attention_like
// NOWS: %[[STEPS:.+]] = arith.addi %{{.+}}, %c1 : index
// NOWS: scf.for %{{.+}} = %c0 to %[[STEPS]] step %c1 {
// NOWS: nvvm.cp.async.wait.group 0
// NOWS: nvvm.cp.async.commit.group
// NOWS: nvvm.wgmma.commit.group.sync.aligned
// NOWS: nvvm.wgmma.commit.group.sync.aligned
func.func @attention_like(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Qs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #tile.fragment>
    %P = tile.alloc : memref<128x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<128x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0] -> %Qs : memref<?x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Of : memref<128x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %n step %c1 stages(3) order [0, 1, 2, 4, 3] stage [0, 0, 1, 1, 2] {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0] -> %Vs : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row) : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.parallel (%i, %jj) in (128, 64) {
        %s = memref.load %S[%i, %jj] : memref<128x64xf32, #tile.fragment>
        %p = arith.truncf %s : f32 to f16
        memref.store %p, %P[%i, %jj] : memref<128x64xf16, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row) : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x64xf16>
  }
  return
}
