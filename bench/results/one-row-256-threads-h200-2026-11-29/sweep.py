# gemv_kn configurations on the NN products of M rows of X:
# y = x W (W K x N; NK='NxK,...' in the environment; sweep.py NAMES M,
# each NAME a build KDIR/NAME/gemv_kn_kernel.manifest, KDIR .dev/gk2
# unless set), cold L2, median of REPS (50 unless set), cuBLAS (torch.matmul) timed
# before and after each variant, the faster counted; outputs poisoned and
# checked first.
import sys, torch, tile, harness
harness.COOL_S = 0.02
names = sys.argv[1].split(',')
M = int(sys.argv[2])
import os
REPS = int(os.environ.get('REPS', 50))
KDIR = os.environ.get('KDIR', '.dev/gk2')
shapes = [tuple(map(int, p.split('x'))) for p in os.environ['NK'].split(',')]
kern = {n: tile.load(f'{KDIR}/{n}/gemv_kn_kernel.manifest') for n in names}
for rnd in (1, 2):
    order = names if rnd == 1 else names[::-1]
    for n, k in shapes:
        x = (torch.rand(M, k, device='cuda') - 0.5).half()
        W = (torch.rand(k, n, device='cuda') - 0.5).half()
        ref = x.float() @ W.float()
        y = torch.empty(M, n, device='cuda', dtype=torch.half)
        line = []
        for name in order:
            y.fill_(float('nan')); kern[name](x, W, y); torch.cuda.synchronize()
            err = (y.float() - ref).abs().nan_to_num(1e9).max().item()
            ok = err < 0.05 + 0.01 * ref.abs().max().item()
            b1, _ = harness.time_torch(lambda: torch.matmul(x, W), REPS, flush=True)
            t, _ = harness.time_torch(lambda: kern[name](x, W, y), REPS, flush=True)
            b2, _ = harness.time_torch(lambda: torch.matmul(x, W), REPS, flush=True)
            b = min(b1, b2)
            gbs = 2.0 * n * k / (t * 1e-3) / 1e9
            line.append(f'{name}:{gbs:.0f}GB/s {b/t:.2f}x{"" if ok else " WRONG"}')
        print(f'round {rnd} {M}x{n}x{k}: ' + '  '.join(line), flush=True)
        del x, W, y, ref
