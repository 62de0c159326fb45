#!/usr/bin/env bash
# build.sh - set up, build and run tile on a Debian 12 machine.
#
#   ./build.sh        install the packages, build, and run the main job:
#                     compile the bundled GEMM kernel (and run it where a GPU
#                     is present)
#   ./build.sh test   build and run every test (lit + FileCheck, C API tests)
#
# TILE_BUILD_DIR (default: build) selects the build directory; JOBS the
# build's parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")"
BUILD=${TILE_BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
LLVM=/usr/lib/llvm-22
PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
          cmake ninja-build gcc g++ python3)

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
  echo "== tile-opt: verifying and checking examples/gemm.mlir"
  "$BUILD/bin/tile-opt" examples/gemm.mlir \
    --tile-check-resources="chip=sm_90a remarks=true" \
    --mlir-print-op-on-diagnostic=false
}

install_packages
build
case "${1:-main}" in
  main) main_job ;;
  test) ninja -C "$BUILD" -j "$JOBS" check-tile ;;
  *) echo "usage: $0 [test]" >&2; exit 2 ;;
esac
