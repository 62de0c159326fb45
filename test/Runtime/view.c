//===- view.c - variants launched on a view of an argument ------*- C -*-===//
//
// A `variant` line with `view transpose A` hands the variant the argument A
// with its two sizes swapped: a K x 1 matrix is the 1 x K one, byte for
// byte, so a TN product with one row launches an NN kernel. The runtime
// takes such a variant only where the swap keeps the bytes (a size of 1,
// or an empty matrix), and the variant's tensor maps, descriptors and
// checks see the viewed sizes. On the stand-in driver, whose gemm_f16
// computes C = A B and gemm_tn_f16 C = A^T B from their descriptors and
// which reports the descriptors and the tensor map of the last GEMM: the
// variant chosen and why, the arguments it received (sizes and strides
// swapped, the same pointer), the product checked against a host
// reference on a poisoned C, the fall to the next candidate with the
// reason where the view cannot be taken, a column of C computed by the
// NN kernel on arguments exchanged by binds, and the errors. The manifests
// are written to the directory argv[1].
//
// clang-format off
/*
RUN: rm -rf %t && mkdir -p %t
RUN: env TILE_RT_CUDA_DRIVER=%tile_obj/test/Runtime/libtile-rt-fake-cuda.so \
RUN:   %tile_obj/test/Runtime/tile-rt-view %t | FileCheck %s
CHECK:      1x8x16: nn.manifest
CHECK-NEXT:   variant {{.*}}nn.manifest: when arg2.dim0 <= 4, view transpose arg0 (16x1 as 1x16)
CHECK-NEXT:   launched gemm_f16: arg0 the same buffer, sizes 1x16, strides 16x1; tensor map 1x16, pitch 32 bytes; C = A^T B
CHECK-NEXT:   again: 0 tensor maps encoded, C = A^T B
CHECK-NEXT: 4x8x16: tn.manifest
CHECK-NEXT:   passed over variant {{.*}}nn.manifest: view 'transpose arg0' needs a dimension of extent 1, got 16x4
CHECK-NEXT:   variant {{.*}}tn.manifest: no rule
CHECK-NEXT:   launched gemm_tn_f16: arg0 the same buffer, sizes 16x4, strides 4x1; C = A^T B
CHECK-NEXT: 3x8x1: tn.manifest
CHECK-NEXT:   passed over variant {{.*}}nn.manifest: tensor map 'arg0_tmap0': dimension 0 of arg0 has a stride of 2 bytes, expected a multiple of 16 below 2^40
CHECK-NEXT:   variant {{.*}}tn.manifest: no rule
CHECK-NEXT:   launched gemm_tn_f16: arg0 the same buffer, sizes 1x3, strides 3x1; C = A^T B
CHECK-NEXT: 0x8x16: nn.manifest
CHECK-NEXT:   variant {{.*}}nn.manifest: when arg2.dim0 <= 4, view transpose arg0 (16x0 as 0x16)
CHECK-NEXT:   launched nothing
CHECK-NEXT: no catch-all, 4x8x16: TILE_RT_ERROR_INVALID_ARGUMENT: no variant of {{.*}}only.manifest fits the arguments: variant {{.*}}nn.manifest: view 'transpose arg0' needs a dimension of extent 1, got 16x4
CHECK-NEXT: static sizes, 1x8x16: launched gemm_f16, arg0 sizes 1x16
CHECK-NEXT: static sizes, 2x8x16: TILE_RT_ERROR_INVALID_ARGUMENT: arg0: dimension 1 is 2, expected 1 (static in the manifest)
CHECK-NEXT: load mismatch.manifest: TILE_RT_ERROR_INVALID_ARGUMENT: {{.*}}nn-static.manifest:4: parameter 'arg0' differs from its declaration on line 2 of {{.*}}mismatch.manifest (transposed by the variant's view)
CHECK-NEXT: column, 8x1x16: nn.manifest
CHECK-NEXT:   variant {{.*}}nn.manifest: when arg2.dim1 == 1, bind arg0 arg1, bind arg1 arg0, view transpose arg1 (16x1 as 1x16), view transpose arg2 (8x1 as 1x8)
CHECK-NEXT:   launched gemm_f16: arg0 is B, sizes 1x16; arg1 is A, sizes 16x8; arg2 is C, sizes 1x8; C = A^T B
CHECK-NEXT: column, 8x2x16: tn.manifest
CHECK-NEXT:   variant {{.*}}tn.manifest: no rule
CHECK-NEXT: PASS
*/
// clang-format on
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Inputs/checks.h"
#include "tile-runtime/Runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FakeLastLaunch lastLaunch;
static long (*lastDescriptor)(int, uint64_t *, int64_t *);
static long (*lastTensorMap)(uint64_t *, uint64_t *);
static long (*encodes)(void);

