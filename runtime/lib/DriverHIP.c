//===- DriverHIP.c - the HIP runtime, loaded with dlopen -------*- C -*-===//
//
// The runtime's second platform: AMD GPUs through the HIP module API
// (hipModuleLoadData, hipModuleGetFunction, hipModuleLaunchKernel),
// resolved at run time from libamdhip64.so so that no ROCm installation is
// needed to build it. Driver.c forwards every device call here while the
// HIP platform is selected (tileRtSetPlatform), which manifests of HSACO
// binaries ask for. Handle types are pointers and device addresses 64-bit,
// as in HIP's ABI; hipDeviceptr_t is a pointer there.
//
// Every failing call is reported as "<call> failed: <hipErrorName>
// (<description>)"; a missing library as "no HIP runtime".
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Internal.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// HIP ABI: the subset of types and codes the runtime uses.
typedef int hipError_t;
typedef int hipDevice_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hipStream_t;
typedef void *hipEvent_t;

enum {
  HIP_ERROR_NO_DEVICE = 100,
  /// hipDeviceAttributeMultiprocessorCount in the hipDeviceAttribute_t of
  /// ROCm 5 and later.
  HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 63,
};

/// LDS of one workgroup on the chips tile-compile targets (gfx90a,
/// gfx942): dynamic shared memory beyond it cannot launch.
enum { HIP_MAX_LDS_BYTES = 65536 };

/// The resolved entry points.
typedef struct HipRuntime {
  void *library;
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipDeviceGet)(hipDevice_t *, int);
  hipError_t (*hipDeviceGetName)(char *, int, hipDevice_t);
  hipError_t (*hipDeviceComputeCapability)(int *, int *, hipDevice_t);
  hipError_t (*hipDeviceGetAttribute)(int *, int, int);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceSynchronize)(void);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *, hipFunction_t, int, size_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoD)(void *, const void *, size_t);
  hipError_t (*hipMemcpyDtoH)(void *, void *, size_t);
  hipError_t (*hipMemset)(void *, int, size_t);
  hipError_t (*hipMemsetAsync)(void *, int, size_t, void *);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
} HipRuntime;

static HipRuntime hip;
static bool hipInitialized;
static hipDevice_t hipDevice;
static int hipOrdinal = -1;

/// Reports the failed HIP call `what` with the runtime's error name.
static tileRtStatus hipFail(hipError_t code, const char *what) {
  const char *name = hip.hipGetErrorName ? hip.hipGetErrorName(code) : NULL;
  const char *text = hip.hipGetErrorString ? hip.hipGetErrorString(code) : NULL;
  tileRtSetDriverError(code);
  char unknown[32];
  if (!name) {
    snprintf(unknown, sizeof(unknown), "hipError_t %d", code);
    name = unknown;
  }
  return tileRtFail(code == HIP_ERROR_NO_DEVICE ? TILE_RT_ERROR_NO_DEVICE
                                                : TILE_RT_ERROR_DRIVER,
                    "%s failed: %s (%s)", what, name,
                    text ? text : "no description");
}

#define HIP_CHECK(call, what)                                                  \
  do {                                                                         \
    hipError_t result_ = (call);                                               \
    if (result_ != 0)                                                          \
      return hipFail(result_, what);                                           \
  } while (0)

/// dlsym into a function pointer without an object-to-function cast.
static bool resolve(void *out, const char *symbol) {
  void *p = dlsym(hip.library, symbol);
  memcpy(out, &p, sizeof(p));
  return p != NULL;
}

