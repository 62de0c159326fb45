"""Host time of one kernel launch: from Python, through the C runtime's
full launch, and through its prepared launch.

On a GPU machine, with torch and the dispatching GEMM artifacts of
bench/gpu_library.py (KERNELS_DIR/dispatch/nn-f16/gemm_nn_kernel.manifest):

    python3 bench/launch_overhead.py --kernels KERNELS_DIR \\
        --runtime /tmp/rt/lib/libtile_runtime.so --tile-run /tmp/rt/bin/tile-run

Without a GPU, against the stand-in driver of test/Runtime/Inputs/fake-cuda.c
(its `nop` kernel returns at once, so only the host's work is timed) and a
stand-in dispatching manifest of the same shape as the GEMM's (six variants
with rules, the one taken with two tensor maps and a fallback):

    python3 bench/launch_overhead.py --stand-in build/test/Runtime/libtile-rt-fake-cuda.so \\
        --runtime build/lib/libtile_runtime.so --tile-run build/bin/tile-run

The launch is a 16x256x256 f16 GEMM (C = A B), small enough that the
kernel is shorter than a launch, so that back-to-back launches never fill
the queue and time the host alone. Paths timed, each as --launches launches
back to back, then one synchronization, median of 5 samples:

  - tile.Kernel(A, B, C) from Python, on the same tensors every time (the
    runtime reuses what it chose, packed and encoded for the previous call);
  - the same call alternating between two output tensors, so that every
    launch chooses, packs and encodes again;
  - where the package's C extension runs those calls, the same tensors
    through the binding in Python that runs without it
    (Kernel._launch_python, also TILE_NO_EXTENSION=1);
  - tileRtKernelLaunchOnStream by ctypes on arguments bound once;
  - tile-run's prepared launch (tileRtKernelLaunchPrepared, its `host:`
    line), the floor: arguments packed once, no checks.

The report says which launch path the package took: its C extension
(tile._launch, built by `pip install ./python` where Python's headers are,
and by the CMake build into build/python) or ctypes. --package DIR times
the package in DIR (build/python: the one with the extension), else the
installed package, else the source tree's (ctypes).

Prints Markdown; exits non-zero when a launch failed.
"""

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from report import markdown_table  # noqa: E402
import options  # noqa: E402

M, N, K = 16, 256, 256
# What a Python launch may cost over the prepared launch on the GPU, and
# what the Python binding and the C runtime's per-call work together may
# cost against the stand-in driver (whose own launch costs ~0).
GPU_GOAL_US = 10.0
STAND_IN_GOAL_US = 5.0


