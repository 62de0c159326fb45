//===- tile-run.c - run a compiled tile kernel by its manifest -*- C -*-===//
//
// tile-run loads the launch manifest that tile-compile writes beside a
// kernel binary, allocates and initialises every memref parameter (seeded
// random data, zeros, NaN poison or a file), launches the kernel once,
// compares outputs with reference files under per-dtype tolerances, dumps
// buffers, and times repeated launches with driver events. It exits with a
// non-zero status on any error or mismatch. --dry-run does everything that
// needs no GPU (manifest, fallback, binaries, files, arguments, grid, tensor
// map rules, argument packing) and prints it.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "tile-runtime/Runtime.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kMaxChecks = 32 };

/// The largest size tile-run accepts for one dimension (host buffers of
/// that many elements are already far beyond any device memory).
static const long long kMaxDimension = 1LL << 40;

static const char *const usage =
    "usage: tile-run MANIFEST [options]\n"
    "\n"
    "Runs the kernel described by a tile launch manifest (docs/Runtime.md).\n"
    "\n"
    "options:\n"
    "  --arg NAME=SPEC     value of parameter NAME. Memrefs: "
    "DIMS[:DTYPE][:INIT]\n"
    "                      with DIMS like 4096x4096 (empty for rank 0), DTYPE\n"
    "                      (optional) the manifest's element type, INIT one "
    "of\n"
    "                        random    uniform in [-1, 1), never zero "
    "(floats);\n"
    "                                  integers in [-8, 8) without 0 (i1: "
    "0/1)\n"
    "                        zeros     all bytes 0\n"
    "                        poison    all bytes 0xff (NaN for floats)\n"
    "                        file=PATH raw little-endian row-major elements\n"
    "                      (default random). Memrefs with only static sizes\n"
    "                      may be left out (random). Scalars: --arg n=4096.\n"
    "  --seed N            seed of the random inputs (default 1); each\n"
    "                      parameter draws from its own stream, keyed by name\n"
    "  --check NAME=FILE   after the first launch, compare NAME with the raw\n"
    "                      reference FILE: |out - ref| <= atol + rtol * "
    "|ref|;\n"
    "                      NaN never matches\n"
    "  --rtol X, --atol X  tolerances (defaults by dtype: f16 1e-2/1e-3,\n"
    "                      bf16 3e-2/1e-2, f32 1e-5/1e-6, f64 1e-12/1e-14,\n"
    "                      integers exact)\n"
    "  --dump NAME=FILE    write NAME after the first launch as raw elements\n"
    "  --time              time --reps launches after --warmup launches with\n"
    "                      events; print median and minimum\n"
    "  --reps N            timed launches (default 100)\n"
    "  --warmup N          untimed launches before timing (default 3)\n"
    "  --device N          CUDA device ordinal (default 0)\n"
    "  --dry-run           check files and arguments, evaluate the grid and\n"
    "                      print the packed kernel arguments without a GPU\n"
    "                      (a persistent kernel's grid and rules that\n"
    "                      read resident_blocks, and costed variants,\n"
    "                      which count waves, ask the device)\n"
    "  --print-manifest    print the parsed manifest and exit\n"
    "  --list-devices      print the CUDA devices; fails when there are none\n"
    "  --help              print this help\n"
    "\n"
    "The environment variable TILE_RT_CUDA_DRIVER names the driver library\n"
    "(default libcuda.so.1). Exit status: 0 on success, 1 on any error or\n"
    "mismatch, 2 on bad usage.\n";

typedef enum InitKind {
  INIT_RANDOM,
  INIT_ZEROS,
  INIT_POISON,
  INIT_FILE
} InitKind;

/// What the command line says about one manifest parameter.
typedef struct ParamState {
  bool given;
  InitKind init;
  const char *file;
  size_t elements;
  size_t bytes;
  void *host;
  const char *checkFile;
  const char *dumpFile;
} ParamState;

typedef struct Options {
  const char *manifestPath;
  uint64_t seed;
  double rtol, atol;
  bool rtolGiven, atolGiven;
  bool time, dryRun, printManifest, listDevices;
  int reps, warmup, device;
} Options;

static tileRtManifest manifest;
static tileRtArgValue args[TILE_RT_MAX_PARAMS];
static ParamState state[TILE_RT_MAX_PARAMS];

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...) {
  // Results already printed come first when both streams share a pipe.
  fflush(stdout);
  va_list ap;
  va_start(ap, fmt);
  fputs("tile-run: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

/// Reports the runtime's last error after `what` failed.
static int failRt(const char *what) {
  if (what)
    return fail("%s: %s", what, tileRtErrorString());
  return fail("%s", tileRtErrorString());
}

static bool parseInt(const char *s, long long min, long long max,
                     long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max)
    return false;
  *out = v;
  return true;
}

static bool parseDouble(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end)
    return false;
  *out = v;
  return true;
}

