#!/bin/sh
# check-standalone.sh - build the runtime with runtime/build-standalone.sh and
# run its checks on a GPU host that has a C compiler and the CUDA driver but
# no CMake build of the project: the same runs as test/Runtime and
# test/Integration/GPU, with grep in place of FileCheck.
#
#   runtime/check-standalone.sh [WORKDIR [CUBIN]]
#
# WORKDIR (default check-standalone) receives the build and the outputs.
# CUBIN, when given, is kernels.cu built with -cubin; every kernel then also
# runs from it. Prints one line per check and exits non-zero on a failure.
# Where tile-run finds no CUDA device, the checks that need one are skipped
# with a message and the script exits zero if the others passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=${1:-check-standalone}
cubin=${2:-}
"$here/build-standalone.sh" "$work/build" || exit 1
bin=$work/build/bin
in=$root/test/Integration/GPU/Inputs
t=$work/tmp
rm -rf "$t" && mkdir -p "$t"
fails=0

# run NAME WANT CMD...: runs CMD into $t/NAME.out; WANT is 0 (must succeed)
# or 1 (must fail cleanly, not by a signal).
run() {
  name=$1 want=$2
  shift 2
  "$@" >"$t/$name.out" 2>&1
  rc=$?
  bad=0
  if [ "$want" = 0 ] && [ "$rc" != 0 ]; then bad=1; fi
  if [ "$want" != 0 ] && { [ "$rc" = 0 ] || [ "$rc" -ge 128 ]; }; then bad=1; fi
  if [ "$bad" = 1 ]; then
    echo "FAIL $name: exit status $rc"
    sed 's/^/    /' "$t/$name.out"
    fails=$((fails + 1))
  fi
}

# expect NAME TEXT: the output of run NAME holds TEXT (fixed string).
expect() {
  if grep -qF -- "$2" "$t/$1.out"; then
    echo "ok   $1: $2"
  else
    echo "FAIL $1: no '$2' in"
    sed 's/^/    /' "$t/$1.out"
    fails=$((fails + 1))
  fi
}

ref=$bin/tile-rt-ref
tr=$bin/tile-run

# The checks that need no GPU.
run dtype 0 "$bin/tile-rt-dtype"
expect dtype "f32->f16 against _Float16: 0 mismatches"
expect dtype "f32->bf16 against exact rounding: 0 mismatches"
run nodriver 1 env TILE_RT_CUDA_DRIVER=/nonexistent/libcuda.so.1 "$tr" \
  "$in/vadd.manifest" --arg A=8 --arg B=8 --arg C=8 --arg n=8
expect nodriver "tile-run: error: cannot load the CUDA driver '/nonexistent/libcuda.so.1'"

# Without a usable device the GPU checks cannot say anything: skip them,
# saying why, rather than report each as a failure.
if ! "$tr" --list-devices >"$t/devices.out" 2>&1; then
  echo "skipped the GPU checks: no CUDA device ($(cat "$t/devices.out"))"
  if [ "$fails" = 0 ]; then echo "ALL CHECKS PASSED (GPU checks skipped)"; else echo "$fails CHECKS FAILED"; fi
  [ "$fails" = 0 ]
  exit
fi
run devices 0 "$tr" --list-devices
expect devices "device 0:"
run api 0 "$bin/tile-rt-runtime-api" "$in/kernels.ptx"
expect api "vadd_f32: 0 wrong"
expect api "vadd_f32 in clusters: 0 wrong"
expect api "missing kernel: TILE_RT_ERROR_DRIVER: kernel 'no_such_kernel': cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"
expect api "PASS"
run badname 1 "$tr" "$in/bad-kernel.manifest"
expect badname "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"

# Every kernel from the PTX, and from the cubin when one is given.
kinds=ptx
if [ -n "$cubin" ]; then
  kinds="ptx cubin"
  for m in vadd vadd-cluster add2d rowrev tma; do
    sed "s|^binary kernels.ptx ptx|binary $cubin cubin|" "$in/$m.manifest" \
      >"$t/$m-cubin.manifest"
  done
