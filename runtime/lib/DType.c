//===- DType.c - element types and f16/bf16 conversions --------*- C -*-===//
//
// Element type names, sizes, and conversions between the 16-bit float
// formats and binary32, done with integer operations so that results do
// not depend on the host compiler's half-precision support.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <math.h>
#include <string.h>

static const struct {
  const char *name;
  tileRtDType dtype;
  size_t size;
} dtypeTable[] = {
    {"i1", TILE_RT_DTYPE_I1, 1},
    {"i8", TILE_RT_DTYPE_I8, 1},
    {"i16", TILE_RT_DTYPE_I16, 2},
    {"i32", TILE_RT_DTYPE_I32, 4},
    {"i64", TILE_RT_DTYPE_I64, 8},
    {"index", TILE_RT_DTYPE_INDEX, 8},
    {"f16", TILE_RT_DTYPE_F16, 2},
    {"bf16", TILE_RT_DTYPE_BF16, 2},
    {"f32", TILE_RT_DTYPE_F32, 4},
    {"f64", TILE_RT_DTYPE_F64, 8},
    {"f8E4M3FN", TILE_RT_DTYPE_F8E4M3FN, 1},
    {"f8E5M2", TILE_RT_DTYPE_F8E5M2, 1},
};

#define DTYPE_COUNT (sizeof(dtypeTable) / sizeof(dtypeTable[0]))

tileRtDType tileRtDTypeFromName(const char *name, size_t len) {
  if (!name)
    return TILE_RT_DTYPE_INVALID;
  for (size_t i = 0; i < DTYPE_COUNT; ++i)
    if (strlen(dtypeTable[i].name) == len &&
        memcmp(dtypeTable[i].name, name, len) == 0)
      return dtypeTable[i].dtype;
  return TILE_RT_DTYPE_INVALID;
}

const char *tileRtDTypeName(tileRtDType dtype) {
  for (size_t i = 0; i < DTYPE_COUNT; ++i)
    if (dtypeTable[i].dtype == dtype)
      return dtypeTable[i].name;
  return "?";
}

size_t tileRtDTypeSize(tileRtDType dtype) {
  for (size_t i = 0; i < DTYPE_COUNT; ++i)
    if (dtypeTable[i].dtype == dtype)
      return dtypeTable[i].size;
  return 0;
}

int tileRtDTypeIsFloat(tileRtDType dtype) {
  return dtype == TILE_RT_DTYPE_F16 || dtype == TILE_RT_DTYPE_BF16 ||
         dtype == TILE_RT_DTYPE_F32 || dtype == TILE_RT_DTYPE_F64 ||
         dtype == TILE_RT_DTYPE_F8E4M3FN || dtype == TILE_RT_DTYPE_F8E5M2;
}

static float bitsToFloat(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

static uint32_t floatToBits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float tileRtF16ToF32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24 is exact in binary32.
    float v = (float)mant * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exp == 0x1f) // Infinity, or NaN with its payload kept and made quiet.
    return bitsToFloat(sign | 0x7f800000u |
                       (mant ? (0x400000u | (mant << 13)) : 0));
  return bitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t tileRtF32ToF16(float value) {
  uint32_t x = floatToBits(value);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) // Infinity or NaN.
    return sign |
           (abs > 0x7f800000u ? (0x7e00u | ((abs >> 13) & 0x1ffu)) : 0x7c00u);
  int e = (int)(abs >> 23) - 127;
  uint32_t mant = abs & 0x7fffffu;
  if (e > 15)
    return sign | 0x7c00u;
  if (e >= -14) {
    // Normal half: keep 10 mantissa bits, round the 13 dropped ones to
    // nearest even; a carry may move into the exponent, up to infinity.
    uint32_t half = ((uint32_t)(e + 15) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
      ++half;
    return sign | (uint16_t)half;
  }
  // Subnormal half (or zero): the result counts units of 2^-24.
  uint32_t m = mant | 0x800000u;
  int shift = -(e + 1);
  if (shift > 24)
    return sign;
  uint32_t q = m >> shift;
  uint32_t rest = m & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (q & 1u)))
    ++q;
  return sign | (uint16_t)q;
}

