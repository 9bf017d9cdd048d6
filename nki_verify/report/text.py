"""Human-readable output: `path:line:col: CODE severity: message`, a code frame with carets, evidence, a summary."""

from __future__ import annotations

import os
from typing import TextIO

from ..diagnostics import ERROR, WARNING, Diagnostic, counterexample_text

COLORS = {ERROR: "\033[1;31m", WARNING: "\033[1;33m", "info": "\033[1;36m"}
BOLD, DIM, RESET, BLUE = "\033[1m", "\033[2m", "\033[0m", "\033[1;34m"


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def display_path(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


class SourceCache:
    def __init__(self, overlays: dict | None = None) -> None:
        self._lines: dict = {}
        self.overlays = overlays or {}

    def line(self, path: str, n: int) -> str | None:
        lines = self._lines.get(path)
        if lines is None:
            text = self.overlays.get(path)
            if text is None:
                try:
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                except (OSError, UnicodeDecodeError):
                    text = ""
            lines = text.splitlines()
            self._lines[path] = lines
        return lines[n - 1] if 0 < n <= len(lines) else None


def format_diagnostic(d: Diagnostic, sources: SourceCache, color: bool = False) -> str:
    c = (lambda code, s: f"{code}{s}{RESET}") if color else (lambda code, s: s)
    loc = d.location
    head = (f"{c(BOLD, f'{display_path(loc.path)}:{loc.line}:{loc.column}:')} "
            f"{c(COLORS.get(d.severity, ''), f'{d.code} {d.severity}:')} {d.message}")
    out = [head]
    src = sources.line(loc.path, loc.line)
    if src is not None:
        gutter = len(str(loc.line))
        pad = " " * gutter
        start = max(loc.column - 1, 0)
        end = loc.end_column - 1 if loc.end_line == loc.line else len(src.rstrip())
        width = max(1, min(end, len(src)) - start)
        out.append(c(BLUE, f"{pad} |"))
        out.append(c(BLUE, f"{loc.line} |") + f" {src.rstrip()}")
        out.append(c(BLUE, f"{pad} |") + " " + " " * start + c(COLORS.get(d.severity, ""), "^" * width))
        prefix = c(BLUE, f"{pad} =")
    else:
        prefix = "  ="
    if d.kernel:
        out.append(f"{prefix} kernel: {d.kernel}")
    if d.counterexample:
        out.append(f"{prefix} counterexample: {counterexample_text(d.counterexample)}")
    if d.suggestion:
        out.append(f"{prefix} help: if this is a precondition of the kernel, state it: `{d.suggestion}`")
    for n in d.notes:
        out.append(f"{prefix} note: {n.message} ({display_path(n.location.path)}:{n.location.line}:"
                   f"{n.location.column})")
    for fx in d.fixes:
        out.append(f"{prefix} fix: {fx.description}")
    return "\n".join(out)


PRECONDITION_PLACES = 5  # places listed per precondition in the digest (the rest counted)


def preconditions(diags: list) -> str:
    """The digest of the asserts that several warnings suggest: a kernel that does not state a precondition it
    relies on (a size at most 128, two sizes equal) gets a warning at every place that relies on it, each with the
    same suggestion, and so do the other kernels of the file written for the same inputs (a tutorial's three
    versions of one kernel); the digest names each such precondition once, with the kernels and the places it
    would settle.  Empty when no two warnings suggest the same assert (each one's own `help` says it)."""
    groups: dict = {}
    for d in diags:
        if d.suggestion and d.severity == WARNING:
            groups.setdefault(d.suggestion, []).append(d)
    shared = sorted(((c, ds) for c, ds in groups.items() if len(ds) > 1), key=lambda t: (-len(t[1]), t[0]))
    if not shared:
        return ""
    n = sum(len(ds) for _, ds in shared)
    out = [f"Preconditions several warnings suggest ({len(shared)} condition{'' if len(shared) == 1 else 's'} "
           f"behind {n} warnings): state those a kernel relies on as asserts at its top; each settles the places "
           "it names"]
    width = max(len(c) for c, _ in shared)
    for cond, ds in shared:
        kernels = list(dict.fromkeys(d.kernel for d in ds if d.kernel))
        where = ", ".join(kernels) if len(kernels) <= 3 else f"{len(kernels)} kernels"
        seen = list(dict.fromkeys((d.location.path, d.location.line) for d in ds))
        shown, last = [], None
        for path, line in seen[:PRECONDITION_PLACES]:
            shown.append(str(line) if path == last else f"{os.path.basename(path)}:{line}")
            last = path
        more = f" and {len(seen) - PRECONDITION_PLACES} more" if len(seen) > PRECONDITION_PLACES else ""
        out.append(f"  {cond.ljust(width)}  {len(ds)} warnings{f' in {where}' if where else ''}: "
                   f"{', '.join(shown)}{more}")
    return "\n".join(out)


def summary(n_files: int, n_kernels: int, diags: list, seconds: float) -> str:
    errors = sum(1 for d in diags if d.severity == ERROR)
    warnings = sum(1 for d in diags if d.severity == WARNING)

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    verdict = "Found" if errors or warnings else "No problems found:"
    if errors or warnings:
        return (f"{verdict} {plural(errors, 'error')} and {plural(warnings, 'warning')} in "
                f"{plural(n_files, 'file')} ({plural(n_kernels, 'kernel')} analysed) in {seconds:.2f}s.")
    return f"{verdict} {plural(n_files, 'file')}, {plural(n_kernels, 'kernel')} verified in {seconds:.2f}s."


def statistics_table(stats: list) -> str:
    """`--statistics`: one line per code, most frequent first (`[*]`: that many carry a mechanical fix)."""
    from .. import rules

    if not stats:
        return ""
    width = max(len(str(n)) for _, n, _ in stats)
    lines = []
    for code, n, fixable in stats:
        r = rules.RULES.get(code)
        mark = "[*]" if fixable else "   "
        lines.append(f"{n:>{width}}  {code}  {mark} {r.name if r else ''}".rstrip())
    return "\n".join(lines)
