//===- tile-compile.cpp - compile tile kernels to GPU binaries ------------===//
//
// Compiles every tile.kernel of a file with the tile-to-nvvm pipeline and
// writes, per kernel, its PTX, its cubin (where ptxas is found) and a launch
// manifest (for AMD chips, tile-to-rocdl and an HSACO instead of PTX and
// cubin; the manifest records which binary kind it names) (docs/Runtime.md)
// from which the C runtime and tile-run launch it on a machine without MLIR.
//
// A kernel file may be a template: lines `// tile.params: NAME=VALUE ...`
// declare parameters with their defaults, `// tile.params(CHIP): ...` lines
// change defaults for one chip, `-D NAME=VALUE` overrides them,
// `// tile.params(NAME=VALUE...): ...` lines change the defaults -D left
// where each parameter NAME ends up VALUE (`// tile.params(CHIP NAME=VALUE):`
// only for that chip), and every
// `${NAME}` of the text is replaced by its value before parsing. Lines
// between `// tile.if(COND):`, an optional `// tile.else:` and
// `// tile.endif` (COND as in a `tile.params(COND):` line; regions nest)
// are kept where COND holds (after the else, where it does not) and
// emptied otherwise, first; declaration lines count wherever they stand.
// The values used are recorded in each manifest as a `# params` comment.
// Lines `// tile.options(CHIP): NAME=VALUE ...` set options of this tool
// (a fixed set of code generation options, index-bitwidth among them) for
// one chip, unless the command line gives them; a VALUE `${NAME}` takes a
// parameter's final value. With --dispatch, the configurations of a tuned
// table's rule entries are each compiled (by running this tool again) and
// one manifest dispatches among them at launch; an entry may build a
// sibling kernel file instead, which the runtime launches on views of the
// arguments (`via=`).
//
//===----------------------------------------------------------------------===//

#include "tile-runtime/Runtime.h"
#include "tile/InitTile.h"
#include "tile/Pipelines.h"
#include "tile/Transforms/Lowering.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("tile-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::desc("output directory"),
                                      cl::value_desc("dir"), cl::init("."),
                                      cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("target chip"),
                                 cl::init(tile::kDefaultChip.str()),
                                 cl::cat(category));
static cl::opt<std::string> features("features",
                                     cl::desc("PTX features, e.g. +ptx80"),
                                     cl::init(""), cl::cat(category));
static cl::opt<int> optLevel("opt-level", cl::desc("LLVM optimization level"),
                             cl::init(3), cl::cat(category));
static cl::opt<int> indexBitwidth(
    "index-bitwidth",
    cl::desc("width of index values in the kernel, 32 or 64 (32: cheaper "
             "address arithmetic, for tensors below 2^31 elements; the "
             "runtime refuses larger ones); default 64 or the file's "
             "'// tile.options(CHIP):' value"),
    cl::init(64), cl::cat(category));
static cl::opt<std::string>
    toolkitPath("toolkit",
                cl::desc("CUDA toolkit directory, for libdevice and ptxas "
                         "(default: $CUDA_HOME, else /usr/local/cuda); for "
                         "AMD chips, the ROCm toolkit directory with "
                         "llvm/bin/ld.lld and amdgcn/bitcode (default: "
                         "$ROCM_PATH, else the one the build assembled)"),
                cl::init(""), cl::cat(category));
static cl::opt<std::string>
    ptxasPath("ptxas",
              cl::desc("ptxas to make cubins with (default: the toolkit's, "
                       "then PATH)"),
              cl::init(""), cl::cat(category));
static cl::opt<bool> noCubin("no-cubin", cl::desc("write PTX only"),
                             cl::init(false), cl::cat(category));
