// RUN: tile-opt %s -tile-infer-layout | FileCheck %s

// A tile.parallel of 2^24 points is bound like a small one: its default
// binding is injective by the structure of its map, which is checked
// without walking every point.

// CHECK-LABEL: func.func @fill_4096
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (4096, 4096) layout(#tile.fragment<[4096, 4096], threads = 128, (d0, d1) -> ((d1 floordiv 4) mod 128, ((d1 floordiv 4) floordiv 128 + d0 * 8) * 4 + d1 mod 4)>)
func.func @fill_4096(%out: memref<4096x4096xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    tile.parallel (%i, %j) in (4096, 4096) {
      memref.store %one, %out[%i, %j] : memref<4096x4096xf32>
    }
  }
  return
}
