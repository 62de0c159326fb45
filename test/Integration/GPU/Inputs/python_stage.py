"""Staged arguments on the GPU, launched from Python (python/tile) on
device buffers that the runtime allocates, on streams of the CUDA driver
(through ctypes, no torch):

    python_stage.py MANIFEST

MANIFEST is gemm_nn's dispatching manifest; K = 77 gives A rows of 154
bytes, which the runtime stages into 160-byte rows for the TMA build.

1. an eager launch on a stream;
2. the same launch captured into a CUDA graph, replayed after new values
   were uploaded into A and B, with a poisoned C;
3. a capture of a larger product whose workspace the kernel does not have
   yet, which must fail with the runtime's message, not launch;
4. launches alternating between two streams, each on its own buffers,
   checked after both streams finished.

Every output is compared with the f64 product of its inputs. Exits 1 on
any mismatch or unexpected outcome.
"""

import ctypes
import random
import sys

import tile
from device_matrix import DeviceMatrix

cuda = ctypes.CDLL("libcuda.so.1")
vp = ctypes.c_void_p


def cu(status, what):
    if status != 0:
        raise SystemExit("%s failed with CUresult %d" % (what, status))


def stream():
    s = vp()
    cu(cuda.cuStreamCreate(ctypes.byref(s), 1), "cuStreamCreate")  # non-blocking
    return s.value


def sync(s):
    cu(cuda.cuStreamSynchronize(vp(s)), "cuStreamSynchronize")


class Product(object):
    """A, B, C of an m x n x k NN product with random inputs (no zeros)."""

    def __init__(self, rng, m, n, k):
        self.m, self.n, self.k, self.rng = m, n, k, rng
        self.a, self.b = DeviceMatrix(m, k), DeviceMatrix(k, n)
        self.c = DeviceMatrix(m, n)
        self.refill()

    def refill(self):
        rnd = self.rng
        for t in (self.a, self.b):
            t.upload([rnd.choice((-1, 1)) * rnd.uniform(0.01, 1)
                      for _ in range(t.rows * t.cols)])
        self.av, self.bv = self.a.download(), self.b.download()
        self.c.poison()

    def check(self, what):
        m, n, k = self.m, self.n, self.k
        out, bad = self.c.download(), 0
        for i in range(m):
            for j in range(n):
                ref = sum(self.av[i * k + p] * self.bv[p * n + j]
                          for p in range(k))
                if not abs(out[i * n + j] - ref) <= 1e-3 + 1e-2 * abs(ref):
                    bad += 1
        print("%s, %dx%dx%d: %s (%d of %d mismatch)" % (
            what, m, n, k, "ok" if not bad else "FAILED", bad, m * n))
        return bad == 0

    def args(self):
        return self.a, self.b, self.c


def main():
    kernel = tile.load(sys.argv[1])
    rng = random.Random(5)
    ok = True
    s = stream()

    p = Product(rng, 300, 72, 77)
    _, why = kernel.select(*p.args())
    print("\n".join(line for line in why if line.startswith("stage")))
    kernel(*p.args(), stream=s)
    sync(s)
    ok &= p.check("eager")

    graph, exe = vp(), vp()
    cu(cuda.cuStreamBeginCapture_v2(vp(s), 0), "cuStreamBeginCapture")
    kernel(*p.args(), stream=s)
    cu(cuda.cuStreamEndCapture(vp(s), ctypes.byref(graph)),
       "cuStreamEndCapture")
    cu(cuda.cuGraphInstantiateWithFlags(ctypes.byref(exe), graph,
                                        ctypes.c_ulonglong(0)),
       "cuGraphInstantiate")
    p.refill()
    cu(cuda.cuGraphLaunch(exe, vp(s)), "cuGraphLaunch")
    sync(s)
    ok &= p.check("graph replay")

    big = Product(rng, 600, 72, 77)
    cu(cuda.cuStreamBeginCapture_v2(vp(s), 0), "cuStreamBeginCapture")
    try:
        kernel(*big.args(), stream=s)
        print("capture of a larger product: launched, expected an error")
        ok = False
    except tile.TileError as e:
        print("capture of a larger product: %s" % str(e).split(": ", 1)[1])
    cuda.cuStreamEndCapture(vp(s), ctypes.byref(vp()))

    s2 = stream()
    q = Product(rng, 300, 72, 77)
    for _ in range(3):
        kernel(*p.args(), stream=s)
        kernel(*q.args(), stream=s2)
    sync(s)
    sync(s2)
    ok &= p.check("stream 1 of 2")
    ok &= q.check("stream 2 of 2")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
