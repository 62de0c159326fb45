// RUN: tile-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the tile operations' verifiers and custom
// parsers, plus malformed input that must be rejected with a diagnostic
// (never a crash): wrong generic forms, unranked memrefs, bad attributes.

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

// A tile operator outside any kernel.
func.func @alloc_outside_kernel() {
  // expected-error @+1 {{'tile.alloc' op expected to be nested in a 'tile.kernel'}}
  %a = tile.alloc : memref<4xf32, #tile.fragment>
  return
}

// -----

// A tile operator in a function that a kernel calls is still outside the
// kernel.
func.func @helper(%buf: memref<4xf32, #tile.fragment>) {
  // expected-error @+1 {{'tile.clear' op expected to be nested in a 'tile.kernel'}}
  tile.clear %buf : memref<4xf32, #tile.fragment>
  return
}
func.func @caller(%n: index, %buf: memref<4xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    func.call @helper(%buf) : (memref<4xf32, #tile.fragment>) -> ()
  }
  return
}

// -----

// An isolated-from-above op nested in a kernel body does not run in the
// launch context.
func.func @isolated_in_kernel(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    builtin.module {
      // expected-error @+1 {{'tile.alloc' op expected to be nested in a 'tile.kernel'}}
      %a = "tile.alloc"() : () -> memref<4xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A tile operator in the body of a tile.parallel.
func.func @tile_op_in_parallel(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<4x4xf32, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (4) {
      // expected-error @+1 {{'tile.clear' op cannot be used in the body of a 'tile.parallel', which runs once per element}}
      tile.clear %s : memref<4x4xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A nested tile.parallel is a tile operator in the body too.
func.func @parallel_in_parallel(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (4) {
      scf.execute_region {
        // expected-error @+1 {{'tile.parallel' op cannot be used in the body of a 'tile.parallel'}}
        tile.parallel (%j) in (4) {
        }
        scf.yield
      }
    }
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.kernel: custom parser
//===----------------------------------------------------------------------===//

// -----

// Block indices and grid extents must pair up.
func.func @kernel_ids_mismatch(%n: index) {
  // expected-error @+1 {{expected as many block indices as grid extents, got 2 and 1}}
  tile.kernel blocks(%x, %y) in (%n) threads(128) {
  }
  return
}

// -----

// Grid extents are index values.
func.func @kernel_grid_type(%n: i32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  tile.kernel blocks(%x) in (%n) threads(128) {
  }
  return
}

// -----

func.func @kernel_bad_raster_order(%n: index) {
  // expected-error @+1 {{expected raster order 'row' or 'column', got 'diagonal'}}
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 4, order = diagonal) {
  }
  return
}

// -----

func.func @kernel_missing_threads(%n: index) {
  // expected-error @+1 {{expected 'threads'}}
  tile.kernel blocks(%x) in (%n) {
  }
  return
}

// -----

func.func @kernel_huge_threads(%n: index) {
  // expected-error @+1 {{integer value too large}}
  tile.kernel blocks(%x) in (%n) threads(99999999999999999999999) {
  }
  return
}

// -----

// An inherent attribute of the wrong kind in the attribute dictionary is an
// error, not silently dropped.
func.func @kernel_dict_bad_cluster(%n: index) {
  // expected-error @+1 {{attribute 'cluster' failed to satisfy constraint: i64 dense array attribute}}
  tile.kernel blocks(%x) in (%n) threads(128) attributes {cluster = 5 : i64} {
  }
  return
}

// -----

func.func @kernel_dict_duplicate_threads(%n: index) {
  // expected-error @+1 {{attribute 'threads' occurs more than once in the attribute list}}
  tile.kernel blocks(%x) in (%n) threads(128) attributes {threads = 64 : i64} {
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.kernel: verifier
//===----------------------------------------------------------------------===//

// -----

func.func @kernel_nested(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.kernel' op cannot be nested in another 'tile.kernel'}}
    tile.kernel blocks(%y) in (%n) threads(128) {
    }
  }
  return
}

// -----

%n = arith.constant 1 : index
// expected-error @+1 {{'tile.kernel' op expected to be nested in a function, which launches it}}
tile.kernel blocks(%x) in (%n) threads(32) {
}

// -----

func.func @kernel_grid_rank(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected a grid of 1 to 3 dimensions, got 4}}
  tile.kernel blocks(%a, %b, %c, %d) in (%n, %n, %n, %n) threads(128) {
  }
  return
}

// -----

// A kernel without grid extents, in generic form (the custom form leaves its
// region without a block).
func.func @kernel_no_grid() {
  // expected-error @+1 {{'tile.kernel' op expected a grid of 1 to 3 dimensions, got 0}}
  "tile.kernel"() <{threads = 128 : i64}> ({
  ^bb0:
  }) : () -> ()
  return
}

// -----

func.func @kernel_zero_threads(%n: index) {
  // expected-error @+1 {{expected a positive thread count, got 0}}
  tile.kernel blocks(%x) in (%n) threads(0) {
  }
  return
}

// -----

func.func @kernel_generic_zero_threads(%n: index) {
  // expected-error @+1 {{'tile.kernel' op attribute 'threads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  "tile.kernel"(%n) <{threads = 0 : i64}> ({
  ^bb0(%x: index):
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_too_many_threads(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected at most 1024 threads per block, got 2048}}
  tile.kernel blocks(%x) in (%n) threads(2048) {
  }
  return
}

// -----

func.func @kernel_rasterize_1d(%n: index) {
  // expected-error @+1 {{'tile.kernel' op rasterize needs a grid of at least 2 dimensions}}
  tile.kernel blocks(%bx) in (%n) threads(128) rasterize(panel = 4) {
  }
  return
}

// -----

// rasterize_order only exists in the generic form without a panel.
func.func @kernel_order_without_panel(%n: index) {
  // expected-error @+1 {{'tile.kernel' op rasterize_order requires rasterize_panel}}
  "tile.kernel"(%n, %n) <{threads = 128 : i64, rasterize_order = #tile<raster_order row>}> ({
  ^bb0(%x: index, %y: index):
  }) : (index, index) -> ()
  return
}

// -----

func.func @kernel_rasterize_panel(%n: index) {
  // expected-error @+1 {{expected a positive rasterize panel, got 0}}
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) rasterize(panel = 0) {
  }
  return
}

// -----

func.func @kernel_persistent_chunk(%n: index) {
  // expected-error @+1 {{expected a positive persistent chunk, got 0}}
  tile.kernel blocks(%x) in (%n) threads(128) persistent(chunk = 0) {
  }
  return
}

// -----

func.func @kernel_persistent_blocks(%n: index) {
  // expected-error @+1 {{expected persistent blocks 'resident' or 'prime', got 'all'}}
  tile.kernel blocks(%x) in (%n) threads(128) persistent(blocks = all) {
  }
  return
}

// -----

func.func @kernel_persistent_twice(%n: index) {
  // expected-error @+1 {{'chunk' given twice in the persistent clause}}
  tile.kernel blocks(%x) in (%n) threads(128) persistent(chunk = 2, chunk = 4) {
  }
  return
}

// -----

func.func @kernel_persistent_empty(%n: index) {
  // expected-error @+1 {{expected 'chunk' or 'blocks' in the persistent clause}}
  tile.kernel blocks(%x) in (%n) threads(128) persistent() {
  }
  return
}

// -----

