//===- fake-cuda.c - a host-memory stand-in for the CUDA driver -*- C -*-===//
//
// A shared library with the CUDA driver entry points that libtile_runtime
// resolves, implemented on the host: device memory is host memory, events
// read the monotonic clock, and "kernels" are C functions looked up by
// name. Loaded through TILE_RT_CUDA_DRIVER, it lets tests without a GPU
// drive tile-run end to end (allocation, initialisation, argument packing,
// launch, checks, dumps, timing) and the runtime's driver error reporting.
//
// Kernels: vadd_f32 (bare pointers, as Inputs/kernels.cu), add2d_f16
// (memref descriptors), add2d_f16_tma (A through a tensor map, whose
// stand-in encoding is the address followed by the row pitch),
// add2d_f16_tma2 (A and B through tensor maps, C a descriptor),
// acc2d_f16_tma (C += A, C read and written through a tensor map),
// store2d_f16_tma (C = A, C written through a tensor map), gemm_f16
// (C = A B over three f16 descriptors, f32 accumulation), gemm_tn_f16
// (C = A^T B, A stored K x M), accum_f32 (Y += X and Z += X over bare f32
// pointers, as a split-K kernel adds into zeroed outputs), tile_rt_zero
// (the runtime's own zeroing kernel, Driver.c), tile_rt_copy_rows (its
// copy kernel) and nop (does nothing, so
// that benchmarks time the host side of a launch alone; also under the
// names of the library GEMMs' kernels, gemm_nn_kernel, gemm_nt_kernel and
// gemm_tn_kernel, and of the GEMVs their one-row rules run, gemv_kernel and
// gemv_kn_kernel, for dry runs of their dispatching manifests); PTX images must
// contain ".entry". The environment variable FAKE_CUDA_INIT_ERROR makes
// cuInit fail with that code, and FAKE_CUDA_COMPUTE_CAPABILITY ("8.0")
// sets the device's compute capability (default 9.0); a module image that
// contains the text of FAKE_CUDA_REFUSE_IMAGE fails to load. cuLaunchKernelEx
// takes the cluster and the programmatic stream serialization attributes;
// clusters of more than 8 blocks need the kernel's
// NON_PORTABLE_CLUSTER_SIZE_ALLOWED attribute, as on sm_90.
// fakeCudaLastLaunch reports the kernel, geometry and stream of
// the last launch, so tests can tell which variant of a manifest ran, and
// on which stream; fakeCudaLastDescriptor the descriptors the last GEMM
// received and fakeCudaLastTensorMap the last tensor map encoded, so tests
// can tell how arguments were bound; fakeCudaTensorMapEncodes counts the
// tensor maps encoded, so tests can tell whether a launch reused the maps
// of the one before, fakeCudaRowCopies the pitched copies that stage
// arguments (cuMemcpy2DAsync, or one of the copy kernel's sets),
// fakeCudaCopyLaunches the copy kernel's launches and fakeCudaStreamWaits the
// streams made to wait for an event; fakeCudaSetCapturing makes every
// stream report a graph capture (cuStreamIsCapturing). fakeCudaModuleLoads,
// fakeCudaZeroKernels, fakeCudaAsyncMemsets and fakeCudaDependentLaunches count
// modules loaded, zeroing kernels run, stream-ordered memsets and launches that
// carried the dependent launch attribute (and of those, the ones that
// directly followed a zeroing kernel on their stream).
//
// The device has 132 multiprocessors (an H100 SXM's count) of 2048 threads
// and 233472 bytes of shared memory, 1024 of them reserved per block, and
// runs at most 32 blocks each: cuOccupancyMaxActiveBlocksPerMultiprocessor
// answers from those numbers alone, so a 256-thread block without shared
// memory has 8 per multiprocessor (1056 resident blocks) and a 384-thread
// block with 230400 bytes has 1 (132).
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "fake-host.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  NO_DEVICE = 100,
  INVALID_IMAGE = 200,
  NOT_FOUND = 500,
  INVALID_CLUSTER_SIZE = 912,
};

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {OK, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "a kernel launch error has occurred due to cluster misconfiguration"},
};

