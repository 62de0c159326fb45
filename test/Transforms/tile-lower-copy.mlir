// RUN: tile-opt %s -tile-lower -split-input-file -canonicalize | FileCheck %s

// A global -> fragment copy: each of the 4 threads loads one 16-byte vector
// of 8 halves (registers 0..7). One test per block picks the path: when the
// whole 2x16 tile is inside the tensor and aligned, plain vector loads;
// otherwise each vector is loaded whole when it is in bounds and aligned,
// is zeros when wholly outside, else comes from one masked load that reads
// zeros outside. The fragment becomes a
// private array of 8 registers; the converted f32 values go to global as
// two 16-byte vectors, with masked stores on the edge path.

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @global_to_fragment
// CHECK: %[[ZEROS:.+]] = arith.constant dense<0.000000e+00> : vector<8xf16>
// CHECK: tile.kernel
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[REGS:.+]] = tile.alloc : memref<8xf16, #gpu.address_space<private>>
// CHECK: scf.if %{{.+}} {
// CHECK-NOT: scf.if
// CHECK: vector.load %{{.+}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: memref.store %{{.+}}, %[[REGS]][%c7] : memref<8xf16, #gpu.address_space<private>>
// CHECK: } else {
// CHECK: scf.if %{{.+}} -> (vector<8xf16>)
// CHECK: vector.load %{{.+}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: else
// CHECK: %[[COUNT:.+]] = arith.select %{{.+}}, %{{.+}}, %c0 : index
// CHECK-NEXT: %[[NONE:.+]] = arith.cmpi eq, %[[COUNT]], %c0 : index
// CHECK-NEXT: scf.if %[[NONE]] -> (vector<8xf16>) {
// CHECK-NEXT: scf.yield %[[ZEROS]] : vector<8xf16>
// CHECK-NEXT: } else {
// CHECK: vector.maskedload %{{.+}}, %[[ZEROS]] : memref<?x?xf16>, vector<8xi1>, vector<8xf16> into vector<8xf16>
// CHECK: vector.extract %{{.+}}[7] : f16 from vector<8xf16>
// CHECK: memref.store %{{.+}}, %[[REGS]][%c7] : memref<8xf16, #gpu.address_space<private>>
// CHECK: memref.load %[[REGS]][%c0]
// CHECK: arith.extf %{{.+}} : vector<4xf16> to vector<4xf32>
// CHECK: vector.store %{{.+}} {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: vector.maskedstore %{{.+}} : memref<?x?xf32>, vector<4xi1>, vector<4xf32>
// CHECK-NOT: tile.copy
func.func @global_to_fragment(%A: memref<?x?xf16>, %B: memref<?x?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf16, #tile.fragment>
    tile.copy %A[%i, %i] -> %f : memref<?x?xf16> -> memref<2x16xf16, #tile.fragment>
    tile.copy %f -> %B[%i, %i] : memref<2x16xf16, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// Static global shapes that are multiples of the tile need no bounds
// check; shared buffers with a layout are addressed through their flat
// view at the layout's offset: here 4-element chunks XORed with the row's
// low bit (vectors stay whole within a chunk).

#loop = #tile.fragment<[4, 8], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 4, d1 mod 4)>
// CHECK-LABEL: func.func @global_to_shared
// CHECK: %[[S:.+]] = tile.alloc {layout = {{.+}}} : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[FLAT:.+]] = memref.collapse_shape %[[S]]
// CHECK-NOT: memref.dim
// CHECK: scf.if %{{.+}} {
// CHECK: %[[V:.+]] = vector.load %{{.+}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: %[[OFF:.+]] = arith.addi
// CHECK-NEXT: %[[HI:.+]] = arith.shrui %[[OFF]], %c3
// CHECK: %[[BIT:.+]] = arith.andi %[[HI]], %c1
// CHECK: %[[FLIP:.+]] = arith.shli %[[BIT]], %c2
// CHECK: %[[SW:.+]] = arith.xori %[[OFF]], %[[FLIP]]
// CHECK: vector.store %[[V]], %[[FLAT]][%[[SW]]] {alignment = 16 : i64} : memref<32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: } else {
// CHECK: scf.if %{{.+}} -> (vector<4xf32>) {
// CHECK: vector.load %{{.+}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: vector.load %{{.+}} : memref<64x64xf32>, vector<4xf32>
func.func @global_to_shared(%A: memref<64x64xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 8 + d1), xor<1, 2, 1>>} : memref<4x8xf32, #gpu.address_space<workgroup>>
    tile.copy %A[%i, %i] -> %s {tile.loop = #loop} : memref<64x64xf32> -> memref<4x8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A rank-reducing copy from a batched 3-d tensor with a scalar binding
// (one element per register).

#loop = #tile.fragment<[2, 4], threads = 8, (d0, d1) -> (d0 * 4 + d1, 0)>
// CHECK-LABEL: func.func @rank_reducing
// CHECK: memref.load %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] : memref<?x?x?xf32>
// CHECK: memref.store %{{.+}} : memref<2x4xf32, #gpu.address_space<workgroup>>
func.func @rank_reducing(%A: memref<?x?x?xf32>, %b: index, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<2x4xf32, #gpu.address_space<workgroup>>
    tile.copy %A[%b, %i, %i] -> %s {tile.loop = #loop} : memref<?x?x?xf32> -> memref<2x4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Local buffers are per thread: every thread copies the whole tile, here
// as two 16-byte vectors, masked at the end of the global operand; a local
// tile goes to shared memory the same way (no tile.loop needed).

// CHECK-LABEL: func.func @local
// CHECK: %[[L:.+]] = tile.alloc : memref<8xf32, #gpu.address_space<private>>
// CHECK: %[[V0:.+]] = scf.if %{{.+}} -> (vector<4xf32>)
// CHECK: vector.load %{{.+}}[%[[I:.+]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: vector.store %[[V0]], %[[L]][%c0] {alignment = 16 : i64}
// CHECK: %[[V1:.+]] = scf.if %{{.+}} -> (vector<4xf32>)
// CHECK: vector.store %[[V1]], %[[L]][%c4] {alignment = 16 : i64}
// CHECK: %[[W:.+]] = vector.load %[[L]][%c0] {alignment = 16 : i64}
// CHECK: vector.store %[[W]], %{{.+}}[%c0] {alignment = 16 : i64} : memref<8xf32, #gpu.address_space<workgroup>>
func.func @local(%A: memref<?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %l = tile.alloc : memref<8xf32, #gpu.address_space<private>>
    %s = tile.alloc : memref<8xf32, #gpu.address_space<workgroup>>
    tile.copy %A[%i] -> %l : memref<?xf32> -> memref<8xf32, #gpu.address_space<private>>
    tile.copy %l -> %s : memref<8xf32, #gpu.address_space<private>> -> memref<8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A fragment laid out as an mma accumulator (each thread of a quad holds
// two consecutive columns of every 8-column group of its row) stored to
// f16: the quad's threads transpose their 4-byte words (three xor
// shuffles, the word sent and the slot received picked by selects on the
// lane's bits), so that thread j stores the eight columns of group j in
// one 16-byte vector, j * 6 columns past its own first pair. To f32 the
// pairs are 8 bytes and a quad's block would need registers the threads do
// not hold: 8-byte stores, no shuffle.
#acc = #tile.fragment<[8, 32], threads = 32, (d0, d1) -> (d0 * 4 + (d1 mod 8) floordiv 2, (d1 floordiv 8) * 2 + d1 mod 2)>
// CHECK-LABEL: func.func @quad_exchange
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LANE:.+]] = arith.remui %[[TID]], %c4
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.+}}, %c2_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.+}}, %c3_i32, %c32_i32 : i32
// CHECK: %[[SHIFT:.+]] = arith.muli %[[LANE]], %c6 : index
// CHECK: %[[COL:.+]] = arith.addi %{{.+}}, %[[SHIFT]] : index
// CHECK: %[[AT:.+]] = arith.addi %{{.+}}, %[[COL]] : index
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %[[AT]]] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// The edge path exchanges the same way; a vector that straddles the
// tensor's edge goes out masked.
// CHECK: } else {
// CHECK-COUNT-3: gpu.shuffle xor
// CHECK: vector.maskedstore %{{.+}} : memref<?x?xf16>, vector<8xi1>, vector<8xf16>
// CHECK-NOT: gpu.shuffle
// CHECK: vector.store %{{.+}} : memref<?x?xf32>, vector<2xf32>
func.func @quad_exchange(%O: memref<?x?xf16>, %P: memref<?x?xf32>, %i: index) {
  tile.kernel blocks(%bx) in (%i) threads(32) {
    %f = tile.alloc {layout = #acc} : memref<8x32xf32, #tile.fragment>
    tile.clear %f : memref<8x32xf32, #tile.fragment>
    tile.copy %f -> %O[%i, %i] : memref<8x32xf32, #tile.fragment> -> memref<?x?xf16>
    tile.copy %f -> %P[%i, %i] : memref<8x32xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// The loop layout inference gives a copy whose 1024 vectors do not split
// over 384 threads: 256 threads copy four vectors each and the others
// skip the copy, on the aligned path and on the one that checks each
// vector's alignment.

// CHECK-LABEL: func.func @copy_uneven_threads
// CHECK:     %[[TID:.*]] = gpu.thread_id x
// CHECK:     arith.cmpi ult, %[[TID]], %c256
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x128xf16>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK:     arith.cmpi ult, %[[TID]], %c256
// CHECK:     return
func.func @copy_uneven_threads(%A: memref<64x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(384) {
    %As = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %As {tile.loop = #tile.fragment<[64, 128], threads = 384, (d0, d1) -> ((d0 mod 16) * 16 + d1 floordiv 8, (d0 floordiv 16) * 8 + d1 mod 8)>} : memref<64x128xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A global view whose last dimension is not contiguous (a transpose,
// strided<[1, ?]>) takes its elements one at a time: no vectors, and no
// lane exchange for wider stores (fuzz seed 113).

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @copy_transposed_view
// CHECK-NOT:   vector.store
// CHECK-NOT:   gpu.shuffle
// CHECK-COUNT-8: memref.store %{{.+}} : memref<?x?xf32, strided<[1, ?]>>
// CHECK-NOT:   vector.store
func.func @copy_transposed_view(%t: memref<?x?xf32, strided<[1, ?]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf32, #tile.fragment>
    tile.copy %f -> %t[%c0, %c0] : memref<2x16xf32, #tile.fragment> -> memref<?x?xf32, strided<[1, ?]>>
  }
  return
}

// -----

// The same for a shared view passed in (fuzz seed 114).

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @copy_transposed_shared_view
// CHECK-NOT:   vector.store
// CHECK-COUNT-8: memref.store %{{.+}} : memref<?x?xf32, strided<[1, ?]>, #gpu.address_space<workgroup>>
// CHECK-NOT:   vector.store
func.func @copy_transposed_shared_view(%t: memref<?x?xf32, strided<[1, ?]>, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf32, #tile.fragment>
    tile.copy %f -> %t[%c0, %c0] : memref<2x16xf32, #tile.fragment> -> memref<?x?xf32, strided<[1, ?]>, #gpu.address_space<workgroup>>
  }
  return
}
