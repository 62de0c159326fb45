/* tile._launch: the launch path of tile.Kernel in C.
 *
 * Kernel (python/tile/__init__.py) derives from Launcher when this module
 * is built, so that `kernel(A, B, C)` runs Launcher's tp_call: it reads the
 * common arguments (exact torch tensors, __cuda_array_interface__ objects,
 * Python ints and floats) straight into the kernel's tileRtArgValue array,
 * picks the stream and calls tileRtKernelLaunchOnStream through a function
 * pointer, without making a Python object of its own. Whatever it does not
 * take as it is (keywords other than `stream`, DLPack tensors, torch
 * subclasses, a dtype, rank, static size or layout that does not fit, a
 * value that does not convert) goes to Kernel._launch_python, the binding
 * in Python, which launches or raises the error it always raised: both
 * paths accept the same calls and fail with the same exceptions.
 *
 * The module links against nothing but Python: the runtime's entry points
 * and the argument array come from the ctypes binding (_setup), which also
 * checks that this file's mirror of tileRtArgValue has the layout of
 * runtime/include/tile-runtime/Runtime.h.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_RANK 8

/* Mirrors tileRtArgValue. */
typedef struct {
  uint64_t ptr;
  int64_t sizes[MAX_RANK];
  int64_t i;
  double f;
} ArgValue;

typedef int (*LaunchFn)(void *kernel, const ArgValue *args, void *stream);
typedef const char *(*ErrorFn)(void);

enum { ARG_MEMREF = 0, ARG_INT = 1, ARG_FLOAT = 2 };

/* One argument of a call, in the order the caller passes them. */
typedef struct {
  int kind;
  int rank;
  int elemSize;
  ArgValue *slot;
  char dtype[16];
  int64_t shape[MAX_RANK]; /* static sizes; -1 where dynamic */
  /* The torch dtype object last seen to be `dtype`, or NULL. */
  PyObject *torchDtype;
} Arg;

typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  LaunchFn launch;
  ErrorFn error;
  void *kernel;
  ArgValue *values;
  Py_ssize_t nargs;
  Arg *args;
  PyObject *tileError;    /* tile.TileError */
  PyObject *dtypeName;    /* tile._args.torch_dtype_name */
  PyObject *torchStream;  /* tile._args.torch_stream */
  PyObject *streamHandle; /* tile._stream_handle */
  /* What was derived from the torch module last found in sys.modules. */
  PyObject *torch;
  PyObject *tensorType;
  PyObject *rawStream; /* torch._C._cuda_getCurrentRawStream or NULL */
  PyObject *getDevice; /* torch._C._cuda_getDevice or NULL */
  /* Calls handed to Kernel._launch_python (for tests). */
  Py_ssize_t pythonCalls;
} Launcher;

static PyObject *s_stream, *s_torch, *s_is_cuda, *s_dtype, *s_shape,
    *s_is_contiguous, *s_data_ptr, *s_cai, *s_typestr, *s_strides, *s_mask,
    *s_data, *s_launch_python, *s_C, *s_Tensor, *s_raw, *s_device;

static PyObject *callNoArgs(PyObject *fn) {
  return PyObject_CallFunctionObjArgs(fn, NULL);
}

static PyObject *callMethodNoArgs(PyObject *obj, PyObject *name) {
  return PyObject_CallMethodObjArgs(obj, name, NULL);
}

/* __cuda_array_interface__ typestr to the runtime's dtype names (as
 * tile._args._TYPESTRS). */
static const char *dtypeOfTypestr(const char *typestr) {
  static const char *const table[][2] = {
      {"<f2", "f16"}, {"<f4", "f32"}, {"<f8", "f64"},
      {"|i1", "i8"},  {"<i2", "i16"}, {"<i4", "i32"},
      {"<i8", "i64"}, {"|b1", "i1"},  {"|u1", "i8"},
  };
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i)
    if (strcmp(typestr, table[i][0]) == 0)
      return table[i][1];
  return NULL;
}

