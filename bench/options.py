"""Command-line options the benchmark scripts share. No torch here, so that
--help and --dry work on a machine without a GPU."""

# Where runtime/build-standalone.sh /tmp/rt puts the C runtime on a GPU
# machine without MLIR.
DEFAULT_RUNTIME = "/tmp/rt/lib/libtile_runtime.so"



def add_cool_argument(parser, timings="each timing", note=""):
    """Adds --cool to an argparse parser: the seconds the GPU idles before
    `timings` (bench/harness.py's COOL_S, which the script sets from it),
    default 1 s."""
    parser.add_argument("--cool", type=float, default=1.0,
                        help=f"seconds the GPU idles before {timings}, so "
                             "that every timing starts from the same power "
                             "state (bench/harness.py, COOL_S); 0 times back "
                             f"to back{note}")


def add_runtime_argument(parser):
    """Adds --runtime to an argparse parser: the C runtime library that the
    Python package (python/tile) loads."""
    parser.add_argument("--runtime", default=DEFAULT_RUNTIME,
                        help="libtile_runtime.so, which the Python package "
                             "loads (runtime/build-standalone.sh OUTDIR makes "
                             "OUTDIR/lib/libtile_runtime.so)")
