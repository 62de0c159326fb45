"""Runs the bundled SIMT kernels (examples/*.mlir compiled by tile-compile)
on the GPU against PyTorch: correctness on ragged shapes with poisoned
outputs, then bandwidth side by side with torch in the same process.

    python3 bench/gpu_simt.py --kernels build/kernels \
        --runtime /tmp/rt/lib/libtile_runtime.so

Each kernel runs through the Python package (python/tile) on torch tensors,
on torch's stream, in this process.

Prints a Markdown report (the tables of bench/RESULTS.md) and exits
non-zero if any check failed.
"""

import argparse
import os
import sys

try:
    import torch
except ImportError:  # --help still works without it
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import options  # noqa: E402

RAGGED = [(1000, 1000), (4097, 33), (1, 5)]


def make_cases(gen):
    """(kernel, shape label, inputs, outputs, references, tolerances)."""
    from harness import nonzero_rand
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


def launch_args(ins, outs):
    """The kernel's arguments in order (arg0, arg1, ...) from the inputs and
    outputs by name, and the positions of the outputs."""
    named = {**ins, **outs}
    args = [named[f"arg{i}"] for i in range(len(named))]
    return args, [int(name[3:]) for name in outs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", default="build/kernels")
    options.add_runtime_argument(parser)
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()
    if torch is None:
        print("gpu_simt.py: needs torch", file=sys.stderr)
        return 2
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    from harness import check_launch, nonzero_rand, time_torch

    def run(kernel, ins, outs, refs, tol):
        """(ok, text, loaded kernel, its arguments) of one checked launch."""
        kern = tile.load(os.path.join(args.kernels,
                                      kernel + "_kernel.manifest"))
        launch, outputs = launch_args(ins, outs)
        ok, text = check_launch(kern, launch,
                                {int(n[3:]): r for n, r in refs.items()},
                                outputs=outputs, **tol)
        return ok, text, kern, launch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    device = torch.cuda.get_device_name()
    failed = 0

    print(f"## SIMT kernels on {device}\n")
    print("### Correctness (poisoned outputs, torch reference)\n")
    print("| kernel | shape | result |")
    print("|---|---|---|")
    for kernel, label, ins, outs, refs, tol in make_cases(gen):
        ok, text, _, _ = run(kernel, ins, outs, refs, tol)
        failed += not ok
        print(f"| {kernel} | {label} | {text} |")

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
        ok, text, kern, launch = run(kernel, ins, outs, refs, tol)
        failed += not ok
        t_ms, _ = time_torch(torch_fn, reps=args.reps)
        if not ok:
            print(f"| {kernel} | {label} | {text} | {t_ms:.3f} ms | - |")
            return
        ms, _ = time_torch(lambda: kern(*launch), reps=args.reps)
        gbs = nbytes / ms / 1e6
        print(f"| {kernel} | {label} | {ms:.3f} ms, {gbs:.0f} GB/s | "
              f"{t_ms:.3f} ms, {nbytes / t_ms / 1e6:.0f} GB/s | "
              f"{100 * gbs / ceiling:.1f}% |")

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
