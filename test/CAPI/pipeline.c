// ===- pipeline.c - C API: run pass pipelines and the resource check ------===//
//
// Runs a textual pipeline (canonicalize + tile-check-resources) on a parsed
// kernel, builds the same check with the pass manager API, calls the
// resource computation directly, and checks that bad input (a pipeline that
// does not parse, a bad option, an unknown chip, an anchor that does not
// match, a module that does not parse or does not verify) gives failure and
// a diagnostic rather than a crash.
//
// ===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-pipeline 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"
#include "tile-c/Transforms.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Transforms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

// A GEMM kernel (as in examples/gemm.mlir) that also zeroes a local buffer
// with `tile.fill`, which canonicalize rewrites into `tile.clear`. The
// buffer is not used after that, so the kernel's registers are the
// accumulator's 128 per thread, not 136.
static const char *const kModule =
    "func.func @matmul(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,\n"
    "                  %C: memref<1024x1024xf16>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %c32 = arith.constant 32 : index\n"
    "  %c128 = arith.constant 128 : index\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {\n"
    "    %As = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>\n"
    "    %Bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>\n"
    "    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>\n"
    "    %L = tile.alloc : memref<8xf32, #gpu.address_space<private>>\n"
    "    tile.fill %L, %zero : memref<8xf32, #gpu.address_space<private>>\n"
    "    tile.clear %Cf : memref<128x128xf32, #tile.fragment>\n"
    "    %m = arith.muli %by, %c128 : index\n"
    "    %n = arith.muli %bx, %c128 : index\n"
    "    tile.pipelined %k = %c0 to %c32 step %c1 stages(3) {\n"
    "      %kk = arith.muli %k, %c32 : index\n"
    "      tile.copy %A[%m, %kk] -> %As\n"
    "          : memref<1024x1024xf16> -> memref<128x32xf16, "
    "#gpu.address_space<workgroup>>\n"
    "      tile.copy %B[%kk, %n] -> %Bs\n"
    "          : memref<1024x1024xf16> -> memref<32x128xf16, "
    "#gpu.address_space<workgroup>>\n"
    "      tile.gemm %As, %Bs -> %Cf\n"
    "          : memref<128x32xf16, #gpu.address_space<workgroup>>,\n"
    "            memref<32x128xf16, #gpu.address_space<workgroup>>\n"
    "         -> memref<128x128xf32, #tile.fragment>\n"
    "    }\n"
    "    tile.copy %Cf -> %C[%m, %n]\n"
    "        : memref<128x128xf32, #tile.fragment> -> memref<1024x1024xf16>\n"
    "  }\n"
    "  return\n"
    "}\n";

// One kernel whose shared buffers need 256 KiB, more than any chip has.
static const char *const kTooBig =
    "func.func @big(%n: index) {\n"
    "  tile.kernel blocks(%bx) in (%n) threads(128) {\n"
    "    %a = tile.alloc : memref<256x256xf32, #gpu.address_space<workgroup>>\n"
    "  }\n"
    "  return\n"
    "}\n";

// / Prints each diagnostic as `<severity> at <location>: <message>`.
static MlirLogicalResult printLocatedDiagnostic(MlirDiagnostic diagnostic,
                                                void *userData) {
  (void)userData;
  static const char *const kSeverity[] = {"error", "warning", "note", "remark"};
  fprintf(stderr, "%s at ", kSeverity[mlirDiagnosticGetSeverity(diagnostic)]);
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToStderr, NULL);
  fprintf(stderr, ": ");
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

// / Collects the text of a pipeline parse error, which may arrive in pieces.
static void printPipelineError(MlirStringRef text, void *userData) {
  int *calls = (int *)userData;
  if ((*calls)++ == 0)
    fprintf(stderr, "pipeline error: ");
  fwrite(text.data, 1, text.length, stderr);
}

static const char *result(MlirLogicalResult res) {
  return mlirLogicalResultIsSuccess(res) ? "success" : "failure";
}

// / Runs `pipeline` on `op`, printing the parse errors and the result.
static MlirLogicalResult run(MlirOperation op, const char *pipeline) {
  int calls = 0;
  MlirLogicalResult res = mlirTileRunPassPipeline(
      op, mlirStringRefCreateFromCString(pipeline), printPipelineError, &calls);
  if (calls)
    fprintf(stderr, "\n");
  fprintf(stderr, "%s: %s\n", pipeline, result(res));
  return res;
}

static MlirModule parse(MlirContext ctx, const char *source) {
  return mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
}

// / Returns the first `tile.kernel` nested in `op`, or a null operation.
static MlirWalkResult findKernel(MlirOperation op, void *userData) {
  if (!mlirTileIsAKernelOp(op))
    return MlirWalkResultAdvance;
  *(MlirOperation *)userData = op;
  return MlirWalkResultInterrupt;
}

