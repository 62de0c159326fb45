// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a thread-store=true" -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a thread-store=true tma-store=false" -canonicalize -cse \
// RUN:   | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a thread-store=true warp-specialize=false" \
// RUN:   | FileCheck %s --check-prefix=NOWS

// With thread-store the epilogue of a warp-specialized 128x256 GEMM goes
// through the same 128x64 staging buffers as a TMA store, but C gets no
// tensor map (only A and B do) and the consumers store it. d(row), the
// halves by which row `row`'s start lies past a 16-byte boundary, is
// ((aligned pointer + (offset + (m + row) * stride + n) * 2) & 15) / 2;
// each element goes to position ((c + d) & 63) ^ ((row & 7) * 8) of its
// staged row, one by one (32 per thread per chunk). After the consumers'
// barrier each thread takes units tid / 8 (row) and tid mod 8 (unit) in
// four rounds: a unit other than 0 (or 0 of an aligned row) wholly left of
// column N is one 16-byte load from its swizzled place and one 16-byte
// store at column n + 8 * unit - d, else its elements go one by one under
// masks; then, in four more rounds, element tid mod 8 of unit 0 of a row
// not aligned goes to column n + ((tid mod 8 + 64 - d) & 63), its head
// or its tail. Two buffers: no barrier before a chunk's writes. Without
// warp specialization (NOWS) the copy stores from registers.

