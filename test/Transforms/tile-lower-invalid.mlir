// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-lower -split-input-file -verify-diagnostics

func.func @missing_loop(%A: memref<?x?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<2x4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a 'tile.loop' layout; run tile-infer-layout first}}
    tile.copy %A[%i, %i] -> %s : memref<?x?xf32> -> memref<2x4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @missing_fragment_layout() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    // expected-error @+1 {{expected a '#tile.fragment' layout on the fragment buffer; run tile-infer-layout first}}
    %f = tile.alloc : memref<2x4xf32, #tile.fragment>
    tile.clear %f : memref<2x4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @missing_parallel_layout(%A: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    // expected-error @+1 {{expected a 'layout' on the parallel loop; run tile-infer-layout first}}
    tile.parallel (%i) in (8) {
      %v = memref.load %A[%i] : memref<8xf32>
      memref.store %v, %A[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// The loop gives element (i) to thread i, the fragment holds it on thread
// 7 - i.
#loop = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0)>
#rev = #tile.fragment<[8], threads = 8, (d0) -> (7 - d0, 0)>
func.func @not_owned() {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #rev} : memref<8xf32, #tile.fragment>
    tile.parallel (%i) in (8) layout(#loop) {
      // expected-error @+1 {{accesses fragment elements that the thread running the iteration does not hold}}
      memref.store %one, %f[%i] : memref<8xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Threads 0, 2, 4, 6 work, 1, 3, 5 do not.
#bad = #tile.fragment<[4], threads = 8, (d0) -> (d0 * 2, 0)>
func.func @not_bijective(%A: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %s = tile.alloc : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported layout: its elements do not fill the (thread, register) slots of threads [0, 7) one to one}}
    tile.copy %A -> %s {tile.loop = #bad} : memref<4xf32> -> memref<4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

#loop = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0)>
func.func @nested_access(%c: i1) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #loop} : memref<8xf32, #tile.fragment>
    tile.parallel (%i) in (8) layout(#loop) {
      scf.if %c {
        // expected-error @+1 {{fragment and laid-out shared buffers may only be accessed at the top level of a parallel body}}
        memref.store %one, %f[%i] : memref<8xf32, #tile.fragment>
      }
    }
  }
  return
}

// -----

func.func @gemm_fp8() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x8xf8E4M3FN, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for A 'f8E4M3FN', B 'f8E4M3FN', C 'f32' on its target sm_80}}
    tile.gemm %a, %b -> %c : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x8xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// tile-lower follows the instruction layout inference chose; without one it
// stops.
func.func @gemm_without_instruction() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected its tensor-core instruction (an 'mma' attribute); run tile-infer-layout first}}
    tile.gemm %a, %b -> %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_k_not_multiple() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<8x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{expected M, N and K to be multiples of 16, 8 and 16 (the mma.sync shape m16n8k16), got 16x8x8}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x8xf16, #gpu.address_space<workgroup>>, memref<8x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_not_accumulator() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], threads = 32, (d0, d1) -> (d0 * 2 + d1 floordiv 4, d1 mod 4)>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{expected C laid out as the mma_m16n8k16_c accumulator over 1x1 warps (repeat = [1, 1], repeat_on_thread = [1, 1])}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_operand_view(%i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %big = tile.alloc : memref<32x16xf16, #gpu.address_space<workgroup>>
    %a = memref.subview %big[%i, 0] [16, 16] [1, 1] : memref<32x16xf16, #gpu.address_space<workgroup>> to memref<16x16xf16, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{expected A to be a shared tile.alloc, one slot of a multi-buffered one or a static view of either}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @pipelined_mixed_stages(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{unsupported schedule: expected every global-to-shared copy in one stage, got stages 0 and 1}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [0, 1, 2] {
      tile.copy %A[%k, %c0] -> %a : memref<?x?xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.copy %A[%k, %c0] -> %b : memref<?x?xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b -> %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_copies_after_readers(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{unsupported schedule: the copies into shared memory (stage 2) must not come after their first readers (stage 0)}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [2, 2, 0] {
      tile.copy %A[%k, %c0] -> %a : memref<?x?xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.copy %A[%k, %c0] -> %b : memref<?x?xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b -> %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_linear_layout(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error @+1 {{cannot be multi-buffered for the pipelined loop: its layout does not repeat per slot (use an affine layout, or stages(1))}}
    %a = tile.alloc {layout = #tile.layout<[4, 4], linear<[[4, 8], [1, 2]]>>} : memref<4x4xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<4x4xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      tile.copy %A[%k, %c0] -> %a : memref<?x?xf16> -> memref<4x4xf16, #gpu.address_space<workgroup>>
      tile.copy %a -> %f : memref<4x4xf16, #gpu.address_space<workgroup>> -> memref<4x4xf16, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_dependent_copy(%A: memref<?x?xf16>, %idx: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc {layout = #tile.layout<[4, 8], row_major>} : memref<4x8xf16, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{not pipelined: the copy into shared memory cannot be issued early: its operands depend on 'memref.load' in the loop body}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      %row = memref.load %idx[%k] : memref<?xindex>
      tile.copy %A[%row, %c0] -> %a {tile.loop = #tile.fragment<[4, 8], threads = 32, (d0, d1) -> (d0 * 8 + d1, 0)>} : memref<?x?xf16> -> memref<4x8xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @gemm_a_not_operand_layout() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc {layout = #tile.fragment<[16, 16], threads = 32, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8)>} : memref<16x16xf16, #tile.fragment>
    %b = tile.alloc : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<16x8xf32, #tile.fragment>
    // expected-error @+1 {{expected A laid out as the mma_m16n8k16_a operand of 1x1 warps}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32, groups 1x1>} : memref<16x16xf16, #tile.fragment>, memref<16x8xf16, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// A computed index whose element lies on another thread: element j's byte
// j / 2 is held by thread (j / 2) mod 2, the loop runs j on thread j / 4.
#bytes = #tile.fragment<[4], threads = 2, (d0) -> (d0 mod 2, d0 floordiv 2)>
#elems = #tile.fragment<[8], threads = 2, (d0) -> (d0 floordiv 4, d0 mod 4)>
func.func @packed_not_owned() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %p = tile.alloc {layout = #bytes} : memref<4xi8, #tile.fragment>
    %e = tile.alloc {layout = #elems} : memref<8xi8, #tile.fragment>
    tile.parallel (%j) in (8) layout(#elems) {
      %c2 = arith.constant 2 : index
      %kb = arith.divui %j, %c2 : index
      // expected-error @+1 {{accesses fragment elements that the thread running the iteration does not hold}}
      %b = memref.load %p[%kb] : memref<4xi8, #tile.fragment>
      memref.store %b, %e[%j] : memref<8xi8, #tile.fragment>
    }
  }
  return
}


// -----

func.func @pipelined_order_breaks_dependence(%A: memref<?x16xf16>, %Y: memref<16x16xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %t = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported schedule: scheduled operations 1 and 2 touch a common buffer, one writing, and the schedule reorders them}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0, 2, 1] {
      tile.copy %A[%k, %c0] -> %a : memref<?x16xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      // expected-note @+1 {{operation 1}}
      tile.parallel (%i, %j) in (16, 16) {
        %v = memref.load %a[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
        memref.store %v, %t[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
      }
      // expected-note @+1 {{operation 2}}
      tile.parallel (%i, %j) in (16, 16) {
        %v = memref.load %t[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
        memref.store %v, %Y[%i, %j] : memref<16x16xf16>
      }
    }
  }
  return
}

// -----

func.func @pipelined_late_readers_need_distance(%A: memref<?x16xf16>, %Y: memref<16x16xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    %t = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported schedule: operations in later stages than the first readers need the copies at least one stage ahead of those readers}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0, 2, 1] stage [0, 0, 1] {
      tile.copy %A[%k, %c0] -> %a : memref<?x16xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (16, 16) {
        %v = memref.load %a[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
        memref.store %v, %t[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
      }
      tile.parallel (%i, %j) in (16, 16) {
        %v = memref.load %t[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
        memref.store %v, %Y[%i, %j] : memref<16x16xf16>
      }
    }
  }
  return
}

// -----

func.func @pipelined_late_reader_uses_result(%A: memref<?x16xf16>, %B: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{unsupported schedule: a scheduled operation uses the result of another; with readers in several stages, the operations of a pipelined loop pass data through buffers only}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [0, 1, 2] {
      tile.copy %A[%k, %c0] -> %a : memref<?x16xf16> -> memref<16x16xf16, #gpu.address_space<workgroup>>
      %x = memref.load %B[%k] : memref<?xf32>
      // expected-note @+1 {{the operation using it}}
      memref.store %x, %C[%k] : memref<?xf32>
    }
  }
  return
}

// -----

// A layout whose threads would each unroll more points than the lowering
// takes: 4096 elements on 2 threads.
func.func @too_many_points_per_thread(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %s = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op layout unrolls to 2048 points per thread (2 threads), more than 1024; give the kernel more threads or the op a smaller tile}}
    tile.copy %A[%c0, %c0] -> %s {tile.loop = #tile.fragment<[64, 64], threads = 2, (d0, d1) -> (d0 mod 2, (d0 floordiv 2) * 64 + d1)>} : memref<64x64xf32> -> memref<64x64xf32, #gpu.address_space<workgroup>>
  }
  return
}
