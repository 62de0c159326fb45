//===- platform.c - the runtime's CUDA and HIP platforms -------*- C -*-===//
//
// Drives the platform choice of the C API with the stand-in drivers
// (Inputs/fake-cuda.c, Inputs/fake-hip.c): the default platform, the
// platform of each binary kind, switching, device memory through HIP,
// the features HIP refuses (tensor maps, clusters), and a manifest whose
// binary belongs to the other platform.
//
// clang-format off
/*
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   TILE_RT_HIP_RUNTIME=%tile_obj/test/Runtime/libtile-rt-fake-hip.so \
RUN:   %tile_obj/test/Runtime/tile-rt-platform | FileCheck %s
CHECK: default: cuda
CHECK-NEXT: ptx cuda, cubin cuda, hsaco hip
CHECK-NEXT: bad platform: TILE_RT_ERROR_INVALID_ARGUMENT: unknown platform 7
CHECK-NEXT: hsaco on cuda: TILE_RT_ERROR_INVALID_ARGUMENT: <string>: its hsaco binary runs on HIP, but the runtime is on the CUDA driver (tileRtSetPlatform)
CHECK-NEXT: hip device: Host Stand-in AMD Device 9.4
CHECK-NEXT: hip memory: 1 2 3 4
CHECK-NEXT: tensor map on hip: TILE_RT_ERROR_INVALID_ARGUMENT: tensor maps (TMA) are an NVIDIA feature; the HIP platform has none
CHECK-NEXT: ptx on hip: TILE_RT_ERROR_INVALID_ARGUMENT: <string>: its ptx binary runs on the CUDA driver, but the runtime is on HIP (tileRtSetPlatform)
CHECK-NEXT: PASS

RUN: env TILE_RT_HIP_RUNTIME=/nonexistent/libamdhip64.so \
RUN:   %tile_obj/test/Runtime/tile-rt-platform --no-hip | FileCheck %s --check-prefix=NOHIP
NOHIP: no hip: TILE_RT_ERROR_NO_DRIVER: no HIP runtime: cannot load '/nonexistent/libamdhip64.so'
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <string.h>

static const char *name(tileRtPlatform p) {
  return p == TILE_RT_PLATFORM_HIP ? "hip" : "cuda";
}

/// Loads a one-kernel manifest whose binary is of `kind`.
static tileRtStatus loadKind(const char *kind) {
  char text[512];
  snprintf(text, sizeof(text),
           "tile-launch-manifest 1\nkernel k\nbinary k.bin %s\n"
           "block 64 1 1\ngrid x 1\n",
           kind);
  static tileRtManifest manifest;
  tileRtStatus s = tileRtManifestParseString(text, NULL, &manifest);
  if (s != TILE_RT_SUCCESS)
    return s;
  tileRtKernel *kernel = NULL;
  s = tileRtKernelLoad(&manifest, &kernel);
  tileRtKernelDestroy(kernel);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--no-hip") == 0) {
    expectOk(tileRtSetPlatform(TILE_RT_PLATFORM_HIP), "set hip");
    expectError(tileRtInit(0), "no hip");
    return failures != 0;
  }
  printf("default: %s\n", name(tileRtGetPlatform()));
  printf("ptx %s, cubin %s, hsaco %s\n",
         name(tileRtBinaryPlatform(TILE_RT_BINARY_PTX)),
         name(tileRtBinaryPlatform(TILE_RT_BINARY_CUBIN)),
         name(tileRtBinaryPlatform(TILE_RT_BINARY_HSACO)));
  expectError(tileRtSetPlatform((tileRtPlatform)7), "bad platform");

  expectOk(tileRtInit(0), "cuda init");
  expectError(loadKind("hsaco"), "hsaco on cuda");

  expectOk(tileRtSetPlatform(TILE_RT_PLATFORM_HIP), "set hip");
  expectOk(tileRtInit(0), "hip init");
  char device[64];
  int major = 0, minor = 0;
  expectOk(tileRtDeviceInfo(device, sizeof(device), &major, &minor), "info");
  printf("hip device: %s %d.%d\n", device, major, minor);
  int in[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
  tileRtDevicePtr p = 0;
  expectOk(tileRtMalloc(sizeof(in), &p), "malloc");
  expectOk(tileRtMemcpyHtoD(p, in, sizeof(in)), "htod");
  expectOk(tileRtMemcpyDtoH(out, p, sizeof(out)), "dtoh");
  expectOk(tileRtFree(p), "free");
  printf("hip memory: %d %d %d %d\n", out[0], out[1], out[2], out[3]);
  unsigned char map[128];
  int64_t sizes[2] = {64, 64};
  uint32_t box[2] = {64, 64};
  expectError(tileRtEncodeTensorMapTiled(map, TILE_RT_DTYPE_F16, 2, 0, sizes,
                                         box, 0, 0, 0, 0),
              "tensor map on hip");
  expectError(loadKind("ptx"), "ptx on hip");
  tileRtShutdown();
  printf("%s\n", failures ? "FAILED" : "PASS");
  return failures != 0;
}
