// tile-compile turns the bundled reverse kernel into PTX and a launch
// manifest whose grid is computed from the input's size; tile-run reads the
// manifest back and evaluates the grid for a ragged size without a GPU.

// RUN: rm -rf %t && tile-compile %tile_src/examples/reverse.mlir -o %t --no-cubin --chip sm_80 \
// RUN:   | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/reverse_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/reverse_kernel.manifest
// RUN: tile-run %t/reverse_kernel.manifest --dry-run --arg arg0=1000 --arg arg1=1000 \
// RUN:   | FileCheck %s --check-prefix=DRY

// OUT: tile-compile: reverse_kernel -> {{.*}}reverse_kernel.manifest (ptx)

// PTX: .target sm_80
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: .visible .entry reverse_kernel(
// PTX: .maxntid 128, 1, 1
// PTX: ld.global
// PTX: st.shared
// PTX: bar.sync 0;
// PTX: ld.shared
// PTX: st.global

// MANIFEST:      tile-launch-manifest 1
// MANIFEST:      kernel reverse_kernel
// MANIFEST-NEXT: binary reverse_kernel.ptx ptx
// MANIFEST-NEXT: index-bitwidth 64
// MANIFEST-NEXT: param arg0 memref<?xf32> descriptor
// MANIFEST-NEXT: param arg1 memref<?xf32> descriptor
// MANIFEST-NEXT: block 128 1 1
// MANIFEST-NEXT: shared 512
// MANIFEST-NEXT: grid x ceildiv(arg0.dim0, 128)
// MANIFEST-NEXT: grid y 1
// MANIFEST-NEXT: grid z 1

// DRY: grid 8 1 1
// DRY: block 128 1 1
// DRY: shared 512
// DRY: kernel arguments 10
