"""Host-side packing of 4-bit weights for the W4A16 kernels
(kernels/gemv_w4a16.mlir, kernels/gemm_w4a16.mlir; docs/Quantized.md).

A weight matrix W (N x K, the rows are output features) is quantized per
group of G consecutive elements of a row (G = 32, 64 or 128) to integers
q in [0, 15] with one scale s and one zero point z per group:

    W[n, k] ~= (q[n, k] - z[n, k // G]) * s[n, k // G]

The symmetric form has no zeros tensor and z = 8 (q - 8 is the signed
int4 value, stored offset by 8). The kernels take

    packed  N x W 32-bit words (int32 tensor), W >= ceil(K / 8): word c of
            row n holds q[n, 8c + 2i] in bits 4i..4i+3 and q[n, 8c + 2i + 1]
            in bits 16+4i..16+4i+3, for i = 0..3 (K is padded with zero
            nibbles to a multiple of 8, and `pack` pads each row with zero
            words to a multiple of 4: 16-byte rows). Shifted right by 4i
            and masked with 0x000F000F, a word gives the adjacent weights
            8c + 2i and 8c + 2i + 1 in its two 16-bit halves, which the
            kernels turn into an f16x2 / bf16x2 pair with one OR
            (docs/Quantized.md).
    scales  N x S, f16 or bf16, S >= ceil(K / G): group j of row n is
            column j; columns past ceil(K / G) are not read
    zeros   N x S, same type as scales (asymmetric form only)

W rounded up to a multiple of 4 and S to a multiple of 8 (16-byte rows,
what `pack` and `quantize` return; `pad_groups`) let the kernels load
weights, scales and zeros 16 bytes at a time; with rows of other lengths
every load of them takes the kernels' misaligned path, measured up to 1.4x
slower for the weights and 2.9x for the scales (docs/Quantized.md).

Two implementations of the same functions: pure Python on nested lists
(the reference, and what the CPU-only test runs) and torch tensors (what
the GPU benchmark runs); `pack` and `unpack` take either.
"""

GROUPS = (32, 64, 128)


def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


def _check_group(group):
    if group not in GROUPS:
        raise ValueError(f"group size {group} is not one of {GROUPS}")


# ---------------------------------------------------------------------------
# Pure Python: rows of ints.

WORD = 8  # weights per 32-bit word
ROW_WORDS = 4  # words per 16 bytes


def row_words(k, pad=True):
    """Words of a packed row of k weights: ceil(k / 8), rounded up to a
    multiple of 4 (16 bytes) unless `pad` is false."""
    words = (k + WORD - 1) // WORD
    return words + (-words % ROW_WORDS) if pad else words


