"""Tunes the library GEMM for given shapes and records the best
configuration in a table that tile-compile reads (--tuned, docs/GEMM.md).

Two steps, because compiling needs MLIR and timing needs the GPU:

    # where MLIR is: one variant per point of the search space
    python3 bench/tune_gemm.py compile --kernel kernels/gemm_nn.mlir \\
        --out build/tune/nn-f16 --space BN=128,256 STAGES=3,4,5 THREADS=128,256

    # on the GPU machine: check and time every variant per shape, keep the
    # fastest correct one per shape in the table
    python3 bench/tune_gemm.py run --kernels build/tune/nn-f16 \\
        --tile-run /tmp/rt/bin/tile-run --shapes M0,M5 --table kernels/gemm_tuned.txt

    # then, anywhere
    tile-compile kernels/gemm_nn.mlir --tuned kernels/gemm_tuned.txt --shape 8192x8192x8192

    # or a rule for a range of shapes, for tile-compile --dispatch: the
    # variant with the best geometric mean over the shapes (which must lie
    # in the range) replaces the rule entry of that range
    python3 bench/tune_gemm.py run --kernels build/tune/nn-f16-small \
        --tile-run /tmp/rt/bin/tile-run --shapes 1x16384x16384,16x9216x36864 \
        --rule '1..64x*x*' --table kernels/gemm_tuned.txt

`compile` skips points that tile-compile rejects (shared memory or
registers over the chip's budget, tiles the warps cannot split) and prints
why. `run` checks every variant once with a poisoned output against the
torch reference before timing it (median of --reps launches), and prints a
Markdown table with cuBLAS in the same process. A table line is
`gemm_nn 8192x8192x8192 AT=f16 CT=f32 OT=f16 : BM=... BN=... BK=... STAGES=...
THREADS=... # TFLOP/s, ratio to cuBLAS, device`; `run` replaces the line of
the same kernel, shape, chip and types and keeps the others. With --rule
PATTERN it writes one rule line for the range instead (docs/GEMM.md, "Shape
dispatch"), in place of the rule of the same range, else before the
kernel's catch-all rule `*x*x*`, so the catch-all stays last.
"""

import argparse
import datetime
import itertools
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The parameters a table entry sets, and those that select it.
TUNED = ("BM", "BN", "BK", "STAGES", "THREADS", "POLICY", "PANEL")
KEYS = ("AT", "CT", "OT")
DEFAULT_SPACE = {"BM": ["128", "256"], "BN": ["128", "256"],
                 "BK": ["32", "64"], "STAGES": ["2", "3", "4", "5"],
                 "THREADS": ["128", "256"]}


def parse_assignments(words, what):
    """NAME=VALUE[,VALUE...] words as a dict of lists."""
    out = {}
    for word in words:
        name, sep, values = word.partition("=")
        if not sep or not name or not values:
            raise SystemExit(f"tune_gemm: malformed {what} '{word}' "
                             "(expected NAME=VALUE[,VALUE...])")
        out[name] = values.split(",")
    return out


