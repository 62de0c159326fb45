//===- Runtime.h - tile GPU runtime: driver, manifests, launches -*- C -*-===//
//
// The public C interface of libtile_runtime. It holds four parts:
//  - status codes and the last error message of the calling thread;
//  - element types (dtypes) and the f16/bf16 <-> f32 conversions;
//  - launch manifests (the text file tile-compile writes beside a kernel
//    binary, see docs/Runtime.md) and their grid expressions;
//  - the CUDA driver, loaded at run time with dlopen so that the library
//    builds and links on machines with neither a GPU nor the CUDA toolkit.
//
// Every function that can fail returns a tileRtStatus; on failure the
// message that tileRtErrorString returns says what failed, naming the
// driver call and the driver's error name where the driver failed.
// The driver part keeps one process-wide device and context: call it from
// one thread at a time.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status and errors
 *===----------------------------------------------------------------------===*/

/// The result of every fallible runtime function.
typedef enum tileRtStatus {
  TILE_RT_SUCCESS = 0,
  /// libcuda.so.1 could not be loaded or lacks a required entry point.
  TILE_RT_ERROR_NO_DRIVER,
  /// The driver loaded but reports no usable device.
  TILE_RT_ERROR_NO_DEVICE,
  /// A driver call failed; tileRtLastDriverError gives its code.
  TILE_RT_ERROR_DRIVER,
  /// An argument was null, out of range or inconsistent with a manifest.
  TILE_RT_ERROR_INVALID_ARGUMENT,
  /// A file could not be read or written.
  TILE_RT_ERROR_IO,
  /// A manifest or an expression is malformed.
  TILE_RT_ERROR_PARSE,
  /// A host allocation failed.
  TILE_RT_ERROR_OUT_OF_MEMORY,
  /// The operation needs tileRtInit first.
  TILE_RT_ERROR_NOT_INITIALIZED,
} tileRtStatus;

/// Returns the message of the last failure on the calling thread. The
/// string is owned by the runtime and stays valid until the next failing
/// call on this thread; it is "" when nothing has failed. Never null.
const char *tileRtErrorString(void);

/// Returns the enumerator name of `status` ("TILE_RT_ERROR_DRIVER"); static
/// storage, never null.
const char *tileRtStatusName(tileRtStatus status);

/// Returns the CUresult of the last failed driver call on this thread, or 0.
int tileRtLastDriverError(void);

/*===----------------------------------------------------------------------===*
 * Element types
 *===----------------------------------------------------------------------===*/

/// Element types of memrefs and scalars, named as in MLIR.
typedef enum tileRtDType {
  TILE_RT_DTYPE_INVALID = 0,
  TILE_RT_DTYPE_I1,
  TILE_RT_DTYPE_I8,
  TILE_RT_DTYPE_I16,
  TILE_RT_DTYPE_I32,
  TILE_RT_DTYPE_I64,
  TILE_RT_DTYPE_INDEX,
  TILE_RT_DTYPE_F16,
  TILE_RT_DTYPE_BF16,
  TILE_RT_DTYPE_F32,
  TILE_RT_DTYPE_F64,
  /// 8-bit floats: 4-bit exponent and 3-bit mantissa without infinities
  /// (f8E4M3FN), 5-bit exponent and 2-bit mantissa (f8E5M2).
  TILE_RT_DTYPE_F8E4M3FN,
  TILE_RT_DTYPE_F8E5M2,
} tileRtDType;

/// Parses an MLIR element type name ("f16", "i32", "index") of `len` bytes
/// at `name` (need not be NUL-terminated); TILE_RT_DTYPE_INVALID if unknown.
tileRtDType tileRtDTypeFromName(const char *name, size_t len);

/// Returns the MLIR name of `dtype` ("?" for an invalid one); never null.
const char *tileRtDTypeName(tileRtDType dtype);

/// Returns the size in bytes of one element in memory (index: 8, i1: 1).
size_t tileRtDTypeSize(tileRtDType dtype);

/// Returns nonzero for f8E4M3FN, f8E5M2, f16, bf16, f32 and f64.
int tileRtDTypeIsFloat(tileRtDType dtype);

/// IEEE binary16 to binary32; exact, keeps signed zeros, infinities, NaNs.
float tileRtF16ToF32(uint16_t bits);
/// binary32 to binary16, rounding to nearest even; overflow gives infinity
/// and NaNs stay quiet NaNs.
uint16_t tileRtF32ToF16(float value);
/// bfloat16 to binary32; exact.
float tileRtBF16ToF32(uint16_t bits);
/// binary32 to bfloat16, rounding to nearest even; NaNs stay quiet NaNs.
uint16_t tileRtF32ToBF16(float value);
/// An 8-bit float (`dtype` f8E4M3FN or f8E5M2) to binary32; exact.
float tileRtF8ToF32(tileRtDType dtype, uint8_t bits);
/// binary32 to an 8-bit float, rounding to nearest even. Beyond the
/// largest finite value f8E4M3FN gives NaN (it has no infinity) and
/// f8E5M2 infinity.
uint8_t tileRtF32ToF8(tileRtDType dtype, float value);

