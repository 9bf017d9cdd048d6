"""Inline expectations in test kernels: `# expect: NKI101 error, NKI502` on the diagnosed line.

A code may carry a severity; without one any severity matches.  Lines without a marker must stay
clean.  Run with NKI_VERIFY_UPDATE_EXPECTATIONS=1 to rewrite the markers from the verifier's output
(when a change is on purpose; review the diff).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

MARK = re.compile(r"#\s*expect:\s*(?P<items>[A-Z0-9 ,a-z]+?)\s*$")
ITEM = re.compile(r"^(NKI\d{3})(?:\s+(error|warning|info))?$")


def parse(path: str) -> dict:
    """line -> list of (code, severity or None)."""
    out: dict = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = MARK.search(line)
            if not m:
                continue
            items = []
            for part in m.group("items").split(","):
                part = part.strip()
                im = ITEM.match(part)
                if not im:
                    raise ValueError(f"{path}:{n}: bad expectation {part!r}")
                items.append((im.group(1), im.group(2)))
            out[n] = items
    return out


def compare(files: list, diagnostics: list) -> list:
    """Mismatches between the markers of `files` and the diagnostics located in them."""
    actual: dict = defaultdict(list)
    for d in diagnostics:
        actual[(os.path.abspath(d.path), d.line)].append((d.code, d.severity))
    problems = []
    for f in files:
        f = os.path.abspath(f)
        expected = parse(f)
        lines = set(expected) | {ln for (p, ln) in actual if p == f}
        for ln in sorted(lines):
            exp = expected.get(ln, [])
            got = sorted(actual.get((f, ln), []))
            got_codes = sorted(set(got))
            ok = sorted({c for c, _ in exp}) == sorted({c for c, _ in got_codes}) and all(
                sev is None or (code, sev) in got_codes for code, sev in exp)
            if not ok:
                problems.append(f"{os.path.relpath(f)}:{ln}: expected {_fmt(exp)}, got {_fmt(got_codes)}")
    return problems


def _fmt(items: list) -> str:
    return "[" + ", ".join(f"{c} {s}" if s else c for c, s in items) + "]" if items else "nothing"


def rewrite(files: list, diagnostics: list) -> None:
    actual: dict = defaultdict(set)
    for d in diagnostics:
        actual[(os.path.abspath(d.path), d.line)].add((d.code, d.severity))
    for f in files:
        f = os.path.abspath(f)
        with open(f, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for i, line in enumerate(lines):
            base = MARK.sub("", line).rstrip()
            got = sorted(actual.get((f, i + 1), set()))
            lines[i] = base + ("  # expect: " + ", ".join(f"{c} {s}" for c, s in got) if got else "")
        with open(f, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
