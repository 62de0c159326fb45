// The pipelined softmax example: persistent blocks (grid min(rows, GRID))
// walk their rows in a tile.pipelined loop whose row copies into shared
// memory are 16-byte cp.async issued two rows ahead (3 stages: one group
// left in flight at each wait), then the row is reduced with butterfly
// shuffles and written back as 8-byte vectors (4 halves of a 16-byte f32
// register vector); the registers hold 64
// values per thread without spilling. GRID, THREADS and STAGES are
// parameters (tile.params) that -D overrides.

// RUN: rm -rf %t && tile-compile %tile_src/examples/row_softmax_pipelined.mlir -o %t --no-cubin --chip sm_90a > /dev/null
// RUN: FileCheck %s --implicit-check-not=.local < %t/row_softmax_pipelined_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/row_softmax_pipelined_kernel.manifest
// RUN: tile-compile %tile_src/examples/row_softmax_pipelined.mlir -o %t/p2 --no-cubin --chip sm_90a \
// RUN:   -D GRID=264 -D THREADS=256 -D STAGES=4 > /dev/null
// RUN: FileCheck %s --check-prefix=OVERRIDE < %t/p2/row_softmax_pipelined_kernel.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST2 < %t/p2/row_softmax_pipelined_kernel.manifest

// CHECK: .visible .entry row_softmax_pipelined_kernel(
// CHECK: .maxntid 128, 1, 1
// CHECK: cp.async.cg.shared.global [{{.+}}], [{{.+}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK-NEXT: bar.sync 0;
// CHECK: shfl.sync.bfly
// CHECK: st.global.v2.b32
// CHECK: cp.async.wait_group 0;

// MANIFEST: block 128 1 1
// MANIFEST: grid x min(arg0.dim0, 396)

// OVERRIDE: .maxntid 256, 1, 1
// OVERRIDE: cp.async.wait_group 2;
// MANIFEST2: grid x min(arg0.dim0, 264)
