// ptxas accepts the grid-constant tensor-map parameters and the bulk tensor
// copies that read them (the kernel of tensormap.mlir).
// REQUIRES: ptxas

// RUN: rm -rf %t && tile-compile %S/tensormap.mlir -o %t --chip sm_90a | FileCheck %s
// RUN: test -s %t/tma_tiles_kernel.cubin
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/tma_tiles_kernel.manifest

// CHECK: tile-compile: tma_tiles_kernel -> {{.*}}tma_tiles_kernel.manifest (cubin)
// MANIFEST: binary tma_tiles_kernel.cubin cubin
// MANIFEST: param arg0_tmap0 tensormap arg0 box 128x64
