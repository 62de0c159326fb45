#!/bin/bash
# flash-attn-kernels.sh OUT [CHIP] [BUILD] [OPTIONS...] - compile the
# library FlashAttention (kernels/flash_attn.mlir) for CHIP (default
# sm_90a) in every variant bench/gpu_flash_attn.py runs: f16 and bf16, head
# dim 64, 128 and 256 (64 and 128 on AMD chips), causal and not, one
# directory each (OUT/T-dD-causal, OUT/T-dD-full), with the file's options
# (fast-math among them: exp2 as one ex2.approx.ftz). Extra options (-D NAME=VALUE,
# --no-warp-specialize, ...) go to every variant; TYPES and DIMS
# (space-separated) narrow the set. Each variant is built with --dispatch
# over TABLE (default kernels/flash_attn_tuned.txt: on sm_90a causal
# launches choose between persistent pairs and one block per tile); TABLE=
# (empty) builds the file's defaults alone.
set -euo pipefail
OUT=${1:?usage: flash-attn-kernels.sh OUT [CHIP] [BUILD] [OPTIONS...]}
CHIP=${2:-sm_90a}
BUILD=${3:-build}
shift $(( $# < 3 ? $# : 3 ))
mkdir -p "$OUT"
# Head dim 256 does not fit the 64 KiB of LDS of the AMD chips
# (docs/FlashAttention.md, "On AMD chips").
case $CHIP in
gfx*) dims="64 128" ;;
*) dims="64 128 256" ;;
esac
TABLE=${TABLE-kernels/flash_attn_tuned.txt}
dispatch=()
[ -n "$TABLE" ] && dispatch=(--dispatch "$TABLE")
n=0
for t in ${TYPES:-f16 bf16}; do
  for d in ${DIMS:-$dims}; do
    for causal in true false; do
      name=$t-d$d-$([ $causal = true ] && echo causal || echo full)
      "$BUILD/bin/tile-compile" kernels/flash_attn.mlir -o "$OUT/$name" \
        --chip "$CHIP" -D T=$t -D D=$d -D CAUSAL=$causal "${dispatch[@]}" "$@" \
        > "$OUT.$name.log" 2>&1 || { cat "$OUT.$name.log"; exit 1; }
      n=$((n + 1))
    done
  done
done
echo "flash-attn-kernels: $n variants for $CHIP in $OUT"
