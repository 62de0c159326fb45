"""Tunes the library GEMM for given shapes and records the best
configuration in a table that tile-compile reads (--tuned, docs/GEMM.md).

Two steps, because compiling needs MLIR and timing needs the GPU:

    # where MLIR is: one variant per point of the search space
    python3 bench/tune_gemm.py compile --kernel kernels/gemm_nn.mlir \\
        --out build/tune/nn-f16 --space BN=128,256 STAGES=3,4,5 THREADS=128,256

    # on the GPU machine: check and time every variant per shape (through
    # the Python package, python/tile), keep the fastest correct one per
    # shape in the table
    python3 bench/tune_gemm.py run --kernels build/tune/nn-f16 \\
        --runtime /tmp/rt/lib/libtile_runtime.so --shapes M0,M5 \\
        --table kernels/gemm_tuned.txt

    # then, anywhere
    tile-compile kernels/gemm_nn.mlir --tuned kernels/gemm_tuned.txt --shape 8192x8192x8192

    # or a rule for a range of shapes, for tile-compile --dispatch: the
    # variant with the best geometric mean over the shapes (which must lie
    # in the range) replaces the rule entry of that range
    python3 bench/tune_gemm.py run --kernels build/tune/nn-f16-small \\
        --runtime /tmp/rt/lib/libtile_runtime.so \\
        --shapes 1x16384x16384,16x9216x36864 --rule '1..64x*x*' \\
        --table kernels/gemm_tuned.txt

    # or every rule of a kernel at once: save every variant's rate on many
    # shapes (`llm` is the 40 shapes of bench/gpu_library.py) on the GPU,
    # then, anywhere, choose the variant of each range (the shapes a range
    # is the first to match, the best geometric mean ratio to cuBLAS among
    # the variants correct on all of them) and replace the kernel's rules
    python3 bench/tune_gemm.py run --kernels build/tune/nn-f16 \\
        --runtime /tmp/rt/lib/libtile_runtime.so --shapes llm --save nn.json
    python3 bench/tune_gemm.py rules --rates nn.json --rule '1..16x*x*' \\
        --rule '17..64x*x*' --rule '*x*x*' --key 'AT=f16|bf16|i8' \\
        --table kernels/gemm_tuned.txt

(without a last `--rule '*x*x*'` the table's catch-all rule stays; the
rules replace those with the same --key set, and carry it).

    # or the weights of two costed rules (cost=W, docs/GEMM.md "Costed
    # rules") from saved rates: the median over the shapes of the rate
    # ratio scaled by the waves, with the quality of the pick it makes
    python3 bench/tune_gemm.py weights --rates nn.json --rates nt.json \
        --base BK64-BM128-BN256-SPLIT1-STAGES3-THREADS256 \
        --other BK64-BM128-BN128-SPLIT1-STAGES5-THREADS256 --sms 132

`compile` skips points that tile-compile rejects (shared memory or
registers over the chip's budget, tiles the warps cannot split) and prints
why. `run` checks every variant once with a poisoned output against the
torch reference before timing it (median of --reps launches), and prints a
Markdown table with cuBLAS timed before and after the variants of a shape
(the faster counted). A table line is
`gemm_nn 8192x8192x8192 AT=f16 CT=f32 OT=f16 : BM=... BN=... BK=... STAGES=...
THREADS=... # TFLOP/s, ratio to cuBLAS, device`; `run` replaces the line of
the same kernel, shape, chip and types and keeps the others. With --rule
PATTERN it writes one rule line for the range instead (docs/GEMM.md, "Shape
dispatch"), in place of the rule of the same range, else before the
kernel's catch-all rule `*x*x*`, so the catch-all stays last. Entries with
`via=`, which launch another kernel file, stay as they are.
"""

import argparse
import datetime
import itertools
import math
import os
import subprocess
import sys
import options

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The parameters a table entry sets, and those that select it.
TUNED = ("BM", "BN", "BK", "STAGES", "THREADS", "POLICY", "PANEL", "SPLIT",
         "PERSISTENT")
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


def launches_another(line):
    """Whether table `line` is a `via=` entry, which runs another kernel
    file: the tuner measures the kernel's own builds, so it neither
    replaces nor drops these."""
    body = line.split("#", 1)[0]
    return ":" in body and "via=" in body.split(":", 1)[1]


