// RUN: tile-opt %s -tile-narrow-int-to-float -split-input-file -canonicalize -cse | FileCheck %s

// (canonicalize gathers the constants the rewrites create in place at the
// top of each function.)

// A masked integer below 2^10 becomes f16 through the bits of 1024.0
// (0x6400 = 25600): or, bitcast, subtract 1024.
// CHECK-LABEL: func.func @masked_f16
// CHECK-DAG:   %[[MAGIC:.+]] = arith.constant dense<25600> : vector<2xi16>
// CHECK-DAG:   %[[K:.+]] = arith.constant dense<1.024000e+03> : vector<2xf16>
// CHECK:       %[[Q:.+]] = arith.andi
// CHECK:       %[[T:.+]] = arith.trunci %[[Q]] : vector<2xi32> to vector<2xi16>
// CHECK:       %[[O:.+]] = arith.ori %[[T]], %[[MAGIC]] : vector<2xi16>
// CHECK:       %[[B:.+]] = arith.bitcast %[[O]] : vector<2xi16> to vector<2xf16>
// CHECK:       %[[F:.+]] = arith.subf %[[B]], %[[K]] : vector<2xf16>
// CHECK:       return %[[F]]
// CHECK-NOT:   uitofp
func.func @masked_f16(%x: vector<2xi32>) -> vector<2xf16> {
  %m = arith.constant dense<1023> : vector<2xi32>
  %q = arith.andi %x, %m : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  return %f : vector<2xf16>
}

// -----

// bf16 takes integers below 2^7 through 128.0 (0x4300 = 17152); a scalar
// byte is zero-extended to 16 bits.
// CHECK-LABEL: func.func @masked_bf16
// CHECK-DAG:   %[[MAGIC:.+]] = arith.constant 17152 : i16
// CHECK-DAG:   %[[K:.+]] = arith.constant 1.280000e+02 : bf16
// CHECK:       %[[Q:.+]] = arith.andi
// CHECK:       %[[E:.+]] = arith.extui %[[Q]] : i8 to i16
// CHECK:       %[[O:.+]] = arith.ori %[[E]], %[[MAGIC]] : i16
// CHECK:       %[[B:.+]] = arith.bitcast %[[O]] : i16 to bf16
// CHECK:       arith.subf %[[B]], %[[K]] : bf16
func.func @masked_bf16(%x: i8) -> bf16 {
  %m = arith.constant 127 : i8
  %q = arith.andi %x, %m : i8
  %f = arith.uitofp %q : i8 to bf16
  return %f : bf16
}

// -----

// Not rewritten: a mask that lets 2^10 through (f16), one of 2^7 (bf16),
// an unbounded operand, a conversion to f32.
// CHECK-LABEL: func.func @too_wide
// CHECK-COUNT-4: arith.uitofp
// CHECK-NOT:   arith.bitcast
func.func @too_wide(%x: i32, %y: i16) -> (f16, bf16, f16, f32) {
  %m = arith.constant 1024 : i32
  %m7 = arith.constant 128 : i32
  %c15 = arith.constant 15 : i32
  %q = arith.andi %x, %m : i32
  %a = arith.uitofp %q : i32 to f16
  %q7 = arith.andi %x, %m7 : i32
  %b = arith.uitofp %q7 : i32 to bf16
  %c = arith.uitofp %y : i16 to f16
  %q15 = arith.andi %x, %c15 : i32
  %d = arith.uitofp %q15 : i32 to f32
  return %a, %b, %c, %d : f16, bf16, f16, f32
}

// -----

