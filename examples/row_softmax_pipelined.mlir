// Row softmax of an f16 matrix whose rows have at most 8192 elements, with
// the rows streamed through shared memory: each of GRID persistent blocks
// of THREADS threads takes rows bx, bx + GRID, ..., and tile.pipelined
// fetches the rows STAGES - 1 ahead with cp.async while the block reduces
// the current one (its maximum, then its sum of exponentials) in
// registers, so the memory system always has rows in flight instead of
// waiting for each block's one row. Columns past the end of a row read as
// -inf so that they add nothing; the row is normalized by one reciprocal.
// GRID is best a multiple of the number of SMs times the blocks that fit on
// one (132 x 3 on an H200 with the defaults).
//
// tile.params: GRID=396 THREADS=128 STAGES=3
func.func @row_softmax_pipelined(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cG = arith.constant ${GRID} : index
  %m = memref.dim %X, %c0 : memref<?x?xf16>
  %n = memref.dim %X, %c1 : memref<?x?xf16>
  %g = arith.minui %m, %cG : index
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel blocks(%bx) in (%g) threads(${THREADS}) {
    %xs = tile.alloc : memref<1x8192xf16, #gpu.address_space<workgroup>>
    %x = tile.alloc : memref<1x8192xf32, #tile.fragment>
    %mx = tile.alloc : memref<1xf32, #tile.fragment>
    %sum = tile.alloc : memref<1xf32, #tile.fragment>
    tile.pipelined %r = %bx to %m step %g stages(${STAGES}) {
      tile.copy %X[%r, %c0] -> %xs : memref<?x?xf16> -> memref<1x8192xf16, #gpu.address_space<workgroup>>
      tile.copy %xs -> %x : memref<1x8192xf16, #gpu.address_space<workgroup>> -> memref<1x8192xf32, #tile.fragment>
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
      tile.parallel (%i) in (1) {
        %s = memref.load %sum[%i] : memref<1xf32, #tile.fragment>
        %one = arith.constant 1.0 : f32
        %inv = arith.divf %one, %s : f32
        memref.store %inv, %sum[%i] : memref<1xf32, #tile.fragment>
      }
      tile.parallel (%i, %j) in (1, 8192) {
        %e = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
        %s = memref.load %sum[%i] : memref<1xf32, #tile.fragment>
        %y = arith.mulf %e, %s : f32
        memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      }
      tile.copy %x -> %Y[%r, %c0] : memref<1x8192xf32, #tile.fragment> -> memref<?x?xf16>
    }
  }
  return
}
