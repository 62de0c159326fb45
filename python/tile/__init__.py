"""tile: launch kernels compiled by tile-compile from Python.

    import tile
    gemm = tile.load("build/kernels/gemm_nn_kernel.manifest")
    gemm(A, B, C)

``load`` reads a launch manifest (docs/Runtime.md) through the C runtime,
which loads the kernel binaries and, at each call, picks the variant the
manifest's rules choose for the arguments' sizes, encodes the tensor maps
and launches on the current CUDA stream. Arguments are torch tensors,
objects with ``__cuda_array_interface__`` or DLPack tensors (used in place,
never copied) and Python numbers for scalar parameters; their dtypes, ranks,
static sizes and layout are checked against the manifest first, and a
mismatch raises ArgumentError naming the parameter. ``compile`` runs
tile-compile with a cache.
"""

import ctypes
import os
import re
import sys

from . import _args, _runtime
from ._compile import compile, cache_dir  # noqa: F401

__all__ = ["load", "compile", "Kernel", "Param", "TileError",
           "ArgumentError", "cache_dir", "synchronize", "launch_path",
           "launch_path_reason"]

# The launch path in C (tile/_launch.c), built by `pip install` where
# Python's headers are; without it, or with TILE_NO_EXTENSION=1 in the
# environment, launches go through ctypes, to the same effect.
_ext = None
if os.environ.get("TILE_NO_EXTENSION", "") in ("", "0"):
    try:
        from . import _launch as _ext
    except ImportError as e:
        _ext_missing = "the C extension tile._launch is not built" if \
            not any(f.startswith("_launch.") and not f.endswith(".c")
                    for f in os.listdir(os.path.dirname(__file__))) else \
            "the C extension tile._launch cannot be loaded: %s" % e
    else:
        _ext_missing = None
else:
    _ext_missing = "TILE_NO_EXTENSION is set"

#: How calls launch: "extension" (tile._launch, in C) or "ctypes".
launch_path = "extension" if _ext is not None else "ctypes"


class TileError(RuntimeError):
    """A failure reported by the runtime; the message is the runtime's."""


class ArgumentError(TileError, ValueError):
    """An argument does not fit the kernel's parameters."""


class Param(object):
    """A parameter of a manifest: a memref (``shape`` with None for dynamic
    sizes), a scalar (``shape`` None) or a tensor map (``kind`` "tensormap",
    built by the runtime from its source memref, not passed)."""

    __slots__ = ("index", "name", "kind", "dtype", "shape", "static")

    def __init__(self, index, name, kind, dtype, shape):
        self.index, self.name, self.kind = index, name, kind
        self.dtype, self.shape = dtype, shape
        # Whether any size is static, to be checked at each call.
        self.static = bool(shape) and any(d is not None for d in shape)

    def type_text(self):
        if self.kind == "memref":
            dims = "".join(("?" if d is None else str(d)) + "x"
                           for d in self.shape)
            return "memref<%s%s>" % (dims, self.dtype)
        return self.dtype if self.kind == "scalar" else "tensormap"

    def __repr__(self):
        return "Param(%s: %s)" % (self.name, self.type_text())


_MEMREF = re.compile(r"memref<(.*)>$")

# How Kernel._bind reads each argument.
_MEMREF_ARG, _INT, _FLOAT = "memref", "int", "float"


def _parse_param(index, text):
    words = text.split()
    name, type_ = words[0], words[1]
    if type_ == "tensormap":
        return Param(index, name, "tensormap", None, None)
    m = _MEMREF.match(type_)
    if not m:
        return Param(index, name, "scalar", type_, None)
    parts = m.group(1).split("x")
    shape = tuple(None if d == "?" else int(d) for d in parts[:-1])
    return Param(index, name, "memref", parts[-1], shape)


def _check(status):
    if status != _runtime.SUCCESS:
        raise TileError(_runtime.error_string())


_initialized = {}


def _init(device):
    if device not in _initialized:
        _check(_runtime.lib().tileRtInit(device))
        _initialized[device] = True


def _default_device():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.current_device()
    return 0


def _stream_handle(stream):
    """A CUstream from an int, a torch.cuda.Stream or anything with
    ``cuda_stream`` / ``ptr`` / ``handle``."""
    if stream is None:
        return None
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            stream = getattr(stream, attr)
            break
    return int(stream) or None


def launch_path_reason():
    """Why calls launch through ctypes (None when through the extension)."""
    return _ext_missing


