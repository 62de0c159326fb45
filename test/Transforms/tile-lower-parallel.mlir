// RUN: tile-opt %s -tile-lower -split-input-file -canonicalize | FileCheck %s

// Each of 4 threads runs the two points of the 2x4 loop it owns, fully
// unrolled: the fragment accesses become constant-indexed register
// accesses, the replicated bias element of column j is the register the
// thread holds it in (also constant), global accesses stay as they are.

#frag = #tile.fragment<[2, 4], threads = 4, (d0, d1) -> (d1 floordiv 2 + d0 * 2, d1 mod 2)>
#bias = #tile.fragment<[4], threads = 4, (d0)[s0] -> (d0 floordiv 2 + s0 * 2, d0 mod 2), replicate = 2>
// CHECK-LABEL: func.func @bias
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG: %[[A:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK-DAG: %[[B:.+]] = tile.alloc : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[X0:.+]] = memref.load %[[A]][%c0]
// CHECK: %[[Y0:.+]] = memref.load %[[B]][%c0]
// CHECK: %[[S0:.+]] = arith.addf %[[X0]], %[[Y0]]
// CHECK: memref.store %[[S0]], %[[A]][%c0]
// CHECK: memref.store %[[S0]], %{{.+}}[%{{.+}}, %{{.+}}] : memref<2x4xf32>
// CHECK: %[[X1:.+]] = memref.load %[[A]][%c1]
// CHECK: %[[Y1:.+]] = memref.load %[[B]][%c1]
// CHECK: %[[S1:.+]] = arith.addf %[[X1]], %[[Y1]]
// CHECK: memref.store %[[S1]], %[[A]][%c1]
// CHECK-NOT: tile.parallel
func.func @bias(%out: memref<2x4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %a = tile.alloc {layout = #frag} : memref<2x4xf32, #tile.fragment>
    %b = tile.alloc {layout = #bias} : memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (2, 4) layout(#frag) {
      %x = memref.load %a[%i, %j] : memref<2x4xf32, #tile.fragment>
      %y = memref.load %b[%j] : memref<4xf32, #tile.fragment>
      %s = arith.addf %x, %y : f32
      memref.store %s, %a[%i, %j] : memref<2x4xf32, #tile.fragment>
      memref.store %s, %out[%i, %j] : memref<2x4xf32>
    }
  }
  return
}

// -----

// A loop over a replicated layout runs on every replica: 8 threads hold
// 4 elements twice, thread t runs element t mod 4. Threads beyond the
// layout's (here all 8 work) would be guarded off.

#rep = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 + s0 * 4, 0), replicate = 2>
// CHECK-LABEL: func.func @replicated
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[R:.+]] = tile.alloc : memref<1xf32, #gpu.address_space<private>>
// CHECK: %[[B0:.+]] = arith.andi %[[TID]], %c1
// CHECK: %[[SH:.+]] = arith.shrui %[[TID]], %c1
// CHECK: %[[B1:.+]] = arith.andi %[[SH]], %c1
// CHECK: %[[B1S:.+]] = arith.muli %[[B1]], %c2
// CHECK: %[[I:.+]] = arith.xori %[[B0]], %[[B1S]]
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%[[I]]] : memref<4xf32>
// CHECK: memref.store %[[V]], %[[R]][%c0]
func.func @replicated(%in: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %r = tile.alloc {layout = #rep} : memref<4xf32, #tile.fragment>
    tile.parallel (%i) in (4) layout(#rep) {
      %v = memref.load %in[%i] : memref<4xf32>
      memref.store %v, %r[%i] : memref<4xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Only 4 of the 8 threads have work: the others skip the loop. Shared
// buffers with a layout are accessed at the layout's offset.

#half = #tile.fragment<[4], threads = 8, (d0) -> (d0, 0)>
// CHECK-LABEL: func.func @guarded
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[FLAT:.+]] = memref.collapse_shape
// CHECK: %[[ACTIVE:.+]] = arith.cmpi ult, %[[TID]], %c4
// CHECK: scf.if %[[ACTIVE]] {
// CHECK: %[[K:.+]] = arith.xori
// CHECK: %[[ROW:.+]] = arith.divui %[[K]], %c2
// CHECK: %[[COL:.+]] = arith.remui %[[K]], %c2
// CHECK: %[[T:.+]] = arith.muli %[[COL]], %c2
// CHECK: %[[OFF:.+]] = arith.addi %[[T]], %[[ROW]]
// CHECK: memref.store %{{.+}}, %[[FLAT]][%[[OFF]]] : memref<4xf32, #gpu.address_space<workgroup>>
func.func @guarded() {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc {layout = #tile.layout<(d0, d1) -> (d1 * 2 + d0)>} : memref<2x2xf32, #gpu.address_space<workgroup>>
    tile.parallel (%k) in (4) layout(#half) {
      %c2 = arith.constant 2 : index
      %i = arith.divui %k, %c2 : index
      %j = arith.remui %k, %c2 : index
      memref.store %one, %s[%i, %j] : memref<2x2xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Extents that are not powers of two: the loop layout is inverted through
// the flat slot thread * 3 + register, in divisions and remainders.

#rows = #tile.fragment<[4, 3], threads = 4, (d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @ragged
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[S0:.+]] = arith.muli %[[TID]], %c3
// CHECK: %[[I0:.+]] = arith.divui %[[S0]], %c3
// CHECK: %[[J0:.+]] = arith.remui %[[S0]], %c3
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I0]], %[[J0]]] : memref<4x3xf32>
// CHECK: %[[S1:.+]] = arith.addi %{{.+}}, %c1
// CHECK: arith.divui %[[S1]], %c3
// CHECK: arith.remui %[[S1]], %c3
func.func @ragged(%out: memref<4x3xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    tile.parallel (%i, %j) in (4, 3) layout(#rows) {
      memref.store %one, %out[%i, %j] : memref<4x3xf32>
    }
  }
  return
}

