"""Shared pieces of the benchmark scripts: run a compiled tile kernel with
tile-run on files written from torch tensors, check it against a torch
reference, and time torch baselines with CUDA events in the same process.

Inputs are fresh random tensors (never all zero); outputs are poisoned (NaN
bytes) before the checked launch, so an element the kernel fails to write
shows as a mismatch.
"""

import os
import re
import statistics
import subprocess
import tempfile
import time

import torch

DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
          torch.float64: "f64", torch.int8: "i8", torch.int32: "i32",
          torch.int64: "i64", torch.float8_e4m3fn: "f8E4M3FN",
          torch.float8_e5m2: "f8E5M2"}


def dims(t):
    return "x".join(str(d) for d in t.shape)


def write(t, path):
    t.detach().contiguous().cpu().view(torch.uint8).numpy().tofile(path)


def run_tile(tile_run, manifest, inputs, outputs, references, scalars=None,
             reps=100, warmup=10, rtol=None, atol=None):
    """Runs `manifest` with tile-run.

    inputs: name -> tensor (written to a file and passed as file=...)
    outputs: name -> tensor giving shape and dtype (poisoned before launch)
    references: name -> tensor (the expected contents of each output)
    Returns a dict with 'ok', 'median_ms', 'min_ms' and the tool's output.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [tile_run, manifest, "--time", "--reps", str(reps),
               "--warmup", str(warmup)]
        for name, t in inputs.items():
            path = os.path.join(tmp, name + ".in")
            write(t, path)
            cmd += ["--arg", f"{name}={dims(t)}:{DTYPES[t.dtype]}:file={path}"]
        for name, t in outputs.items():
            cmd += ["--arg", f"{name}={dims(t)}:{DTYPES[t.dtype]}:poison"]
        for name, t in references.items():
            path = os.path.join(tmp, name + ".ref")
            write(t, path)
            cmd += ["--check", f"{name}={path}"]
        for name, value in (scalars or {}).items():
            cmd += ["--arg", f"{name}={value}"]
        if rtol is not None:
            cmd += ["--rtol", str(rtol)]
        if atol is not None:
            cmd += ["--atol", str(atol)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    m = re.search(r"time: median ([0-9.]+) ms, min ([0-9.]+) ms", out)
    return {"ok": proc.returncode == 0, "output": out,
            "median_ms": float(m.group(1)) if m else None,
            "min_ms": float(m.group(2)) if m else None}


_FLUSH = []


def flush_l2():
    """Reads a 256 MiB buffer (five times an H100's or H200's L2), so that
    the next kernel finds none of its inputs in the cache; queued before a
    timed call, it also keeps the device busy while the host launches that
    call, so the launch's host cost stays out of the time. A read, not a
    write: dirty lines left in L2 would be written back during the timed
    kernel and take its memory bandwidth."""
    if not _FLUSH:
        _FLUSH.append(torch.ones(64 << 20, dtype=torch.float32,
                                 device="cuda"))
    _FLUSH[0].sum()


def event_times(fn, reps, flush=False):
    """Times of `reps` calls of fn() in ms, each between CUDA events; with
    `flush`, each after flush_l2()."""
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        if flush:
            flush_l2()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


# Seconds the device idles before each timing (time_torch, time_graph).
# Under sustained tensor-core load an H100 holds its 700 W power limit by
# lowering its SM clock (to 1.25-1.6 GHz from 1.98), and it takes tens of
# milliseconds to get there: a timing that starts on an idle device runs at
# higher clocks than one that follows another kernel's burst. When a
# reference is timed before and after the tile kernel, its first timing
# would often start on an idle device and the tile kernel's right behind
# that burst; the pause gives every timing the same start. The scripts set
# it (--cool).
COOL_S = 0.0


def settle():
    """Waits for the device to finish, then idles COOL_S seconds."""
    if COOL_S > 0:
        torch.cuda.synchronize()
        time.sleep(COOL_S)


def time_torch(fn, reps=100, warmup=10, flush=False):
    """Median and minimum time of fn() in ms, each call between events;
    with `flush`, from a cold L2 with the launch's host cost hidden
    (flush_l2): for memory-bound kernels whose inputs would otherwise stay
    in the cache between calls. Starts after settle()."""
    settle()
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = event_times(fn, reps, flush)
    return statistics.median(times), min(times)


def time_graph(fn, reps=100, warmup=5, inner=10):
    """Median, min and max time of one fn() in ms. The calls are captured
    in a CUDA graph of `inner` calls and each replay timed between events,
    so that host launch costs (Python, ctypes, torch's dispatch) do not
    count for short kernels; where capture fails, each eager call is timed
    between events instead. The replays start after settle()."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for _ in range(inner):
                fn()
        run, per = graph.replay, inner
    except Exception:  # capture unsupported: time eager calls
        torch.cuda.synchronize()
        run, per = fn, 1
    settle()
    run()
    torch.cuda.synchronize()
    times = [t / per for t in event_times(run, reps)]
    return statistics.median(times), min(times), max(times)


def nonzero_rand(*shape, dtype=torch.float32, device="cuda", generator=None):
    """Uniform in [-1, 1) with exact zeros moved to 0.5 (for 8-bit floats,
    every value below 2^-6 in magnitude, which may round to zero)."""
    t = torch.rand(*shape, device=device, generator=generator,
                   dtype=torch.float32) * 2 - 1
    tiny = 2.0 ** -6 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) \
        else 0.0
    t[t.abs() <= tiny] = 0.5
    return t.to(dtype)


def nonzero_randint(*shape, low=-8, high=8, dtype=torch.int8, device="cuda",
                    generator=None):
    """Integers uniform in [low, high) with 0 moved to 1 (low < 0 < high)."""
    t = torch.randint(low, high, shape, device=device, generator=generator,
                      dtype=torch.int32)
    t[t == 0] = 1
    return t.to(dtype)


def compare(out, ref, rtol, atol):
    """Checks |out - ref| <= atol + rtol * |ref| element-wise, as tile-run
    --check does (NaN never passes). Returns (ok, max abs err, max rel err
    over nonzero references, worst ratio of error to bound)."""
    out = out.double()
    ref = ref.double()
    err = (out - ref).abs()
    bound = atol + rtol * ref.abs()
    ok = bool((err <= bound).all())
    if not err.numel():
        return ok, 0.0, 0.0, 0.0
    nonzero = ref != 0
    max_rel = float((err[nonzero] / ref[nonzero].abs()).max()) \
        if nonzero.any() else 0.0
    ratio = torch.where(err == 0, torch.zeros_like(err), err / bound)
    return ok, float(err.max()), max_rel, float(ratio.max())
