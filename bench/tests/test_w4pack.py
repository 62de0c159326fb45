"""Unit tests of bench/w4pack.py: the pure-Python packer everywhere, the
torch one where torch is installed (skipped otherwise), and the two
against each other."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import w4pack  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


class PackRowsTest(unittest.TestCase):
    def test_nibble_order(self):
        # Weights 2i and 2i + 1 of a word at bits 4i and 16 + 4i: columns
        # 0 and 1 of [1, 2] make 0x00020001.
        self.assertEqual(w4pack.pack_rows([[1, 2]], pad=False), [[0x00020001]])
        self.assertEqual(w4pack.pack_rows([[0, 0, 3, 4]], pad=False),
                         [[0x00400030]])
        # Column 7 is the top nibble: 0xF0000000 is negative as an int32.
        self.assertEqual(w4pack.pack_rows([[0] * 7 + [15]], pad=False),
                         [[0xF0000000 - (1 << 32)]])

    def test_pair_extraction(self):
        # (word >> 4i) & 0x000F000F holds columns 2i and 2i + 1 in its two
        # 16-bit halves.
        q = [3, 12, 5, 9, 0, 15, 7, 1]
        word = w4pack.pack_rows([q], pad=False)[0][0] & 0xFFFFFFFF
        for i in range(4):
            pair = (word >> (4 * i)) & 0x000F000F
            self.assertEqual((pair & 0xFFFF, pair >> 16), (q[2 * i], q[2 * i + 1]))

    def test_ragged_k_is_padded(self):
        self.assertEqual(w4pack.pack_rows([[7, 8, 9]], pad=False),
                         [[0x00080097]])
        self.assertEqual(w4pack.unpack_rows([[0x00080097]], 3), [[7, 8, 9]])
        self.assertEqual(len(w4pack.pack_rows([[1] * 9], pad=False)[0]), 2)

    def test_rows_padded_to_16_bytes(self):
        # By default a row is a multiple of 4 words, the padding zero words
        # (zero nibbles, which the kernels never read past K).
        self.assertEqual(w4pack.pack_rows([[7, 8, 9]]),
                         [[0x00080097, 0, 0, 0]])
        for k, words in ((1, 4), (32, 4), (33, 8), (20047, 2508)):
            self.assertEqual(w4pack.row_words(k), words)
            self.assertEqual(len(w4pack.pack_rows([[1] * k])[0]), words)
        self.assertEqual(w4pack.row_words(20047, pad=False), 2506)

    def test_round_trip(self):
        rng = random.Random(5)
        for k in (1, 2, 7, 8, 31, 64, 129):
            q = [[rng.randrange(16) for _ in range(k)] for _ in range(3)]
            packed = w4pack.pack_rows(q)
            self.assertEqual(len(packed[0]), w4pack.row_words(k))
            self.assertEqual(len(packed[0]) % 4, 0)
            self.assertTrue(all(-(1 << 31) <= w < (1 << 31)
                                for r in packed for w in r))
            self.assertEqual(w4pack.unpack_rows(packed, k), q)

    def test_out_of_range(self):
        with self.assertRaises(ValueError):
            w4pack.pack_rows([[16, 0]])
        with self.assertRaises(ValueError):
            w4pack.pack_rows([[0, -1]])

    def test_pad_groups(self):
        # Rows of 16-bit scales padded to 16 bytes; None stays None.
        rows = [[1, 2, 3], [4, 5, 6]]
        padded = w4pack.pad_groups(rows)
        self.assertEqual(padded, [[1, 2, 3, 0, 0, 0, 0, 0],
                                  [4, 5, 6, 0, 0, 0, 0, 0]])
        self.assertEqual(w4pack.pad_groups([[0] * 8]), [[0] * 8])
        self.assertIsNone(w4pack.pad_groups(None))

    def test_quantize_error_bound(self):
        rng = random.Random(7)
        for symmetric in (False, True):
            for group in w4pack.GROUPS:
                w = [[rng.uniform(-1, 1) for _ in range(2 * group + 5)]
                     for _ in range(2)]
                q, s, z = w4pack.quantize_rows(w, group, symmetric)
                self.assertEqual(z is None, symmetric)
                self.assertEqual(len(s[0]), 3)
                d = w4pack.dequantize_rows(q, s, z, group)
                for n, row in enumerate(w):
                    for k, v in enumerate(row):
                        # Within half a step, or clamped at the range end.
                        self.assertLessEqual(abs(d[n][k] - v),
                                             s[n][k // group] * (1 if symmetric else 0.5) + 1e-9)

    def test_bad_group(self):
        with self.assertRaises(ValueError):
            w4pack.quantize_rows([[0.0] * 8], 16)


@unittest.skipIf(torch is None, "torch is not installed")
class PackTorchTest(unittest.TestCase):
    def test_matches_rows(self):
        g = torch.Generator().manual_seed(3)
        for k in (1, 6, 8, 33):
            q = torch.randint(0, 16, (4, k), generator=g)
            packed = w4pack.pack(q)
            self.assertEqual(packed.dtype, torch.int32)
            self.assertEqual(packed.tolist(), w4pack.pack_rows(q.tolist()))
            self.assertTrue(torch.equal(w4pack.unpack(packed, k), q.int()))

    def test_dequantize_matches_rows(self):
        g = torch.Generator().manual_seed(4)
        w = torch.rand(3, 200, generator=g) * 2 - 1
        for symmetric in (False, True):
            q, s, z = w4pack.quantize(w, 64, symmetric, dtype=torch.float32)
            # 200 columns are 4 groups of 64, padded to 8 columns.
            self.assertEqual(tuple(s.shape), (3, 8))
            self.assertTrue(bool((s[:, 4:] == 0).all()))
            d = w4pack.dequantize(q, s, z, 64, dtype=torch.float32)
            ref = w4pack.dequantize_rows(
                q.tolist(), s.tolist(), None if z is None else z.tolist(), 64)
            # Unpadded, the same scales.
            _, s0, _ = w4pack.quantize(w, 64, symmetric, dtype=torch.float32,
                                       pad=False)
            self.assertTrue(torch.equal(s0, s[:, :4]))
            self.assertTrue(torch.allclose(d, torch.tensor(ref), atol=1e-6))
            self.assertLess(float((d - w).abs().max()), float(s.max()) + 1e-6)


if __name__ == "__main__":
    unittest.main()
