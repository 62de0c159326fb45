// Bad options of the tile-to-nvvm pipeline are reported, not crashes: an
// unknown or non-NVIDIA chip, an unknown format, features or a toolkit path
// that cannot be spliced into the pipeline, an optimization level out of
// range.

// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{format=elf})' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{features=+ptx80;x})' 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{opt-level=7})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{toolkit=/opt/cu;da})' 2>&1 | FileCheck %s --check-prefix=TOOLKIT

// CHIP: tile-to-nvvm: unknown NVIDIA chip 'gfx942'
// FORMAT: tile-to-nvvm: unknown format 'elf' (expected isa, bin, fatbin or llvm)
// FEATURES: tile-to-nvvm: malformed features '+ptx80;x'
// OPT: tile-to-nvvm: opt-level must be 0 to 3
// TOOLKIT: tile-to-nvvm: unusable toolkit path '/opt/cu;da'

func.func @f() {
  return
}
