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

#include <stdlib.h>
#include <string.h>

enum { kTensorMapBytes = 128, kTensorMapAlign = 64 };

/// Counts the kernel arguments and the storage bytes `m` needs.
static void measure(const tileRtManifest *m, size_t *count, size_t *bytes) {
  *count = 0;
  *bytes = 0;
  for (int i = 0; i < m->numParams; ++i) {
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
  measure(m, &count, &bytes);
  out->pointers = (void **)calloc(count + 1, sizeof(void *));
  out->sizes = (size_t *)calloc(count + 1, sizeof(size_t));
  out->storage = (unsigned char *)aligned_alloc(
      kTensorMapAlign,
      (bytes + kTensorMapAlign) / kTensorMapAlign * kTensorMapAlign);
  if (!out->pointers || !out->sizes || !out->storage)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  memset(out->storage, 0, bytes);
  Packer pk = {out, 0};
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    const tileRtArgValue *a = &args[i];
    switch (p->kind) {
    case TILE_RT_PARAM_MEMREF:
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
      if (!encodeTensorMaps)
        break;
      const tileRtArgValue *src = &args[p->source];
      s = tileRtEncodeTensorMapTiled(slot, p->dtype, p->rank, src->ptr,
                                     src->sizes, p->box, p->interleave,
                                     p->swizzle, p->l2Promotion, p->oobFill);
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

struct tileRtKernel {
  tileRtManifest manifest;
  tileRtModule *module;
  tileRtFunction *function;
  /// The kernel of the manifest's `fallback`, or null.
  tileRtKernel *fallback;
};

tileRtStatus tileRtKernelLoad(const tileRtManifest *manifest,
                              tileRtKernel **out) {
  if (!manifest || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or output");
  *out = NULL;
  tileRtKernel *k = (tileRtKernel *)calloc(1, sizeof(*k));
  if (!k)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  k->manifest = *manifest;
  tileRtStatus s = tileRtModuleLoadFile(manifest->binary, &k->module);
  if (s == TILE_RT_SUCCESS)
    s = tileRtModuleGetFunction(k->module, manifest->kernel, &k->function);
  if (s == TILE_RT_SUCCESS && manifest->sharedBytes > 48 * 1024)
    s = tileRtFunctionSetMaxDynamicSharedMemory(k->function,
                                                manifest->sharedBytes);
  if (s == TILE_RT_SUCCESS && manifest->fallback[0]) {
    tileRtManifest fallback;
    s = tileRtManifestParseFile(manifest->fallback, &fallback);
    if (s == TILE_RT_SUCCESS && fallback.fallback[0])
      s = tileRtFail(TILE_RT_ERROR_PARSE,
                     "%s: a fallback manifest cannot name a fallback of its "
                     "own",
                     fallback.path);
    if (s == TILE_RT_SUCCESS)
      s = tileRtManifestCheckCompatible(manifest, &fallback);
    if (s == TILE_RT_SUCCESS)
      s = tileRtKernelLoad(&fallback, &k->fallback);
  }
  if (s != TILE_RT_SUCCESS) {
    tileRtKernelDestroy(k);
    return s;
  }
  *out = k;
  return TILE_RT_SUCCESS;
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
  tileRtStatus s = tileRtManifestEvalGrid(&k->manifest, args, config->grid);
  if (s != TILE_RT_SUCCESS)
    return s;
  memcpy(config->block, k->manifest.block, sizeof(config->block));
  memcpy(config->cluster, k->manifest.cluster, sizeof(config->cluster));
  config->sharedBytes = k->manifest.sharedBytes;
  // Nothing is launched on an empty grid, so empty tensors need no maps.
  int empty = !config->grid[0] || !config->grid[1] || !config->grid[2];
  s = empty ? TILE_RT_SUCCESS
            : tileRtManifestCheckTensorMaps(&k->manifest, args);
  if (s != TILE_RT_SUCCESS) {
    if (!k->fallback) {
      char msg[2048];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(s, "%s (and %s names no fallback kernel)", msg,
                        k->manifest.path);
    }
    // TMA cannot address these arguments: the fallback kernel, which has
    // no tensor maps, takes the same arguments by name.
    tileRtArgValue mapped[TILE_RT_MAX_PARAMS];
    s = tileRtManifestMapArgs(&k->manifest, args, &k->fallback->manifest,
                              mapped);
    if (s == TILE_RT_SUCCESS)
      s = tileRtKernelPrepare(k->fallback, mapped, config, packed);
    packed->fallback = 1;
    return s;
  }
  return tileRtPackParams(&k->manifest, args, !empty, packed);
}

tileRtStatus tileRtKernelLaunchPrepared(tileRtKernel *k,
                                        const tileRtLaunchConfig *config,
                                        tileRtPackedParams *packed) {
  if (!k || !config || !packed)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null kernel, configuration or arguments");
  if (packed->fallback && !k->fallback)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "arguments packed for a fallback kernel that %s lacks",
                      k->manifest.path);
  if (!config->grid[0] || !config->grid[1] || !config->grid[2])
    return TILE_RT_SUCCESS;
  tileRtKernel *target = packed->fallback ? k->fallback : k;
  return tileRtLaunch(target->function, config, packed->pointers);
}

tileRtStatus tileRtKernelLaunch(tileRtKernel *k, const tileRtArgValue *args) {
  tileRtLaunchConfig config;
  tileRtPackedParams packed;
  memset(&packed, 0, sizeof(packed));
  tileRtStatus s = tileRtKernelPrepare(k, args, &config, &packed);
  if (s == TILE_RT_SUCCESS)
    s = tileRtKernelLaunchPrepared(k, &config, &packed);
  tileRtPackedParamsFree(&packed);
  return s;
}

void tileRtKernelDestroy(tileRtKernel *kernel) {
  if (!kernel)
    return;
  tileRtKernelDestroy(kernel->fallback);
  tileRtModuleUnload(kernel->module);
  free(kernel);
}
