// Conditional regions of kernel templates: the lines between
// `// tile.if(COND):` and `// tile.else:` (or `// tile.endif`) are kept
// where COND, a condition as of a `// tile.params(COND):` line, holds on
// the parameters' final values and the chip compiled for, those after
// `// tile.else:` where it does not. Lines not taken become empty, so line
// numbers stay those of the file, and their `${NAME}` are not substituted.

// RUN: rm -rf %t && split-file %s %t

// A parameter condition, not taken (the default) and taken (-D), with an
// else branch, and a condition of two terms.
// RUN: tile-compile %t/select.mlir --print-source | FileCheck %s --check-prefix=ATOMIC
// RUN: tile-compile %t/select.mlir --print-source -D RED=cluster \
// RUN:   | FileCheck %s --check-prefix=CLUSTER
// RUN: tile-compile %t/select.mlir --print-source -D RED=cluster -D T=f16 \
// RUN:   | FileCheck %s --check-prefix=CLUSTER-F16
// ATOMIC:      func.func @f(%out: memref<?xf32>) {
// ATOMIC-NEXT:   // tile.if(RED=cluster):
// ATOMIC-EMPTY:
// ATOMIC-NEXT:   // tile.else:
// ATOMIC-NEXT:   %b = arith.constant 2.0 : f32
// ATOMIC-NEXT:   // tile.endif
// ATOMIC-NEXT:   // tile.if(RED=cluster T=f16):
// ATOMIC-EMPTY:
// ATOMIC-NEXT:   // tile.endif
// ATOMIC-NEXT:   return
// CLUSTER:      func.func @f(%out: memref<?xf32>) {
// CLUSTER-NEXT:   // tile.if(RED=cluster):
// CLUSTER-NEXT:   %a = arith.constant 1.0 : f32
// CLUSTER-NEXT:   // tile.else:
// CLUSTER-EMPTY:
// CLUSTER-NEXT:   // tile.endif
// CLUSTER-NEXT:   // tile.if(RED=cluster T=f16):
// CLUSTER-EMPTY:
// CLUSTER-NEXT:   // tile.endif
// CLUSTER-NEXT:   return
// CLUSTER-F16:      %a = arith.constant 1.0 : f16
// CLUSTER-F16-NEXT: // tile.else:
// CLUSTER-F16-EMPTY:
// CLUSTER-F16-NEXT: // tile.endif
// CLUSTER-F16-NEXT: // tile.if(RED=cluster T=f16):
// CLUSTER-F16-NEXT: %c = arith.constant 3.0 : f16
// CLUSTER-F16-NEXT: // tile.endif

// A chip condition, alone and with a parameter term; the default of a
// keyed parameter line takes part.
// RUN: tile-compile %t/chip.mlir --print-source --chip sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-compile %t/chip.mlir --print-source --chip sm_90a | FileCheck %s --check-prefix=SM90A
// SM80:      // tile.if(sm_90a):
// SM80-EMPTY:
// SM80-NEXT: // tile.else:
// SM80-NEXT: %v = arith.constant 80 : i32
// SM80-NEXT: // tile.endif
// SM80-NEXT: // tile.if(sm_80 N=4):
// SM80-NEXT: %n = arith.constant 4 : i32
// SM80-NEXT: // tile.endif
// SM90A:      // tile.if(sm_90a):
// SM90A-NEXT: %v = arith.constant 90 : i32
// SM90A-NEXT: // tile.else:
// SM90A-EMPTY:
// SM90A-NEXT: // tile.endif
// SM90A-NEXT: // tile.if(sm_80 N=4):
// SM90A-EMPTY:
// SM90A-NEXT: // tile.endif

