// RUN: tile-opt %s -tile-attach-target=chip=sm_90a -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,SM80

// tile.atomic add in vectors: consecutive registers along a row of a
// global tensor with unit stride go out as one tile.red (a red.global.add
// instruction) where the vector is in bounds and aligned to its size,
// element by element otherwise. sm_90 (vector_atomics) adds 8 halves at
// once; older NVIDIA chips add f16 pairs.

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @frag_f16
// SM90:      %[[ADDR:.+]] = arith.addi %intptr, %{{.+}} : index
// SM90:      %[[LOW:.+]] = arith.andi %[[ADDR]], %c15 : index
// SM90:      %[[AL:.+]] = arith.cmpi eq, %[[LOW]], %c0 : index
// SM90:      %[[LAST:.+]] = arith.addi %{{.+}}, %c7 : index
// SM90:      arith.cmpi ult, %[[LAST]], %{{.+}} : index
// SM90:      scf.if %{{.+}} {
// SM90:        %[[V:.+]] = vector.from_elements {{.+}} : vector<8xf16>
// SM90:        tile.red %[[V]], %arg0[%{{.+}}, %{{.+}}] : vector<8xf16>, memref<?x?xf16>
// SM90:      } else {
// SM90-COUNT-8: memref.atomic_rmw addf
// SM90:      }
// SM90-NOT:  tile.red
// Four pairs a thread on sm_80, each aligned to 4 bytes or two elements.
// SM80:      arith.andi %{{.+}}, %c3 : index
// SM80:      tile.red %{{.+}} : vector<2xf16>, memref<?x?xf16>
// SM80:      } else {
// SM80-COUNT-2: memref.atomic_rmw addf
// SM80-COUNT-3: tile.red %{{.+}} : vector<2xf16>, memref<?x?xf16>
// SM80-NOT:  tile.red
func.func @frag_f16(%out: memref<?x?xf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf16, #tile.fragment>
    tile.atomic add %f -> %out[%i, %i] : memref<2x16xf16, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// f32 in vectors of 4 on sm_90; no f32 vector before it.

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @frag_f32
// SM90-COUNT-2: tile.red %{{.+}} : vector<4xf32>, memref<?x?xf32>
// SM80-NOT:  tile.red
// SM80-COUNT-8: memref.atomic_rmw addf
func.func @frag_f32(%out: memref<?x?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf32, #tile.fragment>
    tile.atomic add %f -> %out[%i, %i] : memref<2x16xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// bf16: vectors on sm_90 only (bf16x2 reductions need it).

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @frag_bf16
// SM90:      tile.red %{{.+}} : vector<8xbf16>, memref<?x?xbf16>
// SM80-NOT:  tile.red
// SM80:      memref.atomic_rmw addf
func.func @frag_bf16(%out: memref<?x?xbf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xbf16, #tile.fragment>
    tile.atomic add %f -> %out[%i, %i] : memref<2x16xbf16, #tile.fragment> -> memref<?x?xbf16>
  }
  return
}

// -----

// A shared tile added by a block: the coalesced binding gives each of the
// 128 threads one vector of 8 halves of a row of the 16x64 tile, read from
// shared memory and added as one red.global.add on sm_90 (four f16x2 on
// sm_80).

// CHECK-LABEL: func.func @shared_f16
// SM90-COUNT-8: memref.load %{{.+}} : memref<16x64xf16, #gpu.address_space<workgroup>>
// SM90:      tile.red %{{.+}} : vector<8xf16>, memref<?x?xf16>
// SM90-NOT:  tile.red
// SM80-COUNT-4: tile.red %{{.+}} : vector<2xf16>, memref<?x?xf16>
// SM80-NOT:  tile.red
func.func @shared_f16(%out: memref<?x?xf16>, %i: index, %j: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // The column origin is a known multiple of 64: whole vectors of a row.
  %j64 = arith.muli %j, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.atomic add %s -> %out[%i, %j64] : memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<?x?xf16>
  }
  return
}

// -----

// No vectors for max and min, nor along a dimension without unit stride.

#frag = #tile.fragment<[2, 16], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>
// CHECK-LABEL: func.func @scalar
// CHECK-NOT:  tile.red
// CHECK-COUNT-8: memref.atomic_rmw maxnumf
// CHECK-NOT:  tile.red
// CHECK-COUNT-8: memref.atomic_rmw addf %{{.+}} : (f16, memref<?x?xf16, strided<[1, ?]>>)
// CHECK-NOT:  tile.red
func.func @scalar(%out: memref<?x?xf16>, %t: memref<?x?xf16, strided<[1, ?]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %f = tile.alloc {layout = #frag} : memref<2x16xf16, #tile.fragment>
    tile.atomic max %f -> %out[%c0, %c0] : memref<2x16xf16, #tile.fragment> -> memref<?x?xf16>
    tile.atomic add %f -> %t[%c0, %c0] : memref<2x16xf16, #tile.fragment> -> memref<?x?xf16, strided<[1, ?]>>
  }
  return
}

// -----

// A shared source passed in as a transposed view is read element by
// element: no vectors are formed from it.

// CHECK-LABEL: func.func @shared_view_source
// CHECK-NOT:   tile.red
// CHECK:       memref.atomic_rmw addf
// CHECK-NOT:   tile.red
func.func @shared_view_source(%out: memref<?x?xf16>, %s: memref<16x64xf16, strided<[1, 16]>, #gpu.address_space<workgroup>>, %i: index, %j: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %j64 = arith.muli %j, %c64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    tile.atomic add %s -> %out[%i, %j64] : memref<16x64xf16, strided<[1, 16]>, #gpu.address_space<workgroup>> -> memref<?x?xf16>
  }
  return
}
