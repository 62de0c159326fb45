// RUN: tile-opt %s -canonicalize -split-input-file | FileCheck %s

// tile.fill with a constant zero becomes tile.clear; any other value,
// including -0.0 (whose sign bit clear would lose), stays a fill.

// CHECK-LABEL: func @fill_zero_f32
// CHECK: %[[B:.*]] = tile.alloc
// CHECK-NEXT: tile.clear %[[B]] : memref<64x64xf32, #tile.fragment>
// CHECK-NOT: tile.fill
func.func @fill_zero_f32(%n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.fill %b, %zero : memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// CHECK-LABEL: func @fill_zero_i32
// CHECK: %[[B:.*]] = tile.alloc
// CHECK-NEXT: tile.clear %[[B]] : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.fill
func.func @fill_zero_i32(%n: index) {
  %zero = arith.constant 0 : i32
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<128xi32, #gpu.address_space<workgroup>>
    tile.fill %b, %zero : memref<128xi32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// CHECK-LABEL: func @fill_zero_bf16_local
// CHECK: tile.clear %{{.*}} : memref<8xbf16, #gpu.address_space<private>>
// CHECK-NOT: tile.fill
func.func @fill_zero_bf16_local(%n: index) {
  %zero = arith.constant 0.0 : bf16
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<8xbf16, #gpu.address_space<private>>
    tile.fill %b, %zero : memref<8xbf16, #gpu.address_space<private>>
  }
  return
}

// -----

// CHECK-LABEL: func @fill_nonzero
// CHECK: %[[V:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: tile.fill %{{.*}}, %[[V]] : memref<64xf32, #tile.fragment>
// CHECK-NOT: tile.clear
func.func @fill_nonzero(%n: index) {
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<64xf32, #tile.fragment>
    tile.fill %b, %one : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// CHECK-LABEL: func @fill_negative_zero
// CHECK: %[[V:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: tile.fill %{{.*}}, %[[V]] : memref<64xf32, #tile.fragment>
// CHECK-NOT: tile.clear
func.func @fill_negative_zero(%n: index) {
  %nzero = arith.constant -0.0 : f32
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<64xf32, #tile.fragment>
    tile.fill %b, %nzero : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// A value only known at run time stays a fill.
// CHECK-LABEL: func @fill_runtime_value
// CHECK-SAME: (%{{.*}}: index, %[[V:.*]]: i32)
// CHECK: tile.fill %{{.*}}, %[[V]] : memref<64xi32, #tile.fragment>
// CHECK-NOT: tile.clear
func.func @fill_runtime_value(%n: index, %v: i32) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<64xi32, #tile.fragment>
    tile.fill %b, %v : memref<64xi32, #tile.fragment>
  }
  return
}

// -----

// Canonicalization keeps allocations that tile operators use and the
// kernel's structure.
// CHECK-LABEL: func @kernel_kept
// CHECK: tile.kernel blocks(%bx) in (%{{.*}}) threads(64)
// CHECK-NEXT: tile.alloc
// CHECK-NEXT: tile.clear
func.func @kernel_kept(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(64) {
    %b = tile.alloc : memref<64xf32, #tile.fragment>
    tile.clear %b : memref<64xf32, #tile.fragment>
  }
  return
}
