"""Inline suppressions: `# nki-verify: ignore[NKI401, NKI402]` on a line, `# nki-verify: ignore` for every code
on that line, and `# nki-verify: file-ignore[NKI403]` (or bare `file-ignore`) anywhere in a file.

A finding is suppressed by a comment on its first or its last line.  Suppressions that suppress nothing, or
name codes that do not exist, are reported as NKI903 (like ruff's unused-noqa), so they do not rot.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from .diagnostics import Diagnostic, Location

DIRECTIVE = re.compile(r"#\s*nki-verify\s*:\s*(?P<kind>file-ignore|ignore)\b\s*(?:\[(?P<codes>[^\]]*)\])?",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int  # 1-based column of the directive's '#'
    end_column: int
    codes: tuple[str, ...] | None  # None: every code
    whole_file: bool
    remove_from: int = 0  # 1-based columns of what removing the directive deletes: from the end of the code
    remove_to: int = 0  # before it to the end of the line, or up to a comment that follows it


def parse(text: str) -> list[Suppression]:
    """The suppression comments of a file (tokenized, so '#' inside strings does not count)."""
    out: list = []
    if DIRECTIVE.search(text) is None:
        return out  # no directive anywhere (the usual case): no need to tokenize
    lines = text.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                _directive(tok.string, tok.start[0], tok.start[1], out, lines)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        out = []  # an unparsable file: fall back to a line scan
        for n, line in enumerate(lines, 1):
            i = line.find("#")
            if i >= 0:
                _directive(line[i:], n, i, out, lines)
    return out


def _directive(comment: str, line: int, col: int, out: list, lines: list) -> None:
    for m in DIRECTIVE.finditer(comment):
        codes = None
        if m.group("codes") is not None:
            codes = tuple(c.strip().upper() for c in m.group("codes").split(",") if c.strip())
        # the span a removal deletes: from the end of the code before the directive to the end of the line
        # (text after the directive is its explanation and would otherwise become code)
        text = lines[line - 1] if 0 < line <= len(lines) else comment
        start, end = col + m.start(), len(text)
        following = text.find("#", col + m.end())
        if following >= 0:
            end = following  # another comment follows (a linter's directive): keep it
        else:
            while start > 0 and text[start - 1] in " \t":
                start -= 1
        out.append(Suppression(line, col + m.start() + 1, col + m.end() + 1, codes,
                               m.group("kind").lower() == "file-ignore", start + 1, end + 1))


def _matches(s: Suppression, d: Diagnostic) -> bool:
    if s.codes is not None and not any(d.code.startswith(c) for c in s.codes):
        return False
    return s.whole_file or s.line in (d.location.line, d.location.end_line)


def apply(diags: list, sources: dict, main_path: str, known_codes: tuple, reports, understood: bool) -> list:
    """Drop suppressed findings; add NKI903 for the main file's suppressions that suppress nothing.

    `sources` maps path -> text for every path a diagnostic points into; `reports(code)` says whether a code
    is selected (an unused suppression of a deselected code is not reported)."""
    parsed = {p: parse(t) for p, t in sources.items() if t is not None}
    used: set = set()
    kept = []
    for d in diags:
        hit = [s for s in parsed.get(d.location.path, ()) if _matches(s, d)]
        if not hit:
            kept.append(d)
            continue
        for s in hit:
            used.add((d.location.path, s, d.code))
    if not understood:
        return kept
    for s in parsed.get(main_path, ()):
        loc = Location(main_path, s.line, s.column, s.line, s.end_column)
        removal = Location(main_path, s.line, s.remove_from or s.column, s.line, s.remove_to or s.end_column)
        if s.codes is None:
            if not any(p == main_path and x == s for p, x, _ in used):
                what = "anything in this file" if s.whole_file else "anything on this line"
                kept.append(_unused(loc, removal, f"this suppression does not suppress {what}"))
            continue
        for c in s.codes:
            if not any(k.startswith(c) for k in known_codes):
                kept.append(_unused(loc, removal, f"'{c}' is not a rule code (see `nki-verify rule`)"))
            elif reports(c) and not any(p == main_path and x == s and code.startswith(c) for p, x, code in used):
                where = "in this file" if s.whole_file else "on this line"
                kept.append(_unused(loc, removal, f"unused suppression: there is no {c} finding {where}"))
    return kept


def _unused(loc: Location, removal: Location, message: str) -> Diagnostic:
    from .diagnostics import Fix, TextEdit

    fix = Fix("remove the suppression comment", (TextEdit(removal, ""),))
    return Diagnostic("NKI903", "warning", message, loc, None, fixes=(fix,))