def host_us(fn, launches, sync, samples=5, warmup=100,
            clock=time.perf_counter):
    """The median over `samples` of the host time of one call of `fn`, in
    microseconds, timed with `clock` over `launches` calls back to back
    with one `sync` after each sample (not timed)."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(samples):
        t0 = clock()
        for _ in range(launches):
            fn()
        t1 = clock()
        sync()
        times.append((t1 - t0) / launches * 1e6)
    return sorted(times)[len(times) // 2]


def tile_run_us(tile_run, manifest, launches):
    """tile-run's prepared launch of the same GEMM: its `host:` line, or
    None (with its output on stderr) when it failed."""
    proc = subprocess.run(
        [tile_run, manifest, "--arg", f"arg0={M}x{K}:f16",
         "--arg", f"arg1={K}x{N}:f16", "--arg", f"arg2={M}x{N}:f16",
         "--time", "--reps", str(launches)], capture_output=True, text=True)
    found = re.search(r"host: ([0-9.]+) us per launch", proc.stdout)
    if proc.returncode != 0 or not found:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return None
    return float(found.group(1))


def measure(kernel, a, b, c, c2, stream, sync, launches, tile_run,
            clock=time.perf_counter):
    """Times the four paths of the docstring; returns the table rows, a
    dict of the times (None for one that failed) and whether all ran."""
    times = {}
    times["python"] = host_us(lambda: kernel(a, b, c), launches, sync,
                              clock=clock)
    # With the C extension, the binding in Python as well: the path taken
    # without it (or with TILE_NO_EXTENSION=1).
    times["ctypes"] = None
    if getattr(kernel, "_launch_python", None) and \
            type(kernel).__call__ is not type(kernel)._launch_python:
        times["ctypes"] = host_us(lambda: kernel._launch_python(a, b, c),
                                  launches, sync, clock=clock)
    flip = [c, c2]

    def alternating():
        flip.reverse()
        kernel(a, b, flip[0])
    times["changed"] = host_us(alternating, launches, sync, clock=clock)
    # The C runtime's own full launch, with the arguments bound once.
    kernel._bind((a, b, c), {})
    lib, values, handle = kernel._lib, kernel._values, kernel._handle
    launch = lib.tileRtKernelLaunchOnStream
    status = [0]

    def c_launch():
        status[0] |= launch(handle, values, stream)
    times["c"] = host_us(c_launch, launches, sync, clock=clock)
    times["prepared"] = tile_run_us(tile_run, kernel.path, launches)

    def cell(key):
        return "-" if times[key] is None else f"{times[key]:.2f}"
    rows = [["tile.Kernel(A, B, C) from Python, same tensors", cell("python")],
            ["tile.Kernel(A, B, C) from Python, C alternating between two "
             "tensors", cell("changed")]]
    if times["ctypes"] is not None:
        rows.append(["the same tensors through the binding in Python "
                     "(Kernel._launch_python, the path without the C "
                     "extension)", cell("ctypes")])
    rows += [
            ["tileRtKernelLaunchOnStream by ctypes (bound once)", cell("c")],
            ["tile-run, prepared launch (tileRtKernelLaunchPrepared)",
             cell("prepared")]]
    ok = status[0] == 0 and times["prepared"] is not None
    return rows, times, ok


def launch_path():
    """Which launch path tile.Kernel calls take, for the report."""
    import tile
    where = os.path.dirname(os.path.abspath(tile.__file__))
    if tile.launch_path == "extension":
        return f"the C extension tile._launch (package {where})"
    return (f"ctypes, the binding in Python (package {where}; "
            f"{tile.launch_path_reason()})")


def report(rows, times, launches, where, goal,
           title="Host time of one launch"):
    print(f"### {title} ({M}x{N}x{K} f16, {where}, "
          f"{launches} back to back, median of 5)\n")
    print(f"Python launch path: {launch_path()}\n")
    print(markdown_table(["path", "us per launch"], rows))
    if times["prepared"] is not None:
        extra = times["python"] - times["prepared"]
        print(f"\nPython costs {extra:.2f} us over the prepared launch "
              f"({'meets' if extra <= goal else 'misses'} the {goal:g} us "
              "goal)")
    print()


# ---------------------------------------------------------------------------
# Without a GPU: the stand-in driver.

DISPATCH = """\
tile-launch-manifest 2
param arg0 memref<?x?xf16> none
param arg1 memref<?x?xf16> none
param arg2 memref<?x?xf16> none
variant v0/k.manifest when arg2.dim0 >= 1 and arg2.dim0 <= 64
variant v1/k.manifest when arg2.dim0 >= 65 and arg2.dim0 <= 1024 and arg0.dim1 >= 16384
variant v2/k.manifest when arg2.dim0 >= 65 and arg2.dim1 <= 256
variant v3/k.manifest when arg2.dim0 >= 65 and arg2.dim0 <= 256
variant v4/k.manifest when arg2.dim0 >= 257 and arg2.dim0 <= 1024
variant v5/k.manifest
"""

VARIANT = """\
tile-launch-manifest 1
kernel nop
binary ../k.ptx ptx
param arg2 memref<?x?xf16> descriptor
param arg0 memref<?x?xf16> none
param arg0_tmap0 tensormap arg0 box 64x64 swizzle 128b interleave none l2 256b oob zero
param arg1 memref<?x?xf16> none
param arg1_tmap0 tensormap arg1 box 64x64 swizzle 128b interleave none l2 256b oob zero
block 128
grid x ceildiv(arg2.dim1, 64)
grid y ceildiv(arg2.dim0, 64)
fallback k.fallback.manifest
"""

FALLBACK = """\
tile-launch-manifest 1
kernel nop
binary ../k.ptx ptx
param arg0 memref<?x?xf16> descriptor
param arg1 memref<?x?xf16> descriptor
param arg2 memref<?x?xf16> descriptor
block 128
grid x ceildiv(arg2.dim1, 64)
grid y ceildiv(arg2.dim0, 64)
"""


def write_stand_in(directory):
    """Writes the stand-in dispatching manifest and its variants; returns
    its path."""
    files = {"k.ptx": ".visible .entry nop() { ret; }\n",
             "gemm.manifest": DISPATCH}
    for i in range(6):
        files[f"v{i}/k.manifest"] = VARIANT
        files[f"v{i}/k.fallback.manifest"] = FALLBACK
    for name, text in files.items():
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return os.path.join(directory, "gemm.manifest")


class HostTensor(object):
    """Host memory posing as a CUDA f16 array (__cuda_array_interface__),
    256-byte aligned as the driver's allocations are."""

    def __init__(self, rows, cols):
        self.buf = ctypes.create_string_buffer(rows * cols * 2 + 256)
        address = (ctypes.addressof(self.buf) + 255) // 256 * 256
        self.__cuda_array_interface__ = {
            "shape": (rows, cols), "typestr": "<f2", "data": (address, False),
            "version": 3, "strides": None, "stream": None}


