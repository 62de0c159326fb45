// RUN: tile-opt %s -tile-attach-target=chip=sm_90a -tile-infer-layout -tile-lower -split-input-file -canonicalize | FileCheck %s
// RUN: tile-opt %s -tile-attach-target=chip=sm_90a -tile-check-resources="remarks=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=RES

// A shared buffer annotated with a padded layout (rows of 32 words stored
// 36 apart, so that one word of eight rows falls in eight bank groups)
// occupies the layout's span: 63 * 36 + 32 = 2300 words. The pipelined
// loop keeps two slots of it 2300 words apart, the lowering addresses them
// through one flat view of the whole span, and the copies into it stay
// 16-byte cp.async vectors (each row starts 144 bytes after the last).

// CHECK-LABEL: func.func @padded
// CHECK:       %[[S:.+]] = tile.alloc {layout = #tile.layout<[2, 64, 32], (d0, d1, d2) -> (d0 * 2300 + d1 * 36 + d2)>} : memref<2x64x32xi32, #gpu.address_space<workgroup>>
// CHECK:       %[[F:.+]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [4600], strides: [1]
// CHECK:       nvgpu.device_async_copy %arg0[%{{.+}}, %{{.+}}], %[[F]][%{{.+}}], 4
// CHECK:       vector.load %[[F]][%{{.+}}] {alignment = 16 : i64} : memref<4600xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// RES: remark: shared memory 18400 bytes of 232448
func.func @padded(%P: memref<?x?xi32>, %out: memref<?x?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc {layout = #tile.layout<[64, 32], padded<4>>} : memref<64x32xi32, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %P[%c0, %k0] -> %s : memref<?x?xi32> -> memref<64x32xi32, #gpu.address_space<workgroup>>
      tile.copy %s -> %out[%c0, %k0] : memref<64x32xi32, #gpu.address_space<workgroup>> -> memref<?x?xi32>
    }
  }
  return
}

// -----

// A gemm operand in a padded buffer: ldmatrix reads its rows through the
// flat view (each 16-byte row of a matrix stays contiguous), and the gemm
// takes mma.sync, as wgmma needs a canonical swizzle.

// CHECK-LABEL: func.func @padded_gemm
// CHECK:       %[[F:.+]] = memref.reinterpret_cast %{{.+}} to offset: [0], sizes: [2552], strides: [1]
// CHECK:       nvgpu.ldmatrix %[[F]][%{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<2552xf16, #gpu.address_space<workgroup>>
// CHECK:       nvgpu.mma.sync
func.func @padded_gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc {layout = #tile.layout<[64, 32], padded<8>>} : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0] -> %As : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] -> %Bs : memref<?x?xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs -> %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
