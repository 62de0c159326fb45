"""W4A16 GEMV time against the number of output rows: how the kernel's
time follows its blocks (waves of resident blocks) and where its fixed
cost lies.

On a GPU machine, with torch and one or more folders of
bench/build_gemv_kernels.sh builds (each FOLDER/gemv_w4a16-f16-g128/
gemv_w4a16_kernel.manifest):

    python3 bench/gemv_w4a16_waves.py FOLDER [FOLDER...] \\
        --runtime /tmp/rt/lib/libtile_runtime.so

Times the zero-point kernel (f16, G = 128, m = 1) at K = 9216 and 16384
for N from 4224 (one block of 8 rows per slot of 132 SMs x 4 blocks) to
16896 (four such waves), median of --reps launches, each after the
L2-evicting read of bench/harness.py, and prints a markdown table with
the time per 1000 rows. Inputs are fresh random values (no zeros);
outputs are not checked here: bench/gpu_gemv.py checks the same kernels.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import options  # noqa: E402

ROWS = [4224, 6336, 8448, 8704, 9216, 9728, 10560, 12672, 14336, 16896]
DEPTHS = [9216, 16384]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+")
    options.add_runtime_argument(parser)
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import torch
    import tile
    from gpu_gemv import w4_operands
    from harness import time_torch

    kernels = [(f, tile.load(os.path.join(f, "gemv_w4a16-f16-g128",
                                          "gemv_w4a16_kernel.manifest")))
               for f in args.folders]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    print(f"## W4A16 GEMV time against N on {torch.cuda.get_device_name()}\n")
    print("| build | K | N | blocks of 8 rows | us | us per 1000 rows |")
    print("|---|---|---|---|---|---|")
    for k in DEPTHS:
        for n in ROWS:
            x, p, s, z, _ = w4_operands(1, n, k, 128, "f16", False, gen)
            y = torch.empty(1, n, dtype=torch.float16, device="cuda")
            for folder, fn in kernels:
                ms = time_torch(lambda: fn(x, p, s, z, y), reps=args.reps,
                                flush=True)[0]
                print(f"| {folder} | {k} | {n} | {n // 8} | {ms * 1e3:.1f} "
                      f"| {ms * 1e6 / n:.2f} |")
            del x, p, s, z, y


if __name__ == "__main__":
    main()
