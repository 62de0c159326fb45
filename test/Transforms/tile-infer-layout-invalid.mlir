// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-attach-target=chip=sm_80 -tile-infer-layout -o /dev/null
// RUN: not tile-opt %s -split-input-file -tile-infer-layout=chip=sm_75 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s -split-input-file -tile-infer-layout=vector-bytes=12 -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC

// Options are checked.
// CHIP: error: unknown chip 'sm_75'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
// VEC: error: tile-infer-layout: vector-bytes must be a power of two, got 12

// An annotated accumulator that is not the mma fragment the gemm needs is
// an error at the gemm, not silently replaced.
func.func @annotation_conflicts_with_gemm() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    // expected-note @below {{%2 gets its layout here, from its layout annotation}}
    %Cf = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0, d1) -> (d0 * 2 + d1 floordiv 32, d1 mod 32)>} : memref<64x64xf32, #tile.fragment>
    // expected-error @below {{'tile.gemm' op needs %2 laid out as #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]> (from the C operand of the gemm, 2x2 warps), but tile.alloc at}}
    tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Two loops that need a fragment laid out two ways: the first hands the
// accumulator's binding to %acc2; the second, running where %acc2 is (read
// transposed), cannot write the accumulator.
func.func @two_loops_conflict() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<64x64xf32, #tile.fragment>
    %acc2 = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-note @below {{%2 gets its layout here, from the C operand of the gemm, 2x2 warps}}
    tile.gemm %As, %Bs -> %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // expected-note @below {{%3 gets its layout here, from the loop over %2}}
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      memref.store %x, %acc2[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    // expected-error-re @below {{'tile.parallel' op needs %2 laid out as #tile.fragment<[64, 64], threads = 128, {{.*}}> (from the loop over %3), but tile.gemm at {{.*}} requires #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>}}
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc2[%j, %i] : memref<64x64xf32, #tile.fragment>
      memref.store %x, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A reduction into a fragment annotated so that the threads holding a row
// do not hold its result.
func.func @reduce_conflict() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-note @below {{%3 gets its layout here, from its layout annotation}}
    %m = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0, 0)>} : memref<64xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // expected-error @below {{'tile.reduce' op needs %3 laid out as #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 32) * 32 + s0 mod 4 + (s0 floordiv 4) * 64, (d0 floordiv 8) mod 4), replicate = 8> (from the threads holding %2), but tile.alloc at}}
    tile.reduce max %acc -> %m dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// A copy that fills a replicated fragment from one that is not leaves
