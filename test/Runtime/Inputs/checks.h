//===- checks.h - checks the C runtime's test programs share ---*- C -*-===//
//
// The failure count and the checks of the test programs in test/Runtime:
// calls that must succeed or fail (printing the runtime's message, which
// the lit RUN lines FileCheck), the files they write for manifests,
// loading them, and the stand-in driver's report functions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_RUNTIME_CHECKS_H
#define TILE_TEST_RUNTIME_CHECKS_H

#include "tile-runtime/Runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/// The stand-in driver's report of its last launch (test/Runtime/Inputs/
/// fake-cuda.c): kernel name, grid, block, stream and launch count.
typedef const char *(*FakeLastLaunch)(unsigned *, unsigned *, void **, long *);

/// The function `name` of the stand-in driver that TILE_RT_CUDA_DRIVER
/// names; null when the variable is unset, the library does not load or
/// lacks the function. The library stays loaded.
static inline void *fakeDriverSymbol(const char *name) {
  static void *driver;
  if (!driver) {
    const char *path = getenv("TILE_RT_CUDA_DRIVER");
    driver = path ? dlopen(path, RTLD_NOW) : NULL;
  }
  return driver ? dlsym(driver, name) : NULL;
}

/// The directory the test writes its files to, its one argument; null
/// after a usage line naming `program` when the arguments are not that.
static inline const char *directoryArgument(int argc, char **argv,
                                            const char *program) {
  if (argc == 2)
    return argv[1];
  fprintf(stderr, "usage: %s DIR\n", program);
  return NULL;
}

/// Initialises the runtime on the stand-in driver once the test has found
/// the driver's report functions it needs (`found`): 0, or 1 after a FAIL
/// line naming the runtime's last error.
static inline int startStandInDriver(int found) {
  if (found && tileRtInit(0) == TILE_RT_SUCCESS)
    return 0;
  printf("FAIL: no stand-in driver: %s\n", tileRtErrorString());
  return 1;
}

/// Failed checks so far; the program's exit status when nonzero.
static int failures;

/// Prints `what` with the status and message of a call that must succeed.
static inline void expectOk(tileRtStatus s, const char *what) {
  if (s == TILE_RT_SUCCESS)
    return;
  ++failures;
  printf("FAIL: %s: %s: %s\n", what, tileRtStatusName(s), tileRtErrorString());
}

/// Prints the error of a call that must fail.
static inline void expectError(tileRtStatus s, const char *what) {
  if (s == TILE_RT_SUCCESS) {
    ++failures;
    printf("FAIL: %s succeeded\n", what);
    return;
  }
  printf("%s: %s: %s\n", what, tileRtStatusName(s), tileRtErrorString());
}

/// Writes `text` to `dir`/`name`; exits on failure.
static inline void writeFile(const char *dir, const char *name,
                             const char *text) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    printf("FAIL: cannot write %s\n", path);
    exit(1);
  }
}

/// Loads the manifest `dir`/`name`; exits on failure. The caller owns the
/// kernel.
static inline tileRtKernel *loadKernel(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  tileRtKernel *k;
  if (tileRtKernelLoadFile(path, &k) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    exit(1);
  }
  return k;
}

/// Writes the manifest `text` to `dir`/`name` and loads it; exits on
/// failure. The caller owns the kernel.
static inline tileRtKernel *writeAndLoad(const char *dir, const char *name,
                                         const char *text) {
  writeFile(dir, name, text);
  return loadKernel(dir, name);
}

/// The manifest of the stand-in's add2d_f16_tma kernel, C = A + B with A
/// read through a tensor map taking `mapOptions` (e.g. " l2 256b"), with
/// `directives` (e.g. "stage A in\n") before its launch lines. The text is
/// in a static buffer, valid until the next call.
static inline const char *addTmaManifest(const char *mapOptions,
                                         const char *directives) {
  static char text[1024];
  snprintf(text, sizeof(text),
           "tile-launch-manifest 1\n"
           "kernel add2d_f16_tma\n"
           "binary k.ptx ptx\n"
           "param A memref<?x?xf16> none\n"
           "param B memref<?x?xf16> descriptor\n"
           "param C memref<?x?xf16> descriptor\n"
           "param A_tmap tensormap A box 4x8%s\n"
           "%s"
           "block 8 4\n"
           "grid x ceildiv(C.dim1, 8)\n"
           "grid y ceildiv(C.dim0, 4)\n",
           mapOptions, directives);
  return text;
}

#endif // TILE_TEST_RUNTIME_CHECKS_H
