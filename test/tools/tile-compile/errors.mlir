// Kernels whose launch cannot be described by a manifest, kernels with an
// operator the target cannot run, and files without kernels, are errors
// with a location, not crashes.

// RUN: rm -rf %t && split-file %s %t
// RUN: not tile-compile %t/host-operand.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=OPERAND
// RUN: not tile-compile %t/grid.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not tile-compile %t/empty.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tile-compile %t/unlowered.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: not tile-compile %t/empty.mlir -o %t/out --chip sm_12 2>&1 | FileCheck %s --check-prefix=CHIP

// OPERAND: host-operand.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kernel operand is computed on the host
// GRID: grid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: grid extent computed by arith.remui cannot be written in a launch manifest
// EMPTY: tile-compile: {{.*}}empty.mlir has no tile.kernel
// UNLOWERED: unlowered.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tile.gemm' op has no tensor-core instruction for 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' on sm_90a that fits its 16x8x32 tile on 32 threads
// CHIP: unknown chip 'sm_12'

//--- host-operand.mlir
func.func @f(%out: memref<?xf32>, %n: index) {
  %v = arith.index_cast %n : index to i32
  %f = arith.sitofp %v : i32 to f32
  %buf = memref.alloc(%n) : memref<?xf32>
  tile.kernel blocks(%bx) in (%n) threads(32) {
    %c0 = arith.constant 0 : index
    memref.store %f, %buf[%c0] : memref<?xf32>
  }
  return
}

//--- grid.mlir
func.func @f(%out: memref<?xf32>, %n: index) {
  %c7 = arith.constant 7 : index
  %g = arith.remui %n, %c7 : index
  tile.kernel blocks(%bx) in (%g) threads(32) {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    memref.store %z, %out[%c0] : memref<?xf32>
  }
  return
}

//--- empty.mlir
func.func @f() {
  return
}

//--- unlowered.mlir
func.func @f(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(32) {
    %a = tile.alloc : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x8xf8E4M3FN, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<16x8xf32, #tile.fragment>
    tile.gemm %a, %b -> %c : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x8xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<16x8xf32, #tile.fragment>
  }
  return
}
