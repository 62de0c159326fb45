#!/usr/bin/env python3
"""tile-fuzz: mutation fuzzer of the tile compiler.

Takes the lit inputs (test/**/*.mlir, split at `// -----`), the bundled
examples and the library GEMM kernels (instantiated with their
`tile.params` defaults), applies seeded structural and textual mutations
(element types, shapes, memory spaces, attributes, operand order, dropped,
duplicated and moved lines, extreme literals, renamed operations) and runs
every mutant through the compiler: `tile-opt FILE` (parse and verify), then,
when that passes, `tile-compile FILE --chip CHIP` for each chip (the whole
pipeline to PTX, and ptxas when it is found; for AMD chips such as gfx942,
to HSACO, where a written code object is a success) and `tile-opt
--tile-to-nvvm{chip=...}` (`--tile-to-rocdl` for AMD chips) for one chip
per mutant, every third mutant with `persistent=true` and, for NVIDIA
chips, every third other one with `thread-store=true`.

Every outcome is classified. Good: an error located at `FILE:LINE:COL` of
the mutant that the parser, a tile verifier or a tile pass reports, or a
compilation that succeeds (with PTX that ptxas accepts). Bad: a crash or
signal, a timeout, an error without a location in the mutant, a diagnostic
of a non-tile operation after the input verified (IR built by the tile
passes that upstream verifiers or passes reject), a ptxas rejection, or a
failure with no diagnostic at all. Bad mutants are minimized by dropping
lines while the outcome keeps its class and signature, and written to the
output directory with the command that shows them.

Python 3 standard library only. Exit status: 0 when every outcome was good,
1 when any was bad, 2 on a usage error.
"""

import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------


def strip_test_lines(text):
    """Drops comment lines (lit and FileCheck directives among them): they
    do not change what the compiler sees, and mutations spent on them or
    lines kept for them in reproducers are wasted; `tile.params` lines of
    templates stay."""
    keep = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("//") and "tile.params:" not in s:
            continue
        if "expected-error" in s or "expected-note" in s or \
                "expected-warning" in s or "expected-remark" in s:
            if s.startswith("//"):
                continue
            line = re.sub(r"//\s*expected-.*$", "", line)
        keep.append(line)
    return "\n".join(keep).strip("\n") + "\n"


