"""Unit tests of bench/tune_gemm.py's table logic, which needs no GPU:
rule ranges, the choice of a variant per range from saved rates, and the
rewrite of a kernel's rules in the table."""

import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from io import StringIO

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tune_gemm  # noqa: E402


def saved(rates):
    """A run's --save contents: rates is {shape: (cublas, {variant: rate})}."""
    names = sorted({v for _, r in rates.values() for v in r})
    return {"device": "Test GPU", "chip": "sm_90a", "layout": "nn",
            "types": "f16/f32/f16",
            "variants": {n: {"BM": n[1:], "BN": "64", "BK": "64",
                             "STAGES": "4", "THREADS": "128",
                             "AT": "f16"} for n in names},
            "shapes": {s: {"cublas": c, "rates": r}
                       for s, (c, r) in rates.items()}}


def write_inputs(tmp, table_text):
    """Writes saved rates (ChooseRulesTest.RATES) and a table into `tmp`;
    returns the Args a rules step takes, with no rules yet."""
    rates = os.path.join(tmp, "nn.json")
    with open(rates, "w") as f:
        json.dump(saved(ChooseRulesTest.RATES), f)
    table = os.path.join(tmp, "table.txt")
    with open(table, "w") as f:
        f.write(table_text)
    return type("Args", (), {"rates": rates, "table": table, "rules": [],
                             "key": []})


def rules_with_params(tmp, params, rules):
    """Runs the rules step on ChooseRulesTest.RATES with `params`
    ({variant: {NAME: VALUE}}) added to the saved variants, over a table of
    one catch-all rule; returns the table's lines after it."""
    args = write_inputs(tmp, "gemm_nn *x*x* chip=sm_90a : BM=128\n")
    with open(args.rates) as f:
        data = json.load(f)
    for variant, values in params.items():
        data["variants"][variant].update(values)
    with open(args.rates, "w") as f:
        json.dump(data, f)
    return run_rules(args, rules)


def run_rules(args, rules):
    """Runs the rules step; returns the table's lines after it."""
    args.rules = rules
    with redirect_stdout(StringIO()):
        tune_gemm.make_rules(args)
    with open(args.table) as f:
        return f.read().splitlines()


class PatternTest(unittest.TestCase):
    def test_ranges(self):
        self.assertTrue(tune_gemm.pattern_contains("1..64x*x*", (16, 5, 7)))
        self.assertFalse(tune_gemm.pattern_contains("1..64x*x*", (65, 5, 7)))
        self.assertTrue(tune_gemm.pattern_contains("65..x..256x*", (99, 256, 1)))
        self.assertFalse(tune_gemm.pattern_contains("*x*x%8", (1, 1, 12)))
        self.assertTrue(tune_gemm.pattern_contains("2x*%!8x*", (2, 50257, 768)))
        self.assertFalse(tune_gemm.pattern_contains("2x*%!8x*", (2, 4096, 768)))
        self.assertFalse(tune_gemm.pattern_contains("2x16384..%!8x*", (2, 4097, 1)))


class ChooseRulesTest(unittest.TestCase):
    RATES = {
        "1x100x100": (10.0, {"v64": 9.0, "v128": 5.0}),
        "16x100x100": (10.0, {"v64": 8.0, "v128": 9.0}),
        "4096x100x100": (10.0, {"v64": 4.0, "v128": 11.0}),
        "8192x100x100": (10.0, {"v64": None, "v128": 12.0}),
    }

    def test_first_match_and_geomean(self):
        chosen = tune_gemm.choose_rules(saved(self.RATES),
                                        ["1..64x*x*", "*x*x*"])
        # 0.9 * 0.8 beats 0.5 * 0.9 on the decode shapes; the catch-all
        # scores only the shapes the first rule left.
        self.assertEqual([c[:2] for c in chosen],
                         [("1..64x*x*", "v64"), ("*x*x*", "v128")])
        self.assertAlmostEqual(chosen[0][2], (0.9 * 0.8) ** 0.5)
        self.assertEqual(chosen[1][3], ["4096x100x100", "8192x100x100"])

    def test_failed_variant_is_not_chosen(self):
        # v64 failed on 8192: the catch-all must take v128 even though v64
        # would win on 4096 alone in a world where it were faster.
        rates = dict(self.RATES)
        rates["4096x100x100"] = (10.0, {"v64": 20.0, "v128": 11.0})
        chosen = tune_gemm.choose_rules(saved(rates), ["*x*x*"])
        self.assertEqual(chosen[0][1], "v128")

    def test_empty_range_is_an_error(self):
        with self.assertRaises(SystemExit):
            tune_gemm.choose_rules(saved(self.RATES),
                                   ["*x*x*", "1..64x*x*"])


