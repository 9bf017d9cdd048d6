"""Renderers: diagnostics -> text for people, JSON for programs, SARIF / GitHub / JUnit for CI.

Each renderer is a pure function of a `Run` (the files analysed and what was found in them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..diagnostics import ERROR, WARNING


@dataclass
class FileResult:
    """What the analysis of one file found."""

    path: str  # absolute
    diagnostics: list = field(default_factory=list)
    kernels: int = 0  # distinct kernels analysed
    seconds: float = 0.0
    cached: bool = False


@dataclass
class Run:
    files: list  # FileResult, in the order the files were given
    seconds: float = 0.0
    fixed: int = 0  # findings removed by --fix

    @property
    def diagnostics(self) -> list:
        return sorted((d for f in self.files for d in f.diagnostics), key=lambda d: d.sort_key())

    @property
    def kernels(self) -> int:
        return sum(f.kernels for f in self.files)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.files for d in f.diagnostics if d.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def warnings(self) -> int:
        return self.count(WARNING)


def relative_path(path: str, base: str | None = None) -> str:
    """`path` relative to `base` (default: the working directory) when it lies inside it, with '/' separators."""
    base = os.path.abspath(base or os.getcwd())
    try:
        rel = os.path.relpath(os.path.abspath(path), base)
    except ValueError:  # another drive (Windows)
        return path
    if rel == ".." or rel.startswith(".." + os.sep):
        return path
    return rel.replace(os.sep, "/")


def statistics(diags: list) -> list:
    """(code, count, fixable count) per code, most frequent first."""
    counts: dict = {}
    for d in diags:
        n, fixable = counts.get(d.code, (0, 0))
        counts[d.code] = (n + 1, fixable + (1 if d.fixes else 0))
    return sorted(((c, n, fx) for c, (n, fx) in counts.items()), key=lambda t: (-t[1], t[0]))