func.func @kernel_persistent_chunk_huge(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected a persistent chunk in [1, 2147483647], got 4294967296}}
  tile.kernel blocks(%x) in (%n) threads(128) persistent(chunk = 4294967296) {
  }
  return
}

// -----

func.func @kernel_zero_grid() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.kernel' op expected grid extent 0 in [1, 2147483647], got 0}}
  tile.kernel blocks(%x) in (%c0) threads(128) {
  }
  return
}

// -----

func.func @kernel_grid_y_too_large(%n: index) {
  %big = arith.constant 65536 : index
  // expected-error @+1 {{'tile.kernel' op expected grid extent 1 in [1, 65535], got 65536}}
  tile.kernel blocks(%x, %y) in (%n, %big) threads(128) {
  }
  return
}

// -----

func.func @kernel_cluster_empty(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected a cluster of 1 to 3 dimensions, got 0}}
  tile.kernel blocks(%x) in (%n) threads(128) cluster() {
  }
  return
}

// -----

func.func @kernel_cluster_rank(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected cluster extent 1 along dimension 1, which the grid of 1 dimensions lacks, got 2}}
  tile.kernel blocks(%x) in (%n) threads(128) cluster(1, 2) {
  }
  return
}

// -----

func.func @kernel_cluster_extent(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected cluster extents in [1, 16], got 0}}
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) cluster(2, 0) {
  }
  return
}

// -----

func.func @kernel_cluster_divides_grid() {
  %c6 = arith.constant 6 : index
  // expected-error @+1 {{'tile.kernel' op expected grid extent 0 (6) to be a multiple of the cluster extent 4}}
  tile.kernel blocks(%x) in (%c6) threads(128) cluster(4) {
  }
  return
}

// -----

func.func @kernel_cluster_size(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected a cluster of at most 16 blocks, got 32}}
  tile.kernel blocks(%x, %y) in (%n, %n) threads(128) cluster(4, 8) {
  }
  return
}

// -----

func.func @kernel_empty_region(%n: index) {
  // expected-error @+1 {{'tile.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_two_blocks(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expects region #0 to have 0 or 1 blocks}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%x: index):
  ^bb1:
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_no_block_ids(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected 1 block-index arguments, got 0}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0:
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_block_id_type(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expected block indices of type index, got 'i32'}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%x: i32):
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_generic_no_threads(%n: index) {
  // expected-error @+1 {{'tile.kernel' op requires attribute 'threads'}}
  "tile.kernel"(%n) ({
  ^bb0(%x: index):
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_generic_bad_threads(%n: index) {
  // expected-error @+1 {{invalid properties {threads = "x"} for op tile.kernel}}
  "tile.kernel"(%n) <{threads = "x"}> ({
  ^bb0(%x: index):
  }) : (index) -> ()
  return
}

// -----

// Scalars a kernel captures become kernel parameters, which PTX has of 8
// to 64 bits.
func.func @kernel_captures_i4(%n: index, %v: i4) {
  // expected-error @+1 {{'tile.kernel' op captures a value of type 'i4', which cannot be a kernel parameter; pass i8, i16, i32 or i64 and convert it inside the kernel}}
  tile.kernel blocks(%x) in (%n) threads(8) {
    %f = tile.alloc : memref<4x4xi4, #gpu.address_space<workgroup>>
    // expected-note @+1 {{used here}}
    tile.fill %f, %v : memref<4x4xi4, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A value used before its definition, which a region nested in a later
// operation makes: the verifiers report the broken region instead of the
// capture check crashing on a value that is in no region yet.
func.func @kernel_use_before_def(%n: index, %i: index) {
  // expected-error @+1 {{block with no terminator}}
  tile.kernel blocks(%bx) in (%n) threads(128) {
    scf.if %inside {
    }
    scf.if %inside {
    %inside = arith.cmpi ult, %i, %n : index
    }
  }
}

//===----------------------------------------------------------------------===//
// tile.alloc
//===----------------------------------------------------------------------===//

// -----

func.func @alloc_unsigned(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported element type 'ui32' for the allocation: integer element types must be signless (i32)}}
    %a = tile.alloc : memref<2x4xui32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_tf32(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported element type 'tf32' for the allocation: tf32 cannot be stored; use f32 (tile.gemm computes f32 operands as tf32)}}
    %a = tile.alloc : memref<64x32xtf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_global(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a shared, fragment or local memory space, got global 'memref<4xf32>'}}
    %a = tile.alloc : memref<4xf32>
  }
  return
}

// -----

func.func @alloc_unsupported_space(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported memory space 3 : i64 for the allocation 'memref<4xf32, 3>'}}
    %a = tile.alloc : memref<4xf32, 3>
  }
  return
}

// -----

// A fragment layout is not a memory space.
func.func @alloc_fragment_layout_as_space(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported memory space #tile.fragment<threads = 128, map = (d0) -> (d0, 0)> for the allocation}}
    %a = tile.alloc : memref<4xf32, #tile.fragment<threads = 128, map = (d0) -> (d0, 0)>>
  }
  return
}

// -----

func.func @alloc_dynamic(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected the allocation to have a static shape, got 'memref<?xf32, #gpu.address_space<workgroup>>'}}
    %a = tile.alloc : memref<?xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_element_type(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported element type 'vector<4xf32>' for the allocation}}
    %a = tile.alloc : memref<4xvector<4xf32>, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_zero_extent(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected non-zero extents, got 'memref<0x4xf32, #tile.fragment>'}}
    %a = tile.alloc : memref<0x4xf32, #tile.fragment>
  }
  return
}

// -----

