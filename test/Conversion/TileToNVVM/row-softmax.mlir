// The bundled row softmax through tile-lower and the NVVM pipeline: one
// warp per row, 16-byte loads of 8 halves, row max and row sum as five
// xor shuffles each, no shared memory and no barrier, registers only.

// RUN: rm -rf %t && tile-compile %tile_src/examples/row_softmax.mlir -o %t --no-cubin --chip sm_80 \
// RUN:   | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/row_softmax_kernel.ptx
// RUN: FileCheck %s --check-prefix=SHFL --implicit-check-not=shfl.sync < %t/row_softmax_kernel.ptx
// RUN: tile-run %t/row_softmax_kernel.manifest --dry-run --arg arg0=4097x33 \
// RUN:   --arg arg1=4097x33 | FileCheck %s --check-prefix=DRY

// OUT: tile-compile: row_softmax_kernel -> {{.*}}row_softmax_kernel.manifest (ptx)

// PTX: .visible .entry row_softmax_kernel(
// PTX-NOT: .local
// PTX-NOT: bar.sync
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: max.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX: {{ex2.approx|__nv_expf}}
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: add.rn.f32
// PTX: st.global.v4.b32
// PTX-NOT: bar.sync

// SHFL-COUNT-10: shfl.sync.bfly.b32

// DRY: grid 1025 1 1
// DRY: block 128 1 1
