// Bad options of the tile-to-rocdl pipeline are reported, not crashes: an
// unknown or non-AMD chip, an unknown format, a toolkit path that cannot be
// spliced into the pipeline, an optimization level or an index width out of
// range. format=isa prints AMDGPU assembly with the kernel descriptor.

// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{chip=sm_90a})' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx1100})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{format=fatbin})' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{opt-level=7})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{toolkit=/opt/ro;cm})' 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl{index-bitwidth=16})' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: tile-opt %s --tile-to-rocdl='chip=gfx90a format=isa' | FileCheck %s --check-prefix=ISA

// CHIP: tile-to-rocdl: 'sm_90a' is not an AMD chip; the ROCDL pipeline cannot compile for it
// UNKNOWN: tile-to-rocdl: unknown chip 'gfx1100'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
// FORMAT: tile-to-rocdl: unknown format 'fatbin' (expected isa, bin or llvm)
// OPT: tile-to-rocdl: opt-level must be 0 to 3
// TOOLKIT: tile-to-rocdl: unusable toolkit path '/opt/ro;cm'
// INDEX: tile-to-rocdl: index-bitwidth must be 32 or 64

// ISA: gpu.binary @scale_kernel  [#gpu.object<#rocdl.target<{{.*}}chip = "gfx90a">, assembly = "
// ISA-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx90a\22
// ISA-SAME: global_load_dwordx4
// ISA-SAME: .amdhsa_private_segment_fixed_size 0
// ISA-SAME: .wavefront_size: 64

func.func @scale(%A: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(64) {
    %f = tile.alloc : memref<256xf32, #tile.fragment>
    %c256 = arith.constant 256 : index
    %o = arith.muli %bx, %c256 : index
    tile.copy %A[%o] -> %f : memref<1024xf32> -> memref<256xf32, #tile.fragment>
    tile.parallel (%i) in (256) {
      %x = memref.load %f[%i] : memref<256xf32, #tile.fragment>
      %y = arith.addf %x, %x : f32
      memref.store %y, %f[%i] : memref<256xf32, #tile.fragment>
    }
    tile.copy %f -> %A[%o] : memref<256xf32, #tile.fragment> -> memref<1024xf32>
  }
  return
}