CUresult cuGetErrorName(CUresult code, const char **name) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == code) {
      *name = errors[i].name;
      return OK;
    }
  *name = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult code, const char **text) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == code) {
      *text = errors[i].text;
      return OK;
    }
  *text = NULL;
  return INVALID_VALUE;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  const char *forced = getenv("FAKE_CUDA_INIT_ERROR");
  return forced ? atoi(forced) : OK;
}

CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return OK;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return OK;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? OK : INVALID_VALUE;
}

CUresult cuDeviceGetName(char *name, int len, int device) {
  (void)device;
  strncpy(name, "Host Stand-in Device", (size_t)len);
  return OK;
}

enum {
  MULTIPROCESSORS = 132,
  MULTIPROCESSOR_THREADS = 2048,
  MULTIPROCESSOR_SHARED = 233472,
  RESERVED_SHARED = 1024,
};

/// Compute capability `major`.`minor`: FAKE_CUDA_COMPUTE_CAPABILITY, else
/// 9.0 (an H100's).
static void computeCapability(int *major, int *minor) {
  const char *forced = getenv("FAKE_CUDA_COMPUTE_CAPABILITY");
  *major = 9;
  *minor = 0;
  if (forced && sscanf(forced, "%d.%d", major, minor) != 2)
    *major = *minor = 0;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  int major, minor;
  computeCapability(&major, &minor);
  if (attribute == 16) // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    *value = MULTIPROCESSORS;
  else if (attribute == 75) // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    *value = major;
  else if (attribute == 76) // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
    *value = minor;
  else
    *value = 0;
  return OK;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks,
                                                     void *function,
                                                     int blockSize,
                                                     size_t shared) {
  if (!function)
    return INVALID_VALUE;
  *blocks = fakeBlocksPerUnit(blockSize, shared, MULTIPROCESSOR_THREADS,
                              MULTIPROCESSOR_SHARED, RESERVED_SHARED);
  return OK;
}

static int context;

CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  (void)device;
  *ctx = &context;
  return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return OK;
}

CUresult cuCtxSetCurrent(void *ctx) {
  (void)ctx;
  return OK;
}

CUresult cuCtxSynchronize(void) { return OK; }

static void vaddF32(const unsigned grid[3], const unsigned block[3],
                    void **params) {
  float *a, *b, *c;
  int n;
  memcpy(&a, params[0], sizeof(a));
  memcpy(&b, params[1], sizeof(b));
  memcpy(&c, params[2], sizeof(c));
  memcpy(&n, params[3], sizeof(n));
  long threads = (long)grid[0] * block[0];
  for (long i = 0; i < threads && i < n; ++i)
    c[i] = a[i] + b[i];
}

static void add2dF16(const unsigned grid[3], const unsigned block[3],
                     void **params) {
  fakeAdd2dF16(params, (int64_t)grid[1] * block[1],
               (int64_t)grid[0] * block[0]);
}

/// The address and row pitch a stand-in tensor map holds (params[index]).
static void fakeTensorMap(void **params, int index, uint16_t **data,
                          uint64_t *pitch) {
  memcpy(data, params[index], sizeof(*data));
  memcpy(pitch, (char *)params[index] + 8, sizeof(*pitch));
}

/// C = A + B over the grid's threads within C (descriptor `dc`), A and B
/// given by their first element and their row and column strides.
static void addStrided(const unsigned grid[3], const unsigned block[3],
                       const uint16_t *a, int64_t aRow, const uint16_t *b,
                       int64_t bRow, int64_t bCol, uint16_t *c,
                       const int64_t dc[5]) {
  for (int64_t row = 0; row < (int64_t)grid[1] * block[1]; ++row)
    for (int64_t col = 0; col < (int64_t)grid[0] * block[0]; ++col) {
      if (row >= dc[1] || col >= dc[2])
        continue;
      float x = tileRtF16ToF32(a[row * aRow + col]);
      float y = tileRtF16ToF32(b[row * bRow + col * bCol]);
      c[dc[0] + row * dc[3] + col * dc[4]] = tileRtF32ToF16(x + y);
    }
}

