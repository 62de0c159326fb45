//===- dtype.c - element type conversions of the tile runtime -*- C -*-===//
//
// Checks the runtime's f16/bf16 <-> f32 conversions exhaustively where the
// domain is small (every 16-bit pattern round-trips) and on a dense sample
// of binary32 inputs against independent oracles: the compiler's _Float16
// where it has one, and exact nearest-even selection in double for bf16.
// It also prints named cases and the element load/store conversions.
//
// RUN: %tile_obj/test/Runtime/tile-rt-dtype | FileCheck %s
//
//===----------------------------------------------------------------------===//

#include "tile-runtime/Runtime.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static float fromBits(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static uint32_t toBits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

/// Nearest-even bf16 by exact comparison of the two neighbours in double.
static uint16_t bf16Oracle(float x) {
  uint32_t b = toBits(x);
  if (isnan(x))
    return 0;
  if (isinf(x))
    return (uint16_t)(b >> 16);
  uint32_t lo = b & 0xffff0000u;
  double dlo = fabs((double)x - (double)fromBits(lo));
  // The neighbour away from zero; past the largest finite value it stands
  // for 2^128, where IEEE rounding puts the overflow threshold.
  uint32_t hi = lo + 0x10000u;
  double vhi = (hi & 0x7fffffffu) == 0x7f800000u
                   ? copysign(ldexp(1.0, 128), (double)x)
                   : (double)fromBits(hi);
  double dhi = fabs(vhi - (double)x);
  if (dlo < dhi || (dlo == dhi && !(lo & 0x10000u)))
    return (uint16_t)(lo >> 16);
  return (uint16_t)(hi >> 16);
}

