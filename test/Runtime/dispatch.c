//===- dispatch.c - variant rules and launches on a stream ------*- C -*-===//
//
// The C API of dispatching manifests: tileRtManifestEvalRule on clauses,
// comparisons and alignment, tileRtManifestEvalRuleResident on a rule that
// reads resident_blocks, tileRtManifestParamText, tileRtKernelSelect
// on a dispatching manifest loaded without a driver, and a launch with
// tileRtKernelLaunchOnStream on the stand-in driver, whose
// fakeCudaLastLaunch tells which kernel ran, with which block, on which
// stream. The manifests are written to the directory given as argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   %tile_obj/test/Runtime/tile-rt-dispatch %t | FileCheck %s
CHECK: rule 'M.dim0 <= 64' at M=64, K=8: 1
CHECK-NEXT: rule 'M.dim0 <= 64' at M=65, K=8: 0
CHECK-NEXT: rule 'M.dim0 > 64 and mod(K, 8) == 0' at M=65, K=16: 1
CHECK-NEXT: rule 'M.dim0 > 64 and mod(K, 8) == 0' at M=65, K=12: 0
CHECK-NEXT: rule 'K != 12' at M=1, K=12: 0
CHECK-NEXT: rule '' at M=1, K=1: 1
CHECK-NEXT: rule 'M.dim0 >= ceildiv(K, 0)' at M=1, K=1: in rule clause 'M.dim0 >= ceildiv(K, 0)': division by zero at column 1
CHECK-NEXT: rule 'M.dim0 * K >= 2 * resident_blocks' at M=66, K=4, 132 resident: 1 (reads resident_blocks: 1)
CHECK-NEXT: rule 'M.dim0 * K >= 2 * resident_blocks' at M=65, K=4, 132 resident: 0 (reads resident_blocks: 1)
CHECK-NEXT: rule 'M.dim0 * K >= 2 * resident_blocks' at M=65, K=4: rule 'M.dim0 * K >= 2 * resident_blocks' reads resident_blocks, the blocks of the variant's kernel the device holds at once, which only a kernel loaded on the device knows
CHECK-NEXT: rule 'M.dim0 <= 64' at M=1, K=1, 132 resident: 1 (reads resident_blocks: 0)
CHECK-NEXT: param 0: M memref<?x?xf16> none
CHECK-NEXT: param 1: K i32 none
CHECK-NEXT: param 5: no parameter 5 (the manifest has 2)
CHECK-NEXT: select M=8: {{.*}}small.manifest, why 'variant {{.*}}small.manifest: when M.dim0 <= 64'
CHECK-NEXT: select M=9000: {{.*}}big.manifest, why 'variant {{.*}}big.manifest: no rule'
CHECK-NEXT: launch M=8 on stream 0x5: gemm_f16, block 64, stream 0x5
CHECK-NEXT: launch M=9000 on the default stream: gemm_f16, block 256, stream (nil)
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

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-dispatch");
  if (!dir)
    return 2;
  // Rules name memref sizes (M.dim0) and integer scalars (K).
  tileRtManifest m;
  if (tileRtManifestParseString("tile-launch-manifest 2\n"
                                "param M memref<?x?xf16> none\n"
                                "param K i32 none\n"
                                "variant x.manifest\n",
                                NULL, &m) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    return 1;
  }
  // Each rule at M rows and the scalar K. A rule may also compare the work
  // with the blocks the variant's kernel holds at once, which only the
  // device knows: `resident` is that count, -1 unknown, and kPlain
  // evaluates with tileRtManifestEvalRule, which has none.
  enum { kPlain = -2 };
  struct {
    const char *rule;
    int64_t rows, k, resident;
  } rules[] = {
      {"M.dim0 <= 64", 64, 8, kPlain},
      {"M.dim0 <= 64", 65, 8, kPlain},
      {"M.dim0 > 64 and mod(K, 8) == 0", 65, 16, kPlain},
      {"M.dim0 > 64 and mod(K, 8) == 0", 65, 12, kPlain},
      {"K != 12", 1, 12, kPlain},
      {"", 1, 1, kPlain},
      {"M.dim0 >= ceildiv(K, 0)", 1, 1, kPlain},
      {"M.dim0 * K >= 2 * resident_blocks", 66, 4, 132},
      {"M.dim0 * K >= 2 * resident_blocks", 65, 4, 132},
      {"M.dim0 * K >= 2 * resident_blocks", 65, 4, -1},
      {"M.dim0 <= 64", 1, 1, 132},
  };
  for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); ++i) {
    tileRtArgValue args[2] = {{0}};
    args[0].sizes[0] = rules[i].rows;
    args[1].i = rules[i].k;
    int holds = -1;
    tileRtStatus s =
        rules[i].resident == kPlain
            ? tileRtManifestEvalRule(&m, rules[i].rule, args, &holds)
            : tileRtManifestEvalRuleResident(&m, rules[i].rule, args,
                                             rules[i].resident, &holds);
    printf("rule '%s' at M=%lld, K=%lld", rules[i].rule,
           (long long)rules[i].rows, (long long)rules[i].k);
    if (s != TILE_RT_SUCCESS)
      printf(": %s\n", tileRtErrorString());
    else if (rules[i].resident == kPlain)
      printf(": %d\n", holds);
    else
      printf(", %lld resident: %d (reads resident_blocks: %d)\n",
             (long long)rules[i].resident, holds,
             tileRtRuleUsesResidentBlocks(rules[i].rule));
  }
  char text[256];
  int indices[] = {0, 1, 5};
  for (int i = 0; i < 3; ++i) {
    if (tileRtManifestParamText(&m, indices[i], text, sizeof(text)) ==
        TILE_RT_SUCCESS)
      printf("param %d: %s\n", indices[i], text);
    else
      printf("param %d: %s\n", indices[i], tileRtErrorString());
  }

  // gemm_f16 of the stand-in driver, on an empty C: it computes nothing.
  writeFile(dir, "k.ptx", ".visible .entry gemm_f16() { ret; }\n");
  const char *variant = "tile-launch-manifest 1\n"
                        "kernel gemm_f16\n"
                        "binary k.ptx ptx\n"
                        "param M memref<?x?xf16> descriptor\n"
                        "param B memref<?x?xf16> descriptor\n"
                        "param C memref<?x?xf16> descriptor\n"
                        "block %d\n"
                        "grid x 1\n";
  char buf[512];
  snprintf(buf, sizeof(buf), variant, 64);
  writeFile(dir, "small.manifest", buf);
  snprintf(buf, sizeof(buf), variant, 256);
  writeFile(dir, "big.manifest", buf);
  writeFile(dir, "gemm.manifest",
            "tile-launch-manifest 2\n"
            "param M memref<?x?xf16> none\n"
            "param B memref<?x?xf16> none\n"
            "param C memref<?x?xf16> none\n"
            "variant small.manifest when M.dim0 <= 64\n"
            "variant big.manifest\n");
  char path[1024];
  snprintf(path, sizeof(path), "%s/gemm.manifest", dir);
  if (tileRtManifestParseFile(path, &m) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    return 1;
  }
  tileRtKernel *host;
  if (tileRtKernelLoadHost(&m, &host) != TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    return 1;
  }
  int64_t rows[] = {8, 9000};
  for (int i = 0; i < 2; ++i) {
    tileRtArgValue args[3] = {{0}}, mapped[TILE_RT_MAX_PARAMS];
    args[0].sizes[0] = rows[i];
    args[0].sizes[1] = 16;
    tileRtKernel *target;
    char why[1024];
    if (tileRtKernelSelect(host, args, &target, mapped, why, sizeof(why)) !=
        TILE_RT_SUCCESS) {
      printf("FAIL: %s\n", tileRtErrorString());
      ++failures;
      continue;
    }
    why[strcspn(why, "\n")] = '\0';
    printf("select M=%lld: %s, why '%s'\n", (long long)rows[i],
           tileRtKernelGetManifest(target)->path, why);
  }
  // A host-loaded kernel selects but does not launch.
  tileRtArgValue one[3] = {{0}};
  one[0].sizes[0] = one[0].sizes[1] = 1;
  if (tileRtKernelLaunch(host, one) == TILE_RT_SUCCESS) {
    printf("FAIL: a kernel loaded without the driver launched\n");
    ++failures;
  }
  tileRtKernelDestroy(host);

  // Launches on the stand-in driver, which reports the last launch.
  tileRtKernel *kernel;
  FakeLastLaunch last = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  if (startStandInDriver(last != NULL))
    return 1;
  if (tileRtKernelLoad(&m, &kernel) != TILE_RT_SUCCESS) {
    printf("FAIL: no stand-in driver: %s\n", tileRtErrorString());
    return 1;
  }
  void *streams[] = {(void *)0x5, NULL};
  uint64_t buffer[4] = {0};
  for (int i = 0; i < 2; ++i) {
    tileRtArgValue args[3] = {{0}};
    args[0].ptr = (uint64_t)(uintptr_t)buffer;
    args[0].sizes[0] = rows[i];
    args[0].sizes[1] = 16;
    if (tileRtKernelLaunchOnStream(kernel, args, streams[i]) !=
        TILE_RT_SUCCESS) {
      printf("FAIL: %s\n", tileRtErrorString());
      ++failures;
      continue;
    }
    unsigned grid[3], block[3];
    void *stream;
    long count;
    const char *name = last(grid, block, &stream, &count);
    if (streams[i])
      printf("launch M=%lld on stream %p: ", (long long)rows[i], streams[i]);
    else
      printf("launch M=%lld on the default stream: ", (long long)rows[i]);
    printf("%s, block %u, stream %p\n", name, block[0], stream);
  }
  tileRtKernelDestroy(kernel);
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
