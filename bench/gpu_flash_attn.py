#!/usr/bin/env python3
"""gpu_flash_attn.py - check and time the library FlashAttention
(kernels/flash_attn.mlir) against torch on the GPU.

Compile the variants first, on a machine with MLIR (one directory each,
named T-dD-causal or T-dD-full):

    bench/flash-attn-kernels.sh build/kernels/fa sm_90a

then, on the GPU machine (no MLIR needed):

    python3 bench/gpu_flash_attn.py --kernels build/kernels/fa \\
        --runtime /tmp/rt/lib/libtile_runtime.so

Correctness: every case runs on fresh random inputs (never zero) into an
output poisoned with NaN first, and is compared with
attention computed in f32 by torch matmuls and softmax (causal masks
aligned to the bottom right, GQA by repeating K and V heads); the
log-sum-exp output (LSE, poisoned too) against torch.logsumexp of the same
f32 scores. Speed (without LSE: its seq dimension 0): TFLOP/s counting
4·B·H·Sq·Skv·D, halved for causal; the median of --reps replays of a CUDA
graph of 10 launches, each replay between CUDA events, next to torch's SDPA with the cuDNN backend and with
the flash backend in the same process, each timed before and after the tile
kernel with the faster of the two counted. Every timing starts after the
GPU idled --cool seconds (bench/harness.py, COOL_S: at the power limit the
clock depends on what ran just before).
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

from report import geomean  # noqa: E402
import options  # noqa: E402
import shapes  # noqa: E402

# The paper's Table 3 (FA0-FA4) and two larger shapes:
# (name, batch, heads, seq_q, seq_kv, dim, causal).
PAPER = shapes.FLASH

# Head dim 256 (no paper shape): long sequences, causal and not.
DIM256 = [("H0", 1, 16, 4096, 4096, 256, False),
          ("H1", 1, 16, 4096, 4096, 256, True),
          ("H2", 4, 16, 2048, 2048, 256, False),
          ("H3", 4, 16, 2048, 2048, 256, True)]

# Shapes of model layers beyond the paper's, for speed: head dim 64,
# grouped-query attention (Llama-style 32 query heads on 8 key/value
# heads), sequences that are not multiples of the tiles and a query
# shorter than the keys (name, batch, heads_q, heads_kv, seq_q, seq_kv,
# dim, causal).
MODELS = [("D0", 8, 16, 16, 2048, 2048, 64, False),
          ("D1", 8, 16, 16, 2048, 2048, 64, True),
          ("D2", 2, 8, 8, 4096, 4096, 64, False),
          ("G0", 4, 32, 8, 4096, 4096, 128, True),
          ("G1", 1, 32, 8, 8192, 8192, 128, True),
          ("G2", 16, 32, 8, 1024, 1024, 128, True),
          ("G3", 2, 64, 8, 2048, 2048, 128, False),
          ("G4", 2, 16, 8, 4096, 4096, 256, True),
          ("R0", 4, 32, 32, 3000, 3000, 128, True),
          ("R1", 4, 16, 16, 1500, 1500, 128, False),
          ("X0", 8, 16, 16, 1024, 4096, 128, False)]

# Correctness only: (batch, heads_q, heads_kv, seq_q, seq_kv, dim, causal).
EDGES = [(1, 2, 2, 1, 1, 128, False), (1, 2, 2, 1, 1, 128, True),
         (2, 4, 4, 77, 77, 128, True), (1, 3, 3, 1000, 1000, 128, False),
         (1, 2, 2, 4097, 4097, 128, True), (1, 2, 2, 4097, 4097, 64, False),
         (2, 4, 4, 77, 300, 128, True), (2, 4, 4, 300, 77, 128, False),
         (1, 4, 4, 100, 1000, 64, True), (1, 4, 4, 1000, 100, 128, True),
         (2, 8, 2, 512, 512, 128, True), (2, 8, 1, 333, 333, 64, False),
         (1, 32, 8, 1024, 1024, 64, False), (1, 16, 16, 512, 512, 64, True),
         (1, 4, 4, 1000, 1000, 256, True), (2, 8, 2, 77, 300, 256, False),
         (1, 2, 2, 4097, 4097, 256, False), (1, 2, 2, 1, 1, 256, True)]

# Arguments TMA cannot address: the same cases with Q, K, V and O as views
# one element into their buffers, so no row is 16-byte aligned. The runtime
# stages Q, K and V into aligned workspaces (the manifests' `stage` lines)
# or, for a build without them (tile-compile --no-stage), launches the
# fallback kernel (the build without tensor maps).
VIEWS = [(1, 2, 2, 77, 300, 128, True), (2, 8, 2, 1000, 1000, 64, False),
         (1, 4, 4, 333, 333, 256, False), (1, 2, 2, 1, 1, 128, True)]


def variant(t, d, causal):
    return f"{t}-d{d}-{'causal' if causal else 'full'}"


def reference(q, k, v, causal):
    """Attention in f32 written out (matmul, mask, softmax, matmul; no
    fused torch kernel, so that the sanitizers see only the tile kernel's
    races), K and V heads repeated for GQA, the causal mask aligned to the
    bottom right. Rows that see no key give zeros, as the kernel does.
    Returns the output and each row's log-sum-exp of the scaled scores
    (-inf for a row that sees no key)."""
    import torch
    group = q.shape[1] // k.shape[1]
    sq, skv, d = q.shape[2], k.shape[2], q.shape[3]
    mask = None
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(skv, device=q.device)[None, :]
        mask = j <= i + (skv - sq)
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    # A few heads at a time, so that the f32 scores of large shapes fit.
    step = max(1, (1 << 28) // (sq * skv))
    for b in range(q.shape[0]):
        for h in range(0, q.shape[1], step):
            hs = range(h, min(h + step, q.shape[1]))
            qs = q[b, hs.start:hs.stop].float()
            kv = [x // group for x in hs]
            ks = k[b, kv].float()
            vs = v[b, kv].float()
            s = torch.matmul(qs, ks.transpose(-1, -2)) / math.sqrt(d)
            if mask is not None:
                s = s.masked_fill(~mask, float("-inf"))
            p = torch.softmax(s, dim=-1).nan_to_num(0.0)
            out[b, hs.start:hs.stop] = torch.matmul(p, vs)
            lse[b, hs.start:hs.stop] = torch.logsumexp(s, dim=-1)
    return out, lse


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", required=True,
                    help="directory of variant directories "
                         "(bench/flash-attn-kernels.sh); several, "
                         "comma-separated, are checked and timed side by "
                         "side, alternating")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with several --kernels, how many times each is "
                         "timed per shape, alternating")
    options.add_runtime_argument(ap)
    ap.add_argument("--reps", type=int, default=50)
    options.add_cool_argument(ap)
    ap.add_argument("--types", default="f16,bf16")
    ap.add_argument("--check-only", action="store_true",
                    help="correctness cases only, no timing")
    ap.add_argument("--shapes", default="paper,edges",
                    help="any of paper, edges, d256 (speed shapes of "
                         "head dim 256), models (head dim 64, GQA, "
                         "ragged) and random (16 drawn with a fixed seed: "
                         "shapes.random_flash()), comma-separated; an "
                         "item B:HQ:HKV:SQ:SKV:D:CAUSAL (CAUSAL 0 or 1) "
                         "adds that shape")
    ap.add_argument("--dims", default="64,128,256",
                    help="head dims whose variants exist (the correctness "
                         "cases of other dims are skipped)")
    ap.add_argument("--small", action="store_true",
                    help="the first four correctness cases of --dims (for "
                         "the sanitizers)")
    ap.add_argument("--profile", metavar="B,H,S,D,CAUSAL",
                    help="launch the kernel twice on this shape and exit "
                         "(for ncu), e.g. 1,32,4096,128,0")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    import harness
    from harness import compare, nonzero_rand, time_graph

    harness.COOL_S = args.cool

    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2026)
    kernels = {}
    kdirs = args.kernels.split(",")

    def kernel(t, d, causal, which=0):
        key = (kdirs[which], variant(t, d, causal))
        if key not in kernels:
            path = os.path.join(key[0], key[1], "flash_attn_kernel.manifest")
            kernels[key] = tile.load(path)
        return kernels[key]

    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16}
    failed = 0

    def no_lse(q):
        """An LSE argument of seq 0: the kernel writes none."""
        return torch.empty(q.shape[0], q.shape[1], 0, dtype=torch.float32,
                           device="cuda")

    if args.profile:
        b, h, sq, d, causal = (int(x) for x in args.profile.split(","))
        t = args.types.split(",")[0]
        q, k, v = (nonzero_rand(b, h, sq, d, dtype=dtypes[t], generator=gen)
                   for _ in range(3))
        out = torch.empty_like(q)
        for _ in range(2):
            kernel(t, d, bool(causal))(q, k, v, out, no_lse(q),
                                       1.0 / math.sqrt(d))
        torch.cuda.synchronize()
        return 0

    def inputs(t, b, hq, hkv, sq, skv, d):
        dt = dtypes[t]
        q = nonzero_rand(b, hq, sq, d, dtype=dt, generator=gen)
        k = nonzero_rand(b, hkv, skv, d, dtype=dt, generator=gen)
        v = nonzero_rand(b, hkv, skv, d, dtype=dt, generator=gen)
        return q, k, v

    def shifted(x):
        """A copy of `x` as a view one element into its buffer."""
        buf = torch.empty(x.numel() + 1, dtype=x.dtype, device="cuda")
        view = buf[1:].view(x.shape)
        view.copy_(x)
        return view

    def check(t, b, hq, hkv, sq, skv, d, causal, misaligned=False, which=0):
        """Runs one case into a poisoned output with kernel directory
        `which`; returns (ok, text). With `misaligned`, the tensors are
        views that TMA cannot address, and the runtime must stage them or
        choose the fallback kernel."""
        nonlocal failed
        q, k, v = inputs(t, b, hq, hkv, sq, skv, d)
        out = torch.full(q.shape, float("nan"), dtype=q.dtype, device="cuda")
        lse = torch.full(q.shape[:3], float("nan"), dtype=torch.float32,
                         device="cuda")
        scale = 1.0 / math.sqrt(d)
        route = ""
        if misaligned:
            q, k, v, out = (shifted(x) for x in (q, k, v, out))
            path, why = kernel(t, d, causal, which).select(q, k, v, out, lse,
                                                           scale)
            staged = sorted(line.split(":")[0][len("stage "):]
                            for line in why if line.startswith("stage "))
            if staged:
                route = f"{', '.join(staged)} staged; "
            elif path.endswith(".fallback.manifest"):
                route = "the fallback; "
            else:
                failed += 1
                return False, (f"FAILED: launches {path}, neither staged nor "
                               "the fallback")
        try:
            kernel(t, d, causal, which)(q, k, v, out, lse, scale)
            torch.cuda.synchronize()
        except tile.TileError as e:
            failed += 1
            return False, f"FAILED: {e}"
        ref, ref_lse = reference(q, k, v, causal)
        # The kernel rounds P to T before P·V, as flash kernels do: bounds
        # of a few units of T's last place on outputs of magnitude <= 1.
        atol, rtol = (4e-3, 1e-2) if t == "f16" else (2e-2, 4e-2)
        ok, max_abs, _, worst = compare(out, ref, rtol, atol)
        # The LSE in f32 from the same f32 scores: only the exp2/log2
        # approximations and the summation order differ. Rows that see no
        # key must be -inf in both.
        empty = torch.isneginf(ref_lse)
        lse_ok = bool(torch.equal(torch.isneginf(lse), empty))
        lse_ok_vals, lse_err, _, _ = compare(lse[~empty], ref_lse[~empty],
                                             1e-4, 1e-3)
        lse_ok = lse_ok and lse_ok_vals
        ok = ok and lse_ok
        if not ok:
            failed += 1
        return ok, (f"{route}{'ok' if ok else 'FAILED'}, max abs err "
                    f"{max_abs:.3g}"
                    f", worst {worst:.2g} of the bound; lse "
                    f"{'ok' if lse_ok else 'FAILED'}, max abs err "
                    f"{lse_err:.2g}")

    device = torch.cuda.get_device_name()
    print(f"## FlashAttention forward on {device}\n")
    print(f"torch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version()}; median of {args.reps} "
          "replays of a CUDA graph of 10 launches, each replay between CUDA "
          "events, each timing after the GPU idled "
          f"{args.cool:g} s; torch timed before and after the tile kernel, "
          "the faster counted.\n")
    types = args.types.split(",")

    if "edges" in args.shapes or args.small:
        rows = []
        dims = {int(x) for x in args.dims.split(",")}
        cases = [c for c in EDGES if c[5] in dims][:4 if args.small else None]
        for t in types:
            for (b, hq, hkv, sq, skv, d, causal) in cases:
                ok, text = check(t, b, hq, hkv, sq, skv, d, causal)
                rows.append(f"| {t} | {b}x{hq}/{hkv} heads | {sq} x {skv} "
                            f"| {d} | {causal} | {text} |")
        print("### Correctness: ragged, GQA, head dim 64\n")
        print("| type | batch x heads q/kv | seq_q x seq_kv | dim | causal "
              "| result |")
        print("|---|---|---|---|---|---|")
        print("\n".join(rows) + "\n")
        rows = []
        for t in types:
            for (b, hq, hkv, sq, skv, d, causal) in VIEWS:
                if d not in dims:
                    continue
                ok, text = check(t, b, hq, hkv, sq, skv, d, causal,
                                 misaligned=True)
                rows.append(f"| {t} | {b}x{hq}/{hkv} heads | {sq} x {skv} "
                            f"| {d} | {causal} | {text} |")
        print("### Correctness: views TMA cannot address (staged, or the "
              "fallback kernel)\n")
        print("| type | batch x heads q/kv | seq_q x seq_kv | dim | causal "
              "| result |")
        print("|---|---|---|---|---|---|")
        print("\n".join(rows) + "\n")

    def with_kv_heads(shape):
        name, b, h, sq, skv, d, causal = shape
        return (name, b, h, h, sq, skv, d, causal)

    groups = (("paper", [with_kv_heads(x) for x in PAPER]),
              ("d256", [with_kv_heads(x) for x in DIM256]),
              ("models", MODELS),
              ("random", shapes.random_flash()))
    dims = {int(x) for x in args.dims.split(",")}
    speed = [x for group, shapes in groups
             if group in args.shapes.split(",") for x in shapes
             if x[6] in dims]
    speed += [shapes.parse_flash(item) for item in args.shapes.split(",")
              if ":" in item]
    if speed and not args.small:
        n = len(kdirs)
        names = [os.path.basename(x.rstrip("/")) for x in kdirs]
        tile_cols = ["tile"] if n == 1 else [f"tile ({x})" for x in names]
        ratio_cols = (["tile / best"] if n == 1
                      else [f"{x} / best" for x in names])
        cols = (["type", "shape", "B,Hq/Hkv,Sq,Skv,D,causal", "check"] +
                tile_cols + ["cuDNN", "flash"] + ratio_cols +
                ["tile spread (min-max ms)"])
        print("### Speed (TFLOP/s)\n")
        print("GQA shapes: torch with `enable_gqa=True`, and with K and V "
              "repeated to every query head; the fastest counted.\n")
        if n > 1:
            print(f"Kernels {', '.join(kdirs)}: each timed {args.rounds} "
                  "time(s) per shape, alternating, every round's TFLOP/s "
                  "shown and the fastest counted; the check column says "
                  "which variant a dispatching manifest took.\n")
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        ratios = {(t, w): [] for t in types for w in range(n)}
        for t in types:
            for (name, b, hq, hkv, sq, skv, d, causal) in speed:
                label = f"{b},{hq}/{hkv},{sq},{skv},{d},{causal}"
                q, k, v = inputs(t, b, hq, hkv, sq, skv, d)
                out = torch.empty_like(q)
                lse = no_lse(q)
                scale = 1.0 / math.sqrt(d)
                kerns = [kernel(t, d, causal, w) for w in range(n)]
                texts = []
                for w in range(n):
                    text = check(t, b, hq, hkv, sq, skv, d, causal,
                                 which=w)[1]
                    taken = os.path.dirname(
                        kerns[w].select(q, k, v, out, lse, scale)[0])
                    if os.path.normpath(taken) != os.path.normpath(
                            os.path.join(kdirs[w], variant(t, d, causal))):
                        text += f" ({os.path.basename(taken)})"
                    texts.append(text if n == 1 else f"{names[w]}: {text}")
                text = "; ".join(texts)
                if args.check_only:
                    print(f"| {t} | {name} | {label} | {text} |" +
                          " |" * (len(cols) - 4))
                    continue
                flops = 4.0 * b * hq * sq * skv * d / (2 if causal else 1)
                # torch's ways to run the same attention: GQA natively,
                # and on K and V repeated to every query head.
                forms = [(k, v, {})]
                if hq != hkv:
                    forms = [(k, v, {"enable_gqa": True}),
                             (k.repeat_interleave(hq // hkv, dim=1),
                              v.repeat_interleave(hq // hkv, dim=1), {})]

                def sdpa(backend):
                    def fn():
                        with sdpa_kernel(backend):
                            F.scaled_dot_product_attention(
                                q, kf, vf, is_causal=causal, scale=scale,
                                **extra)
                    return fn

                def tflops(ms):
                    return flops / (ms * 1e-3) / 1e12

                backends = {"cudnn": SDPBackend.CUDNN_ATTENTION,
                            "flash": SDPBackend.FLASH_ATTENTION}

                def time_torch():
                    nonlocal kf, vf, extra
                    got = {}
                    for name_b, be in backends.items():
                        for kf, vf, extra in forms:
                            try:
                                ms = time_graph(sdpa(be), args.reps)[0]
                            except RuntimeError:
                                continue
                            if name_b not in got or ms < got[name_b]:
                                got[name_b] = ms
                    return got

                def time_tile():
                    """(median, min, max) ms per kernel and round."""
                    got = [[] for _ in range(n)]
                    for _ in range(args.rounds if n > 1 else 1):
                        for w, kern in enumerate(kerns):
                            got[w].append(time_graph(
                                lambda: kern(q, k, v, out, lse, scale),
                                args.reps))
                    return got

                def tile_cells(mine):
                    return " | ".join(
                        "/".join(f"{tflops(r[0]):.0f}" for r in rounds)
                        for rounds in mine)

                def spreads(mine):
                    return "; ".join(
                        f"{min(r[1] for r in rounds):.3f}-"
                        f"{max(r[2] for r in rounds):.3f}" for rounds in mine)

                kf = vf = extra = None
                if causal and sq != skv:
                    # torch's is_causal aligns the mask to the top left,
                    # the kernel to the bottom right: another product, so
                    # no ratio.
                    mine = time_tile()
                    print(f"| {t} | {name} | {label} | {text} | "
                          f"{tile_cells(mine)} | - | - | " +
                          " | ".join(["- (torch's causal mask is top-left)"]
                                     * n) + f" | {spreads(mine)} |")
                    continue
                before = time_torch()
                mine = time_tile()
                after = time_torch()
                best = {}
                for name_b in backends:
                    got = [x for x in (before.get(name_b), after.get(name_b))
                           if x]
                    best[name_b] = min(got) if got else None
                ref_ms = min(x for x in best.values() if x)
                cells = []
                for w in range(n):
                    ratio = ref_ms / min(r[0] for r in mine[w])
                    ratios[(t, w)].append(ratio)
                    cells.append(f"{ratio:.2f}x")

                def cell(ms):
                    return f"{tflops(ms):.0f}" if ms else "n/a"
                print(f"| {t} | {name} | {label} | "
                      f"{text} | {tile_cells(mine)} | {cell(best['cudnn'])} | "
                      f"{cell(best['flash'])} | {' | '.join(cells)} | "
                      f"{spreads(mine)} |")
        for (t, w), got in ratios.items():
            if got:
                g = geomean(got)
                which = "" if n == 1 else f" ({names[w]})"
                print(f"\n{t}{which}: geometric mean of tile / best torch "
                      f"over {len(got)} shapes: {g:.3f}x "
                      f"(min {min(got):.2f}x)")
    print(f"\n{'all checks passed' if not failed else f'{failed} FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
