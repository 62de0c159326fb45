// RUN: tile-opt %s -tile-lower -split-input-file -canonicalize | FileCheck %s

// Row sum: each thread folds its 2 registers of a row, then the 4 lanes
// of the row combine with two xor shuffles; every lane holds the result
// (the destination is replicated over them).

#src = #tile.fragment<[2, 8], threads = 8, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>
#dst = #tile.fragment<[2], threads = 8, (d0)[s0] -> (d0 * 4 + s0, 0), replicate = 4>
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[S:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[D:.+]] = tile.alloc : memref<1xf32, #gpu.address_space<private>>
// CHECK: %[[X0:.+]] = memref.load %[[S]][%c0]
// CHECK: %[[A0:.+]] = arith.addf %[[X0]], %cst
// CHECK: %[[X1:.+]] = memref.load %[[S]][%c1]
// CHECK: %[[A1:.+]] = arith.addf %[[A0]], %[[X1]]
// CHECK: %[[SH1:.+]], %{{.+}} = gpu.shuffle  xor %[[A1]], %c1_i32, %c32_i32 : f32
// CHECK: %[[A2:.+]] = arith.addf %[[A1]], %[[SH1]]
// CHECK: %[[SH2:.+]], %{{.+}} = gpu.shuffle  xor %[[A2]], %c2_i32, %c32_i32 : f32
// CHECK: %[[A3:.+]] = arith.addf %[[A2]], %[[SH2]]
// CHECK: memref.store %[[A3]], %[[D]][%c0]
// CHECK-NOT: gpu.barrier
func.func @row_sum() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc {layout = #src} : memref<2x8xf32, #tile.fragment>
    %d = tile.alloc {layout = #dst} : memref<2xf32, #tile.fragment>
    tile.reduce sum %s -> %d dim(1) : memref<2x8xf32, #tile.fragment> -> memref<2xf32, #tile.fragment>
  }
  return
}

// -----

// An f16 source into an f32 destination: each register is extended before
// it is added, and the shuffles carry f32.

#src = #tile.fragment<[2, 8], threads = 8, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>
#dst = #tile.fragment<[2], threads = 8, (d0)[s0] -> (d0 * 4 + s0, 0), replicate = 4>
// CHECK-LABEL: func.func @row_sum_wider
// CHECK: %[[S:.+]] = tile.alloc : memref<2xf16, #gpu.address_space<private>>
// CHECK: %[[D:.+]] = tile.alloc : memref<1xf32, #gpu.address_space<private>>
// CHECK: %[[X0:.+]] = memref.load %[[S]][%c0]
// CHECK: %[[E0:.+]] = arith.extf %[[X0]] : f16 to f32
// CHECK: %[[A0:.+]] = arith.addf %[[E0]], %cst
// CHECK: %[[X1:.+]] = memref.load %[[S]][%c1]
// CHECK: %[[E1:.+]] = arith.extf %[[X1]] : f16 to f32
// CHECK: %[[A1:.+]] = arith.addf %[[A0]], %[[E1]]
// CHECK: gpu.shuffle  xor %[[A1]], %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : f32
// CHECK: memref.store %{{.+}}, %[[D]][%c0] : memref<1xf32
func.func @row_sum_wider() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc {layout = #src} : memref<2x8xf16, #tile.fragment>
    %d = tile.alloc {layout = #dst} : memref<2xf32, #tile.fragment>
    tile.reduce sum %s -> %d dim(1) : memref<2x8xf16, #tile.fragment> -> memref<2xf32, #tile.fragment>
  }
  return
}

// -----

// Shared to shared, f16 into f32: the per-output loop carries f32.

// CHECK-LABEL: func.func @shared_sum_wider
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32)
// CHECK:   %[[X:.+]] = memref.load {{.*}} : memref<4x64xf16, #gpu.address_space<workgroup>>
// CHECK:   %[[E:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK:   arith.addf %[[ACC]], %[[E]] : f32
func.func @shared_sum_wider() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc : memref<4x64xf16, #gpu.address_space<workgroup>>
    %d = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    tile.reduce sum %s -> %d dim(0) : memref<4x64xf16, #gpu.address_space<workgroup>> -> memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Column max with clear = false over two warps: the two threads holding a
// column's inputs (t and t ^ 32) meet in shared scratch memory, one
// partial per thread, between two barriers; the result is combined with
// the destination's registers. absmax takes absolute values first.

