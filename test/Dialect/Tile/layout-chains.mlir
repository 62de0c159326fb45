// RUN: tile-opt -test-tile-layout %s -o /dev/null | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s --check-prefix=ROUND

// Block-level fragments built from a tensor-core fragment (paper Fig. 6):
// `repeat` copies the built-in onto new registers, then `repeat_on_thread`
// onto new threads, then `replicate` holds every element on more threads.
// They print in this form whenever the map is exactly that chain.

// Fig. 6: the m16k16 ldmatrix/mma A layout of one warp, repeated to m32k16
// on the warp's registers, then on four warps to m128k16.
// CHECK-LABEL: === fig6_block: #tile.fragment<[128, 16], mma_m16n8k16_a, repeat = [2, 1], repeat_on_thread = [4, 1]>
// CHECK-NEXT: threads: 128 registers: 16 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// Row 16 is the warp's second copy (registers 8-15); row 32 is warp 1.
// CHECK: (16, 0) -> T0 R8
// CHECK: (32, 0) -> T32 R0
// CHECK: (127, 15) -> T127 R15
// ROUND: fig6_block = #tile.fragment<[128, 16], mma_m16n8k16_a, repeat = [2, 1], repeat_on_thread = [4, 1]>
func.func private @fig6_block() attributes {layout = #tile.fragment<[128, 16], mma_m16n8k16_a, repeat = [2, 1], repeat_on_thread = [4, 1]>, print = "table", fig6_block = #tile.fragment<[128, 16], mma_m16n8k16_a, repeat = [2, 1], repeat_on_thread = [4, 1]>}

// The 128x128 accumulator of a 2x2-warp GEMM: each warp a 64x64 tile of
// 4x8 mma accumulators. Warp (i, j) is threads 32 * (i + 2 j).
// CHECK-LABEL: === gemm_acc: #tile.fragment<[128, 128], mma_m16n8k16_c, repeat = [4, 8], repeat_on_thread = [2, 2]>
// CHECK-NEXT: threads: 128 registers: 128 replicate: 1
// CHECK-NEXT: injective: true
// CHECK-NEXT: bijective: true
// CHECK: (0, 8) -> T0 R16
// CHECK: (0, 64) -> T64 R0
// CHECK: (16, 0) -> T0 R4
// CHECK: (64, 0) -> T32 R0
// CHECK: (127, 127) -> T127 R127
func.func private @gemm_acc() attributes {layout = #tile.fragment<[128, 128], mma_m16n8k16_c, repeat = [4, 8], repeat_on_thread = [2, 2]>, print = "table"}

// A row bias for that accumulator would be replicated; the chain prints
// back with its replication.
// CHECK-LABEL: === replicated: #tile.fragment<[16, 8], mma_m16n8k16_c, replicate = 4>
// ROUND: replicated = #tile.fragment<[16, 8], mma_m16n8k16_c, replicate = 4>
func.func private @replicated() attributes {layout = #tile.fragment<[16, 8], mma_m16n8k16_c, repeat_on_thread = [1, 1], replicate = 4>, replicated = #tile.fragment<[16, 8], mma_m16n8k16_c, replicate = 4>}

// wgmma accumulators of two warp groups side by side.
// CHECK-LABEL: === wgmma_two_groups: #tile.fragment<[64, 256], wgmma_c, repeat_on_thread = [1, 2]>
// CHECK-NEXT: threads: 256 registers: 64
func.func private @wgmma_two_groups() attributes {layout = #tile.fragment<[64, 256], wgmma_c, repeat_on_thread = [1, 2]>}