static cl::opt<bool> noWarpSpecialize(
    "no-warp-specialize",
    cl::desc("on sm_90a, keep pipelined loops on cp.async instead of TMA "
             "loads from a producer warpgroup"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> noFallback(
    "no-fallback",
    cl::desc("do not also compile, for a kernel that uses tensor maps, the "
             "kernel without them that the runtime launches where TMA "
             "cannot address the arguments (rows not 16-byte aligned)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> noStage(
    "no-stage",
    cl::desc("do not let the runtime copy a memref that the kernel reaches "
             "only through tensor maps into a workspace with 16-byte rows "
             "where TMA cannot address it (no 'stage' directives): such "
             "arguments then run the fallback kernel"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> pingpong(
    "pingpong",
    cl::desc("on sm_90a, let the two consumer warpgroups of a "
             "warp-specialized loop with several gemms take turns on the "
             "tensor cores"),
    cl::init(false), cl::cat(category));

static cl::opt<bool> persistent(
    "persistent",
    cl::desc("launch as many blocks as the device holds at once, each "
             "looping over the grid's tiles (the manifest's grid x is "
             "min(TILES, resident_blocks))"),
    cl::init(false), cl::cat(category));

static cl::opt<bool> noTmaStore(
    "no-tma-store",
    cl::desc("on sm_90a, store the epilogue of warp-specialized kernels "
             "from registers instead of through shared memory with TMA"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> threadStore(
    "thread-store",
    cl::desc("on sm_90a, stage the epilogue of warp-specialized kernels in "
             "shared memory and store it with the threads, 16-byte stores of "
             "each row's aligned body: C needs no tensor map, so the runtime "
             "never stages it (rows of any length and address)"),
    cl::init(false), cl::cat(category));
static cl::opt<int> minBlocksPerSM(
    "min-blocks-per-sm",
    cl::desc("blocks of each kernel that must fit on one multiprocessor at "
             "once (CUDA's __launch_bounds__ minimum; ptxas caps the "
             "registers per thread to fit them): 0 (no request) to 16"),
    cl::init(0), cl::cat(category));
static cl::opt<bool>
    fastMath("fast-math",
             cl::desc("flush f32 denormals to zero in the kernels: exp2 "
                      "becomes one ex2.approx.ftz and log2 one lg2.approx.ftz, "
                      "f32 arithmetic takes .ftz (AMD chips: exp2 and log2 "
                      "become one v_exp_f32 and v_log_f32)"),
             cl::init(false), cl::cat(category));
static cl::list<std::string>
    defines("D", cl::Prefix,
            cl::desc("set the kernel parameter NAME, which the file declares "
                     "in a '// tile.params:' line, to VALUE"),
            cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string> tunedTable(
    "tuned",
    cl::desc("table of tuned parameter values (docs/GEMM.md, 'Tuning'): "
             "the entry for this kernel whose shape is nearest to --shape "
             "sets its parameters; -D still overrides them"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    tunedShape("shape", cl::desc("problem shape to pick a --tuned entry for"),
               cl::value_desc("MxNxK"), cl::cat(category));
static cl::opt<std::string> dispatchTable(
    "dispatch",
    cl::desc("build every configuration that the table's rule entries name "
             "for this kernel and chip (or, with via=, for a sibling kernel "
             "file; with rules=, those of another table's rules for it, "
             "dispatched by a manifest of their own), each into a "
             "subdirectory, and write a dispatching "
             "manifest that picks one per launch by the runtime sizes "
             "(docs/GEMM.md, 'Shape dispatch')"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<unsigned> dispatchJobs(
    "j",
    cl::desc("--dispatch: how many builds run at once (0, the default: the "
             "machine's hardware threads); their output comes in build "
             "order whatever the count"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<bool>
    printSource("print-source",
                cl::desc("print the file after parameter substitution and "
                         "exit"),
                cl::init(false), cl::cat(category));
static cl::opt<bool> printTimes("time",
                                cl::desc("print the time of each phase"),
                                cl::init(false), cl::cat(category));
static cl::opt<bool> printResources(
    "resources",
    cl::desc("print each kernel's registers, spills, shared memory (LDS) "
             "and the blocks (workgroups) one multiprocessor (compute unit) "
             "holds: from ptxas -v on NVIDIA chips, where cubins are made, "
             "and from the code object's metadata on AMD chips; every "
             "manifest records them in a comment"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> printOpOnError(
    "print-op-on-error",
    cl::desc("print the operation an error is about with the error (often "
             "a whole kernel module)"),
    cl::init(false), cl::cat(category));

/// The `NAME=VALUE` options of the kernel file's `// tile.options(CHIP):`
/// lines that this compile took (the command line overrides the rest),
/// recorded in each manifest.
static std::vector<std::string> fileOptionsApplied;
/// The options among those whose file value is a parameter (`${NAME}`):
/// each --dispatch build resolves them from its own parameters.
static llvm::StringSet<> fileOptionsFromParams;

/// Prints the manifest comment that records `fileOptionsApplied`, if any;
/// for a dispatching manifest (`dispatching`) only those that are not a
/// parameter's, which each build resolves from its own.
static void printFileOptions(raw_ostream &os, bool dispatching = false) {
  SmallVector<StringRef> shown;
  for (StringRef option : fileOptionsApplied)
    if (!dispatching ||
        !fileOptionsFromParams.contains(option.split('=').first))
      shown.push_back(option);
  if (!shown.empty())
    os << "# options " << llvm::join(shown, " ")
       << " (from the file's tile.options(" << chip << ") line)\n";
}

/// The files this run has written, removed again if it fails later, so that
/// a failed run leaves no output that looks like a valid kernel.
static std::vector<std::string> writtenFiles;

/// Removes what this run wrote; returns 1, the exit status of a failure.
static int failAndRemoveOutputs() {
  for (const std::string &path : writtenFiles)
    (void)llvm::sys::fs::remove(path);
  writtenFiles.clear();
  return 1;
}

namespace {
/// What the manifest of one kernel says, gathered from its gpu.launch_func
/// before the host code is lowered.
struct KernelLaunch {
  std::string kernel;
  std::string module;
  std::vector<std::string> params;
  /// Parameters the launcher zeroes before each launch (`tile.zero_init`).
  std::vector<std::string> zeroed;
  /// `stage` directives: "argN in|out|inout" for each memref the kernel
  /// reaches only through its tensor maps (and its sizes).
  std::vector<std::string> staged;
  /// The kernel waits for the stream's previous grid before it touches a
  /// zeroed argument (kDependentLaunchAttr).
  bool dependentLaunch = false;
  std::string grid[3];
  int64_t block[3] = {1, 1, 1};
  int64_t cluster[3] = {1, 1, 1};
  bool hasCluster = false;
  int64_t sharedBytes = 0;

  /// Whether the kernel takes tensor maps, which TMA's alignment rules
  /// keep from some arguments.
  bool usesTensorMaps() const {
    return llvm::any_of(params, [](const std::string &param) {
      return StringRef(param).contains(" tensormap ");
    });
  }
};

/// What ptxas reports of one kernel (`ptxas -v`), or an AMD code object's
/// metadata says of it.
struct KernelResources {
  /// 32-bit registers of one thread (AMD: VGPRs of a lane, AGPRs included).
  int64_t registers = 0;
  /// Bytes of local memory a thread stores and loads for spilled registers.
  int64_t spillStores = 0, spillLoads = 0;
  /// Bytes of the kernel's static shared memory (LDS; the launch adds the
  /// dynamic).
  int64_t staticShared = 0;
  /// AMD only: AGPRs (of `registers`), SGPRs, spilled VGPRs and SGPRs, and
  /// bytes of scratch a lane.
  bool amd = false;
  int64_t agprs = 0, sgprs = 0, vgprSpills = 0, sgprSpills = 0, scratch = 0;
};

/// One lowering of the file: its kernels' launches and binaries, the time
/// of each phase and, where it failed, the first error.
struct Variant {
  std::vector<KernelLaunch> launches;
  /// Per kernel module: its PTX (NVIDIA) or HSACO (AMD).
  llvm::StringMap<std::string> ptxByModule;
  /// Per kernel: the binary written next to the manifest ("" for PTX).
  llvm::StringMap<std::string> cubinByKernel;
  /// Per kernel with a cubin: ptxas's report of its resources.
  llvm::StringMap<KernelResources> resourcesByKernel;
  /// What ptxas said besides its reports (warnings), printed by the main
  /// thread once both variants are done.
  std::string ptxasMessages;
  double frontMs = 0, ptxMs = 0, cubinMs = 0;
  bool failed = false;
  std::string error;

  const KernelLaunch *find(StringRef kernel) const {
    for (const KernelLaunch &launch : launches)
      if (launch.kernel == kernel)
        return &launch;
    return nullptr;
  }
};
} // namespace

/// Manifest name of the host function argument `arg`.
static std::string argName(BlockArgument arg) {
  return "arg" + std::to_string(arg.getArgNumber());
}

/// Writes `value`, an index or integer computed on the host, as a manifest
/// grid expression over the function's arguments; fails, with a diagnostic
/// at `user`, for what the expression language cannot say. Every argument
/// the expression reads (a scalar, or a memref through its sizes) is added
/// to `usedArgs`.
static FailureOr<std::string>
toExpression(Value value, Operation *user,
             llvm::SetVector<BlockArgument> &usedArgs) {
  // The blocks of a persistent kernel the device holds at once, which the
  // runtime knows at launch, or the largest prime not above them.
  if (Operation *def = value.getDefiningOp();
      def && def->hasAttr(tile::kResidentBlocksAttr)) {
    auto blocks = dyn_cast<tile::PersistentBlocksAttr>(
        def->getAttr(tile::kResidentBlocksAttr));
    return std::string(blocks && blocks.getValue() ==
                                     tile::PersistentBlocks::prime
                           ? "primefloor(resident_blocks)"
                           : "resident_blocks");
  }
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::to_string(constant.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (isa<func::FuncOp>(arg.getOwner()->getParentOp())) {
      usedArgs.insert(arg);
      return argName(arg);
    }
  }
  Operation *def = value.getDefiningOp();
  if (auto dim = dyn_cast_or_null<memref::DimOp>(def)) {
    auto arg = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (arg && index && isa<func::FuncOp>(arg.getOwner()->getParentOp())) {
      usedArgs.insert(arg);
      return argName(arg) + ".dim" + std::to_string(*index);
    }
  }
  if (def && isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                 arith::ExtUIOp, arith::TruncIOp>(def))
    return toExpression(def->getOperand(0), user, usedArgs);
  const char *infix = nullptr, *function = nullptr;
  if (isa_and_nonnull<arith::AddIOp>(def))
    infix = " + ";
  else if (isa_and_nonnull<arith::SubIOp>(def))
    infix = " - ";
  else if (isa_and_nonnull<arith::MulIOp>(def))
    infix = " * ";
  else if (isa_and_nonnull<arith::CeilDivUIOp, arith::CeilDivSIOp>(def))
    function = "ceildiv";
  else if (isa_and_nonnull<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
               def))
    function = "floordiv";
  else if (isa_and_nonnull<arith::MinUIOp, arith::MinSIOp>(def))
    function = "min";
  else if (isa_and_nonnull<arith::MaxUIOp, arith::MaxSIOp>(def))
    function = "max";
  if (!infix && !function) {
    user->emitError() << "grid extent computed by "
                      << (def ? def->getName().getStringRef()
                              : StringRef("a block argument"))
                      << " cannot be written in a launch manifest (supported: "
                         "constants, function arguments, memref.dim, + - * "
                         "ceildiv floordiv min max)";
    return failure();
  }
  FailureOr<std::string> lhs = toExpression(def->getOperand(0), user, usedArgs);
  if (failed(lhs))
    return failure();
  FailureOr<std::string> rhs = toExpression(def->getOperand(1), user, usedArgs);
  if (failed(rhs))
    return failure();
  if (infix)
    return "(" + *lhs + infix + *rhs + ")";
  return std::string(function) + "(" + *lhs + ", " + *rhs + ")";
}

/// Manifest spelling of a global memref parameter type: "memref<?x64xf32>".
static FailureOr<std::string> memrefText(MemRefType type, Operation *user) {
  if (type.getMemorySpace() || !type.getLayout().isIdentity()) {
    user->emitError() << "kernel parameter of type " << type
                      << " is not a plain global memref";
    return failure();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Manifest names of the tensor-map enumerators, indexed by their values
/// (the driver's, which the runtime uses too).
static StringRef swizzleName(nvgpu::TensorMapSwizzleKind kind) {
  static const char *names[] = {"none", "32b", "64b", "128b"};
  return names[static_cast<unsigned>(kind)];
}
static StringRef interleaveName(nvgpu::TensorMapInterleaveKind kind) {
  static const char *names[] = {"none", "16b", "32b"};
  return names[static_cast<unsigned>(kind)];
}
static StringRef l2Name(nvgpu::TensorMapL2PromoKind kind) {
  static const char *names[] = {"none", "64b", "128b", "256b"};
  return names[static_cast<unsigned>(kind)];
}
static StringRef oobName(nvgpu::TensorMapOOBKind kind) {
  static const char *names[] = {"zero", "nan"};
  return names[static_cast<unsigned>(kind)];
}

namespace {
/// A tensor map the runtime encodes at launch, read from the host's
/// nvgpu.tma.create.descriptor.
struct TensorMapParam {
  /// The function argument whose buffer the map describes.
  BlockArgument source;
  /// The manifest's text after `tensormap`: source, box and options.
  std::string text;
};
} // namespace

/// Reads the tensor map passed to a kernel as `operand`; fails, with a
/// diagnostic at the operation that makes it, where the manifest cannot
/// describe it: a map not made by nvgpu.tma.create.descriptor, a source
/// that is not (a cast of) a memref argument of the function, a box that is
/// not constant or disagrees with the descriptor type.
static FailureOr<TensorMapParam> readTensorMap(Value operand,
                                               Operation *launch) {
  auto create = operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  if (!create) {
    launch->emitError("tensor map kernel operand is not made by "
                      "nvgpu.tma.create.descriptor on the host");
    return failure();
  }
  auto type = cast<nvgpu::TensorMapDescriptorType>(operand.getType());
  Value tensor = create.getTensor();
  while (auto castOp = tensor.getDefiningOp<memref::CastOp>())
    tensor = castOp.getSource();
  auto source = dyn_cast<BlockArgument>(tensor);
  if (!source || !isa<func::FuncOp>(source.getOwner()->getParentOp())) {
    Operation *def = tensor.getDefiningOp();
    create.emitError() << "tensor map source is computed by "
                       << (def ? def->getName().getStringRef()
                               : StringRef("a block argument"))
                       << " on the host; tile-compile encodes tensor maps "
                          "from memref arguments of the function";
    return failure();
  }
  auto memref = dyn_cast<MemRefType>(source.getType());
  if (!memref) {
    create.emitError() << "tensor map source " << argName(source)
                       << " is of type " << source.getType()
                       << ", expected a ranked memref";
    return failure();
  }
  if (failed(memrefText(memref, create)))
    return failure();
  MemRefType tile = type.getTensor();
  if (tile.getElementType() != memref.getElementType()) {
    create.emitError() << "tensor map of " << tile.getElementType()
                       << " elements built from " << argName(source) << " of "
                       << memref.getElementType() << " elements";
    return failure();
  }
  SmallVector<int64_t> box;
  for (auto [i, value] : llvm::enumerate(create.getBoxDimensions())) {
    APInt extent;
    if (!matchPattern(value, m_ConstantInt(&extent))) {
      create.emitError() << "tensor map box dimension " << i
                         << " is not a constant";
      return failure();
    }
    box.push_back(extent.getSExtValue());
  }
  if (static_cast<int64_t>(box.size()) != memref.getRank()) {
    create.emitError() << "tensor map box has " << box.size()
                       << " dimensions, expected " << memref.getRank()
                       << " (the rank of " << argName(source) << ")";
    return failure();
  }
  auto boxText = llvm::join(
      llvm::map_range(box, [](int64_t v) { return std::to_string(v); }), "x");
  if (ArrayRef<int64_t>(box) != tile.getShape()) {
    std::string tileText =
        llvm::join(llvm::map_range(tile.getShape(),
                                   [](int64_t v) { return std::to_string(v); }),
                   "x");
    create.emitError() << "tensor map box " << boxText
                       << " does not match the descriptor's tile " << tileText;
    return failure();
  }
  for (auto [i, extent] : llvm::enumerate(box)) {
    if (extent < 1 || extent > 256) {
      create.emitError() << "tensor map box dimension " << i << " is " << extent
                         << ", expected 1 to 256";
      return failure();
    }
  }
  TensorMapParam param;
  param.source = source;
  param.text = (argName(source) + " box " + boxText + " swizzle " +
                swizzleName(type.getSwizzle()) + " interleave " +
                interleaveName(type.getInterleave()) + " l2 " +
                l2Name(type.getL2promo()) + " oob " + oobName(type.getOob()))
                   .str();
  return param;
}

/// Moves the tensor-map operands of `launch`, and the matching arguments of
/// its kernel, behind all the others (keeping their order), so that the
/// manifest declares each memref before the tensor maps built from it.
static void moveTensorMapsLast(gpu::LaunchFuncOp launch) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel || kernel.isExternal())
    return;
  SmallVector<Value> operands(launch.getKernelOperands());
  SmallVector<unsigned> order;
  for (auto isMap : {false, true})
    for (auto [i, operand] : llvm::enumerate(operands))
      if (isa<nvgpu::TensorMapDescriptorType>(operand.getType()) == isMap)
        order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return;
  // The entry block's arguments are the kernel's, then its attributions:
  // new arguments go in front of the attributions, the old ones go.
  Block &entry = kernel.getBody().front();
  unsigned count = kernel.getNumArguments();
  SmallVector<DictionaryAttr> attrs;
  kernel.getAllArgAttrs(attrs);
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> newAttrs;
  SmallVector<Value> newOperands;
  for (auto [i, old] : llvm::enumerate(order)) {
    BlockArgument arg = entry.getArgument(old);
    BlockArgument moved =
        entry.insertArgument(count + i, arg.getType(), arg.getLoc());
    arg.replaceAllUsesWith(moved);
    types.push_back(arg.getType());
    newAttrs.push_back(attrs[old]);
    newOperands.push_back(operands[old]);
  }
  entry.eraseArguments(0, count);
  kernel.setFunctionType(
      FunctionType::get(kernel.getContext(), types, TypeRange()));
  kernel.setAllArgAttrs(newAttrs);
  launch.getKernelOperandsMutable().assign(newOperands);
}

namespace {
/// What a kernel does with the buffer of one function argument through its
/// tensor maps, and whether it reaches the data any other way.
struct BufferAccess {
  bool reads = false, writes = false, other = false;
};
} // namespace

/// Adds to `access` what the kernel does through `value`, a tensor map
/// argument of the kernel (`isMap`) or a memref one, following the casts
/// the lowering put between them and their users.
static void recordAccess(Value value, bool isMap, BufferAccess &access) {
  for (Operation *user : value.getUsers()) {
    if (isa<UnrealizedConversionCastOp>(user)) {
      for (Value result : user->getResults())
        recordAccess(result, isMap, access);
    } else if (!isMap && isa<memref::DimOp>(user)) {
      // The sizes only.
    } else if (isMap && isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp,
                            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp,
                            NVVM::CpAsyncBulkTensorPrefetchOp>(user)) {
      access.reads = true;
    } else if (isMap && isa<nvgpu::TmaAsyncStoreOp,
                            NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(user)) {
      access.writes = true;
    } else {
      access.other = true;
    }
  }
}

/// Reads the launch of each outlined kernel of `module` into `launches`.
static LogicalResult collectLaunches(ModuleOp module,
                                     std::vector<KernelLaunch> &launches) {
  WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
    KernelLaunch info;
    info.module = launch.getKernelModuleName().str();
    info.kernel = launch.getKernelName().str();
    llvm::SetVector<BlockArgument> usedArgs;
    // Arguments with a param line so far, and tensor maps per source.
    llvm::DenseSet<BlockArgument> declared;
    llvm::DenseMap<BlockArgument, unsigned> mapsOf;
    std::vector<std::string> params;
    moveTensorMapsLast(launch);
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    // Per tensor-map source, what the kernel does with its buffer.
    llvm::MapVector<BlockArgument, BufferAccess> accessOf;
    llvm::DenseMap<BlockArgument, unsigned> kernelArgOf;
    for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
      if (isa<nvgpu::TensorMapDescriptorType>(operand.getType())) {
        FailureOr<TensorMapParam> map = readTensorMap(operand, launch);
        if (failed(map))
          return WalkResult::interrupt();
        BufferAccess &access = accessOf[map->source];
        if (!kernel || kernel.isExternal())
          access.other = true;
        else
          recordAccess(kernel.getArgument(i), /*isMap=*/true, access);
        // The source is declared before its maps; as `none` where the
        // kernel does not take it (it is a kernel operand otherwise, and
        // those come first).
        if (declared.insert(map->source).second)
          params.push_back(
              argName(map->source) + " " +
              *memrefText(cast<MemRefType>(map->source.getType()), launch) +
              " none");
        unsigned n = mapsOf[map->source]++;
        params.push_back(argName(map->source) + "_tmap" + std::to_string(n) +
                         " tensormap " + map->text);
        continue;
      }
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp())) {
        launch.emitError("kernel operand is computed on the host; "
                         "tile-compile launches kernels whose operands are "
                         "the function's arguments");
        return WalkResult::interrupt();
      }
      declared.insert(arg);
      kernelArgOf[arg] = i;
      Type type = arg.getType();
      if (auto memref = dyn_cast<MemRefType>(type)) {
        FailureOr<std::string> text = memrefText(memref, launch);
        if (failed(text))
          return WalkResult::interrupt();
        params.push_back(argName(arg) + " " + *text + " descriptor");
      } else if (type.isIntOrIndexOrFloat()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << type;
        params.push_back(argName(arg) + " " + text);
      } else {
        launch.emitError() << "kernel parameter of type " << type
                           << " cannot be described in a launch manifest";
        return WalkResult::interrupt();
      }
    }
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    Value gridValues[3] = {grid.x, grid.y, grid.z};
    for (int axis = 0; axis < 3; ++axis) {
      FailureOr<std::string> expr =
          toExpression(gridValues[axis], launch, usedArgs);
      if (failed(expr))
        return WalkResult::interrupt();
      info.grid[axis] = *expr;
    }
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value blockValues[3] = {block.x, block.y, block.z};
    for (int axis = 0; axis < 3; ++axis) {
      APInt value;
      if (!matchPattern(blockValues[axis], m_ConstantInt(&value))) {
        launch.emitError("block size must be a constant");
        return WalkResult::interrupt();
      }
      info.block[axis] = value.getSExtValue();
    }
    if (launch.hasClusterSize()) {
      gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
      Value clusterValues[3] = {cluster.x, cluster.y, cluster.z};
      for (int axis = 0; axis < 3; ++axis) {
        APInt value;
        if (!matchPattern(clusterValues[axis], m_ConstantInt(&value))) {
          launch.emitError("cluster size must be a constant");
          return WalkResult::interrupt();
        }
        info.cluster[axis] = value.getSExtValue();
      }
      info.hasCluster = true;
    }
    if (Value shared = launch.getDynamicSharedMemorySize()) {
      APInt value;
      if (!matchPattern(shared, m_ConstantInt(&value))) {
        launch.emitError("dynamic shared memory size must be a constant");
        return WalkResult::interrupt();
      }
      info.sharedBytes = value.getSExtValue();
    }
    // Arguments the grid reads but the kernel does not take are declared
    // too, passed as nothing, so the runtime can evaluate the grid.
    for (BlockArgument arg : usedArgs) {
      if (!declared.insert(arg).second)
        continue;
      std::string text;
      if (auto memref = dyn_cast<MemRefType>(arg.getType())) {
        FailureOr<std::string> memrefType = memrefText(memref, launch);
        if (failed(memrefType))
          return WalkResult::interrupt();
        text = *memrefType;
      } else {
        llvm::raw_string_ostream os(text);
        os << arg.getType();
      }
      params.push_back(argName(arg) + " " + text + " none");
    }
    for (BlockArgument arg : declared)
      if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
          func && func.getArgAttr(arg.getArgNumber(), "tile.zero_init"))
        info.zeroed.push_back(argName(arg));
    llvm::sort(info.zeroed);
    // A buffer the kernel reaches only through its maps may be copied into
    // a workspace that the maps can address (docs/Runtime.md, "Staged
    // arguments"); not one the runtime zeroes, whose pointer it uses.
    for (auto &[source, access] : accessOf) {
      if (auto it = kernelArgOf.find(source);
          it != kernelArgOf.end() && kernel && !kernel.isExternal())
        recordAccess(kernel.getArgument(it->second), /*isMap=*/false, access);
      std::string name = argName(source);
      if (noStage || access.other || (!access.reads && !access.writes) ||
          llvm::is_contained(info.zeroed, name) ||
          cast<MemRefType>(source.getType()).getRank() < 2)
        continue;
      // A `tile.overwrite` argument that the kernel writes and does not
      // read through its maps needs no copy in.
      auto func = dyn_cast<func::FuncOp>(source.getOwner()->getParentOp());
      bool overwritten =
          func && access.writes && !access.reads &&
          func.getArgAttr(source.getArgNumber(), "tile.overwrite");
      info.staged.push_back(name + (overwritten     ? " out"
                                    : access.writes ? " inout"
                                                    : " in"));
    }
    llvm::sort(info.staged);
    if (kernel)
      info.dependentLaunch =
          !info.zeroed.empty() &&
          kernel
              .walk([](Operation *op) {
                return op->hasAttr(tile::kDependentLaunchAttr)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
    info.params = std::move(params);
    launches.push_back(std::move(info));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

namespace {
/// A parameter declared by a `// tile.params:` line of the kernel file.
struct KernelParam {
  std::string name;
  std::string value;
  /// Where the declaration is, for diagnostics.
  llvm::SMLoc loc;
};
} // namespace

/// The declared parameter `name` of `params`, or null.
static const KernelParam *findParam(ArrayRef<KernelParam> params,
                                    StringRef name) {
  auto it = llvm::find_if(params,
                          [&](const KernelParam &p) { return p.name == name; });
  return it == params.end() ? nullptr : &*it;
}
static KernelParam *findParam(std::vector<KernelParam> &params,
                              StringRef name) {
  return const_cast<KernelParam *>(
      findParam(ArrayRef<KernelParam>(params), name));
}

/// The marker of a parameter declaration line, after `//`.
static constexpr llvm::StringLiteral paramsMarker = "tile.params:";

/// The text after `marker` of every `// MARKER...` comment line of
/// `buffer`, in order (the declarations tile-compile reads from a kernel
/// file).
static SmallVector<StringRef> markedLines(StringRef buffer, StringRef marker) {
  SmallVector<StringRef> texts;
  StringRef rest = buffer;
  while (!rest.empty()) {
    StringRef line;
    std::tie(line, rest) = rest.split('\n');
    StringRef text = line.ltrim();
    if (text.consume_front("//") && text.ltrim().starts_with(marker))
      texts.push_back(text.ltrim().drop_front(marker.size()));
  }
  return texts;
}

static bool isNameStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isNameChar(char c) { return llvm::isAlnum(c) || c == '_'; }
static bool isValueChar(char c) { return isNameChar(c) || c == '.'; }

/// Whether `name` is a parameter name: [A-Za-z_][A-Za-z0-9_]*.
static bool isParamName(StringRef name) {
  return !name.empty() && isNameStart(name.front()) &&
         llvm::all_of(name, isNameChar);
}

/// Whether `value` is a parameter value, a plain token: [A-Za-z0-9_.,]+
/// (commas for lists, such as a pipelined loop's schedule).
static bool isParamValue(StringRef value) {
  return !value.empty() &&
         llvm::all_of(value, [](char c) { return isValueChar(c) || c == ','; });
}

/// Splits `text` ("NAME=VALUE") into a well-formed name and value.
static bool splitAssignment(StringRef text, StringRef &name, StringRef &value) {
  std::tie(name, value) = text.split('=');
  return text.contains('=') && isParamName(name) && isParamValue(value);
}

/// Reads the `// tile.params:` lines of `buffer` into `params`, in order of
/// declaration; reports malformed and repeated declarations through
/// `sourceMgr`, which holds `buffer`.
static LogicalResult readParamDeclarations(llvm::SourceMgr &sourceMgr,
                                           StringRef buffer,
                                           std::vector<KernelParam> &params) {
  bool ok = true;
  auto error = [&](const char *at, const Twine &message) {
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                           llvm::SourceMgr::DK_Error, message);
    ok = false;
  };
  llvm::StringMap<size_t> index;
  for (StringRef text : markedLines(buffer, paramsMarker)) {
    SmallVector<StringRef> words;
    llvm::SplitString(text, words);
    for (StringRef word : words) {
      StringRef name, value;
      if (!splitAssignment(word, name, value)) {
        error(word.data(), "malformed parameter declaration '" + word +
                               "' (expected NAME=VALUE, NAME of "
                               "[A-Za-z_][A-Za-z0-9_]*, VALUE of "
                               "[A-Za-z0-9_.,]+)");
        continue;
      }
      auto [it, inserted] = index.try_emplace(name, params.size());
      if (!inserted) {
        error(word.data(), "parameter '" + name + "' declared twice");
        sourceMgr.PrintMessage(params[it->second].loc, llvm::SourceMgr::DK_Note,
                               "first declared here");
        continue;
      }
      params.push_back(
          {name.str(), value.str(), llvm::SMLoc::getFromPointer(word.data())});
    }
  }
  return success(ok);
}

/// Applies the `-D NAME=VALUE` options to the declared `params`; `seen`
/// receives the names set.
static LogicalResult applyDefines(std::vector<KernelParam> &params,
                                  llvm::StringSet<> &seen) {
  bool ok = true;
  for (const std::string &define : defines) {
    StringRef name, value;
    if (!splitAssignment(define, name, value)) {
      llvm::errs() << "tile-compile: malformed -D '" << define
                   << "' (expected -D NAME=VALUE, NAME of "
                      "[A-Za-z_][A-Za-z0-9_]*, VALUE of [A-Za-z0-9_.,]+)\n";
      ok = false;
      continue;
    }
    if (!seen.insert(name).second) {
      llvm::errs() << "tile-compile: -D " << name << " given twice\n";
      ok = false;
      continue;
    }
    KernelParam *param = findParam(params, name);
    if (!param) {
      llvm::errs() << "tile-compile: -D " << name << ": " << inputFile
                   << " declares no parameter '" << name << "'";
      if (params.empty()) {
        llvm::errs() << " (it has no '// tile.params:' line)\n";
      } else {
        llvm::errs() << " (declared:";
        for (const KernelParam &p : params)
          llvm::errs() << " " << p.name;
        llvm::errs() << ")\n";
      }
      ok = false;
      continue;
    }
    param->value = value.str();
  }
  return success(ok);
}

/// Applies the `NAME=VALUE...` words of a defaults line for `key` (a chip,
/// or a parameter condition) to `params`, each where `apply(NAME)`;
/// reports malformed words and undeclared names through `error`.
static void
applyDefaultLine(StringRef assignments, StringRef key,
                 std::vector<KernelParam> &params,
                 function_ref<void(const char *, const Twine &)> error,
                 function_ref<bool(StringRef)> apply) {
  SmallVector<StringRef> words;
  llvm::SplitString(assignments, words);
  for (StringRef word : words) {
    StringRef name, value;
    if (!splitAssignment(word, name, value)) {
      error(word.data(),
            "malformed parameter default '" + word + "' (expected NAME=VALUE)");
      continue;
    }
    KernelParam *param = findParam(params, name);
    if (!param) {
      error(word.data(), "parameter '" + name + "' has a default for " + key +
                             " but no '// tile.params:' declaration");
      continue;
    }
    if (apply(name))
      param->value = value.str();
  }
}

/// Whether the condition `key` holds: its space-separated terms are
/// `NAME=VALUE` on the final value of a parameter of `params` and at most
/// one chip, the one being compiled for, and all must hold. Reports a
/// malformed term or an undeclared parameter through `error` and fails;
/// `expected` is the line's syntax, for messages.
static FailureOr<bool>
evaluateCondition(StringRef key, ArrayRef<KernelParam> params,
                  StringRef expected,
                  function_ref<void(const char *, const Twine &)> error) {
  auto malformed = [&](StringRef at, StringRef what) {
    error(at.data(), "malformed parameter condition '" + what +
                         "' (expected '" + expected + "')");
    return failure();
  };
  SmallVector<StringRef> terms;
  llvm::SplitString(key, terms);
  if (terms.empty())
    return malformed(key, key);
  bool holds = true;
  StringRef lineChip;
  for (StringRef term : terms) {
    if (!term.contains('=')) {
      if (!lineChip.empty() || !llvm::all_of(term, isValueChar))
        return malformed(term, key);
      lineChip = term;
      holds &= term == chip;
      continue;
    }
    StringRef name, value;
    if (!splitAssignment(term, name, value))
      return malformed(term, term);
    const KernelParam *param = findParam(params, name);
    if (!param) {
      error(term.data(), "parameter '" + name +
                             "' of the condition has no '// tile.params:' "
                             "declaration");
      return failure();
    }
    holds &= param->value == value;
  }
  return holds;
}

/// The marker of a per-chip default line, after `//`: `tile.params(CHIP):`.
static constexpr llvm::StringLiteral chipParamsMarker = "tile.params(";

/// Applies the `// tile.params(KEY): NAME=VALUE...` lines of `buffer` to
/// the declared `params`. Without `given` (before -D, which wins): the
/// lines whose KEY is the chip being compiled for; lines for other chips
/// are checked for syntax only. With `given` (after -D): the lines whose
/// KEY holds conditions `NAME=VALUE` on other parameters' values, and at
/// most one chip, all separated by spaces, in order, each setting the names
/// not in `given` where every condition holds on the chip named (or on any
/// chip), so a default may depend on other parameters (an accumulator type
/// on the operands' type; tile sizes on the head dimension, per chip).
/// Every name must be declared by a `// tile.params:` line.
static LogicalResult applyKeyedParams(llvm::SourceMgr &sourceMgr,
                                      StringRef buffer,
                                      std::vector<KernelParam> &params,
                                      const llvm::StringSet<> *given) {
  bool ok = true;
  auto error = [&](const char *at, const Twine &message) {
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                           llvm::SourceMgr::DK_Error, message);
    ok = false;
  };
  for (StringRef text : markedLines(buffer, chipParamsMarker)) {
    auto [key, assignments] = text.split("):");
    bool condition = text.contains("):") && key.contains('=');
    if (condition != (given != nullptr))
      continue;
    if (!condition) {
      if (!text.contains("):") || key.empty() ||
          !llvm::all_of(key, isValueChar)) {
        error(text.data(), "malformed per-chip parameter line (expected "
                           "'// tile.params(CHIP): NAME=VALUE...')");
        continue;
      }
      applyDefaultLine(assignments, key, params, error,
                       [&](StringRef) { return key == chip; });
      continue;
    }
    FailureOr<bool> holds = evaluateCondition(
        key, params, "// tile.params([CHIP] NAME=VALUE...): NAME=VALUE...",
        error);
    if (failed(holds))
      continue;
    applyDefaultLine(assignments, key, params, error, [&](StringRef name) {
      return *holds && !given->contains(name);
    });
  }
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Per-chip options
//===----------------------------------------------------------------------===//

namespace {
/// An option of this tool that a kernel file may set for one chip with a
/// `// tile.options(CHIP): NAME=VALUE...` line: the options that change
/// the code generated, never paths or outputs. Boolean options take
/// `true` or `false`, integer ones one of `values` in decimal.
struct FileOption {
  const char *name;
  cl::opt<bool> *flag = nullptr;
  cl::opt<int> *number = nullptr;
  ArrayRef<int> values = {};
  /// The accepted values, for messages.
  const char *expected = "true or false";

  cl::Option &option() const {
    return flag ? static_cast<cl::Option &>(*flag) : *number;
  }

  /// Whether `value` is accepted; sets the option to it when `set`.
  bool apply(StringRef value, bool set) const {
    if (flag) {
      if (value != "true" && value != "false")
        return false;
      if (set)
        *flag = value == "true";
      return true;
    }
    int v = 0;
    if (value.getAsInteger(10, v) || !llvm::is_contained(values, v))
      return false;
    if (set)
      *number = v;
    return true;
  }
};
} // namespace

/// The options a `// tile.options(CHIP):` line may set.
static ArrayRef<FileOption> fileOptions() {
  static const int bitwidths[] = {32, 64}, levels[] = {0, 1, 2, 3},
                   blocks[] = {0, 1,  2,  3,  4,  5,  6,  7, 8,
                               9, 10, 11, 12, 13, 14, 15, 16};
  static const FileOption options[] = {
      {"index-bitwidth", nullptr, &indexBitwidth, bitwidths, "32 or 64"},
      {"opt-level", nullptr, &optLevel, levels, "0 to 3"},
      {"fast-math", &fastMath},
      {"min-blocks-per-sm", nullptr, &minBlocksPerSM, blocks, "0 to 16"},
      {"pingpong", &pingpong},
      {"no-tma-store", &noTmaStore},
      {"thread-store", &threadStore},
      {"no-warp-specialize", &noWarpSpecialize},
      {"persistent", &persistent},
  };
  return options;
}

/// The marker of a per-chip options line, after `//`: `tile.options(CHIP):`
/// (a line of `tile.options` without the chip is malformed).
static constexpr llvm::StringLiteral chipOptionsMarker = "tile.options";

/// Applies the `// tile.options(CHIP): NAME=VALUE...` lines of `buffer` for
/// the chip being compiled for, except to options given on the command
/// line (which win); lines for other chips are checked alike but change
/// nothing. A VALUE written `${PARAM}` is the final value of parameter
/// PARAM of `params` (so an option may follow the parameters, through
/// their keyed defaults). `applied` receives the NAME=VALUE assignments
/// that took effect.
static LogicalResult applyChipOptions(llvm::SourceMgr &sourceMgr,
                                      StringRef buffer,
                                      std::vector<KernelParam> &params,
                                      std::vector<std::string> &applied) {
  bool ok = true;
  auto error = [&](const char *at, const Twine &message) {
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                           llvm::SourceMgr::DK_Error, message);
    ok = false;
  };
  // Where each option was set, per chip, to report a second setting.
  llvm::StringMap<const char *> first;
  for (StringRef text : markedLines(buffer, chipOptionsMarker)) {
    StringRef lineChip, assignments;
    if (text.starts_with("("))
      std::tie(lineChip, assignments) = text.drop_front().split("):");
    if (!text.contains("):") || lineChip.empty() ||
        !llvm::all_of(lineChip, isValueChar)) {
      error(text.data() - chipOptionsMarker.size(),
            "malformed per-chip options line (expected "
            "'// tile.options(CHIP): NAME=VALUE...')");
      continue;
    }
    SmallVector<StringRef> words;
    llvm::SplitString(assignments, words);
    if (words.empty())
      error(text.data() - chipOptionsMarker.size(),
            "per-chip options line for " + lineChip +
                " sets no option (expected "
                "'// tile.options(CHIP): NAME=VALUE...')");
    for (StringRef word : words) {
      auto [name, written] = word.split('=');
      if (!word.contains('=') || name.empty() || written.empty()) {
        error(word.data(),
              "malformed option '" + word + "' (expected NAME=VALUE)");
        continue;
      }
      StringRef value = written;
      bool fromParam = written.consume_front("${") && written.consume_back("}");
      if (fromParam) {
        KernelParam *param = findParam(params, written);
        if (!param) {
          error(written.data(), "option '" + name + "' takes parameter '" +
                                    written +
                                    "', which has no '// tile.params:' "
                                    "declaration");
          continue;
        }
        value = param->value;
      }
      ArrayRef<FileOption> options = fileOptions();
      auto option = llvm::find_if(
          options, [&](const FileOption &o) { return name == o.name; });
      if (option == options.end()) {
        std::string known;
        for (const FileOption &o : options)
          known += (known.empty() ? "" : ", ") + std::string(o.name);
        error(word.data(), "unknown option '" + name +
                               "' in a per-chip options line (a kernel "
                               "file may set: " +
                               known + ")");
        continue;
      }
      if (!option->apply(value, /*set=*/false)) {
        // At the value as written (a parameter's value is not in the file).
        error(name.end() + 1, "option '" + name + "' has value '" + value +
                                  "', expected " + option->expected);
        continue;
      }
      auto [it, inserted] =
          first.try_emplace((lineChip + " " + name).str(), word.data());
      if (!inserted) {
        error(word.data(), "option '" + name + "' set twice for " + lineChip);
        sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(it->second),
                               llvm::SourceMgr::DK_Note, "first set here");
        continue;
      }
      // Checked for every chip; set only for this one, and only where the
      // command line left the option alone.
      bool set = lineChip == chip && !option->option().getNumOccurrences();
      if (set) {
        (void)option->apply(value, /*set=*/true);
        applied.push_back((name + "=" + value).str());
        if (fromParam)
          fileOptionsFromParams.insert(name);
      }
    }
  }
  return success(ok);
}

/// Parses "MxNxK..." (positive integers separated by 'x').
static bool parseShape(StringRef text, SmallVectorImpl<int64_t> &shape) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t v = 0;
    if (part.getAsInteger(10, v) || v <= 0)
      return false;
    shape.push_back(v);
  }
  return !shape.empty();
}

namespace {
/// One dimension of a tuned table entry's shape: an exact size ("4096"),
/// or a range ("1..64", "65..", "..256", "*") with an optional alignment
/// ("*%8": multiples of 8) or misalignment ("*%!8": sizes that are not).
struct DimPattern {
  int64_t lo = 0, hi = std::numeric_limits<int64_t>::max(), align = 1;
  bool hasLo = false, hasHi = false, exact = false, misaligned = false;

  bool contains(int64_t v) const {
    return v >= lo && v <= hi && (v % align == 0) != misaligned;
  }
};

/// One argument of a `via=` entry's call: argument `arg` of the kernel
/// being compiled, transposed or not.
struct ViaArg {
  unsigned arg = 0;
  bool transpose = false;
  /// As written, for messages: "transpose(arg0)".
  std::string text;
};

/// What a `via=OTHER(ARG, ...)` entry launches instead of the kernel being
/// compiled: the kernel file OTHER.mlir next to it, on (views of) its
/// arguments.
struct Via {
  std::string kernel;
  SmallVector<ViaArg> args;
  /// As written, without blanks: "via=gemm_nn(transpose(arg0),arg1,arg2)".
  std::string text;
};

/// An entry of a tuned table that applies to the kernel being compiled.
struct TableEntry {
  unsigned line = 0;
  SmallVector<DimPattern> shape;
  /// Whether every dimension is an exact size (a measured shape), not a
  /// rule over ranges.
  bool exact = true;
  /// The parameters it sets: of the kernel being compiled, or with `via`
  /// of the kernel that `via` names.
  SmallVector<std::pair<std::string, std::string>> assigned;
  std::optional<Via> via;
  /// `cost=W`: the variant competes with the costed rules next to it on W
  /// times the waves of its grid (docs/GEMM.md, "Costed rules"); 0 for
  /// none.
  int64_t cost = 0;
  /// `when=CLAUSE`s: comparisons over the sizes of the `// tile.dispatch:`
  /// line and `resident_blocks` that the rule must also meet, as written
  /// (without blanks), and, once the level's sizes are known, as manifest
  /// rule clauses over the kernel's arguments.
  SmallVector<std::string> when, whenRule;
  /// `rules=FILE` (with `via`): the kernel that `via` names is launched
  /// through a dispatching manifest of its own, over the rule entries of
  /// the table FILE (relative to this table's directory) for it; empty
  /// for none.
  std::string rules;
  /// The entry's text without its comment, for messages.
  std::string text;
  /// The table it was read from, for messages.
  std::string table;
  /// A `staged-output` entry (KERNEL staged-output [KEY=VALUE...] :
  /// NAME=VALUE...): not a rule but the assignments of the twins that
  /// --dispatch derives for the rules whose builds have an output staged.
  bool stagedOutput = false;
  /// For a twin so derived, the line of the staged-output entry; 0 for
  /// none.
  unsigned twinOf = 0;
};
} // namespace

/// The syntax of a `via=` call, for messages.
static constexpr llvm::StringLiteral viaSyntax =
    "via=OTHER(ARG, ...), each ARG argJ or transpose(argJ)";

/// Parses one argument of a `via=` call: `argJ` or `transpose(argJ)`.
static bool parseViaArg(StringRef text, ViaArg &arg) {
  text = text.trim();
  arg.text = text.str();
  if (text.consume_front("transpose")) {
    text = text.ltrim();
    if (!text.consume_front("(") || !text.consume_back(")"))
      return false;
    text = text.trim();
    arg.transpose = true;
  }
  return text.consume_front("arg") && !text.empty() &&
         llvm::all_of(text, llvm::isDigit) && !text.getAsInteger(10, arg.arg);
}

/// Takes the `via=OTHER(ARG, ...)` call out of an entry's `assignments`
/// (blanks allowed inside the parentheses) into `via`; `assignments`
/// keeps the rest. Returns false, with `bad` the text, where it is
/// malformed or given twice; true also where there is none.
static bool extractVia(std::string &assignments, std::optional<Via> &via,
                       std::string &bad) {
  StringRef text = assignments;
  size_t start = 0;
  while ((start = text.find("via=", start)) != StringRef::npos && start &&
         !llvm::isSpace(text[start - 1]))
    ++start;
  if (start == StringRef::npos)
    return true;
  size_t open = text.find_first_of("( \t", start);
  if (open == StringRef::npos || text[open] != '(') {
    bad = text.slice(start, open).str();
    return false;
  }
  size_t close = open;
  int depth = 0;
  for (; close < text.size(); ++close) {
    if (text[close] == '(')
      ++depth;
    else if (text[close] == ')' && --depth == 0)
      break;
  }
  StringRef call = text.slice(start, close + 1);
  bad = call.str();
  if (close >= text.size())
    return false;
  Via result;
  result.kernel = text.slice(start + strlen("via="), open).str();
  if (!isParamName(result.kernel))
    return false;
  // The arguments: split at the commas outside parentheses.
  StringRef inside = text.slice(open + 1, close);
  size_t from = 0;
  depth = 0;
  for (size_t i = 0; i <= inside.size(); ++i) {
    if (i < inside.size() && inside[i] != ',') {
      depth += inside[i] == '(' ? 1 : inside[i] == ')' ? -1 : 0;
      continue;
    }
    if (depth)
      continue;
    ViaArg arg;
    if (!parseViaArg(inside.slice(from, i), arg))
      return false;
    result.args.push_back(std::move(arg));
    from = i + 1;
  }
  for (char c : call)
    if (!llvm::isSpace(c))
      result.text += c;
  std::string rest =
      (text.take_front(start) + " " + text.drop_front(close + 1)).str();
  if (via || StringRef(rest).contains("via="))
    return false;
  via = std::move(result);
  assignments = std::move(rest);
  return true;
}

/// Parses an entry's shape: dimensions separated by 'x', each an exact
/// size or `[LO]..[HI]` or `*`, optionally followed by `%ALIGN` (a
/// multiple of ALIGN) or `%!ALIGN` (not a multiple of ALIGN, ALIGN > 1).
static bool parsePattern(StringRef text, SmallVectorImpl<DimPattern> &shape) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef part : parts) {
    DimPattern dim;
    auto [range, align] = part.split('%');
    dim.misaligned = align.consume_front("!");
    if (part.contains('%') &&
        (align.getAsInteger(10, dim.align) || dim.align <= 0 ||
         (dim.misaligned && dim.align == 1)))
      return false;
    if (range == "*") {
    } else if (range.contains("..")) {
      auto [lo, hi] = range.split("..");
      if (!lo.empty() && (lo.getAsInteger(10, dim.lo) || dim.lo < 0))
        return false;
      if (!hi.empty() && (hi.getAsInteger(10, dim.hi) || dim.hi < dim.lo))
        return false;
      dim.hasLo = !lo.empty();
      dim.hasHi = !hi.empty();
    } else {
      if (range.getAsInteger(10, dim.lo) || dim.lo <= 0)
        return false;
      dim.hi = dim.lo;
      dim.exact = !part.contains('%');
    }
    shape.push_back(dim);
  }
  return !shape.empty();
}

/// Reads the entries of the tuned table at `path` that apply to kernel
/// `stem` with the current `params` and chip. An entry is a line
///   KERNEL SHAPE [KEY=VALUE...] : [via=OTHER(ARG, ...) [rules=FILE]]
///   NAME=VALUE...
/// [# comment] that applies when every KEY has that VALUE, or one of the
/// values of KEY=V1|V2|... (after -D; the key `chip` compares with
/// --chip); SHAPE has `rank` dimensions. Among the assignments, `cost=W`
/// (rule entries only) is the entry's weight, not a parameter, and
/// `rules=FILE` (with via=) names the table of OTHER's rules. A line
///   KERNEL staged-output [KEY=VALUE...] : NAME=VALUE...
/// is not a rule: its assignments make the twins that --dispatch derives
/// for rules whose builds have an output staged (deriveStagedOutputTwins).
/// Lines starting with '#' are comments. Malformed lines and assignments
/// to undeclared parameters are errors (for a via= entry, --dispatch
/// checks its assignments against the kernel it names).
static LogicalResult readTable(StringRef path, StringRef stem,
                               ArrayRef<KernelParam> params, size_t rank,
                               StringRef rankHint,
                               std::vector<TableEntry> &entries) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << "tile-compile: cannot read " << path << ": "
                 << buffer.getError().message() << "\n";
    return failure();
  }
  auto valueOf = [&](StringRef name) -> std::optional<StringRef> {
    if (name == "chip")
      return StringRef(chip);
    for (const KernelParam &p : params)
      if (p.name == name)
        return StringRef(p.value);
    return std::nullopt;
  };
  StringRef rest = (*buffer)->getBuffer();
  for (unsigned lineNo = 1; !rest.empty(); ++lineNo) {
    StringRef line;
    std::tie(line, rest) = rest.split('\n');
    line = line.split('#').first.trim();
    if (line.empty())
      continue;
    auto [head, tail] = line.split(':');
    std::string assignments = tail.str(), badVia;
    TableEntry entry;
    bool viaOk = extractVia(assignments, entry.via, badVia);
    SmallVector<StringRef> words, values;
    llvm::SplitString(head, words);
    llvm::SplitString(assignments, values);
    auto malformed = [&](const Twine &why) {
      llvm::errs() << path << ":" << lineNo << ": error: " << why << "\n";
      return failure();
    };
    entry.stagedOutput = words.size() >= 2 && words[1] == "staged-output";
    if (!line.contains(':') || words.size() < 2 ||
        (!entry.stagedOutput &&
         (!parsePattern(words[1], entry.shape) || entry.shape.size() != rank)))
      return malformed("expected 'KERNEL SHAPE [KEY=VALUE...] : "
                       "[via=OTHER(ARG, ...)] [NAME=VALUE...]' with a shape "
                       "of " +
                       Twine(rank) + " dimensions, " + rankHint);
    if (!viaOk)
      return malformed("malformed '" + badVia + "' (expected " + viaSyntax +
                       ", at most one per entry)");
    if (entry.stagedOutput && entry.via)
      return malformed("a staged-output entry sets parameters of " + words[0] +
                       "'s own twin builds; it takes no via=");
    if (words[0] != stem)
      continue;
    bool applies = true;
    for (StringRef key : ArrayRef(words).drop_front(2)) {
      // NAME=VALUE, or NAME=V1|V2|... for any of the values.
      auto [name, value] = key.split('=');
      SmallVector<StringRef> alternatives;
      value.split(alternatives, '|');
      if (!key.contains('=') || !isParamName(name) ||
          !llvm::all_of(alternatives, isParamValue))
        return malformed("malformed key '" + key + "'");
      std::optional<StringRef> have = valueOf(name);
      applies &= have && llvm::is_contained(alternatives, *have);
    }
    for (StringRef word : values) {
      StringRef name, value;
      if (entry.stagedOutput &&
          (word.starts_with("rules=") || word.starts_with("when=") ||
           word.starts_with("cost=")))
        return malformed("a staged-output entry takes NAME=VALUE "
                         "assignments only (its twins take their rules' " +
                         word.split('=').first + "=), got '" + word + "'");
      if (word.starts_with("rules=")) {
        if (!entry.via)
          return malformed("'" + word +
                           "' takes the rules of the kernel that via= names "
                           "from its table, but the entry has no via=");
        if (!entry.rules.empty() || word == "rules=")
          return malformed("expected one rules=FILE, got '" + word + "'");
        entry.rules = word.drop_front(strlen("rules=")).str();
        continue;
      }
      if (word.starts_with("when=")) {
        if (word == "when=")
          return malformed("expected a comparison after 'when=' (e.g. "
                           "when=M*N<=4*resident_blocks)");
        entry.when.push_back(word.drop_front(strlen("when=")).str());
        continue;
      }
      if (!splitAssignment(word, name, value))
        return malformed("malformed assignment '" + word + "'");
      if (name == "cost") {
        if (entry.cost || value.getAsInteger(10, entry.cost) ||
            entry.cost <= 0 || entry.cost > INT32_MAX)
          return malformed("expected one cost=W with W from 1 to " +
                           Twine(INT32_MAX) + ", got '" + word + "'");
        continue;
      }
      // A via= entry sets the other kernel's parameters, which --dispatch
      // checks against that file.
      if (name == "chip" || (!entry.via && !valueOf(name)))
        return malformed("'" + name + "' is not a parameter of " +
                         (entry.via ? StringRef(entry.via->kernel) : stem));
      entry.assigned.push_back({name.str(), value.str()});
    }
    if (entry.stagedOutput && entry.assigned.empty())
      return malformed("a staged-output entry needs the assignments that "
                       "make its twins store their outputs without TMA "
                       "(e.g. THREAD_STORE=true)");
    entry.exact =
        !entry.stagedOutput &&
        llvm::all_of(entry.shape, [](const DimPattern &d) { return d.exact; });
    if (entry.exact && entry.cost)
      return malformed("cost= weighs a rule entry's waves; a measured shape "
                       "takes none");
    if (entry.exact && !entry.when.empty())
      return malformed("when= narrows a rule entry; a measured shape takes "
                       "none");
    if (!entry.when.empty() && !entry.rules.empty())
      return malformed("when= may read resident_blocks of the variant's "
                       "kernel, but rules=" +
                       entry.rules +
                       " launches a dispatching manifest, which has none");
    if (entry.cost && !entry.rules.empty())
      return malformed("cost= weighs the waves of a variant's kernel, but "
                       "rules=" +
                       entry.rules +
                       " launches a dispatching manifest, which has none");
    if (!applies)
      continue;
    entry.line = lineNo;
    entry.text = line.str();
    entry.table = path.str();
    entries.push_back(std::move(entry));
  }
  return success();
}

/// Applies the entry of the tuning table `tunedTable` for kernel `stem`
/// that fits `tunedShape` best to the parameters not set by -D (`fixed`):
/// an exact entry of that very shape (measured there), else the first rule
/// entry whose ranges hold the shape, else the exact entry nearest to it
/// (sum of |log| ratios over the dimensions; ties go to the earlier). The
/// entries' keys are matched against `keyed` (the parameters with their
/// keyed defaults); the values taken join `fixed`, as if given with -D,
/// so that keyed defaults then follow them (BKU after BK) as they follow
/// -D's and as each --dispatch build's do.
static LogicalResult applyTuned(const std::vector<KernelParam> &keyed,
                                std::vector<KernelParam> &params,
                                llvm::StringSet<> &fixed, StringRef stem) {
  if (tunedTable.empty())
    return success();
  SmallVector<int64_t> want;
  if (tunedShape.empty() || !parseShape(tunedShape, want)) {
    llvm::errs() << "tile-compile: --tuned needs --shape MxNxK, got '"
                 << tunedShape << "'\n";
    return failure();
  }
  std::vector<TableEntry> entries;
  if (failed(readTable(tunedTable, stem, keyed, want.size(), "like --shape",
                       entries)))
    return failure();
  // A via= entry configures another kernel: nothing here to tune; a when=
  // one holds for some launches of a shape, which --shape cannot say.
  llvm::erase_if(entries, [](const TableEntry &e) {
    return e.via || !e.when.empty() || e.stagedOutput;
  });
  double best = 0;
  const TableEntry *nearest = nullptr, *rule = nullptr;
  for (const TableEntry &entry : entries) {
    if (!entry.exact) {
      bool holds = llvm::all_of(llvm::zip(entry.shape, want), [](auto pair) {
        return std::get<0>(pair).contains(std::get<1>(pair));
      });
      if (holds && !rule)
        rule = &entry;
      continue;
    }
    double distance = 0;
    for (auto [dim, size] : llvm::zip(entry.shape, want))
      distance += std::abs(std::log(double(dim.lo) / double(size)));
    if (!nearest || distance < best) {
      best = distance;
      nearest = &entry;
    }
  }
  const TableEntry *chosen = nearest;
  if (rule && (!nearest || best > 0))
    chosen = rule;
  if (!chosen) {
    llvm::errs() << "tile-compile: warning: " << tunedTable
                 << " has no entry for " << stem
                 << " with these parameters; keeping the defaults\n";
    return success();
  }
  for (auto &[name, value] : chosen->assigned) {
    if (fixed.contains(name))
      continue;
    for (KernelParam &p : params)
      if (p.name == name)
        p.value = value;
    fixed.insert(name);
  }
  llvm::errs() << "tile-compile: tuned for " << tunedShape << ": "
               << chosen->text << "\n";
  return success();
}

namespace {
/// An open `// tile.if(COND):` region of a kernel file.
struct IfRegion {
  /// Where its `tile.if` and its `tile.else` (if any) lines start.
  const char *start, *elseStart = nullptr;
  /// Whether the lines around it are kept, and whether COND holds.
  bool outerKept, holds;

  /// Whether the lines at this point of the region are kept.
  bool kept() const { return outerKept && holds == !elseStart; }
};
} // namespace

/// The marker of a conditional region line of `line` (`tile.if`,
/// `tile.else` or `tile.endif`, after `//` and spaces), or empty; `rest`
/// receives the text after it, without trailing spaces.
static StringRef regionMarker(StringRef line, StringRef &rest) {
  StringRef text = line.ltrim();
  if (!text.consume_front("//"))
    return "";
  text = text.ltrim();
  StringRef marker =
      text.take_front(text.find_if_not(isNameChar, strlen("tile.")));
  if (marker != "tile.if" && marker != "tile.else" && marker != "tile.endif")
    return "";
  rest = text.drop_front(marker.size()).rtrim();
  return marker;
}

/// The lines of `buffer`, split at newlines, with those of the regions not
/// taken left empty, so that line numbers stay those of the file. A region
/// is `// tile.if(COND):`, the lines kept where COND (as of a
/// `// tile.params(COND):` line) holds on `params`, optionally
/// `// tile.else:` and the lines kept where it does not, and
/// `// tile.endif`; regions nest. Reports malformed and unmatched markers
/// through `sourceMgr`, which holds `buffer`.
static FailureOr<SmallVector<StringRef>>
selectRegions(llvm::SourceMgr &sourceMgr, StringRef buffer,
              ArrayRef<KernelParam> params) {
  bool ok = true;
  auto error = [&](const char *at, const Twine &message) {
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                           llvm::SourceMgr::DK_Error, message);
    ok = false;
  };
  auto expect = [&](StringRef marker, StringRef syntax) {
    error(marker.data(),
          "malformed '" + marker + "' line (expected '" + syntax + "')");
  };
  const char *ifSyntax = "// tile.if([CHIP] NAME=VALUE...):";
  SmallVector<IfRegion> open;
  SmallVector<StringRef> lines;
  buffer.split(lines, '\n');
  for (StringRef &line : lines) {
    bool kept = open.empty() || open.back().kept();
    StringRef rest, marker = regionMarker(line, rest);
    if (marker == "tile.if") {
      FailureOr<bool> holds = false;
      if (rest.consume_front("(") && rest.consume_back("):"))
        holds = evaluateCondition(rest, params, ifSyntax, error);
      else
        expect(marker, ifSyntax);
      open.push_back(
          {marker.data(), nullptr, kept, succeeded(holds) && *holds});
    } else if (!marker.empty() && open.empty()) {
      error(marker.data(), "'" + marker + "' without an open 'tile.if' region");
    } else if (marker == "tile.else") {
      if (rest != ":")
        expect(marker, "// tile.else:");
      if (open.back().elseStart) {
        error(marker.data(), "second 'tile.else' in one 'tile.if' region");
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(open.back().elseStart),
            llvm::SourceMgr::DK_Note, "first 'tile.else' here");
      } else {
        open.back().elseStart = marker.data();
      }
      kept = open.back().outerKept;
    } else if (marker == "tile.endif") {
      if (!rest.empty())
        expect(marker, "// tile.endif");
      kept = open.pop_back_val().outerKept;
    }
    if (!kept)
      line = StringRef();
  }
  for (const IfRegion &region : open)
    error(region.start, "unterminated 'tile.if' region");
  if (!ok)
    return failure();
  return lines;
}

/// Replaces every `${NAME}` of `line` by the value of its parameter of
/// `values`, appending the result to `result`; reports, through
/// `sourceMgr`, references that are malformed or name no parameter.
static LogicalResult substituteLine(llvm::SourceMgr &sourceMgr, StringRef line,
                                    const llvm::StringMap<StringRef> &values,
                                    std::string &result) {
  bool ok = true;
  size_t pos = 0;
  while (true) {
    size_t start = line.find("${", pos);
    result += line.slice(pos, start).str();
    if (start == StringRef::npos)
      break;
    llvm::SMLoc loc = llvm::SMLoc::getFromPointer(line.data() + start);
    size_t end = line.find('}', start + 2);
    StringRef name = line.slice(start + 2, end);
    if (end == StringRef::npos || !isParamName(name)) {
      sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error,
                             "malformed parameter reference (expected "
                             "${NAME}, NAME of [A-Za-z_][A-Za-z0-9_]*)");
      ok = false;
      pos = start + 2;
      continue;
    }
    auto value = values.find(name);
    if (value == values.end()) {
      sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error,
                             "parameter '" + name +
                                 "' has no value (declare it with a default "
                                 "in a '// tile.params:' line)");
      ok = false;
    } else {
      result += value->second.str();
    }
    pos = end + 1;
  }
  return success(ok);
}

/// The text of `buffer` to parse: the lines of the `// tile.if` regions
/// not taken left empty (selectRegions), and every `${NAME}` of the others
/// replaced by the value of parameter NAME of `params`. Reports errors
/// through `sourceMgr`, which holds `buffer`. Values hold no newline, so
/// line numbers stay those of the file.
static FailureOr<std::string>
substituteParams(llvm::SourceMgr &sourceMgr, StringRef buffer,
                 const std::vector<KernelParam> &params) {
  FailureOr<SmallVector<StringRef>> lines =
      selectRegions(sourceMgr, buffer, params);
  if (failed(lines))
    return failure();
  llvm::StringMap<StringRef> values;
  for (const KernelParam &p : params)
    values[p.name] = p.value;
  std::string result;
  result.reserve(buffer.size());
  bool ok = true;
  for (auto [i, line] : llvm::enumerate(*lines)) {
    if (i)
      result += '\n';
    ok &= succeeded(substituteLine(sourceMgr, line, values, result));
  }
  if (!ok)
    return failure();
  return result;
}

/// Finds ptxas as documented for --ptxas; empty if there is none.
static std::string findPtxas() {
  if (!ptxasPath.empty())
    return ptxasPath;
  std::string toolkit = tile::getCudaToolkitPath(toolkitPath);
  if (!toolkit.empty()) {
    SmallString<256> path(toolkit);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return path.str().str();
  }
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return "";
}

static LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "tile-compile: " << error << "\n";
    return failure();
  }
  file->os() << contents;
  file->keep();
  writtenFiles.push_back(path.str());
  return success();
}

