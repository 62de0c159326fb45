"""The library GEMV and the W4A16 kernels on the GPU: correctness against
torch and times next to cuBLAS and the copy bandwidth, in one process.

    bench/build_gemv_kernels.sh build/gemv-kernels       # where MLIR is
    python3 bench/gpu_gemv.py --kernels build/gemv-kernels \\
        --runtime /tmp/rt/lib/libtile_runtime.so          # on the GPU

KERNELS_DIR is what bench/build_gemv_kernels.sh wrote: one folder per
configuration (gemv-f16, gemv-bf16, gemv-f16-m4, gemv_w4a16-f16-gG,
gemv_w4a16-bf16-g128, gemv_w4a16-f16-g128-f32acc, gemv_w4a16-f16-g128-m2,
gemv_w4a16-f16-g128-m4, gemv_w4a16_mma-f16-gG, gemv_w4a16_mma-bf16-g128,
gemm_w4a16-f16-g128, gemm_w4a16-bf16-g128), each with its manifests. Launches go through the
Python package (python/tile, imported from the source tree) on torch
tensors, on torch's current stream.

  (a) fp16 and bf16 GEMV, y = W x (m = 1), on the paper's V0-V7 (Table 2),
      or the shapes of --nk: the
      kernel's time, its bandwidth over the bytes of W, x and y, that
      bandwidth as a share of the device-to-device copy bandwidth measured
      in the same run (a torch copy_ of --copy-mib MiB: read + write bytes
      over its time), and the ratio to cuBLAS
      (torch.nn.functional.linear).
  (b) Correctness of every GEMV configuration (f16, bf16, the batched
      m = 4 one, and the split-K kernel into f32) on V0-V7 and ragged
      shapes (N x K = 4097x1000, 77x4096, 1x1, and six with K not a
      multiple of 8; m = 1, 3 and 16).
  (c) W4A16 GEMV (4-bit weights packed by bench/w4pack.py, f16 scales per
      group of G, with zero points and symmetric) at m = 1 and m = 16 on
      V0-V7, checked against torch on the dequantized matrix and timed
      against cuBLAS on that matrix in f16, within w4_tolerance: the f32
      bound, widened by the reference's rounding of each dequantized
      weight (which a kernel scaling per word does not round) and, for
      builds accumulating in f16 (the kernel's default CT), by an
      f16-accumulation bound; at m = 16 also the
      configurations with two and four rows of X per block (-m2, -m4) and
      the tensor-core kernel (gemv_w4a16_mma-*: timed at m = 16, checked
      at m = 5 too). --configs limits part (c) to the folders it lists.
  (d) W4A16 GEMM at the paper's M1 and M5 (Table 1) against cuBLAS on the
      dequantized matrix, f16 and (when built) bf16.

Correctness: fresh random inputs with no zeros per shape (floats in
[-1, 1); 4-bit weights uniform over 0..15 with scales in [0.5, 1) / 8 and
zero points over 0..15), outputs poisoned with NaN before the checked
launch, compared with the product in f32 rounded to the output type (four
ulps plus an absolute floor growing like sqrt(K)). Times: the median of
--reps launches, each between two CUDA events, on fresh inputs of the
shape. Each launch is queued behind a 256 MiB read that evicts L2 (V5's
packed weights, 42 MB, would otherwise stay in the 50 MB cache between
launches, where a decode step streams them from memory) and keeps the
device busy while the host launches it. cuBLAS is timed before and after
the tile kernel and the faster counted; in part (d) every timing starts
after the GPU idled --cool seconds (the GEMMs run at the power limit,
where the clock depends on what ran just before). The goals printed next to the
numbers (not assumed): (a) at least 90% of the copy bandwidth and at least
cuBLAS on every V shape; (c) at least 3.0x fp16 cuBLAS at m = 1 and 2.5x
at m = 16; (d) at least 0.9x.

--dry runs without a GPU, torch or a driver: it checks the shape lists,
and with --kernels lists the artifacts it would run. Prints Markdown;
exits non-zero when any check failed or any launch did not run.
"""

