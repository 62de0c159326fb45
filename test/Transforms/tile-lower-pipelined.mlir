// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s

// stages(3): the two shared tiles get three slots each ([3, ...] allocs
// with the swizzle repeated per slot); a two-iteration prologue loop issues
// the copies as cp.async (16 bytes, L1 bypassed; zero-filled at ragged
// edges) and commits a group per iteration; each iteration
// waits for its own group (one group may stay in flight), synchronizes the
// block once, issues the copies of iteration i + 2 into slot (i + 2) mod 3
// and runs the gemm on slot i mod 3; the loop drains every group at the end.

// CHECK-LABEL: func.func @three_stages
// CHECK: tile.alloc {layout = #tile.layout<[3, 64, 32], (d0, d1, d2) -> (d0 * 2048 + d1 * 32 + d2 mod 32), xor<2, 3, 3>>} : memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc {layout = #tile.layout<[3, 32, 64], {{.*}}>} : memref<3x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK: scf.for %[[I:.+]] = %c0 to %{{[0-9]+}} step %c1 {
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[AHEAD:.+]] = arith.addi %[[I]], %c2
// CHECK: scf.if
// CHECK: arith.remui %[[AHEAD]], %c3
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: arith.remui %[[I]], %c3
// CHECK: nvgpu.ldmatrix
// CHECK: nvgpu.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: {{^ *}}}{{ *$}}
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @three_stages(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %kt step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// stages(1): no multi-buffering; each iteration copies, waits for all its
// copies, synchronizes, computes and synchronizes again before the next
// iteration overwrites the tiles.

// CHECK-LABEL: func.func @one_stage
// CHECK: tile.alloc {layout = #tile.layout<[64, 32], swizzle<64, 16>>} : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.mma.sync
// CHECK: gpu.barrier
// CHECK-NEXT: {{^ *}}}{{ *$}}
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @one_stage(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %kt step %c1 stages(1) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A hand-made schedule: stages(4) with the copy of B in stage 1 and the
// gemm in stage 2 is rejected below; here both copies sit in stage 1 and
// the gemm in stage 3, so they run two iterations ahead in three slots,
// and `order` issues the gemm before the copies.

// CHECK-LABEL: func.func @stage_override
// CHECK: memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: scf.for %{{.+}} = %c0 to %{{[0-9]+}} step %c1 {
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.mma.sync
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
func.func @stage_override(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %kt step %c1 stages(4) order [1, 2, 0] stage [1, 1, 3] {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A loop without global-to-shared copies is a plain scf.for.

// CHECK-LABEL: func.func @no_producers
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for
func.func @no_producers(%A: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc : memref<32xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      tile.copy %A[%k] -> %f : memref<?xf32> -> memref<32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A streaming loop whose shared tile is read by a parallel loop (not a
// gemm): the copy still runs two iterations ahead into three slots, and
// the loads of the parallel body read the slot of their iteration.

// CHECK-LABEL: func.func @parallel_reader
// CHECK: %[[BIG:.+]] = tile.alloc {layout = #tile.layout<[3, 4, 128], (d0, d1, d2) -> (d0 * 512 + d1 * 128 + d2)>} : memref<3x4x128xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: nvgpu.device_async_copy
// CHECK: scf.for %[[I:.+]] = %c0 to %{{[0-9]+}} step %c1 {
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[SLOT:.+]] = arith.remui %[[I]], %c3
// CHECK: memref.load %[[BIG]][%[[SLOT]], %{{.+}}, %{{.+}}] : memref<3x4x128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: {{^ *}}}{{ *$}}
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @parallel_reader(%X: memref<?x128xf32>, %Y: memref<4x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc : memref<4x128xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<4x128xf32, #tile.fragment>
    tile.clear %acc : memref<4x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %r = arith.muli %k, %c4 : index
      tile.copy %X[%r, %c0] -> %s : memref<?x128xf32> -> memref<4x128xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (4, 128) {
        %v = memref.load %s[%i, %j] : memref<4x128xf32, #gpu.address_space<workgroup>>
        %a = memref.load %acc[%i, %j] : memref<4x128xf32, #tile.fragment>
        %t = arith.addf %a, %v : f32
        memref.store %t, %acc[%i, %j] : memref<4x128xf32, #tile.fragment>
      }
    }
    tile.copy %acc -> %Y : memref<4x128xf32, #tile.fragment> -> memref<4x128xf32>
  }
  return
}

// -----

// The loop also writes the shared tile (a parallel store): it cannot be
// multi-buffered, so the loop runs unpipelined, with plain copies.

// CHECK-LABEL: func.func @written_tile
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: return
func.func @written_tile(%X: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc : memref<4x128xf32, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %r = arith.muli %k, %c4 : index
      tile.copy %X[%r, %c0] -> %s : memref<?x128xf32> -> memref<4x128xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (4, 128) {
        %v = memref.load %s[%i, %j] : memref<4x128xf32, #gpu.address_space<workgroup>>
        %t = arith.addf %v, %v : f32
        memref.store %t, %s[%i, %j] : memref<4x128xf32, #gpu.address_space<workgroup>>
      }
      tile.copy %s -> %X[%r, %c0] : memref<4x128xf32, #gpu.address_space<workgroup>> -> memref<?x128xf32>
    }
  }
  return
}

// -----

// cp.async counts whole elements: a pipelined copy of 4-bit elements is
// not issued asynchronously (it stays a plain copy into the slot).
// CHECK-LABEL: func.func @pipelined_f4
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: return
func.func @pipelined_f4(%A: memref<?x64xf4E2M1FN>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x64xf4E2M1FN, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      tile.copy %A[%k, %c0] -> %a : memref<?x64xf4E2M1FN> -> memref<64x64xf4E2M1FN, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// A ragged f16 source whose rows may be only 4- or 8-byte aligned (rows of
// 2, 4 or 6 halves, as A of a TN GEMM with small M): a vector that is not
// a whole aligned 16-byte cp.async is tried as two 8-byte runs, then as
// four 4-byte runs, each aligned and wholly inside or outside the tensor
// (the valid count a multiple of the run); only the rest is loaded
// synchronously. Rows of an odd number of halves take the same tests: every
// other row starts 4-byte aligned, and its vectors go in 4-byte runs.

// CHECK-LABEL: func.func @narrow_runs
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: } else {
// CHECK-NOT: arith.remui %strides{{.*}}, %c2
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: } else {
// CHECK: arith.remui %{{.+}}, %c4
// CHECK: nvgpu.device_async_copy {{.*}}, 4, %{{[^ ]*}} :
// CHECK: nvgpu.device_async_copy {{.*}}, 4, %{{[^ ]*}} :
// CHECK: } else {
// CHECK: arith.remui %{{.+}}, %c2
// CHECK-COUNT-4: nvgpu.device_async_copy {{.*}}, 2, %{{[^ ]*}} :
// CHECK: } else {
// CHECK: vector.maskedload
// The thread's second vector, alike:
// CHECK: nvgpu.device_async_copy {{.*}}, 4, %{{[^ ]*}} :
// CHECK: nvgpu.device_async_copy {{.*}}, 2, %{{[^ ]*}} :
// CHECK: vector.maskedload
// No third version of the copy for rows that are not 4-byte aligned:
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
func.func @narrow_runs(%X: memref<?x?xf16>, %Y: memref<32x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<32x64xf16, #tile.fragment>
    tile.clear %acc : memref<32x64xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %r = arith.muli %k, %c32 : index
      tile.copy %X[%r, %c0] -> %s : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
        %a = memref.load %acc[%i, %j] : memref<32x64xf16, #tile.fragment>
        %t = arith.addf %a, %v : f16
        memref.store %t, %acc[%i, %j] : memref<32x64xf16, #tile.fragment>
      }
    }
    tile.copy %acc -> %Y : memref<32x64xf16, #tile.fragment> -> memref<32x64xf16>
  }
  return
}

