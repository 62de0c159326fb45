// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm{index-bitwidth=32}))' | FileCheck %s --check-prefix=I32
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm))' | FileCheck %s --check-prefix=I64
// RUN: not tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-convert-nvgpu-to-nvvm{index-bitwidth=8}))' 2>&1 | FileCheck %s --check-prefix=BAD

// The nvgpu operations of a kernel module become NVVM with address
// arithmetic in the chosen index width: the memref descriptors of shared
// and global operands carry i32 offsets and strides with
// index-bitwidth=32 (the default, 64, keeps i64). Workgroup memrefs map to
// NVVM's shared address space 3.

// I32-LABEL: func.func @k
// I32: builtin.unrealized_conversion_cast %{{.+}} : index to i32
// I32: builtin.unrealized_conversion_cast %{{.+}} : memref<128x32xf16, #gpu.address_space<workgroup>> to !llvm.struct<(ptr<3>, ptr<3>, i32, array<2 x i32>, array<2 x i32>)>
// I32: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// I32: nvvm.cp.async.commit.group
// I32: nvvm.cp.async.wait.group 1
// I32: nvvm.ldmatrix %{{.+}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// I32: nvvm.ldmatrix %{{.+}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 2 : i32
// I32: nvvm.mma.sync
// I32-NOT: nvgpu.

// I64: !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>

// BAD: tile-convert-nvgpu-to-nvvm: index-bitwidth must be 32 or 64, got 8

gpu.module @m {
  func.func @k(%g: memref<?x?xf16>, %s: memref<128x32xf16, #gpu.address_space<workgroup>>, %i: index, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %c0 = arith.constant 0 : index
    %t = nvgpu.device_async_copy %g[%i, %c0], %s[%i, %c0], 8 {bypassL1} : memref<?x?xf16> to memref<128x32xf16, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g0 {numGroups = 1 : i32}
    %a = nvgpu.ldmatrix %s[%i, %c0] {numTiles = 4 : i32, transpose = false} : memref<128x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b = nvgpu.ldmatrix %s[%i, %c0] {numTiles = 2 : i32, transpose = true} : memref<128x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
}
