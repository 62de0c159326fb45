//===- Driver.c - the CUDA driver, loaded with dlopen ----------*- C -*-===//
//
// The runtime talks to the GPU through the CUDA driver API, resolved at run
// time from libcuda.so.1 so that neither cuda.h nor the CUDA toolkit is
// needed to build it, and a machine without a driver gets an error status
// rather than a failed link. The few driver types used are declared here
// with the driver's ABI (handles are pointers, CUdeviceptr is 64-bit, enum
// values as the driver defines them).
//
// Every failing driver call is reported as
//   "<call> failed: <CUDA_ERROR_NAME> (<driver's description>)".
//
// While the HIP platform is selected (tileRtSetPlatform), each entry point
// forwards to its HIP counterpart in DriverHIP.c instead.
//
// The runtime brings two kernels of its own (kRuntimePtx): tile_rt_zero,
// which clears the `zero` outputs of a `dependent-launch` manifest so that
// the kernel after it may start early (docs/Runtime.md, "Zeroed outputs"),
// and tile_rt_copy_rows, which copies staged arguments into and out of
// their workspace ("Staged arguments").
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// Driver ABI: the subset of types and enumerators the runtime uses.
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
  CUDA_ERROR_NO_DEVICE = 100,
};

typedef struct CuLaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
    int programmaticStreamSerializationAllowed;
  } value;
} CuLaunchAttribute;

/// CUDA_MEMCPY2D: a copy of `Height` rows of `WidthInBytes` between
/// pitched buffers; the runtime copies device to device only.
typedef struct CuMemcpy2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CuMemcpy2D;

enum { CU_MEMORYTYPE_DEVICE = 2, CU_EVENT_DISABLE_TIMING = 2 };

typedef struct CuLaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CuLaunchAttribute *attrs;
  unsigned numAttrs;
} CuLaunchConfig;

/// The resolved entry points. Optional ones may stay null.
typedef struct Driver {
  void *library;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuLaunchKernelEx)(const CuLaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpy2DAsync)(const CuMemcpy2D *, CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
} Driver;

static Driver driver;
static tileRtPlatform platform = TILE_RT_PLATFORM_CUDA;
static bool driverInitialized;
static CUdevice device;
static CUcontext context;
static int contextOrdinal = -1;

/// What the runtime keeps for the current context, made on first need and
/// dropped with the context (tileRtShutdown): a module belongs to the
/// context that loaded it, and the next context may be another device.
typedef struct ContextState {
  /// The device's compute capability major version; 0 until asked.
  int major;
  /// The runtime's kernels (kRuntimePtx); null until a launch first needs
  /// one.
  tileRtModule *runtimeModule;
  CUfunction zeroFunction, copyFunction;
} ContextState;

static ContextState contextState;

/// Reports the failed driver call `what` with the driver's error name.
static tileRtStatus driverFail(CUresult code, const char *what) {
  const char *name = NULL, *description = NULL;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(code, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(code, &description);
  tileRtSetDriverError(code);
  char unknown[32];
  if (!name) {
    snprintf(unknown, sizeof(unknown), "CUresult %d", code);
    name = unknown;
  }
  return tileRtFail(code == CUDA_ERROR_NO_DEVICE ? TILE_RT_ERROR_NO_DEVICE
                                                 : TILE_RT_ERROR_DRIVER,
                    "%s failed: %s (%s)", what, name,
                    description ? description : "no description");
}

#define CU_CHECK(call, what)                                                   \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != 0)                                                          \
      return driverFail(result_, what);                                        \
  } while (0)

/// dlsym into a function pointer without the object/function pointer cast
/// that ISO C leaves undefined.
static bool resolve(void *out, const char *symbol) {
  void *p = dlsym(driver.library, symbol);
  memcpy(out, &p, sizeof(p));
  return p != NULL;
}

