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


# GEMM shapes of Llama- and Mistral-sized layers beyond the paper's (M, N,
# K): decode and prefill M on the N x K of 4096-, 5120- and 14336-wide
# models (QKV with grouped-query heads: 6144; MLP: 11008, 13824, 14336).
MODEL_GEMM = [(1, 6144, 4096), (1, 11008, 4096), (1, 4096, 11008),
              (8, 4096, 4096), (8, 14336, 4096), (32, 5120, 5120),
              (32, 4096, 14336), (128, 6144, 4096), (128, 13824, 5120),
              (512, 4096, 4096), (512, 11008, 4096), (512, 4096, 11008),
              (2048, 6144, 4096), (2048, 14336, 4096), (2048, 4096, 14336),
              (2048, 5120, 5120), (3000, 11008, 4096), (3000, 4096, 11008),
              (6144, 4096, 4096), (6144, 13824, 5120), (6144, 5120, 13824),
              (16384, 4096, 4096)]

# Matrix-vector N x K of the same layers (and a 32000-row LM head).
MODEL_GEMV = [(4096, 4096), (11008, 4096), (4096, 11008), (6144, 4096),
              (14336, 4096), (4096, 14336), (5120, 5120), (13824, 5120),
              (1024, 4096), (32000, 4096)]

# Prefill GEMMs with more than 1024 rows and few tiles of 128 x 256 (48 to
# 480 on 132 SMs), where the tile shape decides the waves: the shapes the
# costed rules of kernels/gemm_tuned.txt were measured on (M, N, K).
WIDE_GEMM = ([(m, n, 4096) for m in (1536, 2048, 3072)
              for n in (1024, 2048, 3072, 4096, 5120)] +
             [(1280, 1536, 8192), (1280, 2560, 8192), (2560, 1536, 8192),
              (2560, 2560, 8192), (4096, 1536, 4096), (4096, 2560, 4096),
              (4096, 3584, 4096), (8192, 512, 4096), (8192, 768, 4096),
              (1152, 4096, 14336), (2048, 1024, 14336), (1536, 1536, 8192),
              (6144, 1024, 4096), (1100, 7168, 4096)])


def random_gemm(count=30, seed=2026112801):
    """`count` GEMM shapes drawn with `seed`: M log-uniform in 1..8192, N
    and K multiples of 64 log-uniform in 512..16384, every sixth N 8 more
    and every tenth K 24 more (rows that are not multiples of 64)."""
    import random
    rng = random.Random(seed)
    drawn = []
    for i in range(count):
        m = max(int(round(2 ** rng.uniform(0, 13))), 1)
        n = 64 * int(round(2 ** rng.uniform(3, 8)))
        k = 64 * int(round(2 ** rng.uniform(3, 8)))
        if i % 6 == 5:
            n += 8
        if i % 10 == 7:
            k += 24
        drawn.append((m, n, k))
    return drawn


def parse_flash(text):
    """The FlashAttention shape of `text`, B:HQ:HKV:SQ:SKV:D:CAUSAL (CAUSAL
    0 or 1), as random_flash() gives them, named after its fields."""
    fields = text.split(":")
    if len(fields) != 7 or not all(f.isdigit() for f in fields) \
            or fields[6] not in ("0", "1"):
        raise ValueError(f"expected B:HQ:HKV:SQ:SKV:D:CAUSAL, got '{text}'")
    b, hq, hkv, sq, skv, d, causal = (int(f) for f in fields)
    return (text, b, hq, hkv, sq, skv, d, causal == 1)


def random_flash(count=16, seed=2026112901):
    """`count` FlashAttention shapes drawn with `seed`, each (name, batch,
    heads_q, heads_kv, seq_q, seq_kv, dim, causal): heads_q of 8 to 64,
    heads_kv dividing it (every head, or groups of 4 or 8), head dim 64 or
    128, sequences log-uniform in 256..8192 and not rounded (a third with
    seq_q != seq_kv), causal or not, and the batch that brings B * H_q *
    seq_q * seq_kv closest to 2^31 (twice the work of FA6), at most 16."""
    import random
    rng = random.Random(seed)
    drawn = []
    for i in range(count):
        hq = rng.choice((8, 12, 16, 24, 32, 40, 48, 64))
        group = rng.choice([g for g in (1, 4, 8) if hq % g == 0])
        sq = int(round(2 ** rng.uniform(8, 13)))
        skv = int(round(2 ** rng.uniform(8, 13))) if i % 3 == 2 else sq
        b = max(1, min(16, round(2 ** 31 / (hq * sq * skv))))
        drawn.append((f"Q{i}", b, hq, hq // group, sq, skv,
                      rng.choice((64, 128)), rng.random() < 0.5))
    return drawn
