// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower="chip=sm_90a persistent=true" -canonicalize -cse | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layout=chip=sm_90a \
// RUN:   -tile-lower=chip=sm_90a | FileCheck %s --check-prefix=OFF

// With `persistent`, the body of a kernel runs in a loop over the tiles of
// its grid, t = blockIdx.x, blockIdx.x + gridDim.x, ... below gx * gy: the
// block indices of tile t are (t mod gx, t / gx), then rasterized as the
// launch would have been (here: panels of 4 rows). The rasterize clause is
// consumed, and the kernel is marked for convert-tile-to-gpu.

// CHECK-LABEL: func.func @rasterized
// CHECK-SAME: (%[[GX:.+]]: index, %[[GY:.+]]: index, %[[OUT:.+]]: memref<?x?xi32>)
// CHECK: tile.kernel blocks(%{{.+}}, %{{.+}}) in (%[[GX]], %[[GY]]) threads(32) attributes {tile.lowered, tile.persistent} {
// CHECK: %[[TILES:.+]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %[[T:.+]] = %[[FIRST]] to %[[TILES]] step %[[STRIDE]] {
// CHECK-NEXT: %[[BX:.+]] = arith.remui %[[T]], %[[GX]] : index
// CHECK-NEXT: %[[BY:.+]] = arith.divui %[[T]], %[[GX]] : index
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %[[BY]], %[[GX]] : index
// CHECK-NEXT: %[[PID:.+]] = arith.addi %[[ROW]], %[[BX]] : index
// CHECK: %[[NEWY:.+]] = arith.addi
// CHECK-NEXT: %[[NEWX:.+]] = arith.divui
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]][%[[NEWY]], %[[NEWX]]]
// CHECK-NEXT: } {tile.tiles}

// OFF-LABEL: func.func @rasterized
// OFF: tile.kernel {{.*}} rasterize(panel = 4, order = row) attributes {tile.lowered} {
// OFF-NOT: scf.for
func.func @rasterized(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) rasterize(panel = 4, order = row) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// With `persistent(chunk = 2)` each block takes two consecutive tiles at a
// time where the grid has more tiles than blocks (one otherwise, so that
// no block idles while another has two): its s-th tile is
// (s / N) * gridDim.x * N + blockIdx.x * N + s % N, and the loop counts
// the block's tiles: the chunks of N it owns, the last cut short where the
// grid ends inside it. The clause is
// consumed with the kernel made persistent; where it is not, it stays for
// convert-tile-to-gpu, which ignores it.

// CHECK-LABEL: func.func @chunked
// CHECK-SAME: (%[[GX:.+]]: index, %[[GY:.+]]: index, %[[OUT:.+]]: memref<?x?xi32>)
// CHECK: tile.kernel blocks(%{{.+}}, %{{.+}}) in (%[[GX]], %[[GY]]) threads(32) attributes {tile.lowered, tile.persistent} {
// CHECK: %[[TILES:.+]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK-NEXT: %[[BLOCK:.+]] = gpu.block_id x
// CHECK-NEXT: %[[BLOCKS:.+]] = gpu.grid_dim x
// CHECK-NEXT: %[[MORE:.+]] = arith.cmpi ugt, %[[TILES]], %[[BLOCKS]] : index
// CHECK-NEXT: %[[N:.+]] = arith.select %[[MORE]], %c2, %c1 : index
// CHECK-NEXT: %[[CHUNKS:.+]] = arith.ceildivui %[[TILES]], %[[N]] : index
// CHECK: %[[OWNED:.+]] = arith.divui %{{.+}}, %[[BLOCKS]] : index
// CHECK: %[[COUNT:.+]] = arith.select %{{.+}}, %{{.+}}, %c0 : index
// CHECK-NEXT: scf.for %[[S:.+]] = %c0 to %[[COUNT]] step %c1 {
// CHECK-NEXT: %[[ROUND:.+]] = arith.divui %[[S]], %[[N]] : index
// CHECK-NEXT: %[[R:.+]] = arith.muli %[[ROUND]], %[[BLOCKS]] : index
// CHECK-NEXT: %[[CHUNK:.+]] = arith.addi %[[R]], %[[BLOCK]] : index
// CHECK-NEXT: %[[IN:.+]] = arith.remui %[[S]], %[[N]] : index
// CHECK-NEXT: %[[START:.+]] = arith.muli %[[CHUNK]], %[[N]] : index
// CHECK-NEXT: %[[T:.+]] = arith.addi %[[START]], %[[IN]] : index
// CHECK-NEXT: %[[BX:.+]] = arith.remui %[[T]], %[[GX]] : index
// CHECK-NEXT: %[[BY:.+]] = arith.divui %[[T]], %[[GX]] : index
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]][%[[BY]], %[[BX]]]
// CHECK-NEXT: } {tile.tiles}