/// Memory with a 256-byte aligned start, as the driver allocates.
static uint16_t *alloc(size_t elements) {
  void *p = aligned_alloc(256, (elements * 2 + 255) / 256 * 256 + 256);
  if (!p) {
    printf("FAIL: out of memory\n");
    exit(1);
  }
  return (uint16_t *)p;
}

static uint64_t address(const void *p) { return (uint64_t)(uintptr_t)p; }

/// The operands of C (M x N) = A^T B, A stored K x M, B K x N, with
/// small values whose products and sums f16 and f32 hold exactly.
typedef struct Problem {
  int64_t m, n, k;
  uint16_t *a, *b, *c;
  tileRtArgValue args[3];
} Problem;

static Problem problem(int64_t m, int64_t n, int64_t k) {
  Problem p = {.m = m, .n = n, .k = k};
  p.a = alloc((size_t)(k * m));
  p.b = alloc((size_t)(k * n));
  p.c = alloc((size_t)(m * n));
  for (int64_t i = 0; i < k * m; ++i)
    p.a[i] = tileRtF32ToF16((float)(i % 7 - 3) * 0.25f);
  for (int64_t i = 0; i < k * n; ++i)
    p.b[i] = tileRtF32ToF16((float)(i % 5 - 2) * 0.5f);
  uint16_t *buffers[3] = {p.a, p.b, p.c};
  int64_t sizes[3][2] = {{k, m}, {k, n}, {m, n}};
  for (int i = 0; i < 3; ++i) {
    p.args[i].ptr = address(buffers[i]);
    p.args[i].sizes[0] = sizes[i][0];
    p.args[i].sizes[1] = sizes[i][1];
  }
  return p;
}

static void freeProblem(Problem *p) {
  free(p->a);
  free(p->b);
  free(p->c);
}

/// Whether C holds A^T B exactly (the stand-in sums in f32 in K order).
static int productHolds(const Problem *p) {
  for (int64_t i = 0; i < p->m; ++i)
    for (int64_t j = 0; j < p->n; ++j) {
      float acc = 0;
      for (int64_t q = 0; q < p->k; ++q)
        acc += tileRtF16ToF32(p->a[q * p->m + i]) *
               tileRtF16ToF32(p->b[q * p->n + j]);
      if (p->c[i * p->n + j] != tileRtF32ToF16(acc))
        return 0;
    }
  return 1;
}

/// Prints the last GEMM's A as received and whether C holds the product.
static void describeGemm(const Problem *p) {
  unsigned grid[3], block[3];
  void *stream;
  long count;
  const char *name = lastLaunch(grid, block, &stream, &count);
  uint64_t pointer;
  int64_t d[5];
  lastDescriptor(0, &pointer, d);
  printf("  launched %s: arg0 %s, sizes %lldx%lld, strides %lldx%lld", name,
         pointer == address(p->a) ? "the same buffer" : "ANOTHER BUFFER",
         (long long)d[1], (long long)d[2], (long long)d[3], (long long)d[4]);
  if (strcmp(name, "gemm_f16") == 0) {
    uint64_t sizes[2], pitch;
    lastTensorMap(sizes, &pitch);
    printf("; tensor map %llux%llu, pitch %llu bytes",
           (unsigned long long)sizes[0], (unsigned long long)sizes[1],
           (unsigned long long)pitch);
  }
  printf("; C %s\n", productHolds(p) ? "= A^T B" : "WRONG");
  if (!productHolds(p))
    ++failures;
}

/// Prints, after `label`, which of `k`'s candidates problem `p` selects and
/// the lines saying why; returns 0 (a failure counted) where none fits.
static int explainChoice(tileRtKernel *k, const Problem *p, const char *label) {
  tileRtKernel *target;
  tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
  char why[2048];
  if (tileRtKernelSelect(k, p->args, &target, mapped, why, sizeof(why)) !=
      TILE_RT_SUCCESS) {
    printf("FAIL: %s\n", tileRtErrorString());
    ++failures;
    return 0;
  }
  const char *path = tileRtKernelGetManifest(target)->path;
  const char *slash = strrchr(path, '/');
  printf("%s%lldx%lldx%lld: %s\n", label, (long long)p->m, (long long)p->n,
         (long long)p->k, slash ? slash + 1 : path);
  for (char *line = strtok(why, "\n"); line; line = strtok(NULL, "\n"))
    printf("  %s\n", line);
  return 1;
}