/// add2d_f16 with A read through the stand-in tensor map that follows the
/// descriptors of B and C.
static void add2dF16Tma(const unsigned grid[3], const unsigned block[3],
                        void **params) {
  uint16_t *a, *b, *c;
  int64_t db[5], dc[5];
  uint64_t pitch;
  fakeDescriptor(params, 0, &b, db);
  fakeDescriptor(params, 1, &c, dc);
  fakeTensorMap(params, 14, &a, &pitch);
  addStrided(grid, block, a, (int64_t)pitch / 2, b + db[0], db[3], db[4], c,
             dc);
}

/// add2d_f16 with C a descriptor and A and B read through the stand-in
/// tensor maps that follow it.
static void add2dF16Tma2(const unsigned grid[3], const unsigned block[3],
                         void **params) {
  uint16_t *a, *b, *c;
  int64_t dc[5];
  uint64_t pitchA, pitchB;
  fakeDescriptor(params, 0, &c, dc);
  fakeTensorMap(params, 7, &a, &pitchA);
  fakeTensorMap(params, 8, &b, &pitchB);
  addStrided(grid, block, a, (int64_t)pitchA / 2, b, (int64_t)pitchB / 2, 1, c,
             dc);
}

/// C = A, or C += A with `accumulate`, C read and written through its
/// stand-in tensor map (the address, then the row pitch) and A a
/// descriptor, over the grid's threads within A.
static void writeThroughMap(const unsigned grid[3], const unsigned block[3],
                            void **params, int accumulate) {
  uint16_t *a, *c;
  int64_t da[5];
  uint64_t pitch;
  fakeDescriptor(params, 0, &a, da);
  fakeTensorMap(params, 7, &c, &pitch);
  for (int64_t row = 0; row < (int64_t)grid[1] * block[1]; ++row)
    for (int64_t col = 0; col < (int64_t)grid[0] * block[0]; ++col) {
      if (row >= da[1] || col >= da[2])
        continue;
      uint16_t *at = &c[row * (pitch / 2) + col];
      float x = tileRtF16ToF32(a[da[0] + row * da[3] + col * da[4]]);
      *at = tileRtF32ToF16(accumulate ? tileRtF16ToF32(*at) + x : x);
    }
}

static void acc2dF16Tma(const unsigned grid[3], const unsigned block[3],
                        void **params) {
  writeThroughMap(grid, block, params, 1);
}

static void store2dF16Tma(const unsigned grid[3], const unsigned block[3],
                          void **params) {
  writeThroughMap(grid, block, params, 0);
}

static void nop(const unsigned grid[3], const unsigned block[3],
                void **params) {
  (void)grid, (void)block, (void)params;
}

/// Y[i] += X[i] and Z[i] += X[i] for i below n and the grid's threads:
/// bare f32 pointers X, Y, Z and an i32 n. Outputs that were not zeroed
/// first keep what they held in the sum.
static void accumF32(const unsigned grid[3], const unsigned block[3],
                     void **params) {
  float *x, *y, *z;
  int n;
  memcpy(&x, params[0], sizeof(x));
  memcpy(&y, params[1], sizeof(y));
  memcpy(&z, params[2], sizeof(z));
  memcpy(&n, params[3], sizeof(n));
  long threads = (long)grid[0] * block[0];
  for (long i = 0; i < threads && i < n; ++i) {
    y[i] += x[i];
    z[i] += x[i];
  }
}

static long zeroKernels;

/// For tests: the runs of the zeroing kernel tile_rt_zero so far.
long fakeCudaZeroKernels(void) { return zeroKernels; }

