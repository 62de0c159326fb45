// ===- ir.c - C API: register, parse, print and query tile IR -------------===//
//
// Creates a context with the tile dialect and the upstream dialects of a
// kernel, parses a module holding the GEMM of examples/gemm.mlir and a second
// kernel that uses the other tile operators, verifies and prints it, walks it
// querying every tile operation, builds the tile attributes, and checks that
// null and wrong-kind handles give the documented answers.
//
// ===----------------------------------------------------------------------===//

// RUN: %tile_obj/test/CAPI/capi-ir 2>&1 | FileCheck %s

#include "Common.h"
#include "tile-c/Dialect/Tile.h"
#include "tile-c/Registration.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kModule =
    // The GEMM of examples/gemm.mlir.
    "func.func @matmul(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,\n"
    "                  %C: memref<1024x1024xf16>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %c32 = arith.constant 32 : index\n"
    "  %c128 = arith.constant 128 : index\n"
    "  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {\n"
    "    %As = tile.alloc : memref<128x32xf16, #gpu.address_space<workgroup>>\n"
    "    %Bs = tile.alloc : memref<32x128xf16, #gpu.address_space<workgroup>>\n"
    "    %Cf = tile.alloc : memref<128x128xf32, #tile.fragment>\n"
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
    "}\n"
    // Every other operator and clause, so each query sees a non-default
    // value.
    "func.func @rowmax(%X: memref<?x64xf32>, %Y: memref<?xf32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c4 = arith.constant 4 : index\n"
    "  %c64 = arith.constant 64 : index\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  tile.kernel blocks(%bx, %by) in (%n, %c1) threads(256)\n"
    "      rasterize(panel = 4, order = column)\n"
    "      persistent(chunk = 2, blocks = prime)\n"
    "      cluster(2, 1, 1) {\n"
    "    %Xs = tile.alloc {layout = #tile.layout<(d0, d1) -> (d0 * 72 + d1)>}\n"
    "        : memref<64x64xf32, #gpu.address_space<workgroup>>\n"
    "    %Xf = tile.alloc : memref<64x64xf32, #tile.fragment>\n"
    "    %Mf = tile.alloc : memref<64xf32, #tile.fragment>\n"
    "    %L = tile.alloc : memref<4xf32, #gpu.address_space<private>>\n"
    "    tile.fill %L, %zero : memref<4xf32, #gpu.address_space<private>>\n"
    "    %r = arith.muli %bx, %c64 : index\n"
    "    tile.pipelined %k = %c0 to %c4 step %c1 stages(2)\n"
    "        order [1, 0] stage [0, 1] {\n"
    "      tile.copy %X[%r, %c0] -> %Xs {coalesced_width = 4, disable_tma}\n"
    "          : memref<?x64xf32> -> memref<64x64xf32, "
    "#gpu.address_space<workgroup>>\n"
    "      tile.gemm %Xs, %Xs -> %Xf transpose_b clear_accum policy(full_row)\n"
    "          : memref<64x64xf32, #gpu.address_space<workgroup>>,\n"
    "            memref<64x64xf32, #gpu.address_space<workgroup>>\n"
    "         -> memref<64x64xf32, #tile.fragment>\n"
    "    }\n"
    "    tile.cumsum %Xs -> %Xs dim(1) reverse\n"
    "        : memref<64x64xf32, #gpu.address_space<workgroup>>\n"
    "       -> memref<64x64xf32, #gpu.address_space<workgroup>>\n"
    "    tile.parallel (%i, %j) in (64, 32) layout(#tile.fragment<threads = "
    "256,\n"
    "        map = (d0, d1) -> (d0 * 4 + d1 floordiv 8, d1 mod 8), "
    "replicate = 2>) {\n"
    "      %v = memref.load %Xf[%i, %j] : memref<64x64xf32, #tile.fragment>\n"
    "      %w = arith.mulf %v, %v : f32\n"
    "      memref.store %w, %Xf[%i, %j] : memref<64x64xf32, #tile.fragment>\n"
    "    }\n"
    "    tile.reduce absmax %Xf -> %Mf dim(1) {clear = false}\n"
    "        : memref<64x64xf32, #tile.fragment> -> memref<64xf32, "
    "#tile.fragment>\n"
    "    tile.atomic max %Mf -> %Y[%r]\n"
    "        : memref<64xf32, #tile.fragment> -> memref<?xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char *spaceName(MlirTileMemorySpace space) {
  return mlirTileMemorySpaceGetName(space).data;
}

