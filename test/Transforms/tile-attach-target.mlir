// RUN: tile-opt %s -tile-attach-target | FileCheck %s --check-prefix=DEFAULT
// RUN: tile-opt %s -tile-attach-target=chip=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s -tile-attach-target=chip=sm_80 -tile-attach-target=chip=sm_80 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// RUN: not tile-opt %s -tile-attach-target=chip=sm_99 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s -tile-attach-target=chip=sm_80 -tile-attach-target=chip=sm_90a 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHER

// The module records the target it is compiled for, sm_90a by default.
// DEFAULT: module attributes {tile.target = #tile.target<"sm_90a">}
// AMD: module attributes {tile.target = #tile.target<"gfx942">}

// Attaching the same chip again keeps the module as it is.
// TWICE: module attributes {tile.target = #tile.target<"sm_80">}
// TWICE-NOT: tile.target

// UNKNOWN: error: unknown chip 'sm_99'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
// OTHER: error: already compiled for sm_80 (its tile.target), cannot attach sm_90a

func.func @f() {
  return
}
