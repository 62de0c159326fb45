// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s

// One warp, C of 32x16 (2x2 mma atoms), K of 32 (two k16 steps). A (M x K)
// is read with ldmatrix.x4, B (K x N, stored K-outer) with ldmatrix.x4.trans
// covering both n8 atoms; eight mma.sync m16n8k16; the accumulators come
// from and go back to the fragment's 16 registers.

// CHECK-LABEL: func.func @ss_nn
// CHECK: %[[C:.+]] = tile.alloc : memref<16xf32, #gpu.address_space<private>>
// CHECK-COUNT-16: memref.load %[[C]]
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<1024xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<512xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-4: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
func.func @ss_nn(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x16xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<32x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<64x64xf16> -> memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xf16> -> memref<32x16xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x16xf16, #gpu.address_space<workgroup>> -> memref<32x16xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<32x16xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// transpose_a and transpose_b: A stored K x M goes through ldmatrix.trans,
// B stored N x K through plain ldmatrix; clear_accum starts from zero
// without reading C.

// CHECK-LABEL: func.func @tt_clear
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK-NOT: memref.load {{.*}} memref<16xf32, #gpu.address_space<private>>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.mma.sync({{.*}}, %[[ZERO]])
func.func @tt_clear(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<32x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<64x64xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf transpose_a transpose_b clear_accum : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>> -> memref<32x16xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<32x16xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// A in a fragment (rs): its registers feed the mma directly; only B is
// loaded with ldmatrix. Two warps split N (full_col).

// CHECK-LABEL: func.func @rs
// CHECK: %[[AREGS:.+]] = tile.alloc : memref<8xf16, #gpu.address_space<private>>
// CHECK-NOT: transpose = false
// CHECK: memref.load %[[AREGS]]
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.ldmatrix
func.func @rs(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %Af = tile.alloc : memref<16x16xf16, #tile.fragment>
    %Bs = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<16x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %Af : memref<64x64xf16> -> memref<16x16xf16, #tile.fragment>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.gemm %Af, %Bs -> %Cf policy(full_col) : memref<16x16xf16, #tile.fragment>, memref<16x16xf16, #gpu.address_space<workgroup>> -> memref<16x16xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<16x16xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// f32 operands run as tf32 (m16n8k8): A through ldmatrix on 32-bit
// elements; B stored K-outer cannot be transposed by ldmatrix (16-bit only)
// and is read element by element.

// CHECK-LABEL: func.func @tf32
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x1xf32>
// CHECK-NOT: transpose = true
// CHECK: vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @tf32(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<16x8xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<8x8xf32, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<16x8xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<64x64xf32> -> memref<16x8xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xf32> -> memref<8x8xf32, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<16x8xf32, #gpu.address_space<workgroup>>, memref<8x8xf32, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<16x8xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// int8 with B stored N x K (NT): both operands through ldmatrix, four
// 8-bit elements per register, m16n8k32 into i32.

// CHECK-LABEL: func.func @int8_nt
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x4xi8>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x4xi8>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
func.func @int8_nt(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<16x32xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x32xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<16x16xi32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<64x64xi8> -> memref<16x32xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xi8> -> memref<16x32xi8, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf transpose_b : memref<16x32xi8, #gpu.address_space<workgroup>>, memref<16x32xi8, #gpu.address_space<workgroup>> -> memref<16x16xi32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<16x16xi32, #tile.fragment> -> memref<64x64xi32>
  }
  return
}

// -----

// bf16 operands, which nvgpu.mma.sync does not lower, go to nvvm.mma.sync
// on 32-bit registers.

// CHECK-LABEL: func.func @bf16
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @bf16(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %As = tile.alloc : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<16x8xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<16x8xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<64x64xbf16> -> memref<16x16xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<64x64xbf16> -> memref<16x8xbf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf clear_accum : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x8xbf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<16x8xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// A gemm reading a static view of a shared tile (rows 16..31 of a 32x16
// tile, 32-byte swizzle): ldmatrix addresses the tile at the view's rows.

// CHECK-LABEL: func.func @operand_view_rows
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c16 : index
// CHECK: arith.muli %[[ROW]], %c16 : index
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<512xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.mma.sync
func.func @operand_view_rows(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %big = tile.alloc : memref<32x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<16x8xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %big : memref<?x?xf16> -> memref<32x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %b : memref<?x?xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>
    tile.clear %c : memref<16x8xf32, #tile.fragment>
    %a = memref.subview %big[16, 0] [16, 16] [1, 1] : memref<32x16xf16, #gpu.address_space<workgroup>> to memref<16x16xf16, strided<[16, 1], offset: 256>, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c : memref<16x16xf16, strided<[16, 1], offset: 256>, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    tile.copy %c -> %C[%c0, %c0] : memref<16x8xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
