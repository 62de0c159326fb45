// Sum of every row of an f32 matrix of any shape: a block handles 4 rows,
// one warp per row, stepping over the columns 256 at a time; each step
// adds its partial sums into the row totals (clear = false), which the
// lanes combine with warp shuffles. Out-of-bounds columns read as zero.
#tile = #tile.fragment<[4, 256], threads = 128,
    (d0, d1) -> (d0 * 32 + d1 floordiv 8, d1 mod 8)>
#row = #tile.fragment<[4], threads = 128, (d0)[s0] -> (d0 * 32 + s0, 0),
    replicate = 32>
func.func @row_reduce(%X: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %blocks = arith.ceildivui %m, %c4 : index
  %steps = arith.ceildivui %n, %c256 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %row0 = arith.muli %bx, %c4 : index
    %x = tile.alloc {layout = #tile} : memref<4x256xf32, #tile.fragment>
    %acc = tile.alloc {layout = #row} : memref<4xf32, #tile.fragment>
    tile.clear %acc : memref<4xf32, #tile.fragment>
    scf.for %k = %c0 to %steps step %c1 {
      %col0 = arith.muli %k, %c256 : index
      tile.copy %X[%row0, %col0] -> %x : memref<?x?xf32> -> memref<4x256xf32, #tile.fragment>
      tile.reduce sum %x -> %acc dim(1) {clear = false} : memref<4x256xf32, #tile.fragment> -> memref<4xf32, #tile.fragment>
    }
    tile.copy %acc -> %out[%row0] : memref<4xf32, #tile.fragment> -> memref<?xf32>
  }
  return
}
