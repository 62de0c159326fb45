"""Launches a dispatching GEMM manifest from Python (python/tile) on device
buffers that the runtime allocates, exposed through
__cuda_array_interface__, and checks each shape against a host product.

    python_gemm.py MANIFEST [--tn]

With --tn the manifest is gemm_tn's: A is stored K x M and C = A^T B.

For each shape: fresh random f16 inputs without zeros, a poisoned (NaN)
output, one launch, and every element compared with the f64 product of the
inputs (|out - ref| <= 1e-3 + 1e-2 |ref|, f16 rounding of an f32 sum).
Prints the variant the runtime chose and the verdict; exits 1 on any
mismatch. Needs a GPU; no torch.
"""

import random
import sys

import tile
from device_matrix import DeviceMatrix


def main():
    kernel = tile.load(sys.argv[1])
    tn = sys.argv[2:] == ["--tn"]
    rng = random.Random(11)
    failed = 0
    # Shapes over the ranges of the sm_90a NN f16 rules of
    # kernels/gemm_tuned.txt (which build each takes is gemm-dispatch.test's
    # to check): decode-sized M with narrow and with wide N (K split), one
    # row through the GEMV, M up to 64 with narrow N, K-heavy with few
    # columns, K = 77 whose rows TMA cannot address (A staged), M up to 1024
    # with wider N, and more than 1024 rows with skinny and wider N, where
    # the costed rules weigh the waves. The long-K decode shapes are left
    # out: their host products, over columns 16384 deep, are too slow here.
    shapes = [(16, 72, 64), (16, 3000, 64), (1, 6200, 24), (40, 72, 64),
              (65, 8, 16384), (500, 40, 24), (300, 264, 77), (65, 2056, 24),
              (257, 2056, 24), (1100, 200, 24), (1100, 264, 24)]
    if tn:
        # One row (A's K x 1 column read as a row by the GEMV, 1 x 77
        # among them), four rows (A's 8-byte rows staged, K split by N),
        # then decode-sized M.
        shapes = [(1, 72, 64), (1, 72, 77), (4, 72, 64), (16, 72, 64),
                  (40, 72, 64)]
    for m, n, k in shapes:
        a = DeviceMatrix(k, m) if tn else DeviceMatrix(m, k)
        b, c = DeviceMatrix(k, n), DeviceMatrix(m, n)
        av = [rng.choice((-1, 1)) * rng.uniform(0.01, 1) for _ in range(m * k)]
        bv = [rng.choice((-1, 1)) * rng.uniform(0.01, 1) for _ in range(k * n)]
        a.upload(av)
        b.upload(bv)
        c.poison()
        av, bv = a.download(), b.download()  # rounded to f16
        chosen, _ = kernel.select(a, b, c)
        kernel(a, b, c)
        tile.synchronize()
        out = c.download()
        bad, worst = 0, 0.0
        for i in range(m):
            for j in range(n):
                ref = sum(av[p * m + i if tn else i * k + p] * bv[p * n + j]
                          for p in range(k))
                got = out[i * n + j]
                err = abs(got - ref)
                if not err <= 1e-3 + 1e-2 * abs(ref):  # NaN fails
                    bad += 1
                worst = max(worst, err) if err == err else float("inf")
        variant = chosen[len(kernel.path) - len(kernel.path.split("/")[-1]):]
        print("%dx%dx%d: %s, %s (%d of %d mismatch, max abs err %.3g)" % (
            m, n, k, variant, "ok" if not bad else "FAILED", bad, m * n,
            worst))
        failed += bad != 0
        for t in (a, b, c):
            t.free()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