// Sizes whose byte count would overflow are rejected, not wrapped.
func.func @alloc_too_large(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected an allocation of less than 2 GiB, got 'memref<4294967296x4294967296xf32, #gpu.address_space<workgroup>>'}}
    %a = tile.alloc : memref<4294967296x4294967296xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_strided(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected an identity memref layout, got 'memref<4x4xf32, strided<[8, 1]>, #gpu.address_space<workgroup>>'; on-chip layouts go in the 'layout' attribute}}
    %a = tile.alloc : memref<4x4xf32, strided<[8, 1]>, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_fragment_layout_on_shared(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op a fragment layout needs a fragment buffer, got shared 'memref<4xf32, #gpu.address_space<workgroup>>'}}
    %a = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0, 0)>} : memref<4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_bare_fragment_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a fragment layout with a map, got the bare memory space #tile.fragment}}
    %a = tile.alloc {layout = #tile.fragment} : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_fragment_layout_rank(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a fragment layout over 2 dimensions, got 1}}
    %a = tile.alloc {layout = #tile.fragment<threads = 128, map = (d0) -> (d0, 0)>} : memref<4x4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_fragment_layout_threads(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op fragment layout is for 256 threads, but the kernel has 128}}
    %a = tile.alloc {layout = #tile.fragment<threads = 256, map = (d0) -> (d0, 0)>} : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_memory_layout_on_fragment(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op a fragment buffer needs a #tile.fragment layout, got #tile.layout<(d0) -> (d0)>}}
    %a = tile.alloc {layout = #tile.layout<(d0) -> (d0)>} : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_layout_rank(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a layout over 2 dimensions, got 1}}
    %a = tile.alloc {layout = #tile.layout<(d0) -> (d0)>} : memref<4x4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_garbage_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a #tile.layout or #tile.fragment layout, got 3 : i64}}
    %a = tile.alloc {layout = 3 : i64} : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_not_memref(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op result #0 must be memref of any type values, but got 'i32'}}
    %a = "tile.alloc"() : () -> i32
  }
  return
}

// -----

func.func @alloc_unranked(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{invalid kind of type specified: expected builtin.memref, but found 'memref<*xf32>'}}
    %a = tile.alloc : memref<*xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.copy
//===----------------------------------------------------------------------===//

// -----

// Global memory is written without a memory space.
func.func @copy_explicit_global(%n: index, %g: memref<64xf16, #gpu.address_space<global>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op unsupported memory space #gpu.address_space<global> for the source 'memref<64xf16, #gpu.address_space<global>>'}}
    tile.copy %g -> %s : memref<64xf16, #gpu.address_space<global>> -> memref<64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_signed(%n: index, %g: memref<64xsi8>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op unsupported element type 'si8' for the source: integer element types must be signless (i8)}}
    tile.copy %g -> %s : memref<64xsi8> -> memref<64xi8, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_unsupported_space(%n: index, %a: memref<4xf32, 5>, %b: memref<4xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op unsupported memory space 5 : i64 for the source 'memref<4xf32, 5>'}}
    tile.copy %a -> %b : memref<4xf32, 5> -> memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_unsupported_dst_space(%n: index, %a: memref<4xf32, #tile.fragment>, %b: memref<4xf32, 2>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op unsupported memory space 2 : i64 for the destination}}
    tile.copy %a -> %b : memref<4xf32, #tile.fragment> -> memref<4xf32, 2>
  }
  return
}

// -----

func.func @copy_element_type(%n: index, %a: memref<4xcomplex<f32>>, %b: memref<4xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op unsupported element type 'complex<f32>' for the source}}
    tile.copy %a -> %b : memref<4xcomplex<f32>> -> memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_indices_on_both(%n: index, %a: memref<64xf32>, %b: memref<16xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op expected indices on at most one of the source and the destination; the tile's extent is the shape of the other}}
    tile.copy %a[%x] -> %b[%x] : memref<64xf32> -> memref<16xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_shape_mismatch(%n: index, %a: memref<128x32xf16>, %b: memref<32x128xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op expected source and destination of the same shape, got 128x32 and 32x128}}
    tile.copy %a -> %b : memref<128x32xf16> -> memref<32x128xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_dynamic_tile(%n: index, %a: memref<?x?xf32>, %b: memref<?x?xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op expected a static tile shape}}
    tile.copy %a -> %b : memref<?x?xf32> -> memref<?x?xf32>
  }
  return
}

// -----

func.func @copy_dynamic_extent(%n: index, %a: memref<?x?xf32>, %b: memref<?x32xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op the tile's extent is the shape of the destination, which must be static, got 'memref<?x32xf32>'}}
    tile.copy %a[%x, %x] -> %b : memref<?x?xf32> -> memref<?x32xf32>
  }
  return
}

// -----

func.func @copy_index_count(%n: index, %a: memref<8x1024x1024xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expected 3 indices for the source of rank 3, got 2}}
    tile.copy %a[%x, %x] -> %s : memref<8x1024x1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_rank_too_small(%n: index, %a: memref<1024xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expected the source (rank 1) to have at least the rank of the tile (128x32)}}
    tile.copy %a[%x] -> %s : memref<1024xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_tile_does_not_fit(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<128x32xf16, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op tile of 128x32 does not fit in the source 'memref<64x32xf16, #gpu.address_space<workgroup>>' along dimension 0}}
    tile.copy %s[%x, %x] -> %f : memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<128x32xf16, #tile.fragment>
  }
  return
}

// -----

func.func @copy_out_of_bounds(%n: index) {
  %c48 = arith.constant 48 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<32x32xf16, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op tile of extent 32 at index 48 along dimension 0 is out of bounds of the destination, which has 64 elements}}
    tile.copy %f -> %s[%c48, %c0] : memref<32x32xf16, #tile.fragment> -> memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A huge constant index must not wrap around in the bounds check.
func.func @copy_out_of_bounds_overflow(%n: index) {
  %big = arith.constant 9223372036854775807 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<32x32xf16, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op tile of extent 32 at index 9223372036854775807 along dimension 0 is out of bounds of the source, which has 64 elements}}
    tile.copy %s[%big, %c0] -> %f : memref<64x32xf16, #gpu.address_space<workgroup>> -> memref<32x32xf16, #tile.fragment>
  }
  return
}

// -----

// A negative constant index.
func.func @copy_negative_index(%n: index) {
  %m1 = arith.constant -1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc : memref<32xf16, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op tile of extent 32 at index -1 along dimension 0 is out of bounds of the source, which has 64 elements}}
    tile.copy %s[%m1] -> %f : memref<64xf16, #gpu.address_space<workgroup>> -> memref<32xf16, #tile.fragment>
  }
  return
}

// -----

