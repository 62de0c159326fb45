#!/usr/bin/env bash
# build.sh - set up, build and run tile on a Debian 12 machine.
#
#   ./build.sh        install the packages, build, and run the main job:
#                     check the bundled GEMM, compile the bundled kernels to
#                     PTX and cubin, and run one where a GPU is present
#   ./build.sh test   build and run every test (lit + FileCheck, C API tests)
#
# TILE_BUILD_DIR (default: build) selects the build directory; JOBS the
# build's parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")"
BUILD=${TILE_BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
LLVM=/usr/lib/llvm-22
# The bundled kernels the main job compiles (examples/<name>.mlir).
KERNELS=(gemm reverse elementwise_add bias_relu row_softmax row_softmax_onepass row_softmax_pipelined row_reduce column_reduce cumsum histogram)
# python3-dev: the headers of the Python package's C extension (the build
# skips it without them, python/CMakeLists.txt).
PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
          rocm-device-libs cmake ninja-build gcc g++ python3 python3-dev)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "== installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

build() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR=$LLVM/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$LLVM/bin/lit
  fi
  ninja -C "$BUILD" -j "$JOBS"
}

main_job() {
  local out="$BUILD/kernels"
  echo "== tile-opt: verifying examples/gemm.mlir and checking its resources"
  "$BUILD/bin/tile-opt" examples/gemm.mlir -o /dev/null \
    --tile-check-resources="chip=sm_90a remarks=true" \
    --mlir-print-op-on-diagnostic=false
  echo "== tile-compile: examples -> $out (PTX, cubin where ptxas exists)"
  for kernel in ${KERNELS[@]}; do
    "$BUILD/bin/tile-compile" "examples/$kernel.mlir" -o "$out" --chip sm_90a --time
  done
  echo "== tile-compile: examples -> $out/gfx942 (HSACO for AMD MI300; no AMD GPU runs them here)"
  for kernel in ${KERNELS[@]}; do
    "$BUILD/bin/tile-compile" "examples/$kernel.mlir" -o "$out/gfx942" --chip gfx942
  done
  if "$BUILD/bin/tile-run" --list-devices > /dev/null 2>&1; then
    echo "== tile-run: reverse_kernel on the GPU, 1000003 random floats"
    "$BUILD/bin/tile-run" "$out/reverse_kernel.manifest" \
      --arg arg0=1000003:random --arg arg1=1000003:poison --time --reps 20
  else
    echo "== tile-run: no CUDA GPU here; the kernels were compiled, not run"
    "$BUILD/bin/tile-run" "$out/reverse_kernel.manifest" --dry-run \
      --arg arg0=1000003 --arg arg1=1000003
  fi
}

install_packages
build
case "${1:-main}" in
  main) main_job ;;
  test) ninja -C "$BUILD" -j "$JOBS" check-tile ;;
  *) echo "usage: $0 [test]" >&2; exit 2 ;;
esac
