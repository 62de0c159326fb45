// The one-pass softmax example, with every layout inferred: the row is
// loaded and stored as 16-byte vectors of halves, reduced with butterfly
// shuffles within warps and through shared memory across the 16 warps, and
// nothing spills to local memory.

// RUN: rm -rf %t && tile-compile %tile_src/examples/row_softmax_onepass.mlir -o %t --no-cubin --chip sm_90a > /dev/null
// RUN: FileCheck %s < %t/row_softmax_onepass_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/row_softmax_onepass_kernel.manifest

// CHECK: .visible .entry row_softmax_onepass_kernel(
// CHECK: .maxntid 512, 1, 1
// CHECK-NOT: .local
// CHECK: ld.global.v4.b32
// CHECK: shfl.sync.bfly
// CHECK: bar.sync 0;
// CHECK: st.global.v4.b32

// MANIFEST: block 512 1 1
// MANIFEST: grid x arg0.dim0