static void clearTorch(Launcher *self) {
  Py_CLEAR(self->torch);
  Py_CLEAR(self->tensorType);
  Py_CLEAR(self->rawStream);
  Py_CLEAR(self->getDevice);
}

/* Finds torch in sys.modules (it may come and go, as in the tests) and
 * what is derived from it. 0, or -1 with an exception. */
static int refreshTorch(Launcher *self) {
  PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
  PyObject *torch = PyDict_GetItemWithError(modules, s_torch);
  if (!torch) {
    if (PyErr_Occurred())
      return -1;
    clearTorch(self);
    return 0;
  }
  if (torch == self->torch)
    return 0;
  clearTorch(self);
  PyObject *tensor = PyObject_GetAttr(torch, s_Tensor);
  if (!tensor)
    return -1;
  if (!PyType_Check(tensor)) {
    Py_DECREF(tensor);
    PyErr_SetString(PyExc_TypeError, "torch.Tensor is not a type");
    return -1;
  }
  /* The private accessors that skip making a Stream object, where they
   * exist (as tile._args.torch_stream). */
  PyObject *C = PyObject_GetAttr(torch, s_C);
  PyObject *raw = NULL, *device = NULL;
  if (C) {
    raw = PyObject_GetAttr(C, s_raw);
    if (!raw)
      PyErr_Clear();
    device = PyObject_GetAttr(C, s_device);
    if (!device)
      PyErr_Clear();
    Py_DECREF(C);
  } else {
    PyErr_Clear();
  }
  if (!raw || !device) {
    Py_CLEAR(raw);
    Py_CLEAR(device);
  }
  Py_INCREF(torch);
  self->torch = torch;
  self->tensorType = tensor;
  self->rawStream = raw;
  self->getDevice = device;
  return 0;
}

/* Reads an int into `out`; 0, or -1 (exception set) when it is no int or
 * does not fit. */
static int readInt64(PyObject *obj, int64_t *out) {
  long long v = PyLong_AsLongLong(obj);
  if (v == -1 && PyErr_Occurred())
    return -1;
  *out = (int64_t)v;
  return 0;
}

/* Reads the shape tuple `shape` of argument `a` into sizes; -1 where it
 * does not fit (the rank or a static size differs). */
static int readShape(const Arg *a, PyObject *shape, int64_t *sizes) {
  if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != a->rank)
    return -1;
  for (int d = 0; d < a->rank; ++d) {
    if (readInt64(PyTuple_GET_ITEM(shape, d), &sizes[d]))
      return -1;
    if (a->shape[d] >= 0 && sizes[d] != a->shape[d])
      return -1;
  }
  return 0;
}

/* An exact torch tensor: the attributes tile.Kernel._bind reads. 0, or -1
 * for the Python path. */
static int readTorch(Launcher *self, Arg *a, PyObject *obj) {
  int64_t sizes[MAX_RANK];
  PyObject *value = PyObject_GetAttr(obj, s_is_cuda);
  if (!value)
    return -1;
  int ok = value == Py_True;
  Py_DECREF(value);
  if (!ok)
    return -1;
  PyObject *dtype = PyObject_GetAttr(obj, s_dtype);
  if (!dtype)
    return -1;
  if (dtype != a->torchDtype) {
    PyObject *name = PyObject_CallFunctionObjArgs(self->dtypeName, dtype, NULL);
    const char *text =
        name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    ok = text && strcmp(text, a->dtype) == 0;
    Py_XDECREF(name);
    if (!ok) {
      Py_DECREF(dtype);
      return -1;
    }
    Py_XSETREF(a->torchDtype, dtype);
  } else {
    Py_DECREF(dtype);
  }
  PyObject *shape = PyObject_GetAttr(obj, s_shape);
  if (!shape)
    return -1;
  ok = readShape(a, shape, sizes) == 0;
  Py_DECREF(shape);
  if (!ok)
    return -1;
  value = callMethodNoArgs(obj, s_is_contiguous);
  if (!value)
    return -1;
  ok = value == Py_True;
  Py_DECREF(value);
  if (!ok)
    return -1;
  value = callMethodNoArgs(obj, s_data_ptr);
  if (!value)
    return -1;
  unsigned long long ptr = PyLong_AsUnsignedLongLong(value);
  Py_DECREF(value);
  if (ptr == (unsigned long long)-1 && PyErr_Occurred())
    return -1;
  a->slot->ptr = ptr;
  memcpy(a->slot->sizes, sizes, sizeof(int64_t) * a->rank);
  return 0;
}