/// True when --chip names an AMD chip (compiled by tile-to-rocdl to HSACO).
static bool targetsAMD() {
  std::optional<tile::TargetLimits> limits = tile::lookupTargetLimits(chip);
  return limits && limits->vendor == tile::Vendor::amd;
}

/// Sets the tile-to-rocdl options from the command line (AMD chips):
/// HSACO.
static void setROCDLOptions(tile::TileToROCDLPipelineOptions &options) {
  options.chip = chip;
  options.optLevel = optLevel;
  options.indexBitwidth = indexBitwidth;
  options.format = "bin";
  options.toolkit = toolkitPath;
  options.fastMath = fastMath;
  options.minBlocksPerSM = minBlocksPerSM;
  options.persistent = persistent;
}

/// Sets the pipeline options from the command line.
static void setPipelineOptions(tile::TileToNVVMPipelineOptions &options,
                               bool warpSpecialize) {
  options.chip = chip;
  options.features = features;
  options.optLevel = optLevel;
  options.indexBitwidth = indexBitwidth;
  options.warpSpecialize = warpSpecialize;
  options.tmaStore = !noTmaStore;
  options.threadStore = threadStore;
  options.pingpong = pingpong;
  options.persistent = persistent;
  options.fastMath = fastMath;
  options.minBlocksPerSM = minBlocksPerSM;
  options.format = "isa";
  options.toolkit = toolkitPath;
}

