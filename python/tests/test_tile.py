"""Tests of the tile package against the runtime and a stand-in driver.

Run with TILE_RUNTIME_LIB naming libtile_runtime.so and TILE_RT_CUDA_DRIVER
the stand-in driver of test/Runtime/Inputs/fake-cuda.c, whose "device"
memory is host memory and whose gemm_f16 kernel computes C = A B on three
f16 memref descriptors. Tensors are stand-ins with
__cuda_array_interface__ (or DLPack) over ctypes buffers, so neither a GPU
nor torch is needed. The manifests are written per test: a dispatching
manifest over three variants (decode-sized M, a kernel with a tensor map
and its fallback, large M) that differ in block size, which the stand-in
driver reports for the last launch.
"""

import ctypes
import os
import random
import stat
import struct
import sys
import tempfile
import textwrap
import unittest

import tile

FAKE = ctypes.CDLL(os.environ["TILE_RT_CUDA_DRIVER"])
FAKE.fakeCudaLastLaunch.restype = ctypes.c_char_p
FAKE.fakeCudaLastLaunch.argtypes = [
    ctypes.c_uint * 3, ctypes.c_uint * 3, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_long)]
FAKE.fakeCudaTensorMapEncodes.restype = ctypes.c_long
FAKE.fakeCudaTensorMapEncodes.argtypes = []
FAKE.fakeCudaLastDescriptor.restype = ctypes.c_long
FAKE.fakeCudaLastDescriptor.argtypes = [
    ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int64 * 5]


def last_launch():
    grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
    stream, count = ctypes.c_void_p(), ctypes.c_long()
    name = FAKE.fakeCudaLastLaunch(grid, block, ctypes.byref(stream),
                                   ctypes.byref(count))
    return {"kernel": name and name.decode(), "grid": tuple(grid),
            "block": tuple(block), "stream": stream.value or 0,
            "count": count.value}


def last_descriptor(k):
    """Descriptor `k` of the last GEMM the stand-in driver ran: (address,
    sizes, strides)."""
    pointer, values = ctypes.c_uint64(), (ctypes.c_int64 * 5)()
    FAKE.fakeCudaLastDescriptor(k, ctypes.byref(pointer), values)
    return pointer.value, tuple(values[1:3]), tuple(values[3:5])


class FakeTensor(object):
    """Host memory posing as a CUDA array (__cuda_array_interface__ v3)."""

    def __init__(self, shape, typestr="<f2", stream=None, strides=None,
                 itemsize=2):
        n = 1
        for d in shape:
            n *= d
        self.shape, self.n = tuple(shape), n
        self.buf = (ctypes.c_uint8 * max(1, n * itemsize))()
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": typestr,
            "data": (ctypes.addressof(self.buf), False), "version": 3,
            "strides": strides, "stream": stream}

    def set_f16(self, values):
        struct.pack_into("<%de" % self.n, self.buf, 0, *values)

    def f16(self):
        return struct.unpack_from("<%de" % self.n, self.buf, 0)

    def poison(self):
        ctypes.memset(self.buf, 0xff, len(self.buf))


def random_f16(n, rng):
    # Non-zero, so that a kernel that skips an element cannot pass.
    values = []
    while len(values) < n:
        v = round(rng.uniform(-1, 1), 3)
        if v:
            values.append(struct.unpack("<e", struct.pack("<e", v))[0])
    return values


VARIANT = """\
tile-launch-manifest 1
kernel gemm_f16
binary k.ptx ptx
param arg0 memref<?x?xf16> descriptor
param arg1 memref<?x?xf16> descriptor
param arg2 memref<?x?xf16> descriptor
{extra}block {block}
grid x ceildiv(arg2.dim1, {tile})
grid y ceildiv(arg2.dim0, {tile})
{fallback}"""


