#!/usr/bin/env bash
# build_gemv_kernels.sh - compile the kernels bench/gpu_gemv.py runs, on a
# machine with MLIR, into one folder to carry to the GPU machine.
#
#   bench/build_gemv_kernels.sh OUTDIR [BUILD] [CHIP]
#
# BUILD is the build tree holding bin/tile-compile (default build), CHIP the
# target (default sm_90a). Writes OUTDIR/NAME/KERNEL.{ptx,cubin,manifest}
# for each configuration below (cubins where ptxas is found), and
# OUTDIR/BUILD-INFO with the commit and the commands.
set -euo pipefail
out=${1:?usage: build_gemv_kernels.sh OUTDIR [BUILD] [CHIP]}
build=${2:-build}
chip=${3:-sm_90a}
cd "$(dirname "$0")/.."
compile=$build/bin/tile-compile
mkdir -p "$out"
info=$out/BUILD-INFO
{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "chip $chip"
} >"$info"
run() { # name file args...
  local name=$1 file=$2
  shift 2
  rm -rf "${out:?}/$name"
  echo "tile-compile $file -o $name --chip $chip $*" >>"$info"
  "$compile" "$file" -o "$out/$name" --chip "$chip" "$@"
}
# The G = 128 default of kernel KERNEL (kernels/KERNEL.mlir): the
# dispatching artifact of kernels/gemv_tuned.txt where the table has rules
# for the chip, else the file's defaults.
run_default() { # name kernel
  if grep -q "^$2 .*chip=$chip" kernels/gemv_tuned.txt; then
    run "$1" "kernels/$2.mlir" --dispatch kernels/gemv_tuned.txt
  else
    run "$1" "kernels/$2.mlir" -D G=128
  fi
}
# fp16 / bf16 GEMV with the chip's defaults (one row of X per block), and
# a batched configuration: four rows of X per block, one row of W per
# warp.
# The f16 and bf16 builds dispatch by K where kernels/gemv_tuned.txt has
# rules for the chip (sm_90a: steps of 512, 1024 or 2048 by K, narrower
# vectors where K is not a multiple of 8; sm_80: the narrower vectors).
if grep -q "^gemv .*chip=$chip" kernels/gemv_tuned.txt; then
  run gemv-f16 kernels/gemv.mlir --dispatch kernels/gemv_tuned.txt
  run gemv-bf16 kernels/gemv.mlir -D AT=bf16 -D OT=bf16 \
    --dispatch kernels/gemv_tuned.txt
else
  run gemv-f16 kernels/gemv.mlir
  run gemv-bf16 kernels/gemv.mlir -D AT=bf16 -D OT=bf16
fi
run gemv-f16-m4 kernels/gemv.mlir -D BM=4 -D BN=4
# W4A16: 4-bit weights, f16 activations and scales, group 128 (and 32, 64
# for the GEMV), with zero points and without.
# The kernel's tile.params(G=...) lines set GS = BK / G and GR = G / 8.
# The default (G = 128) is the dispatching artifact of kernels/gemv_tuned.txt
# where the table has rules for the chip (sm_90a: 8-row blocks up to N =
# 12288, 16-row ones above).
for g in 32 64; do
  run "gemv_w4a16-f16-g$g" kernels/gemv_w4a16.mlir -D G=$g
done
run_default gemv_w4a16-f16-g128 gemv_w4a16
# bf16 accumulates in f32 (the kernel's default for AT = bf16: CT = bf16
# would round every step to 8 bits),
# and so does one f16 build, beside the default f16 accumulation.
run gemv_w4a16-bf16-g128 kernels/gemv_w4a16.mlir -D AT=bf16
run gemv_w4a16-f16-g128-f32acc kernels/gemv_w4a16.mlir -D CT=f32
# Two and four rows of X per block for m = 16: each dequantized pair of
# weights serves every row.
run gemv_w4a16-f16-g128-m2 kernels/gemv_w4a16.mlir -D BM=2
run gemv_w4a16-f16-g128-m4 kernels/gemv_w4a16.mlir -D BM=4 -D BN=4
# The tensor-core kernel for m <= 16 (f32 accumulation).
# The default (G = 128) dispatches as the one-row kernel does (sm_90a: five
# blocks per SM up to N = 12288).
for g in 32 64; do
  run "gemv_w4a16_mma-f16-g$g" kernels/gemv_w4a16_mma.mlir -D G=$g
done
run_default gemv_w4a16_mma-f16-g128 gemv_w4a16_mma
run gemv_w4a16_mma-bf16-g128 kernels/gemv_w4a16_mma.mlir -D AT=bf16
run gemm_w4a16-f16-g128 kernels/gemm_w4a16.mlir -D G=128
run gemm_w4a16-bf16-g128 kernels/gemm_w4a16.mlir -D G=128 -D AT=bf16
echo "wrote $out"
