// The producer of a warp-specialized loop issues the prologue's load from
// the copy's indices after the consumers' part has replaced that copy with
// a wait; the indices were read from the erased copy, and tile-compile
// crashed on this kernel (found by tile-fuzz, seed 129, from
// test/Transforms/tile-infer-layout-attention.mlir). Nothing reads the
// prologue's tile or the loop's.

// RUN: rm -rf %t && tile-compile %s --chip sm_90a --no-cubin -o %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/attention_kernel.ptx

// CHECK: tile-compile: attention_kernel -> {{.*}}attention_kernel.fallback.manifest (ptx)
// CHECK: tile-compile: attention_kernel -> {{.*}}attention_kernel.manifest (ptx)
// Q's box once, then K's in the producer's loop.
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global

func.func @attention(%Q: memref<4096x64xf16>, %K: memref<4096x64xf16>,
                     %V: memref<4096x64xf16>, %O: memref<4096x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c64) threads(128) {
    %Qs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %P = tile.alloc : memref<64x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<64x64xf32, #tile.fragment>
    %mPrev = tile.alloc : memref<64xf32, #tile.fragment>
    %mNew = tile.alloc : memref<64xf32, #tile.fragment>
    %l = tile.alloc : memref<64xf32, #tile.fragment>
    %q0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%q0, %c0] -> %Qs : memref<4096x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %j = %c0 to %c64 step %c1 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<4096x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i) in (64) {
      }
      tile.parallel (%i, %c) in (64, 64) {
        %b = memref.load %mNew[%i] : memref<64xf32, #tile.fragment>
        memref.store %b, %mPrev[%i] : memref<64xf32, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row) : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %c) in (64, 64) {
      %o = memref.load %Of[%i, %c] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
    }
  }
  return
}