class Fixture(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tile-python-test.")
        files = {
            "k.ptx": ".visible .entry gemm_f16() { ret; }\n",
            "small.manifest": VARIANT.format(extra="", block=64, tile=64,
                                             fallback=""),
            "tma.manifest": VARIANT.format(
                extra="param arg0_tmap0 tensormap arg0 box 128x64\n",
                block=128, tile=128, fallback="fallback big.manifest\n"),
            "big.manifest": VARIANT.format(extra="", block=256, tile=128,
                                           fallback=""),
            # The interface lists C first: callers pass arg0, arg1, arg2.
            "gemm.manifest": textwrap.dedent("""\
                tile-launch-manifest 2
                param arg2 memref<?x?xf16> none
                param arg0 memref<?x?xf16> none
                param arg1 memref<?x?xf16> none
                variant small.manifest when arg2.dim0 <= 64
                variant tma.manifest when arg2.dim0 <= 1024
                variant big.manifest
                """),
            "nocatch.manifest": textwrap.dedent("""\
                tile-launch-manifest 2
                param arg0 memref<?x?xf16> none
                param arg1 memref<?x?xf16> none
                param arg2 memref<?x?xf16> none
                variant small.manifest when arg2.dim0 <= 64
                """),
            # C = A^T B with A stored K x M: the TN kernel, and for one
            # row the NN kernel on the transposed view of A, which it
            # reads through a tensor map (rows of 2 bytes would not do).
            "nn.manifest": VARIANT.format(
                extra="param arg0_tmap0 tensormap arg0 box 1x64\n",
                block=64, tile=64, fallback=""),
            "tn.manifest": VARIANT.replace("gemm_f16", "gemm_tn_f16").format(
                extra="", block=128, tile=64, fallback=""),
            "tn-dispatch.manifest": textwrap.dedent("""\
                tile-launch-manifest 2
                param arg0 memref<?x?xf16> none
                param arg1 memref<?x?xf16> none
                param arg2 memref<?x?xf16> none
                variant nn.manifest view transpose arg0 when arg2.dim0 == 1
                variant tn.manifest
                """),
            "static.manifest": textwrap.dedent("""\
                tile-launch-manifest 1
                kernel vadd_f32
                binary k.ptx ptx
                param A memref<16xf32> bare
                param B memref<16xf32> bare
                param C memref<16xf32> bare
                param n i32
                block 16
                grid x 1
                """),
        }
        for name, text in files.items():
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.rng = random.Random(1234)

    def path(self, name):
        return os.path.join(self.dir, name)

    def assert_close(self, c, want):
        # f16 outputs of f32 sums; the poison (NaN) never passes.
        got = c.f16()
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertTrue(abs(g - w) <= 1e-3 + 1e-2 * abs(w),
                            "C[%d]: got %r, expected %r" % (i, g, w))

    def gemm_args(self, m, n, k, stream=None):
        a, b, c = (FakeTensor((m, k), stream=stream), FakeTensor((k, n)),
                   FakeTensor((m, n)))
        a.set_f16(random_f16(m * k, self.rng))
        b.set_f16(random_f16(k * n, self.rng))
        c.poison()
        return a, b, c


def reference(a, b, m, n, k):
    av, bv = a.f16(), b.f16()
    return [sum(av[i * k + p] * bv[p * n + j] for p in range(k))
            for i in range(m) for j in range(n)]


def reference_tn(a, b, m, n, k):
    """A^T B with A stored K x M."""
    av, bv = a.f16(), b.f16()
    return [sum(av[p * m + i] * bv[p * n + j] for p in range(k))
            for i in range(m) for j in range(n)]


class LaunchTest(Fixture):
    def test_interface(self):
        kernel = tile.load(self.path("gemm.manifest"))
        self.assertEqual([p.name for p in kernel.arguments],
                         ["arg0", "arg1", "arg2"])
        self.assertEqual(kernel.arguments[2].type_text(),
                         "memref<?x?xf16>")
        self.assertIn("arg2: memref<?x?xf16>", repr(kernel))

    def test_dispatch_per_shape(self):
        # (M, N, K) -> the variant, its block and why it was taken.
        cases = [
            ((16, 5, 64), "small.manifest", 64,
             ["when arg2.dim0 <= 64"]),
            ((100, 3, 64), "tma.manifest", 128,
             ["when arg2.dim0 <= 1024"]),
            # 77 f16 columns: 154-byte rows that TMA cannot address.
            ((100, 3, 77), "big.manifest", 256,
             ["when arg2.dim0 <= 1024", "stride of 154 bytes"]),
            ((1100, 2, 8), "big.manifest", 256, ["no rule"]),
        ]
        kernel = tile.load(self.path("gemm.manifest"))
        for (m, n, k), chosen, block, reasons in cases:
            with self.subTest(shape=(m, n, k)):
                a, b, c = self.gemm_args(m, n, k)
                path, why = kernel.select(a, b, c)
                self.assertEqual(os.path.basename(path), chosen)
                text = "\n".join(why)
                for reason in reasons:
                    self.assertIn(reason, text)
                before = last_launch()["count"]
                kernel(a, b, c)
                tile.synchronize()
                launch = last_launch()
                self.assertEqual(launch["count"], before + 1)
                self.assertEqual(launch["kernel"], "gemm_f16")
                self.assertEqual(launch["block"], (block, 1, 1))
                self.assert_close(c, reference(a, b, m, n, k))

    def test_costed_variants(self):
        # Costed variants compete on weight x waves on the stand-in device
        # (132 multiprocessors, one block of 384 threads and 230400 bytes
        # each): the wide tiles (2 x 2, weight 100) lose to the narrow ones
        # (1 x 1, weight 30) where both take one wave, and win where the
        # narrow ones need 17 waves against 5.
        for name, tile_size in (("wide.manifest", 2), ("narrow.manifest", 1)):
            with open(self.path(name), "w") as f:
                f.write(VARIANT.format(extra="shared 230400\n", block=384,
                                       tile=tile_size, fallback=""))
        with open(self.path("costed.manifest"), "w") as f:
            f.write(textwrap.dedent("""\
                tile-launch-manifest 2
                param arg0 memref<?x?xf16> none
                param arg1 memref<?x?xf16> none
                param arg2 memref<?x?xf16> none
                variant wide.manifest cost 100
                variant narrow.manifest cost 30
                """))
        kernel = tile.load(self.path("costed.manifest"))
        cases = [((8, 8, 8), "narrow.manifest", (8, 8, 1),
                  "cost 30 x 1 waves (64 blocks, 132 at once)"),
                 ((46, 46, 8), "wide.manifest", (23, 23, 1),
                  "cost 100 x 5 waves (529 blocks, 132 at once)")]
        for (m, n, k), chosen, grid, reason in cases:
            with self.subTest(shape=(m, n, k)):
                a, b, c = self.gemm_args(m, n, k)
                path, why = kernel.select(a, b, c)
                self.assertEqual(os.path.basename(path), chosen)
                self.assertIn(reason, "\n".join(why))
                kernel(a, b, c)
                tile.synchronize()
                self.assertEqual(last_launch()["grid"], grid)
                self.assert_close(c, reference(a, b, m, n, k))

    def test_keywords(self):
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(4, 4, 8)
        kernel(a, arg2=c, arg1=b)
        self.assert_close(c, reference(a, b, 4, 4, 8))

    def test_stream(self):
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(8, 8, 8, stream=7)
        kernel(a, b, c)
        self.assertEqual(last_launch()["stream"], 7)
        kernel(a, b, c, stream=9)
        self.assertEqual(last_launch()["stream"], 9)

        class Stream(object):
            cuda_stream = 11
        kernel(a, b, c, stream=Stream())
        self.assertEqual(last_launch()["stream"], 11)
        a2, b2, c2 = self.gemm_args(8, 8, 8)
        kernel(a2, b2, c2)
        self.assertEqual(last_launch()["stream"], 0)

    def test_scalars_and_static_sizes(self):
        kernel = tile.load(self.path("static.manifest"))
        a, b, c = (FakeTensor((16,), "<f4", itemsize=4) for _ in range(3))
        struct.pack_into("<16f", a.buf, 0, *range(16))
        struct.pack_into("<16f", b.buf, 0, *([0.5] * 16))
        kernel(a, b, c, 16)
        self.assertEqual(struct.unpack_from("<16f", c.buf, 0),
                         tuple(x + 0.5 for x in range(16)))
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'n': expected an integer "
                                    r"for i32, got 1.5"):
            kernel(a, b, c, 1.5)
        wrong = FakeTensor((17,), "<f4", itemsize=4)
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"argument 'B' has size 17 in dimension 0, expected 16 "
                r"\(memref<16xf32>\)"):
            kernel(a, wrong, c, 16)

    def test_dlpack(self):
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(4, 6, 8)
        keep = []

        class DLPackTensor(object):
            """A DLPack producer over a FakeTensor's buffer."""

            def __init__(self, t, device_type=2):
                self.t, self.device_type = t, device_type

            def __dlpack__(self, stream=None):
                from tile._args import _DLTensor
                shape = (ctypes.c_int64 * 2)(*self.t.shape)

                class Managed(ctypes.Structure):
                    _fields_ = [("t", _DLTensor), ("ctx", ctypes.c_void_p),
                                ("deleter", ctypes.c_void_p)]
                managed = Managed()
                managed.t.data = ctypes.addressof(self.t.buf)
                managed.t.device.device_type = self.device_type
                managed.t.ndim = 2
                managed.t.dtype.code, managed.t.dtype.bits = 2, 16
                managed.t.dtype.lanes = 1
                managed.t.shape = shape
                keep.extend([shape, managed])
                new = ctypes.pythonapi.PyCapsule_New
                new.restype = ctypes.py_object
                new.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                ctypes.c_void_p]
                return new(ctypes.addressof(managed), b"dltensor", None)

        kernel(DLPackTensor(a), DLPackTensor(b), DLPackTensor(c))
        self.assert_close(c, reference(a, b, 4, 6, 8))
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg0' is a DLPack tensor on "
                                    r"device type 1, expected CUDA"):
            kernel(DLPackTensor(a, device_type=1), b, c)