def compile_space(args):
    space = dict(DEFAULT_SPACE)
    space.update(parse_assignments(args.space, "--space entry"))
    fixed = parse_assignments(args.D, "-D")
    names = sorted(space)
    os.makedirs(args.out, exist_ok=True)
    made = skipped = 0
    for values in itertools.product(*(space[n] for n in names)):
        point = dict(zip(names, values))
        # A warp owns at least a 16x8 corner and at most 128 accumulators
        # per thread: outside that, skip without asking the compiler.
        bm, bn, threads = (int(point.get(k, 0)) for k in ("BM", "BN",
                                                          "THREADS"))
        if bm and bn and threads and bm * bn // threads > 128:
            skipped += 1
            continue
        label = "-".join(f"{n}{point[n]}" for n in names)
        cmd = [args.tile_compile, args.kernel, "-o",
               os.path.join(args.out, label), "--chip", args.chip,
               "--index-bitwidth", "32"]
        for name, value in point.items():
            cmd += ["-D", f"{name}={value}"]
        for name, value in fixed.items():
            cmd += ["-D", f"{name}={value[0]}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            skipped += 1
            lines = proc.stderr.strip().splitlines()
            errors = [l for l in lines if "error:" in l]
            why = (errors or lines or ["failed"])[0]
            print(f"skip {label}: {why}")
            continue
        made += 1
        print(f"made {label}")
    print(f"{made} variants in {args.out}, {skipped} points skipped")
    return 0 if made else 1


def read_table(path):
    lines = []
    if os.path.exists(path):
        with open(path) as f:
            lines = f.read().splitlines()
    return lines


def entry_key(line):
    """(kernel, shape, keys) of a table line, or None for comments."""
    body = line.split("#", 1)[0].strip()
    if not body or ":" not in body:
        return None
    words = body.split(":", 1)[0].split()
    return (words[0], words[1], tuple(sorted(words[2:])))


def pattern_contains(pattern, shape):
    """Whether `shape` (M, N, K) lies in a table rule's PATTERN, as
    tile-compile reads it: per dimension an exact size, `LO..HI` (either end
    open) or `*`, optionally `%ALIGN`."""
    parts = pattern.split("x")
    if len(parts) != len(shape):
        raise SystemExit(f"tune_gemm: rule '{pattern}' has {len(parts)} "
                         f"dimensions, expected {len(shape)}")
    for part, size in zip(parts, shape):
        rng, _, align = part.partition("%")
        if align and size % int(align):
            return False
        if rng == "*":
            continue
        if ".." in rng:
            lo, _, hi = rng.partition("..")
            if (lo and size < int(lo)) or (hi and size > int(hi)):
                return False
        elif size != int(rng):
            return False
    return True


def insert_rule(table, line):
    """Puts rule `line` in place of the rule of the same kernel, range,
    chip and types, else before that kernel's catch-all, else last."""
    key = entry_key(line)
    for i, old in enumerate(table):
        if entry_key(old) == key:
            table[i] = line
            return table
    kernel, _, keys = key
    for i, old in enumerate(table):
        if entry_key(old) == (kernel, "*x*x*", keys):
            return table[:i] + [line] + table[i:]
    return table + [line]


def run_space(args):
    import torch
    from gpu_gemm import (SHAPES, cublas_fn, find_variants, make_operands,
                          tflops, tolerance, torch_dtype)
    from harness import run_tile, time_torch

    variants = find_variants(args.kernels)
    if not variants:
        raise SystemExit(f"tune_gemm: no GEMM manifests under {args.kernels}")
    kinds = {(v.layout, v.at, v.ct, v.ot) for v in variants}
    if len(kinds) != 1:
        raise SystemExit("tune_gemm: the variants differ in layout or types; "
                         "tune one kind per directory")
    wanted = args.shapes.split(",")
    shapes = [s for s in SHAPES if s[0] in wanted]
    for word in wanted:
        if word not in {s[0] for s in shapes}:
            parts = word.split("x")
            if len(parts) != 3 or not all(p.isdigit() for p in parts):
                raise SystemExit(f"tune_gemm: unknown shape '{word}' "
                                 "(M0..M7, R0..R2 or MxNxK)")
            shapes.append((word, *map(int, parts)))
    if args.rule:
        outside = [s[0] for s in shapes
                   if not pattern_contains(args.rule, s[1:])]
        if outside:
            raise SystemExit(f"tune_gemm: shapes {', '.join(outside)} lie "
                             f"outside the rule '{args.rule}'")
    # Per variant, the rates of every shape, for --rule.
    rates = {v.manifest: [] for v in variants}
    device = torch.cuda.get_device_name()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    table = read_table(args.table)
    print(f"## GEMM tuning on {device}\n")
    print("| shape | variant | tile | TFLOP/s | cuBLAS | ratio |")
    print("|---|---|---|---|---|---|")
    for name, m, n, k in shapes:
        v0 = variants[0]
        a, b, av, bv, ref = make_operands(v0, m, n, k, gen)
        rtol, atol = tolerance(v0.ot, k, v0.ct, v0.at)
        fn = cublas_fn(v0, av, bv)
        blas = tflops(m, n, k, time_torch(fn, reps=args.reps)[0]) \
            if fn else None
        best = None
        for v in variants:
            out = torch.empty(m, n, dtype=torch_dtype(v.ot), device="cuda")
            r = run_tile(args.tile_run, v.manifest, {"arg0": a, "arg1": b},
                         {"arg2": out}, {"arg2": ref}, reps=args.reps,
                         warmup=5, rtol=rtol, atol=atol)
            rate = tflops(m, n, k, r["median_ms"]) if r["ok"] else None
            shown = f"{rate:.1f}" if rate else "FAILED"
            ratio = f"{rate / blas:.2f}" if rate and blas else "-"
            print(f"| {name} {m}x{n}x{k} | {v.name(args.kernels)} | "
                  f"{v.tiles()} | {shown} | "
                  f"{f'{blas:.1f}' if blas else '-'} | {ratio} |")
            rates[v.manifest].append(rate)
            if rate and (best is None or rate > best[0]):
                best = (rate, v)
        if best is None:
            print(f"\nno variant ran correctly on {name}", file=sys.stderr)
            return 1
        if args.rule:
            del a, b, av, bv, ref
            torch.cuda.empty_cache()
            continue
        rate, v = best
        keys = " ".join([f"chip={args.chip}"] +
                        [f"{key}={v.params[key]}" for key in KEYS
                         if key in v.params])
        values = " ".join(f"{p}={v.params[p]}" for p in TUNED
                          if p in v.params)
        kernel = f"gemm_{v.layout}"
        ratio = f", {rate / blas:.2f}x cuBLAS" if blas else ""
        line = (f"{kernel} {m}x{n}x{k} {keys} : {values}  # {rate:.1f} "
                f"TFLOP/s{ratio}, {device}, "
                f"{datetime.date.today().isoformat()}")
        key = entry_key(line)
        table = [l for l in table if entry_key(l) != key] + [line]
        del a, b, av, bv, ref
        torch.cuda.empty_cache()
    if args.rule:
        # The variant correct on every shape with the best geometric mean.
        scored = [(math.exp(sum(math.log(r) for r in rs) / len(rs)), v)
                  for v in variants for rs in [rates[v.manifest]]
                  if rs and all(rs)]
        if not scored:
            print(f"\nno variant ran correctly on every shape",
                  file=sys.stderr)
            return 1
        mean, v = max(scored, key=lambda x: x[0])
        keys = " ".join([f"chip={args.chip}"] +
                        [f"{key}={v.params[key]}" for key in KEYS
                         if key in v.params])
        values = " ".join(f"{p}={v.params[p]}" for p in TUNED
                          if p in v.params)
        line = (f"gemm_{v.layout} {args.rule} {keys} : {values}  # measured:"
                f" geometric mean {mean:.1f} TFLOP/s over "
                f"{', '.join(s[0] for s in shapes)}, {device}, "
                f"{datetime.date.today().isoformat()}")
        table = insert_rule(table, line)
        print(f"\nrule: {line}")
    if not any(l.startswith("#") for l in table[:1]):
        table.insert(0, "# Tuned configurations of the library GEMM "
                        "(bench/tune_gemm.py; tile-compile --tuned).")
    with open(args.table, "w") as f:
        f.write("\n".join(table) + "\n")
    print(f"\nwrote {args.table}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    c = sub.add_parser("compile", help="compile the search space")
    c.add_argument("--kernel", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--tile-compile", default="build/bin/tile-compile")
    c.add_argument("--chip", default="sm_90a")
    c.add_argument("--space", nargs="*", default=[],
                   help="NAME=V1,V2 entries replacing the default ranges")
    c.add_argument("-D", action="append", default=[],
                   help="NAME=VALUE fixed for every variant (types)")
    r = sub.add_parser("run", help="check, time and record the best")
    r.add_argument("--kernels", required=True)
    r.add_argument("--tile-run", default="build/bin/tile-run")
    r.add_argument("--shapes", default="M5")
    r.add_argument("--reps", type=int, default=20)
    r.add_argument("--table", default="kernels/gemm_tuned.txt")
    r.add_argument("--chip", default="sm_90a",
                   help="the chip the variants were compiled for (the "
                        "entries' chip key)")
    r.add_argument("--rule", default="",
                   help="write one rule entry for this range of shapes "
                        "(e.g. '1..64x*x*') instead of one entry per shape")
    args = parser.parse_args()
    return compile_space(args) if args.step == "compile" else run_space(args)


if __name__ == "__main__":
    sys.exit(main())