/// Reads element `index` of the array `data` of `dtype` as a double.
/// `data` must be non-null and hold more than `index` elements.
double tileRtLoadElement(tileRtDType dtype, const void *data, size_t index);
/// Writes `value` into element `index` of `data`, converting (rounding to
/// nearest even for floats, truncating toward zero and wrapping for ints).
void tileRtStoreElement(tileRtDType dtype, void *data, size_t index,
                        double value);

/*===----------------------------------------------------------------------===*
 * Launch manifests
 *===----------------------------------------------------------------------===*/

#define TILE_RT_MAX_RANK 8
#define TILE_RT_MAX_PARAMS 64
#define TILE_RT_MAX_NAME 128
#define TILE_RT_MAX_EXPR 512
#define TILE_RT_MAX_PATH 4096
/// How many `variant` and `fallback` directives one manifest may hold
/// (tile-compile --dispatch refuses tables of more rules).
#define TILE_RT_MAX_VARIANTS 64
/// How many memrefs one manifest may stage (`stage` directives).
#define TILE_RT_MAX_STAGED 8
/// How deep variants may nest (a dispatching manifest's variant with a
/// fallback is two levels); deeper nesting is taken for a cycle.
#define TILE_RT_MAX_VARIANT_DEPTH 8
/// A static dimension of this value in tileRtParam::dims is dynamic ("?").
#define TILE_RT_DYNAMIC_DIM (-1)

/// The kind of the kernel binary a manifest names.
typedef enum tileRtBinaryKind {
  TILE_RT_BINARY_PTX,
  TILE_RT_BINARY_CUBIN,
  /// An AMD code object (gfx90a, gfx942), launched through HIP.
  TILE_RT_BINARY_HSACO,
} tileRtBinaryKind;

/// The API the device calls (tileRtInit and on) go through: the CUDA driver
/// (NVIDIA, PTX and cubin) or the HIP runtime (AMD, HSACO). CUDA unless
/// changed.
typedef enum tileRtPlatform {
  TILE_RT_PLATFORM_CUDA,
  TILE_RT_PLATFORM_HIP,
} tileRtPlatform;

/// The manifest's name of `kind`: "ptx", "cubin" or "hsaco".
const char *tileRtBinaryKindName(tileRtBinaryKind kind);

/// What a manifest parameter is.
typedef enum tileRtParamKind {
  /// A buffer on the device: memref<d0 x d1 x ... x T>.
  TILE_RT_PARAM_MEMREF,
  /// A scalar passed by value.
  TILE_RT_PARAM_SCALAR,
  /// A 128-byte TMA descriptor built from a memref parameter, by value.
  TILE_RT_PARAM_TENSOR_MAP,
} tileRtParamKind;

/// How a memref parameter becomes kernel arguments.
typedef enum tileRtMemRefPassing {
  /// MLIR's expanded descriptor: allocated pointer, aligned pointer, offset,
  /// sizes[rank], strides[rank] (offset, sizes and strides as index).
  TILE_RT_PASS_DESCRIPTOR,
  /// The aligned pointer alone.
  TILE_RT_PASS_BARE,
  /// Not passed: the buffer only backs a tensor map parameter.
  TILE_RT_PASS_NONE,
} tileRtMemRefPassing;

/// What a `stage` directive copies around a launch (docs/Runtime.md,
/// "Staged arguments"): where a memref's tensor maps cannot address it for
/// its address or row stride, the runtime copies it into a workspace whose
/// rows are padded to 16 bytes and encodes the maps over that.
typedef enum tileRtStageKind {
  TILE_RT_STAGE_NONE = 0,
  /// Copied in before the kernel: the kernel only reads it.
  TILE_RT_STAGE_IN = 1,
  /// Copied back after the kernel only: the kernel writes every element
  /// and reads none it did not write (`tile.overwrite`).
  TILE_RT_STAGE_OUT = 2,
  /// Copied in before the kernel and back after it: the kernel writes it.
  TILE_RT_STAGE_INOUT = 3,
} tileRtStageKind;