/// Selects and launches `k` on an M x N x K problem: the variant, the
/// lines saying why, and what the stand-in driver received.
static void run(tileRtKernel *k, int64_t m, int64_t n, int64_t kk, int twice) {
  Problem p = problem(m, n, kk);
  if (!explainChoice(k, &p, "")) {
    freeProblem(&p);
    return;
  }
  memset(p.c, 0xff, (size_t)(m * n) * 2);
  long before;
  lastLaunch((unsigned[3]){0}, (unsigned[3]){0}, &(void *){0}, &before);
  expectOk(tileRtKernelLaunch(k, p.args), "launch");
  long after;
  lastLaunch((unsigned[3]){0}, (unsigned[3]){0}, &(void *){0}, &after);
  if (after == before) {
    printf("  launched nothing\n");
  } else {
    describeGemm(&p);
  }
  if (twice) {
    memset(p.c, 0xff, (size_t)(m * n) * 2);
    long encodedBefore = encodes();
    expectOk(tileRtKernelLaunch(k, p.args), "launch again");
    printf("  again: %ld tensor maps encoded, C %s\n",
           encodes() - encodedBefore, productHolds(&p) ? "= A^T B" : "WRONG");
  }
  freeProblem(&p);
}

/// Selects `k` (column.manifest) on an M x N x K problem and, where the NN
/// kernel takes it through binds, launches it: which buffer each of the
/// kernel's arguments is, as what sizes, and whether C holds A^T B.
static void runColumn(tileRtKernel *k, int64_t m, int64_t n, int64_t kk) {
  Problem p = problem(m, n, kk);
  if (explainChoice(k, &p, "column, ") && n == 1) {
    memset(p.c, 0xff, (size_t)(m * n) * 2);
    expectOk(tileRtKernelLaunch(k, p.args), "launch");
    const uint16_t *buffers[3] = {p.a, p.b, p.c};
    const char *names[3] = {"A", "B", "C"};
    printf("  launched %s:", lastLaunch((unsigned[3]){0}, (unsigned[3]){0},
                                        &(void *){0}, &(long){0}));
    for (int i = 0; i < 3; ++i) {
      uint64_t pointer;
      int64_t d[5];
      lastDescriptor(i, &pointer, d);
      const char *name = "ANOTHER BUFFER";
      for (int j = 0; j < 3; ++j)
        if (pointer == address(buffers[j]))
          name = names[j];
      printf("%s arg%d is %s, sizes %lldx%lld", i ? ";" : "", i, name,
             (long long)d[1], (long long)d[2]);
    }
    printf("; C %s\n", productHolds(&p) ? "= A^T B" : "WRONG");
    if (!productHolds(&p))
      ++failures;
  }
  freeProblem(&p);
}

static const char *const gemm = "tile-launch-manifest 1\n"
                                "kernel %s\n"
                                "binary k.ptx ptx\n"
                                "param arg0 memref<%sxf16> descriptor\n"
                                "param arg1 memref<?x?xf16> descriptor\n"
                                "param arg2 memref<?x?xf16> descriptor\n"
                                "%s"
                                "block %d\n"
                                "grid x ceildiv(arg2.dim1, 64)\n"
                                "grid y arg2.dim0\n";

/// Writes the manifest of a GEMM kernel `name` with A of `shape`.
static void writeGemm(const char *dir, const char *file, const char *name,
                      const char *shape, const char *extra, int block) {
  char text[1024];
  snprintf(text, sizeof(text), gemm, name, shape, extra, block);
  writeFile(dir, file, text);
}