def pattern_contains(pattern, shape):
    """Whether `shape` (M, N, K) lies in a table rule's PATTERN, as
    tile-compile reads it: per dimension an exact size, `LO..HI` (either end
    open) or `*`, optionally `%ALIGN` (a multiple) or `%!ALIGN` (not one)."""
    parts = pattern.split("x")
    if len(parts) != len(shape):
        raise SystemExit(f"tune_gemm: rule '{pattern}' has {len(parts)} "
                         f"dimensions, expected {len(shape)}")
    for part, size in zip(parts, shape):
        rng, _, align = part.partition("%")
        if align.startswith("!"):
            if size % int(align[1:]) == 0:
                return False
        elif align and size % int(align):
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
        if entry_key(old) == key and not launches_another(old):
            table[i] = line
            return table
    kernel, _, keys = key
    for i, old in enumerate(table):
        if entry_key(old) == (kernel, "*x*x*", keys):
            return table[:i] + [line] + table[i:]
    return table + [line]


def llm_shape_list():
    """The 40 LLM shapes of bench/gpu_library.py part (b), named MxNxK."""
    from gpu_library import llm_shapes
    return [(f"{m}x{n}x{k}", m, n, k) for _, m, n, k in llm_shapes()]


def resolve_shapes(words):
    """(name, M, N, K) for every word of --shapes: M0..M7, R0..R3, MxNxK or
    `llm` (the 40 shapes of bench/gpu_library.py)."""
    from gpu_gemm import SHAPES
    known = {s[0]: s for s in SHAPES}
    shapes = []
    for word in words:
        if word == "llm":
            shapes += llm_shape_list()
        elif word in known:
            shapes.append(known[word])
        else:
            parts = word.split("x")
            if len(parts) != 3 or not all(p.isdigit() for p in parts):
                raise SystemExit(f"tune_gemm: unknown shape '{word}' "
                                 "(M0..M7, R0..R3, MxNxK or llm)")
            shapes.append((word, *map(int, parts)))
    return shapes


def tuned_values(params):
    """The assignments of a table line for a variant's `params`: those of
    TUNED it has, PERSISTENT only where set (the kernels' default is
    false, and older builds lack it)."""
    return " ".join(f"{p}={params[p]}" for p in TUNED if p in params and
                    (p != "PERSISTENT" or params[p] == "true"))


def table_values(v):
    """The (keys, values) text of a table line for variant `v`."""
    keys = " ".join(f"{key}={v.params[key]}" for key in KEYS
                    if key in v.params)
    return keys, tuned_values(v.params)


