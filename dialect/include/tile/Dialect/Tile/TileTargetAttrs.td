//===- TileTargetAttrs.td - target and tensor-core attributes -*- tablegen -*-===//
//
// The `#tile.target` attribute (what a module is compiled for: warp size,
// on-chip memory and registers, the tensor-core instructions it offers and
// its async-copy features) and the `#tile.mma` attribute (one tensor-core
// instruction), with their enumerations. Known chips come from one table in
// dialect/lib/Target.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TILETARGETATTRS_TD
#define TILE_DIALECT_TILE_TILETARGETATTRS_TD

include "tile/Dialect/Tile/TileDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

// Named MmaFamily in C++: the NVIDIA gemm lowering has a struct MmaKind.
def Tile_MmaKind : I32EnumAttr<"MmaFamily", "tensor-core instruction family", [
    I32EnumAttrCase<"mma_sync", 0>, I32EnumAttrCase<"wgmma", 1>,
    I32EnumAttrCase<"mfma", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_Vendor : I32EnumAttr<"Vendor", "GPU vendor of a target", [
    I32EnumAttrCase<"nvidia", 0>, I32EnumAttrCase<"amd", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_TargetFeature : I32BitEnumAttr<"TargetFeature",
    "optional hardware features of a target", [
    I32BitEnumAttrCaseNone<"none">,
    // Asynchronous global-to-shared copies (cp.async, sm_80 and later).
    I32BitEnumAttrCaseBit<"cp_async", 0>,
    // The Tensor Memory Accelerator: bulk tensor copies (sm_90).
    I32BitEnumAttrCaseBit<"tma", 1>,
    // A TMA producer warpgroup beside consumer warpgroups that rebalance
    // registers with setmaxnreg (sm_90a only).
    I32BitEnumAttrCaseBit<"warp_specialize", 2>,
    // buffer_load ... lds: global loads straight into LDS (CDNA).
    I32BitEnumAttrCaseBit<"buffer_load_lds", 3>,
    // red.global.add on vectors of up to 16 bytes of f16, bf16 or f32
    // (sm_90).
    I32BitEnumAttrCaseBit<"vector_atomics", 4>,
    // Thread-block clusters and their distributed shared memory (sm_90).
    I32BitEnumAttrCaseBit<"clusters", 5>,
    // Programmatic dependent launch: a kernel may start before the grid
    // before it in the stream ends and wait for it (griddepcontrol, sm_90).
    I32BitEnumAttrCaseBit<"dependent_launch", 6>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// #tile.mma
//===----------------------------------------------------------------------===//

def Tile_MmaAttr : Tile_Attr<"Mma", "mma"> {
  let summary = "one tensor-core instruction: family, shape and element types";
  let description = [{
    A matrix multiply-accumulate instruction: `kind` (`mma_sync`, the warp
    instruction of sm_80 and later; `wgmma`, the warpgroup instruction of
    sm_90a; `mfma`, the wave instruction of CDNA), its shape `m`x`n`x`k`
    and its element types, A x B -> C.

    ```mlir
    #tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>
    #tile.mma<wgmma m64n256k16, bf16 x bf16 -> f32>
    #tile.mma<mfma m32n32k8, f16 x f16 -> f32>
    #tile.mma<mma_sync m16n8k16, bf16 x bf16 -> f32, groups 2x2>
    ```

    In the `mma` list of a `#tile.target`, the `n` of a `wgmma` entry is the
    widest instruction: the narrower ones PTX defines are offered too (every
    multiple of 8 up to it; for 8-bit integers 8, 16, 24 and the multiples
    of 16 from 32). On a `tile.gemm`, `n` is the instruction chosen.

    `groups` (absent: `0x0`, unknown) says how the instruction's issuing
    units split the gemm's C tile, M x N: warps for `mma_sync` and `mfma`,
    warpgroups for `wgmma`.

    Integer types are signless, as in every tile operator.
  }];
  let parameters = (ins
    "::mlir::tile::MmaFamily":$kind,
    "int64_t":$m, "int64_t":$n, "int64_t":$k,
    "::mlir::Type":$a, "::mlir::Type":$b, "::mlir::Type":$c,
    "int64_t":$groupsM, "int64_t":$groupsN);
  let builders = [
    AttrBuilder<(ins "::mlir::tile::MmaFamily":$kind, "int64_t":$m,
                     "int64_t":$n, "int64_t":$k, "::mlir::Type":$a,
                     "::mlir::Type":$b, "::mlir::Type":$c), [{
      return $_get($_ctxt, kind, m, n, k, a, b, c, 0, 0);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True when the instruction computes `a` x `b` -> `c`.
    bool accepts(::mlir::Type a, ::mlir::Type b, ::mlir::Type c) const;
    /// True when the instruction reads shared-memory operands through the
    /// async proxy (wgmma), so generic-proxy writes to them need a
    /// `fence.proxy.async` first.
    bool readsSharedThroughAsyncProxy() const;
    /// Threads that issue one instruction together: one warp (mma_sync),
    /// one warpgroup of four warps (wgmma) or one wave (mfma) of
    /// `warpSize` threads.
    int64_t getIssueThreads(int64_t warpSize) const;
    /// True when this wgmma entry (the widest of its types) also has an
    /// instruction `n` columns wide.
    bool hasWgmmaWidth(int64_t n) const;
    /// The same instruction with shape `m`x`n`x`k`.
    MmaAttr withShape(int64_t m, int64_t n, int64_t k) const;
    /// The same instruction with issuing units split `groupsM`x`groupsN`.
    MmaAttr withGroups(int64_t groupsM, int64_t groupsN) const;
    /// True when `groups` is set (not `0x0`).
    bool hasGroups() const { return getGroupsM() != 0; }
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// #tile.target
//===----------------------------------------------------------------------===//

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "the chip a module is compiled for and what it offers";
  let description = [{
    The target of a module, function or kernel (`tile.target`): its chip
    name and vendor, the threads of a warp (wave), the shared memory (LDS)
    one block and one SM (CU) may use, in bytes, the 32-bit registers one
    thread and one SM (CU) have, the tensor-core instructions it offers
    (`mma`, most preferred first, see `#tile.mma`) and its optional
    `features`: `cp_async`, `tma`, `warp_specialize` (a TMA producer
    warpgroup with setmaxnreg, sm_90a), `vector_atomics` (`red.global.add`
    on vectors of up to 16 bytes, sm_90), `clusters` (thread-block clusters
    and distributed shared memory, sm_90), `dependent_launch`
    (`griddepcontrol`, sm_90) and `buffer_load_lds` (CDNA).

    A known chip (sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942) is
    written by name and expands to the compiler's table; a target whose
    fields differ from the table (or an unknown chip) is written in full:

    ```mlir
    #tile.target<"sm_90a">
    #tile.target<chip = "sm_80", vendor = nvidia, warp_size = 32,
                 shared_per_block = 101376, shared_per_sm = 167936,
                 registers_per_thread = 255, registers_per_sm = 65536,
                 mma = [#tile.mma<mma_sync m16n8k16, f16 x f16 -> f32>],
                 features = [cp_async]>
    ```

    The short form is printed whenever the attribute equals its chip's
    table entry.
  }];
  let parameters = (ins
    StringRefParameter<"chip name, e.g. \"sm_90a\"">:$chip,
    "::mlir::tile::Vendor":$vendor,
    "int64_t":$warpSize,
    "int64_t":$sharedPerBlock,
    "int64_t":$sharedPerSm,
    "int64_t":$registersPerThread,
    "int64_t":$registersPerSm,
    ArrayRefParameter<"::mlir::tile::MmaAttr", "tensor-core instructions, "
                      "most preferred first">:$mma,
    "::mlir::tile::TargetFeature":$features);
  let extraClassDeclaration = [{
    /// True when the target has every feature of `feature`.
    bool has(::mlir::tile::TargetFeature feature) const;
    /// True for NVIDIA chips.
    bool isNVIDIA() const { return getVendor() == ::mlir::tile::Vendor::nvidia; }
    /// True for AMD chips.
    bool isAMD() const { return getVendor() == ::mlir::tile::Vendor::amd; }
    /// The entries of `mma` that compute `a` x `b` -> `c`, most preferred
    /// first (see MmaAttr::accepts).
    ::llvm::SmallVector<MmaAttr> getMmaCandidates(::mlir::Type a,
                                                  ::mlir::Type b,
                                                  ::mlir::Type c) const;
    /// The most preferred entry of `mma` that computes `a` x `b` -> `c`;
    /// null when there is none.
    MmaAttr selectMma(::mlir::Type a, ::mlir::Type b, ::mlir::Type c) const;
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILE_TILETARGETATTRS_TD