/* Looks `key` up in dict `d`: the borrowed value, or NULL (an exception set
 * only on a failed lookup). */
static PyObject *item(PyObject *d, PyObject *key) {
  return PyDict_GetItemWithError(d, key);
}

/* An object with a __cuda_array_interface__ dict. 0, or -1 for the Python
 * path; `*stream` receives (a new reference to) the first stream named. */
static int readCai(Arg *a, PyObject *obj, PyObject **stream) {
  int64_t sizes[MAX_RANK];
  PyObject *cai = PyObject_GetAttr(obj, s_cai);
  if (!cai)
    return -1;
  int rc = -1;
  if (!PyDict_CheckExact(cai))
    goto done;
  PyObject *typestr = item(cai, s_typestr);
  if (!typestr || !PyUnicode_Check(typestr))
    goto done;
  const char *text = PyUnicode_AsUTF8(typestr);
  const char *dtype = text ? dtypeOfTypestr(text) : NULL;
  if (!dtype || strcmp(dtype, a->dtype) != 0)
    goto done;
  PyObject *shape = item(cai, s_shape);
  if (!shape || readShape(a, shape, sizes))
    goto done;
  PyObject *strides = item(cai, s_strides);
  if (strides && strides != Py_None) {
    /* Byte strides of a contiguous row-major tensor (any stride where the
     * size is 1, any at all where there are no elements), as
     * tile._args.is_row_major. */
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != a->rank)
      goto done;
    int64_t expected = a->elemSize;
    int empty = 0;
    for (int d = 0; d < a->rank; ++d)
      empty |= sizes[d] == 0;
    for (int d = a->rank - 1; d >= 0 && !empty; --d) {
      int64_t stride;
      if (readInt64(PyTuple_GET_ITEM(strides, d), &stride))
        goto done;
      if (sizes[d] != 1 && stride != expected)
        goto done;
      if (__builtin_mul_overflow(expected, sizes[d], &expected))
        goto done;
    }
  } else if (!strides && PyErr_Occurred()) {
    goto done;
  }
  PyObject *mask = item(cai, s_mask);
  if (mask ? mask != Py_None : PyErr_Occurred() != NULL)
    goto done;
  PyObject *data = item(cai, s_data);
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1)
    goto done;
  PyObject *address = PyTuple_GET_ITEM(data, 0);
  unsigned long long ptr = 0;
  if (address != Py_None) {
    if (!PyLong_Check(address))
      goto done;
    ptr = PyLong_AsUnsignedLongLong(address);
    if (ptr == (unsigned long long)-1 && PyErr_Occurred())
      goto done;
  }
  PyObject *named = item(cai, s_stream);
  if (!named && PyErr_Occurred())
    goto done;
  if (!*stream && named && named != Py_None) {
    Py_INCREF(named);
    *stream = named;
  }
  a->slot->ptr = ptr;
  memcpy(a->slot->sizes, sizes, sizeof(int64_t) * a->rank);
  rc = 0;
done:
  Py_DECREF(cai);
  return rc;
}

