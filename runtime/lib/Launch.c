//===- Launch.c - kernel arguments and launches by manifest ----*- C -*-===//
//
// Turns a manifest and run-time argument values into the driver's argument
// array. Memref parameters expand to MLIR's descriptor (allocated pointer,
// aligned pointer, offset, sizes, strides, the last three as index) or to a
// bare pointer; strides are those of a contiguous row-major buffer.
// Scalars are stored at their own width; tensor maps take 128 bytes at
// 64-byte alignment, as the driver reads them by value.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kTensorMapBytes = 128, kTensorMapAlign = 64 };

/// Counts the kernel arguments and the storage bytes that the first
/// `numParams` parameters of `m` need.
static void measure(const tileRtManifest *m, int numParams, size_t *count,
                    size_t *bytes) {
  *count = 0;
  *bytes = 0;
  for (int i = 0; i < numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    switch (p->kind) {
    case TILE_RT_PARAM_MEMREF:
      if (p->passing == TILE_RT_PASS_DESCRIPTOR) {
        *count += 3 + 2 * (size_t)p->rank;
        *bytes += 8 * (3 + 2 * (size_t)p->rank);
      } else if (p->passing == TILE_RT_PASS_BARE) {
        *count += 1;
        *bytes += 8;
      }
      break;
    case TILE_RT_PARAM_SCALAR:
      if (p->passing != TILE_RT_PASS_NONE) {
        *count += 1;
        *bytes += 8;
      }
      break;
    case TILE_RT_PARAM_TENSOR_MAP:
      *count += 1;
      *bytes += kTensorMapBytes + kTensorMapAlign;
      break;
    }
  }
}

typedef struct Packer {
  tileRtPackedParams *out;
  size_t offset;
} Packer;

/// Appends one argument of `size` bytes at `align` and returns its storage.
static void *push(Packer *pk, size_t size, size_t align) {
  pk->offset = (pk->offset + align - 1) / align * align;
  void *slot = pk->out->storage + pk->offset;
  pk->out->pointers[pk->out->count] = slot;
  pk->out->sizes[pk->out->count] = size;
  ++pk->out->count;
  pk->offset += size;
  return slot;
}

static void pushIndex(Packer *pk, int indexBits, int64_t v) {
  if (indexBits == 32) {
    int32_t narrow = (int32_t)v;
    memcpy(push(pk, 4, 4), &narrow, 4);
  } else {
    memcpy(push(pk, 8, 8), &v, 8);
  }
}

/// The L2 promotion of tensor map `p` over an argument's rows `rowBytes`
/// apart: the manifest's, except that 256 bytes becomes 128 where the rows
/// do not start on 128-byte boundaries. Each box row then spans two 128-byte
/// lines, and promoting to 256 bytes fetches lines no box reads: 128-byte
/// promotion measured 10-15% faster on NT 7168 x 200 x 7000 (rows of 14000
/// bytes) on an H200, and no different where the rows are aligned. Maps over
/// a staged copy keep the manifest's: on small staged products 128 bytes
/// measured slower (docs/Runtime.md).
static int tensorMapL2(const tileRtParam *p, uint64_t rowBytes) {
  enum { kL2Bytes128 = 2, kL2Bytes256 = 3 };
  if (p->l2Promotion == kL2Bytes256 && p->rank >= 2 && rowBytes % 128)
    return kL2Bytes128;
  return p->l2Promotion;
}

static void pushScalar(Packer *pk, const tileRtManifest *m,
                       const tileRtParam *p, const tileRtArgValue *a) {
  size_t size = tileRtDTypeSize(p->dtype);
  if (p->dtype == TILE_RT_DTYPE_INDEX) {
    pushIndex(pk, m->indexBits, a->i);
    return;
  }
  void *slot = push(pk, size, size);
  if (tileRtDTypeIsFloat(p->dtype))
    tileRtStoreElement(p->dtype, slot, 0, a->f);
  else
    tileRtStoreElement(p->dtype, slot, 0, (double)a->i);
  // Integers above 2^53 do not survive the trip through double.
  if (p->dtype == TILE_RT_DTYPE_I64)
    memcpy(slot, &a->i, 8);
}

tileRtStatus tileRtPackParams(const tileRtManifest *m,
                              const tileRtArgValue *args, int encodeTensorMaps,
                              tileRtPackedParams *out) {
  if (!out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null output");
  memset(out, 0, sizeof(*out));
  if (!m || !args)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or arguments");
  tileRtStatus s = tileRtManifestCheckArgs(m, args);
  if (s != TILE_RT_SUCCESS)
    return s;
  size_t count, bytes;
  measure(m, m->numParams, &count, &bytes);
  out->pointers = (void **)calloc(count + 1, sizeof(void *));
  out->sizes = (size_t *)calloc(count + 1, sizeof(size_t));
  out->storage = (unsigned char *)aligned_alloc(
      kTensorMapAlign,
      (bytes + kTensorMapAlign) / kTensorMapAlign * kTensorMapAlign);
  if (!out->pointers || !out->sizes || !out->storage)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  memset(out->storage, 0, bytes);
  // Memrefs whose maps address a workspace instead: recorded here, their
  // maps encoded at launch (launchPacked). Where even staging cannot help,
  // the maps are encoded as they are and the driver's error reported.
  unsigned char staged[TILE_RT_MAX_PARAMS];
  if (tileRtCheckTensorMapsStaged(m, args, staged) != TILE_RT_SUCCESS)
    memset(staged, 0, sizeof(staged));
  for (int i = 0; i < m->numParams; ++i)
    if (staged[i]) {
      out->stagedParam[out->numStaged] = i;
      out->stagedArg[out->numStaged++] = args[i];
    }
  Packer pk = {out, 0};
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    const tileRtArgValue *a = &args[i];
    switch (p->kind) {
    case TILE_RT_PARAM_MEMREF:
      if (p->zeroInit) {
        size_t bytes = tileRtDTypeSize(p->dtype);
        for (int d = 0; d < p->rank; ++d)
          bytes *= (size_t)a->sizes[d];
        out->zeroPtr[out->numZero] = a->ptr;
        out->zeroBytes[out->numZero++] = bytes;
      }
      if (p->passing == TILE_RT_PASS_BARE) {
        memcpy(push(&pk, 8, 8), &a->ptr, 8);
      } else if (p->passing == TILE_RT_PASS_DESCRIPTOR) {
        memcpy(push(&pk, 8, 8), &a->ptr, 8); // allocated
        memcpy(push(&pk, 8, 8), &a->ptr, 8); // aligned
        pushIndex(&pk, m->indexBits, 0);     // offset
        for (int d = 0; d < p->rank; ++d)
          pushIndex(&pk, m->indexBits, a->sizes[d]);
        int64_t strides[TILE_RT_MAX_RANK], stride = 1;
        for (int d = p->rank - 1; d >= 0; --d) {
          strides[d] = stride;
          stride *= a->sizes[d];
        }
        for (int d = 0; d < p->rank; ++d)
          pushIndex(&pk, m->indexBits, strides[d]);
      }
      break;
    case TILE_RT_PARAM_SCALAR:
      if (p->passing != TILE_RT_PASS_NONE)
        pushScalar(&pk, m, p, a);
      break;
    case TILE_RT_PARAM_TENSOR_MAP: {
      void *slot = push(&pk, kTensorMapBytes, kTensorMapAlign);
      if (!encodeTensorMaps || staged[p->source])
        break;
      const tileRtArgValue *src = &args[p->source];
      uint64_t rowBytes = p->rank >= 2 ? (uint64_t)src->sizes[p->rank - 1] *
                                             tileRtDTypeSize(p->dtype)
                                       : 0;
      s = tileRtEncodeTensorMapTiled(
          slot, p->dtype, p->rank, src->ptr, src->sizes, p->box, p->interleave,
          p->swizzle, tensorMapL2(p, rowBytes), p->oobFill);
      if (s != TILE_RT_SUCCESS) {
        char msg[2048];
        snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
        return tileRtFail(s, "tensor map '%s': %s", p->name, msg);
      }
      break;
    }
    }
  }
  return TILE_RT_SUCCESS;
}