func.func @copy_bad_segments(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op operand count (2) does not match with the total size (4) specified in attribute 'operandSegmentSizes'}}
    "tile.copy"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (memref<16xf16>, memref<16xf16, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

func.func @copy_short_segments(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{size mismatch in attribute conversion: 2 vs 4}}
    "tile.copy"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<16xf16>, memref<16xf16, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

func.func @copy_negative_segments(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op 'operandSegmentSizes' attribute cannot have negative elements}}
    "tile.copy"(%a, %b) <{operandSegmentSizes = array<i32: 1, -1, 1, 1>}> : (memref<16xf16>, memref<16xf16, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

func.func @copy_missing_segments(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op operand count (2) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
    "tile.copy"(%a, %b) : (memref<16xf16>, memref<16xf16, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

// Segment sizes that add up but put an index where a memref belongs.
func.func @copy_segments_misplaced(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op operand #1 must be memref of any type values, but got 'index'}}
    "tile.copy"(%a, %n, %b) <{operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (memref<16xf16>, index, memref<16xf16, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

func.func @copy_tensor(%n: index, %a: tensor<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{invalid kind of type specified: expected builtin.memref, but found 'tensor<16xf16>'}}
    tile.copy %a -> %b : tensor<16xf16> -> memref<16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_bad_coalesced_width(%n: index, %a: memref<16xf16>, %b: memref<16xf16, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.copy' op attribute 'coalesced_width' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    tile.copy %a -> %b {coalesced_width = 0 : i64} : memref<16xf16> -> memref<16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_coalesced_width_divides(%n: index, %a: memref<64x64xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x4xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expected coalesced_width (8) to divide the tile's innermost extent (4)}}
    tile.copy %a[%x, %x] -> %s {coalesced_width = 8 : i64} : memref<64x64xf16> -> memref<16x4xf16, #gpu.address_space<workgroup>>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.fill / tile.clear
//===----------------------------------------------------------------------===//

// -----

func.func @fill_global(%n: index, %g: memref<16xf32>) {
  %v = arith.constant 1.0 : f32
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.fill' op expected the buffer to be an on-chip buffer (shared, fragment or local), got global 'memref<16xf32>'}}
    tile.fill %g, %v : memref<16xf32>
  }
  return
}

// -----

func.func @fill_value_type(%n: index, %b: memref<4xf32, #gpu.address_space<workgroup>>, %v: f16) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.fill' op failed to verify that value type matches the buffer's element type}}
    "tile.fill"(%b, %v) : (memref<4xf32, #gpu.address_space<workgroup>>, f16) -> ()
  }
  return
}

// -----

func.func @fill_missing_value(%n: index, %b: memref<4xf32, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.fill' op expected 2 operands, but found 1}}
    "tile.fill"(%b) : (memref<4xf32, #gpu.address_space<workgroup>>) -> ()
  }
  return
}

// -----

func.func @fill_element_type(%n: index, %b: memref<4xvector<2xf32>, #tile.fragment>, %v: vector<2xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.fill' op unsupported element type 'vector<2xf32>' for the buffer}}
    tile.fill %b, %v : memref<4xvector<2xf32>, #tile.fragment>
  }
  return
}

// -----

func.func @clear_global(%n: index, %g: memref<16xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.clear' op expected the buffer to be an on-chip buffer (shared, fragment or local), got global 'memref<16xf32>'}}
    tile.clear %g : memref<16xf32>
  }
  return
}

// -----

func.func @clear_unranked(%n: index, %u: memref<*xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.clear' op operand #0 must be memref of any type values, but got 'memref<*xf32>'}}
    "tile.clear"(%u) : (memref<*xf32>) -> ()
  }
  return
}

// -----

func.func @clear_not_memref(%n: index, %t: tensor<4xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.clear' op operand #0 must be memref of any type values, but got 'tensor<4xf32>'}}
    "tile.clear"(%t) : (tensor<4xf32>) -> ()
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

// -----

func.func @gemm_unsupported_space(%n: index, %a: memref<64x32xf16, 7>, %b: memref<32x64xf16, #gpu.address_space<workgroup>>, %c: memref<64x64xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.gemm' op unsupported memory space 7 : i64 for A 'memref<64x32xf16, 7>'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, 7>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_dynamic(%n: index, %a: memref<?x32xf16, #gpu.address_space<workgroup>>, %b: memref<32x64xf16, #gpu.address_space<workgroup>>, %c: memref<64x64xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.gemm' op expected A to have a static shape, got 'memref<?x32xf16, #gpu.address_space<workgroup>>'}}
    tile.gemm %a, %b -> %c : memref<?x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_rank(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected B to be a 2-d tile, got 'memref<2x32x64xf16, #gpu.address_space<workgroup>>'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_a_global(%n: index, %a: memref<64x32xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected A in shared memory or a fragment, got global 'memref<64x32xf16>'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_b_local(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<private>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected B in shared memory or a fragment, got local 'memref<32x64xf16, #gpu.address_space<private>>'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<private>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shared(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.gemm' op expected C to be a fragment, got shared 'memref<64x64xf32, #gpu.address_space<workgroup>>'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @gemm_partial_warp(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(100) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected a kernel of whole warps (a multiple of 32 threads), got 100 threads}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_k_mismatch(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected B of 32xN (K x N) to match A of 64x32 (M x K), got 64x64}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// transpose_b: B is N x K.
func.func @gemm_transpose_b_mismatch(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected B of Nx32 (N x K, transpose_b) to match A of 64x32 (M x K), got 32x64}}
    tile.gemm %a, %b -> %c transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// transpose_a: A is K x M.
func.func @gemm_transpose_a_mismatch(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected B of 64xN (K x N) to match A of 64x32 (K x M, transpose_a), got 32x64}}
    tile.gemm %a, %b -> %c transpose_a : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shape(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected C of 64x128 (M x N), got 64x64}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_dtypes(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'bf16', B 'bf16', C 'f16' (supported A x B -> C: f16 x f16 -> f32, f16 x f16 -> f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32, f8E4M3FN x f8E4M3FN -> f32, f8E4M3FN x f8E5M2 -> f32, f8E5M2 x f8E4M3FN -> f32, f8E5M2 x f8E5M2 -> f32, f8E4M3FNUZ x f8E4M3FNUZ -> f32, f8E4M3FNUZ x f8E5M2FNUZ -> f32, f8E5M2FNUZ x f8E4M3FNUZ -> f32, f8E5M2FNUZ x f8E5M2FNUZ -> f32)}}
    tile.gemm %a, %b -> %c : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

// Mixed A/B element types are not a supported combination.
func.func @gemm_mixed_dtypes(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'f16', B 'bf16', C 'f32'}}
    tile.gemm %a, %b -> %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Unsigned and signed 8-bit operands: the lowering multiplies signless i8
// only.
func.func @gemm_unsigned(%n: index, %a: memref<64x32xui8, #gpu.address_space<workgroup>>, %b: memref<32x64xui8, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %c = tile.alloc : memref<64x64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'ui8', B 'ui8', C 'i32' (supported A x B -> C: f16 x f16 -> f32, f16 x f16 -> f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32, f8E4M3FN x f8E4M3FN -> f32, f8E4M3FN x f8E5M2 -> f32, f8E5M2 x f8E4M3FN -> f32, f8E5M2 x f8E5M2 -> f32, f8E4M3FNUZ x f8E4M3FNUZ -> f32, f8E4M3FNUZ x f8E5M2FNUZ -> f32, f8E5M2FNUZ x f8E4M3FNUZ -> f32, f8E5M2FNUZ x f8E5M2FNUZ -> f32)}}
    tile.gemm %a, %b -> %c : memref<64x32xui8, #gpu.address_space<workgroup>>, memref<32x64xui8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

// The buffers of a u8 gemm are rejected where they are made.
func.func @gemm_unsigned_buffers(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported element type 'ui8' for the allocation: integer element types must be signless (i8)}}
    %a = tile.alloc : memref<64x32xui8, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @gemm_mixed_sign(%n: index, %a: memref<64x32xsi8, #gpu.address_space<workgroup>>, %b: memref<32x64xi8, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %c = tile.alloc : memref<64x64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'si8', B 'i8', C 'i32'}}
    tile.gemm %a, %b -> %c : memref<64x32xsi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_tf32(%n: index, %a: memref<64x32xtf32, #gpu.address_space<workgroup>>, %b: memref<32x64xtf32, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'tf32', B 'tf32', C 'f32'}}
    tile.gemm %a, %b -> %c : memref<64x32xtf32, #gpu.address_space<workgroup>>, memref<32x64xtf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// FNUZ fp8 accumulates in f32 only.
func.func @gemm_fnuz_f16(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'f8E4M3FNUZ', B 'f8E4M3FNUZ', C 'f16'}}
    tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FNUZ, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

// No target has a f64 tensor-core instruction the compiler lowers.
func.func @gemm_f64(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf64, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf64, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf64, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'f64', B 'f64', C 'f64'}}
    tile.gemm %a, %b -> %c : memref<64x32xf64, #gpu.address_space<workgroup>>, memref<32x64xf64, #gpu.address_space<workgroup>> -> memref<64x64xf64, #tile.fragment>
  }
  return
}

// -----

// 8-bit floats accumulate in f32 only (wgmma).
func.func @gemm_fp8_f16(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf8E5M2, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'f8E4M3FN', B 'f8E5M2', C 'f16'}}
    tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

// A recorded instruction must compute the operands' types.
func.func @gemm_mma_types(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf32, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op has mma #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>, which does not compute A 'f32', B 'f32', C 'f32'}}
    tile.gemm %a, %b -> %c {mma = #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Under a tile.target, that target must have the instruction: 8-bit float
// tensor cores are wgmma, sm_90a only.
module attributes {tile.target = #tile.target<"sm_80">} {
  func.func @gemm_fp8_sm80(%n: index) {
    tile.kernel blocks(%x) in (%n) threads(128) {
      %a = tile.alloc : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>
      %b = tile.alloc : memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>>
      %c = tile.alloc : memref<64x64xf32, #tile.fragment>
      // expected-error @+1 {{'tile.gemm' op has no tensor-core instruction for A 'f8E4M3FN', B 'f8E4M3FN', C 'f32' on its target sm_80}}
      tile.gemm %a, %b -> %c : memref<64x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
    }
    return
  }
}

// -----

func.func @gemm_bad_policy(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{expected gemm policy 'square', 'full_row' or 'full_col', got 'diagonal'}}
    tile.gemm %a, %b -> %c policy(diagonal) : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_missing_operand(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expected 3 operands, but found 2}}
    "tile.gemm"(%a, %a) : (memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #tile.fragment>) -> ()
  }
  return
}

