#!/usr/bin/env bash
# ptx-corpus.sh - compile every bundled example and library GEMM variant to
# PTX, for comparing the compiler's output before and after a change.
#
#   utils/ptx-corpus.sh OUTDIR [BUILD]
#
# Writes OUTDIR/<config>/<kernel>.ptx for the examples and the GEMM in NN, NT
# and TN (f16, bf16, i8; fp8 NT on sm_90a), for sm_80 and sm_90a, with the
# default flags, --no-warp-specialize and --no-tma-store, in the default and
# the tuned Hopper configuration. `diff -r` two such folders to see what a
# change did to the generated code.
set -uo pipefail
out=${1:?usage: ptx-corpus.sh OUTDIR [BUILD]}
build=${2:-build}
cd "$(dirname "$0")/.."
compile=$build/bin/tile-compile
status=0
run() { # dir args...
  local dir=$1
  shift
  mkdir -p "$dir"
  if ! "$compile" "$@" -o "$dir" --no-cubin >"$dir.log" 2>&1; then
    echo "failed: $*" >&2
    status=1
  fi
}
for chip in sm_80 sm_90a; do
  for flags in default no-warp-specialize no-tma-store; do
    extra=()
    [ "$flags" = default ] || extra=(--"$flags")
    for f in examples/*.mlir; do
      run "$out/$chip-$flags/examples-$(basename "$f" .mlir)" "$f" --chip "$chip" "${extra[@]}"
    done
    for layout in nn nt tn; do
      for types in "f16 f32 f16" "bf16 f32 bf16" "i8 i32 i32"; do
        set -- $types
        for config in default tuned; do
          params=(-D AT=$1 -D CT=$2 -D OT=$3)
          [ "$config" = tuned ] && params+=(-D BM=128 -D BN=256 -D BK=64 -D STAGES=3 -D THREADS=256)
          run "$out/$chip-$flags/gemm_$layout-$1-$config" "kernels/gemm_$layout.mlir" \
            --chip "$chip" "${extra[@]}" "${params[@]}"
        done
      done
    done
    if [ "$chip" = sm_90a ]; then
      for at in f8E4M3FN f8E5M2; do
        run "$out/$chip-$flags/gemm_nt-$at" kernels/gemm_nt.mlir --chip "$chip" "${extra[@]}" \
          -D AT=$at -D OT=f16 -D BM=128 -D BN=128 -D BK=128 -D THREADS=256 -D STAGES=4
      done
    fi
  done
done
exit $status