/// One parameter of a manifest, in kernel order.
typedef struct tileRtParam {
  char name[TILE_RT_MAX_NAME];
  tileRtParamKind kind;
  /// Element type of a memref or tensor map; type of a scalar.
  tileRtDType dtype;
  /// Memref and tensor map: the rank and static sizes (TILE_RT_DYNAMIC_DIM
  /// for '?'), outermost first. Tensor maps copy them from their source.
  int rank;
  int64_t dims[TILE_RT_MAX_RANK];
  tileRtMemRefPassing passing;
  /// Tensor map: index of the source memref parameter, box sizes
  /// (outermost first) and the driver's swizzle, interleave, L2 promotion
  /// and out-of-bounds fill enumerators.
  int source;
  uint32_t box[TILE_RT_MAX_RANK];
  int swizzle, interleave, l2Promotion, oobFill;
  /// The manifest line that declared it.
  int line;
  /// Memref: nonzero where a `zero` directive names it: the runtime sets
  /// its bytes to zero on the launch's stream before every launch (an
  /// output the kernel adds into, with atomics).
  int zeroInit;
  /// Memref: how a `stage` directive names it (TILE_RT_STAGE_NONE for no
  /// directive), and the directive's line.
  tileRtStageKind stage;
  int stageLine;
} tileRtParam;

/// How many arguments one `variant` directive may view.
#define TILE_RT_MAX_VIEWS 4

/// How a variant sees an argument of the manifest that names it.
typedef enum tileRtViewKind {
  /// A rank-2 memref with its two sizes swapped. Only where one size is 1
  /// (or the memref is empty) is that the same row-major bytes, which the
  /// runtime requires of the arguments before it takes the variant.
  TILE_RT_VIEW_TRANSPOSE,
} tileRtViewKind;

/// A view of one argument (`view transpose NAME` on a `variant` line): the
/// variant receives the argument's buffer with the viewed sizes.
typedef struct tileRtView {
  tileRtViewKind kind;
  /// The index of the viewed memref parameter in the manifest that names
  /// the variant.
  int param;
} tileRtView;

/// How many parameters one `variant` directive may bind to another name.
#define TILE_RT_MAX_BINDS 8

/// `bind NAME FROM` on a `variant` line: the variant's parameter NAME takes
/// the argument of parameter FROM of the manifest that names the variant
/// (by default a variant's parameter takes the argument of its own name).
typedef struct tileRtBind {
  char name[TILE_RT_MAX_NAME];
  /// The index of FROM in the manifest that names the variant.
  int param;
} tileRtBind;

/// A manifest launched instead of the kernel that names it, by a `variant`
/// or `fallback` directive (docs/Runtime.md, "Variants").
typedef struct tileRtVariant {
  /// The variant's manifest, resolved against the naming one's directory.
  char path[TILE_RT_MAX_PATH];
  /// The rule over the arguments that must hold for the variant to be
  /// taken: comparisons of two expressions joined by `and`; "" for none.
  char rule[TILE_RT_MAX_EXPR];
  /// Nonzero when written as `fallback` (version 1 syntax).
  int isFallback;
  int line;
  /// The variant's parameters that take another parameter's argument; a
  /// fallback has none.
  int numBinds;
  tileRtBind binds[TILE_RT_MAX_BINDS];
  /// The views the variant takes of the arguments (of the naming
  /// manifest's parameters, whichever of the variant's takes them); a
  /// fallback has none.
  int numViews;
  tileRtView views[TILE_RT_MAX_VIEWS];
  /// `cost W`: the weight of one wave of the variant's grid, where
  /// consecutive costed variants whose rules hold compete on W times their
  /// waves (docs/Runtime.md, "Costs"); 0 for none.
  int64_t cost;
} tileRtVariant;

/// A parsed launch manifest. Plain data: copy it freely, nothing to free.
typedef struct tileRtManifest {
  /// The format version of the file: 1 or 2.
  int version;
  /// Nonzero when the manifest names a kernel; a version 2 manifest with
  /// variants may name none (a dispatching manifest: its parameters are
  /// the interface, its variants the kernels).
  int hasKernel;
  /// The file it was read from (as given) and the directory that relative
  /// binary paths are resolved against.
  char path[TILE_RT_MAX_PATH];
  char kernel[TILE_RT_MAX_NAME * 2];
  /// The binary's path, resolved against the manifest's directory.
  char binary[TILE_RT_MAX_PATH];
  tileRtBinaryKind binaryKind;
  /// Bit width of index-typed kernel arguments (descriptor offsets, sizes,
  /// strides and index scalars): 32 or 64.
  int indexBits;
  int numParams;
  tileRtParam params[TILE_RT_MAX_PARAMS];
  /// Nonzero with a `dependent-launch` directive (which needs a `zero`
  /// one): the kernel executes griddepcontrol.wait before it first touches
  /// a zeroed output, so it may start before the zeroing finished. On
  /// CUDA devices of compute capability 9.0 and later the runtime then
  /// zeroes with its own kernel and launches this one as its programmatic
  /// dependent (docs/Runtime.md, "Zeroed outputs").
  int dependentLaunch;
  unsigned block[3];
  unsigned cluster[3];
  unsigned sharedBytes;
  /// Grid expressions (x, y, z); "1" when a dimension was not given.
  char grid[3][TILE_RT_MAX_EXPR];
  int gridLine[3];
  /// The `fallback` manifest's path, resolved against this one's directory;
  /// empty when there is none. It is also the last of `variants`.
  char fallback[TILE_RT_MAX_PATH];
  /// The `variant` and `fallback` directives in order: tried after the
  /// manifest's own kernel, the first that fits the arguments is launched.
  int numVariants;
  tileRtVariant variants[TILE_RT_MAX_VARIANTS];
} tileRtManifest;