/// Splits "NAME=VALUE" and finds NAME among the manifest's parameters.
static int splitNamed(const char *option, const char *text,
                      const char **value) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) {
    fail("%s expects NAME=VALUE, got '%s'", option, text);
    return -1;
  }
  char name[TILE_RT_MAX_NAME];
  size_t len = (size_t)(eq - text);
  if (len >= sizeof(name)) {
    fail("%s: parameter name too long", option);
    return -1;
  }
  memcpy(name, text, len);
  name[len] = '\0';
  int index = tileRtManifestFindParam(&manifest, name);
  if (index < 0) {
    fail("%s: the manifest has no parameter '%s'", option, name);
    return -1;
  }
  *value = eq + 1;
  return index;
}

static int parseMemRefArg(int index, const char *spec) {
  const tileRtParam *p = &manifest.params[index];
  ParamState *st = &state[index];
  char buf[4096];
  if (strlen(spec) >= sizeof(buf))
    return fail("--arg %s: value too long", p->name);
  strcpy(buf, spec);
  // DIMS[:DTYPE][:INIT]; file=PATH may itself hold ':' so split at most
  // twice, and only take a DTYPE when the field names one.
  char *fields[3] = {buf, NULL, NULL};
  int n = 1;
  for (char *c = buf; *c && n < 3; ++c)
    if (*c == ':') {
      *c = '\0';
      fields[n++] = c + 1;
    }
  const char *initText = NULL;
  if (n >= 2) {
    tileRtDType dt = tileRtDTypeFromName(fields[1], strlen(fields[1]));
    if (dt != TILE_RT_DTYPE_INVALID) {
      if (dt != p->dtype)
        return fail("--arg %s: element type %s does not match the manifest's "
                    "%s",
                    p->name, fields[1], tileRtDTypeName(p->dtype));
      initText = n == 3 ? fields[2] : NULL;
    } else {
      if (n == 3)
        fields[1][strlen(fields[1])] = ':'; // rejoin "file=a:b"
      initText = fields[1];
    }
  }
  // Dimensions: every field between the x's must be a number, so "7x",
  // "x9" and "4xx5" are errors rather than shapes with a field dropped.
  int rank = 0;
  if (*fields[0]) {
    char *tok = fields[0];
    for (;;) {
      char *x = strchr(tok, 'x');
      if (x)
        *x = '\0';
      long long v;
      if (rank == TILE_RT_MAX_RANK)
        return fail("--arg %s: more than %d dimensions in '%s'", p->name,
                    TILE_RT_MAX_RANK, spec);
      if (!*tok)
        return fail("--arg %s: empty dimension %d in '%s'", p->name, rank,
                    spec);
      if (!parseInt(tok, LLONG_MIN, LLONG_MAX, &v) || v < 0 ||
          v > kMaxDimension)
        return fail("--arg %s: dimension %d is '%s', expected an integer "
                    "from 0 to 2^40",
                    p->name, rank, tok);
      args[index].sizes[rank++] = v;
      if (!x)
        break;
      tok = x + 1;
    }
  }
  if (rank != p->rank)
    return fail("--arg %s: %d dimensions given, the manifest's memref has %d",
                p->name, rank, p->rank);
  st->init = INIT_RANDOM;
  if (initText) {
    if (strcmp(initText, "random") == 0)
      st->init = INIT_RANDOM;
    else if (strcmp(initText, "zeros") == 0)
      st->init = INIT_ZEROS;
    else if (strcmp(initText, "poison") == 0)
      st->init = INIT_POISON;
    else if (strncmp(initText, "file=", 5) == 0 && initText[5]) {
      st->init = INIT_FILE;
      st->file = spec + (initText + 5 - buf);
    } else
      return fail("--arg %s: unknown initialisation '%s' (expected random, "
                  "zeros, poison or file=PATH)",
                  p->name, initText);
  }
  st->given = true;
  return 0;
}

static int parseScalarArg(int index, const char *value) {
  const tileRtParam *p = &manifest.params[index];
  if (tileRtDTypeIsFloat(p->dtype)) {
    if (!parseDouble(value, &args[index].f))
      return fail("--arg %s: expected a number, got '%s'", p->name, value);
  } else {
    long long v;
    if (!parseInt(value, INT64_MIN, INT64_MAX, &v))
      return fail("--arg %s: expected an integer from -2^63 to 2^63-1, got "
                  "'%s'",
                  p->name, value);
    args[index].i = v;
  }
  state[index].given = true;
  return 0;
}

