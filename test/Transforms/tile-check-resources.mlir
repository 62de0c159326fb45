// RUN: tile-opt %s -split-input-file -verify-diagnostics \
// RUN:   -tile-check-resources="chip=sm_80 remarks=true" -o /dev/null
// RUN: not tile-opt %s -split-input-file \
// RUN:   -tile-check-resources="chip=sm_90a remarks=true" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SM90
// RUN: not tile-opt %s -split-input-file \
// RUN:   -tile-check-resources="chip=sm_75" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP

// The figures of each kernel on sm_80 (checked with -verify-diagnostics on
// the expected-* lines) and on sm_90a (checked with the SM90 prefix); an
// unknown chip is an error.

// CHIP: error: unknown chip 'sm_75'

// 128x64xf16 (16384 bytes) + 64x128xf16 (16384 bytes) of shared memory;
// 128x128xf32 over 128 threads is 128 registers per thread, 8xf32 of local
// memory 8 more, both used in the same loop.
// SM90: remark: shared memory 32768 bytes of 232448, fragment and local registers >= 136 per thread of 255
func.func @gemm_tiles(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{shared memory 32768 bytes of 166912, fragment and local registers >= 136 per thread of 255}}
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<128x128xf32, #tile.fragment>
    %l = tile.alloc : memref<8xf32, #gpu.address_space<private>>
    scf.for %k = %c0 to %n step %c1 {
      tile.clear %c : memref<128x128xf32, #tile.fragment>
      memref.store %f, %l[%c0] : memref<8xf32, #gpu.address_space<private>>
    }
  }
  return
}

// -----

// A fragment counts from the first to the last operation of the kernel's
// body that uses it: the loop's 128 registers and the epilogue's 64 are
// never live together, so the kernel needs the larger, 128 (an allocation
// that nothing uses counts where it is made).
// SM90: remark: shared memory 0 bytes of 232448, fragment and local registers >= 128 per thread of 255
func.func @one_after_the_other(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{shared memory 0 bytes of 166912, fragment and local registers >= 128 per thread of 255}}
  tile.kernel blocks(%x) in (%n) threads(128) {
    %acc = tile.alloc : memref<128x128xf32, #tile.fragment>
    %out = tile.alloc : memref<128x64xf32, #tile.fragment>
    scf.for %k = %c0 to %n step %c1 {
      tile.clear %acc : memref<128x128xf32, #tile.fragment>
    }
    tile.clear %out : memref<128x64xf32, #tile.fragment>
  }
  return
}

// -----

// Allocations in nested regions count too; fragments round up to whole
// registers per thread (64xf16 = 32 words over 256 threads -> 1).
// SM90: remark: shared memory 8192 bytes of 232448, fragment and local registers >= 1 per thread of 255
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{shared memory 8192 bytes of 166912, fragment and local registers >= 1 per thread of 255}}
  tile.kernel blocks(%x) in (%n) threads(256) {
    scf.for %k = %c0 to %n step %c1 {
      %s = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
      %f = tile.alloc : memref<64xf16, #tile.fragment>
    }
  }
  return
}

// -----

// 2 x 96 KiB of shared memory: too much for sm_80, fine for sm_90a.
// SM90: remark: shared memory 196608 bytes of 232448
// SM90-NOT: error
func.func @too_much_shared_for_sm80(%n: index) {
  // expected-remark @+2 {{shared memory 196608 bytes of 166912}}
  // expected-error @+1 {{kernel needs 196608 bytes of shared memory, more than the 166912 a block may use}}
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<256x192xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<256x192xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// 256x256xf32 over 128 threads is 512 registers per thread.
// SM90: remark: shared memory 0 bytes of 232448, fragment and local registers >= 512 per thread of 255
// SM90: error: kernel needs at least 512 registers per thread for its fragments, more than the 255 available
func.func @too_many_registers(%n: index) {
  // expected-remark @+2 {{fragment and local registers >= 512 per thread of 255}}
  // expected-error @+1 {{kernel needs at least 512 registers per thread for its fragments, more than the 255 available}}
  tile.kernel blocks(%x) in (%n) threads(128) {
    %c = tile.alloc : memref<256x256xf32, #tile.fragment>
  }
  return
}

// -----

// Every kernel of a module gets its own figures.
// SM90: remark: shared memory 1024 bytes of 232448
// SM90: remark: shared memory 2048 bytes of 232448
func.func @two_kernels(%n: index) {
  // expected-remark @+1 {{shared memory 1024 bytes of 166912}}
  tile.kernel blocks(%x) in (%n) threads(32) {
    %a = tile.alloc : memref<256xf32, #gpu.address_space<workgroup>>
  }
  // expected-remark @+1 {{shared memory 2048 bytes of 166912}}
  tile.kernel blocks(%x) in (%n) threads(32) {
    %a = tile.alloc : memref<256xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A shared buffer filled by a copy in a 3-stage pipeline is kept three
// times (3 x 8192 bytes); the buffer the loop only reads is kept once.
// SM90: remark: shared memory 28672 bytes of 232448, fragment and local registers >= 0 per thread of 255
func.func @pipelined(%A: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{shared memory 28672 bytes of 166912, fragment and local registers >= 0 per thread of 255}}
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      tile.copy %A[%k, %c0] -> %a : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %b -> %A[%k, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<?x64xf16>
    }
  }
  return
}

// -----

// A fragment's layout decides its registers: 128 f32 elements on 32
// threads, each held by 4 threads, is 16 registers per thread rather than
// 4; sub-byte elements are packed (4096 x i4 = 2048 bytes).
// SM90: remark: shared memory 2048 bytes of 232448, fragment and local registers >= 16 per thread of 255
func.func @replicated_and_packed(%n: index) {
  // expected-remark @+1 {{shared memory 2048 bytes of 166912, fragment and local registers >= 16 per thread of 255}}
  tile.kernel blocks(%x) in (%n) threads(32) {
    %f = tile.alloc {layout = #tile.fragment<threads = 32, map = (d0)[s0] -> ((d0 floordiv 16) + s0 * 8, d0 mod 16), replicate = 4>}
        : memref<128xf32, #tile.fragment>
    %s = tile.alloc : memref<64x64xi4, #gpu.address_space<workgroup>>
  }
  return
}