// -----

// A fragment of packed pairs indexed by `j floordiv 2` (the paper's Fig.
// 17 unpacking): each of 2 threads holds 4 bytes of the 8-element row and
// the 8 elements they unpack to; the byte of element j is register
// (j mod 8) / 2, evaluated per register at compile time.
#bytes = #tile.fragment<[4], threads = 2, (d0) -> (d0 floordiv 2, d0 mod 2)>
#elems = #tile.fragment<[8], threads = 2, (d0) -> (d0 floordiv 4, d0 mod 4)>
// CHECK-LABEL: func.func @packed_pairs
// CHECK-DAG: %[[P:.+]] = tile.alloc : memref<2xi8, #gpu.address_space<private>>
// CHECK-DAG: %[[E:.+]] = tile.alloc : memref<4xi8, #gpu.address_space<private>>
// CHECK: %[[B0:.+]] = memref.load %[[P]][%c0]
// CHECK: memref.store %{{.+}}, %[[E]][%c0]
// CHECK: %[[B1:.+]] = memref.load %[[P]][%c0]
// CHECK: memref.store %{{.+}}, %[[E]][%c1]
// CHECK: %[[B2:.+]] = memref.load %[[P]][%c1]
// CHECK: memref.store %{{.+}}, %[[E]][%c2]
// CHECK: %[[B3:.+]] = memref.load %[[P]][%c1]
// CHECK: memref.store %{{.+}}, %[[E]][%c3]
// CHECK-NOT: tile.parallel
func.func @packed_pairs() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %p = tile.alloc {layout = #bytes} : memref<4xi8, #tile.fragment>
    %e = tile.alloc {layout = #elems} : memref<8xi8, #tile.fragment>
    tile.parallel (%j) in (8) layout(#elems) {
      %c2 = arith.constant 2 : index
      %kb = arith.divui %j, %c2 : index
      %b = memref.load %p[%kb] : memref<4xi8, #tile.fragment>
      memref.store %b, %e[%j] : memref<8xi8, #tile.fragment>
    }
  }
  return
}