/// Completes and checks the arguments: static sizes fill in omitted memrefs,
/// scalars must be given, and sizes give element and byte counts.
static int bindArguments(void) {
  for (int i = 0; i < manifest.numParams; ++i) {
    const tileRtParam *p = &manifest.params[i];
    ParamState *st = &state[i];
    if (p->kind == TILE_RT_PARAM_SCALAR && !st->given)
      return fail("missing --arg %s=VALUE for scalar parameter '%s' (%s)",
                  p->name, p->name, tileRtDTypeName(p->dtype));
    if (p->kind == TILE_RT_PARAM_TENSOR_MAP && st->given)
      return fail("--arg %s: tensor map parameters are built from their "
                  "memref, not given",
                  p->name);
    if (p->kind != TILE_RT_PARAM_MEMREF)
      continue;
    if (!st->given) {
      for (int d = 0; d < p->rank; ++d) {
        if (p->dims[d] == TILE_RT_DYNAMIC_DIM)
          return fail("missing --arg %s=DIMS...: memref '%s' has dynamic "
                      "sizes",
                      p->name, p->name);
        args[i].sizes[d] = p->dims[d];
      }
      st->init = INIT_RANDOM;
    }
  }
  // Ranges of scalars and sizes first, so the counts below cannot overflow
  // (the runtime bounds every memref's bytes by 2^63-1).
  if (tileRtManifestCheckArgs(&manifest, args) != TILE_RT_SUCCESS)
    return failRt(NULL);
  for (int i = 0; i < manifest.numParams; ++i) {
    const tileRtParam *p = &manifest.params[i];
    ParamState *st = &state[i];
    if (p->kind != TILE_RT_PARAM_MEMREF)
      continue;
    size_t elements = 1;
    for (int d = 0; d < p->rank; ++d) {
      if (__builtin_mul_overflow(elements, (size_t)args[i].sizes[d], &elements))
        return fail("%s: %zu-bit sizes overflow", p->name, 8 * sizeof(size_t));
    }
    st->elements = elements;
    if (__builtin_mul_overflow(elements, tileRtDTypeSize(p->dtype), &st->bytes))
      return fail("%s: %zu-bit sizes overflow", p->name, 8 * sizeof(size_t));
  }
  return 0;
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t hashName(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *name; ++name)
    h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
  return h;
}

static void fillRandom(const tileRtParam *p, ParamState *st, uint64_t seed) {
  uint64_t rng = seed ^ hashName(p->name);
  bool isFloat = tileRtDTypeIsFloat(p->dtype);
  for (size_t k = 0; k < st->elements; ++k) {
    for (;;) {
      uint64_t bits = splitmix64(&rng);
      double v;
      if (p->dtype == TILE_RT_DTYPE_I1)
        v = (double)(bits >> 63);
      else if (isFloat)
        v = (double)(bits >> 11) * 0x1p-52 - 1.0;
      else
        v = (double)(int)(bits >> 60) - 8.0;
      tileRtStoreElement(p->dtype, st->host, k, v);
      if (p->dtype == TILE_RT_DTYPE_I1 ||
          tileRtLoadElement(p->dtype, st->host, k) != 0.0)
        break;
    }
  }
}

/// Opens the input or reference `path` of `p` and checks that it is a
/// regular file of `bytes` bytes; returns null after reporting otherwise.
static FILE *openInput(const char *path, size_t bytes, const tileRtParam *p,
                       const char *what) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fail("%s: cannot open %s '%s': %s", p->name, what, path, strerror(errno));
    return NULL;
  }
  // A directory opens on Linux and "seeks" to a meaningless size.
  struct stat info;
  if (fstat(fileno(f), &info) != 0 || !S_ISREG(info.st_mode)) {
    fclose(f);
    fail("%s: %s '%s' is not a regular file", p->name, what, path);
    return NULL;
  }
  if ((uintmax_t)info.st_size != bytes) {
    fclose(f);
    fail("%s: %s '%s' has %jd bytes, expected %zu (%zu %s elements)", p->name,
         what, path, (intmax_t)info.st_size, bytes,
         bytes / tileRtDTypeSize(p->dtype), tileRtDTypeName(p->dtype));
    return NULL;
  }
  return f;
}

static int readFile(const char *path, void *data, size_t bytes,
                    const tileRtParam *p, const char *what) {
  FILE *f = openInput(path, bytes, p, what);
  if (!f)
    return 1;
  size_t got = fread(data, 1, bytes, f);
  fclose(f);
  if (got != bytes)
    return fail("%s: cannot read %s '%s'", p->name, what, path);
  return 0;
}

static int writeFile(const char *path, const void *data, size_t bytes,
                     const tileRtParam *p) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail("%s: cannot write '%s': %s", p->name, path, strerror(errno));
  size_t put = fwrite(data, 1, bytes, f);
  if (fclose(f) != 0 || put != bytes)
    return fail("%s: cannot write '%s'", p->name, path);
  return 0;
}

static void defaultTolerances(tileRtDType dtype, double *rtol, double *atol) {
  switch (dtype) {
  case TILE_RT_DTYPE_F16:
    *rtol = 1e-2, *atol = 1e-3;
    return;
  case TILE_RT_DTYPE_BF16:
    *rtol = 3e-2, *atol = 1e-2;
    return;
  case TILE_RT_DTYPE_F32:
    *rtol = 1e-5, *atol = 1e-6;
    return;
  case TILE_RT_DTYPE_F64:
    *rtol = 1e-12, *atol = 1e-14;
    return;
  default:
    *rtol = 0, *atol = 0;
    return;
  }
}

static void printIndex(FILE *os, const tileRtParam *p, const int64_t *sizes,
                       size_t flat) {
  int64_t index[TILE_RT_MAX_RANK];
  for (int d = p->rank - 1; d >= 0; --d) {
    index[d] = sizes[d] ? (int64_t)(flat % (size_t)sizes[d]) : 0;
    flat = sizes[d] ? flat / (size_t)sizes[d] : 0;
  }
  fputc('[', os);
  for (int d = 0; d < p->rank; ++d)
    fprintf(os, "%s%lld", d ? ", " : "", (long long)index[d]);
  fputc(']', os);
}

