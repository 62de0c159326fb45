"""The benchmark shapes of the TileLang paper (Appendix A, Tables 2 and 3)
and of the issues that extend them, defined once for the benchmark scripts.
No torch here, so that --help and --dry work on a machine without a GPU."""

# (name, N, K) of Table 2's matrix-vector shapes (m = 1).
GEMV = [("V0", 16384, 16384), ("V1", 43008, 14336),
        ("V2", 14336, 14336), ("V3", 57344, 14336),
        ("V4", 14336, 57344), ("V5", 9216, 9216),
        ("V6", 36864, 9216), ("V7", 9216, 36864)]

# (name, M, N, K) of Table 2's matrix shapes.
GEMM = [("M0", 4096, 1024, 8192), ("M1", 4096, 8192, 8192),
        ("M2", 4096, 28672, 8192), ("M3", 4096, 8192, 28672),
        ("M4", 8192, 1024, 8192), ("M5", 8192, 8192, 8192),
        ("M6", 8192, 28672, 8192), ("M7", 8192, 8192, 28672)]

# Table 3 (FA0-FA4) and issue 13's two larger shapes (FA5, FA6):
# (name, batch, heads, seq_q, seq_kv, dim, causal).
FLASH = [("FA0", 1, 32, 512, 512, 128, True),
         ("FA1", 1, 32, 512, 512, 128, False),
         ("FA2", 1, 32, 1024, 1024, 128, True),
         ("FA3", 1, 32, 1024, 1024, 128, False),
         ("FA4", 1, 32, 4096, 4096, 128, True),
         ("FA5", 8, 32, 4096, 4096, 128, False),
         ("FA6", 8, 32, 2048, 2048, 128, True)]


def named(shapes, *names):
    """The entries of `shapes` called `names`, in that order."""
    by_name = {s[0]: s for s in shapes}
    return [by_name[n] for n in names]
