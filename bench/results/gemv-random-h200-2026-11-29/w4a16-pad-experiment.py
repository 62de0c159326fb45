# Times the W4A16 GEMV (m = 1) with scales/zeros in rows of ceil(K / G)
# against the same values in rows padded with zeros to a multiple of 8
# groups (N x 8 * ceil(groups / 8), contiguous). Run from the repository
# root: PYTHONPATH=python:bench python3 THIS_FILE DIR, with DIR what
# bench/build_gemv_kernels.sh wrote.
import os, sys
sys.path.insert(0, "bench")
import torch
import tile, harness, w4pack
from harness import time_torch, compare
from gpu_gemv import w4_operands, w4_tolerance
root = sys.argv[1]
gen = torch.Generator(device="cuda"); gen.manual_seed(7)
zk = tile.load(os.path.join(root, "gemv_w4a16-f16-g128", "gemv_w4a16_kernel.manifest"))
sk = tile.load(os.path.join(root, "gemv_w4a16-f16-g128", "gemv_w4a16_sym_kernel.manifest"))
for n, k in [(4368, 10248), (4368, 10240), (984, 20047), (984, 19968), (31471, 513), (10799, 3121), (3584, 18944), (18944, 3584)]:
    for sym in (False, True):
        x, packed, s, z, wdq = w4_operands(1, n, k, 128, "f16", sym, gen, pad=False)
        groups = s.shape[1]
        wide = (groups + 7) // 8 * 8
        sp = torch.zeros(n, wide, dtype=s.dtype, device="cuda"); sp[:, :groups] = s; sv = sp
        zv = None
        if z is not None:
            zp = torch.zeros(n, wide, dtype=z.dtype, device="cuda"); zp[:, :groups] = z; zv = zp
        y = torch.empty(1, n, dtype=torch.float16, device="cuda")
        fn = sk if sym else zk
        res = []
        for (S, Z) in ((s, z), (sv, zv)):
            call = (lambda S=S: fn(x, packed, S, y)) if sym else (lambda S=S, Z=Z: fn(x, packed, S, Z, y))
            y.fill_(float("nan")); call(); torch.cuda.synchronize()
            ref = (x.float() @ wdq.float().t()).to(torch.float16)
            ok = bool(torch.isfinite(y).all()) and torch.allclose(y.float(), ref.float(), rtol=0.05, atol=0.5)
            t = time_torch(call, reps=100, flush=True)[0] * 1000
            res.append(f"{t:6.1f} us {'ok' if ok else 'BAD'}")
        print(f"{n}x{k} {'sym ' if sym else 'zero'} groups={groups}: contiguous {res[0]} | padded {res[1]}", flush=True)