import argparse
import itertools
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from report import markdown_table  # noqa: E402
import options  # noqa: E402
import shapes  # noqa: E402

# (name, N, K) of the TileLang paper's Appendix A, Table 2 (m = 1).
GEMV_SHAPES = shapes.GEMV
RAGGED = [("ragged", 4097, 1000), ("ragged", 77, 4096), ("ragged", 1, 1)]
# Rows of W that are not 16-byte aligned (K % 8 != 0), one shape for each of
# the narrow builds of kernels/gemv_tuned.txt (part (b) only).
MISALIGNED = [("ragged", 1000, 4100), ("ragged", 129, 7946),
              ("ragged", 4099, 513), ("ragged", 333, 1030),
              ("ragged", 1000, 4097), ("ragged", 77, 4094)]
# (name, M, N, K) of Table 2 for the W4A16 GEMM.
GEMM_SHAPES = shapes.named(shapes.GEMM, "M1", "M5")
GEMV_CONFIGS = [("gemv-f16", "f16", 1), ("gemv-bf16", "bf16", 1),
                ("gemv-f16-m4", "f16", 4)]
W4_GROUPS = (32, 64, 128)
GOAL_COPY, GOAL_BLAS = 0.90, 1.0
GOAL_W4_M1, GOAL_W4_M16, GOAL_W4_GEMM = 3.0, 2.5, 0.9
ULP = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -23}


def self_check():
    assert len(GEMV_SHAPES) == 8 and len({s[1:] for s in GEMV_SHAPES}) == 8
    assert [s[0] for s in GEMV_SHAPES] == [f"V{i}" for i in range(8)]
    assert all(n > 0 and k > 0
               for _, n, k in GEMV_SHAPES + RAGGED + MISALIGNED)
    assert all(k % 8 for _, _, k in MISALIGNED)
    assert all(m in (4096, 8192) for _, m, _, _ in GEMM_SHAPES)


def tolerance(ot, k):
    """(rtol, atol) of a K-deep f32-accumulated product of inputs in
    [-1, 1) rounded to `ot`: four ulps, and an absolute floor that grows
    like the sum itself (sqrt(K)) for elements that cancel."""
    return 4 * ULP[ot], 1e-4 * math.sqrt(k)


