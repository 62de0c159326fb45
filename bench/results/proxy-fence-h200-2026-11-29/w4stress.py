# Repeated launches of the W4A16 kernels, compared bitwise with the first
# (their reductions run in a fixed order), the first against torch:
#   w4stress.py gemv REPS  the cluster-split tensor-core GEMV (before/)
#   w4stress.py gemm REPS  the GEMM without and with the fence (after/)
import sys, torch, tile
sys.path.insert(0, 'bench')
from gpu_gemv import w4_operands
KIND = sys.argv[1]
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 300
gen = torch.Generator(device='cuda'); gen.manual_seed(3 if KIND == 'gemv' else 5)
if KIND == 'gemv':
    runs = [('w4c', '.dev/s2/k/w4c/gemv_w4a16_mma_kernel.manifest',
             [(16,16384,16384), (13,16389,4168), (16,43008,14336), (5,36864,9216), (16,20000,4200)])]
else:
    shapes = [(4096,8192,8192), (4096,28672,8192), (1000,4104,4096), (8192,14336,4096)]
    runs = [(tag, f'.dev/fx/{tag}/gemm_w4a16-f16-g128/gemm_w4a16_kernel.manifest', shapes)
            for tag in ('w4old', 'w4new')]
for tag, path, shapes in runs:
    kern = tile.load(path)
    for m, n, k in shapes:
        x, packed, s, z, wdq = w4_operands(m, n, k, 128, 'f16', False, gen, pad=True)
        y = torch.empty(m, n, dtype=torch.float16, device='cuda')
        ref = x.float() @ wdq.float().t()
        y.fill_(float('nan')); kern(x, packed, s, z, y); torch.cuda.synchronize()
        rel = ((y.float() - ref).abs().nan_to_num(1e9).max() / ref.abs().max()).item()
        first = y.clone(); bad = 0
        for i in range(REPS):
            y.fill_(float('nan')); kern(x, packed, s, z, y)
            if not torch.equal(y, first):
                bad += 1
        torch.cuda.synchronize()
        print(f'{tag} {m}x{n}x{k}: first rel err {rel:.3g}; {bad} of {REPS} launches differ', flush=True)
        del x, packed, s, z, wdq, y, ref
