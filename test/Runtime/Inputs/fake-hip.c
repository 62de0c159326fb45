//===- fake-hip.c - a host-memory stand-in for the HIP runtime -*- C -*-===//
//
// A shared library with the HIP entry points that libtile_runtime resolves
// from libamdhip64.so, implemented on the host like Inputs/fake-cuda.c:
// device memory is host memory, events read the monotonic clock, and
// "kernels" are C functions looked up by name. Loaded through
// TILE_RT_HIP_RUNTIME, it lets lit drive tile-run on HSACO manifests that
// tile-compile wrote for gfx942 / gfx90a, on a machine without an AMD GPU.
//
// Module images must be AMDGPU ELF code objects (ELF magic, e_machine
// EM_AMDGPU) that name the kernel looked up. Kernels: elementwise_add_kernel
// (C = A + B over three rank-2 f16 memref descriptors) and gemm_nn_kernel
// (C = A B, f16 descriptors, f32 accumulation). FAKE_HIP_DEVICES sets the
// device count (default 1); fakeHipAsyncMemsets counts the stream-ordered
// memsets.
//
// The device has 304 compute units (an MI300X's count) of 2048 threads and
// 65536 bytes of LDS, running at most 32 workgroups each:
// hipModuleOccupancyMaxActiveBlocksPerMultiprocessor answers from those
// numbers alone (a 256-thread workgroup without LDS: 8 per unit, 2432
// resident).
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "fake-host.h"

typedef int hipError_t;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  NO_DEVICE = 100,
  INVALID_IMAGE = 200,
  NOT_FOUND = 500,
};

static const struct {
  hipError_t code;
  const char *name, *text;
} errors[] = {
    {OK, "hipSuccess", "no error"},
    {INVALID_VALUE, "hipErrorInvalidValue", "invalid argument"},
    {NO_DEVICE, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {INVALID_IMAGE, "hipErrorInvalidImage", "device kernel image is invalid"},
    {NOT_FOUND, "hipErrorNotFound", "named symbol not found"},
};

const char *hipGetErrorName(hipError_t code) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == code)
      return errors[i].name;
  return "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t code) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == code)
      return errors[i].text;
  return "unknown error";
}

hipError_t hipInit(unsigned flags) { return flags ? INVALID_VALUE : OK; }

hipError_t hipGetDeviceCount(int *count) {
  const char *forced = getenv("FAKE_HIP_DEVICES");
  *count = forced ? atoi(forced) : 1;
  return *count ? OK : NO_DEVICE;
}

hipError_t hipDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? OK : INVALID_VALUE;
}

hipError_t hipSetDevice(int ordinal) {
  return ordinal == 0 ? OK : INVALID_VALUE;
}

hipError_t hipDeviceGetName(char *name, int len, int device) {
  (void)device;
  strncpy(name, "Host Stand-in AMD Device", (size_t)len);
  return OK;
}

hipError_t hipDeviceComputeCapability(int *major, int *minor, int device) {
  (void)device;
  *major = 9; // gfx942
  *minor = 4;
  return OK;
}

enum {
  COMPUTE_UNITS = 304,
  UNIT_THREADS = 2048,
  UNIT_LDS = 65536,
};

hipError_t hipDeviceGetAttribute(int *value, int attribute, int device) {
  if (device != 0)
    return INVALID_VALUE;
  // hipDeviceAttributeMultiprocessorCount; the runtime asks nothing else.
  *value = attribute == 63 ? COMPUTE_UNITS : 0;
  return OK;
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks,
                                                              void *function,
                                                              int blockSize,
                                                              size_t shared) {
  if (!function)
    return INVALID_VALUE;
  *blocks = fakeBlocksPerUnit(blockSize, shared, UNIT_THREADS, UNIT_LDS, 0);
  return OK;
}

hipError_t hipDeviceSynchronize(void) { return OK; }

static void elementwiseAdd(const unsigned grid[3], const unsigned block[3],
                           void **params) {
  (void)grid, (void)block;
  fakeAdd2dF16(params, INT64_MAX, INT64_MAX);
}

