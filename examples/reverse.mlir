// Reverses each 128-element block of a vector through shared memory: a
// thread-level ("Level 3") tile kernel with gpu.thread_id, a barrier and a
// shared buffer. A ragged last block of m elements reverses those m.
func.func @reverse(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c128 : index
  tile.kernel blocks(%bx) in (%blocks) threads(128) {
    %s = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %tid : index
    %inside = arith.cmpi ult, %i, %n : index
    scf.if %inside {
      %v = memref.load %in[%i] : memref<?xf32>
      memref.store %v, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %left = arith.subi %n, %base : index
    %m = arith.minui %left, %c128 : index
    %mt = arith.subi %m, %tid : index
    %from = arith.subi %mt, %c1 : index
    scf.if %inside {
      %w = memref.load %s[%from] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<?xf32>
    }
  }
  return
}