using Clock = std::chrono::steady_clock;

/// Milliseconds since `t`.
static double since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Reads `kernel`'s resources from the output of `ptxas -v` and appends
/// the rest of that output (warnings) to `messages`. False where the output
/// has no register count for the kernel.
static bool readPtxasReport(StringRef log, StringRef kernel,
                            KernelResources &out, std::string &messages) {
  bool inKernel = false, found = false;
  auto number = [](StringRef text, StringRef before) -> int64_t {
    size_t at = text.find(before);
    if (at == StringRef::npos)
      return 0;
    StringRef digits = text.substr(0, at).rtrim();
    digits = digits.substr(digits.find_last_not_of("0123456789") + 1);
    int64_t value = 0;
    return digits.getAsInteger(10, value) ? 0 : value;
  };
  SmallVector<StringRef> lines;
  log.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    StringRef info = line;
    if (!info.consume_front("ptxas info")) {
      // The properties line under "Function properties for K".
      if (line.contains("bytes spill stores")) {
        if (inKernel) {
          out.spillStores = number(line, " bytes spill stores");
          out.spillLoads = number(line, " bytes spill loads");
        }
        continue;
      }
      messages += (line + "\n").str();
      continue;
    }
    info = info.ltrim(" :");
    if (info.consume_front("Compiling entry function '"))
      inKernel = info.starts_with(kernel.str() + "'");
    else if (inKernel && info.starts_with("Used ")) {
      out.registers = number(info, " registers");
      out.staticShared = number(info, " bytes smem");
      found = true;
    }
  }
  return found;
}

