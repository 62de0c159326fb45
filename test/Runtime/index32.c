//===- index32.c - launches of kernels built with 32-bit indices -*- C -*-===//
//
// A kernel compiled with index-bitwidth 32 (tile-compile --index-bitwidth
// 32, or a kernel file's `// tile.options(CHIP): index-bitwidth=32`)
// computes sizes, strides, offsets and coordinates in 32 bits, so the
// runtime must refuse arguments it cannot address rather than launch it to
// compute wrong addresses: every launch, through a dispatching manifest as
// tile-compile --dispatch writes it (index-bitwidth 64 at the top, the
// variants' own below) or directly, must fail with
// TILE_RT_ERROR_INVALID_ARGUMENT and a message naming the parameter and
// the limit, and launch nothing. Memrefs passed as descriptors and bare
// pointers are bounded by their element count, those the kernel does not
// receive (tensor-map sources) by each size; the same arguments launch
// where the kernel was built with 64-bit indices. On the stand-in driver,
// with fake addresses (the `nop` kernel reads nothing); the manifests are
// written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   %tile_obj/test/Runtime/tile-rt-index32 %t | FileCheck %s
CHECK: small, 32-bit: launched v32
CHECK-NEXT: C of 2^31 elements, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg2: 2147483648 elements, expected at most 2147483647 so that strides and offsets fit index-bitwidth 32
CHECK-NEXT: C of 2^31-8 elements, 32-bit: launched v32
CHECK-NEXT: A of 2^32 elements in 65536 rows, 32-bit: launched v32
CHECK-NEXT: A with 2^31 rows, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg0: dimension 0 is 2147483648, expected at most 2147483647 (index-bitwidth 32)
CHECK-NEXT: B with 2^31 columns, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg1: dimension 1 is 2147483648, expected at most 2147483647 (index-bitwidth 32)
CHECK-NEXT: fallback, C of 2^31 elements, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg2: 2147483648 elements, expected at most 2147483647 so that strides and offsets fit index-bitwidth 32
CHECK-NEXT: fallback, A of 2^32 elements, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg0: 4294967296 elements, expected at most 2147483647 so that strides and offsets fit index-bitwidth 32
CHECK-NEXT: C of 2^31 elements, 64-bit: launched v64
CHECK-NEXT: A with 2^31 rows, 64-bit: launched v64
CHECK-NEXT: bare of 2^31 elements, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: X: 2147483648 elements, expected at most 2147483647 so that element offsets fit index-bitwidth 32
CHECK-NEXT: bare of 2^31-65536 elements, 32-bit: launched bare
CHECK-NEXT: bare of 2^31 elements, 64-bit: launched bare64
CHECK-NEXT: prepared, C of 2^31 elements, 32-bit: TILE_RT_ERROR_INVALID_ARGUMENT: arg2: 2147483648 elements, expected at most 2147483647 so that strides and offsets fit index-bitwidth 32
CHECK-NEXT: PASS
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FakeLastLaunch lastLaunch;

static long launchCount(unsigned *block) {
  unsigned grid[3], blk[3];
  void *stream;
  long count;
  lastLaunch(grid, blk, &stream, &count);
  if (block)
    *block = blk[0];
  return count;
}

/// The block size names the kernel that ran: 32 for the variant built
/// with 32-bit indices, 64 for the one with 64-bit, 96 and 160 for their
/// fallbacks (which must never run here), 128 and 256 for the bare
/// kernels.
static const char *kernelOfBlock(unsigned block) {
  switch (block) {
  case 32:
    return "v32";
  case 64:
    return "v64";
  case 96:
    return "v32 fallback";
  case 160:
    return "v64 fallback";
  case 128:
    return "bare";
  case 256:
    return "bare64";
  }
  return "?";
}

