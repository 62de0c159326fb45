// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm{index-bitwidth=32}))' | FileCheck %s

// tile.remote_load maps the element's shared address into the cluster's
// window with mapa (address space 3 to 7) and loads the vector from there,
// aligned to its size: the NVPTX backend emits ld.shared::cluster.

// CHECK-LABEL: func.func @remote
// CHECK:       %[[BASE:.+]] = llvm.extractvalue %{{.+}}[1] : !llvm.struct<(ptr<3>, ptr<3>, i32, array<2 x i32>, array<2 x i32>)>
// CHECK:       %[[P:.+]] = llvm.getelementptr %[[BASE]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK:       %[[R:.+]] = nvvm.mapa %[[P]], %arg2 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK:       llvm.load %[[R]] {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK:       %[[R2:.+]] = nvvm.mapa %{{.+}}, %arg2 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK:       llvm.load %[[R2]] {alignment = 4 : i64} : !llvm.ptr<7> -> vector<2xf16>
// CHECK-NOT:   tile.remote_load
gpu.module @m {
  func.func @remote(%s: memref<16x64xf32, #gpu.address_space<workgroup>>,
                    %h: memref<8x8xf16, #gpu.address_space<workgroup>>,
                    %rank: i32, %i: index) -> (vector<4xf32>, vector<2xf16>) {
    %a = tile.remote_load %s[%i, %i] rank %rank : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
    %b = tile.remote_load %h[%i, %i] rank %rank : memref<8x8xf16, #gpu.address_space<workgroup>> -> vector<2xf16>
    return %a, %b : vector<4xf32>, vector<2xf16>
  }
}