/// Reads `kernel`'s registers, spills, scratch and LDS from the AMDGPU
/// metadata note of code object `hsaco`. False where it has none for the
/// kernel.
static bool readCodeObjectResources(StringRef hsaco, StringRef kernel,
                                    KernelResources &out) {
  auto elf = llvm::object::ELF64LEFile::create(hsaco);
  if (!elf) {
    llvm::consumeError(elf.takeError());
    return false;
  }
  auto sections = elf->sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return false;
  }
  auto number = [](llvm::msgpack::DocNode &node) -> int64_t {
    if (node.getKind() == llvm::msgpack::Type::UInt)
      return node.getUInt();
    if (node.getKind() == llvm::msgpack::Type::Int)
      return node.getInt();
    return 0;
  };
  bool found = false;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf->notes(section, error)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              /*Multi=*/false) ||
          !doc.getRoot().isMap())
        continue;
      llvm::msgpack::DocNode &kernels =
          doc.getRoot().getMap()["amdhsa.kernels"];
      if (!kernels.isArray())
        continue;
      for (llvm::msgpack::DocNode &entry : kernels.getArray()) {
        if (!entry.isMap())
          continue;
        llvm::msgpack::MapDocNode fields = entry.getMap();
        llvm::msgpack::DocNode &name = fields[".name"];
        if (!name.isString() || name.getString() != kernel)
          continue;
        out.amd = true;
        out.registers = number(fields[".vgpr_count"]);
        out.agprs = number(fields[".agpr_count"]);
        out.sgprs = number(fields[".sgpr_count"]);
        out.vgprSpills = number(fields[".vgpr_spill_count"]);
        out.sgprSpills = number(fields[".sgpr_spill_count"]);
        out.scratch = number(fields[".private_segment_fixed_size"]);
        out.staticShared = number(fields[".group_segment_fixed_size"]);
        found = true;
      }
    }
    llvm::consumeError(std::move(error));
  }
  return found;
}

/// The `# resources` comment of a kernel's manifest and the --resources
/// line: `resources` for `launch` on --chip.
static std::string describeResources(const KernelResources &resources,
                                     const KernelLaunch &launch) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  int64_t shared = resources.staticShared + launch.sharedBytes;
  std::optional<tile::TargetLimits> limits = tile::lookupTargetLimits(chip);
  if (resources.amd) {
    os << resources.registers << " VGPRs (" << resources.agprs << " AGPRs), "
       << resources.sgprs << " SGPRs, " << resources.vgprSpills
       << " VGPRs spilled, " << resources.sgprSpills << " SGPRs spilled, "
       << resources.scratch << " bytes scratch, " << shared << " bytes LDS";
    if (limits) {
      tile::ResidentWaves resident = tile::residentWaves(
          *limits, threads, resources.registers, resources.sgprs, shared);
      os << ", " << resident.wavesPerSimd
         << (resident.wavesPerSimd == 1 ? " wave" : " waves") << " per SIMD, "
         << resident.workgroups
         << (resident.workgroups == 1 ? " workgroup of " : " workgroups of ")
         << threads << " threads per compute unit (limited by "
         << resident.limit << ")";
    }
    return text;
  }
  os << resources.registers << " registers, " << resources.spillStores
     << " bytes spill stores, " << resources.spillLoads
     << " bytes spill loads, " << shared << " bytes shared memory";
  if (limits) {
    tile::ResidentBlocks resident =
        tile::residentBlocks(*limits, threads, resources.registers, shared);
    os << ", " << resident.blocks
       << (resident.blocks == 1 ? " block of " : " blocks of ") << threads
       << " threads per multiprocessor (limited by " << resident.limit << ")";
  }
  return text;
}

/// Lowers `module` with `options` into `out`: its launches, the PTX of
/// each kernel module and, where `ptxas` is given, a cubin of each kernel
/// (in memory). Errors set `out.failed` and `out.error`; they are also
/// printed (diagnostics by the context's handlers) unless `quiet`.
static void compileVariant(MLIRContext &context, ModuleOp module,
                           const tile::TileToNVVMPipelineOptions &options,
                           StringRef ptxas, bool quiet, Variant &out) {
  auto fail = [&](const Twine &message) {
    if (!quiet)
      llvm::errs() << "tile-compile: " << message << "\n";
    if (out.error.empty())
      out.error = message.str();
    return failure();
  };
  out.failed = true;

  // Phase 1: tile IR down to outlined kernels, where the launches can still
  // be read in terms of the function's arguments.
  auto phase = Clock::now();
  PassManager toGPU(&context);
  bool amd = targetsAMD();
  tile::TileToROCDLPipelineOptions rocdl;
  setROCDLOptions(rocdl);
  if (amd)
    tile::buildTileToGPUPipeline(toGPU, rocdl);
  else
    tile::buildTileToGPUPipeline(toGPU, options);
  toGPU.addPass(createGpuKernelOutliningPass());
  if (failed(toGPU.run(module)))
    return;
  // Checked here, where locations survive (the kernel modules lose them
  // in phase 2), though tile-convert-nvgpu-to-nvvm rejects it too.
  WalkResult deviceMap = module->walk([](nvgpu::TmaCreateDescriptorOp op) {
    if (!op->getParentOfType<gpu::GPUModuleOp>())
      return WalkResult::advance();
    op.emitError("tensor map made inside the kernel; make it on the host "
                 "from a memref argument of the function");
    return WalkResult::interrupt();
  });
  if (deviceMap.wasInterrupted() ||
      failed(collectLaunches(module, out.launches)))
    return;
  out.frontMs = since(phase);

  // The manifest stands for the host code from here on: only the kernel
  // modules are lowered, so host code the runtime replaces (tensor maps
  // encoded at launch, say) need not lower to LLVM.
  for (Operation &op : llvm::make_early_inc_range(module.getOps()))
    if (!isa<gpu::GPUModuleOp>(op))
      op.erase();

  // Phase 2: NVVM lowering and serialization to PTX, or ROCDL lowering and
  // serialization to HSACO.
  phase = Clock::now();
  PassManager toBinary(&context);
  if (failed(
          amd ? tile::buildGPUToROCDLBinaryPipeline(toBinary, rocdl, fail)
              : tile::buildGPUToNVVMBinaryPipeline(toBinary, options, fail)) ||
      failed(toBinary.run(module)))
    return;
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        out.ptxByModule[binary.getSymName()] = object.getObject().str();
  });
  out.ptxMs = since(phase);

  // Phase 3: ptxas, on a temporary copy of each kernel's PTX.
  phase = Clock::now();
  for (const KernelLaunch &launch : out.launches) {
    auto ptx = out.ptxByModule.find(launch.module);
    if (ptx == out.ptxByModule.end()) {
      (void)fail("no binary for kernel module " + launch.module);
      return;
    }
    if (amd) {
      KernelResources resources;
      if (readCodeObjectResources(ptx->second, launch.kernel, resources))
        out.resourcesByKernel[launch.kernel] = resources;
      continue;
    }
    if (ptxas.empty())
      continue;
    SmallString<128> ptxPath, cubinPath;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("tile-compile", "ptx", fd,
                                           ptxPath) ||
        llvm::sys::fs::createTemporaryFile("tile-compile", "cubin",
                                           cubinPath)) {
      (void)fail("cannot create temporary files for ptxas");
      return;
    }
    SmallString<128> logPath;
    if (llvm::sys::fs::createTemporaryFile("tile-compile", "log", logPath)) {
      (void)fail("cannot create temporary files for ptxas");
      return;
    }
    llvm::FileRemover removePtx(ptxPath), removeCubin(cubinPath),
        removeLog(logPath);
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << ptx->second;
    }
    std::string arch = "-arch=" + options.chip;
    std::string opt =
        "-O" + std::to_string(std::min(3u, (unsigned)options.optLevel));
    // -v: the registers, spills and shared memory of each kernel, read from
    // ptxas's output; what else it says (warnings, errors) is passed on.
    StringRef args[] = {ptxas, arch, opt, "-v", ptxPath, "-o", cubinPath};
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                            StringRef(logPath)};
    std::string error;
    int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0,
                                       0, &error);
    auto log = llvm::MemoryBuffer::getFile(logPath);
    KernelResources resources;
    bool reported = log && readPtxasReport((*log)->getBuffer(), launch.kernel,
                                           resources, out.ptxasMessages);
    auto cubin = llvm::MemoryBuffer::getFile(cubinPath);
    if (rc != 0 || !cubin) {
      (void)fail("ptxas failed on the PTX of kernel " + launch.kernel +
                 (error.empty() ? "" : ": " + error));
      return;
    }
    out.cubinByKernel[launch.kernel] = (*cubin)->getBuffer().str();
    if (reported)
      out.resourcesByKernel[launch.kernel] = resources;
  }
  out.cubinMs = since(phase);
  out.failed = false;
}

/// Writes `launch` of `variant` as `base`.ptx, `base`.cubin (when the
/// variant has one) and `base`.manifest; a non-empty `fallback` names the
/// fallback's manifest in it.
static LogicalResult writeKernel(const KernelLaunch &launch,
                                 const Variant &variant, StringRef base,
                                 ArrayRef<KernelParam> params,
                                 StringRef fallback) {
  StringRef name = llvm::sys::path::filename(base);
  // AMD chips: the module's HSACO (a code object for the HIP runtime).
  bool amd = targetsAMD();
  StringRef suffix = amd ? ".hsaco" : ".ptx";
  if (failed(writeFile((base + suffix).str(),
                       variant.ptxByModule.lookup(launch.module))))
    return failure();
  std::string binary = (name + suffix).str(), kind = amd ? "hsaco" : "ptx";
  auto cubin = variant.cubinByKernel.find(launch.kernel);
  if (!amd && cubin != variant.cubinByKernel.end()) {
    if (failed(writeFile((base + ".cubin").str(), cubin->second)))
      return failure();
    binary = (name + ".cubin").str();
    kind = "cubin";
  }
  std::string manifest;
  llvm::raw_string_ostream os(manifest);
  os << "tile-launch-manifest 1\n"
     << "# compiled by tile-compile from " << inputFile << " for " << chip
     << (fallback.empty() && name.ends_with(".fallback")
             ? " without tensor maps, the fallback of " +
                   name.drop_back(strlen(".fallback")).str() + ".manifest"
             : "")
     << "\n";
  // A comment, which the runtime skips: the values the kernel was
  // specialized with, for people and scripts reading the manifest.
  if (!params.empty()) {
    os << "# params";
    for (const KernelParam &param : params)
      os << " " << param.name << "=" << param.value;
    os << "\n";
  }
  printFileOptions(os);
  auto resources = variant.resourcesByKernel.find(launch.kernel);
  std::string resourceText;
  if (resources != variant.resourcesByKernel.end()) {
    resourceText = describeResources(resources->second, launch);
    os << "# resources " << resourceText
       << (resources->second.amd ? " (code object metadata)" : " (ptxas -v)")
       << "\n";
  }
  os << "kernel " << launch.kernel << "\n"
     << "binary " << binary << " " << kind << "\n"
     << "index-bitwidth " << indexBitwidth << "\n";
  for (const std::string &param : launch.params)
    os << "param " << param << "\n";
  for (const std::string &name : launch.zeroed)
    os << "zero " << name << "\n";
  for (const std::string &staged : launch.staged)
    os << "stage " << staged << "\n";
  if (launch.dependentLaunch)
    os << "dependent-launch\n";
  os << "block " << launch.block[0] << " " << launch.block[1] << " "
     << launch.block[2] << "\n";
  if (launch.hasCluster)
    os << "cluster " << launch.cluster[0] << " " << launch.cluster[1] << " "
       << launch.cluster[2] << "\n";
  if (launch.sharedBytes)
    os << "shared " << launch.sharedBytes << "\n";
  const char *axes = "xyz";
  for (int axis = 0; axis < 3; ++axis)
    os << "grid " << axes[axis] << " " << launch.grid[axis] << "\n";
  if (!fallback.empty())
    os << "# launched instead where TMA cannot address the arguments\n"
       << "fallback " << fallback << "\n";
  if (failed(writeFile((base + ".manifest").str(), manifest)))
    return failure();
  llvm::outs() << "tile-compile: " << launch.kernel << " -> " << base
               << ".manifest (" << kind << ")\n";
  if (printResources)
    llvm::outs() << "tile-compile: resources of " << name << ": "
                 << (!resourceText.empty() ? resourceText
                     : amd ? "unknown (the code object has no AMDGPU "
                             "metadata for the kernel)"
                           : "unknown (no cubin to ask ptxas about: "
                             "--no-cubin, or no ptxas found)")
                 << "\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Shape dispatch
//===----------------------------------------------------------------------===//

/// The marker of the line naming the sizes a table's shapes stand for:
/// `// tile.dispatch: M=arg2.dim0 N=arg2.dim1 K=arg0.dim1`.
static constexpr llvm::StringLiteral dispatchMarker = "tile.dispatch:";

/// Reads the `// tile.dispatch:` line of `buffer`, kernel file `file`,
/// into (name, manifest expression) pairs, in order: the dimensions of a
/// table entry's shape. `from` is the rules= entry whose table's shapes
/// they are (null for the --dispatch table), where a missing line is
/// reported.
static LogicalResult
readDispatchSizes(StringRef buffer, StringRef file, const TableEntry *from,
                  SmallVectorImpl<std::pair<StringRef, StringRef>> &sizes) {
  for (StringRef text : markedLines(buffer, dispatchMarker)) {
    SmallVector<StringRef> words;
    llvm::SplitString(text, words);
    for (StringRef word : words) {
      auto [name, expr] = word.split('=');
      if (!word.contains('=') || !isParamName(name) || expr.empty()) {
        llvm::errs() << "tile-compile: " << file << ": malformed size '" << word
                     << "' in the '// tile.dispatch:' line (expected "
                        "NAME=argJ.dimK)\n";
        return failure();
      }
      sizes.push_back({name, expr});
    }
    return success(!sizes.empty());
  }
  if (from)
    llvm::errs() << from->table << ":" << from->line
                 << ": error: rules=" << from->rules << ": ";
  else
    llvm::errs() << "tile-compile: --dispatch: ";
  llvm::errs() << file
               << " has no '// tile.dispatch:' line naming the sizes the "
                  "table's shapes stand for (e.g. '// tile.dispatch: "
                  "M=arg2.dim0 N=arg2.dim1 K=arg0.dim1')\n";
  return failure();
}

namespace {
/// Reads an entry's `when=CLAUSE` (`text`) by the grammar of the runtime's
/// expressions (docs/Runtime.md, "Grid expressions"), so that a clause the
/// runtime would refuse is an error at the table's line, not in the
/// manifest written: EXPR OP EXPR with OP one of <= < >= > == !=, each
/// EXPR of integers, + - *, unary -, parentheses, the functions ceildiv,
/// floordiv, mod, min, max (two arguments) and primefloor (one), the sizes
/// of the `// tile.dispatch:` line and resident_blocks, nested at most as
/// deep as the runtime reads. Writes the clause
/// with each size replaced by its argument's size.
class WhenParser {
public:
  WhenParser(StringRef text, ArrayRef<std::pair<StringRef, StringRef>> sizes)
      : text(text), sizes(sizes) {}

  /// The manifest clause, or "" with `error` set.
  std::string parse() {
    std::string lhs, rhs;
    if (!expr(lhs))
      return "";
    StringRef rest = text.drop_front(pos);
    StringRef op;
    for (StringRef candidate : {"<=", ">=", "==", "!=", "<", ">"})
      if (rest.starts_with(candidate)) {
        op = candidate;
        break;
      }
    if (op.empty()) {
      std::string expected =
          "expected one comparison EXPR OP EXPR, OP one of <= < >= > == !=";
      return fail(rest.empty() ? expected
                               : "unexpected '" + rest.take_front(1).str() +
                                     "' (" + expected + ")");
    }
    pos += op.size();
    if (!expr(rhs))
      return "";
    if (pos != text.size())
      return fail("unexpected '" + text.drop_front(pos).take_front(1).str() +
                  "' after the comparison");
    return lhs + " " + op.str() + " " + rhs;
  }

  std::string error;

private:
  std::string fail(const Twine &message) {
    if (error.empty())
      error = message.str();
    return "";
  }
  bool failed(const Twine &message) {
    fail(message);
    return false;
  }
  bool at(char c) const { return pos < text.size() && text[pos] == c; }

  /// Counts a level of nesting as the runtime does (each expression and
  /// each unary minus), whose limit is 64.
  bool nest() {
    if (++depth <= 64)
      return true;
    return failed("expression nests too deeply");
  }

  bool expr(std::string &out) {
    if (!nest() || !term(out))
      return false;
    while (at('+') || at('-')) {
      out += text[pos++];
      if (!term(out))
        return false;
    }
    --depth;
    return true;
  }
  bool term(std::string &out) {
    if (!unary(out))
      return false;
    while (at('*')) {
      out += text[pos++];
      if (!unary(out))
        return false;
    }
    return true;
  }
  bool unary(std::string &out) {
    if (at('-')) {
      out += text[pos++];
      if (!nest() || !unary(out))
        return false;
      --depth;
      return true;
    }
    return primary(out);
  }
  bool primary(std::string &out) {
    if (pos == text.size())
      return failed("expected an integer, a name or '(' at the end");
    char c = text[pos];
    if (llvm::isDigit(c)) {
      size_t end = pos;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      int64_t value;
      if (text.slice(pos, end).getAsInteger(10, value))
        return failed("integer " + text.slice(pos, end) + " out of range");
      out += text.slice(pos, end).str();
      pos = end;
      return true;
    }
    if (c == '(') {
      out += text[pos++];
      if (!expr(out))
        return false;
      if (!at(')'))
        return failed("expected ')'");
      out += text[pos++];
      return true;
    }
    if (!llvm::isAlpha(c) && c != '_')
      return failed("unexpected '" + text.substr(pos, 1) + "'");
    size_t end = pos;
    while (end < text.size() && (llvm::isAlnum(text[end]) || text[end] == '_'))
      ++end;
    StringRef name = text.slice(pos, end);
    pos = end;
    int arity = llvm::StringSwitch<int>(name)
                    .Cases({"ceildiv", "floordiv", "mod", "min", "max"}, 2)
                    .Case("primefloor", 1)
                    .Default(0);
    if (arity) {
      out += name.str();
      if (!at('('))
        return failed("expected '(' after " + name);
      out += text[pos++];
      for (int i = 0; i < arity; ++i) {
        if (i) {
          if (!at(','))
            return failed(name + " takes " + Twine(arity) + " arguments");
          ++pos;
          out += ", ";
        }
        if (!expr(out))
          return false;
      }
      if (!at(')'))
        return failed(name + " takes " + Twine(arity) + " argument" +
                      (arity > 1 ? "s" : ""));
      out += text[pos++];
      return true;
    }
    if (name == "resident_blocks") {
      out += name.str();
      return true;
    }
    auto size =
        llvm::find_if(sizes, [&](const auto &s) { return s.first == name; });
    if (size == sizes.end()) {
      std::string names;
      for (auto [j, s] : llvm::enumerate(sizes))
        names += (j ? ", " : "") + s.first.str();
      return failed("unknown name '" + name +
                    "' (expected a size of the '// tile.dispatch:' line (" +
                    names + "), resident_blocks or an expression function)");
    }
    out += size->second.str();
    return true;
  }

  StringRef text;
  ArrayRef<std::pair<StringRef, StringRef>> sizes;
  size_t pos = 0;
  int depth = 0;
};
} // namespace

/// The manifest rule of a table entry's shape over `sizes` and its when=
/// clauses: "" when every dimension is `*` and it has none.
static std::string ruleOf(const TableEntry &entry,
                          ArrayRef<std::pair<StringRef, StringRef>> sizes) {
  SmallVector<std::string> clauses;
  for (auto [dim, size] : llvm::zip(entry.shape, sizes)) {
    std::string expr = size.second.str();
    if (dim.exact) {
      clauses.push_back(expr + " == " + std::to_string(dim.lo));
      continue;
    }
    if (dim.hasLo && dim.hasHi && dim.lo == dim.hi) {
      clauses.push_back(expr + " == " + std::to_string(dim.lo));
    } else {
      if (dim.hasLo)
        clauses.push_back(expr + " >= " + std::to_string(dim.lo));
      if (dim.hasHi)
        clauses.push_back(expr + " <= " + std::to_string(dim.hi));
    }
    if (dim.align > 1)
      clauses.push_back("mod(" + expr + ", " + std::to_string(dim.align) +
                        (dim.misaligned ? ") != 0" : ") == 0"));
  }
  clauses.append(entry.whenRule.begin(), entry.whenRule.end());
  return llvm::join(clauses, " and ");
}

/// The `param` lines of the manifest text `manifest` other than tensor
/// maps, passed as nothing, in the order of the function's arguments
/// (argJ by J): the interface of a dispatching manifest.
static std::vector<std::string> interfaceParams(StringRef manifest) {
  std::vector<std::pair<unsigned, std::string>> params;
  StringRef rest = manifest;
  while (!rest.empty()) {
    StringRef line;
    std::tie(line, rest) = rest.split('\n');
    SmallVector<StringRef> words;
    llvm::SplitString(line.split('#').first, words);
    if (words.size() < 3 || words[0] != "param" || words[2] == "tensormap")
      continue;
    unsigned number = ~0u;
    StringRef name = words[1];
    if (name.consume_front("arg"))
      (void)name.getAsInteger(10, number);
    params.push_back({number, (words[1] + " " + words[2] + " none").str()});
  }
  llvm::stable_sort(
      params, [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> lines;
  for (auto &param : params)
    lines.push_back(std::move(param.second));
  return lines;
}

namespace {
/// A kernel file that `via=` entries launch instead of the one being
/// compiled: its text and its parameters after its per-chip defaults.
struct Sibling {
  std::string path;
  llvm::SourceMgr sourceMgr;
  StringRef text;
  std::vector<KernelParam> params;
};

/// One build of --dispatch: a kernel file with every parameter set, into
/// `dir` under the output directory.
struct Build {
  std::string file;
  std::vector<std::string> config;
  std::string dir;
  /// Whether the file is a via= entry's kernel, which takes its own
  /// file's options (those given on the command line still win).
  bool sibling = false;
};
} // namespace

/// Reports `message` at the line of table entry `entry`; returns 1, the
/// exit status of a failure.
static int entryError(const TableEntry &entry, const Twine &message) {
  llvm::errs() << entry.table << ":" << entry.line << ": error: " << message
               << "\n";
  return 1;
}

/// `type` as MLIR prints it, for messages.
static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// `declared` with the values of `config` ("NAME=VALUE" for each, in
/// order).
static std::vector<KernelParam>
withConfig(const std::vector<KernelParam> &declared,
           const std::vector<std::string> &config) {
  std::vector<KernelParam> params = declared;
  for (auto [param, assignment] : llvm::zip(params, config))
    param.value = StringRef(assignment).split('=').second.str();
  return params;
}

/// The name and argument types of each function defined by `text`, a
/// kernel file named `name` after substitution; failure, with the parser's
/// errors, where it does not parse.
static FailureOr<std::vector<std::pair<std::string, SmallVector<Type>>>>
functionSignatures(MLIRContext &context, StringRef text, StringRef name) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                               llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  if (tile::reportParserTraps(sourceMgr))
    return failure();
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  std::vector<std::pair<std::string, SmallVector<Type>>> signatures;
  for (auto func : module->getOps<func::FuncOp>())
    if (!func.isExternal())
      signatures.emplace_back(func.getSymName().str(),
                              SmallVector<Type>(func.getArgumentTypes()));
  return signatures;
}

/// Checks the call of via= entry `entry` against the arguments of the
/// kernel being compiled (`caller`, of file `stem`) and of the kernel it
/// names (`callee`): an argument per parameter of the callee, each a
/// different argument of the caller (the variant line binds the callee's
/// parameter to it where the numbers differ), of the callee's type as the
/// view shows it; only a 2-D memref can be transposed.
static LogicalResult checkVia(const TableEntry &entry, StringRef stem,
                              ArrayRef<Type> caller, ArrayRef<Type> callee) {
  const Via &via = *entry.via;
  auto fail = [&](const Twine &message) {
    entryError(entry, message);
    return failure();
  };
  if (via.args.size() != callee.size())
    return fail(via.kernel + " takes " + Twine(callee.size()) + " arguments, " +
                via.text + " passes " + Twine(via.args.size()));
  for (auto [i, arg] : llvm::enumerate(via.args)) {
    std::string name = "arg" + std::to_string(arg.arg);
    if (arg.arg >= caller.size())
      return fail("'" + name + "' in " + via.text + " is not an argument of " +
                  stem + " (" + stem + " takes " + Twine(caller.size()) + ")");
    for (const ViaArg &other : ArrayRef<ViaArg>(via.args).take_front(i))
      if (other.arg == arg.arg)
        return fail("'" + name + "' is passed twice in " + via.text +
                    ", expected each argument of " + stem + " at most once");
    Type type = caller[arg.arg];
    if (arg.transpose) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || memref.getRank() != 2)
        return fail("'" + arg.text + "' views " + name + " of " + stem +
                    ", of type " + typeText(type) + ", expected a 2-D memref");
      type = MemRefType::get(
          {memref.getDimSize(1), memref.getDimSize(0)}, memref.getElementType(),
          MemRefLayoutAttrInterface(), memref.getMemorySpace());
    }
    if (type != callee[i])
      return fail("argument " + Twine(i) + " of " + via.kernel + " has type " +
                  typeText(callee[i]) + ", but '" + arg.text + "' of " + stem +
                  " has type " + typeText(type));
  }
  return success();
}