#src = #tile.fragment<[2, 64], threads = 64, (d0, d1) -> (d0 * 32 + d1 floordiv 2, d1 mod 2)>
#dst = #tile.fragment<[64], threads = 64, (d0)[s0] -> (s0 * 32 + d0 floordiv 2, d0 mod 2), replicate = 2>
// CHECK-LABEL: func.func @column_absmax
// CHECK: %[[SCRATCH:.+]] = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[S:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[D:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[X0:.+]] = memref.load %[[S]][%c0]
// CHECK: %[[N0:.+]] = arith.negf %[[X0]]
// CHECK: %[[ABS0:.+]] = arith.maxnumf %[[X0]], %[[N0]]
// CHECK: memref.store %{{.+}}, %[[SCRATCH]][%[[TID]]]
// CHECK: %[[AT1:.+]] = arith.addi %[[TID]], %c64
// CHECK: memref.store %{{.+}}, %[[SCRATCH]][%[[AT1]]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SCRATCH]][%[[TID]]]
// CHECK: %[[OTHER:.+]] = arith.xori %[[TID]], %c32
// CHECK: memref.load %[[SCRATCH]][%[[OTHER]]]
// CHECK: %[[OLD:.+]] = memref.load %[[D]][%c0]
// CHECK: %[[NEW:.+]] = arith.maxnumf %[[OLD]], %{{.+}}
// CHECK: memref.store %[[NEW]], %[[D]][%c0]
// CHECK: memref.store %{{.+}}, %[[D]][%c1]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
func.func @column_absmax() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc {layout = #src} : memref<2x64xf32, #tile.fragment>
    %d = tile.alloc {layout = #dst} : memref<64xf32, #tile.fragment>
    tile.reduce absmax %s -> %d dim(0) {clear = false} : memref<2x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// Shared buffers: each thread reduces whole rows, striding over the rows
// by the block size.

// CHECK-LABEL: func.func @shared_min
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: scf.for %[[O:.+]] = %[[TID]] to %c4 step %c8 {
// CHECK: %[[ROW:.+]] = arith.remui %[[O]], %c4
// CHECK: %[[R:.+]] = scf.for %[[K:.+]] = %c0 to %c8 step %c1 iter_args(%[[ACC:.+]] = %cst) -> (f32) {
// CHECK: %[[X:.+]] = memref.load %{{.+}}[%[[ROW]], %[[K]]]
// CHECK: %[[M:.+]] = arith.minnumf %[[ACC]], %[[X]]
// CHECK: scf.yield %[[M]]
// CHECK: memref.store %[[R]], %{{.+}}[%[[ROW]], %c0] : memref<4x1xf32, #gpu.address_space<workgroup>>
func.func @shared_min() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<4x8xf32, #gpu.address_space<workgroup>>
    %d = tile.alloc : memref<4x1xf32, #gpu.address_space<workgroup>>
    tile.reduce min %s -> %d dim(1) : memref<4x8xf32, #gpu.address_space<workgroup>> -> memref<4x1xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// From a fragment into shared memory: after the shuffles, the first lane
// of each row's four (thread bits 0 and 1 clear) adds the row's sum into
// the shared destination (clear = false).

#src = #tile.fragment<[2, 8], threads = 8, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>
// CHECK-LABEL: func.func @to_shared
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[D:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf
// CHECK-NEXT: %[[LOW:.+]] = arith.andi %[[TID]], %c3
// CHECK-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[HI:.+]] = arith.shrui %[[TID]], %c2
// CHECK-NEXT: %[[ROW:.+]] = arith.andi %[[HI]], %c1
// CHECK-NEXT: %[[OLD:.+]] = memref.load %[[D]][%[[ROW]]]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK: memref.store %[[NEW]], %[[D]][%[[ROW]]]
func.func @to_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc {layout = #src} : memref<2x8xf32, #tile.fragment>
    %d = tile.alloc : memref<2xf32, #gpu.address_space<workgroup>>
    tile.reduce sum %s -> %d dim(1) {clear = false} : memref<2x8xf32, #tile.fragment> -> memref<2xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Only 16 of the 32 threads hold inputs: the shuffles still run on the
// whole warp, only the write is guarded.

#src = #tile.fragment<[4, 8], threads = 32, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>
#dst = #tile.fragment<[4], threads = 32, (d0)[s0] -> (d0 * 4 + s0, 0), replicate = 4>
// CHECK-LABEL: func.func @partial_warp
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK-NOT: scf.if
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf
// CHECK-NEXT: %[[ACTIVE:.+]] = arith.cmpi ult, %[[TID]], %c16
// CHECK-NEXT: scf.if %[[ACTIVE]] {
// CHECK-NEXT: memref.store %[[SUM]]
func.func @partial_warp() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc {layout = #src} : memref<4x8xf32, #tile.fragment>
    %d = tile.alloc {layout = #dst} : memref<4xf32, #tile.fragment>
    tile.reduce sum %s -> %d dim(1) : memref<4x8xf32, #tile.fragment> -> memref<4xf32, #tile.fragment>
  }
  return
}