static tileRtStatus loadHip(void) {
  if (hipInitialized)
    return TILE_RT_SUCCESS;
  const char *path = getenv("TILE_RT_HIP_RUNTIME");
  if (!path || !*path)
    path = "libamdhip64.so";
  if (!hip.library) {
    hip.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!hip.library) {
      const char *why = dlerror();
      return tileRtFail(TILE_RT_ERROR_NO_DRIVER,
                        "no HIP runtime: cannot load '%s' (an AMD GPU and "
                        "ROCm's libamdhip64 are needed to run HSACO "
                        "kernels): %s",
                        path, why ? why : "unknown error");
    }
  }
  static const struct {
    size_t offset;
    const char *symbol;
  } entries[] = {
#define ENTRY(field) {offsetof(HipRuntime, field), #field}
      ENTRY(hipGetErrorName),
      ENTRY(hipGetErrorString),
      ENTRY(hipInit),
      ENTRY(hipGetDeviceCount),
      ENTRY(hipDeviceGet),
      ENTRY(hipDeviceGetName),
      ENTRY(hipDeviceComputeCapability),
      ENTRY(hipDeviceGetAttribute),
      ENTRY(hipSetDevice),
      ENTRY(hipDeviceSynchronize),
      ENTRY(hipModuleLoadData),
      ENTRY(hipModuleUnload),
      ENTRY(hipModuleGetFunction),
      ENTRY(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor),
      ENTRY(hipModuleLaunchKernel),
      ENTRY(hipMalloc),
      ENTRY(hipFree),
      ENTRY(hipMemcpyHtoD),
      ENTRY(hipMemcpyDtoH),
      ENTRY(hipMemset),
      ENTRY(hipMemsetAsync),
      ENTRY(hipEventCreate),
      ENTRY(hipEventRecord),
      ENTRY(hipEventSynchronize),
      ENTRY(hipEventElapsedTime),
      ENTRY(hipEventDestroy),
#undef ENTRY
  };
  for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); ++i)
    if (!resolve((char *)&hip + entries[i].offset, entries[i].symbol))
      return tileRtFail(TILE_RT_ERROR_NO_DRIVER,
                        "the HIP runtime '%s' lacks the entry point '%s'", path,
                        entries[i].symbol);
  HIP_CHECK(hip.hipInit(0), "hipInit");
  hipInitialized = true;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipDeviceCount(int *count) {
  *count = 0;
  tileRtStatus s = loadHip();
  if (s != TILE_RT_SUCCESS)
    return s;
  HIP_CHECK(hip.hipGetDeviceCount(count), "hipGetDeviceCount");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipInit(int ordinal) {
  if (hipOrdinal >= 0 && ordinal == hipOrdinal)
    return TILE_RT_SUCCESS;
  int count;
  tileRtStatus s = tileRtHipDeviceCount(&count);
  if (s != TILE_RT_SUCCESS)
    return s;
  if (count == 0)
    return tileRtFail(TILE_RT_ERROR_NO_DEVICE,
                      "no AMD GPU: the HIP runtime reports no device");
  if (ordinal < 0 || ordinal >= count)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "device %d requested, %d present", ordinal, count);
  HIP_CHECK(hip.hipDeviceGet(&hipDevice, ordinal), "hipDeviceGet");
  HIP_CHECK(hip.hipSetDevice(ordinal), "hipSetDevice");
  hipOrdinal = ordinal;
  return TILE_RT_SUCCESS;
}

void tileRtHipShutdown(void) { hipOrdinal = -1; }

bool tileRtHipActive(void) { return hipOrdinal >= 0; }

