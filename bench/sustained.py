#!/usr/bin/env python3
"""sustained.py - compute-bound tile kernels and their torch references
run back to back for seconds at a time, at the GPU's power limit.

The other scripts time bursts of tens to hundreds of milliseconds. Under
sustained tensor-core load an H100 holds its power limit (700 W) by
lowering the SM clock, and it takes tens of milliseconds to get there, so
a burst's rate depends on what ran before it (bench/harness.py, COOL_S).
A model serving requests runs at the limit. This script measures that
regime: each kernel runs back to back for --secs seconds, alternating with
its reference (reference, tile, reference, tile, ...), while nvidia-smi
samples the SM clock and the power draw; the rate counts every launch of
the run after the first second, the clock and power are medians of the
samples after it. Every tile kernel is first checked once against its
reference (output poisoned with NaN first).

    python3 bench/sustained.py --gemm build/library/default \\
        --w4 build/gemv --fa build/fa --secs 3

--gemm: the NN f16 GEMM (gemm_nn_kernel.manifest) against torch.matmul on
M0-M7; --w4: the W4A16 GEMM (gemm_w4a16-f16-g128/, as
bench/build_gemv_kernels.sh builds it, zero points and symmetric) against
torch.nn.functional.linear on the dequantized matrix on M1 and M5; --fa:
FlashAttention (f16-d128-full/ and f16-d128-causal/, as
bench/flash-attn-kernels.sh builds them) against torch's SDPA with the
cuDNN backend on FA5 and FA6. Prints Markdown.
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

import options  # noqa: E402
import shapes  # noqa: E402

GEMM = shapes.GEMM
W4 = shapes.named(shapes.GEMM, "M1", "M5")
# (name, batch, heads, seq_q, seq_kv, dim, causal)
FA = shapes.named(shapes.FLASH, "FA5", "FA6")


def parse_samples(text, skip=20):
    """Median SM clock (MHz) and power (W) of nvidia-smi's CSV samples
    ("clock, power" lines, any other line ignored), leaving out the first
    `skip` (the first second at 50 ms, while the clock comes down) or the
    first half when there are fewer than 2 * skip; (0, 0, 0) without
    samples. Returns (clock, power, samples used)."""
    rows = []
    for line in text.strip().splitlines():
        try:
            clock, power = (float(x) for x in line.split(","))
        except ValueError:
            continue
        rows.append((clock, power))
    rows = rows[min(len(rows) // 2, skip):]
    if not rows:
        return 0.0, 0.0, 0
    return (statistics.median(r[0] for r in rows),
            statistics.median(r[1] for r in rows), len(rows))


class Sampler:
    """nvidia-smi sampling the SM clock (MHz) and power (W) every 50 ms."""

    def __enter__(self):
        self.proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=clocks.sm,power.draw",
             "--format=csv,noheader,nounits", "-lms", "50"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.clock, self.power, _ = parse_samples(self.proc.communicate()[0])


def shape_filter(names):
    """The set of shape names --shapes selects (None: all); raises
    ValueError on a name no list holds."""
    if not names:
        return None
    known = {s[0] for s in GEMM + W4 + FA}
    chosen = set(names.split(","))
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError("unknown shape " + ", ".join(unknown) +
                         " (known: " + ", ".join(sorted(known)) + ")")
    return chosen


def sustained(fn, secs):
    """Rate of fn() in calls per ms over `secs` seconds back to back, the
    first second left out; with the median SM clock and power."""
    import torch
    with Sampler() as s:
        t0 = time.time()
        while time.time() - t0 < 1.0:
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        n = 0
        t0 = time.time()
        while time.time() - t0 < secs - 1.0:
            for _ in range(5):
                fn()
            n += 5
            torch.cuda.synchronize()
        end.record()
        end.synchronize()
    return n / start.elapsed_time(end), s.clock, s.power


def manifests(args):
    """The manifests the arguments name, for the shapes selected."""
    paths = []
    if args.gemm:
        paths.append(os.path.join(args.gemm, "gemm_nn_kernel.manifest"))
    if args.w4:
        for kernel in ("gemm_w4a16", "gemm_w4a16_sym"):
            paths.append(os.path.join(args.w4, "gemm_w4a16-f16-g128",
                                      kernel + "_kernel.manifest"))
    if args.fa:
        for name, _, _, _, _, d, causal in FA:
            paths.append(os.path.join(
                args.fa, f"f16-d{d}-{'causal' if causal else 'full'}",
                "flash_attn_kernel.manifest"))
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gemm", help="folder of the NN f16 GEMM's manifest")
    ap.add_argument("--w4", help="folder of gemm_w4a16-f16-g128/")
    ap.add_argument("--fa", help="folder of f16-d128-full/, f16-d128-causal/")
    options.add_runtime_argument(ap)
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=2,
                    help="reference/tile pairs per shape")
    ap.add_argument("--shapes", default="",
                    help="only these shape names (comma-separated)")
    args = ap.parse_args()
    if not args.secs > 1.0:
        ap.error(f"--secs: expected more than the first second, which is "
                 f"left out, got {args.secs:g}")
    try:
        only = shape_filter(args.shapes)
    except ValueError as e:
        ap.error(f"--shapes: {e}")
    if not (args.gemm or args.w4 or args.fa):
        ap.error("nothing to run: give --gemm, --w4 or --fa")
    missing = [p for p in manifests(args) if not os.path.exists(p)]
    if missing:
        ap.error("no such manifest: " + ", ".join(missing))

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    from gpu_gemv import tolerance, w4_operands
    from harness import compare, nonzero_rand

    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    rows, failed = [], 0
    print(f"## Sustained rates on {torch.cuda.get_device_name()}\n")
    print(f"torch {torch.__version__}; each kernel back to back for "
          f"{args.secs:g} s, the first second left out, {args.rounds} "
          "rounds of reference then tile.\n")

    def measure(kind, name, flop, tile_fn, ref_fn, check):
        nonlocal failed
        ok, text = check()
        if not ok:
            failed += 1
            rows.append([kind, name, text] + ["-"] * 6)
            return
        ref, mine = [], []
        for _ in range(args.rounds):
            ref.append(sustained(ref_fn, args.secs))
            mine.append(sustained(tile_fn, args.secs))
        r = max(ref, key=lambda x: x[0])
        t = max(mine, key=lambda x: x[0])
        tf = [flop * x[0] / 1e9 for x in mine]
        rf = [flop * x[0] / 1e9 for x in ref]
        rows.append([kind, name, text,
                     f"{min(tf):.1f}-{max(tf):.1f}", f"{t[1]:.0f} / {t[2]:.0f}",
                     f"{min(rf):.1f}-{max(rf):.1f}", f"{r[1]:.0f} / {r[2]:.0f}",
                     f"{t[0] / r[0]:.3f}"])
        print("| " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)

    def checker(call, out, ref, rtol, atol):
        def check():
            out.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            ok, err, _, worst = compare(out, ref, rtol, atol)
            return ok, (f"{'ok' if ok else 'FAILED'} (max abs err {err:.3g}, "
                        f"{worst:.2g} of the bound)")
        return check

    if args.gemm:
        kern = tile.load(os.path.join(args.gemm, "gemm_nn_kernel.manifest"))
        for name, m, n, k in GEMM:
            if only and name not in only:
                continue
            a = nonzero_rand(m, k, dtype=torch.float16, generator=gen)
            b = nonzero_rand(k, n, dtype=torch.float16, generator=gen)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            ref = (a.float() @ b.float()).half()
            measure("GEMM NN f16", name, 2.0 * m * n * k,
                    lambda: kern(a, b, c), lambda: torch.matmul(a, b),
                    checker(lambda: kern(a, b, c), c, ref,
                            *tolerance("f16", k)))
            del a, b, c, ref
            torch.cuda.empty_cache()
    if args.w4:
        folder = os.path.join(args.w4, "gemm_w4a16-f16-g128")
        for symmetric in (False, True):
            kern = tile.load(os.path.join(
                folder, "gemm_w4a16" + ("_sym" if symmetric else "")
                + "_kernel.manifest"))
            for name, m, n, k in W4:
                if only and name not in only:
                    continue
                x, packed, s, z, wdq = w4_operands(m, n, k, 128, "f16",
                                                   symmetric, gen)
                y = torch.empty(m, n, dtype=torch.float16, device="cuda")
                ref = (x.float() @ wdq.float().t()).half()
                call = (lambda: kern(x, packed, s, y)) if symmetric else \
                    (lambda: kern(x, packed, s, z, y))
                measure("W4A16 GEMM " + ("sym" if symmetric else "zeros"),
                        name, 2.0 * m * n * k, call,
                        lambda: F.linear(x, wdq),
                        checker(call, y, ref, *tolerance("f16", k)))
                del x, packed, s, z, wdq, y, ref
                torch.cuda.empty_cache()
    if args.fa:
        for name, b, h, sq, skv, d, causal in FA:
            if only and name not in only:
                continue
            kern = tile.load(os.path.join(
                args.fa, f"f16-d{d}-{'causal' if causal else 'full'}",
                "flash_attn_kernel.manifest"))
            q = nonzero_rand(b, h, sq, d, dtype=torch.float16, generator=gen)
            k, v = (nonzero_rand(b, h, skv, d, dtype=torch.float16,
                                 generator=gen) for _ in range(2))
            out = torch.empty_like(q)
            lse = torch.empty(b, h, 0, device="cuda")
            scale = 1.0 / math.sqrt(d)

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                   scale=scale)
            # The check on two heads of the first batch: attention in f32
            # by torch (the whole shape's scores would take 17 GB).
            def check():
                out.fill_(float("nan"))
                kern(q, k, v, out, lse, scale)
                torch.cuda.synchronize()
                with sdpa_kernel(SDPBackend.MATH):
                    ref = F.scaled_dot_product_attention(
                        q[:1, :2].float(), k[:1, :2].float(),
                        v[:1, :2].float(), is_causal=causal, scale=scale)
                ok, err, _, worst = compare(out[:1, :2], ref, 1e-2, 4e-3)
                ok = ok and not bool(out.isnan().any())
                return ok, (f"{'ok' if ok else 'FAILED'} (heads 0-1: max abs "
                            f"err {err:.3g}, {worst:.2g} of the bound; no "
                            "NaN left)")
            flop = 4.0 * b * h * sq * skv * d / (2 if causal else 1)
            measure("FlashAttention f16", name, flop,
                    lambda: kern(q, k, v, out, lse, scale), cudnn, check)
            del q, k, v, out
            torch.cuda.empty_cache()

    print("| kernel | shape | check | tile TFLOP/s | tile MHz / W | "
          "reference TFLOP/s | reference MHz / W | tile / reference |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