static MlirTileMemorySpace valueSpace(MlirValue value) {
  return mlirTileMemRefGetMemorySpaceKind(mlirValueGetType(value));
}

static void printAttr(const char *label, MlirAttribute attr) {
  fprintf(stderr, "%s", label);
  if (mlirAttributeIsNull(attr))
    fprintf(stderr, "<null>");
  else
    mlirAttributePrint(attr, printToStderr, NULL);
  fprintf(stderr, "\n");
}

// / Returns the name of the operation defining `value`, or "<block arg>".
static const char *definingOpName(MlirValue value, char *buffer, size_t size) {
  if (mlirValueIsABlockArgument(value))
    return "<block arg>";
  MlirIdentifier name = mlirOperationGetName(mlirOpResultGetOwner(value));
  MlirStringRef ref = mlirIdentifierStr(name);
  snprintf(buffer, size, "%.*s", (int)ref.length, ref.data);
  return buffer;
}

static MlirWalkResult describeOp(MlirOperation op, void *userData) {
  int *numKernels = (int *)userData;
  char buffer[64];
  if (mlirTileIsAKernelOp(op)) {
    ++*numKernels;
    fprintf(stderr,
            "kernel threads=%" PRId64 " grid_dims=%" PRIdPTR " panel=%" PRId64
            " order=%d chunk=%" PRId64 " blocks=%d cluster_dims=%" PRIdPTR "\n",
            mlirTileKernelOpGetThreads(op), mlirTileKernelOpGetNumGridDims(op),
            mlirTileKernelOpGetRasterizePanel(op),
            (int)mlirTileKernelOpGetRasterizeOrder(op),
            mlirTileKernelOpGetPersistentChunk(op),
            (int)mlirTileKernelOpGetPersistentBlocks(op),
            mlirTileKernelOpGetNumClusterDims(op));
    for (intptr_t i = 0; i < mlirTileKernelOpGetNumGridDims(op); ++i) {
      MlirValue size = mlirTileKernelOpGetGridSize(op, i);
      MlirValue id = mlirTileKernelOpGetBlockId(op, i);
      fprintf(stderr, "  grid[%" PRIdPTR "] size from %s, block id is arg %d\n",
              i, definingOpName(size, buffer, sizeof(buffer)),
              mlirValueIsABlockArgument(id)
                  ? (int)mlirBlockArgumentGetArgNumber(id)
                  : -1);
    }
    for (intptr_t i = 0; i < mlirTileKernelOpGetNumClusterDims(op); ++i)
      fprintf(stderr, "  cluster[%" PRIdPTR "] = %" PRId64 "\n", i,
              mlirTileKernelOpGetClusterDim(op, i));
    MlirBlock body = mlirTileKernelOpGetBody(op);
    fprintf(stderr, "  body args=%" PRIdPTR "\n",
            mlirBlockGetNumArguments(body));
  } else if (mlirTileIsAAllocOp(op)) {
    fprintf(stderr, "alloc space=%s\n",
            spaceName(mlirTileAllocOpGetMemorySpaceKind(op)));
    MlirAttribute layout = mlirTileAllocOpGetLayout(op);
    if (!mlirAttributeIsNull(layout)) {
      printAttr("  layout ", layout);
      fprintf(stderr, "  is tile layout=%d\n",
              mlirAttributeIsATileLayout(layout));
    }
  } else if (mlirTileIsAClearOp(op)) {
    fprintf(stderr, "clear space=%s\n",
            spaceName(valueSpace(mlirOperationGetOperand(op, 0))));
  } else if (mlirTileIsAFillOp(op)) {
    fprintf(stderr, "fill space=%s\n",
            spaceName(valueSpace(mlirOperationGetOperand(op, 0))));
  } else if (mlirTileIsACopyOp(op)) {
    fprintf(
        stderr, "copy %s -> %s coalesced_width=%" PRId64 " disable_tma=%d\n",
        spaceName(valueSpace(mlirTileCopyOpGetSource(op))),
        spaceName(valueSpace(mlirTileCopyOpGetDest(op))),
        mlirTileCopyOpGetCoalescedWidth(op), mlirTileCopyOpGetDisableTma(op));
  } else if (mlirTileIsAGemmOp(op)) {
    fprintf(stderr,
            "gemm %s x %s -> %s transpose_a=%d transpose_b=%d "
            "clear_accum=%d policy=%s\n",
            spaceName(valueSpace(mlirTileGemmOpGetA(op))),
            spaceName(valueSpace(mlirTileGemmOpGetB(op))),
            spaceName(valueSpace(mlirTileGemmOpGetC(op))),
            mlirTileGemmOpGetTransposeA(op), mlirTileGemmOpGetTransposeB(op),
            mlirTileGemmOpGetClearAccum(op),
            mlirTileGemmPolicyGetName(mlirTileGemmOpGetPolicy(op)).data);
  } else if (mlirTileIsAReduceOp(op)) {
    fprintf(stderr, "reduce kind=%s dim=%" PRId64 " clear=%d\n",
            mlirTileReduceKindGetName(mlirTileReduceOpGetKind(op)).data,
            mlirTileReduceOpGetDim(op), mlirTileReduceOpGetClear(op));
  } else if (mlirTileIsACumsumOp(op)) {
    fprintf(stderr, "cumsum dim=%" PRId64 " reverse=%d\n",
            mlirTileCumsumOpGetDim(op), mlirTileCumsumOpGetReverse(op));
  } else if (mlirTileIsAAtomicOp(op)) {
    fprintf(stderr, "atomic kind=%s\n",
            mlirTileAtomicKindGetName(mlirTileAtomicOpGetKind(op)).data);
  } else if (mlirTileIsAParallelOp(op)) {
    fprintf(stderr, "parallel dims=%" PRIdPTR,
            mlirTileParallelOpGetNumDims(op));
    for (intptr_t i = 0; i < mlirTileParallelOpGetNumDims(op); ++i)
      fprintf(stderr, " %" PRId64, mlirTileParallelOpGetExtent(op, i));
    MlirAttribute layout = mlirTileParallelOpGetLayout(op);
    fprintf(stderr, " layout threads=%" PRId64 " replicate=%" PRId64 "\n",
            mlirTileFragmentAttrGetThreads(layout),
            mlirTileFragmentAttrGetReplicate(layout));
  } else if (mlirTileIsAPipelinedOp(op)) {
    fprintf(stderr,
            "pipelined stages=%" PRId64 " lb from %s, iv is arg %d, "
            "schedule=%d",
            mlirTilePipelinedOpGetStages(op),
            definingOpName(mlirTilePipelinedOpGetLowerBound(op), buffer,
                           sizeof(buffer)),
            (int)mlirBlockArgumentGetArgNumber(
                mlirTilePipelinedOpGetInductionVar(op)),
            mlirTilePipelinedOpHasSchedule(op));
    for (intptr_t i = 0; i < mlirTilePipelinedOpGetNumScheduleEntries(op); ++i)
      fprintf(stderr, " (order %" PRId64 ", stage %" PRId64 ")",
              mlirTilePipelinedOpGetOrder(op, i),
              mlirTilePipelinedOpGetStage(op, i));
    fprintf(stderr, "\n");
  }
  return MlirWalkResultAdvance;
}

