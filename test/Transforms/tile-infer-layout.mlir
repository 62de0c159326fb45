// RUN: tile-opt %s -split-input-file -tile-attach-target=chip=sm_80 -tile-infer-layout | FileCheck %s
// Inferred layouts are annotations a second run accepts and keeps:
// RUN: tile-opt %s -split-input-file -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-infer-layout \
// RUN:   | FileCheck %s

// The GEMM of examples/gemm.mlir: A and B in shared memory get the NVIDIA
// swizzle that fits their rows (64 bytes for 32 halves, 128 bytes for 128
// halves); C gets the mma.sync accumulator, 2x2 warps of 64x64 each. Copies
// bind 16-byte vectors (8 halves) coalesced along the rows; the copy out of
// C follows C's fragment.

// CHECK-LABEL: func.func @gemm
// CHECK: tile.alloc {layout = #tile.layout<[128, 32], swizzle<64, 16>>}
// CHECK: tile.alloc {layout = #tile.layout<[32, 128], swizzle<128, 16>>}
// CHECK: tile.alloc {layout = #tile.fragment<[128, 128], mma_m16n8k16_c, repeat = [4, 8], repeat_on_thread = [2, 2]>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[128, 32], threads = 128, (d0, d1) -> ((d0 mod 32) * 4 + d1 floordiv 8, (d0 floordiv 32) * 8 + d1 mod 8)>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[32, 128], threads = 128, (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 8, (d0 floordiv 8) * 8 + d1 mod 8)>}
// CHECK: tile.gemm
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[128, 128], mma_m16n8k16_c, repeat = [4, 8], repeat_on_thread = [2, 2]>}
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %As = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<1024x1024xf16> -> memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x128xf32, #tile.fragment> -> memref<1024x1024xf16>
  }
  return
}

// -----

// GEMM + bias (paper Fig. 7): the loop runs where C is; the bias, read as
// %bias[%j], is held by every thread that holds a column of C: the column
// bits of C's threads stay, its row bits (and the row warps) become 16
// replicas. Its 64 elements take 4 registers per thread. The copy that
// loads it writes every replica.

// CHECK-LABEL: func.func @gemm_bias
// CHECK: %[[C:.*]] = tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>}
// CHECK: %[[D:.*]] = tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 floordiv 2) mod 4 + (d0 floordiv 32) * 64 + s0 * 4, d0 mod 2 + ((d0 floordiv 8) mod 4) * 2), replicate = 16>}
// CHECK: tile.copy %{{.*}} -> %[[D]] {tile.loop = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 floordiv 2) mod 4 + (d0 floordiv 32) * 64 + s0 * 4, d0 mod 2 + ((d0 floordiv 8) mod 4) * 2), replicate = 16>}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>)
// CHECK: tile.copy %[[C]] -> {{.*}} {tile.loop = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>}
func.func @gemm_bias(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %bias: memref<1024xf32>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    %Df = tile.alloc : memref<64xf32, #tile.fragment>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.copy %A[%m, %c0] -> %As : memref<1024x1024xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %n] -> %Bs : memref<1024x1024xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf clear_accum : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %bias[%n] -> %Df : memref<1024xf32> -> memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %c = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %d = memref.load %Df[%j] : memref<64xf32, #tile.fragment>
      %s = arith.addf %c, %d : f32
      memref.store %s, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<64x64xf32, #tile.fragment> -> memref<1024x1024xf32>
  }
  return
}

// -----

// Softmax-style row reductions over a gemm result: the row max and row sum
// are slices of the accumulator (the threads holding row r hold result r,
// replicated over the 4 threads of a quad and the 2 column warps), and the
// loops that use both run where the accumulator is.

