// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -split-input-file -verify-diagnostics
// RUN: not tile-opt %s -tile-attach-target=chip=gfx942 -split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AMD

// A module becomes one vendor's binary: a function marked for the other
// vendor's chips is refused where it says so, not when its MFMA (or wgmma)
// instructions reach the other vendor's translation.

// AMD-NOT: @amd_function
// expected-error @+1 {{@amd_function has tile.target gfx90a, an AMD chip, in a module compiled for sm_80; a module is compiled for one vendor's chips}}
func.func @amd_function() attributes {tile.target = #tile.target<"gfx90a">} {
  return
}

// -----

// Another chip of the same vendor is the function's own target.
// AMD: [[@LINE+1]]:1: error: @nvidia_function has tile.target sm_90a, an NVIDIA chip, in a module compiled for gfx942; a module is compiled for one vendor's chips
func.func @nvidia_function() attributes {tile.target = #tile.target<"sm_90a">} {
  return
}

// -----

// A hand-written gpu.module names its own serialization target.
// expected-error @+1 {{gpu.module @rocdl_kernels targets #rocdl.target<chip = "gfx942">, in a module compiled for sm_80; a module is compiled for one vendor's chips}}
gpu.module @rocdl_kernels [#rocdl.target<chip = "gfx942">] {
}
