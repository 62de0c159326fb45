//===- Passes.td - tile conversion passes -------------------*- tablegen -*-===//
//
// Declares the passes that convert tile IR to upstream dialects: kernel
// outlining onto the GPU dialect, with their options and examples.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "turn each tile.kernel into a gpu.launch with its shared memory";
  let description = [{
    Rewrites every `tile.kernel` whose tile operators have been lowered into a
    `gpu.launch`: the grid comes from the kernel's extents (missing
    dimensions are 1), the block is `threads` x 1 x 1, and a `cluster` clause
    of more than one block becomes the launch's cluster size, with dynamic
    grid extents rounded up to whole clusters (ceildiv(extent, c) * c). All shared-memory `tile.alloc`s of the
    kernel are merged into the launch's one dynamic shared-memory block,
    sized exactly (each buffer aligned to `shared-alignment` bytes, or 1024
    for buffers of at least 8 KiB so that swizzled and TMA layouts see
    aligned rows) and reached through `memref.view`s of
    `gpu.dynamic_shared_memory`; local `tile.alloc`s become `memref.alloca`s.
    A `rasterize` clause remaps the block indices: consecutive blocks walk
    panels of `panel` rows (or columns) of the grid so that blocks running
    together share operand tiles in L2; in a cluster, the clusters are
    rasterized and each keeps its blocks together (block index = cluster
    index times cluster extent plus position in the cluster), as TMA
    multicast among them needs. A kernel that `tile-lower` made
    persistent (`tile.persistent`), whose body walks its tiles itself,
    launches min(tiles, R) x 1 x 1 blocks, R being an index constant
    marked `tile.resident_blocks` that stands for the blocks the device
    holds at once: `tile-compile` writes it as `resident_blocks` in the
    manifest, for the runtime to evaluate at launch, and elsewhere its
    value, 2^31 - 1, gives each tile a block. On a target with
    `dependent_launch` (sm_90), a kernel of a function with
    `tile.zero_init` arguments waits for the grid before it in the stream
    (`nvvm.griddepcontrol wait`) just before the first operation of its
    body that touches one of them, the wait marked
    `tile.dependent_launch`: the runtime may then start it while it zeroes
    those arguments (a programmatic dependent launch; `tile-compile` writes
    `dependent-launch` in the manifest). The module becomes a
    `gpu.container_module`; `gpu-kernel-outlining` then moves the launch
    bodies into a `gpu.module`.

    Before:

    ```mlir
    tile.kernel blocks(%bx) in (%n) threads(128) {
      %s = tile.alloc : memref<128xf32, #gpu.address_space<workgroup>>
      ...
    }
    ```

    After:

    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %c512_i32 {
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %s = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<128xf32, #gpu.address_space<workgroup>>
      ...
      gpu.terminator
    }
    ```

    Kernels that still hold tile operators or fragment buffers are reported
    with an error naming the operation: those are lowered first by the
    tile lowering passes.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"sharedAlignment", "shared-alignment", "int64_t", /*default=*/"16",
           "byte alignment of each shared buffer in the dynamic block">
  ];
}

def TileExternalizeDynamicShared
    : Pass<"tile-externalize-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "declare the dynamic shared-memory symbol as extern";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an internal
    zero-length array in address space 3, which the NVPTX backend demotes to
    a one-byte static `.shared` variable: the kernel then uses static shared
    memory it did not ask for and addresses the dynamic block through it.
    This pass gives such globals external linkage so they become
    `.extern .shared .b8 name[]`, the dynamic shared-memory window proper.

    Before:

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32,
        alignment = 16 : i64} : !llvm.array<0 x i8>
    ```

    After:

    ```mlir
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32,
        alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileGridConstantTensorMaps
    : Pass<"tile-grid-constant-tensor-maps", "::mlir::gpu::GPUModuleOp"> {
  let summary = "pass the tensor maps of lowered kernels as 128-byte grid constants";
  let description = [{
    A TMA tensor map reaches a kernel by value: the runtime encodes the
    128-byte `CUtensorMap` on the host and passes it as a `__grid_constant__`
    parameter, and `cp.async.bulk.tensor` takes the generic address of that
    parameter. `tile-convert-nvgpu-to-nvvm` turns each
    `!nvgpu.tensormap.descriptor` kernel argument into an `!llvm.ptr` and
    records, in the kernel's `tile.tensor_map_args` attribute, where those
    arguments land in the lowered signature (`convert-gpu-to-nvvm` keeps
    function attributes but drops `llvm.byval`). This pass, run on the
    `llvm.func` kernels, makes each of them a byval 128-byte array aligned
    to 64 bytes and a grid constant, which NVPTX emits as
    `.param .align 64 .b8 name[128]` and addresses in place.

    Before:

    ```mlir
    llvm.func @k(%map: !llvm.ptr, %n: i32)
        attributes {nvvm.kernel, tile.tensor_map_args = array<i64: 0>}
    ```

    After:

    ```mlir
    llvm.func @k(%map: !llvm.ptr {llvm.align = 64 : i64,
                                  llvm.byval = !llvm.array<128 x i8>,
                                  nvvm.grid_constant}, %n: i32)
        attributes {nvvm.kernel}
    ```

    A recorded position that is not an `!llvm.ptr` argument of an NVVM
    kernel is an error at the function.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileFlushDenormals
    : Pass<"tile-flush-denormals", "::mlir::gpu::GPUModuleOp"> {
  let summary = "flush f32 denormals in lowered kernels (the fast-math option)";
  let description = [{
    Marks every `llvm.func` of the GPU module with the f32 denormal mode
    `preserve-sign`. NVPTX then selects the flush-to-zero forms of f32
    instructions: `math.exp2` becomes one `ex2.approx.ftz.f32` instead of
    `ex2.approx.f32` with the instructions around it that scale subnormal
    inputs and results (calls of libdevice's `__nv_exp2f`, which choose
    their form through `__nvvm_reflect`, become the `llvm.intr.exp2` that
    follows the function's mode), `math.log2` one `lg2.approx.ftz.f32`
    (libdevice's `__nv_log2f` becomes that NVVM intrinsic), and additions,
    multiplications and FMAs take `.ftz`. Results that would be subnormal
    (below 2^-126 in magnitude) become zero, which softmax-like kernels
    never notice. `tile-to-nvvm` runs it under `fast-math=true`
    (`tile-compile --fast-math`).

    In a module for an AMD chip (a `#rocdl.target`) the functions keep
    their denormal mode: there, flushing would make the backend switch the
    mode around every f32 division and keep the device library's functions,
    compiled for IEEE denormals, from being inlined. Only exp2 and log2
    change: calls of ocml's `__ocml_exp2_f32` become `rocdl.exp2`, one
    `v_exp_f32`, and of `__ocml_log2_f32` `rocdl.log`, one `v_log_f32`,
    without the scaling of subnormal inputs and results. `tile-to-rocdl`
    runs it under `fast-math=true`.

    Before:

    ```mlir
    llvm.func @k(%x: f32) attributes {nvvm.kernel}
    ```

    After:

    ```mlir
    llvm.func @k(%x: f32) attributes {denormal_fp_math_f32 = "preserve-sign",
                                      nvvm.kernel}
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileCheckLowered : Pass<"tile-check-lowered", "::mlir::gpu::GPUModuleOp"> {
  let summary = "report operations no conversion lowered, at their source";
  let description = [{
    Serialization translates each GPU module to LLVM IR and stops at the
    first operation outside the LLVM dialect and its NVVM and ROCDL
    extensions, with "LLVM Translation failed" and no location: by then
    `strip-debuginfo` has run; and an operation of the other vendor's
    extension (a ROCDL intrinsic in a module compiled for an NVIDIA chip)
    aborts the backend's instruction selection. `tile-to-nvvm` and
    `tile-to-rocdl` run this pass on each kernel module after its
    conversions and before the locations are stripped, so that an operation
    no conversion handles (`math.tanh` on an fp8 type, for which neither
    libdevice nor OCML has a function) is reported at its place in the
    source, naming the operation and its types, as is an operation of the
    other vendor (the module's is AMD where it has a `#rocdl.target`, NVIDIA
    otherwise). A conversion cast left over with no such operation behind it
    is reported with the type it could not convert.

    Input:

    ```mlir
    gpu.module @kernels {
      llvm.func @k(%p: !llvm.ptr) {
        %0 = llvm.load %p : !llvm.ptr -> i8
        %1 = builtin.unrealized_conversion_cast %0 : i8 to f8E4M3FNUZ
        %2 = math.tanh %1 : f8E4M3FNUZ
        ...
    ```

    Diagnostic, at `math.tanh`:

    ```
    error: no lowering to LLVM for 'math.tanh' on f8E4M3FNUZ
    ```
  }];
}

