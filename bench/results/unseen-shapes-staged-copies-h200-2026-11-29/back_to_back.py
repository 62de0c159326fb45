# Back-to-back launches of the dispatching GEMMs (KDIR/dispatch, as
# bench/gpu_library.py builds them) on staged and aligned shapes: the best of
# five runs of 200 calls, us per call. Run from the repository root with
# TILE_RUNTIME_LIB naming the runtime to measure.
import os, sys, torch
sys.path.insert(0, "python")
import tile
shapes = [(47, 6094, 353), (113, 2535, 182), (1886, 1196, 66), (8031, 39, 307), (1574, 9516, 17), (16, 4096, 4095), (333, 8193, 2050), (48, 6096, 352), (112, 2536, 184)]
for lay in ("nn", "nt", "tn"):
    kern = tile.load(os.environ.get("KDIR", "build/library") + f"/dispatch/{lay}-f16/gemm_{lay}_kernel.manifest")
    for m, n, k in shapes:
        a = torch.randn((m, k) if lay != "tn" else (k, m), device="cuda", dtype=torch.float16)
        b = torch.randn((k, n) if lay != "nt" else (n, k), device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        for _ in range(20):
            kern(a, b, c)
        torch.cuda.synchronize()
        best = 1e9
        for rep in range(5):
            e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(200):
                kern(a, b, c)
            e1.record(); torch.cuda.synchronize()
            best = min(best, e0.elapsed_time(e1) * 1000 / 200)
        print(lay, f"{m}x{n}x{k}", "%.2f" % best, flush=True)
