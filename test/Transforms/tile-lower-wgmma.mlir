// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" -canonicalize | FileCheck %s

// Two warpgroups split the 128x256 C tile along M: each issues, per k16
// step of the 64-deep K, one m64n256k16 wgmma on descriptors of A (K-major,
// 128-byte swizzle: stride byte offset 1024 B between 8-row groups) and B
// (stored K x N, so N-major: leading byte offset 8 KiB between 64-column
// blocks, stride byte offset 1024 B). Descriptor constants: mode 1 << 62,
// SBO 64 << 32, LBO 512 << 16. The wait carries all 128 accumulators.

// CHECK-LABEL: func.func @ss_nn_two_warpgroups
// CHECK-DAG: arith.constant 4611686293305294848 : i64
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "{{(=f,)+}}0,1,{{.*}},127"
// CHECK-NOT: nvgpu.mma.sync
func.func @ss_nn_two_warpgroups(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// One warpgroup over a 128x128 tile with a 32-deep K: two 64-row blocks,
// m64n128k16 twice per k16 step. A is stored K x M (transpose_a: M-major,
// layout col) and B N x K (transpose_b: K-major, layout col), both in
// 64-byte swizzles (32 columns of f16 per row). The copies store the
// operands through the generic proxy and wgmma reads them through the
// async proxy: the barrier between them comes after a proxy fence.

// CHECK-LABEL: func.func @ss_tt_bf16
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @ss_tt_bf16(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<32x128xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<128x32xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xbf16> -> memref<32x128xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xbf16> -> memref<128x32xbf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf {transpose_a, transpose_b} : memref<32x128xbf16, #gpu.address_space<workgroup>>, memref<128x32xbf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// What wgmma cannot take stays on mma.sync: an operand annotated with a
// column-major layout (not the swizzle a descriptor reads), and an i8 gemm.
// mma.sync reads shared memory through ldmatrix (the generic proxy): no
// proxy fence before the barrier.

// CHECK-LABEL: func.func @column_major_operand
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvgpu.mma.sync
func.func @column_major_operand(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc {layout = #tile.layout<(i, j) -> (j * 64 + i)>} : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// 8-bit integers stored K innermost (B: N x K) take the s32 wgmma, k32,
// saturating like the mma.sync instruction; the wait returns 32-bit
// integer registers.
// CHECK-LABEL: func.func @int8
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<s32>, <one>, <satfinite>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "{{(=r,)+}}0,1,{{.*}},31"
// CHECK-NOT: nvgpu.mma.sync
func.func @int8(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xi32, #tile.fragment>
    tile.clear %Cf : memref<64x64xi32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf {transpose_b} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xi32, #tile.fragment> -> memref<?x?xi32>
  }
  return
}

// -----

// f32 operands stored K innermost run as tf32 wgmma, k8 (32-byte swizzle
// atoms of eight elements); stored K x N, B keeps the gemm on mma.sync.
// CHECK-LABEL: func.func @tf32_nt
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK-NOT: nvgpu.mma.sync
// CHECK-LABEL: func.func @tf32_nn
// CHECK-NOT: nvvm.wgmma
// CHECK: nvgpu.mma.sync
func.func @tf32_nt(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf32> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf32> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf {transpose_b} : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
func.func @tf32_nn(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf32> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf32> -> memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// B stored K x N: 8-bit wgmma reads K-major operands only, so the gemm
// stays on mma.sync.
// CHECK-LABEL: func.func @int8_nn
// CHECK-NOT: nvvm.wgmma
// CHECK: nvgpu.mma.sync
func.func @int8_nn(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xi32, #tile.fragment>
    tile.clear %Cf : memref<64x64xi32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xi32, #tile.fragment> -> memref<?x?xi32>
  }
  return
}

// -----

// 40 columns: the integer wgmma has no n40 (its widths step by 16 above
// n32), so five n8 instructions cover them, where f16 would take one n40.
// CHECK-LABEL: func.func @int8_n40
// CHECK-COUNT-10: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 8, k = 32>, D[<s32>
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @int8_n40(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<40x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x40xi32, #tile.fragment>
    tile.clear %Cf : memref<64x40xi32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xi8> -> memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xi8> -> memref<40x64xi8, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf {transpose_b} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<40x64xi8, #gpu.address_space<workgroup>> -> memref<64x40xi32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x40xi32, #tile.fragment> -> memref<?x?xi32>
  }
  return
}

// -----

// 8-bit floats, both operands stored K innermost (A: M x K, B: N x K): k32
// instructions, A e4m3 and B e5m2 (wgmma mixes them), 128-byte swizzles of
// 128 one-byte elements per row. The narrow fp8 sums start from zero in
// each gemm (the first instruction scales D by zero) and are added to the
// f32 accumulators after the wait.

// CHECK-LABEL: func.func @f8_nt
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-64: arith.addf
func.func @f8_nt(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E5M2>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<128x128xf8E5M2, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x128xf32, #tile.fragment>
    tile.clear %Cf : memref<64x128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf8E4M3FN> -> memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf8E5M2> -> memref<128x128xf8E5M2, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf {transpose_b} : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// A from registers (rs): layout inference gives A the mma.sync A fragment
// of warp w on rows 16w..16w+15 for each k16 step; each step packs four
// 32-bit registers of A and issues wgmma with B's descriptor as inline PTX
// (upstream's op takes only descriptors); B is stored K x N (imm-trans-b 1).

// CHECK-LABEL: func.func @rs
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;{{.*}}r,r,r,r,l"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @rs(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Af = tile.alloc : memref<64x32xf16, #tile.fragment>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Af : memref<?x?xf16> -> memref<64x32xf16, #tile.fragment>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %Af, %Bs -> %Cf : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A 16-deep K tile is one 32-byte swizzle atom per row: A's descriptor
// takes swizzle mode 3 (3 << 62) with SBO 256 B between 8-row groups
// (16 << 32); B (16 x 64, stored K x N) keeps the 128-byte swizzle, mode 1
// with SBO 1024 B.

// CHECK-LABEL: func.func @swizzle32
// CHECK-DAG: arith.constant -4611685949707911168 : i64
// CHECK-DAG: arith.constant 4611686293305294848 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @swizzle32(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// A gemm whose result nothing reads, last in the kernel's body (a block
// without a terminator): its wait stays at the end of the body. An
// operation that touches neither its accumulator nor memory (the cast
// into another fragment) runs before the wait.

// CHECK-LABEL: func.func @wait_at_body_end
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: arith.truncf
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NEXT: llvm.extractvalue
// CHECK-NOT: arith.truncf
// CHECK: }
func.func @wait_at_body_end(%A: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    %Df = tile.alloc : memref<64x64xf32, #tile.fragment>
    %Ef = tile.alloc : memref<64x64xf16, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x16xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Df : memref<64x64xf32, #tile.fragment>
    tile.gemm %As, %Bs -> %Cf clear_accum : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %d = memref.load %Df[%i, %j] : memref<64x64xf32, #tile.fragment>
      %e = arith.truncf %d : f32 to f16
      memref.store %e, %Ef[%i, %j] : memref<64x64xf16, #tile.fragment>
    }
  }
  return
}

// -----

// A register A operand rewritten after its gemm: the wait stops before the
// first computation of a new A value, not only before its store. A value
// computed ahead of the wait could be given the register the wgmma in
// flight still reads, and ptxas would serialize the wgmmas.

// CHECK-LABEL: func.func @rs_operand_rewritten
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: arith.truncf
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: arith.truncf
func.func @rs_operand_rewritten(%A: memref<?x?xf16>, %D: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Pf = tile.alloc : memref<64x16xf16, #tile.fragment>
    %Df = tile.alloc : memref<64x16xf32, #tile.fragment>
    %Bs = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Pf : memref<?x?xf16> -> memref<64x16xf16, #tile.fragment>
    tile.copy %D[%c0, %c0] -> %Df : memref<?x?xf32> -> memref<64x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %Pf, %Bs -> %Cf : memref<64x16xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 16) {
      %d = memref.load %Df[%i, %j] : memref<64x16xf32, #tile.fragment>
      %e = arith.truncf %d : f32 to f16
      memref.store %e, %Pf[%i, %j] : memref<64x16xf16, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// Two gemms into one accumulator with the second register A operand
// computed between them: the second gemm's wgmmas take the first group's
// results as they are, and one wait after both covers the two groups, so
// the computation of the second operand runs beside the first gemm.

// CHECK-LABEL: func.func @chained_gemms
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait_group
// CHECK: arith.truncf
// CHECK-NOT: wgmma.wait_group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: wgmma.wait_group
// CHECK: return
func.func @chained_gemms(%A: memref<?x?xf16>, %D: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Pf = tile.alloc : memref<64x16xf16, #tile.fragment>
    %Qf = tile.alloc : memref<64x16xf16, #tile.fragment>
    %Df = tile.alloc : memref<64x16xf32, #tile.fragment>
    %Bs = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Pf : memref<?x?xf16> -> memref<64x16xf16, #tile.fragment>
    tile.copy %D[%c0, %c0] -> %Df : memref<?x?xf32> -> memref<64x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %Pf, %Bs -> %Cf : memref<64x16xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 16) {
      %d = memref.load %Df[%i, %j] : memref<64x16xf32, #tile.fragment>
      %e = arith.truncf %d : f32 to f16
      memref.store %e, %Qf[%i, %j] : memref<64x16xf16, #tile.fragment>
    }
    tile.gemm %Qf, %Bs -> %Cf : memref<64x16xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// The same with the accumulator read between the gemms: the first gemm
// keeps its own wait, before that read.

// CHECK-LABEL: func.func @accumulator_read_between
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
func.func @accumulator_read_between(%A: memref<?x?xf16>, %C: memref<?x?xf32>, %E: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Pf = tile.alloc : memref<64x16xf16, #tile.fragment>
    %Bs = tile.alloc : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Pf : memref<?x?xf16> -> memref<64x16xf16, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %Pf, %Bs -> %Cf : memref<64x16xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %E[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
    tile.gemm %Pf, %Bs -> %Cf : memref<64x16xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// Gemms on static views of the shared tiles (K slices): the tiles keep the
// 128-byte swizzle of their own shapes, and each descriptor starts at its
// view's first element: the slice at K = 48 is 96 bytes into A's rows (6
// units of 16 bytes) and 48 rows of 256 bytes into B (384 units). The
// second gemm takes over the first one's wait.

// CHECK-LABEL: func.func @k_slice_views
// CHECK: nvvm.wgmma.mma_async %[[A0:.*]], %[[B0:.*]], %{{.*}}, <m = 64, n = 128, k = 16>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait_group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-DAG: %[[B1:.*]] = arith.addi %{{.*}}, %c384_i64 : i64
// CHECK-DAG: %[[A1:.*]] = arith.addi %{{.*}}, %c6_i64 : i64
// CHECK: nvvm.wgmma.mma_async %[[A1]], %[[B1]], %{{.*}}, <m = 64, n = 128, k = 16>
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.wait_group
func.func @k_slice_views(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x128xf32, #tile.fragment>
    tile.clear %Cf : memref<64x128xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
    %A0 = memref.subview %As[0, 0] [64, 16] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
    %B0 = memref.subview %Bs[0, 0] [16, 128] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<16x128xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
    tile.gemm %A0, %B0 -> %Cf : memref<64x16xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>, memref<16x128xf16, strided<[128, 1]>, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    %A1 = memref.subview %As[0, 48] [64, 16] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1], offset: 48>, #gpu.address_space<workgroup>>
    %B1 = memref.subview %Bs[48, 0] [16, 128] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<16x128xf16, strided<[128, 1], offset: 6144>, #gpu.address_space<workgroup>>
    tile.gemm %A1, %B1 -> %Cf : memref<64x16xf16, strided<[64, 1], offset: 48>, #gpu.address_space<workgroup>>, memref<16x128xf16, strided<[128, 1], offset: 6144>, #gpu.address_space<workgroup>> -> memref<64x128xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
