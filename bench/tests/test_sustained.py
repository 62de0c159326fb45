"""Tests of bench/sustained.py's host-side pieces: the summary of
nvidia-smi's samples and the --shapes filter. No GPU or torch needed."""

import contextlib
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import sustained  # noqa: E402


class ParseSamplesTest(unittest.TestCase):
    def test_skips_the_first_second_and_takes_medians(self):
        # 20 samples of the clock coming down, then 21 at the limit.
        text = "\n".join(["1980, 300.5"] * 20 +
                         ["1320, 697.0", "1305, 699.0", "1335, 698.0"] * 7)
        self.assertEqual(sustained.parse_samples(text), (1320.0, 698.0, 21))

    def test_short_runs_keep_their_second_half(self):
        text = "1980, 400\n1500, 690\n1400, 700\n1300, 698"
        self.assertEqual(sustained.parse_samples(text), (1350.0, 699.0, 2))

    def test_ignores_other_lines(self):
        text = "[N/A], 12\nclocks.sm, power.draw\n1410, 695.25\n"
        self.assertEqual(sustained.parse_samples(text, skip=0),
                         (1410.0, 695.25, 1))

    def test_no_samples(self):
        self.assertEqual(sustained.parse_samples(""), (0.0, 0.0, 0))


class ShapeFilterTest(unittest.TestCase):
    def test_all_by_default(self):
        self.assertIsNone(sustained.shape_filter(""))

    def test_names_of_every_list(self):
        self.assertEqual(sustained.shape_filter("M1,FA5"), {"M1", "FA5"})

    def test_unknown_name(self):
        with self.assertRaisesRegex(ValueError, "unknown shape V5"):
            sustained.shape_filter("M1,V5")


class ArgumentsTest(unittest.TestCase):
    def test_secs_must_outlast_the_second_left_out(self):
        # Rejected before any GPU work: 1 s would leave no sample to time.
        argv = sys.argv
        with tempfile.TemporaryDirectory() as folder:
            open(os.path.join(folder, "gemm_nn_kernel.manifest"), "w").close()
            sys.argv = ["sustained.py", "--gemm", folder, "--secs", "1"]
            try:
                with self.assertRaises(SystemExit) as exit_:
                    with open(os.devnull, "w") as null, \
                            contextlib.redirect_stderr(null):
                        sustained.main()
            finally:
                sys.argv = argv
        self.assertEqual(exit_.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
