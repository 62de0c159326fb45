// A kernel that loads tiles with TMA from tensor maps made on the host: the
// manifest asks the runtime to encode each map from its memref argument,
// and the kernel takes each map as a 128-byte grid-constant parameter whose
// address goes to cp.async.bulk.tensor.
//
// %A backs two maps and is not otherwise a kernel argument (declared
// `none`); %B backs one map and is also read directly, after its map in the
// body, so the maps move behind the other parameters and %B is declared
// (as a descriptor) before its map. The kernel reaches %A only through its
// maps, which it loads from, so the runtime may stage it (`stage arg0 in`);
// not %B, whose data the kernel also reads through its pointer.

// RUN: rm -rf %t && tile-compile %s -o %t --chip sm_90a --no-cubin | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/tma_tiles_kernel.manifest
// RUN: FileCheck %s --check-prefix=PTX < %t/tma_tiles_kernel.ptx
// RUN: FileCheck %s --check-prefix=INPLACE < %t/tma_tiles_kernel.ptx
// RUN: tile-run %t/tma_tiles_kernel.manifest --dry-run --arg arg0=1000x512 \
// RUN:   --arg arg1=1000x64 --arg arg2=64x64 | FileCheck %s --check-prefix=ARGS

// CHECK: tile-compile: tma_tiles_kernel -> {{.*}}tma_tiles_kernel.manifest (ptx)

// MANIFEST:      kernel tma_tiles_kernel
// MANIFEST:      param arg2 memref<?x?xf16> descriptor
// MANIFEST-NEXT: param arg1 memref<?x?xf16> descriptor
// MANIFEST-NEXT: param arg0 memref<?x?xf16> none
// MANIFEST-NEXT: param arg0_tmap0 tensormap arg0 box 128x64 swizzle 128b interleave none l2 256b oob zero
// MANIFEST-NEXT: param arg0_tmap1 tensormap arg0 box 64x32 swizzle none interleave none l2 none oob nan
// MANIFEST-NEXT: param arg2_tmap0 tensormap arg2 box 64x32 swizzle 64b interleave none l2 128b oob zero
// MANIFEST-NEXT: stage arg0 in
// MANIFEST-NEXT: block 128 1 1
// MANIFEST-NEXT: shared 32768
// MANIFEST-NEXT: grid x ceildiv(arg1.dim0, 128)

// The runtime packs the manifest into the kernel's 17 parameters, the maps
// at the positions of the PTX's 128-byte ones.
// ARGS:      kernel arguments 17
// ARGS:      13 arg1.stride1: 8 bytes
// ARGS-NEXT: 14 arg0_tmap0: 128 bytes (tensor map)
// ARGS-NEXT: 15 arg0_tmap1: 128 bytes (tensor map)
// ARGS-NEXT: 16 arg2_tmap0: 128 bytes (tensor map)

// Two rank-2 memref descriptors (7 words each), then the three maps.
// PTX-LABEL: .entry tma_tiles_kernel(
// PTX:       .param .u64 tma_tiles_kernel_param_13,
// PTX-NEXT:  .param .align 64 .b8 tma_tiles_kernel_param_14[128],
// PTX-NEXT:  .param .align 64 .b8 tma_tiles_kernel_param_15[128],
// PTX-NEXT:  .param .align 64 .b8 tma_tiles_kernel_param_16[128]
// PTX-NEXT:  )
// PTX-DAG:   mov.b64 %rd[[P14:[0-9]+]], tma_tiles_kernel_param_14;
// PTX-DAG:   cvta.param.u64 %rd[[M14:[0-9]+]], %rd[[P14]];
// PTX-DAG:   mov.b64 %rd[[P15:[0-9]+]], tma_tiles_kernel_param_15;
// PTX-DAG:   cvta.param.u64 %rd[[M15:[0-9]+]], %rd[[P15]];
// PTX-DAG:   mov.b64 %rd[[P16:[0-9]+]], tma_tiles_kernel_param_16;
// PTX-DAG:   cvta.param.u64 %rd[[M16:[0-9]+]], %rd[[P16]];
// PTX-DAG:   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd[[M14]], {%r{{[0-9]+}}, %r{{[0-9]+}}}]
// PTX-DAG:   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd[[M15]], {%r{{[0-9]+}}, %r{{[0-9]+}}}]
// PTX-DAG:   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd[[M16]], {%r{{[0-9]+}}, %r{{[0-9]+}}}]

// The maps are used in place: never loaded from the parameter space nor
// copied to local memory.
// INPLACE-NOT: ld.param{{.*}}_param_1{{[456]}}
// INPLACE-NOT: __local_depot

!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!mapA2 = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = nan, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b, l2promo = l2promo_128b, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!shared = memref<?xi8, #gpu.address_space<workgroup>>

func.func @tma_tiles(%A: memref<?x?xf16>, %out: memref<?x?xf16>, %B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %smem = arith.constant 32768 : i32
  %ua = memref.cast %A : memref<?x?xf16> to memref<*xf16>
  %mapA = nvgpu.tma.create.descriptor %ua box[%c128, %c64] : memref<*xf16> -> !mapA
  %mapA2 = nvgpu.tma.create.descriptor %ua box[%c64, %c32] : memref<*xf16> -> !mapA2
  %ub = memref.cast %B : memref<?x?xf16> to memref<*xf16>
  %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c32] : memref<*xf16> -> !mapB
  %m = memref.dim %out, %c0 : memref<?x?xf16>
  %gx = arith.ceildivui %m, %c128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx1 = %gx, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %smem {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k128 = arith.constant 128 : index
    %o1 = arith.constant 16384 : index
    %o2 = arith.constant 20480 : index
    %bytes = arith.constant 24576 : index
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    %raw = gpu.dynamic_shared_memory : !shared
    %ta = memref.view %raw[%k0][] : !shared to memref<128x64xf16, #gpu.address_space<workgroup>>
    %ta2 = memref.view %raw[%o1][] : !shared to memref<64x32xf16, #gpu.address_space<workgroup>>
    %tb = memref.view %raw[%o2][] : !shared to memref<64x32xf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !bar
    %row = arith.muli %bx, %k128 : index
    nvgpu.mbarrier.init %bar[%k0], %k1 : !bar
    nvgpu.tma.async.load %mapA[%k0, %row], %bar[%k0] to %ta : !mapA, !bar -> memref<128x64xf16, #gpu.address_space<workgroup>>
    nvgpu.tma.async.load %mapA2[%k0, %row], %bar[%k0] to %ta2 : !mapA2, !bar -> memref<64x32xf16, #gpu.address_space<workgroup>>
    nvgpu.tma.async.load %mapB[%k0, %k0], %bar[%k0] to %tb : !mapB, !bar -> memref<64x32xf16, #gpu.address_space<workgroup>>
    nvgpu.mbarrier.arrive.expect_tx %bar[%k0], %bytes : !bar
    nvgpu.mbarrier.try_wait.parity %bar[%k0], %false, %ticks : !bar
    %a = memref.load %ta[%tx, %k0] : memref<128x64xf16, #gpu.address_space<workgroup>>
    %b = memref.load %B[%k0, %k0] : memref<?x?xf16>
    %s = arith.addf %a, %b : f16
    %r = arith.addi %row, %tx : index
    memref.store %s, %out[%r, %k0] : memref<?x?xf16>
    gpu.terminator
  }
  return
}
