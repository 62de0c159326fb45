// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=gfx942 \
// RUN:   -tile-lower=chip=gfx942 -canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=gfx942 \
// RUN:   -tile-lower=chip=gfx942 | FileCheck %s --check-prefix=COUNT

// NT, f16: two waves split the 64x64 C tile along M, each issuing 32x32x8
// MFMA over two 32-column blocks. A lane reads 8 consecutive K elements of
// A and of B (stored N x K) from LDS as one 16-byte vector per step of 16,
// and hands the first four to one instruction and the last four to the
// next. The instruction's A is B: C is computed transposed. Nothing of
// NVIDIA's (cp.async, ldmatrix, mma.sync) remains.

// CHECK-LABEL: func.func @nt_two_waves
// CHECK-NOT: nvvm.
// CHECK-NOT: nvgpu.
// CHECK: gpu.barrier
// CHECK: %[[A:.+]] = vector.load {{.*}} {alignment = 16 : i64} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[B:.+]] = vector.load {{.*}} {alignment = 16 : i64} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[A0:.+]] = vector.shuffle %[[A]], %[[A]] [0, 1, 2, 3]
// CHECK: %[[B0:.+]] = vector.shuffle %[[B]], %[[B]] [0, 1, 2, 3]
// CHECK: amdgpu.mfma 32x32x8 %[[B0]] * %[[A0]] + {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: vector.shuffle %[[A]], %[[A]] [4, 5, 6, 7]
// COUNT-LABEL: func.func @nt_two_waves
// COUNT-COUNT-8: amdgpu.mfma 32x32x8
// COUNT-NOT: amdgpu.mfma
// COUNT-LABEL: func.func @nn_k_outer_b
func.func @nt_two_waves(%A: memref<64x32xf16>, %B: memref<64x32xf16>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.copy %A -> %a : memref<64x32xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<64x32xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c transpose_b clear_accum : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %c -> %C : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// NN: B is stored K x N, so a lane's K run is a column of B. Its LDS
// tile is stored transposed (N x K, swizzled): the copy loads 16-byte
// vectors of B's rows from global memory and stores their elements one by
// one, and the gemm reads B's K runs as 16-byte vectors like A's.

// CHECK-LABEL: func.func @nn_k_outer_b
// CHECK: %[[ROW:.+]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<32x64xf16>, vector<8xf16>
// CHECK: %[[E0:.+]] = vector.extract %[[ROW]][0] : f16 from vector<8xf16>
// CHECK: memref.store %[[E0]], {{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK: vector.extract %[[ROW]][7] : f16 from vector<8xf16>
// CHECK: gpu.barrier
// CHECK-NOT: memref.load {{.*}} #gpu.address_space<workgroup>
// CHECK: vector.load {{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.load {{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: memref.load {{.*}} #gpu.address_space<workgroup>
// CHECK: amdgpu.mfma 32x32x8
func.func @nn_k_outer_b(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.copy %A -> %a : memref<64x32xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<32x64xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c clear_accum : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %c -> %C : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// f32 (gfx942's 32x32x2): one element per lane and instruction, four
// instructions per 16-byte read; 16x16 when the wave's part is 16 wide.

// CHECK-LABEL: func.func @f32_and_16x16
// CHECK: vector.load {{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.extract
// CHECK: amdgpu.mfma 16x16x4 {{.*}} : f32, f32, vector<4xf32>
func.func @f32_and_16x16(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc : memref<16x16xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x16xf32, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<16x16xf32, #tile.fragment>
    tile.copy %A -> %a : memref<16x16xf32> -> memref<16x16xf32, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<16x16xf32> -> memref<16x16xf32, #gpu.address_space<workgroup>>
    tile.gemm %a, %b -> %c transpose_b clear_accum : memref<16x16xf32, #gpu.address_space<workgroup>>, memref<16x16xf32, #gpu.address_space<workgroup>> -> memref<16x16xf32, #tile.fragment>
    tile.copy %c -> %C : memref<16x16xf32, #tile.fragment> -> memref<16x16xf32>
  }
  return
}

// -----

// A pipelined loop on AMD: the copies ahead are plain loads and LDS stores
// into their slot, one barrier per iteration, no cp.async groups.

// CHECK-LABEL: func.func @pipelined
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: amdgpu.mfma
func.func @pipelined(%A: memref<64x256xf16>, %B: memref<64x256xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %c : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] -> %a : memref<64x256xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %kk] -> %b : memref<64x256xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b -> %c transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %c -> %C : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32>
  }
  return
}