// Subtracting a constant from the conversion subtracts 1024 + 8 = 1032 at
// once (exact in f16); 1024 + 0.5 is not, and keeps both subtractions.
// CHECK-LABEL: func.func @minus_constant
// CHECK:       %[[B:.+]] = arith.bitcast %{{.+}} : vector<2xi16> to vector<2xf16>
// CHECK:       %[[D:.+]] = arith.subf %[[B]], %{{.+}} : vector<2xf16>
// CHECK:       return %[[D]]
// CHECK-LABEL: func.func @minus_inexact
// CHECK:       %[[B:.+]] = arith.bitcast
// CHECK:       %[[F:.+]] = arith.subf %[[B]], %cst
// CHECK:       arith.subf %[[F]], %cst
func.func @minus_constant(%x: vector<2xi32>) -> vector<2xf16> {
  %m = arith.constant dense<15> : vector<2xi32>
  %z = arith.constant 8.0 : f16
  %zv = vector.broadcast %z : f16 to vector<2xf16>
  %q = arith.andi %x, %m : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  %d = arith.subf %f, %zv : vector<2xf16>
  return %d : vector<2xf16>
}
func.func @minus_inexact(%x: i32) -> f16 {
  %m = arith.constant 15 : i32
  %z = arith.constant 0.5 : f16
  %q = arith.andi %x, %m : i32
  %f = arith.uitofp %q : i32 to f16
  %d = arith.subf %f, %z : f16
  return %d : f16
}

// -----

// Adding the magic value back leaves the bits themselves: (1024 + q) is
// exact, so a zero point written as q + 1024 - (z + 1024) costs no
// subtraction of 1024. Adding 8 (on either side) subtracts 1024 - 8 =
// 1016 once; adding 0.25 keeps both (1023.75 is not an f16).
// CHECK-LABEL: func.func @plus_magic
// CHECK:       %[[B:.+]] = arith.bitcast %{{.+}} : vector<2xi16> to vector<2xf16>
// CHECK-NEXT:  %[[D:.+]] = arith.subf %[[B]], %arg1 : vector<2xf16>
// CHECK-NEXT:  return %[[D]]
// CHECK-LABEL: func.func @plus_constant
// CHECK-DAG:   %[[K:.+]] = arith.constant 1.016000e+03 : f16
// CHECK:       %[[B:.+]] = arith.bitcast %{{.+}} : i16 to f16
// CHECK-NEXT:  %[[D:.+]] = arith.subf %[[B]], %[[K]] : f16
// CHECK-NEXT:  return %[[D]]
// CHECK-LABEL: func.func @plus_inexact
// CHECK:       %[[B:.+]] = arith.bitcast
// CHECK:       %[[F:.+]] = arith.subf %[[B]], %cst
// CHECK:       arith.addf %[[F]], %cst
func.func @plus_magic(%x: vector<2xi32>, %zb: vector<2xf16>) -> vector<2xf16> {
  %m = arith.constant dense<15> : vector<2xi32>
  %k = arith.constant dense<1024.0> : vector<2xf16>
  %q = arith.andi %x, %m : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  %b = arith.addf %f, %k : vector<2xf16>
  %d = arith.subf %b, %zb : vector<2xf16>
  return %d : vector<2xf16>
}
func.func @plus_constant(%x: i32) -> f16 {
  %m = arith.constant 15 : i32
  %k = arith.constant 8.0 : f16
  %q = arith.andi %x, %m : i32
  %f = arith.uitofp %q : i32 to f16
  %d = arith.addf %k, %f : f16
  return %d : f16
}
func.func @plus_inexact(%x: i32) -> f16 {
  %m = arith.constant 15 : i32
  %k = arith.constant 0.25 : f16
  %q = arith.andi %x, %m : i32
  %f = arith.uitofp %q : i32 to f16
  %d = arith.addf %f, %k : f16
  return %d : f16
}

// -----

