// RUN: tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" -split-input-file -verify-diagnostics
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" -split-input-file -verify-diagnostics

// Whole programs the fuzzer found to pass the verifiers and then fail in
// upstream verifiers after the tile passes, without a location. Each now
// ends in a diagnostic at the tile operation that cannot be lowered.

// A u8 gemm: the lowering built `llvm.insertvalue` of vector<4xui8> into
// an array of vector<4xi8>, and nvvm.mma.sync results of the wrong type.
func.func @gemm_u8(%A: memref<1024x1024xi8>, %B: memref<1024x1024xi8>, %C: memref<1024x1024xi32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    // expected-error @+1 {{'tile.alloc' op unsupported element type 'ui8' for the allocation: integer element types must be signless (i8)}}
    %As = tile.alloc : memref<128x32xui8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc : memref<32x128xui8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<128x128xi32, #tile.fragment>
    tile.clear %Cf : memref<128x128xi32, #tile.fragment>
    tile.gemm %As, %Bs -> %Cf : memref<128x32xui8, #gpu.address_space<workgroup>>, memref<32x128xui8, #gpu.address_space<workgroup>> -> memref<128x128xi32, #tile.fragment>
    tile.copy %Cf -> %C[%c0, %c0] : memref<128x128xi32, #tile.fragment> -> memref<1024x1024xi32>
  }
  return
}

// -----

// A signed-i8 by i8 gemm: nvgpu.mma.sync failed to deduce its operand PTX
// types.
func.func @gemm_si8(%n: index, %A: memref<64x32xsi8, #gpu.address_space<workgroup>>) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %Bs = tile.alloc : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc : memref<64x64xi32, #tile.fragment>
    tile.clear %Cf : memref<64x64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported element types: A 'si8', B 'i8', C 'i32'}}
    tile.gemm %A, %Bs -> %Cf : memref<64x32xsi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>> -> memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

// An atomic add of an i1 fragment: llvm.atomicrmw expected an LLVM IR
// integer type.
func.func @atomic_i1(%out: memref<64x64xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc : memref<64x64xi1, #tile.fragment>
    tile.clear %f : memref<64x64xi1, #tile.fragment>
    // expected-error @+1 {{'tile.atomic' op unsupported element type 'i1' for the source: atomics update i8, i16, i32, i64, f16, bf16, f32 or f64}}
    tile.atomic add %f -> %out[%c0, %c0] : memref<64x64xi1, #tile.fragment> -> memref<64x64xi1>
  }
  return
}

// -----

// A fragment load indexed by the block index: no thread holds the element
// for every block.
func.func @fragment_index(%out: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc : memref<64x64xf32, #tile.fragment>
    tile.clear %f : memref<64x64xf32, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i, %j) in (64, 64) {
      // expected-error @+1 {{'memref.load' op indexes a fragment with something other than induction variables of the enclosing 'tile.parallel', non-negative constants and their sums, products, quotients and remainders computed in the body (index 0)}}
      %v = memref.load %f[%bx, %j] : memref<64x64xf32, #tile.fragment>
      memref.store %v, %out[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// -----

// The host function's shared-memory argument: func-to-llvm failed on it
// without a location.
#rows = #tile.fragment<[4, 3], threads = 4, (d0, d1) -> (d0, d1)>
// expected-error @+1 {{function @host_shared takes argument 0 of type 'memref<4x3xf32, #gpu.address_space<workgroup>>'}}
func.func @host_shared(%out: memref<4x3xf32, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(4) {
    tile.parallel (%i, %j) in (4, 3) layout(#rows) {
      memref.store %one, %out[%i, %j] : memref<4x3xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Arithmetic on fp8 values in a parallel body: the LLVM translation failed
// on a leftover unrealized_conversion_cast, without a location.
func.func @fp8_arithmetic(%A: memref<?x?xf8E4M3FNUZ>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f8E4M3FNUZ
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc : memref<32x128xf8E4M3FNUZ, #tile.fragment>
    tile.copy %A[%c1, %c1] -> %a : memref<?x?xf8E4M3FNUZ> -> memref<32x128xf8E4M3FNUZ, #tile.fragment>
    // expected-note @+1 {{enclosing 'tile.parallel' here}}
    tile.parallel (%i, %j) in (32, 128) {
      %x = memref.load %a[%i, %j] : memref<32x128xf8E4M3FNUZ, #tile.fragment>
      // expected-error @+1 {{'arith.maximumf' op computes on 'f8E4M3FNUZ', which has no arithmetic in the lowering}}
      %r = arith.maximumf %x, %zero : f8E4M3FNUZ
      memref.store %r, %a[%i, %j] : memref<32x128xf8E4M3FNUZ, #tile.fragment>
    }
    tile.copy %a -> %A[%c1, %c1] : memref<32x128xf8E4M3FNUZ, #tile.fragment> -> memref<?x?xf8E4M3FNUZ>
  }
  return
}

// -----

// An i4 scalar captured by the kernel: ptxas rejected the `.u4` kernel
// parameter.
#frag = #tile.fragment<[4, 4], threads = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 2, d1 mod 2)>
func.func @i4_parameter(%v: i4) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op captures a value of type 'i4', which cannot be a kernel parameter}}
  tile.kernel blocks(%bx) in (%c1) threads(8) {
    %f = tile.alloc {layout = #frag} : memref<4x4xi4, #tile.fragment>
    // expected-note @+1 {{used here}}
    tile.fill %f, %v : memref<4x4xi4, #tile.fragment>
  }
  return
}
