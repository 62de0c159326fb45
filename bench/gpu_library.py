"""The tile GEMM as a library, measured on the GPU: defaults, dispatch and
the Python launch path, next to cuBLAS (torch.matmul) in the same process.

    python3 bench/gpu_library.py --kernels build/library \\
        --runtime /tmp/rt/lib/libtile_runtime.so --tile-run /tmp/rt/bin/tile-run

KERNELS_DIR holds what tile-compile wrote where MLIR is (docs/GEMM.md,
"Benchmarking the library"):

    KERNELS_DIR/default/gemm_nn_kernel.manifest      no -D, --chip sm_90a
    KERNELS_DIR/dispatch/LAYOUT-TYPE/gemm_LAYOUT_kernel.manifest
        --dispatch kernels/gemm_tuned.txt, LAYOUT nn/nt/tn, TYPE f16/bf16
        (and f32 where --types names it: -D AT=f32 -D OT=f32, against
        cuBLAS with TF32 on, as the kernels read f32 as tf32)

Every launch goes through the Python package (python/tile, imported from
the source tree) on torch tensors, on torch's current stream.

  (a) The no--D sm_90a GEMM on the paper's shapes M0-M7 in f16, against
      cuBLAS timed before and after the tile kernel (the faster counted).
  (b) Each dispatching artifact over 40 shapes of LLM layers: M in
      {1, 16, 64} with the N x K of the paper's V0-V7 (decode) and M in
      {256, 1024, 4096, 8192} with the N x K of M0-M7 (prefill): the variant
      the runtime picks, correctness, and the ratio to cuBLAS (timed before
      and after, the faster counted), with the geometric mean and the
      minimum per artifact.
  (c) Launch overhead, as bench/launch_overhead.py measures it: the host
      time of one launch through Python (kernel(A, B, C), back to back, on
      the same tensors and with the output alternating), through the C
      runtime alone (tileRtKernelLaunchOnStream by ctypes on arguments
      bound once), and through tile-run's prepared launch (its `host:`
      line), on a shape whose kernel is shorter than a launch.

Correctness: fresh random inputs with no zeros per shape (floats in [-1, 1)),
the output poisoned (NaN) before the checked launch, and compared with
torch.matmul of the inputs in f32 (TF32 off) rounded to the output type,
with the tolerances of bench/gpu_gemm.py. Times: the median of --reps
launches, each between two CUDA events (bench/harness.py, time_torch),
every timing after the GPU idled --cool seconds (at the power limit the
clock depends on what ran just before).

--dry runs without a GPU, torch or a driver: it checks the shape lists, and
with --kernels reads every artifact on the host (tile.load(host=True)) and
prints the variant each shape would take, so the artifacts and the rules
can be checked before the GPU run. Prints Markdown; exits non-zero when any
check failed or any launch did not run.
"""

import argparse
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from report import geomean, markdown_table  # noqa: E402
import options  # noqa: E402
import shapes  # noqa: E402

# (name, N, K) and (name, M, N, K) of the TileLang paper's Appendix A,
# Table 2.
DECODE_NK = shapes.GEMV
PAPER = shapes.GEMM
DECODE_M = (1, 16, 64)
PREFILL_M = (256, 1024, 4096, 8192)
LAYOUTS = ("nn", "nt", "tn")
TYPES = ("f16", "bf16")
# f32 artifacts (tf32 wgmma) are measured where --types names them, against
# cuBLAS with TF32 on.
ALL_TYPES = TYPES + ("f32",)
# The goals the measurements are held against (printed, not assumed).
DEFAULT_GOAL = 1.0
DISPATCH_GOAL, DISPATCH_FLOOR = 0.9, 0.5


def prefill_nk():
    """The distinct N x K pairs of M0-M7, named by the shapes that use
    them."""
    pairs = {}
    for name, _, n, k in PAPER:
        pairs.setdefault((n, k), []).append(name)
    return [("/".join(names), n, k) for (n, k), names in pairs.items()]


def llm_shapes():
    """The 40 (label, M, N, K) of part (b)."""
    shapes = [(f"{name} M={m}", m, n, k) for m in DECODE_M
              for name, n, k in DECODE_NK]
    shapes += [(f"{name} M={m}", m, n, k) for m in PREFILL_M
               for name, n, k in prefill_nk()]
    return shapes