/// Compares output `index` with its reference; returns 0 when it matches.
static int checkOutput(int index, const Options *opt) {
  const tileRtParam *p = &manifest.params[index];
  ParamState *st = &state[index];
  void *ref = malloc(st->bytes ? st->bytes : 1);
  if (!ref)
    return fail("out of memory");
  if (readFile(st->checkFile, ref, st->bytes, p, "reference")) {
    free(ref);
    return 1;
  }
  double rtol, atol;
  defaultTolerances(p->dtype, &rtol, &atol);
  if (opt->rtolGiven)
    rtol = opt->rtol;
  if (opt->atolGiven)
    atol = opt->atol;
  double maxAbs = 0, maxRel = 0;
  size_t mismatches = 0, first = 0;
  double firstGot = 0, firstWant = 0;
  for (size_t k = 0; k < st->elements; ++k) {
    double got = tileRtLoadElement(p->dtype, st->host, k);
    double want = tileRtLoadElement(p->dtype, ref, k);
    double err = got == want ? 0.0 : fabs(got - want);
    bool ok = err <= atol + rtol * fabs(want); // false for NaN
    if (isnan(err) || isinf(err)) {
      maxAbs = maxRel = INFINITY;
    } else {
      if (err > maxAbs)
        maxAbs = err;
      if (want != 0 && err / fabs(want) > maxRel)
        maxRel = err / fabs(want);
    }
    if (!ok && mismatches++ == 0) {
      first = k;
      firstGot = got;
      firstWant = want;
    }
  }
  free(ref);
  printf("check %s: %s, %zu of %zu elements mismatch, max abs err %.3g, max "
         "rel err %.3g (rtol %g, atol %g)",
         p->name, mismatches ? "FAILED" : "ok", mismatches, st->elements,
         maxAbs, maxRel, rtol, atol);
  if (mismatches) {
    printf("; first at ");
    printIndex(stdout, p, args[index].sizes, first);
    // NaN's sign bit carries no meaning (poison is all ones): print "nan".
    printf(": got %.9g, expected %.9g", isnan(firstGot) ? NAN : firstGot,
           isnan(firstWant) ? NAN : firstWant);
  }
  printf("\n");
  return mismatches ? 1 : 0;
}

static int compareFloats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/// Prints what launching `k` with `a` would do: the geometry and every
/// packed kernel argument, without a GPU (tensor maps are left zeroed).
static int describeLaunch(const tileRtKernel *k, const tileRtArgValue *a) {
  const tileRtManifest *m = tileRtKernelGetManifest(k);
  unsigned grid[3];
  if (tileRtKernelEvalGrid(k, a, grid) != TILE_RT_SUCCESS)
    return failRt(NULL);
  printf("kernel %s\n", m->kernel);
  printf("grid %u %u %u\n", grid[0], grid[1], grid[2]);
  printf("block %u %u %u\n", m->block[0], m->block[1], m->block[2]);
  printf("cluster %u %u %u\n", m->cluster[0], m->cluster[1], m->cluster[2]);
  printf("shared %u\n", m->sharedBytes);
  tileRtPackedParams packed;
  if (tileRtPackParams(m, a, 0, &packed) != TILE_RT_SUCCESS) {
    tileRtPackedParamsFree(&packed);
    return failRt(NULL);
  }
  // Name each kernel argument by the manifest's passing rules; the count
  // must agree with what the library packed.
  char labels[TILE_RT_MAX_PARAMS * (3 + 2 * TILE_RT_MAX_RANK)][160];
  size_t numLabels = 0;
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    if (p->passing == TILE_RT_PASS_NONE && p->kind != TILE_RT_PARAM_TENSOR_MAP)
      continue;
    if (p->kind != TILE_RT_PARAM_MEMREF || p->passing == TILE_RT_PASS_BARE) {
      snprintf(labels[numLabels++], 160, "%s", p->name);
      continue;
    }
    snprintf(labels[numLabels++], 160, "%s.allocated", p->name);
    snprintf(labels[numLabels++], 160, "%s.aligned", p->name);
    snprintf(labels[numLabels++], 160, "%s.offset", p->name);
    for (int d = 0; d < p->rank; ++d)
      snprintf(labels[numLabels++], 160, "%s.size%d", p->name, d);
    for (int d = 0; d < p->rank; ++d)
      snprintf(labels[numLabels++], 160, "%s.stride%d", p->name, d);
  }
  if (numLabels != packed.count) {
    tileRtPackedParamsFree(&packed);
    return fail("packed %zu kernel arguments, expected %zu", packed.count,
                numLabels);
  }
  printf("kernel arguments %zu\n", packed.count);
  for (size_t k = 0; k < packed.count; ++k) {
    printf("  %zu %s: %zu bytes", k, labels[k], packed.sizes[k]);
    if (packed.sizes[k] > 8) {
      printf(" (tensor map)\n");
      continue;
    }
    uint64_t v = 0;
    memcpy(&v, packed.pointers[k], packed.sizes[k]);
    // Sign-extend narrow integers so negative scalars read naturally.
    int64_t sv = (int64_t)v;
    if (packed.sizes[k] < 8 && (v >> (8 * packed.sizes[k] - 1)) & 1)
      sv = (int64_t)(v | ~((UINT64_C(1) << (8 * packed.sizes[k])) - 1));
    printf(" = %lld (0x%llx)\n", (long long)sv, (unsigned long long)v);
  }
  tileRtPackedParamsFree(&packed);
  return 0;
}