// CHECK-LABEL: func.func @gemm_softmax
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>}
// CHECK: tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 32) * 32 + s0 mod 4 + (s0 floordiv 4) * 64, (d0 floordiv 8) mod 4), replicate = 8>}
// CHECK: tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 32) * 32 + s0 mod 4 + (s0 floordiv 4) * 64, (d0 floordiv 8) mod 4), replicate = 8>}
// CHECK: tile.reduce max
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>)
// CHECK: tile.reduce sum
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>)
func.func @gemm_softmax(%O: memref<1024x64xf32>) {
  %c8 = arith.constant 8 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %Qs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<64x64xf32, #tile.fragment>
    %mx = tile.alloc : memref<64xf32, #tile.fragment>
    %sum = tile.alloc : memref<64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks -> %S transpose_b clear_accum : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.reduce max %S -> %mx dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = memref.load %mx[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %x, %y : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce sum %S -> %sum dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = memref.load %sum[%i] : memref<64xf32, #tile.fragment>
      %d = arith.divf %x, %y : f32
      memref.store %d, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Plain copies global -> shared -> global, nothing constrains them: each of
// the 128 threads moves 128 * 32 / 128 = 32 halves as 4 vectors of 8
// consecutive halves (16 bytes), threads along the rows first. The shared
// buffer, no tensor-core operand, stays row-major.

// CHECK-LABEL: func.func @copies
// CHECK: tile.alloc {layout = #tile.layout<[128, 32], row_major>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[128, 32], threads = 128, (d0, d1) -> ((d0 mod 32) * 4 + d1 floordiv 8, (d0 floordiv 32) * 8 + d1 mod 8)>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[128, 32], threads = 128, (d0, d1) -> ((d0 mod 32) * 4 + d1 floordiv 8, (d0 floordiv 32) * 8 + d1 mod 8)>}
func.func @copies(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %S = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %m = arith.muli %bx, %c128 : index
    %k = arith.muli %bx, %c32 : index
    tile.copy %A[%m, %k] -> %S : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %S -> %B[%m, %k] : memref<128x32xf16, #gpu.address_space<workgroup>> -> memref<1024x1024xf16>
  }
  return
}

// -----

// The widest vector is only as wide as alignment allows: the origin %k is
// a multiple of 4 only (4 halves, 8 bytes); a row of 20 floats is a
// multiple of 4 floats; coalesced_width forces 2; f32 vectors are 4 wide.

// CHECK-LABEL: func.func @vector_widths
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[16, 64], threads = 128, (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 4, (d0 floordiv 8) * 4 + d1 mod 4)>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[16, 20], threads = 128, (d0, d1) -> (d1 floordiv 4 + d0 * 5, d1 mod 4)>}
// CHECK: tile.copy {{.*}} {coalesced_width = 2 : i64, tile.loop = #tile.fragment<[16, 64], threads = 128, (d0, d1) -> ((d0 mod 4) * 32 + d1 floordiv 2, (d0 floordiv 4) * 2 + d1 mod 2)>}
func.func @vector_widths(%A: memref<1024x1024xf16>, %X: memref<64x20xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %S = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %T = tile.alloc : memref<16x20xf32, #gpu.address_space<workgroup>>
    %k = arith.muli %bx, %c4 : index
    tile.copy %A[%c0, %k] -> %S : memref<1024x1024xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.copy %X[%c0, %c0] -> %T : memref<64x20xf32> -> memref<16x20xf32, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %S {coalesced_width = 2} : memref<1024x1024xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A parallel loop over a fragment nothing else constrains: the loop gets
// the coalesced binding (8 halves per vector, as the global row it reads
// allows) and hands it to the fragment; the copy out follows the fragment.

// CHECK-LABEL: func.func @free_parallel
// CHECK: %[[F:.*]] = tile.alloc {layout = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 16) * 8 + d1 floordiv 8, (d0 floordiv 16) * 8 + d1 mod 8)>}
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 16) * 8 + d1 floordiv 8, (d0 floordiv 16) * 8 + d1 mod 8)>)
// CHECK: tile.copy %[[F]] {{.*}} {tile.loop = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 16) * 8 + d1 floordiv 8, (d0 floordiv 16) * 8 + d1 mod 8)>}
func.func @free_parallel(%A: memref<1024x64xf16>) {
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %F = tile.alloc : memref<64x64xf16, #tile.fragment>
    %m = arith.muli %bx, %c64 : index
    tile.parallel (%i, %j) in (64, 64) {
      %r = arith.addi %i, %m : index
      %x = memref.load %A[%r, %j] : memref<1024x64xf16>
      memref.store %x, %F[%i, %j] : memref<64x64xf16, #tile.fragment>
    }
    tile.copy %F -> %A[%m, %c0] : memref<64x64xf16, #tile.fragment> -> memref<1024x64xf16>
  }
  return
}

