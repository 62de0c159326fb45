// Row softmax of an f16 matrix whose rows have at most 8192 elements, in
// one pass over memory: a block of 512 threads loads a whole row into
// registers (16 values per thread as two 16-byte vectors, which
// coalesced_width asks for), reduces its maximum and its sum of
// exponentials across the block, and writes the normalized row. Every layout is left to tile-infer-layout. Columns past
// the end of a row read as -inf so that they add nothing; rows longer than
// 8192 need examples/row_softmax.mlir, which streams them.
func.func @row_softmax_onepass(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf16>
  %n = memref.dim %X, %c1 : memref<?x?xf16>
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel blocks(%bx) in (%m) threads(512) {
    %x = tile.alloc : memref<1x8192xf32, #tile.fragment>
    %mx = tile.alloc : memref<1xf32, #tile.fragment>
    %sum = tile.alloc : memref<1xf32, #tile.fragment>
    tile.copy %X[%bx, %c0] -> %x {coalesced_width = 8} : memref<?x?xf16> -> memref<1x8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in (1, 8192) {
      %out = arith.cmpi uge, %j, %n : index
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %w = arith.select %out, %ninf, %v : f32
      memref.store %w, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce max %x -> %mx dim(1) : memref<1x8192xf32, #tile.fragment> -> memref<1xf32, #tile.fragment>
    tile.parallel (%i, %j) in (1, 8192) {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %mm = memref.load %mx[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mm : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce sum %x -> %sum dim(1) : memref<1x8192xf32, #tile.fragment> -> memref<1xf32, #tile.fragment>
    tile.parallel (%i, %j) in (1, 8192) {
      %e = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %s = memref.load %sum[%i] : memref<1xf32, #tile.fragment>
      %y = arith.divf %e, %s : f32
      memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x -> %Y[%bx, %c0] {coalesced_width = 8} : memref<1x8192xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
