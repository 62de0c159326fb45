// The upstream parser of this LLVM release crashes on dense arrays of
// `index` elements instead of rejecting them; tile-opt and tile-compile
// report them at the array first, directly or through type aliases, and
// leave comments and strings alone.

// RUN: not tile-opt %s 2>&1 | FileCheck %s
// RUN: not tile-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not tile-compile %s --chip sm_80 -o %t 2>&1 | FileCheck %s

!i = index
!j = !i

// array<index: 3> in a comment is not parsed.
// CHECK-NOT: parser-traps.mlir:[[@LINE-1]]
// CHECK: parser-traps.mlir:[[@LINE+2]]:32: error: dense arrays of 'index' elements are not supported; use i64 elements (array<i64: ...>)
// STDIN: <stdin>:[[@LINE+1]]:32: error: dense arrays of 'index' elements are not supported
func.func @f() attributes {a = array<index: 4>, s = "array<index: 1>"} {
  return
}
// CHECK: parser-traps.mlir:[[@LINE+1]]:32: error: dense arrays of 'index' elements are not supported
func.func @g() attributes {a = array< !j : 4>} {
  return
}
// CHECK-NOT: error