static MlirOperation getKernel(MlirModule module) {
  MlirOperation kernel = {NULL};
  mlirOperationWalk(mlirModuleGetOperation(module), findKernel, &kernel,
                    MlirWalkPreOrder);
  return kernel;
}

static void testPipeline(MlirContext ctx) {
  fprintf(stderr, "@pipeline\n");
  // CHECK-LABEL: @pipeline
  MlirModule module = parse(ctx, kModule);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  run(moduleOp, "builtin.module(canonicalize, "
                "tile-check-resources{chip=sm_80 remarks=true})");
  // CHECK-NEXT: remark at loc("-":9:3): shared memory 49152 bytes of 166912, fragment and local registers >= 128 per thread of 255
  // CHECK-NEXT: builtin.module(canonicalize, tile-check-resources{chip=sm_80 remarks=true}): success
  mlirOperationPrint(moduleOp, printToStderr, NULL);
  fprintf(stderr, "\n");
  // The fill of zero became a clear.
  // CHECK-NOT: tile.fill
  // CHECK: tile.clear %{{.*}} : memref<8xf32, #gpu.address_space<private>>
  // CHECK-NEXT: tile.clear %{{.*}} : memref<128x128xf32, #tile.fragment>
  // CHECK-NOT: tile.fill
  // CHECK: tile.gemm
  mlirModuleDestroy(module);
}

