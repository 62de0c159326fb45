// A pipelined copy that warp specialization can lower (a producer
// warpgroup issues it) but the build without it cannot: 384 threads do not
// split a 64x64 f16 tile one to one, so only the fallback fails, early.
func.func @pipelined(%A: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(384) {
    %a = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      tile.copy %A[%k, %c0] -> %a : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