/// Checks that the kernel binary of `m` is a readable regular file, as
/// loading it would.
static int checkBinary(const tileRtManifest *m) {
  struct stat info;
  if (stat(m->binary, &info) != 0)
    return fail("cannot open kernel binary '%s' (named by %s): %s", m->binary,
                m->path, strerror(errno));
  if (!S_ISREG(info.st_mode))
    return fail("kernel binary '%s' (named by %s) is not a regular file",
                m->binary, m->path);
  if (access(m->binary, R_OK) != 0)
    return fail("cannot read kernel binary '%s' (named by %s): %s", m->binary,
                m->path, strerror(errno));
  return 0;
}

/// Checks that `path` can be created or overwritten, without touching it.
static int checkWritable(const char *path, const tileRtParam *p) {
  struct stat info;
  if (stat(path, &info) == 0) {
    if (S_ISDIR(info.st_mode))
      return fail("%s: cannot write '%s': it is a directory", p->name, path);
    if (access(path, W_OK) != 0)
      return fail("%s: cannot write '%s': %s", p->name, path, strerror(errno));
    return 0;
  }
  char dir[TILE_RT_MAX_PATH];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof(dir), ".");
  else if (slash == path)
    snprintf(dir, sizeof(dir), "/");
  else
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  if (stat(dir, &info) != 0)
    return fail("%s: cannot write '%s': %s", p->name, path, strerror(errno));
  if (!S_ISDIR(info.st_mode))
    return fail("%s: cannot write '%s': '%s' is not a directory", p->name, path,
                dir);
  if (access(dir, W_OK | X_OK) != 0)
    return fail("%s: cannot write '%s': %s", p->name, path, strerror(errno));
  return 0;
}

/// The binaries of `m` and of the variants it names, recursively (the
/// runtime bounds the depth when it loads them).
static int checkBinaries(const tileRtManifest *m, int depth) {
  if (m->hasKernel && checkBinary(m))
    return 1;
  if (depth >= TILE_RT_MAX_VARIANT_DEPTH)
    return 0;
  for (int i = 0; i < m->numVariants; ++i) {
    tileRtManifest *variant = malloc(sizeof(*variant));
    if (!variant)
      return fail("out of memory");
    int rc = tileRtManifestParseFile(m->variants[i].path, variant) !=
                     TILE_RT_SUCCESS
                 ? failRt(NULL)
                 : checkBinaries(variant, depth + 1);
    free(variant);
    if (rc)
      return rc;
  }
  return 0;
}

/// Everything a launch would check before it needs the GPU: binaries,
/// variant manifests, input, reference and dump files.
static int checkWithoutDevice(void) {
  if (checkBinaries(&manifest, 0))
    return 1;
  for (int i = 0; i < manifest.numParams; ++i) {
    const tileRtParam *p = &manifest.params[i];
    ParamState *st = &state[i];
    FILE *f;
    if (st->init == INIT_FILE && st->given) {
      if (!(f = openInput(st->file, st->bytes, p, "input")))
        return 1;
      fclose(f);
    }
    if (st->checkFile) {
      if (!(f = openInput(st->checkFile, st->bytes, p, "reference")))
        return 1;
      fclose(f);
    }
    if (st->dumpFile && checkWritable(st->dumpFile, p))
      return 1;
  }
  return 0;
}

static int dryRun(int device) {
  // Fake device addresses, 256-byte aligned like the driver's.
  for (int i = 0; i < manifest.numParams; ++i)
    if (manifest.params[i].kind == TILE_RT_PARAM_MEMREF)
      args[i].ptr = 0x10000000ull * (uint64_t)(i + 1);
  // The kernel, or the variant (a fallback, a dispatch rule's pick) that
  // the runtime would launch instead, with the lines saying why.
  tileRtKernel *kernel, *target;
  tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
  static char why[8192];
  if (tileRtKernelLoadHost(&manifest, &kernel) != TILE_RT_SUCCESS)
    return failRt(NULL);
  // Costed variants compete on the waves of their grids, and a rule may
  // read resident_blocks, which only the device can count: there the
  // manifest is loaded on it, and without one costed variants are tried in
  // order and such rules taken as holding, as the note says.
  int costed = 0, resident = 0;
  for (int i = 0; i < manifest.numVariants; ++i) {
    costed |= manifest.variants[i].cost != 0;
    resident |= tileRtRuleUsesResidentBlocks(manifest.variants[i].rule);
  }
  if (costed || resident) {
    tileRtPlatform platform;
    tileRtKernel *onDevice;
    if (tileRtManifestPlatform(&manifest, &platform) == TILE_RT_SUCCESS &&
        tileRtSetPlatform(platform) == TILE_RT_SUCCESS &&
        tileRtInit(device) == TILE_RT_SUCCESS &&
        tileRtKernelLoad(&manifest, &onDevice) == TILE_RT_SUCCESS) {
      tileRtKernelDestroy(kernel);
      kernel = onDevice;
    } else {
      printf("note: %s, without the device: %s\n",
             costed && resident
                 ? "costed variants tried in order and rules reading "
                   "resident_blocks taken as holding"
             : costed ? "costed variants tried in order"
                      : "rules reading resident_blocks taken as holding",
             tileRtErrorString());
    }
  }
  if (tileRtKernelSelect(kernel, args, &target, mapped, why, sizeof(why)) !=
      TILE_RT_SUCCESS) {
    tileRtKernelDestroy(kernel);
    return failRt(NULL);
  }
  printf("%s", why);
  // The blocks a persistent kernel's device holds at once depend on the
  // device and the loaded kernel: its grid is evaluated on the device.
  const tileRtManifest *chosen = tileRtKernelGetManifest(target);
  tileRtKernel *loaded = NULL;
  if (tileRtManifestUsesResidentBlocks(chosen)) {
    tileRtPlatform platform = tileRtBinaryPlatform(chosen->binaryKind);
    if (tileRtSetPlatform(platform) != TILE_RT_SUCCESS ||
        tileRtInit(device) != TILE_RT_SUCCESS ||
        tileRtKernelLoad(chosen, &loaded) != TILE_RT_SUCCESS) {
      tileRtKernelDestroy(kernel);
      return failRt("resident_blocks needs the device");
    }
  }
  int rc = describeLaunch(loaded ? loaded : target, mapped);
  tileRtKernelDestroy(loaded);
  tileRtKernelDestroy(kernel);
  return rc;
}