// OFF-LABEL: func.func @chunked
// OFF: tile.kernel {{.*}} threads(32) persistent(chunk = 2) attributes {tile.lowered} {
// OFF-NOT: scf.for
// OFF: memref.store %{{.+}}, %{{.+}}[%by, %bx]
// OFF-NEXT: }
func.func @chunked(%gx: index, %gy: index, %out: memref<?x?xi32>) {
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(32) persistent(chunk = 2) {
    %c0 = arith.constant 0 : i32
    memref.store %c0, %out[%by, %bx] : memref<?x?xi32>
  }
  return
}

// -----

// A 3-d grid: x fastest, then y, then z. Allocations stay in front of the
// tile loop, and a barrier ends each tile of a kernel with shared memory.

// CHECK-LABEL: func.func @grid3
// CHECK: %[[Z:.+]] = memref.dim %{{.+}}, %c0
// CHECK-NEXT: %[[Y:.+]] = memref.dim %{{.+}}, %c1
// CHECK-NEXT: %[[X:.+]] = memref.dim %{{.+}}, %c2
// CHECK-NEXT: tile.kernel
// CHECK-NEXT: %[[S:.+]] = tile.alloc {{.*}} : memref<32xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[XY:.+]] = arith.muli %[[X]], %[[Y]] : index
// CHECK-NEXT: %[[TILES:.+]] = arith.muli %[[XY]], %[[Z]] : index
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[TILES]] step %{{.+}} {
// CHECK-NEXT: %[[BX:.+]] = arith.remui %[[T]], %[[X]] : index
// CHECK-NEXT: %[[R:.+]] = arith.divui %[[T]], %[[X]] : index
// CHECK-NEXT: %[[BY:.+]] = arith.remui %[[R]], %[[Y]] : index
// CHECK-NEXT: %[[BZ:.+]] = arith.divui %[[R]], %[[Y]] : index
// CHECK: memref.store %{{.+}}, %[[S]][%[[BX]]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[S]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[BZ]], %[[BY]], %[[BX]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tile.tiles}
func.func @grid3(%out: memref<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %out, %c0 : memref<?x?x?xi32>
  %d1 = memref.dim %out, %c1 : memref<?x?x?xi32>
  %d2 = memref.dim %out, %c2 : memref<?x?x?xi32>
  tile.kernel blocks(%bx, %by, %bz) in (%d2, %d1, %d0) threads(32) {
    %s = tile.alloc : memref<32xi32, #gpu.address_space<workgroup>>
    %v = arith.constant 1 : i32
    %i = arith.index_cast %bx : index to i32
    memref.store %i, %s[%bx] : memref<32xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%c0] : memref<32xi32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%bz, %by, %bx] : memref<?x?x?xi32>
  }
  return
}

// -----

// A warp-specialized GEMM (128x128x64 tiles, 3 stages, TMA stores). The
// consumers and the producer's issuing thread each loop over the block's
// tiles, carrying the number of K steps of the earlier tiles: iteration i
// of a tile is n = before + i for both, so slot n mod 3 and phase
// (n / 3) mod 2 run on across tiles and the producer fills the next
// tile's slots as soon as the consumers release them. The first use of
// each staging buffer in a tile first waits until the earlier tile's
// store from it has read it (at most one store still reading: the other
// buffer's); the final wait for every store follows the tile loop.

// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel {{.*}}attributes {tile.lowered, tile.persistent, tile.producer_threads = 128 : i64}
// CHECK: %[[STAGE:.+]] = tile.alloc : memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: %[[TILES:.+]] = arith.muli
// CHECK-NEXT: %[[FIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[STRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %[[T:.+]] = %[[FIRST]] to %[[TILES]] step %[[STRIDE]] iter_args(%[[BEFORE:.+]] = %c0) -> (index) {
// CHECK: %[[TRIPS:.+]] = arith.select
// CHECK-NEXT: scf.for %[[I:.+]] = %c0 to %[[TRIPS]] step %c1 {
// CHECK-NEXT: %[[N:.+]] = arith.addi %[[BEFORE]], %[[I]] : index
// CHECK-NEXT: %[[SLOT:.+]] = arith.remui %[[N]], %c3 : index
// CHECK-NEXT: %[[ROUND:.+]] = arith.divui %[[N]], %c3 : index
// CHECK-NEXT: %[[PARITY:.+]] = arith.remui %[[ROUND]], %c2 : index
// CHECK-NEXT: %[[PHASE:.+]] = arith.index_castui %[[PARITY]] : index to i32
// CHECK-NEXT: %[[FULL:.+]] = arith.muli %[[SLOT]], %c8 : index
// CHECK: nvvm.mbarrier.try_wait.parity %{{.+}}, %[[PHASE]], %{{.+}}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: vector.store %{{.+}}, %[[STAGE]][%c0,
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: vector.store %{{.+}}, %[[STAGE]][%c1,
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: %[[AFTER:.+]] = arith.addi %[[BEFORE]], %[[TRIPS]] : index
// CHECK-NEXT: scf.yield %[[AFTER]] : index
// CHECK-NEXT: } {tile.tiles}
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: scf.if
// CHECK-NEXT: %[[PFIRST:.+]] = gpu.block_id x
// CHECK-NEXT: %[[PTILES:.+]] = arith.muli
// CHECK-NEXT: %[[PSTRIDE:.+]] = gpu.grid_dim x
// CHECK-NEXT: scf.for %{{.+}} = %[[PFIRST]] to %[[PTILES]] step %[[PSTRIDE]] iter_args(%[[PBEFORE:.+]] = %c0) -> (index) {
// CHECK: %[[COUNT:.+]] = arith.select
// CHECK-NEXT: scf.for %[[J:.+]] = %c0 to %[[COUNT]] step %c1 {
// CHECK-NEXT: %[[M:.+]] = arith.addi %[[PBEFORE]], %[[J]] : index
// CHECK-NEXT: %[[PSLOT:.+]] = arith.remui %[[M]], %c3 : index
// CHECK-NEXT: %[[PROUND:.+]] = arith.divui %[[M]], %c3 : index
// CHECK-NEXT: %[[PPARITY:.+]] = arith.remui %[[PROUND]], %c2 : index
// CHECK-NEXT: %[[PCAST:.+]] = arith.index_castui %[[PPARITY]] : index to i32
// CHECK-NEXT: %[[FLIP:.+]] = arith.xori %[[PCAST]], %c1_i32 : i32
// CHECK-NEXT: %[[EMPTY:.+]] = arith.addi %[[PSLOT]], %c3 : index
// CHECK: nvvm.mbarrier.try_wait.parity %{{.+}}, %[[FLIP]], %{{.+}}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NEXT: }
// CHECK-NEXT: %[[PAFTER:.+]] = arith.addi %[[PBEFORE]], %[[COUNT]] : index
// CHECK-NEXT: scf.yield %[[PAFTER]] : index
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } {tile.consumers}

// OFF-LABEL: func.func @gemm
// OFF-NOT: tile.tiles
// OFF: scf.if
// OFF: nvvm.setmaxregister increase 232
// OFF-NOT: iter_args
// OFF: } {tile.consumers}
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c128 : index
  %steps = arith.ceildivui %K, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(256) {
    %As = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>
    tile.clear %Cf : memref<128x128xf32, #tile.fragment>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %steps step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs -> %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf -> %C[%m, %n] : memref<128x128xf32, #tile.fragment> -> memref<?x?xf16>
  }
  return
}

// -----

// Warp-specialized and persistent, with readers in two stages (the
// FlashAttention schedule) and a copy before the loop that only the loop
// reads (Q). Each tile's consumers run their own prologue, steady and
// epilogue loops, numbering slots and phases from the iterations of the
// block's earlier tiles (the tile loop carries them). Q is loaded by the
// producer for every tile, on a barrier of its own (the seventh: three
// slots of full and empty first), whose phase is the parity of the
// block's tile count; the consumers release it on an eighth barrier once
// its readers, which run in the first stage, are done: before the steps
// that run only the second stage's readers (P·V of the last block) and
// the tile's epilogue. The producer waits for
// that release before loading the next tile's Q, after that tile's first K
// and V (which need only a free slot), and fetches the following tile's Q
// into L2 as each tile starts.