static void testPassManager(MlirContext ctx) {
  fprintf(stderr, "@pass_manager\n");
  // CHECK-LABEL: @pass_manager
  MlirModule module = parse(ctx, kModule);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(
      pm, mlirTileCreateCheckResourcesPass(
              mlirStringRefCreateFromCString("gfx942"), true));
  MlirLogicalResult res =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  fprintf(stderr, "pass manager: %s\n", result(res));
  // CHECK-NEXT: remark at loc("-":9:3): shared memory 49152 bytes of 65536, fragment and local registers >= 128 per thread of 512
  // CHECK-NEXT: pass manager: success
  mlirPassManagerDestroy(pm);

  // An unknown chip is reported when the pass runs, at the kernel.
  pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(
      pm, mlirTileCreateCheckResourcesPass(
              mlirStringRefCreateFromCString("sm_12"), false));
  res = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  fprintf(stderr, "unknown chip: %s\n", result(res));
  // CHECK-NEXT: error at loc("-":9:3): unknown chip 'sm_12'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
  // CHECK-NEXT: unknown chip: failure
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

static void testResources(MlirContext ctx) {
  fprintf(stderr, "@resources\n");
  // CHECK-LABEL: @resources
  int64_t shared = -1, registers = -1;
  bool known = mlirTileGetChipLimits(mlirStringRefCreateFromCString("sm_80"),
                                     &shared, &registers);
  fprintf(stderr, "sm_80: known=%d shared=%" PRId64 " registers=%" PRId64 "\n",
          known, shared, registers);
  // CHECK-NEXT: sm_80: known=1 shared=166912 registers=255
  shared = registers = -1;
  known = mlirTileGetChipLimits(mlirStringRefCreateFromCString("sm_12"),
                                &shared, &registers);
  fprintf(stderr, "sm_12: known=%d shared=%" PRId64 " registers=%" PRId64 "\n",
          known, shared, registers);
  // CHECK-NEXT: sm_12: known=0 shared=-1 registers=-1

  MlirModule module = parse(ctx, kModule);
  MlirOperation kernel = getKernel(module);
  MlirLogicalResult res =
      mlirTileKernelOpGetResources(kernel, &shared, &registers);
  fprintf(stderr, "gemm kernel: %s shared=%" PRId64 " registers=%" PRId64 "\n",
          result(res), shared, registers);
  // CHECK-NEXT: gemm kernel: success shared=49152 registers=128
  res =
      mlirTileKernelOpGetResources(mlirModuleGetOperation(module), NULL, NULL);
  fprintf(stderr, "module: %s\n", result(res));
  // CHECK-NEXT: module: failure
  res = mlirTileKernelOpCheckResources(
      kernel, mlirStringRefCreateFromCString("sm_80"), false);
  fprintf(stderr, "gemm on sm_80: %s\n", result(res));
  // CHECK-NEXT: gemm on sm_80: success
  res = mlirTileKernelOpCheckResources(
      kernel, mlirStringRefCreateFromCString("h100"), false);
  fprintf(stderr, "gemm on h100: %s\n", result(res));
  // CHECK-NEXT: error at loc("-":9:3): unknown chip 'h100'
  // CHECK-NEXT: gemm on h100: failure
  mlirModuleDestroy(module);

  module = parse(ctx, kTooBig);
  res = mlirTileKernelOpCheckResources(
      getKernel(module), mlirStringRefCreateFromCString("sm_90a"), false);
  fprintf(stderr, "big kernel on sm_90a: %s\n", result(res));
  // CHECK-NEXT: error at loc("-":2:3): kernel needs 262144 bytes of shared memory, more than the 232448 a block may use
  // CHECK-NEXT: big kernel on sm_90a: failure
  mlirModuleDestroy(module);
}

static void testBadPipelines(MlirContext ctx) {
  fprintf(stderr, "@bad_pipelines\n");
  // CHECK-LABEL: @bad_pipelines
  MlirModule module = parse(ctx, kModule);
  MlirOperation moduleOp = mlirModuleGetOperation(module);

  run(moduleOp, "builtin.module(no-such-pass)");
  // CHECK-NEXT: pipeline error: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
  // CHECK: builtin.module(no-such-pass): failure

  run(moduleOp, "builtin.module(tile-check-resources{chip=sm_80 bogus=1})");
  // CHECK-NEXT: pipeline error: {{.*}}bogus
  // CHECK: builtin.module(tile-check-resources{chip=sm_80 bogus=1}): failure

  run(moduleOp, "builtin.module(canonicalize");
  // CHECK-NEXT: pipeline error:
  // CHECK: builtin.module(canonicalize: failure

  run(moduleOp, "builtin.module(tile-check-resources{chip=sm_12})");
  // CHECK-NEXT: error at loc("-":9:3): unknown chip 'sm_12'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942
  // CHECK-NEXT: builtin.module(tile-check-resources{chip=sm_12}): failure

  run(moduleOp, "func.func(canonicalize)");
  // CHECK-NEXT: error at loc("-":0:0): can't run 'func.func' pass manager on 'builtin.module' op
  // CHECK-NEXT: func.func(canonicalize): failure

  // A null operation fails without calling back.
  MlirOperation nullOp = {NULL};
  run(nullOp, "builtin.module(canonicalize)");
  // CHECK-NEXT: builtin.module(canonicalize): failure

  // The failed runs left the module as it was.
  fprintf(stderr, "still verifies: %d\n", mlirOperationVerify(moduleOp));
  // CHECK-NEXT: still verifies: 1
  mlirModuleDestroy(module);
}

static void testBadModules(MlirContext ctx) {
  fprintf(stderr, "@bad_modules\n");
  // CHECK-LABEL: @bad_modules
  MlirModule module = parse(ctx, "func.func @f() {\n  tile.kernel blocks(\n");
  fprintf(stderr, "syntax error gives null module: %d\n",
          mlirModuleIsNull(module));
  // CHECK-NEXT: error at loc("-":2:22): expected SSA operand
  // CHECK-NEXT: syntax error gives null module: 1

  module = parse(ctx, "func.func @f() {\n"
                      "  %a = tile.alloc : memref<4xf32, #tile.fragment>\n"
                      "  return\n"
                      "}\n");
  fprintf(stderr, "invalid module gives null module: %d\n",
          mlirModuleIsNull(module));
  // CHECK-NEXT: error at loc("-":2:8): 'tile.alloc' op expected to be nested in a 'tile.kernel'
  // CHECK-NEXT: invalid module gives null module: 1

  // IR broken after parsing: move the gemm kernel's `tile.clear` in front of
  // the kernel, out of it and before the buffer it clears.
  module = parse(ctx, kModule);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirOperation kernel = getKernel(module);
  MlirOperation op =
      mlirBlockGetFirstOperation(mlirTileKernelOpGetBody(kernel));
  while (!mlirOperationIsNull(op) && !mlirTileIsAClearOp(op))
    op = mlirOperationGetNextInBlock(op);
  mlirOperationMoveBefore(op, kernel);
  fprintf(stderr, "verifies: %d\n", mlirOperationVerify(moduleOp));
  // CHECK-NEXT: error at loc("-":15:5): 'tile.clear' op expected to be nested in a 'tile.kernel'
  // CHECK-NEXT: verifies: 0
  run(moduleOp, "builtin.module(canonicalize)");
  // CHECK-NEXT: error at loc("-":15:5): 'tile.clear' op expected to be nested in a 'tile.kernel'
  // CHECK-NEXT: builtin.module(canonicalize): failure
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printLocatedDiagnostic, NULL, NULL);
  mlirRegisterTransformsPasses();
  mlirTileRegisterPasses();
  // Registering twice is harmless.
  mlirTileRegisterPasses();

  testPipeline(ctx);
  testPassManager(ctx);
  testResources(ctx);
  testBadPipelines(ctx);
  testBadModules(ctx);
  mlirContextDestroy(ctx);
  fprintf(stderr, "@done\n");
  // CHECK-LABEL: @done
  return 0;
}