static int listDevices(void) {
  int count;
  if (tileRtDeviceCount(&count) != TILE_RT_SUCCESS)
    return failRt(NULL);
  for (int i = 0; i < count; ++i) {
    char name[256];
    int major, minor;
    if (tileRtInit(i) != TILE_RT_SUCCESS ||
        tileRtDeviceInfo(name, sizeof(name), &major, &minor) != TILE_RT_SUCCESS)
      return failRt(NULL);
    printf("device %d: %s (sm_%d%d)\n", i, name, major, minor);
  }
  tileRtShutdown();
  if (count == 0)
    return fail("no CUDA device");
  return 0;
}

/// Prints the host time of one launch of what tileRtKernelPrepare packed:
/// `reps` launches back to back, then one synchronization, so that the
/// launch cost of a binding (bench/gpu_library.py) can be compared with
/// the C runtime's own. For kernels shorter than a launch the queue never
/// fills and this is the host's cost alone.
static int timeHostLaunch(tileRtKernel *kernel,
                          const tileRtLaunchConfig *config,
                          tileRtPackedParams *packed, int reps) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < reps; ++r)
    if (tileRtKernelLaunchPrepared(kernel, config, packed) != TILE_RT_SUCCESS)
      return failRt("host-timed launch");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (tileRtSynchronize() != TILE_RT_SUCCESS)
    return failRt("host-timed launch");
  double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e6 +
               (double)(t1.tv_nsec - t0.tv_nsec) / 1e3) /
              reps;
  printf("host: %.2f us per launch (%d back-to-back "
         "tileRtKernelLaunchPrepared calls)\n",
         us, reps);
  return 0;
}

