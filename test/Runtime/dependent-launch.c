//===- dependent-launch.c - zeroing overlapped with the launch --*- C -*-===//
//
// A manifest with `zero` and `dependent-launch` has its outputs zeroed by
// the runtime's zeroing kernel (tile_rt_zero) and its kernel launched as a
// programmatic dependent of it, on devices of compute capability 9.0 and
// later; elsewhere, and wherever an output is not whole 16-byte chunks at
// a 16-byte aligned address, it keeps cuMemsetD8Async and a plain launch.
// On the stand-in driver, which runs the zeroing kernel on the host and
// counts zeroing kernels, memsets, dependent launches (and of those, the
// ones right after a zeroing kernel on their stream) and modules loaded,
// each case launches accum_f32 (Y += X) over outputs poisoned with 100:
// a sum of X alone shows that the zeroing came first, and the poison
// around each output that nothing else was written. Run once as an sm_90
// device and once as an sm_80 one (FAKE_CUDA_COMPUTE_CAPABILITY), and on
// the stand-in HIP runtime, which keeps hipMemsetAsync. The manifests are
// written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
DEFINE: %{env} = env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
DEFINE:   TILE_RT_HIP_RUNTIME=%tile_obj/test/Runtime/libtile-rt-fake-hip.so
RUN: %{env} %tile_obj/test/Runtime/tile-rt-dependent-launch %t \
RUN:   | FileCheck %s --check-prefixes=CHECK,SM90
RUN: %{env} FAKE_CUDA_COMPUTE_CAPABILITY=8.0 \
RUN:   %tile_obj/test/Runtime/tile-rt-dependent-launch %t \
RUN:   | FileCheck %s --check-prefixes=CHECK,SM80

SM90:      launch: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 1 module loaded
SM90-NEXT: launch again: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: prepared launch on a stream: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: 13 elements: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: 13 elements, prepared: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: misaligned Y: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: empty grid: Y = X; 0 zeroing kernels, 1 memset, no launch, 0 modules loaded
SM90-NEXT: empty grid, prepared: Y = X; 0 zeroing kernels, 1 memset, no launch, 0 modules loaded
SM90-NEXT: empty output: Y = X; 0 zeroing kernels, 0 memsets, plain launch, 0 modules loaded
SM90-NEXT: Y and Z: Y = X, Z = X; 2 zeroing kernels, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: Y and Z, prepared: Y = X, Z = X; 2 zeroing kernels, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: Y and misaligned Z: Y = X, Z = X; 1 zeroing kernel, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: misaligned Y and Z: Y = X, Z = X; 1 zeroing kernel, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: without dependent-launch: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM90-NEXT: cluster: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: cluster of 2 over 3 blocks: TILE_RT_ERROR_DRIVER: cuLaunchKernelEx failed: CUDA_ERROR_INVALID_CLUSTER_SIZE (a kernel launch error has occurred due to cluster misconfiguration)
SM90-NEXT: cluster of 16: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 0 modules loaded
SM90-NEXT: after re-initialising: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 1 module loaded
SM90-NEXT: zeroing kernel refused: TILE_RT_ERROR_DRIVER: the runtime's kernel tile_rt_zero: cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)
SM90-NEXT: stand-in driver: image refused
SM90-NEXT: then accepted: Y = X; 1 zeroing kernel, 0 memsets, dependent launch, 1 module loaded