/// Reads and parses the manifest at `path` into `*out` (both non-null).
/// Errors are "path:line: message".
tileRtStatus tileRtManifestParseFile(const char *path, tileRtManifest *out);

/// Parses manifest `text` (NUL-terminated, non-null). `fileName` names it in
/// errors and, with its directory part, anchors relative binary paths; it
/// may be null ("<string>", current directory).
tileRtStatus tileRtManifestParseString(const char *text, const char *fileName,
                                       tileRtManifest *out);

/// The platform that runs `manifest`'s kernel (tileRtBinaryPlatform of its
/// binary), or, for a dispatching manifest without one, its first
/// variant's (read from its file). Errors as tileRtManifestParseFile.
tileRtStatus tileRtManifestPlatform(const tileRtManifest *manifest,
                                    tileRtPlatform *out);

/// Returns the index of the parameter called `name`, or -1.
int tileRtManifestFindParam(const tileRtManifest *manifest, const char *name);

/// Writes the manifest back in canonical manifest syntax to `os`.
void tileRtManifestPrint(const tileRtManifest *manifest, FILE *os);

/// Returns the number of parameters of `manifest` (non-null).
int tileRtManifestNumParams(const tileRtManifest *manifest);

/// Returns the path `manifest` (non-null) was read from; owned by it.
const char *tileRtManifestPath(const tileRtManifest *manifest);

/// Writes parameter `index` of `manifest` as its manifest line without the
/// `param` word ("A memref<?x4096xf16> descriptor", "n i32") into `buf` of
/// `len` bytes, NUL-terminated; for callers that do not mirror
/// tileRtParam (language bindings). Fails on a bad index or a short buffer.
tileRtStatus tileRtManifestParamText(const tileRtManifest *manifest, int index,
                                     char *buf, size_t len);

/// The run-time value of one manifest parameter.
typedef struct tileRtArgValue {
  /// Memref: the device buffer and its sizes (outermost first).
  uint64_t ptr;
  int64_t sizes[TILE_RT_MAX_RANK];
  /// Scalar: integer types (i1 to i64, index) use `i`, floats use `f`.
  int64_t i;
  double f;
} tileRtArgValue;

/// Looks a name up for an expression: stores its value and returns nonzero,
/// or returns zero when the name is unknown.
typedef int (*tileRtExprLookup)(void *context, const char *name, size_t len,
                                int64_t *value);

/// Evaluates the integer expression `expr` (non-null): decimal literals,
/// names resolved by `lookup`, unary -, + - * and parentheses, and the
/// calls ceildiv floordiv min max mod (two arguments each) and primefloor
/// (one: the largest prime not above it, at most 2^31-1), in 64-bit signed
/// arithmetic. Overflow, division by zero and malformed input are errors
/// (TILE_RT_ERROR_PARSE / TILE_RT_ERROR_INVALID_ARGUMENT) naming the column.
tileRtStatus tileRtEvalExpr(const char *expr, tileRtExprLookup lookup,
                            void *context, int64_t *result);

/// Checks that the arguments in `args` (manifest->numParams entries) agree
/// with the manifest's static sizes and fit what the kernel receives:
/// sizes non-negative; integer scalars within the signed range of their
/// type (`index` at the manifest's index width); float scalars, when
/// finite, within their type's finite range; with index-bitwidth 32 (the
/// kernel computes indices in 32 bits), every size of a memref at most
/// 2^31-1 and the element count of a `descriptor` or `bare` memref too;
/// byte sizes within int64. TILE_RT_ERROR_INVALID_ARGUMENT names the parameter
/// and the range.
tileRtStatus tileRtManifestCheckArgs(const tileRtManifest *manifest,
                                     const tileRtArgValue *args);

