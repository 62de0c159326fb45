// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-fuse-lop3))' | FileCheck %s

// An i32 AND with a constant whose only use is an OR with a constant
// becomes one lop3.b32 with both constants; the other shapes stay. The PTX
// of a kernel that unpacks nibbles this way is checked in
// test/Kernels/gemv_w4a16.test.

module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @kernels
  gpu.module @kernels {
    // CHECK-LABEL: llvm.func @fused
    // CHECK-SAME:  (%[[X:.+]]: i32)
    // CHECK-NOT:   llvm.and
    // CHECK-NOT:   llvm.or
    // CHECK:       %[[R:.+]] = llvm.inline_asm "lop3.b32 $0, $1, 983055, 1677747200, 0xEA;", "=r,r" %[[X]] : (i32) -> i32
    // CHECK:       llvm.return %[[R]]
    llvm.func @fused(%x: i32) -> i32 {
      %m = llvm.mlir.constant(983055 : i32) : i32
      %h = llvm.mlir.constant(1677747200 : i32) : i32
      %a = llvm.and %x, %m : i32
      %o = llvm.or %h, %a : i32
      llvm.return %o : i32
    }
    // The AND used elsewhere too, a variable OR operand and a 64-bit pair
    // are left alone.
    // CHECK-LABEL: llvm.func @kept
    // CHECK-NOT:   llvm.inline_asm
    // CHECK-COUNT-3: llvm.or
    llvm.func @kept(%x: i32, %y: i32, %z: i64) -> !llvm.struct<(i32, i32, i32, i64)> {
      %m = llvm.mlir.constant(15 : i32) : i32
      %h = llvm.mlir.constant(1024 : i32) : i32
      %a = llvm.and %x, %m : i32
      %o = llvm.or %a, %h : i32
      %b = llvm.and %y, %m : i32
      %p = llvm.or %b, %y : i32
      %m64 = llvm.mlir.constant(15 : i64) : i64
      %h64 = llvm.mlir.constant(1024 : i64) : i64
      %c = llvm.and %z, %m64 : i64
      %q = llvm.or %c, %h64 : i64
      %r = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i64)>
      %r0 = llvm.insertvalue %o, %r[0] : !llvm.struct<(i32, i32, i32, i64)>
      %r1 = llvm.insertvalue %a, %r0[1] : !llvm.struct<(i32, i32, i32, i64)>
      %r2 = llvm.insertvalue %p, %r1[2] : !llvm.struct<(i32, i32, i32, i64)>
      %r3 = llvm.insertvalue %q, %r2[3] : !llvm.struct<(i32, i32, i32, i64)>
      llvm.return %r3 : !llvm.struct<(i32, i32, i32, i64)>
    }
  }
  // A module for an AMD chip keeps its AND and OR (v_and_or_b32).
  // CHECK-LABEL: gpu.module @amd
  // CHECK:       llvm.and
  // CHECK:       llvm.or
  gpu.module @amd [#rocdl.target<chip = "gfx942">] {
    llvm.func @fused(%x: i32) -> i32 {
      %m = llvm.mlir.constant(983055 : i32) : i32
      %h = llvm.mlir.constant(1677747200 : i32) : i32
      %a = llvm.and %x, %m : i32
      %o = llvm.or %a, %h : i32
      llvm.return %o : i32
    }
  }
}
