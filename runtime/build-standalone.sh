#!/bin/sh
# build-standalone.sh - build libtile_runtime, tile-run and the runtime's test
# programs with a plain C compiler: no CMake, no MLIR, no CUDA toolkit.
# For GPU machines that run compiled kernels but do not build the compiler.
#
#   runtime/build-standalone.sh [OUTDIR]     (default: build-standalone)
#
# Honors CC (default gcc) and EXTRA_CFLAGS. Produces
#   OUTDIR/lib/libtile_runtime.{a,so}  OUTDIR/bin/tile-run
#   OUTDIR/bin/tile-rt-{runtime-api,dtype,expr,ref}
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-build-standalone}
cc=${CC:-gcc}
cflags="-std=c11 -O2 -g -Wall -Wextra -Wcast-qual -Wwrite-strings -Werror -fPIC ${EXTRA_CFLAGS:-}"

mkdir -p "$out/obj" "$out/lib" "$out/bin"
objs=""
for src in "$here"/lib/*.c; do
  obj="$out/obj/$(basename "$src" .c).o"
  $cc $cflags -I"$here/include" -c "$src" -o "$obj"
  objs="$objs $obj"
done
rm -f "$out/lib/libtile_runtime.a"
ar rcs "$out/lib/libtile_runtime.a" $objs
$cc -shared -o "$out/lib/libtile_runtime.so" $objs -ldl

link() { # link NAME SOURCE
  $cc $cflags -I"$here/include" "$2" "$out/lib/libtile_runtime.a" -ldl -lm \
    -o "$out/bin/$1"
}
link tile-run "$root/tools/tile-run/tile-run.c"
link tile-rt-runtime-api "$root/test/Runtime/runtime-api.c"
link tile-rt-dtype "$root/test/Runtime/dtype.c"
link tile-rt-expr "$root/test/Runtime/expr.c"
link tile-rt-ref "$root/test/Integration/GPU/Inputs/ref.c"
echo "built $out/bin/tile-run and $out/lib/libtile_runtime.{a,so}"
