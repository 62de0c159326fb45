// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-lower -split-input-file -canonicalize | FileCheck %s

// fill and clear: every register of a fragment, every element of a local
// buffer, and the flat shared buffer strided over the block.

#frag = #tile.fragment<[4, 4], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>
// CHECK-LABEL: func.func @fill
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[S:.+]] = tile.alloc : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[L:.+]] = tile.alloc : memref<2x2xf32, #gpu.address_space<private>>
// CHECK: %[[R:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: memref.store %[[V:.+]], %[[R]][%c0]
// CHECK: memref.store %[[V]], %[[R]][%c1]
// CHECK: %[[LF:.+]] = memref.collapse_shape %[[L]]
// CHECK-COUNT-4: memref.store %cst{{.*}}, %[[LF]][%c{{[0-3]}}]
// CHECK: %[[SF:.+]] = memref.collapse_shape %[[S]]
// CHECK: scf.for %[[I:.+]] = %[[TID]] to %c32 step %c8 {
// CHECK:   memref.store %[[V]], %[[SF]][%[[I]]]
func.func @fill(%v: f32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<4x8xf32, #gpu.address_space<workgroup>>
    %l = tile.alloc : memref<2x2xf32, #gpu.address_space<private>>
    %f = tile.alloc {layout = #frag} : memref<4x4xf32, #tile.fragment>
    tile.fill %f, %v : memref<4x4xf32, #tile.fragment>
    tile.clear %l : memref<2x2xf32, #gpu.address_space<private>>
    tile.fill %s, %v : memref<4x8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Buffers of rank 0 are filled in place (nothing to collapse): the local
// one by every thread, the shared one by thread 0 of the strided loop.
// CHECK-LABEL: func.func @fill_rank0
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[S:.+]] = tile.alloc : memref<f32, #gpu.address_space<workgroup>>
// CHECK: %[[L:.+]] = tile.alloc : memref<bf16, #gpu.address_space<private>>
// CHECK-NOT: memref.collapse_shape
// CHECK: memref.store %{{.+}}, %[[L]][] : memref<bf16, #gpu.address_space<private>>
// CHECK: scf.for %{{.+}} = %[[TID]] to %c1 step %c8 {
// CHECK:   memref.store %{{.+}}, %[[S]][] : memref<f32, #gpu.address_space<workgroup>>
func.func @fill_rank0(%v: f32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<f32, #gpu.address_space<workgroup>>
    %l = tile.alloc : memref<bf16, #gpu.address_space<private>>
    tile.clear %l : memref<bf16, #gpu.address_space<private>>
    tile.fill %s, %v : memref<f32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A reverse cumsum of a shared buffer in place: one row per thread,
// walking the columns from the last.

// CHECK-LABEL: func.func @cumsum
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: scf.for %[[O:.+]] = %[[TID]] to %c4 step %c8 {
// CHECK: %[[ROW:.+]] = arith.remui %[[O]], %c4
// CHECK: scf.for %[[K:.+]] = %c0 to %c16 step %c1 iter_args(%[[ACC:.+]] = %cst) -> (f32) {
// CHECK: %[[COL:.+]] = arith.subi %c15, %[[K]]
// CHECK: %[[X:.+]] = memref.load %[[S:.+]][%[[ROW]], %[[COL]]]
// CHECK: %[[SUM:.+]] = arith.addf %[[ACC]], %[[X]]
// CHECK: memref.store %[[SUM]], %[[S]][%[[ROW]], %[[COL]]]
// CHECK: scf.yield %[[SUM]]
func.func @cumsum() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<4x16xf32, #gpu.address_space<workgroup>>
    tile.cumsum %s -> %s dim(1) reverse : memref<4x16xf32, #gpu.address_space<workgroup>> -> memref<4x16xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Atomic add of a fragment into a dynamically shaped global tensor: one
// memref.atomic_rmw per element, dropped out of bounds.

#frag = #tile.fragment<[2, 4], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>
// CHECK-LABEL: func.func @atomic
// CHECK: %[[R:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[W:.+]] = memref.load %[[R]][%c0]
// CHECK: scf.if %{{.+}} {
// CHECK: memref.atomic_rmw addf %[[W]], %{{.+}}[%{{.+}}, %{{.+}}] : (f32, memref<?x?xf32>) -> f32
// CHECK: memref.load %[[R]][%c1]
// CHECK: memref.atomic_rmw addf
func.func @atomic(%out: memref<?x?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x4xf32, #tile.fragment>
    tile.atomic add %f -> %out[%i, %i] : memref<2x4xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// Barriers: after the copy into shared memory before the parallel loop
// reads it; not between two reads; at the end of a loop body whose next
// iteration overwrites a buffer this one read.

#loop = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0)>
#rev = #tile.fragment<[8], threads = 8, (d0) -> (d0 floordiv 4 + (d0 mod 4) * 2, 0)>
// CHECK-LABEL: func.func @barriers
// CHECK: scf.for
// CHECK: memref.store %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load {{.*}}workgroup
// CHECK: gpu.barrier
// CHECK: memref.load %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.+}} : memref<?xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK-NOT: tile.
// CHECK: return
func.func @barriers(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<8xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %in[%k] -> %s {tile.loop = #loop} : memref<?xf32> -> memref<8xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i) in (8) layout(#rev) {
        %a = memref.load %s[%i] : memref<8xf32, #gpu.address_space<workgroup>>
        %c7 = arith.constant 7 : index
        %j = arith.subi %c7, %i : index
        %b = memref.load %s[%j] : memref<8xf32, #gpu.address_space<workgroup>>
        %c = arith.addf %a, %b : f32
        memref.store %c, %out[%i] : memref<?xf32>
      }
    }
  }
  return
}

// -----

// A fragment cumsum whose rows are each held by one thread: a running sum
// over the row's registers in order (reversed here), in place (every
// register read before any is written).

#rows = #tile.fragment<[4, 3], threads = 4, (d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fragment_cumsum
// CHECK: %[[R:.+]] = tile.alloc : memref<3xf32, #gpu.address_space<private>>
// CHECK: %[[X2:.+]] = memref.load %[[R]][%c2]
// CHECK: %[[A2:.+]] = arith.addf %[[X2]], %cst
// CHECK: %[[X1:.+]] = memref.load %[[R]][%c1]
// CHECK: %[[A1:.+]] = arith.addf %[[A2]], %[[X1]]
// CHECK: %[[X0:.+]] = memref.load %[[R]][%c0]
// CHECK: %[[A0:.+]] = arith.addf %[[A1]], %[[X0]]
// CHECK: memref.store %[[A2]], %[[R]][%c2]
// CHECK: memref.store %[[A1]], %[[R]][%c1]
// CHECK: memref.store %[[A0]], %[[R]][%c0]
// CHECK-NOT: gpu.shuffle
func.func @fragment_cumsum() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #rows} : memref<4x3xf32, #tile.fragment>
    tile.cumsum %f -> %f dim(1) reverse : memref<4x3xf32, #tile.fragment> -> memref<4x3xf32, #tile.fragment>
  }
  return
}