// -----

func.func @gemm_generic_bad_policy(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %a = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{invalid properties {policy = 3 : i32} for op tile.gemm}}
    "tile.gemm"(%a, %a, %a) <{policy = 3 : i32}> : (memref<64x64xf32, #tile.fragment>, memref<64x64xf32, #tile.fragment>, memref<64x64xf32, #tile.fragment>) -> ()
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.reduce / tile.cumsum
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_fp8(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf8E4M3FN, #tile.fragment>
    %d = tile.alloc : memref<64xf8E4M3FN, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op unsupported element type 'f8E4M3FN' for the source: expected an integer or f16, bf16, f32 or f64}}
    tile.reduce sum %s -> %d dim(1) : memref<64x64xf8E4M3FN, #tile.fragment> -> memref<64xf8E4M3FN, #tile.fragment>
  }
  return
}

// -----

func.func @cumsum_fp8(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf8E5M2, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cumsum' op unsupported element type 'f8E5M2' for the source: expected an integer or f16, bf16, f32 or f64}}
    tile.cumsum %s -> %s dim(0) : memref<64xf8E5M2, #gpu.address_space<workgroup>> -> memref<64xf8E5M2, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @cumsum_index(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(8) {
    %f = tile.alloc : memref<2x8xindex, #tile.fragment>
    %g = tile.alloc : memref<2x8xindex, #tile.fragment>
    // expected-error @+1 {{'tile.cumsum' op cannot combine index elements across threads: they have no fixed width; compute on i32 or i64}}
    tile.cumsum %f -> %g dim(1) : memref<2x8xindex, #tile.fragment> -> memref<2x8xindex, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_index(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xindex, #tile.fragment>
    %d = tile.alloc : memref<64xindex, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op cannot combine index elements across threads: they have no fixed width; compute on i32 or i64}}
    tile.reduce max %s -> %d dim(1) : memref<64x64xindex, #tile.fragment> -> memref<64xindex, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_global(%n: index, %g: memref<64x64xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected the source in shared memory or a fragment, got global 'memref<64x64xf32>'}}
    tile.reduce sum %g -> %d dim(1) : memref<64x64xf32> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_local_dst(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #gpu.address_space<private>>
    // expected-error @+1 {{'tile.reduce' op expected the destination in shared memory or a fragment, got local 'memref<64xf32, #gpu.address_space<private>>'}}
    tile.reduce sum %s -> %d dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #gpu.address_space<private>>
  }
  return
}

// -----

func.func @reduce_dynamic(%n: index, %s: memref<?x64xf32, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected the source to have a static shape, got 'memref<?x64xf32, #tile.fragment>'}}
    tile.reduce sum %s -> %d dim(0) : memref<?x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_negative_dim(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected dim in [0, 2) for a source of rank 2, got -1}}
    tile.reduce sum %s -> %d dim(-1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_dim_too_large(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected dim in [0, 2) for a source of rank 2, got 99999999999}}
    tile.reduce sum %s -> %d dim(99999999999) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_element_type(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected a destination of element type 'f32' or a wider float, got 'f16'}}
    tile.reduce max %s -> %d dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf16, #tile.fragment>
  }
  return
}

// -----

// Only floats widen: integer partial sums keep the source's type.
func.func @reduce_integer_widening(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xi32, #tile.fragment>
    %d = tile.alloc : memref<64xi64, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected a destination of element type 'i32', got 'i64'}}
    tile.reduce sum %s -> %d dim(1) : memref<64x64xi32, #tile.fragment> -> memref<64xi64, #tile.fragment>
  }
  return
}

// -----

// A cumsum's destination has the source's element type.
func.func @cumsum_widening(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf16, #gpu.address_space<workgroup>>
    %d = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cumsum' op expected a destination of element type 'f16', got 'f32'}}
    tile.cumsum %s -> %d dim(0) : memref<64xf16, #gpu.address_space<workgroup>> -> memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @reduce_shape(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<128x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expected a destination of 128 or 128x1 (source 128x64 reduced along dim 1), got 64}}
    tile.reduce max %s -> %d dim(1) : memref<128x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_bad_kind(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+2 {{expected ::mlir::tile::ReduceKind to be one of: sum, max, min, abssum, absmax}}
    // expected-error @+1 {{failed to parse Tile_ReduceKindAttr parameter 'value'}}
    tile.reduce prod %s -> %d dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_generic_missing_dim(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op requires attribute 'dim'}}
    "tile.reduce"(%s, %d) <{kind = #tile<reduce_kind sum>}> : (memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>) -> ()
  }
  return
}

// -----

func.func @cumsum_local(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf32, #gpu.address_space<private>>
    // expected-error @+1 {{'tile.cumsum' op expected the source in shared memory or a fragment, got local 'memref<64xf32, #gpu.address_space<private>>'}}
    tile.cumsum %s -> %s dim(0) : memref<64xf32, #gpu.address_space<private>> -> memref<64xf32, #gpu.address_space<private>>
  }
  return
}

// -----

func.func @cumsum_dynamic_dst(%n: index, %d: memref<?xf32, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cumsum' op expected the destination to have a static shape, got 'memref<?xf32, #gpu.address_space<workgroup>>'}}
    tile.cumsum %s -> %d dim(0) : memref<64xf32, #gpu.address_space<workgroup>> -> memref<?xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @cumsum_element_type(%n: index, %s: memref<64xcomplex<f32>, #tile.fragment>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.cumsum' op unsupported element type 'complex<f32>' for the source}}
    tile.cumsum %s -> %s dim(0) : memref<64xcomplex<f32>, #tile.fragment> -> memref<64xcomplex<f32>, #tile.fragment>
  }
  return
}

// -----