def load_seeds(root, tile_compile):
    seeds = []
    paths = sorted(glob.glob(os.path.join(root, "test", "**", "*.mlir"),
                             recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "examples", "*.mlir")))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for i, chunk in enumerate(re.split(r"^// -----\s*$", text,
                                           flags=re.M)):
            chunk = strip_test_lines(chunk)
            if chunk.strip() and "${" not in chunk:
                seeds.append(("%s#%d" % (os.path.relpath(path, root), i),
                              chunk))
    # Templates: their own defaults, as tile-compile instantiates them.
    for path in sorted(glob.glob(os.path.join(root, "kernels", "*.mlir"))):
        try:
            out = subprocess.run([tile_compile, path, "--print-source"],
                                 capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and out.stdout.strip():
            seeds.append((os.path.relpath(path, root),
                          strip_test_lines(out.stdout)))
    return seeds


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

ELEMENT_TYPES = [
    "f16", "bf16", "f32", "f64", "tf32", "i1", "i8", "ui8", "si8", "i16",
    "i32", "ui32", "si32", "i64", "index", "f8E4M3FN", "f8E5M2",
    "f8E4M3FNUZ", "f8E5M2FNUZ", "f4E2M1FN", "ui16", "i4",
]
TYPE_ALT = "|".join(sorted(ELEMENT_TYPES, key=len, reverse=True))
# An element type: after a shape's `x`, or standing alone.
TYPE_RE = re.compile(r"(?:(?<=[0-9?]x)|(?<![\w%@#$.]))(" + TYPE_ALT +
                     r")(?![\w])")
SHAPE_RE = re.compile(r"(?<=<)((?:\d+|\?)(?:x(?:\d+|\?))*)x(?=[a-z!])")
SPACES = [
    "#gpu.address_space<workgroup>", "#gpu.address_space<private>",
    "#gpu.address_space<global>", "#tile.fragment", "3", "5", "1",
]
SPACE_RE = re.compile(r"#gpu\.address_space<\w+>|#tile\.fragment(?![<\w])")
MEMREF_NO_SPACE_RE = re.compile(r"memref<((?:\d+|\?)(?:x(?:\d+|\?))*x\w+)>")
INT_RE = re.compile(r"(?<![\w.%#@$-])-?\d+(?![\w.])")
SSA_RE = re.compile(r"%[\w$.-]+")
EXTREMES = [
    0, 1, -1, 2, 3, 5, 7, 8, 15, 16, 31, 33, 63, 65, 96, 127, 255, 256, 1023,
    1025, 4096, 65535, 65536, 2147483647, 2147483648, -2147483648,
    4294967296, 9223372036854775807, -9223372036854775808,
]
DIMS = [1, 2, 3, 4, 6, 8, 12, 16, 17, 24, 32, 48, 64, 96, 100, 128, 192,
        256, 512, 1024, 4096, 65536, "?"]
# Keyword families whose members share a syntax.
FAMILIES = [
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf",
     "arith.maximumf", "arith.minimumf"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui",
     "arith.remsi", "arith.andi", "arith.ori", "arith.xori", "arith.maxsi",
     "arith.minui"],
    ["tile.reduce sum", "tile.reduce max", "tile.reduce min",
     "tile.reduce abssum", "tile.reduce absmax"],
    ["tile.atomic add", "tile.atomic max", "tile.atomic min", "tile.copy"],
    ["tile.clear", "tile.fill"],
    ["math.exp", "math.exp2", "math.log", "math.sqrt", "math.rsqrt",
     "math.tanh", "math.absf"],
    ["policy(square)", "policy(full_row)", "policy(full_col)"],
    ["order = row", "order = column"],
    ["arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi",
     "arith.extsi", "arith.trunci", "arith.bitcast"],
    ["arith.cmpf", "arith.cmpi"],
]
CLAUSES = ["transpose_a", "transpose_b", "clear_accum"]
NUMBERED = [
    (re.compile(r"(?<=threads\()\d+(?=\))"),
     [0, 1, 16, 31, 32, 33, 48, 64, 96, 128, 160, 192, 256, 384, 512, 1024,
      1025, 2048]),
    (re.compile(r"(?<=stages\()\d+(?=\))"), [0, 1, 2, 3, 4, 5, 8, 64]),
    (re.compile(r"(?<=panel = )\d+"), [0, 1, 2, 3, 8, 1000]),
    (re.compile(r"(?<=dim\()\d+(?=\))"), [0, 1, 2, 3, -1]),
    (re.compile(r"(?<=coalesced_width = )\d+"), [0, 1, 2, 3, 4, 8, 16, 64]),
    (re.compile(r"(?<=cluster\()[\d, ]+(?=\))"),
     ["1", "2", "2, 1", "1, 2", "4, 4", "2, 2, 2", "3", "0", "17"]),
]


def _replace_span(text, m, new):
    return text[:m.start()] + new + text[m.end():]