/// The runtime's zeroing kernel (Driver.c): thread i stores zeros to the 16
/// bytes at ptr + 16 i, for i below `chunks` (both u64 parameters). A
/// misaligned vector store faults on a GPU; here it aborts.
static void zeroChunks(const unsigned grid[3], const unsigned block[3],
                       void **params) {
  uint64_t ptr, chunks;
  memcpy(&ptr, params[0], sizeof(ptr));
  memcpy(&chunks, params[1], sizeof(chunks));
  if (ptr % 16) {
    fprintf(stderr, "fake-cuda: tile_rt_zero: misaligned address 0x%llx\n",
            (unsigned long long)ptr);
    abort();
  }
  uint64_t threads =
      (uint64_t)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
  for (uint64_t i = 0; i < threads && i < chunks; ++i)
    memset((char *)(uintptr_t)ptr + 16 * i, 0, 16);
  ++zeroKernels;
}

/// The last operation enqueued (a kernel's name, or "memset") and its
/// stream: what a dependent launch may overlap.
static const char *lastOperation;
static void *lastOperationStream;

static long rowCopies, copyLaunches;
static void *rowCopyStream;

/// The runtime's copy kernel (Driver.c): up to three copies, each seven
/// parameters (u64 dst, dst_pitch, src, src_pitch; u32 row_bytes, chunks,
/// total), then the first blocks of copies 1 and 2 (u32, 0xffffffff for
/// none); copy y runs on the blocks from its first to the next one's.
/// Thread i of a copy copies chunk c = i mod chunks of row r = i / chunks,
/// bytes [16 c, min(16 c + 16, row_bytes)), from src + r src_pitch to
/// dst + r dst_pitch.
static void copyRows(const unsigned grid[3], const unsigned block[3],
                     void **params) {
  uint32_t first[4] = {0, 0, 0, grid[0]};
  memcpy(&first[1], params[21], sizeof(first[1]));
  memcpy(&first[2], params[22], sizeof(first[2]));
  for (int y = 0; y < 3; ++y) {
    void **set = params + 7 * y;
    uint64_t dst, dstPitch, src, srcPitch;
    uint32_t rowBytes, chunks, total;
    memcpy(&dst, set[0], sizeof(dst));
    memcpy(&dstPitch, set[1], sizeof(dstPitch));
    memcpy(&src, set[2], sizeof(src));
    memcpy(&srcPitch, set[3], sizeof(srcPitch));
    memcpy(&rowBytes, set[4], sizeof(rowBytes));
    memcpy(&chunks, set[5], sizeof(chunks));
    memcpy(&total, set[6], sizeof(total));
    uint32_t end = grid[0];
    for (int z = y + 1; z < 4; ++z)
      if (first[z] < end)
        end = first[z];
    if (first[y] >= end)
      continue;
    uint64_t threads = (uint64_t)(end - first[y]) * block[0];
    for (uint64_t i = 0; i < threads && i < total; ++i) {
      uint64_t r = i / chunks, at = 16 * (i % chunks);
      uint64_t n = rowBytes - at < 16 ? rowBytes - at : 16;
      memcpy((char *)(uintptr_t)(dst + r * dstPitch + at),
             (const char *)(uintptr_t)(src + r * srcPitch + at), n);
    }
    rowCopies += total > 0;
  }
  ++copyLaunches;
  rowCopyStream = lastOperationStream;
}

/// For tests: the launches of the copy kernel so far (each makes up to
/// three of the copies fakeCudaRowCopies counts).
long fakeCudaCopyLaunches(void) { return copyLaunches; }

/// The three descriptors the last GEMM received: aligned pointer, then
/// offset, sizes and strides; `gemms` counts the GEMMs launched.
static struct {
  long gemms;
  uint64_t pointer[3];
  int64_t values[3][5];
} lastGemm;

static void recordGemm(void **params) {
  for (int k = 0; k < 3; ++k) {
    uint16_t *pointer;
    fakeDescriptor(params, k, &pointer, lastGemm.values[k]);
    lastGemm.pointer[k] = (uint64_t)(uintptr_t)pointer;
  }
  ++lastGemm.gemms;
}

