#!/bin/sh
# check-amd-occupancy.sh BUILD CHIP FILE [-D NAME=VALUE...] - compare the
# waves per SIMD that tile-compile --resources gives an AMD kernel (from the
# HSACO's metadata, dialect/lib/Target.cpp residentWaves) with the
# occupancy LLVM's AMDGPU backend computes for it (llc's "; Occupancy:"
# comment, on the kernel module's bitcode before the device libraries are
# linked, so its register counts may differ by a few). Prints both; exit
# status 1 where the waves differ. Needs Debian's llc-22 (LLVM=/usr/lib/llvm-22).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 BUILD CHIP FILE [-D NAME=VALUE...]" >&2; exit 2; }
build=$1 chip=$2 file=$3
shift 3
llvm=${LLVM:-/usr/lib/llvm-22}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/tile-compile" "$file" --chip "$chip" "$@" -o "$tmp/out" --resources \
  | sed -n 's/^tile-compile: resources of //p' | head -1 > "$tmp/tile"
"$build/bin/tile-compile" "$file" --chip "$chip" "$@" --print-source > "$tmp/k.mlir"
"$build/bin/tile-opt" "$tmp/k.mlir" --tile-to-rocdl="chip=$chip format=llvm" > "$tmp/k.out"
# The kernel module's bitcode, printed by MLIR as an escaped string.
python3 - "$tmp/k.out" "$tmp/k.bc" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="latin1").read()
start = re.search(r'offload = "', text[text.index("gpu.binary @"):])
i = text.index("gpu.binary @") + start.end()
out = bytearray()
while text[i] != '"':
    if text[i] == "\\":
        if text[i + 1] == "\\":
            out.append(0x5C); i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16)); i += 3
    else:
        out.append(ord(text[i])); i += 1
open(sys.argv[2], "wb").write(out)
PY
"$llvm/bin/llc" -mtriple=amdgcn-amd-amdhsa -mcpu="$chip" -O3 "$tmp/k.bc" -o "$tmp/k.s"
ours=$(grep -o '[0-9]* waves\{0,1\} per SIMD' "$tmp/tile" | cut -d' ' -f1)
llvms=$(sed -n 's/^; Occupancy: //p' "$tmp/k.s" | head -1)
echo "tile-compile: $(cat "$tmp/tile")"
echo "llc: $(grep -E '^; (TotalNumVgprs|NumAgprs|Occupancy):' "$tmp/k.s" | tr '\n' ' ')"
[ "$ours" = "$llvms" ] && echo "waves per SIMD agree: $ours" || { echo "waves per SIMD differ: $ours against $llvms"; exit 1; }