// -----

// A register operand (the P of attention): S = Q Kᵀ is the accumulator of
// two waves split along M; P, its f16 cast, is A of the second gemm, and
// inference lays it out as the register operand of 32x32x8, whose K runs
// of four per lane group are the accumulator's four columns per lane: the
// cast stays in each lane (on two registers at a time, vector<2xf32> to
// vector<2xf16>). The second gemm takes P from P's registers (no
// LDS read of A) as the instruction's B operand (C is computed transposed)
// and reads V, stored K x N and so transposed in LDS, as 8-byte vectors.

// CHECK-LABEL: func.func @register_a
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: arith.truncf {{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: %[[P:.+]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: %[[V:.+]] = vector.load {{.*}} {alignment = 8 : i64} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: amdgpu.mfma 32x32x8 %[[V]] * %[[P]] + {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// COUNT-LABEL: func.func @register_a
// COUNT-COUNT-8: amdgpu.mfma 32x32x8
// COUNT-NOT: amdgpu.mfma
func.func @register_a(%Q: memref<64x32xf16>, %K: memref<32x32xf16>, %V: memref<32x32xf16>, %O: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %q = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %k = tile.alloc : memref<32x32xf16, #gpu.address_space<workgroup>>
    %v = tile.alloc : memref<32x32xf16, #gpu.address_space<workgroup>>
    %s = tile.alloc : memref<64x32xf32, #tile.fragment>
    %p = tile.alloc : memref<64x32xf16, #tile.fragment>
    %o = tile.alloc : memref<64x32xf32, #tile.fragment>
    tile.copy %Q -> %q : memref<64x32xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %K -> %k : memref<32x32xf16> -> memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.copy %V -> %v : memref<32x32xf16> -> memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %q, %k -> %s transpose_b clear_accum policy(full_row) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>> -> memref<64x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %x = memref.load %s[%i, %j] : memref<64x32xf32, #tile.fragment>
      %t = arith.truncf %x : f32 to f16
      memref.store %t, %p[%i, %j] : memref<64x32xf16, #tile.fragment>
    }
    tile.gemm %p, %v -> %o clear_accum policy(full_row) : memref<64x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>> -> memref<64x32xf32, #tile.fragment>
    tile.copy %o -> %O : memref<64x32xf32, #tile.fragment> -> memref<64x32xf32>
  }
  return
}

// -----

// B in registers (filled from global memory, so any layout serves): its
// fragment is the register operand of 16x16x16 over one wave, and it goes
// to the instruction's A operand.

// CHECK-LABEL: func.func @register_b
// CHECK: %[[A:.+]] = vector.load {{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: %[[B:.+]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: amdgpu.mfma 16x16x16 %[[B]] * %[[A]] + {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// COUNT-LABEL: func.func @register_b
// COUNT-COUNT-2: amdgpu.mfma 16x16x16
// COUNT-NOT: amdgpu.mfma
func.func @register_b(%A: memref<16x32xf16>, %B: memref<16x32xf16>, %C: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc : memref<16x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x32xf16, #tile.fragment>
    %c = tile.alloc : memref<16x16xf32, #tile.fragment>
    tile.copy %A -> %a : memref<16x32xf16> -> memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B -> %b : memref<16x32xf16> -> memref<16x32xf16, #tile.fragment>
    tile.gemm %a, %b -> %c transpose_b clear_accum : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #tile.fragment> -> memref<16x16xf32, #tile.fragment>
    tile.copy %c -> %C : memref<16x16xf32, #tile.fragment> -> memref<16x16xf32>
  }
  return
}