func.func @cumsum_dim(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.cumsum' op expected dim in [0, 2) for a source of rank 2, got 2}}
    tile.cumsum %s -> %s dim(2) : memref<64x64xf32, #tile.fragment> -> memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @cumsum_shape(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<64x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.cumsum' op expected a destination of 64x64, got 64x32}}
    tile.cumsum %s -> %d dim(1) : memref<64x64xf32, #tile.fragment> -> memref<64x32xf32, #tile.fragment>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.atomic
//===----------------------------------------------------------------------===//

// -----

// tile.cluster_reduce reads the other blocks' tiles through distributed
// shared memory: the source must be shared, the destination global.
func.func @cluster_reduce_fragment(%n: index, %g: memref<?x?xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<16x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.cluster_reduce' op expected a shared source, got fragment 'memref<16x64xf32, #tile.fragment>'}}
    tile.cluster_reduce add %f -> %g[%x, %x] : memref<16x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

func.func @cluster_reduce_shared_dst(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    %d = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cluster_reduce' op expected a global destination, got shared 'memref<16x64xf32, #gpu.address_space<workgroup>>'}}
    tile.cluster_reduce add %s -> %d : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<16x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @cluster_reduce_dynamic(%n: index, %s: memref<?x64xf32, #gpu.address_space<workgroup>>, %g: memref<?x?xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.cluster_reduce' op expected the source to have a static shape, got 'memref<?x64xf32, #gpu.address_space<workgroup>>'}}
    tile.cluster_reduce add %s -> %g[%x, %x] : memref<?x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  return
}

// -----

func.func @cluster_reduce_fp8(%n: index, %g: memref<?x?xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x64xf8E4M3FN, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cluster_reduce' op unsupported element type 'f8E4M3FN' for the source: expected an integer or f16, bf16, f32 or f64}}
    tile.cluster_reduce add %s -> %g[%x, %x] : memref<16x64xf8E4M3FN, #gpu.address_space<workgroup>> -> memref<?x?xf16>
  }
  return
}

// -----

func.func @cluster_reduce_int_float(%n: index, %g: memref<?x?xi32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cluster_reduce' op expected source and destination elements both floats or both integers, got 'f32' and 'i32'}}
    tile.cluster_reduce add %s -> %g[%x, %x] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xi32>
  }
  return
}

// -----

func.func @cluster_reduce_shape(%n: index, %g: memref<16x32xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cluster_reduce' op expected a destination of 16x64 when no indices are given, got 16x32}}
    tile.cluster_reduce add %s -> %g : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<16x32xf32>
  }
  return
}

// -----

func.func @cluster_reduce_indices(%n: index, %g: memref<?x?xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<16x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.cluster_reduce' op expected 2 indices for the destination of rank 2, got 1}}
    tile.cluster_reduce add %s -> %g[%x] : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  return
}

// -----

func.func @cluster_reduce_outside(%s: memref<16x64xf32, #gpu.address_space<workgroup>>, %g: memref<16x64xf32>) {
  // expected-error @+1 {{'tile.cluster_reduce' op expected to be nested in a 'tile.kernel'}}
  tile.cluster_reduce add %s -> %g : memref<16x64xf32, #gpu.address_space<workgroup>> -> memref<16x64xf32>
  return
}

// -----

// tile.remote_load (made by tile-lower from tile.cluster_reduce) loads at
// most 16 bytes of another block's shared memory.
func.func @remote_load_global(%g: memref<16x64xf32>, %r: i32, %i: index) {
  // expected-error @+1 {{'tile.remote_load' op expected a shared memref, got global 'memref<16x64xf32>'}}
  %v = tile.remote_load %g[%i, %i] rank %r : memref<16x64xf32> -> vector<4xf32>
  return
}

// -----

func.func @remote_load_type(%s: memref<16x64xf32, #gpu.address_space<workgroup>>, %r: i32, %i: index) {
  // expected-error @+1 {{'tile.remote_load' op expected a result of 'f32' elements, got 'vector<4xf16>'}}
  %v = tile.remote_load %s[%i, %i] rank %r : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf16>
  return
}

// -----

func.func @remote_load_indices(%s: memref<16x64xf32, #gpu.address_space<workgroup>>, %r: i32, %i: index) {
  // expected-error @+1 {{'tile.remote_load' op expected 2 indices, got 1}}
  %v = tile.remote_load %s[%i] rank %r : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return
}

// -----

func.func @remote_load_width(%s: memref<16x64xf32, #gpu.address_space<workgroup>>, %r: i32, %i: index) {
  // expected-error @+1 {{'tile.remote_load' op expected a power-of-two vector of at most 16 bytes, got 'vector<8xf32>'}}
  %v = tile.remote_load %s[%i, %i] rank %r : memref<16x64xf32, #gpu.address_space<workgroup>> -> vector<8xf32>
  return
}

// -----

// tile.red (made by tile-lower from tile.atomic) adds one vector into
// global memory.
func.func @red_shared(%v: vector<8xf16>, %s: memref<64xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'tile.red' op expected a global memref, got shared 'memref<64xf16, #gpu.address_space<workgroup>>'}}
  tile.red %v, %s[%i] : vector<8xf16>, memref<64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @red_type(%v: vector<8xf16>, %g: memref<?xbf16>, %i: index) {
  // expected-error @+1 {{'tile.red' op expected a memref of 'f16', got 'memref<?xbf16>'}}
  tile.red %v, %g[%i] : vector<8xf16>, memref<?xbf16>
  return
}

// -----

func.func @red_indices(%v: vector<8xf16>, %g: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{'tile.red' op expected 2 indices, got 1}}
  tile.red %v, %g[%i] : vector<8xf16>, memref<?x?xf16>
  return
}

// -----

func.func @red_width(%v: vector<8xf32>, %g: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'tile.red' op expected 2, 4 or 8 halves or 2 or 4 f32, got 'vector<8xf32>'}}
  tile.red %v, %g[%i] : vector<8xf32>, memref<?xf32>
  return
}

// -----

// Atomics update bytes and wider: an i1 fragment has no atomic add.
func.func @atomic_i1(%n: index, %g: memref<64x64xi1>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64x64xi1, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op unsupported element type 'i1' for the source: atomics update i8, i16, i32, i64, f16, bf16, f32 or f64}}
    tile.atomic add %f -> %g[%c0, %c0] : memref<64x64xi1, #tile.fragment> -> memref<64x64xi1>
  }
  return
}

// -----

func.func @atomic_index(%n: index, %g: memref<64xindex>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64xindex, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op unsupported element type 'index' for the source: atomics update i8, i16, i32, i64, f16, bf16, f32 or f64}}
    tile.atomic max %f -> %g : memref<64xindex, #tile.fragment> -> memref<64xindex>
  }
  return
}

// -----

func.func @atomic_fp8(%n: index, %g: memref<64xf8E4M3FN>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64xf8E4M3FN, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op unsupported element type 'f8E4M3FN' for the source: expected an integer or f16, bf16, f32 or f64}}
    tile.atomic add %f -> %g : memref<64xf8E4M3FN, #tile.fragment> -> memref<64xf8E4M3FN>
  }
  return
}

// -----

func.func @atomic_global_source(%n: index, %g: memref<64xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.atomic' op expected the source to be an on-chip buffer (shared, fragment or local), got global 'memref<64xf32>'}}
    tile.atomic add %g -> %g : memref<64xf32> -> memref<64xf32>
  }
  return
}

// -----

func.func @atomic_dynamic_source(%n: index, %s: memref<?xf32, #tile.fragment>, %g: memref<64xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.atomic' op expected the source to have a static shape, got 'memref<?xf32, #tile.fragment>'}}
    tile.atomic add %s -> %g : memref<?xf32, #tile.fragment> -> memref<64xf32>
  }
  return
}

// -----

func.func @atomic_unsupported_dst(%n: index, %g: memref<64xf32, 1>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op unsupported memory space 1 : i64 for the destination 'memref<64xf32, 1>'}}
    tile.atomic add %s -> %g : memref<64xf32, #tile.fragment> -> memref<64xf32, 1>
  }
  return
}

// -----

func.func @atomic_element_type(%n: index, %s: memref<4xcomplex<f32>, #tile.fragment>, %g: memref<4xcomplex<f32>>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.atomic' op unsupported element type 'complex<f32>' for the source}}
    tile.atomic add %s -> %g : memref<4xcomplex<f32>, #tile.fragment> -> memref<4xcomplex<f32>>
  }
  return
}

// -----

