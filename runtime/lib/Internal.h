//===- Internal.h - helpers shared by the runtime's sources -----*- C -*-===//
//
// Error recording used by every part of libtile_runtime. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_INTERNAL_H
#define TILE_RUNTIME_INTERNAL_H

#include "tile-runtime/Runtime.h"

#include <stdbool.h>

#if defined(__GNUC__)
#define TILE_RT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TILE_RT_PRINTF(fmt, args)
#endif

/// Records a printf-style message as the thread's last error and returns
/// `status`, so that failures read `return tileRtFail(STATUS, "...", ...)`.
tileRtStatus tileRtFail(tileRtStatus status, const char *fmt, ...)
    TILE_RT_PRINTF(2, 3);

/// Records the driver result `code` of the last failed call.
void tileRtSetDriverError(int code);

/// tileRtEvalExpr with a check-only mode: when `checkOnly` is nonzero,
/// division by zero and overflow are not errors (names may stand for
/// placeholder values), so only the syntax and the names are checked.
tileRtStatus tileRtEvalExprImpl(const char *expr, tileRtExprLookup lookup,
                                void *context, int checkOnly, int64_t *result);

/// The manifest's name of a view kind ("transpose").
const char *tileRtViewName(tileRtViewKind kind);

/// The view `variant` (may be null) takes of parameter `param` of the
/// manifest that names it, or null.
const tileRtView *tileRtFindView(const tileRtVariant *variant, int param);

/// The index of the parameter of `m` whose argument the parameter `name`
/// of `variant` (one of `m`'s variants) takes: the one a `bind` names, else
/// the one called `name`; -1 for none.
int tileRtVariantSource(const tileRtManifest *m, const tileRtVariant *variant,
                        const char *name);

/// tileRtManifestCheckCompatible for the manifest `to` that `variant` (a
/// directive of `from`, or null) names: a parameter it views is compared
/// as the view shows it.
tileRtStatus tileRtCheckVariantCompatible(const tileRtManifest *from,
                                          const tileRtVariant *variant,
                                          const tileRtManifest *to);

/// tileRtLaunchOnStream; with `dependent`, on CUDA, as a programmatic
/// dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION):
/// the kernel may start before the operation enqueued before it on
/// `stream` finished. Only right after tileRtZeroAsync launched the
/// zeroing kernel is that safe: it was itself launched after all earlier
/// work of the stream finished, and the kernel waits for it
/// (griddepcontrol.wait) before it touches what it zeroed.
tileRtStatus tileRtLaunchOnStreamImpl(tileRtFunction *function,
                                      const tileRtLaunchConfig *config,
                                      void **params, void *stream,
                                      bool dependent);

/// Sets the `bytes` bytes at `ptr` to zero in order on `stream`, for a
/// kernel that may start before they are zero (a `dependent-launch`
/// manifest). On CUDA devices of compute capability 9.0 and later, where
/// `ptr` and `bytes` are multiples of 16 (and `bytes` is not 0), with the
/// runtime's zeroing kernel, which lets a dependent launch follow it
/// (`*viaKernel` set); elsewhere with tileRtMemset8Async (`*viaKernel`
/// cleared, and the kernel must be launched normally). The zeroing
/// kernel is loaded on first use, once per context.
tileRtStatus tileRtZeroAsync(tileRtDevicePtr ptr, size_t bytes, void *stream,
                             bool *viaKernel);

/// One copy of `rows` rows of `rowBytes` bytes from `src` (rows
/// `srcPitch` bytes apart) to `dst` (`dstPitch` apart), device to device: a
/// staged argument's way into or out of its workspace.
typedef struct tileRtRowCopy {
  tileRtDevicePtr dst, src;
  size_t dstPitch, srcPitch, rowBytes, rows;
} tileRtRowCopy;

/// Enqueues `copies[0..count)` (any may be empty) in order on `stream`:
/// with the runtime's copy kernel, several copies a launch, on devices of
/// compute capability 9.0 and later, else with cuMemcpy2DAsync each. With
/// `dependent` (and cuLaunchKernelEx) the copy kernel launches as a
/// programmatic dependent of the grid before it on the stream, which it
/// waits for before it copies: for outputs that grid wrote. CUDA only.
tileRtStatus tileRtCopyRowsAsync(const tileRtRowCopy *copies, int count,
                                 bool dependent, void *stream);