static MlirContext createContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirTileRegisterKernelDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  return ctx;
}

static void testRegistration(void) {
  fprintf(stderr, "@registration\n");
  MlirDialectHandle handle = mlirGetDialectHandle__tile__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  fprintf(stderr, "handle namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK-LABEL: @registration
  // CHECK: handle namespace: tile

  // The handle alone gives a context that knows tile and its dependencies.
  MlirContext bare = mlirContextCreate();
  MlirDialect tile = mlirDialectHandleLoadDialect(handle, bare);
  MlirStringRef loaded = mlirDialectGetNamespace(tile);
  fprintf(stderr, "loaded: %.*s, nvvm registered: %d\n", (int)loaded.length,
          loaded.data,
          mlirContextIsRegisteredOperation(
              bare, mlirStringRefCreateFromCString("nvvm.barrier0")));
  mlirContextDestroy(bare);
  // CHECK: loaded: tile, nvvm registered: 0

  // The kernel registration adds every dialect a kernel uses.
  MlirContext ctx = mlirContextCreate();
  mlirTileContextRegisterKernelDialects(ctx);
  const char *const names[] = {"tile", "func",   "arith",  "math", "memref",
                               "scf",  "cf",     "vector", "gpu",  "nvgpu",
                               "nvvm", "amdgpu", "rocdl",  "llvm"};
  fprintf(stderr, "loadable:");
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    MlirDialect dialect = mlirContextGetOrLoadDialect(
        ctx, mlirStringRefCreateFromCString(names[i]));
    fprintf(stderr, " %s=%d", names[i], !mlirDialectIsNull(dialect));
  }
  fprintf(stderr, "\n");
  mlirContextDestroy(ctx);
  // CHECK: loadable: tile=1 func=1 arith=1 math=1 memref=1 scf=1 cf=1
  // CHECK-SAME: vector=1 gpu=1 nvgpu=1 nvvm=1 amdgpu=1 rocdl=1 llvm=1
}