def run_space(args):
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "python"))
    import json
    import torch
    import tile
    from gpu_gemm import (cublas_fn, find_variants, make_operands, tflops,
                          tolerance, torch_dtype)
    import harness
    from harness import compare, time_torch

    harness.COOL_S = args.cool
    variants = find_variants(args.kernels)
    if not variants:
        raise SystemExit(f"tune_gemm: no GEMM manifests under {args.kernels}")
    kinds = {(v.layout, v.at, v.ct, v.ot) for v in variants}
    if len(kinds) != 1:
        raise SystemExit("tune_gemm: the variants differ in layout or types; "
                         "tune one kind per directory")
    shapes = resolve_shapes(args.shapes.split(","))
    if args.rule:
        outside = [s[0] for s in shapes
                   if not pattern_contains(args.rule, s[1:])]
        if outside:
            raise SystemExit(f"tune_gemm: shapes {', '.join(outside)} lie "
                             f"outside the rule '{args.rule}'")
    torch.backends.cuda.matmul.allow_tf32 = False
    loaded = [(v, tile.load(v.manifest)) for v in variants]
    # Per variant, the rates of every shape, for --rule and --save.
    rates = {v.manifest: [] for v in variants}
    saved = {"device": torch.cuda.get_device_name(), "chip": args.chip,
             "layout": variants[0].layout, "types": variants[0].types(),
             "variants": {v.name(args.kernels): dict(v.params)
                          for v in variants},
             "shapes": {}}
    device = saved["device"]
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
        before = time_torch(fn, reps=args.reps)[0] if fn else None
        best = None
        shape_rates = {}
        out = torch.empty(m, n, dtype=torch_dtype(v0.ot), device="cuda")
        for v, kernel in loaded:
            out.fill_(float("nan"))
            try:
                kernel(a, b, out)
                torch.cuda.synchronize()
                ok = compare(out, ref, rtol, atol)[0]
            except tile.TileError as e:
                print(f"{v.name(args.kernels)} on {name}: {e}",
                      file=sys.stderr)
                ok = False
            rate = None
            if ok:
                ms = time_torch(lambda: kernel(a, b, out), reps=args.reps,
                                warmup=3)[0]
                rate = tflops(m, n, k, ms)
            shape_rates[v.name(args.kernels)] = rate
            rates[v.manifest].append(rate)
            if rate and (best is None or rate > best[0]):
                best = (rate, v)
        after = time_torch(fn, reps=args.reps)[0] if fn else None
        blas = tflops(m, n, k, min(before, after)) if fn else None
        for v, _ in loaded:
            rate = shape_rates[v.name(args.kernels)]
            shown = f"{rate:.1f}" if rate else "FAILED"
            ratio = f"{rate / blas:.2f}" if rate and blas else "-"
            print(f"| {name} {m}x{n}x{k} | {v.name(args.kernels)} | "
                  f"{v.tiles()} | {shown} | "
                  f"{f'{blas:.1f}' if blas else '-'} | {ratio} |")
        saved["shapes"][f"{m}x{n}x{k}"] = {"cublas": blas,
                                           "rates": shape_rates}
        del a, b, av, bv, ref, out
        torch.cuda.empty_cache()
        if best is None:
            print(f"\nno variant ran correctly on {name}", file=sys.stderr)
            if not args.save:
                return 1
            continue
        if args.rule or args.save:
            continue
        rate, v = best
        keys, values = table_values(v)
        kernel_name = f"gemm_{v.layout}"
        ratio = f", {rate / blas:.2f}x cuBLAS" if blas else ""
        line = (f"{kernel_name} {m}x{n}x{k} chip={args.chip} {keys} : "
                f"{values}  # {rate:.1f} TFLOP/s{ratio}, {device}, "
                f"{datetime.date.today().isoformat()}")
        key = entry_key(line)
        table = [l for l in table if entry_key(l) != key] + [line]
    if args.save:
        with open(args.save, "w") as f:
            json.dump(saved, f, indent=1)
        print(f"\nwrote {args.save}")
        return 0
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
        keys, values = table_values(v)
        line = (f"gemm_{v.layout} {args.rule} chip={args.chip} {keys} : "
                f"{values}  # measured: geometric mean {mean:.1f} TFLOP/s "
                f"over {', '.join(s[0] for s in shapes)}, {device}, "
                f"{datetime.date.today().isoformat()}")
        table = insert_rule(table, line)
        print(f"\nrule: {line}")
    write_table(args.table, table)
    return 0


def write_table(path, table):
    if not any(l.startswith("#") for l in table[:1]):
        table.insert(0, "# Tuned configurations of the library GEMM "
                        "(bench/tune_gemm.py; tile-compile --tuned).")
    with open(path, "w") as f:
        f.write("\n".join(table) + "\n")
    print(f"\nwrote {path}")


def is_rule(line, kernel, chip, keys=()):
    """Whether table `line` is a rule (not an exact shape) of `kernel` for
    `chip` whose other keys are exactly `keys` (e.g. ("AT=f16|bf16",))."""
    key = entry_key(line)
    if not key or key[0] != kernel or f"chip={chip}" not in key[2]:
        return False
    if sorted(k for k in key[2] if k != f"chip={chip}") != sorted(keys):
        return False
    return any(c in key[1] for c in ".*%") and not launches_another(line)