void tileRtPackedParamsFree(tileRtPackedParams *params) {
  if (!params)
    return;
  free(params->pointers);
  free(params->sizes);
  free(params->storage);
  memset(params, 0, sizeof(*params));
}

/// A launch prepared by tileRtKernelLaunchOnStream, kept for the next one.
typedef struct LaunchCache {
  /// Whether `args` and what follows hold a successful preparation.
  int valid;
  tileRtArgValue args[TILE_RT_MAX_PARAMS];
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
} LaunchCache;

struct tileRtKernel {
  tileRtManifest manifest;
  /// The module and function of the manifest's kernel; null for a
  /// dispatching manifest (no kernel) and for kernels loaded on the host.
  tileRtModule *module;
  tileRtFunction *function;
  /// Whether the binaries were loaded (tileRtKernelLoad), so it can launch.
  int onDevice;
  /// The blocks of the kernel the device holds at once, where it is loaded
  /// on the device and its grid reads them (`resident_blocks`), a costed
  /// variant names it (its waves are counted) or a variant's rule reads
  /// them; else -1.
  int64_t residentBlocks;
  /// The kernels of the manifest's variants, in order, and for each
  /// parameter of a variant the index of the same-named parameter here (-1
  /// for its tensor maps): binding by name, resolved once at load.
  int numVariants;
  tileRtKernel *variants[TILE_RT_MAX_VARIANTS];
  int argIndex[TILE_RT_MAX_VARIANTS][TILE_RT_MAX_PARAMS];
  /// Per parameter of a variant, nonzero where the variant transposes it
  /// (`view transpose`), so binding swaps its sizes.
  unsigned char transposed[TILE_RT_MAX_VARIANTS][TILE_RT_MAX_PARAMS];
  /// Per variant, nonzero where its rule reads `resident_blocks` (of the
  /// variant's kernel), found once at load rather than at every launch.
  unsigned char residentRule[TILE_RT_MAX_VARIANTS];
  /// What the last tileRtKernelLaunchOnStream chose and packed, reused by
  /// the next when its arguments are the same, and the flag a launch holds
  /// while it reads or refills it.
  LaunchCache cache;
  atomic_flag cacheBusy;
  /// The workspace of the kernel's staged arguments (`stage`), grown as
  /// launches need it; the event recorded after the last launch that used
  /// it, which the next waits for; and the flag a launch holds meanwhile.
  tileRtDevicePtr work;
  size_t workBytes;
  tileRtEvent *workDone;
  atomic_flag workBusy;
  /// The workspaces a larger one replaced, kept for graphs captured
  /// before (growWorkspace).
  tileRtDevicePtr *retired;
  int numRetired;
};

