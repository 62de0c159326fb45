#!/bin/sh
# gpu-tests.sh - run the GPU integration tests on a machine with a GPU but no
# LLVM or MLIR.
#
# The tests under test/Integration/GPU need a CUDA device and tile-compile;
# a GPU machine often has the driver and the CUDA toolkit but no LLVM 22.
# A build configured with -DTILE_STATIC_TOOLS=ON makes a tile-compile that
# needs neither libMLIR nor libLLVM; `bundle` gathers it with lit, FileCheck,
# not and count into a directory, and `run`, in a copy of this source tree on
# the GPU machine, builds the C runtime there (runtime/build-standalone.sh),
# writes a lit site configuration over both and runs the tests.
#
#   utils/gpu-tests.sh bundle BUILD DIR    (where the build is; BUILD static)
#   utils/gpu-tests.sh run DIR [LIT ARGS]  (on the GPU machine, from the tree)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llvm=${LLVM:-/usr/lib/llvm-22}

usage() {
  echo "usage: $0 bundle BUILD DIR | run DIR [LIT ARGS]" >&2
  exit 2
}

bundle() { # bundle BUILD DIR
  build=$1
  dir=$2
  compile="$build/bin/tile-compile"
  [ -x "$compile" ] || {
    echo "gpu-tests: $compile: not built (ninja -C $build tile-compile)" >&2
    exit 1
  }
  # A tile-compile against libMLIR.so runs only where LLVM 22 is installed.
  if ldd "$compile" | grep -q 'libMLIR\|libLLVM'; then
    echo "gpu-tests: $compile links LLVM's shared libraries;" \
      "configure $build with -DTILE_STATIC_TOOLS=ON" >&2
    exit 1
  fi
  mkdir -p "$dir/bin" "$dir/lib"
  strip -o "$dir/bin/tile-compile" "$compile"
  for tool in FileCheck not count; do
    cp "$llvm/bin/$tool" "$dir/bin/$tool"
    # Libraries that a GPU machine's base system need not have (Debian's
    # LLVM tools link libz3): bundled, and found through LD_LIBRARY_PATH.
    ldd "$llvm/bin/$tool" | awk '/=> \// {print $3}' | while read -r lib; do
      case $(basename "$lib") in
      libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libz.so* | \
        libzstd.so* | ld-linux*) ;;
      *) cp -L "$lib" "$dir/lib/" ;;
      esac
    done
  done
  rm -rf "$dir/lit"
  cp -r "$llvm/utils/lit" "$dir/lit"
  find "$dir/lit" -name __pycache__ -prune -exec rm -rf {} +
  echo "gpu-tests: bundled tile-compile, lit, FileCheck, not and count in $dir"
}

run() { # run DIR [LIT ARGS]
  dir=$(cd "$1" && pwd)
  shift
  obj="$dir/obj"
  # The runtime and the tests' C programs, where the build tree has them.
  sh "$root/runtime/build-standalone.sh" "$obj/standalone" >/dev/null
  mkdir -p "$obj/bin" "$obj/lib" "$obj/test/Integration/GPU" \
    "$obj/test/Runtime"
  cp "$dir/bin/tile-compile" "$obj/standalone/bin/tile-run" "$obj/bin/"
  cp "$obj/standalone/lib/libtile_runtime.so" "$obj/lib/"
  cp "$obj/standalone/bin/tile-rt-ref" "$obj/test/Integration/GPU/"
  cp "$obj/standalone/bin/tile-rt-runtime-api" "$obj/test/Runtime/"
  cat >"$obj/test/lit.site.cfg.py" <<EOF
# Written by utils/gpu-tests.sh run.
config.llvm_tools_dir = "$dir/bin"
config.mlir_obj_dir = "$obj"
config.tile_src_root = "$root"
config.tile_obj_root = "$obj"
config.tile_tools_dir = "$obj/bin"
config.tile_lib_dir = "$obj/lib"
config.mlir_opt = "$dir/bin/mlir-opt"
config.c_compiler = "${CC:-cc}"
config.mlir_include_dir = ""
config.host_triple = "x86_64-unknown-linux-gnu"
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$root/test/lit.cfg.py")
EOF
  PATH="$dir/bin:$PATH" PYTHONPATH="$dir/lit" \
    LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" python3 -c \
    'from lit.main import main; main()' "$@" "$obj/test/Integration/GPU"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
bundle) [ $# -eq 2 ] || usage; bundle "$@" ;;
run) [ $# -ge 1 ] || usage; run "$@" ;;
*) usage ;;
esac
