# The cluster-split tensor-core W4A16 GEMV: repeated launches compared
# bitwise with the first (deterministic reduce), the first against torch.
import sys, torch, tile
sys.path.insert(0, 'bench')
from gpu_gemv import w4_operands
gen = torch.Generator(device='cuda'); gen.manual_seed(3)
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 500
kern = tile.load('.dev/s2/k/w4c/gemv_w4a16_mma_kernel.manifest')
for m, n, k in [(16,16384,16384), (13,16389,4168), (16,43008,14336), (5,36864,9216), (16, 20000, 4200)]:
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
    print(f'w4c {m}x{n}x{k}: first rel err {rel:.3g}; {bad} of {REPS} launches differ', flush=True)