class ReuseTest(Fixture):
    """The runtime reuses a launch's variant, packing and tensor maps when
    the next launch's arguments are the same; whatever changes must take
    effect, and every check must still run."""

    def test_changed_arguments_take_effect(self):
        kernel = tile.load(self.path("gemm.manifest"))
        # M = 100: the variant with a tensor map.
        a, b, c = self.gemm_args(100, 4, 64)
        kernel(a, b, c)
        self.assert_close(c, reference(a, b, 100, 4, 64))
        encoded = FAKE.fakeCudaTensorMapEncodes()
        c.poison()
        kernel(a, b, c)
        self.assertEqual(FAKE.fakeCudaTensorMapEncodes(), encoded,
                         "same arguments, but the map was encoded again")
        self.assert_close(c, reference(a, b, 100, 4, 64))
        # A new output: the old one keeps its poison.
        c2 = FakeTensor((100, 4))
        c2.poison()
        c.poison()
        kernel(a, b, c2)
        self.assert_close(c2, reference(a, b, 100, 4, 64))
        self.assertEqual(bytes(c.buf), b"\xff" * len(c.buf))
        # The same object pointing at other memory: a fresh map for A.
        a2 = FakeTensor((100, 64))
        a2.set_f16(random_f16(100 * 64, self.rng))
        a.__cuda_array_interface__ = a2.__cuda_array_interface__
        encoded = FAKE.fakeCudaTensorMapEncodes()
        kernel(a, b, c2)
        self.assertEqual(FAKE.fakeCudaTensorMapEncodes(), encoded + 1)
        self.assert_close(c2, reference(a2, b, 100, 4, 64))
        # New sizes pick the variant again.
        a3, b3, c3 = self.gemm_args(16, 4, 64)
        kernel(a3, b3, c3)
        self.assertEqual(last_launch()["block"], (64, 1, 1))
        self.assert_close(c3, reference(a3, b3, 16, 4, 64))

    def test_changed_scalar_takes_effect(self):
        kernel = tile.load(self.path("static.manifest"))
        a, b, c = (FakeTensor((16,), "<f4", itemsize=4) for _ in range(3))
        struct.pack_into("<16f", a.buf, 0, *range(16))
        struct.pack_into("<16f", b.buf, 0, *([0.5] * 16))
        for n in (16, 16, 8, 8, 16):
            c.poison()
            kernel(a, b, c, n)
            got = struct.unpack_from("<16f", c.buf, 0)
            self.assertEqual(got[:n], tuple(x + 0.5 for x in range(n)))
            self.assertTrue(all(g != g for g in got[n:]),
                            "n = %d: elements past n were written" % n)

    def test_checks_after_a_launch(self):
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(8, 8, 8)
        kernel(a, b, c)
        count = last_launch()["count"]
        f32 = FakeTensor((8, 8), "<f4", itemsize=4)
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg1' has element type f32"):
            kernel(a, f32, c)
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg2' has rank 1"):
            kernel(a, b, FakeTensor((64,)))
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg0' is not contiguous"):
            kernel(FakeTensor((8, 8), strides=(2, 16)), b, c)
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"missing argument 'arg2'"):
            kernel(a, b)
        self.assertEqual(last_launch()["count"], count)
        c.poison()
        kernel(a, b, c)
        self.assertEqual(last_launch()["count"], count + 1)
        self.assert_close(c, reference(a, b, 8, 8, 8))


