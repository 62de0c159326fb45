// RUN: tile-opt -test-tile-layout %s -o /dev/null | FileCheck %s

// The layout algebra: every result is printed and checked by evaluation on
// every coordinate of the tile.

// Composition: a row-major layout seen through a transposition is the
// column-major layout of the transposed tile.
func.func private @compose_transpose() attributes {layout = #tile.layout<[8, 16], row_major>, compose = #tile.layout<[16, 8], (d0, d1) -> (d1, d0)>}
// CHECK-LABEL: === compose_transpose: #tile.layout<[8, 16], row_major>
// CHECK-NEXT: codomain: [128]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: compose: #tile.layout<[16, 8], (d0, d1) -> (d1 * 16 + d0)>
// CHECK-NEXT: compose check: ok

// A swizzle on the outside survives composition with an affine map.
func.func private @compose_swizzle_outer() attributes {layout = #tile.layout<[8, 64], swizzle<128, 16>>, compose = #tile.layout<[64, 8], (d0, d1) -> (d1, d0)>}
// CHECK-LABEL: === compose_swizzle_outer: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK-NEXT: codomain: [512]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: compose: #tile.layout<[64, 8], (d0, d1) -> (d1 * 64 + d0 mod 64), xor<3, 3, 3>>
// CHECK-NEXT: compose check: ok

// A swizzle on the inside cannot be an affine map any more: the
// composition goes through GF(2). Here the (row, col) of the element stored
// at the swizzled offset: row bits flip the column's chunk bits.
func.func private @compose_swizzle_inner() attributes {layout = #tile.layout<[512], (d0) -> (d0 floordiv 64, d0 mod 64)>, compose = #tile.layout<[8, 64], swizzle<128, 16>>}
// CHECK-LABEL: === compose_swizzle_inner: #tile.layout<[512], (d0) -> (d0 floordiv 64, d0 mod 64)>
// CHECK-NEXT: codomain: [8, 64]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: compose: #tile.layout<[8, 64], linear<{{\[}}[(1, 8), (2, 16), (4, 32)], [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 32)]]>>
// CHECK-NEXT: compose check: ok

// d0 * 3 is not linear over GF(2) and the inner swizzle not affine.
func.func private @compose_impossible() attributes {layout = #tile.layout<[512], (d0) -> (d0 * 3)>, compose = #tile.layout<[8, 64], swizzle<128, 16>>}
// CHECK-LABEL: === compose_impossible: #tile.layout<[512], (d0) -> (d0 * 3)>
// CHECK-NEXT: codomain: [1534]
// CHECK-NEXT: bijective: false
// CHECK-NEXT: compose: none

// Inverses of strided layouts are divisions and remainders, for any
// extents; the round trip is checked on every coordinate both ways.
func.func private @inverse_row_major() attributes {layout = #tile.layout<[6, 5], row_major>, inverse}
// CHECK-LABEL: === inverse_row_major: #tile.layout<[6, 5], row_major>
// CHECK-NEXT: codomain: [30]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[30], (d0) -> (d0 floordiv 5, d0 mod 5)>
// CHECK-NEXT: inverse round-trip: ok

func.func private @inverse_col_major() attributes {layout = #tile.layout<[6, 5], (d0, d1) -> (d1 * 6 + d0)>, inverse}
// CHECK-LABEL: === inverse_col_major: #tile.layout<[6, 5], (d0, d1) -> (d1 * 6 + d0)>
// CHECK-NEXT: codomain: [30]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[30], (d0) -> (d0 mod 6, d0 floordiv 6)>
// CHECK-NEXT: inverse round-trip: ok

func.func private @inverse_3d() attributes {layout = #tile.layout<[2, 3, 4], (d0, d1, d2) -> (d2 * 6 + d0 * 3 + d1)>, inverse}
// CHECK-LABEL: === inverse_3d: #tile.layout<[2, 3, 4], (d0, d1, d2) -> (d2 * 6 + d0 * 3 + d1)>
// CHECK-NEXT: codomain: [24]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[24], (d0) -> ((d0 floordiv 3) mod 2, d0 mod 3, d0 floordiv 6)>
// CHECK-NEXT: inverse round-trip: ok

// A dimension whose values run in several strides (digits) of their own:
// the row index of three warpgroups' statistics, 192 rows, 8 rows a stride
// of 2, then a pair of halves, then 12 groups of 16. No GF(2) form (192 is
// no power of two), and no single stride: the inverse recombines the
// digits.
func.func private @inverse_digits() attributes {layout = #tile.layout<[192], (d0) -> ((d0 mod 8) * 2 + (d0 floordiv 8) mod 2 + (d0 floordiv 16) * 16)>, inverse}
// CHECK-LABEL: === inverse_digits:
// CHECK-NEXT: codomain: [192]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[192], (d0) -> ((d0 mod 2) * 8 + (d0 floordiv 2) mod 8 + (d0 floordiv 16) * 16)>
// CHECK-NEXT: inverse round-trip: ok

// Digits of two dimensions interleaved: 176 columns, whose pairs, runs of
// 8 and lanes within a run land on strides around the rows'.
func.func private @inverse_digits_2d() attributes {layout = #tile.layout<[3, 176], (d0, d1) -> (d1 mod 2 + (d1 floordiv 8) * 2 + d0 * 44 + ((d1 floordiv 2) mod 4) * 132)>, inverse}
// CHECK-LABEL: === inverse_digits_2d:
// CHECK-NEXT: codomain: [528]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[528], (d0) -> ((d0 floordiv 44) mod 3, d0 mod 2 + ((d0 floordiv 2) mod 22) * 8 + (d0 floordiv 132) * 2)>
// CHECK-NEXT: inverse round-trip: ok

// A bijection whose runs do not divide the extent: no inverse of this
// kind (nor a GF(2) one).
func.func private @digits_not_dividing() attributes {layout = #tile.layout<[6], (d0) -> ((d0 * 5) mod 6)>, inverse}
// CHECK-LABEL: === digits_not_dividing:
// CHECK-NEXT: codomain: [6]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: none

// Inverse of a GF(2) layout by elimination.
func.func private @inverse_linear() attributes {layout = #tile.layout<[4, 4], linear<[[5, 10], [1, 2]]>>, inverse}
// CHECK-LABEL: === inverse_linear: #tile.layout<[4, 4], linear<{{\[}}[5, 10], [1, 2]]>>
// CHECK-NEXT: codomain: [16]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: inverse: #tile.layout<[16], linear<{{\[}}[(0, 1), (0, 2), (1, 1), (2, 2)]]>>
// CHECK-NEXT: inverse round-trip: ok

// Deliberately not bijective: no inverse.
func.func private @not_bijective_linear() attributes {layout = #tile.layout<[4, 4], linear<[[1, 2], [1, 2]]>>, inverse}
// CHECK-LABEL: === not_bijective_linear: #tile.layout<[4, 4], linear<{{\[}}[1, 2], [1, 2]]>>
// CHECK-NEXT: codomain: [4]
// CHECK-NEXT: bijective: false
// CHECK-NEXT: inverse: none

func.func private @not_bijective_map() attributes {layout = #tile.layout<[4, 4], (d0, d1) -> (d0 + d1)>, inverse}
// CHECK-LABEL: === not_bijective_map: #tile.layout<[4, 4], (d0, d1) -> (d0 + d1)>
// CHECK-NEXT: codomain: [7]
// CHECK-NEXT: bijective: false
// CHECK-NEXT: inverse: none

// Reshape keeps every element's offset (checked in row-major order).
func.func private @reshape_swizzle() attributes {layout = #tile.layout<[8, 64], swizzle<128, 16>>, reshape = array<i64: 16, 32>}
// CHECK-LABEL: === reshape_swizzle: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK-NEXT: codomain: [512]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: reshape: #tile.layout<[16, 32], (d0, d1) -> (d0 * 32 + d1), xor<3, 3, 3>>
// CHECK-NEXT: reshape check: ok

func.func private @reshape_row_major() attributes {layout = #tile.layout<[16, 64], row_major>, reshape = array<i64: 32, 32>}
// CHECK-LABEL: === reshape_row_major: #tile.layout<[16, 64], row_major>
// CHECK-NEXT: codomain: [1024]
// CHECK-NEXT: bijective: true
// CHECK-NEXT: reshape: #tile.layout<[32, 32], row_major>
// CHECK-NEXT: reshape check: ok

// Paper Fig. 7: C is 4x4 on 8 threads, two threads per row; the bias D
// of a row is replicated on both.
func.func private @fig7_bias() attributes {layout = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 * 2 + s0, 0), replicate = 2>, print = "table"}
// CHECK-LABEL: === fig7_bias: #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 * 2 + s0, 0), replicate = 2>
// CHECK-NEXT: threads: 8 registers: 1 replicate: 2
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// CHECK-NEXT: (0) -> T0|1 R0
// CHECK-NEXT: (1) -> T2|3 R0
// CHECK-NEXT: (2) -> T4|5 R0
// CHECK-NEXT: (3) -> T6|7 R0

func.func private @fig7_c() attributes {layout = #tile.fragment<[4, 4], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>, print = "table", inverse}
// CHECK-LABEL: === fig7_c: #tile.fragment<[4, 4], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>
// CHECK-NEXT: threads: 8 registers: 2 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// CHECK-NEXT: (0, 0) -> T0 R0
// CHECK-NEXT: (0, 1) -> T0 R1
// CHECK-NEXT: (0, 2) -> T1 R0
// CHECK-NEXT: (0, 3) -> T1 R1
// CHECK-NEXT: (1, 0) -> T2 R0
// CHECK-NEXT: (1, 1) -> T2 R1
// CHECK-NEXT: (1, 2) -> T3 R0
// CHECK-NEXT: (1, 3) -> T3 R1
// CHECK-NEXT: (2, 0) -> T4 R0
// CHECK-NEXT: (2, 1) -> T4 R1
// CHECK-NEXT: (2, 2) -> T5 R0
// CHECK-NEXT: (2, 3) -> T5 R1
// CHECK-NEXT: (3, 0) -> T6 R0
// CHECK-NEXT: (3, 1) -> T6 R1
// CHECK-NEXT: (3, 2) -> T7 R0
// CHECK-NEXT: (3, 3) -> T7 R1
// CHECK-NEXT: inverse: #tile.layout<[8, 2], linear<{{\[}}[(0, 2), (1, 0), (2, 0)], [(0, 1)]]>>
// CHECK-NEXT: inverse round-trip: ok

// The fragment primitives on the mma accumulator, each checked element by
// element: repeat (new registers, copies numbered dimension 0 first),
// repeat_on_thread (new threads), replicate, bind_thread_range, reshape.
func.func private @mma_c() attributes {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>, repeat = array<i64: 2, 2>, repeat_on_thread = array<i64: 4, 1>, replicate = 2 : i64, bind_thread_range = array<i64: 64, 128>, reshape = array<i64: 8, 16>, inverse}
// CHECK-LABEL: === mma_c: #tile.fragment<[16, 8], mma_m16n8k16_c>
// CHECK-NEXT: threads: 32 registers: 4 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// CHECK-NEXT: repeat: #tile.fragment<[32, 16], mma_m16n8k16_c, repeat = [2, 2]>
// CHECK-NEXT: repeat injective: true
// CHECK-NEXT: repeat check: ok
// CHECK-NEXT: repeat_on_thread: #tile.fragment<[64, 8], mma_m16n8k16_c, repeat_on_thread = [4, 1]>
// CHECK-NEXT: repeat_on_thread injective: true
// CHECK-NEXT: repeat check: ok
// CHECK-NEXT: replicate: #tile.fragment<[16, 8], mma_m16n8k16_c, replicate = 2>
// CHECK-NEXT: replicate injective: true
// CHECK-NEXT: replicate check: ok
// CHECK-NEXT: bind_thread_range: #tile.fragment<[16, 8], threads = 128, (d0, d1) -> ((d0 mod 8) * 4 + d1 floordiv 2 + 64, d1 mod 2 + (d0 floordiv 8) * 2)>
// CHECK-NEXT: bind_thread_range injective: true
// CHECK-NEXT: reshape: #tile.fragment<[8, 16], threads = 32, (d0, d1) -> (((d1 floordiv 8 + d0 * 2) mod 8) * 4 + (d1 mod 8) floordiv 2, d1 mod 2 + ((d1 floordiv 8 + d0 * 2) floordiv 8) * 2)>
// CHECK-NEXT: reshape injective: true
// CHECK-NEXT: inverse: #tile.layout<[32, 4], linear<{{\[}}[(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], [(0, 1), (8, 0)]]>>
// CHECK-NEXT: inverse round-trip: ok

// The primitives on a fragment that is no built-in print as maps: copies
// along rows take registers 2-3, copies along columns threads 8-15, and the
// replica s0 adds 8 to the thread.
func.func private @custom_repeat() attributes {layout = #tile.fragment<[4, 4], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>, repeat = array<i64: 2, 1>, repeat_on_thread = array<i64: 1, 2>, replicate = 2 : i64}
// CHECK-LABEL: === custom_repeat:
// CHECK: repeat: #tile.fragment<[8, 4], threads = 8, (d0, d1) -> ((d0 mod 4) * 2 + d1 floordiv 2, d1 mod 2 + (d0 floordiv 4) * 2)>
// CHECK-NEXT: repeat injective: true
// CHECK-NEXT: repeat check: ok
// CHECK-NEXT: repeat_on_thread: #tile.fragment<[4, 8], threads = 16, (d0, d1) -> (d0 * 2 + (d1 mod 4) floordiv 2 + (d1 floordiv 4) * 8, d1 mod 2)>
// CHECK-NEXT: repeat_on_thread injective: true
// CHECK-NEXT: repeat check: ok
// CHECK-NEXT: replicate: #tile.fragment<[4, 4], threads = 16, (d0, d1)[s0] -> (d0 * 2 + d1 floordiv 2 + s0 * 8, d1 mod 2), replicate = 2>
// CHECK-NEXT: replicate injective: true
// CHECK-NEXT: replicate check: ok

// Injective but with unused register slots: not bijective.
func.func private @holes() attributes {layout = #tile.fragment<[8], threads = 4, (d0) -> (d0 mod 4, (d0 floordiv 4) * 2)>}
// CHECK-LABEL: === holes: #tile.fragment<[8], threads = 4, (d0) -> (d0 mod 4, (d0 floordiv 4) * 2)>
// CHECK-NEXT: threads: 4 registers: 3 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: false
// The wgmma accumulator is the mma.sync accumulator repeated on the four
// warps of the warp group (this map is what repeat_on_thread builds above,
// which is why it prints as that chain).
func.func private @wgmma_is_repeated_mma() attributes {layout = #tile.fragment<[64, 8], threads = 128, (d0, d1) -> ((d0 mod 8) * 4 + d1 floordiv 2 + (d0 floordiv 16) * 32, d1 mod 2 + ((d0 mod 16) floordiv 8) * 2)>, equals = #tile.fragment<[64, 8], wgmma_c>}
// CHECK-LABEL: === wgmma_is_repeated_mma: #tile.fragment<[64, 8], mma_m16n8k16_c, repeat_on_thread = [4, 1]>
// CHECK: equivalent: true