def choose_rules(saved, patterns):
    """For each pattern in order, the variant with the best geometric mean
    ratio to cuBLAS over the saved shapes it is the first to match, among the
    variants correct on all of them: a list of (pattern, variant name,
    geometric mean, shapes)."""
    taken = set()
    chosen = []
    for pattern in patterns:
        mine = [s for s in saved["shapes"]
                if s not in taken and
                pattern_contains(pattern, tuple(map(int, s.split("x"))))]
        taken.update(mine)
        if not mine:
            raise SystemExit(f"tune_gemm: no measured shape is first matched "
                             f"by '{pattern}'")
        best = None
        for name in saved["variants"]:
            ratios = []
            for s in mine:
                entry = saved["shapes"][s]
                rate = entry["rates"].get(name)
                if not rate or not entry["cublas"]:
                    break
                ratios.append(rate / entry["cublas"])
            else:
                g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
                if best is None or g > best[1]:
                    best = (name, g)
        if best is None:
            raise SystemExit(f"tune_gemm: no variant ran correctly on every "
                             f"shape of '{pattern}'")
        chosen.append((pattern, best[0], best[1], mine))
    return chosen


def make_rules(args):
    import json
    with open(args.rates) as f:
        saved = json.load(f)
    kernel = f"gemm_{saved['layout']}"
    chip = saved["chip"]
    keys = tuple(args.key)
    head = " ".join((f"chip={chip}",) + keys)
    table = read_table(args.table)
    # The kernel's catch-all stays unless the rules give a new one.
    catch_all = [l for l in table if is_rule(l, kernel, chip, keys) and
                 entry_key(l)[1] == "*x*x*"]
    if args.rules[-1] != "*x*x*" and not catch_all:
        raise SystemExit(f"tune_gemm: {args.table} has no catch-all rule "
                         f"'*x*x*' for {kernel} on {chip}; give one last")
    chosen = choose_rules(saved, args.rules)
    today = datetime.date.today().isoformat()
    lines = []
    for pattern, name, mean, shapes in chosen:
        params = saved["variants"][name]
        values = tuned_values(params)
        lines.append(f"{kernel} {pattern} {head} : {values}  # measured:"
                     f" {mean:.2f}x cuBLAS (geometric mean over "
                     f"{len(shapes)} shapes), {saved['types']}, "
                     f"{saved['device']}, {today}")
        print(f"{pattern}: {name}, {mean:.3f}x cuBLAS over "
              f"{', '.join(shapes)}")
    # Costed rules (cost=W: the runtime weighs their waves) are not ranges
    # a sweep chooses: each group of them stays before the range that
    # followed it in the table where the new rules have that range, and
    # otherwise after the new ranges, before the catch-all.
    def is_costed(line):
        return " cost=" in line.split("#")[0]

    groups, group = [], []
    for line in table:
        if not is_rule(line, kernel, chip, keys):
            continue
        if is_costed(line):
            group.append(line)
        elif group:
            groups.append((group, entry_key(line)[1]))
            group = []
    if group:
        groups.append((group, None))
    unanchored = []
    for group, anchor in groups:
        at = next((i for i, l in enumerate(lines)
                   if not is_costed(l) and entry_key(l)[1] == anchor), None)
        if at is None or anchor == "*x*x*":
            unanchored += group
        else:
            lines[at:at] = group
    if args.rules[-1] != "*x*x*":
        lines += unanchored + catch_all[-1:]
    else:
        lines[-1:-1] = unanchored
    # The new rules replace the kernel's rules for the chip and keys, in
    # place of the first of them.
    at = next((i for i, l in enumerate(table)
               if is_rule(l, kernel, chip, keys)), len(table))
    rest = [l for l in table if not is_rule(l, kernel, chip, keys)]
    at -= sum(1 for l in table[:at] if is_rule(l, kernel, chip, keys))
    write_table(args.table, rest[:at] + lines + rest[at:])
    return 0


