"""Mutation check: seed simple bugs into a scratch copy of real kernels and measure what nki-verify catches.

    python benchmarks/mutations.py CORPUS_DIR [CORPUS_DIR...] [--per-class 40] [--seed 1] [--max-seconds 8]

Each mutant changes one place of one kernel file, in code the front end actually reaches (a line of an
instruction, an allocation or a loop header of an analysed kernel), and is analysed in a scratch copy of
the file's tree (the corpus itself is never modified, and nothing of it is written into this repository):

  off_by_one     the end of a slice in an instruction's operand gets `+ 1`
                 caught by: NKI101 / NKI102 (past the end), NKI201 (129 partitions) or NKI501 (operands no
                 longer match) on that line
  tile_past_128  an on-chip allocation's partition dimension of 128 (or nl.tile_size.pmax) becomes 256
                 caught by: NKI201 on that line (or on a line that uses the tile)
  psum_wide      a PSUM allocation's last dimension becomes 2048 elements (4 KiB or more: past a 2 KiB bank)
                 caught by: NKI203 / NKI204 (more than a bank, more banks than there are) in the file;
                 a PSUM tile no matmul or transpose writes may legally be wider, so misses are listed
  seq_to_affine  `sequential_range` becomes `affine_range` in a Beta 1 kernel
                 caught by: NKI401 in the loop; only loops that carry a dependency are bugs, so the misses
                 are listed for review (a loop whose iterations are independent is a correct non-finding)
  seq_to_affine_b2  the same in a Beta 2 kernel, reported apart and not counted in the total: in Beta 2
                 `affine_range` is an alias of `range`, so the mutant is a bug only where the loop writes the
                 same element of an output in two iterations (NKI401 says so); elsewhere a miss is correct

A mutant is caught when a diagnostic with an accepted code appears at an accepted line (or with a note -- the
loop, the call that reaches a helper -- at one) that the unmutated file does not have at that severity.
Mutants at lines where the unmutated file already has an error with an accepted code are not measurable
and are left out.  The report gives per class: mutants, caught, and the misses (file:line) to review.

The sample depends on the tree: candidates are the lines the verifier reaches, so a tree that analyses more
code draws from a larger pool.  To compare two trees on the same mutants, save the sample of one run and
replay it on the other:

    python benchmarks/mutations.py DIRS... --save-mutants sample.json     # on one tree
    python benchmarks/mutations.py DIRS... --mutants sample.json          # on another (same DIRS)
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from compiler import ir  # noqa: E402
from nki_verify import Options, analyze_source  # noqa: E402
from nki_verify.cli import collect_files  # noqa: E402

CLASSES = ("off_by_one", "tile_past_128", "psum_wide", "seq_to_affine", "seq_to_affine_b2")
ACCEPT = {"off_by_one": {"NKI101", "NKI102", "NKI201", "NKI501"}, "tile_past_128": {"NKI201"},
          "psum_wide": {"NKI203", "NKI204"}, "seq_to_affine": {"NKI401"}, "seq_to_affine_b2": {"NKI401"}}
UNCOUNTED = ("seq_to_affine_b2",)  # reported, not in the total (see the docstring)


class Mutant:
    def __init__(self, cls: str, path: str, lines: range, edits: list, what: str) -> None:
        self.cls, self.path, self.lines, self.edits, self.what = cls, path, lines, edits, what

    def apply(self, text: str) -> str:
        offsets = _line_offsets(text)
        out = text
        # edits: (line, col, end_line, end_col, replacement) on 1-based lines / 0-based byte columns
        for line, col, end_line, end_col, new in sorted(self.edits, reverse=True):
            a = offsets[line - 1] + _char(text, offsets[line - 1], col)
            b = offsets[end_line - 1] + _char(text, offsets[end_line - 1], end_col)
            out = out[:a] + new + out[b:]
        return out


def _line_offsets(text: str) -> list:
    offs, n = [0], 0
    for line in text.splitlines(keepends=True):
        n += len(line)
        offs.append(n)
    return offs


def _char(text: str, start: int, byte_col: int) -> int:
    """ast columns are UTF-8 byte offsets."""
    line = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _seg(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or ""


def _is_call_to(node: ast.AST, names: tuple) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def _buffer_of(call: ast.Call) -> str:
    for kw in call.keywords:
        if kw.arg == "buffer":
            return ast.unparse(kw.value)
    return ""


def candidates(path: str, text: str, reached: set, loops: dict) -> list:
    """Mutants of one file, at reached lines only (`loops`: the reached loops' header lines -> dialect)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        lines = range(getattr(node, "lineno", 0), (getattr(node, "end_lineno", 0) or 0) + 1)
        # an instruction's operand slice: x[a:b] inside a call of nisa / nl
        if isinstance(node, ast.Call) and any(ln in reached for ln in lines):
            for arg in list(node.args) + [k.value for k in node.keywords]:
                if isinstance(arg, ast.Subscript):
                    items = arg.slice.elts if isinstance(arg.slice, ast.Tuple) else [arg.slice]
                    for it in items:
                        if isinstance(it, ast.Slice) and it.upper is not None and it.step is None:
                            u = it.upper
                            out.append(Mutant("off_by_one", path, range(node.lineno, node.end_lineno + 1),
                                              [(u.lineno, u.col_offset, u.end_lineno, u.end_col_offset,
                                                f"({_seg(text, u)}) + 1")], f"{_seg(text, u)} -> +1"))
        if _is_call_to(node, ("ndarray", "zeros", "empty")) and node.lineno in reached and node.args and \
                isinstance(node.args[0], ast.Tuple) and node.args[0].elts:
            buf = _buffer_of(node)
            shape = node.args[0].elts
            first = shape[0]
            if isinstance(first, ast.Call) and _seg(text, first.func).endswith("par_dim") and first.args:
                first = first.args[0]
            if ("sbuf" in buf or "psum" in buf) and (_seg(text, first) in ("128", "nl.tile_size.pmax", "pmax")):
                out.append(Mutant("tile_past_128", path, range(node.lineno, node.end_lineno + 1),
                                  [(first.lineno, first.col_offset, first.end_lineno, first.end_col_offset, "256")],
                                  f"{_seg(text, first)} -> 256"))
            if "psum" in buf and len(shape) >= 2:
                last = shape[-1]
                out.append(Mutant("psum_wide", path, range(node.lineno, node.end_lineno + 1),
                                  [(last.lineno, last.col_offset, last.end_lineno, last.end_col_offset,
                                    "2048")], f"{_seg(text, last)} -> 2048"))
        if isinstance(node, ast.For) and node.lineno in loops and _is_call_to(node.iter, ("sequential_range",)):
            f = node.iter.func
            body_end = max(getattr(s, "end_lineno", s.lineno) for s in node.body)
            cls = "seq_to_affine_b2" if loops[node.lineno] == ir.B2 else "seq_to_affine"
            out.append(Mutant(cls, path, range(node.lineno, body_end + 1),
                              [(f.end_lineno, f.end_col_offset - len("sequential_range"), f.end_lineno,
                                f.end_col_offset, "affine_range")], "sequential_range -> affine_range"))
    return out


def _reached(result) -> tuple:
    lines, loops = collections.defaultdict(set), collections.defaultdict(dict)
    for k in result.ir:
        for ins in k.instrs:
            for sp in (ins.span,) + tuple(ins.span.via):
                lines[sp.file].update(range(sp.line, sp.end_line + 1))
        for t in k.tensors:
            sp = getattr(t, "span", None)
            if sp is not None:
                lines[sp.file].update(range(sp.line, sp.end_line + 1))
        for lp in k.loops:
            loops[lp.span.file][lp.span.line] = lp.dialect
    return lines, loops


def _key(d) -> tuple:
    return (d.code, os.path.realpath(d.path), d.line, d.severity)


def _measurable(m: Mutant, baseline: set) -> bool:
    real = os.path.realpath(m.path)
    return not any(c in ACCEPT[m.cls] and p == real and ln in m.lines and sev == "error"
                   for c, p, ln, sev in baseline)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--per-class", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=8.0, help="skip files whose analysis takes longer")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", action="store_true", help="print each analysis and its time on stderr")
    ap.add_argument("--save-mutants", metavar="FILE", help="write the sampled mutants, to replay them elsewhere")
    ap.add_argument("--mutants", metavar="FILE", help="replay these mutants (from --save-mutants) instead of "
                    "sampling: the same DIRS are expected")
    args = ap.parse_args()
    replay = json.load(open(args.mutants, encoding="utf-8")) if args.mutants else None
    rng = random.Random(args.seed)
    t_start = time.perf_counter()
    work = tempfile.mkdtemp(prefix="nki_mutants_")
    pool: dict = {c: [] for c in CLASSES}
    baselines: dict = {}
    copies: dict = {}
    for root in args.paths:
        root = os.path.realpath(root)
        dst = os.path.join(work, os.path.basename(root))
        shutil.copytree(root, dst, ignore=shutil.ignore_patterns(".git", "*.pyc", "__pycache__"))
        copies[root] = dst
        wanted = None if replay is None else {os.path.join(work, m["path"]) for m in replay}
        for f in collect_files([dst]):
            if wanted is not None and f not in wanted:
                continue
            text = open(f, encoding="utf-8").read()
            if "nki" not in text:
                continue
            t0 = time.perf_counter()
            res = analyze_source(text, f, Options())
            baselines[f] = {_key(d) for d in res.diagnostics}
            if args.progress:
                print(f"baseline {os.path.relpath(f, work)} {time.perf_counter() - t0:.1f} s", file=sys.stderr,
                      flush=True)
            if replay is not None:
                continue
            if time.perf_counter() - t0 > args.max_seconds or not res.ir:
                del baselines[f]
                continue
            lines, loops = _reached(res)
            for m in candidates(f, text, lines.get(f, set()), loops.get(f, {})):
                pool[m.cls].append(m)
    if replay is not None:
        for m in replay:
            path = os.path.join(work, m["path"])
            if path in baselines:
                pool[m["cls"]].append(Mutant(m["cls"], path, range(*m["lines"]), [tuple(e) for e in m["edits"]],
                                             m["what"]))
    report: dict = {}
    saved: list = []
    for cls in CLASSES:
        ms = [m for m in pool[cls] if _measurable(m, baselines[m.path])]
        if replay is None:
            rng.shuffle(ms)
            ms = ms[:args.per_class]
        saved += [{"cls": m.cls, "path": os.path.relpath(m.path, work), "lines": [m.lines.start, m.lines.stop],
                   "edits": [list(e) for e in m.edits], "what": m.what} for m in ms]
        caught, misses = 0, []
        for m in ms:
            original = open(m.path, encoding="utf-8").read()
            mutated = m.apply(original)
            try:
                with open(m.path, "w", encoding="utf-8") as fh:
                    fh.write(mutated)
                t0 = time.perf_counter()
                res = analyze_source(mutated, m.path, Options())
                if args.progress:
                    print(f"{cls} {os.path.relpath(m.path, work)}:{m.lines.start} {time.perf_counter() - t0:.1f} s",
                          file=sys.stderr, flush=True)
            finally:
                with open(m.path, "w", encoding="utf-8") as fh:
                    fh.write(original)
            new = [d for d in res.diagnostics if _key(d) not in baselines[m.path] and d.code in ACCEPT[cls]
                   and os.path.realpath(d.path) == os.path.realpath(m.path)]
            if cls not in ("psum_wide", "tile_past_128"):
                new = [d for d in new if d.line in m.lines or any(
                    n.location.line in m.lines and os.path.realpath(n.location.path) == os.path.realpath(m.path)
                    for n in d.notes)]
            if new:
                caught += 1
            else:
                rel = os.path.relpath(m.path, work)
                others = sorted({d.code for d in res.diagnostics if _key(d) not in baselines[m.path]})
                misses.append(f"{rel}:{m.lines.start} ({m.what}; new diagnostics: {', '.join(others) or 'none'})")
        report[cls] = {"candidates": len(pool[cls]), "mutants": len(ms), "caught": caught, "misses": misses}
    shutil.rmtree(work, ignore_errors=True)
    if args.save_mutants:
        with open(args.save_mutants, "w", encoding="utf-8") as fh:
            json.dump(saved, fh, indent=1)
    total = sum(r["mutants"] for c, r in report.items() if c not in UNCOUNTED)
    got = sum(r["caught"] for c, r in report.items() if c not in UNCOUNTED)
    if args.json:
        print(json.dumps({"classes": report, "mutants": total, "caught": got,
                          "seconds": round(time.perf_counter() - t_start, 1)}, indent=2))
        return 0
    for cls, r in report.items():
        pct = 100.0 * r["caught"] / r["mutants"] if r["mutants"] else 0.0
        apart = "  (not in the total)" if cls in UNCOUNTED else ""
        print(f"{cls:16s} {r['caught']:4d} / {r['mutants']:4d} caught ({pct:5.1f}%)  [{r['candidates']} candidates]"
              f"{apart}")
        for miss in r["misses"]:
            print(f"    miss: {miss}")
    print(f"total            {got:4d} / {total:4d} caught ({100.0 * got / max(total, 1):.1f}%) in "
          f"{time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