class MakeRulesTest(unittest.TestCase):
    def test_rewrites_only_the_kernels_rules(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "# header\n"
                "gemm_nn 4096x1024x8192 chip=sm_90a AT=f16 : BM=128\n"
                "gemm_nn 1..64x*x* chip=sm_90a : BM=64  # analytic\n"
                "gemm_nn *x*x* chip=sm_90a : BM=128  # old\n"
                "gemm_nn *x*x* chip=sm_80 : BM=128\n"
                "gemm_nt *x*x* chip=sm_90a : BM=128\n")
            lines = run_rules(args, ["1..16x*x*", "*x*x*"])
        self.assertEqual(lines[:2], [
            "# header", "gemm_nn 4096x1024x8192 chip=sm_90a AT=f16 : BM=128"])
        self.assertTrue(lines[2].startswith(
            "gemm_nn 1..16x*x* chip=sm_90a : BM=64 BN=64 BK=64 STAGES=4 "
            "THREADS=128  # measured: 0.85x cuBLAS"))
        self.assertTrue(lines[3].startswith(
            "gemm_nn *x*x* chip=sm_90a : BM=128 "))
        self.assertEqual(lines[4:], ["gemm_nn *x*x* chip=sm_80 : BM=128",
                                     "gemm_nt *x*x* chip=sm_90a : BM=128"])

    def assert_stays_first(self, line):
        """Rewriting the rules of a table whose first entry is `line`
        keeps it there, before the new rules."""
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "# header\n" + line + "\n"
                "gemm_nn 1..64x*x* chip=sm_90a : BM=64\n"
                "gemm_nn *x*x* chip=sm_90a : BM=128  # old\n")
            lines = run_rules(args, ["1..16x*x*", "*x*x*"])
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[1], line)
        self.assertTrue(lines[2].startswith("gemm_nn 1..16x*x* "))
        self.assertTrue(lines[3].startswith("gemm_nn *x*x* "))

    def test_via_entries_stay(self):
        # An entry that runs another kernel file is not one of the
        # kernel's rules: it keeps its place, before the new ones.
        via = ("gemm_nn *x1x* chip=sm_90a : via=gemm_nt(arg0, "
               "transpose(arg1), arg2) BM=64  # analytic")
        self.assert_stays_first(via)
        table = [via, "gemm_nn *x*x* chip=sm_90a : BM=128"]
        rule = "gemm_nn *x1x* chip=sm_90a : BM=64  # measured"
        self.assertEqual(tune_gemm.insert_rule(list(table), rule),
                         [via, rule, table[1]])

    def test_staged_output_entries_stay(self):
        # A staged-output line is not a rule: tile-compile derives twins of
        # the rules from it, so it stays as the new rules replace the old.
        staged = "gemm_nn staged-output chip=sm_90a : THREAD_STORE=true"
        self.assert_stays_first(staged)
        self.assertFalse(tune_gemm.is_rule(staged, "gemm_nn", "sm_90a"))

    def test_split_is_kept(self):
        # A variant that splits K carries SPLIT into its rule line, which
        # --dispatch passes to the kernel file as -D SPLIT.
        with tempfile.TemporaryDirectory() as tmp:
            lines = rules_with_params(tmp, {"v64": {"SPLIT": "4"}},
                                      ["1..16x*x*"])
        self.assertTrue(lines[1].startswith(
            "gemm_nn 1..16x*x* chip=sm_90a : BM=64 BN=64 BK=64 STAGES=4 "
            "THREADS=128 SPLIT=4  # measured"))

    def test_persistent_only_where_set(self):
        # Builds record PERSISTENT=false by default; a rule line carries
        # PERSISTENT only where a variant sets it true.
        with tempfile.TemporaryDirectory() as tmp:
            lines = rules_with_params(
                tmp, {"v64": {"PERSISTENT": "true"},
                      "v128": {"PERSISTENT": "false"}},
                ["1..16x*x*", "4096..x*x*"])
        self.assertTrue(lines[1].startswith(
            "gemm_nn 1..16x*x* chip=sm_90a : BM=64 BN=64 BK=64 STAGES=4 "
            "THREADS=128 PERSISTENT=true  # measured"), lines[1])
        self.assertTrue(lines[2].startswith(
            "gemm_nn 4096..x*x* chip=sm_90a : BM=128 BN=64 BK=64 STAGES=4 "
            "THREADS=128  # measured"), lines[2])

    def test_keyed_rules(self):
        # --key writes the key on every rule and replaces only the rules
        # with exactly those keys: the f32 catch-all stays.
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "gemm_nn 1..64x*x* chip=sm_90a AT=f16|bf16 : BM=64\n"
                "gemm_nn *x*x* chip=sm_90a AT=f16|bf16 : BM=128  # old\n"
                "gemm_nn *x*x* chip=sm_90a AT=f32 : BM=128 BK=32\n")
            args.key = ["AT=f16|bf16"]
            lines = run_rules(args, ["1..16x*x*"])
        # (The table gets its header comment first.)
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[1].startswith(
            "gemm_nn 1..16x*x* chip=sm_90a AT=f16|bf16 : BM=64 "))
        self.assertEqual(lines[2:], [
            "gemm_nn *x*x* chip=sm_90a AT=f16|bf16 : BM=128  # old",
            "gemm_nn *x*x* chip=sm_90a AT=f32 : BM=128 BK=32"])

    def test_costed_rules_stay(self):
        # Costed rules compete on waves at run time: the rules step keeps
        # them, after the ranges it writes and before the catch-all.
        costed = ["gemm_nn 1025..x*x* chip=sm_90a : cost=100 BM=128 BN=256",
                  "gemm_nn 1025..x*x* chip=sm_90a : cost=54 BM=128 BN=128"]
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "gemm_nn 65..x*x* chip=sm_90a : BM=64\n" +
                "\n".join(costed) +
                "\ngemm_nn *x*x* chip=sm_90a : BM=128  # old\n")
            lines = run_rules(args, ["1..16x*x*"])
            self.assertEqual(len(lines), 5)
            self.assertTrue(lines[1].startswith("gemm_nn 1..16x*x* "))
            self.assertEqual(lines[2:4], costed)
            self.assertEqual(lines[4],
                             "gemm_nn *x*x* chip=sm_90a : BM=128  # old")
            args = write_inputs(
                tmp, "\n".join(costed) +
                "\ngemm_nn *x*x* chip=sm_90a : BM=128  # old\n")
            lines = run_rules(args, ["1..16x*x*", "*x*x*"])
            self.assertEqual(len(lines), 5)
            self.assertEqual(lines[2:4], costed)
            self.assertTrue(lines[4].startswith("gemm_nn *x*x* chip=sm_90a "
                                                ": BM=128 BN=64"))

    def test_costed_rules_keep_their_range(self):
        # A costed group stays before the range that followed it, where
        # the new rules have that range.
        split = ["gemm_nn 2..4096x*x2048.. chip=sm_90a : cost=100 BM=128",
                 "gemm_nn 2..4096x*x2048.. chip=sm_90a : cost=70 SPLIT=2"]
        large = ["gemm_nn 1025..x*x* chip=sm_90a : cost=100 BM=128 BN=256"]
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "\n".join(split) +
                "\ngemm_nn 2..4096x*x* chip=sm_90a : BM=64\n" +
                "\n".join(large) +
                "\ngemm_nn *x*x* chip=sm_90a : BM=128  # old\n")
            lines = run_rules(args, ["1..1x*x*", "2..4096x*x*"])
            self.assertEqual(len(lines), 7)
            self.assertTrue(lines[1].startswith("gemm_nn 1..1x*x* "))
            self.assertEqual(lines[2:4], split)
            self.assertTrue(lines[4].startswith("gemm_nn 2..4096x*x* "))
            self.assertEqual(lines[5:6], large)
            self.assertEqual(lines[6],
                             "gemm_nn *x*x* chip=sm_90a : BM=128  # old")
            # Without that range among the new rules, after them.
            lines = run_rules(args, ["1..1x*x*"])
            self.assertEqual(lines[2:5], split + large)

    def test_catch_all_stays(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = write_inputs(
                tmp, "gemm_nn 65..x*x* chip=sm_90a : BM=64\n"
                "gemm_nn *x*x* chip=sm_90a : BM=128  # old\n")
            lines = run_rules(args, ["1..16x*x*"])
            self.assertEqual(len(lines), 3)
            self.assertTrue(lines[1].startswith("gemm_nn 1..16x*x* "))
            self.assertEqual(lines[2],
                             "gemm_nn *x*x* chip=sm_90a : BM=128  # old")
            # Without a catch-all in the table, one must be given.
            args = write_inputs(tmp, "gemm_nn 65..x*x* chip=sm_90a : BM=64\n")
            with self.assertRaises(SystemExit):
                run_rules(args, ["1..16x*x*"])

class WeightsTest(unittest.TestCase):
    def test_weights_follow_the_waves(self):
        # Rates made by time = waves x weight with the narrow tiles' wave
        # weighing 0.5 of the wide ones': every shape gives 0.5, and the
        # pick (cost 100 and 50) is the better of the two everywhere.
        wide = {"BM": "128", "BN": "256", "SPLIT": "1"}
        narrow = {"BM": "128", "BN": "128", "SPLIT": "1"}
        shapes = {}
        for m, n in ((2048, 1024), (2048, 4096), (1536, 4096), (8192, 8192)):
            ww = tune_gemm.waves(m, n, wide, 132)
            wn = tune_gemm.waves(m, n, narrow, 132)
            shapes[f"{m}x{n}x4096"] = {"cublas": 1.0, "rates": {
                "wide": 1.0 / ww, "narrow": 1.0 / (0.5 * wn)}}
        run = {"variants": {"wide": wide, "narrow": narrow},
               "shapes": shapes}
        found = tune_gemm.wave_weights([run], "wide", "narrow", 132)
        self.assertEqual(len(found), 4)
        for shape, weight, *_ in found:
            self.assertAlmostEqual(weight, 0.5, msg=shape)
        # 2048 x 1024: 64 wide tiles and 128 narrow ones, one wave each.
        self.assertEqual(tune_gemm.waves(2048, 1024, wide, 132), 1)
        self.assertEqual(tune_gemm.waves(2048, 1024, narrow, 132), 1)
        self.assertEqual(tune_gemm.waves(2048, 4096, narrow, 132), 4)
        self.assertEqual(
            tune_gemm.waves(2048, 1024, dict(narrow, SPLIT="2"), 132), 2)


if __name__ == "__main__":
    unittest.main()
