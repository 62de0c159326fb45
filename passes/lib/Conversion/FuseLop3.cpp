//===- FuseLop3.cpp - (x & C1) | C2 as one PTX lop3 -----------------------===//
//
// The tile-fuse-lop3 pass: in a lowered NVIDIA kernel module, an i32 AND
// with a constant whose only use is an OR with another constant becomes
// one `lop3.b32` in inline PTX. ptxas emits the two-immediate pair as two
// LOP3 instructions (a LOP3 takes one immediate); written as one lop3 with
// both constants, it emits one, with the second constant in a register.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEFUSELOP3
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {

/// The constant operand of commutative `op` and the other one, where one
/// of the two is an i32 constant.
std::optional<std::pair<uint32_t, Value>> getConstantOperand(Operation *op) {
  for (int i = 0; i < 2; ++i) {
    APInt c;
    if (matchPattern(op->getOperand(1 - i), m_ConstantInt(&c)))
      return std::make_pair(uint32_t(c.getZExtValue()), op->getOperand(i));
  }
  return std::nullopt;
}

/// or(and(x, C1), C2) : i32 -> lop3.b32 x, C1, C2, 0xEA ((a & b) | c).
struct AndOrToLop3 : OpRewritePattern<LLVM::OrOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LLVM::OrOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isInteger(32))
      return failure();
    auto outer = getConstantOperand(op);
    auto andOp =
        outer ? outer->second.getDefiningOp<LLVM::AndOp>() : LLVM::AndOp();
    if (!andOp || !andOp->hasOneUse())
      return failure();
    auto inner = getConstantOperand(andOp);
    if (!inner)
      return failure();
    std::string text = "lop3.b32 $0, $1, " + std::to_string(inner->first) +
                       ", " + std::to_string(outer->first) + ", 0xEA;";
    auto lop3 = LLVM::InlineAsmOp::create(
        rewriter, op.getLoc(), op.getType(), ValueRange{inner->second}, text,
        "=r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.replaceOp(op, lop3.getResult(0));
    rewriter.eraseOp(andOp);
    return success();
  }
};

struct TileFuseLop3Pass
    : public tile::impl::TileFuseLop3Base<TileFuseLop3Pass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (tile::isAMDModule(module))
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<AndOrToLop3>(&getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