/* A stream object or int as a CUstream: 0, or -1 with an exception. */
static int streamOf(Launcher *self, PyObject *obj, void **out) {
  PyObject *handle = obj;
  Py_INCREF(handle);
  if (!PyLong_CheckExact(obj)) {
    Py_DECREF(handle);
    handle = PyObject_CallFunctionObjArgs(self->streamHandle, obj, NULL);
    if (!handle)
      return -1;
  }
  void *stream = NULL;
  if (handle != Py_None) {
    stream = PyLong_AsVoidPtr(handle);
    if (!stream && PyErr_Occurred()) {
      Py_DECREF(handle);
      return -1;
    }
  }
  Py_DECREF(handle);
  *out = stream;
  return 0;
}

static PyObject *launchPython(PyObject *self, PyObject *args,
                              PyObject *kwargs) {
  PyObject *fn = PyObject_GetAttr(self, s_launch_python);
  if (!fn)
    return NULL;
  PyObject *result = PyObject_Call(fn, args, kwargs);
  Py_DECREF(fn);
  return result;
}

static PyObject *Launcher_call(PyObject *obj, PyObject *args,
                               PyObject *kwargs) {
  Launcher *self = (Launcher *)obj;
  PyObject *streamArg = NULL, *caiStream = NULL;
  if (!self->kernel || PyTuple_GET_SIZE(args) != self->nargs)
    goto slow;
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    if (PyDict_GET_SIZE(kwargs) != 1)
      goto slow;
    streamArg = PyDict_GetItemWithError(kwargs, s_stream);
    if (!streamArg)
      goto slow;
  }
  if (refreshTorch(self))
    goto slow;
  int torchSeen = 0;
  for (Py_ssize_t i = 0; i < self->nargs; ++i) {
    Arg *a = &self->args[i];
    PyObject *arg = PyTuple_GET_ITEM(args, i);
    if (a->kind == ARG_MEMREF) {
      PyObject *tensorType = self->tensorType;
      if (tensorType && (PyObject *)Py_TYPE(arg) == tensorType) {
        if (readTorch(self, a, arg))
          goto slow;
        torchSeen = 1;
      } else if (tensorType &&
                 PyObject_TypeCheck(arg, (PyTypeObject *)tensorType)) {
        goto slow; /* a torch subclass */
      } else if (readCai(a, arg, &caiStream)) {
        goto slow;
      }
    } else if (a->kind == ARG_INT) {
      if (!PyLong_CheckExact(arg) || readInt64(arg, &a->slot->i))
        goto slow;
    } else {
      if (PyFloat_CheckExact(arg)) {
        a->slot->f = PyFloat_AS_DOUBLE(arg);
      } else if (PyLong_CheckExact(arg)) {
        double f = PyLong_AsDouble(arg);
        if (f == -1.0 && PyErr_Occurred())
          goto slow;
        a->slot->f = f;
      } else {
        goto slow;
      }
    }
  }
  void *stream = NULL;
  if (streamArg && streamArg != Py_None) {
    if (streamOf(self, streamArg, &stream))
      goto slow;
  } else if (torchSeen) {
    PyObject *current;
    if (self->rawStream) {
      PyObject *device = callNoArgs(self->getDevice);
      if (!device)
        goto slow;
      current = PyObject_CallFunctionObjArgs(self->rawStream, device, NULL);
      Py_DECREF(device);
    } else {
      current = callNoArgs(self->torchStream);
    }
    if (!current)
      goto slow;
    int rc = streamOf(self, current, &stream);
    Py_DECREF(current);
    if (rc)
      goto slow;
  } else if (caiStream) {
    if (streamOf(self, caiStream, &stream))
      goto slow;
  }
  Py_CLEAR(caiStream);
  if (self->launch(self->kernel, self->values, stream)) {
    const char *message = self->error();
    PyObject *text = PyUnicode_DecodeUTF8(
        message ? message : "", message ? (Py_ssize_t)strlen(message) : 0,
        "replace");
    if (text) {
      PyErr_SetObject(self->tileError, text);
      Py_DECREF(text);
    }
    return NULL;
  }
  Py_RETURN_NONE;
