// C = A + B on f16 matrices of any shape, in 32x128 tiles: each of the 128
// threads moves 4 vectors of 8 halves (16 bytes) per operand; edges of
// ragged shapes are masked. The fragment layout is written by hand: thread
// t holds columns 8 * (t % 16) ... + 7 of rows t / 16 + 8 k.
#frag = #tile.fragment<[32, 128], threads = 128,
    (d0, d1) -> ((d0 mod 8) * 16 + d1 floordiv 8, (d0 floordiv 8) * 8 + d1 mod 8)>
func.func @elementwise_add(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                           %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %n = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {
    %row = arith.muli %by, %c32 : index
    %col = arith.muli %bx, %c128 : index
    %a = tile.alloc {layout = #frag} : memref<32x128xf16, #tile.fragment>
    %b = tile.alloc {layout = #frag} : memref<32x128xf16, #tile.fragment>
    tile.copy %A[%row, %col] -> %a : memref<?x?xf16> -> memref<32x128xf16, #tile.fragment>
    tile.copy %B[%row, %col] -> %b : memref<?x?xf16> -> memref<32x128xf16, #tile.fragment>
    tile.parallel (%i, %j) in (32, 128) layout(#frag) {
      %x = memref.load %a[%i, %j] : memref<32x128xf16, #tile.fragment>
      %y = memref.load %b[%i, %j] : memref<32x128xf16, #tile.fragment>
      %s = arith.addf %x, %y : f16
      memref.store %s, %a[%i, %j] : memref<32x128xf16, #tile.fragment>
    }
    tile.copy %a -> %C[%row, %col] : memref<32x128xf16, #tile.fragment> -> memref<?x?xf16>
  }
  return
}
