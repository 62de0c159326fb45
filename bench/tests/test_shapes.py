"""Unit tests of the named shape lists (bench/shapes.py) and of how
bench/gpu_library.py reads --shapes; no GPU or torch needed."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gpu_library  # noqa: E402
import shapes  # noqa: E402


class ShapesTest(unittest.TestCase):
    def test_random_is_fixed(self):
        # The same seed draws the same shapes, so a run can be repeated.
        drawn = shapes.random_gemm()
        self.assertEqual(drawn, shapes.random_gemm())
        self.assertEqual(len(drawn), 30)
        self.assertEqual(drawn[0], (687, 14784, 3072))
        self.assertNotEqual(drawn, shapes.random_gemm(seed=1))
        for m, n, k in drawn:
            self.assertTrue(1 <= m <= 8192)
            self.assertEqual(n % 8, 0)
            self.assertEqual(k % 8, 0)

    def test_random_flash_is_fixed(self):
        # Fixed shapes: GQA groups that divide the heads, head dims the
        # library builds, batches that bound the work.
        drawn = shapes.random_flash()
        self.assertEqual(drawn, shapes.random_flash())
        self.assertEqual(len(drawn), 16)
        self.assertEqual(drawn[0], ("Q0", 16, 12, 12, 2116, 2116, 64, False))
        for _, b, hq, hkv, sq, skv, d, _ in drawn:
            self.assertEqual(hq % hkv, 0)
            self.assertIn(hq // hkv, (1, 4, 8))
            self.assertIn(d, (64, 128))
            self.assertTrue(1 <= b <= 16)
            self.assertTrue(256 <= min(sq, skv) and max(sq, skv) <= 8192)
        self.assertTrue(any(sq != skv for _, _, _, _, sq, skv, _, _ in drawn))

    def test_parse_flash(self):
        self.assertEqual(shapes.parse_flash("16:40:5:1328:1328:128:1"),
                         ("16:40:5:1328:1328:128:1", 16, 40, 5, 1328, 1328,
                          128, True))
        for bad in ("16:40:5:1328:1328:128", "16:40:5:1328:1328:128:2",
                    "16:x:5:1328:1328:128:0"):
            with self.assertRaises(ValueError):
                shapes.parse_flash(bad)

    def test_wide_have_few_tiles(self):
        # More than 1024 rows, and 48 to 480 tiles of 128 x 256.
        self.assertEqual(len(shapes.WIDE_GEMM), 29)
        for m, n, _ in shapes.WIDE_GEMM:
            tiles = -(-m // 128) * -(-n // 256)
            self.assertGreater(m, 1024)
            self.assertTrue(48 <= tiles <= 480, (m, n, tiles))

    def test_part_b_names_and_sizes(self):
        args = type("Args", (), {"shapes": "wide,8x16x32,models"})
        got = gpu_library.part_b_shapes(args)
        self.assertEqual(len(got), 29 + 1 + 22)
        self.assertEqual(got[29], ("M=8", 8, 16, 32))
        args.shapes = "8x16"
        with self.assertRaises(SystemExit):
            gpu_library.part_b_shapes(args)


if __name__ == "__main__":
    unittest.main()