static void testParseVerifyPrintWalk(MlirContext ctx) {
  fprintf(stderr, "@parse\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    exit(1);
  }
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  fprintf(stderr, "verified: %d\n", mlirOperationVerify(moduleOp));
  // CHECK-LABEL: @parse
  // CHECK: verified: 1

  mlirOperationPrint(moduleOp, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: func.func @matmul
  // CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads(128) {
  // CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages(3) {
  // CHECK: tile.gemm
  // CHECK: func.func @rowmax
  // CHECK: rasterize(panel = 4, order = column) persistent(chunk = 2, blocks = prime) cluster(2, 1, 1)

  int numKernels = 0;
  mlirOperationWalk(moduleOp, describeOp, &numKernels, MlirWalkPreOrder);
  fprintf(stderr, "kernels: %d\n", numKernels);
  // CHECK:      kernel threads=128 grid_dims=2 panel=0 order=-1 chunk=0 blocks=-1 cluster_dims=0
  // CHECK-NEXT:   grid[0] size from arith.constant, block id is arg 0
  // CHECK-NEXT:   grid[1] size from arith.constant, block id is arg 1
  // CHECK-NEXT:   body args=2
  // CHECK-NEXT: alloc space=shared
  // CHECK-NEXT: alloc space=shared
  // CHECK-NEXT: alloc space=fragment
  // CHECK-NEXT: clear space=fragment
  // CHECK-NEXT: pipelined stages=3 lb from arith.constant, iv is arg 0, schedule=0
  // CHECK-NEXT: copy global -> shared coalesced_width=0 disable_tma=0
  // CHECK-NEXT: copy global -> shared coalesced_width=0 disable_tma=0
  // CHECK-NEXT: gemm shared x shared -> fragment transpose_a=0 transpose_b=0 clear_accum=0 policy=square
  // CHECK-NEXT: copy fragment -> global coalesced_width=0 disable_tma=0

  // CHECK-NEXT: kernel threads=256 grid_dims=2 panel=4 order=1 chunk=2 blocks=1 cluster_dims=3
  // CHECK-NEXT:   grid[0] size from <block arg>, block id is arg 0
  // CHECK-NEXT:   grid[1] size from arith.constant, block id is arg 1
  // CHECK-NEXT:   cluster[0] = 2
  // CHECK-NEXT:   cluster[1] = 1
  // CHECK-NEXT:   cluster[2] = 1
  // CHECK-NEXT:   body args=2
  // CHECK-NEXT: alloc space=shared
  // CHECK-NEXT:   layout #tile.layout<(d0, d1) -> (d0 * 72 + d1)>
  // CHECK-NEXT:   is tile layout=1
  // CHECK-NEXT: alloc space=fragment
  // CHECK-NEXT: alloc space=fragment
  // CHECK-NEXT: alloc space=local
  // CHECK-NEXT: fill space=local
  // CHECK-NEXT: pipelined stages=2 lb from arith.constant, iv is arg 0, schedule=1 (order 1, stage 0) (order 0, stage 1)
  // CHECK-NEXT: copy global -> shared coalesced_width=4 disable_tma=1
  // CHECK-NEXT: gemm shared x shared -> fragment transpose_a=0 transpose_b=1 clear_accum=1 policy=full_row
  // CHECK-NEXT: cumsum dim=1 reverse=1
  // CHECK-NEXT: parallel dims=2 64 32 layout threads=256 replicate=2
  // CHECK-NEXT: reduce kind=absmax dim=1 clear=0
  // CHECK-NEXT: atomic kind=max
  // CHECK-NEXT: kernels: 2

  mlirModuleDestroy(module);
}

static void testAttributes(MlirContext ctx) {
  fprintf(stderr, "@attributes\n");
  // CHECK-LABEL: @attributes
  MlirAttribute space = mlirTileFragmentAttrGet(ctx);
  printAttr("memory space: ", space);
  fprintf(stderr,
          "is fragment=%d is memory space=%d threads=%" PRId64
          " replicate=%" PRId64 " map null=%d same typeid=%d\n",
          mlirAttributeIsATileFragment(space),
          mlirTileFragmentAttrIsMemorySpace(space),
          mlirTileFragmentAttrGetThreads(space),
          mlirTileFragmentAttrGetReplicate(space),
          mlirAffineMapIsNull(mlirTileFragmentAttrGetMap(space)),
          mlirTypeIDEqual(mlirAttributeGetTypeID(space),
                          mlirTileFragmentAttrGetTypeID()));
  // CHECK: memory space: #tile.fragment
  // CHECK-NEXT: is fragment=1 is memory space=1 threads=0 replicate=1 map null=1 same typeid=1

  // Memref types in each memory space.
  MlirType f32 = mlirF32TypeGet(ctx);
  int64_t shape[] = {64, 64};
  MlirAttribute spaces[] = {
      mlirAttributeGetNull(),
      mlirAttributeParseGet(
          ctx, mlirStringRefCreateFromCString("#gpu.address_space<workgroup>")),
      space,
      mlirAttributeParseGet(
          ctx, mlirStringRefCreateFromCString("#gpu.address_space<private>")),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 3),
  };
  fprintf(stderr, "spaces:");
  for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); ++i) {
    MlirType type = mlirMemRefTypeContiguousGet(f32, 2, shape, spaces[i]);
    MlirTileMemorySpace kind = mlirTileMemRefGetMemorySpaceKind(type);
    fprintf(stderr, " %s(on chip %d)", spaceName(kind),
            mlirTileMemorySpaceIsOnChip(kind));
  }
  fprintf(stderr, "\n");
  // CHECK-NEXT: spaces: global(on chip 0) shared(on chip 1) fragment(on chip 1) local(on chip 1) unsupported(on chip 0)

  // A fragment layout and a shared-memory layout built from affine maps.
  MlirAffineMap fragmentMap = mlirAffineMapAttrGetValue(mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "affine_map<(d0, d1) -> (d0 floordiv 2, d1)>")));
  MlirAttribute fragment =
      mlirTileFragmentLayoutAttrGet(ctx, 128, fragmentMap, 2);
  printAttr("fragment layout: ", fragment);
  fprintf(
      stderr,
      "is memory space=%d threads=%" PRId64 " replicate=%" PRId64
      " same map=%d\n",
      mlirTileFragmentAttrIsMemorySpace(fragment),
      mlirTileFragmentAttrGetThreads(fragment),
      mlirTileFragmentAttrGetReplicate(fragment),
      mlirAffineMapEqual(mlirTileFragmentAttrGetMap(fragment), fragmentMap));
  // CHECK-NEXT: fragment layout: #tile.fragment<threads = 128, map = (d0, d1) -> (d0 floordiv 2, d1), replicate = 2>
  // CHECK-NEXT: is memory space=0 threads=128 replicate=2 same map=1

  MlirAffineMap offsetMap = mlirAffineMapAttrGetValue(mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "affine_map<(d0, d1) -> (d0 * 40 + d1)>")));
  MlirAttribute layout = mlirTileLayoutAttrGet(ctx, offsetMap);
  printAttr("layout: ", layout);
  fprintf(stderr, "is layout=%d is fragment=%d same map=%d same typeid=%d\n",
          mlirAttributeIsATileLayout(layout),
          mlirAttributeIsATileFragment(layout),
          mlirAffineMapEqual(mlirTileLayoutAttrGetMap(layout), offsetMap),
          mlirTypeIDEqual(mlirAttributeGetTypeID(layout),
                          mlirTileLayoutAttrGetTypeID()));
  // CHECK-NEXT: layout: #tile.layout<(d0, d1) -> (d0 * 40 + d1)>
  // CHECK-NEXT: is layout=1 is fragment=0 same map=1 same typeid=1

  // Invalid parameters give a diagnostic and a null attribute.
  printAttr("bad threads: ",
            mlirTileFragmentLayoutAttrGet(ctx, 0, fragmentMap, 1));
  // CHECK-NEXT: error: expected a positive thread count, got 0
  // CHECK-NEXT: bad threads: <null>
  printAttr("bad fragment map: ",
            mlirTileFragmentLayoutAttrGet(ctx, 128, offsetMap, 1));
  // CHECK-NEXT: error: expected a fragment map with 2 results (thread, register), got 1
  // CHECK-NEXT: bad fragment map: <null>
  printAttr("bad layout map: ", mlirTileLayoutAttrGet(ctx, fragmentMap));
  // CHECK-NEXT: error: expected a layout map with 1 result (the offset), got 2
  // CHECK-NEXT: bad layout map: <null>
  MlirAffineMap nullMap = {NULL};
  printAttr("null layout map: ", mlirTileLayoutAttrGet(ctx, nullMap));
  // CHECK-NEXT: error: expected a layout map
  // CHECK-NEXT: null layout map: <null>
}