/// Launches `k` on `args`: prints the kernel that ran, or the error (which
/// must be TILE_RT_ERROR_INVALID_ARGUMENT and launch nothing).
static void launch(tileRtKernel *k, const tileRtArgValue *args,
                   const char *what) {
  long before = launchCount(NULL);
  tileRtStatus s = tileRtKernelLaunchOnStream(k, args, NULL);
  unsigned block;
  long after = launchCount(&block);
  if (s == TILE_RT_SUCCESS) {
    if (after != before + 1) {
      printf("FAIL: %s: succeeded but launched %ld kernels\n", what,
             after - before);
      ++failures;
      return;
    }
    printf("%s: launched %s\n", what, kernelOfBlock(block));
    return;
  }
  if (after != before) {
    printf("FAIL: %s: failed but launched\n", what);
    ++failures;
  }
  if (s != TILE_RT_ERROR_INVALID_ARGUMENT) {
    printf("FAIL: %s: %s\n", what, tileRtStatusName(s));
    ++failures;
  }
  printf("%s: %s: %s\n", what, tileRtStatusName(s), tileRtErrorString());
}

/// Sets the three GEMM arguments (M x K, K x N, M x N) at fake, 256-byte
/// aligned addresses.
static void gemmArgs(tileRtArgValue *args, int64_t m, int64_t n, int64_t k) {
  memset(args, 0, sizeof(tileRtArgValue) * 3);
  for (int i = 0; i < 3; ++i)
    args[i].ptr = 0x100000 * (uint64_t)(i + 1);
  args[0].sizes[0] = m;
  args[0].sizes[1] = k;
  args[1].sizes[0] = k;
  args[1].sizes[1] = n;
  args[2].sizes[0] = m;
  args[2].sizes[1] = n;
}

// The shape of the sm_90a library GEMM's manifests: one matrix passed as
// a descriptor, two reaching the kernel only through tensor maps; the
// fallback takes all three as descriptors. Formatted with the index
// width, the block size and the fallback line.
static const char *kVariant =
    "tile-launch-manifest 1\n"
    "kernel nop\n"
    "binary ../k.ptx ptx\n"
    "index-bitwidth %d\n"
    "param arg2 memref<?x?xf16> descriptor\n"
    "param arg0 memref<?x?xf16> none\n"
    "param arg0_tmap0 tensormap arg0 box 64x64 swizzle 128b\n"
    "param arg1 memref<?x?xf16> none\n"
    "param arg1_tmap0 tensormap arg1 box 64x64 swizzle 128b\n"
    "block %d\n"
    "grid x ceildiv(arg2.dim1, 64)\n"
    "grid y ceildiv(arg2.dim0, 64)\n"
    "%s";

static const char *kFallback = "tile-launch-manifest 1\n"
                               "kernel nop\n"
                               "binary ../k.ptx ptx\n"
                               "index-bitwidth %d\n"
                               "param arg0 memref<?x?xf16> descriptor\n"
                               "param arg1 memref<?x?xf16> descriptor\n"
                               "param arg2 memref<?x?xf16> descriptor\n"
                               "block %d\n"
                               "grid x ceildiv(arg2.dim1, 64)\n"
                               "grid y ceildiv(arg2.dim0, 64)\n";

static const char *kDispatch = "tile-launch-manifest 2\n"
                               "param arg0 memref<?x?xf16> none\n"
                               "param arg1 memref<?x?xf16> none\n"
                               "param arg2 memref<?x?xf16> none\n"
                               "variant %s/k.manifest\n";

