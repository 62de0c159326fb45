// A pipelined copy that warp specialization can lower (a producer
// warpgroup issues it with TMA) but the build without it cannot: its loop
// layout, given by hand, deals the 512 vectors of a 64x64 f16 tile round
// robin over 384 threads, which does not fill their slots one to one, so
// only the fallback fails, early.
func.func @pipelined(%A: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(384) {
    %a = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      tile.copy %A[%k, %c0] -> %a {tile.loop = #tile.fragment<[64, 64], threads = 384, (d0, d1) -> ((d0 * 8 + d1 floordiv 8) mod 384, ((d0 * 8 + d1 floordiv 8) floordiv 384) * 8 + d1 mod 8)>}
          : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
