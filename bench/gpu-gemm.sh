#!/bin/bash
# gpu-gemm.sh [KERNELS_DIR] [gpu_gemm.py options] - on a GPU machine without
# MLIR: build the C runtime, then check and time every library GEMM that
# tile-compile wrote under KERNELS_DIR (default build/kernels/gemm) against
# torch.matmul and Triton (bench/gpu_gemm.py). The report goes to stdout and
# $OUT/gemm.md (OUT defaults to .); the exit status is gpu_gemm.py's.
#
# Compile the variants first, on a machine with MLIR, one directory each:
#   for L in nn nt tn; do
#     tile-compile kernels/gemm_$L.mlir -o build/kernels/gemm/$L-f16
#     tile-compile kernels/gemm_$L.mlir -o build/kernels/gemm/$L-bf16 -D AT=bf16 -D OT=bf16
#     tile-compile kernels/gemm_$L.mlir -o build/kernels/gemm/$L-i8 -D AT=i8 -D CT=i32 -D OT=i32 -D BK=64
#   done
set -u
OUT=${OUT:-.}
K=${1:-build/kernels/gemm}
shift || true
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sh runtime/build-standalone.sh /tmp/rt > $OUT/build.log 2>&1 || { cat $OUT/build.log; exit 1; }
python3 bench/gpu_gemm.py --kernels "$K" --runtime /tmp/rt/lib/libtile_runtime.so "$@" | tee $OUT/gemm.md
exit ${PIPESTATUS[0]}
