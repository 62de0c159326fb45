//===- tensormaps.c - which arguments TMA can address -----------*- C -*-===//
//
// Checks tileRtManifestCheckTensorMaps, which decides between a kernel and
// its fallback, on every rule it enforces (base address, row pitch, sizes,
// the stricter 32-byte interleave), and tileRtManifestMapArgs, which hands
// the arguments to the fallback by name. Needs no driver.
//
// clang-format off
/*
RUN: %tile_obj/test/Runtime/tile-rt-tensormaps | FileCheck %s
CHECK: aligned: ok
CHECK-NEXT: odd address: tensor map 'A_tmap': the address of A (0x1008) is not 16-byte aligned
CHECK-NEXT: 154-byte rows: tensor map 'A_tmap': dimension 0 of A has a stride of 154 bytes, expected a multiple of 16 below 2^40
CHECK-NEXT: 3-D, 48-byte rows: tensor map 'V_tmap': dimension 1 of V has a stride of 48 bytes, expected a multiple of 32 below 2^40
CHECK-NEXT: 3-D, aligned: ok
CHECK-NEXT: empty: tensor map 'A_tmap': dimension 1 of A is 0, expected 1 to 2^32
CHECK-NEXT: mapped: C.dim0 100, A.ptr 0x1000
CHECK-NEXT: PASS
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <string.h>

static int failures;

/// Prints `what` and the check's verdict for `args`.
static void check(const char *what, const tileRtManifest *m,
                  const tileRtArgValue *args) {
  if (tileRtManifestCheckTensorMaps(m, args) == TILE_RT_SUCCESS)
    printf("%s: ok\n", what);
  else
    printf("%s: %s\n", what, tileRtErrorString());
}

static void parse(const char *text, tileRtManifest *m) {
  if (tileRtManifestParseString(text, NULL, m) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    ++failures;
  }
}

int main(void) {
  static tileRtManifest m, v, fb;
  parse("tile-launch-manifest 1\nkernel k\nbinary k.ptx ptx\n"
        "param C memref<?x?xf32> descriptor\n"
        "param A memref<?x?xf16> none\n"
        "param A_tmap tensormap A box 32x32\n"
        "block 128\ngrid x 1\n",
        &m);
  tileRtArgValue args[3];
  memset(args, 0, sizeof(args));
  args[0].ptr = 0x2000, args[0].sizes[0] = 100, args[0].sizes[1] = 64;
  args[1].ptr = 0x1000, args[1].sizes[0] = 100, args[1].sizes[1] = 64;
  check("aligned", &m, args);
  args[1].ptr = 0x1008;
  check("odd address", &m, args);
  args[1].ptr = 0x1000, args[1].sizes[1] = 77;
  check("154-byte rows", &m, args);

  // Rank 3 with 32-byte interleave: 48-byte rows are a multiple of 16
  // but not of 32.
  parse("tile-launch-manifest 1\nkernel k\nbinary k.ptx ptx\n"
        "param V memref<?x?x?xi8> none\n"
        "param V_tmap tensormap V box 2x8x32 interleave 32b\n"
        "block 128\ngrid x 1\n",
        &v);
  tileRtArgValue vargs[2];
  memset(vargs, 0, sizeof(vargs));
  vargs[0].ptr = 0x4000, vargs[0].sizes[0] = 3, vargs[0].sizes[1] = 65;
  vargs[0].sizes[2] = 48;
  check("3-D, 48-byte rows", &v, vargs);
  vargs[0].sizes[2] = 64;
  check("3-D, aligned", &v, vargs);

  args[1].sizes[1] = 0;
  check("empty", &m, args);

  parse("tile-launch-manifest 1\nkernel f\nbinary k.ptx ptx\n"
        "param A memref<?x?xf16> descriptor\n"
        "param C memref<?x?xf32> descriptor\n"
        "block 128\ngrid x 1\n",
        &fb);
  tileRtArgValue mapped[2];
  if (tileRtManifestMapArgs(&m, args, &fb, mapped) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    ++failures;
  } else {
    printf("mapped: C.dim0 %lld, A.ptr 0x%llx\n", (long long)mapped[1].sizes[0],
           (unsigned long long)mapped[0].ptr);
  }
  puts(failures ? "FAIL" : "PASS");
  return failures != 0;
}