/// Checks that every tensor map of `manifest` can be encoded for `args`
/// (numParams entries): TMA needs its source's address 16-byte aligned (32
/// with 32-byte interleave), the byte stride of every dimension but the
/// innermost a multiple of 16 (32) below 2^40, and every size from 1 to
/// 2^32. TILE_RT_ERROR_INVALID_ARGUMENT names the map and the rule broken.
/// Needs no driver.
tileRtStatus tileRtManifestCheckTensorMaps(const tileRtManifest *manifest,
                                           const tileRtArgValue *args);

/// Checks that every parameter of manifest `to` is a parameter of `from`
/// of the same name, kind, element type and rank (static sizes agreeing),
/// as a variant's must be. Tensor maps of `to` are exempt: they are built
/// from their source memref, which is checked.
tileRtStatus tileRtManifestCheckCompatible(const tileRtManifest *from,
                                           const tileRtManifest *to);

/// Binds the arguments `args` of `from` (from->numParams entries) to the
/// parameters of `to` by name, into `toArgs` (to->numParams entries); the
/// manifests must pass tileRtManifestCheckCompatible. Tensor maps of `to`
/// get zeroed values (they are encoded from their source). No view of a
/// `variant` directive is applied: tileRtKernelSelect applies those.
tileRtStatus tileRtManifestMapArgs(const tileRtManifest *from,
                                   const tileRtArgValue *args,
                                   const tileRtManifest *to,
                                   tileRtArgValue *toArgs);

/// Evaluates `rule` (non-null; a variant's rule: comparisons `EXPR OP EXPR`
/// with OP one of <= < >= > == !=, joined by `and`; "" holds) over the
/// memref sizes and integer scalars of `args` (numParams entries) by the
/// names of `manifest`'s parameters, storing 1 or 0 in `*holds`. A rule
/// that reads `resident_blocks` fails here (see
/// tileRtManifestEvalRuleResident).
tileRtStatus tileRtManifestEvalRule(const tileRtManifest *manifest,
                                    const char *rule,
                                    const tileRtArgValue *args, int *holds);
/// tileRtManifestEvalRule where the name `resident_blocks` has the value
/// `residentBlocks`: the blocks of the variant's kernel the device holds at
/// once (tileRtFunctionResidentBlocks), which a rule may compare with the
/// work a launch brings; a negative value leaves it unknown, and a rule
/// that names it then fails.
tileRtStatus tileRtManifestEvalRuleResident(const tileRtManifest *manifest,
                                            const char *rule,
                                            const tileRtArgValue *args,
                                            int64_t residentBlocks, int *holds);
/// Whether `rule` (non-null, a variant's rule) names `resident_blocks`.
int tileRtRuleUsesResidentBlocks(const char *rule);

/// Evaluates the grid of `manifest` for `args` (numParams entries; memref
/// sizes and integer scalars are read). A dimension may be 0 (nothing to
/// launch); negative or too large ones are errors.
tileRtStatus tileRtManifestEvalGrid(const tileRtManifest *manifest,
                                    const tileRtArgValue *args,
                                    unsigned grid[3]);
/// tileRtManifestEvalGrid where the name `resident_blocks` has the value
/// `residentBlocks` (tileRtFunctionResidentBlocks of the manifest's kernel);
/// a negative value leaves it unknown, and a grid that names it then fails.
tileRtStatus tileRtManifestEvalGridResident(const tileRtManifest *manifest,
                                            const tileRtArgValue *args,
                                            int64_t residentBlocks,
                                            unsigned grid[3]);
/// Whether the grid of `manifest` (non-null) names `resident_blocks`, the
/// blocks of its kernel the device holds at once (a persistent kernel).
int tileRtManifestUsesResidentBlocks(const tileRtManifest *manifest);

/// Kernel arguments laid out for the driver: `pointers[i]` points at the
/// i-th kernel argument's bytes inside `storage`. Owned by the struct;
/// release with tileRtPackedParamsFree.
typedef struct tileRtPackedParams {
  size_t count;
  void **pointers;
  /// Byte size of each argument, in kernel order.
  size_t *sizes;
  unsigned char *storage;
  /// Set by tileRtKernelPrepare: nonzero when the arguments are packed for
  /// a variant (a fallback, say) rather than the kernel's own manifest.
  int fallback;
  /// Set by tileRtKernelPrepare: the kernel (the prepared one or one of its
  /// variants, owned by it) that the arguments are packed for.
  struct tileRtKernel *target;
  /// The memrefs the manifest's `zero` directives name, as device ranges
  /// that each launch of these arguments zeroes first.
  int numZero;
  uint64_t zeroPtr[TILE_RT_MAX_PARAMS];
  size_t zeroBytes[TILE_RT_MAX_PARAMS];
  /// The memrefs each launch of these arguments copies into the target's
  /// workspace (`stage` directives whose maps cannot address the argument
  /// itself), by parameter index in the target's manifest; their tensor
  /// maps are encoded over the workspace at launch.
  int numStaged;
  int stagedParam[TILE_RT_MAX_STAGED];
  tileRtArgValue stagedArg[TILE_RT_MAX_STAGED];
} tileRtPackedParams;