def self_check():
    """The shape lists are what the docstring says: fails loudly if not."""
    shapes = llm_shapes()
    assert len(shapes) == 40, len(shapes)
    assert len({s[1:] for s in shapes}) == 40, "duplicate shapes"
    assert {s[1] for s in shapes} == set(DECODE_M + PREFILL_M)
    assert len(PAPER) == 8 and len(DECODE_NK) == 8
    assert all(m <= 64 for _, m, n, k in shapes[:24])


def operand_shapes(layout, m, n, k):
    """Stored shapes of A and B: NN A MxK, B KxN; NT B NxK; TN A KxM."""
    a = (k, m) if layout == "tn" else (m, k)
    b = (n, k) if layout == "nt" else (k, n)
    return a, b


def part_b_shapes(args):
    """The (label, M, N, K) of part (b): --shapes where given (`models`:
    shapes.MODEL_GEMM, `wide`: shapes.WIDE_GEMM, `random`:
    shapes.random_gemm(), each alone or among MxNxK), else the 40 LLM
    shapes."""
    if not args.shapes:
        return llm_shapes()
    named = {"models": shapes.MODEL_GEMM, "wide": shapes.WIDE_GEMM,
             "random": shapes.random_gemm()}
    given = []
    for text in args.shapes.split(","):
        if text in named:
            given += [(f"M={m}", m, n, k) for m, n, k in named[text]]
            continue
        try:
            m, n, k = (int(v) for v in text.lower().split("x"))
        except ValueError:
            raise SystemExit(f"--shapes: '{text}' is not MxNxK")
        given.append((f"M={m}", m, n, k))
    return given


def artifacts(root, layouts=LAYOUTS, types=TYPES):
    """(layout, type, manifest) of every dispatching artifact under
    root/dispatch of `layouts` and `types`, sorted."""
    found = []
    base = os.path.join(root, "dispatch")
    for layout in layouts:
        for t in types:
            path = os.path.join(base, f"{layout}-{t}",
                                f"gemm_{layout}_kernel.manifest")
            if os.path.exists(path):
                found.append((layout, t, path))
    return found


def variant_name(kernel, chosen):
    """The chosen manifest relative to the artifact's directory."""
    return os.path.relpath(chosen, os.path.dirname(kernel.path))


# ---------------------------------------------------------------------------
# --dry: no GPU.

class ShapeOnly(object):
    """A tensor with sizes and no memory, for choosing a variant on the
    host (the address is 256-byte aligned, as the driver's are)."""

    TYPESTR = {"f16": "<f2", "f32": "<f4"}

    def __init__(self, shape, dtype):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": self.TYPESTR.get(dtype, "<f2"),
            "data": (256, False), "version": 3, "strides": None,
            "stream": None}


class ShapeOnlyDLPack(object):
    """bf16 has no __cuda_array_interface__ type string: DLPack instead."""

    def __init__(self, shape):
        from tile._args import _DLTensor

        class Managed(ctypes.Structure):
            _fields_ = [("t", _DLTensor), ("ctx", ctypes.c_void_p),
                        ("deleter", ctypes.c_void_p)]
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.managed = Managed()
        t = self.managed.t
        t.data, t.ndim, t.shape = 256, len(shape), self.shape
        t.device.device_type = 2
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 4, 16, 1

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def dry(args):
    self_check()
    print(f"shape lists: {len(llm_shapes())} LLM shapes, "
          f"{len(PAPER)} paper shapes: ok")
    if not args.kernels:
        return 0
    import tile
    failed = 0
    default = os.path.join(args.kernels, "default", "gemm_nn_kernel.manifest")
    if os.path.exists(default):
        k = tile.load(default, host=True)
        print(f"\n{default}: {k!r}")
    else:
        print(f"\nmissing {default}")
        failed += 1
    layouts, types = args.layouts.split(","), args.types.split(",")
    found = artifacts(args.kernels, layouts, types)
    if len(found) != len(layouts) * len(types):
        print(f"found {len(found)} of {len(layouts) * len(types)} "
              "dispatching artifacts")
        failed += 1
    for layout, t, path in found:
        k = tile.load(path, host=True)
        rows = []
        for label, m, n, kk in part_b_shapes(args):
            a_shape, b_shape = operand_shapes(layout, m, n, kk)
            make = (lambda s: ShapeOnlyDLPack(s)) if t == "bf16" else \
                (lambda s: ShapeOnly(s, t))
            chosen, why = k.select(make(a_shape), make(b_shape),
                                   make((m, n)))
            # The reasons name manifests by path: shown relative.
            base = os.path.dirname(k.path) + os.sep
            rows.append([label, f"{m}x{n}x{kk}", variant_name(k, chosen),
                         "; ".join(w.replace(base, "") for w in why) or "-"])
        print(f"\n### {layout.upper()} {t}: {path}\n")
        print(markdown_table(["shape", "MxNxK", "variant", "why"], rows))
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# On the GPU.