/// For tests: descriptor `k` (0 to 2) of the last gemm_f16 or gemm_tn_f16
/// launch, as the kernel received it: its aligned pointer, and offset,
/// sizes and strides in `values`. Returns the number of GEMMs launched so
/// far (0: nothing is stored).
long fakeCudaLastDescriptor(int k, uint64_t *pointer, int64_t values[5]) {
  if (k < 0 || k > 2)
    return 0;
  *pointer = lastGemm.pointer[k];
  memcpy(values, lastGemm.values[k], sizeof(lastGemm.values[k]));
  return lastGemm.gemms;
}

static void gemmF16(const unsigned grid[3], const unsigned block[3],
                    void **params) {
  recordGemm(params);
  fakeGemmF16(grid, block, params);
}

static void gemmTnF16(const unsigned grid[3], const unsigned block[3],
                      void **params) {
  recordGemm(params);
  fakeGemmTnF16(grid, block, params);
}

typedef struct KernelEntry {
  const char *name;
  Kernel kernel;
  /// Set by cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1).
  int nonPortableClusters;
} KernelEntry;

static KernelEntry kernels[] = {
    {"vadd_f32", vaddF32, 0},
    {"add2d_f16", add2dF16, 0},
    {"add2d_f16_tma", add2dF16Tma, 0},
    {"add2d_f16_tma2", add2dF16Tma2, 0},
    {"acc2d_f16_tma", acc2dF16Tma, 0},
    {"store2d_f16_tma", store2dF16Tma, 0},
    {"gemm_f16", gemmF16, 0},
    {"gemm_tn_f16", gemmTnF16, 0},
    {"accum_f32", accumF32, 0},
    {"tile_rt_zero", zeroChunks, 0},
    {"tile_rt_copy_rows", copyRows, 0},
    {"nop", nop, 0},
    // The library kernels whose dispatching manifests ask the device (the
    // GEMMs' waves, FlashAttention's resident blocks), so that dry runs of
    // them choose on this device; launched, they compute nothing.
    {"gemm_nn_kernel", nop, 0},
    {"gemm_nt_kernel", nop, 0},
    {"gemm_tn_kernel", nop, 0},
    {"gemv_kernel", nop, 0},
    {"gemv_kn_kernel", nop, 0},
    {"flash_attn_kernel", nop, 0}};

static struct {
  const char *kernel;
  unsigned grid[3], block[3];
  void *stream;
  long count;
} last;

/// For tests: the kernel name (null before any launch), grid, block and
/// stream of the last launch, and the number of launches so far.
const char *fakeCudaLastLaunch(unsigned grid[3], unsigned block[3],
                               void **stream, long *count) {
  memcpy(grid, last.grid, sizeof(last.grid));
  memcpy(block, last.block, sizeof(last.block));
  *stream = last.stream;
  *count = last.count;
  return last.kernel;
}

typedef struct Module {
  int loaded;
} Module;

static long moduleLoads;

/// For tests: the modules loaded so far.
long fakeCudaModuleLoads(void) { return moduleLoads; }

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  const char *refused = getenv("FAKE_CUDA_REFUSE_IMAGE");
  int refuse = refused && *refused && strstr((const char *)image, refused);
  if (!strstr((const char *)image, ".entry") || refuse) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        strcpy((char *)values[i],
               refuse ? "stand-in driver: image refused"
                      : "stand-in driver: no .entry in the image");
    return INVALID_IMAGE;
  }
  Module *m = calloc(1, sizeof(Module));
  m->loaded = 1;
  *module = m;
  ++moduleLoads;
  return OK;
}

CUresult cuModuleUnload(void *module) {
  free(module);
  return OK;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i)
    if (strcmp(kernels[i].name, name) == 0) {
      *function = &kernels[i];
      return OK;
    }
  return NOT_FOUND;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  if (attribute == 14) { // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    ((KernelEntry *)function)->nonPortableClusters = value;
    return OK;
  }
  return attribute == 8 && value > 232448 ? INVALID_VALUE : OK;
}