class Kernel(_ext.Launcher if _ext is not None else object):
    """A manifest loaded on the device, callable on tensors."""

    def __init__(self, path, device=None, host=False):
        self.path = str(path)
        self.host = host
        lib = _runtime.lib()
        handle = ctypes.c_void_p()
        if host:
            # Read, not loaded: select() works, calls fail. Needs no driver.
            self.device = None
            _check(lib.tileRtKernelLoadFileHost(self.path.encode(),
                                                ctypes.byref(handle)))
        else:
            self.device = _default_device() if device is None else device
            _init(self.device)
            _check(lib.tileRtKernelLoadFile(self.path.encode(),
                                            ctypes.byref(handle)))
        self._handle = handle
        self._lib = lib
        manifest = lib.tileRtKernelGetManifest(handle)
        buf = ctypes.create_string_buffer(1024)
        self.params = []
        for i in range(lib.tileRtManifestNumParams(manifest)):
            _check(lib.tileRtManifestParamText(manifest, i, buf, len(buf)))
            self.params.append(_parse_param(i, buf.value.decode()))
        # What the caller passes: every parameter but the tensor maps, in
        # the order of the compiled function's arguments where tile-compile
        # named them argJ, else in manifest order.
        passed = [p for p in self.params if p.kind != "tensormap"]
        if all(re.match(r"arg\d+$", p.name) for p in passed):
            passed.sort(key=lambda p: int(p.name[3:]))
        self.arguments = passed
        self._by_name = dict((p.name, p) for p in passed)
        self._values = _runtime.ArgArray()
        self._chosen = _runtime.ArgArray()
        # Views of each argument's slot in _values and of its sizes, made
        # once, with what a call checks against: a launch writes through
        # them without building anything per call.
        self._slots = [self._values[p.index] for p in passed]
        self._binding = []
        for p, v in zip(passed, self._slots):
            if p.kind == "scalar":
                kind = _FLOAT if p.dtype.startswith("f") or \
                    p.dtype == "bf16" else _INT
                self._binding.append((kind, p, v, None, None, None))
            else:
                self._binding.append((_MEMREF_ARG, p, v, v.sizes,
                                      len(p.shape), p.shape if p.static
                                      else None))
        # The launch call with plain addresses (_values lives as long as
        # self): the cheapest conversion ctypes makes.
        self._launch = _runtime.launch_function()
        self._launch_args = (handle.value, ctypes.addressof(self._values))
        if _ext is not None:
            self._setup_extension(passed)

    def _setup_extension(self, passed):
        """Hands the kernel, its argument array and what each argument is
        checked against to the C launch path (Launcher)."""
        specs = []
        for kind, p, _, _, _, _ in self._binding:
            if kind is _MEMREF_ARG:
                specs.append((0, p.index, p.dtype, p.shape,
                              _args.dtype_size(p.dtype)))
            else:
                specs.append((1 if kind is _INT else 2, p.index, p.dtype,
                              None, 0))
        V = _runtime.ArgValue
        layout = (ctypes.sizeof(V), V.sizes.offset, V.i.offset, V.f.offset)
        lib = self._lib
        address = ctypes.cast(lib.tileRtKernelLaunchOnStream,
                              ctypes.c_void_p).value
        error = ctypes.cast(lib.tileRtErrorString, ctypes.c_void_p).value
        try:
            self._setup(address, error, self._handle.value or 0,
                        ctypes.addressof(self._values), layout, specs,
                        (TileError, _args.torch_dtype_name,
                         _args.torch_stream, _stream_handle))
        except (TypeError, ValueError):
            # An extension built for another runtime: every call takes the
            # binding in Python.
            pass

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            if _ext is not None:
                self._detach()
            self._lib.tileRtKernelDestroy(handle)
            self._handle = None

    def __repr__(self):
        return "tile.Kernel(%r: %s)" % (self.path, ", ".join(
            "%s: %s" % (p.name, p.type_text()) for p in self.arguments))

    def _order(self, args, kwargs):
        """The objects bound to self.arguments, in order."""
        params = self.arguments
        if len(args) > len(params):
            raise ArgumentError("%s takes %d arguments (%s), got %d" % (
                self.path, len(params),
                ", ".join(p.name for p in params), len(args)))
        if not kwargs and len(args) == len(params):
            return args
        bound = dict(zip((p.name for p in params), args))
        for name, value in kwargs.items():
            if name not in self._by_name:
                raise ArgumentError("%s has no parameter %r (parameters: %s)"
                                    % (self.path, name,
                                       ", ".join(p.name for p in params)))
            if name in bound:
                raise ArgumentError("argument %r given twice" % name)
            bound[name] = value
        for p in params:
            if p.name not in bound:
                raise ArgumentError("missing argument %r (%s) of %s"
                                    % (p.name, p.type_text(), self.path))
        return [bound[p.name] for p in params]

    def _bind(self, args, kwargs):
        """Fills self._values; returns the stream the tensors imply and the
        objects to keep alive until the launch."""
        if kwargs or len(args) != len(self._binding):
            args = self._order(args, kwargs)
        torch_seen = False
        cai_stream = None
        keep = None
        tensor_type = _args.torch_tensor_type()
        for (kind, p, v, sizes, rank, static), obj in zip(self._binding,
                                                          args):
            if kind is _MEMREF_ARG:
                if type(obj) is tensor_type:
                    # torch, read directly: the common case, kept short.
                    if not obj.is_cuda:
                        raise ArgumentError(
                            "argument %r is a torch tensor on %s, expected "
                            "a CUDA tensor" % (p.name, obj.device))
                    dtype = _args.torch_dtype_name(obj.dtype)
                    if dtype is None:
                        raise ArgumentError(
                            "argument %r has torch dtype %s, which the "
                            "runtime does not know" % (p.name, obj.dtype))
                    shape = obj.shape
                    strides = None if obj.is_contiguous() else obj.stride()
                    ptr = obj.data_ptr()
                    torch_seen = True
                else:
                    # __cuda_array_interface__ read here, the rest (torch
                    # subclasses, DLPack, errors) by _args.view.
                    cai = None if tensor_type is not None and \
                        isinstance(obj, tensor_type) else \
                        getattr(obj, "__cuda_array_interface__", None)
                    try:
                        ptr, shape, strides, dtype, stream, capsule, \
                            is_torch = _args.view(obj) if cai is None else \
                            _args.from_cai(cai)
                    except (TypeError, ValueError) as e:
                        raise ArgumentError("argument %r %s" % (p.name, e))
                    if capsule is not None:
                        keep = keep or []
                        keep.append(capsule)
                    if is_torch:
                        torch_seen = True
                    elif cai_stream is None and stream is not None:
                        cai_stream = stream
                if dtype != p.dtype or len(shape) != rank or (
                        static is not None and
                        any(want is not None and size != want
                            for size, want in zip(shape, static))):
                    self._mismatch(p, dtype, shape)
                if strides is not None and \
                        not _args.is_row_major(shape, strides):
                    raise ArgumentError(
                        "argument %r is not contiguous row-major (strides %s "
                        "in elements for shape %s); pass .contiguous()"
                        % (p.name, list(strides), list(shape)))
                v.ptr = ptr
                sizes[:rank] = shape
            elif kind is _FLOAT:
                v.f = float(obj)
            else:
                if isinstance(obj, float) or not hasattr(obj, "__index__"):
                    raise ArgumentError(
                        "argument %r: expected an integer for %s, got %r"
                        % (p.name, p.dtype, obj))
                v.i = int(obj)
        if torch_seen:
            return _args.torch_stream(), keep
        return cai_stream, keep

    def _mismatch(self, p, dtype, shape):
        """Raises the ArgumentError that says how a tensor of `dtype` and
        `shape` misfits parameter `p`."""
        if dtype != p.dtype:
            raise ArgumentError(
                "argument %r has element type %s, expected %s (%s)"
                % (p.name, dtype, p.dtype, p.type_text()))
        if len(shape) != len(p.shape):
            raise ArgumentError(
                "argument %r has rank %d (shape %s), expected %d (%s)"
                % (p.name, len(shape), list(shape), len(p.shape),
                   p.type_text()))
        for d, (size, want) in enumerate(zip(shape, p.shape)):
            if want is not None and size != want:
                raise ArgumentError(
                    "argument %r has size %d in dimension %d, expected "
                    "%d (%s)" % (p.name, size, d, want, p.type_text()))

    def _launch_python(self, *args, **kwargs):
        """Launches on `stream` (keyword; an int handle or a stream object)
        or else the current stream: torch's when a torch tensor is among
        the arguments, else that of the first ``__cuda_array_interface__``
        naming one, else the default stream. Asynchronous. (The binding in
        Python: the call itself without the extension, and where the
        extension's call takes the arguments to Python.)"""
        stream = kwargs.pop("stream", None) if kwargs else None
        implied, keep = self._bind(args, kwargs)
        if stream is None:
            stream = implied
        # An int (what torch and __cuda_array_interface__ give) as it is.
        handle = (stream or None) if type(stream) is int else \
            _stream_handle(stream)
        kernel, values = self._launch_args
        status = self._launch(kernel, values, handle)
        del keep  # capsules outlive the launch call
        if status:
            raise TileError(_runtime.error_string())

    if _ext is None:
        __call__ = _launch_python
        launch = _launch_python
    else:
        # Calls run Launcher's tp_call (tile/_launch.c), which reads the
        # common arguments in C and hands the rest to _launch_python.
        def launch(self, *args, **kwargs):
            """Launches; the same as calling the kernel."""
            return self(*args, **kwargs)

    def select(self, *args, **kwargs):
        """Returns (manifest path, reasons) of what a call with these
        arguments launches: the manifest itself or the variant its rules
        and fallbacks choose, with the runtime's lines saying why."""
        self._bind(args, kwargs)
        target = ctypes.c_void_p()
        why = ctypes.create_string_buffer(8192)
        _check(self._lib.tileRtKernelSelect(
            self._handle, self._values, ctypes.byref(target), self._chosen,
            why, len(why)))
        manifest = self._lib.tileRtKernelGetManifest(target)
        path = self._lib.tileRtManifestPath(manifest).decode()
        return path, why.value.decode().splitlines()


def load(path, device=None, host=False):
    """Loads the kernel of the launch manifest at `path` (and the variants
    it names) on CUDA device `device` (torch's current device when torch is
    imported, else 0). With `host`, only reads the manifests, without a
    driver: the kernel can select() a variant for given tensors but not
    launch (dry runs on machines without a GPU)."""
    return Kernel(path, device, host)


def synchronize():
    """Waits for all work on the runtime's context."""
    _check(_runtime.lib().tileRtSynchronize())