def _replace_all_or_one(rng, text, regex, pick, make):
    """Replaces the occurrences of one match of `regex` chosen by `pick`:
    every occurrence of the same text (a consistent change) or only one."""
    matches = list(regex.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    old = m.group(0)
    new = make(old)
    if new is None or new == old:
        return None
    if pick == "one":
        return _replace_span(text, m, new)
    if pick == "line":
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        line = regex.sub(lambda x: new if x.group(0) == old else x.group(0),
                         text[start:end])
        return text[:start] + line + text[end:]
    return regex.sub(lambda x: new if x.group(0) == old else x.group(0), text)


def mut_element_type(rng, text):
    return _replace_all_or_one(
        rng, text, TYPE_RE, rng.choice(["all", "all", "all", "one", "line"]),
        lambda old: rng.choice([t for t in ELEMENT_TYPES if t != old]))


def mut_shape(rng, text):
    def make(old):
        dims = old.split("x")
        op = rng.random()
        if op < 0.7:
            dims[rng.randrange(len(dims))] = str(rng.choice(DIMS))
        elif op < 0.85 and len(dims) > 1:
            del dims[rng.randrange(len(dims))]
        else:
            dims.insert(rng.randrange(len(dims) + 1), str(rng.choice(DIMS)))
        return "x".join(dims)
    return _replace_all_or_one(rng, text, SHAPE_RE,
                               rng.choice(["all", "all", "one"]), make)


def mut_memory_space(rng, text):
    r = rng.random()
    if r < 0.6:
        return _replace_all_or_one(
            rng, text, SPACE_RE, rng.choice(["all", "one", "line"]),
            lambda old: rng.choice([s for s in SPACES if s != old]))
    if r < 0.8:
        # Remove a memory space (the buffer becomes global).
        return _replace_all_or_one(
            rng, text, re.compile(r", (?:" + SPACE_RE.pattern + r")>"),
            rng.choice(["all", "one"]), lambda old: ">")
    return _replace_all_or_one(
        rng, text, MEMREF_NO_SPACE_RE, rng.choice(["all", "one"]),
        lambda old: old[:-1] + ", " + rng.choice(SPACES) + ">")


def mut_attribute(rng, text):
    options = [(rx, vals) for rx, vals in NUMBERED if rx.search(text)]
    r = rng.random()
    if options and r < 0.6:
        rx, vals = rng.choice(options)
        return _replace_all_or_one(rng, text, rx, "one",
                                   lambda old: str(rng.choice(vals)))
    if r < 0.8 and "tile.gemm" in text:
        # Toggle a gemm clause on one gemm.
        lines = text.split("\n")
        idx = [i for i, l in enumerate(lines) if "tile.gemm" in l]
        i = rng.choice(idx)
        clause = rng.choice(CLAUSES)
        if clause in lines[i]:
            lines[i] = lines[i].replace(" " + clause, "", 1)
        else:
            j = i
            while j < len(lines) and " : " not in lines[j] and \
                    not lines[j].rstrip().endswith(":"):
                j += 1
            if j == len(lines):
                return None
            if " : " in lines[j]:
                lines[j] = lines[j].replace(" : ", " %s : " % clause, 1)
            else:
                lines[j] = lines[j].rstrip()[:-1] + clause + " :"
        return "\n".join(lines)
    # Drop or add an attribute dictionary entry.
    m = list(re.finditer(r"\{([^{}\n]*)\}", text))
    if not m:
        return None
    pick = rng.choice(m)
    extra = rng.choice(["disable_tma", "coalesced_width = 4 : i64",
                        "tile.producer_threads = 128 : i64", "foo = 1"])
    body = pick.group(1).strip()
    new = "{%s}" % (extra if not body else
                    rng.choice([extra, body + ", " + extra, ""]))
    return _replace_span(text, pick, new) if new != "{}" else \
        _replace_span(text, pick, "")


def mut_literal(rng, text):
    return _replace_all_or_one(rng, text, INT_RE,
                               rng.choice(["one", "one", "all"]),
                               lambda old: str(rng.choice(EXTREMES)))


def mut_operand_order(rng, text):
    lines = text.split("\n")
    cand = []
    for i, line in enumerate(lines):
        uses = line.split("=", 1)[1] if re.match(r"\s*%[\w$.-]+(:\d+)?\s*=",
                                                 line) else line
        names = SSA_RE.findall(uses)
        if len(set(names)) >= 2:
            cand.append(i)
    if not cand:
        return None
    i = rng.choice(cand)
    line = lines[i]
    m = re.match(r"(\s*%[\w$.-]+(?::\d+)?\s*=)", line)
    head, tail = (m.group(1), line[m.end():]) if m else ("", line)
    names = sorted(set(SSA_RE.findall(tail)))
    a, b = rng.sample(names, 2)
    tail = SSA_RE.sub(lambda x: b if x.group(0) == a else
                      (a if x.group(0) == b else x.group(0)), tail)
    lines[i] = head + tail
    return "\n".join(lines)


def mut_value(rng, text):
    """Replaces one use of a value with another value of the file."""
    defs = sorted(set(re.findall(r"(%[\w$.-]+)(?::\d+)?\s*=", text)))
    uses = [m for m in SSA_RE.finditer(text)
            if not re.match(r"\s*(?::\d+)?\s*=[^=]", text[m.end():m.end() + 4])]
    if len(defs) < 2 or not uses:
        return None
    m = rng.choice(uses)
    new = rng.choice([d for d in defs if d != m.group(0)] or defs)
    return _replace_span(text, m, new)


def mut_rename(rng, text):
    fams = [f for f in FAMILIES if any(k in text for k in f)]
    if not fams:
        return None
    fam = rng.choice(fams)
    present = [k for k in fam if k in text]
    old = rng.choice(present)
    new = rng.choice([k for k in fam if k != old])
    idx = [m.start() for m in re.finditer(re.escape(old) + r"(?![\w.])",
                                          text)]
    if not idx:
        return None
    if rng.random() < 0.3:
        return re.sub(re.escape(old) + r"(?![\w.])", new, text)
    at = rng.choice(idx)
    return text[:at] + new + text[at + len(old):]


def memref_types(text):
    """Spans of the `memref<...>` types of `text` (nested brackets
    balanced)."""
    spans = []
    for m in re.finditer(r"memref<", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "<":
                depth += 1
            elif text[i] == ">" and text[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    spans.append((m.start(), i + 1))
                    break
            elif text[i] == "\n":
                break
            i += 1
    return spans


def mut_memref_type(rng, text):
    """Changes one memref type everywhere it is written: its element type,
    one extent or its memory space, so that the values keep agreeing and
    the mutant reaches the passes."""
    spans = memref_types(text)
    if not spans:
        return None
    a, b = rng.choice(spans)
    old = text[a:b]
    r = rng.random()
    if r < 0.5:
        new = TYPE_RE.sub(lambda m: rng.choice(ELEMENT_TYPES), old, count=1)
    elif r < 0.8:
        new = SHAPE_RE.sub(lambda m: "x".join(
            str(rng.choice(DIMS)) if rng.random() < 0.5 else d
            for d in m.group(1).split("x")) + "x", old, count=1)
    else:
        space = rng.choice(SPACES + [None])
        new = SPACE_RE.sub("", old).replace(", >", ">").replace(",>", ">")
        if space:
            new = new[:-1] + ", " + space + ">"
    if new == old:
        return None
    return text.replace(old, new)


def mut_lines(rng, text):
    lines = text.split("\n")
    body = [i for i, l in enumerate(lines)
            if l.strip() and not l.strip().startswith("//")]
    if not body:
        return None
    i = rng.choice(body)
    r = rng.random()
    if r < 0.45:
        del lines[i]
    elif r < 0.75:
        lines.insert(i, lines[i])
    elif r < 0.9:
        j = rng.choice(body)
        line = lines.pop(i)
        lines.insert(j, line)
    else:
        j = min(len(lines), i + rng.randint(2, 6))
        del lines[i:j]
    return "\n".join(lines)


# Weights: mutations that keep a program consistent reach the passes more
# often, so they are drawn more.
MUTATORS = [
    (mut_memref_type, 10), (mut_element_type, 4), (mut_shape, 3),
    (mut_memory_space, 3), (mut_attribute, 5), (mut_literal, 3),
    (mut_operand_order, 1), (mut_value, 1), (mut_rename, 3), (mut_lines, 3),
]


def mutate(rng, text):
    count = rng.choices([1, 2, 3], [7, 2, 1])[0]
    applied = []
    funcs, weights = zip(*MUTATORS)
    tries = 0
    while len(applied) < count and tries < 20:
        tries += 1
        f = rng.choices(funcs, weights)[0]
        new = f(rng, text)
        if new is not None and new != text:
            text = new
            applied.append(f.__name__[4:])
    return text, applied


# ---------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------

GOOD = ("verify-error", "diagnostic", "upstream-diagnostic", "compiled",
        "no-kernel")
ERROR_RE = re.compile(r"^(?P<loc>.*?): error: (?P<msg>.*)$", re.M)
OP_RE = re.compile(r"^'([\w.]+)' op ")
# Non-tile operations that tile passes and tile-compile check and report
# on: the prefixes of those messages. Any other diagnostic of a non-tile
# operation after the input verified comes from an upstream verifier or
# pass on IR the tile passes built.
TILE_CHECKS_ON_UPSTREAM_OPS = [
    ("memref.load", "fragment and laid-out shared buffers may only be"),
    ("memref.store", "fragment and laid-out shared buffers may only be"),
    ("memref.load", "accesses fragment elements that the thread"),
    ("memref.store", "accesses fragment elements that the thread"),
    ("memref.load", "indexes fragment "),
    ("memref.store", "indexes fragment "),
]


class Outcome:
    def __init__(self, cls, detail="", stage=""):
        self.cls = cls
        self.detail = detail
        self.stage = stage

    @property
    def bad(self):
        return self.cls not in GOOD

    def signature(self):
        d = re.sub(r"\d+", "N", self.detail)
        d = re.sub(r"<[^<>]*>", "<>", d)
        return "%s|%s" % (self.cls, d[:60])


def tile_lines(text):
    """Numbers (1-based) of the lines that hold a tile operation or lie in
    the body of a tile.kernel: the code the tile passes rewrite."""
    lines = set()
    depth = 0
    opening = False  # a tile.kernel line whose `{` is still to come
    for number, line in enumerate(text.split("\n"), 1):
        code = line.split("//", 1)[0]
        if depth == 0 and not opening and "tile." in code:
            lines.add(number)
            opening = "tile.kernel" in code
        if depth > 0 or opening:
            lines.add(number)
            depth += code.count("{") - code.count("}")
            if depth > 0:
                opening = False
    return lines


def classify(path, rc, out, stage, timed_out, first_stage):
    """Classifies one tool run on the mutant at `path`."""
    if timed_out:
        return Outcome("bad-timeout", "", stage)
    crash_marks = ("Stack dump", "LLVM ERROR", "Assertion", "PLEASE submit",
                   "Segmentation fault", "UNREACHABLE")
    if rc < 0 or rc >= 128 or any(m in out for m in crash_marks):
        line = next((l for l in out.splitlines()
                     if any(m in l for m in crash_marks[1:]) or
                     "error" in l), "signal %d" % -rc if rc < 0 else "")
        return Outcome("bad-crash", line.strip()[:200], stage)
    if "ptxas failed" in out or "ptxas fatal" in out:
        line = next((l for l in out.splitlines() if "ptxas" in l), "")
        return Outcome("bad-ptxas", line.strip()[:200], stage)
    errors = list(ERROR_RE.finditer(out))
    if rc == 0:
        if errors:
            return Outcome("bad-error-but-success", errors[0].group("msg"),
                           stage)
        return Outcome("compiled", "", stage)
    if not errors:
        if re.search(r"tile-compile: .* has no tile\.kernel", out):
            return Outcome("no-kernel", "", stage)
        tail = out.strip().splitlines()[-1:] or [""]
        return Outcome("bad-no-diagnostic", tail[0][:200], stage)
    # Every error must be located in the mutant; after the input verified,
    # every one must also come from a tile operation or a tile pass, unless
    # it is located at the user's own upstream code outside the kernels
    # (hand-written gpu.launch or gpu.module code that upstream lowers on
    # its own).
    upstream_only = False
    for err in errors:
        loc, msg = err.group("loc"), err.group("msg")
        m = re.match(r"^(.*):(\d+):(\d+)$", loc)
        if not m or os.path.abspath(m.group(1)) != os.path.abspath(path):
            return Outcome("bad-unlocated", "%s: %s" % (loc, msg[:160]),
                           stage)
        if first_stage:
            continue
        op = OP_RE.match(msg)
        if op and not op.group(1).startswith("tile."):
            name = op.group(1)
            rest = msg[op.end():]
            if not any(name == o and rest.startswith(p)
                       for o, p in TILE_CHECKS_ON_UPSTREAM_OPS):
                with open(path, encoding="utf-8") as f:
                    tiled = tile_lines(f.read())
                if int(m.group(2)) in tiled:
                    return Outcome("bad-upstream", msg[:200], stage)
                upstream_only = True
    if first_stage:
        return Outcome("verify-error", "", stage)
    if upstream_only:
        return Outcome("upstream-diagnostic", "", stage)
    return Outcome("diagnostic", "", stage)


def run_tool(cmd, timeout):
    for attempt in range(3):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout,
                               text=True, errors="replace")
            return p.returncode, p.stdout, False
        except subprocess.TimeoutExpired as e:
            out = e.stdout or ""
            if isinstance(out, bytes):
                out = out.decode(errors="replace")
            return -9, out, True
        except OSError:
            # The tool is being relinked (a build running beside a long
            # campaign): try again shortly.
            if attempt == 2:
                raise
            time.sleep(5)


class Runner:
    def __init__(self, args):
        self.args = args

    def stages(self, index):
        """(name, command builder) of every run of a mutant after the
        parse-and-verify run."""
        out = []
        for chip in self.args.chips:
            out.append(("compile-" + chip, lambda p, d, c=chip: [
                self.args.tile_compile, p, "-o", d, "--chip", c]))
        if self.args.opt_pipeline:
            chip = self.args.chips[index % len(self.args.chips)]
            # AMD chips go through tile-to-rocdl (AMDGPU assembly), NVIDIA
            # ones through tile-to-nvvm (PTX); every third mutant with its
            # kernels made persistent (tile loops, the persistent clause),
            # and on NVIDIA chips every third other one with its epilogues
            # stored by the threads (thread-store).
            extra = ""
            if index % 3 == 2:
                extra = " persistent=true"
            elif index % 3 == 1 and not chip.startswith("gfx"):
                extra = " thread-store=true"
            out.append(("opt-" + chip, lambda p, d, c=chip: [
                self.args.tile_opt, p,
                "--tile-to-%s=chip=%s format=isa%s" %
                ("rocdl" if c.startswith("gfx") else "nvvm", c, extra),
                "-o", os.devnull]))
        return out

    def run(self, text, index, only_stage=None):
        """Runs every stage on `text`; returns the list of outcomes (the
        verify run's alone when it rejects the input)."""
        tmp = tempfile.mkdtemp(prefix="tile-fuzz-")
        try:
            path = os.path.join(tmp, "mutant.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            rc, out, to = run_tool([self.args.tile_opt, path, "-o",
                                    os.devnull], self.args.timeout)
            first = classify(path, rc, out, "verify", to, True)
            if first.cls != "compiled" or only_stage == "verify":
                return [first]
            outcomes = []
            for name, build in self.stages(index):
                if only_stage and name != only_stage:
                    continue
                outdir = os.path.join(tmp, "out-" + name)
                rc, out, to = run_tool(build(path, outdir), self.args.timeout)
                o = classify(path, rc, out, name, to, False)
                o.output = out
                outcomes.append(o)
            return outcomes
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def minimize(runner, text, index, target, budget_s):
    """Drops lines (then single characters of none) while the run of
    `target.stage` keeps `target`'s signature: delta debugging over lines."""
    want = target.signature()
    stage = target.stage
    deadline = time.time() + budget_s

    def still_bad(candidate):
        for o in runner.run(candidate, index, only_stage=stage):
            if o.stage == stage and o.signature() == want:
                return True
        return False

    lines = text.split("\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.time() < deadline:
        i = 0
        removed = False
        while i < len(lines) and time.time() < deadline:
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and still_bad("\n".join(candidate)):
                lines = candidate
                removed = True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def find_tool(name, build):
    for d in ([os.path.join(build, "bin")] if build else []) + \
            os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="source tree whose inputs seed the mutants")
    ap.add_argument("--build", default=None,
                    help="build directory whose bin/ has the tools "
                         "(default: PATH)")
    ap.add_argument("--tile-opt", default=None)
    ap.add_argument("--tile-compile", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", "--count", type=int, default=100,
                    help="number of mutants (stops earlier at --time)")
    ap.add_argument("--start", type=int, default=0,
                    help="index of the first mutant (mutant I is the same "
                         "for a given seed whatever -j and --start)")
    ap.add_argument("--time", type=float, default=0,
                    help="time budget in seconds from the start, seeds "
                         "included (0: none); no mutant is started after it")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--chips", default="sm_80,sm_90a")
    ap.add_argument("--no-opt-pipeline", dest="opt_pipeline",
                    action="store_false",
                    help="run only tile-compile after the verify run, not "
                         "also tile-opt --tile-to-nvvm (--tile-to-rocdl)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds one tool run may take")
    ap.add_argument("-o", "--out", default=None,
                    help="directory for bad mutants and their minimized "
                         "reproducers")
    ap.add_argument("--minimize-time", type=float, default=120,
                    help="seconds spent minimizing each new bad signature")
    ap.add_argument("--seed-filter", default=None,
                    help="only seeds whose name contains this text")
    ap.add_argument("--show", type=int, default=None, metavar="I",
                    help="print mutant I and its mutations, run nothing")
    ap.add_argument("--progress", type=float, default=0, metavar="S",
                    help="print a progress line every S seconds")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    # The budget counts from here: loading and weighing the seeds included.
    start = time.time()
    args.chips = [c for c in args.chips.split(",") if c]
    args.tile_opt = args.tile_opt or find_tool("tile-opt", args.build)
    args.tile_compile = args.tile_compile or find_tool("tile-compile",
                                                       args.build)
    if args.tile_opt and args.tile_compile:
        args.tile_opt = os.path.abspath(args.tile_opt)
        args.tile_compile = os.path.abspath(args.tile_compile)
    if not args.tile_opt or not args.tile_compile:
        print("tile-fuzz: tile-opt and tile-compile not found (--build)",
              file=sys.stderr)
        return 2

    # SIGTERM or SIGINT (a campaign stopped from outside) ends it like its
    # budget: no new mutants, and the summary of those that ran.
    stopping = [False]

    def stop(signum, frame):
        stopping[0] = True
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    seeds = load_seeds(args.root, args.tile_compile)
    if args.seed_filter:
        seeds = [s for s in seeds if args.seed_filter in s[0]]
    if not seeds:
        print("tile-fuzz: no seeds under %s" % args.root, file=sys.stderr)
        return 2
    # Kernels that verify exercise the whole pipeline; other seeds (the
    # invalid inputs of the verifier tests among them) mostly the parser and
    # verifiers, so they are drawn less often.
    def weight(text):
        if "tile.kernel" not in text:
            return 1
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(text)
            f.flush()
            rc, _, _ = run_tool([args.tile_opt, f.name, "-o", os.devnull],
                                args.timeout)
        return 12 if rc == 0 else 1
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        weights = list(pool.map(weight, [t for _, t in seeds]))

    def make(index):
        rng = random.Random("%d:%d" % (args.seed, index))
        name, text = rng.choices(seeds, weights)[0]
        mutant, applied = mutate(rng, text)
        return name, mutant, applied

    if args.show is not None:
        name, mutant, applied = make(args.show)
        print("// seed %s, mutations %s" % (name, ",".join(applied)))
        sys.stdout.write(mutant)
        return 0

    runner = Runner(args)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    lock = threading.Lock()
    counts = {}
    stage_counts = {}
    signatures = {}
    bad_total = [0]

    def work(index):
        if args.time and time.time() - start > args.time:
            return None
        name, mutant, applied = make(index)
        outcomes = runner.run(mutant, index)
        return index, name, mutant, applied, outcomes

    def record(result):
        index, name, mutant, applied, outcomes = result
        bad = [o for o in outcomes if o.bad]
        for o in outcomes:
            key = "%s %s" % (o.stage, o.cls)
            stage_counts[key] = stage_counts.get(key, 0) + 1
        cls = bad[0].cls if bad else (
            outcomes[0].cls if outcomes[0].stage == "verify" else
            "passed-verify")
        counts[cls] = counts.get(cls, 0) + 1
        if args.verbose or bad:
            print("mutant %d (%s; %s): %s" % (
                index, name, ",".join(applied),
                "; ".join("%s %s %s" % (o.stage, o.cls, o.detail)
                          for o in outcomes)), flush=True)
        for o in bad:
            bad_total[0] += 1
            sig = o.signature()
            if sig in signatures:
                signatures[sig][1] += 1
                continue
            signatures[sig] = [index, 1]
            if args.out:
                base = os.path.join(args.out, "bad-%d-%s" % (index, o.stage))
                header = ("// tile-fuzz --seed %d: mutant %d of %s (%s)\n"
                          "// %s: %s %s\n" % (args.seed, index, name,
                                              ",".join(applied), o.stage,
                                              o.cls, o.detail))
                with open(base + ".mlir", "w", encoding="utf-8") as f:
                    f.write(header + mutant)
                small = minimize(runner, mutant, index, o,
                                 args.minimize_time)
                with open(base + ".min.mlir", "w", encoding="utf-8") as f:
                    f.write(header + small)
                print("  reproducer: %s.min.mlir" % base, flush=True)

    indices = range(args.start, args.start + args.count)
    done = 0
    last_progress = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = set()
        it = iter(indices)
        while True:
            while len(pending) < 2 * args.jobs:
                i = next(it, None)
                if i is None or stopping[0] or (
                        args.time and time.time() - start > args.time):
                    break
                pending.add(pool.submit(work, i))
            if not pending:
                break
            finished, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in finished:
                result = fut.result()
                if result is None:
                    continue
                done += 1
                with lock:
                    record(result)
            if args.progress and time.time() - last_progress > args.progress:
                last_progress = time.time()
                print("progress: %d mutants, %.0f s, %d bad" % (
                    done, last_progress - start, bad_total[0]), flush=True)

    elapsed = time.time() - start
    print("tile-fuzz: seed %d, %d mutants (from %d seeds), chips %s, "
          "%d jobs, %.0f s" % (args.seed, done, len(seeds),
                               ",".join(args.chips), args.jobs, elapsed))
    print("mutants by outcome:")
    for k in sorted(counts):
        print("  %-24s %d" % (k, counts[k]))
    print("runs by stage and outcome:")
    for k in sorted(stage_counts):
        print("  %-36s %d" % (k, stage_counts[k]))
    if signatures:
        print("bad signatures (first mutant, count):")
        for sig, (idx, n) in sorted(signatures.items()):
            print("  %s  (mutant %d, %d)" % (sig, idx, n))
    print("bad outcomes: %d" % bad_total[0])
    return 1 if bad_total[0] else 0


if __name__ == "__main__":
    sys.exit(main())