slow:
  PyErr_Clear();
  Py_CLEAR(caiStream);
  ++self->pythonCalls;
  return launchPython(obj, args, kwargs);
}

/* _setup(launch, error, kernel, values, layout, specs, helpers): binds the
 * launcher to a loaded kernel. launch and error: the addresses of
 * tileRtKernelLaunchOnStream and tileRtErrorString; kernel: the
 * tileRtKernel; values: the address of its tileRtArgValue array; layout:
 * (sizeof, offsetof sizes, offsetof i, offsetof f) of tileRtArgValue as
 * ctypes sees it; specs: per argument in call order (kind, index into
 * values, dtype, static shape with None for dynamic sizes or None,
 * element size); helpers: (TileError, torch_dtype_name, torch_stream,
 * stream_handle). */
static PyObject *Launcher_setup(PyObject *obj, PyObject *args) {
  Launcher *self = (Launcher *)obj;
  unsigned long long launch, error, kernel, values;
  Py_ssize_t size, offSizes, offI, offF;
  PyObject *specs, *helpers;
  if (!PyArg_ParseTuple(args, "KKKK(nnnn)OO", &launch, &error, &kernel, &values,
                        &size, &offSizes, &offI, &offF, &specs, &helpers))
    return NULL;
  if (size != (Py_ssize_t)sizeof(ArgValue) ||
      offSizes != (Py_ssize_t)offsetof(ArgValue, sizes) ||
      offI != (Py_ssize_t)offsetof(ArgValue, i) ||
      offF != (Py_ssize_t)offsetof(ArgValue, f)) {
    PyErr_SetString(PyExc_ValueError, "tileRtArgValue layout differs from "
                                      "the extension's");
    return NULL;
  }
  if (!launch || !error || !values) {
    PyErr_SetString(PyExc_ValueError, "null entry point or argument array");
    return NULL;
  }
  PyObject *tileError, *dtypeName, *torchStream, *streamHandle;
  if (!PyArg_ParseTuple(helpers, "OOOO", &tileError, &dtypeName, &torchStream,
                        &streamHandle))
    return NULL;
  PyObject *seq = PySequence_Fast(specs, "specs must be a sequence");
  if (!seq)
    return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  Arg *parsed = n ? PyMem_Calloc((size_t)n, sizeof(Arg)) : NULL;
  if (n && !parsed) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    Arg *a = &parsed[i];
    int kind, index, elemSize;
    const char *dtype;
    PyObject *shape;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iisOi", &kind,
                          &index, &dtype, &shape, &elemSize))
      goto fail;
    if (kind < ARG_MEMREF || kind > ARG_FLOAT || index < 0 ||
        strlen(dtype) >= sizeof(a->dtype)) {
      PyErr_SetString(PyExc_ValueError, "bad argument spec");
      goto fail;
    }
    a->kind = kind;
    a->elemSize = elemSize;
    a->slot = (ArgValue *)(uintptr_t)values + index;
    strcpy(a->dtype, dtype);
    if (kind == ARG_MEMREF) {
      if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > MAX_RANK) {
        PyErr_SetString(PyExc_ValueError, "bad memref shape");
        goto fail;
      }
      a->rank = (int)PyTuple_GET_SIZE(shape);
      for (int d = 0; d < a->rank; ++d) {
        PyObject *dim = PyTuple_GET_ITEM(shape, d);
        a->shape[d] = -1;
        if (dim != Py_None && readInt64(dim, &a->shape[d]))
          goto fail;
      }
    }
  }
  Py_DECREF(seq);
  for (Py_ssize_t i = 0; i < self->nargs; ++i)
    Py_CLEAR(self->args[i].torchDtype);
  PyMem_Free(self->args);
  self->args = parsed;
  self->nargs = n;
  self->launch = (LaunchFn)(uintptr_t)launch;
  self->error = (ErrorFn)(uintptr_t)error;
  self->kernel = (void *)(uintptr_t)kernel;
  self->values = (ArgValue *)(uintptr_t)values;
  Py_INCREF(tileError);
  Py_XSETREF(self->tileError, tileError);
  Py_INCREF(dtypeName);
  Py_XSETREF(self->dtypeName, dtypeName);
  Py_INCREF(torchStream);
  Py_XSETREF(self->torchStream, torchStream);
  Py_INCREF(streamHandle);
  Py_XSETREF(self->streamHandle, streamHandle);
  Py_RETURN_NONE;
