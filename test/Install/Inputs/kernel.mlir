func.func @k(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(64) {
    %s = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    tile.clear %s : memref<64x32xf32, #gpu.address_space<workgroup>>
  }
  return
}