// The nibbles of one word at bits 4 and 20: one mask, the word's halves as
// the pair. Taken where they lie, 0x00F000F0 (15728880), with no shift, and
// OR-ed with 0x64006400 on the word: the halves hold 1024 + 16 q, and one
// multiply-add by 1/16 and -64 gives q.
// CHECK-LABEL: func.func @lane_pair
// CHECK-SAME:  (%[[W:.+]]: i32)
// CHECK-DAG:   %[[M:.+]] = arith.constant 15728880 : i32
// CHECK-DAG:   %[[SIXTEENTH:.+]] = arith.constant dense<6.250000e-02> : vector<2xf16>
// CHECK-DAG:   %[[BASE:.+]] = arith.constant dense<-6.400000e+01> : vector<2xf16>
// CHECK-NOT:   arith.shrui
// CHECK:       %[[A:.+]] = arith.andi %[[W]], %[[M]] : i32
// CHECK:       %[[O:.+]] = arith.ori %[[A]], %{{.+}} : i32
// CHECK:       %[[V:.+]] = vector.broadcast %[[O]] : i32 to vector<1xi32>
// CHECK:       %[[P:.+]] = vector.bitcast %[[V]] : vector<1xi32> to vector<2xi16>
// CHECK:       %[[B:.+]] = arith.bitcast %[[P]] : vector<2xi16> to vector<2xf16>
// CHECK:       %[[P:.+]] = arith.mulf %[[B]], %[[SIXTEENTH]] fastmath<contract> : vector<2xf16>
// CHECK:       arith.addf %[[P]], %[[BASE]] fastmath<contract> : vector<2xf16>
// CHECK-NOT:   arith.uitofp
func.func @lane_pair(%w: i32) -> vector<2xf16> {
  %c4 = arith.constant 4 : i32
  %c20 = arith.constant 20 : i32
  %c15 = arith.constant 15 : i32
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %sh = vector.from_elements %c4, %c20 : vector<2xi32>
  %mv = vector.broadcast %c15 : i32 to vector<2xi32>
  %n = arith.shrui %wv, %sh : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  return %f : vector<2xf16>
}

// -----

// Shifts that are not 16 apart are two lanes of their own.
// CHECK-LABEL: func.func @lane_pair_other
// CHECK:       arith.shrui %{{.+}} : vector<2xi32>
// CHECK:       arith.trunci %{{.+}} : vector<2xi32> to vector<2xi16>
func.func @lane_pair_other(%w: i32) -> vector<2xf16> {
  %sh = arith.constant dense<[0, 4]> : vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %n = arith.shrui %wv, %sh : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  return %f : vector<2xf16>
}

// -----

// A shift that depends on the thread (the lane's nibble within its word):
// lanes s and s + 16, the second an index sum cast like the first, are
// one shift of the word by s.
// CHECK-LABEL: func.func @lane_pair_dynamic
// CHECK-SAME:  (%[[W:.+]]: i32, %[[I:.+]]: index)
// CHECK:       %[[S:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK:       %[[X:.+]] = arith.shrui %[[W]], %[[S]] : i32
// CHECK:       %[[A:.+]] = arith.andi %[[X]], %{{.+}} : i32
// CHECK:       vector.bitcast %{{.+}} : vector<1xi32> to vector<2xi16>
// CHECK-NOT:   vector<2xi32>
func.func @lane_pair_dynamic(%w: i32, %i: index) -> vector<2xf16> {
  %c16 = arith.constant 16 : index
  %j = arith.addi %i, %c16 : index
  %s0 = arith.index_cast %i : index to i32
  %s1 = arith.index_cast %j : index to i32
  %sh = vector.from_elements %s0, %s1 : vector<2xi32>
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %n = arith.shrui %wv, %sh : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  return %f : vector<2xf16>
}

// -----

// The lowering loads each register's word anew: equal loads inside a
// kernel are merged first, so the two lanes come from one word.
// CHECK-LABEL: func.func @lane_pair_loads
// CHECK:       tile.kernel
// CHECK:       %[[W:.+]] = memref.load
// CHECK-NOT:   memref.load
// CHECK:       arith.shrui %[[W]], %{{.+}} : i32
// CHECK:       vector.bitcast %{{.+}} : vector<1xi32> to vector<2xi16>
// CHECK-NOT:   vector<2xi32>
func.func @lane_pair_loads(%m: memref<8xi32>, %o: memref<8xvector<2xf16>>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads(32) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %w0 = memref.load %m[%i] : memref<8xi32>
    %w1 = memref.load %m[%i] : memref<8xi32>
    %j = arith.addi %i, %c16 : index
    %s0 = arith.index_cast %i : index to i32
    %s1 = arith.index_cast %j : index to i32
    %sh = vector.from_elements %s0, %s1 : vector<2xi32>
    %wv = vector.from_elements %w0, %w1 : vector<2xi32>
    %mv = arith.constant dense<15> : vector<2xi32>
    %n = arith.shrui %wv, %sh : vector<2xi32>
    %q = arith.andi %n, %mv : vector<2xi32>
    %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
    memref.store %f, %o[%c0] : memref<8xvector<2xf16>>
  }
  return
}

