"""Command-line options the benchmark scripts share. No torch here, so that
--help and --dry work on a machine without a GPU."""


def add_cool_argument(parser, timings="each timing", note=""):
    """Adds --cool to an argparse parser: the seconds the GPU idles before
    `timings` (bench/harness.py's COOL_S, which the script sets from it),
    default 1 s."""
    parser.add_argument("--cool", type=float, default=1.0,
                        help=f"seconds the GPU idles before {timings}, so "
                             "that every timing starts from the same power "
                             "state (bench/harness.py, COOL_S); 0 times back "
                             f"to back{note}")
