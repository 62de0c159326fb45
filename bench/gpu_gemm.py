"""Checks and times the library GEMMs (kernels/gemm_{nn,nt,tn}.mlir compiled
by tile-compile) on the GPU, next to cuBLAS (torch.matmul) and an autotuned
Triton matmul run in the same process.

    python3 bench/gpu_gemm.py --kernels KERNELS_DIR \
        --runtime /tmp/rt/lib/libtile_runtime.so

KERNELS_DIR is searched recursively for launch manifests of gemm_nn_kernel,
gemm_nt_kernel and gemm_tn_kernel; each one found is a variant, described by
the `# params` comment tile-compile writes into the manifest (element types
AT, CT, OT, tile shape, stages, threads). Compile one directory per variant,
for example:

    for L in nn nt tn; do
      tile-compile kernels/gemm_$L.mlir -o gemms/$L-f16
      tile-compile kernels/gemm_$L.mlir -o gemms/$L-bf16 -D AT=bf16 -D OT=bf16
      tile-compile kernels/gemm_$L.mlir -o gemms/$L-i8 -D AT=i8 -D CT=i32 -D OT=i32 -D BK=64
    done

Shapes: the GEMM shapes M0-M7 of the TileLang paper (Appendix A, Table 2:
M x N x K), then ragged ones that no tile divides: 1000x1000x1000,
4095x513x77, 1x4096x4096 and 333x2000x200 (an odd number of 128-row tiles,
so a cluster of two blocks along M has one past the last row).

For each variant and shape:
  (a) correctness: inputs are fresh random tensors with no zeros (floats in
      [-1, 1), int8 in [-8, 8)), the output is poisoned, the kernel runs
      through the Python package (python/tile, on torch's stream, in this
      process), and its output is checked against torch.matmul of the
      inputs in a wider type (f32 for f16 and
      bf16 without TF32; f64 for int8, exact), rounded to the output type.
      Float outputs pass when |out - ref| <= atol + rtol * |ref| with rtol a
      few units in the last place of the output type and atol growing with
      sqrt(K), the size of a dot product of K random terms and of the error
      of accumulating it in another order; int8 must be exact. The Triton
      result is checked the same way.
  (b) speed: the tile kernel, cuBLAS (torch.matmul; torch._int_mm for
      int8, where its shape rules allow) and Triton, each the median of
      --reps calls between CUDA events after the GPU idled --cool seconds,
      as TFLOP/s (TOP/s for int8) with the ratio tile / cuBLAS.

Prints a Markdown report with the device name and exits non-zero if any
check failed or any kernel did not run.
"""

import argparse
import math
import os
import re
import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError:  # the helpers above main() still load without them
    torch = triton = tl = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from report import markdown_table  # noqa: E402
import options  # noqa: E402
import shapes  # noqa: E402

# (name, M, N, K): the paper's Table 2, then the ragged shapes.
PAPER_SHAPES = shapes.GEMM
RAGGED_SHAPES = [
    ("R0", 1000, 1000, 1000),
    ("R1", 4095, 513, 77),
    ("R2", 1, 4096, 4096),
    ("R3", 333, 2000, 200),
]
SHAPES = PAPER_SHAPES + RAGGED_SHAPES

KERNEL_NAME = re.compile(r"gemm_(nn|nt|tn)_kernel")
# Element types the variants may use, by their MLIR names.
INPUT_TYPES = ("f16", "bf16", "f32", "i8", "f8E4M3FN", "f8E5M2")
OUTPUT_TYPES = ("f16", "bf16", "f32", "i32")
# Relative spacing of the floating-point output types (one ulp at 1.0).
ULP = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -23}


class Variant:
    """One compiled GEMM: its manifest and the parameters it was built with."""

    def __init__(self, manifest, layout, params):
        self.manifest = manifest
        self.layout = layout
        self.params = params
        self.at = params["AT"]
        self.ct = params.get("CT", "i32" if self.at == "i8" else "f32")
        self.ot = params["OT"]

    def tiles(self):
        """The tile configuration, e.g. '128x128x32 s3 t128'."""
        p = self.params
        text = "x".join(p.get(k, "?") for k in ("BM", "BN", "BK"))
        return f"{text} s{p.get('STAGES', '?')} t{p.get('THREADS', '?')}"

    def name(self, root):
        """The variant's directory relative to `root` ('-' for a baseline)."""
        if not self.manifest:
            return "-"
        return os.path.relpath(os.path.dirname(self.manifest), root)

    def types(self):
        return f"{self.at}->{self.ot}"