def _bit(j):
    """Bit offset of weight j (0..7) of a word."""
    return 16 * (j % 2) + 4 * (j // 2)


def pack_rows(q, pad=True):
    """Packs rows of 4-bit unsigned integers (lists of 0..15) into rows of
    32-bit words (-2^31..2^31-1, the int32 view of the word), row_words
    long (16-byte rows unless `pad` is false)."""
    out = []
    for row in q:
        packed = []
        for c in range(0, len(row), WORD):
            word = 0
            for j, v in enumerate(row[c:c + WORD]):
                if not 0 <= v <= 15:
                    raise ValueError(f"value out of 0..15 in column {c + j}: "
                                     f"{v}")
                word |= v << _bit(j)
            packed.append(word - (1 << 32) if word >= 1 << 31 else word)
        packed += [0] * (row_words(len(row), pad) - len(packed))
        out.append(packed)
    return out


def unpack_rows(packed, k):
    """Inverse of pack_rows: the first k nibbles of each row."""
    out = []
    for row in packed:
        values = []
        for word in row:
            word &= 0xFFFFFFFF
            values += [(word >> _bit(j)) & 0xF for j in range(WORD)]
        out.append(values[:k])
    return out


def quantize_rows(w, group, symmetric=False):
    """Quantizes rows of floats per group: returns (q, scales, zeros), zeros
    None when symmetric. Asymmetric groups map [min, max] onto [0, 15]
    (zero point round(-min / s)); symmetric ones map max |w| onto 7."""
    _check_group(group)
    q, scales, zeros = [], [], []
    for row in w:
        qrow, srow, zrow = [], [], []
        for g in range(0, len(row), group):
            chunk = row[g:g + group]
            if symmetric:
                s = max(abs(v) for v in chunk) / 7 or 1.0
                z = 8
            else:
                lo, hi = min(min(chunk), 0.0), max(max(chunk), 0.0)
                s = (hi - lo) / 15 or 1.0
                z = min(15, max(0, round(-lo / s)))
            qrow += [min(15, max(0, round(v / s) + z)) for v in chunk]
            srow.append(s)
            zrow.append(z)
        q.append(qrow)
        scales.append(srow)
        zeros.append(zrow)
    return q, scales, (None if symmetric else zeros)


def dequantize_rows(q, scales, zeros, group):
    """(q - z) * s per element; z = 8 when zeros is None."""
    out = []
    for n, row in enumerate(q):
        out.append([(v - (zeros[n][k // group] if zeros is not None else 8))
                    * scales[n][k // group] for k, v in enumerate(row)])
    return out


# ---------------------------------------------------------------------------
# torch tensors.

def pack(q, pad=True):
    """q: N x K integers in [0, 15] (a torch tensor or rows of ints).
    Returns the N x row_words(K, pad) int32 packed tensor (or rows): rows
    of 16 bytes unless `pad` is false."""
    if not _is_torch(q):
        return pack_rows(q, pad)
    import torch
    if q.numel() and (int(q.min()) < 0 or int(q.max()) > 15):
        raise ValueError("values out of 0..15")
    q = q.to(torch.int64)
    q = torch.nn.functional.pad(
        q, (0, row_words(q.shape[1], pad) * WORD - q.shape[1]))
    q = q.view(q.shape[0], -1, WORD)
    word = torch.zeros_like(q[:, :, 0])
    for j in range(WORD):
        word |= q[:, :, j] << _bit(j)
    word = torch.where(word >= 1 << 31, word - (1 << 32), word)
    return word.to(torch.int32).contiguous()


def unpack(packed, k):
    """Inverse of pack: N x k integers in [0, 15] (int32 for torch)."""
    if not _is_torch(packed):
        return unpack_rows(packed, k)
    import torch
    w = packed.to(torch.int64) & 0xFFFFFFFF
    q = torch.stack([(w >> _bit(j)) & 0xF for j in range(WORD)], dim=2)
    return q.reshape(w.shape[0], -1)[:, :k].to(torch.int32).contiguous()


def pad_groups(t, multiple=8):
    """Scales or zeros (N x groups; a torch tensor or rows of numbers, or
    None) with each row padded with zeros to a multiple of `multiple`
    columns: 8 makes rows of 16-bit values 16 bytes long."""
    if t is None:
        return None
    if not _is_torch(t):
        return [list(row) + [0] * (-len(row) % multiple) for row in t]
    import torch
    return torch.nn.functional.pad(t, (0, -t.shape[1] % multiple)).contiguous()


def quantize(w, group, symmetric=False, dtype=None, pad=True):
    """w: N x K float tensor. Returns (q int32 in [0, 15], scales, zeros or
    None) with scales and zeros of `dtype` (default w's), N x ceil(K / G),
    padded to a multiple of 8 columns unless `pad` is false (pad_groups);
    the quantization of quantize_rows, computed on the tensor's device."""
    if not _is_torch(w):
        return quantize_rows(w, group, symmetric)
    import torch
    _check_group(group)
    dtype = dtype or w.dtype
    n, k = w.shape
    groups = (k + group - 1) // group
    wf = torch.nn.functional.pad(w.float(), (0, groups * group - k))
    wg = wf.view(n, groups, group)
    if symmetric:
        s = wg.abs().amax(dim=2) / 7
        s[s == 0] = 1.0
        s = s.to(dtype).float()
        z = torch.full_like(s, 8.0)
    else:
        lo = wg.amin(dim=2).clamp(max=0.0)
        hi = wg.amax(dim=2).clamp(min=0.0)
        s = (hi - lo) / 15
        s[s == 0] = 1.0
        s = s.to(dtype).float()
        z = torch.round(-lo / s).clamp(0, 15)
    q = torch.round(wg / s[:, :, None]) + z[:, :, None]
    q = q.clamp(0, 15).to(torch.int32).view(n, -1)[:, :k].contiguous()
    s, z = s.to(dtype), (None if symmetric else z.to(dtype))
    return (q, pad_groups(s), pad_groups(z)) if pad else (q, s, z)


def dequantize(q, scales, zeros, group, dtype=None):
    """(q - z) * s in f32, rounded to `dtype` (default the scales' type):
    the matrix the kernels multiply by (their products are exact in f32
    once each weight is rounded to the activation type)."""
    if not _is_torch(q):
        return dequantize_rows(q, scales, zeros, group)
    import torch
    k = q.shape[1]
    idx = torch.arange(k, device=q.device) // group
    s = scales.float()[:, idx]
    z = zeros.float()[:, idx] if zeros is not None else 8.0
    return ((q.float() - z) * s).to(dtype or scales.dtype)
