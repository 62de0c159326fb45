// RUN: tile-opt -test-tile-layout %s -o /dev/null | FileCheck %s

// Fragments of 2^24 points, beyond what the layout checks enumerate: their
// injectivity follows from the structure of their maps.

// The default binding of a 4096 x 4096 tile.parallel on 128 threads.
// CHECK-LABEL: === coalesced_4096: #tile.fragment<[4096, 4096], threads = 128, (d0, d1) -> ((d1 floordiv 4) mod 128, d0 * 32 + (d1 floordiv 512) * 4 + d1 mod 4)>
// CHECK-NEXT: threads: 128 registers: 131072 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
func.func private @coalesced_4096() attributes {layout = #tile.fragment<[4096, 4096], threads = 128, (d0, d1) -> ((d1 floordiv 4) mod 128, d0 * 32 + (d1 floordiv 512) * 4 + d1 mod 4)>}

// Two columns share a register of a thread: not injective.
// CHECK-LABEL: === collides_4096
// CHECK: injective: false
func.func private @collides_4096() attributes {layout = #tile.fragment<[4096, 4096], threads = 128, (d0, d1) -> ((d1 floordiv 4) mod 128, d0 * 32 + (d1 floordiv 1024) * 4 + d1 mod 4)>}