class FakeTorch(object):
    """The parts of torch the package reads, over FakeTensor buffers: a
    module object installed as sys.modules["torch"] for one test."""

    class dtype(object):
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return "torch." + self.name

    def __init__(self):
        import types
        torch = types.ModuleType("torch")
        torch.float16 = self.dtype("float16")
        torch.complex64 = self.dtype("complex64")
        streams = {"device": 0, "raw": {0: 0}}

        class Tensor(object):
            def __init__(self, fake, cuda=True, dtype=torch.float16,
                         strides=None):
                self.fake, self.is_cuda, self.dtype = fake, cuda, dtype
                self.device = "cuda:0" if cuda else "cpu"
                self.shape = fake.shape
                self._strides = strides

            def is_contiguous(self):
                return self._strides is None

            def stride(self):
                return self._strides

            def data_ptr(self):
                return ctypes.addressof(self.fake.buf)

        class _C(object):
            @staticmethod
            def _cuda_getDevice():
                return streams["device"]

            @staticmethod
            def _cuda_getCurrentRawStream(device):
                return streams["raw"][device]

        class cuda(object):
            @staticmethod
            def is_available():
                return True

            @staticmethod
            def current_device():
                return streams["device"]

        torch.Tensor, torch._C, torch.cuda = Tensor, _C, cuda
        self.module, self.streams = torch, streams


