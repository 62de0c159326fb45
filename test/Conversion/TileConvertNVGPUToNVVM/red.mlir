// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm{index-bitwidth=32}))' | FileCheck %s

// tile.red becomes one inline PTX red.global.add at the element's address,
// computed from the memref descriptor: its 64-bit base pointer plus the
// i32 offset (with index-bitwidth=32 the offset arithmetic is 32-bit, the
// pointer is not truncated), cast to the global address space. 16-bit
// elements go as f16x2 / bf16x2 words, f32 as scalar registers.

// CHECK-LABEL: func.func @red
// CHECK:       %[[BASE:.+]] = llvm.extractvalue %{{.+}}[1] : !llvm.struct<(ptr, ptr, i32, array<2 x i32>, array<2 x i32>)>
// CHECK:       %[[P:.+]] = llvm.getelementptr %[[BASE]][%{{.+}}] : (!llvm.ptr, i32) -> !llvm.ptr, f16
// CHECK:       %[[G:.+]] = llvm.addrspacecast %[[P]] : !llvm.ptr to !llvm.ptr<1>
// CHECK:       %[[W:.+]] = llvm.bitcast %{{.+}} : vector<8xf16> to vector<4xi32>
// CHECK-COUNT-4: llvm.extractelement %[[W]]
// CHECK:       llvm.inline_asm has_side_effects "red.global.add.noftz.v4.f16x2 [$0], {$1, $2, $3, $4};", "l,r,r,r,r" %[[G]]
// CHECK:       "red.global.add.noftz.f16x2 [$0], $1;", "l,r"
// CHECK:       "red.global.add.noftz.v2.bf16x2 [$0], {$1, $2};", "l,r,r"
// CHECK:       "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f"
// CHECK-NOT:   tile.red
gpu.module @m {
  func.func @red(%h: memref<?x?xf16>, %b: memref<?xbf16>, %f: memref<?xf32>, %i: index,
                 %v8: vector<8xf16>, %v2: vector<2xf16>, %b4: vector<4xbf16>, %f4: vector<4xf32>) {
    tile.red %v8, %h[%i, %i] : vector<8xf16>, memref<?x?xf16>
    tile.red %v2, %h[%i, %i] : vector<2xf16>, memref<?x?xf16>
    tile.red %b4, %b[%i] : vector<4xbf16>, memref<?xbf16>
    tile.red %f4, %f[%i] : vector<4xf32>, memref<?xf32>
    return
  }
}