// CHECK-LABEL: func.func @attention_tiles
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// Consumers.
// CHECK: scf.for %[[T:.+]] = %[[FIRST:.+]] to %{{.+}} step %[[STRIDE:.+]] iter_args(%[[BEFORE:.+]] = %c0) -> (index) {
// CHECK: %[[DIFF:.+]] = arith.subi %[[T]], %[[FIRST]] : index
// CHECK-NEXT: %[[Q:.+]] = arith.divui %[[DIFF]], %[[STRIDE]] : index
// CHECK-NEXT: %[[PAR:.+]] = arith.remui %[[Q]], %c2 : index
// CHECK-NEXT: %[[PHASE:.+]] = arith.index_castui %[[PAR]] : index to i32
// CHECK: %[[QFULL:.+]] = arith.addi %[[BASE:.+]], %c48 : index
// CHECK: nvvm.mbarrier.try_wait.parity %{{.+}}, %[[PHASE]]
// Prologue, steady state and epilogue of the tile, slots counted from
// the earlier tiles' iterations.
// CHECK: scf.for
// CHECK: arith.addi %[[BEFORE]], %{{.+}} : index
// CHECK: scf.for
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// wgmma reads Q, K and V through the async proxy, as TMA writes them: no
// proxy fence before the releases.
// CHECK-NOT: nvvm.fence.proxy
// CHECK: %[[QEMPTY:.+]] = arith.addi %[[BASE]], %c56 : index
// CHECK: nvvm.mbarrier.arrive
// CHECK-NEXT: scf.for
// CHECK: } {tile.tiles}
// Producer.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for %[[PT:.+]] = %[[PFIRST:.+]] to %[[PLAST:.+]] step %[[PSTRIDE:.+]] iter_args
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[PT]], %[[PSTRIDE]] : index
// CHECK-NEXT: %[[AHEAD:.+]] = arith.cmpi ult, %[[NEXT]], %[[PLAST]] : index
// CHECK-NEXT: scf.if %[[AHEAD]] {
// CHECK-NEXT: %[[NQ:.+]] = arith.muli %[[NEXT]], %c128 : index
// CHECK: nvvm.cp.async.bulk.tensor.prefetch %{{.+}}, box[%c0_i32, %{{.+}}]
// A tile without iterations loads Q alone.
// CHECK: %[[NONE:.+]] = arith.cmpi eq, %[[COUNT:.+]], %c0 : index
// CHECK-NEXT: scf.if %[[NONE]] {
// CHECK: arith.xori %{{.+}}, %c1_i32 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Otherwise Q follows the tile's first K and V.
// CHECK: scf.for %[[I:.+]] = %c0 to %[[COUNT]] step %c1 {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[FIRSTSTEP:.+]] = arith.cmpi eq, %[[I]], %c0 : index
// CHECK-NEXT: scf.if %[[FIRSTSTEP]] {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
func.func @attention_tiles(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf16>, %n: index, %gx: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%gx) threads(256) {
    %Qs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #tile.fragment>
    %P = tile.alloc : memref<128x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<128x64xf32, #tile.fragment>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, %c0] -> %Qs : memref<?x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Of : memref<128x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %n step %c1 stages(3) order [0, 1, 2, 4, 3] stage [0, 0, 1, 1, 2] {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0] -> %Vs : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row) : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.parallel (%i, %jj) in (128, 64) {
        %s = memref.load %S[%i, %jj] : memref<128x64xf32, #tile.fragment>
        %p = arith.truncf %s : f32 to f16
        memref.store %p, %P[%i, %jj] : memref<128x64xf16, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row) : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%q0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x64xf16>
  }
  return
}

// -----

// The same with both gemms on mma.sync, whose ldmatrix reads go through
// the generic proxy: each release of a slot, and of Q for the next tile,
// is preceded by the proxy fence that orders those reads before the
// producer's TMA writes into the same buffers.

// CHECK-LABEL: func.func @attention_tiles_mma_sync
// CHECK: nvgpu.mma.sync
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: %[[QEMPTY2:.+]] = arith.addi %{{.+}}, %c56 : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: } {tile.tiles}
func.func @attention_tiles_mma_sync(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf16>, %n: index, %gx: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%gx) threads(256) {
    %Qs = tile.alloc : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<128x64xf32, #tile.fragment>
    %P = tile.alloc : memref<128x64xf16, #tile.fragment>
    %Of = tile.alloc : memref<128x64xf32, #tile.fragment>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, %c0] -> %Qs : memref<?x64xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.clear %Of : memref<128x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %n step %c1 stages(3) order [0, 1, 2, 4, 3] stage [0, 0, 1, 1, 2] {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0] -> %Ks : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0] -> %Vs : memref<?x64xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row)
          {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
      tile.parallel (%i, %jj) in (128, 64) {
        %s = memref.load %S[%i, %jj] : memref<128x64xf32, #tile.fragment>
        %p = arith.truncf %s : f32 to f16
        memref.store %p, %P[%i, %jj] : memref<128x64xf16, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row)
          {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>} : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%q0, %c0] : memref<128x64xf32, #tile.fragment> -> memref<?x64xf16>
  }
  return
}
