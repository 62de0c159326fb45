//===- fake-host.h - host-side pieces of the stand-in drivers --*- C -*-===//
//
// What the stand-ins for the CUDA driver (fake-cuda.c) and the HIP runtime
// (fake-hip.c) do alike on the host: kernels as C functions over the
// packed launch parameters (rank-2 f16 memref descriptors, seven
// arguments each), and events that read the monotonic clock. Each
// stand-in wraps these in its own API's names and error codes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_RUNTIME_FAKE_HOST_H
#define TILE_TEST_RUNTIME_FAKE_HOST_H

#include "tile-runtime/Runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// A stand-in kernel: the launch geometry and the packed parameters.
typedef void (*Kernel)(const unsigned grid[3], const unsigned block[3],
                       void **params);

/// Reads memref descriptor number `k` (seven arguments each) of a rank-2
/// kernel: aligned pointer, offset, sizes and strides.
static inline void fakeDescriptor(void **params, int k, uint16_t **ptr,
                                  int64_t v[5]) {
  memcpy(ptr, params[7 * k + 1], sizeof(*ptr));
  for (int i = 0; i < 5; ++i)
    memcpy(&v[i], params[7 * k + 2 + i], sizeof(int64_t));
}

/// C = A + B over the first three f16 descriptors of `params`, on the rows
/// and columns of C below `rows` and `cols` (the threads launched, for a
/// stand-in that honours the geometry).
static inline void fakeAdd2dF16(void **params, int64_t rows, int64_t cols) {
  uint16_t *a, *b, *c;
  int64_t da[5], db[5], dc[5];
  fakeDescriptor(params, 0, &a, da);
  fakeDescriptor(params, 1, &b, db);
  fakeDescriptor(params, 2, &c, dc);
  for (int64_t i = 0; i < dc[1] && i < rows; ++i)
    for (int64_t j = 0; j < dc[2] && j < cols; ++j) {
      float x = tileRtF16ToF32(a[da[0] + i * da[3] + j * da[4]]);
      float y = tileRtF16ToF32(b[db[0] + i * db[3] + j * db[4]]);
      c[dc[0] + i * dc[3] + j * dc[4]] = tileRtF32ToF16(x + y);
    }
}

/// C (M x N) = op(A) B (B stored K x N) over the first three f16
/// descriptors of `params`, accumulating in f32: op(A) is A stored M x K,
/// or with `transposeA` A^T of A stored K x M (the TN product, against
/// which a GEMM launched on a transposed view of A is checked).
static inline void fakeGemmF16Of(void **params, int transposeA) {
  uint16_t *a, *b, *c;
  int64_t da[5], db[5], dc[5];
  fakeDescriptor(params, 0, &a, da);
  fakeDescriptor(params, 1, &b, db);
  fakeDescriptor(params, 2, &c, dc);
  int64_t depth = transposeA ? da[1] : da[2];
  int64_t rowStride = transposeA ? da[4] : da[3];
  int64_t kStride = transposeA ? da[3] : da[4];
  for (int64_t i = 0; i < dc[1]; ++i)
    for (int64_t j = 0; j < dc[2]; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < depth; ++k)
        acc += tileRtF16ToF32(a[da[0] + i * rowStride + k * kStride]) *
               tileRtF16ToF32(b[db[0] + k * db[3] + j * db[4]]);
      c[dc[0] + i * dc[3] + j * dc[4]] = tileRtF32ToF16(acc);
    }
}

/// The NN product (fakeGemmF16Of), whatever the grid: the geometry only
/// identifies the variant launched.
static inline void fakeGemmF16(const unsigned grid[3], const unsigned block[3],
                               void **params) {
  (void)grid, (void)block;
  fakeGemmF16Of(params, 0);
}

/// The TN product (fakeGemmF16Of), whatever the grid.
static inline void fakeGemmTnF16(const unsigned grid[3],
                                 const unsigned block[3], void **params) {
  (void)grid, (void)block;
  fakeGemmF16Of(params, 1);
}

/// The blocks of `threads` threads and `shared` bytes of dynamic shared
/// memory that one stand-in multiprocessor (compute unit) of
/// `unitThreads` threads and `unitShared` bytes holds at once, with
/// `reserved` bytes set aside per block and at most 32 blocks: what the
/// occupancy queries answer, and tests of `resident_blocks` expect.
static inline int fakeBlocksPerUnit(int threads, size_t shared, int unitThreads,
                                    size_t unitShared, size_t reserved) {
  if (threads <= 0 || threads > unitThreads || shared + reserved > unitShared)
    return 0;
  int blocks = unitThreads / threads;
  if (shared + reserved > 0 &&
      (size_t)blocks > unitShared / (shared + reserved))
    blocks = (int)(unitShared / (shared + reserved));
  return blocks < 32 ? blocks : 32;
}

/// A new event (a timestamp); null when out of memory.
static inline void *fakeEventCreate(void) {
  return calloc(1, sizeof(struct timespec));
}

/// Records the monotonic clock in `event`.
static inline void fakeEventRecord(void *event) {
  clock_gettime(CLOCK_MONOTONIC, (struct timespec *)event);
}

/// Milliseconds from event `start` to event `end`.
static inline float fakeEventElapsed(const void *start, const void *end) {
  const struct timespec *s = start, *e = end;
  return (float)((e->tv_sec - s->tv_sec) * 1e3 +
                 (e->tv_nsec - s->tv_nsec) / 1e6);
}

#endif // TILE_TEST_RUNTIME_FAKE_HOST_H