static void testNullHandles(MlirContext ctx) {
  fprintf(stderr, "@null\n");
  // CHECK-LABEL: @null
  MlirOperation nullOp = {NULL};
  MlirAttribute nullAttr = mlirAttributeGetNull();
  MlirType nullType = {NULL};
  MlirContext nullCtx = {NULL};
  MlirDialectRegistry nullRegistry = {NULL};

  fprintf(stderr,
          "op: kernel=%d gemm=%d threads=%" PRId64 " grid_dims=%" PRIdPTR
          " grid size null=%d body null=%d\n",
          mlirTileIsAKernelOp(nullOp), mlirTileIsAGemmOp(nullOp),
          mlirTileKernelOpGetThreads(nullOp),
          mlirTileKernelOpGetNumGridDims(nullOp),
          mlirValueIsNull(mlirTileKernelOpGetGridSize(nullOp, 0)),
          mlirBlockIsNull(mlirTileKernelOpGetBody(nullOp)));
  // CHECK-NEXT: op: kernel=0 gemm=0 threads=-1 grid_dims=-1 grid size null=1 body null=1
  fprintf(
      stderr,
      "op: policy=%d transpose_b=%d reduce=%d dim=%" PRId64 " stages=%" PRId64
      " atomic=%d extent=%" PRId64 " order=%" PRId64 "\n",
      (int)mlirTileGemmOpGetPolicy(nullOp), mlirTileGemmOpGetTransposeB(nullOp),
      (int)mlirTileReduceOpGetKind(nullOp), mlirTileReduceOpGetDim(nullOp),
      mlirTilePipelinedOpGetStages(nullOp),
      (int)mlirTileAtomicOpGetKind(nullOp),
      mlirTileParallelOpGetExtent(nullOp, 0),
      mlirTilePipelinedOpGetOrder(nullOp, -1));
  // CHECK-NEXT: op: policy=-1 transpose_b=0 reduce=-1 dim=-1 stages=-1 atomic=-1 extent=-1 order=-1
  fprintf(stderr,
          "attr: fragment=%d layout=%d threads=%" PRId64
          " map null=%d get null=%d\n",
          mlirAttributeIsATileFragment(nullAttr),
          mlirAttributeIsATileLayout(nullAttr),
          mlirTileFragmentAttrGetThreads(nullAttr),
          mlirAffineMapIsNull(mlirTileLayoutAttrGetMap(nullAttr)),
          mlirAttributeIsNull(mlirTileFragmentAttrGet(nullCtx)));
  // CHECK-NEXT: attr: fragment=0 layout=0 threads=-1 map null=1 get null=1
  fprintf(stderr, "type: %s; f32: %s; name of 42: '%s'\n",
          spaceName(mlirTileMemRefGetMemorySpaceKind(nullType)),
          spaceName(mlirTileMemRefGetMemorySpaceKind(mlirF32TypeGet(ctx))),
          spaceName((MlirTileMemorySpace)42));
  // CHECK-NEXT: type: unsupported; f32: unsupported; name of 42: ''
  fprintf(stderr, "names: '%s' '%s' '%s'\n",
          mlirTileReduceKindGetName(MLIR_TILE_REDUCE_KIND_INVALID).data,
          mlirTileGemmPolicyGetName(MLIR_TILE_GEMM_POLICY_INVALID).data,
          mlirTileAtomicKindGetName(MLIR_TILE_ATOMIC_KIND_ADD).data);
  // CHECK-NEXT: names: '' '' 'add'

  // Registration ignores null handles.
  mlirTileRegisterKernelDialects(nullRegistry);
  mlirTileContextRegisterKernelDialects(nullCtx);
  fprintf(stderr, "null registration ok\n");
  // CHECK-NEXT: null registration ok
}

