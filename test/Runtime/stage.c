//===- stage.c - arguments staged into a workspace for TMA -----*- C -*-===//
//
// A `stage NAME in|out|inout` directive lets the runtime copy a memref
// whose tensor maps cannot address it (an address or a row stride that is
// not a multiple of 16 bytes) into a workspace with padded rows (not for
// `out`), encode the maps over that and, for `out` and `inout`, copy it
// back after the kernel. On the
// stand-in driver, whose kernels read the stand-in maps (address and row
// pitch) and which counts the pitched copies, this checks each path's
// results (outputs poisoned first), the pitch the maps see, the copies
// made and the copy kernel's launches (the copies in together, each copy
// back a dependent of the kernel), what tileRtKernelSelect says, that a stage
// is preferred to a fallback, and launches in a graph capture (no waits for
// work outside it, no allocation), and the L2 promotion encoded for rows that
// do not start on 128-byte boundaries (an argument's, not a staged copy's). The
// manifests are written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   %tile_obj/test/Runtime/tile-rt-stage %t | FileCheck %s
CHECK: 5x77: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: why: stage A: 5 rows of 154 bytes copied to rows of 160
CHECK-NEXT: 5x77 again: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: 5x80: C = A + B, map pitch 160, 0 copies in 0 launches, 0 dependent
CHECK-NEXT: 5x80 at a 2-byte offset: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: why: stage A: its address 0x{{[0-9a-f]+}} is not aligned; 5 rows of 160 bytes copied to a workspace
CHECK-NEXT: 40x77, a larger workspace: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: prepared, 5x77: 1 staged, C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: capture, 5x77: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: capture: 0 waits
CHECK-NEXT: capture, 100x77: {{.*}}add.manifest: a staged launch in a stream capture needs a workspace of 16128 bytes, which cannot be allocated while capturing (6400 allocated): launch the kernel once on these sizes before capturing
CHECK-NEXT: stage before fallback: add2d_f16_tma, C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: inout, 5x77: C += A, map pitch 160, 2 copies in 2 launches, 1 dependent on stream 0x7
CHECK-NEXT: why: stage C: 5 rows of 154 bytes copied to rows of 160 and back
CHECK-NEXT: out, 5x77: C = A, map pitch 160, 1 copies in 1 launches, 1 dependent
CHECK-NEXT: why: stage C: 5 rows of 154 bytes written to rows of 160 and copied back
CHECK-NEXT: A and B, 5x77: C = A + B, map pitch 160, 2 copies in 1 launches, 0 dependent
CHECK-NEXT: A and B, 40x77: C = A + B, map pitch 160, 2 copies in 1 launches, 0 dependent
CHECK-NEXT: four staged, 5x77: C = A + B, map pitch 160, 4 copies in 2 launches, 0 dependent
CHECK-NEXT: rows of 128 bytes: C = A + B, map pitch 128, 0 copies in 0 launches, 0 dependent
CHECK-NEXT: l2 promotion 3
CHECK-NEXT: rows of 256 bytes: C = A + B, map pitch 256, 0 copies in 0 launches, 0 dependent
CHECK-NEXT: l2 promotion 3
CHECK-NEXT: rows of 160 bytes: C = A + B, map pitch 160, 0 copies in 0 launches, 0 dependent
CHECK-NEXT: l2 promotion 2
CHECK-NEXT: staged rows of 154 bytes: C = A + B, map pitch 160, 1 copies in 1 launches, 0 dependent
CHECK-NEXT: l2 promotion 3
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

enum { kMaxRows = 40, kMaxCols = 80 };

static long (*rowCopies)(void **);
static long (*copyLaunches)(void);
static long (*dependentLaunches)(long *);
static long (*streamWaits)(void);
static void (*setCapturing)(int);
static long (*lastTensorMap)(uint64_t *, uint64_t *);
static FakeLastLaunch lastLaunch;

static uint64_t address(const void *p) { return (uint64_t)(uintptr_t)p; }

