"""Reading tensors of any framework as (pointer, shape, strides, dtype).

Three protocols are understood, in this order: torch tensors (read
directly, which also covers bfloat16 and float8, and is the cheapest),
``__cuda_array_interface__`` (CuPy, Numba, JAX and others; version 2 and
3), and DLPack (``__dlpack__``). Nothing is copied: the kernel reads and
writes the tensor's own memory, so the runtime's row-major layout must be
the tensor's, which is checked.
"""

import ctypes
import sys


# What a launch needs of one tensor argument, as a plain tuple (cheaper to
# make than an object, which counts at every launch):
#   (pointer, shape, strides in elements or None when contiguous row-major,
#    dtype name, producer's stream (__cuda_array_interface__ v3) or None,
#    an object to keep alive until the launch is issued (a DLPack capsule)
#    or None, whether it is a torch tensor)
PTR, SHAPE, STRIDES, DTYPE, STREAM, KEEP, TORCH = range(7)


_TORCH_DTYPES = {
    "torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float32": "f32",
    "torch.float64": "f64", "torch.int8": "i8", "torch.int16": "i16",
    "torch.int32": "i32", "torch.int64": "i64", "torch.bool": "i1",
    "torch.float8_e4m3fn": "f8E4M3FN", "torch.float8_e5m2": "f8E5M2",
}

# __cuda_array_interface__ typestr (numpy's) to the runtime's names.
_TYPESTRS = {
    "<f2": "f16", "<f4": "f32", "<f8": "f64", "|i1": "i8", "<i2": "i16",
    "<i4": "i32", "<i8": "i64", "|b1": "i1", "|u1": "i8",
}

_SIZES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "index": 8,
          "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f8E4M3FN": 1,
          "f8E5M2": 1}


def dtype_size(dtype):
    return _SIZES[dtype]


def is_torch_tensor(obj):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def torch_tensor_type():
    """torch.Tensor once torch is imported (by anyone), else None; for an
    exact-type test at each launch."""
    torch = sys.modules.get("torch")
    return torch.Tensor if torch is not None else None


# torch dtype objects to the runtime's names, filled on first use.
_torch_by_dtype = {}


def torch_dtype_name(dtype):
    """The runtime's name of torch dtype `dtype`, or None."""
    name = _torch_by_dtype.get(dtype)
    if name is None:
        name = _TORCH_DTYPES.get(str(dtype))
        if name is not None:
            _torch_by_dtype[dtype] = name
    return name


def _from_torch(t):
    if not t.is_cuda:
        raise ValueError("is a torch tensor on %s, expected a CUDA tensor"
                         % t.device)
    dtype = torch_dtype_name(t.dtype)
    if dtype is None:
        raise TypeError("has torch dtype %s, which the runtime does not "
                        "know" % t.dtype)
    strides = None if t.is_contiguous() else tuple(t.stride())
    return (t.data_ptr(), tuple(t.shape), strides, dtype, None, None, True)


# The raw handle of the current stream of a device, and the current device,
# looked up once: through the private accessors that skip making a Stream
# object where they exist (the cost counts at every launch), else the
# public API.
_current_stream = None


def torch_stream():
    """The raw handle of torch's current CUDA stream (an int)."""
    global _current_stream
    if _current_stream is None:
        torch = sys.modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        device = getattr(torch._C, "_cuda_getDevice", None)
        if raw is not None and device is not None:
            _current_stream = lambda: raw(device())
        else:
            _current_stream = lambda: torch.cuda.current_stream().cuda_stream
    return _current_stream()


def from_cai(cai):
    """Reads a __cuda_array_interface__ dictionary as the tuple above."""
    typestr = cai.get("typestr")
    dtype = _TYPESTRS.get(typestr)
    if dtype is None:
        raise TypeError("has __cuda_array_interface__ typestr %r, which the "
                        "runtime does not know" % (typestr,))
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None:
        size = _SIZES[dtype]
        if any(s % size for s in strides):
            raise ValueError("has byte strides %s that are not multiples of "
                             "its %d-byte elements" % (tuple(strides), size))
        strides = tuple(int(s) // size for s in strides)
    if cai.get("mask") is not None:
        raise ValueError("has a mask, which kernels cannot honour")
    ptr = int(cai["data"][0] or 0)
    return (ptr, shape, strides, dtype, cai.get("stream"), None, False)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


# DLPack's type codes (kDLInt, kDLUInt, kDLFloat, kDLBfloat) and devices.
_DL_TYPES = {(0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
             (1, 1): "i1", (1, 8): "i8", (2, 16): "f16", (2, 32): "f32",
             (2, 64): "f64", (4, 16): "bf16", (6, 8): "i1"}
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13


def _from_dlpack(obj):
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get(capsule, b"dltensor")
    # DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(address)
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ValueError("is a DLPack tensor on device type %d, expected "
                         "CUDA (2)" % t.device.device_type)
    dtype = _DL_TYPES.get((t.dtype.code, t.dtype.bits))
    if dtype is None or t.dtype.lanes != 1:
        raise TypeError("has DLPack type code %d, %d bits, %d lanes, which "
                        "the runtime does not know"
                        % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = (tuple(t.strides[i] for i in range(t.ndim))
               if t.strides else None)
    ptr = (t.data or 0) + t.byte_offset
    return (ptr, shape, strides, dtype, None, capsule, False)


def view(obj):
    """Reads `obj` as the tuple above; TypeError when it is no tensor."""
    if is_torch_tensor(obj):
        return _from_torch(obj)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return from_cai(cai)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj)
    raise TypeError("is a %s, expected a CUDA tensor (torch, "
                    "__cuda_array_interface__ or DLPack)"
                    % type(obj).__name__)


def is_row_major(shape, strides):
    """Whether element strides `strides` are those of a contiguous
    row-major tensor of `shape` (dimensions of size 1 may have any, and a
    tensor without elements, such as an empty slice, any at all)."""
    if strides is None or 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True