static void testWrongKind(MlirContext ctx) {
  fprintf(stderr, "@wrong_kind\n");
  // CHECK-LABEL: @wrong_kind
  // A func.func queried as each tile operation: every answer is the
  // documented "not this kind" value.
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  fprintf(stderr,
          "kernel=%d threads=%" PRId64 " reduce=%d copy width=%" PRId64
          " alloc space=%s parallel dims=%" PRIdPTR " cluster=%" PRIdPTR
          " order=%d blocks=%d\n",
          mlirTileIsAKernelOp(func), mlirTileKernelOpGetThreads(func),
          (int)mlirTileReduceOpGetKind(func),
          mlirTileCopyOpGetCoalescedWidth(func),
          spaceName(mlirTileAllocOpGetMemorySpaceKind(func)),
          mlirTileParallelOpGetNumDims(func),
          mlirTileKernelOpGetNumClusterDims(func),
          (int)mlirTileKernelOpGetRasterizeOrder(func),
          (int)mlirTileKernelOpGetPersistentBlocks(func));
  // CHECK-NEXT: kernel=0 threads=-1 reduce=-1 copy width=0 alloc space=unsupported parallel dims=-1 cluster=0 order=-1 blocks=-1
  mlirModuleDestroy(module);
}

int main(void) {
  testRegistration();
  MlirContext ctx = createContext();
  testParseVerifyPrintWalk(ctx);
  testAttributes(ctx);
  testNullHandles(ctx);
  testWrongKind(ctx);
  mlirContextDestroy(ctx);
  fprintf(stderr, "@done\n");
  // CHECK-LABEL: @done
  return 0;
}
