// With ptxas present, tile-compile also assembles a cubin and the manifest
// names it; --time reports each phase.
// REQUIRES: ptxas

// RUN: rm -rf %t && tile-compile %tile_src/examples/reverse.mlir -o %t --chip sm_90a --time \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/reverse_kernel.manifest
// RUN: test -s %t/reverse_kernel.cubin

// CHECK: tile-compile: reverse_kernel -> {{.*}}reverse_kernel.manifest (cubin)
// CHECK: tile-compile: times: tile-to-gpu {{[0-9.]+}} ms, nvvm+ptx {{[0-9.]+}} ms, ptxas {{[0-9.]+}} ms, total {{[0-9.]+}} ms
// MANIFEST: binary reverse_kernel.cubin cubin