func.func @atomic_fragment_dst(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<4x4xf32, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op expected a global or shared destination, got fragment 'memref<4x4xf32, #tile.fragment>'}}
    tile.atomic add %s -> %s : memref<4x4xf32, #tile.fragment> -> memref<4x4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @atomic_dst_element_type(%n: index, %g: memref<64xf16>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op expected a destination of element type 'f32', got 'f16'}}
    tile.atomic add %s -> %g : memref<64xf32, #tile.fragment> -> memref<64xf16>
  }
  return
}

// -----

func.func @atomic_shape_without_indices(%n: index, %g: memref<?x?xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op expected a destination of 64x64 when no indices are given, got ?x?}}
    tile.atomic max %s -> %g : memref<64x64xf32, #tile.fragment> -> memref<?x?xf32>
  }
  return
}

// -----

func.func @atomic_index_count(%n: index, %g: memref<256x256xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op expected 2 indices for the destination of rank 2, got 1}}
    tile.atomic add %s -> %g[%x] : memref<64x64xf32, #tile.fragment> -> memref<256x256xf32>
  }
  return
}

// -----

func.func @atomic_shared_out_of_bounds(%n: index) {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xf32, #tile.fragment>
    %d = tile.alloc : memref<128x128xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.atomic' op tile of extent 64 at index 100 along dimension 1 is out of bounds of the destination, which has 128 elements}}
    tile.atomic add %s -> %d[%c0, %c100] : memref<64x64xf32, #tile.fragment> -> memref<128x128xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @atomic_bad_kind(%n: index, %g: memref<64xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %s = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-error @+2 {{expected ::mlir::tile::AtomicKind to be one of: add, max, min}}
    // expected-error @+1 {{failed to parse Tile_AtomicKindAttr parameter 'value'}}
    tile.atomic sub %s -> %g : memref<64xf32, #tile.fragment> -> memref<64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.parallel
//===----------------------------------------------------------------------===//

// -----

// A fragment is indexed by the loop's own induction variables (or
// constants): the iteration runs on the thread holding that point.
func.func @parallel_fragment_index(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64x64xf32, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i, %j) in (64, 64) {
      // expected-error @+1 {{'memref.load' op indexes a fragment with something other than induction variables of the enclosing 'tile.parallel', non-negative constants and their sums, products, quotients and remainders computed in the body (index 1); a thread can only reach the elements it holds}}
      %v = memref.load %f[%i, %x] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// An index computed from itself (IR that the dominance check rejects, but
// the operation verifiers run first) ends the walk over its operands: a
// diagnostic, not an endless recursion (found by tile-fuzz, seed 120).
func.func @parallel_fragment_index_cycle(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64xf32, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (64) {
      %c2 = arith.constant 2 : index
      %k = arith.divui %k, %c2 : index
      // expected-error @+1 {{'memref.load' op indexes a fragment with something other than induction variables of the enclosing 'tile.parallel', non-negative constants and their sums, products, quotients and remainders computed in the body (index 0)}}
      %v = memref.load %f[%k] : memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Arithmetic of induction variables is an index the iteration can reach;
// a difference is not (it can go negative).
func.func @parallel_fragment_index_computed(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<64xf32, #tile.fragment>
    %v = arith.constant 1.0 : f32
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (64) {
      %c1 = arith.constant 1 : index
      %k = arith.subi %i, %c1 : index
      // expected-error @+1 {{'memref.store' op indexes a fragment with something other than induction variables of the enclosing 'tile.parallel', non-negative constants and their sums, products, quotients and remainders computed in the body (index 0)}}
      memref.store %v, %f[%k] : memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// The body computes on f16 or wider: fp8 values are stored, not computed
// on.
func.func @parallel_fp8_arithmetic(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf8E4M3FN, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (128) {
      %v = memref.load %f[%i] : memref<128xf8E4M3FN, #tile.fragment>
      // expected-error @+1 {{'arith.addf' op computes on 'f8E4M3FN', which has no arithmetic in the lowering; compute on f16, bf16, f32 or f64 and truncate the result to store it}}
      %s = arith.addf %v, %v : f8E4M3FN
      memref.store %s, %f[%i] : memref<128xf8E4M3FN, #tile.fragment>
    }
  }
  return
}

// -----

func.func @parallel_fp8_extf(%n: index, %out: memref<128xf32>) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf8E5M2, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i) in (128) {
      %v = memref.load %f[%i] : memref<128xf8E5M2, #tile.fragment>
      // expected-error @+1 {{'arith.extf' op computes on 'f8E5M2'}}
      %w = arith.extf %v : f8E5M2 to f32
      memref.store %w, %out[%i] : memref<128xf32>
    }
  }
  return
}

// -----

func.func @parallel_ivs_mismatch(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{expected as many induction variables as extents, got 2 and 1}}
    tile.parallel (%i, %j) in (4) {
    }
  }
  return
}

// -----

func.func @parallel_non_constant_extent(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{expected integer value}}
    tile.parallel (%i) in (%n) {
    }
  }
  return
}

// -----

func.func @parallel_memory_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{invalid kind of attribute specified}}
    tile.parallel (%i) in (4) layout(#tile.layout<(d0) -> (d0)>) {
    }
  }
  return
}

// -----

func.func @parallel_dict_bad_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{attribute 'layout' failed to satisfy constraint: register-fragment memory space, optionally with its layout}}
    tile.parallel (%i) in (4) attributes {layout = 5 : i64} {
    }
  }
  return
}

// -----

func.func @parallel_no_dims(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected at least one dimension}}
    "tile.parallel"() <{extents = array<i64>}> ({
    ^bb0:
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_negative_extent(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected positive extents, got -4}}
    tile.parallel (%i) in (-4) {
    }
  }
  return
}

// -----

func.func @parallel_bare_fragment_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected a fragment layout with a map, got the bare memory space #tile.fragment}}
    tile.parallel (%i) in (4) layout(#tile.fragment) {
    }
  }
  return
}

// -----

func.func @parallel_layout_rank(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected a fragment layout over 2 dimensions, got 1}}
    tile.parallel (%i, %j) in (4, 4) layout(#tile.fragment<threads = 128, map = (d0) -> (d0, 0)>) {
    }
  }
  return
}

// -----

func.func @parallel_layout_threads(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(64) {
    // expected-error @+1 {{'tile.parallel' op fragment layout is for 128 threads, but the kernel has 64}}
    tile.parallel (%i) in (4) layout(#tile.fragment<threads = 128, map = (d0) -> (d0, 0)>) {
    }
  }
  return
}

// -----

func.func @parallel_missing_extents(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op requires attribute 'extents'}}
    "tile.parallel"() ({
    ^bb0(%i: index):
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_garbage_layout(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{invalid properties {extents = array<i64: 4>, layout = 5 : i64} for op tile.parallel}}
    "tile.parallel"() <{extents = array<i64: 4>, layout = 5 : i64}> ({
    ^bb0(%i: index):
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_empty_region(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_iv_count(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected 2 induction variables, got 1}}
    "tile.parallel"() <{extents = array<i64: 4, 4>}> ({
    ^bb0(%i: index):
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_iv_type(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expected induction variables of type index, got 'i32'}}
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: i32):
    }) : () -> ()
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.pipelined
//===----------------------------------------------------------------------===//

// -----

func.func @pipelined_order_twice(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'order' given twice}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0] order [0] {
    }
  }
  return
}

// -----

func.func @pipelined_dict_bad_order(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{attribute 'order' failed to satisfy constraint: i64 dense array attribute}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) attributes {order = 5 : i64} {
    }
  }
  return
}

// -----

func.func @pipelined_missing_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{expected 'stages'}}
    tile.pipelined %k = %c0 to %n step %c1 {
    }
  }
  return
}

