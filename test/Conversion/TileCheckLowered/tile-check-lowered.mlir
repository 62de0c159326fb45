// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-check-lowered))' -split-input-file -verify-diagnostics | FileCheck %s

// A module of LLVM operations and its vendor's passes unchanged: NVVM
// without a target (or with an NVIDIA one), ROCDL with a #rocdl.target.

// CHECK-LABEL: gpu.module @nvidia
// CHECK: nvvm.read.ptx.sreg.tid.x
gpu.module @nvidia {
  llvm.func @k(%p: !llvm.ptr) {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    llvm.store %t, %p : i32, !llvm.ptr
    llvm.return
  }
}

// CHECK-LABEL: gpu.module @amd
// CHECK: rocdl.workitem.id.x
gpu.module @amd [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr) {
    %t = rocdl.workitem.id.x : i32
    llvm.store %t, %p : i32, !llvm.ptr
    llvm.return
  }
}

// -----

// The other vendor's intrinsics would abort the backend's instruction
// selection.
gpu.module @rocdl_for_nvidia {
  llvm.func @k(%p: !llvm.ptr) {
    // expected-error @below {{'rocdl.workitem.id.x' is an AMD operation, in a module compiled for an NVIDIA chip}}
    %t = rocdl.workitem.id.x : i32
    llvm.store %t, %p : i32, !llvm.ptr
    llvm.return
  }
}

// -----

gpu.module @nvvm_for_amd [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr) {
    // expected-error @below {{'nvvm.read.ptx.sreg.tid.x' is an NVIDIA operation, in a module compiled for an AMD chip}}
    %t = nvvm.read.ptx.sreg.tid.x : i32
    llvm.store %t, %p : i32, !llvm.ptr
    llvm.return
  }
}

// -----

// An operation no conversion handled is reported where it is written, with
// its types; the casts its conversion left around it are not.
gpu.module @math_on_fp8 {
  llvm.func @k(%p: !llvm.ptr) {
    %0 = llvm.load %p : !llvm.ptr -> i8
    %1 = builtin.unrealized_conversion_cast %0 : i8 to f8E4M3FNUZ
    // expected-error @below {{no lowering to LLVM for 'math.tanh' on f8E4M3FNUZ}}
    %2 = math.tanh %1 : f8E4M3FNUZ
    %3 = builtin.unrealized_conversion_cast %2 : f8E4M3FNUZ to i8
    llvm.store %3, %p : i8, !llvm.ptr
    llvm.return
  }
}

// -----

// Every such operation is reported, each with its operand and result types.
gpu.module @two {
  llvm.func @k(%x: f32, %p: !llvm.ptr) {
    // expected-error @below {{no lowering to LLVM for 'math.erfc' on f32}}
    %e = math.erfc %x : f32
    // expected-error @below {{no lowering to LLVM for 'arith.fptosi' on f32, i16}}
    %i = arith.fptosi %e : f32 to i16
    llvm.store %i, %p : i16, !llvm.ptr
    llvm.return
  }
}

// -----

// A cast left with no unlowered operation behind it names the type it could
// not convert.
gpu.module @cast_only {
  llvm.func @k(%p: !llvm.ptr) {
    %0 = llvm.load %p : !llvm.ptr -> i8
    // expected-error @below {{no lowering to LLVM for a value of type 'f8E5M2' (an unrealized conversion cast from 'i8' is left)}}
    %1 = builtin.unrealized_conversion_cast %0 : i8 to f8E5M2
    %2 = builtin.unrealized_conversion_cast %1 : f8E5M2 to i8
    llvm.store %2, %p : i8, !llvm.ptr
    llvm.return
  }
}