float tileRtBF16ToF32(uint16_t bits) {
  return bitsToFloat((uint32_t)bits << 16);
}

uint16_t tileRtF32ToBF16(float value) {
  uint32_t x = floatToBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: truncate and make quiet.
    return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/// The fields of an 8-bit float format: mantissa bits and exponent bias.
static void f8Format(tileRtDType dtype, int *mantBits, int *bias) {
  int e4m3 = dtype == TILE_RT_DTYPE_F8E4M3FN;
  *mantBits = e4m3 ? 3 : 2;
  *bias = e4m3 ? 7 : 15;
}

/// `x` (0 <= x < 2^22) rounded to the nearest integer, ties to even: adding
/// 2^23 leaves no fraction bits in binary32 (the default rounding mode does
/// the rest), without needing libm.
static long roundHalfEven(float x) {
  volatile float shifted = x + 0x1p23f;
  return (long)(shifted - 0x1p23f);
}

float tileRtF8ToF32(tileRtDType dtype, uint8_t bits) {
  int mantBits, bias;
  f8Format(dtype, &mantBits, &bias);
  int expBits = 7 - mantBits;
  int sign = bits >> 7;
  int exp = (bits >> mantBits) & ((1 << expBits) - 1);
  int mant = bits & ((1 << mantBits) - 1);
  float v;
  if (dtype == TILE_RT_DTYPE_F8E4M3FN && exp == 15 && mant == 7)
    v = NAN;
  else if (dtype == TILE_RT_DTYPE_F8E5M2 && exp == 31)
    v = mant ? NAN : INFINITY;
  else if (exp == 0) // subnormal: mant * 2^(1 - bias - mantBits)
    v = ldexpf((float)mant, 1 - bias - mantBits);
  else
    v = ldexpf((float)((1 << mantBits) | mant), exp - bias - mantBits);
  return sign ? -v : v;
}

uint8_t tileRtF32ToF8(tileRtDType dtype, float value) {
  int mantBits, bias;
  f8Format(dtype, &mantBits, &bias);
  int e4m3 = dtype == TILE_RT_DTYPE_F8E4M3FN;
  uint8_t sign = signbit(value) ? 0x80 : 0;
  uint8_t nan = e4m3 ? 0x7f : 0x7e, inf = e4m3 ? 0x7f : 0x7c;
  if (isnan(value))
    return sign | nan;
  float a = fabsf(value);
  // The largest finite value plus half an ulp rounds up and out of range.
  float overflow = e4m3 ? 464.0f : 61440.0f;
  if (a >= overflow)
    return sign | inf;
  int e;
  frexpf(a, &e);          // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + bias; // biased exponent of a normal result
  if (a == 0.0f || exp < 1) {
    // Subnormal (or zero): a multiple of 2^(1 - bias - mantBits); a count of
    // 1 << mantBits is the smallest normal, which the same bits encode.
    long q = roundHalfEven(ldexpf(a, bias - 1 + mantBits));
    return sign | (uint8_t)q;
  }
  long q = roundHalfEven(ldexpf(a, mantBits - (e - 1))); // [2^mb, 2^(mb+1)]
  if (q == (2L << mantBits)) {
    q >>= 1;
    ++exp;
  }
  uint8_t bits = (uint8_t)((exp << mantBits) | (q & ((1 << mantBits) - 1)));
  if ((e4m3 && bits == 0x7f) || (!e4m3 && exp >= 31))
    return sign | inf;
  return sign | bits;
}

double tileRtLoadElement(tileRtDType dtype, const void *data, size_t index) {
  const unsigned char *p = (const unsigned char *)data;
  switch (dtype) {
  case TILE_RT_DTYPE_I1:
  case TILE_RT_DTYPE_I8: {
    int8_t v;
    memcpy(&v, p + index, 1);
    return v;
  }
  case TILE_RT_DTYPE_I16: {
    int16_t v;
    memcpy(&v, p + 2 * index, 2);
    return v;
  }
  case TILE_RT_DTYPE_I32: {
    int32_t v;
    memcpy(&v, p + 4 * index, 4);
    return v;
  }
  case TILE_RT_DTYPE_I64:
  case TILE_RT_DTYPE_INDEX: {
    int64_t v;
    memcpy(&v, p + 8 * index, 8);
    return (double)v;
  }
  case TILE_RT_DTYPE_F16:
  case TILE_RT_DTYPE_BF16: {
    uint16_t v;
    memcpy(&v, p + 2 * index, 2);
    return dtype == TILE_RT_DTYPE_F16 ? tileRtF16ToF32(v) : tileRtBF16ToF32(v);
  }
  case TILE_RT_DTYPE_F32: {
    float v;
    memcpy(&v, p + 4 * index, 4);
    return v;
  }
  case TILE_RT_DTYPE_F64: {
    double v;
    memcpy(&v, p + 8 * index, 8);
    return v;
  }
  case TILE_RT_DTYPE_F8E4M3FN:
  case TILE_RT_DTYPE_F8E5M2:
    return tileRtF8ToF32(dtype, p[index]);
  case TILE_RT_DTYPE_INVALID:
    break;
  }
  return NAN;
}

/// Truncates toward zero and wraps into 64 bits; NaN becomes 0 and values
/// beyond the int64 range saturate, so the conversion is always defined.
static int64_t toInt64(double value) {
  if (isnan(value))
    return 0;
  if (value >= 0x1p63)
    return INT64_MAX;
  if (value < -0x1p63)
    return INT64_MIN;
  return (int64_t)value;
}

void tileRtStoreElement(tileRtDType dtype, void *data, size_t index,
                        double value) {
  unsigned char *p = (unsigned char *)data;
  int64_t iv = toInt64(value);
  switch (dtype) {
  case TILE_RT_DTYPE_I1: {
    uint8_t v = value != 0.0;
    memcpy(p + index, &v, 1);
    return;
  }
  case TILE_RT_DTYPE_I8: {
    uint8_t v = (uint8_t)(uint64_t)iv;
    memcpy(p + index, &v, 1);
    return;
  }
  case TILE_RT_DTYPE_I16: {
    uint16_t v = (uint16_t)(uint64_t)iv;
    memcpy(p + 2 * index, &v, 2);
    return;
  }
  case TILE_RT_DTYPE_I32: {
    uint32_t v = (uint32_t)(uint64_t)iv;
    memcpy(p + 4 * index, &v, 4);
    return;
  }
  case TILE_RT_DTYPE_I64:
  case TILE_RT_DTYPE_INDEX:
    memcpy(p + 8 * index, &iv, 8);
    return;
  case TILE_RT_DTYPE_F16:
  case TILE_RT_DTYPE_BF16: {
    // Rounding double -> float -> half can round twice; doing the last step
    // from the float keeps every value that float can hold exact, which is
    // all the runtime stores (generated inputs, converted references).
    float f = (float)value;
    uint16_t v =
        dtype == TILE_RT_DTYPE_F16 ? tileRtF32ToF16(f) : tileRtF32ToBF16(f);
    memcpy(p + 2 * index, &v, 2);
    return;
  }
  case TILE_RT_DTYPE_F32: {
    float v = (float)value;
    memcpy(p + 4 * index, &v, 4);
    return;
  }
  case TILE_RT_DTYPE_F64:
    memcpy(p + 8 * index, &value, 8);
    return;
  case TILE_RT_DTYPE_F8E4M3FN:
  case TILE_RT_DTYPE_F8E5M2:
    p[index] = tileRtF32ToF8(dtype, (float)value);
    return;
  case TILE_RT_DTYPE_INVALID:
    return;
  }
}