/// The kernels that a build in `dir` wrote: its manifests, less the
/// fallbacks, by name.
static std::vector<std::string> builtKernels(StringRef dir) {
  std::vector<std::string> kernels;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (name.ends_with(".manifest") && !name.ends_with(".fallback.manifest"))
      kernels.push_back(name.drop_back(strlen(".manifest")).str());
  }
  llvm::sort(kernels);
  return kernels;
}

namespace {
/// One dispatching manifest that --dispatch writes: the one of the file
/// compiled, or one that a `rules=` entry launches, over the rule entries
/// of another table for the kernel file its `via=` names.
struct Level {
  /// The kernel file, its stem, its text (held by `mgr`) and the table.
  std::string file, stem, table;
  llvm::SourceMgr *mgr = nullptr;
  StringRef text;
  /// Where its manifests go under the output directory: "" for the file
  /// compiled, "STEM.dI" for the others.
  std::string dir;
  /// Whether `file` is another kernel file than the one compiled (a
  /// via= entry's), whose builds take their own file's options.
  bool sibling = false;
  /// The parameters the table's keys compare with, and those that win
  /// over the entries' values (-D, and a rules= entry's assignments).
  std::vector<KernelParam> params;
  llvm::StringSet<> fixed;
  SmallVector<std::pair<StringRef, StringRef>> sizes;
  std::vector<TableEntry> entries;
  /// Per entry, its build, or for a rules= entry the level it launches.
  std::vector<unsigned> buildOf, levelOf;
  /// The build of its first entry that is not a via= entry: its kernels
  /// and interface are the level's.
  unsigned own = 0;
  /// The function a rules= entry calls through this level, and its kernel.
  std::string function, kernel;
  /// What makes two rules= entries' levels the same manifest.
  std::string key;
  /// Set once its entries are planned: a rules= entry that names a level
  /// not yet planned leads back to a table that names it.
  bool planned = false;
  /// The table's staged-output entry for this kernel, if one applies.
  std::optional<TableEntry> stagedOutput;
};

/// The state of one --dispatch run: the builds, shared by all levels
/// (one per file and configuration), and the levels, the first the
/// file's.
struct Dispatch {
  MLIRContext &context;
  std::map<std::string, std::unique_ptr<Sibling>> siblings;
  std::vector<Build> builds;
  llvm::StringMap<unsigned> buildsPerStem, levelsPerStem;
  std::vector<std::unique_ptr<Level>> levels;
  /// Per build of a via= entry, the function of the other file it calls.
  std::vector<std::string> viaFunction;
};
} // namespace

/// How deep rules= entries may nest: a rules= entry of a table that a
/// rules= entry names, and so on (the runtime loads variants
/// TILE_RT_MAX_VARIANT_DEPTH deep, fallbacks included).
static constexpr unsigned kMaxRulesDepth = 4;

/// The kernel file `name`.mlir next to `file`, read once into `d`; null
/// where there is none.
static Sibling *readSibling(Dispatch &d, StringRef file, StringRef name,
                            bool &failedRead) {
  failedRead = false;
  SmallString<256> path(llvm::sys::path::parent_path(file));
  llvm::sys::path::append(path, name + ".mlir");
  auto it = d.siblings.find(path.str().str());
  if (it != d.siblings.end())
    return it->second.get();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer || llvm::sys::fs::is_directory(path))
    return nullptr;
  auto sibling = std::make_unique<Sibling>();
  sibling->path = path.str().str();
  sibling->text = (*buffer)->getBuffer();
  sibling->sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  if (failed(readParamDeclarations(sibling->sourceMgr, sibling->text,
                                   sibling->params)) ||
      failed(applyKeyedParams(sibling->sourceMgr, sibling->text,
                              sibling->params, nullptr))) {
    failedRead = true;
    return nullptr;
  }
  Sibling *result = sibling.get();
  d.siblings[path.str().str()] = std::move(sibling);
  return result;
}

/// The parameters of a build for `entry` of `level`, from `declared`, the
/// parameters of the file it builds (whose text `text` `mgr` holds): the
/// level's fixed values, then the entry's assignments, then the file's
/// keyed defaults for the others; `given` receives the names the first
/// two set.
static FailureOr<std::vector<KernelParam>>
entryParams(const Level &level, const TableEntry &entry,
            const std::vector<KernelParam> &declared, llvm::SourceMgr &mgr,
            StringRef text, llvm::StringSet<> &given) {
  std::vector<KernelParam> values = declared;
  for (KernelParam &p : values) {
    if (level.fixed.contains(p.name)) {
      given.insert(p.name);
      for (const KernelParam &set : level.params)
        if (set.name == p.name)
          p.value = set.value;
    } else {
      for (auto &[name, assigned] : entry.assigned)
        if (name == p.name) {
          given.insert(p.name);
          p.value = assigned;
        }
    }
  }
  if (failed(applyKeyedParams(mgr, text, values, &given)))
    return failure();
  return values;
}

/// Reads level `index` of `d`'s table and plans its builds (shared with
/// the other levels where the file and configuration are the same),
/// recursively the levels of its rules= entries, and checks the calls of
/// its via= entries; `from` is the rules= entry that launches it (null for
/// the file compiled), `depth` how many such entries lead to it. Returns
/// the exit status.
static int planLevel(Dispatch &d, unsigned index, const TableEntry *from,
                     unsigned depth) {
  Level &level = *d.levels[index];
  // Errors about the table as a whole: at the rules= entry that names it.
  auto levelError = [&](const Twine &message) {
    if (from)
      return entryError(*from, "rules=" + from->rules + ": " + message);
    llvm::errs() << "tile-compile: " << message << "\n";
    return 1;
  };
  if (failed(readDispatchSizes(level.text, level.file, from, level.sizes)))
    return 1;
  std::string hint = "one per size of the '// tile.dispatch:' line (";
  for (auto [i, size] : llvm::enumerate(level.sizes))
    hint += (i ? "x" : "") + size.first.str();
  hint += ")";
  if (failed(readTable(level.table, level.stem, level.params,
                       level.sizes.size(), hint, level.entries)))
    return 1;
  std::vector<TableEntry> &entries = level.entries;
  for (TableEntry &entry : entries) {
    if (!entry.stagedOutput)
      continue;
    if (level.stagedOutput)
      return entryError(entry, "a second staged-output entry for " +
                                   level.stem + " (the first at line " +
                                   Twine(level.stagedOutput->line) +
                                   "); at most one may apply");
    level.stagedOutput = entry;
  }
  llvm::erase_if(entries,
                 [](const TableEntry &e) { return e.exact || e.stagedOutput; });
  for (TableEntry &entry : entries) {
    for (const std::string &when : entry.when) {
      WhenParser parser(when, level.sizes);
      std::string clause = parser.parse();
      if (clause.empty())
        return entryError(entry, "when=" + when + ": " + parser.error);
      entry.whenRule.push_back(clause);
    }
    // The runtime reads a rule of fewer than TILE_RT_MAX_EXPR bytes.
    size_t length = ruleOf(entry, level.sizes).size();
    if (length >= TILE_RT_MAX_EXPR)
      return entryError(entry, "its rule over the arguments is " +
                                   Twine(length) + " bytes, more than the " +
                                   Twine(TILE_RT_MAX_EXPR - 1) +
                                   " a manifest's rule may have");
  }
  if (entries.empty())
    return levelError(level.table + " has no rule entry for " + level.stem +
                      " on " + chip + " with these parameters" +
                      (from ? " (" +
                                  llvm::join(llvm::map_range(from->assigned,
                                                             [](const auto &a) {
                                                               return a.first +
                                                                      "=" +
                                                                      a.second;
                                                             }),
                                             " ") +
                                  ")"
                            : std::string()));
  if (entries.size() > TILE_RT_MAX_VARIANTS)
    return levelError(level.table + " has " + Twine(entries.size()) +
                      " rule entries for " + level.stem + " on " + chip +
                      ", more than the runtime's " +
                      Twine(TILE_RT_MAX_VARIANTS) + " variants per manifest");
  // The dispatching manifest takes its kernels and interface from a build
  // of its file.
  if (llvm::all_of(entries, [](const TableEntry &e) { return e.via; }))
    return levelError(
        (from ? "" : "--dispatch: ") + Twine("every rule entry of ") +
        level.table + " for " + level.stem + " on " + chip +
        " launches another kernel (via=); at least one must build " +
        level.stem + " itself");

  // Each entry's build: its file with every parameter set (the fixed
  // ones still win), built once; a via= entry's with the fixed values
  // too. A rules= entry's level instead, with the fixed values and the
  // entry's.
  for (const TableEntry &entry : entries) {
    Build build;
    build.file = level.file;
    const std::vector<KernelParam> *declared = &level.params;
    StringRef buildStem = level.stem;
    llvm::SourceMgr *fileMgr = level.mgr;
    StringRef fileText = level.text;
    Sibling *sibling = nullptr;
    build.sibling = level.sibling;
    if (entry.via) {
      bool failedRead;
      sibling = readSibling(d, level.file, entry.via->kernel, failedRead);
      if (failedRead)
        return 1;
      if (!sibling)
        return entryError(entry, entry.via->text + ": no kernel file " +
                                     entry.via->kernel + ".mlir next to " +
                                     level.file);
      fileMgr = &sibling->sourceMgr;
      fileText = sibling->text;
      auto declares = [&](StringRef name) {
        return llvm::any_of(sibling->params, [&](const KernelParam &p) {
          return p.name == name;
        });
      };
      for (auto &assigned : entry.assigned)
        if (!declares(assigned.first))
          return entryError(entry, "'" + assigned.first +
                                       "' is not a parameter of " +
                                       entry.via->kernel);
      for (const KernelParam &p : level.params)
        if (level.fixed.contains(p.name) && !declares(p.name))
          return entryError(
              entry, "-D " + p.name + " cannot be passed on to " +
                         entry.via->kernel + ".mlir (" + entry.via->text +
                         "), which declares no parameter '" + p.name + "'");
      build.file = sibling->path;
      build.sibling = true;
      declared = &sibling->params;
      buildStem = entry.via->kernel;
    }
    llvm::StringSet<> given;
    FailureOr<std::vector<KernelParam>> valuesOr =
        entryParams(level, entry, *declared, *fileMgr, fileText, given);
    if (failed(valuesOr))
      return 1;
    std::vector<KernelParam> &values = *valuesOr;

    if (!entry.rules.empty()) {
      // The table, next to the one naming it.
      SmallString<256> table(llvm::sys::path::parent_path(entry.table));
      llvm::sys::path::append(table, entry.rules);
      if (llvm::sys::path::is_absolute(entry.rules))
        table = entry.rules;
      if (!llvm::sys::fs::is_regular_file(table))
        return entryError(entry, "rules=" + entry.rules + ": no table " +
                                     table +
                                     " (a rules= path is relative "
                                     "to the directory of " +
                                     entry.table + ")");
      std::string key = build.file + "\n" + table.str().str();
      for (const KernelParam &p : values)
        key += "\n" + p.name + "=" + p.value +
               (given.contains(p.name) ? " fixed" : "");
      auto same =
          llvm::find_if(d.levels, [&](const auto &l) { return l->key == key; });
      if (same != d.levels.end()) {
        if (!(*same)->planned)
          return entryError(entry, "rules=" + entry.rules +
                                       ": a cycle: the table's rules lead "
                                       "back to itself for " +
                                       buildStem + " with the same parameters");
        level.levelOf.push_back(same - d.levels.begin());
        level.buildOf.push_back(~0u);
        continue;
      }
      if (depth + 1 > kMaxRulesDepth)
        return entryError(entry, "rules=" + entry.rules +
                                     ": rules= tables "
                                     "nested more than " +
                                     Twine(kMaxRulesDepth) +
                                     " deep (a table that names itself?)");
      auto nested = std::make_unique<Level>();
      nested->file = build.file;
      nested->stem = buildStem.str();
      nested->table = table.str().str();
      nested->mgr = fileMgr;
      nested->text = fileText;
      nested->dir =
          (buildStem + ".d" + Twine(d.levelsPerStem[buildStem]++)).str();
      nested->sibling = build.sibling;
      nested->params = std::move(values);
      for (const auto &name : given)
        nested->fixed.insert(name.getKey());
      nested->key = std::move(key);
      unsigned nestedIndex = d.levels.size();
      level.levelOf.push_back(nestedIndex);
      level.buildOf.push_back(~0u);
      d.levels.push_back(std::move(nested));
      if (int rc = planLevel(d, nestedIndex, &entry, depth + 1))
        return rc;
      continue;
    }
    for (const KernelParam &p : values)
      build.config.push_back(p.name + "=" + p.value);
    auto it = llvm::find_if(d.builds, [&](const Build &b) {
      return b.file == build.file && b.config == build.config;
    });
    level.levelOf.push_back(~0u);
    level.buildOf.push_back(it - d.builds.begin());
    if (it == d.builds.end()) {
      build.dir =
          (buildStem + ".v" + Twine(d.buildsPerStem[buildStem]++)).str();
      d.builds.push_back(std::move(build));
      d.viaFunction.emplace_back();
    }
  }

  // The calls of via= entries, checked against both files' functions
  // before anything is built.
  for (auto [entry, build] : llvm::zip(entries, level.buildOf))
    if (!entry.via) {
      level.own = build;
      break;
    }
  std::optional<std::vector<std::pair<std::string, SmallVector<Type>>>>
      callerSignatures;
  for (auto [i, entry] : llvm::enumerate(entries)) {
    if (!entry.via)
      continue;
    if (!callerSignatures) {
      FailureOr<std::string> text = substituteParams(
          *level.mgr, level.text,
          withConfig(level.params, d.builds[level.own].config));
      if (failed(text))
        return 1;
      auto signatures = functionSignatures(d.context, *text, level.file);
      if (failed(signatures))
        return 1;
      callerSignatures = std::move(*signatures);
    }
    bool failedRead;
    Sibling &sibling =
        *readSibling(d, level.file, entry.via->kernel, failedRead);
    // The configuration of the callee: its build's, or that of the build
    // of the level it is launched through.
    unsigned build = level.buildOf[i];
    Level *nested = nullptr;
    if (build == ~0u) {
      nested = d.levels[level.levelOf[i]].get();
      build = nested->own;
    }
    FailureOr<std::string> text =
        substituteParams(sibling.sourceMgr, sibling.text,
                         withConfig(sibling.params, d.builds[build].config));
    if (failed(text))
      return 1;
    auto calleeSignatures = functionSignatures(d.context, *text, sibling.path);
    if (failed(calleeSignatures))
      return 1;
    if (callerSignatures->size() != 1)
      return entryError(entry, entry.via->text + ": " + level.file +
                                   " defines " +
                                   Twine(callerSignatures->size()) +
                                   " functions, expected one (a via= entry "
                                   "stands in for the function of the file "
                                   "compiled)");
    // The callee: the file's one function, or the one named as the file.
    const auto *callee =
        calleeSignatures->size() == 1 ? &calleeSignatures->front() : nullptr;
    for (const auto &signature : *calleeSignatures)
      if (signature.first == entry.via->kernel)
        callee = &signature;
    if (!callee)
      return entryError(entry,
                        entry.via->text + ": " + sibling.path + " defines " +
                            Twine(calleeSignatures->size()) +
                            " functions, none named " + entry.via->kernel +
                            " (a via= entry calls the file's one "
                            "function or the one named as the file)");
    (nested ? nested->function : d.viaFunction[build]) = callee->first;
    if (failed(checkVia(entry, level.stem, callerSignatures->front().second,
                        callee->second)))
      return 1;
  }
  level.planned = true;
  return 0;
}

