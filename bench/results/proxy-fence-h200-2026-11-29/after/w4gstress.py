# The W4A16 GEMM before and after the proxy fence: repeated launches
# compared bitwise with the first (no split: deterministic).
import sys, torch, tile
sys.path.insert(0, 'bench')
from gpu_gemv import w4_operands
gen = torch.Generator(device='cuda'); gen.manual_seed(5)
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 300
for tag in ('w4old', 'w4new'):
    kern = tile.load(f'.dev/fx/{tag}/gemm_w4a16-f16-g128/gemm_w4a16_kernel.manifest')
    for m, n, k in [(4096, 8192, 8192), (4096, 28672, 8192), (1000, 4104, 4096), (8192, 14336, 4096)]:
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