def waves(m, n, params, slots):
    """The waves of a variant's grid on (M, N): ceildiv(tiles x split,
    slots), tiles of BM x BN (the GEMM files' grid)."""
    tiles = -(-m // int(params["BM"])) * -(-n // int(params["BN"]))
    return -(-tiles * int(params.get("SPLIT", 1)) // slots)


def wave_weights(saved_runs, base, other, slots):
    """Per shape of the saved runs where both variants ran: (shape, the
    weight of one wave of `other` relative to one of `base`, the two rates'
    ratios to cuBLAS). With time = waves x weight, rate_base / rate_other =
    (waves_other x W_other) / (waves_base x W_base)."""
    found = []
    for saved in saved_runs:
        pb, po = saved["variants"].get(base), saved["variants"].get(other)
        if not pb or not po:
            missing = base if not pb else other
            raise SystemExit(f"tune_gemm: a --rates file lacks {missing}")
        for shape, entry in saved["shapes"].items():
            rb, ro = entry["rates"].get(base), entry["rates"].get(other)
            if not rb or not ro or not entry["cublas"]:
                continue
            m, n, _ = (int(v) for v in shape.split("x"))
            weight = (rb / ro) * waves(m, n, pb, slots) / waves(m, n, po, slots)
            found.append((shape, weight, rb / entry["cublas"],
                          ro / entry["cublas"], waves(m, n, pb, slots),
                          waves(m, n, po, slots)))
    return found


def make_weights(args):
    import json
    runs = []
    for path in args.rates:
        with open(path) as f:
            runs.append(json.load(f))
    found = wave_weights(runs, args.base, args.other, args.sms)
    if not found:
        raise SystemExit("tune_gemm: no shape where both variants ran")
    weights = sorted(w for _, w, *_ in found)
    mid = weights[len(weights) // 2] if len(weights) % 2 else \
        (weights[len(weights) // 2 - 1] + weights[len(weights) // 2]) / 2
    cost = round(100 * mid)
    quarter = weights[len(weights) // 4], weights[(3 * len(weights)) // 4]
    picked, alone = [], []
    for _, _, rb, ro, wb, wo in found:
        best = max(rb, ro)
        picked.append((rb if 100 * wb <= cost * wo else ro) / best)
        alone.append(rb / best)
    gmean = lambda x: math.exp(sum(math.log(v) for v in x) / len(x))
    print(f"{len(found)} launches: one wave of {args.other} weighs "
          f"{mid:.3f} of one of {args.base} (median; quartiles "
          f"{quarter[0]:.3f}-{quarter[1]:.3f})")
    print(f"cost=100 for {args.base}, cost={cost} for {args.other}: the pick "
          f"is {gmean(picked):.4f} of the better of the two in geometric "
          f"mean ({min(picked):.3f} at worst); {args.base} alone "
          f"{gmean(alone):.4f} ({min(alone):.3f})")
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
    options.add_runtime_argument(r)
    r.add_argument("--shapes", default="M5",
                   help="comma-separated M0..M7, R0..R3, MxNxK or llm")
    r.add_argument("--save", default="",
                   help="write every variant's rate on every shape to this "
                        "JSON file (for the rules step) instead of the table")
    r.add_argument("--reps", type=int, default=20)
    options.add_cool_argument(
        r, "each timing of a variant or of cuBLAS",
        ", faster but biased to whichever runs first")
    r.add_argument("--table", default="kernels/gemm_tuned.txt")
    r.add_argument("--chip", default="sm_90a",
                   help="the chip the variants were compiled for (the "
                        "entries' chip key)")
    r.add_argument("--rule", default="",
                   help="write one rule entry for this range of shapes "
                        "(e.g. '1..64x*x*') instead of one entry per shape")
    u = sub.add_parser("rules", help="rules from the rates a run saved")
    u.add_argument("--rates", required=True, help="a run's --save file")
    u.add_argument("--rule", dest="rules", action="append", required=True,
                   help="a shape range, in the order tile-compile tries "
                        "them; without a last '*x*x*' the table's catch-all "
                        "stays")
    u.add_argument("--table", default="kernels/gemm_tuned.txt")
    u.add_argument("--key", action="append", default=[],
                   help="KEY=VALUE (or KEY=V1|V2...) the rules carry, e.g. "
                        "'AT=f16|bf16|i8': they replace the kernel's rules "
                        "with exactly these keys and apply only where the "
                        "keys hold")
    w = sub.add_parser("weights", help="the weights of two costed rules "
                                         "from the rates runs saved")
    w.add_argument("--rates", action="append", required=True,
                   help="a run's --save file (repeatable)")
    w.add_argument("--base", required=True,
                   help="the variant (its directory name) weighed 100")
    w.add_argument("--other", required=True, help="the variant weighed")
    w.add_argument("--sms", type=int, default=132,
                   help="blocks the device held at once of each variant "
                        "(132: one per SM of an H100 or H200)")
    args = parser.parse_args()
    steps = {"compile": compile_space, "run": run_space, "rules": make_rules,
             "weights": make_weights}
    return steps[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