typedef struct KernelEntry {
  const char *name;
  Kernel kernel;
} KernelEntry;

static KernelEntry kernels[] = {{"elementwise_add_kernel", elementwiseAdd},
                                {"gemm_nn_kernel", fakeGemmF16}};

typedef struct Module {
  unsigned char *image;
  size_t size;
} Module;

/// The size of the ELF image at `image`: the end of its section headers.
static size_t elfSize(const unsigned char *image) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  memcpy(&shoff, image + 0x28, sizeof(shoff));
  memcpy(&shentsize, image + 0x3a, sizeof(shentsize));
  memcpy(&shnum, image + 0x3c, sizeof(shnum));
  return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

hipError_t hipModuleLoadData(void **module, const void *image) {
  const unsigned char *bytes = image;
  uint16_t machine;
  memcpy(&machine, bytes + 18, sizeof(machine));
  if (memcmp(bytes,
             "\x7f"
             "ELF",
             4) != 0 ||
      bytes[4] != 2 || machine != 224)
    return INVALID_IMAGE; // not a 64-bit EM_AMDGPU code object
  // A copy, as HIP keeps none of the caller's memory.
  Module *m = calloc(1, sizeof(Module));
  m->size = elfSize(bytes);
  m->image = malloc(m->size);
  if (!m->image) {
    free(m);
    return INVALID_VALUE;
  }
  memcpy(m->image, bytes, m->size);
  *module = m;
  return OK;
}

hipError_t hipModuleUnload(void *module) {
  if (module)
    free(((Module *)module)->image);
  free(module);
  return OK;
}

/// Whether the NUL-terminated `name` occurs in the module's image.
static int imageNames(const Module *m, const char *name) {
  size_t n = strlen(name) + 1;
  for (size_t i = 0; i + n <= m->size; ++i)
    if (memcmp(m->image + i, name, n) == 0)
      return 1;
  return 0;
}

hipError_t hipModuleGetFunction(void **function, void *module,
                                const char *name) {
  if (!imageNames((const Module *)module, name))
    return NOT_FOUND;
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i)
    if (strcmp(kernels[i].name, name) == 0) {
      *function = &kernels[i];
      return OK;
    }
  return NOT_FOUND;
}

hipError_t hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, void *stream,
                                 void **params, void **extra) {
  (void)stream, (void)extra;
  // Wave64 workgroups of at most 1024 lanes and 64 KiB of LDS.
  if ((unsigned long)bx * by * bz > 1024 || shared > 65536)
    return INVALID_VALUE;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  ((KernelEntry *)function)->kernel(grid, block, params);
  return OK;
}

hipError_t hipMalloc(void **ptr, size_t bytes) {
  *ptr = malloc(bytes);
  return *ptr ? OK : INVALID_VALUE;
}

hipError_t hipFree(void *ptr) {
  free(ptr);
  return OK;
}

hipError_t hipMemcpyHtoD(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return OK;
}

hipError_t hipMemcpyDtoH(void *dst, void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return OK;
}

hipError_t hipMemset(void *dst, int value, size_t bytes) {
  memset(dst, value, bytes);
  return OK;
}

static long asyncMemsets;

/// For tests: the stream-ordered memsets so far.
long fakeHipAsyncMemsets(void) { return asyncMemsets; }

hipError_t hipMemsetAsync(void *dst, int value, size_t bytes, void *stream) {
  (void)stream;
  ++asyncMemsets;
  memset(dst, value, bytes);
  return OK;
}

hipError_t hipEventCreate(void **event) {
  *event = fakeEventCreate();
  return *event ? OK : INVALID_VALUE;
}

hipError_t hipEventRecord(void *event, void *stream) {
  (void)stream;
  fakeEventRecord(event);
  return OK;
}

hipError_t hipEventSynchronize(void *event) {
  (void)event;
  return OK;
}

hipError_t hipEventElapsedTime(float *ms, void *start, void *end) {
  *ms = fakeEventElapsed(start, end);
  return OK;
}

hipError_t hipEventDestroy(void *event) {
  free(event);
  return OK;
}