// -----

// A loop that reads global memory across rows (%A[%j, %i]) cannot use
// vectors along %j.

// CHECK-LABEL: func.func @transposed_read
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[32, 32], threads = 128, (d0, d1) -> ((d0 mod 4) * 32 + d1, d0 floordiv 4)>)
func.func @transposed_read(%A: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %F = tile.alloc : memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %A[%j, %i] : memref<32x32xf32>
      memref.store %x, %F[%i, %j] : memref<32x32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// An annotated fragment wins: the copy into it and the loop over it follow
// it, and so does the fragment the loop writes.

// CHECK-LABEL: func.func @annotated
// CHECK: tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0, d1)>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 32], threads = 64, (d0, d1) -> (d0, d1)>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[64, 32], threads = 64, (d0, d1) -> (d0, d1)>}
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 32], threads = 64, (d0, d1) -> (d0, d1)>)
func.func @annotated(%A: memref<1024x1024xf32>) {
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c8) threads(64) {
    %F = tile.alloc {layout = #tile.fragment<threads = 64, map = (d0, d1) -> (d0, d1)>} : memref<64x32xf32, #tile.fragment>
    %G = tile.alloc : memref<64x32xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %F : memref<1024x1024xf32> -> memref<64x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %x = memref.load %F[%i, %j] : memref<64x32xf32, #tile.fragment>
      memref.store %x, %G[%i, %j] : memref<64x32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// An annotated shared layout wins over the gemm's swizzle, and an
// annotated loop layout over the default binding; the fragment it writes
// follows it.

// CHECK-LABEL: func.func @annotated_shared
// CHECK: tile.alloc {layout = #tile.layout<[64, 32], swizzle<32, 16>>}
// CHECK: tile.alloc {layout = #tile.layout<[32, 64], swizzle<128, 16>>}
// CHECK: tile.alloc {layout = #tile.fragment<[16, 32], threads = 128, (d0, d1) -> (d0 * 8 + d1 floordiv 4, d1 mod 4)>}
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[16, 32], threads = 128, (d0, d1) -> (d0 * 8 + d1 floordiv 4, d1 mod 4)>)
func.func @annotated_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc {layout = #tile.layout<[64, 32], swizzle<32, 16>>} : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    %F = tile.alloc : memref<16x32xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    %zero = arith.constant 0.0 : f32
    tile.parallel (%i, %j) in (16, 32) layout(#tile.fragment<threads = 128, map = (d0, d1) -> (d0 * 8 + d1 floordiv 4, d1 mod 4)>) {
      memref.store %zero, %F[%i, %j] : memref<16x32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Register operands (rr): A is the mma A fragment of each row warp,
// replicated over the column warps; B the mma B fragment of each column
// warp, replicated over the row warps (warp w0 + 2 * w1 as in C, so B is a
// map rather than a chain). Copies into them follow them.

// CHECK-LABEL: func.func @gemm_rr
// CHECK: tile.alloc {layout = #tile.fragment<[64, 32], mma_m16n8k16_a, repeat = [2, 2], repeat_on_thread = [2, 1], replicate = 2>}
// CHECK: tile.alloc {layout = #tile.fragment<[32, 64], threads = 128, (d0, d1)[s0] -> ((d1 mod 8) * 4 + (d0 mod 8) floordiv 2 + (d1 floordiv 32) * 64 + s0 * 32, d0 mod 2 + ((d0 mod 16) floordiv 8) * 2 + ((d1 mod 32) floordiv 8) * 4 + (d0 floordiv 16) * 16), replicate = 2>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [2, 4], repeat_on_thread = [2, 2]>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[64, 32], mma_m16n8k16_a, repeat = [2, 2], repeat_on_thread = [2, 1], replicate = 2>}
func.func @gemm_rr(%A: memref<256x256xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Af = tile.alloc : memref<64x32xf16, #tile.fragment>
    %Bf = tile.alloc : memref<32x64xf16, #tile.fragment>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Af : memref<256x256xf16> -> memref<64x32xf16, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Bf : memref<256x256xf16> -> memref<32x64xf16, #tile.fragment>
    tile.gemm %Af, %Bf -> %Cf : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #tile.fragment> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// tf32 (f32 operands, 128-byte rows, B stored N x K) with full_row: four
// warps of 16 rows each. int8 with full_col and B in registers: the
// m16n8k32 B fragment, four warps of 16 columns. Accumulators of every
// mma shape place elements alike and print as mma_m16n8k16_c.

// CHECK-LABEL: func.func @gemm_variants
// CHECK: tile.alloc {layout = #tile.layout<[64, 32], swizzle<128, 32>>}
// CHECK: tile.alloc {layout = #tile.layout<[64, 32], swizzle<128, 32>>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>}
// CHECK: tile.alloc {layout = #tile.layout<[64, 64], swizzle<64, 8>>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k32_b, repeat = [2, 2], repeat_on_thread = [1, 4]>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [4, 2], repeat_on_thread = [1, 4]>}
func.func @gemm_variants() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %Cf transpose_b policy(full_row) : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    %Ai = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bi = tile.alloc : memref<64x64xi8, #tile.fragment>
    %Ci = tile.alloc : memref<64x64xi32, #tile.fragment>
    tile.gemm %Ai, %Bi -> %Ci policy(full_col) : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #tile.fragment> -> memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

// Tile operators over shared memory get a tile.loop: fill, a reduction
// into a fragment (whose result is the slice of that binding), an atomic.
// A copy into a per-thread buffer runs on every thread.

// CHECK-LABEL: func.func @shared_and_local
// CHECK: tile.alloc {layout = #tile.layout<[64, 64], row_major>}
// CHECK: tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 16 + s0, d0 floordiv 8), replicate = 16>}
// CHECK: tile.fill {{.*}} {tile.loop = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 4, (d0 floordiv 8) * 4 + d1 mod 4)>}
// CHECK: tile.reduce {{.*}} {tile.loop = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 4, (d0 floordiv 8) * 4 + d1 mod 4)>}
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[4], threads = 128, (d0)[s0] -> (s0, d0), replicate = 128>}
// CHECK: tile.atomic {{.*}} {tile.loop = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 4, (d0 floordiv 8) * 4 + d1 mod 4)>}
func.func @shared_and_local(%A: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %S = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %R = tile.alloc : memref<64xf32, #tile.fragment>
    %L = tile.alloc : memref<4xf32, #gpu.address_space<private>>
    %z = arith.constant 0.0 : f32
    tile.fill %S, %z : memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.reduce sum %S -> %R dim(1) : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %L : memref<64x64xf32> -> memref<4xf32, #gpu.address_space<private>>
    tile.atomic add %S -> %A[%c0, %c0] : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32>
  }
  return
}

// -----

// A shared layout that scatters elements limits the vector: here every
// pair of columns is swapped, so only single elements stay contiguous...
// CHECK-LABEL: func.func @scattering_layout
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[8, 16], threads = 128, (d0, d1) -> (d1 + d0 * 16, 0)>}
// ...while the 128-byte swizzle keeps 16-byte chunks whole.
// CHECK: tile.copy {{.*}} {tile.loop = #tile.fragment<[8, 64], threads = 128, (d0, d1) -> (d1 floordiv 8 + d0 * 8, d1 mod 8)>}
func.func @scattering_layout(%A: memref<64x64xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %S = tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 16 + (d1 floordiv 2) * 2 + 1 - d1 mod 2)>} : memref<8x16xf16, #gpu.address_space<workgroup>>
    %T = tile.alloc {layout = #tile.layout<[8, 64], swizzle<128, 16>>} : memref<8x64xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %S : memref<64x64xf16> -> memref<8x16xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %T : memref<64x64xf16> -> memref<8x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A row vector broadcast over a new tile: the loop reads only the row max,
// replicated over 8 threads per row, so each replica takes every 8th
// column of the row (16 registers per thread, none wasted); the tile it
// writes follows the loop.

// CHECK-LABEL: func.func @broadcast_row
// CHECK: %[[O:.*]] = tile.alloc {layout = #tile.fragment<[64, 32], threads = 128, (d0, d1) -> ((d0 mod 8) * 4 + (d0 floordiv 32) * 32 + d1 mod 4 + ((d1 mod 8) floordiv 4) * 64, ((d0 floordiv 8) mod 4) * 4 + d1 floordiv 8)>}
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 32], threads = 128, (d0, d1) -> ((d0 mod 8) * 4 + (d0 floordiv 32) * 32 + d1 mod 4 + ((d1 mod 8) floordiv 4) * 64, ((d0 floordiv 8) mod 4) * 4 + d1 floordiv 8)>)
func.func @broadcast_row() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<64x64xf32, #tile.fragment>
    %mx = tile.alloc : memref<64xf32, #tile.fragment>
    %O = tile.alloc : memref<64x32xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.reduce max %S -> %mx dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %m = memref.load %mx[%i] : memref<64xf32, #tile.fragment>
      memref.store %m, %O[%i, %j] : memref<64x32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// FlashAttention-style: S = Q K^T (full_row), the row max of S, P = exp(S -
