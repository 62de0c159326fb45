// RUN: tile-opt %s -tile-infer-layout=chip=sm_80 | FileCheck %s

// The shape of FlashAttention's forward loop: two gemms (S = Q Kᵀ and
// O += P V), a row max and a row sum of S, and element-wise updates of S,
// P, O and the row statistics, all sharing fragments inside one
// tile.pipelined. With the warps splitting rows only (full_row), S and O
// take the mma.sync accumulator layout, P the A-operand layout of the
// second gemm, and the loop that computes P from S runs on S's threads,
// which hold the same rows and columns of P. The row statistics are slices
// of S: each row replicated over the 4 threads that share it.

// CHECK-LABEL: func.func @attention
// CHECK-COUNT-3: tile.alloc {layout = #tile.layout<[64, 64], swizzle<128, 16>>}
// CHECK: %[[S:.*]] = tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>} : memref<64x64xf32, #tile.fragment>
// CHECK: %[[P:.*]] = tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_a, repeat = [1, 4], repeat_on_thread = [4, 1]>} : memref<64x64xf16, #tile.fragment>
// CHECK: %[[O:.*]] = tile.alloc {layout = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>} : memref<64x64xf32, #tile.fragment>
// CHECK-COUNT-4: tile.alloc {layout = #tile.fragment<[64], threads = 128, (d0)[s0] -> ((d0 mod 8) * 4 + (d0 floordiv 16) * 32 + s0, (d0 floordiv 8) mod 2), replicate = 4>} : memref<64xf32, #tile.fragment>
// CHECK: tile.pipelined
// CHECK: tile.gemm {{.*}} -> %[[S]] transpose_b
// CHECK: tile.reduce max %[[S]]
// CHECK: tile.parallel (%{{.*}}) in (64) layout(#tile.fragment<[64], threads = 128, {{.*}}, replicate = 4>)
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>)
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: tile.reduce sum %[[S]]
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) layout(#tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>)
// CHECK: tile.parallel (%{{.*}}) in (64) layout(#tile.fragment<[64], threads = 128, {{.*}}, replicate = 4>)
// CHECK: tile.gemm %[[P]], %{{.*}} -> %[[O]]
// CHECK: tile.copy %[[O]] -> {{.*}} {tile.loop = #tile.fragment<[64, 64], mma_m16n8k16_c, repeat = [1, 8], repeat_on_thread = [4, 1]>}
func.func @attention(%Q: memref<4096x64xf16>, %K: memref<4096x64xf16>,
                     %V: memref<4096x64xf16>, %O: memref<4096x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688 : f32
  tile.kernel blocks(%bx) in (%c64) threads(128) {
    %Qs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc : memref<64x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<64x64xf32, #tile.fragment>
    %mPrev = tile.alloc : memref<64xf32, #tile.fragment>
    %mNew = tile.alloc : memref<64xf32, #tile.fragment>
    %rowSum = tile.alloc : memref<64xf32, #tile.fragment>
    %l = tile.alloc : memref<64xf32, #tile.fragment>
    %q0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%q0, %c0] -> %Qs : memref<4096x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %mPrev, %ninf : memref<64xf32, #tile.fragment>
    tile.clear %l : memref<64xf32, #tile.fragment>
    tile.clear %Of : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c64 step %c1 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<4096x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0] -> %Vs : memref<4096x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row) : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
      tile.reduce max %S -> %mNew dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %a = memref.load %mNew[%i] : memref<64xf32, #tile.fragment>
        %b = memref.load %mPrev[%i] : memref<64xf32, #tile.fragment>
        %m = arith.maximumf %a, %b : f32
        memref.store %m, %mNew[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %c) in (64, 64) {
        %s = memref.load %S[%i, %c] : memref<64x64xf32, #tile.fragment>
        %m = memref.load %mNew[%i] : memref<64xf32, #tile.fragment>
        %d = arith.subf %s, %m : f32
        %x = arith.mulf %d, %scale : f32
        %p = math.exp2 %x : f32
        memref.store %p, %S[%i, %c] : memref<64x64xf32, #tile.fragment>
        %h = arith.truncf %p : f32 to f16
        memref.store %h, %P[%i, %c] : memref<64x64xf16, #tile.fragment>
      }
      tile.reduce sum %S -> %rowSum dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
      tile.parallel (%i, %c) in (64, 64) {
        %o = memref.load %Of[%i, %c] : memref<64x64xf32, #tile.fragment>
        %a = memref.load %mPrev[%i] : memref<64xf32, #tile.fragment>
        %b = memref.load %mNew[%i] : memref<64xf32, #tile.fragment>
        %d = arith.subf %a, %b : f32
        %x = arith.mulf %d, %scale : f32
        %r = math.exp2 %x : f32
        %n = arith.mulf %o, %r : f32
        memref.store %n, %Of[%i, %c] : memref<64x64xf32, #tile.fragment>
      }
      tile.parallel (%i) in (64) {
        %a = memref.load %mPrev[%i] : memref<64xf32, #tile.fragment>
        %b = memref.load %mNew[%i] : memref<64xf32, #tile.fragment>
        %d = arith.subf %a, %b : f32
        %x = arith.mulf %d, %scale : f32
        %r = math.exp2 %x : f32
        %old = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %sum = memref.load %rowSum[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %old, %r : f32
        %t = arith.addf %n, %sum : f32
        memref.store %t, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %b, %mPrev[%i] : memref<64xf32, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row) : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %c) in (64, 64) {
      %o = memref.load %Of[%i, %c] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %q = arith.divf %o, %s : f32
      memref.store %q, %Of[%i, %c] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%q0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<4096x64xf16>
  }
  return
}