class TorchFixture(Fixture):
    """A Fixture with the stand-in torch module installed as `torch` (and
    the package's cached stream accessor cleared) for each test."""

    def setUp(self):
        Fixture.setUp(self)
        self.saved = sys.modules.get("torch")
        self.fake = FakeTorch()
        sys.modules["torch"] = self.fake.module
        tile._args._current_stream = None

    def tearDown(self):
        if self.saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = self.saved
        tile._args._current_stream = None


class TorchTest(TorchFixture):
    """Torch tensors, read directly (a stand-in torch module: the package
    needs no torch to be tested)."""

    def test_launch_on_current_stream(self):
        torch = self.fake.module
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(8, 4, 16)
        ta, tb, tc = (torch.Tensor(t) for t in (a, b, c))
        self.fake.streams["raw"] = {0: 0x70, 1: 0x71}
        kernel(ta, tb, tc)
        self.assertEqual(last_launch()["stream"], 0x70)
        self.assert_close(c, reference(a, b, 8, 4, 16))
        # The current device's current stream, read at each call.
        self.fake.streams["device"] = 1
        c.poison()
        kernel(ta, tb, tc)
        self.assertEqual(last_launch()["stream"], 0x71)
        self.assert_close(c, reference(a, b, 8, 4, 16))
        kernel(ta, tb, tc, stream=5)
        self.assertEqual(last_launch()["stream"], 5)

        # A subclass takes the general path, to the same effect.
        class Parameter(torch.Tensor):
            pass
        c.poison()
        kernel(Parameter(a), tb, tc)
        self.assertEqual(last_launch()["stream"], 0x71)
        self.assert_close(c, reference(a, b, 8, 4, 16))

    def test_errors(self):
        torch = self.fake.module
        kernel = tile.load(self.path("gemm.manifest"))
        a, b, c = self.gemm_args(8, 8, 8)
        ta, tb, tc = (torch.Tensor(t) for t in (a, b, c))
        before = last_launch()["count"]
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg0' is a torch tensor on "
                                    r"cpu, expected a CUDA tensor"):
            kernel(torch.Tensor(a, cuda=False), tb, tc)
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg1' has torch dtype "
                                    r"torch.complex64, which the runtime "
                                    r"does not know"):
            kernel(ta, torch.Tensor(b, dtype=torch.complex64), tc)
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg2' is not contiguous "
                                    r"row-major \(strides \[1, 8\] in "
                                    r"elements for shape \[8, 8\]\)"):
            kernel(ta, tb, torch.Tensor(c, strides=(1, 8)))
        with self.assertRaisesRegex(tile.ArgumentError,
                                    r"argument 'arg2' has rank 1 \(shape "
                                    r"\[64\]\), expected 2"):
            kernel(ta, tb, torch.Tensor(FakeTensor((64,))))
        self.assertEqual(last_launch()["count"], before)
        # Strides that torch calls non-contiguous but are row-major where
        # it matters (a dimension of size 1) are accepted.
        a1, b1, c1 = self.gemm_args(1, 8, 8)
        kernel(torch.Tensor(a1, strides=(99, 1)), torch.Tensor(b1),
               torch.Tensor(c1))
        self.assert_close(c1, reference(a1, b1, 1, 8, 8))


