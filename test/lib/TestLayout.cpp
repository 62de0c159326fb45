//===- TestLayout.cpp - print and check tile layouts ----------------------===//
//
// The -test-tile-layout pass: for every operation with a `layout`
// attribute (a #tile.layout or #tile.fragment with a shape) it prints the
// layout's summary and, as the operation's other attributes ask, its value
// on every coordinate, the results of the layout algebra (inverse, compose,
// reshape, repeat, replicate, ...) checked by evaluation, ldmatrix bank
// conflicts, a text grid (as a remark) and an SVG picture.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Layout.h"
#include "tile/Dialect/Tile/TileAttrs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {

void printCoords(raw_ostream &os, ArrayRef<int64_t> coords) {
  os << "(";
  llvm::interleaveComma(coords, os);
  os << ")";
}

std::string attrToString(Attribute attr) {
  std::string str;
  llvm::raw_string_ostream os(str);
  attr.print(os);
  return str;
}

/// Colour of thread or bank `index`: hues spread by the golden angle so
/// that neighbours differ.
std::string colour(int64_t index) {
  int64_t hue = (index * 137) % 360;
  return "hsl(" + std::to_string(hue) + ", 65%, 78%)";
}

/// `text` with the XML special characters escaped.
std::string escapeXml(StringRef text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '&':
      escaped += "&amp;";
      break;
    default:
      escaped += c;
    }
  }
  return escaped;
}

/// One cell of a picture of a 2-D tile.
struct Cell {
  std::string label, sublabel;
  int64_t colourIndex;
};

/// Writes a 2-D grid of cells as SVG: one rectangle per element with its
/// label, row and column numbers on the edges.
void writeSvg(raw_ostream &os, StringRef title, ArrayRef<int64_t> shape,
              function_ref<Cell(int64_t, int64_t)> cellAt) {
  size_t longest = 1;
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c)
      longest = std::max(longest, cellAt(r, c).label.size());
  const int64_t w = std::max<int64_t>(36, 7 * longest + 12), h = 34,
                margin = 30, top = 48;
  int64_t width = std::max<int64_t>(margin + shape[1] * w + 10,
                                    margin + 9 * title.size() + 10);
  int64_t height = top + shape[0] * h + 10;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height << "\" font-family=\"monospace\">\n";
  os << "<text x=\"" << margin << "\" y=\"18\" font-size=\"14\">"
     << escapeXml(title) << "</text>\n";
  for (int64_t c = 0; c < shape[1]; ++c)
    os << "<text x=\"" << margin + c * w + w / 2 << "\" y=\"" << top - 6
       << "\" font-size=\"10\" text-anchor=\"middle\">" << c << "</text>\n";
  for (int64_t r = 0; r < shape[0]; ++r) {
    os << "<text x=\"" << margin - 4 << "\" y=\"" << top + r * h + h / 2 + 4
       << "\" font-size=\"10\" text-anchor=\"end\">" << r << "</text>\n";
    for (int64_t c = 0; c < shape[1]; ++c) {
      Cell cell = cellAt(r, c);
      int64_t x = margin + c * w, y = top + r * h;
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w
         << "\" height=\"" << h << "\" fill=\"" << colour(cell.colourIndex)
         << "\" stroke=\"#555\" stroke-width=\"0.5\"/>\n";
      os << "<text x=\"" << x + w / 2 << "\" y=\"" << y + 15
         << "\" font-size=\"11\" text-anchor=\"middle\">"
         << escapeXml(cell.label) << "</text>\n";
      if (!cell.sublabel.empty())
        os << "<text x=\"" << x + w / 2 << "\" y=\"" << y + 28
           << "\" font-size=\"9\" text-anchor=\"middle\">"
           << escapeXml(cell.sublabel) << "</text>\n";
    }
  }
  os << "</svg>\n";
}

