//===- runtime-api.c - the tile runtime's C API, end to end ----*- C -*-===//
//
// Drives the runtime through its public API: initialisation, device
// queries, allocation and copies, module loading from PTX, function
// lookup, launches with the low-level API and timing events, tensor map
// encoding, and the error paths (calls before tileRtInit, a missing kernel,
// a malformed image, an invalid launch), each of which must name the driver
// call and the driver's error. Without a driver or device it prints
// "SKIP: ..." and succeeds; test/Integration/GPU runs it on a GPU.
//
// Argument: the PTX of test/Integration/GPU/Inputs/kernels.cu.
//
// clang-format off
/*
RUN: %tile_obj/test/Runtime/tile-rt-runtime-api \
RUN:   %S/../Integration/GPU/Inputs/kernels.ptx | FileCheck %s --check-prefix=ANY
ANY: before init: TILE_RT_ERROR_NOT_INITIALIZED: tileRtMalloc needs tileRtInit first
ANY: {{^(SKIP: no CUDA (driver|device)|PASS)}}

RUN: env TILE_RT_CUDA_DRIVER=/nonexistent/libcuda.so.1 \
RUN:   %tile_obj/test/Runtime/tile-rt-runtime-api | FileCheck %s --check-prefix=NODRIVER
NODRIVER: SKIP: no CUDA driver: TILE_RT_ERROR_NO_DRIVER: cannot load the CUDA driver '/nonexistent/libcuda.so.1': {{.*}}
NODRIVER: count: TILE_RT_ERROR_NO_DRIVER

A library that is not the driver is refused by the first missing entry point.
RUN: env TILE_RT_CUDA_DRIVER=libm.so.6 \
RUN:   %tile_obj/test/Runtime/tile-rt-runtime-api | FileCheck %s --check-prefix=NOTDRIVER
NOTDRIVER: SKIP: no CUDA driver: TILE_RT_ERROR_NO_DRIVER: the CUDA driver 'libm.so.6' lacks the entry point 'cuGetErrorName'
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  tileRtDevicePtr ptr = 0;
  expectError(tileRtMalloc(16, &ptr), "before init");

  tileRtStatus s = tileRtInit(0);
  if (s == TILE_RT_ERROR_NO_DRIVER || s == TILE_RT_ERROR_NO_DEVICE) {
    printf("SKIP: no CUDA %s: %s: %s\n",
           s == TILE_RT_ERROR_NO_DRIVER ? "driver" : "device",
           tileRtStatusName(s), tileRtErrorString());
    int count = -1;
    s = tileRtDeviceCount(&count);
    printf("count: %s %d\n", tileRtStatusName(s), count);
    return 0;
  }
  expectOk(s, "tileRtInit");
  if (s != TILE_RT_SUCCESS)
    return 1;
  expectOk(tileRtInit(0), "tileRtInit again");

  int count = 0, major = 0, minor = 0;
  char name[256];
  expectOk(tileRtDeviceCount(&count), "tileRtDeviceCount");
  expectOk(tileRtDeviceInfo(name, sizeof(name), &major, &minor),
           "tileRtDeviceInfo");
  printf("device: %s (sm_%d%d), %d present\n", name, major, minor, count);
  expectError(tileRtInit(count), "device out of range");
  expectOk(tileRtInit(0), "tileRtInit after a bad ordinal");

  // Copies and memset round trip through device memory.
  enum { N = 1 << 20 };
  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)),
        *c = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    a[i] = (float)(i % 1000) * 0.25f - 3.0f;
    b[i] = (float)(i % 77) * -0.5f + 1.0f;
  }
  tileRtDevicePtr da, db, dc;
  expectOk(tileRtMalloc(N * sizeof(float), &da), "tileRtMalloc");
  expectOk(tileRtMalloc(N * sizeof(float), &db), "tileRtMalloc");
  expectOk(tileRtMalloc(N * sizeof(float), &dc), "tileRtMalloc");
  expectOk(tileRtMemcpyHtoD(da, a, N * sizeof(float)), "tileRtMemcpyHtoD");
  expectOk(tileRtMemcpyHtoD(db, b, N * sizeof(float)), "tileRtMemcpyHtoD");
  expectOk(tileRtMemset8(dc, 0xff, N * sizeof(float)), "tileRtMemset8");
  expectOk(tileRtMemcpyDtoH(c, da, N * sizeof(float)), "tileRtMemcpyDtoH");
  printf("copy round trip: %s\n",
         memcmp(a, c, N * sizeof(float)) ? "MISMATCH" : "ok");
  expectOk(tileRtMemcpyDtoH(c, dc, sizeof(float)), "tileRtMemcpyDtoH");
  uint32_t poison;
  memcpy(&poison, c, 4);
  printf("memset: 0x%08x\n", poison);

  // Module, function, launch, events.
  tileRtModule *module = NULL;
  tileRtFunction *fn = NULL;
  if (argc < 2) {
    printf("FAIL: no PTX file given\n");
    return 1;
  }
  expectOk(tileRtModuleLoadFile(argv[1], &module), "tileRtModuleLoadFile");
  if (!module)
    return 1;
  expectOk(tileRtModuleGetFunction(module, "vadd_f32", &fn),
           "tileRtModuleGetFunction");
  int n = N;
  void *params[] = {&da, &db, &dc, &n};
  tileRtLaunchConfig config = {{N / 256, 1, 1}, {256, 1, 1}, {1, 1, 1}, 0};
  tileRtEvent *start = NULL, *end = NULL;
  expectOk(tileRtEventCreate(&start), "tileRtEventCreate");
  expectOk(tileRtEventCreate(&end), "tileRtEventCreate");
  expectOk(tileRtEventRecord(start), "tileRtEventRecord");
  expectOk(tileRtLaunch(fn, &config, params), "tileRtLaunch");
  expectOk(tileRtEventRecord(end), "tileRtEventRecord");
  expectOk(tileRtEventSynchronize(end), "tileRtEventSynchronize");
  float ms = -1;
  expectOk(tileRtEventElapsedMs(start, end, &ms), "tileRtEventElapsedMs");
  printf("event time positive: %s\n", ms > 0 ? "yes" : "no");
  expectOk(tileRtMemcpyDtoH(c, dc, N * sizeof(float)), "tileRtMemcpyDtoH");
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    wrong += c[i] != a[i] + b[i];
  printf("vadd_f32: %d wrong\n", wrong);
  // The same kernel in clusters of two blocks.
  expectOk(tileRtMemset8(dc, 0xff, N * sizeof(float)), "tileRtMemset8");
  tileRtLaunchConfig clustered = {{N / 256, 1, 1}, {256, 1, 1}, {2, 1, 1}, 0};
  expectOk(tileRtLaunch(fn, &clustered, params), "cluster launch");
  expectOk(tileRtMemcpyDtoH(c, dc, N * sizeof(float)), "tileRtMemcpyDtoH");
  wrong = 0;
  for (int i = 0; i < N; ++i)
    wrong += c[i] != a[i] + b[i];
  printf("vadd_f32 in clusters: %d wrong\n", wrong);

  // Error paths: each names the driver call and the driver's error.
  tileRtFunction *missing = NULL;
  expectError(tileRtModuleGetFunction(module, "no_such_kernel", &missing),
              "missing kernel");
  tileRtModule *bad = NULL;
  expectError(tileRtModuleLoadData("garbage", 7, &bad), "bad image");
  tileRtLaunchConfig tooBig = {{1, 1, 1}, {2048, 1, 1}, {1, 1, 1}, 0};
  expectError(tileRtLaunch(fn, &tooBig, params), "block of 2048");
  tileRtLaunchConfig badCluster = {{3, 1, 1}, {256, 1, 1}, {2, 1, 1}, 0};
  expectError(tileRtLaunch(fn, &badCluster, params), "grid not a multiple");
  expectError(tileRtModuleLoadFile("/nonexistent.ptx", &bad), "missing file");
  printf("last driver error: %d\n", tileRtLastDriverError());

  // A tensor map over `da` seen as 1024 x 1024 f32, 32 x 32 boxes.
  _Alignas(64) unsigned char map[128];
  int64_t sizes[2] = {1024, 1024};
  uint32_t box[2] = {32, 32};
  expectOk(tileRtEncodeTensorMapTiled(map, TILE_RT_DTYPE_F32, 2, da, sizes, box,
                                      0, 0, 0, 0),
           "tileRtEncodeTensorMapTiled");
  uint32_t hugeBox[2] = {512, 32};
  expectError(tileRtEncodeTensorMapTiled(map, TILE_RT_DTYPE_F32, 2, da, sizes,
                                         hugeBox, 0, 0, 0, 0),
              "box of 512");

  tileRtEventDestroy(start);
  tileRtEventDestroy(end);
  tileRtModuleUnload(module);
  expectOk(tileRtFree(da), "tileRtFree");
  expectOk(tileRtFree(db), "tileRtFree");
  expectOk(tileRtFree(dc), "tileRtFree");
  tileRtShutdown();
  free(a);
  free(b);
  free(c);
  if (failures)
    printf("FAIL: %d failures\n", failures);
  else
    printf("PASS\n");
  return failures != 0;
}