// -----

// A pipelined loop holding a gemm: its copy into shared memory runs one
// iteration ahead as cp.async into two slots, the gemm becomes mma.sync on
// the accumulator's registers, and no tile operator is left.

#loop = #tile.fragment<[16, 16], threads = 32, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @with_gemm
// CHECK: tile.alloc {layout = #tile.layout<[2, 16, 16], (d0, d1, d2) -> (d0 * 256 + d1 * 16 + d2)>} : memref<2x16x16xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc : memref<4xf32, #gpu.address_space<private>>
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.mma.sync
// CHECK-NOT: tile.copy
// CHECK-NOT: tile.gemm
func.func @with_gemm(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      tile.copy %A[%c0, %k] -> %a {tile.loop = #loop} : memref<?x?xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A replicated fragment (each element on two threads) is written to global
// memory and added atomically by its first replica only.

#rep = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 + s0 * 4, 0), replicate = 2>
// CHECK-LABEL: func.func @replicated_out
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[HI:.+]] = arith.shrui %[[TID]], %c2
// CHECK: %[[REP:.+]] = arith.andi %[[HI]], %c1
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[REP]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.+}} : memref<4xf32>
// CHECK: %[[FIRST2:.+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK: scf.if %[[FIRST2]] {
// CHECK: memref.atomic_rmw addf %{{.+}} : (f32, memref<4xf32>) -> f32
func.func @replicated_out(%out: memref<4xf32>, %sum: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %r = tile.alloc {layout = #rep} : memref<4xf32, #tile.fragment>
    tile.copy %r -> %out : memref<4xf32, #tile.fragment> -> memref<4xf32>
    tile.atomic add %r -> %sum[%c0] : memref<4xf32, #tile.fragment> -> memref<4xf32>
  }
  return
}

// -----

// Rows of 8 spread over 4 consecutive lanes, 2 each: running sums in each
// thread, then the chunk totals scanned over the lanes with shuffles up
// (offsets 1 and 2), and the sum of the earlier chunks (one more shuffle up,
// zero on the row's first lane) added to the thread's sums.

#chunks = #tile.fragment<[2, 8], threads = 8, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>
// CHECK-LABEL: func.func @fragment_cumsum_lanes
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LANE:.+]] = arith.andi %[[TID]], %c3
// CHECK: %[[S0:.+]] = arith.addf %{{.+}}, %cst
// CHECK: %[[S1:.+]] = arith.addf %[[S0]], %{{.+}}
// CHECK: %[[U1:.+]], %{{.+}} = gpu.shuffle  up %[[S1]], %c1_i32, %c32_i32
// CHECK: %[[P1:.+]] = arith.addf %[[S1]], %[[U1]]
// CHECK: %[[H1:.+]] = arith.cmpi uge, %[[LANE]], %c1
// CHECK: %[[I1:.+]] = arith.select %[[H1]], %[[P1]], %[[S1]]
// CHECK: gpu.shuffle  up %[[I1]], %c2_i32, %c32_i32
// CHECK: %[[I2:.+]] = arith.select
// CHECK: %[[B:.+]], %{{.+}} = gpu.shuffle  up %[[I2]], %c1_i32, %c32_i32
// CHECK: %[[BEFORE:.+]] = arith.select %{{.+}}, %[[B]], %cst
// CHECK: %[[R0:.+]] = arith.addf %[[BEFORE]], %[[S0]]
// CHECK: %[[R1:.+]] = arith.addf %[[BEFORE]], %[[S1]]
// CHECK: memref.store %[[R0]], %{{.+}}[%c0]
// CHECK: memref.store %[[R1]], %{{.+}}[%c1]
func.func @fragment_cumsum_lanes() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #chunks} : memref<2x8xf32, #tile.fragment>
    %g = tile.alloc {layout = #chunks} : memref<2x8xf32, #tile.fragment>
    tile.cumsum %f -> %g dim(1) : memref<2x8xf32, #tile.fragment> -> memref<2x8xf32, #tile.fragment>
  }
  return
}