/// The command line that builds `build`: this tool (`self`) again, with
/// every parameter set.
static std::vector<std::string> buildCommand(StringRef self,
                                             const Build &build) {
  SmallString<256> dir(outputDir);
  llvm::sys::path::append(dir, build.dir);
  std::vector<std::string> args = {self.str(),      build.file, "-o",
                                   dir.str().str(), "--chip",   chip};
  auto flag = [&](bool on, const char *name) {
    if (on)
      args.push_back(name);
  };
  auto value = [&](const std::string &v, const char *name) {
    if (!v.empty())
      args.push_back(std::string(name) + "=" + v);
  };
  value(features, "--features");
  value(toolkitPath, "--toolkit");
  value(ptxasPath, "--ptxas");
  flag(noCubin, "--no-cubin");
  flag(noFallback, "--no-fallback");
  flag(noStage, "--no-stage");
  flag(printResources, "--resources");
  // The options a kernel file may set, with the values this run took
  // (from the command line or the file), given explicitly so that each
  // build agrees with them whatever the file says; another file's
  // build takes those of the command line and of its own file, and an
  // option the file sets from a parameter is left to each build, whose
  // parameters differ.
  for (const FileOption &option : fileOptions()) {
    if ((build.sibling || fileOptionsFromParams.contains(option.name)) &&
        !option.option().getNumOccurrences())
      continue;
    std::string value = option.flag
                            ? (*option.flag ? "true" : "false")
                            : std::to_string(static_cast<int>(*option.number));
    args.push_back("--" + std::string(option.name) + "=" + value);
  }
  for (const std::string &define : build.config)
    args.push_back("-D" + define);
  return args;
}

/// Runs this tool (`self`) for `builds[from..]`, up to --j at once, each
/// with its output captured and then printed in build order, so that the
/// output is the same whatever the count. After a failure no further build
/// starts; those running are waited for. Returns the exit status.
static int runBuilds(StringRef self, ArrayRef<Build> builds, size_t from) {
  unsigned jobs = dispatchJobs;
  if (!jobs)
    jobs = std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  struct Running {
    const Build *build;
    llvm::sys::ProcessInfo process;
    SmallString<128> out, err;
    bool done = false;
    int rc = 0;
    std::string error;
  };
  std::vector<Running> started;
  size_t next = from, reported = 0;
  unsigned active = 0;
  bool failed = false;
  auto finish = [&](Running &r, const llvm::sys::ProcessInfo &result,
                    const std::string &error) {
    r.done = true;
    r.rc = result.ReturnCode;
    r.error = error;
    --active;
  };
  while (reported < started.size() || (!failed && next < builds.size())) {
    while (!failed && next < builds.size() && active < jobs) {
      Running r;
      r.build = &builds[next++];
      std::vector<std::string> args = buildCommand(self, *r.build);
      SmallVector<StringRef> argRefs(args.begin(), args.end());
      for (auto [path, suffix] :
           {std::pair(&r.out, "out"), std::pair(&r.err, "err")})
        if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
                "tile-compile-build", suffix, *path)) {
          llvm::errs() << "tile-compile: --dispatch: cannot create a "
                          "temporary file: "
                       << ec.message() << "\n";
          failed = true;
        }
      if (failed)
        break;
      std::optional<StringRef> redirects[] = {std::nullopt, StringRef(r.out),
                                              StringRef(r.err)};
      bool execFailed = false;
      r.process = llvm::sys::ExecuteNoWait(self, argRefs, std::nullopt,
                                           redirects, 0, &r.error, &execFailed);
      ++active;
      if (execFailed) {
        llvm::sys::ProcessInfo none;
        none.ReturnCode = -1;
        finish(r, none, r.error);
      }
      started.push_back(std::move(r));
    }
    bool progressed = false;
    for (Running &r : started) {
      if (r.done)
        continue;
      std::string error;
      llvm::sys::ProcessInfo result = llvm::sys::Wait(
          r.process,
          /*SecondsToWait=*/failed ? std::nullopt : std::optional<unsigned>(0),
          &error, nullptr, /*Polling=*/true);
      if (result.Pid == 0)
        continue;
      finish(r, result, error);
      progressed = true;
    }
    // In build order: the captured output, then any failure.
    while (reported < started.size() && started[reported].done) {
      Running &r = started[reported++];
      for (auto [path, os] : {std::pair(&r.out, &llvm::outs()),
                              std::pair(&r.err, &llvm::errs())}) {
        if (auto text = llvm::MemoryBuffer::getFile(*path))
          *os << (*text)->getBuffer();
        os->flush();
        llvm::sys::fs::remove(*path);
      }
      if (r.rc != 0) {
        llvm::errs() << "tile-compile: --dispatch: building variant "
                     << r.build->dir << " ("
                     << (r.build->sibling ? r.build->file + ": " : "")
                     << llvm::join(r.build->config, " ") << ") failed"
                     << (r.error.empty() ? "" : ": " + r.error) << "\n";
        failed = true;
      }
      progressed = true;
    }
    if (!progressed)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return failed ? 1 : 0;
}

namespace {
/// An output that a build's manifest has the runtime stage where its
/// tensor maps cannot address it (`stage argJ out` or `inout`).
struct StagedOutput {
  std::string arg;
  /// The rank of the memref and the bytes of its elements.
  int64_t rank = 0, bytes = 0;
};
} // namespace

/// The staged outputs of the manifests of the build in `dir` (all its
/// kernels, fallbacks aside); failure, reported, where one cannot be read.
static FailureOr<std::vector<StagedOutput>> stagedOutputs(MLIRContext &context,
                                                          StringRef dir) {
  std::vector<StagedOutput> outputs;
  for (const std::string &kernel : builtKernels(dir)) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, kernel + ".manifest");
    auto text = llvm::MemoryBuffer::getFile(path);
    if (!text) {
      llvm::errs() << "tile-compile: cannot read " << path << "\n";
      return failure();
    }
    llvm::StringMap<StringRef> types;
    SmallVector<StringRef> staged;
    SmallVector<StringRef> lines;
    (*text)->getBuffer().split(lines, '\n');
    for (StringRef line : lines) {
      SmallVector<StringRef> words;
      llvm::SplitString(line.split('#').first, words);
      if (words.size() >= 3 && words[0] == "param")
        types[words[1]] = words[2];
      if (words.size() == 3 && words[0] == "stage" &&
          (words[2] == "out" || words[2] == "inout"))
        staged.push_back(words[1]);
    }
    for (StringRef arg : staged) {
      if (llvm::any_of(outputs,
                       [&](const StagedOutput &o) { return o.arg == arg; }))
        continue;
      auto type = dyn_cast_or_null<MemRefType>(
          types.count(arg) ? parseType(types[arg], &context) : Type());
      if (!type || !type.getElementType().isIntOrFloat()) {
        llvm::errs() << "tile-compile: " << path << ": staged output '" << arg
                     << "' has no memref param of integers or floats\n";
        return failure();
      }
      StagedOutput output;
      output.arg = arg.str();
      output.rank = type.getRank();
      output.bytes = (type.getElementTypeBitWidth() + 7) / 8;
      outputs.push_back(std::move(output));
    }
  }
  return outputs;
}

/// Derives the twins of a level's staged-output entry (docs/GEMM.md,
/// "Shape dispatch"): for each rule entry whose build (built in phase one)
/// has an output staged, where its rows are not 16-byte multiples, a twin
/// before it, the same entry with the staged-output entry's assignments,
/// under the rule's clauses and one more that holds where those rows are
/// not (the runtime would stage them). The twins' new builds are built
/// here (by `self`), then each is checked to stage that output no more.
/// Returns the exit status.
static int deriveStagedOutputTwins(Dispatch &d, StringRef self) {
  auto buildDir = [&](unsigned build) {
    SmallString<256> dir(outputDir);
    llvm::sys::path::append(dir, d.builds[build].dir);
    return dir;
  };
  // Per level, per entry, the twins that go before it, each with the
  // output it stands in for.
  struct Twin {
    TableEntry entry;
    unsigned build;
    std::string output;
  };
  std::vector<std::vector<std::vector<Twin>>> twins(d.levels.size());
  // Each build's staged outputs, read once however many rules share it.
  std::map<unsigned, std::vector<StagedOutput>> outputsOf;
  auto outputsOfBuild =
      [&](unsigned build) -> FailureOr<const std::vector<StagedOutput> *> {
    auto it = outputsOf.find(build);
    if (it == outputsOf.end()) {
      FailureOr<std::vector<StagedOutput>> read =
          stagedOutputs(d.context, buildDir(build));
      if (failed(read))
        return failure();
      it = outputsOf.emplace(build, std::move(*read)).first;
    }
    return &it->second;
  };
  size_t built = d.builds.size();
  for (auto [index, levelPtr] : llvm::enumerate(d.levels)) {
    Level &level = *levelPtr;
    twins[index].resize(level.entries.size());
    if (!level.stagedOutput)
      continue;
    const TableEntry &directive = *level.stagedOutput;
    for (auto [i, entry] : llvm::enumerate(level.entries)) {
      unsigned origin = level.buildOf[i];
      if (entry.via || origin == ~0u)
        continue;
      FailureOr<const std::vector<StagedOutput> *> outputs =
          outputsOfBuild(origin);
      if (failed(outputs))
        return 1;
      for (const StagedOutput &output : **outputs) {
        // TMA needs rows of 16-byte multiples: a row of a multiple of
        // `align` elements is one.
        if (output.bytes >= 16 || 16 % output.bytes)
          continue;
        int64_t align = 16 / output.bytes;
        std::string rowSize =
            output.arg + ".dim" + std::to_string(output.rank - 1);
        TableEntry twin = entry;
        twin.twinOf = directive.line;
        for (auto &[name, value] : directive.assigned) {
          auto it = llvm::find_if(
              twin.assigned, [&](const auto &a) { return a.first == name; });
          if (it != twin.assigned.end())
            it->second = value;
          else
            twin.assigned.push_back({name, value});
        }
        // The clause on the row size: on the dispatch size it is, where
        // one is and takes no alignment yet; else one of its own.
        auto size = llvm::find_if(
            level.sizes, [&](const auto &s) { return s.second == rowSize; });
        DimPattern *dim =
            size == level.sizes.end()
                ? nullptr
                : &twin.shape[std::distance(level.sizes.begin(), size)];
        if (dim &&
            (dim->exact || (dim->hasLo && dim->hasHi && dim->lo == dim->hi))) {
          if (dim->lo % align == 0)
            continue;
        } else if (dim && dim->align == 1) {
          dim->align = align;
          dim->misaligned = true;
        } else if (dim && !dim->misaligned && dim->align % align == 0) {
          continue;
        } else {
          twin.whenRule.push_back("mod(" + rowSize + ", " +
                                  std::to_string(align) + ") != 0");
        }
        llvm::StringSet<> given;
        FailureOr<std::vector<KernelParam>> values = entryParams(
            level, twin, level.params, *level.mgr, level.text, given);
        if (failed(values))
          return 1;
        Build build = d.builds[origin];
        build.config.clear();
        for (const KernelParam &p : *values)
          build.config.push_back(p.name + "=" + p.value);
        // -D may fix the assignments: then the twin is its rule.
        if (build.config == d.builds[origin].config)
          continue;
        auto it = llvm::find_if(d.builds, [&](const Build &b) {
          return b.file == build.file && b.config == build.config;
        });
        if (it == d.builds.end()) {
          build.dir =
              (level.stem + ".v" + Twine(d.buildsPerStem[level.stem]++)).str();
          d.builds.push_back(std::move(build));
          d.viaFunction.emplace_back();
          it = std::prev(d.builds.end());
        }
        size_t length = ruleOf(twin, level.sizes).size();
        if (length >= TILE_RT_MAX_EXPR)
          return entryError(entry, "its staged-output twin's rule over the "
                                   "arguments is " +
                                       Twine(length) +
                                       " bytes, more than the " +
                                       Twine(TILE_RT_MAX_EXPR - 1) +
                                       " a manifest's rule may have");
        twins[index][i].push_back(
            {std::move(twin), unsigned(it - d.builds.begin()), output.arg});
      }
    }
  }
  if (int rc = runBuilds(self, d.builds, built))
    return rc;

  for (auto [index, levelPtr] : llvm::enumerate(d.levels)) {
    Level &level = *levelPtr;
    std::vector<TableEntry> entries;
    std::vector<unsigned> buildOf, levelOf;
    for (auto [i, entry] : llvm::enumerate(level.entries)) {
      for (Twin &twin : twins[index][i]) {
        FailureOr<const std::vector<StagedOutput> *> still =
            outputsOfBuild(twin.build);
        if (failed(still))
          return 1;
        if (llvm::any_of(**still, [&](const StagedOutput &o) {
              return o.arg == twin.output;
            }))
          return entryError(*level.stagedOutput,
                            "the staged-output twin of line " +
                                Twine(entry.line) + " (" +
                                llvm::join(d.builds[twin.build].config, " ") +
                                ") still has " + twin.output +
                                " staged: its assignments must make the "
                                "build store it without TMA");
        entries.push_back(std::move(twin.entry));
        buildOf.push_back(twin.build);
        levelOf.push_back(~0u);
      }
      entries.push_back(std::move(entry));
      buildOf.push_back(level.buildOf[i]);
      levelOf.push_back(level.levelOf[i]);
    }
    if (entries.size() > TILE_RT_MAX_VARIANTS)
      return entryError(*level.stagedOutput,
                        "with their staged-output twins the rules for " +
                            level.stem + " are " + Twine(entries.size()) +
                            " variants, more than the runtime's " +
                            Twine(TILE_RT_MAX_VARIANTS) + " per manifest");
    level.entries = std::move(entries);
    level.buildOf = std::move(buildOf);
    level.levelOf = std::move(levelOf);
  }
  return 0;
}

