#!/usr/bin/env python3
"""ptx-loop-count: the instructions one iteration of a kernel's main loop
executes on its shortest path, per unit of work, from a PTX file.

    utils/ptx-loop-count.py KERNEL.ptx ENTRY UNITS [--key INSTR]

Splits the entry's body into basic blocks, takes the loop (a block that
reaches itself) holding the most instructions named --key (default
fma.rn.f32), and follows the path through it, from its header back to
it, with the fewest instructions: where a copy tests for a whole tile,
the path of whole tiles. Prints the instructions of that path, their
number per UNITS (e.g. the weights a thread handles per iteration), each
opcode's count, and the blocks of the path. docs/Quantized.md counts the
W4A16 GEMV's K loop with it (UNITS = 64 weights per thread per step).
"""

import argparse
import collections
import heapq
import re
import sys


def parse(text, entry):
    start = text.find(f".entry {entry}(")
    if start < 0:
        sys.exit(f"no .entry {entry} in the file")
    body = text[text.index("{", start):]
    blocks, order, cur = {"entry": []}, ["entry"], "entry"
    for line in body.splitlines():
        s = line.strip()
        m = re.match(r"^(\$L__BB\d+_\d+):", s)
        if m:
            cur = m.group(1)
            blocks[cur] = []
            order.append(cur)
            continue
        if s == "}" and cur:
            break
        if s.endswith(";") and not s.startswith((".", "//")):
            blocks[cur].append(s)
    succ = {}
    for i, b in enumerate(order):
        out = [m.group(1) for s in blocks[b]
               for m in [re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+)", s)]
               if m]
        last = blocks[b][-1] if blocks[b] else ""
        ends = re.match(r"^(bra\.uni|bra|ret)\b", last)
        if not ends and i + 1 < len(order):
            out.append(order[i + 1])
        succ[b] = out
    return blocks, order, succ


def reach(succ, src):
    seen, stack = {src}, [src]
    while stack:
        for n in succ[stack.pop()]:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def opcode(s):
    return (s.split()[1] if s.startswith("@") else s.split()[0]).rstrip(";")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ptx")
    ap.add_argument("entry")
    ap.add_argument("units", type=int)
    ap.add_argument("--key", default="fma.rn.f32")
    args = ap.parse_args()
    blocks, order, succ = parse(open(args.ptx).read(), args.entry)
    reached = {b: reach(succ, b) for b in order}
    best = None
    for h in order:
        loop = [b for b in order if b in reached[h] and h in reached[b]]
        n = sum(1 for b in loop for s in blocks[b] if args.key in s)
        if loop and (best is None or n > best[0]):
            best = (n, h, set(loop))
    if not best or not best[0]:
        sys.exit(f"no loop with {args.key}")
    _, head, loop = best
    # Dijkstra from the header back to it, over the loop's blocks.
    queue, done, settled = [(len(blocks[head]), head, [head])], None, set()
    while queue:
        d, b, path = heapq.heappop(queue)
        if b in settled and b != head:
            continue
        settled.add(b)
        for n in succ[b]:
            if n == head:
                if done is None or d < done[0]:
                    done = (d, path)
            elif n in loop and n not in settled:
                heapq.heappush(queue, (d + len(blocks[n]), n, path + [n]))
    if done is None:
        sys.exit("the loop has no path back to its header")
    count, path = done
    ops = collections.Counter(opcode(s) for b in path for s in blocks[b])
    moves = ops.get("mov.b32", 0)
    print(f"{args.entry}: {count} instructions per iteration, "
          f"{count / args.units:.2f} per unit ({args.units} units); "
          f"{moves} mov.b32, {(count - moves) / args.units:.2f} per unit "
          "without them")
    for op, c in ops.most_common():
        print(f"  {c:6d} {op}")
    print("path:", " ".join(f"{b}({len(blocks[b])})" for b in path))


if __name__ == "__main__":
    main()