// -----

func.func @pipelined_negative_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected stages >= 1, got -1}}
    tile.pipelined %k = %c0 to %n step %c1 stages(-1) {
    }
  }
  return
}

// -----

func.func @pipelined_zero_step(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected a positive step, got 0}}
    tile.pipelined %k = %c0 to %n step %c0 stages(2) {
    }
  }
  return
}

// -----

func.func @pipelined_iv_count(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected one induction variable of type index}}
    "tile.pipelined"(%n, %n, %n) <{stages = 2 : i64}> ({
    ^bb0:
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @pipelined_iv_type(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected one induction variable of type index}}
    "tile.pipelined"(%n, %n, %n) <{stages = 2 : i64}> ({
    ^bb0(%k: i64):
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @pipelined_missing_bound(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected 3 operands, but found 2}}
    "tile.pipelined"(%n, %n) <{stages = 2 : i64}> ({
    ^bb0(%k: index):
    }) : (index, index) -> ()
  }
  return
}

// -----

func.func @pipelined_empty_region(%n: index) {
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    "tile.pipelined"(%n, %n, %n) <{stages = 2 : i64, order = array<i64: 0>}> ({
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @pipelined_order_size(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op expected 'order' to have one entry per scheduled operation of the body (1), got 2}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0, 1] {
      %i = arith.addi %k, %c1 : index
      tile.clear %f : memref<16xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_order_duplicate(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op expected 'order' to be a permutation of [0, 2), got 0 twice}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0, 0] {
      tile.clear %f : memref<16xf32, #tile.fragment>
      tile.clear %f : memref<16xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_order_range(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op expected 'order' to be a permutation of [0, 1), got -3}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [-3] {
      tile.clear %f : memref<16xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @pipelined_stage_size(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected 'stage' to have one entry per scheduled operation of the body (0), got 1}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [0] {
    }
  }
  return
}

// -----

func.func @pipelined_stage_range(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    %f = tile.alloc : memref<16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op expected 'stage' entries in [0, 2), got 2}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [2] order [0] {
      tile.clear %f : memref<16xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @alloc_layout_shape(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expected a layout over 128x64, got one over 64x64}}
    %s = tile.alloc {layout = #tile.layout<[64, 64], swizzle<128, 16>>} : memref<128x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @alloc_fragment_shape(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(32) {
    // expected-error @+1 {{'tile.alloc' op expected a fragment layout over 32x8, got one over 16x8}}
    %f = tile.alloc {layout = #tile.fragment<[16, 8], mma_m16n8k16_c>} : memref<32x8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @parallel_layout_shape(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(32) {
    // expected-error @+1 {{'tile.parallel' op expected a fragment layout over 16x16, got one over 16x8}}
    tile.parallel (%i, %j) in (16, 16) layout(#tile.fragment<[16, 8], mma_m16n8k16_c>) {
    }
  }
  return
}

// -----

// A fragment's elements are spread over the threads: thread-level accesses
// belong in tile.parallel.
func.func @fragment_store_outside_parallel(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf32, #tile.fragment>
    // expected-error @+1 {{'memref.store' op accesses fragment 'memref<128xf32, #tile.fragment>' outside 'tile.parallel'; its elements are spread over the threads: access it inside a 'tile.parallel' over its shape, or move it with tile.copy or tile.fill}}
    memref.store %v, %f[%c0] : memref<128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @fragment_load_outside_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf32, #tile.fragment>
    scf.for %i = %c0 to %n step %n {
      // expected-error @+1 {{'memref.load' op accesses fragment 'memref<128xf32, #tile.fragment>' outside 'tile.parallel'}}
      %x = memref.load %f[%i] : memref<128xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @fragment_atomic(%n: index, %v: f32) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %f = tile.alloc : memref<128xf32, #tile.fragment>
    tile.parallel (%i) in (128) {
      // expected-error @+1 {{'memref.atomic_rmw' op updates fragment 'memref<128xf32, #tile.fragment>' atomically; a fragment element belongs to one thread: use memref.load and memref.store inside 'tile.parallel', or tile.atomic to update a buffer in shared or global memory}}
      %old = memref.atomic_rmw addf %v, %f[%i] : (f32, memref<128xf32, #tile.fragment>) -> f32
    }
  }
  return
}

// -----

func.func @copy_to_f8(%n: index, %out: memref<?x?xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %f = tile.alloc : memref<16x16xf16, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op cannot convert 'f16' to 'f8E4M3FN': copies to or from floats narrower than 16 bits keep the element type; produce the narrow values where they are computed (a tile.gemm operand)}}
    tile.copy %f -> %out[%c0, %c0] : memref<16x16xf16, #tile.fragment> -> memref<?x?xf8E4M3FN>
  }
  return
}

// -----

func.func @copy_index(%n: index, %in: memref<?x64xindex>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<32x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op cannot copy 'index' to 'f32': index elements have no fixed width in memory; store indices as i32 or i64}}
    tile.copy %in[%c0, %c0] -> %s : memref<?x64xindex> -> memref<32x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_index_to_shared(%n: index, %in: memref<?x64xindex>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<64x64xindex, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op cannot copy 'index' to 'index': index elements have no fixed width in memory; store indices as i32 or i64}}
    tile.copy %in[%c0, %c0] -> %s : memref<?x64xindex> -> memref<64x64xindex, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_from_f4(%n: index, %in: memref<64x64xf4E2M1FN>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(32) {
    %s = tile.alloc : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op cannot convert 'f4E2M1FN' to 'f16': copies to or from floats narrower than 16 bits keep the element type; produce the narrow values where they are computed (a tile.gemm operand)}}
    tile.copy %in[%c0, %c0] -> %s : memref<64x64xf4E2M1FN> -> memref<16x16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_from_f8(%n: index, %in: memref<?x?xf8E5M2>) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %s = tile.alloc : memref<16x16xbf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op cannot convert 'f8E5M2' to 'bf16'}}
    tile.copy %in[%c0, %c0] -> %s : memref<?x?xf8E5M2> -> memref<16x16xbf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// fp8 arithmetic has no lowering anywhere in a kernel, not only in
// tile.parallel bodies.
func.func @kernel_fp8_arith(%x: memref<?xf8E4M3FNUZ>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{enclosing 'tile.kernel' here}}
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %v = memref.load %x[%c0] : memref<?xf8E4M3FNUZ>
    // expected-error @+1 {{'math.exp' op computes on 'f8E4M3FNUZ', which has no arithmetic in the lowering; compute on f16, bf16, f32 or f64 and truncate the result to store it}}
    %e = math.exp %v : f8E4M3FNUZ
    memref.store %e, %x[%c0] : memref<?xf8E4M3FNUZ>
  }
  return
}

// -----

func.func @pipelined_too_many_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op expected at most 64 stages, got 9223372036854775807}}
    tile.pipelined %k = %c0 to %n step %c1 stages(9223372036854775807) {
    }
  }
  return
}

// -----

// The pipeline multi-buffers and clones the body's operations, not its
// allocations: buffers are allocated before the loop.
func.func @pipelined_alloc_in_body(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%n) threads(32) {
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      // expected-error @+1 {{'tile.alloc' op inside a tile.pipelined body: allocate the buffer before the loop}}
      %f = tile.alloc : memref<16x8xf32, #tile.fragment>
      tile.clear %f : memref<16x8xf32, #tile.fragment>
    }
  }
  return
}
