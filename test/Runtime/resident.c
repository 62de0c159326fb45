//===- resident.c - the resident-block count of persistent grids -*- C -*-===//
//
// A persistent kernel's manifest launches min(TILES, resident_blocks)
// blocks, resident_blocks being the blocks of the kernel the device holds
// at once. Against the stand-in driver and HIP runtime, whose occupancy
// answers follow fixed rules (132 multiprocessors of 2048 threads and
// 233472 bytes of shared memory, 1024 bytes reserved per block, at most 32
// blocks each; 304 compute units of 2048 threads and 64 KiB of LDS), this
// checks tileRtFunctionResidentBlocks, the grids tileRtKernelEvalGrid
// evaluates (primefloor(resident_blocks) among them) and the launches
// take, and the errors: a grid that reads
// resident_blocks without a device, a block that does not fit, the name
// reserved against parameters (variant rules may read it:
// dispatch-resident.test) and a misspelling of it in a rule. The
// manifests are written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   TILE_RT_HIP_RUNTIME=%tile_obj/test/Runtime/libtile-rt-fake-hip.so \
RUN:   %tile_obj/test/Runtime/tile-rt-resident %t | FileCheck %s
CHECK: 256 threads, 0 bytes: 1056 resident blocks
CHECK-NEXT: 128 threads, 0 bytes: 2112 resident blocks
CHECK-NEXT: 384 threads, 230400 bytes: 132 resident blocks
CHECK-NEXT: 1024 threads, 232448 bytes: 132 resident blocks
CHECK-NEXT: too much shared memory: TILE_RT_ERROR_INVALID_ARGUMENT: no block of 128 threads with 240000 bytes of dynamic shared memory fits on a multiprocessor (0 per multiprocessor, 132 multiprocessors)
CHECK-NEXT: no threads: TILE_RT_ERROR_INVALID_ARGUMENT: null function or output, or 0 threads per block (expected 1 to 1024)
CHECK-NEXT: uses resident_blocks: 1, plain grid: 0
CHECK-NEXT: n = 1000: grid 4 1 1
CHECK-NEXT: n = 1000000: grid 1056 1 1
CHECK-NEXT: n = 0: grid 0 1 1
CHECK-NEXT: launched n = 1000000: grid 1056 1 1, block 256 1 1
CHECK-NEXT: shared 230400, n = 1000000: grid 132 1 1
CHECK-NEXT: prime, n = 1000000: grid 131 1 1
CHECK-NEXT: prime, n = 25600: grid 100 1 1
CHECK-NEXT: host kernel: TILE_RT_ERROR_INVALID_ARGUMENT: {{.*}}persistent.manifest: the grid reads resident_blocks, the blocks of its kernel the device holds at once, which only a kernel loaded on the device knows
CHECK-NEXT: host kernel selects: nop
CHECK-NEXT: manifest grid: TILE_RT_ERROR_INVALID_ARGUMENT: {{.*}}persistent.manifest: the grid reads resident_blocks, the blocks of its kernel the device holds at once, which only a kernel loaded on the device knows
CHECK-NEXT: given 7: grid 7 1 1
CHECK-NEXT: reserved name: TILE_RT_ERROR_PARSE: <string>:4: parameter name 'resident_blocks' is reserved: grids read it as the blocks of the kernel the device holds at once
CHECK-NEXT: rule: TILE_RT_ERROR_PARSE: <string>:3: in rule clause 'resident_block > 1': unknown name 'resident_block' at column 1
CHECK-NEXT: hip, 256 threads, 0 bytes: 2432 resident blocks
CHECK-NEXT: hip, 256 threads, 65536 bytes: 304 resident blocks
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

static FakeLastLaunch lastLaunch;

/// Prints the resident blocks of `function` for a block of `threads`
/// threads and `shared` bytes, or the error.
static void resident(const char *platform, tileRtFunction *function,
                     unsigned threads, unsigned shared) {
  int64_t blocks;
  char what[128];
  snprintf(what, sizeof(what), "%s%u threads, %u bytes", platform, threads,
           shared);
  tileRtStatus s =
      tileRtFunctionResidentBlocks(function, threads, shared, &blocks);
  if (s != TILE_RT_SUCCESS) {
    expectOk(s, what);
    return;
  }
  printf("%s: %lld resident blocks\n", what, (long long)blocks);
}

/// Prints the grid `kernel` evaluates for n = `n`.
static void grid(const tileRtKernel *kernel, tileRtArgValue *args, int64_t n,
                 const char *what) {
  args[0].i = n;
  unsigned g[3];
  tileRtStatus s = tileRtKernelEvalGrid(kernel, args, g);
  if (s != TILE_RT_SUCCESS) {
    expectError(s, what);
    return;
  }
  printf("%s: grid %u %u %u\n", what, g[0], g[1], g[2]);
}

/// Writes and loads manifest `name` in `dir`: blocks of 384 threads with
/// 230400 bytes of shared memory, launched min(ceildiv(n, 256), `count`).
static tileRtKernel *sharedKernel(const char *dir, const char *name,
                                  const char *count) {
  char text[512];
  snprintf(text, sizeof(text),
           "tile-launch-manifest 1\nkernel nop\nbinary k.ptx ptx\n"
           "param n i32\nblock 384\nshared 230400\n"
           "grid x min(ceildiv(n, 256), %s)\n",
           count);
  writeFile(dir, name, text);
  return loadKernel(dir, name);
}