/// Expands `args` into kernel arguments by the manifest's passing rules
/// (memref descriptors with row-major strides). Tensor map arguments need
/// the driver: they are encoded when `encodeTensorMaps` is nonzero, else
/// left zeroed. `*out` must be freed with tileRtPackedParamsFree, also on
/// failure.
tileRtStatus tileRtPackParams(const tileRtManifest *manifest,
                              const tileRtArgValue *args, int encodeTensorMaps,
                              tileRtPackedParams *out);

/// Frees what tileRtPackParams allocated; null-safe, leaves `*params` empty.
void tileRtPackedParamsFree(tileRtPackedParams *params);

/*===----------------------------------------------------------------------===*
 * The GPU driver: CUDA or HIP
 *===----------------------------------------------------------------------===*/

/// Makes `platform` the one the device calls use; switching releases the
/// current device (tileRtShutdown), so tileRtInit comes after. Memory,
/// modules and events of one platform must not be used with the other.
tileRtStatus tileRtSetPlatform(tileRtPlatform platform);
/// The platform the device calls use.
tileRtPlatform tileRtGetPlatform(void);
/// The platform that runs binaries of `kind` (HIP for HSACO).
tileRtPlatform tileRtBinaryPlatform(tileRtBinaryKind kind);

/// A device address.
typedef uint64_t tileRtDevicePtr;
/// A loaded module (PTX, cubin or HSACO); owned by the caller,
/// tileRtModuleUnload.
typedef struct tileRtModule tileRtModule;
/// A kernel of a module; owned by its module.
typedef struct tileRtFunction tileRtFunction;
/// A timing event; owned by the caller, tileRtEventDestroy.
typedef struct tileRtEvent tileRtEvent;

/// Loads the driver (libcuda.so.1, or the file named by the environment
/// variable TILE_RT_CUDA_DRIVER), initialises it and makes the primary
/// context of device `ordinal` current. Idempotent for the same ordinal.
/// TILE_RT_ERROR_NO_DRIVER / _NO_DEVICE when there is nothing to run on.
/// On the HIP platform: loads libamdhip64.so (or TILE_RT_HIP_RUNTIME) and
/// selects device `ordinal`.
tileRtStatus tileRtInit(int ordinal);

/// Releases the primary context. The driver library stays loaded.
void tileRtShutdown(void);

/// Loads and initialises the driver if needed and stores the number of
/// devices in `*count` (non-null); needs no tileRtInit.
tileRtStatus tileRtDeviceCount(int *count);

/// Writes the current device's name (NUL-terminated) into `buf` of `len`
/// bytes, and its compute capability into `*major`/`*minor` (each may be
/// null).
tileRtStatus tileRtDeviceInfo(char *buf, size_t len, int *major, int *minor);

/// Loads a module from the image at `data` (`size` bytes; PTX need not be
/// NUL-terminated). The image is copied; the caller keeps `data`.
tileRtStatus tileRtModuleLoadData(const void *data, size_t size,
                                  tileRtModule **out);
/// Reads the file at `path` and loads it as a module.
tileRtStatus tileRtModuleLoadFile(const char *path, tileRtModule **out);
/// Unloads `module` and its functions; null-safe.
void tileRtModuleUnload(tileRtModule *module);
/// Looks up kernel `name` in `module`; `*out` lives as long as `module`.
tileRtStatus tileRtModuleGetFunction(tileRtModule *module, const char *name,
                                     tileRtFunction **out);
/// Lets `function` use up to `bytes` of dynamic shared memory (needed
/// above 48 KiB).
tileRtStatus tileRtFunctionSetMaxDynamicSharedMemory(tileRtFunction *function,
                                                     unsigned bytes);