tileRtStatus tileRtHipDeviceInfo(char *buf, size_t len, int *major,
                                 int *minor) {
  if (buf && len) {
    int n = len > 0x7fffffff ? 0x7fffffff : (int)len;
    HIP_CHECK(hip.hipDeviceGetName(buf, n, hipDevice), "hipDeviceGetName");
    buf[len - 1] = '\0';
  }
  int ma = 0, mi = 0;
  if (major || minor)
    HIP_CHECK(hip.hipDeviceComputeCapability(&ma, &mi, hipDevice),
              "hipDeviceComputeCapability");
  if (major)
    *major = ma;
  if (minor)
    *minor = mi;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipModuleLoadData(const void *data, tileRtModule *module) {
  // A code object is an ELF image; HIP reads its size from the headers.
  HIP_CHECK(hip.hipModuleLoadData(&module->module, data), "hipModuleLoadData");
  return TILE_RT_SUCCESS;
}

void tileRtHipModuleUnload(tileRtModule *module) {
  hip.hipModuleUnload(module->module);
}

tileRtStatus tileRtHipModuleGetFunction(tileRtModule *module, const char *name,
                                        tileRtFunction **out) {
  hipFunction_t fn;
  hipError_t r = hip.hipModuleGetFunction(&fn, module->module, name);
  if (r != 0) {
    hipFail(r, "hipModuleGetFunction");
    char msg[2048];
    snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
    return tileRtFail(TILE_RT_ERROR_DRIVER, "kernel '%s': %s", name, msg);
  }
  *out = (tileRtFunction *)fn;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipCheckDynamicShared(unsigned bytes) {
  // LDS is not an opt-in carve-out as on NVIDIA: a kernel may use all of
  // it, and no more.
  if (bytes > HIP_MAX_LDS_BYTES)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%u bytes of dynamic shared memory exceed the %d bytes "
                      "of LDS of one workgroup",
                      bytes, HIP_MAX_LDS_BYTES);
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipOccupancy(tileRtFunction *function, unsigned blockThreads,
                                unsigned sharedBytes, int *perUnit,
                                int *units) {
  // The module API's query: the other one takes a host-side kernel stub,
  // which a module's function is not.
  HIP_CHECK(
      hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
          perUnit, (hipFunction_t)function, (int)blockThreads, sharedBytes),
      "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
  HIP_CHECK(hip.hipDeviceGetAttribute(
                units, HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, hipOrdinal),
            "hipDeviceGetAttribute(MultiprocessorCount)");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipLaunch(tileRtFunction *function,
                             const tileRtLaunchConfig *c, void **params,
                             void *stream) {
  if (c->cluster[0] * c->cluster[1] * c->cluster[2] > 1)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "thread block clusters are an NVIDIA feature; HIP "
                      "cannot launch a %ux%ux%u cluster",
                      c->cluster[0], c->cluster[1], c->cluster[2]);
  HIP_CHECK(hip.hipModuleLaunchKernel((hipFunction_t)function, c->grid[0],
                                      c->grid[1], c->grid[2], c->block[0],
                                      c->block[1], c->block[2], c->sharedBytes,
                                      (hipStream_t)stream, params, NULL),
            "hipModuleLaunchKernel");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipSynchronize(void) {
  HIP_CHECK(hip.hipDeviceSynchronize(), "hipDeviceSynchronize");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipMalloc(size_t bytes, tileRtDevicePtr *out) {
  void *p = NULL;
  hipError_t r = hip.hipMalloc(&p, bytes ? bytes : 1);
  if (r != 0) {
    hipFail(r, "hipMalloc");
    char msg[2048];
    snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
    return tileRtFail(TILE_RT_ERROR_DRIVER, "%s (allocating %zu bytes)", msg,
                      bytes);
  }
  *out = (tileRtDevicePtr)(uintptr_t)p;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipFree(tileRtDevicePtr ptr) {
  HIP_CHECK(hip.hipFree((void *)(uintptr_t)ptr), "hipFree");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipMemcpyHtoD(tileRtDevicePtr dst, const void *src,
                                 size_t bytes) {
  HIP_CHECK(hip.hipMemcpyHtoD((void *)(uintptr_t)dst, src, bytes),
            "hipMemcpyHtoD");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipMemcpyDtoH(void *dst, tileRtDevicePtr src, size_t bytes) {
  HIP_CHECK(hip.hipMemcpyDtoH(dst, (void *)(uintptr_t)src, bytes),
            "hipMemcpyDtoH");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipMemset8(tileRtDevicePtr dst, unsigned char value,
                              size_t bytes) {
  HIP_CHECK(hip.hipMemset((void *)(uintptr_t)dst, value, bytes), "hipMemset");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipMemset8Async(tileRtDevicePtr dst, unsigned char value,
                                   size_t bytes, void *stream) {
  HIP_CHECK(hip.hipMemsetAsync((void *)(uintptr_t)dst, value, bytes, stream),
            "hipMemsetAsync");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipEventCreate(tileRtEvent **out) {
  hipEvent_t e;
  HIP_CHECK(hip.hipEventCreate(&e), "hipEventCreate");
  *out = (tileRtEvent *)e;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipEventRecord(tileRtEvent *event) {
  HIP_CHECK(hip.hipEventRecord((hipEvent_t)event, NULL), "hipEventRecord");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipEventSynchronize(tileRtEvent *event) {
  HIP_CHECK(hip.hipEventSynchronize((hipEvent_t)event), "hipEventSynchronize");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtHipEventElapsedMs(tileRtEvent *start, tileRtEvent *end,
                                     float *ms) {
  HIP_CHECK(hip.hipEventElapsedTime(ms, (hipEvent_t)start, (hipEvent_t)end),
            "hipEventElapsedTime");
  return TILE_RT_SUCCESS;
}

void tileRtHipEventDestroy(tileRtEvent *event) {
  hip.hipEventDestroy((hipEvent_t)event);
}