/// tileRtEncodeTensorMapTiled over rows `pitch` bytes apart (0: the
/// contiguous rows of `sizes`).
tileRtStatus tileRtEncodeTensorMapPitched(void *map, tileRtDType dtype,
                                          int rank, tileRtDevicePtr address,
                                          const int64_t *sizes, uint64_t pitch,
                                          const uint32_t *box, int interleave,
                                          int swizzle, int l2Promotion,
                                          int oobFill);

/// Orders `stream` after the work recorded in `*event` (`wait`; nothing
/// while `*event` is null), or records the work enqueued so far on
/// `stream` in `*event`, creating it (without timing) on first use: how
/// launches on different streams take turns with one workspace. CUDA only.
tileRtStatus tileRtStreamOrder(tileRtEvent **event, void *stream, bool wait);

/// Sets `*capturing` when `stream` is being captured into a CUDA graph
/// (cuStreamIsCapturing; false where the driver lacks it, and on HIP).
tileRtStatus tileRtStreamCapturing(void *stream, bool *capturing);

/// tileRtManifestCheckTensorMaps where a memref with a `stage` directive
/// may be staged: where its address or a row stride breaks TMA's rules but
/// its sizes and its rows padded to tileRtStagedPitch do not, its index is
/// set in `staged` (numParams entries, cleared first; may be null, then
/// staging is not considered) instead of failing.
tileRtStatus tileRtCheckTensorMapsStaged(const tileRtManifest *m,
                                         const tileRtArgValue *args,
                                         unsigned char *staged);

/// The row pitch in bytes of staged memref `param` of `m` with sizes
/// `sizes`: its innermost row rounded up to the alignment its tensor maps
/// need (16 bytes, 32 with 32-byte interleave). `*rows` gets the number
/// of rows (the product of the outer sizes) and `*rowBytes` their length.
uint64_t tileRtStagedPitch(const tileRtManifest *m, int param,
                           const int64_t *sizes, uint64_t *rows,
                           uint64_t *rowBytes);

/// A loaded module: the platform's handle (CUmodule, hipModule_t).
struct tileRtModule {
  void *module;
};

/// The HIP platform (DriverHIP.c): what Driver.c forwards to while HIP is
/// selected. Arguments are checked by the callers in Driver.c.
tileRtStatus tileRtHipDeviceCount(int *count);
tileRtStatus tileRtHipInit(int ordinal);
void tileRtHipShutdown(void);
/// Whether tileRtHipInit has selected a device.
bool tileRtHipActive(void);
tileRtStatus tileRtHipDeviceInfo(char *buf, size_t len, int *major, int *minor);
tileRtStatus tileRtHipModuleLoadData(const void *data, tileRtModule *module);
void tileRtHipModuleUnload(tileRtModule *module);
tileRtStatus tileRtHipModuleGetFunction(tileRtModule *module, const char *name,
                                        tileRtFunction **out);
tileRtStatus tileRtHipCheckDynamicShared(unsigned bytes);
/// The blocks of `function` (`blockThreads` threads, `sharedBytes` of
/// dynamic LDS) one compute unit holds at once, and the device's compute
/// units.
tileRtStatus tileRtHipOccupancy(tileRtFunction *function, unsigned blockThreads,
                                unsigned sharedBytes, int *perUnit, int *units);
tileRtStatus tileRtHipLaunch(tileRtFunction *function,
                             const tileRtLaunchConfig *c, void **params,
                             void *stream);
tileRtStatus tileRtHipSynchronize(void);
tileRtStatus tileRtHipMalloc(size_t bytes, tileRtDevicePtr *out);
tileRtStatus tileRtHipFree(tileRtDevicePtr ptr);
tileRtStatus tileRtHipMemcpyHtoD(tileRtDevicePtr dst, const void *src,
                                 size_t bytes);
tileRtStatus tileRtHipMemcpyDtoH(void *dst, tileRtDevicePtr src, size_t bytes);
tileRtStatus tileRtHipMemset8(tileRtDevicePtr dst, unsigned char value,
                              size_t bytes);
tileRtStatus tileRtHipMemset8Async(tileRtDevicePtr dst, unsigned char value,
                                   size_t bytes, void *stream);
tileRtStatus tileRtHipEventCreate(tileRtEvent **out);
tileRtStatus tileRtHipEventRecord(tileRtEvent *event);
tileRtStatus tileRtHipEventSynchronize(tileRtEvent *event);
tileRtStatus tileRtHipEventElapsedMs(tileRtEvent *start, tileRtEvent *end,
                                     float *ms);
void tileRtHipEventDestroy(tileRtEvent *event);

#endif // TILE_RUNTIME_INTERNAL_H