SM80:      launch: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: launch again: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: prepared launch on a stream: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: 13 elements: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: 13 elements, prepared: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: misaligned Y: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: empty grid: Y = X; 0 zeroing kernels, 1 memset, no launch, 0 modules loaded
SM80-NEXT: empty grid, prepared: Y = X; 0 zeroing kernels, 1 memset, no launch, 0 modules loaded
SM80-NEXT: empty output: Y = X; 0 zeroing kernels, 0 memsets, plain launch, 0 modules loaded
SM80-NEXT: Y and Z: Y = X, Z = X; 0 zeroing kernels, 2 memsets, plain launch, 0 modules loaded
SM80-NEXT: Y and Z, prepared: Y = X, Z = X; 0 zeroing kernels, 2 memsets, plain launch, 0 modules loaded
SM80-NEXT: Y and misaligned Z: Y = X, Z = X; 0 zeroing kernels, 2 memsets, plain launch, 0 modules loaded
SM80-NEXT: misaligned Y and Z: Y = X, Z = X; 0 zeroing kernels, 2 memsets, plain launch, 0 modules loaded
SM80-NEXT: without dependent-launch: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: cluster: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: cluster of 2 over 3 blocks: TILE_RT_ERROR_DRIVER: cuLaunchKernelEx failed: CUDA_ERROR_INVALID_CLUSTER_SIZE (a kernel launch error has occurred due to cluster misconfiguration)
SM80-NEXT: cluster of 16: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: after re-initialising: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: zeroing kernel refused: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded
SM80-NEXT: then accepted: Y = X; 0 zeroing kernels, 1 memset, plain launch, 0 modules loaded

CHECK-NEXT: hip: C = A + B; 1 memset
CHECK-NEXT: PASS
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Floats per buffer: up to 16 of output and poison around them.
enum { kFloats = 24, kMaxOutput = 16 };
static const float kPoison = 100.0f;

/// The stand-in driver's counters (Inputs/fake-cuda.c).
static long (*zeroKernels)(void), (*memsets)(void), (*moduleLoads)(void);
static long (*dependentLaunches)(long *afterZero);
static FakeLastLaunch lastLaunch;

/// The counters before a case, and the differences after it.
typedef struct Counts {
  long zeroKernels, memsets, moduleLoads, dependent, afterZero, launches;
} Counts;

static Counts countNow(void) {
  Counts c;
  unsigned grid[3], block[3];
  void *stream;
  c.zeroKernels = zeroKernels();
  c.memsets = memsets();
  c.moduleLoads = moduleLoads();
  c.dependent = dependentLaunches(&c.afterZero);
  lastLaunch(grid, block, &stream, &c.launches);
  return c;
}

/// One launch of accum_f32 over the first n elements of X into Y (and Z,
/// where the manifest zeroes it too) with a grid of `blocks` blocks of 32
/// threads, each output `offset` floats into its buffer and `size`
/// elements long.
typedef struct Case {
  const char *name;
  tileRtKernel *kernel;
  int n, size, blocks, yOffset, zOffset;
  /// Whether Z is an output the manifest zeroes, and so checked.
  int checkZ;
  /// Through tileRtKernelPrepare and tileRtKernelLaunchPreparedOnStream
  /// rather than the cached launch.
  int prepared;
  void *stream;
} Case;

static float x[kFloats], yBuffer[kFloats], zBuffer[kFloats];

static uint64_t address(const void *p) { return (uint64_t)(uintptr_t)p; }

/// Whether `buffer` holds the output of `c` at `offset`: X where the
/// kernel added it, zero in the rest of the output, the poison around it.
static int holdsSum(const Case *c, const float *buffer, int offset,
                    const char *name) {
  for (int i = 0; i < kFloats; ++i) {
    int at = i - offset;
    float want = at < 0 || at >= c->size ? kPoison : at < c->n ? x[at] : 0.0f;
    if (buffer[i] != want) {
      printf("FAIL: %s: %s[%d] is %g, expected %g\n", c->name, name, at,
             buffer[i], want);
      ++failures;
      return 0;
    }
  }
  return 1;
}

static tileRtStatus launch(const Case *c, const tileRtArgValue *args) {
  if (!c->prepared)
    return tileRtKernelLaunchOnStream(c->kernel, args, c->stream);
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  tileRtStatus s = tileRtKernelPrepare(c->kernel, args, &config, &packed);
  if (s == TILE_RT_SUCCESS)
    s = tileRtKernelLaunchPreparedOnStream(c->kernel, &config, &packed,
                                           c->stream);
  tileRtPackedParamsFree(&packed);
  return s;
}

static const char *plural(long n) { return n == 1 ? "" : "s"; }