// -----

// The four nibble pairs of a word, each minus a zero point z + 1024 with
// reassociation allowed: the pairs at bits 4 and 12 are taken with the
// mask 0x00F000F0 from the word and from the word shifted by 8, so one
// shift serves the word, and each becomes one multiply-add by 1/16 whose
// addend is
// 960 - (z + 1024), computed once.
// CHECK-LABEL: func.func @nibbles_minus_zero
// CHECK-SAME:  (%[[W:.+]]: i32, %[[ZB:.+]]: vector<2xf16>)
// CHECK-NOT:   arith.shrui
// CHECK-DAG:   %[[LO:.+]] = arith.constant 983055 : i32
// CHECK-DAG:   %[[HI:.+]] = arith.constant 15728880 : i32
// CHECK-DAG:   %[[C960:.+]] = arith.constant dense<9.600000e+02> : vector<2xf16>
// CHECK-DAG:   %[[SIXTEENTH:.+]] = arith.constant dense<6.250000e-02> : vector<2xf16>
// CHECK:       %[[D0:.+]] = arith.subf %{{.+}}, %[[ZB]] fastmath<reassoc> : vector<2xf16>
// CHECK:       %[[Z:.+]] = arith.subf %[[C960]], %[[ZB]] fastmath<reassoc> : vector<2xf16>
// CHECK:       %[[A1:.+]] = arith.andi %[[W]], %[[HI]] : i32
// CHECK:       %[[P1:.+]] = arith.mulf %{{.+}}, %[[SIXTEENTH]] fastmath<reassoc,contract> : vector<2xf16>
// CHECK:       %[[D1:.+]] = arith.addf %[[P1]], %[[Z]] fastmath<reassoc,contract> : vector<2xf16>
// CHECK:       %[[S8:.+]] = arith.shrui %[[W]], %{{.+}} : i32
// CHECK:       %[[A2:.+]] = arith.andi %[[S8]], %[[LO]] : i32
// CHECK:       %[[D2:.+]] = arith.subf %{{.+}}, %[[ZB]] fastmath<reassoc> : vector<2xf16>
// CHECK:       %[[A3:.+]] = arith.andi %[[S8]], %[[HI]] : i32
// CHECK:       %[[P3:.+]] = arith.mulf %{{.+}}, %[[SIXTEENTH]] fastmath<reassoc,contract> : vector<2xf16>
// CHECK:       %[[D3:.+]] = arith.addf %[[P3]], %[[Z]] fastmath<reassoc,contract> : vector<2xf16>
// CHECK:       return %[[D0]], %[[D1]], %[[D2]], %[[D3]]
func.func @nibbles_minus_zero(%w: i32, %zb: vector<2xf16>)
    -> (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>) {
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %k = arith.constant dense<1.024000e+03> : vector<2xf16>
  %s0 = arith.constant dense<[0, 16]> : vector<2xi32>
  %n0 = arith.shrui %wv, %s0 : vector<2xi32>
  %q0 = arith.andi %n0, %mv : vector<2xi32>
  %f0 = arith.uitofp %q0 : vector<2xi32> to vector<2xf16>
  %b0 = arith.addf %f0, %k : vector<2xf16>
  %d0 = arith.subf %b0, %zb fastmath<reassoc> : vector<2xf16>
  %s1 = arith.constant dense<[4, 20]> : vector<2xi32>
  %n1 = arith.shrui %wv, %s1 : vector<2xi32>
  %q1 = arith.andi %n1, %mv : vector<2xi32>
  %f1 = arith.uitofp %q1 : vector<2xi32> to vector<2xf16>
  %b1 = arith.addf %f1, %k : vector<2xf16>
  %d1 = arith.subf %b1, %zb fastmath<reassoc> : vector<2xf16>
  %s2 = arith.constant dense<[8, 24]> : vector<2xi32>
  %n2 = arith.shrui %wv, %s2 : vector<2xi32>
  %q2 = arith.andi %n2, %mv : vector<2xi32>
  %f2 = arith.uitofp %q2 : vector<2xi32> to vector<2xf16>
  %b2 = arith.addf %f2, %k : vector<2xf16>
  %d2 = arith.subf %b2, %zb fastmath<reassoc> : vector<2xf16>
  %s3 = arith.constant dense<[12, 28]> : vector<2xi32>
  %n3 = arith.shrui %wv, %s3 : vector<2xi32>
  %q3 = arith.andi %n3, %mv : vector<2xi32>
  %f3 = arith.uitofp %q3 : vector<2xi32> to vector<2xf16>
  %b3 = arith.addf %f3, %k : vector<2xf16>
  %d3 = arith.subf %b3, %zb fastmath<reassoc> : vector<2xf16>
  return %d0, %d1, %d2, %d3 : vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>
}