// max) in f16, O += P V with P in registers. P is the mma A fragment of
// the second gemm (decided first); the loop runs where S is, and S and P
// put every element on the same thread, so no data moves between them.

// CHECK-LABEL: func.func @attention
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_a, repeat = [1, 4], repeat_on_thread = [4, 1]>}
// CHECK: tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>}
// CHECK: tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 16) * 32 + s0, (d0 floordiv 8) mod 2), replicate = 4>}
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>)
func.func @attention() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Q = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %K = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %V = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc : memref<64x64xf32, #tile.fragment>
    %mx = tile.alloc : memref<64xf32, #tile.fragment>
    tile.gemm %Q, %K -> %S transpose_b clear_accum policy(full_row) : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.reduce max %S -> %mx dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %m = memref.load %mx[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      %h = arith.truncf %e : f32 to f16
      memref.store %h, %P[%i, %j] : memref<64x64xf16, #tile.fragment>
    }
    tile.gemm %P, %V -> %O policy(full_row) : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// A gemm on a static view of a shared tile (here the K slice 16..31 of a
// 16x64 tile) lays out the tile it views, for the tile's own shape: rows
// of 128 bytes take the 128-byte swizzle (a 16x16 tile alone would take
// 32 bytes).

// CHECK-LABEL: func.func @gemm_on_k_slice
// CHECK: tile.alloc {layout = #tile.layout<[16, 64], swizzle<128, 16>>} : memref<16x64xf16
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>}
func.func @gemm_on_k_slice(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<16x8xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>
    tile.clear %Cf : memref<16x8xf32, #tile.fragment>
    %a = memref.subview %As[0, 16] [16, 16] [1, 1] : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<16x16xf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>
    tile.gemm %a, %Bs -> %Cf : memref<16x16xf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<16x8xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