// -----

// A body computing in f16 runs for two registers at once where they hold
// adjacent points of the last dimension: the nibbles of one word (the
// same register in both lanes) are shifted by a constant pair per
// register pair ([0, 16], [4, 20], ...: `j mod 2` and `j / 2` are the same
// on every thread), the scale is broadcast, the arithmetic is on
// vector<2xT>, and the accumulator's two registers are loaded and stored
// per lane.
#word = #tile.fragment<[4, 1], threads = 4, (d0, d1) -> (d0, d1)>
#row = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>
#acc = #tile.fragment<[4, 8], threads = 4, (d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pairs_f16
// CHECK-DAG: %[[SH0:.+]] = arith.constant dense<[0, 16]> : vector<2xi32>
// CHECK-DAG: %[[SH1:.+]] = arith.constant dense<[4, 20]> : vector<2xi32>
// CHECK-DAG: %[[M:.+]] = arith.constant dense<15> : vector<2xi32>
// CHECK-DAG: %[[W:.+]] = tile.alloc : memref<1xi32, #gpu.address_space<private>>
// CHECK-DAG: %[[S:.+]] = tile.alloc : memref<1xf16, #gpu.address_space<private>>
// CHECK-DAG: %[[A:.+]] = tile.alloc : memref<8xf16, #gpu.address_space<private>>
// CHECK: %[[W0:.+]] = memref.load %[[W]][%c0]
// CHECK: %[[WV:.+]] = vector.broadcast %[[W0]] : i32 to vector<2xi32>
// CHECK: %[[N:.+]] = arith.shrui %[[WV]], %[[SH0]] : vector<2xi32>
// CHECK: %[[Q:.+]] = arith.andi %[[N]], %[[M]] : vector<2xi32>
// CHECK: %[[QF:.+]] = arith.uitofp %[[Q]] : vector<2xi32> to vector<2xf16>
// CHECK: %[[S0:.+]] = memref.load %[[S]][%c0]
// CHECK: %[[SV:.+]] = vector.broadcast %[[S0]] : f16 to vector<2xf16>
// CHECK: %[[V:.+]] = arith.mulf %[[QF]], %[[SV]] : vector<2xf16>
// CHECK: %[[A0:.+]] = memref.load %[[A]][%c0]
// CHECK: %[[A1:.+]] = memref.load %[[A]][%c1]
// CHECK: %[[AV:.+]] = vector.from_elements %[[A0]], %[[A1]] : vector<2xf16>
// CHECK: %[[SUM:.+]] = arith.addf %[[AV]], %[[V]] : vector<2xf16>
// CHECK: %[[L0:.+]] = vector.extract %[[SUM]][0]
// CHECK: memref.store %[[L0]], %[[A]][%c0]
// CHECK: %[[L1:.+]] = vector.extract %[[SUM]][1]
// CHECK: memref.store %[[L1]], %[[A]][%c1]
// CHECK: arith.shrui %{{.+}}, %[[SH1]] : vector<2xi32>
// CHECK: memref.store %{{.+}}, %[[A]][%c3]
// CHECK-NOT: tile.parallel
func.func @pairs_f16() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %w = tile.alloc {layout = #word} : memref<4x1xi32, #tile.fragment>
    %s = tile.alloc {layout = #row} : memref<4xf16, #tile.fragment>
    %a = tile.alloc {layout = #acc} : memref<4x8xf16, #tile.fragment>
    tile.parallel (%i, %j) in (4, 8) layout(#acc) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : index
      %odd = arith.remui %j, %c2 : index
      %half = arith.divui %j, %c2 : index
      %hi = arith.muli %odd, %c16 : index
      %lo = arith.muli %half, %c4 : index
      %sh = arith.addi %hi, %lo : index
      %sh32 = arith.index_cast %sh : index to i32
      %word = memref.load %w[%i, %c0] : memref<4x1xi32, #tile.fragment>
      %n = arith.shrui %word, %sh32 : i32
      %c15 = arith.constant 15 : i32
      %q = arith.andi %n, %c15 : i32
      %qf = arith.uitofp %q : i32 to f16
      %sv = memref.load %s[%i] : memref<4xf16, #tile.fragment>
      %v = arith.mulf %qf, %sv : f16
      %old = memref.load %a[%i, %j] : memref<4x8xf16, #tile.fragment>
      %sum = arith.addf %old, %v : f16
      memref.store %sum, %a[%i, %j] : memref<4x8xf16, #tile.fragment>
    }
  }
  return
}

// -----

// Dequantizing into shared memory: a body that
// loads a packed word and a scale from shared buffers and stores f16 into
// a shared buffer at its own point runs in pairs: the word's index (`j / 8`)
// and the scale's (`j / 32`) are the same in both lanes, so each is loaded
// once per pair, not per element, and the eight registers of a run, consecutive in the
// buffer, are stored as one vector<8xf16>, not element by element.
#runs = #tile.fragment<[4, 16], threads = 8, (d0, d1) ->
  ((d0 * 2 + d1 floordiv 8) mod 8, d1 mod 8)>
// CHECK-LABEL: func.func @dequant_to_shared
// CHECK-DAG: %[[P:.+]] = tile.alloc : memref<4x2xi32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[S:.+]] = tile.alloc : memref<4x1xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[W:.+]] = tile.alloc : memref<4x16xf16, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[P]]
// CHECK-NOT: memref.load
// CHECK: arith.shrui %{{.+}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.+}} : vector<2xf16>
// CHECK-NOT: memref.store
// CHECK: memref.load %[[P]]
// CHECK-NOT: memref.load
// CHECK: arith.shrui %{{.+}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.+}} : vector<2xf16>
// CHECK-NOT: memref.store
// CHECK: memref.load %[[P]]
// CHECK-NOT: memref.load
// CHECK: arith.shrui %{{.+}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.+}} : vector<2xf16>
// CHECK-NOT: memref.store
// CHECK: memref.load %[[P]]
// CHECK-NOT: memref.load
// CHECK: arith.shrui %{{.+}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.+}} : vector<2xf16>
// CHECK-NOT: memref.store
// CHECK: %[[VEC:.+]] = vector.from_elements %{{.+}} : vector<8xf16>
// CHECK-NEXT: vector.store %[[VEC]], %[[W]][%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<4x16xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: memref.store
// CHECK-NOT: tile.parallel
func.func @dequant_to_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %p = tile.alloc : memref<4x2xi32, #gpu.address_space<workgroup>>
    %s = tile.alloc : memref<4x1xf16, #gpu.address_space<workgroup>>
    %w = tile.alloc : memref<4x16xf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (4, 16) layout(#runs) {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %kw = arith.divui %j, %c8 : index
      %pos = arith.remui %j, %c8 : index
      %odd = arith.remui %pos, %c2 : index
      %nib4 = arith.divui %pos, %c2 : index
      %hi = arith.muli %odd, %c16 : index
      %lo = arith.muli %nib4, %c4 : index
      %sh = arith.addi %hi, %lo : index
      %sh32 = arith.index_cast %sh : index to i32
      %word = memref.load %p[%i, %kw] : memref<4x2xi32, #gpu.address_space<workgroup>>
      %n = arith.shrui %word, %sh32 : i32
      %c15 = arith.constant 15 : i32
      %q = arith.andi %n, %c15 : i32
      %qf = arith.uitofp %q : i32 to f16
      %g = arith.divui %j, %c32 : index
      %sv = memref.load %s[%i, %g] : memref<4x1xf16, #gpu.address_space<workgroup>>
      %v = arith.mulf %qf, %sv : f16
      memref.store %v, %w[%i, %j] : memref<4x16xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

#f16rows = #tile.fragment<[4, 8], threads = 4, (d0, d1) -> (d0, d1)>
// A shared buffer the body both loads and stores is accessed element by
// element (no pairs: lane 1 could read what lane 0 stores), and a store
// whose registers are not consecutive in the buffer stays scalar.
#byCol = #tile.fragment<[4, 8], threads = 4, (d0, d1) -> (d1 mod 4, d0 * 2 + d1 floordiv 4)>
// CHECK-LABEL: func.func @shared_no_runs
// CHECK-NOT: vector
// CHECK: memref.store %{{.+}} : memref<4x8xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: vector
// CHECK-LABEL: func.func @shared_not_consecutive
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.+}} : memref<4x8xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.store
func.func @shared_no_runs() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %w = tile.alloc : memref<4x8xf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (4, 8) layout(#f16rows) {
      %x = memref.load %w[%i, %j] : memref<4x8xf16, #gpu.address_space<workgroup>>
      %y = arith.mulf %x, %x : f16
      memref.store %y, %w[%i, %j] : memref<4x8xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
func.func @shared_not_consecutive() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %w = tile.alloc : memref<4x8xf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (4, 8) layout(#byCol) {
      %c = arith.constant 1.0 : f16
      memref.store %c, %w[%i, %j] : memref<4x8xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Not in pairs: an f32 body (no 16-bit arithmetic to pack), an f16 body
// whose registers 2p and 2p + 1 are not adjacent along the last dimension,
// and an f16 body that reads element j / 2 of the fragment it writes at j
// (the second iteration of a pair reads what the first writes).
#f32acc = #tile.fragment<[4, 8], threads = 4, (d0, d1) -> (d0, d1)>
#cols = #tile.fragment<[8, 4], threads = 4, (d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @no_pairs
// CHECK-NOT: vector
// CHECK: arith.mulf %{{.+}} : f32
// CHECK-NOT: vector
// CHECK: arith.mulf %{{.+}} : f16
// CHECK-NOT: vector
// CHECK-LABEL: func.func @no_pairs_overlap
// CHECK-NOT: vector
// CHECK: %[[H6:.+]] = memref.load %[[H:.+]][%c3] : memref<8xf16
// CHECK-NEXT: %[[M6:.+]] = arith.mulf %[[H6]], %[[H6]] : f16
// CHECK-NEXT: memref.store %[[M6]], %[[H]][%c6]
// CHECK-NEXT: %[[H7:.+]] = memref.load %[[H]][%c3]
// CHECK-NOT: vector
func.func @no_pairs() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %a = tile.alloc {layout = #f32acc} : memref<4x8xf32, #tile.fragment>
    %b = tile.alloc {layout = #cols} : memref<8x4xf16, #tile.fragment>
    tile.parallel (%i, %j) in (4, 8) layout(#f32acc) {
      %x = memref.load %a[%i, %j] : memref<4x8xf32, #tile.fragment>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<4x8xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (8, 4) layout(#cols) {
      %x = memref.load %b[%i, %j] : memref<8x4xf16, #tile.fragment>
      %y = arith.mulf %x, %x : f16
      memref.store %y, %b[%i, %j] : memref<8x4xf16, #tile.fragment>
    }
  }
  return
}
func.func @no_pairs_overlap() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    %h = tile.alloc {layout = #f32acc} : memref<4x8xf16, #tile.fragment>
    tile.parallel (%i, %j) in (4, 8) layout(#f32acc) {
      %c2 = arith.constant 2 : index
      %jh = arith.divui %j, %c2 : index
      %x = memref.load %h[%i, %jh] : memref<4x8xf16, #tile.fragment>
      %y = arith.mulf %x, %x : f16
      memref.store %y, %h[%i, %j] : memref<4x8xf16, #tile.fragment>
    }
  }
  return
}