struct TestLayoutPass
    : public PassWrapper<TestLayoutPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLayoutPass)

  TestLayoutPass() = default;
  TestLayoutPass(const TestLayoutPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-tile-layout"; }
  StringRef getDescription() const final {
    return "Print tile layouts evaluated on every coordinate and check the "
           "layout algebra";
  }

  Option<std::string> svgDir{
      *this, "svg-dir",
      llvm::cl::desc("Directory to write <name>.svg pictures into, for the "
                     "operations marked `svg`")};

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      Attribute attr = op->getAttr("layout");
      if (!attr || (!isa<LayoutAttr>(attr) && !isa<FragmentAttr>(attr)))
        return;
      std::string name = "layout";
      if (auto sym =
              op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        name = sym.str();
      llvm::outs() << "=== " << name << ": " << attrToString(attr) << "\n";
      // `buffer_shape` stands for the buffer a layout annotates, which
      // gives shapeless layouts their shape.
      auto bufferShape = op->getAttrOfType<DenseI64ArrayAttr>("buffer_shape");
      if (auto layoutAttr = dyn_cast<LayoutAttr>(attr)) {
        std::optional<Layout> layout =
            bufferShape ? layoutAttr.getLayoutFor(bufferShape.asArrayRef())
                        : layoutAttr.getLayout();
        if (!layout) {
          op->emitError("expected a layout with a shape, or of the buffer's");
          return signalPassFailure();
        }
        testLayout(op, name, *layout);
      } else {
        auto fragmentAttr = cast<FragmentAttr>(attr);
        std::optional<Fragment> fragment =
            bufferShape ? fragmentAttr.getFragmentFor(bufferShape.asArrayRef())
                        : fragmentAttr.getFragment();
        if (!fragment) {
          op->emitError("expected a fragment with a shape, or of the buffer's");
          return signalPassFailure();
        }
        testFragment(op, name, *fragment);
      }
    });
  }

  /// Checks `result` against `expected` on every coordinate of `shape`.
  static bool
  agree(ArrayRef<int64_t> shape,
        function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> got,
        function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> expected) {
    bool ok = true;
    forEachCoordinate(shape, [&](ArrayRef<int64_t> coords) {
      if (ok && got(coords) != expected(coords))
        ok = false;
    });
    return ok;
  }

  void testLayout(Operation *op, StringRef name, const Layout &layout) {
    raw_ostream &os = llvm::outs();
    MLIRContext *ctx = op->getContext();
    os << "codomain: [";
    llvm::interleaveComma(layout.getCodomainShape(), os);
    os << "]\nbijective: " << (layout.isBijective() ? "true" : "false") << "\n";
    if (auto print = op->getAttrOfType<StringAttr>("print")) {
      if (print.getValue() == "table") {
        forEachCoordinate(layout.getShape(), [&](ArrayRef<int64_t> coords) {
          printCoords(os, coords);
          os << " -> ";
          llvm::interleaveComma(layout.apply(coords), os);
          os << "\n";
        });
      } else if (print.getValue() == "grid") {
        emitGrid(op, layout.getShape(), [&](ArrayRef<int64_t> coords) {
          return std::to_string(layout.apply(coords)[0]);
        });
      }
    }
    if (op->hasAttr("linear")) {
      std::optional<Layout> linear = layout.toLinear();
      os << "linear: "
         << (linear ? attrToString(LayoutAttr::get(ctx, *linear)) : "none")
         << "\n";
    }
    if (op->hasAttr("inverse")) {
      std::optional<Layout> inverse = layout.inverse();
      if (!inverse) {
        os << "inverse: none\n";
      } else {
        os << "inverse: " << attrToString(LayoutAttr::get(ctx, *inverse))
           << "\n";
        bool there = agree(
            layout.getShape(),
            [&](ArrayRef<int64_t> c) {
              return inverse->apply(layout.apply(c));
            },
            [&](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); });
        bool back = agree(
            inverse->getShape(),
            [&](ArrayRef<int64_t> c) {
              return layout.apply(inverse->apply(c));
            },
            [&](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); });
        os << "inverse round-trip: " << (there && back ? "ok" : "FAILED")
           << "\n";
      }
    }
    if (auto inner = op->getAttrOfType<LayoutAttr>("compose")) {
      std::optional<Layout> innerLayout = inner.getLayout();
      std::optional<Layout> composed =
          innerLayout ? layout.compose(*innerLayout) : std::nullopt;
      if (!composed) {
        os << "compose: none\n";
      } else {
        os << "compose: " << attrToString(LayoutAttr::get(ctx, *composed))
           << "\n";
        bool ok = agree(
            composed->getShape(),
            [&](ArrayRef<int64_t> c) { return composed->apply(c); },
            [&](ArrayRef<int64_t> c) {
              return layout.apply(innerLayout->apply(c));
            });
        os << "compose check: " << (ok ? "ok" : "FAILED") << "\n";
      }
    }
    if (auto shape = op->getAttrOfType<DenseI64ArrayAttr>("reshape")) {
      std::optional<Layout> reshaped = layout.reshape(shape.asArrayRef());
      os << "reshape: "
         << (reshaped ? attrToString(LayoutAttr::get(ctx, *reshaped)) : "none")
         << "\n";
      if (reshaped) {
        // Elements keep their row-major rank, so the offsets, listed in
        // row-major order, must not change.
        SmallVector<int64_t> before, after;
        forEachCoordinate(layout.getShape(), [&](ArrayRef<int64_t> c) {
          llvm::append_range(before, layout.apply(c));
        });
        forEachCoordinate(reshaped->getShape(), [&](ArrayRef<int64_t> c) {
          llvm::append_range(after, reshaped->apply(c));
        });
        os << "reshape check: " << (before == after ? "ok" : "FAILED") << "\n";
      }
    }
    if (auto other = op->getAttrOfType<LayoutAttr>("equals")) {
      std::optional<Layout> otherLayout = other.getLayout();
      os << "equivalent: "
         << (otherLayout && layout.isEquivalentTo(*otherLayout) ? "true"
                                                                : "false")
         << "\n";
    }
    if (auto bits = op->getAttrOfType<IntegerAttr>("ldmatrix_bits"))
      printLdmatrixConflicts(layout, bits.getInt());
    if (op->hasAttr("svg")) {
      int64_t bits = 16;
      if (auto attr = op->getAttrOfType<IntegerAttr>("ldmatrix_bits"))
        bits = attr.getInt();
      // One cell per 16-byte chunk: where the chunk lands, coloured by its
      // 16-byte bank group, which is what ldmatrix and wide vector accesses
      // care about.
      int64_t perChunk = 128 / bits;
      if (op->hasAttr("svg_chunks") && layout.getRank() == 2 &&
          layout.getShape()[1] % perChunk == 0) {
        SmallVector<int64_t> chunkShape = {layout.getShape()[0],
                                           layout.getShape()[1] / perChunk};
        writePicture(op, name, chunkShape, [&](int64_t r, int64_t c) {
          int64_t chunk = layout.apply({r, c * perChunk})[0] / perChunk;
          return Cell{"c" + std::to_string(chunk),
                      "g" + std::to_string(chunk % 8), chunk % 8};
        });
        return;
      }
      writePicture(op, name, layout.getShape(), [&](int64_t r, int64_t c) {
        int64_t offset = layout.apply({r, c})[0];
        int64_t bank = offset * bits / 32 % 32;
        return Cell{std::to_string(offset), "b" + std::to_string(bank),
                    offset * bits / 128 % 8};
      });
    }
  }

  /// An ldmatrix phase reads one 16-byte chunk from each of 8 rows; the
  /// read is conflict-free when the 8 chunks fall in distinct 16-byte
  /// groups of the 128-byte bank line. Checks every 8-row group and every
  /// chunk column of a 2-D layout of `bits`-bit elements.
  void printLdmatrixConflicts(const Layout &layout, int64_t bits) {
    raw_ostream &os = llvm::outs();
    ArrayRef<int64_t> shape = layout.getShape();
    int64_t perChunk = 128 / bits;
    if (shape.size() != 2 || shape[0] % 8 || shape[1] % perChunk) {
      os << "ldmatrix: not applicable\n";
      return;
    }
    int64_t worst = 1;
    for (int64_t r0 = 0; r0 < shape[0]; r0 += 8) {
      for (int64_t c0 = 0; c0 < shape[1]; c0 += perChunk) {
        SmallVector<int64_t> ways(8, 0);
        for (int64_t r = r0; r < r0 + 8; ++r) {
          int64_t byte = layout.apply({r, c0})[0] * bits / 8;
          worst = std::max(worst, ++ways[byte / 16 % 8]);
        }
      }
    }
    os << "ldmatrix conflict-free: " << (worst == 1 ? "true" : "false")
       << " (worst " << worst << "-way)\n";
  }

  void testFragment(Operation *op, StringRef name, const Fragment &fragment) {
    raw_ostream &os = llvm::outs();
    MLIRContext *ctx = op->getContext();
    os << "threads: " << fragment.getThreads()
       << " registers: " << fragment.getNumRegisters()
       << " replicate: " << fragment.getReplicate() << "\n";
    os << "injective: " << (fragment.isInjective() ? "true" : "false")
       << "\nbijective: " << (fragment.isBijective() ? "true" : "false")
       << "\n";
    if (auto print = op->getAttrOfType<StringAttr>("print")) {
      if (print.getValue() == "threads") {
        printByThread(fragment);
      } else if (print.getValue() == "table") {
        forEachCoordinate(fragment.getShape(), [&](ArrayRef<int64_t> c) {
          printCoords(os, c);
          os << " -> T";
          for (int64_t rep = 0; rep < fragment.getReplicate(); ++rep)
            os << (rep ? "|" : "") << fragment.getThread(c, rep);
          os << " R" << fragment.getRegister(c) << "\n";
        });
      } else if (print.getValue() == "grid") {
        emitGrid(op, fragment.getShape(), [&](ArrayRef<int64_t> c) {
          return "T" + std::to_string(fragment.getThread(c)) + ":R" +
                 std::to_string(fragment.getRegister(c));
        });
      }
    }
    auto show = [&](StringRef what, std::optional<Fragment> result) {
      os << what << ": "
         << (result ? attrToString(FragmentAttr::get(ctx, *result)) : "none")
         << "\n";
      if (result)
        os << what
           << " injective: " << (result->isInjective() ? "true" : "false")
           << "\n";
      return result;
    };
    if (auto repeats = op->getAttrOfType<DenseI64ArrayAttr>("repeat"))
      checkRepeat(fragment, show("repeat", fragment.repeat(repeats, false)),
                  false);
    if (auto repeats = op->getAttrOfType<DenseI64ArrayAttr>("repeat_on_thread"))
      checkRepeat(fragment,
                  show("repeat_on_thread", fragment.repeatOnThread(repeats)),
                  true);
    if (auto factor = op->getAttrOfType<IntegerAttr>("replicate")) {
      std::optional<Fragment> rep =
          show("replicate", fragment.replicate(factor.getInt()));
      // Every replica keeps the register and lands on a copy of the
      // original thread.
      bool ok = true;
      forEachCoordinate(fragment.getShape(), [&](ArrayRef<int64_t> c) {
        for (int64_t r = 0; r < rep->getReplicate(); ++r)
          ok &= rep->getRegister(c) == fragment.getRegister(c) &&
                rep->getThread(c, r) % fragment.getThreads() ==
                    fragment.getThread(c, r % fragment.getReplicate());
      });
      os << "replicate check: " << (ok ? "ok" : "FAILED") << "\n";
    }
    if (auto range = op->getAttrOfType<DenseI64ArrayAttr>("bind_thread_range"))
      show("bind_thread_range", fragment.bindThreadRange(range[0], range[1]));
    if (op->hasAttr("transpose")) {
      Fragment transposed = *show("transpose", fragment.transpose());
      if (auto other = op->getAttrOfType<FragmentAttr>("transpose_equals")) {
        std::optional<Fragment> otherFragment = other.getFragment();
        os << "transpose equivalent: "
           << (otherFragment && transposed.isEquivalentTo(*otherFragment)
                   ? "true"
                   : "false")
           << "\n";
      }
    }
    if (auto shape = op->getAttrOfType<DenseI64ArrayAttr>("reshape"))
      show("reshape", fragment.reshape(shape.asArrayRef()));
    if (auto other = op->getAttrOfType<FragmentAttr>("equals")) {
      std::optional<Fragment> otherFragment = other.getFragment();
      os << "equivalent: "
         << (otherFragment && fragment.isEquivalentTo(*otherFragment) ? "true"
                                                                      : "false")
         << "\n";
    }
    if (op->hasAttr("inverse")) {
      std::optional<Layout> inverse = fragment.inverse();
      if (!inverse) {
        os << "inverse: none\n";
      } else {
        os << "inverse: " << attrToString(LayoutAttr::get(ctx, *inverse))
           << "\n";
        bool ok = agree(
            fragment.getShape(),
            [&](ArrayRef<int64_t> c) {
              return inverse->apply(
                  {fragment.getThread(c), fragment.getRegister(c)});
            },
            [&](ArrayRef<int64_t> c) { return SmallVector<int64_t>(c); });
        os << "inverse round-trip: " << (ok ? "ok" : "FAILED") << "\n";
      }
    }
    if (op->hasAttr("svg"))
      writePicture(op, name, fragment.getShape(), [&](int64_t r, int64_t c) {
        int64_t thread = fragment.getThread({r, c});
        std::string label = "T" + std::to_string(thread);
        for (int64_t rep = 1; rep < fragment.getReplicate(); ++rep)
          label += "|" + std::to_string(fragment.getThread({r, c}, rep));
        return Cell{label, "R" + std::to_string(fragment.getRegister({r, c})),
                    thread};
      });
  }

  /// Checks a repeat() result: copy k of the original tile holds the
  /// original's registers shifted by k * registers (or threads shifted by
  /// k * threads) with copies numbered dimension 0 first.
  void checkRepeat(const Fragment &base, std::optional<Fragment> result,
                   bool onThread) {
    ArrayRef<int64_t> shape = base.getShape();
    int64_t regs = base.getNumRegisters();
    bool ok = true;
    forEachCoordinate(result->getShape(), [&](ArrayRef<int64_t> c) {
      SmallVector<int64_t> inner;
      int64_t copy = 0, stride = 1;
      for (unsigned i = 0; i < shape.size(); ++i) {
        inner.push_back(c[i] % shape[i]);
        copy += (c[i] / shape[i]) * stride;
        stride *= result->getShape()[i] / shape[i];
      }
      int64_t thread = base.getThread(inner), reg = base.getRegister(inner);
      if (onThread)
        thread += copy * base.getThreads();
      else
        reg += copy * regs;
      ok &= result->getThread(c) == thread && result->getRegister(c) == reg;
    });
    llvm::outs() << "repeat check: " << (ok ? "ok" : "FAILED") << "\n";
  }

  /// Lists, thread by thread and register by register, the coordinates of
  /// the element each register holds (the order of the PTX ISA tables).
  void printByThread(const Fragment &fragment) {
    std::map<std::pair<int64_t, int64_t>, SmallVector<int64_t>> slots;
    forEachCoordinate(fragment.getShape(), [&](ArrayRef<int64_t> c) {
      for (int64_t rep = 0; rep < fragment.getReplicate(); ++rep)
        slots[{fragment.getThread(c, rep), fragment.getRegister(c)}] =
            SmallVector<int64_t>(c);
    });
    for (auto &[slot, coords] : slots) {
      llvm::outs() << "T" << slot.first << " R" << slot.second << ": ";
      printCoords(llvm::outs(), coords);
      llvm::outs() << "\n";
    }
  }

  /// Emits a 2-D tile's cells as a text grid in a remark on `op`.
  void emitGrid(Operation *op, ArrayRef<int64_t> shape,
                function_ref<std::string(ArrayRef<int64_t>)> cell) {
    if (shape.size() != 2) {
      op->emitRemark("grid: only 2-d tiles are drawn");
      return;
    }
    size_t width = 1;
    forEachCoordinate(shape, [&](ArrayRef<int64_t> c) {
      width = std::max(width, cell(c).size());
    });
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "layout grid (rows x columns):";
    for (int64_t r = 0; r < shape[0]; ++r) {
      os << "\n";
      for (int64_t c = 0; c < shape[1]; ++c)
        os << (c ? " " : "") << llvm::left_justify(cell({r, c}), width);
    }
    op->emitRemark(text);
  }

  void writePicture(Operation *op, StringRef name, ArrayRef<int64_t> shape,
                    function_ref<Cell(int64_t, int64_t)> cellAt) {
    if (svgDir.empty()) {
      op->emitError("svg needs the svg-dir option");
      return signalPassFailure();
    }
    if (shape.size() != 2) {
      op->emitError("svg: only 2-d tiles are drawn");
      return signalPassFailure();
    }
    SmallString<128> path(svgDir.getValue());
    llvm::sys::fs::create_directories(path);
    llvm::sys::path::append(path, name + ".svg");
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec);
    if (ec) {
      op->emitError() << "cannot write " << path << ": " << ec.message();
      return signalPassFailure();
    }
    writeSvg(file, attrToString(op->getAttr("layout")), shape, cellAt);
    llvm::outs() << "svg: " << llvm::sys::path::filename(path) << "\n";
  }
};

} // namespace

namespace mlir::tile::test {
/// Registers -test-tile-layout.
void registerTestLayoutPass() { PassRegistration<TestLayoutPass>(); }
} // namespace mlir::tile::test
