"""Tests of the package's C launch path (tile/_launch.c) against the
runtime and the stand-in driver, as test_tile.py (whose fixtures these
reuse). Calls the extension takes as they are must launch without the
binding in Python (Launcher._python_calls stays put); every other call,
and every error, is handed to it and must fail exactly as without the
extension.

Skipped where the extension is not built, unless TILE_EXPECT_EXTENSION=1
(as the lit test that runs the build tree's package sets), which makes its
absence a failure.
"""

import ctypes
import os
import struct
import unittest

import tile
from test_tile import (FakeTensor, FakeTorch, Fixture, TorchFixture,
                       last_launch, reference)

EXPECTED = os.environ.get("TILE_EXPECT_EXTENSION") == "1"


class PathTest(unittest.TestCase):
    def test_launch_path(self):
        if EXPECTED:
            self.assertEqual(tile.launch_path, "extension",
                             tile.launch_path_reason())
        if tile.launch_path == "extension":
            self.assertIsNone(tile.launch_path_reason())
            self.assertTrue(issubclass(tile.Kernel, tile._ext.Launcher))
        else:
            self.assertTrue(tile.launch_path_reason())


@unittest.skipUnless(EXPECTED or tile.launch_path == "extension",
                     "the C extension tile._launch is not built")
class ExtensionTest(Fixture):
    def setUp(self):
        Fixture.setUp(self)
        self.kernel = tile.load(self.path("gemm.manifest"))

    def assert_fast(self, kernel, *args, **kwargs):
        """Launches; checks that the extension did not hand the call to
        Python."""
        before = kernel._python_calls
        count = last_launch()["count"]
        kernel(*args, **kwargs)
        self.assertEqual(kernel._python_calls, before,
                         "the call went through Python")
        self.assertEqual(last_launch()["count"], count + 1)

    def assert_same_error(self, kernel, error, pattern, *args, **kwargs):
        """The extension hands the call to Python, which raises `error`
        matching `pattern`, as the binding in Python does alone; nothing is
        launched."""
        before = kernel._python_calls
        count = last_launch()["count"]
        with self.assertRaisesRegex(error, pattern) as ext:
            kernel(*args, **kwargs)
        self.assertEqual(kernel._python_calls, before + 1)
        with self.assertRaises(error) as python:
            kernel._launch_python(*args, **kwargs)
        self.assertEqual(str(ext.exception), str(python.exception))
        self.assertEqual(type(ext.exception), type(python.exception))
        self.assertEqual(last_launch()["count"], count, "launched anyway")

    def test_cuda_array_interface(self):
        for m, n, k, block in ((16, 5, 64, 64), (100, 3, 64, 128),
                               (100, 3, 77, 256), (1100, 2, 8, 256)):
            with self.subTest(shape=(m, n, k)):
                a, b, c = self.gemm_args(m, n, k, stream=7)
                self.assert_fast(self.kernel, a, b, c)
                launch = last_launch()
                self.assertEqual(launch["block"], (block, 1, 1))
                self.assertEqual(launch["stream"], 7)
                self.assert_close(c, reference(a, b, m, n, k))
                # Again on the same tensors (the runtime reuses its
                # preparation), with the output poisoned.
                c.poison()
                self.assert_fast(self.kernel, a, b, c)
                self.assert_close(c, reference(a, b, m, n, k))

    def test_strides_and_views(self):
        # Row-major byte strides given explicitly, and a size-1 dimension
        # with any stride, are contiguous row-major.
        a, b, c = self.gemm_args(1, 8, 8)
        a2 = FakeTensor((1, 8), strides=(999, 2))
        a2.buf = a.buf
        a2.__cuda_array_interface__["data"] = (ctypes.addressof(a.buf),
                                               False)
        b2 = FakeTensor((8, 8), strides=(16, 2))
        b2.buf = b.buf
        b2.__cuda_array_interface__["data"] = (ctypes.addressof(b.buf),
                                               False)
        self.assert_fast(self.kernel, a2, b2, c)
        self.assert_close(c, reference(a, b, 1, 8, 8))

    def test_empty_any_strides(self):
        # Without elements any strides are contiguous, as in Python.
        a, b, c = self.gemm_args(8, 8, 8)
        self.assert_fast(self.kernel, FakeTensor((8, 0), strides=(998, 6)),
                         FakeTensor((0, 8), strides=(4, 1234)), c)

    def test_streams(self):
        a, b, c = self.gemm_args(8, 8, 8)
        self.assert_fast(self.kernel, a, b, c)
        self.assertEqual(last_launch()["stream"], 0)
        self.assert_fast(self.kernel, a, b, c, stream=9)
        self.assertEqual(last_launch()["stream"], 9)
        self.assert_fast(self.kernel, a, b, c, stream=None)
        self.assertEqual(last_launch()["stream"], 0)

        class Stream(object):
            cuda_stream = 11
        self.assert_fast(self.kernel, a, b, c, stream=Stream())
        self.assertEqual(last_launch()["stream"], 11)

    def test_scalars(self):
        kernel = tile.load(self.path("static.manifest"))
        a, b, c = (FakeTensor((16,), "<f4", itemsize=4) for _ in range(3))
        struct.pack_into("<16f", a.buf, 0, *range(16))
        struct.pack_into("<16f", b.buf, 0, *([0.5] * 16))
        for n in (16, 8, 16):
            c.poison()
            self.assert_fast(kernel, a, b, c, n)
            got = struct.unpack_from("<16f", c.buf, 0)
            self.assertEqual(got[:n], tuple(x + 0.5 for x in range(n)))
            self.assertTrue(all(g != g for g in got[n:]))
        self.assert_same_error(kernel, tile.ArgumentError,
                               r"argument 'n': expected an integer for "
                               r"i32, got 1.5", a, b, c, 1.5)
        self.assert_same_error(kernel, tile.ArgumentError,
                               r"argument 'B' has size 17 in dimension 0, "
                               r"expected 16 \(memref<16xf32>\)", a,
                               FakeTensor((17,), "<f4", itemsize=4), c, 16)
        # Out of the i32 range: the runtime's error, from C.
        before = kernel._python_calls
        with self.assertRaisesRegex(tile.TileError,
                                    r"n: 4294967296 is out of range for "
                                    r"i32"):
            kernel(a, b, c, 1 << 32)
        self.assertEqual(kernel._python_calls, before)
        # bool is an int, taken by Python.
        kernel(a, b, c, True)
        self.assertEqual(kernel._python_calls, before + 1)

    def test_errors(self):
        a, b, c = self.a, self.b, self.c = self.gemm_args(8, 8, 8)
        self.assert_fast(self.kernel, a, b, c)
        E = tile.ArgumentError
        self.assert_same_error(
            self.kernel, E, r"argument 'arg1' has element type f32, expected "
            r"f16 \(memref<\?x\?xf16>\)", a,
            FakeTensor((8, 8), "<f4", itemsize=4), c)
        self.assert_same_error(
            self.kernel, E, r"argument 'arg1' has __cuda_array_interface__ "
            r"typestr '<c8'", a, FakeTensor((8, 8), "<c8"), c)
        self.assert_same_error(
            self.kernel, E, r"argument 'arg2' has rank 1 \(shape \[64\]\), "
            r"expected 2", a, b, FakeTensor((64,)))
        self.assert_same_error(
            self.kernel, E, r"argument 'arg0' is not contiguous row-major "
            r"\(strides \[1, 8\] in elements for shape \[8, 8\]\)",
            FakeTensor((8, 8), strides=(2, 16)), b, c)
        self.assert_same_error(
            self.kernel, E, r"missing argument 'arg2' "
            r"\(memref<\?x\?xf16>\)", a, b)
        self.assert_same_error(
            self.kernel, E, r"takes 3 arguments \(arg0, arg1, arg2\), got 4",
            a, b, c, c)
        self.assert_same_error(self.kernel, E, r"has no parameter 'D'",
                               a, b, c, D=c)
        self.assert_same_error(self.kernel, E,
                               r"argument 'arg0' given twice", a, b, c,
                               arg0=a)
        self.assert_same_error(
            self.kernel, E, r"argument 'arg0' is a list, expected a CUDA "
            r"tensor", [1.0], b, c)
        masked = FakeTensor((8, 8))
        masked.__cuda_array_interface__["mask"] = object()
        self.assert_same_error(self.kernel, E, r"argument 'arg0' has a "
                               r"mask", masked, b, c)
        # Still launching, with the right values, after the errors.
        c.poison()
        self.assert_fast(self.kernel, a, b, c)
        self.assert_close(c, reference(a, b, 8, 8, 8))

    def test_keywords_go_through_python(self):
        a, b, c = self.gemm_args(4, 4, 8)
        before = self.kernel._python_calls
        self.kernel(a, arg2=c, arg1=b)
        self.assertEqual(self.kernel._python_calls, before + 1)
        self.assert_close(c, reference(a, b, 4, 4, 8))
        c.poison()
        self.kernel.launch(a, b, c)
        self.assertEqual(self.kernel._python_calls, before + 1)
        self.assert_close(c, reference(a, b, 4, 4, 8))

    def test_runtime_error(self):
        kernel = tile.load(self.path("nocatch.manifest"))
        a, b, c = self.gemm_args(100, 2, 8)
        before = kernel._python_calls
        with self.assertRaisesRegex(
                tile.TileError, r"no variant of .*nocatch.manifest fits the "
                r"arguments: variant .*small.manifest: rule "
                r"'arg2.dim0 <= 64' does not hold"):
            kernel(a, b, c)
        self.assertEqual(kernel._python_calls, before)

    def test_host_kernel(self):
        kernel = tile.load(self.path("gemm.manifest"), host=True)
        a, b, c = self.gemm_args(2000, 4, 64)
        with self.assertRaisesRegex(tile.TileError, r"big.manifest was "
                                    r"loaded without the driver"):
            kernel(a, b, c)

    def test_layout_checked(self):
        with self.assertRaisesRegex(ValueError, "layout differs"):
            self.kernel._setup(1, 1, 1, 1, (8, 8, 72, 80), [],
                               (None, None, None, None))
        # A kernel whose launcher cannot be set up launches through Python.
        def refuse(*args):
            raise ValueError("tileRtArgValue layout differs")
        saved = tile.Kernel._setup
        tile.Kernel._setup = refuse
        try:
            kernel = tile.load(self.path("gemm.manifest"))
        finally:
            tile.Kernel._setup = saved
        a, b, c = self.gemm_args(8, 8, 8)
        kernel(a, b, c)
        self.assertEqual(kernel._python_calls, 1)
        self.assert_close(c, reference(a, b, 8, 8, 8))


