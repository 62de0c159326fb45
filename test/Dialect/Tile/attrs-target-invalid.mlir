// RUN: tile-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of #tile.mma, #tile.target and the dialect's
// discardable attributes, and of its function-argument
// attributes (tile.zero_init, tile.overwrite).

// expected-error @+1 {{expected mma kind 'mma_sync', 'wgmma' or 'mfma', got 'wmma'}}
func.func private @f() attributes {a = #tile.mma<wmma m16n8k16, f16 x f16 -> f32>}

// -----

// expected-error @+1 {{expected an instruction shape such as 'm16n8k16', got 'm16k16'}}
func.func private @f() attributes {a = #tile.mma<mma_sync m16k16, f16 x f16 -> f32>}

// -----

// expected-error @+1 {{expected a positive instruction shape, got m16n0k16}}
func.func private @f() attributes {a = #tile.mma<mma_sync m16n0k16, f16 x f16 -> f32>}

// -----

// expected-error @+1 {{expected an integer or float B element type, got 'index'}}
func.func private @f() attributes {a = #tile.mma<mma_sync m16n8k16, f16 x index -> f32>}

// -----

// expected-error @+1 {{expected groups MxN, got 3 extents}}
func.func private @f() attributes {a = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 2x2x2>}

// -----

// expected-error @+1 {{expected positive groups (or none), got 2x0}}
func.func private @f() attributes {a = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 2x0>}

// -----

// expected-error @+1 {{unknown chip 'sm_99'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942}}
func.func private @f() attributes {t = #tile.target<"sm_99">}

// -----

// expected-error @+1 {{expected vendor 'nvidia' or 'amd', got 'intel'}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = intel, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = []>}

// -----

// expected-error @+1 {{unknown target feature 'wgmma' (known: cp_async, tma, warp_specialize, vector_atomics, buffer_load_lds, clusters, dependent_launch)}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = [wgmma]>}

// -----

// expected-error @+1 {{expected a non-empty chip name}}
func.func private @f() attributes {t = #tile.target<chip = "", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = []>}

// -----

// expected-error @+1 {{expected warp_size 32 or 64, got 16}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 16, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = []>}

// -----

// expected-error @+1 {{expected a positive registers_per_thread, got 0}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 0, registers_per_sm = 1, mma = [], features = []>}

// -----

// expected-error @+1 {{expected shared_per_block (2048) at most shared_per_sm (1024)}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 2048, shared_per_sm = 1024, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = []>}

// -----

// expected-error @+1 {{expected mfma instructions on an amd target, got #tile.mma<wgmma m64n256k16, f16 x f16 -> f32>}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = amd, warp_size = 64, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [#tile.mma<wgmma m64n256k16, f16 x f16 -> f32>], features = []>}

// -----

// expected-error @+1 {{expected mma entries without groups (a gemm chooses them), got #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [#tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>], features = []>}

// -----

// expected-error @+1 {{feature buffer_load_lds is not available on an nvidia target}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = [buffer_load_lds]>}

// -----

// expected-error @+1 {{feature warp_specialize needs tma (its producer issues TMA loads)}}
func.func private @f() attributes {t = #tile.target<chip = "x", vendor = nvidia, warp_size = 32, shared_per_block = 1, shared_per_sm = 1, registers_per_thread = 1, registers_per_sm = 1, mma = [], features = [cp_async, warp_specialize]>}

// -----

// expected-error @+1 {{'tile.target' must be a #tile.target, got "sm_90a"}}
module attributes {tile.target = "sm_90a"} {}

// -----

// expected-error @+1 {{'tile.loop' must be a #tile.fragment, got 3 : i64}}
func.func private @f() attributes {tile.loop = 3 : i64}

// -----

// expected-error @+1 {{'tile.async' must be a unit attribute, got true}}
func.func private @f() attributes {tile.async = true}

// -----

// expected-error @+1 {{'tile.consumers' must be a unit attribute, got 1 : i64}}
func.func private @f() attributes {tile.consumers = 1 : i64}

// -----

// expected-error @+1 {{'tile.resident_blocks' must be a unit attribute or a #tile<persistent_blocks ...>, got "prime"}}
func.func private @f() attributes {tile.resident_blocks = "prime"}

// -----

// expected-error @+1 {{'tile.producer_threads' must be an integer, got "128"}}
func.func private @f() attributes {tile.producer_threads = "128"}

// -----

// expected-error @+1 {{'tile.tensor_map_args' must be an array<i64>, got [0, 2]}}
func.func private @f() attributes {tile.tensor_map_args = [0, 2]}

// -----

// expected-error @+1 {{unknown tile attribute 'tile.chip' (known: tile.target, tile.loop, tile.async, tile.consumers, tile.producer_threads, tile.tensor_map_args, tile.lowered, tile.turn, tile.persistent, tile.tiles, tile.resident_blocks, tile.dependent_launch)}}
func.func private @f() attributes {tile.chip = "sm_80"}

// -----

// expected-error @+1 {{'tile.zero_init' must be a unit attribute on a global memref argument, got unit on argument 0 of type 'f32'}}
func.func @f(%x: f32 {tile.zero_init}) {
  return
}

// -----

// expected-error @+1 {{'tile.zero_init' must be a unit attribute on a global memref argument, got 1 : i64 on argument 0 of type 'memref<4xf32>'}}
func.func @f(%x: memref<4xf32> {tile.zero_init = 1}) {
  return
}

// -----

// expected-error @+1 {{'tile.zero_init' must be a unit attribute on a global memref argument, got unit on argument 0 of type 'memref<4xf32, #gpu.address_space<workgroup>>'}}
func.func @f(%x: memref<4xf32, #gpu.address_space<workgroup>> {tile.zero_init}) {
  return
}

// -----

// expected-error @+1 {{unknown tile argument attribute 'tile.zero' (known: tile.zero_init, tile.overwrite)}}
func.func @f(%x: memref<4xf32> {tile.zero}) {
  return
}

// -----

// expected-error @+1 {{'tile.overwrite' must be a unit attribute on a global memref argument, got unit on argument 0 of type 'index'}}
func.func @f(%x: index {tile.overwrite}) {
  return
}

// -----

// expected-error @+1 {{'tile.overwrite' must be a unit attribute on a global memref argument, got "yes" on argument 0 of type 'memref<4xf32>'}}
func.func @f(%x: memref<4xf32> {tile.overwrite = "yes"}) {
  return
}

// -----

// expected-error @+1 {{argument 0 is both 'tile.overwrite' and 'tile.zero_init': a zeroed output is added into, not overwritten}}
func.func @f(%x: memref<4xf32> {tile.zero_init, tile.overwrite}) {
  return
}
