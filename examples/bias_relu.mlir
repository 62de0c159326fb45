// C = relu(A + bias) for an f32 matrix A of any shape and a bias per
// column, in 32x128 tiles. The bias tile is a fragment replicated over
// the four threads that share its columns (paper Fig. 7), so the
// element-wise loop reads it from registers.
#frag = #tile.fragment<[32, 128], threads = 128,
    (d0, d1) -> ((d0 mod 4) * 32 + d1 floordiv 4, (d0 floordiv 4) * 4 + d1 mod 4)>
#bias = #tile.fragment<[128], threads = 128,
    (d0)[s0] -> (s0 * 32 + d0 floordiv 4, d0 mod 4), replicate = 4>
func.func @bias_relu(%A: memref<?x?xf32>, %bias: memref<?xf32>,
                     %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {
    %row = arith.muli %by, %c32 : index
    %col = arith.muli %bx, %c128 : index
    %a = tile.alloc {layout = #frag} : memref<32x128xf32, #tile.fragment>
    %b = tile.alloc {layout = #bias} : memref<128xf32, #tile.fragment>
    tile.copy %A[%row, %col] -> %a : memref<?x?xf32> -> memref<32x128xf32, #tile.fragment>
    tile.copy %bias[%col] -> %b : memref<?xf32> -> memref<128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 128) layout(#frag) {
      %x = memref.load %a[%i, %j] : memref<32x128xf32, #tile.fragment>
      %y = memref.load %b[%j] : memref<128xf32, #tile.fragment>
      %s = arith.addf %x, %y : f32
      %r = arith.maximumf %s, %zero : f32
      memref.store %r, %a[%i, %j] : memref<32x128xf32, #tile.fragment>
    }
    tile.copy %a -> %C[%row, %col] : memref<32x128xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}