fi
for kind in $kinds; do
  if [ "$kind" = ptx ]; then dir=$in sfx=; else dir=$t sfx=-cubin; fi
  k=$kind
  # Vector add: random inputs, poisoned output, host reference.
  run $k-vadd-gen 0 "$tr" "$dir/vadd$sfx.manifest" --seed 7 --arg A=4097:f32:random \
    --arg B=4097:random --arg C=4097:poison --arg n=4097 \
    --dump A="$t/a" --dump B="$t/b" --dump C="$t/c"
  run $k-vadd-ref 0 "$ref" add-f32 "$t/a" "$t/b" "$t/ref"
  run $k-vadd-wrongref 0 "$ref" sub-f32 "$t/a" "$t/b" "$t/wrong"
  run $k-vadd 0 "$tr" "$dir/vadd$sfx.manifest" --arg A=4097:file="$t/a" \
    --arg B=4097:file="$t/b" --arg C=4097:poison --arg n=4097 \
    --check C="$t/ref" --time --reps 20
  expect $k-vadd "kernel vadd_f32 ($kind) on"
  expect $k-vadd "check C: ok, 0 of 4097 elements mismatch, max abs err 0"
  expect $k-vadd "time: median"
  run $k-vadd-cmp 0 cmp "$t/c" "$t/ref"
  run $k-vadd-wrong 1 "$tr" "$dir/vadd$sfx.manifest" --arg A=4097:file="$t/a" \
    --arg B=4097:file="$t/b" --arg C=4097:poison --arg n=4097 --check C="$t/wrong"
  expect $k-vadd-wrong "check C: FAILED"
  run $k-vadd-poison 1 "$tr" "$dir/vadd$sfx.manifest" --arg A=4097:file="$t/a" \
    --arg B=4097:file="$t/b" --arg C=4097:poison --arg n=4000 --check C="$t/ref"
  expect $k-vadd-poison "first at [4000]: got nan"
  # Clusters of two blocks.
  run $k-cluster 0 "$tr" "$dir/vadd-cluster$sfx.manifest" --arg A=4097:file="$t/a" \
    --arg B=4097:file="$t/b" --arg C=4097:poison --arg n=4097 --check C="$t/ref"
  expect $k-cluster "cluster 2 1 1"
  expect $k-cluster "check C: ok, 0 of 4097"
  # f16 add through memref descriptors, ragged shapes.
  for shape in 1000x1000 4097x33 1x5; do
    run $k-add2d-gen-$shape 0 "$tr" "$dir/add2d$sfx.manifest" --seed 3 \
      --arg A=$shape:f16 --arg B=$shape:f16 --arg C=$shape:f16:poison \
      --dump A="$t/ha" --dump B="$t/hb"
    run $k-add2d-ref-$shape 0 "$ref" add-f16 "$t/ha" "$t/hb" "$t/href"
    run $k-add2d-$shape 0 "$tr" "$dir/add2d$sfx.manifest" \
      --arg A=$shape:file="$t/ha" --arg B=$shape:file="$t/hb" \
      --arg C=$shape:poison --check C="$t/href"
    expect $k-add2d-$shape "check C: ok, 0 of"
  done
  # 64 KiB of dynamic shared memory.
  run $k-rowrev-gen 0 "$tr" "$dir/rowrev$sfx.manifest" --arg A=7x16384 \
    --arg B=7x16384:poison --dump A="$t/r"
  run $k-rowrev-ref 0 "$ref" rowrev-f32 16384 "$t/r" "$t/rref"
  run $k-rowrev 0 "$tr" "$dir/rowrev$sfx.manifest" --arg A=7x16384:file="$t/r" \
    --arg B=7x16384:poison --check B="$t/rref"
  expect $k-rowrev "shared 65536"
  expect $k-rowrev "check B: ok, 0 of 114688"
  # TMA tensor map.
  run $k-tma-gen 0 "$tr" "$dir/tma$sfx.manifest" --arg A=1000x1000 \
    --arg B=1000x1000:poison --dump A="$t/ta"
  run $k-tma 0 "$tr" "$dir/tma$sfx.manifest" --arg A=1000x1000:file="$t/ta" \
    --arg B=1000x1000:poison --check B="$t/ta"
  expect $k-tma "check B: ok, 0 of 1000000"
done

# The C references against numpy, where python3 has it.
if python3 -c 'import numpy' 2>/dev/null; then
  run numpy 0 python3 - "$t" <<'PYEOF'
import sys, numpy as np
t = sys.argv[1]
a = np.fromfile(t + "/ha", np.float16); b = np.fromfile(t + "/hb", np.float16)
want = (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16)
assert (np.fromfile(t + "/href", np.float16).view(np.uint16) == want.view(np.uint16)).all()
a = np.fromfile(t + "/a", np.float32); b = np.fromfile(t + "/b", np.float32)
assert (np.fromfile(t + "/c", np.float32) == a + b).all()
assert a.min() >= -1 and a.max() < 1 and (a != 0).all()
print("numpy agrees with the C references")
PYEOF
  expect numpy "numpy agrees"
fi

if [ "$fails" = 0 ]; then echo "ALL CHECKS PASSED"; else echo "$fails CHECKS FAILED"; fi
[ "$fails" = 0 ]