/// Memory with a 256-byte aligned start, as the driver allocates.
static uint16_t *alloc(size_t elements) {
  void *p = aligned_alloc(256, (elements * 2 + 255) / 256 * 256);
  if (!p) {
    printf("FAIL: out of memory\n");
    exit(1);
  }
  return (uint16_t *)p;
}

static long copyLaunchesBefore, dependentBefore;

/// Notes the copy kernel's launches and the dependent launches so far,
/// which printStaging counts from.
static void markLaunches(void) {
  long afterZero;
  copyLaunchesBefore = copyLaunches();
  dependentBefore = dependentLaunches(&afterZero);
}

/// The copies since `copiesBefore`, the copy kernel's launches and the
/// dependent launches since markLaunches, and the map pitch, as the end
/// of a line.
static void printStaging(long copiesBefore) {
  void *stream;
  uint64_t sizes[2], pitch;
  long afterZero;
  lastTensorMap(sizes, &pitch);
  printf(", map pitch %llu, %ld copies in %ld launches, %ld dependent",
         (unsigned long long)pitch, rowCopies(&stream) - copiesBefore,
         copyLaunches() - copyLaunchesBefore,
         dependentLaunches(&afterZero) - dependentBefore);
}

/// Whether `c` (rows x cols, row-major) holds `a + b` (`b` null: `a`
/// plus the `c0` it held before), printing the first mismatch.
static int check(const uint16_t *c, const uint16_t *a, const uint16_t *b,
                 const uint16_t *c0, int rows, int cols) {
  for (int i = 0; i < rows * cols; ++i) {
    float want = tileRtF16ToF32(a[i]) + tileRtF16ToF32(b ? b[i] : c0[i]);
    if (tileRtF16ToF32(c[i]) != want) {
      printf(" (element %d: %g, expected %g)", i, tileRtF16ToF32(c[i]), want);
      ++failures;
      return 0;
    }
  }
  return 1;
}

/// Arguments A, B, C of `rows` x `cols` for the add kernel, A at `a` (and
/// an unused value for the tensor map).
static void addArgs(tileRtArgValue *args, const uint16_t *a, const uint16_t *b,
                    const uint16_t *c, int rows, int cols) {
  memset(args, 0, sizeof(tileRtArgValue) * 4);
  args[0].ptr = address(a);
  args[1].ptr = address(b);
  args[2].ptr = address(c);
  for (int i = 0; i < 3; ++i) {
    args[i].sizes[0] = rows;
    args[i].sizes[1] = cols;
  }
}

/// Launches C = A + B (C poisoned first) and prints what happened.
static void launchAdd(tileRtKernel *k, const char *what, const uint16_t *a,
                      const uint16_t *b, uint16_t *c, int rows, int cols,
                      int explain) {
  tileRtArgValue args[4];
  addArgs(args, a, b, c, rows, cols);
  memset(c, 0xff, sizeof(uint16_t) * rows * cols);
  void *stream;
  markLaunches();
  long before = rowCopies(&stream);
  tileRtStatus s = tileRtKernelLaunchOnStream(k, args, NULL);
  if (s != TILE_RT_SUCCESS) {
    printf("%s: %s\n", what, tileRtErrorString());
    ++failures;
    return;
  }
  unsigned grid[3], block[3];
  long launches;
  printf("%s: ", what);
  if (strstr(what, "fallback"))
    printf("%s, ", lastLaunch(grid, block, &stream, &launches));
  printf("C = A + B");
  check(c, a, b, NULL, rows, cols);
  printStaging(before);
  printf("\n");
  if (!explain)
    return;
  char why[2048];
  tileRtKernel *target;
  tileRtArgValue targetArgs[TILE_RT_MAX_PARAMS];
  expectOk(tileRtKernelSelect(k, args, &target, targetArgs, why, sizeof(why)),
           "select");
  printf("why: %s", why);
}

