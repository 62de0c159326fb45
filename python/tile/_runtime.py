"""ctypes bindings of libtile_runtime, the C runtime of tile.

Only the entry points the package needs are declared, with their argument
and result types, so that a mismatch fails loudly in ctypes rather than
corrupting memory. The library is found through the environment variable
TILE_RUNTIME_LIB (a path), then beside this package (``tile/lib``), then on
the system's library path.
"""

import ctypes
import ctypes.util
import os

# Mirrors of runtime/include/tile-runtime/Runtime.h.
MAX_RANK = 8
MAX_PARAMS = 64
SUCCESS = 0


class ArgValue(ctypes.Structure):
    """tileRtArgValue: the run-time value of one manifest parameter."""

    _fields_ = [
        ("ptr", ctypes.c_uint64),
        ("sizes", ctypes.c_int64 * MAX_RANK),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
    ]


ArgArray = ArgValue * MAX_PARAMS


class LibraryNotFound(OSError):
    """libtile_runtime could not be located or loaded."""


def _candidates():
    env = os.environ.get("TILE_RUNTIME_LIB")
    if env:
        yield env
        return
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    yield os.path.join(here, "libtile_runtime.so")
    found = ctypes.util.find_library("tile_runtime")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise LibraryNotFound(
        "cannot load libtile_runtime: tried %s; build it with "
        "runtime/build-standalone.sh OUTDIR and set TILE_RUNTIME_LIB to "
        "OUTDIR/lib/libtile_runtime.so" % ("; ".join(tried) or "nothing"))


_lib = None


def lib():
    """Returns the loaded library with its prototypes declared."""
    global _lib
    if _lib is not None:
        return _lib
    L = _load()
    p, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p

    def proto(name, restype, *argtypes):
        fn = getattr(L, name)
        fn.restype = restype
        fn.argtypes = list(argtypes)

    proto("tileRtErrorString", c_char_p)
    proto("tileRtInit", c_int, c_int)
    proto("tileRtDeviceInfo", c_int, c_char_p, ctypes.c_size_t,
          ctypes.POINTER(c_int), ctypes.POINTER(c_int))
    proto("tileRtSynchronize", c_int)
    proto("tileRtKernelLoadFile", c_int, c_char_p, ctypes.POINTER(p))
    proto("tileRtKernelLoadFileHost", c_int, c_char_p, ctypes.POINTER(p))
    proto("tileRtKernelDestroy", None, p)
    proto("tileRtKernelGetManifest", p, p)
    proto("tileRtManifestNumParams", c_int, p)
    proto("tileRtManifestPath", c_char_p, p)
    proto("tileRtManifestParamText", c_int, p, c_int, c_char_p,
          ctypes.c_size_t)
    proto("tileRtKernelSelect", c_int, p, ctypes.POINTER(ArgValue),
          ctypes.POINTER(p), ctypes.POINTER(ArgValue), c_char_p,
          ctypes.c_size_t)
    proto("tileRtKernelLaunchOnStream", c_int, p, ctypes.POINTER(ArgValue),
          p)
    _lib = L
    return L


def launch_function():
    """tileRtKernelLaunchOnStream with every argument a plain address (an
    int or None: the kernel, the ArgArray's address, the stream): converted
    faster than the typed prototype at each launch. A separate function
    object, so lib()'s typed prototype stays as declared."""
    fn = lib()["tileRtKernelLaunchOnStream"]
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return fn


def error_string():
    return lib().tileRtErrorString().decode("utf-8", "replace")