static tileRtStatus loadDriver(void) {
  if (driverInitialized)
    return TILE_RT_SUCCESS;
  const char *path = getenv("TILE_RT_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  if (!driver.library) {
    driver.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!driver.library) {
      const char *why = dlerror();
      return tileRtFail(TILE_RT_ERROR_NO_DRIVER,
                        "cannot load the CUDA driver '%s': %s", path,
                        why ? why : "unknown error");
    }
  }
  static const struct {
    size_t offset;
    const char *symbol;
    const char *fallback;
    bool required;
  } entries[] = {
#define ENTRY(field, symbol, fallback, required)                               \
  {offsetof(Driver, field), symbol, fallback, required}
      ENTRY(cuGetErrorName, "cuGetErrorName", NULL, true),
      ENTRY(cuGetErrorString, "cuGetErrorString", NULL, true),
      ENTRY(cuInit, "cuInit", NULL, true),
      ENTRY(cuDriverGetVersion, "cuDriverGetVersion", NULL, true),
      ENTRY(cuDeviceGetCount, "cuDeviceGetCount", NULL, true),
      ENTRY(cuDeviceGet, "cuDeviceGet", NULL, true),
      ENTRY(cuDeviceGetName, "cuDeviceGetName", NULL, true),
      ENTRY(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL, true),
      ENTRY(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, true),
      ENTRY(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
            "cuDevicePrimaryCtxRelease", true),
      ENTRY(cuCtxSetCurrent, "cuCtxSetCurrent", NULL, true),
      ENTRY(cuCtxSynchronize, "cuCtxSynchronize", NULL, true),
      ENTRY(cuModuleLoadDataEx, "cuModuleLoadDataEx", NULL, true),
      ENTRY(cuModuleUnload, "cuModuleUnload", NULL, true),
      ENTRY(cuModuleGetFunction, "cuModuleGetFunction", NULL, true),
      ENTRY(cuFuncSetAttribute, "cuFuncSetAttribute", NULL, true),
      ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor,
            "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL, false),
      ENTRY(cuLaunchKernel, "cuLaunchKernel", NULL, true),
      ENTRY(cuLaunchKernelEx, "cuLaunchKernelEx", NULL, false),
      ENTRY(cuMemAlloc, "cuMemAlloc_v2", NULL, true),
      ENTRY(cuMemFree, "cuMemFree_v2", NULL, true),
      ENTRY(cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL, true),
      ENTRY(cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL, true),
      ENTRY(cuMemsetD8, "cuMemsetD8_v2", NULL, true),
      ENTRY(cuMemsetD8Async, "cuMemsetD8Async", NULL, true),
      ENTRY(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync", false),
      ENTRY(cuStreamWaitEvent, "cuStreamWaitEvent", NULL, false),
      ENTRY(cuStreamIsCapturing, "cuStreamIsCapturing", NULL, false),
      ENTRY(cuEventCreate, "cuEventCreate", NULL, true),
      ENTRY(cuEventRecord, "cuEventRecord", NULL, true),
      ENTRY(cuEventSynchronize, "cuEventSynchronize", NULL, true),
      ENTRY(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",
            true),
      ENTRY(cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy", true),
      ENTRY(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", NULL, false),
#undef ENTRY
  };
  for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); ++i) {
    void *slot = (char *)&driver + entries[i].offset;
    if (resolve(slot, entries[i].symbol))
      continue;
    if (entries[i].fallback && resolve(slot, entries[i].fallback))
      continue;
    if (entries[i].required)
      return tileRtFail(TILE_RT_ERROR_NO_DRIVER,
                        "the CUDA driver '%s' lacks the entry point '%s'", path,
                        entries[i].symbol);
  }
  CU_CHECK(driver.cuInit(0), "cuInit");
  driverInitialized = true;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtDeviceCount(int *count) {
  if (!count)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null count");
  *count = 0;
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipDeviceCount(count);
  tileRtStatus s = loadDriver();
  if (s != TILE_RT_SUCCESS)
    return s;
  CU_CHECK(driver.cuDeviceGetCount(count), "cuDeviceGetCount");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtSetPlatform(tileRtPlatform next) {
  if (next != TILE_RT_PLATFORM_CUDA && next != TILE_RT_PLATFORM_HIP)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "unknown platform %d",
                      (int)next);
  if (next != platform)
    tileRtShutdown();
  platform = next;
  return TILE_RT_SUCCESS;
}

tileRtPlatform tileRtGetPlatform(void) { return platform; }

tileRtPlatform tileRtBinaryPlatform(tileRtBinaryKind kind) {
  return kind == TILE_RT_BINARY_HSACO ? TILE_RT_PLATFORM_HIP
                                      : TILE_RT_PLATFORM_CUDA;
}

tileRtStatus tileRtInit(int ordinal) {
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipInit(ordinal);
  if (context && ordinal == contextOrdinal)
    return TILE_RT_SUCCESS;
  if (context)
    tileRtShutdown();
  int count;
  tileRtStatus s = tileRtDeviceCount(&count);
  if (s != TILE_RT_SUCCESS)
    return s;
  if (count == 0)
    return tileRtFail(TILE_RT_ERROR_NO_DEVICE,
                      "the CUDA driver reports no device");
  if (ordinal < 0 || ordinal >= count)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "device %d requested, %d present", ordinal, count);
  CU_CHECK(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CU_CHECK(driver.cuDevicePrimaryCtxRetain(&context, device),
           "cuDevicePrimaryCtxRetain");
  contextOrdinal = ordinal;
  CU_CHECK(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return TILE_RT_SUCCESS;
}

void tileRtShutdown(void) {
  if (platform == TILE_RT_PLATFORM_HIP) {
    tileRtHipShutdown();
    return;
  }
  if (!context)
    return;
  tileRtModuleUnload(contextState.runtimeModule);
  memset(&contextState, 0, sizeof(contextState));
  driver.cuCtxSetCurrent(NULL);
  driver.cuDevicePrimaryCtxRelease(device);
  context = NULL;
  contextOrdinal = -1;
}

#define REQUIRE_CONTEXT()                                                      \
  do {                                                                         \
    if (platform == TILE_RT_PLATFORM_HIP ? !tileRtHipActive() : !context)      \
      return tileRtFail(TILE_RT_ERROR_NOT_INITIALIZED,                         \
                        "%s needs tileRtInit first", __func__);                \
  } while (0)

tileRtStatus tileRtDeviceInfo(char *buf, size_t len, int *major, int *minor) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipDeviceInfo(buf, len, major, minor);
  if (buf && len) {
    int n = len > 0x7fffffff ? 0x7fffffff : (int)len;
    CU_CHECK(driver.cuDeviceGetName(buf, n, device), "cuDeviceGetName");
    buf[len - 1] = '\0';
  }
  if (major)
    CU_CHECK(driver.cuDeviceGetAttribute(
                 major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
             "cuDeviceGetAttribute");
  if (minor)
    CU_CHECK(driver.cuDeviceGetAttribute(
                 minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
             "cuDeviceGetAttribute");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtModuleLoadData(const void *data, size_t size,
                                  tileRtModule **out) {
  REQUIRE_CONTEXT();
  if (!data || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null module image or output");
  *out = NULL;
  if (platform == TILE_RT_PLATFORM_HIP) {
    tileRtModule *module = (tileRtModule *)calloc(1, sizeof(*module));
    if (!module)
      return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
    tileRtStatus s = tileRtHipModuleLoadData(data, module);
    if (s != TILE_RT_SUCCESS) {
      free(module);
      return s;
    }
    *out = module;
    return TILE_RT_SUCCESS;
  }
  // PTX is text the driver reads up to a NUL: load from a terminated copy.
  char *image = (char *)malloc(size + 1);
  tileRtModule *module = (tileRtModule *)calloc(1, sizeof(*module));
  if (!image || !module) {
    free(image);
    free(module);
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  memcpy(image, data, size);
  image[size] = '\0';
  char log[4096] = "";
  int options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {log, (void *)(uintptr_t)sizeof(log)};
  CUresult r =
      driver.cuModuleLoadDataEx(&module->module, image, 2, options, values);
  free(image);
  if (r != 0) {
    free(module);
    tileRtStatus s = driverFail(r, "cuModuleLoadDataEx");
    if (log[0]) {
      log[sizeof(log) - 1] = '\0';
      char msg[2048];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(s, "%s\n%s", msg, log);
    }
    return s;
  }
  *out = module;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtModuleLoadFile(const char *path, tileRtModule **out) {
  if (!path || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null module path or output");
  FILE *f = fopen(path, "rb");
  if (!f)
    return tileRtFail(TILE_RT_ERROR_IO, "cannot open kernel binary '%s': %s",
                      path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *data = (char *)malloc(cap);
  while (data) {
    n += fread(data + n, 1, cap - n, f);
    if (n < cap)
      break;
    char *grown = (char *)realloc(data, cap *= 2);
    if (!grown)
      free(data);
    data = grown;
  }
  bool readError = ferror(f);
  fclose(f);
  if (!data)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  if (readError) {
    free(data);
    return tileRtFail(TILE_RT_ERROR_IO, "cannot read kernel binary '%s'", path);
  }
  tileRtStatus s = tileRtModuleLoadData(data, n, out);
  free(data);
  if (s != TILE_RT_SUCCESS) {
    char msg[2048];
    snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
    return tileRtFail(s, "%s: %s", path, msg);
  }
  return TILE_RT_SUCCESS;
}

void tileRtModuleUnload(tileRtModule *module) {
  if (!module)
    return;
  if (platform == TILE_RT_PLATFORM_HIP && tileRtHipActive())
    tileRtHipModuleUnload(module);
  else if (platform == TILE_RT_PLATFORM_CUDA && context)
    driver.cuModuleUnload(module->module);
  free(module);
}

tileRtStatus tileRtModuleGetFunction(tileRtModule *module, const char *name,
                                     tileRtFunction **out) {
  REQUIRE_CONTEXT();
  if (!module || !name || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null module, kernel name or output");
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipModuleGetFunction(module, name, out);
  CUfunction fn;
  CUresult r = driver.cuModuleGetFunction(&fn, module->module, name);
  if (r != 0) {
    driverFail(r, "cuModuleGetFunction");
    char msg[2048];
    snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
    return tileRtFail(TILE_RT_ERROR_DRIVER, "kernel '%s': %s", name, msg);
  }
  // A tileRtFunction is the driver's handle itself; nothing to own.
  *out = (tileRtFunction *)fn;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtFunctionSetMaxDynamicSharedMemory(tileRtFunction *function,
                                                     unsigned bytes) {
  REQUIRE_CONTEXT();
  if (!function || bytes > 0x7fffffffu)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null function or shared memory size out of range");
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipCheckDynamicShared(bytes);
  CU_CHECK(driver.cuFuncSetAttribute(
               (CUfunction)function,
               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
           "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  return TILE_RT_SUCCESS;
}

tileRtStatus
tileRtFunctionAllowNonPortableClusterSize(tileRtFunction *function) {
  REQUIRE_CONTEXT();
  if (!function)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null function");
  if (platform == TILE_RT_PLATFORM_HIP)
    return TILE_RT_SUCCESS;
  CU_CHECK(driver.cuFuncSetAttribute(
               (CUfunction)function,
               CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
           "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtFunctionResidentBlocks(tileRtFunction *function,
                                          unsigned blockThreads,
                                          unsigned sharedBytes, int64_t *out) {
  REQUIRE_CONTEXT();
  if (!function || !out || blockThreads == 0 || blockThreads > 1024)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null function or output, or %u threads per block "
                      "(expected 1 to 1024)",
                      blockThreads);
  *out = 0;
  int perUnit = 0, units = 0;
  if (platform == TILE_RT_PLATFORM_HIP) {
    tileRtStatus s = tileRtHipOccupancy(function, blockThreads, sharedBytes,
                                        &perUnit, &units);
    if (s != TILE_RT_SUCCESS)
      return s;
  } else {
    if (!driver.cuOccupancyMaxActiveBlocksPerMultiprocessor)
      return tileRtFail(TILE_RT_ERROR_DRIVER,
                        "this driver lacks "
                        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    CU_CHECK(
        driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &perUnit, (CUfunction)function, (int)blockThreads, sharedBytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    CU_CHECK(driver.cuDeviceGetAttribute(
                 &units, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
             "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  }
  // No block fitting would launch an empty grid and compute nothing.
  if (perUnit <= 0 || units <= 0)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "no block of %u threads with %u bytes of dynamic "
                      "shared memory fits on a multiprocessor (%d per "
                      "multiprocessor, %d multiprocessors)",
                      blockThreads, sharedBytes, perUnit, units);
  *out = (int64_t)perUnit * units;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtLaunch(tileRtFunction *function, const tileRtLaunchConfig *c,
                          void **params) {
  return tileRtLaunchOnStream(function, c, params, NULL);
}

tileRtStatus tileRtLaunchOnStream(tileRtFunction *function,
                                  const tileRtLaunchConfig *c, void **params,
                                  void *stream) {
  REQUIRE_CONTEXT();
  return tileRtLaunchOnStreamImpl(function, c, params, stream, false);
}

/// Fills `attrs` with the launch attributes `c` and `dependent` ask for
/// and returns how many: none for a plain cuLaunchKernel.
static unsigned launchAttributes(const tileRtLaunchConfig *c, bool dependent,
                                 CuLaunchAttribute attrs[2]) {
  unsigned n = 0;
  memset(attrs, 0, 2 * sizeof(attrs[0]));
  if (c->cluster[0] * c->cluster[1] * c->cluster[2] > 1) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = c->cluster[0];
    attrs[n].value.clusterDim.y = c->cluster[1];
    attrs[n++].value.clusterDim.z = c->cluster[2];
  }
  if (dependent) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n++].value.programmaticStreamSerializationAllowed = 1;
  }
  return n;
}

tileRtStatus tileRtLaunchOnStreamImpl(tileRtFunction *function,
                                      const tileRtLaunchConfig *c,
                                      void **params, void *stream,
                                      bool dependent) {
  REQUIRE_CONTEXT();
  if (!function || !c)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null function or launch configuration");
  // HIP has no dependent launch; tileRtZeroAsync never asks for one there.
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipLaunch(function, c, params, stream);
  CuLaunchAttribute attrs[2];
  unsigned numAttrs = launchAttributes(c, dependent, attrs);
  if (!numAttrs) {
    CU_CHECK(driver.cuLaunchKernel((CUfunction)function, c->grid[0], c->grid[1],
                                   c->grid[2], c->block[0], c->block[1],
                                   c->block[2], c->sharedBytes,
                                   (CUstream)stream, params, NULL),
             "cuLaunchKernel");
    return TILE_RT_SUCCESS;
  }
  // Only a cluster gets here without it: tileRtZeroAsync uses its kernel,
  // and so asks for a dependent launch, only where the driver has it.
  if (!driver.cuLaunchKernelEx)
    return tileRtFail(TILE_RT_ERROR_DRIVER,
                      "cluster launch needs cuLaunchKernelEx, which this "
                      "driver lacks");
  CuLaunchConfig config = {
      c->grid[0],  c->grid[1],     c->grid[2],       c->block[0], c->block[1],
      c->block[2], c->sharedBytes, (CUstream)stream, attrs,       numAttrs};
  CU_CHECK(driver.cuLaunchKernelEx(&config, (CUfunction)function, params, NULL),
           "cuLaunchKernelEx");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtSynchronize(void) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipSynchronize();
  CU_CHECK(driver.cuCtxSynchronize(), "cuCtxSynchronize");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtMalloc(size_t bytes, tileRtDevicePtr *out) {
  REQUIRE_CONTEXT();
  if (!out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null output");
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipMalloc(bytes, out);
  CUdeviceptr p = 0;
  CUresult r = driver.cuMemAlloc(&p, bytes ? bytes : 1);
  if (r != 0) {
    driverFail(r, "cuMemAlloc");
    char msg[2048];
    snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
    return tileRtFail(TILE_RT_ERROR_DRIVER, "%s (allocating %zu bytes)", msg,
                      bytes);
  }
  *out = p;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtFree(tileRtDevicePtr ptr) {
  REQUIRE_CONTEXT();
  if (ptr && platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipFree(ptr);
  if (ptr)
    CU_CHECK(driver.cuMemFree(ptr), "cuMemFree");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtMemcpyHtoD(tileRtDevicePtr dst, const void *src,
                              size_t bytes) {
  REQUIRE_CONTEXT();
  if (bytes && platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipMemcpyHtoD(dst, src, bytes);
  if (bytes)
    CU_CHECK(driver.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtMemcpyDtoH(void *dst, tileRtDevicePtr src, size_t bytes) {
  REQUIRE_CONTEXT();
  if (bytes && platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipMemcpyDtoH(dst, src, bytes);
  if (bytes)
    CU_CHECK(driver.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtMemset8(tileRtDevicePtr dst, unsigned char value,
                           size_t bytes) {
  REQUIRE_CONTEXT();
  if (bytes && platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipMemset8(dst, value, bytes);
  if (bytes)
    CU_CHECK(driver.cuMemsetD8(dst, value, bytes), "cuMemsetD8");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtMemset8Async(tileRtDevicePtr dst, unsigned char value,
                                size_t bytes, void *stream) {
  REQUIRE_CONTEXT();
  if (bytes && platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipMemset8Async(dst, value, bytes, stream);
  if (bytes)
    CU_CHECK(driver.cuMemsetD8Async(dst, value, bytes, (CUstream)stream),
             "cuMemsetD8Async");
  return TILE_RT_SUCCESS;
}

/// PTX that sets register `reg` to the copy kernel's parameter `name` of
/// the copy its block makes (`name`0, 1 or 2 by %p8 and %p9), through the
/// scratch register `tmp`.
#define SELECT_PARAM(type, bits, reg, tmp, name)                               \
  "  ld.param." type " " reg ", [" name "0];\n"                                \
  "  ld.param." type " " tmp ", [" name "1];\n"                                \
  "  selp." bits " " reg ", " tmp ", " reg ", %p8;\n"                          \
  "  ld.param." type " " tmp ", [" name "2];\n"                                \
  "  selp." bits " " reg ", " tmp ", " reg ", %p9;\n"

// One PTX line a source line, SELECT_PARAM's among them.
// clang-format off
/// The runtime's kernels. tile_rt_zero: thread i of the grid stores zeros
/// to the 16 bytes at ptr + 16 i, for i below `chunks`. Its first
/// instruction lets the next kernel on the stream launch, if that one was
/// launched as a programmatic dependent, once every block of this one has
/// started; that kernel's griddepcontrol.wait still waits for this grid to
/// finish and its stores to be visible. PTX ISA 7.8 is the first with
/// griddepcontrol.
///
/// tile_rt_copy_rows: up to kCopyBatch copies in one launch, each on its
/// own consecutive blocks: copy 0 from block 0, copy y from block `first`y
/// (0xffffffff for a copy not made), with the y-th set of parameters.
/// Thread i of a copy copies chunk c = i mod `chunks` of row r = i /
/// chunks, the bytes [16 c, min(16 c + 16, row_bytes)) of the row at src +
/// r src_pitch to dst + r dst_pitch. It first waits for the grid before it
/// on the stream (griddepcontrol.wait: a no-op unless it was launched as a
/// programmatic dependent of that grid, as the copy of a staged output is,
/// so that its launch overlaps the kernel that wrote it). A whole chunk moves
/// as one 16-byte load and store where both ends are 16-byte aligned; where
/// only one end is and the other is 2-byte aligned (an f16 or bf16 row of odd
/// length, into or out of a workspace), as one 16-byte access on the
/// aligned end and, on the other, eight 2-byte loads, or stores of 4 bytes
/// (with a 2-byte one at either end where the row starts 2 bytes past a
/// 4-byte boundary); else, and for the last part of a row, byte by byte.
static const char kRuntimePtx[] =
    ".version 7.8\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry tile_rt_zero(.param .u64 ptr, .param .u64 chunks)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<5>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  griddepcontrol.launch_dependents;\n"
    "  ld.param.u64 %rd1, [ptr];\n"
    "  ld.param.u64 %rd2, [chunks];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, %r2;\n"
    "  cvt.u64.u32 %rd4, %r3;\n"
    "  add.s64 %rd3, %rd3, %rd4;\n"
    "  setp.ge.u64 %p1, %rd3, %rd2;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd5, %rd1;\n"
    "  shl.b64 %rd6, %rd3, 4;\n"
    "  add.s64 %rd7, %rd5, %rd6;\n"
    "  mov.b32 %r4, 0;\n"
    "  st.global.v4.b32 [%rd7], {%r4, %r4, %r4, %r4};\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    "\n"
    ".visible .entry tile_rt_copy_rows(\n"
    "    .param .u64 dst0, .param .u64 dst_pitch0, .param .u64 src0,\n"
    "    .param .u64 src_pitch0, .param .u32 row_bytes0, .param .u32 chunks0,\n"
    "    .param .u32 total0,\n"
    "    .param .u64 dst1, .param .u64 dst_pitch1, .param .u64 src1,\n"
    "    .param .u64 src_pitch1, .param .u32 row_bytes1, .param .u32 chunks1,\n"
    "    .param .u32 total1,\n"
    "    .param .u64 dst2, .param .u64 dst_pitch2, .param .u64 src2,\n"
    "    .param .u64 src_pitch2, .param .u32 row_bytes2, .param .u32 chunks2,\n"
    "    .param .u32 total2, .param .u32 first1, .param .u32 first2)\n"
    "{\n"
    "  .reg .pred %p<10>;\n"
    "  .reg .b16 %h<8>;\n"
    "  .reg .b32 %r<27>;\n"
    "  .reg .b64 %rd<15>;\n"
    "  griddepcontrol.wait;\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  ld.param.u32 %r25, [first1];\n"
    "  setp.ge.u32 %p8, %r1, %r25;\n"
    "  ld.param.u32 %r26, [first2];\n"
    "  setp.ge.u32 %p9, %r1, %r26;\n"
    "  selp.b32 %r25, %r25, 0, %p8;\n"
    "  selp.b32 %r25, %r26, %r25, %p9;\n"
    "  sub.u32 %r1, %r1, %r25;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.u32 %r4, %r1, %r2, %r3;\n"
    SELECT_PARAM("u32", "b32", "%r5", "%r26", "total")
    "  setp.ge.u32 %p1, %r4, %r5;\n"
    "  @%p1 bra END;\n"
    SELECT_PARAM("u32", "b32", "%r6", "%r26", "chunks")
    "  div.u32 %r7, %r4, %r6;\n"
    "  mul.lo.u32 %r8, %r7, %r6;\n"
    "  sub.u32 %r9, %r4, %r8;\n"
    "  shl.b32 %r10, %r9, 4;\n"
    SELECT_PARAM("u32", "b32", "%r11", "%r26", "row_bytes")
    "  sub.u32 %r12, %r11, %r10;\n"
    "  min.u32 %r12, %r12, 16;\n"
    SELECT_PARAM("u64", "b64", "%rd1", "%rd14", "src")
    SELECT_PARAM("u64", "b64", "%rd2", "%rd14", "src_pitch")
    SELECT_PARAM("u64", "b64", "%rd3", "%rd14", "dst")
    SELECT_PARAM("u64", "b64", "%rd4", "%rd14", "dst_pitch")
    "  cvt.u64.u32 %rd5, %r7;\n"
    "  cvt.u64.u32 %rd6, %r10;\n"
    "  mad.lo.u64 %rd7, %rd5, %rd2, %rd1;\n"
    "  add.s64 %rd7, %rd7, %rd6;\n"
    "  cvta.to.global.u64 %rd7, %rd7;\n"
    "  mad.lo.u64 %rd8, %rd5, %rd4, %rd3;\n"
    "  add.s64 %rd8, %rd8, %rd6;\n"
    "  cvta.to.global.u64 %rd8, %rd8;\n"
    "  cvt.u32.u64 %r14, %rd7;\n"
    "  cvt.u32.u64 %r15, %rd8;\n"
    "  or.b32 %r13, %r14, %r15;\n"
    "  setp.ne.u32 %p2, %r12, 16;\n"
    "  @%p2 bra BYTES;\n"
    "  and.b32 %r16, %r13, 15;\n"
    "  setp.eq.u32 %p3, %r16, 0;\n"
    "  @%p3 bra WHOLE;\n"
    "  and.b32 %r16, %r13, 1;\n"
    "  setp.ne.u32 %p4, %r16, 0;\n"
    "  @%p4 bra BYTES;\n"
    "  and.b32 %r16, %r15, 15;\n"
    "  setp.eq.u32 %p5, %r16, 0;\n"
    "  @%p5 bra HALVES_IN;\n"
    "  and.b32 %r16, %r14, 15;\n"
    "  setp.eq.u32 %p6, %r16, 0;\n"
    "  @%p6 bra HALVES_OUT;\n"
    "  bra BYTES;\n"
    "WHOLE:\n"
    "  ld.global.v4.b32 {%r17, %r18, %r19, %r20}, [%rd7];\n"
    "  st.global.v4.b32 [%rd8], {%r17, %r18, %r19, %r20};\n"
    "  bra END;\n"
    "HALVES_IN:\n"
    "  ld.global.b16 %h0, [%rd7];\n"
    "  ld.global.b16 %h1, [%rd7+2];\n"
    "  ld.global.b16 %h2, [%rd7+4];\n"
    "  ld.global.b16 %h3, [%rd7+6];\n"
    "  ld.global.b16 %h4, [%rd7+8];\n"
    "  ld.global.b16 %h5, [%rd7+10];\n"
    "  ld.global.b16 %h6, [%rd7+12];\n"
    "  ld.global.b16 %h7, [%rd7+14];\n"
    "  mov.b32 %r17, {%h0, %h1};\n"
    "  mov.b32 %r18, {%h2, %h3};\n"
    "  mov.b32 %r19, {%h4, %h5};\n"
    "  mov.b32 %r20, {%h6, %h7};\n"
    "  st.global.v4.b32 [%rd8], {%r17, %r18, %r19, %r20};\n"
    "  bra END;\n"
    "HALVES_OUT:\n"
    "  ld.global.v4.b32 {%r17, %r18, %r19, %r20}, [%rd7];\n"
    "  and.b32 %r16, %r15, 3;\n"
    "  setp.eq.u32 %p5, %r16, 0;\n"
    "  @%p5 bra WORDS_OUT;\n"
    "  mov.b32 {%h0, %h1}, %r17;\n"
    "  mov.b32 {%h2, %h3}, %r18;\n"
    "  mov.b32 {%h4, %h5}, %r19;\n"
    "  mov.b32 {%h6, %h7}, %r20;\n"
    "  st.global.b16 [%rd8], %h0;\n"
    "  mov.b32 %r17, {%h1, %h2};\n"
    "  mov.b32 %r18, {%h3, %h4};\n"
    "  mov.b32 %r19, {%h5, %h6};\n"
    "  st.global.b32 [%rd8+2], %r17;\n"
    "  st.global.b32 [%rd8+6], %r18;\n"
    "  st.global.b32 [%rd8+10], %r19;\n"
    "  st.global.b16 [%rd8+14], %h7;\n"
    "  bra END;\n"
    "WORDS_OUT:\n"
    "  st.global.b32 [%rd8], %r17;\n"
    "  st.global.b32 [%rd8+4], %r18;\n"
    "  st.global.b32 [%rd8+8], %r19;\n"
    "  st.global.b32 [%rd8+12], %r20;\n"
    "  bra END;\n"
    "BYTES:\n"
    "  mov.u32 %r21, 0;\n"
    "NEXT:\n"
    "  setp.ge.u32 %p7, %r21, %r12;\n"
    "  @%p7 bra END;\n"
    "  cvt.u64.u32 %rd9, %r21;\n"
    "  add.s64 %rd10, %rd7, %rd9;\n"
    "  add.s64 %rd11, %rd8, %rd9;\n"
    "  ld.global.u8 %r22, [%rd10];\n"
    "  st.global.u8 [%rd11], %r22;\n"
    "  add.u32 %r21, %r21, 1;\n"
    "  bra NEXT;\n"
    "END:\n"
    "  ret;\n"
    "}\n";
// clang-format on
#undef SELECT_PARAM

enum {
  /// Threads per block of the zeroing and the copy kernel; their grids
  /// cover the chunks.
  kZeroBlock = 256,
  kCopyBlock = 256,
  /// The copies one launch of the copy kernel makes.
  kCopyBatch = 3,
  /// The bytes one thread of it clears, and the alignment it needs.
  kZeroChunk = 16,
};

/// The current device's compute capability major version, asked once per
/// context.
static tileRtStatus deviceMajor(int *major) {
  if (!contextState.major)
    CU_CHECK(driver.cuDeviceGetAttribute(
                 &contextState.major,
                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
             "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
  *major = contextState.major;
  return TILE_RT_SUCCESS;
}

/// Sets `*fits` where the zeroing kernel may clear `bytes` at `ptr` and a
/// dependent launch can follow it: on CUDA with cuLaunchKernelEx, on a
/// device with griddepcontrol (compute capability 9.0 and later), for a
/// non-empty range of whole, aligned 16-byte chunks that one grid covers.
static tileRtStatus zeroKernelFits(tileRtDevicePtr ptr, size_t bytes,
                                   bool *fits) {
  *fits = false;
  if (platform != TILE_RT_PLATFORM_CUDA || !driver.cuLaunchKernelEx || !bytes ||
      ptr % kZeroChunk || bytes % kZeroChunk ||
      bytes / kZeroChunk / kZeroBlock >= 0x7fffffffu)
    return TILE_RT_SUCCESS;
  int major = 0;
  tileRtStatus s = deviceMajor(&major);
  *fits = s == TILE_RT_SUCCESS && major >= 9;
  return s;
}

/// The runtime's kernel `name` of the current context (`*slot`), from its
/// module, which is JIT-compiled from kRuntimePtx when a launch first
/// needs one of them rather than at tileRtInit: most programs never do.
static tileRtStatus runtimeKernel(const char *name, CUfunction *slot,
                                  CUfunction *out) {
  if (!contextState.runtimeModule) {
    tileRtModule *module;
    tileRtStatus s =
        tileRtModuleLoadData(kRuntimePtx, sizeof(kRuntimePtx) - 1, &module);
    if (s != TILE_RT_SUCCESS) {
      char msg[2048];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(s, "the runtime's kernel %s: %s", name, msg);
    }
    contextState.runtimeModule = module;
  }
  if (!*slot) {
    CUresult r = driver.cuModuleGetFunction(
        slot, contextState.runtimeModule->module, name);
    if (r != 0) {
      *slot = NULL;
      char what[128];
      snprintf(what, sizeof(what), "cuModuleGetFunction(%s)", name);
      return driverFail(r, what);
    }
  }
  *out = *slot;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtZeroAsync(tileRtDevicePtr ptr, size_t bytes, void *stream,
                             bool *viaKernel) {
  REQUIRE_CONTEXT();
  *viaKernel = false;
  bool fits;
  tileRtStatus s = zeroKernelFits(ptr, bytes, &fits);
  if (s != TILE_RT_SUCCESS)
    return s;
  if (!fits)
    return tileRtMemset8Async(ptr, 0, bytes, stream);
  CUfunction function;
  s = runtimeKernel("tile_rt_zero", &contextState.zeroFunction, &function);
  if (s != TILE_RT_SUCCESS)
    return s;
  uint64_t chunks = bytes / kZeroChunk;
  unsigned blocks = (unsigned)((chunks + kZeroBlock - 1) / kZeroBlock);
  void *params[] = {&ptr, &chunks};
  CU_CHECK(driver.cuLaunchKernel(function, blocks, 1, 1, kZeroBlock, 1, 1, 0,
                                 (CUstream)stream, params, NULL),
           "cuLaunchKernel(tile_rt_zero)");
  *viaKernel = true;
  return TILE_RT_SUCCESS;
}

/// Launches the copy kernel on `copies[0..count)` (1 to kCopyBatch of
/// them, each of whole 16-byte chunks that one 32-bit grid covers), as a
/// programmatic dependent of the grid before it where `dependent` says.
static tileRtStatus launchCopyBatch(const tileRtRowCopy *copies, int count,
                                    bool dependent, void *stream) {
  CUfunction function;
  tileRtStatus s =
      runtimeKernel("tile_rt_copy_rows", &contextState.copyFunction, &function);
  if (s != TILE_RT_SUCCESS)
    return s;
  // Unused sets copy nothing (total 0) and start at no block.
  uint64_t addr[kCopyBatch][4];
  uint32_t sizes[kCopyBatch][3];
  uint32_t first[kCopyBatch] = {0, 0xffffffffu, 0xffffffffu};
  void *params[kCopyBatch * 7 + kCopyBatch - 1];
  memset(addr, 0, sizeof(addr));
  memset(sizes, 0, sizeof(sizes));
  uint32_t blocks = 0;
  for (int i = 0; i < kCopyBatch; ++i) {
    if (i < count) {
      const tileRtRowCopy *c = &copies[i];
      uint64_t chunks = (c->rowBytes + 15) / 16;
      addr[i][0] = c->dst;
      addr[i][1] = c->dstPitch;
      addr[i][2] = c->src;
      addr[i][3] = c->srcPitch;
      sizes[i][0] = (uint32_t)c->rowBytes;
      sizes[i][1] = (uint32_t)chunks;
      sizes[i][2] = (uint32_t)(chunks * c->rows);
      first[i] = blocks;
      blocks += (sizes[i][2] + kCopyBlock - 1) / kCopyBlock;
    }
    for (int j = 0; j < 4; ++j)
      params[7 * i + j] = &addr[i][j];
    for (int j = 0; j < 3; ++j)
      params[7 * i + 4 + j] = &sizes[i][j];
  }
  for (int i = 1; i < kCopyBatch; ++i)
    params[7 * kCopyBatch + i - 1] = &first[i];
  tileRtLaunchConfig config;
  memset(&config, 0, sizeof(config));
  config.grid[0] = blocks;
  config.grid[1] = 1;
  config.grid[2] = 1;
  config.block[0] = kCopyBlock;
  config.block[1] = config.block[2] = 1;
  config.cluster[0] = config.cluster[1] = config.cluster[2] = 1;
  return tileRtLaunchOnStreamImpl((tileRtFunction *)function, &config, params,
                                  stream, dependent && driver.cuLaunchKernelEx);
}

tileRtStatus tileRtCopyRowsAsync(const tileRtRowCopy *copies, int count,
                                 bool dependent, void *stream) {
  REQUIRE_CONTEXT();
  if (count > 0 && platform == TILE_RT_PLATFORM_HIP)
    return tileRtFail(TILE_RT_ERROR_DRIVER,
                      "staged arguments need the CUDA driver");
  // The runtime's copy kernel where one grid covers the chunks (and the
  // device runs sm_90 code, as every TMA kernel's does), several copies a
  // launch (2^31 chunks each at most, so that their blocks add up within
  // 32 bits); else the driver's pitched copy, several times slower on rows
  // of odd length.
  int major = 0;
  tileRtStatus s = count > 0 ? deviceMajor(&major) : TILE_RT_SUCCESS;
  if (s != TILE_RT_SUCCESS)
    return s;
  tileRtRowCopy batch[kCopyBatch];
  int batched = 0;
  for (int i = 0; i < count; ++i) {
    const tileRtRowCopy *c = &copies[i];
    if (!c->rowBytes || !c->rows)
      continue;
    uint64_t chunks = (c->rowBytes + 15) / 16;
    if (major >= 9 && c->rowBytes <= 0xffffffffu &&
        chunks * c->rows <= 0x7fffffffu) {
      batch[batched++] = *c;
      if (batched == kCopyBatch) {
        if ((s = launchCopyBatch(batch, batched, dependent, stream)))
          return s;
        batched = 0;
      }
      continue;
    }
    if (!driver.cuMemcpy2DAsync)
      return tileRtFail(TILE_RT_ERROR_DRIVER,
                        "staged arguments need cuMemcpy2DAsync of the CUDA "
                        "driver");
    CuMemcpy2D copy;
    memset(&copy, 0, sizeof(copy));
    copy.srcMemoryType = copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = c->src;
    copy.srcPitch = c->srcPitch;
    copy.dstDevice = c->dst;
    copy.dstPitch = c->dstPitch;
    copy.WidthInBytes = c->rowBytes;
    copy.Height = c->rows;
    CU_CHECK(driver.cuMemcpy2DAsync(&copy, (CUstream)stream),
             "cuMemcpy2DAsync");
  }
  return batched ? launchCopyBatch(batch, batched, dependent, stream)
                 : TILE_RT_SUCCESS;
}

tileRtStatus tileRtStreamCapturing(void *stream, bool *capturing) {
  REQUIRE_CONTEXT();
  *capturing = false;
  if (platform == TILE_RT_PLATFORM_HIP || !driver.cuStreamIsCapturing)
    return TILE_RT_SUCCESS;
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  CU_CHECK(driver.cuStreamIsCapturing((CUstream)stream, &status),
           "cuStreamIsCapturing");
  *capturing = status != 0;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtStreamOrder(tileRtEvent **event, void *stream, bool wait) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP || !driver.cuStreamWaitEvent)
    return tileRtFail(TILE_RT_ERROR_DRIVER,
                      "staged arguments need cuStreamWaitEvent of the CUDA "
                      "driver");
  if (wait) {
    if (*event)
      CU_CHECK(driver.cuStreamWaitEvent((CUstream)stream, (CUevent)*event, 0),
               "cuStreamWaitEvent");
    return TILE_RT_SUCCESS;
  }
  if (!*event) {
    CUevent e;
    CU_CHECK(driver.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
    *event = (tileRtEvent *)e;
  }
  CU_CHECK(driver.cuEventRecord((CUevent)*event, (CUstream)stream),
           "cuEventRecord");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtEventCreate(tileRtEvent **out) {
  REQUIRE_CONTEXT();
  if (!out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null output");
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipEventCreate(out);
  CUevent e;
  CU_CHECK(driver.cuEventCreate(&e, 0), "cuEventCreate");
  *out = (tileRtEvent *)e;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtEventRecord(tileRtEvent *event) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipEventRecord(event);
  CU_CHECK(driver.cuEventRecord((CUevent)event, NULL), "cuEventRecord");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtEventSynchronize(tileRtEvent *event) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipEventSynchronize(event);
  CU_CHECK(driver.cuEventSynchronize((CUevent)event), "cuEventSynchronize");
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtEventElapsedMs(tileRtEvent *start, tileRtEvent *end,
                                  float *ms) {
  REQUIRE_CONTEXT();
  if (!ms)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null output");
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtHipEventElapsedMs(start, end, ms);
  CU_CHECK(driver.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end),
           "cuEventElapsedTime");
  return TILE_RT_SUCCESS;
}

void tileRtEventDestroy(tileRtEvent *event) {
  if (event && platform == TILE_RT_PLATFORM_HIP && tileRtHipActive())
    tileRtHipEventDestroy(event);
  else if (event && platform == TILE_RT_PLATFORM_CUDA && context)
    driver.cuEventDestroy((CUevent)event);
}

tileRtStatus tileRtEncodeTensorMapTiled(void *map, tileRtDType dtype, int rank,
                                        tileRtDevicePtr address,
                                        const int64_t *sizes,
                                        const uint32_t *box, int interleave,
                                        int swizzle, int l2Promotion,
                                        int oobFill) {
  return tileRtEncodeTensorMapPitched(map, dtype, rank, address, sizes, 0, box,
                                      interleave, swizzle, l2Promotion,
                                      oobFill);
}

tileRtStatus tileRtEncodeTensorMapPitched(void *map, tileRtDType dtype,
                                          int rank, tileRtDevicePtr address,
                                          const int64_t *sizes, uint64_t pitch,
                                          const uint32_t *box, int interleave,
                                          int swizzle, int l2Promotion,
                                          int oobFill) {
  REQUIRE_CONTEXT();
  if (platform == TILE_RT_PLATFORM_HIP)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "tensor maps (TMA) are an NVIDIA feature; the HIP "
                      "platform has none");
  if (!map || !sizes || !box || rank < 1 || rank > 5)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "tensor map needs a rank of 1 to 5, got %d", rank);
  if (!driver.cuTensorMapEncodeTiled)
    return tileRtFail(TILE_RT_ERROR_DRIVER,
                      "this driver lacks cuTensorMapEncodeTiled");
  // The driver's data type enumerators, in its order.
  int dataType;
  switch (dtype) {
  case TILE_RT_DTYPE_I8:
  case TILE_RT_DTYPE_I1:
  case TILE_RT_DTYPE_F8E4M3FN:
  case TILE_RT_DTYPE_F8E5M2:
    dataType = 0;
    break;
  case TILE_RT_DTYPE_I16:
    dataType = 1;
    break;
  case TILE_RT_DTYPE_I32:
    dataType = 3;
    break;
  case TILE_RT_DTYPE_I64:
  case TILE_RT_DTYPE_INDEX:
    dataType = 5;
    break;
  case TILE_RT_DTYPE_F16:
    dataType = 6;
    break;
  case TILE_RT_DTYPE_F32:
    dataType = 7;
    break;
  case TILE_RT_DTYPE_F64:
    dataType = 8;
    break;
  case TILE_RT_DTYPE_BF16:
    dataType = 9;
    break;
  default:
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "no tensor map data type for %s", tileRtDTypeName(dtype));
  }
  // The driver lists dimensions innermost first; strides (in bytes) are
  // given for every dimension but the innermost.
  uint64_t dims[5], strides[4];
  uint32_t boxDims[5], elementStrides[5];
  uint64_t stride = tileRtDTypeSize(dtype);
  for (int i = 0; i < rank; ++i) {
    int src = rank - 1 - i;
    dims[i] = (uint64_t)sizes[src];
    boxDims[i] = box[src];
    elementStrides[i] = 1;
    if (i > 0)
      strides[i - 1] = stride;
    stride = i == 0 && pitch ? pitch : stride * dims[i];
  }
  CU_CHECK(driver.cuTensorMapEncodeTiled(
               map, dataType, (unsigned)rank, (void *)(uintptr_t)address, dims,
               strides, boxDims, elementStrides, interleave, swizzle,
               l2Promotion, oobFill),
           "cuTensorMapEncodeTiled");
  return TILE_RT_SUCCESS;
}