class ViewTest(TorchFixture):
    """A variant that takes a transposed view of an argument: the runtime
    binds it, so a launch from Python passes the tensors as they are."""

    def tn_args(self, m, n, k, strides=None):
        torch = self.fake.module
        a, b, c = FakeTensor((k, m)), FakeTensor((k, n)), FakeTensor((m, n))
        a.set_f16(random_f16(k * m, self.rng))
        b.set_f16(random_f16(k * n, self.rng))
        c.poison()
        tensors = (torch.Tensor(a, strides=strides), torch.Tensor(b),
                   torch.Tensor(c))
        return (a, b, c), tensors

    def test_transposed_view(self):
        kernel = tile.load(self.path("tn-dispatch.manifest"))
        # (M, N, K, strides of A) -> the variant, the kernel and the sizes
        # the kernel received for A. (1, 16) strides: a 1 x 16 row
        # transposed by torch, which is row-major where it matters.
        cases = [((1, 5, 16, None), "nn.manifest", "gemm_f16", (1, 16)),
                 ((1, 5, 16, (1, 16)), "nn.manifest", "gemm_f16", (1, 16)),
                 ((3, 5, 16, None), "tn.manifest", "gemm_tn_f16", (16, 3))]
        for (m, n, k, strides), chosen, name, sizes in cases:
            with self.subTest(shape=(m, n, k), strides=strides):
                (a, b, c), tensors = self.tn_args(m, n, k, strides)
                path, why = kernel.select(*tensors)
                self.assertEqual(os.path.basename(path), chosen)
                if chosen == "nn.manifest":
                    self.assertEqual(why, [
                        "variant %s: when arg2.dim0 == 1, view transpose "
                        "arg0 (16x1 as 1x16)" % path])
                kernel(*tensors)
                self.assertEqual(last_launch()["kernel"], name)
                address, got, _ = last_descriptor(0)
                self.assertEqual(address, tensors[0].data_ptr())
                self.assertEqual(got, sizes)
                self.assert_close(c, reference_tn(a, b, m, n, k))
        # __cuda_array_interface__ tensors go the same way.
        (a, b, c), _ = self.tn_args(1, 7, 32)
        kernel(a, b, c)
        self.assertEqual(last_descriptor(0)[1], (1, 32))
        self.assert_close(c, reference_tn(a, b, 1, 7, 32))