int main(int argc, char **argv) {
  const char *dir = directoryArgument(argc, argv, "tile-rt-view");
  if (!dir)
    return 2;
  lastLaunch = (FakeLastLaunch)fakeDriverSymbol("fakeCudaLastLaunch");
  lastDescriptor = (long (*)(int, uint64_t *, int64_t *))fakeDriverSymbol(
      "fakeCudaLastDescriptor");
  lastTensorMap = (long (*)(uint64_t *, uint64_t *))fakeDriverSymbol(
      "fakeCudaLastTensorMap");
  encodes = (long (*)(void))fakeDriverSymbol("fakeCudaTensorMapEncodes");
  if (startStandInDriver(lastLaunch && lastDescriptor && lastTensorMap &&
                         encodes))
    return 1;

  // The NN kernel reads A through a tensor map, as gemm_nn does on sm_90a:
  // TMA cannot address K x 1 rows of 2 bytes, but it can the 1 x K view.
  writeFile(dir, "k.ptx", ".visible .entry gemm_f16() { ret; }\n");
  writeGemm(dir, "nn.manifest", "gemm_f16", "?x?",
            "param arg0_tmap0 tensormap arg0 box 1x64\n", 64);
  writeGemm(dir, "tn.manifest", "gemm_tn_f16", "?x?", "", 128);
  const char *interface = "tile-launch-manifest 2\n"
                          "param arg0 memref<%sxf16> none\n"
                          "param arg1 memref<?x?xf16> none\n"
                          "param arg2 memref<?x?xf16> none\n"
                          "variant %s view transpose arg0 when "
                          "arg2.dim0 <= 4\n"
                          "%s";
  char text[1024];
  snprintf(text, sizeof(text), interface, "?x?", "nn.manifest",
           "variant tn.manifest\n");
  writeFile(dir, "gemm.manifest", text);
  snprintf(text, sizeof(text), interface, "?x?", "nn.manifest", "");
  writeFile(dir, "only.manifest", text);

  tileRtKernel *k = loadKernel(dir, "gemm.manifest");
  run(k, 1, 8, 16, 1);
  run(k, 4, 8, 16, 0);
  // K = 1: A (1 x 3) has a size of 1, so the view holds; the NN kernel's
  // tensor map cannot take its 3 x 1 view.
  run(k, 3, 8, 1, 0);
  run(k, 0, 8, 16, 0);
  tileRtKernelDestroy(k);

  k = loadKernel(dir, "only.manifest");
  Problem p = problem(4, 8, 16);
  expectError(tileRtKernelLaunch(k, p.args), "no catch-all, 4x8x16");
  freeProblem(&p);
  tileRtKernelDestroy(k);

  // Static sizes are compared as the view shows them, at load and at
  // launch: A is K x 1 in the dispatching manifest, 1 x K in the variant.
  writeGemm(dir, "nn-static.manifest", "gemm_f16", "1x?", "", 64);
  snprintf(text, sizeof(text), interface, "?x1", "nn-static.manifest", "");
  writeFile(dir, "static.manifest", text);
  k = loadKernel(dir, "static.manifest");
  p = problem(1, 8, 16);
  if (tileRtKernelLaunch(k, p.args) == TILE_RT_SUCCESS) {
    uint64_t pointer;
    int64_t d[5];
    lastDescriptor(0, &pointer, d);
    printf("static sizes, 1x8x16: launched %s, arg0 sizes %lldx%lld\n",
           lastLaunch((unsigned[3]){0}, (unsigned[3]){0}, &(void *){0},
                      &(long){0}),
           (long long)d[1], (long long)d[2]);
  } else {
    printf("FAIL: static sizes: %s\n", tileRtErrorString());
    ++failures;
  }
  freeProblem(&p);
  p = problem(2, 8, 16);
  expectError(tileRtKernelLaunch(k, p.args), "static sizes, 2x8x16");
  freeProblem(&p);
  tileRtKernelDestroy(k);

  // A variant whose static sizes are those of the unviewed argument.
  snprintf(text, sizeof(text), interface, "?x?", "nn-static.manifest", "");
  writeFile(dir, "mismatch.manifest", text);
  char path[1024];
  snprintf(path, sizeof(path), "%s/mismatch.manifest", dir);
  expectError(tileRtKernelLoadFile(path, &k), "load mismatch.manifest");

  // A column of C (N = 1): C = A^T B transposed is C^T = B^T A, the NN
  // product of B^T (1 x K) and A, which the NN kernel takes with its
  // arguments exchanged by binds.
  writeFile(dir, "column.manifest",
            "tile-launch-manifest 2\n"
            "param arg0 memref<?x?xf16> none\n"
            "param arg1 memref<?x?xf16> none\n"
            "param arg2 memref<?x?xf16> none\n"
            "variant nn.manifest bind arg0 arg1 bind arg1 arg0 view transpose "
            "arg1 view transpose arg2 when arg2.dim1 == 1\n"
            "variant tn.manifest\n");
  k = loadKernel(dir, "column.manifest");
  runColumn(k, 8, 1, 16);
  runColumn(k, 8, 2, 16);
  tileRtKernelDestroy(k);

  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
