// The stock mlir-opt loads the tile plugin: the dialect plugin makes tile IR
// parse and round-trip, the pass plugin adds the tile passes.

// REQUIRES: tile-plugin

// RUN: %mlir_opt --load-dialect-plugin=%tile_libs/TilePlugin.so %s \
// RUN:   | %mlir_opt --load-dialect-plugin=%tile_libs/TilePlugin.so \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %mlir_opt --load-dialect-plugin=%tile_libs/TilePlugin.so \
// RUN:   --load-pass-plugin=%tile_libs/TilePlugin.so %s \
// RUN:   --pass-pipeline='builtin.module(canonicalize,tile-check-resources{chip=sm_80 remarks=true})' \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not %mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// ROUNDTRIP-LABEL: func.func @scale
// ROUNDTRIP: tile.kernel blocks(%bx) in (%{{.*}}) threads(128) {
// ROUNDTRIP: tile.alloc : memref<128x64xf32, #gpu.address_space<workgroup>>
// ROUNDTRIP: tile.fill %{{.*}}, %{{.*}} : memref<128x64xf32, #gpu.address_space<workgroup>>
// ROUNDTRIP: tile.copy %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x64xf32, #gpu.address_space<workgroup>> -> memref<?x64xf32>

// PASS: remark: shared memory 32768 bytes of 166912
// PASS: tile.clear %{{.*}} : memref<128x64xf32, #gpu.address_space<workgroup>>
// PASS-NOT: tile.fill

// NOPLUGIN: error: Dialect `tile' not found for custom op 'tile.kernel'

func.func @scale(%out: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<128x64xf32, #gpu.address_space<workgroup>>
    tile.fill %s, %zero : memref<128x64xf32, #gpu.address_space<workgroup>>
    tile.copy %s -> %out[%bx, %c0]
        : memref<128x64xf32, #gpu.address_space<workgroup>> -> memref<?x64xf32>
  }
  return
}
