"""Shared pieces of the benchmark scripts: launch a compiled tile kernel
through the Python package (python/tile) on torch tensors and check it
against a torch reference, and time it and the torch baselines with CUDA
events in the same process.

Inputs are fresh random tensors (never all zero); outputs are poisoned (NaN,
or the most negative integer) before the checked launch, so an element the
kernel fails to write shows as a mismatch.
"""

import statistics
import time

import torch

# tile-run's default tolerances (rtol, atol) by output type, for checks that
# name none; integers must match exactly.
DEFAULT_TOLERANCE = {torch.float16: (1e-2, 1e-3), torch.bfloat16: (3e-2, 1e-2),
                     torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-14)}


def poison(t):
    """Fills `t` with NaN, or with the most negative value of an integer
    type."""
    if t.is_floating_point():
        t.fill_(float("nan"))
    else:
        t.fill_(torch.iinfo(t.dtype).min)


def check_text(ok, max_abs, max_rel, worst):
    """One line on a check: its verdict and the largest errors."""
    return (f"{'ok' if ok else 'FAILED'}, max abs err {max_abs:.3g}, max rel "
            f"err {max_rel:.3g}, worst {worst:.2g} of the bound")


def check_launch(kernel, args, references, outputs=(), rtol=None, atol=None):
    """Launches `kernel` (a tile.Kernel) on `args` once, with the tensors at
    the positions `outputs` poisoned first, and compares the tensor at each
    position of `references` with its reference (tolerances by type where
    none are given). Returns (ok, text); a launch the package refuses is a
    failure whose text is the error."""
    import tile
    for i in outputs:
        poison(args[i])
    try:
        kernel(*args)
        torch.cuda.synchronize()
    except tile.TileError as e:
        return False, f"FAILED: {e}"
    ok, texts = True, []
    for i, ref in references.items():
        r, a = DEFAULT_TOLERANCE.get(ref.dtype, (0.0, 0.0))
        good, max_abs, max_rel, worst = compare(
            args[i], ref, r if rtol is None else rtol,
            a if atol is None else atol)
        ok = ok and good
        texts.append(check_text(good, max_abs, max_rel, worst))
    return ok, "; ".join(texts)


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