int main(void) {
  // Every non-NaN 16-bit pattern survives 16 -> 32 -> 16.
  unsigned f16Fail = 0, bf16Fail = 0, nanFail = 0;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    bool f16Nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
    bool bf16Nan = (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
    float f = tileRtF16ToF32((uint16_t)h);
    float g = tileRtBF16ToF32((uint16_t)h);
    if (f16Nan ? !isnan(f) : tileRtF32ToF16(f) != h)
      ++f16Fail;
    if (bf16Nan ? !isnan(g) : tileRtF32ToBF16(g) != h)
      ++bf16Fail;
    if (f16Nan && !isnan(tileRtF16ToF32(tileRtF32ToF16(f))))
      ++nanFail;
  }
  printf("f16 round trip: %u failures\n", f16Fail);
  printf("bf16 round trip: %u failures\n", bf16Fail);
  printf("nan stays nan: %u failures\n", nanFail);
  // CHECK: f16 round trip: 0 failures
  // CHECK: bf16 round trip: 0 failures
  // CHECK: nan stays nan: 0 failures

  // Rounding of a dense sample of binary32 patterns (every 2039th, plus the
  // patterns around each f16/bf16 rounding boundary below).
  unsigned f16Mismatch = 0, bf16Mismatch = 0, f16Checked = 0;
  for (uint64_t b = 0; b < 0x100000000ull; b += 2039) {
    for (int delta = 0; delta < 3; ++delta) {
      uint32_t bits = (uint32_t)b + (uint32_t)delta * 0x1000u - 1u;
      float x = fromBits(bits);
      if (isnan(x))
        continue;
      if (tileRtF32ToBF16(x) != bf16Oracle(x) && bf16Mismatch++ < 4)
        printf("bf16 mismatch at 0x%08x: 0x%04x, expected 0x%04x\n", bits,
               tileRtF32ToBF16(x), bf16Oracle(x));
#ifdef __FLT16_MAX__
      _Float16 h = (_Float16)x;
      uint16_t hb;
      memcpy(&hb, &h, 2);
      ++f16Checked;
      if (tileRtF32ToF16(x) != hb)
        ++f16Mismatch;
#endif
    }
  }
  printf("f32->bf16 against exact rounding: %u mismatches\n", bf16Mismatch);
  printf("f32->f16 against _Float16: %u mismatches%s\n", f16Mismatch,
         f16Checked ? "" : " (no _Float16 in this compiler)");
  // CHECK: f32->bf16 against exact rounding: 0 mismatches
  // CHECK: f32->f16 against _Float16: 0 mismatches

  static const float cases[] = {1.0f,
                                -2.5f,
                                65504.0f,
                                65519.0f,
                                65520.0f,
                                0x1p-24f,
                                0x1p-25f,
                                0x1.8p-25f,
                                0x1p-14f,
                                1.0f + 0x1p-11f,
                                1.0f + 0x3p-11f,
                                1.0f + 0x1p-8f,
                                1.0f + 0x3p-8f,
                                0x1.fffffep127f,
                                -0.0f};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    printf("%a -> f16 0x%04x bf16 0x%04x\n", (double)cases[i],
           tileRtF32ToF16(cases[i]), tileRtF32ToBF16(cases[i]));
  // CHECK: 0x1p+0 -> f16 0x3c00 bf16 0x3f80
  // CHECK: -0x1.4p+1 -> f16 0xc100 bf16 0xc020
  // CHECK: 0x1.ffcp+15 -> f16 0x7bff bf16 0x4780
  // CHECK: 0x1.ffdep+15 -> f16 0x7bff bf16 0x4780
  // CHECK: 0x1.ffep+15 -> f16 0x7c00 bf16 0x4780
  // CHECK: 0x1p-24 -> f16 0x0001 bf16 0x3380
  // CHECK: 0x1p-25 -> f16 0x0000 bf16 0x3300
  // CHECK: 0x1.8p-25 -> f16 0x0001 bf16 0x3340
  // CHECK: 0x1p-14 -> f16 0x0400 bf16 0x3880
  // CHECK: 0x1.002p+0 -> f16 0x3c00 bf16 0x3f80
  // CHECK: 0x1.006p+0 -> f16 0x3c02 bf16 0x3f80
  // CHECK: 0x1.01p+0 -> f16 0x3c04 bf16 0x3f80
  // CHECK: 0x1.03p+0 -> f16 0x3c0c bf16 0x3f82
  // CHECK: 0x1.fffffep+127 -> f16 0x7c00 bf16 0x7f80
  // CHECK: -0x0p+0 -> f16 0x8000 bf16 0x8000
  printf("nan -> f16 0x%04x bf16 0x%04x\n", tileRtF32ToF16(NAN),
         tileRtF32ToBF16(NAN));
  // CHECK: nan -> f16 0x7e00 bf16 0x7fc0
  printf("inf -> f16 0x%04x bf16 0x%04x\n", tileRtF32ToF16(-INFINITY),
         tileRtF32ToBF16(INFINITY));
  // CHECK: inf -> f16 0xfc00 bf16 0x7f80

  // Element stores and loads of every dtype.
  static const char *const names[] = {"i1",  "i8",    "i16",      "i32",
                                      "i64", "index", "f16",      "bf16",
                                      "f32", "f64",   "f8E4M3FN", "f8E5M2"};
  static const double values[] = {-1.5, 300.75, 1e30};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    tileRtDType dt = tileRtDTypeFromName(names[i], strlen(names[i]));
    unsigned char buf[64];
    printf("%s size %zu:", tileRtDTypeName(dt), tileRtDTypeSize(dt));
    for (size_t k = 0; k < 3; ++k) {
      tileRtStoreElement(dt, buf, k, values[k]);
      printf(" %.9g", tileRtLoadElement(dt, buf, k));
    }
    printf("\n");
  }
  // CHECK: i1 size 1: 1 1 1
  // CHECK: i8 size 1: -1 44 -1
  // CHECK: i16 size 2: -1 300 -1
  // CHECK: i32 size 4: -1 300 -1
  // CHECK: i64 size 8: -1 300 9.22337204e+18
  // CHECK: index size 8: -1 300 9.22337204e+18
  // CHECK: f16 size 2: -1.5 300.75 inf
  // CHECK: bf16 size 2: -1.5 300 1.00025555e+30
  // CHECK: f32 size 4: -1.5 300.75 1.00000002e+30
  // CHECK: f64 size 8: -1.5 300.75 1e+30
  // CHECK: f8E4M3FN size 1: -1.5 288 nan
  // CHECK: f8E5M2 size 1: -1.5 320 inf
  // 8-bit floats: every pattern round-trips, and binary32 rounds to the
  // nearest of the 256 decoded values (ties to an even pattern), checked
  // against an exhaustive search on a dense sample of finite inputs.
  static const tileRtDType f8Types[] = {TILE_RT_DTYPE_F8E4M3FN,
                                        TILE_RT_DTYPE_F8E5M2};
  for (size_t t = 0; t < 2; ++t) {
    tileRtDType dt = f8Types[t];
    double maxFinite = dt == TILE_RT_DTYPE_F8E4M3FN ? 448.0 : 57344.0;
    double ulpAtMax = dt == TILE_RT_DTYPE_F8E4M3FN ? 32.0 : 8192.0;
    unsigned trips = 0, mismatches = 0;
    for (unsigned b = 0; b < 256; ++b) {
      float v = tileRtF8ToF32(dt, (uint8_t)b);
      if (!isnan(v) && tileRtF32ToF8(dt, v) != b)
        ++trips;
    }
    for (int64_t i = -40000; i <= 40000; ++i) {
      float x = (float)(i * (maxFinite + ulpAtMax) / 40000.0) * 1.0000001f;
      if (fabs(x) >= maxFinite + ulpAtMax / 2)
        continue;
      int best = -1;
      double bestDist = 0;
      for (int b = 0; b < 256; ++b) {
        float v = tileRtF8ToF32(dt, (uint8_t)b);
        if (isnan(v) || isinf(v) || (v == 0 && signbit(v) != signbit(x)))
          continue;
        double d = fabs((double)v - (double)x);
        if (best < 0 || d < bestDist || (d == bestDist && !(b & 1))) {
          best = b;
          bestDist = d;
        }
      }
      if (tileRtF32ToF8(dt, x) != (unsigned)best)
        ++mismatches;
    }
    printf("%s: %u round-trip failures, %u rounding mismatches\n",
           tileRtDTypeName(dt), trips, mismatches);
  }
  // CHECK: f8E4M3FN: 0 round-trip failures, 0 rounding mismatches
  // CHECK: f8E5M2: 0 round-trip failures, 0 rounding mismatches
  printf("f8 cases: %02x %02x %02x %02x %02x\n",
         tileRtF32ToF8(TILE_RT_DTYPE_F8E4M3FN, 448.0f),
         tileRtF32ToF8(TILE_RT_DTYPE_F8E4M3FN, 0x1p-9f),
         tileRtF32ToF8(TILE_RT_DTYPE_F8E4M3FN, -1000.0f),
         tileRtF32ToF8(TILE_RT_DTYPE_F8E5M2, 57344.0f),
         tileRtF32ToF8(TILE_RT_DTYPE_F8E5M2, 0x1p-16f));
  // CHECK: f8 cases: 7e 01 ff 7b 01
  printf("unknown: %d %s\n", tileRtDTypeFromName("f17", 3),
         tileRtDTypeName(TILE_RT_DTYPE_INVALID));
  // CHECK: unknown: 0 ?
  return 0;
}
