"""Row-major matrices in device memory for the GPU integration tests that
launch from Python: allocated, filled, poisoned and read back through the C
runtime (python/tile's library), exposed to kernels through
__cuda_array_interface__. No torch."""

import ctypes
import struct

from tile import _runtime

L = _runtime.lib()
u64 = ctypes.c_uint64
L.tileRtMalloc.argtypes = [ctypes.c_size_t, ctypes.POINTER(u64)]
L.tileRtMemcpyHtoD.argtypes = [u64, ctypes.c_void_p, ctypes.c_size_t]
L.tileRtMemcpyDtoH.argtypes = [ctypes.c_void_p, u64, ctypes.c_size_t]
L.tileRtMemset8.argtypes = [u64, ctypes.c_ubyte, ctypes.c_size_t]
L.tileRtFree.argtypes = [u64]

# struct format -> (bytes, __cuda_array_interface__ typestr)
FORMATS = {"e": (2, "<f2"), "f": (4, "<f4"), "i": (4, "<i4")}


def check(status):
    if status != 0:
        raise SystemExit("runtime: " + _runtime.error_string())


class DeviceMatrix(object):
    """A row-major rows x cols matrix of f16 (`fmt` 'e'), f32 ('f') or int32
    ('i') in device memory; free() releases it."""

    def __init__(self, rows, cols, fmt="e"):
        size, typestr = FORMATS[fmt]
        self.rows, self.cols, self.fmt = rows, cols, fmt
        self.bytes = max(size, size * rows * cols)
        self.ptr = u64()
        check(L.tileRtMalloc(self.bytes, ctypes.byref(self.ptr)))
        self.__cuda_array_interface__ = {
            "shape": (rows, cols), "typestr": typestr,
            "data": (self.ptr.value, False), "version": 3, "strides": None,
            "stream": None}

    def upload(self, values):
        buf = struct.pack("<%d%s" % (len(values), self.fmt), *values)
        check(L.tileRtMemcpyHtoD(self.ptr.value, buf, len(buf)))

    def download(self):
        buf = ctypes.create_string_buffer(self.bytes)
        check(L.tileRtMemcpyDtoH(buf, self.ptr.value, self.bytes))
        return struct.unpack_from("<%d%s" % (self.rows * self.cols, self.fmt),
                                  buf.raw)

    def download_bytes(self):
        """The matrix's bytes as they are in device memory."""
        buf = ctypes.create_string_buffer(self.bytes)
        check(L.tileRtMemcpyDtoH(buf, self.ptr.value, self.bytes))
        return buf.raw

    def upload_periodic(self, pattern):
        """Fills the matrix with `pattern` (values) repeated from the first
        element on, in one copy: element i holds pattern[i % len(pattern)]."""
        one = struct.pack("<%d%s" % (len(pattern), self.fmt), *pattern)
        count = self.rows * self.cols
        buf = (one * (count // len(pattern) + 1))[:self.bytes]
        check(L.tileRtMemcpyHtoD(self.ptr.value, buf, len(buf)))

    def poison(self):
        """Fills the matrix with 0xff bytes (NaN as f16 and f32)."""
        check(L.tileRtMemset8(self.ptr.value, 0xff, self.bytes))

    def free(self):
        L.tileRtFree(self.ptr.value)