static const char persistent[] =
    "tile-launch-manifest 1\n"
    "kernel nop\n"
    "binary k.ptx ptx\n"
    "param n i32\n"
    "block 256\n"
    "grid x min(ceildiv(n, 256), resident_blocks)\n";

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-resident");
  if (!dir)
    return 2;
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  if (startStandInDriver(lastLaunch != NULL))
    return 1;
  writeFile(dir, "k.ptx", ".visible .entry nop() { ret; }\n");

  // The query itself, on the loaded stand-in kernel.
  char path[1024];
  snprintf(path, sizeof(path), "%s/k.ptx", dir);
  tileRtModule *module;
  tileRtFunction *nop;
  expectOk(tileRtModuleLoadFile(path, &module), "load k.ptx");
  expectOk(tileRtModuleGetFunction(module, "nop", &nop), "find nop");
  resident("", nop, 256, 0);
  resident("", nop, 128, 0);
  resident("", nop, 384, 230400);
  resident("", nop, 1024, 232448);
  int64_t blocks;
  expectError(tileRtFunctionResidentBlocks(nop, 128, 240000, &blocks),
              "too much shared memory");
  expectError(tileRtFunctionResidentBlocks(nop, 0, 0, &blocks), "no threads");
  tileRtModuleUnload(module);

  // A persistent grid, evaluated with the count found at load.
  writeFile(dir, "persistent.manifest", persistent);
  writeFile(dir, "plain.manifest",
            "tile-launch-manifest 1\nkernel nop\nbinary k.ptx ptx\n"
            "param n i32\nblock 256\ngrid x ceildiv(n, 256)\n");
  tileRtKernel *kernel = loadKernel(dir, "persistent.manifest");
  tileRtKernel *plain = loadKernel(dir, "plain.manifest");
  printf("uses resident_blocks: %d, plain grid: %d\n",
         tileRtManifestUsesResidentBlocks(tileRtKernelGetManifest(kernel)),
         tileRtManifestUsesResidentBlocks(tileRtKernelGetManifest(plain)));
  tileRtKernelDestroy(plain);
  tileRtArgValue args[1];
  memset(args, 0, sizeof(args));
  grid(kernel, args, 1000, "n = 1000");
  grid(kernel, args, 1000000, "n = 1000000");
  grid(kernel, args, 0, "n = 0");
  args[0].i = 1000000;
  expectOk(tileRtKernelLaunch(kernel, args), "launch");
  unsigned g[3], b[3];
  void *stream;
  long count;
  lastLaunch(g, b, &stream, &count);
  printf("launched n = 1000000: grid %u %u %u, block %u %u %u\n", g[0], g[1],
         g[2], b[0], b[1], b[2]);
  tileRtKernelDestroy(kernel);

  // The block's dynamic shared memory takes part.
  kernel = sharedKernel(dir, "shared.manifest", "resident_blocks");
  grid(kernel, args, 1000000, "shared 230400, n = 1000000");
  tileRtKernelDestroy(kernel);

  // `persistent(blocks = prime)`: the largest prime not above the count.
  kernel = sharedKernel(dir, "prime.manifest", "primefloor(resident_blocks)");
  grid(kernel, args, 1000000, "prime, n = 1000000");
  grid(kernel, args, 256 * 100, "prime, n = 25600");
  tileRtKernelDestroy(kernel);

  // Without the device the count is unknown: the grid cannot be evaluated,
  // though the kernel can still be selected.
  snprintf(path, sizeof(path), "%s/persistent.manifest", dir);
  tileRtKernel *host;
  expectOk(tileRtKernelLoadFileHost(path, &host), "load on the host");
  grid(host, args, 1000000, "host kernel");
  tileRtKernel *target;
  tileRtArgValue targetArgs[TILE_RT_MAX_PARAMS];
  expectOk(tileRtKernelSelect(host, args, &target, targetArgs, NULL, 0),
           "select");
  printf("host kernel selects: %s\n", tileRtKernelGetManifest(target)->kernel);
  unsigned grid3[3];
  const tileRtManifest *m = tileRtKernelGetManifest(host);
  expectError(tileRtManifestEvalGrid(m, args, grid3), "manifest grid");
  expectOk(tileRtManifestEvalGridResident(m, args, 7, grid3), "given 7");
  printf("given 7: grid %u %u %u\n", grid3[0], grid3[1], grid3[2]);
  tileRtKernelDestroy(host);

  // The name belongs to grids alone.
  tileRtManifest parsed;
  expectError(tileRtManifestParseString(
                  "tile-launch-manifest 1\nkernel nop\nbinary k.ptx ptx\n"
                  "param resident_blocks i32\nblock 1\ngrid x 1\n",
                  NULL, &parsed),
              "reserved name");
  expectError(tileRtManifestParseString(
                  "tile-launch-manifest 2\nparam n i32 none\n"
                  "variant plain.manifest when resident_block > 1\n",
                  NULL, &parsed),
              "rule");

  // HIP: the module API's occupancy times the compute units.
  expectOk(tileRtSetPlatform(TILE_RT_PLATFORM_HIP), "select HIP");
  expectOk(tileRtInit(0), "HIP device");
  // The stand-in answers for any function handle.
  static int handle;
  resident("hip, ", (tileRtFunction *)&handle, 256, 0);
  resident("hip, ", (tileRtFunction *)&handle, 256, 65536);
  tileRtShutdown();

  if (failures)
    return 1;
  printf("PASS\n");
  return 0;
}
