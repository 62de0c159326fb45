//===- ExternalizeDynamicShared.cpp - extern dynamic shared memory --------===//
//
// Gives the zero-length shared-memory globals that stand for the dynamic
// shared-memory block external linkage, so NVPTX emits them as
// `.extern .shared` arrays instead of demoting them to static variables.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEEXTERNALIZEDYNAMICSHARED
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {
struct TileExternalizeDynamicSharedPass
    : public tile::impl::TileExternalizeDynamicSharedBase<
          TileExternalizeDynamicSharedPass> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (!array || array.getNumElements() != 0 ||
          global.getAddrSpace() != NVVM::NVVMMemorySpace::Shared ||
          global.getInitializerRegion().getBlocks().size() != 0 ||
          global.getValueOrNull())
        return;
      global.setLinkage(LLVM::Linkage::External);
    });
  }
};
} // namespace