@unittest.skipUnless(EXPECTED or tile.launch_path == "extension",
                     "the C extension tile._launch is not built")
class ExtensionTorchTest(TorchFixture):
    """Torch tensors read by the extension (the stand-in torch module of
    test_tile.py)."""

    def setUp(self):
        TorchFixture.setUp(self)
        self.kernel = tile.load(self.path("gemm.manifest"))

    def test_launch(self):
        torch = self.fake.module
        a, b, c = self.gemm_args(8, 4, 16)
        ta, tb, tc = (torch.Tensor(t) for t in (a, b, c))
        self.fake.streams["raw"] = {0: 0x70, 1: 0x71}
        before = self.kernel._python_calls
        self.kernel(ta, tb, tc)
        self.assertEqual(self.kernel._python_calls, before)
        self.assertEqual(last_launch()["stream"], 0x70)
        self.assert_close(c, reference(a, b, 8, 4, 16))
        self.fake.streams["device"] = 1
        c.poison()
        self.kernel(ta, tb, tc)
        self.assertEqual(last_launch()["stream"], 0x71)
        self.assert_close(c, reference(a, b, 8, 4, 16))
        self.kernel(ta, tb, tc, stream=5)
        self.assertEqual(last_launch()["stream"], 5)
        self.assertEqual(self.kernel._python_calls, before)
        # A torch tensor beside a __cuda_array_interface__ one: torch's
        # stream.
        self.kernel(ta, b, tc)
        self.assertEqual(last_launch()["stream"], 0x71)
        self.assertEqual(self.kernel._python_calls, before)

        # Subclasses go through Python, to the same effect.
        class Parameter(torch.Tensor):
            pass
        c.poison()
        self.kernel(Parameter(a), tb, tc)
        self.assertEqual(self.kernel._python_calls, before + 1)
        self.assert_close(c, reference(a, b, 8, 4, 16))

    def test_errors(self):
        torch = self.fake.module
        a, b, c = self.gemm_args(8, 8, 8)
        ta, tb, tc = (torch.Tensor(t) for t in (a, b, c))
        E = tile.ArgumentError
        ExtensionTest.assert_same_error(
            self, self.kernel, E, r"argument 'arg0' is a torch tensor on "
            r"cpu, expected a CUDA tensor", torch.Tensor(a, cuda=False), tb,
            tc)
        ExtensionTest.assert_same_error(
            self, self.kernel, E, r"argument 'arg1' has torch dtype "
            r"torch.complex64, which the runtime does not know", ta,
            torch.Tensor(b, dtype=torch.complex64), tc)
        ExtensionTest.assert_same_error(
            self, self.kernel, E, r"argument 'arg2' is not contiguous "
            r"row-major \(strides \[1, 8\] in elements for shape \[8, 8\]\)",
            ta, tb, torch.Tensor(c, strides=(1, 8)))
        ExtensionTest.assert_same_error(
            self, self.kernel, E, r"argument 'arg2' has rank 1 \(shape "
            r"\[64\]\), expected 2", ta, tb, torch.Tensor(FakeTensor((64,))))
        # A dtype the runtime knows but the kernel does not take.
        torch.float32 = FakeTorch.dtype("float32")
        f32 = FakeTensor((8, 8), "<f4", itemsize=4)
        ExtensionTest.assert_same_error(
            self, self.kernel, E, r"argument 'arg0' has element type f32, "
            r"expected f16", torch.Tensor(f32, dtype=torch.float32), tb, tc)
        # Row-major where it matters (a dimension of size 1): accepted, by
        # Python, as without the extension.
        a1, b1, c1 = self.gemm_args(1, 8, 8)
        self.kernel(torch.Tensor(a1, strides=(99, 1)), torch.Tensor(b1),
                    torch.Tensor(c1))
        self.assert_close(c1, reference(a1, b1, 1, 8, 8))


if __name__ == "__main__":
    unittest.main()
