//===- launch-cache.c - reuse of a launch's preparation ---------*- C -*-===//
//
// tileRtKernelLaunchOnStream keeps what it chose, packed and encoded for a
// launch and reuses it when the next launch's arguments are the same. On
// the stand-in driver, which counts the tensor maps it encodes
// (fakeCudaTensorMapEncodes) and whose kernels read host memory, this
// checks that identical arguments encode nothing again, and that a new
// pointer, new sizes or a new scalar value take effect: outputs are
// poisoned before each launch and checked, including the elements a launch
// must leave alone. The manifests are written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   %tile_obj/test/Runtime/tile-rt-launch-cache %t | FileCheck %s
CHECK: first launch: 1 encoded, C = A1 + B
CHECK-NEXT: same arguments: 0 encoded, C = A1 + B
CHECK-NEXT: A moved to A2: 1 encoded, C = A2 + B
CHECK-NEXT: same arguments: 0 encoded, C = A2 + B
CHECK-NEXT: 3 rows of 4: 1 encoded, C = A2 + B
CHECK-NEXT: misaligned A: tensor map 'A_tmap': the address of A ({{.*}}) is not 16-byte aligned (and {{.*}}tma.manifest names no fallback kernel)
CHECK-NEXT: A1 again: 1 encoded, C = A1 + B
CHECK-NEXT: n = 16: C = A + B
CHECK-NEXT: n = 8: C = A + B
CHECK-NEXT: n = 8 again: C = A + B
CHECK-NEXT: n = 16 again: C = A + B
CHECK-NEXT: dispatch, M = 8: block 64
CHECK-NEXT: dispatch, M = 8 again: block 64
CHECK-NEXT: dispatch, M = 100: block 256
CHECK-NEXT: dispatch, M = 8 again: block 64
CHECK-NEXT: zero, launch: Y zeroed
CHECK-NEXT: zero, launch again: Y zeroed
CHECK-NEXT: zero, empty grid: Y zeroed
CHECK-NEXT: zero, prepared launch: Y zeroed
CHECK-NEXT: PASS
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRows = 4, kCols = 8 };

static long (*encodes)(void);
static FakeLastLaunch lastLaunch;
static long encodedBefore;

/// Memory with a 256-byte aligned start, as the driver allocates.
static void *alloc(size_t bytes) {
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) {
    printf("FAIL: out of memory\n");
    exit(1);
  }
  return p;
}

static uint64_t address(const void *p) { return (uint64_t)(uintptr_t)p; }

/// Launches the add kernel on `args` (C poisoned first) and checks that
/// the first `rows` rows of C hold A + B and the others the poison.
static void launchAdd(tileRtKernel *k, tileRtArgValue *args, const char *what,
                      const uint16_t *a, const char *aName, const uint16_t *b,
                      uint16_t *c, int rows) {
  memset(c, 0xff, sizeof(uint16_t) * kRows * kCols);
  encodedBefore = encodes();
  if (tileRtKernelLaunchOnStream(k, args, NULL) != TILE_RT_SUCCESS) {
    printf("%s: %s\n", what, tileRtErrorString());
    return;
  }
  int ok = 1;
  for (int i = 0; i < kRows * kCols; ++i) {
    uint16_t want =
        i / kCols < rows
            ? tileRtF32ToF16(tileRtF16ToF32(a[i]) + tileRtF16ToF32(b[i]))
            : 0xffff;
    if (c[i] != want) {
      printf("FAIL: %s: C[%d] is 0x%04x, expected 0x%04x\n", what, i, c[i],
             want);
      ++failures;
      ok = 0;
      break;
    }
  }
  if (ok)
    printf("%s: %ld encoded, C = %s + B\n", what, encodes() - encodedBefore,
           aName);
}

/// Launches vadd_f32 over `n` elements (C poisoned first) and checks that
/// exactly the first `n` of C hold A + B.
static void launchVadd(tileRtKernel *k, tileRtArgValue *args, int n,
                       const char *what, const float *a, const float *b,
                       float *c) {
  memset(c, 0xff, sizeof(float) * 16);
  args[3].i = n;
  if (tileRtKernelLaunchOnStream(k, args, NULL) != TILE_RT_SUCCESS) {
    printf("FAIL: %s: %s\n", what, tileRtErrorString());
    ++failures;
    return;
  }
  for (int i = 0; i < 16; ++i) {
    uint32_t bits;
    memcpy(&bits, &c[i], sizeof(bits));
    int good = i < n ? c[i] == a[i] + b[i] : bits == 0xffffffffu;
    if (!good) {
      printf("FAIL: %s: C[%d] is %g (bits 0x%08x)\n", what, i, c[i],
             (unsigned)bits);
      ++failures;
      return;
    }
  }
  printf("%s: C = A + B\n", what);
}

