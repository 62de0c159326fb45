// Maximum of every column of an f32 matrix with a static number of rows:
// a block handles 128 columns, reading 32 rows at a time. A column's
// elements are spread over four warps, so the lanes' partial maxima meet
// in shared scratch memory. Out-of-bounds rows are never read: the row
// count is a multiple of 32.
#frag = #tile.fragment<[32, 128], threads = 128,
    (d0, d1) -> ((d0 mod 4) * 32 + d1 floordiv 4, (d0 floordiv 4) * 4 + d1 mod 4)>
#col = #tile.fragment<[128], threads = 128,
    (d0)[s0] -> (s0 * 32 + d0 floordiv 4, d0 mod 4), replicate = 4>
func.func @column_reduce(%X: memref<1024x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %ninf = arith.constant 0xFF800000 : f32
  %n = memref.dim %X, %c1 : memref<1024x?xf32>
  %blocks = arith.ceildivui %n, %c128 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %col0 = arith.muli %bx, %c128 : index
    %x = tile.alloc {layout = #frag} : memref<32x128xf32, #tile.fragment>
    %acc = tile.alloc {layout = #col} : memref<128xf32, #tile.fragment>
    tile.fill %acc, %ninf : memref<128xf32, #tile.fragment>
    scf.for %r = %c0 to %c1024 step %c32 {
      tile.copy %X[%r, %col0] -> %x : memref<1024x?xf32> -> memref<32x128xf32, #tile.fragment>
      tile.reduce max %x -> %acc dim(0) {clear = false} : memref<32x128xf32, #tile.fragment> -> memref<128xf32, #tile.fragment>
    }
    tile.copy %acc -> %out[%col0] : memref<128xf32, #tile.fragment> -> memref<?xf32>
  }
  return
}