/// Launches `k` on `args` on `stream` (failing the test where it fails),
/// then prints `what`, whether the 5 x 77 `c` holds `a + b` (`b` null: `a`
/// plus `c0`) and the staging (printStaging), without ending the line.
static void launchStaged(tileRtKernel *k, const tileRtArgValue *args,
                         void *stream, const char *what, const uint16_t *c,
                         const uint16_t *a, const uint16_t *b,
                         const uint16_t *c0) {
  void *last;
  markLaunches();
  long before = rowCopies(&last);
  expectOk(tileRtKernelLaunchOnStream(k, args, stream), what);
  printf("%s", what);
  check(c, a, b, c0, 5, 77);
  printStaging(before);
}

/// The manifest of add2d_f16_tma2 (C = A + B, A and B read through the
/// maps that follow C's descriptor) with `names` (A and B first) staged in,
/// each reached only through its map.
static const char *mapsAddManifest(const char *const *names, int count) {
  static char text[2048];
  int n = snprintf(text, sizeof(text),
                   "tile-launch-manifest 1\n"
                   "kernel add2d_f16_tma2\n"
                   "binary k.ptx ptx\n");
  for (int i = 0; i < count; ++i)
    n += snprintf(text + n, sizeof(text) - n, "param %s memref<?x?xf16> none\n",
                  names[i]);
  n += snprintf(text + n, sizeof(text) - n,
                "param C memref<?x?xf16> descriptor\n");
  for (int i = 0; i < count; ++i)
    n += snprintf(text + n, sizeof(text) - n,
                  "param %s_tmap tensormap %s box 4x8\n", names[i], names[i]);
  for (int i = 0; i < count; ++i)
    n += snprintf(text + n, sizeof(text) - n, "stage %s in\n", names[i]);
  snprintf(text + n, sizeof(text) - n,
           "block 8 4\n"
           "grid x ceildiv(C.dim1, 8)\n"
           "grid y ceildiv(C.dim0, 4)\n");
  return text;
}

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-stage");
  if (!dir)
    return 2;
  rowCopies = (long (*)(void **))fakeDriverSymbol("fakeCudaRowCopies");
  copyLaunches = (long (*)(void))fakeDriverSymbol("fakeCudaCopyLaunches");
  dependentLaunches =
      (long (*)(long *))fakeDriverSymbol("fakeCudaDependentLaunches");
  lastTensorMap = (long (*)(uint64_t *, uint64_t *))fakeDriverSymbol(
      "fakeCudaLastTensorMap");
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  streamWaits = (long (*)(void))fakeDriverSymbol("fakeCudaStreamWaits");
  setCapturing = (void (*)(int))fakeDriverSymbol("fakeCudaSetCapturing");
  if (startStandInDriver(rowCopies && copyLaunches && dependentLaunches &&
                         lastTensorMap && lastLaunch && streamWaits &&
                         setCapturing))
    return 1;
  writeFile(dir, "k.ptx", ".visible .entry k() { ret; }\n");

  size_t elements = kMaxRows * kMaxCols + 8;
  uint16_t *a = alloc(elements), *b = alloc(elements), *c = alloc(elements);
  for (size_t i = 0; i < elements; ++i) {
    a[i] = tileRtF32ToF16((float)(i % 97));
    b[i] = tileRtF32ToF16(0.5f * (float)(i % 31));
  }

  // A read through a tensor map: 77 columns are 154-byte rows.
  tileRtKernel *add =
      writeAndLoad(dir, "add.manifest", addTmaManifest("", "stage A in\n"));
  launchAdd(add, "5x77", a, b, c, 5, 77, 1);
  // The cached launch copies again (A may have changed) and encodes the
  // map over the workspace again.
  launchAdd(add, "5x77 again", a, b, c, 5, 77, 0);
  launchAdd(add, "5x80", a, b, c, 5, 80, 0);
  launchAdd(add, "5x80 at a 2-byte offset", a + 1, b, c, 5, 80, 1);
  launchAdd(add, "40x77, a larger workspace", a, b, c, 40, 77, 0);

  // A prepared launch stages at each launch too.
  tileRtArgValue args[4];
  addArgs(args, a, b, c, 5, 77);
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  memset(c, 0xff, sizeof(uint16_t) * 5 * 77);
  void *stream;
  markLaunches();
  long before = rowCopies(&stream);
  expectOk(tileRtKernelPrepare(add, args, &config, &packed), "prepare");
  expectOk(tileRtKernelLaunchPrepared(add, &config, &packed), "launch");
  printf("prepared, 5x77: %d staged, C = A + B", packed.numStaged);
  check(c, a, b, NULL, 5, 77);
  printStaging(before);
  printf("\n");
  tileRtPackedParamsFree(&packed);

  // In a graph capture the launch cannot wait for work outside it, nor
  // allocate: it uses the workspace the launches before it grew.
  setCapturing(1);
  long waits = streamWaits();
  launchAdd(add, "capture, 5x77", a, b, c, 5, 77, 0);
  printf("capture: %ld waits\n", streamWaits() - waits);
  tileRtArgValue big[4];
  uint16_t *wide = alloc(100 * 77);
  addArgs(big, wide, wide, wide, 100, 77);
  tileRtStatus s = tileRtKernelLaunchOnStream(add, big, NULL);
  printf("capture, 100x77: %s\n",
         s == TILE_RT_SUCCESS ? "launched" : tileRtErrorString());
  setCapturing(0);
  free(wide);
  tileRtKernelDestroy(add);

  // With a fallback too, the kernel is staged rather than passed over.
  writeFile(dir, "plain.manifest",
            "tile-launch-manifest 1\n"
            "kernel add2d_f16\n"
            "binary k.ptx ptx\n"
            "param A memref<?x?xf16> descriptor\n"
            "param B memref<?x?xf16> descriptor\n"
            "param C memref<?x?xf16> descriptor\n"
            "block 8 4\n"
            "grid x ceildiv(C.dim1, 8)\n"
            "grid y ceildiv(C.dim0, 4)\n");
  char text[2048];
  snprintf(text, sizeof(text), "%sfallback plain.manifest\n",
           addTmaManifest("", "stage A in\n"));
  tileRtKernel *both = writeAndLoad(dir, "both.manifest", text);
  launchAdd(both, "stage before fallback", a, b, c, 5, 77, 0);
  tileRtKernelDestroy(both);

  // C += A with C read and written through its map: copied in and back.
  tileRtKernel *acc = writeAndLoad(dir, "acc.manifest",
                                   "tile-launch-manifest 1\n"
                                   "kernel acc2d_f16_tma\n"
                                   "binary k.ptx ptx\n"
                                   "param A memref<?x?xf16> descriptor\n"
                                   "param C memref<?x?xf16> none\n"
                                   "param C_tmap tensormap C box 4x8\n"
                                   "stage C inout\n"
                                   "block 8 4\n"
                                   "grid x ceildiv(A.dim1, 8)\n"
                                   "grid y ceildiv(A.dim0, 4)\n");
  uint16_t *c0 = alloc(elements);
  for (int i = 0; i < 5 * 77; ++i)
    c[i] = c0[i] = tileRtF32ToF16((float)(i % 13) - 6.0f);
  tileRtArgValue accArgs[3];
  memset(accArgs, 0, sizeof(accArgs));
  accArgs[0].ptr = address(a);
  accArgs[1].ptr = address(c);
  for (int i = 0; i < 2; ++i) {
    accArgs[i].sizes[0] = 5;
    accArgs[i].sizes[1] = 77;
  }
  launchStaged(acc, accArgs, (void *)7, "inout, 5x77: C += A", c, a, NULL, c0);
  rowCopies(&stream);
  printf(" on stream %p\n", stream);
  char why[2048];
  tileRtKernel *target;
  tileRtArgValue targetArgs[TILE_RT_MAX_PARAMS];
  expectOk(
      tileRtKernelSelect(acc, accArgs, &target, targetArgs, why, sizeof(why)),
      "select acc");
  printf("why: %s", why);
  tileRtKernelDestroy(acc);

  // C = A with C only written through its map (`out`): copied back, not
  // in, so C's poison never reaches the workspace and one copy is made.
  tileRtKernel *store = writeAndLoad(dir, "store.manifest",
                                     "tile-launch-manifest 1\n"
                                     "kernel store2d_f16_tma\n"
                                     "binary k.ptx ptx\n"
                                     "param A memref<?x?xf16> descriptor\n"
                                     "param C memref<?x?xf16> none\n"
                                     "param C_tmap tensormap C box 4x8\n"
                                     "stage C out\n"
                                     "block 8 4\n"
                                     "grid x ceildiv(A.dim1, 8)\n"
                                     "grid y ceildiv(A.dim0, 4)\n");
  memset(c, 0xff, sizeof(uint16_t) * 5 * 77);
  memset(c0, 0, sizeof(uint16_t) * 5 * 77);
  launchStaged(store, accArgs, NULL, "out, 5x77: C = A", c, a, NULL, c0);
  printf("\n");
  expectOk(
      tileRtKernelSelect(store, accArgs, &target, targetArgs, why, sizeof(why)),
      "select store");
  printf("why: %s", why);
  tileRtKernelDestroy(store);

  // A and B both read through maps: both copied in by one launch.
  static const char *const staged[] = {"A", "B", "D", "E"};
  tileRtKernel *two =
      writeAndLoad(dir, "two.manifest", mapsAddManifest(staged, 2));
  launchAdd(two, "A and B, 5x77", a, b, c, 5, 77, 0);
  launchAdd(two, "A and B, 40x77", a, b, c, 40, 77, 0);
  tileRtKernelDestroy(two);

  // Four memrefs copied in (two the kernel does not read): three copies
  // make one launch, the fourth another.
  tileRtKernel *four =
      writeAndLoad(dir, "four.manifest", mapsAddManifest(staged, 4));
  tileRtArgValue fourArgs[9];
  memset(fourArgs, 0, sizeof(fourArgs));
  const uint16_t *fourData[5] = {a, b, a, b, c};
  for (int i = 0; i < 5; ++i) {
    fourArgs[i].ptr = address(fourData[i]);
    fourArgs[i].sizes[0] = 5;
    fourArgs[i].sizes[1] = 77;
  }
  memset(c, 0xff, sizeof(uint16_t) * 5 * 77);
  launchStaged(four, fourArgs, NULL, "four staged, 5x77: C = A + B", c, a, b,
               NULL);
  printf("\n");
  tileRtKernelDestroy(four);

  // A map asking for 256-byte L2 promotion gets 128 bytes over an
  // argument's rows that do not start on 128-byte boundaries, its own
  // elsewhere and over a staged copy.
  tileRtKernel *l2 = writeAndLoad(dir, "l2.manifest",
                                  addTmaManifest(" l2 256b", "stage A in\n"));
  int (*lastL2)(void) =
      (int (*)(void))fakeDriverSymbol("fakeCudaLastTensorMapL2");
  static const struct {
    const char *what;
    int rows, cols;
  } l2Cases[] = {{"rows of 128 bytes", 5, 64},
                 {"rows of 256 bytes", 4, 128},
                 {"rows of 160 bytes", 5, 80},
                 {"staged rows of 154 bytes", 5, 77}};
  for (size_t i = 0; lastL2 && i < sizeof(l2Cases) / sizeof(l2Cases[0]); ++i) {
    launchAdd(l2, l2Cases[i].what, a, b, c, l2Cases[i].rows, l2Cases[i].cols,
              0);
    printf("l2 promotion %d\n", lastL2());
  }
  tileRtKernelDestroy(l2);

  free(a);
  free(b);
  free(c);
  free(c0);
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