/// Lets `function` launch in clusters of more than 8 blocks (up to 16, the
/// "non-portable" sizes that sm_90 allows per kernel); a no-op on HIP,
/// which has no clusters.
tileRtStatus
tileRtFunctionAllowNonPortableClusterSize(tileRtFunction *function);
/// The blocks of `function`, launched with `blockThreads` threads and
/// `sharedBytes` of dynamic shared memory each, that the device holds at
/// once: those one multiprocessor (compute unit) runs together
/// (cuOccupancyMaxActiveBlocksPerMultiprocessor,
/// hipModuleOccupancyMaxActiveBlocksPerMultiprocessor) times the device's
/// multiprocessors. The value of `resident_blocks` in a persistent
/// kernel's grid. Fails where not even one block fits.
tileRtStatus tileRtFunctionResidentBlocks(tileRtFunction *function,
                                          unsigned blockThreads,
                                          unsigned sharedBytes, int64_t *out);

/// Launch geometry. A cluster of all ones (or zeros) launches without one.
typedef struct tileRtLaunchConfig {
  unsigned grid[3];
  unsigned block[3];
  unsigned cluster[3];
  unsigned sharedBytes;
} tileRtLaunchConfig;

/// Launches `function` on the default stream; `params` holds one pointer per
/// kernel argument (tileRtPackedParams::pointers). Asynchronous: errors of
/// the kernel itself show at the next synchronizing call.
tileRtStatus tileRtLaunch(tileRtFunction *function,
                          const tileRtLaunchConfig *config, void **params);
/// tileRtLaunch on `stream` (a CUstream; null is the default stream), as
/// language bindings launch on their framework's current stream.
tileRtStatus tileRtLaunchOnStream(tileRtFunction *function,
                                  const tileRtLaunchConfig *config,
                                  void **params, void *stream);
/// Waits for all work on the current context.
tileRtStatus tileRtSynchronize(void);

/// Allocates `bytes` (at least 1) of device memory into `*out`.
tileRtStatus tileRtMalloc(size_t bytes, tileRtDevicePtr *out);
/// Frees device memory; 0 is ignored.
tileRtStatus tileRtFree(tileRtDevicePtr ptr);
tileRtStatus tileRtMemcpyHtoD(tileRtDevicePtr dst, const void *src,
                              size_t bytes);
tileRtStatus tileRtMemcpyDtoH(void *dst, tileRtDevicePtr src, size_t bytes);
/// Sets `bytes` bytes at `dst` to `value`.
tileRtStatus tileRtMemset8(tileRtDevicePtr dst, unsigned char value,
                           size_t bytes);
/// Sets `bytes` bytes at `dst` to `value` in order on `stream` (a
/// CUstream or hipStream_t; null: the default stream).
tileRtStatus tileRtMemset8Async(tileRtDevicePtr dst, unsigned char value,
                                size_t bytes, void *stream);

tileRtStatus tileRtEventCreate(tileRtEvent **out);
/// Records `event` on the default stream.
tileRtStatus tileRtEventRecord(tileRtEvent *event);
tileRtStatus tileRtEventSynchronize(tileRtEvent *event);
/// Milliseconds between two recorded, completed events.
tileRtStatus tileRtEventElapsedMs(tileRtEvent *start, tileRtEvent *end,
                                  float *ms);
/// Destroys `event`; null-safe.
void tileRtEventDestroy(tileRtEvent *event);

/// Encodes a tiled TMA descriptor into the 128 bytes at `map` (64-byte
/// aligned) for a row-major `rank`-dimensional tensor of `dtype` at
/// `address` with `sizes` and boxes of `box` elements (both outermost
/// first); the last four arguments are the driver's enumerators.
tileRtStatus tileRtEncodeTensorMapTiled(void *map, tileRtDType dtype, int rank,
                                        tileRtDevicePtr address,
                                        const int64_t *sizes,
                                        const uint32_t *box, int interleave,
                                        int swizzle, int l2Promotion,
                                        int oobFill);

/*===----------------------------------------------------------------------===*
 * Kernels described by manifests
 *===----------------------------------------------------------------------===*/

/// A manifest's binary loaded and its kernel resolved; owned by the caller.
typedef struct tileRtKernel tileRtKernel;

/// Loads the binary of `manifest`, finds its kernel and raises its dynamic
/// shared memory limit when the manifest asks for more than 48 KiB. The
/// kernel keeps a copy of the manifest. The manifests its `variant` and
/// `fallback` directives name are loaded too, recursively (at most
/// TILE_RT_MAX_VARIANT_DEPTH deep), each with parameters compatible by
/// tileRtManifestCheckCompatible with the manifest that names it.
tileRtStatus tileRtKernelLoad(const tileRtManifest *manifest,
                              tileRtKernel **out);
/// tileRtManifestParseFile then tileRtKernelLoad: the one call a binding
/// needs. `path` and `out` must be non-null.
tileRtStatus tileRtKernelLoadFile(const char *path, tileRtKernel **out);
/// Reads `manifest` and its variants like tileRtKernelLoad but loads no
/// binary and needs no driver: such a kernel can choose a variant
/// (tileRtKernelSelect) and pack arguments (tensor maps left zeroed), not
/// launch. For dry runs and tests.
tileRtStatus tileRtKernelLoadHost(const tileRtManifest *manifest,
                                  tileRtKernel **out);
