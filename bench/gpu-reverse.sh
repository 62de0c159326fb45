#!/bin/bash
# gpu-reverse.sh [KERNELS_DIR] - on a GPU machine without MLIR: build the C
# runtime, then run the reverse kernel that tile-compile made (cubin and PTX)
# on ragged sizes with poisoned outputs against the C reference, and under
# compute-sanitizer memcheck, racecheck and synccheck. Logs go to $OUT (or .).
set -u
OUT=${OUT:-.}
sed "s/^binary reverse_kernel.cubin cubin/binary reverse_kernel.ptx ptx/" "${1:-build/kernels}/reverse_kernel.manifest" > "${1:-build/kernels}/reverse_ptx.manifest"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sh runtime/build-standalone.sh /tmp/rt > $OUT/build.log 2>&1 || { cat $OUT/build.log; exit 1; }
B=/tmp/rt/bin; K=${1:-build/kernels}
for m in reverse_kernel reverse_ptx; do
  for n in 1000003 5 524288; do
    $B/tile-run $K/$m.manifest --seed 3 --arg arg0=$n:random --arg arg1=$n:poison --dump arg0=/tmp/in$n > /dev/null
    $B/tile-rt-ref rowrev-f32 128 /tmp/in$n /tmp/ref$n
    echo "== $m n=$n"
    $B/tile-run $K/$m.manifest --arg arg0=$n:file=/tmp/in$n --arg arg1=$n:poison --check arg1=/tmp/ref$n --time --reps 50
    echo "rc=$?"
  done
done
echo "== memcheck"
compute-sanitizer --tool memcheck $B/tile-run $K/reverse_kernel.manifest --arg arg0=1000003 --arg arg1=1000003:poison 2>&1 | tail -3
echo "== racecheck"
compute-sanitizer --tool racecheck $B/tile-run $K/reverse_kernel.manifest --arg arg0=1000003 --arg arg1=1000003:poison 2>&1 | tail -3
echo "== synccheck"
compute-sanitizer --tool synccheck $B/tile-run $K/reverse_kernel.manifest --arg arg0=100003 --arg arg1=100003:poison 2>&1 | tail -3
