import sys, torch, tile
torch.manual_seed(0)
def run(name, layout, m, n, k, reps):
    kern = tile.load(f'.dev/stress/k/{name}/gemm_{layout}_kernel.manifest')
    A = (torch.rand(m, k, device='cuda') - 0.5).half()
    B = ((torch.rand(n, k, device='cuda') - 0.5).half() if layout == 'nt' else (torch.rand(k, n, device='cuda') - 0.5).half())
    ref = A.float() @ (B.float().t() if layout == 'nt' else B.float())
    C = torch.empty(m, n, device='cuda', dtype=torch.half)
    bad = 0; worst = 0.0
    for i in range(reps):
        C.fill_(float('nan'))
        kern(A, B, C)
        torch.cuda.synchronize()
        err = (C.float() - ref).abs().nan_to_num(1e9).max().item()
        worst = max(worst, err)
        if err > 0.05 + 0.0: bad += 1
    print(f'{name} {m}x{n}x{k}: {bad} of {reps} launches wrong, worst abs err {worst:.4g}', flush=True)
for name, layout, shapes in [('nt32','nt',[(27,22824,4168),(32,4096,4096)]), ('nt16','nt',[(16,22824,4168),(13,16384,8192)]), ('nt16n64','nt',[(16,4096,4168),(9,6000,8192)]), ('nn16','nn',[(16,22824,4168),(13,16384,8192)]), ('nn16n64','nn',[(16,4096,4168),(9,6000,8192)])]:
    for m,n,k in shapes:
        run(name, layout, m, n, k, 300)