class HostTest(Fixture):
    def test_select_without_loading(self):
        kernel = tile.load(self.path("gemm.manifest"), host=True)
        a, b, c = self.gemm_args(2000, 4, 64)
        path, why = kernel.select(a, b, c)
        self.assertEqual(os.path.basename(path), "big.manifest")
        self.assertEqual(why, ["variant %s: no rule" % path])
        before = last_launch()["count"]
        with self.assertRaisesRegex(tile.TileError, r"big.manifest was "
                                    r"loaded without the driver and cannot "
                                    r"launch"):
            kernel(a, b, c)
        self.assertEqual(last_launch()["count"], before)


class ErrorTest(Fixture):
    def setUp(self):
        Fixture.setUp(self)
        self.kernel = tile.load(self.path("gemm.manifest"))
        self.a, self.b, self.c = self.gemm_args(8, 8, 8)

    def expect(self, pattern, *args, **kwargs):
        before = last_launch()["count"]
        with self.assertRaisesRegex(tile.ArgumentError, pattern):
            self.kernel(*args, **kwargs)
        self.assertEqual(last_launch()["count"], before, "launched anyway")

    def test_dtype(self):
        f32 = FakeTensor((8, 8), "<f4", itemsize=4)
        self.expect(r"argument 'arg1' has element type f32, expected f16 "
                    r"\(memref<\?x\?xf16>\)", self.a, f32, self.c)
        odd = FakeTensor((8, 8), "<c8")
        self.expect(r"argument 'arg1' has __cuda_array_interface__ typestr "
                    r"'<c8'", self.a, odd, self.c)

    def test_rank(self):
        flat = FakeTensor((64,))
        self.expect(r"argument 'arg2' has rank 1 \(shape \[64\]\), expected "
                    r"2", self.a, self.b, flat)

    def test_layout(self):
        # A transposed view: element strides (1, 8).
        t = FakeTensor((8, 8), strides=(2, 16))
        self.expect(r"argument 'arg0' is not contiguous row-major \(strides "
                    r"\[1, 8\] in elements for shape \[8, 8\]\)",
                    t, self.b, self.c)

    def test_empty_any_strides(self):
        # A tensor without elements (an empty slice, as an optional output
        # with a dimension of 0) is contiguous whatever its strides.
        a0 = FakeTensor((8, 0), strides=(998, 6))
        b0 = FakeTensor((0, 8), strides=(4, 1234))
        before = last_launch()["count"]
        self.kernel(a0, b0, self.c)
        self.assertEqual(last_launch()["count"], before + 1)
        self.assertTrue(tile._args.is_row_major((2, 3, 0), (15, 5, 1)))
        self.assertFalse(tile._args.is_row_major((2, 3, 1), (15, 5, 1)))

    def test_binding(self):
        self.expect(r"missing argument 'arg2' \(memref<\?x\?xf16>\)",
                    self.a, self.b)
        self.expect(r"takes 3 arguments \(arg0, arg1, arg2\), got 4",
                    self.a, self.b, self.c, self.c)
        self.expect(r"has no parameter 'D'", self.a, self.b, self.c,
                    D=self.c)
        self.expect(r"argument 'arg0' given twice", self.a, self.b, self.c,
                    arg0=self.a)
        self.expect(r"argument 'arg0' is a list, expected a CUDA tensor",
                    [1.0], self.b, self.c)

    def test_runtime_errors(self):
        kernel = tile.load(self.path("nocatch.manifest"))
        a, b, c = self.gemm_args(100, 2, 8)
        with self.assertRaisesRegex(
                tile.TileError, r"no variant of .*nocatch.manifest fits the "
                r"arguments: variant .*small.manifest: rule "
                r"'arg2.dim0 <= 64' does not hold"):
            kernel(a, b, c)
        with self.assertRaisesRegex(tile.TileError,
                                    r"cannot open manifest '.*missing'"):
            tile.load(self.path("missing"))