/// How the kernel was launched after the zeroing, from the counters'
/// differences `d`.
static const char *launchKind(const Counts *d) {
  long kernels = d->launches - d->zeroKernels;
  if (kernels == 0 && d->dependent == 0)
    return "no launch";
  if (kernels == 1 && d->dependent == 0)
    return "plain launch";
  if (kernels == 1 && d->dependent == 1 && d->afterZero == 1)
    return "dependent launch";
  return "dependent launch not right after a zeroing kernel";
}

/// Poisons the outputs, launches case `c` and prints what happened; the
/// expected counts are in the RUN lines.
static void run(const Case *c) {
  for (int i = 0; i < kFloats; ++i)
    yBuffer[i] = zBuffer[i] = kPoison;
  tileRtArgValue args[5];
  memset(args, 0, sizeof(args));
  args[0].ptr = address(x);
  args[1].ptr = address(yBuffer + c->yOffset);
  args[2].ptr = address(zBuffer + c->zOffset);
  for (int i = 0; i < 3; ++i)
    args[i].sizes[0] = i == 0 ? kMaxOutput : c->size;
  args[3].i = c->n;
  args[4].i = c->blocks;
  Counts before = countNow();
  tileRtStatus s = launch(c, args);
  Counts after = countNow();
  if (s != TILE_RT_SUCCESS) {
    printf("%s: %s: %s\n", c->name, tileRtStatusName(s), tileRtErrorString());
    return;
  }
  if (!holdsSum(c, yBuffer, c->yOffset, "Y") ||
      (c->checkZ && !holdsSum(c, zBuffer, c->zOffset, "Z")))
    return;
  Counts d = {after.zeroKernels - before.zeroKernels,
              after.memsets - before.memsets,
              after.moduleLoads - before.moduleLoads,
              after.dependent - before.dependent,
              after.afterZero - before.afterZero,
              after.launches - before.launches};
  printf("%s: Y = X%s; %ld zeroing kernel%s, %ld memset%s, %s, %ld module%s "
         "loaded\n",
         c->name, c->checkZ ? ", Z = X" : "", d.zeroKernels,
         plural(d.zeroKernels), d.memsets, plural(d.memsets), launchKind(&d),
         d.moduleLoads, plural(d.moduleLoads));
}

/// The manifest of accum_f32 with `zero` lines `zeros`, then `extra`
/// directives, written to `dir`/`name` and loaded. Its grid is the scalar
/// `blocks`, which the kernel does not receive: an empty grid and an empty
/// output are then separate cases.
static tileRtKernel *accumKernel(const char *dir, const char *name,
                                 const char *zeros, const char *extra) {
  char text[1024];
  snprintf(text, sizeof(text),
           "tile-launch-manifest 1\n"
           "kernel accum_f32\n"
           "binary k.ptx ptx\n"
           "param X memref<?xf32> bare\n"
           "param Y memref<?xf32> bare\n"
           "param Z memref<?xf32> bare\n"
           "param n i32\n"
           "param blocks i32 none\n"
           "%s%s"
           "block 32\n"
           "grid x blocks\n",
           zeros, extra);
  return writeAndLoad(dir, name, text);
}

static int findCounters(void) {
  zeroKernels = (long (*)(void))fakeDriverSymbol("fakeCudaZeroKernels");
  memsets = (long (*)(void))fakeDriverSymbol("fakeCudaAsyncMemsets");
  moduleLoads = (long (*)(void))fakeDriverSymbol("fakeCudaModuleLoads");
  dependentLaunches =
      (long (*)(long *))fakeDriverSymbol("fakeCudaDependentLaunches");
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  return zeroKernels && memsets && moduleLoads && dependentLaunches &&
         lastLaunch;
}

