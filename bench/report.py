"""Shared reporting of the benchmark scripts, without torch (their --dry
modes run where torch is not installed): markdown tables and the geometric
mean of ratios."""

import math


def markdown_table(header, rows):
    """A markdown table of `header` over `rows` (cells printed with str)."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def geomean(values):
    """The geometric mean of positive `values`."""
    return math.exp(sum(math.log(v) for v in values) / len(values))