/// Loads `manifest` and, recursively, its variants; `needResident` asks for
/// the kernel's resident blocks even where its grid does not read them.
static tileRtStatus loadTree(const tileRtManifest *manifest, int onDevice,
                             int depth, int needResident, tileRtKernel **out) {
  *out = NULL;
  if (depth > TILE_RT_MAX_VARIANT_DEPTH)
    return tileRtFail(TILE_RT_ERROR_PARSE,
                      "%s: variants nested more than %d deep (a cycle?)",
                      manifest->path, TILE_RT_MAX_VARIANT_DEPTH);
  tileRtKernel *k = (tileRtKernel *)calloc(1, sizeof(*k));
  if (!k)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  k->manifest = *manifest;
  k->onDevice = onDevice;
  k->residentBlocks = -1;
  atomic_flag_clear(&k->cacheBusy);
  tileRtStatus s = TILE_RT_SUCCESS;
  if (onDevice && manifest->hasKernel &&
      tileRtBinaryPlatform(manifest->binaryKind) != tileRtGetPlatform())
    s = tileRtFail(
        TILE_RT_ERROR_INVALID_ARGUMENT,
        "%s: its %s binary runs on %s, but the runtime is on %s "
        "(tileRtSetPlatform)",
        manifest->path, tileRtBinaryKindName(manifest->binaryKind),
        tileRtBinaryPlatform(manifest->binaryKind) == TILE_RT_PLATFORM_HIP
            ? "HIP"
            : "the CUDA driver",
        tileRtGetPlatform() == TILE_RT_PLATFORM_HIP ? "HIP"
                                                    : "the CUDA driver");
  else if (onDevice && manifest->hasKernel) {
    s = tileRtModuleLoadFile(manifest->binary, &k->module);
    if (s == TILE_RT_SUCCESS)
      s = tileRtModuleGetFunction(k->module, manifest->kernel, &k->function);
    if (s == TILE_RT_SUCCESS && manifest->sharedBytes > 48 * 1024)
      s = tileRtFunctionSetMaxDynamicSharedMemory(k->function,
                                                  manifest->sharedBytes);
    // Clusters of more than 8 blocks launch only where the kernel asks.
    if (s == TILE_RT_SUCCESS &&
        manifest->cluster[0] * manifest->cluster[1] * manifest->cluster[2] > 8)
      s = tileRtFunctionAllowNonPortableClusterSize(k->function);
    // A property of the kernel, its block and its shared memory: found
    // once, not per launch.
    if (s == TILE_RT_SUCCESS &&
        (needResident || tileRtManifestUsesResidentBlocks(manifest))) {
      s = tileRtFunctionResidentBlocks(
          k->function,
          manifest->block[0] * manifest->block[1] * manifest->block[2],
          manifest->sharedBytes, &k->residentBlocks);
      if (s != TILE_RT_SUCCESS) {
        char msg[2048];
        snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
        s = tileRtFail(s, "%s: resident_blocks: %s", manifest->path, msg);
      }
    }
  }
  // Parsed one at a time: a manifest is large, so not on the stack.
  tileRtManifest *variant = NULL;
  if (s == TILE_RT_SUCCESS && manifest->numVariants) {
    variant = (tileRtManifest *)malloc(sizeof(*variant));
    if (!variant)
      s = tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  for (int i = 0; s == TILE_RT_SUCCESS && i < manifest->numVariants; ++i) {
    const tileRtVariant *directive = &manifest->variants[i];
    s = tileRtManifestParseFile(directive->path, variant);
    if (s == TILE_RT_SUCCESS)
      s = tileRtCheckVariantCompatible(manifest, directive, variant);
    // A cost weighs the waves of the variant's own grid.
    if (s == TILE_RT_SUCCESS && directive->cost && !variant->hasKernel)
      s = tileRtFail(TILE_RT_ERROR_PARSE,
                     "%s:%d: variant %s has a cost but names no kernel "
                     "(a cost counts the waves of the variant's grid)",
                     manifest->path, directive->line, directive->path);
    // So does a rule that reads resident_blocks.
    int residentRule = tileRtRuleUsesResidentBlocks(directive->rule);
    if (s == TILE_RT_SUCCESS && residentRule && !variant->hasKernel)
      s = tileRtFail(TILE_RT_ERROR_PARSE,
                     "%s:%d: the rule of variant %s reads resident_blocks but "
                     "the variant names no kernel (resident_blocks counts the "
                     "blocks of the variant's kernel the device holds at once)",
                     manifest->path, directive->line, directive->path);
    if (s == TILE_RT_SUCCESS)
      s = loadTree(variant, onDevice, depth + 1,
                   directive->cost > 0 || residentRule, &k->variants[i]);
    k->residentRule[i] = (unsigned char)residentRule;
    if (s != TILE_RT_SUCCESS)
      break;
    for (int j = 0; j < variant->numParams; ++j) {
      int from = variant->params[j].kind == TILE_RT_PARAM_TENSOR_MAP
                     ? -1
                     : tileRtVariantSource(manifest, directive,
                                           variant->params[j].name);
      k->argIndex[i][j] = from;
      k->transposed[i][j] = from >= 0 && tileRtFindView(directive, from);
    }
    ++k->numVariants;
  }
  free(variant);
  if (s != TILE_RT_SUCCESS) {
    tileRtKernelDestroy(k);
    return s;
  }
  *out = k;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtKernelLoad(const tileRtManifest *manifest,
                              tileRtKernel **out) {
  if (!manifest || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or output");
  return loadTree(manifest, 1, 0, 0, out);
}

tileRtStatus tileRtKernelLoadHost(const tileRtManifest *manifest,
                                  tileRtKernel **out) {
  if (!manifest || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or output");
  return loadTree(manifest, 0, 0, 0, out);
}

/// Parses the manifest at `path` and loads it, on the device or not.
static tileRtStatus loadFile(const char *path, int onDevice,
                             tileRtKernel **out) {
  if (!path || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null path or output");
  *out = NULL;
  // A manifest is large: not on the stack.
  tileRtManifest *m = (tileRtManifest *)malloc(sizeof(*m));
  if (!m)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  tileRtStatus s = tileRtManifestParseFile(path, m);
  if (s == TILE_RT_SUCCESS)
    s = loadTree(m, onDevice, 0, 0, out);
  free(m);
  return s;
}

tileRtStatus tileRtKernelLoadFile(const char *path, tileRtKernel **out) {
  return loadFile(path, 1, out);
}

tileRtStatus tileRtKernelLoadFileHost(const char *path, tileRtKernel **out) {
  return loadFile(path, 0, out);
}

const tileRtManifest *tileRtKernelGetManifest(const tileRtKernel *kernel) {
  return kernel ? &kernel->manifest : NULL;
}

tileRtStatus tileRtKernelEvalGrid(const tileRtKernel *kernel,
                                  const tileRtArgValue *args,
                                  unsigned grid[3]) {
  if (!kernel)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null kernel");
  return tileRtManifestEvalGridResident(&kernel->manifest, args,
                                        kernel->residentBlocks, grid);
}

/// Appends printf-style text to `buf` (`len` bytes, NUL-terminated).
TILE_RT_PRINTF(3, 4)
static void append(char *buf, size_t len, const char *fmt, ...) {
  if (!buf || !len)
    return;
  size_t used = strlen(buf);
  if (used + 1 >= len)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
}

enum { kWhyBytes = 4096 };

/// The first view of variant `v` that `args` (of the manifest naming it)
/// do not allow, or null: a transposed matrix is the same row-major bytes
/// only where one of its sizes is 1 or it is empty.
static const tileRtView *refusedView(const tileRtVariant *v,
                                     const tileRtArgValue *args) {
  for (int i = 0; i < v->numViews; ++i) {
    const int64_t *sizes = args[v->views[i].param].sizes;
    if (sizes[0] > 1 && sizes[1] > 1)
      return &v->views[i];
  }
  return NULL;
}

/// Appends to `buf` how variant `v` of `m` binds and views `args`: ", bind
/// X A" per bind, ", view transpose A (8192x1 as 1x8192)" per view.
static void appendViews(char *buf, size_t len, const tileRtManifest *m,
                        const tileRtVariant *v, const tileRtArgValue *args) {
  for (int i = 0; i < v->numBinds; ++i)
    append(buf, len, ", bind %s %s", v->binds[i].name,
           m->params[v->binds[i].param].name);
  for (int i = 0; i < v->numViews; ++i) {
    const tileRtView *view = &v->views[i];
    const int64_t *sizes = args[view->param].sizes;
    append(buf, len, ", view %s %s (%lldx%lld as %lldx%lld)",
           tileRtViewName(view->kind), m->params[view->param].name,
           (long long)sizes[0], (long long)sizes[1], (long long)sizes[1],
           (long long)sizes[0]);
  }
}

/// The state of one choice among a manifest's candidates (see choose).
typedef struct Choice {
  const tileRtArgValue *args;
  tileRtKernel **target;
  tileRtArgValue *targetArgs;
  int explain;
  char *why;
  size_t whyLen;
  /// Why each candidate was passed over (kWhyBytes), with `explain`.
  char *passed;
  /// Scratch for a variant's own choice (kWhyBytes each), with `explain`.
  char *childWhy, *childPassed;
  /// The manifest's own kernel's reason to be passed over, which a
  /// fallback's line repeats.
  const char *ownReason;
  /// Set once a candidate fitted or an error ended the choice.
  int done;
  tileRtStatus result;
} Choice;

static tileRtStatus choose(tileRtKernel *k, const tileRtArgValue *args,
                           tileRtKernel **target, tileRtArgValue *targetArgs,
                           int explain, char *why, size_t whyLen, char *passed,
                           int *noFit);

/// The arguments of `k` bound to the parameters of its variant `i` by name,
/// as the variant's views show them.
static void mapArgs(const tileRtKernel *k, int i, const tileRtArgValue *args,
                    tileRtArgValue *mapped) {
  const tileRtKernel *child = k->variants[i];
  for (int j = 0; j < child->manifest.numParams; ++j) {
    int from = k->argIndex[i][j];
    if (from < 0) {
      memset(&mapped[j], 0, sizeof(mapped[j]));
      continue;
    }
    mapped[j] = args[from];
    if (k->transposed[i][j]) {
      mapped[j].sizes[0] = args[from].sizes[1];
      mapped[j].sizes[1] = args[from].sizes[0];
    }
  }
}

/// Ends choice `c` with the error `s` about variant line `line` of `k`.
static void failChoice(Choice *c, const tileRtKernel *k, int line,
                       tileRtStatus s) {
  char msg[1024];
  snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
  c->result = tileRtFail(s, "%s:%d: %s", k->manifest.path, line, msg);
  c->done = 1;
}

/// Tries variant `i` of `k`, whose rule is known to hold: ends the choice
/// when it (or, recursively, one of its candidates) fits or fails with an
/// error; else notes why it was passed over. `note` is appended to the
/// variant's line in `why`.
static void tryVariant(Choice *c, tileRtKernel *k, int i, const char *note) {
  const tileRtVariant *v = &k->manifest.variants[i];
  const char *kind = v->isFallback ? "fallback" : "variant";
  const tileRtView *refused = refusedView(v, c->args);
  if (refused) {
    if (c->explain) {
      const int64_t *sizes = c->args[refused->param].sizes;
      char reason[512];
      snprintf(reason, sizeof(reason),
               "view '%s %s' needs a dimension of extent 1, got %lldx%lld",
               tileRtViewName(refused->kind),
               k->manifest.params[refused->param].name, (long long)sizes[0],
               (long long)sizes[1]);
      append(c->passed, kWhyBytes, "%svariant %s: %s", c->passed[0] ? "; " : "",
             v->path, reason);
      append(c->why, c->whyLen, "passed over %s %s: %s\n", kind, v->path,
             reason);
    }
    return;
  }
  tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
  mapArgs(k, i, c->args, mapped);
  if (c->explain)
    c->childWhy[0] = '\0';
  int childNoFit = 0;
  tileRtStatus s =
      choose(k->variants[i], mapped, c->target, c->targetArgs, c->explain,
             c->childWhy, kWhyBytes, c->childPassed, &childNoFit);
  if (childNoFit) {
    if (c->explain) {
      append(c->passed, kWhyBytes, "%svariant %s: %s", c->passed[0] ? "; " : "",
             v->path, c->childPassed);
      append(c->why, c->whyLen, "passed over %s %s: %s\n", kind, v->path,
             c->childPassed);
    }
    return;
  }
  c->done = 1;
  c->result = s;
  if (s != TILE_RT_SUCCESS || !c->explain)
    return;
  if (v->rule[0])
    append(c->why, c->whyLen, "variant %s: when %s", v->path, v->rule);
  else
    append(c->why, c->whyLen, "%s %s: %s", kind, v->path,
           c->ownReason[0] ? c->ownReason : "no rule");
  if (k->residentRule[i]) {
    int64_t resident = k->variants[i]->residentBlocks;
    if (resident >= 0)
      append(c->why, c->whyLen, ", resident_blocks %lld", (long long)resident);
    else
      append(c->why, c->whyLen,
             ", taken without the device (resident_blocks unknown)");
  }
  append(c->why, c->whyLen, "%s", note);
  appendViews(c->why, c->whyLen, &k->manifest, v, c->args);
  append(c->why, c->whyLen, "\n%s", c->childWhy);
}

/// Evaluates the rule of variant `i` of `k` into `*holds`, noting in
/// `passed` a rule that does not hold; false (the choice ended) on an
/// error.
static int ruleHolds(Choice *c, tileRtKernel *k, int i, int *holds) {
  const tileRtVariant *v = &k->manifest.variants[i];
  // Without the device (a kernel loaded on the host) resident_blocks is
  // unknown: such a rule is taken as holding, as costed variants are tried
  // in order there.
  int64_t resident = k->variants[i]->residentBlocks;
  if (k->residentRule[i] && resident < 0) {
    *holds = 1;
    return 1;
  }
  tileRtStatus s = tileRtManifestEvalRuleResident(&k->manifest, v->rule,
                                                  c->args, resident, holds);
  if (s != TILE_RT_SUCCESS) {
    failChoice(c, k, v->line, s);
    return 0;
  }
  if (!*holds && c->explain)
    append(c->passed, kWhyBytes, "%svariant %s: rule '%s' does not hold",
           c->passed[0] ? "; " : "", v->path, v->rule);
  return 1;
}

/// A costed variant's price for some arguments.
typedef struct Price {
  int index;
  int64_t blocks, resident, waves, cost;
} Price;

/// The price of costed variant `i` of `k` (loaded on the device): its
/// weight times the waves of its grid, ceildiv(blocks, resident blocks).
static tileRtStatus priceOf(const tileRtKernel *k, int i,
                            const tileRtArgValue *args, Price *p) {
  const tileRtKernel *child = k->variants[i];
  tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
  mapArgs(k, i, args, mapped);
  unsigned grid[3];
  tileRtStatus s = tileRtManifestEvalGridResident(&child->manifest, mapped,
                                                  child->residentBlocks, grid);
  if (s != TILE_RT_SUCCESS)
    return s;
  p->index = i;
  p->blocks = (int64_t)grid[0] * grid[1] * grid[2];
  // Loaded on the device, a costed variant's kernel knows its resident
  // blocks (at least one); the guard keeps a broken driver from dividing
  // by zero.
  p->resident = child->residentBlocks > 0 ? child->residentBlocks : 1;
  p->waves = (p->blocks + p->resident - 1) / p->resident;
  if (__builtin_mul_overflow(k->manifest.variants[i].cost, p->waves, &p->cost))
    p->cost = INT64_MAX;
  return TILE_RT_SUCCESS;
}

/// Inserts `text` into `buf` (`len` bytes, NUL-terminated) at offset `at`,
/// dropping what no longer fits.
static void insertAt(char *buf, size_t len, size_t at, const char *text) {
  size_t used = strlen(buf), add = strlen(text);
  if (!len || at > used)
    return;
  if (at + add >= len)
    add = len - 1 - at;
  size_t keep = used - at;
  if (at + add + keep >= len)
    keep = len - 1 - at - add;
  memmove(buf + at + add, buf + at, keep);
  memcpy(buf + at, text, add);
  buf[at + add + keep] = '\0';
}

/// Chooses among the costed variants [first, end) of `k`: those whose rules
/// hold, tried cheapest first (the earlier on a tie).
static void chooseByCost(Choice *c, tileRtKernel *k, int first, int end) {
  Price prices[TILE_RT_MAX_VARIANTS];
  int n = 0;
  for (int i = first; i < end; ++i) {
    int holds;
    if (!ruleHolds(c, k, i, &holds))
      return;
    if (!holds)
      continue;
    Price p;
    tileRtStatus s = priceOf(k, i, c->args, &p);
    if (s != TILE_RT_SUCCESS) {
      failChoice(c, k, k->manifest.variants[i].line, s);
      return;
    }
    int at = n++;
    for (; at > 0 && prices[at - 1].cost > p.cost; --at)
      prices[at] = prices[at - 1];
    prices[at] = p;
  }
  for (int t = 0; t < n && !c->done; ++t) {
    char note[256] = "";
    size_t mark = c->explain ? strlen(c->why) : 0;
    if (c->explain)
      snprintf(note, sizeof(note),
               ", cost %lld x %lld waves (%lld blocks, %lld at once)",
               (long long)k->manifest.variants[prices[t].index].cost,
               (long long)prices[t].waves, (long long)prices[t].blocks,
               (long long)prices[t].resident);
    tryVariant(c, k, prices[t].index, note);
    if (!c->done || c->result != TILE_RT_SUCCESS || !c->explain)
      continue;
    // The variants that cost more, said before the one taken.
    char dearer[2048] = "";
    for (int u = t + 1; u < n; ++u)
      append(dearer, sizeof(dearer),
             "passed over variant %s: cost %lld x %lld waves (%lld blocks, "
             "%lld at once) = %lld, more than %lld\n",
             k->manifest.variants[prices[u].index].path,
             (long long)k->manifest.variants[prices[u].index].cost,
             (long long)prices[u].waves, (long long)prices[u].blocks,
             (long long)prices[u].resident, (long long)prices[u].cost,
             (long long)prices[t].cost);
    insertAt(c->why, c->whyLen, mark, dearer);
  }
}

/// Appends to `why` a line for each memref of `m` that `staged` marks: why
/// its maps cannot address it, and the rows it is copied into.
static void explainStaged(const tileRtManifest *m, const tileRtArgValue *args,
                          const unsigned char *staged, char *why,
                          size_t whyLen) {
  for (int i = 0; i < m->numParams; ++i) {
    if (!staged[i])
      continue;
    uint64_t rows, rowBytes;
    uint64_t pitch = tileRtStagedPitch(m, i, args[i].sizes, &rows, &rowBytes);
    const char *name = m->params[i].name;
    // `out` ones are only copied back: the kernel writes all of them.
    tileRtStageKind kind = m->params[i].stage;
    const char *copied = kind == TILE_RT_STAGE_OUT ? "written" : "copied";
    const char *back = kind == TILE_RT_STAGE_OUT     ? " and copied back"
                       : kind == TILE_RT_STAGE_INOUT ? " and back"
                                                     : "";
    if (pitch == rowBytes)
      append(why, whyLen,
             "stage %s: its address 0x%llx is not aligned; %llu rows of %llu "
             "bytes %s to a workspace%s\n",
             name, (unsigned long long)args[i].ptr, (unsigned long long)rows,
             (unsigned long long)rowBytes, copied, back);
    else
      append(why, whyLen,
             "stage %s: %llu rows of %llu bytes %s to rows of %llu%s\n", name,
             (unsigned long long)rows, (unsigned long long)rowBytes, copied,
             (unsigned long long)pitch, back);
  }
}

/// tileRtKernelSelect. With `explain`, `why` gets the lines of the variants
/// taken, each after those of the variants passed over before it, and,
/// when nothing fits, `passed` (kWhyBytes) says why each candidate was
/// passed over; without, both are null and nothing is
/// formatted or allocated (the launch path). When nothing fits `*noFit` is
/// set and the caller composes the error.
static tileRtStatus choose(tileRtKernel *k, const tileRtArgValue *args,
                           tileRtKernel **target, tileRtArgValue *targetArgs,
                           int explain, char *why, size_t whyLen, char *passed,
                           int *noFit) {
  if (explain)
    passed[0] = '\0';
  *noFit = 0;
  // Lines this call appends to `why`, dropped again unless a candidate
  // fits.
  size_t whyStart = why && whyLen ? strlen(why) : 0;
  // The kernel's own reason to be passed over (TMA cannot address the
  // arguments), which a fallback's line repeats.
  char ownReason[2048] = "";
  if (k->manifest.hasKernel) {
    // Without the device the resident blocks are unknown; a device that
    // runs the kernel at all holds at least one, and min(tiles, 1) is 0
    // exactly when min(tiles, resident blocks) is.
    unsigned grid[3];
    tileRtStatus s = tileRtManifestEvalGridResident(
        &k->manifest, args, k->residentBlocks >= 0 ? k->residentBlocks : 1,
        grid);
    if (s != TILE_RT_SUCCESS)
      return s;
    // Nothing is launched on an empty grid, so empty tensors need no maps.
    int empty = !grid[0] || !grid[1] || !grid[2];
    unsigned char staged[TILE_RT_MAX_PARAMS];
    if (empty || tileRtCheckTensorMapsStaged(&k->manifest, args, staged) ==
                     TILE_RT_SUCCESS) {
      if (explain && !empty)
        explainStaged(&k->manifest, args, staged, why, whyLen);
      *target = k;
      memcpy(targetArgs, args,
             sizeof(tileRtArgValue) * (size_t)k->manifest.numParams);
      return TILE_RT_SUCCESS;
    }
    if (explain) {
      snprintf(ownReason, sizeof(ownReason), "%s", tileRtErrorString());
      append(passed, kWhyBytes, "%s", ownReason);
    }
  }
  Choice c = {args, target,    targetArgs, explain,
              why,  whyLen,    passed,     NULL,
              NULL, ownReason, 0,          TILE_RT_ERROR_INVALID_ARGUMENT};
  if (explain) {
    c.childPassed = (char *)malloc(kWhyBytes);
    c.childWhy = (char *)malloc(kWhyBytes);
    if (!c.childPassed || !c.childWhy) {
      free(c.childPassed);
      free(c.childWhy);
      return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
  }
  for (int i = 0; i < k->numVariants && !c.done;) {
    // Costed variants compete where their waves can be counted (loaded on
    // the device); on the host they are tried in order like the others.
    if (k->manifest.variants[i].cost && k->onDevice) {
      int end = i;
      while (end < k->numVariants && k->manifest.variants[end].cost)
        ++end;
      chooseByCost(&c, k, i, end);
      i = end;
      continue;
    }
    int holds;
    if (ruleHolds(&c, k, i, &holds) && holds)
      tryVariant(&c, k, i, "");
    ++i;
  }
  *noFit = !c.done;
  if (c.result != TILE_RT_SUCCESS && why && whyLen)
    why[whyStart] = '\0';
  free(c.childPassed);
  free(c.childWhy);
  return c.result;
}

tileRtStatus tileRtKernelSelect(tileRtKernel *k, const tileRtArgValue *args,
                                tileRtKernel **target,
                                tileRtArgValue *targetArgs, char *why,
                                size_t whyLen) {
  if (why && whyLen)
    why[0] = '\0';
  if (!k || !args || !target || !targetArgs)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null kernel, arguments or outputs");
  *target = NULL;
  tileRtStatus s = tileRtManifestCheckArgs(&k->manifest, args);
  if (s != TILE_RT_SUCCESS)
    return s;
  int noFit = 0;
  if (!why || !whyLen) {
    // The launch path: explained only when nothing fits, for the error.
    s = choose(k, args, target, targetArgs, 0, NULL, 0, NULL, &noFit);
    if (!noFit)
      return s;
  }
  char *passed = (char *)malloc(kWhyBytes);
  if (!passed)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  s = choose(k, args, target, targetArgs, 1, why, whyLen, passed, &noFit);
  if (noFit) {
    if (k->manifest.hasKernel && !k->numVariants)
      s = tileRtFail(s, "%s (and %s names no fallback kernel)", passed,
                     k->manifest.path);
    else
      s = tileRtFail(s, "no variant of %s fits the arguments: %s",
                     k->manifest.path, passed);
  }
  free(passed);
  return s;
}

tileRtStatus tileRtKernelPrepare(tileRtKernel *k, const tileRtArgValue *args,
                                 tileRtLaunchConfig *config,
                                 tileRtPackedParams *packed) {
  if (packed)
    memset(packed, 0, sizeof(*packed));
  if (!k || !args || !config || !packed)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null kernel, arguments or outputs");
  memset(config, 0, sizeof(*config));
  tileRtKernel *target;
  tileRtArgValue targetArgs[TILE_RT_MAX_PARAMS];
  tileRtStatus s = tileRtKernelSelect(k, args, &target, targetArgs, NULL, 0);
  if (s != TILE_RT_SUCCESS)
    return s;
  const tileRtManifest *m = &target->manifest;
  s = tileRtKernelEvalGrid(target, targetArgs, config->grid);
  if (s != TILE_RT_SUCCESS)
    return s;
  memcpy(config->block, m->block, sizeof(config->block));
  memcpy(config->cluster, m->cluster, sizeof(config->cluster));
  config->sharedBytes = m->sharedBytes;
  int empty = !config->grid[0] || !config->grid[1] || !config->grid[2];
  s = tileRtPackParams(m, targetArgs, !empty && target->onDevice, packed);
  packed->target = target;
  packed->fallback = target != k;
  return s;
}

/// Zeroes, on `stream`, the memrefs that the manifest's `zero` directives
/// name (`packed`'s ranges). A `dependent-launch` kernel about to launch
/// (`early`) has them zeroed by tileRtZeroAsync; `*dependent` is set when
/// the operation enqueued last is then its zeroing kernel and none of the
/// ranges fell back to a memset, so the kernel may launch as its
/// dependent. Empty ranges enqueue nothing.
static tileRtStatus zeroOutputs(const tileRtPackedParams *packed, bool early,
                                void *stream, bool *dependent) {
  bool kernels = false, memsets = false;
  for (int i = 0; i < packed->numZero; ++i) {
    uint64_t ptr = packed->zeroPtr[i];
    size_t bytes = packed->zeroBytes[i];
    bool viaKernel = false;
    tileRtStatus s = bytes && early
                         ? tileRtZeroAsync(ptr, bytes, stream, &viaKernel)
                         : tileRtMemset8Async(ptr, 0, bytes, stream);
    if (s != TILE_RT_SUCCESS)
      return s;
    kernels |= viaKernel;
    memsets |= bytes && !viaKernel;
  }
  *dependent = kernels && !memsets;
  return TILE_RT_SUCCESS;
}

/// The index in `packed->pointers` of the kernel argument of tensor map
/// parameter `param` of `m`, which tileRtPackParams laid out in order.
static size_t mapArgIndex(const tileRtManifest *m, int param) {
  size_t count, bytes;
  measure(m, param, &count, &bytes);
  return count;
}

/// Where the staged arguments of one launch lie in the workspace.
typedef struct StagedLayout {
  uint64_t offset[TILE_RT_MAX_STAGED], pitch[TILE_RT_MAX_STAGED],
      rows[TILE_RT_MAX_STAGED], rowBytes[TILE_RT_MAX_STAGED];
} StagedLayout;

/// Makes `k`'s workspace at least `bytes` long. A larger one replaces it
/// (at least doubling), and the old one stays allocated until the kernel
/// is destroyed: a CUDA graph captured from an earlier launch may still
/// copy into it and hold tensor maps over it.
static tileRtStatus growWorkspace(tileRtKernel *k, uint64_t bytes,
                                  bool capturing) {
  if (bytes <= k->workBytes)
    return TILE_RT_SUCCESS;
  if (capturing)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%s: a staged launch in a stream capture needs a "
                      "workspace of %llu bytes, which cannot be allocated "
                      "while capturing (%zu allocated): launch the kernel "
                      "once on these sizes before capturing",
                      k->manifest.path, (unsigned long long)bytes,
                      k->workBytes);
  if (bytes < 2 * (uint64_t)k->workBytes)
    bytes = 2 * (uint64_t)k->workBytes;
  tileRtDevicePtr *retired = (tileRtDevicePtr *)realloc(
      k->retired, sizeof(*retired) * (size_t)(k->numRetired + 1));
  if (!retired)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  k->retired = retired;
  tileRtDevicePtr fresh;
  tileRtStatus s = tileRtMalloc((size_t)bytes, &fresh);
  if (s != TILE_RT_SUCCESS)
    return s;
  if (k->work)
    k->retired[k->numRetired++] = k->work;
  k->work = fresh;
  k->workBytes = (size_t)bytes;
  return TILE_RT_SUCCESS;
}

/// Lays the staged arguments of `packed` out in `k`'s workspace (`*l`),
/// growing it first where needed, copies those the kernel reads (`stage
/// ... in` and `inout`) into it on `stream`, and encodes the tensor maps of
/// all of them over it. Outside a stream capture the launch
/// first waits for the last one that used the workspace; in one it cannot
/// (a capture may not wait for work outside it). The caller holds
/// `k->workBusy`.
static tileRtStatus stageIn(tileRtKernel *k, tileRtPackedParams *packed,
                            void *stream, bool capturing, StagedLayout *l) {
  const tileRtManifest *m = &k->manifest;
  uint64_t total = 0;
  for (int i = 0; i < packed->numStaged; ++i) {
    l->pitch[i] =
        tileRtStagedPitch(m, packed->stagedParam[i], packed->stagedArg[i].sizes,
                          &l->rows[i], &l->rowBytes[i]);
    l->offset[i] = total;
    total += (l->pitch[i] * l->rows[i] + 255) / 256 * 256;
  }
  tileRtStatus s = growWorkspace(k, total, capturing);
  if (s != TILE_RT_SUCCESS)
    return s;
  // A launch on another stream may still use the workspace.
  if (!capturing && (s = tileRtStreamOrder(&k->workDone, stream, true)))
    return s;
  // Every copy in, in as few launches as the copy kernel takes.
  tileRtRowCopy copies[TILE_RT_MAX_STAGED];
  int numCopies = 0;
  for (int i = 0; i < packed->numStaged; ++i)
    if (m->params[packed->stagedParam[i]].stage & TILE_RT_STAGE_IN)
      copies[numCopies++] = (tileRtRowCopy){.dst = k->work + l->offset[i],
                                            .src = packed->stagedArg[i].ptr,
                                            .dstPitch = l->pitch[i],
                                            .srcPitch = l->rowBytes[i],
                                            .rowBytes = l->rowBytes[i],
                                            .rows = l->rows[i]};
  if ((s = tileRtCopyRowsAsync(copies, numCopies, false, stream)))
    return s;
  for (int i = 0; i < packed->numStaged; ++i) {
    int param = packed->stagedParam[i];
    const tileRtArgValue *a = &packed->stagedArg[i];
    for (int j = 0; j < m->numParams; ++j) {
      const tileRtParam *p = &m->params[j];
      if (p->kind != TILE_RT_PARAM_TENSOR_MAP || p->source != param)
        continue;
      s = tileRtEncodeTensorMapPitched(
          packed->pointers[mapArgIndex(m, j)], p->dtype, p->rank,
          k->work + l->offset[i], a->sizes, l->pitch[i], p->box, p->interleave,
          p->swizzle, p->l2Promotion, p->oobFill);
      if (s != TILE_RT_SUCCESS) {
        char msg[2048];
        snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
        return tileRtFail(s, "tensor map '%s' of staged %s: %s", p->name,
                          m->params[param].name, msg);
      }
    }
  }
  return TILE_RT_SUCCESS;
}

/// Copies the staged arguments of `packed` that the kernel writes
/// (`stage ... out` and `inout`) back from `k`'s workspace, and, outside a
/// stream capture, records the workspace's last use on `stream`. The copy
/// launches as a programmatic dependent of the kernel, so that its launch
/// overlaps the kernel's last blocks; it waits for the kernel before it
/// reads.
static tileRtStatus stageOut(tileRtKernel *k, const tileRtPackedParams *packed,
                             void *stream, bool capturing,
                             const StagedLayout *l) {
  tileRtRowCopy copies[TILE_RT_MAX_STAGED];
  int numCopies = 0;
  for (int i = 0; i < packed->numStaged; ++i)
    if (k->manifest.params[packed->stagedParam[i]].stage & TILE_RT_STAGE_OUT)
      copies[numCopies++] = (tileRtRowCopy){.dst = packed->stagedArg[i].ptr,
                                            .src = k->work + l->offset[i],
                                            .dstPitch = l->rowBytes[i],
                                            .srcPitch = l->pitch[i],
                                            .rowBytes = l->rowBytes[i],
                                            .rows = l->rows[i]};
  tileRtStatus s = tileRtCopyRowsAsync(copies, numCopies, true, stream);
  if (s != TILE_RT_SUCCESS)
    return s;
  return capturing ? TILE_RT_SUCCESS
                   : tileRtStreamOrder(&k->workDone, stream, false);
}

/// Zeroes the outputs of `packed` and launches `target`'s kernel on them
/// (launchPacked).
static tileRtStatus launchKernel(tileRtKernel *target,
                                 const tileRtLaunchConfig *config,
                                 const tileRtPackedParams *packed,
                                 void *stream) {
  int empty = !config->grid[0] || !config->grid[1] || !config->grid[2];
  bool dependent;
  tileRtStatus s = zeroOutputs(
      packed, target->manifest.dependentLaunch && !empty, stream, &dependent);
  if (s != TILE_RT_SUCCESS || empty)
    return s;
  return tileRtLaunchOnStreamImpl(target->function, config, packed->pointers,
                                  stream, dependent);
}

/// Launches `target` on `packed` arguments and `config`: first zeroes, on
/// `stream`, the memrefs that the manifest's `zero` directives name, also
/// where the grid is empty (a sum over nothing is zero), which alone
/// launches nothing; a memset does there, as nothing follows to overlap.
/// Staged arguments are copied into the workspace before (their tensor
/// maps in `packed` encoded then) and, those the kernel writes, back after.
static tileRtStatus launchPacked(tileRtKernel *target,
                                 const tileRtLaunchConfig *config,
                                 tileRtPackedParams *packed, void *stream) {
  int empty = !config->grid[0] || !config->grid[1] || !config->grid[2];
  if ((!empty || packed->numZero) && !target->function)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%s was loaded without the driver and cannot launch",
                      target->manifest.path);
  if (empty || !packed->numStaged)
    return launchKernel(target, config, packed, stream);
  // One launch at a time fills the workspace; the driver orders the
  // streams (stageIn waits for the last launch that used it).
  while (atomic_flag_test_and_set_explicit(&target->workBusy,
                                           memory_order_acquire))
    ;
  StagedLayout layout;
  bool capturing = false;
  tileRtStatus s = tileRtStreamCapturing(stream, &capturing);
  if (s == TILE_RT_SUCCESS)
    s = stageIn(target, packed, stream, capturing, &layout);
  if (s == TILE_RT_SUCCESS)
    s = launchKernel(target, config, packed, stream);
  if (s == TILE_RT_SUCCESS)
    s = stageOut(target, packed, stream, capturing, &layout);
  atomic_flag_clear_explicit(&target->workBusy, memory_order_release);
  return s;
}

/// Whether `target` is `k` or one of its variants, recursively.
static int owns(const tileRtKernel *k, const tileRtKernel *target) {
  if (k == target)
    return 1;
  for (int i = 0; i < k->numVariants; ++i)
    if (owns(k->variants[i], target))
      return 1;
  return 0;
}

tileRtStatus
tileRtKernelLaunchPreparedOnStream(tileRtKernel *k,
                                   const tileRtLaunchConfig *config,
                                   tileRtPackedParams *packed, void *stream) {
  if (!k || !config || !packed)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null kernel, configuration or arguments");
  tileRtKernel *target = packed->target ? packed->target : k;
  if (!owns(k, target))
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "arguments packed for a kernel that is not %s or one "
                      "of its variants",
                      k->manifest.path);
  return launchPacked(target, config, packed, stream);
}

tileRtStatus tileRtKernelLaunchPrepared(tileRtKernel *k,
                                        const tileRtLaunchConfig *config,
                                        tileRtPackedParams *packed) {
  return tileRtKernelLaunchPreparedOnStream(k, config, packed, NULL);
}

/// Whether `a` and `b` give parameter `p` the same value: the bytes the
/// kernel receives and the choice of variant depend on nothing else (a
/// memref's pointer and sizes, a scalar's value; tensor maps are encoded
/// from their source).
static int sameValue(const tileRtParam *p, const tileRtArgValue *a,
                     const tileRtArgValue *b) {
  switch (p->kind) {
  case TILE_RT_PARAM_MEMREF:
    return a->ptr == b->ptr &&
           memcmp(a->sizes, b->sizes, sizeof(a->sizes[0]) * (size_t)p->rank) ==
               0;
  case TILE_RT_PARAM_SCALAR:
    // Floats by their bits: -0.0 and 0.0 pack differently.
    return tileRtDTypeIsFloat(p->dtype)
               ? memcmp(&a->f, &b->f, sizeof(a->f)) == 0
               : a->i == b->i;
  case TILE_RT_PARAM_TENSOR_MAP:
    return 1;
  }
  return 0;
}

/// Launches from `k`'s cache, preparing it again unless it holds `args`.
static tileRtStatus launchCached(tileRtKernel *k, const tileRtArgValue *args,
                                 void *stream) {
  LaunchCache *c = &k->cache;
  const tileRtManifest *m = &k->manifest;
  int hit = c->valid;
  for (int i = 0; hit && i < m->numParams; ++i)
    hit = sameValue(&m->params[i], &c->args[i], &args[i]);
  if (!hit) {
    c->valid = 0;
    tileRtPackedParamsFree(&c->packed);
    tileRtStatus s = tileRtKernelPrepare(k, args, &c->config, &c->packed);
    if (s != TILE_RT_SUCCESS) {
      tileRtPackedParamsFree(&c->packed);
      return s;
    }
    memcpy(c->args, args, sizeof(args[0]) * (size_t)m->numParams);
    c->valid = 1;
  }
  return launchPacked(c->packed.target, &c->config, &c->packed, stream);
}

tileRtStatus tileRtKernelLaunchOnStream(tileRtKernel *k,
                                        const tileRtArgValue *args,
                                        void *stream) {
  if (!k || !args)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null kernel or arguments");
  // One launch at a time uses the cache; one that finds it taken (another
  // thread launching the same kernel) prepares its own arguments.
  if (!atomic_flag_test_and_set_explicit(&k->cacheBusy, memory_order_acquire)) {
    tileRtStatus s = launchCached(k, args, stream);
    atomic_flag_clear_explicit(&k->cacheBusy, memory_order_release);
    return s;
  }
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  memset(&packed, 0, sizeof(packed));
  tileRtStatus s = tileRtKernelPrepare(k, args, &config, &packed);
  if (s == TILE_RT_SUCCESS)
    s = tileRtKernelLaunchPreparedOnStream(k, &config, &packed, stream);
  tileRtPackedParamsFree(&packed);
  return s;
}

tileRtStatus tileRtKernelLaunch(tileRtKernel *k, const tileRtArgValue *args) {
  return tileRtKernelLaunchOnStream(k, args, NULL);
}

void tileRtKernelDestroy(tileRtKernel *kernel) {
  if (!kernel)
    return;
  for (int i = 0; i < kernel->numVariants; ++i)
    tileRtKernelDestroy(kernel->variants[i]);
  tileRtPackedParamsFree(&kernel->cache.packed);
  if (kernel->work) {
    // Launches still running may use them.
    if (kernel->workDone)
      (void)tileRtEventSynchronize(kernel->workDone);
    (void)tileRtFree(kernel->work);
    for (int i = 0; i < kernel->numRetired; ++i)
      (void)tileRtFree(kernel->retired[i]);
  }
  free(kernel->retired);
  tileRtEventDestroy(kernel->workDone);
  tileRtModuleUnload(kernel->module);
  free(kernel);
}
