"""Host-side packing of 4-bit weights for the W4A16 kernels
(kernels/gemv_w4a16.mlir, kernels/gemm_w4a16.mlir; docs/Quantized.md).

A weight matrix W (N x K, the rows are output features) is quantized per
group of G consecutive elements of a row (G = 32, 64 or 128) to integers
q in [0, 15] with one scale s and one zero point z per group:

    W[n, k] ~= (q[n, k] - z[n, k // G]) * s[n, k // G]

The symmetric form has no zeros tensor and z = 8 (q - 8 is the signed
int4 value, stored offset by 8). The kernels take

    packed  N x ceil(K / 2) bytes (int8 tensor): byte j of row n holds
            q[n, 2j] in its low nibble and q[n, 2j + 1] in its high one
            (an odd K is padded with a zero nibble)
    scales  N x ceil(K / G), f16 or bf16
    zeros   N x ceil(K / G), same type as scales (asymmetric form only)

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

def pack_rows(q):
    """Packs rows of 4-bit unsigned integers (lists of 0..15) into rows of
    signed bytes (-128..127, the int8 view of the packed byte)."""
    out = []
    for row in q:
        packed = []
        for j in range(0, len(row), 2):
            lo = row[j]
            hi = row[j + 1] if j + 1 < len(row) else 0
            if not (0 <= lo <= 15 and 0 <= hi <= 15):
                raise ValueError(f"value out of 0..15 in column {j} or "
                                 f"{j + 1}: {lo}, {hi}")
            byte = lo | (hi << 4)
            packed.append(byte - 256 if byte > 127 else byte)
        out.append(packed)
    return out


def unpack_rows(packed, k):
    """Inverse of pack_rows: the first k nibbles of each row."""
    out = []
    for row in packed:
        values = []
        for byte in row:
            byte &= 0xFF
            values += [byte & 0xF, byte >> 4]
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

def pack(q):
    """q: N x K integers in [0, 15] (a torch tensor or rows of ints).
    Returns the N x ceil(K / 2) int8 packed tensor (or rows)."""
    if not _is_torch(q):
        return pack_rows(q)
    import torch
    if q.numel() and (int(q.min()) < 0 or int(q.max()) > 15):
        raise ValueError("values out of 0..15")
    q = q.to(torch.int32)
    if q.shape[1] % 2:
        q = torch.nn.functional.pad(q, (0, 1))
    byte = q[:, 0::2] | (q[:, 1::2] << 4)
    return byte.to(torch.uint8).view(torch.int8).contiguous()


def unpack(packed, k):
    """Inverse of pack: N x k integers in [0, 15] (int32 for torch)."""
    if not _is_torch(packed):
        return unpack_rows(packed, k)
    import torch
    b = packed.view(torch.uint8).to(torch.int32)
    q = torch.stack((b & 0xF, b >> 4), dim=2).reshape(b.shape[0], -1)
    return q[:, :k].contiguous()


def quantize(w, group, symmetric=False, dtype=None):
    """w: N x K float tensor. Returns (q int32 in [0, 15], scales, zeros or
    None) with scales and zeros of `dtype` (default w's), N x ceil(K / G);
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
    return q, s.to(dtype), (None if symmetric else z.to(dtype))


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
