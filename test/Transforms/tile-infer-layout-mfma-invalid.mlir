// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layout -o /dev/null

// What the MFMA gemm of AMD chips cannot take is reported at the gemm.

// 8-bit floats: gfx942 has MFMA for the FNUZ variants only, gfx90a none.
func.func @fp8_on_gfx90a() attributes {tile.target = #tile.target<"gfx90a">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for A 'f8E4M3FNUZ', B 'f8E4M3FNUZ', C 'f32' on its target gfx90a}}
    tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FNUZ, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// The OCP 8-bit floats of sm_90a are not what gfx942's MFMA computes.
func.func @ocp_fp8_on_gfx942() attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for A 'f8E4M3FN', B 'f8E4M3FN', C 'f32' on its target gfx942}}
    tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// f16 accumulators: MFMA accumulates f16 products in f32 only.
func.func @f16_accumulator_on_gfx942() attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for A 'f16', B 'f16', C 'f16' on its target gfx942}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

// A register operand comes from its producer's loop in the thread that
// holds it: an accumulator split over the waves along N (full_col) does
// not hold the rows a full_row gemm wants of each wave, and nothing yet
// moves fragment elements between threads.
func.func @register_operand_from_other_waves() attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %q = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %k = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %v = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %p = tile.alloc : memref<64x64xf16, #tile.fragment>
    %o = tile.alloc : memref<64x32xf32, #tile.fragment>
    // expected-note @+1 {{gets its layout here, from the C operand of the MFMA gemm, 1x2 waves}}
    tile.gemm %q, %k -> %s transpose_b clear_accum policy(full_col) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.parallel' op needs %4 laid out as #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 floordiv 64 + d1 floordiv 32) * 64}}
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.fragment>
      %t = arith.truncf %x : f32 to f16
      memref.store %t, %p[%i, %j] : memref<64x64xf16, #tile.fragment>
    }
    // expected-note @+1 {{gets its layout here, from the register A operand of the MFMA gemm, 2x1 waves}}
    tile.gemm %p, %v -> %o clear_accum policy(full_row) : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<64x32xf32, #tile.fragment>
  }
  return
}

// -----

// A tile no wave partition fits: 16x16 on four waves.
func.func @tile_too_small_for_waves() attributes {tile.target = #tile.target<"gfx942">} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<16x16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for 'f16' x 'f16' -> 'f32' on gfx942 that fits its 16x16x16 tile on 256 threads}}
    tile.gemm %a, %b -> %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>> -> memref<16x16xf32, #tile.fragment>
  }
  return
}
