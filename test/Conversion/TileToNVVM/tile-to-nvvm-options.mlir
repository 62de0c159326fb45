// Bad options of the tile-to-nvvm pipeline are reported, not crashes: an
// unknown or non-NVIDIA chip, an unknown format, features or a toolkit path
// that cannot be spliced into the pipeline, an optimization level or an
// index width out of range.

// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{format=elf})' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{features=+ptx80;x})' 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{opt-level=7})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{toolkit=/opt/cu;da})' 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm{index-bitwidth=16})' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not tile-compile %s -o %t --no-cubin --index-bitwidth 48 2>&1 | FileCheck %s --check-prefix=INDEXC

// CHIP: tile-to-nvvm: 'gfx942' is not an NVIDIA chip; the NVVM pipeline cannot compile for it
// FORMAT: tile-to-nvvm: unknown format 'elf' (expected isa, bin, fatbin or llvm)
// FEATURES: tile-to-nvvm: malformed features '+ptx80;x'
// OPT: tile-to-nvvm: opt-level must be 0 to 3
// TOOLKIT: tile-to-nvvm: unusable toolkit path '/opt/cu;da'
// INDEX: tile-to-nvvm: index-bitwidth must be 32 or 64
// INDEXC: tile-compile: --index-bitwidth must be 32 or 64, got 48

func.func @f() {
  return
}