// replicas unwritten.
func.func @copy_misses_replicas(%bias: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-note @below {{%3 gets its layout here, from its layout annotation}}
    %b = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0, 0)>} : memref<64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    // expected-note @below {{%4 gets its layout here, from the loop over %2}}
    tile.parallel (%i, %j) in (64, 64) {
      %c = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      %x = memref.load %d[%j] : memref<64xf32, #tile.fragment>
      %s = arith.addf %c, %x : f32
      memref.store %s, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    // expected-error @below {{'tile.copy' op needs %4 laid out as #tile.fragment<[64], threads = 128, (d0) -> (d0, 0)> (from the loop over %3), but tile.parallel at}}
    tile.copy %b -> %d : memref<64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_k() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<8x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @below {{'tile.gemm' op expected K (8) to be a multiple of 16, the K of m16n8k16}}
    tile.gemm %As, %Bs -> %Cf : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_warps() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @below {{'tile.gemm' op cannot split the 64x64 C tile over 8 warps with policy full_row: each warp needs a multiple of 16 rows and 8 columns}}
    tile.gemm %As, %Bs -> %Cf policy(full_row) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// A shared layout gives every element its own offset (padding may leave
// gaps between them).
func.func @overlapping_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error @below {{'tile.alloc' op expected a layout annotation that gives each of the 4096 elements of 'memref<128x32xf16, #gpu.address_space<workgroup>>' its own offset, got #tile.layout<[128, 32], (d0, d1) -> (d0 * 16 + d1)>}}
    %S = tile.alloc {layout = #tile.layout<[128, 32], (d0, d1) -> (d0 * 16 + d1)>} : memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Gaps are bounded (16 times the tile, or 2^22 offsets): a span of 127
// million halves is no padding.
func.func @sparse_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error @below {{'tile.alloc' op expected a layout annotation that gives each of the 4096 elements of 'memref<128x32xf16, #gpu.address_space<workgroup>>' its own offset, got #tile.layout<[128, 32], padded<999968>>}}
    %S = tile.alloc {layout = #tile.layout<[128, 32], (d0, d1) -> (d0 * 1000000 + d1)>} : memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @fragment_annotation_not_injective() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error @below {{'tile.alloc' op expected a layout annotation over 'memref<8x8xf32, #tile.fragment>' that holds every element in a distinct register, got #tile.fragment<threads = 64, map = (d0, d1) -> (d0, 0)>}}
    %F = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0, 0)>} : memref<8x8xf32, #tile.fragment>
  }
  return
}

// -----

// A register index of 2^63 - 1 leaves no register count (found by tile-fuzz:
// it crashed the injectivity check).
func.func @fragment_annotation_register_overflow() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error @below {{'tile.alloc' op expected a layout annotation over 'memref<8x8xf32, #tile.fragment>' that holds every element in a distinct register, got #tile.fragment<threads = 64, map = (d0, d1) -> (d0, 9223372036854775807)>}}
    %F = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0, 9223372036854775807)>} : memref<8x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @loop_annotation_not_injective() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error @below {{'tile.parallel' op expected a layout over the iteration space that runs every point on distinct (thread, register) slots, got #tile.fragment<threads = 64, map = (d0, d1) -> (0, 0)>}}
    tile.parallel (%i, %j) in (8, 8) layout(#tile.fragment<threads = 64, map = (d0, d1) -> (0, 0)>) {
    }
  }
  return
}

// -----

func.func @bad_loop_attribute(%A: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %S = tile.alloc : memref<8x8xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'tile.copy' op expected 'tile.loop' to bind the 2-d tile to distinct slots of the 64 threads of the kernel, got #tile.fragment<[8, 8], threads = 32, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>}}
    tile.copy %A[%c0, %c0] -> %S {tile.loop = #tile.fragment<[8, 8], threads = 32, (d0, d1) -> (d0 * 4 + d1 floordiv 2, d1 mod 2)>} : memref<64x64xf32> -> memref<8x8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @fragment_not_allocated(%F: memref<64x64xf32, #tile.fragment>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    // expected-error @below {{'tile.gemm' op expects fragment operand %arg0 to be a tile.alloc of the kernel, so that it can be laid out}}
    tile.gemm %As, %Bs -> %F : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_part_of_fragment(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %F = tile.alloc : memref<128xf32, #tile.fragment>
    // expected-error @below {{'tile.copy' op moves part of fragment %0; layout inference needs whole fragments as copy operands}}
    tile.copy %F[%c1] -> %A : memref<128xf32, #tile.fragment> -> memref<64xf32>
  }
  return
}

// -----

// Slicing goes through the GF(2) form: a layout that adds coordinates has
// none, not even on the tile's power-of-two corner.
func.func @slice_not_linear(%X: memref<96x64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %S = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0, d1) -> ((d0 + d1) mod 128, d1)>} : memref<96x64xf32, #tile.fragment>
    %m = tile.alloc : memref<96xf32, #tile.fragment>
    // expected-error @below {{'tile.reduce' op cannot derive the layout of %1 from %0 laid out as #tile.fragment<[96, 64], threads = 128, (d0, d1) -> ((d0 + d1) mod 128, d1)>: slicing needs a power-of-two tile whose layout sends each coordinate bit to one thread or register bit}}
    tile.reduce sum %S -> %m dim(1) : memref<96x64xf32, #tile.fragment> -> memref<96xf32, #tile.fragment>
  }
  return
}

// -----

// A tile of 96 rows is sliced through its 64-row corner, whose slice must
// hold for every row: here rows 64-95 sit on other threads than the
// corner's would.
func.func @slice_corner_does_not_extend(%X: memref<96x64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %S = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d1 mod 32 + (d0 floordiv 64) * 32, d0 mod 64 + (d1 floordiv 32) * 64)>} : memref<96x64xf32, #tile.fragment>
    %m = tile.alloc : memref<96xf32, #tile.fragment>
    // expected-error @below {{'tile.reduce' op cannot derive the layout of %1 from %0 laid out as #tile.fragment<[96, 64], threads = 64, (d0, d1) -> (d1 mod 32 + (d0 floordiv 64) * 32, d0 mod 64 + (d1 floordiv 32) * 64)>: the slice of the tile's power-of-two corner does not extend to the whole tile}}
    tile.reduce sum %S -> %m dim(1) : memref<96x64xf32, #tile.fragment> -> memref<96xf32, #tile.fragment>
  }
  return
}