/// The cases of one manifest zeroing Y, launched directly and prepared.
static void runYCases(tileRtKernel *k) {
  // Any non-null stream: the stand-in driver only records it.
  void *stream = (void *)(uintptr_t)0x5a;
  const Case cases[] = {
      {"launch", k, .n = 16, .size = 16, .blocks = 1},
      {"launch again", k, .n = 16, .size = 16, .blocks = 1},
      {"prepared launch on a stream", k, .n = 16, .size = 16, .blocks = 1,
       .prepared = 1, .stream = stream},
      // 52 bytes: not whole 16-byte chunks.
      {"13 elements", k, .n = 13, .size = 13, .blocks = 1},
      {"13 elements, prepared", k, .n = 13, .size = 13, .blocks = 1,
       .prepared = 1},
      // 48 bytes, 4 past an aligned address.
      {"misaligned Y", k, .n = 12, .size = 12, .blocks = 1, .yOffset = 1},
      {"empty grid", k, .n = 0, .size = 16, .blocks = 0},
      {"empty grid, prepared", k, .n = 0, .size = 16, .blocks = 0,
       .prepared = 1},
      // Nothing to zero, so no zeroing kernel to follow: a plain launch.
      {"empty output", k, .n = 0, .size = 0, .blocks = 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    run(&cases[i]);
}

/// The cases of a manifest zeroing Y and Z: a dependent launch only where
/// both went through the zeroing kernel, whichever of them did not.
static void runYZCases(tileRtKernel *k) {
  const Case cases[] = {
      {"Y and Z", k, .n = 16, .size = 16, .blocks = 1, .checkZ = 1},
      {"Y and Z, prepared", k, .n = 16, .size = 16, .blocks = 1, .checkZ = 1,
       .prepared = 1},
      {"Y and misaligned Z", k, .n = 16, .size = 16, .blocks = 1, .zOffset = 2,
       .checkZ = 1},
      {"misaligned Y and Z", k, .n = 16, .size = 16, .blocks = 1, .yOffset = 2,
       .checkZ = 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    run(&cases[i]);
}

/// Writes `bytes` bytes at `data` to `dir`/`name`; exits on failure.
static void writeBinary(const char *dir, const char *name, const void *data,
                        size_t bytes) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f)) {
    printf("FAIL: cannot write %s\n", path);
    exit(1);
  }
}

/// On HIP the directive changes nothing: hipMemsetAsync zeroes C, which
/// the stand-in's elementwise_add_kernel then overwrites with A + B.
static void runHip(const char *dir) {
  const char *path = getenv("TILE_RT_HIP_RUNTIME");
  void *hip = path ? dlopen(path, RTLD_NOW) : NULL;
  long (*hipMemsets)(void) =
      hip ? (long (*)(void))dlsym(hip, "fakeHipAsyncMemsets") : NULL;
  if (!hipMemsets || tileRtSetPlatform(TILE_RT_PLATFORM_HIP) || tileRtInit(0)) {
    printf("FAIL: no stand-in HIP runtime: %s\n", tileRtErrorString());
    ++failures;
    return;
  }
  // The smallest code object the stand-in takes: a 64-bit EM_AMDGPU ELF
  // header, the kernel's name, and the section headers' (empty) end.
  static const char kernelName[] = "elementwise_add_kernel";
  unsigned char elf[64 + sizeof(kernelName)];
  memset(elf, 0, sizeof(elf));
  static const unsigned char magic[5] = {0x7f, 'E', 'L', 'F', 2};
  memcpy(elf, magic, sizeof(magic));
  uint16_t machine = 224;
  uint64_t end = sizeof(elf);
  memcpy(elf + 18, &machine, sizeof(machine));
  memcpy(elf + 0x28, &end, sizeof(end));
  memcpy(elf + 64, kernelName, sizeof(kernelName));
  writeBinary(dir, "k.hsaco", elf, sizeof(elf));
  tileRtKernel *k = writeAndLoad(dir, "hip.manifest",
                                 "tile-launch-manifest 1\n"
                                 "kernel elementwise_add_kernel\n"
                                 "binary k.hsaco hsaco\n"
                                 "param A memref<?x?xf16> descriptor\n"
                                 "param B memref<?x?xf16> descriptor\n"
                                 "param C memref<?x?xf16> descriptor\n"
                                 "zero C\n"
                                 "dependent-launch\n"
                                 "block 64\n"
                                 "grid x 1\n");
  uint16_t a[16], b[16], c[16];
  tileRtArgValue args[3];
  memset(args, 0, sizeof(args));
  for (int i = 0; i < 16; ++i) {
    a[i] = tileRtF32ToF16((float)i);
    b[i] = tileRtF32ToF16(0.5f);
    c[i] = 0xffff;
  }
  const uint16_t *buffers[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    args[i].ptr = address(buffers[i]);
    args[i].sizes[0] = 2;
    args[i].sizes[1] = 8;
  }
  long before = hipMemsets();
  tileRtStatus s = tileRtKernelLaunch(k, args);
  int sums = 0;
  for (int i = 0; i < 16; ++i)
    sums += c[i] == tileRtF32ToF16((float)i + 0.5f);
  if (s != TILE_RT_SUCCESS || sums != 16) {
    printf("FAIL: hip: %s, %d of 16 sums\n",
           s ? tileRtErrorString() : "launched", sums);
    ++failures;
  } else {
    long n = hipMemsets() - before;
    printf("hip: C = A + B; %ld memset%s\n", n, plural(n));
  }
  tileRtKernelDestroy(k);
}

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-dependent-launch");
  if (!dir)
    return 2;
  if (startStandInDriver(findCounters()))
    return 1;
  writeFile(dir, "k.ptx", ".visible .entry k() { ret; }\n");
  for (int i = 0; i < kFloats; ++i)
    x[i] = (float)(i + 1);

  tileRtKernel *y =
      accumKernel(dir, "y.manifest", "zero Y\n", "dependent-launch\n");
  runYCases(y);
  tileRtKernel *yz =
      accumKernel(dir, "yz.manifest", "zero Y\nzero Z\n", "dependent-launch\n");
  runYZCases(yz);
  tileRtKernel *plain = accumKernel(dir, "plain.manifest", "zero Y\n", "");
  run(&(Case){"without dependent-launch", plain, .n = 16, .size = 16,
              .blocks = 1});
  // Both attributes at once: the cluster's is still checked against the
  // grid (2 blocks fit a cluster of 2, 3 do not).
  tileRtKernel *cluster = accumKernel(dir, "cluster.manifest", "zero Y\n",
                                      "dependent-launch\ncluster 2\n");
  run(&(Case){"cluster", cluster, .n = 16, .size = 16, .blocks = 2});
  run(&(Case){"cluster of 2 over 3 blocks", cluster, .n = 16, .size = 16,
              .blocks = 3});
  // A cluster of 16 blocks (more than sm_90's portable 8) launches: the
  // runtime lets the kernel use non-portable cluster sizes when it loads.
  tileRtKernel *cluster16 = accumKernel(dir, "cluster16.manifest", "zero Y\n",
                                        "dependent-launch\ncluster 16\n");
  run(&(Case){"cluster of 16", cluster16, .n = 16, .size = 16, .blocks = 16});
  tileRtKernelDestroy(cluster16);
  tileRtKernelDestroy(plain);
  tileRtKernelDestroy(cluster);
  tileRtKernelDestroy(yz);
  tileRtKernelDestroy(y);

  // A new context loads the zeroing kernel again, on its first need.
  tileRtShutdown();
  expectOk(tileRtInit(0), "re-initialise");
  y = accumKernel(dir, "y.manifest", "zero Y\n", "dependent-launch\n");
  run(&(Case){"after re-initialising", y, .n = 16, .size = 16, .blocks = 1});
  tileRtKernelDestroy(y);

  // A zeroing kernel that the driver refuses fails the launch, naming it,
  // and is tried again at the next launch that needs it.
  tileRtShutdown();
  expectOk(tileRtInit(0), "re-initialise");
  y = accumKernel(dir, "y.manifest", "zero Y\n", "dependent-launch\n");
  setenv("FAKE_CUDA_REFUSE_IMAGE", "tile_rt_zero", 1);
  run(&(Case){"zeroing kernel refused", y, .n = 16, .size = 16, .blocks = 1});
  unsetenv("FAKE_CUDA_REFUSE_IMAGE");
  run(&(Case){"then accepted", y, .n = 16, .size = 16, .blocks = 1});
  tileRtKernelDestroy(y);

  runHip(dir);
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
