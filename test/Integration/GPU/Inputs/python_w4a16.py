"""Launches the library W4A16 kernels from Python (python/tile) on device
buffers that the runtime allocates, and checks each shape against a host
product of X and the dequantized weights.

    python_w4a16.py gemv MANIFEST_DIR      (gemv_w4a16[_sym], one row of X)
    python_w4a16.py gemm MANIFEST_DIR      (gemm_w4a16[_sym], many rows)

For each shape and form (zero points, symmetric): fresh random f16 X
without zeros, 4-bit weights packed by bench/w4pack.py (the layout of
docs/Quantized.md), scales in [1, 2) / 16 and integer zero points per
group of 128, a poisoned (NaN) output, one launch, and every element
compared with the f64 sum of x (q - z) s. The bound, 0.02 T + 0.01 |ref|
with T = sqrt(sum_k (x_k w_k)^2) the size of the output's terms, is about
twice the f16-accumulation bound of bench/gpu_gemv.py and far below the
error of one wrong nibble, scale or group (about T / sqrt(K) or more).
Prints the variant the runtime chose and the verdict; exits 1 on any
mismatch. Needs a GPU; no torch.
"""

import math
import random
import sys

import tile
import w4pack
from device_matrix import DeviceMatrix

G = 128


def run(kernel, m, n, k, symmetric, rng):
    groups = (k + G - 1) // G
    x, p = DeviceMatrix(m, k), DeviceMatrix(n, w4pack.row_words(k), "i")
    s, z = DeviceMatrix(n, groups), DeviceMatrix(n, groups)
    y = DeviceMatrix(m, n)
    x.upload([rng.choice((-1, 1)) * rng.uniform(0.01, 1) for _ in range(m * k)])
    q = [rng.randrange(16) for _ in range(n * k)]
    p.upload([w for row in w4pack.pack_rows(q[r * k:(r + 1) * k]
                                              for r in range(n)) for w in row])
    s.upload([rng.uniform(1, 2) / 16 for _ in range(n * groups)])
    z.upload([8 if symmetric else rng.randrange(16)
              for _ in range(n * groups)])
    y.poison()
    xv, sv, zv = x.download(), s.download(), z.download()  # rounded to f16
    args = (x, p, s, y) if symmetric else (x, p, s, z, y)
    chosen, _ = kernel.select(*args)
    kernel(*args)
    tile.synchronize()
    out = y.download()
    bad, worst = 0, 0.0
    for j in range(n):
        w = [(q[j * k + c] - zv[j * groups + c // G]) * sv[j * groups + c // G]
             for c in range(k)]
        for i in range(m):
            terms = [xv[i * k + c] * w[c] for c in range(k)]
            ref = math.fsum(terms)
            size = math.sqrt(math.fsum(t * t for t in terms))
            err = abs(out[i * n + j] - ref)
            if not err <= 0.02 * size + 0.01 * abs(ref):  # NaN fails
                bad += 1
            worst = max(worst, err) if err == err else float("inf")
    for t in (x, p, s, z, y):
        t.free()
    return chosen, bad, worst


def main():
    which, folder = sys.argv[1], sys.argv[2]
    rng = random.Random(5)
    # gemv: each rule of kernels/gemv_tuned.txt (8-row blocks up to
    # N = 12288, 16-row ones above), ragged N and K, one row and one
    # weight. gemm: a TMA build (K = 1024: rows of S 16 bytes) with ragged
    # M and N, and the cp.async build (K = 200: 2 groups, 4-byte rows).
    shapes = {"gemv": [(1, 77, 1000), (1, 12289, 64), (1, 1, 1),
                       (1, 136, 2048)],
              "gemm": [(130, 136, 1024), (64, 77, 200)]}[which]
    failed = 0
    for symmetric in (False, True):
        name = which + "_w4a16" + ("_sym" if symmetric else "")
        kernel = tile.load("%s/%s_kernel.manifest" % (folder, name))
        for m, n, k in shapes:
            chosen, bad, worst = run(kernel, m, n, k, symmetric, rng)
            variant = chosen[len(kernel.path)
                             - len(kernel.path.split("/")[-1]):]
            print("%s %dx%dx%d: %s, %s (%d of %d mismatch, max abs err %.3g)"
                  % (name, m, n, k, variant, "ok" if not bad else "FAILED",
                     bad, m * n, worst))
            failed += bad != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
