"""Launches a dispatching GEMM manifest many times on the same inputs and
checks that every launch writes the same bytes: a race between the warps
that read a pipeline slot and the copy that refills it shows as launches
that differ, often one in tens, only when a second wave of blocks shares
the SMs with the first.

    repeat_gemm.py MANIFEST nn|nt[-f32] LAUNCHES MxNxK...

For each shape: f16 inputs (f32 with -f32, which the kernel reads as tf32) that repeat a random pattern of a prime length
(no zeros; one host-to-device copy each), a poisoned (NaN) output before
every launch, the first launch's output checked at 64 sampled elements
against the f64 product of the inputs (|out - ref| <= 1e-3 + 1e-2 |ref|,
for tf32 sqrt(K) 2^-10 + 1e-2 |ref|)
and for NaN everywhere (an element no store reached), and every later
launch compared byte for byte with the first. The builds
these shapes take reduce split K in a fixed order, so equal inputs give
equal bytes. Prints the variant and the count of launches that differ;
exits 1 on any. Needs a GPU; no torch.
"""

import random
import struct
import sys

import tile
from device_matrix import DeviceMatrix

PERIOD = 4099


def main():
    kernel = tile.load(sys.argv[1])
    layout, _, dtype = sys.argv[2].partition("-")
    nt = layout == "nt"
    fmt = "f" if dtype == "f32" else "e"
    launches = int(sys.argv[3])
    rng = random.Random(13)
    failed = 0
    for shape in sys.argv[4:]:
        m, n, k = map(int, shape.split("x"))
        a = DeviceMatrix(m, k, fmt)
        b = DeviceMatrix(n, k, fmt) if nt else DeviceMatrix(k, n, fmt)
        c = DeviceMatrix(m, n, fmt)
        pa = [rng.choice((-1, 1)) * rng.uniform(0.01, 1) for _ in range(PERIOD)]
        pb = [rng.choice((-1, 1)) * rng.uniform(0.01, 1) for _ in range(PERIOD)]
        a.upload_periodic(pa)
        b.upload_periodic(pb)
        # The values as the type rounded them.
        pa = struct.unpack("<%d%s" % (PERIOD, fmt),
                           struct.pack("<%d%s" % (PERIOD, fmt), *pa))
        pb = struct.unpack("<%d%s" % (PERIOD, fmt),
                           struct.pack("<%d%s" % (PERIOD, fmt), *pb))
        # tf32 rounds each operand to 11 bits: a sum near zero keeps about
        # sqrt(K) of those errors.
        floor = max(1e-3, k ** 0.5 * 2.0 ** -10) if fmt == "f" else 1e-3
        chosen, _ = kernel.select(a, b, c)
        c.poison()
        kernel(a, b, c)
        tile.synchronize()
        first = c.download_bytes()
        out = struct.unpack_from("<%d%s" % (m * n, fmt), first)
        wrong = 0
        for _ in range(64):
            i, j = rng.randrange(m), rng.randrange(n)
            ref = 0.0
            for kk in range(k):
                bj = j * k + kk if nt else kk * n + j
                ref += pa[(i * k + kk) % PERIOD] * pb[bj % PERIOD]
            got = out[i * n + j]
            if not abs(got - ref) <= floor + 1e-2 * abs(ref):
                wrong += 1
        # NaN is the only value not equal to itself.
        unwritten = sum(1 for x in out if x != x)
        differ = 0
        for _ in range(launches - 1):
            c.poison()
            kernel(a, b, c)
            tile.synchronize()
            if c.download_bytes() != first:
                differ += 1
        verdict = "ok" if wrong == 0 and unwritten == 0 and differ == 0 \
            else "FAILED"
        failed += verdict != "ok"
        print("%s: %s, %s (%d of 64 sampled wrong, %d unwritten, %d of %d "
              "launches differ)" % (shape, chosen.split("/")[-2] + "/" +
                                    chosen.split("/")[-1], verdict, wrong,
                                    unwritten, differ, launches - 1))
        for x in (a, b, c):
            x.free()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