// Nested regions: an inner region is kept only where the outer one is,
// whatever its own condition.
// RUN: tile-compile %t/nested.mlir --print-source | FileCheck %s --check-prefix=NEST-00
// RUN: tile-compile %t/nested.mlir --print-source -D A=1 | FileCheck %s --check-prefix=NEST-10
// RUN: tile-compile %t/nested.mlir --print-source -D A=1 -D B=1 | FileCheck %s --check-prefix=NEST-11
// RUN: tile-compile %t/nested.mlir --print-source -D B=1 | FileCheck %s --check-prefix=NEST-01
// NEST-00:      // tile.if(A=1):
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-EMPTY:
// NEST-00-NEXT: // tile.else:
// NEST-00-NEXT: %e = arith.constant 0 : i32
// NEST-00-NEXT: // tile.endif
// NEST-10:      // tile.if(A=1):
// NEST-10-NEXT: %a = arith.constant 1 : i32
// NEST-10-NEXT:   // tile.if(B=1):
// NEST-10-EMPTY:
// NEST-10-NEXT:   // tile.else:
// NEST-10-NEXT:   %c = arith.constant 3 : i32
// NEST-10-NEXT:   // tile.endif
// NEST-10-NEXT: %d = arith.constant 4 : i32
// NEST-10-NEXT: // tile.else:
// NEST-10-EMPTY:
// NEST-10-NEXT: // tile.endif
// NEST-11:      // tile.if(A=1):
// NEST-11-NEXT: %a = arith.constant 1 : i32
// NEST-11-NEXT:   // tile.if(B=1):
// NEST-11-NEXT:   %b = arith.constant 2 : i32
// NEST-11-NEXT:   // tile.else:
// NEST-11-EMPTY:
// NEST-11-NEXT:   // tile.endif
// NEST-11-NEXT: %d = arith.constant 4 : i32
// NEST-11-NEXT: // tile.else:
// NEST-11-EMPTY:
// NEST-11-NEXT: // tile.endif
// NEST-01:      // tile.if(A=1):
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-EMPTY:
// NEST-01-NEXT: // tile.else:
// NEST-01-NEXT: %e = arith.constant 0 : i32

// References in lines not taken are not substituted and are no error,
// where they are where their lines are taken; diagnostics after a region
// not taken point at the file's line.
// RUN: tile-compile %t/dropped.mlir --print-source | FileCheck %s --check-prefix=DROPPED
// RUN: not tile-compile %t/dropped.mlir --print-source -D A=1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DROPPED-TAKEN
// RUN: not tile-compile %t/lines.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=LINES
// RUN: not tile-compile %t/lines.mlir -o %t/out --no-cubin -D MODE=b 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LINES-TAKEN
// DROPPED:      // tile.if(A=1):
// DROPPED-EMPTY:
// DROPPED-NEXT: // tile.else:
// DROPPED-NEXT:   %y = arith.constant 2 : i32
// DROPPED-NEXT: // tile.endif
// DROPPED-NEXT: // tile.if(A=0):
// DROPPED-NEXT:   %z = arith.constant 3 : i32
// DROPPED-NEXT: // tile.else:
// DROPPED-EMPTY:
// DROPPED-NEXT: // tile.endif
// DROPPED-TAKEN: dropped.mlir:4:27: error: parameter 'UNDECLARED' has no value
// DROPPED-TAKEN: dropped.mlir:11:8: error: parameter 'ALSO_UNDECLARED' has no value
// DROPPED-TAKEN: dropped.mlir:11:29: error: malformed parameter reference
// LINES:     lines.mlir:8:33: error: custom op 'junk' is unknown
// LINES-NOT: error
// LINES-TAKEN: lines.mlir:4:20: error: parameter 'NOPE' has no value