def TileFuseLop3 : Pass<"tile-fuse-lop3", "::mlir::gpu::GPUModuleOp"> {
  let summary = "fuse an AND and an OR with two constants into one PTX lop3";
  let description = [{
    Rewrites `(x & C1) | C2` on i32 in a lowered NVIDIA kernel module, with
    both masks constants and the AND used only by the OR, into one
    `lop3.b32` (truth table 0xEA, `(a & b) | c`) in inline PTX. A SASS
    `LOP3` takes one immediate operand, so ptxas keeps an `and.b32` and an
    `or.b32` with two immediates as two instructions; the bit-operation
    conversions of `tile-narrow-int-to-float` (a nibble masked and OR-ed
    into the bits of 1024.0) are made of such pairs. `tile-to-nvvm` runs it
    after lowering to NVVM. Modules for AMD chips are left alone (their
    backend selects `v_and_or_b32` itself).

    Before:

    ```mlir
    %m = llvm.mlir.constant(983055 : i32) : i32
    %h = llvm.mlir.constant(1677747200 : i32) : i32
    %a = llvm.and %x, %m : i32
    %o = llvm.or %a, %h : i32
    ```

    After:

    ```mlir
    %o = llvm.inline_asm "lop3.b32 $0, $1, 983055, 1677747200, 0xEA;", "=r,r" %x
        : (i32) -> i32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileOccupancy : Pass<"tile-occupancy", "::mlir::gpu::GPUModuleOp"> {
  let summary = "ask for a minimum of resident blocks per multiprocessor";
  let description = [{
    CUDA's `__launch_bounds__` minimum of blocks per multiprocessor for
    every kernel (`gpu.func` with `kernel`) of the module: with
    `min-blocks-per-sm=N`, an NVIDIA kernel gets `nvvm.minctasm = N`, which
    NVPTX emits as `.minnctapersm N` and from which ptxas caps the
    registers per thread so that N blocks fit (65536 registers per
    multiprocessor); an AMD kernel (a module with a `#rocdl.target`) gets
    `rocdl.waves_per_eu`, the waves each of the compute unit's four SIMDs
    must hold for N blocks. Memory-bound kernels trade registers for more
    warps with loads in flight. Runs before `convert-gpu-to-nvvm` (or
    `-rocdl`), which carry the attribute to the `llvm.func`. `tile-to-nvvm`
    and `tile-to-rocdl` run it with their `min-blocks-per-sm` option
    (`tile-compile --min-blocks-per-sm`, or the kernel file's
    `// tile.options(CHIP): min-blocks-per-sm=N`); 0, the default, changes
    nothing, except for kernels that move registers between warpgroups
    (`nvvm.setmaxregister`, warp-specialized kernels on sm_90a): their
    counts assume one block per multiprocessor, so they get
    `nvvm.minctasm = 1` (without it ptxas cannot tell their registers at
    entry, ignores setmaxnreg and spills), and N > 1 is an error for them,
    as is setmaxnreg on a module for a chip without it (below sm_90a, or a
    chip name without the `a` suffix).
    A kernel without a known block size, or N blocks of more threads than a
    multiprocessor holds (2048), is an error.

    Before (`min-blocks-per-sm=4`):

    ```mlir
    gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>}
    ```

    After:

    ```mlir
    gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                                     nvvm.minctasm = 4 : i32}
    ```
  }];
  let options = [
    Option<"minBlocksPerSM", "min-blocks-per-sm", "int64_t", /*default=*/"0",
           "blocks of each kernel that must fit on one multiprocessor at "
           "once (0: no request)">
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

def TileLowerHostTensorMaps
    : Pass<"tile-lower-host-tensor-maps", "::mlir::ModuleOp"> {
  let summary = "encode the host's tensor maps with the CUDA driver and pass them by value";
  let description = [{
    Kernels take TMA tensor maps by value, as 128-byte grid-constant
    parameters (`tile-grid-constant-tensor-maps`). Upstream cannot lower the
    host side of such a launch: `gpu-to-llvm` has no conversion for
    `!nvgpu.tensormap.descriptor`, and upstream's `convert-nvgpu-to-nvvm`
    calls a runtime wrapper that encodes the map into device memory and
    returns a pointer. This pass, run on the host after its functions are
    LLVM functions and before `gpu-to-llvm`, rewrites each host
    `nvgpu.tma.create.descriptor` into a call of the driver's
    `cuTensorMapEncodeTiled` that writes the map into a 64-byte aligned
    stack buffer (dimensions innermost first, byte strides from the memref
    descriptor, the box operands, the descriptor type's interleave, swizzle,
    L2 promotion and fill), loads the 128 bytes as `!llvm.array<16 x i64>`
    and passes that value to the launches, whose lowering copies it into the
    kernel's parameter buffer. `index-bitwidth` must be the one the host
    functions were lowered with. The driver's status is not checked.

    Before:

    ```mlir
    %u = memref.cast %a : memref<?x?xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %u box[%c128, %c64]
        : memref<*xf16> -> !nvgpu.tensormap.descriptor<...>
    gpu.launch_func @k::@k ... args(%d : !nvgpu.tensormap.descriptor<...>)
    ```

    After:

    ```mlir
    %map = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64}
        : (i64) -> !llvm.ptr
    ...
    %r = llvm.call @cuTensorMapEncodeTiled(%map, %c6_i32, %c2_i32, %address,
        %dims, %strides, %box, %elementStrides, %c0, %c3, %c0, %c0) : ...
    %d = llvm.load %map {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    gpu.launch_func @k::@k ... args(%d : !llvm.array<16 x i64>)
    ```

    A map of an unranked memref that was not cast from a ranked one, of an
    element type the driver has no data type for, or used on the host by
    anything but a launch, is an error at the `nvgpu.tma.create.descriptor`.
    Kernel modules are not looked at.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "bit width of index values in the lowered host code (32 or 64)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileConvertNVGPUToNVVM
    : Pass<"tile-convert-nvgpu-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "lower nvgpu operations in a GPU module with a chosen index width";
  let description = [{
    Converts the nvgpu operations of an outlined kernel module (ldmatrix,
    mma.sync, cp.async copies and groups, mbarriers, TMA loads) to NVVM with
    upstream's patterns, using `index-bitwidth` for index values and memref
    descriptors, so that they agree with a following
    `convert-gpu-to-nvvm{index-bitwidth=32}`. Upstream's
    `convert-nvgpu-to-nvvm` always uses 64-bit indices.

    Kernel arguments of type `!nvgpu.tensormap.descriptor` become
    `!llvm.ptr` (cast back to the descriptor for the body), because
    `convert-gpu-to-nvvm` cannot lower a signature holding the descriptor
    type; their positions in the lowered signature are recorded in the
    kernel's `tile.tensor_map_args` attribute for
    `tile-grid-constant-tensor-maps`. Tensor maps are made on the host: an
    `nvgpu.tma.create.descriptor` in the module is an error. So is a kernel
    whose `known_block_size` or `known_grid_size` has an extent below 1
    (the launch bounds `convert-gpu-to-nvvm` would make of it fail LLVM
    translation without a location).

    ```mlir
    %f = nvgpu.ldmatrix %s[%i, %j] {numTiles = 4 : i32, transpose = false}
        : memref<128x32xf16, 3> -> vector<4x2xf16>
    ```
    becomes an `nvvm.ldmatrix` on the element address, computed in
    `index-bitwidth`-bit arithmetic.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "bit width of index values (32 or 64)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileConvertMathToOCML
    : Pass<"tile-convert-math-to-ocml", "::mlir::gpu::GPUModuleOp"> {
  let summary = "lower math operations of an AMD GPU module to ocml calls";
  let description = [{
    Runs upstream's math-to-ROCDL patterns on an outlined kernel module:
    math operations the AMDGPU backend has no instruction for (`math.tanh`,
    `math.erf`, `math.sin`, ...) become calls of the device library's ocml
    functions, which `gpu-module-to-binary` links from the toolkit's
    `amdgcn/bitcode`. Upstream's `convert-math-to-rocdl` runs on a
    `builtin.module` only (it would also rewrite host code), and inside
    `convert-gpu-to-rocdl` the generic math-to-LLVM patterns may take an
    operation first and leave an LLVM intrinsic such as `llvm.tanh` that the
    backend cannot select ("no libcall available for ftanh"); running these
    patterns first settles it. A kernel whose `known_block_size` or
    `known_grid_size` has an extent below 1 is an error here, as in
    `tile-convert-nvgpu-to-nvvm`.

    ```mlir
    %t = math.tanh %x : f32
    ```
    becomes
    ```mlir
    %t = llvm.call @__ocml_tanh_f32(%x) : (f32) -> f32
    ```
  }];
  let options = [
    Option<"chipset", "chipset", "std::string", /*default=*/"\"gfx942\"",
           "the AMD chip, for the patterns that depend on it">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "bit width of index values (32 or 64)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