// -----

// Rows of a static length that is a multiple of the vector (64 halves, as
// FlashAttention's head dim) hold whole vectors: only a misaligned base or
// row stride could make a vector straddle, so there is no block-uniform
// row test and no narrow run. The edge path tries each 16-byte cp.async
// and else loads the vector's elements.

// CHECK-LABEL: func.func @whole_vector_rows
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: } else {
// CHECK-NOT: arith.remui %strides
// CHECK-NOT: nvgpu.device_async_copy {{.*}}, 4,
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK-NEXT: } else {
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: vector.maskedload
// CHECK-NOT: nvgpu.device_async_copy {{.*}}, 4,
// CHECK: nvvm.cp.async.commit.group
func.func @whole_vector_rows(%X: memref<?x64xf16>, %Y: memref<32x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<32x64xf16, #tile.fragment>
    tile.clear %acc : memref<32x64xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %r = arith.muli %k, %c32 : index
      tile.copy %X[%r, %c0] -> %s : memref<?x64xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
        %a = memref.load %acc[%i, %j] : memref<32x64xf16, #tile.fragment>
        %t = arith.addf %a, %v : f16
        memref.store %t, %acc[%i, %j] : memref<32x64xf16, #tile.fragment>
      }
    }
    tile.copy %acc -> %Y : memref<32x64xf16, #tile.fragment> -> memref<32x64xf16>
  }
  return
}
