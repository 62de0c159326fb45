// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a tma-store=false" | FileCheck %s --check-prefix=NOTMA
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a warp-specialize=false" | FileCheck %s --check-prefix=NOTMA

// The epilogue of a warp-specialized 128x256 GEMM with f16 output goes out
// through shared memory with TMA: the host makes a tensor map of C with
// 128x64 boxes (one 128-byte swizzle row of halves), the kernel gains two
// 128x64 staging buffers, and per 64-column chunk every consumer thread
// writes its converted pairs at column c ^ ((row & 7) * 8) of its row,
// fences them for the async proxy and meets the others at the consumers'
// named barrier; thread 0 then stores the box at (n + 64 j, m) and commits
// it. Before chunk j >= 2 reuses buffer j mod 2, thread 0 waits until at
// most one store still reads shared memory, then the consumers meet again;
// at the end thread 0 waits for every store.

// CHECK-LABEL: func.func @gemm_f16
// CHECK: nvgpu.tma.create.descriptor
// CHECK: nvgpu.tma.create.descriptor
// CHECK: %[[MAP:.+]] = nvgpu.tma.create.descriptor %{{.+}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: tile.kernel
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: %[[DESC:.+]] = builtin.unrealized_conversion_cast %[[MAP]] : {{.+}} to !llvm.ptr
// CHECK: %[[V:.+]] = arith.truncf %{{.+}} : vector<2xf32> to vector<2xf16>
// CHECK-NEXT: %[[R8:.+]] = arith.andi %[[ROW:.+]], %c7 : index
// CHECK-NEXT: %[[X:.+]] = arith.muli %[[R8]], %c8 : index
// CHECK-NEXT: %[[COL:.+]] = arith.xori %{{.+}}, %[[X]] : index
// CHECK-NEXT: vector.store %[[V]], %[[STAGE]][%c0, %[[ROW]], %[[COL]]] {alignment = 4 : i64} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-COUNT-15: vector.store %{{.+}}, %[[STAGE]][%c0,
// CHECK-NOT: vector.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[STAGE]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[DESC]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-COUNT-16: vector.store %{{.+}}, %[[STAGE]][%c1,
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: scf.if
// CHECK: arith.addi %{{.+}}, %c16384 : index
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-COUNT-16: vector.store %{{.+}}, %[[STAGE]][%c0,
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-COUNT-16: vector.store %{{.+}}, %[[STAGE]][%c1,
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: } else {

// Without TMA stores (or without warp specialization) the fragment goes
// straight to global memory, with the masked path for edge tiles: the four
// threads of a row exchange their pairs of halves so that each stores
// eight consecutive ones.
// NOTMA-LABEL: func.func @gemm_f16
// NOTMA-NOT: tile.alloc : memref<2x128x64xf16
// NOTMA-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// NOTMA: gpu.shuffle xor %{{.+}}, %c1_i32{{.*}}, %c32_i32 : i32
// NOTMA: gpu.shuffle xor %{{.+}}, %c2_i32{{.*}}, %c32_i32 : i32
// NOTMA: gpu.shuffle xor %{{.+}}, %c3_i32{{.*}}, %c32_i32 : i32
// NOTMA: vector.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// NOTMA: vector.maskedstore
// NOTMA-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// NOTMA-LABEL: func.func @f32_out
func.func @gemm_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// f32 output: chunks of 32 columns (128 bytes), 64x32 boxes, pairs of
// floats at column c ^ ((row & 7) * 4); the second chunk's box starts at
// column n + 32.

// CHECK-LABEL: func.func @f32_out
// CHECK: %[[MAP:.+]] = nvgpu.tma.create.descriptor %{{.+}} box[%c64, %c32] : memref<*xf32> -> <tensor = memref<64x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<2x64x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[V:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK-NEXT: %[[R8:.+]] = arith.andi %[[ROW:.+]], %c7 : index
// CHECK-NEXT: %[[X:.+]] = arith.muli %[[R8]], %c4 : index
// CHECK-NEXT: %[[COL:.+]] = arith.xori %{{.+}}, %[[X]] : index
// CHECK-NEXT: vector.store %[[V]], %[[STAGE]][%c0, %[[ROW]], %[[COL]]] {alignment = 8 : i64} : memref<2x64x32xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.+}}, %{{.+}}, box[%[[N0:.+]], %{{.+}}]
// CHECK: vector.store %{{.+}}, %[[STAGE]][%c1,
// CHECK: %[[N1:.+]] = arith.addi %{{.+}}, %c32 : index
// CHECK-NEXT: %[[N1I:.+]] = arith.index_cast %[[N1]] : index to i32
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.+}}, %{{.+}}, box[%[[N1I]], %{{.+}}]
// CHECK-NOT: nvvm.cp.async.bulk.wait_group 1
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
func.func @f32_out(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

// With 8 KiB more of shared memory next to the 4-stage pipeline (192 KiB),
// two 16 KiB staging buffers would pass the 227 KiB of a block: one buffer,
// which thread 0 waits to be read (wait_group.read 0) before every chunk
// after the first.

// CHECK-LABEL: func.func @one_buffer
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<1x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier
// CHECK-COUNT-16: vector.store %{{.+}}, %[[STAGE]][%c0,
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
func.func @one_buffer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %D: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(256) {
    %Xs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Xs : memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Xs -> %D : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf16>
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// Where no staging buffer fits (32 KiB more beside the pipeline), where the
// tile is not a whole number of 128-byte chunks (32 halves wide), or where
// the destination is not a 2-d tensor from outside the kernel, the
// fragment is stored from registers.

// CHECK-LABEL: func.func @no_room
// CHECK: tile.producer_threads = 128
// CHECK-NOT: tile.alloc : memref<{{[12]}}x128x64xf16
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: vector.maskedstore
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @no_room(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %D: memref<128x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(256) {
    %Xs = tile.alloc : memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.clear %Xs : memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.copy %Xs -> %D : memref<128x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf16>
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x256xf32, #tile.fragment>
    tile.clear %Cf : memref<128x256xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(4) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x256xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// CHECK-LABEL: func.func @narrow
// CHECK: tile.producer_threads = 128
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: vector.maskedstore
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @narrow(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x32xf32, #tile.fragment>
    tile.clear %Cf : memref<64x32xf32, #tile.fragment>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c32 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<64x32xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<64x32xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// CHECK-LABEL: func.func @rank3
// CHECK: tile.producer_threads = 128
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: vector.maskedstore
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @rank3(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads(128) {
    %As = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %Cf : memref<64x64xf32, #tile.fragment>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%c0, %m, %n] : memref<64x64xf32, #tile.fragment> -> memref<?x?x?xf16>
  }
  return
}
