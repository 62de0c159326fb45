// The tile GEMM of DESIGN.md §4 / the TileLang tutorial: C = A * B on
// 1024x1024 fp16 matrices with 128x128x32 block tiles, a 3-stage pipeline,
// f32 accumulation in a register fragment and an fp16 result.
func.func @matmul(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                  %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %As = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As
          : memref<1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs
          : memref<1024x1024xf16> -> memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf
          : memref<128x32xf16, #gpu.address_space<workgroup>>,
            memref<32x128xf16, #gpu.address_space<workgroup>>
         -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n]
        : memref<128x128xf32, #tile.fragment> -> memref<1024x1024xf16>
  }
  return
}