/// tileRtManifestParseFile then tileRtKernelLoadHost.
tileRtStatus tileRtKernelLoadFileHost(const char *path, tileRtKernel **out);
/// The manifest `kernel` (non-null) was loaded from; owned by the kernel.
const tileRtManifest *tileRtKernelGetManifest(const tileRtKernel *kernel);
/// Evaluates the grid of `kernel`'s own manifest for `args` (numParams
/// entries), `resident_blocks` included: tileRtKernelLoad computes it once
/// for a manifest whose grid names it; a kernel loaded without the device
/// (tileRtKernelLoadHost) does not know it, and such a grid fails.
tileRtStatus tileRtKernelEvalGrid(const tileRtKernel *kernel,
                                  const tileRtArgValue *args, unsigned grid[3]);
/// Chooses what `kernel` launches for `args` (numParams entries of its
/// manifest): its own kernel when the manifest has one and its tensor maps
/// can be encoded for `args` (or the grid is empty), else the first
/// variant, in order, whose rule holds, whose views the arguments allow
/// and which (recursively) fits. The choice goes to `*target` (owned by
/// `kernel`) and the arguments bound to its parameters, as the views show
/// them, to `targetArgs` (TILE_RT_MAX_PARAMS entries); both must be
/// non-null. `why` (null, or `whyLen` bytes) receives one line per variant
/// taken, saying why ("variant PATH: when RULE", "fallback PATH: REASON",
/// each followed by its views: ", view transpose A (8192x1 as 1x8192)"),
/// each preceded by a line per variant whose rule held but that did not
/// fit ("passed over variant PATH: REASON"); "" when the kernel itself was
/// chosen. When nothing fits, the error names every candidate and why it
/// was passed over.
tileRtStatus tileRtKernelSelect(tileRtKernel *kernel,
                                const tileRtArgValue *args,
                                tileRtKernel **target,
                                tileRtArgValue *targetArgs, char *why,
                                size_t whyLen);
/// Evaluates the grid, packs `args` (numParams entries) and launches.
/// Returns success without launching when the grid is empty. Reuses the
/// last launch's preparation as tileRtKernelLaunchOnStream says.
tileRtStatus tileRtKernelLaunch(tileRtKernel *kernel,
                                const tileRtArgValue *args);
/// Evaluates the grid into `*config` and packs `args` into `*packed` once,
/// for many launches with tileRtKernelLaunchPrepared; free `*packed` with
/// tileRtPackedParamsFree, also on failure. The kernel or variant
/// tileRtKernelSelect chooses is prepared: `packed->target` names it and
/// `packed->fallback` is set when it is a variant.
tileRtStatus tileRtKernelPrepare(tileRtKernel *kernel,
                                 const tileRtArgValue *args,
                                 tileRtLaunchConfig *config,
                                 tileRtPackedParams *packed);
/// Launches with what tileRtKernelPrepare produced; success without a
/// launch when the grid is empty.
tileRtStatus tileRtKernelLaunchPrepared(tileRtKernel *kernel,
                                        const tileRtLaunchConfig *config,
                                        tileRtPackedParams *packed);
/// tileRtKernelLaunchPrepared on `stream` (a CUstream, null for the
/// default stream).
tileRtStatus
tileRtKernelLaunchPreparedOnStream(tileRtKernel *kernel,
                                   const tileRtLaunchConfig *config,
                                   tileRtPackedParams *packed, void *stream);
/// tileRtKernelLaunch on `stream` (a CUstream, null for the default
/// stream): choose, pack and launch in one call, for bindings. Both keep
/// what they chose, packed and encoded (tensor maps) for the kernel's last
/// successful preparation and reuse it while the arguments give every
/// parameter the same value as then (memref pointers and sizes, scalars by
/// their bits), so repeated launches on the same buffers cost about what
/// tileRtKernelLaunchPrepared does; any change prepares again, with every
/// check, and a failed preparation keeps nothing. The kept preparation is
/// guarded: a launch that finds another thread using it prepares its own
/// arguments instead (the driver's one-thread rule above still holds).
tileRtStatus tileRtKernelLaunchOnStream(tileRtKernel *kernel,
                                        const tileRtArgValue *args,
                                        void *stream);
/// Unloads the kernel's module and its variants' and frees them; null-safe.
void tileRtKernelDestroy(tileRtKernel *kernel);

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_RUNTIME_H */