static CUresult launch(void *function, const unsigned grid[3],
                       const unsigned block[3], void *stream, void **params) {
  if ((unsigned long)block[0] * block[1] * block[2] > 1024)
    return INVALID_VALUE;
  last.kernel = ((KernelEntry *)function)->name;
  memcpy(last.grid, grid, sizeof(last.grid));
  memcpy(last.block, block, sizeof(last.block));
  last.stream = stream;
  ++last.count;
  lastOperation = last.kernel;
  lastOperationStream = stream;
  ((KernelEntry *)function)->kernel(grid, block, params);
  return OK;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)shared, (void)extra;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return launch(function, grid, block, stream, params);
}

typedef struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    unsigned clusterDim[3];
    int programmaticStreamSerializationAllowed;
  } value;
} LaunchAttribute;

typedef struct LaunchConfig {
  unsigned grid[3], block[3], shared;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
} LaunchConfig;

static long dependentLaunches, dependentAfterZero;

/// For tests: the launches so far that carried
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION set to 1, and in
/// `*afterZero` (non-null) those of them whose stream's last operation was
/// the zeroing kernel tile_rt_zero.
long fakeCudaDependentLaunches(long *afterZero) {
  *afterZero = dependentAfterZero;
  return dependentLaunches;
}

/// Checks the cluster attribute against the grid; INVALID_CLUSTER_SIZE
/// where a dimension is 0 or does not divide the grid's, or the cluster
/// has more than 8 blocks (16 where the kernel allows non-portable sizes).
static CUresult checkCluster(const LaunchConfig *config,
                             const LaunchAttribute *attr,
                             const KernelEntry *kernel) {
  unsigned blocks = 1;
  for (int d = 0; d < 3; ++d) {
    unsigned c = attr->value.clusterDim[d];
    if (c == 0 || config->grid[d] % c)
      return INVALID_CLUSTER_SIZE;
    blocks *= c;
  }
  // As sm_90: 8 blocks, or 16 for a kernel that allows non-portable sizes.
  return blocks > (kernel->nonPortableClusters ? 16u : 8u)
             ? INVALID_CLUSTER_SIZE
             : OK;
}

CUresult cuLaunchKernelEx(const LaunchConfig *config, void *function,
                          void **params, void **extra) {
  (void)extra;
  int dependent = 0;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const LaunchAttribute *attr = &config->attrs[i];
    if (attr->id == 4) { // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
      CUresult r = checkCluster(config, attr, (const KernelEntry *)function);
      if (r != OK)
        return r;
    } else if (attr->id == 6) { // ..._PROGRAMMATIC_STREAM_SERIALIZATION
      dependent = attr->value.programmaticStreamSerializationAllowed == 1;
    } else {
      return INVALID_VALUE;
    }
  }
  int afterZero = lastOperation && strcmp(lastOperation, "tile_rt_zero") == 0 &&
                  lastOperationStream == config->stream;
  CUresult r =
      launch(function, config->grid, config->block, config->stream, params);
  if (r == OK && dependent) {
    ++dependentLaunches;
    dependentAfterZero += afterZero;
  }
  return r;
}

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  void *p = malloc(bytes);
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return p ? OK : INVALID_VALUE;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void *)(uintptr_t)ptr);
  return OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return OK;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return OK;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  memset((void *)(uintptr_t)dst, value, bytes);
  return OK;
}

static long asyncMemsets;

/// For tests: the stream-ordered memsets so far.
long fakeCudaAsyncMemsets(void) { return asyncMemsets; }

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes,
                         void *stream) {
  ++asyncMemsets;
  lastOperation = "memset";
  lastOperationStream = stream;
  memset((void *)(uintptr_t)dst, value, bytes);
  return OK;
}

/// For tests: the pitched copies so far (the runtime's copy kernel or
/// cuMemcpy2DAsync), and the stream of the last.
long fakeCudaRowCopies(void **stream) {
  *stream = rowCopyStream;
  return rowCopies;
}