/// Allocates, initialises, launches, checks, dumps and times.
static int runOnDevice(const Options *opt) {
  // HSACO kernels run through HIP, PTX and cubin through the CUDA driver.
  tileRtPlatform platform;
  if (tileRtManifestPlatform(&manifest, &platform) != TILE_RT_SUCCESS ||
      tileRtSetPlatform(platform) != TILE_RT_SUCCESS)
    return failRt(NULL);
  if (tileRtInit(opt->device) != TILE_RT_SUCCESS)
    return failRt(NULL);
  char deviceName[256];
  int major, minor;
  if (tileRtDeviceInfo(deviceName, sizeof(deviceName), &major, &minor) !=
      TILE_RT_SUCCESS)
    return failRt(NULL);
  tileRtKernel *kernel;
  if (tileRtKernelLoad(&manifest, &kernel) != TILE_RT_SUCCESS)
    return failRt(NULL);
  int rc = 0;
  size_t trafficBytes = 0;
  for (int i = 0; i < manifest.numParams && !rc; ++i) {
    const tileRtParam *p = &manifest.params[i];
    ParamState *st = &state[i];
    if (p->kind != TILE_RT_PARAM_MEMREF)
      continue;
    trafficBytes += st->bytes;
    st->host = malloc(st->bytes ? st->bytes : 1);
    if (!st->host) {
      rc = fail("%s: out of memory for %zu bytes", p->name, st->bytes);
      break;
    }
    if (tileRtMalloc(st->bytes, &args[i].ptr) != TILE_RT_SUCCESS) {
      rc = failRt(p->name);
      break;
    }
    tileRtStatus s = TILE_RT_SUCCESS;
    switch (st->init) {
    case INIT_RANDOM:
      fillRandom(p, st, opt->seed);
      s = tileRtMemcpyHtoD(args[i].ptr, st->host, st->bytes);
      break;
    case INIT_FILE:
      rc = readFile(st->file, st->host, st->bytes, p, "input");
      if (!rc)
        s = tileRtMemcpyHtoD(args[i].ptr, st->host, st->bytes);
      break;
    case INIT_ZEROS:
      s = tileRtMemset8(args[i].ptr, 0, st->bytes);
      break;
    case INIT_POISON:
      s = tileRtMemset8(args[i].ptr, 0xff, st->bytes);
      break;
    }
    if (s != TILE_RT_SUCCESS)
      rc = failRt(p->name);
  }

  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  memset(&packed, 0, sizeof(packed));
  if (!rc &&
      tileRtKernelPrepare(kernel, args, &config, &packed) != TILE_RT_SUCCESS)
    rc = failRt(NULL);
  if (!rc) {
    const tileRtManifest *launched = tileRtKernelGetManifest(packed.target);
    if (launched->binaryKind == TILE_RT_BINARY_HSACO)
      printf("kernel %s (hsaco) on %s (gfx %d.%d)\n", launched->kernel,
             deviceName, major, minor);
    else
      printf("kernel %s (%s) on %s (sm_%d%d)\n", launched->kernel,
             tileRtBinaryKindName(launched->binaryKind), deviceName, major,
             minor);
    // Prepare took a variant (a fallback where TMA cannot address the
    // arguments, or a dispatch rule's pick): say which and why.
    static char why[8192];
    tileRtKernel *target;
    tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
    if (packed.fallback &&
        tileRtKernelSelect(kernel, args, &target, mapped, why, sizeof(why)) ==
            TILE_RT_SUCCESS)
      printf("%s", why);
    printf("grid %u %u %u, block %u %u %u, cluster %u %u %u, shared %u\n",
           config.grid[0], config.grid[1], config.grid[2], config.block[0],
           config.block[1], config.block[2], config.cluster[0],
           config.cluster[1], config.cluster[2], config.sharedBytes);
    if (tileRtKernelLaunchPrepared(kernel, &config, &packed) !=
            TILE_RT_SUCCESS ||
        tileRtSynchronize() != TILE_RT_SUCCESS)
      rc = failRt("launch");
  }
  // Outputs of the first launch: read back what is checked or dumped.
  int checkFailures = 0;
  for (int i = 0; i < manifest.numParams && !rc; ++i) {
    const tileRtParam *p = &manifest.params[i];
    ParamState *st = &state[i];
    if (p->kind != TILE_RT_PARAM_MEMREF || (!st->checkFile && !st->dumpFile))
      continue;
    if (tileRtMemcpyDtoH(st->host, args[i].ptr, st->bytes) != TILE_RT_SUCCESS) {
      rc = failRt(p->name);
      break;
    }
    if (st->dumpFile && writeFile(st->dumpFile, st->host, st->bytes, p))
      rc = 1;
    if (st->checkFile && !rc)
      checkFailures += checkOutput(i, opt);
  }

  if (!rc && opt->time) {
    float *times = (float *)calloc((size_t)opt->reps, sizeof(float));
    tileRtEvent *start = NULL, *end = NULL;
    if (!times)
      rc = fail("out of memory");
    if (!rc && (tileRtEventCreate(&start) != TILE_RT_SUCCESS ||
                tileRtEventCreate(&end) != TILE_RT_SUCCESS))
      rc = failRt("timing");
    for (int r = 0; r < opt->warmup && !rc; ++r)
      if (tileRtKernelLaunchPrepared(kernel, &config, &packed) !=
          TILE_RT_SUCCESS)
        rc = failRt("warm-up launch");
    if (!rc && tileRtSynchronize() != TILE_RT_SUCCESS)
      rc = failRt("warm-up launch");
    for (int r = 0; r < opt->reps && !rc; ++r) {
      if (tileRtEventRecord(start) != TILE_RT_SUCCESS ||
          tileRtKernelLaunchPrepared(kernel, &config, &packed) !=
              TILE_RT_SUCCESS ||
          tileRtEventRecord(end) != TILE_RT_SUCCESS ||
          tileRtEventSynchronize(end) != TILE_RT_SUCCESS ||
          tileRtEventElapsedMs(start, end, &times[r]) != TILE_RT_SUCCESS)
        rc = failRt("timed launch");
    }
    if (!rc) {
      qsort(times, (size_t)opt->reps, sizeof(float), compareFloats);
      double median =
          opt->reps % 2
              ? times[opt->reps / 2]
              : 0.5 * (times[opt->reps / 2 - 1] + times[opt->reps / 2]);
      printf("time: median %.4f ms, min %.4f ms over %d launches (%d "
             "warm-up); memref bytes %zu, %.1f GB/s at the median\n",
             median, times[0], opt->reps, opt->warmup, trafficBytes,
             median > 0 ? trafficBytes / (median * 1e6) : 0.0);
      rc = timeHostLaunch(kernel, &config, &packed, opt->reps);
    }
    tileRtEventDestroy(start);
    tileRtEventDestroy(end);
    free(times);
  }

  tileRtPackedParamsFree(&packed);
  for (int i = 0; i < manifest.numParams; ++i) {
    free(state[i].host);
    state[i].host = NULL;
    if (args[i].ptr && manifest.params[i].kind == TILE_RT_PARAM_MEMREF)
      tileRtFree(args[i].ptr);
  }
  tileRtKernelDestroy(kernel);
  tileRtShutdown();
  if (!rc && checkFailures)
    return fail("%d output%s did not match the reference", checkFailures,
                checkFailures == 1 ? "" : "s");
  return rc;
}

