// Histogram of i32 values in [0, 256): each block counts 4096 values into
// a shared histogram with thread-level atomics, then adds it into the
// global one with tile.atomic. Barriers between the phases are inserted
// by the compiler.
#loop = #tile.fragment<[256], threads = 128, (d0) -> (d0 mod 128, d0 floordiv 128)>
func.func @histogram(%X: memref<?xi32>, %H: memref<256xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant 1 : i32
  %n = memref.dim %X, %c0 : memref<?xi32>
  %blocks = arith.ceildivui %n, %c4096 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %h = tile.alloc : memref<256xi32, #gpu.address_space<workgroup>>
    tile.clear %h : memref<256xi32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %base = arith.muli %bx, %c4096 : index
    %first = arith.addi %base, %tid : index
    scf.for %k = %c0 to %c32 step %c1 {
      %off = arith.muli %k, %c128 : index
      %i = arith.addi %first, %off : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %v = memref.load %X[%i] : memref<?xi32>
        %bin = arith.index_cast %v : i32 to index
        %old = memref.atomic_rmw addi %one, %h[%bin] : (i32, memref<256xi32, #gpu.address_space<workgroup>>) -> i32
      }
    }
    tile.atomic add %h -> %H[%c0] {tile.loop = #loop} : memref<256xi32, #gpu.address_space<workgroup>> -> memref<256xi32>
  }
  return
}