// Errors, at their line, in --print-source as in a build.
// RUN: not tile-compile %t/unmatched.mlir --print-source 2>&1 | FileCheck %s --check-prefix=UNMATCHED
// RUN: not tile-compile %t/double-else.mlir --print-source 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: not tile-compile %t/unterminated.mlir --print-source 2>&1 | FileCheck %s --check-prefix=UNTERMINATED
// RUN: not tile-compile %t/unterminated.mlir -o %t/out --no-cubin 2>&1 | FileCheck %s --check-prefix=UNTERMINATED
// RUN: not tile-compile %t/malformed.mlir --print-source 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tile-compile %t/undeclared.mlir --print-source 2>&1 | FileCheck %s --check-prefix=UNDECLARED
// UNMATCHED:      unmatched.mlir:2:4: error: 'tile.else' without an open 'tile.if' region
// UNMATCHED:      unmatched.mlir:3:6: error: 'tile.endif' without an open 'tile.if' region
// UNMATCHED-NOT:  error
// DOUBLE:         double-else.mlir:7:6: error: second 'tile.else' in one 'tile.if' region
// DOUBLE:         double-else.mlir:5:6: note: first 'tile.else' here
// DOUBLE-NOT:     error
// UNTERMINATED:     unterminated.mlir:3:4: error: unterminated 'tile.if' region
// UNTERMINATED-NOT: error
// MALFORMED: malformed.mlir:2:12: error: malformed parameter condition 'RED=' (expected '// tile.if([CHIP] NAME=VALUE...):')
// MALFORMED: malformed.mlir:4:18: error: malformed parameter condition 'sm_80 sm_90a' (expected '// tile.if([CHIP] NAME=VALUE...):')
// MALFORMED: malformed.mlir:6:12: error: malformed parameter condition '' (expected '// tile.if([CHIP] NAME=VALUE...):')
// MALFORMED: malformed.mlir:8:4: error: malformed 'tile.if' line (expected '// tile.if([CHIP] NAME=VALUE...):')
// MALFORMED: malformed.mlir:9:4: error: malformed 'tile.else' line (expected '// tile.else:')
// MALFORMED: malformed.mlir:10:4: error: malformed 'tile.endif' line (expected '// tile.endif')
// MALFORMED-NOT: error
// UNDECLARED: undeclared.mlir:3:12: error: parameter 'NOPE' of the condition has no '// tile.params:' declaration
// UNDECLARED-NOT: error

//--- select.mlir
// tile.params: RED=atomic T=f32
func.func @f(%out: memref<?x${T}>) {
  // tile.if(RED=cluster):
  %a = arith.constant 1.0 : ${T}
  // tile.else:
  %b = arith.constant 2.0 : ${T}
  // tile.endif
  // tile.if(RED=cluster T=f16):
  %c = arith.constant 3.0 : ${T}
  // tile.endif
  return
}

//--- chip.mlir
// tile.params: N=2
// tile.params(sm_80): N=4
func.func @f() {
// tile.if(sm_90a):
%v = arith.constant 90 : i32
// tile.else:
%v = arith.constant 80 : i32
// tile.endif
// tile.if(sm_80 N=4):
%n = arith.constant ${N} : i32
// tile.endif
  return
}

//--- nested.mlir
// tile.params: A=0 B=0
func.func @f() {
// tile.if(A=1):
%a = arith.constant 1 : i32
  // tile.if(B=1):
  %b = arith.constant 2 : i32
  // tile.else:
  %c = arith.constant 3 : i32
  // tile.endif
%d = arith.constant 4 : i32
// tile.else:
%e = arith.constant 0 : i32
// tile.endif
  return
}

//--- dropped.mlir
// tile.params: A=0
func.func @f() {
// tile.if(A=1):
  %x = arith.constant 1 : ${UNDECLARED}
// tile.else:
  %y = arith.constant 2 : i32
// tile.endif
// tile.if(A=0):
  %z = arith.constant 3 : i32
// tile.else:
  %w = ${ALSO_UNDECLARED} : ${
// tile.endif
  return
}

//--- lines.mlir
// tile.params: MODE=a
func.func @f(%out: memref<?xf32>) {
  // tile.if(MODE=b):
  this is not mlir ${NOPE}
  nor this
  // tile.endif
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32 junk
  return
}

//--- unmatched.mlir
func.func @f() {
// tile.else:
  // tile.endif
  return
}

//--- double-else.mlir
// tile.params: A=0
func.func @f() {
  // tile.if(A=1):
  %a = arith.constant 1 : i32
  // tile.else:
  %b = arith.constant 2 : i32
  // tile.else:
  // tile.endif
  return
}

//--- unterminated.mlir
// tile.params: A=0
func.func @f() {
// tile.if(A=1):
  // tile.if(A=0):
  // tile.endif
  return
}

//--- malformed.mlir
// tile.params: RED=atomic
// tile.if(RED=):
// tile.endif
// tile.if(sm_80 sm_90a):
// tile.endif
// tile.if():
// tile.endif
// tile.if RED=atomic:
// tile.else
// tile.endif:
// tile.ifdef and tile.elsewhere are no markers
func.func @f() {
  return
}

//--- undeclared.mlir
// tile.params: RED=atomic
func.func @f() {
// tile.if(NOPE=1):
// tile.endif
  return
}
