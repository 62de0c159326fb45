// Row softmax of an f16 matrix of any shape with an online max and sum
// (one pass for the statistics, one for the output). A block handles 4
// rows, one warp per row, 256 columns per step: each lane holds 8
// consecutive columns (one 16-byte vector). The row statistics are held
// replicated by the 32 lanes of the row's warp. Columns past the end of a
// row read as -inf so that they add nothing.
#tile = #tile.fragment<[4, 256], threads = 128,
    (d0, d1) -> (d0 * 32 + d1 floordiv 8, d1 mod 8)>
#row = #tile.fragment<[4], threads = 128, (d0)[s0] -> (d0 * 32 + s0, 0),
    replicate = 32>
func.func @row_softmax(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %m = memref.dim %X, %c0 : memref<?x?xf16>
  %n = memref.dim %X, %c1 : memref<?x?xf16>
  %blocks = arith.ceildivui %m, %c4 : index
  %steps = arith.ceildivui %n, %c256 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %row0 = arith.muli %bx, %c4 : index
    %x = tile.alloc {layout = #tile} : memref<4x256xf32, #tile.fragment>
    %mx = tile.alloc {layout = #row} : memref<4xf32, #tile.fragment>
    %sum = tile.alloc {layout = #row} : memref<4xf32, #tile.fragment>
    %tmax = tile.alloc {layout = #row} : memref<4xf32, #tile.fragment>
    %tsum = tile.alloc {layout = #row} : memref<4xf32, #tile.fragment>
    tile.fill %mx, %ninf : memref<4xf32, #tile.fragment>
    tile.fill %sum, %zero : memref<4xf32, #tile.fragment>
    scf.for %k = %c0 to %steps step %c1 {
      %col0 = arith.muli %k, %c256 : index
      tile.copy %X[%row0, %col0] -> %x : memref<?x?xf16> -> memref<4x256xf32, #tile.fragment>
      tile.parallel (%i, %j) in (4, 256) layout(#tile) {
        %c = arith.addi %col0, %j : index
        %out = arith.cmpi uge, %c, %n : index
        %v = memref.load %x[%i, %j] : memref<4x256xf32, #tile.fragment>
        %w = arith.select %out, %ninf, %v : f32
        memref.store %w, %x[%i, %j] : memref<4x256xf32, #tile.fragment>
      }
      tile.reduce max %x -> %tmax dim(1) : memref<4x256xf32, #tile.fragment> -> memref<4xf32, #tile.fragment>
      tile.parallel (%i) in (4) layout(#row) {
        %old = memref.load %mx[%i] : memref<4xf32, #tile.fragment>
        %t = memref.load %tmax[%i] : memref<4xf32, #tile.fragment>
        %new = arith.maximumf %old, %t : f32
        memref.store %new, %tmax[%i] : memref<4xf32, #tile.fragment>
      }
      tile.parallel (%i, %j) in (4, 256) layout(#tile) {
        %v = memref.load %x[%i, %j] : memref<4x256xf32, #tile.fragment>
        %new = memref.load %tmax[%i] : memref<4xf32, #tile.fragment>
        %d = arith.subf %v, %new : f32
        %e = math.exp %d : f32
        memref.store %e, %x[%i, %j] : memref<4x256xf32, #tile.fragment>
      }
      tile.reduce sum %x -> %tsum dim(1) : memref<4x256xf32, #tile.fragment> -> memref<4xf32, #tile.fragment>
      tile.parallel (%i) in (4) layout(#row) {
        %old = memref.load %mx[%i] : memref<4xf32, #tile.fragment>
        %new = memref.load %tmax[%i] : memref<4xf32, #tile.fragment>
        %s = memref.load %sum[%i] : memref<4xf32, #tile.fragment>
        %t = memref.load %tsum[%i] : memref<4xf32, #tile.fragment>
        %d = arith.subf %old, %new : f32
        %f = math.exp %d : f32
        %scaled = arith.mulf %s, %f : f32
        %total = arith.addf %scaled, %t : f32
        memref.store %total, %sum[%i] : memref<4xf32, #tile.fragment>
        memref.store %new, %mx[%i] : memref<4xf32, #tile.fragment>
      }
    }
    scf.for %k = %c0 to %steps step %c1 {
      %col0 = arith.muli %k, %c256 : index
      tile.copy %X[%row0, %col0] -> %x : memref<?x?xf16> -> memref<4x256xf32, #tile.fragment>
      tile.parallel (%i, %j) in (4, 256) layout(#tile) {
        %v = memref.load %x[%i, %j] : memref<4x256xf32, #tile.fragment>
        %mm = memref.load %mx[%i] : memref<4xf32, #tile.fragment>
        %s = memref.load %sum[%i] : memref<4xf32, #tile.fragment>
        %d = arith.subf %v, %mm : f32
        %e = math.exp %d : f32
        %y = arith.divf %e, %s : f32
        memref.store %y, %x[%i, %j] : memref<4x256xf32, #tile.fragment>
      }
      tile.copy %x -> %Y[%row0, %col0] : memref<4x256xf32, #tile.fragment> -> memref<?x?xf16>
    }
  }
  return
}