int main(int argc, char **argv) {
  Options opt;
  memset(&opt, 0, sizeof(opt));
  opt.seed = 1;
  opt.reps = 100;
  opt.warmup = 3;
  // Options that name parameters are applied once the manifest is read.
  const char *named[3][TILE_RT_MAX_PARAMS * 2];
  int numNamed[3] = {0, 0, 0}; // --arg, --check, --dump
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    long long n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
    if (strcmp(a, "--time") == 0) {
      opt.time = true;
    } else if (strcmp(a, "--dry-run") == 0) {
      opt.dryRun = true;
    } else if (strcmp(a, "--print-manifest") == 0) {
      opt.printManifest = true;
    } else if (strcmp(a, "--list-devices") == 0) {
      opt.listDevices = true;
    } else if (a[0] == '-' && a[1] == '-') {
      static const char *const valued[] = {"--arg",    "--check", "--dump",
                                           "--seed",   "--reps",  "--warmup",
                                           "--device", "--rtol",  "--atol"};
      bool known = false;
      for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); ++k)
        known |= strcmp(a, valued[k]) == 0;
      if (!known) {
        fail("unknown option '%s' (see --help)", a);
        return 2;
      }
      if (!value) {
        fail("%s needs a value", a);
        return 2;
      }
      ++i;
      int slot = strcmp(a, "--arg") == 0     ? 0
                 : strcmp(a, "--check") == 0 ? 1
                 : strcmp(a, "--dump") == 0  ? 2
                                             : -1;
      if (slot >= 0) {
        if (numNamed[slot] == TILE_RT_MAX_PARAMS * 2) {
          fail("too many %s options", a);
          return 2;
        }
        named[slot][numNamed[slot]++] = value;
      } else if (strcmp(a, "--seed") == 0 &&
                 parseInt(value, 0, INT64_MAX, &n)) {
        opt.seed = (uint64_t)n;
      } else if (strcmp(a, "--reps") == 0 && parseInt(value, 1, 1000000, &n)) {
        opt.reps = (int)n;
      } else if (strcmp(a, "--warmup") == 0 &&
                 parseInt(value, 0, 1000000, &n)) {
        opt.warmup = (int)n;
      } else if (strcmp(a, "--device") == 0 && parseInt(value, 0, 1024, &n)) {
        opt.device = (int)n;
      } else if (strcmp(a, "--rtol") == 0 && parseDouble(value, &opt.rtol) &&
                 opt.rtol >= 0) {
        opt.rtolGiven = true;
      } else if (strcmp(a, "--atol") == 0 && parseDouble(value, &opt.atol) &&
                 opt.atol >= 0) {
        opt.atolGiven = true;
      } else {
        fail("invalid value '%s' for %s", value, a);
        return 2;
      }
    } else if (!opt.manifestPath) {
      opt.manifestPath = a;
    } else {
      fail("unexpected argument '%s' (one manifest per run)", a);
      return 2;
    }
  }
  if (opt.listDevices)
    return listDevices();
  if (!opt.manifestPath) {
    fputs(usage, stderr);
    return 2;
  }
  if (tileRtManifestParseFile(opt.manifestPath, &manifest) != TILE_RT_SUCCESS)
    return failRt(NULL);
  if (opt.printManifest) {
    tileRtManifestPrint(&manifest, stdout);
    return 0;
  }
  for (int k = 0; k < numNamed[0]; ++k) {
    const char *value;
    int index = splitNamed("--arg", named[0][k], &value);
    if (index < 0)
      return 1;
    if (state[index].given)
      return fail("--arg %s given twice", manifest.params[index].name);
    const tileRtParam *p = &manifest.params[index];
    int rc = p->kind == TILE_RT_PARAM_SCALAR ? parseScalarArg(index, value)
             : p->kind == TILE_RT_PARAM_MEMREF
                 ? parseMemRefArg(index, value)
                 : fail("--arg %s: tensor map parameters are built from "
                        "their memref, not given",
                        p->name);
    if (rc)
      return rc;
  }
  for (int slot = 1; slot < 3; ++slot)
    for (int k = 0; k < numNamed[slot]; ++k) {
      const char *option = slot == 1 ? "--check" : "--dump";
      const char *value;
      int index = splitNamed(option, named[slot][k], &value);
      if (index < 0)
        return 1;
      if (manifest.params[index].kind != TILE_RT_PARAM_MEMREF)
        return fail("%s %s: only memref parameters can be %s", option,
                    manifest.params[index].name,
                    slot == 1 ? "checked" : "dumped");
      if (!*value)
        return fail("%s %s: empty file name", option,
                    manifest.params[index].name);
      if (slot == 1)
        state[index].checkFile = value;
      else
        state[index].dumpFile = value;
    }
  // Before any launch, so that a missing file fails in seconds and not
  // after a long kernel (and --dry-run answers as the launch would).
  if (bindArguments() || checkWithoutDevice())
    return 1;
  if (opt.dryRun)
    return dryRun(opt.device);
  return runOnDevice(&opt);
}
