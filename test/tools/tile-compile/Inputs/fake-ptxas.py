#!/usr/bin/env python3
"""A stand-in for ptxas: writes an empty cubin and, with -v, the report a
real ptxas prints, for each `.entry` of the PTX, with the registers, spills
and static shared memory of FAKE_PTXAS (REGS,STORES,LOADS,SMEM; default
80,0,0,0), a second, unrelated function first and a warning last."""
import os
import re
import sys

args = sys.argv[1:]
out = args[args.index("-o") + 1]
ptx = next(a for a in args if a.endswith(".ptx"))
regs, stores, loads, smem = os.environ.get("FAKE_PTXAS", "80,0,0,0").split(",")
entries = re.findall(r"\.entry\s+(\w+)", open(ptx).read())
open(out, "wb").close()
if "-v" in args:
    print("ptxas info    : 0 bytes gmem")
    print("ptxas info    : Compiling entry function 'unrelated' for 'sm_90a'")
    print("ptxas info    : Function properties for unrelated")
    print("    0 bytes stack frame, 999 bytes spill stores, 999 bytes spill loads")
    print("ptxas info    : Used 255 registers, used 0 barriers")
    for name in entries:
        print(f"ptxas info    : Compiling entry function '{name}' for 'sm_90a'")
        print(f"ptxas info    : Function properties for {name}")
        print(f"    0 bytes stack frame, {stores} bytes spill stores, "
              f"{loads} bytes spill loads")
        print(f"ptxas info    : Used {regs} registers, used 1 barriers, "
              f"{smem} bytes smem, 368 bytes cmem[0]")
        print("ptxas info    : Compile time = 1.000 ms")
    print("ptxas warning : a warning the user should see", file=sys.stderr)
