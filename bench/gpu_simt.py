"""Runs the bundled SIMT kernels (examples/*.mlir compiled by tile-compile)
on the GPU against PyTorch: correctness on ragged shapes with poisoned
outputs, then bandwidth side by side with torch in the same process.

    python3 bench/gpu_simt.py --kernels build/kernels --tile-run build/bin/tile-run

Prints a Markdown report (the tables of bench/RESULTS.md) and exits
non-zero if any check failed.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import nonzero_rand, run_tile, time_torch  # noqa: E402

RAGGED = [(1000, 1000), (4097, 33), (1, 5)]


def make_cases(gen):
    """(kernel, shape label, inputs, outputs, references, tolerances)."""
    cases = []
    for m, n in RAGGED:
        a = nonzero_rand(m, n, dtype=torch.float16, generator=gen)
        b = nonzero_rand(m, n, dtype=torch.float16, generator=gen)
        cases.append(("elementwise_add", f"{m}x{n} f16",
                      {"arg0": a, "arg1": b},
                      {"arg2": torch.empty_like(a)}, {"arg2": a + b}, {}))
        x = nonzero_rand(m, n, generator=gen)
        bias = nonzero_rand(n, generator=gen)
        cases.append(("bias_relu", f"{m}x{n} f32",
                      {"arg0": x, "arg1": bias}, {"arg2": torch.empty_like(x)},
                      {"arg2": torch.relu(x + bias)}, {}))
        xs = nonzero_rand(m, n, dtype=torch.float16, generator=gen) * 4
        ref = torch.softmax(xs.float(), dim=1).half()
        for kernel in ["row_softmax", "row_softmax_onepass", "row_softmax_pipelined"]:
            cases.append((kernel, f"{m}x{n} f16", {"arg0": xs},
                          {"arg1": torch.empty_like(xs)}, {"arg1": ref},
                          {"rtol": 1e-2, "atol": 1e-3}))
        xr = nonzero_rand(m, n, generator=gen)
        cases.append(("row_reduce", f"{m}x{n} f32 sum", {"arg0": xr},
                      {"arg1": torch.empty(m, device="cuda")},
                      {"arg1": xr.double().sum(1).float()},
                      {"rtol": 1e-4, "atol": 1e-4}))
        xc = nonzero_rand(m, 64, generator=gen)
        cases.append(("cumsum", f"{m}x64 f32", {"arg0": xc},
                      {"arg1": torch.empty_like(xc)},
                      {"arg1": xc.double().cumsum(1).float()},
                      {"rtol": 1e-4, "atol": 1e-4}))
    for n in [1000, 4097, 5]:
        xm = nonzero_rand(1024, n, generator=gen)
        cases.append(("column_reduce", f"1024x{n} f32 max", {"arg0": xm},
                      {"arg1": torch.empty(n, device="cuda")},
                      {"arg1": xm.amax(0)}, {}))
    for n in [1000003, 4097, 5]:
        v = torch.randint(0, 256, (n,), device="cuda", generator=gen,
                          dtype=torch.int32)
        h = torch.zeros(256, device="cuda", dtype=torch.int32)
        cases.append(("histogram", f"{n} i32", {"arg0": v, "arg1": h}, {},
                      {"arg1": torch.bincount(v, minlength=256).int()}, {}))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", default="build/kernels")
    parser.add_argument("--tile-run", default="build/bin/tile-run")
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    device = torch.cuda.get_device_name()
    failed = 0

    print(f"## SIMT kernels on {device}\n")
    print("### Correctness (poisoned outputs, torch reference)\n")
    print("| kernel | shape | result |")
    print("|---|---|---|")
    for kernel, label, ins, outs, refs, tol in make_cases(gen):
        manifest = os.path.join(args.kernels, kernel + "_kernel.manifest")
        r = run_tile(args.tile_run, manifest, ins, outs, refs, reps=3,
                     warmup=1, **tol)
        status = "ok" if r["ok"] else "FAILED"
        failed += not r["ok"]
        detail = [l for l in r["output"].splitlines() if "check" in l or
                  "error" in l]
        print(f"| {kernel} | {label} | {status}: {'; '.join(detail)} |")
        if not r["ok"]:
            print(r["output"], file=sys.stderr)

    print("\n### Bandwidth (bytes read + written once, median of "
          f"{args.reps} launches)\n")
    print("| kernel | shape | tile | torch | % of torch copy ceiling |")
    print("|---|---|---|---|---|")
    # The ceiling: torch's device-to-device copy of 1 GiB.
    src = torch.empty(1 << 29, dtype=torch.float16, device="cuda").uniform_()
    dst = torch.empty_like(src)
    copy_ms, _ = time_torch(lambda: dst.copy_(src), reps=args.reps)
    ceiling = 2 * src.numel() * 2 / copy_ms / 1e6
    print(f"| torch copy | 1 GiB | - | {copy_ms:.3f} ms, {ceiling:.0f} GB/s "
          "| 100% |")
    del src, dst

    def report(kernel, label, ins, outs, refs, nbytes, torch_fn, tol):
        nonlocal failed
        manifest = os.path.join(args.kernels, kernel + "_kernel.manifest")
        r = run_tile(args.tile_run, manifest, ins, outs, refs,
                     reps=args.reps, **tol)
        failed += not r["ok"]
        t_ms, _ = time_torch(torch_fn, reps=args.reps)
        if r["median_ms"] is None:
            print(f"| {kernel} | {label} | FAILED | {t_ms:.3f} ms | - |")
            print(r["output"], file=sys.stderr)
            return
        gbs = nbytes / r["median_ms"] / 1e6
        print(f"| {kernel} | {label} | {r['median_ms']:.3f} ms, {gbs:.0f} GB/s"
              f"{'' if r['ok'] else ' (check FAILED)'} | {t_ms:.3f} ms, "
              f"{nbytes / t_ms / 1e6:.0f} GB/s | {100 * gbs / ceiling:.1f}% |")

    # 1 GiB per operand: 16384 x 32768 f16.
    a = nonzero_rand(16384, 32768, dtype=torch.float16, generator=gen)
    b = nonzero_rand(16384, 32768, dtype=torch.float16, generator=gen)
    c = torch.empty_like(a)
    report("elementwise_add", "16384x32768 f16 (1 GiB each)",
           {"arg0": a, "arg1": b}, {"arg2": c}, {"arg2": a + b},
           3 * a.numel() * 2, lambda: torch.add(a, b, out=c), {})
    del a, b, c
    x = nonzero_rand(8192, 8192, dtype=torch.float16, generator=gen) * 4
    y = torch.empty_like(x)
    ref = torch.softmax(x.float(), dim=1).half()
    for kernel in ["row_softmax", "row_softmax_onepass", "row_softmax_pipelined"]:
        report(kernel, "8192x8192 f16", {"arg0": x}, {"arg1": y},
               {"arg1": ref}, 2 * x.numel() * 2,
               lambda: torch.softmax(x, dim=1), {"rtol": 1e-2, "atol": 1e-3})
    print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