def w4_tolerance(x, wdq, ct, ot, partials=1):
    """(rtol, atol) of a W4A16 product accumulating in `ct`, checked
    against the f32 product of X and wdq, the dequantized matrix rounded
    to the activation type `ot`. T = sqrt(sum_k (w_k x_k)^2) is the size
    of an output's terms; the bound is per output element (M x N).
    `partials` is the most partial sums a kernel adds into Y in `ot`
    (gemv_w4a16_mma splits K across up to MAXSPLIT = 6 blocks, each adding
    its f32 partial with an f16/bf16 atomic).

    - Every build: wdq rounds each weight (q - z) s to `ot`, by at most
      u = 2^-11 (f16) or 2^-8 (bf16) relative, and a kernel that applies
      the scale per chunk (kernels/gemv_w4a16.mlir sums (q - z) x over a
      chunk's weights, then multiplies by s) rounds none, so its outputs
      differ from the reference by a sum of K such roundings, of standard
      deviation about u T / sqrt(3): 4 u T.
    - CT = f32: also the f32 bound of tolerance().
    - CT = f16: each output is the f32 sum of f16 chains of ceil(K / 1024)
      fmas, one per K step, each adding a chunk's scaled sum of sixteen
      products (fifteen more roundings, of partial sums smaller than the
      chain's). Each
      rounds by at most half an ulp (2^-11 relative) of its partial sum;
      with independent roundings the error has a standard deviation of
      about 2^-11 sqrt(steps / 6 + 1 / 2) T, bounded by four times
      2^-11 sqrt(steps + 3) T (about ten standard deviations).
    - partials > 1: each atomic addition rounds the running sum of Y, whose
      size the partial sums (each about T / sqrt(partials), their sums
      not beyond T by more than a few standard deviations) bound by about
      2 T: half an ulp of 2 T per addition, partials * 2 u T in all."""
    k = x.shape[1]
    rtol, atol = tolerance(ot, k)
    t = ((x.double() ** 2) @ (wdq.double() ** 2).t()).sqrt()
    u = ULP[ot] / 2  # the unit roundoff: half an ulp of 1
    atol = atol + 4 * u * t
    if partials > 1:
        atol = atol + partials * 2 * u * t
    if ct == "f32":
        return rtol, atol
    steps = -(-k // 1024)
    return rtol, atol + 4 * 2.0 ** -11 * math.sqrt(steps + 3) * t


def w4_operands(m, n, k, g, at, symmetric, gen, pad=True):
    """W4A16 operands on the GPU, drawn from the torch generator `gen`:
    X (m x K, uniform in [-1, 1), no zeros), 4-bit weights uniform over
    0..15 packed by w4pack, scales in [1, 2) / 16 and zero points over
    0..15 (None when symmetric) per group of g, their rows padded to 16
    bytes as w4pack.quantize returns them (unless `pad` is false), and the
    dequantized matrix, all in the activation type `at`."""
    import torch
    import w4pack
    from harness import nonzero_rand
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[at]
    x = nonzero_rand(m, k, dtype=dt, generator=gen)
    q = torch.randint(0, 16, (n, k), device="cuda", generator=gen,
                      dtype=torch.int32)
    groups = (k + g - 1) // g
    s = ((torch.rand(n, groups, device="cuda", generator=gen) + 1)
         / 16).to(dt)
    z = None if symmetric else torch.randint(
        0, 16, (n, groups), device="cuda", generator=gen).to(dt)
    packed = w4pack.pack(q)
    wdq = w4pack.dequantize(q, s, z, g, dtype=dt)
    if pad:
        s, z = w4pack.pad_groups(s), w4pack.pad_groups(z)
    return x, packed, s, z, wdq


def manifest(root, config, kernel):
    return os.path.join(root, config, f"{kernel}_kernel.manifest")


def w4_configs(root):
    """(folder, kernel, group, activation type, accumulator type, rows of
    X) of the W4A16 artifacts bench/build_gemv_kernels.sh builds: f16
    builds accumulate in f16 (the kernel's default CT), bf16 and the
    -f32acc build in f32; the -m2 and -m4 builds hold two and four rows of
    X per block (each dequantized pair of weights serves them all), run at
    m = 16 only."""
    found = []
    for g in W4_GROUPS:
        found.append((f"gemv_w4a16-f16-g{g}", "gemv_w4a16", g, "f16", "f16",
                      (1, 16)))
    found.append(("gemv_w4a16-f16-g128-f32acc", "gemv_w4a16", 128, "f16",
                  "f32", (1,)))
    found.append(("gemv_w4a16-bf16-g128", "gemv_w4a16", 128, "bf16", "f32",
                  (1, 16)))
    found.append(("gemv_w4a16-f16-g128-m2", "gemv_w4a16", 128, "f16", "f16",
                  (16,)))
    found.append(("gemv_w4a16-f16-g128-m4", "gemv_w4a16", 128, "f16", "f16",
                  (16,)))
    # The tensor-core kernel for a few rows of X (f32 accumulation), timed
    # at m = 16 and checked at m = 5 (rows of X past M).
    for g in W4_GROUPS:
        found.append((f"gemv_w4a16_mma-f16-g{g}", "gemv_w4a16_mma", g, "f16",
                      "f32", (5, 16)))
    found.append(("gemv_w4a16_mma-bf16-g128", "gemv_w4a16_mma", 128, "bf16",
                  "f32", (5, 16)))
    # Variants of the builds compiled by hand with other -D values, in
    # folders named gemv_w4a16_mma-f16-g128-SUFFIX or
    # gemv_w4a16_mma-bf16-g128-SUFFIX (tensor-core kernel) and
    # gemv_w4a16-f16-g128-vSUFFIX or gemv_w4a16-bf16-g128-vSUFFIX (one-row
    # kernel, timed at m = 1).
    # (folder prefix by activation type, kernel, accumulator type by
    # activation type, rows of X)
    hand = (("gemv_w4a16_mma-{}-g128-", "gemv_w4a16_mma",
             {"f16": "f32", "bf16": "f32"}, (5, 16)),
            ("gemv_w4a16-{}-g128-v", "gemv_w4a16",
             {"f16": "f16", "bf16": "f32"}, (1,)))
    if root and os.path.isdir(root):
        for folder in sorted(os.listdir(root)):
            for prefix, kernel, cts, ms in hand:
                at = next((a for a in cts
                           if folder.startswith(prefix.format(a))), None)
                if at:
                    found.append((folder, kernel, 128, at, cts[at], ms))
                    break
    return found


def dry(args):
    if not args.nk:
        self_check()
    print(f"shape lists: {len(GEMV_SHAPES)} GEMV shapes, {len(RAGGED)} "
          f"ragged, {len(GEMM_SHAPES)} GEMM shapes: ok")
    if not args.kernels:
        return 0
    rows, missing = [], 0
    wanted = [(c, k) for c, _, _ in GEMV_CONFIGS
              for k in ("gemv", "gemv_splitk")]
    for folder, kernel, _, _, _, _ in w4_configs(args.kernels):
        wanted += [(folder, kernel), (folder, kernel + "_sym")]
    wanted += [("gemm_w4a16-f16-g128", "gemm_w4a16"),
               ("gemm_w4a16-f16-g128", "gemm_w4a16_sym")]
    for config, kernel in wanted:
        path = manifest(args.kernels, config, kernel)
        ok = os.path.exists(path)
        missing += not ok
        rows.append([config, kernel, "found" if ok else "MISSING"])
    print(markdown_table(["folder", "kernel", "manifest"], rows))
    return 1 if missing else 0


# ---------------------------------------------------------------------------
# On the GPU.

def run(args):
    import torch
    import torch.nn.functional as F
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    import harness
    from harness import compare, nonzero_rand, time_torch

    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2025)
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16,
              "f32": torch.float32}
    failed = 0
    kernels = {}

    def load(config, kernel):
        key = (config, kernel)
        if key not in kernels:
            path = manifest(args.kernels, config, kernel)
            kernels[key] = tile.load(path) if os.path.exists(path) else None
        return kernels[key]

    def check(fn, out, ref, ot, k, bounds=None):
        """Poisons out, runs fn, compares with `bounds` (rtol, atol),
        tolerance(ot, k) by default: returns (ok, cell text)."""
        nonlocal failed
        out.fill_(float("nan"))
        try:
            fn()
            torch.cuda.synchronize()
        except tile.TileError as e:
            failed += 1
            return False, f"FAILED: {e}"
        rtol, atol = bounds or tolerance(ot, k)
        ok, max_abs, _, worst = compare(out, ref, rtol, atol)
        if not ok:
            failed += 1
        return ok, (f"{'ok' if ok else 'FAILED'} (max abs err {max_abs:.3g}, "
                    f"{worst:.2g} of the bound)")

    def timed(tile_fn, blas_fn):
        """(tile ms, cuBLAS ms): cuBLAS before and after, the faster."""
        before = time_torch(blas_fn, reps=args.reps, flush=True)[0]
        t = time_torch(tile_fn, reps=args.reps, flush=True)[0]
        after = time_torch(blas_fn, reps=args.reps, flush=True)[0]
        return t, min(before, after)

    device = torch.cuda.get_device_name()
    print(f"## GEMV and W4A16 on {device}\n")
    print(f"torch {torch.__version__}; median of {args.reps} launches, each "
          "between CUDA events after a 256 MiB read that evicts L2; "
          "cuBLAS (torch.nn.functional.linear) timed "
          "before and after the tile kernel, the faster counted.\n")

    # The copy bandwidth of this device, measured now.
    n_copy = args.copy_mib * (1 << 20) // 2
    src = nonzero_rand(n_copy, dtype=torch.float16, generator=gen)
    dst = torch.empty_like(src)
    copy_ms = time_torch(lambda: dst.copy_(src), reps=args.reps)[0]
    copy_gbs = 2 * src.numel() * 2 / (copy_ms * 1e-3) / 1e9
    del src, dst
    print(f"device-to-device copy of {args.copy_mib} MiB: {copy_ms:.3f} ms, "
          f"{copy_gbs:.0f} GB/s (read + write)\n")

    # (a) fp16 and bf16 GEMV on V0-V7: the default builds, then any
    # variants built by hand with other -D values (or for another chip)
    # in folders named gemv-f16-vSUFFIX and gemv-bf16-vSUFFIX.
    variants = ["gemv-f16", "gemv-bf16"]
    if args.kernels and os.path.isdir(args.kernels):
        variants += sorted(f for f in os.listdir(args.kernels)
                           if f.startswith(("gemv-f16-v", "gemv-bf16-v")))
    for folder in variants if args.part in ("all", "a") else []:
        gemv = load(folder, "gemv")
        at = "bf16" if "bf16" in folder else "f16"
        rows, verdicts = [], []
        for name, n, k in GEMV_SHAPES:
            if gemv is None:
                failed += 1
                rows.append([name, f"{n}x{k}", "MISSING", "-", "-", "-", "-",
                             "-"])
                continue
            x = nonzero_rand(1, k, dtype=dtypes[at], generator=gen)
            w = nonzero_rand(n, k, dtype=dtypes[at], generator=gen)
            y = torch.empty(1, n, dtype=dtypes[at], device="cuda")
            ref = (x.float() @ w.float().t()).to(dtypes[at])
            ok, status = check(lambda: gemv(x, w, y), y, ref, at, k)
            if not ok or args.check_only:
                rows.append([name, f"{n}x{k}", status, "-", "-", "-", "-",
                             "-"])
                continue
            t, blas = timed(lambda: gemv(x, w, y), lambda: F.linear(x, w))
            gbs = (n * k + k + n) * 2 / (t * 1e-3) / 1e9
            share = gbs / copy_gbs
            ratio = blas / t
            verdicts.append(share >= GOAL_COPY and ratio >= GOAL_BLAS)
            rows.append([name, f"{n}x{k}", status, f"{t * 1e3:.1f}",
                         f"{gbs:.0f}", f"{share * 100:.1f}%",
                         f"{blas * 1e3:.1f}", f"{ratio:.2f}"])
            del x, w, y, ref
        print(f"### (a) {'bf16' if at == 'bf16' else 'fp16'} GEMV (m = 1), "
              f"V0-V7 ({folder})\n")
        print(markdown_table(["shape", "NxK", "check", "tile us",
                              "tile GB/s", "of copy BW", "cuBLAS us",
                              "cuBLAS / tile"], rows))
        if verdicts:
            met = all(verdicts) and len(verdicts) == len(GEMV_SHAPES)
            print(f"\ngoal (>= {GOAL_COPY:.0%} of copy bandwidth and >= "
                  f"cuBLAS on every V shape): {'met' if met else 'missed'}\n")
        torch.cuda.empty_cache()

    # (b) correctness of every GEMV configuration.
    if args.part in ("all", "b"):
        rows = []
        for config, t, bm in GEMV_CONFIGS:
            dt = dtypes[t]
            for kernel in ("gemv", "gemv_splitk"):
                fn = load(config, kernel)
                for m in (1, 3, 16):
                    for name, n, k in GEMV_SHAPES + RAGGED + MISALIGNED:
                        if m != 1 and name != "ragged" and name not in \
                                ("V0", "V5"):
                            continue
                        if fn is None:
                            failed += 1
                            rows.append([config, kernel, m, name,
                                         f"{n}x{k}", "MISSING"])
                            continue
                        x = nonzero_rand(m, k, dtype=dt, generator=gen)
                        w = nonzero_rand(n, k, dtype=dt, generator=gen)
                        exact = x.float() @ w.float().t()
                        if kernel == "gemv":
                            y = torch.empty(m, n, dtype=dt, device="cuda")
                            ok, status = check(lambda: fn(x, w, y), y,
                                               exact.to(dt), t, k)
                        else:
                            y = torch.empty(m, n, dtype=torch.float32,
                                            device="cuda")

                            # The runtime zeroes Y first (`zero` line).
                            _, status = check(lambda: fn(x, w, y), y, exact,
                                              "f32", k)
                        rows.append([config, kernel, m, name, f"{n}x{k}",
                                     status])
                        del x, w, y, exact
        print("### (b) GEMV correctness\n")
        print(markdown_table(["config", "kernel", "m", "shape", "NxK",
                              "check"], rows))
        print()
        torch.cuda.empty_cache()

    def w4_call(fn, x, packed, s, z, y):
        if z is None:
            return lambda: fn(x, packed, s, y)
        return lambda: fn(x, packed, s, z, y)

    # (c) W4A16 GEMV.
    if args.part in ("all", "c"):
        rows, ratios = [], {}
        goals = {1: GOAL_W4_M1, 16: GOAL_W4_M16}
        for folder, kernel, g, at, ct, ms in w4_configs(args.kernels):
            if args.configs and folder not in args.configs.split(","):
                continue
            for symmetric in (False, True):
                fn = load(folder, kernel + ("_sym" if symmetric else ""))
                shapes = GEMV_SHAPES + RAGGED
                for m in ms:
                    for name, n, k in shapes:
                        label = [folder, "sym" if symmetric else "zeros", m,
                                 name, f"{n}x{k}"]
                        if fn is None:
                            failed += 1
                            rows.append(label + ["MISSING", "-", "-", "-"])
                            continue
                        # The ragged shapes check scales and zeros of
                        # unpadded rows too.
                        x, packed, s, z, wdq = w4_operands(
                            m, n, k, g, at, symmetric, gen,
                            pad=name != "ragged")
                        y = torch.empty(m, n, dtype=dtypes[at], device="cuda")
                        ref = (x.float() @ wdq.float().t()).to(dtypes[at])
                        # gemv_w4a16_mma adds into Y (K split across
                        # blocks): the runtime zeroes Y before each launch
                        # (its manifest's `zero` line), inside the timing.
                        call = w4_call(fn, x, packed, s, z, y)
                        partials = 6 if kernel == "gemv_w4a16_mma" else 1
                        ok, status = check(
                            call, y, ref, at, k,
                            w4_tolerance(x, wdq, ct, at, partials))
                        timed_here = (ok and not args.check_only and
                                      name != "ragged" and g == 128 and
                                      m in goals)
                        if not timed_here:
                            rows.append(label + [status, "-", "-", "-"])
                        else:
                            t, blas = timed(call, lambda: F.linear(x, wdq))
                            ratios.setdefault((m, folder, label[1]),
                                              []).append(blas / t)
                            rows.append(label + [status, f"{t * 1e3:.1f}",
                                                 f"{blas * 1e3:.1f}",
                                                 f"{blas / t:.2f}"])
                        del x, packed, s, z, wdq, y, ref
        print("### (c) W4A16 GEMV (times: G = 128; cuBLAS on the "
              "dequantized matrix in X's type, f16 or bf16)\n")
        print(markdown_table(["config", "form", "m", "shape", "NxK",
                              "check", "tile us", "cuBLAS us",
                              "cuBLAS / tile"], rows))
        for (m, folder, form), found in sorted(ratios.items()):
            low, goal = min(found), goals[m]
            geo = math.exp(sum(map(math.log, found)) / len(found))
            print(f"\nm = {m} ({folder}, {form}): minimum {low:.2f}x "
                  f"cuBLAS, geometric mean {geo:.2f}x "
                  f"over {len(found)} shapes (goal >= {goal}x: "
                  f"{'met' if low >= goal else 'missed'})")
        print()
        torch.cuda.empty_cache()

    # (d) W4A16 GEMM. The GEMMs run at the power limit, the GEMVs of
    # parts (a)-(c) (memory-bound) below it: only these timings idle first.
    if args.part in ("all", "d"):
        harness.COOL_S = args.cool
        rows = []
        # The f16 build must exist; a bf16 build is checked and timed when
        # bench/build_gemv_kernels.sh made one.
        types = ["f16"] + (["bf16"] if os.path.exists(manifest(
            args.kernels, "gemm_w4a16-bf16-g128", "gemm_w4a16")) else [])
        for at, symmetric in itertools.product(types, (False, True)):
            folder = f"gemm_w4a16-{at}-g128"
            dtype = dtypes[at]
            fn = load(folder, "gemm_w4a16" + ("_sym" if symmetric else ""))
            for name, m, n, k in GEMM_SHAPES + [("ragged", 1000, 77, 4096),
                                               ("ragged", 333, 200, 1000)]:
                label = [("sym" if symmetric else "zeros") +
                         ("" if at == "f16" else " bf16"), name,
                         f"{m}x{n}x{k}"]
                if fn is None:
                    failed += 1
                    rows.append(label + ["MISSING", "-", "-", "-"])
                    continue
                x, packed, s, z, wdq = w4_operands(m, n, k, 128, at,
                                                   symmetric, gen)
                y = torch.empty(m, n, dtype=dtype, device="cuda")
                ref = (x.float() @ wdq.float().t()).to(dtype)
                call = w4_call(fn, x, packed, s, z, y)
                ok, status = check(call, y, ref, at, k)
                if not ok or args.check_only or name == "ragged":
                    rows.append(label + [status, "-", "-", "-"])
                else:
                    t, blas = timed(call, lambda: F.linear(x, wdq))
                    flop = 2.0 * m * n * k
                    ratio = blas / t
                    rows.append(label + [
                        status, f"{flop / (t * 1e-3) / 1e12:.1f}",
                        f"{flop / (blas * 1e-3) / 1e12:.1f}",
                        f"{ratio:.2f} ({'met' if ratio >= GOAL_W4_GEMM else 'missed'})"])
                del x, packed, s, z, wdq, y, ref
                torch.cuda.empty_cache()
        print(f"### (d) W4A16 GEMM, G = 128 (goal >= {GOAL_W4_GEMM}x cuBLAS "
              "on the dequantized matrix, f16 or bf16 as X; each timing "
              f"after the GPU idled {args.cool:g} s)\n")
        print(markdown_table(["form", "shape", "MxNxK", "check",
                              "tile TFLOP/s", "cuBLAS TFLOP/s",
                              "cuBLAS / tile"], rows))
        print()
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernels", default="",
                        help="what bench/build_gemv_kernels.sh wrote")
    options.add_runtime_argument(parser)
    parser.add_argument("--reps", type=int, default=100)
    options.add_cool_argument(parser, "each timing of part (d)")
    parser.add_argument("--copy-mib", type=int, default=1024,
                        help="size of the copy that measures the bandwidth")
    parser.add_argument("--part", choices=("all", "a", "b", "c", "d"),
                        default="all")
    parser.add_argument("--configs", default="",
                        help="part (c): only these folders (comma-separated)")
    parser.add_argument("--check-only", action="store_true",
                        help="check correctness; time nothing")
    parser.add_argument("--nk", default="",
                        help="parts (a) and (c): these NxK shapes "
                             "(comma-separated), or `models` (ten of Llama- "
                             "and Mistral-sized layers), in place of V0-V7")
    parser.add_argument("--dry", action="store_true",
                        help="no GPU: check the shape lists and, with "
                             "--kernels, list the artifacts")
    args = parser.parse_args()
    unknown = (set(filter(None, args.configs.split(",")))
               - {c[0] for c in w4_configs(args.kernels)})
    if unknown:
        parser.error("--configs: no W4A16 GEMV configuration named "
                     + ", ".join(sorted(unknown)))
    if args.nk:
        global GEMV_SHAPES
        try:
            pairs = shapes.MODEL_GEMV if args.nk == "models" else [
                x.split("x") for x in args.nk.split(",")]
            GEMV_SHAPES = [(f"{n}x{k}", int(n), int(k)) for n, k in pairs]
        except ValueError:
            parser.error(f"--nk: '{args.nk}' is not a list of NxK")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    if args.dry:
        return dry(args)
    if not args.kernels:
        parser.error("--kernels is required (except with --dry)")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