def read_manifest(path):
    """Returns (kernel name, params dict) of a launch manifest; params are
    those of its `# params NAME=VALUE ...` comment (empty if none)."""
    kernel, params = None, {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words[:2] == ["#", "params"]:
                for word in words[2:]:
                    name, _, value = word.partition("=")
                    params[name] = value
            elif words[:1] == ["kernel"] and len(words) > 1:
                kernel = words[1]
    return kernel, params


def find_variants(root):
    """Every GEMM manifest under `root`, sorted by path; raises ValueError
    for a GEMM manifest whose parameters the script cannot run."""
    variants = []
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            # A kernel's fallback (tile-compile writes NAME.fallback.manifest
            # beside it) runs through the kernel's own manifest.
            if not name.endswith(".manifest") or \
                    name.endswith(".fallback.manifest"):
                continue
            path = os.path.join(directory, name)
            kernel, params = read_manifest(path)
            match = KERNEL_NAME.fullmatch(kernel or "")
            if not match:
                continue
            if "AT" not in params or "OT" not in params:
                raise ValueError(f"{path}: no '# params' line with AT and OT "
                                 "(compile it with this tile-compile)")
            if params["AT"] not in INPUT_TYPES or \
                    params["OT"] not in OUTPUT_TYPES:
                raise ValueError(f"{path}: unsupported types AT={params['AT']}"
                                 f" OT={params['OT']}")
            variants.append(Variant(path, match.group(1), params))
    return variants


def operand_shapes(layout, m, n, k):
    """Stored shapes of A and B: NN A MxK, B KxN; NT B NxK; TN A KxM."""
    a = (k, m) if layout == "tn" else (m, k)
    b = (n, k) if layout == "nt" else (k, n)
    return a, b


def tolerance(ot, k, ct="f32", at="f16"):
    """(rtol, atol) for an output of type `ot` of a K-deep product of inputs
    in [-1, 1): exact for integers; otherwise four ulps of the output type
    relative, and an absolute floor that grows like the dot product itself,
    sqrt(K), for elements that cancel to near zero. An f16 accumulator
    rounds every partial sum (|sum| ~ sqrt(K)/3) to 11 bits, K times: its
    floor is K * 2^-11 / 3 * 3 (three times the expected drift)."""
    if ot.startswith("i"):
        return 0.0, 0.0
    if at == "f32":
        # f32 operands run as tf32 (10-bit mantissas): each product is off
        # by up to 2^-10 relative, so the sum by about sqrt(K) of those.
        return 2.0 ** -9, math.sqrt(k) * 2.0 ** -10
    if at.startswith("f8"):
        # Hopper's fp8 tensor cores add into a narrower-than-f32 sum (about
        # 14 bits kept, per the DeepSeek-V3 report): allow K * 2^-14.
        return 4 * ULP[ot], k * 2.0 ** -14
    if ct == "f16":
        return 4 * ULP[ot], k * 2.0 ** -11
    return 4 * ULP[ot], 1e-4 * math.sqrt(k)


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def fmt_rate(value):
    return "-" if value is None else f"{value:.1f}"


# ---------------------------------------------------------------------------
# Triton baseline: a plain tiled matmul over strided operands (so one kernel
# serves every layout), with grouped block order for L2 reuse, autotuned over
# a few tile shapes.

if triton is not None:
    def _triton_configs():
        shapes = [  # BM, BN, BK, stages, warps
            (128, 128, 32, 3, 4), (128, 256, 32, 3, 8), (256, 128, 32, 3, 8),
            (128, 128, 64, 4, 4), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4),
            (64, 64, 64, 3, 4),
            # Hopper: wider K steps on two warpgroups.
            (128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8),
            (128, 256, 64, 4, 8),
        ]
        return [triton.Config({"TM": bm, "TN": bn, "TK": bk, "GROUP": 8},
                              num_stages=s, num_warps=w)
                for bm, bn, bk, s, w in shapes]

    @triton.autotune(configs=_triton_configs(),
                     key=["M", "N", "K", "sam", "sak", "sbk", "sbn"])
    @triton.jit
    def _triton_gemm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                     INT_ACC: tl.constexpr, TM: tl.constexpr,
                     TN: tl.constexpr, TK: tl.constexpr,
                     GROUP: tl.constexpr):
        # Blocks walk groups of GROUP block rows column by column, so
        # consecutive blocks share columns of B in L2.
        pid = tl.program_id(0)
        block_rows = tl.cdiv(M, TM)
        block_cols = tl.cdiv(N, TN)
        in_group = GROUP * block_cols
        first = (pid // in_group) * GROUP
        height = tl.minimum(block_rows - first, GROUP)
        row = first + (pid % in_group) % height
        col = (pid % in_group) // height
        rm = row * TM + tl.arange(0, TM)
        rn = col * TN + tl.arange(0, TN)
        rk = tl.arange(0, TK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        if INT_ACC:
            acc = tl.zeros((TM, TN), dtype=tl.int32)
        else:
            acc = tl.zeros((TM, TN), dtype=tl.float32)
        for k0 in range(0, K, TK):
            inside = (k0 + rk) < K
            x = tl.load(pa, mask=(rm[:, None] < M) & inside[None, :], other=0)
            y = tl.load(pb, mask=inside[:, None] & (rn[None, :] < N), other=0)
            acc += tl.dot(x, y)
            pa += TK * sak
            pb += TK * sbk
        pc = c + rm[:, None] * scm + rn[None, :] * scn
        tl.store(pc, acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def triton_matmul(a, b, out):
        """out = a @ b for 2-d views a (M x K) and b (K x N) of any
        strides."""
        m, k = a.shape
        n = b.shape[1]

        def grid(meta):
            return (triton.cdiv(m, meta["TM"]) * triton.cdiv(n, meta["TN"]),)
        _triton_gemm[grid](a, b, out, m, n, k, a.stride(0), a.stride(1),
                           b.stride(0), b.stride(1), out.stride(0),
                           out.stride(1), INT_ACC=a.dtype == torch.int8)
        return out


def torch_dtype(name):
    return {"f16": torch.float16, "bf16": torch.bfloat16,
            "f32": torch.float32, "i8": torch.int8, "i32": torch.int32,
            "f8E4M3FN": torch.float8_e4m3fn,
            "f8E5M2": torch.float8_e5m2}[name]


def make_operands(variant, m, n, k, gen):
    """Random A and B as stored, their logical M x K and K x N views, and
    the reference product in the output type."""
    a_shape, b_shape = operand_shapes(variant.layout, m, n, k)
    at = torch_dtype(variant.at)
    if variant.at == "i8":
        from harness import nonzero_randint
        a = nonzero_randint(*a_shape, dtype=at, generator=gen)
        b = nonzero_randint(*b_shape, dtype=at, generator=gen)
        wide = torch.float64  # every partial sum is an integer below 2^53
    else:
        from harness import nonzero_rand
        a = nonzero_rand(*a_shape, dtype=at, generator=gen)
        b = nonzero_rand(*b_shape, dtype=at, generator=gen)
        wide = torch.float32
    av = a.t() if variant.layout == "tn" else a
    bv = b.t() if variant.layout == "nt" else b
    ref = torch.matmul(av.to(wide), bv.to(wide))
    return a, b, av, bv, ref.to(torch_dtype(variant.ot))


def cublas_fn(variant, av, bv):
    """The cuBLAS call for these operands, or None where torch has none."""
    if variant.at.startswith("f8"):
        # cuBLASLt's fp8 GEMM: A row-major, B column-major (the NT layout),
        # unit scales.
        one = torch.ones((), device="cuda")
        call = lambda: torch._scaled_mm(av, bv, scale_a=one, scale_b=one,
                                        out_dtype=torch_dtype(variant.ot))
        try:
            call()
        except Exception:  # a layout or shape cuBLASLt's fp8 path rejects
            return None
        return call
    if variant.at == "f32":
        # Like for like: cuBLAS in TF32 too (the references stay in f32).
        def tf32_matmul():
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return torch.matmul(av, bv)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
        return tf32_matmul
    if variant.at != "i8":
        return lambda: torch.matmul(av, bv)
    m, k = av.shape
    n = bv.shape[1]
    # torch._int_mm's rules: M > 16, K and N multiples of 8.
    if m <= 16 or k % 8 or n % 8 or not hasattr(torch, "_int_mm"):
        return None
    try:
        torch._int_mm(av, bv)
    except Exception:  # a layout cuBLASLt's int8 path does not take
        return None
    return lambda: torch._int_mm(av, bv)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernels", default="build/kernels",
                        help="directory searched for GEMM manifests")
    options.add_runtime_argument(parser)
    parser.add_argument("--reps", type=int, default=50)
    options.add_cool_argument(parser)
    parser.add_argument("--shapes", default="all",
                        help="comma-separated names (M0..M7, R0..R3) or "
                             "MxNxK, 'paper', 'ragged' or 'all'")
    parser.add_argument("--baselines-only", action="store_true",
                        help="without tile kernels: check Triton and time "
                             "cuBLAS and Triton for f16/bf16/i8, NN/NT/TN")
    parser.add_argument("--match", default="",
                        help="only variants whose manifest path (or, with "
                             "--baselines-only, 'LAYOUT AT') matches this "
                             "regular expression")
    parser.add_argument("--check-only", action="store_true",
                        help="check correctness; time nothing")
    parser.add_argument("--no-triton", action="store_true")
    args = parser.parse_args()
    if torch is None:
        print("gpu_gemm.py: needs torch and triton", file=sys.stderr)
        return 2
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    import harness
    from harness import check_launch, check_text, compare, poison, time_torch

    harness.COOL_S = args.cool

    wanted = {"all": SHAPES, "paper": PAPER_SHAPES, "ragged": RAGGED_SHAPES}
    if args.shapes in wanted:
        shapes = wanted[args.shapes]
    else:
        names = args.shapes.split(",")
        shapes = [s for s in SHAPES if s[0] in names]
        known = {s[0] for s in shapes}
        for name in [n for n in names if n not in known]:
            try:
                m, n, k = (int(v) for v in name.lower().split("x"))
            except ValueError:
                parser.error(f"unknown shape: {name} (not a name, nor MxNxK)")
            shapes.append((name, m, n, k))

    if args.baselines_only:
        variants = []
        for layout in ("nn", "nt", "tn"):
            for at, ct, ot in (("f16", "f32", "f16"), ("bf16", "f32", "bf16"),
                               ("i8", "i32", "i32")):
                variants.append(Variant(None, layout,
                                        {"AT": at, "CT": ct, "OT": ot}))
    else:
        try:
            variants = find_variants(args.kernels)
        except ValueError as e:
            print(f"gpu_gemm.py: {e}", file=sys.stderr)
            return 2
        if not variants:
            print(f"gpu_gemm.py: no GEMM manifests under {args.kernels}",
                  file=sys.stderr)
            return 2

    pattern = re.compile(args.match)
    variants = [v for v in variants if pattern.search(
        v.manifest or f"{v.layout} {v.at}")]
    if not variants:
        print(f"gpu_gemm.py: no variant matches '{args.match}'",
              file=sys.stderr)
        return 2

    # The references are exact products rounded once; keep torch from
    # computing them in TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2024)
    failed = 0
    checks, times = [], []
    for variant in variants:
        kernel = tile.load(variant.manifest) if variant.manifest else None
        for name, m, n, k in shapes:
            a, b, av, bv, ref = make_operands(variant, m, n, k, gen)
            rtol, atol = tolerance(variant.ot, k, variant.ct, variant.at)
            out = torch.empty(m, n, dtype=torch_dtype(variant.ot),
                              device="cuda")
            label = [variant.name(args.kernels), variant.layout.upper(),
                     variant.types(), f"{name} {m}x{n}x{k}"]
            tile_ms, tile_status = None, "-"
            if kernel is not None:
                ok, tile_status = check_launch(kernel, [a, b, out], {2: ref},
                                               outputs=[2], rtol=rtol,
                                               atol=atol)
                if not ok:
                    failed += 1
                    print(f"== {variant.manifest} {name}: {tile_status}",
                          file=sys.stderr)
                elif not args.check_only:
                    tile_ms, _ = time_torch(lambda: kernel(a, b, out),
                                            reps=args.reps)
            tri_ms, tri_status = None, "-"
            if not args.no_triton and not variant.at.startswith("f8"):
                triton_matmul(av, bv, out)  # autotunes on the first call
                poison(out)
                triton_matmul(av, bv, out)
                ok, max_abs, max_rel, worst = compare(out, ref, rtol, atol)
                tri_status = check_text(ok, max_abs, max_rel, worst)
                if not ok:
                    failed += 1
                elif not args.check_only:
                    tri_ms, _ = time_torch(lambda: triton_matmul(av, bv, out),
                                           reps=args.reps)
            fn = None if args.check_only else cublas_fn(variant, av, bv)
            blas_ms = time_torch(fn, reps=args.reps)[0] if fn else None
            checks.append(label + [variant.tiles() if variant.manifest
                                   else "-", tile_status, tri_status,
                                   f"{rtol:.3g} / {atol:.3g}"])
            rate = [tflops(m, n, k, t) if t else None
                    for t in (tile_ms, blas_ms, tri_ms)]
            ratio = f"{rate[0] / rate[1]:.2f}" if rate[0] and rate[1] else "-"
            times.append(label + [fmt_rate(x) for x in rate] + [ratio])
            del a, b, av, bv, ref, out
            torch.cuda.empty_cache()

    device = torch.cuda.get_device_name()
    print(f"## GEMM on {device}\n")
    print(f"torch {torch.__version__}, triton "
          f"{triton.__version__ if triton else '-'}; median of {args.reps} "
          "launches; int8 rates are TOP/s.\n")
    print("### Correctness (poisoned output, torch reference)\n")
    print(markdown_table(["variant", "layout", "types", "shape",
                          "tile config", "tile", "triton", "rtol / atol"],
                         checks))
    if not args.check_only:
        print("\n### Speed (TFLOP/s)\n")
        print(markdown_table(["variant", "layout", "types", "shape", "tile",
                              "cuBLAS", "triton", "tile / cuBLAS"], times))
    print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