static void writeGemm(const char *dir, const char *name, int bits, int block,
                      int fallbackBlock) {
  char sub[1024], text[2048];
  snprintf(sub, sizeof(sub), "%s/%s", dir, name);
  char command[1200];
  snprintf(command, sizeof(command), "mkdir -p '%s'", sub);
  if (system(command) != 0) {
    printf("FAIL: cannot create %s\n", sub);
    exit(1);
  }
  snprintf(text, sizeof(text), kVariant, bits, block,
           "fallback k.fallback.manifest\n");
  writeFile(sub, "k.manifest", text);
  snprintf(text, sizeof(text), kFallback, bits, fallbackBlock);
  writeFile(sub, "k.fallback.manifest", text);
  char dispatch[64];
  snprintf(dispatch, sizeof(dispatch), "%s.manifest", name);
  snprintf(text, sizeof(text), kDispatch, name);
  writeFile(dir, dispatch, text);
}

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-index32");
  if (!dir)
    return 2;
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  if (startStandInDriver(lastLaunch != NULL))
    return 1;
  writeFile(dir, "k.ptx", ".visible .entry nop() { ret; }\n");
  writeGemm(dir, "v32", 32, 32, 96);
  writeGemm(dir, "v64", 64, 64, 160);
  tileRtKernel *v32 = loadKernel(dir, "v32.manifest");
  tileRtKernel *v64 = loadKernel(dir, "v64.manifest");

  const int64_t big = (int64_t)1 << 31;
  tileRtArgValue args[3];
  gemmArgs(args, 128, 256, 64);
  launch(v32, args, "small, 32-bit");
  // C (a descriptor): its element count bounds its strides and offsets.
  gemmArgs(args, 32768, 65536, 64);
  launch(v32, args, "C of 2^31 elements, 32-bit");
  gemmArgs(args, 1, big - 8, 64);
  launch(v32, args, "C of 2^31-8 elements, 32-bit");
  // A and B (tensor-map sources): TMA computes their addresses; only the
  // coordinates, one per dimension, are the kernel's.
  gemmArgs(args, 65536, 64, 65536);
  launch(v32, args, "A of 2^32 elements in 65536 rows, 32-bit");
  gemmArgs(args, big, 64, 64);
  args[2].sizes[0] = 64; // C small: only A is out of range
  launch(v32, args, "A with 2^31 rows, 32-bit");
  gemmArgs(args, 64, big, 64);
  args[2].sizes[1] = 64;
  launch(v32, args, "B with 2^31 columns, 32-bit");
  // Rows TMA cannot address (unaligned A) send the launch to the
  // fallback, which takes all three as descriptors: checked too.
  gemmArgs(args, 32768, 65536, 64);
  args[0].ptr += 2;
  launch(v32, args, "fallback, C of 2^31 elements, 32-bit");
  gemmArgs(args, 65536, 64, 65536);
  args[0].ptr += 2;
  launch(v32, args, "fallback, A of 2^32 elements, 32-bit");
  // The same arguments where the kernel has 64-bit indices.
  gemmArgs(args, 32768, 65536, 64);
  launch(v64, args, "C of 2^31 elements, 64-bit");
  gemmArgs(args, big, 64, 64);
  args[2].sizes[0] = 64;
  launch(v64, args, "A with 2^31 rows, 64-bit");

  // A bare pointer: the kernel computes element offsets from it.
  const char *bare = "tile-launch-manifest 1\n"
                     "kernel nop\n"
                     "binary k.ptx ptx\n"
                     "index-bitwidth %d\n"
                     "param X memref<?x?xf32> bare\n"
                     "param n index\n"
                     "block %d\n"
                     "grid x ceildiv(X.dim0, 1024)\n";
  char text[512];
  snprintf(text, sizeof(text), bare, 32, 128);
  writeFile(dir, "bare.manifest", text);
  snprintf(text, sizeof(text), bare, 64, 256);
  writeFile(dir, "bare64.manifest", text);
  tileRtKernel *b32 = loadKernel(dir, "bare.manifest");
  tileRtKernel *b64 = loadKernel(dir, "bare64.manifest");
  tileRtArgValue x[2];
  memset(x, 0, sizeof(x));
  x[0].ptr = 0x100000;
  x[0].sizes[0] = 65536;
  x[0].sizes[1] = 32768;
  launch(b32, x, "bare of 2^31 elements, 32-bit");
  x[0].sizes[1] = 32767;
  launch(b32, x, "bare of 2^31-65536 elements, 32-bit");
  x[0].sizes[1] = 32768;
  launch(b64, x, "bare of 2^31 elements, 64-bit");

  // A prepared launch checks as much.
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  gemmArgs(args, 32768, 65536, 64);
  tileRtStatus s = tileRtKernelPrepare(v32, args, &config, &packed);
  tileRtPackedParamsFree(&packed);
  if (s == TILE_RT_SUCCESS) {
    printf("FAIL: prepared a launch of C of 2^31 elements, 32-bit\n");
    ++failures;
  } else {
    printf("prepared, C of 2^31 elements, 32-bit: %s: %s\n",
           tileRtStatusName(s), tileRtErrorString());
  }

  tileRtKernelDestroy(v32);
  tileRtKernelDestroy(v64);
  tileRtKernelDestroy(b32);
  tileRtKernelDestroy(b64);
  if (failures)
    return 1;
  printf("PASS\n");
  return 0;
}