/// The kernel of a build in `dir` that a via= entry calling `function`
/// launches: its one kernel, or the one of the function's name; empty
/// where there is neither.
static std::string calledKernel(const std::vector<std::string> &built,
                                StringRef function) {
  std::string named = (function + "_kernel").str();
  if (built.size() != 1 && llvm::is_contained(built, named))
    return named;
  return built.size() == 1 ? built.front() : std::string();
}

/// --dispatch: compiles each distinct configuration of the table's rule
/// entries for this kernel and chip into `outputDir`/STEM.vI by running
/// this tool (`self`) again with every parameter set, then writes, for
/// each kernel, a version 2 manifest whose variants are those builds under
/// the entries' rules, in table order. A via= entry's configuration is of
/// the kernel file it names (next to this one, built into OTHER.vI with
/// the -D values given), and its variant line carries the entry's views.
/// A rules= entry's variant is a dispatching manifest of that file in
/// `outputDir`/OTHER.dI, written the same way from the rule entries of the
/// table it names (its builds shared with the others).
/// `paramsMgr` holds `buffer`, this file. Returns the exit status.
static int runDispatch(MLIRContext &context, StringRef self,
                       llvm::SourceMgr &paramsMgr, StringRef buffer,
                       const std::vector<KernelParam> &params,
                       const llvm::StringSet<> &fixed, StringRef stem) {
  if (!tunedTable.empty()) {
    llvm::errs() << "tile-compile: --dispatch and --tuned exclude each "
                    "other\n";
    return 1;
  }
  Dispatch d{context, {}, {}, {}, {}, {}, {}};
  {
    auto top = std::make_unique<Level>();
    top->file = inputFile;
    top->stem = stem.str();
    top->table = dispatchTable;
    top->mgr = &paramsMgr;
    top->text = buffer;
    top->params = params;
    for (const auto &name : fixed)
      top->fixed.insert(name.getKey());
    d.levels.push_back(std::move(top));
  }
  if (int rc = planLevel(d, 0, nullptr, 0))
    return rc;

  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "tile-compile: cannot create " << outputDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  if (int rc = runBuilds(self, d.builds, 0))
    return rc;
  if (int rc = deriveStagedOutputTwins(d, self))
    return rc;

  // The kernels of each level's file: the manifests of a build of it,
  // less the fallbacks. A via= entry's build must have one kernel, or one
  // of its function's name, which stands in for the file's one kernel.
  auto builtIn = [&](unsigned build) {
    SmallString<256> dir(outputDir);
    llvm::sys::path::append(dir, d.builds[build].dir);
    return builtKernels(dir);
  };
  std::vector<std::string> viaKernel(d.builds.size());
  for (auto &level : d.levels) {
    std::vector<std::string> kernels = builtIn(level->own);
    if (level.get() != d.levels.front().get())
      level->kernel = calledKernel(kernels, level->function);
    for (auto [i, entry] : llvm::enumerate(level->entries)) {
      if (!entry.via)
        continue;
      unsigned build = level->buildOf[i];
      std::string named = "";
      size_t count;
      StringRef file;
      if (build == ~0u) {
        Level &nested = *d.levels[level->levelOf[i]];
        std::vector<std::string> built = builtIn(nested.own);
        count = built.size();
        file = nested.file;
        named = nested.function + "_kernel";
        if (!calledKernel(built, nested.function).empty())
          count = 1;
      } else {
        std::vector<std::string> built = builtIn(build);
        count = built.size();
        file = d.builds[build].file;
        named = d.viaFunction[build] + "_kernel";
        viaKernel[build] = calledKernel(built, d.viaFunction[build]);
        if (!viaKernel[build].empty())
          count = 1;
      }
      for (auto [f, n] :
           {std::make_pair(StringRef(level->file), kernels.size()),
            std::make_pair(file, count)})
        if (n != 1)
          return entryError(entry,
                            entry.via->text + ": " + f + " has " + Twine(n) +
                                " kernels, expected one or one named " + named +
                                " (a via= entry's kernel stands in for "
                                "the file's)");
    }
  }

  // The manifests, the nested levels' first: one per kernel of the
  // level's file (of a nested level, the one its callers launch).
  for (size_t index = d.levels.size(); index-- > 0;) {
    const Level &level = *d.levels[index];
    bool nested = index != 0;
    std::vector<std::string> kernels = builtIn(level.own);
    if (nested)
      kernels = {level.kernel};
    // Paths of the variants, from the manifest's directory.
    std::string up = nested ? "../" : "";
    for (const std::string &kernel : kernels) {
      SmallString<256> ownManifest(outputDir);
      llvm::sys::path::append(ownManifest, d.builds[level.own].dir,
                              kernel + ".manifest");
      auto text = llvm::MemoryBuffer::getFile(ownManifest);
      if (!text) {
        llvm::errs() << "tile-compile: cannot read " << ownManifest << "\n";
        return 1;
      }
      std::string manifest;
      llvm::raw_string_ostream os(manifest);
      os << "tile-launch-manifest 2\n"
         << "# compiled by tile-compile from " << level.file << " for " << chip
         << ": the first variant whose rule holds for the arguments is "
            "launched";
      if (llvm::any_of(level.entries,
                       [](const TableEntry &e) { return e.cost; }))
        os << " (of consecutive costed ones, the least cost x waves)";
      os << "\n";
      if (!nested)
        printFileOptions(os, /*dispatching=*/true);
      os << "# dispatch rules: " << level.table << " (sizes";
      for (auto size : level.sizes)
        os << " " << size.first << "=" << size.second;
      os << ")\n";
      for (const std::string &param : interfaceParams((*text)->getBuffer()))
        os << "param " << param << "\n";
      for (auto [i, entry] : llvm::enumerate(level.entries)) {
        std::string rule = ruleOf(entry, level.sizes);
        unsigned build = level.buildOf[i];
        os << "# " << entry.table << ":" << entry.line;
        if (entry.twinOf)
          os << " (staged-output twin, line " << entry.twinOf << ")";
        os << ": " << (entry.via ? entry.via->text + " " : "");
        if (build == ~0u) {
          const Level &called = *d.levels[level.levelOf[i]];
          os << "rules=" << entry.rules;
          for (auto &[name, value] : entry.assigned)
            os << " " << name << "=" << value;
          os << "\n"
             << "variant " << up << called.dir << "/" << called.kernel
             << ".manifest";
        } else {
          const Build &b = d.builds[build];
          os << llvm::join(b.config, " ") << "\n"
             << "variant " << up << b.dir << "/"
             << (entry.via ? viaKernel[build] : kernel) << ".manifest";
        }
        if (entry.via) {
          for (auto [j, arg] : llvm::enumerate(entry.via->args))
            if (arg.arg != j)
              os << " bind arg" << j << " arg" << arg.arg;
          for (const ViaArg &arg : entry.via->args)
            if (arg.transpose)
              os << " view transpose arg" << arg.arg;
        }
        if (entry.cost)
          os << " cost " << entry.cost;
        os << (rule.empty() ? "" : " when " + rule) << "\n";
      }
      SmallString<256> path(outputDir);
      llvm::sys::path::append(path, level.dir, kernel + ".manifest");
      if (nested)
        if (std::error_code ec = llvm::sys::fs::create_directories(
                llvm::sys::path::parent_path(path))) {
          llvm::errs() << "tile-compile: cannot create "
                       << llvm::sys::path::parent_path(path) << ": "
                       << ec.message() << "\n";
          return 1;
        }
      if (failed(writeFile(path, manifest)))
        return 1;
      llvm::outs() << "tile-compile: " << kernel << " -> " << path
                   << " (dispatch over " << level.entries.size() << " rules";
      if (nested)
        llvm::outs() << " of " << level.table << ")\n";
      else
        llvm::outs() << ", " << d.builds.size() << " builds)\n";
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tile-compile: compile the tile kernels of a file to PTX and cubin "
      "(NVIDIA) or HSACO (AMD), each with a launch manifest\n\n"
      "  A kernel file may set defaults per chip: '// tile.params(CHIP): "
      "NAME=VALUE...'\n"
      "  for its parameters (-D overrides them) and '// tile.options(CHIP): "
      "NAME=VALUE...'\n"
      "  for the options index-bitwidth (32 or 64), opt-level (0 to 3), "
      "min-blocks-per-sm\n"
      "  (0 to 16), fast-math, pingpong, no-tma-store, thread-store,\n"
      "  no-warp-specialize and persistent\n"
      "  (true or false), or '${NAME}' for parameter NAME's final value; an "
      "option given\n"
      "  on the command line overrides the file's value.\n"
      "  Lines after '// tile.if(COND):' are kept where COND holds (as in\n"
      "  '// tile.params(COND):'), those after '// tile.else:' where it does "
      "not, up\n"
      "  to '// tile.endif'; regions nest.\n");
  if (indexBitwidth != 32 && indexBitwidth != 64) {
    llvm::errs() << "tile-compile: --index-bitwidth must be 32 or 64, got "
                 << indexBitwidth << "\n";
    return 1;
  }
  if (minBlocksPerSM < 0 || minBlocksPerSM > 16) {
    llvm::errs() << "tile-compile: --min-blocks-per-sm must be 0 to 16, got "
                 << minBlocksPerSM << "\n";
    return 1;
  }
  auto start = Clock::now();

  DialectRegistry registry;
  tile::registerKernelDialects(registry);
  tile::registerAllTilePasses();
  MLIRContext context(registry);

  // Parameters are substituted in the text, so the parser (and every later
  // diagnostic) sees the file as if written with the values in place.
  std::string openError;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &openError);
  if (!file) {
    llvm::errs() << "tile-compile: " << openError << "\n";
    return 1;
  }
  StringRef original = file->getBuffer();
  llvm::SourceMgr paramsMgr;
  paramsMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  std::vector<KernelParam> params;
  llvm::StringSet<> defined;
  if (failed(readParamDeclarations(paramsMgr, original, params)) ||
      failed(applyKeyedParams(paramsMgr, original, params, nullptr)) ||
      failed(applyDefines(params, defined)))
    return 1;
  // --print-source shows the file with this invocation's parameters; it
  // builds nothing, so it does not dispatch. Each dispatched build applies
  // the keyed defaults to its own values.
  if (!dispatchTable.empty() && !printSource) {
    if (failed(
            applyChipOptions(paramsMgr, original, params, fileOptionsApplied)))
      return 1;
    return runDispatch(
        context,
        llvm::sys::fs::getMainExecutable(argv[0], (void *)&runDispatch),
        paramsMgr, original, params, defined, llvm::sys::path::stem(inputFile));
  }
  if (!tunedTable.empty()) {
    std::vector<KernelParam> keyed = params;
    if (failed(applyKeyedParams(paramsMgr, original, keyed, &defined)) ||
        failed(applyTuned(keyed, params, defined,
                          llvm::sys::path::stem(inputFile))))
      return 1;
  }
  // The options last: a `${PARAM}` value reads the parameter's final value.
  if (failed(applyKeyedParams(paramsMgr, original, params, &defined)) ||
      failed(applyChipOptions(paramsMgr, original, params, fileOptionsApplied)))
    return 1;
  FailureOr<std::string> source = substituteParams(paramsMgr, original, params);
  if (failed(source))
    return 1;
  if (printSource) {
    llvm::outs() << *source;
    return 0;
  }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(*source, inputFile), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // An IR dump with every error buries the message; ask for it by flag.
  context.printOpOnDiagnostic(printOpOnError);
  // Some stages report an error and still succeed (a missing toolkit in
  // serialization, say): any error of the primary build fails the run.
  std::atomic<bool> primaryError{false};
  std::thread::id mainThread = std::this_thread::get_id();
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error &&
        std::this_thread::get_id() == mainThread)
      primaryError = true;
    return failure(); // printed by the handler above
  });
  if (tile::reportParserTraps(sourceMgr))
    return 1;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  tile::TileToNVVMPipelineOptions options;
  setPipelineOptions(options, !noWarpSpecialize);
  std::string ptxas = noCubin ? "" : findPtxas();

  // The fallback (the same file without warp specialization) is lowered
  // on a second thread from a copy of the module, so on a machine with two
  // cores it costs little wall time; it is kept only for kernels whose
  // primary build uses tensor maps.
  Variant primary, fallback;
  std::thread fallbackThread;
  // Set by the fallback's thread itself before its first pass, so that no
  // diagnostic of it can arrive before the handler knows the thread.
  static thread_local bool onFallbackThread = false;
  OwningOpRef<ModuleOp> fallbackModule;
  // Only pipelined loops are warp-specialized.
  bool wantFallback =
      !noFallback && options.warpSpecialize &&
      tile::warpSpecializes(tile::lookupTarget(&context, options.chip)) &&
      module
          ->walk([](Operation *op) {
            return isa<tile::PipelinedOp>(op) ? WalkResult::interrupt()
                                              : WalkResult::advance();
          })
          .wasInterrupted();
  if (wantFallback) {
    // Diagnostics of the fallback are its own: kept, not printed twice.
    context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
      if (!onFallbackThread)
        return failure();
      if (diag.getSeverity() == DiagnosticSeverity::Error &&
          fallback.error.empty())
        fallback.error = diag.str();
      return success();
    });
    // Both threads' pass managers would load the dialects their passes
    // depend on, and loading is not thread-safe: load them all here first.
    {
      PassManager all(&context);
      tile::buildTileToGPUPipeline(all, options);
      all.addPass(createGpuKernelOutliningPass());
      (void)tile::buildGPUToNVVMBinaryPipeline(
          all, options, [](const Twine &) { return failure(); });
      DialectRegistry dependent;
      all.getDependentDialects(dependent);
      context.appendDialectRegistry(dependent);
      context.loadAllAvailableDialects();
    }
    fallbackModule = cast<ModuleOp>((*module)->clone());
    fallbackThread = std::thread([&] {
      onFallbackThread = true;
      tile::TileToNVVMPipelineOptions fallbackOptions;
      setPipelineOptions(fallbackOptions, /*warpSpecialize=*/false);
      compileVariant(context, *fallbackModule, fallbackOptions, ptxas,
                     /*quiet=*/true, fallback);
    });
  }
  compileVariant(context, *module, options, ptxas, /*quiet=*/false, primary);
  if (fallbackThread.joinable())
    fallbackThread.join();
  llvm::errs() << primary.ptxasMessages << fallback.ptxasMessages;
  if (primary.failed || primaryError)
    return 1;
  // An error the fallback's stages reported while succeeding spoils it too.
  if (!fallback.error.empty())
    fallback.failed = true;
  if (primary.launches.empty()) {
    llvm::errs() << "tile-compile: " << inputFile << " has no tile.kernel\n";
    return 1;
  }

  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "tile-compile: cannot create " << outputDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  for (const KernelLaunch &launch : primary.launches) {
    SmallString<256> base(outputDir);
    llvm::sys::path::append(base, launch.kernel);
    std::string fallbackManifest;
    // A fallback that still takes tensor maps (TMA written in the source)
    // would fail where the kernel does: none is written then.
    if (launch.usesTensorMaps() && wantFallback) {
      const KernelLaunch *other = fallback.find(launch.kernel);
      if (fallback.failed) {
        llvm::errs() << "tile-compile: warning: no fallback for kernel "
                     << launch.kernel
                     << ", so arguments TMA cannot address fail at launch: "
                     << fallback.error << "\n";
      } else if (other && !other->usesTensorMaps()) {
        fallbackManifest = launch.kernel + ".fallback.manifest";
        if (failed(writeKernel(*other, fallback, (base + ".fallback").str(),
                               params, "")))
          return failAndRemoveOutputs();
      }
    }
    if (failed(writeKernel(launch, primary, base.str().str(), params,
                           fallbackManifest)))
      return failAndRemoveOutputs();
  }
  if (printTimes) {
    if (targetsAMD())
      llvm::outs() << llvm::formatv(
          "tile-compile: times: tile-to-gpu {0:F1} ms, rocdl+hsaco {1:F1} ms",
          primary.frontMs, primary.ptxMs);
    else
      llvm::outs() << llvm::formatv(
          "tile-compile: times: tile-to-gpu {0:F1} ms, nvvm+ptx {1:F1} ms, "
          "ptxas {2:F1} ms",
          primary.frontMs, primary.ptxMs, primary.cubinMs);
    if (wantFallback)
      llvm::outs() << llvm::formatv(", fallback (in parallel) {0:F1} ms",
                                    fallback.frontMs + fallback.ptxMs +
                                        fallback.cubinMs);
    llvm::outs() << llvm::formatv(", total {0:F1} ms\n", since(start));
  }
  return 0;
}