static void launchDispatch(tileRtKernel *k, tileRtArgValue *args, int64_t m,
                           const char *what) {
  args[0].sizes[0] = m;
  if (tileRtKernelLaunchOnStream(k, args, NULL) != TILE_RT_SUCCESS) {
    printf("FAIL: %s: %s\n", what, tileRtErrorString());
    ++failures;
    return;
  }
  unsigned grid[3], block[3];
  void *stream;
  long count;
  lastLaunch(grid, block, &stream, &count);
  printf("%s: block %u\n", what, block[0]);
}

/// A `zero` output is zeroed on the stream before every launch, from the
/// cache, through a prepared launch, and also where the grid is empty
/// (n = 0: the nop kernel does not run). `y` holds 16 floats: the first 12
/// are the output, the other 4 must stay untouched.
static void checkZeroedOutput(const char *dir, float *y) {
  tileRtKernel *zero = writeAndLoad(dir, "zero.manifest",
                                    "tile-launch-manifest 1\n"
                                    "kernel nop\n"
                                    "binary k.ptx ptx\n"
                                    "param Y memref<?xf32> descriptor\n"
                                    "param n index\n"
                                    "zero Y\n"
                                    "block 32\n"
                                    "grid x n\n");
  tileRtArgValue zargs[2] = {{.ptr = address(y), .sizes = {12}}};
  const char *zeroCases[] = {"zero, launch", "zero, launch again",
                             "zero, empty grid", "zero, prepared launch"};
  for (int t = 0; t < 4; ++t) {
    memset(y, 0xff, sizeof(float) * 16);
    zargs[1].i = t == 2 ? 0 : 1;
    tileRtStatus s;
    if (t < 3) {
      s = tileRtKernelLaunchOnStream(zero, zargs, NULL);
    } else {
      tileRtLaunchConfig config;
      tileRtPackedParams packed;
      s = tileRtKernelPrepare(zero, zargs, &config, &packed);
      if (s == TILE_RT_SUCCESS)
        s = tileRtKernelLaunchPreparedOnStream(zero, &config, &packed, NULL);
      tileRtPackedParamsFree(&packed);
    }
    int zeros = 0, untouched = 0;
    for (int i = 0; i < 16; ++i) {
      uint32_t bits;
      memcpy(&bits, &y[i], sizeof(bits));
      zeros += i < 12 && bits == 0;
      untouched += i >= 12 && bits == 0xffffffffu;
    }
    if (s != TILE_RT_SUCCESS || zeros != 12 || untouched != 4) {
      printf("FAIL: %s: %s, %d of 12 zeroed, %d of 4 untouched\n", zeroCases[t],
             s == TILE_RT_SUCCESS ? "ok" : tileRtErrorString(), zeros,
             untouched);
      ++failures;
      continue;
    }
    printf("%s: Y zeroed\n", zeroCases[t]);
  }
  tileRtKernelDestroy(zero);
}

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-launch-cache");
  if (!dir)
    return 2;
  encodes = (long (*)(void))fakeDriverSymbol("fakeCudaTensorMapEncodes");
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  if (startStandInDriver(encodes && lastLaunch))
    return 1;
  writeFile(dir, "k.ptx", ".visible .entry k() { ret; }\n");

  // C = A + B with A read through a tensor map.
  tileRtKernel *tma = writeAndLoad(dir, "tma.manifest", addTmaManifest("", ""));
  size_t bytes = sizeof(uint16_t) * kRows * kCols;
  uint16_t *a1 = alloc(bytes), *a2 = alloc(bytes), *b = alloc(bytes),
           *c = alloc(bytes);
  for (int i = 0; i < kRows * kCols; ++i) {
    a1[i] = tileRtF32ToF16((float)i);
    a2[i] = tileRtF32ToF16((float)(100 - i));
    b[i] = tileRtF32ToF16(0.5f * (float)i);
  }
  tileRtArgValue args[4];
  memset(args, 0, sizeof(args));
  args[0].ptr = address(a1);
  args[1].ptr = address(b);
  args[2].ptr = address(c);
  for (int i = 0; i < 3; ++i) {
    args[i].sizes[0] = kRows;
    args[i].sizes[1] = kCols;
  }
  launchAdd(tma, args, "first launch", a1, "A1", b, c, kRows);
  launchAdd(tma, args, "same arguments", a1, "A1", b, c, kRows);
  args[0].ptr = address(a2);
  launchAdd(tma, args, "A moved to A2", a2, "A2", b, c, kRows);
  launchAdd(tma, args, "same arguments", a2, "A2", b, c, kRows);
  // Fewer rows: the descriptors' sizes and the map's change, and the grid
  // covers only the rows given; the last row of C keeps its poison.
  for (int i = 0; i < 3; ++i)
    args[i].sizes[0] = kRows - 1;
  launchAdd(tma, args, "3 rows of 4", a2, "A2", b, c, kRows - 1);
  // A failed preparation leaves nothing to reuse: the next launch with
  // good arguments encodes again.
  for (int i = 0; i < 3; ++i)
    args[i].sizes[0] = kRows;
  args[0].ptr = address(a1) + 2;
  launchAdd(tma, args, "misaligned A", a1, "A1", b, c, kRows);
  args[0].ptr = address(a1);
  launchAdd(tma, args, "A1 again", a1, "A1", b, c, kRows);
  tileRtKernelDestroy(tma);

  // A scalar: vadd_f32 adds the first n elements.
  tileRtKernel *vadd = writeAndLoad(dir, "vadd.manifest",
                                    "tile-launch-manifest 1\n"
                                    "kernel vadd_f32\n"
                                    "binary k.ptx ptx\n"
                                    "param A memref<16xf32> bare\n"
                                    "param B memref<16xf32> bare\n"
                                    "param C memref<16xf32> bare\n"
                                    "param n i32\n"
                                    "block 32\n"
                                    "grid x 1\n");
  float *fa = alloc(64), *fb = alloc(64), *fc = alloc(64);
  for (int i = 0; i < 16; ++i) {
    fa[i] = (float)i;
    fb[i] = 0.25f * (float)i;
  }
  tileRtArgValue vargs[4];
  memset(vargs, 0, sizeof(vargs));
  vargs[0].ptr = address(fa);
  vargs[1].ptr = address(fb);
  vargs[2].ptr = address(fc);
  for (int i = 0; i < 3; ++i)
    vargs[i].sizes[0] = 16;
  launchVadd(vadd, vargs, 16, "n = 16", fa, fb, fc);
  launchVadd(vadd, vargs, 8, "n = 8", fa, fb, fc);
  launchVadd(vadd, vargs, 8, "n = 8 again", fa, fb, fc);
  launchVadd(vadd, vargs, 16, "n = 16 again", fa, fb, fc);
  tileRtKernelDestroy(vadd);

  // The variant follows the sizes, also right after a reused launch.
  const char *variant = "tile-launch-manifest 1\n"
                        "kernel nop\n"
                        "binary k.ptx ptx\n"
                        "param M memref<?x?xf16> descriptor\n"
                        "block %d\n"
                        "grid x 1\n";
  char text[256];
  snprintf(text, sizeof(text), variant, 64);
  writeFile(dir, "small.manifest", text);
  snprintf(text, sizeof(text), variant, 256);
  writeFile(dir, "big.manifest", text);
  tileRtKernel *dispatch =
      writeAndLoad(dir, "dispatch.manifest",
                   "tile-launch-manifest 2\n"
                   "param M memref<?x?xf16> none\n"
                   "variant small.manifest when M.dim0 <= 64\n"
                   "variant big.manifest\n");
  tileRtArgValue dargs[1] = {{.ptr = address(c), .sizes = {0, 2}}};
  launchDispatch(dispatch, dargs, 8, "dispatch, M = 8");
  launchDispatch(dispatch, dargs, 8, "dispatch, M = 8 again");
  launchDispatch(dispatch, dargs, 100, "dispatch, M = 100");
  launchDispatch(dispatch, dargs, 8, "dispatch, M = 8 again");
  tileRtKernelDestroy(dispatch);

  checkZeroedOutput(dir, fc);

  free(a1);
  free(a2);
  free(b);
  free(c);
  free(fa);
  free(fb);
  free(fc);
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
