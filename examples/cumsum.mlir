// Inclusive prefix sum along the rows of an f32 matrix with 64 columns:
// a block stages 32 rows in shared memory (16-byte vectors, masked at the
// bottom edge), scans them one row per thread and writes them back. The
// copies' thread bindings are written by hand.
#loop = #tile.fragment<[32, 64], threads = 128,
    (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 4, (d0 floordiv 8) * 4 + d1 mod 4)>
func.func @cumsum(%X: memref<?x64xf32>, %Y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %X, %c0 : memref<?x64xf32>
  %blocks = arith.ceildivui %m, %c32 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %row0 = arith.muli %bx, %c32 : index
    %s = tile.alloc : memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%row0, %c0] -> %s {tile.loop = #loop} : memref<?x64xf32> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.cumsum %s -> %s dim(1) : memref<32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %s -> %Y[%row0, %c0] {tile.loop = #loop} : memref<32x64xf32, #gpu.address_space<workgroup>> -> memref<?x64xf32>
  }
  return
}