def run(args):
    import torch
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    from gpu_gemm import tolerance, torch_dtype
    import harness
    from harness import compare, nonzero_rand, time_torch

    harness.COOL_S = args.cool
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2025)
    failed = 0
    device = torch.cuda.get_device_name()
    print(f"## The GEMM library on {device}\n")
    print(f"torch {torch.__version__}; median of {args.reps} launches, each "
          "between CUDA events, each timing after the GPU idled "
          f"{args.cool:g} s; cuBLAS timed before and after the tile kernel, "
          "the faster counted.\n")

    def measure(kernel, layout, t, m, n, k):
        """Checks and times one shape; returns (row cells, ratio or
        None)."""
        nonlocal failed
        a_shape, b_shape = operand_shapes(layout, m, n, k)
        dt = torch_dtype(t)
        a = nonzero_rand(*a_shape, dtype=dt, generator=gen)
        b = nonzero_rand(*b_shape, dtype=dt, generator=gen)
        av = a.t() if layout == "tn" else a
        bv = b.t() if layout == "nt" else b
        ref = torch.matmul(av.float(), bv.float()).to(dt)
        out = torch.full((m, n), float("nan"), dtype=dt, device="cuda")
        rtol, atol = tolerance(t, k, "f32", t)
        chosen = variant_name(kernel, kernel.select(a, b, out)[0])
        try:
            kernel(a, b, out)
            torch.cuda.synchronize()
        except tile.TileError as e:
            failed += 1
            return [chosen, f"FAILED: {e}", "-", "-", "-"], None
        ok, max_abs, _, worst = compare(out, ref, rtol, atol)
        status = f"{'ok' if ok else 'FAILED'}, max abs err {max_abs:.3g}, " \
                 f"worst {worst:.2g} of the bound"
        if not ok:
            failed += 1
            return [chosen, status, "-", "-", "-"], None
        if args.check_only:
            return [chosen, status, "-", "-", "-"], None
        blas = lambda: torch.matmul(av, bv)
        # f32 runs as tf32 on the tensor cores: so does cuBLAS here.
        torch.backends.cuda.matmul.allow_tf32 = t == "f32"
        before = time_torch(blas, reps=args.reps)[0]
        tile_ms = time_torch(lambda: kernel(a, b, out), reps=args.reps)[0]
        after = time_torch(blas, reps=args.reps)[0]
        torch.backends.cuda.matmul.allow_tf32 = False
        blas_ms = min(before, after)
        flop = 2.0 * m * n * k
        rate = flop / (tile_ms * 1e-3) / 1e12
        blas_rate = flop / (blas_ms * 1e-3) / 1e12
        ratio = blas_ms / tile_ms
        del a, b, av, bv, ref, out
        torch.cuda.empty_cache()
        return [chosen, status, f"{rate:.1f}", f"{blas_rate:.1f}",
                f"{ratio:.2f}"], ratio

    # (a) the default build.
    default = os.path.join(args.kernels, "default", "gemm_nn_kernel.manifest")
    if args.part in ("all", "a"):
        kernel = tile.load(default)
        rows, ratios = [], []
        for name, m, n, k in PAPER:
            cells, ratio = measure(kernel, "nn", "f16", m, n, k)
            rows.append([name, f"{m}x{n}x{k}"] + cells[1:])
            if ratio:
                ratios.append(ratio)
        print("### (a) No -D, --chip sm_90a, NN f16, M0-M7\n")
        print(markdown_table(["shape", "MxNxK", "check", "tile TFLOP/s",
                              "cuBLAS TFLOP/s", "tile / cuBLAS"], rows))
        if ratios:
            g = geomean(ratios)
            print(f"\ngeometric mean {g:.3f}x cuBLAS over {len(ratios)} "
                  f"shapes ({'meets' if g >= DEFAULT_GOAL else 'misses'} "
                  f"the {DEFAULT_GOAL}x goal)\n")

    # (b) dispatch over the LLM shapes.
    if args.part in ("all", "b"):
        found = artifacts(args.kernels, args.layouts.split(","),
                          args.types.split(","))
        if not found:
            print(f"no dispatching artifacts under {args.kernels}/dispatch",
                  file=sys.stderr)
            failed += 1
        summary = []
        for layout, t, path in found:
            kernel = tile.load(path)
            rows, ratios = [], []
            for label, m, n, k in part_b_shapes(args):
                cells, ratio = measure(kernel, layout, t, m, n, k)
                rows.append([label, f"{m}x{n}x{k}"] + cells)
                if ratio:
                    ratios.append(ratio)
            print(f"### (b) Dispatch, {layout.upper()} {t} ({path})\n")
            print(markdown_table(["shape", "MxNxK", "variant", "check",
                                  "tile TFLOP/s", "cuBLAS TFLOP/s",
                                  "tile / cuBLAS"], rows))
            print()
            if ratios:
                g, low = geomean(ratios), min(ratios)
                verdict = "meets" if g >= DISPATCH_GOAL and \
                    low >= DISPATCH_FLOOR and \
                    len(ratios) == len(part_b_shapes(args)) else "misses"
                summary.append([layout.upper(), t, len(ratios), f"{g:.3f}",
                                f"{low:.2f}", verdict])
        if summary:
            print("### (b) Summary\n")
            print(markdown_table(
                ["layout", "type", "shapes timed", "geometric mean",
                 "minimum",
                 f"goal (>= {DISPATCH_GOAL}, never < {DISPATCH_FLOOR})"],
                summary))
            print()

    # (c) launch overhead: bench/launch_overhead.py's measurement.
    if args.part in ("all", "c"):
        import launch_overhead
        path = os.path.join(args.kernels, "dispatch", "nn-f16",
                            "gemm_nn_kernel.manifest")
        kernel = tile.load(path)
        m, n, k = launch_overhead.M, launch_overhead.N, launch_overhead.K
        a = nonzero_rand(m, k, dtype=torch.float16, generator=gen)
        b = nonzero_rand(k, n, dtype=torch.float16, generator=gen)
        out = torch.empty(m, n, dtype=torch.float16, device="cuda")
        out2 = torch.empty(m, n, dtype=torch.float16, device="cuda")
        rows, times, ok = launch_overhead.measure(
            kernel, a, b, out, out2, torch.cuda.current_stream().cuda_stream,
            torch.cuda.synchronize, args.launches, args.tile_run)
        if not ok:
            failed += 1
        launch_overhead.report(rows, times, args.launches, device,
                               launch_overhead.GPU_GOAL_US,
                               title="(c) Host time of one launch")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernels", default="",
                        help="directory with default/ and dispatch/ (see "
                             "above)")
    options.add_runtime_argument(parser)
    parser.add_argument("--tile-run", default="/tmp/rt/bin/tile-run")
    parser.add_argument("--reps", type=int, default=100)
    options.add_cool_argument(parser)
    parser.add_argument("--launches", type=int, default=2000,
                        help="back-to-back launches per overhead sample")
    parser.add_argument("--part", choices=("all", "a", "b", "c"),
                        default="all")
    parser.add_argument("--check-only", action="store_true",
                        help="check correctness; time nothing")
    parser.add_argument("--shapes", default="",
                        help="part (b) on these shapes (comma "
                             "separated), each MxNxK or a list: `models` "
                             "(22 shapes of Llama- and Mistral-sized "
                             "layers), `wide` (29 with more than 1024 rows "
                             "and few tiles), `random` (30 drawn with a "
                             "fixed seed); instead of the 40 LLM shapes")
    parser.add_argument("--layouts", default=",".join(LAYOUTS),
                        help="part (b): the layouts to run (comma "
                             "separated, of " + ",".join(LAYOUTS) + ")")
    parser.add_argument("--types", default=",".join(TYPES),
                        help="part (b): the types of the artifacts to run "
                             "(comma separated, of " + ",".join(ALL_TYPES) +
                             "; f32 against cuBLAS with TF32 on)")
    parser.add_argument("--dry", action="store_true",
                        help="no GPU: check the shape lists and, with "
                             "--kernels, print each shape's variant")
    args = parser.parse_args()
    for t in args.types.split(","):
        if t not in ALL_TYPES:
            parser.error(f"--types: '{t}' is not one of "
                         + ",".join(ALL_TYPES))
    # The installed tile package (pip install ./python, with its C launch
    # path where it was built), else the source tree's (ctypes); part (c)
    # says which path ran.
    import importlib.util
    if importlib.util.find_spec("tile") is None:
        sys.path.insert(0, os.path.join(ROOT, "python"))
    if args.dry:
        if args.runtime and os.path.exists(args.runtime):
            os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
        return dry(args)
    if not args.kernels:
        parser.error("--kernels is required (except with --dry)")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