def stand_in(args):
    os.environ["TILE_RT_CUDA_DRIVER"] = os.path.abspath(args.stand_in)
    os.environ["TILE_RUNTIME_LIB"] = os.path.abspath(args.runtime)
    import tile
    with tempfile.TemporaryDirectory(prefix="launch-overhead.") as tmp:
        kernel = tile.load(write_stand_in(tmp))
        a, b = HostTensor(M, K), HostTensor(K, N)
        c, c2 = HostTensor(M, N), HostTensor(M, N)
        chosen = os.path.relpath(kernel.select(a, b, c)[0], tmp)
        clock = time.process_time if args.clock == "cpu" else \
            time.perf_counter
        rows, times, ok = measure(kernel, a, b, c, c2, None,
                                  tile.synchronize, args.launches,
                                  args.tile_run, clock)
    where = f"stand-in driver on the host, no GPU, variant {chosen}"
    if args.clock == "cpu":
        where += ", the process's CPU time"
    report(rows, times, args.launches, where, STAND_IN_GOAL_US)
    return 0 if ok else 1


# ---------------------------------------------------------------------------
# On the GPU.

def gpu(args):
    import torch
    os.environ.setdefault("TILE_RUNTIME_LIB", args.runtime)
    import tile
    path = os.path.join(args.kernels, "dispatch", "nn-f16",
                        "gemm_nn_kernel.manifest")
    kernel = tile.load(path)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2025)
    a = torch.rand(M, K, dtype=torch.float16, device="cuda", generator=gen)
    b = torch.rand(K, N, dtype=torch.float16, device="cuda", generator=gen)
    c = torch.empty(M, N, dtype=torch.float16, device="cuda")
    c2 = torch.empty(M, N, dtype=torch.float16, device="cuda")
    chosen = os.path.relpath(kernel.select(a, b, c)[0],
                             os.path.dirname(path))
    rows, times, ok = measure(kernel, a, b, c, c2,
                              torch.cuda.current_stream().cuda_stream,
                              torch.cuda.synchronize, args.launches,
                              args.tile_run)
    report(rows, times, args.launches,
           f"{torch.cuda.get_device_name()}, variant {chosen}", GPU_GOAL_US)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernels", default="",
                        help="directory with dispatch/nn-f16/ (see "
                             "bench/gpu_library.py)")
    parser.add_argument("--stand-in", default="", metavar="FAKE_CUDA_SO",
                        help="no GPU: the stand-in driver "
                             "(build/test/Runtime/libtile-rt-fake-cuda.so)")
    options.add_runtime_argument(parser)
    parser.add_argument("--tile-run", default="/tmp/rt/bin/tile-run")
    parser.add_argument("--launches", type=int, default=2000,
                        help="back-to-back launches per sample")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="with --stand-in: time by the wall clock "
                             "(as on the GPU) or by the process's CPU time "
                             "(steadier on a machine shared with other "
                             "work; tile-run's line stays wall time)")
    parser.add_argument("--package", default="", metavar="DIR",
                        help="the directory holding the tile package to "
                             "time (default: the installed one, else the "
                             "source tree's python/, without the C "
                             "extension unless it was built there)")
    args = parser.parse_args()
    if args.package:
        sys.path.insert(0, os.path.abspath(args.package))
    else:
        import importlib.util
        if importlib.util.find_spec("tile") is None:
            sys.path.insert(0, os.path.join(ROOT, "python"))
    if args.stand_in:
        return stand_in(args)
    if not args.kernels:
        parser.error("--kernels (on a GPU) or --stand-in (without) is "
                     "required")
    return gpu(args)


if __name__ == "__main__":
    sys.exit(main())