fail:
  for (Py_ssize_t i = 0; i < n; ++i)
    Py_CLEAR(parsed[i].torchDtype);
  PyMem_Free(parsed);
  Py_DECREF(seq);
  return NULL;
}

/* _detach(): forgets the kernel (before it is destroyed); later calls take
 * the Python path. */
static PyObject *Launcher_detach(PyObject *obj, PyObject *unused) {
  (void)unused;
  ((Launcher *)obj)->kernel = NULL;
  Py_RETURN_NONE;
}

static void Launcher_dealloc(PyObject *obj) {
  Launcher *self = (Launcher *)obj;
  for (Py_ssize_t i = 0; i < self->nargs; ++i)
    Py_CLEAR(self->args[i].torchDtype);
  PyMem_Free(self->args);
  self->args = NULL;
  Py_CLEAR(self->tileError);
  Py_CLEAR(self->dtypeName);
  Py_CLEAR(self->torchStream);
  Py_CLEAR(self->streamHandle);
  clearTorch(self);
  Py_TYPE(obj)->tp_free(obj);
}

static PyMethodDef launcherMethods[] = {
    {"_setup", Launcher_setup, METH_VARARGS,
     "Binds the launcher to a loaded kernel and its argument array."},
    {"_detach", Launcher_detach, METH_NOARGS,
     "Forgets the kernel; later calls take the Python path."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef launcherMembers[] = {
    {"_python_calls", T_PYSSIZET, offsetof(Launcher, pythonCalls), READONLY,
     "How many calls were handed to Kernel._launch_python."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tile._launch.Launcher",
    .tp_basicsize = sizeof(Launcher),
    .tp_dealloc = Launcher_dealloc,
    .tp_call = Launcher_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The launch path of tile.Kernel in C (its base class).",
    .tp_methods = launcherMethods,
    .tp_members = launcherMembers,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef launchModule = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tile._launch",
    .m_doc = "The launch path of tile.Kernel in C.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__launch(void) {
  struct {
    PyObject **name;
    const char *text;
  } names[] = {
      {&s_stream, "stream"},
      {&s_torch, "torch"},
      {&s_is_cuda, "is_cuda"},
      {&s_dtype, "dtype"},
      {&s_shape, "shape"},
      {&s_is_contiguous, "is_contiguous"},
      {&s_data_ptr, "data_ptr"},
      {&s_cai, "__cuda_array_interface__"},
      {&s_typestr, "typestr"},
      {&s_strides, "strides"},
      {&s_mask, "mask"},
      {&s_data, "data"},
      {&s_launch_python, "_launch_python"},
      {&s_C, "_C"},
      {&s_Tensor, "Tensor"},
      {&s_raw, "_cuda_getCurrentRawStream"},
      {&s_device, "_cuda_getDevice"},
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
    if (!*names[i].name &&
        !(*names[i].name = PyUnicode_InternFromString(names[i].text)))
      return NULL;
  if (PyType_Ready(&LauncherType) < 0)
    return NULL;
  PyObject *module = PyModule_Create(&launchModule);
  if (!module)
    return NULL;
  Py_INCREF(&LauncherType);
  if (PyModule_AddObject(module, "Launcher", (PyObject *)&LauncherType) < 0) {
    Py_DECREF(&LauncherType);
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
