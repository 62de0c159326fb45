// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Targets print by chip name whenever they equal the table entry of their
// chip, and in full otherwise; tensor-core instructions print as
// `kind mMnNkK, A x B -> C` with their groups when set. Every printed form
// parses back to the same attribute.

// CHECK-LABEL: func private @known_chips()
// CHECK-SAME: a = #tile.target<"sm_80">
// CHECK-SAME: b = #tile.target<"sm_86">
// CHECK-SAME: c = #tile.target<"sm_89">
// CHECK-SAME: d = #tile.target<"sm_90">
// CHECK-SAME: e = #tile.target<"sm_90a">
// CHECK-SAME: f = #tile.target<"gfx90a">
// CHECK-SAME: g = #tile.target<"gfx942">
func.func private @known_chips() attributes {
  a = #tile.target<"sm_80">,
  b = #tile.target<"sm_86">,
  c = #tile.target<"sm_89">,
  d = #tile.target<"sm_90">,
  e = #tile.target<"sm_90a">,
  f = #tile.target<"gfx90a">,
  g = #tile.target<"gfx942">
}

// The table entries written in full are the short forms: what the short
// form expands to.
// CHECK-LABEL: func private @table_in_full()
// CHECK-SAME: a = #tile.target<"sm_80">
// CHECK-SAME: b = #tile.target<"sm_90a">
// CHECK-SAME: c = #tile.target<"gfx942">
func.func private @table_in_full() attributes {
  a = #tile.target<chip = "sm_80", vendor = nvidia, warp_size = 32,
                   shared_per_block = 166912, shared_per_sm = 167936,
                   registers_per_thread = 255, registers_per_sm = 65536,
                   mma = [#tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>,
                          #tile.mma<mma_sync m16n8k16, f16 x f16 -> f16>,
                          #tile.mma<mma_sync m16n8k16, bf16 x bf16 -> f32>,
                          #tile.mma<mma_sync m16n8k8, f32 x f32 -> f32>,
                          #tile.mma<mma_sync m16n8k32, i8 x i8 -> i32>],
                   features = [cp_async]>,
  b = #tile.target<chip = "sm_90a", vendor = nvidia, warp_size = 32,
                   shared_per_block = 232448, shared_per_sm = 233472,
                   registers_per_thread = 255, registers_per_sm = 65536,
                   mma = [#tile.mma<wgmma m64n256k16, f16 x f16 -> f32>,
                          #tile.mma<wgmma m64n256k16, bf16 x bf16 -> f32>,
                          #tile.mma<wgmma m64n256k32, f8E4M3FN x f8E4M3FN -> f32>,
                          #tile.mma<wgmma m64n256k32, f8E4M3FN x f8E5M2 -> f32>,
                          #tile.mma<wgmma m64n256k32, f8E5M2 x f8E4M3FN -> f32>,
                          #tile.mma<wgmma m64n256k32, f8E5M2 x f8E5M2 -> f32>,
                          #tile.mma<wgmma m64n256k8, f32 x f32 -> f32>,
                          #tile.mma<wgmma m64n256k32, i8 x i8 -> i32>,
                          #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>,
                          #tile.mma<mma_sync m16n8k16, f16 x f16 -> f16>,
                          #tile.mma<mma_sync m16n8k16, bf16 x bf16 -> f32>,
                          #tile.mma<mma_sync m16n8k8, f32 x f32 -> f32>,
                          #tile.mma<mma_sync m16n8k32, i8 x i8 -> i32>],
                   features = [cp_async, tma, warp_specialize, vector_atomics, clusters, dependent_launch]>,
  c = #tile.target<chip = "gfx942", vendor = amd, warp_size = 64,
                   shared_per_block = 65536, shared_per_sm = 65536,
                   registers_per_thread = 512, registers_per_sm = 131072,
                   mma = [#tile.mma<mfma m32n32k8, f16 x f16 -> f32>,
                          #tile.mma<mfma m16n16k16, f16 x f16 -> f32>,
                          #tile.mma<mfma m32n32k8, bf16 x bf16 -> f32>,
                          #tile.mma<mfma m16n16k16, bf16 x bf16 -> f32>,
                          #tile.mma<mfma m32n32k2, f32 x f32 -> f32>,
                          #tile.mma<mfma m16n16k4, f32 x f32 -> f32>,
                          #tile.mma<mfma m32n32k16, i8 x i8 -> i32>,
                          #tile.mma<mfma m16n16k32, i8 x i8 -> i32>,
                          #tile.mma<mfma m32n32k16, f8E4M3FNUZ x f8E4M3FNUZ -> f32>,
                          #tile.mma<mfma m32n32k16, f8E4M3FNUZ x f8E5M2FNUZ -> f32>,
                          #tile.mma<mfma m32n32k16, f8E5M2FNUZ x f8E4M3FNUZ -> f32>,
                          #tile.mma<mfma m32n32k16, f8E5M2FNUZ x f8E5M2FNUZ -> f32>,
                          #tile.mma<mfma m16n16k32, f8E4M3FNUZ x f8E4M3FNUZ -> f32>,
                          #tile.mma<mfma m16n16k32, f8E4M3FNUZ x f8E5M2FNUZ -> f32>,
                          #tile.mma<mfma m16n16k32, f8E5M2FNUZ x f8E4M3FNUZ -> f32>,
                          #tile.mma<mfma m16n16k32, f8E5M2FNUZ x f8E5M2FNUZ -> f32>],
                   features = [buffer_load_lds]>
}

// A variant of a known chip (less shared memory, no features) and an
// unknown chip stay in full.
// CHECK-LABEL: func private @variants()
// CHECK-SAME: a = #tile.target<chip = "sm_80", vendor = nvidia, warp_size = 32, shared_per_block = 101376, shared_per_sm = 167936, registers_per_thread = 255, registers_per_sm = 65536, mma = [#tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>], features = []>
// CHECK-SAME: b = #tile.target<chip = "gfx_test", vendor = amd, warp_size = 32, shared_per_block = 1024, shared_per_sm = 2048, registers_per_thread = 256, registers_per_sm = 1024, mma = [], features = [buffer_load_lds]>
func.func private @variants() attributes {
  a = #tile.target<chip = "sm_80", vendor = nvidia, warp_size = 32,
                   shared_per_block = 101376, shared_per_sm = 167936,
                   registers_per_thread = 255, registers_per_sm = 65536,
                   mma = [#tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>],
                   features = []>,
  b = #tile.target<chip = "gfx_test", vendor = amd, warp_size = 32,
                   shared_per_block = 1024, shared_per_sm = 2048,
                   registers_per_thread = 256, registers_per_sm = 1024,
                   mma = [], features = [buffer_load_lds]>
}

// CHECK-LABEL: func private @mma()
// CHECK-SAME: a = #tile.mma<mma_sync m16n8k16, bf16 x bf16 -> f32, groups 2x2>
// CHECK-SAME: b = #tile.mma<wgmma m64n128k16, f16 x f16 -> f32, groups 2x1>
// CHECK-SAME: c = #tile.mma<mfma m16n16k32, f8E4M3FNUZ x f8E5M2FNUZ -> f32>
// CHECK-SAME: d = #tile.mma<mma_sync m16n8k32, si8 x ui8 -> si32>
func.func private @mma() attributes {
  a = #tile.mma<mma_sync m16n8k16, bf16 x bf16 -> f32, groups 2x2>,
  b = #tile.mma<wgmma m64n128k16, f16 x f16 -> f32, groups 2x1>,
  c = #tile.mma<mfma m16n16k32, f8E4M3FNUZ x f8E5M2FNUZ -> f32>,
  d = #tile.mma<mma_sync m16n8k32, si8 x ui8 -> si32>
}

// The attributes passes hand each other, each of its registered type.
// CHECK-LABEL: module attributes {tile.target = #tile.target<"sm_90a">}
// CHECK: func.func @contracts() attributes {tile.target = #tile.target<"sm_80">, tile.tensor_map_args = array<i64: 0, 2>}
// CHECK: tile.kernel {{.*}}attributes {tile.producer_threads = 128 : i64}
// CHECK: scf.if %{{.*}} {
// CHECK: tile.copy {{.*}} {tile.async, tile.loop = #tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>}
// CHECK: } {tile.consumers}
module attributes {tile.target = #tile.target<"sm_90a">} {
  func.func @contracts() attributes {tile.target = #tile.target<"sm_80">,
                                     tile.tensor_map_args = array<i64: 0, 2>} {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    tile.kernel blocks(%bx) in (%c1) threads(64) attributes {tile.producer_threads = 128 : i64} {
      %g = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
      %s = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
      scf.if %true {
        tile.copy %g -> %s {tile.async, tile.loop = #tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>} : memref<64xf32, #gpu.address_space<workgroup>> -> memref<64xf32, #gpu.address_space<workgroup>>
      } {tile.consumers}
    }
    return
  }
}