STUB = """#!{python}
# A stand-in tile-compile: counts its runs, writes one manifest, fails on
# -DFAIL=1.
import os, sys
args = sys.argv[1:]
with open({count!r}, "a") as f:
    f.write(" ".join(args) + "\\n")
if "-DFAIL=1" in args:
    sys.stderr.write("k.mlir:3:1: error: bad parameter\\n")
    sys.exit(1)
out = args[args.index("-o") + 1]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "k.ptx"), "w") as f:
    f.write(".visible .entry vadd_f32() {{ ret; }}\\n")
with open(os.path.join(out, "vadd_f32.manifest"), "w") as f:
    f.write("tile-launch-manifest 1\\nkernel vadd_f32\\nbinary k.ptx ptx\\n"
            "param A memref<?xf32> bare\\nblock 32\\ngrid x 1\\n")
"""


class CompileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tile-python-compile.")
        self.count = os.path.join(self.dir, "runs")
        stub = os.path.join(self.dir, "tile-compile")
        with open(stub, "w") as f:
            f.write(STUB.format(python=sys.executable, count=self.count))
        os.chmod(stub, os.stat(stub).st_mode | stat.S_IEXEC)
        self.kernel = os.path.join(self.dir, "k.mlir")
        with open(self.kernel, "w") as f:
            f.write("// tile.params: BM=64\n")
        self.env = {"TILE_COMPILE": stub,
                    "TILE_CACHE_DIR": os.path.join(self.dir, "cache")}
        self.saved = dict((k, os.environ.get(k)) for k in self.env)
        os.environ.update(self.env)

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def runs(self):
        with open(self.count) as f:
            return f.read().splitlines()

    def test_cache(self):
        k = tile.compile(self.kernel, chip="sm_80", BM=128)
        self.assertEqual([p.name for p in k.arguments], ["A"])
        self.assertEqual(len(self.runs()), 1)
        self.assertIn("--chip sm_80", self.runs()[0])
        self.assertIn("-DBM=128", self.runs()[0])
        tile.compile(self.kernel, chip="sm_80", BM=128)
        self.assertEqual(len(self.runs()), 1, "not served from the cache")
        tile.compile(self.kernel, chip="sm_80", BM=64)
        tile.compile(self.kernel, chip="sm_90a", BM=64)
        self.assertEqual(len(self.runs()), 3)
        with open(self.kernel, "a") as f:
            f.write("// edited\n")
        tile.compile(self.kernel, chip="sm_90a", BM=64)
        self.assertEqual(len(self.runs()), 4)

    def test_dispatch_cache_follows_via_files(self):
        # A table's via= entries build other kernel files next to the
        # kernel: editing one of those builds again, editing another file
        # does not.
        table = os.path.join(self.dir, "table.txt")
        with open(table, "w") as f:
            f.write("k 1x* : via=other(transpose(arg0), arg1) BM=64\n"
                    "k *x* : BM=128\n")
        other = os.path.join(self.dir, "other.mlir")
        unrelated = os.path.join(self.dir, "unrelated.mlir")
        for name in (other, unrelated):
            with open(name, "w") as f:
                f.write("// tile.params: BM=64\n")
        tile.compile(self.kernel, dispatch=table)
        tile.compile(self.kernel, dispatch=table)
        self.assertEqual(len(self.runs()), 1)
        with open(unrelated, "a") as f:
            f.write("// edited\n")
        tile.compile(self.kernel, dispatch=table)
        self.assertEqual(len(self.runs()), 1)
        with open(other, "a") as f:
            f.write("// edited\n")
        tile.compile(self.kernel, dispatch=table)
        self.assertEqual(len(self.runs()), 2)

    def test_failure(self):
        with self.assertRaisesRegex(tile.TileError,
                                    r"failed \(exit 1\):\nk.mlir:3:1: error: "
                                    r"bad parameter"):
            tile.compile(self.kernel, FAIL=1)
        # Nothing half-built is left to be served later.
        self.assertEqual(
            [d for d in os.listdir(self.env["TILE_CACHE_DIR"])], [])


if __name__ == "__main__":
    unittest.main()