// -----

// Without reassociation a variable zero stays a subtraction of its own,
// after the pair's own shift by 12.
// CHECK-LABEL: func.func @nibbles_minus_zero_strict
// CHECK:       arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK:       arith.andi %{{.+}}, %{{.+}} : i32
// CHECK-NOT:   arith.mulf
// CHECK:       arith.subf %{{.+}}, %arg1 : vector<2xf16>
func.func @nibbles_minus_zero_strict(%w: i32, %zb: vector<2xf16>) -> vector<2xf16> {
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %k = arith.constant dense<1.024000e+03> : vector<2xf16>
  %s = arith.constant dense<[12, 28]> : vector<2xi32>
  %n = arith.shrui %wv, %s : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  %b = arith.addf %f, %k : vector<2xf16>
  %d = arith.subf %b, %zb : vector<2xf16>
  return %d : vector<2xf16>
}

// -----

// A constant zero point (8, the symmetric form) folds into the
// multiply-add's addend: 960 - 1032 = -72.
// CHECK-LABEL: func.func @nibbles_minus_eight
// CHECK-DAG:   %[[C:.+]] = arith.constant dense<-7.200000e+01> : vector<2xf16>
// CHECK-DAG:   %[[SIXTEENTH:.+]] = arith.constant dense<6.250000e-02> : vector<2xf16>
// CHECK:       %[[S:.+]] = arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK:       %[[P:.+]] = arith.mulf %{{.+}}, %[[SIXTEENTH]] fastmath<contract> : vector<2xf16>
// CHECK:       arith.addf %[[P]], %[[C]] fastmath<contract> : vector<2xf16>
func.func @nibbles_minus_eight(%w: i32) -> vector<2xf16> {
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %eight = arith.constant dense<8.0> : vector<2xf16>
  %s = arith.constant dense<[12, 28]> : vector<2xi32>
  %n = arith.shrui %wv, %s : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xf16>
  %d = arith.subf %f, %eight : vector<2xf16>
  return %d : vector<2xf16>
}

// -----

// bf16's magic value 128 leaves no room for 16 q: the pair keeps its shift.
// CHECK-LABEL: func.func @nibbles_bf16
// CHECK:       arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK-NOT:   arith.mulf
func.func @nibbles_bf16(%w: i32) -> vector<2xbf16> {
  %wv = vector.broadcast %w : i32 to vector<2xi32>
  %mv = arith.constant dense<15> : vector<2xi32>
  %s = arith.constant dense<[4, 20]> : vector<2xi32>
  %n = arith.shrui %wv, %s : vector<2xi32>
  %q = arith.andi %n, %mv : vector<2xi32>
  %f = arith.uitofp %q : vector<2xi32> to vector<2xbf16>
  return %f : vector<2xbf16>
}
