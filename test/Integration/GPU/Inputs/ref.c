//===- ref.c - host references for the GPU integration tests --*- C -*-===//
//
// Computes reference outputs from raw input files written by
// `tile-run --dump`, with the element conversions of the runtime:
//   tile-rt-ref add-f32 A B OUT     OUT = A + B (f32)
//   tile-rt-ref sub-f32 A B OUT     OUT = A - B (f32), a wrong reference
//   tile-rt-ref add-f16 A B OUT     OUT = f16(f32(A) + f32(B))
//   tile-rt-ref rowrev-f32 COLS A OUT  each row of COLS floats reversed
//   tile-rt-ref rowsum-f32 COLS A OUT  sum of each row of COLS floats
//   tile-rt-ref colmax-f32 COLS A OUT  maximum of each column
//   tile-rt-ref cumsum-f32 COLS A OUT  inclusive prefix sum of each row
//   tile-rt-ref softmax-f16 COLS A OUT softmax of each row of COLS halves
//   tile-rt-ref biasrelu-f32 COLS A BIAS OUT  max(A + BIAS[col], 0)
//
//===----------------------------------------------------------------------===//

#include "tile-runtime/Runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *readAll(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tile-rt-ref: cannot open '%s'\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(*size ? *size : 1);
  if (!data || fread(data, 1, *size, f) != *size) {
    fprintf(stderr, "tile-rt-ref: cannot read '%s'\n", path);
    exit(1);
  }
  fclose(f);
  return data;
}

static void writeAll(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "tile-rt-ref: cannot write '%s'\n", path);
    exit(1);
  }
}

/// The row-wise references over a row-major matrix of COLS columns.
static int matrixReference(int argc, char **argv) {
  const char *op = argv[1];
  tileRtDType dt = strstr(op, "f16") ? TILE_RT_DTYPE_F16 : TILE_RT_DTYPE_F32;
  size_t cols = (size_t)atol(argv[2]), size;
  unsigned char *a = readAll(argv[3], &size);
  size_t n = size / tileRtDTypeSize(dt), rows = cols ? n / cols : 0;
  if (strncmp(op, "biasrelu", 8) == 0) {
    if (argc != 6)
      return 2;
    size_t bsize;
    unsigned char *bias = readAll(argv[4], &bsize);
    unsigned char *out = malloc(size ? size : 1);
    for (size_t i = 0; i < n; ++i) {
      float x = (float)tileRtLoadElement(dt, a, i) +
                (float)tileRtLoadElement(dt, bias, i % cols);
      tileRtStoreElement(dt, out, i, x > 0.0f ? x : 0.0f);
    }
    writeAll(argv[5], out, size);
    return 0;
  }
  if (argc != 5)
    return 2;
  size_t outCount = strncmp(op, "rowsum", 6) == 0   ? rows
                    : strncmp(op, "colmax", 6) == 0 ? cols
                                                    : n;
  size_t outBytes = outCount * tileRtDTypeSize(dt);
  unsigned char *out = malloc(outBytes ? outBytes : 1);
  for (size_t r = 0; r < rows; ++r) {
    double acc = 0.0, max = -INFINITY;
    for (size_t c = 0; c < cols; ++c)
      if (tileRtLoadElement(dt, a, r * cols + c) > max)
        max = tileRtLoadElement(dt, a, r * cols + c);
    double total = 0.0;
    for (size_t c = 0; c < cols; ++c)
      total += exp(tileRtLoadElement(dt, a, r * cols + c) - max);
    for (size_t c = 0; c < cols; ++c) {
      double x = tileRtLoadElement(dt, a, r * cols + c);
      acc += x;
      if (strncmp(op, "cumsum", 6) == 0)
        tileRtStoreElement(dt, out, r * cols + c, acc);
      else if (strncmp(op, "softmax", 7) == 0)
        tileRtStoreElement(dt, out, r * cols + c, exp(x - max) / total);
    }
    if (strncmp(op, "rowsum", 6) == 0)
      tileRtStoreElement(dt, out, r, acc);
  }
  if (strncmp(op, "colmax", 6) == 0)
    for (size_t c = 0; c < cols; ++c) {
      double max = -INFINITY;
      for (size_t r = 0; r < rows; ++r)
        if (tileRtLoadElement(dt, a, r * cols + c) > max)
          max = tileRtLoadElement(dt, a, r * cols + c);
      tileRtStoreElement(dt, out, c, max);
    }
  writeAll(argv[4], out, outBytes);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strncmp(argv[1], "rowrev-f32", 10) == 0) {
    size_t cols = (size_t)atol(argv[2]), size;
    float *a = readAll(argv[3], &size);
    float *out = malloc(size ? size : 1);
    size_t n = size / sizeof(float);
    // A ragged last row of m < cols elements reverses those m.
    for (size_t i = 0; i < n; ++i) {
      size_t row = i / cols * cols;
      size_t m = n - row < cols ? n - row : cols;
      out[i] = a[row + (m - 1 - i % cols)];
    }
    writeAll(argv[4], out, size);
    return 0;
  }
  if (argc >= 5 && strchr(argv[1], '-') &&
      (strncmp(argv[1], "rowsum", 6) == 0 ||
       strncmp(argv[1], "colmax", 6) == 0 ||
       strncmp(argv[1], "cumsum", 6) == 0 ||
       strncmp(argv[1], "softmax", 7) == 0 ||
       strncmp(argv[1], "biasrelu", 8) == 0))
    return matrixReference(argc, argv);
  if (argc != 5) {
    fprintf(stderr, "usage: tile-rt-ref add-f32|sub-f32|add-f16 A B OUT\n"
                    "       tile-rt-ref rowrev-f32 COLS A OUT\n");
    return 2;
  }
  size_t sa, sb;
  unsigned char *a = readAll(argv[2], &sa), *b = readAll(argv[3], &sb);
  if (sa != sb) {
    fprintf(stderr, "tile-rt-ref: inputs differ in size\n");
    return 1;
  }
  unsigned char *out = malloc(sa ? sa : 1);
  tileRtDType dt =
      strstr(argv[1], "f16") ? TILE_RT_DTYPE_F16 : TILE_RT_DTYPE_F32;
  double sign = strncmp(argv[1], "sub", 3) == 0 ? -1.0 : 1.0;
  size_t n = sa / tileRtDTypeSize(dt);
  for (size_t i = 0; i < n; ++i) {
    // The sum is rounded to f32 first, as the kernels compute it.
    float x = (float)tileRtLoadElement(dt, a, i);
    float y = (float)tileRtLoadElement(dt, b, i);
    float r = x + (float)sign * y;
    tileRtStoreElement(dt, out, i, r);
  }
  writeAll(argv[4], out, sa);
  return 0;
}
