#!/usr/bin/env python3
# gen-fragment-checks.py - CHECK lines of the built-in fragment tests.
#
# Writes the body of layout-builtins-nvidia.mlir (from the PTX ISA fragment
# formulas, written out below independently of the C++ built-ins) or of
# layout-builtins-amd.mlir (from the tables printed by AMD's matrix
# instruction calculator, matrix_calculator.py, whose path is the second
# argument):
#
#   gen-fragment-checks.py nvidia
#   gen-fragment-checks.py amd /path/to/matrix_calculator.py
import subprocess, re, sys, os

def ptx(name):
    # returns (threads, nregs, fn(lane, i) -> (row, col))
    g = lambda l: l >> 2
    t = lambda l: l % 4
    if name == 'mma_m16n8k16_a':
        return 32, 8, lambda l, i: (g(l) + (0 if (i < 2 or 4 <= i < 6) else 8), t(l)*2 + (i & 1) + (0 if i < 4 else 8))
    if name == 'mma_m16n8k16_b':
        return 32, 4, lambda l, i: (t(l)*2 + (i & 1) + (0 if i < 2 else 8), g(l))
    if name in ('mma_m16n8k16_c', 'mma_m16n8k8_c', 'mma_m16n8k32_c'):
        return 32, 4, lambda l, i: (g(l) + (0 if i < 2 else 8), t(l)*2 + (i & 1))
    if name == 'mma_m16n8k8_a':
        return 32, 4, lambda l, i: (g(l) + (0 if i in (0, 2) else 8), t(l) + (0 if i in (0, 1) else 4))
    if name == 'mma_m16n8k8_b':
        return 32, 2, lambda l, i: (t(l) + (0 if i == 0 else 4), g(l))
    if name == 'mma_m16n8k32_a':
        return 32, 16, lambda l, i: (g(l) + (0 if (i < 4 or 8 <= i < 12) else 8), t(l)*4 + (i & 3) + (0 if i < 8 else 16))
    if name == 'mma_m16n8k32_b':
        return 32, 8, lambda l, i: (t(l)*4 + (i & 3) + (0 if i < 4 else 16), g(l))
    if name.startswith('wgmma_c'):
        n = int(name.split('_')[-1])
        return 128, n // 2, lambda l, i: ((l // 32) * 16 + g(l % 32) + 8 * ((i >> 1) & 1), (i // 4) * 8 + t(l % 32) * 2 + (i & 1))
    raise KeyError(name)

def amd(instr, m):
    out = subprocess.run([sys.executable, sys.argv[2], '--architecture', 'cdna3', '--instruction', instr,
                          '--matrix-layout', '--%s-matrix' % m], capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split('|')]
        if not cells[0].isdigit():
            continue
        lane = int(cells[0])
        for i, c in enumerate(cells[1:]):
            mm = re.match(r'[ABD]\[(\d+)\]\[(\d+)\]', c)
            table[(lane, i)] = (int(mm.group(1)), int(mm.group(2)))
    lanes = max(k[0] for k in table) + 1
    regs = max(k[1] for k in table) + 1
    return lanes, regs, lambda l, i: table[(l, i)]

def checks(name, threads, nregs, fn, full):
    lines = []
    for l in range(threads):
        r, c = fn(l, 0)
        lines.append('// CHECK: T%d R0: (%d, %d)' % (l, r, c))
        if l in full:
            for i in range(1, nregs):
                r, c = fn(l, i)
                lines.append('// CHECK-NEXT: T%d R%d: (%d, %d)' % (l, i, r, c))
    return lines

which = sys.argv[1]
if which == 'nvidia':
    items = [('mma_m16n8k16_a', '[16, 16]'), ('mma_m16n8k16_b', '[16, 8]'), ('mma_m16n8k16_c', '[16, 8]'),
             ('mma_m16n8k8_a', '[16, 8]'), ('mma_m16n8k8_b', '[8, 8]'), ('mma_m16n8k8_c', '[16, 8]'),
             ('mma_m16n8k32_a', '[16, 32]'), ('mma_m16n8k32_b', '[32, 8]'), ('mma_m16n8k32_c', '[16, 8]'),
             ('wgmma_c_64', '[64, 64]')]
    for name, shape in items:
        threads, nregs, fn = ptx(name)
        attr = 'wgmma_c' if name.startswith('wgmma') else name
        print('func.func private @%s() attributes {layout = #tile.fragment<%s, %s>, print = "threads"}' % (name, shape, attr))
        canon = {'mma_m16n8k8_c': 'mma_m16n8k16_c', 'mma_m16n8k32_c': 'mma_m16n8k16_c'}.get(attr, attr)
        print('// CHECK-LABEL: === %s: #tile.fragment<%s, %s>' % (name, shape, canon))
        print('// CHECK: threads: %d registers: %d replicate: 1' % (threads, nregs))
        print('// CHECK-NEXT: injective: true')
        print('// CHECK-NEXT: bijective: true')
        full = {0, 5, 31} if threads == 32 else {0, 37, 127}
        print('\n'.join(checks(name, threads, nregs, fn, full)))
        print()
else:
    for instr, pre in [('v_mfma_f32_32x32x8_f16', 'mfma_32x32x8'), ('v_mfma_f32_16x16x16_f16', 'mfma_16x16x16')]:
        for m, suf in [('A', 'a'), ('B', 'b'), ('D', 'c')]:
            lanes, nregs, fn = amd(instr, m)
            rows = max(fn(l, i)[0] for l in range(lanes) for i in range(nregs)) + 1
            cols = max(fn(l, i)[1] for l in range(lanes) for i in range(nregs)) + 1
            name = '%s_%s' % (pre, suf)
            shape = '[%d, %d]' % (rows, cols)
            print('func.func private @%s() attributes {layout = #tile.fragment<%s, %s>, print = "threads"}' % (name, shape, name))
            canon = {'mfma_16x16x16_c': 'mfma_16x16x16_b'}.get(name, name)
            print('// CHECK-LABEL: === %s: #tile.fragment<%s, %s>' % (name, shape, canon))
            print('// CHECK: threads: %d registers: %d replicate: 1' % (lanes, nregs))
            print('// CHECK-NEXT: injective: true')
            print('// CHECK-NEXT: bijective: true')
            print('\n'.join(checks(name, lanes, nregs, fn, {0, 33, 63})))
            print()
