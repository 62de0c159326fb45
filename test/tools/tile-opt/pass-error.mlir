// Some upstream conversions report an error and still succeed, such as
// memref-to-LLVM on a memory space it cannot map (reported without a
// location). tile-opt fails the run on any error a pass reports, where
// mlir-opt would exit 0.

// RUN: not tile-opt --finalize-memref-to-llvm %s -o %t 2>&1 | FileCheck %s
// RUN: not test -e %t
// CHECK: error: conversion of memref memory space #gpu.address_space<workgroup> to integer address space failed

func.func @workgroup_alloca() {
  %a = memref.alloca() : memref<4xf32, #gpu.address_space<workgroup>>
  return
}
