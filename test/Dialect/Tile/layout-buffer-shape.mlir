// RUN: tile-opt -test-tile-layout %s -split-input-file -verify-diagnostics -o /dev/null | FileCheck %s

// A layout written without a shape takes the shape of its buffer
// (buffer_shape here); one with a shape must match it.

// CHECK-LABEL: === shapeless: #tile.layout<(d0, d1) -> (d0 * 40 + d1)>
// CHECK-NEXT: codomain: [152]
// CHECK-NEXT: bijective: false
// CHECK-NEXT: (0, 0) -> 0
// CHECK: (3, 31) -> 151
func.func private @shapeless() attributes {layout = #tile.layout<(d0, d1) -> (d0 * 40 + d1)>, buffer_shape = array<i64: 4, 32>, print = "table"}

// CHECK-LABEL: === shapeless_fragment: #tile.fragment<threads = 4, map = (d0, d1) -> (d0, d1)>
// CHECK-NEXT: threads: 4 registers: 2 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
func.func private @shapeless_fragment() attributes {layout = #tile.fragment<threads = 4, map = (d0, d1) -> (d0, d1)>, buffer_shape = array<i64: 4, 2>}

// CHECK-LABEL: === same_shape: #tile.layout<[4, 32], row_major>
// CHECK-NEXT: codomain: [128]
func.func private @same_shape() attributes {layout = #tile.layout<[4, 32], row_major>, buffer_shape = array<i64: 4, 32>}

// -----

// expected-error @+1 {{expected a layout with a shape, or of the buffer's}}
func.func private @other_shape() attributes {layout = #tile.layout<[4, 32], row_major>, buffer_shape = array<i64: 8, 16>}

// -----

// expected-error @+1 {{expected a fragment with a shape, or of the buffer's}}
func.func private @other_rank() attributes {layout = #tile.fragment<threads = 4, map = (d0, d1) -> (d0, d1)>, buffer_shape = array<i64: 8>}
