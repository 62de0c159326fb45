//===- InitTile.cpp - register tile and what its kernels use --------------===//
//
// Implements the registration entry points of InitTile.h and the input
// check the tools run before parsing.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/TileDialect.h"
#include "tile/Pipelines.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void tile::registerTileDialect(DialectRegistry &registry) {
  registry.insert<tile::TileDialect>();
}

void tile::registerKernelDialects(DialectRegistry &registry) {
  registerTileDialect(registry);
  registerTileOpModels(registry);
  registry.insert<amdgpu::AMDGPUDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, ROCDL::ROCDLDialect,
                  scf::SCFDialect, vector::VectorDialect>();
  registerAllExtensions(registry);
  // Serialization (gpu-module-to-binary) needs the targets' interfaces and
  // the LLVM IR translations of every dialect a kernel lowers to.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerAllToLLVMIRTranslations(registry);
}

void tile::registerAllTilePasses() {
  registerTilePasses();
  registerTileConversionPasses();
  registerTilePipelines();
}

/// True if `c` may continue an MLIR bare identifier or alias name.
static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

bool tile::reportParserTraps(const llvm::SourceMgr &mgr) {
  const llvm::MemoryBuffer *buffer = mgr.getMemoryBuffer(mgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  // Type aliases (`!i = index`) reach the same crash as `index` itself.
  llvm::StringSet<> indexAliases;
  bool reported = false;
  auto skipSpace = [&](size_t pos) {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
    return pos;
  };
  auto identifierAt = [&](size_t pos) {
    size_t end = pos;
    while (end < text.size() && isIdentifierChar(text[end]))
      ++end;
    return text.slice(pos, end);
  };
  for (size_t pos = 0; pos < text.size();) {
    char c = text[pos];
    if (text.substr(pos).starts_with("//")) {
      pos = text.find('\n', pos);
      continue;
    }
    if (c == '"') {
      for (++pos; pos < text.size() && text[pos] != '"'; ++pos)
        if (text[pos] == '\\')
          ++pos;
      ++pos;
      continue;
    }
    bool lineStart = pos == 0 || text[pos - 1] == '\n';
    if (c == '!' && lineStart) {
      StringRef name = identifierAt(pos + 1);
      size_t next = skipSpace(pos + 1 + name.size());
      if (!name.empty() && next < text.size() && text[next] == '=') {
        size_t type = skipSpace(next + 1);
        bool alias = type < text.size() && text[type] == '!';
        StringRef aliased = identifierAt(alias ? type + 1 : type);
        if (alias ? indexAliases.contains(aliased) : aliased == "index")
          indexAliases.insert(name);
      }
    }
    bool wordStart = pos == 0 || !isIdentifierChar(text[pos - 1]);
    if (wordStart && text.substr(pos).starts_with("array<")) {
      size_t type = skipSpace(pos + 6);
      bool alias = type < text.size() && text[type] == '!';
      StringRef name = identifierAt(alias ? type + 1 : type);
      if (alias ? indexAliases.contains(name) : name == "index") {
        mgr.PrintMessage(llvm::errs(),
                         llvm::SMLoc::getFromPointer(text.data() + pos),
                         llvm::SourceMgr::DK_Error,
                         "dense arrays of 'index' elements are not supported; "
                         "use i64 elements (array<i64: ...>)");
        reported = true;
      }
    }
    ++pos;
  }
  return reported;
}