// CHECK-LABEL: func.func @gemm_f16
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.extract_strided_metadata %arg2
// CHECK: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK-NEXT: %[[BASE:.+]] = arith.addi %[[PTR]], %{{.+}} : index
// CHECK: %[[H:.+]] = arith.truncf %{{.+}} : f32 to f16
// CHECK-NEXT: %[[RS:.+]] = arith.muli %[[ROW:.+]], %strides#0 : index
// CHECK-NEXT: %[[RB:.+]] = arith.muli %[[RS]], %c2 : index
// CHECK-NEXT: %[[ADDR:.+]] = arith.addi %[[BASE]], %[[RB]] : index
// CHECK-NEXT: %[[LOW:.+]] = arith.andi %[[ADDR]], %c15 : index
// CHECK-NEXT: %[[D:.+]] = arith.divui %[[LOW]], %c2 : index
// CHECK-NEXT: %[[CD:.+]] = arith.addi %{{.+}}, %[[D]] : index
// CHECK-NEXT: %[[POS:.+]] = arith.andi %[[CD]], %c63 : index
// CHECK-NEXT: %[[R8:.+]] = arith.andi %[[ROW]], %c7 : index
// CHECK-NEXT: %[[X:.+]] = arith.muli %[[R8]], %c8 : index
// CHECK-NEXT: %[[SW:.+]] = arith.xori %[[POS]], %[[X]] : index
// CHECK-NEXT: memref.store %[[H]], %[[STAGE]][%c0, %[[ROW]], %[[SW]]]
// CHECK-COUNT-31: memref.store %{{.+}}, %[[STAGE]][%c0,
// CHECK-NOT: memref.store %{{.+}}, %[[STAGE]]
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: %[[UROW:.+]] = arith.divui %thread_id_x, %c8 : index
// CHECK-NEXT: %[[UNIT:.+]] = arith.remui %thread_id_x, %c8 : index
// CHECK: %[[U8:.+]] = arith.muli %[[UNIT]], %c8 : index
// CHECK-NEXT: %[[FIRST:.+]] = arith.subi %[[U8]], %[[UD:.+]] : index
// CHECK-NEXT: %[[GCOL:.+]] = arith.addi %{{.+}}, %[[FIRST]] : index
// CHECK: scf.if
// CHECK-NEXT: %[[V:.+]] = vector.load %[[STAGE]][%c0, %[[UROW]], %{{.+}}] {alignment = 16 : i64} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: vector.store %[[V]], %arg2[%{{.+}}, %[[GCOL]]] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK-NEXT: } else {
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1
// CHECK: memref.load %[[STAGE]]
// CHECK-NEXT: memref.store %{{.+}}, %arg2
// CHECK-COUNT-3: vector.store %{{.+}}, %arg2
// CHECK: %[[E:.+]] = arith.addi %[[UNIT]], %c64 : index
// CHECK-NEXT: %[[ED:.+]] = arith.subi %[[E]], %[[UD]] : index
// CHECK-NEXT: %[[EC:.+]] = arith.andi %[[ED]], %c63 : index
// CHECK-NEXT: %[[EG:.+]] = arith.addi %{{.+}}, %[[EC]] : index
// CHECK: memref.load %[[STAGE]][%c0, %[[UROW]], %{{.+}}]
// CHECK-NEXT: memref.store %{{.+}}, %arg2[%{{.+}}, %[[EG]]] : memref<?x?xf16>
// CHECK-NOT: nvvm.barrier
// CHECK: memref.store %{{.+}}, %[[STAGE]][%c1,
// CHECK-COUNT-31: memref.store %{{.+}}, %[[STAGE]][%c1,
// CHECK-NEXT: nvvm.barrier
// CHECK: vector.load %[[STAGE]][%c1,
// CHECK-NOT: nvvm.barrier
// CHECK: memref.store %{{.+}}, %[[STAGE]][%c0,
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: } else {

// NOWS-LABEL: func.func @gemm_f16
// NOWS-NOT: tile.alloc : memref<2x128x64xf16
// NOWS: vector.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// NOWS: vector.maskedstore
// NOWS-LABEL: func.func @f32_out
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

// f32 output: chunks of 32 columns, d counts floats ((... & 15) / 4),
// positions ((c + d) & 31) ^ ((row & 7) * 4), units of four floats, eight
// a row; the rows' ends are the four elements of unit 0, two rounds of the
// 128 threads (element tid mod 4 of row tid / 4).

// CHECK-LABEL: func.func @f32_out
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<2x64x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[LOW:.+]] = arith.andi %{{.+}}, %c15 : index
// CHECK-NEXT: %[[D:.+]] = arith.divui %[[LOW]], %c4 : index
// CHECK-NEXT: %[[CD:.+]] = arith.addi %{{.+}}, %[[D]] : index
// CHECK-NEXT: %[[POS:.+]] = arith.andi %[[CD]], %c31 : index
// CHECK-NEXT: %[[R8:.+]] = arith.andi %[[ROW:[^,]+]], %c7 : index
// CHECK-NEXT: %[[X:.+]] = arith.muli %[[R8]], %c4 : index
// CHECK-NEXT: %[[SW:.+]] = arith.xori %[[POS]], %[[X]] : index
// CHECK-NEXT: memref.store %{{.+}}, %[[STAGE]][%c0, %[[ROW]], %[[SW]]]
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: vector.load %[[STAGE]][%c0, %{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<2x64x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.+}}, %arg2[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: %{{.+}} = arith.divui %thread_id_x, %c4 : index
// CHECK-NEXT: %{{.+}} = arith.remui %thread_id_x, %c4 : index
// CHECK-COUNT-2: memref.store %{{.+}}, %arg2[
// CHECK-NOT: memref.store %{{.+}}, %arg2[
// CHECK: memref.store %{{.+}}, %[[STAGE]][%c1,
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
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

// Where only one staging buffer fits (8 KiB more next to a 4-stage
// pipeline), the consumers meet before each chunk after the first
// overwrites it: the stores of the chunk before read it.

// CHECK-LABEL: func.func @one_buffer
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<1x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.+}}, %[[STAGE]][%c0,
// CHECK: nvvm.barrier
// CHECK: vector.load %[[STAGE]]
// CHECK: nvvm.barrier
// CHECK-NOT: vector.load
// CHECK-COUNT-32: memref.store %{{.+}}, %[[STAGE]][%c0,
// CHECK-NEXT: nvvm.barrier
// CHECK: vector.load %[[STAGE]]
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