// -----

func.func @rank_zero(%A: memref<f32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error @below {{'tile.alloc' op layout inference needs tiles of rank 1 or more, got 'memref<f32, #tile.fragment>' (a one-element tile is memref<1x...>)}}
    %F = tile.alloc : memref<f32, #tile.fragment>
    tile.copy %A -> %F : memref<f32> -> memref<f32, #tile.fragment>
  }
  return
}

// -----

func.func @rank_zero_copy(%A: memref<f32>, %B: memref<f32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error @below {{'tile.copy' op layout inference needs tiles of rank 1 or more}}
    tile.copy %A -> %B : memref<f32> -> memref<f32>
  }
  return
}

// -----

// When the layout a loop implies has no affine form (a slice of a tile
// whose extents are not powers of two), the error gives the loop's binding.
func.func @loop_cannot_read() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-note @below {{%0 gets its layout here, from its layout annotation}}
    %F = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0) -> (d0, 0)>} : memref<8xf32, #tile.fragment>
    %G = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0 * 8 + d1, 0)>} : memref<6x8xf32, #tile.fragment>
    // expected-error @below {{'tile.parallel' op runs as #tile.fragment<[6, 8], threads = 64, (d0, d1) -> (d0 * 8 + d1, 0)> (from the loop over %1), which cannot read %0 laid out as #tile.fragment<[8], threads = 64, (d0) -> (d0, 0)> by tile.alloc at}}
    tile.parallel (%i, %j) in (6, 8) {
      %x = memref.load %F[%j] : memref<8xf32, #tile.fragment>
      memref.store %x, %G[%i, %j] : memref<6x8xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @reduce_cannot_combine() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %S = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0 * 3 + d1, d0)>} : memref<6x8xf32, #tile.fragment>
    %m = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0) -> (d0 + 1, 0)>} : memref<6xf32, #tile.fragment>
    // expected-error @below {{'tile.reduce' op cannot combine %0 laid out as #tile.fragment<[6, 8], threads = 64, (d0, d1) -> (d0 * 3 + d1, d0)> into %1 laid out as #tile.fragment<[6], threads = 64, (d0) -> (d0 + 1, 0)> by tile.alloc at}}
    tile.reduce sum %S -> %m dim(1) : memref<6x8xf32, #tile.fragment> -> memref<6xf32, #tile.fragment>
  }
  return
}

// -----

// A gemm may name its instruction only among those its target offers:
// sm_80 has no wgmma.
func.func @pinned_mma_not_offered(%A: memref<?x?xf16>, %B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    // expected-error @below {{'tile.gemm' op asks for #tile.mma<wgmma m64n16k16, f16 x f16 -> f32>, which sm_80 does not offer for 'f16' x 'f16' -> 'f32'}}
    tile.gemm %As, %Bs -> %Cf transpose_b clear_accum
        {mma = #tile.mma<wgmma m64n16k16, f16 x f16 -> f32>}
        : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>> -> memref<64x16xf32, #tile.fragment>
  }
  return
}
