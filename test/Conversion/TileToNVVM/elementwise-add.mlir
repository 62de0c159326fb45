// The bundled element-wise add through tile-lower and the NVVM pipeline:
// 16-byte vector loads and stores on the fast path (4 x b32 = 8 halves),
// the halves added in pairs, the fragments in registers (no local
// memory), and a manifest whose grid covers a ragged shape.

// RUN: rm -rf %t && tile-compile %tile_src/examples/elementwise_add.mlir -o %t --no-cubin --chip sm_80 \
// RUN:   | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/elementwise_add_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/elementwise_add_kernel.manifest
// RUN: tile-run %t/elementwise_add_kernel.manifest --dry-run --arg arg0=1000x1000 \
// RUN:   --arg arg1=1000x1000 --arg arg2=1000x1000 | FileCheck %s --check-prefix=DRY

// OUT: tile-compile: elementwise_add_kernel -> {{.*}}elementwise_add_kernel.manifest (ptx)

// PTX: .visible .entry elementwise_add_kernel(
// PTX: .maxntid 128, 1, 1
// PTX-NOT: .local
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: add.rn.f16x2
// PTX: st.global.v4.b32
// PTX-NOT: .local

// MANIFEST: block 128 1 1
// MANIFEST: grid x ceildiv(arg0.dim1, 128)
// MANIFEST: grid y ceildiv(arg0.dim0, 32)

// DRY: grid 8 32 1
// DRY: block 128 1 1
// DRY: shared 0