/// CUDA_MEMCPY2D, device to device only.
typedef struct Memcpy2D {
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
} Memcpy2D;

CUresult cuMemcpy2DAsync_v2(const Memcpy2D *copy, void *stream) {
  enum { DEVICE = 2 };
  if (copy->srcMemoryType != DEVICE || copy->dstMemoryType != DEVICE ||
      copy->WidthInBytes > copy->srcPitch ||
      copy->WidthInBytes > copy->dstPitch)
    return INVALID_VALUE;
  for (size_t row = 0; row < copy->Height; ++row)
    memcpy((char *)(uintptr_t)copy->dstDevice + row * copy->dstPitch,
           (const char *)(uintptr_t)copy->srcDevice + row * copy->srcPitch,
           copy->WidthInBytes);
  ++rowCopies;
  rowCopyStream = stream;
  lastOperation = "copy";
  lastOperationStream = stream;
  return OK;
}

static long streamWaits;
static int capturing;

/// For tests: the cuStreamWaitEvent calls so far.
long fakeCudaStreamWaits(void) { return streamWaits; }

/// For tests: makes every stream report that it is (`on`) or is not being
/// captured into a graph (cuStreamIsCapturing).
void fakeCudaSetCapturing(int on) { capturing = on; }

CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  (void)stream, (void)event;
  ++streamWaits;
  return flags ? INVALID_VALUE : OK;
}

CUresult cuStreamIsCapturing(void *stream, int *status) {
  (void)stream;
  *status = capturing; // CU_STREAM_CAPTURE_STATUS_ACTIVE is 1
  return OK;
}

CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = fakeEventCreate();
  return *event ? OK : INVALID_VALUE;
}

CUresult cuEventRecord(void *event, void *stream) {
  (void)stream;
  fakeEventRecord(event);
  return OK;
}

CUresult cuEventSynchronize(void *event) {
  (void)event;
  return OK;
}

CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = fakeEventElapsed(start, end);
  return OK;
}

CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return OK;
}

static long tensorMapEncodes;
static uint64_t lastMapSizes[2], lastMapPitch;
/// The L2 promotion (the driver's enumerator) of the last tensor map.
static int lastMapL2;

/// For tests: the number of successful cuTensorMapEncodeTiled calls so far.
long fakeCudaTensorMapEncodes(void) { return tensorMapEncodes; }

/// For tests: the L2 promotion of the last tensor map encoded (the
/// driver's enumerator: 0 none, 1 64 bytes, 2 128 bytes, 3 256 bytes).
int fakeCudaLastTensorMapL2(void) { return lastMapL2; }

/// For tests: the sizes (outermost first) and row pitch in bytes of the
/// last rank-2 tensor map encoded; returns the encodes so far.
long fakeCudaLastTensorMap(uint64_t sizes[2], uint64_t *pitch) {
  sizes[0] = lastMapSizes[0];
  sizes[1] = lastMapSizes[1];
  *pitch = lastMapPitch;
  return tensorMapEncodes;
}

CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box,
                                const uint32_t *elementStrides, int interleave,
                                int swizzle, int l2, int oob) {
  (void)type, (void)elementStrides;
  (void)interleave, (void)swizzle, (void)oob;
  // The real driver's alignment rules, which the runtime checks first.
  if ((uintptr_t)address % 16)
    return INVALID_VALUE;
  for (unsigned i = 0; i < rank; ++i)
    if (box[i] > 256 || (i + 1 < rank && strides[i] % 16))
      return INVALID_VALUE;
  memset(map, 0, 128);
  memcpy(map, &address, sizeof(address));
  if (rank > 1)
    memcpy((char *)map + 8, &strides[0], sizeof(strides[0]));
  if (rank == 2) {
    // The driver's dimensions are innermost first.
    lastMapSizes[0] = dims[1];
    lastMapSizes[1] = dims[0];
    lastMapPitch = strides[0];
  }
  lastMapL2 = l2;
  ++tensorMapEncodes;
  return OK;
}
