"""Applying the mechanical fixes that diagnostics carry (`--fix`, `--diff`).

A fix is a set of text edits; it is applied whole or not at all.  Fixes whose edits overlap one already
chosen are left for the next pass; identical fixes (two findings in one loop both asking for
`sequential_range`) are applied once.  A file that does not parse is never touched, and neither is a file a
fix would leave unparsable.  Passes repeat on the changed files until no fix applies, so a second `--fix`
finds nothing to do.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field
from typing import Callable

from .diagnostics import Fix, Location, TextEdit

MAX_PASSES = 10
_NEWLINE = re.compile(r"\r\n|\r|\n")


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _line_starts(text: str) -> list:
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def _offset(starts: list, text: str, line: int, column: int) -> int:
    if line > len(starts):
        return len(text)
    line_end = starts[line] if line < len(starts) else len(text)
    return min(starts[line - 1] + max(column - 1, 0), line_end)


def _span(starts: list, text: str, loc: Location) -> tuple:
    return _offset(starts, text, loc.line, loc.column), _offset(starts, text, loc.end_line, loc.end_column)


def _tidy_deletion(text: str, start: int, end: int) -> tuple:
    """A deletion between blanks takes the blanks after it; one that leaves only blanks before the end of its line
    also takes those blanks (and the whole line when nothing else is left on it)."""
    m = _NEWLINE.search(text, end)
    line_end = m.start() if m else len(text)
    if text[end:line_end].strip():
        if start > 0 and text[start - 1] in " \t":
            while end < line_end and text[end] in " \t":
                end += 1
        return start, end
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    if (start == 0 or text[start - 1] in "\r\n") and m is not None:
        end = m.end()  # the line is empty now: remove it
    else:
        end = line_end
    return start, end


def _ranges(text: str, fix: Fix) -> list | None:
    starts = _line_starts(text)
    out = []
    for e in fix.edits:
        start, end = _span(starts, text, e.location)
        if end < start:
            return None
        if e.new_text == "" and end > start:
            start, end = _tidy_deletion(text, start, end)
        out.append((start, end, e.new_text))
    return sorted(out)


def _overlaps(a: list, b: list) -> bool:
    return any(s1 < e2 and s2 < e1 or (s1 == s2 and (s1 == e1 or s2 == e2)) for s1, e1, _ in a for s2, e2, _ in b)


def apply_fixes(text: str, fixes: list) -> tuple:
    """(new text, fixes applied): the first non-conflicting choice among `fixes`, in order."""
    chosen: list = []
    seen: set = set()
    applied = 0
    for fix in fixes:
        rs = _ranges(text, fix)
        if rs is None or tuple(rs) in seen:
            continue
        if any(_overlaps(rs, c) for c in chosen):
            continue
        chosen.append(rs)
        seen.add(tuple(rs))
        applied += 1
    edits = sorted((r for rs in chosen for r in rs), reverse=True)
    for start, end, new in edits:
        text = text[:start] + new + text[end:]
    return text, applied


def fixes_by_file(diagnostics: list) -> dict:
    """path -> the first fix of each finding whose edits all lie in that one file."""
    out: dict = {}
    for d in sorted(diagnostics, key=lambda d: d.sort_key()):
        if not d.fixes:
            continue
        fix = d.fixes[0]
        paths = {e.location.path for e in fix.edits}
        if len(paths) == 1 and fix.edits:
            out.setdefault(paths.pop(), []).append(fix)
    return out


@dataclass
class Outcome:
    original: dict = field(default_factory=dict)  # path -> text before
    fixed: dict = field(default_factory=dict)  # path -> text after (only files that change)
    applied: int = 0
    refused: list = field(default_factory=list)  # (path, reason)

    def diff(self, display: Callable[[str], str] = lambda p: p) -> str:
        out = []
        for path in sorted(self.fixed):
            name = display(path)
            out.extend(difflib.unified_diff(self.original[path].splitlines(keepends=True),
                                            self.fixed[path].splitlines(keepends=True),
                                            fromfile=f"a/{name}", tofile=f"b/{name}"))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def fix_all(diagnostics: list, read: Callable[[str], str | None],
            reanalyse: Callable[[dict], list]) -> Outcome:
    """Apply fixes in passes.  `read(path)` gives a file's text from disk; `reanalyse({path: text})` gives the
    diagnostics of those files analysed with those texts (and every changed text visible to imports)."""
    outcome = Outcome()
    current: dict = {}
    for _ in range(MAX_PASSES):
        changed = {}
        for path, fixes in fixes_by_file(diagnostics).items():
            text = current.get(path)
            if text is None:
                text = read(path)
                if text is None:
                    continue
                outcome.original.setdefault(path, text)
            if not parses(text):
                outcome.refused.append((path, "the file has a syntax error"))
                continue
            new, n = apply_fixes(text, fixes)
            if n == 0 or new == text:
                continue
            if not parses(new):
                outcome.refused.append((path, "the fixes would leave the file unparsable"))
                continue
            changed[path] = new
            outcome.applied += n
        if not changed:
            break
        current.update(changed)
        diagnostics = reanalyse(changed)
    outcome.fixed = {p: t for p, t in current.items() if t != outcome.original.get(p)}
    outcome.refused = sorted(set(outcome.refused))
    return outcome


__all__ = ["Fix", "Outcome", "TextEdit", "apply_fixes", "fix_all", "fixes_by_file", "parses"]
