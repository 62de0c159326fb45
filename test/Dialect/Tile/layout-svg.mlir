// RUN: rm -rf %t && tile-opt -test-tile-layout="svg-dir=%t" %s -o /dev/null | FileCheck %s
// RUN: tile-opt -test-tile-layout="svg-dir=%t" %s -o /dev/null 2>&1 >/dev/null | FileCheck %s --check-prefix=GRID
// RUN: FileCheck %s --check-prefix=MMA --input-file=%t/mma_m16n8k16_a.svg
// RUN: FileCheck %s --check-prefix=SWZ --input-file=%t/swizzle_128B_f16.svg
// RUN: not tile-opt -test-tile-layout %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODIR

// Pictures of layouts: the thread/register grid of a fragment and the
// offset/bank grid of a shared-memory layout, as SVG files and as a text
// grid in a remark. docs/images/ holds these pictures, made by
//   tile-opt -test-tile-layout="svg-dir=docs/images" test/Dialect/Tile/layout-svg.mlir -o /dev/null

// CHECK-LABEL: === mma_m16n8k16_a: #tile.fragment<[16, 16], mma_m16n8k16_a>
// CHECK: svg: mma_m16n8k16_a.svg
// MMA: <svg xmlns="http://www.w3.org/2000/svg"
// MMA: #tile.fragment&lt;[16, 16], mma_m16n8k16_a&gt;</text>
// Row 0 is held by threads 0-3, two registers each, then again from column 8.
// MMA: >T0</text>
// MMA: >R0</text>
// MMA: >T0</text>
// MMA: >R1</text>
// MMA: >T1</text>
// MMA: >R0</text>
// MMA: </svg>
func.func private @mma_m16n8k16_a() attributes {layout = #tile.fragment<[16, 16], mma_m16n8k16_a>, svg}

// CHECK-LABEL: === mma_m16n8k16_c: #tile.fragment<[16, 8], mma_m16n8k16_c>
// CHECK: svg: mma_m16n8k16_c.svg
func.func private @mma_m16n8k16_c() attributes {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>, svg}

// CHECK-LABEL: === swizzle_128B_f16: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK: svg: swizzle_128B_f16.svg
// Row 1 starts with the second 16-byte chunk of its line: offset 72.
// SWZ: >0</text>
// SWZ: >b0</text>
// SWZ: >72</text>
// SWZ: >b4</text>
func.func private @swizzle_128B_f16() attributes {layout = #tile.layout<[8, 64], swizzle<128, 16>>, ldmatrix_bits = 16 : i64, svg}

// The same two layouts at 16-byte chunk granularity: cell (r, k) is the
// chunk where chunk k of row r is stored, and g its 16-byte bank group.
// CHECK-LABEL: === swizzle_128B_chunks: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK: svg: swizzle_128B_chunks.svg
// RUN: FileCheck %s --check-prefix=CHUNKS --input-file=%t/swizzle_128B_chunks.svg
// Row 1: chunks 0 and 1 swap (1 XOR 1 = 0).
// CHUNKS: >c0</text>
// CHUNKS: >g0</text>
// CHUNKS: >c9</text>
// CHUNKS: >g1</text>
// CHUNKS: >c8</text>
// CHUNKS: >g0</text>
func.func private @swizzle_128B_chunks() attributes {layout = #tile.layout<[8, 64], swizzle<128, 16>>, ldmatrix_bits = 16 : i64, svg, svg_chunks}

// CHECK-LABEL: === row_major_128B_chunks: #tile.layout<[8, 64], row_major>
// CHECK: svg: row_major_128B_chunks.svg
func.func private @row_major_128B_chunks() attributes {layout = #tile.layout<[8, 64], row_major>, ldmatrix_bits = 16 : i64, svg, svg_chunks}

// CHECK-LABEL: === bias_replicated: #tile.fragment<[4, 1], threads = 8, (d0, d1)[s0] -> (d0 * 2 + s0, 0), replicate = 2>
// CHECK: svg: bias_replicated.svg
func.func private @bias_replicated() attributes {layout = #tile.fragment<[4, 1], threads = 8, (d0, d1)[s0] -> (d0 * 2 + s0, 0), replicate = 2>, svg}

// The text grid, as a remark.
// GRID: remark: layout grid (rows x columns):
// GRID-NEXT: T0:R0 T0:R1 T1:R0 T1:R1
// GRID-NEXT: T2:R0 T2:R1 T3:R0 T3:R1
func.func private @grid() attributes {layout = #tile.fragment<[2, 4], threads = 4, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>, print = "grid"}

// NODIR: error: svg needs the svg-dir option
