"""Inline suppressions and NKI903 for the ones that suppress nothing."""

from __future__ import annotations

import os

from nki_verify import Options, verify_source
from nki_verify.suppressions import parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUG = os.path.join(ROOT, "examples", "tensor_add_bug.py")


def bug_lines() -> tuple[list, list]:
    text = open(BUG).read()
    diags = verify_source(text, BUG)
    return text.splitlines(), diags


def with_comment(lines: list, line: int, comment: str) -> str:
    out = list(lines)
    out[line - 1] = out[line - 1] + "  " + comment
    return "\n".join(out) + "\n"


def test_parse_ignores_hashes_in_strings() -> None:
    text = 's = "# nki-verify: ignore[NKI101]"\nx = 1  # nki-verify: ignore[nki101, NKI4]\n# nki-verify: file-ignore\n'
    sup = parse(text)
    assert [(s.line, s.codes, s.whole_file) for s in sup] == [(2, ("NKI101", "NKI4"), False), (3, None, True)]


def test_line_suppression_removes_only_that_finding() -> None:
    lines, diags = bug_lines()
    first = diags[0]
    text = with_comment(lines, first.line, "# nki-verify: ignore[NKI101]")
    after = verify_source(text, BUG)
    assert len(after) == len(diags) - sum(1 for d in diags if d.line == first.line)
    assert all(d.line != first.line for d in after)


def test_prefix_and_bare_suppressions() -> None:
    lines, diags = bug_lines()
    line = diags[0].line
    for comment in ("# nki-verify: ignore[NKI1]", "# nki-verify: ignore"):
        after = verify_source(with_comment(lines, line, comment), BUG)
        assert all(d.line != line for d in after), comment


def test_file_level_suppression() -> None:
    lines, _ = bug_lines()
    text = "# nki-verify: file-ignore[NKI101]\n" + "\n".join(lines) + "\n"
    assert verify_source(text, BUG) == []


def test_unused_suppression_is_reported_with_a_fix() -> None:
    lines, diags = bug_lines()
    clean_line = next(n for n in range(1, len(lines) + 1)
                      if lines[n - 1].strip().startswith("def ") and all(d.line != n for d in diags))
    text = with_comment(lines, clean_line, "# nki-verify: ignore[NKI401]")
    after = verify_source(text, BUG)
    unused = [d for d in after if d.code == "NKI903"]
    assert len(unused) == 1 and unused[0].line == clean_line and "no NKI401 finding" in unused[0].message
    edit = unused[0].fixes[0].edits[0]
    fixed = text.splitlines()[clean_line - 1]
    start, end = edit.location.column - 1, edit.location.end_column - 1
    assert fixed[start:end] == "  # nki-verify: ignore[NKI401]" and not fixed[:start].endswith(" ")
    assert unused[0].location.end_column - unused[0].location.column == len("# nki-verify: ignore[NKI401]")


def test_removing_an_unused_suppression_takes_its_explanation_too() -> None:
    lines, diags = bug_lines()
    clean_line = next(n for n in range(1, len(lines) + 1)
                      if lines[n - 1].strip().startswith("def ") and all(d.line != n for d in diags))
    text = with_comment(lines, clean_line, "# nki-verify: ignore[NKI401] because of the tail tile")
    (unused,) = [d for d in verify_source(text, BUG) if d.code == "NKI903"]
    edit = unused.fixes[0].edits[0]
    line = text.splitlines()[clean_line - 1]
    assert line[:edit.location.column - 1] + line[edit.location.end_column - 1:] == lines[clean_line - 1]


def test_unknown_code_in_a_suppression() -> None:
    lines, diags = bug_lines()
    text = with_comment(lines, diags[0].line, "# nki-verify: ignore[NKI101, NKI777]")
    after = verify_source(text, BUG)
    assert any(d.code == "NKI903" and "'NKI777' is not a rule code" in d.message for d in after)


def test_suppressions_can_be_turned_off() -> None:
    lines, diags = bug_lines()
    text = with_comment(lines, diags[0].line, "# nki-verify: ignore[NKI101]")
    assert len(verify_source(text, BUG, Options(suppressions=False))) == len(diags)


def test_unused_suppression_of_a_deselected_code_is_quiet() -> None:
    lines, diags = bug_lines()
    clean_line = next(n for n in range(1, len(lines) + 1) if all(d.line != n for d in diags) and lines[n - 1])
    text = with_comment(lines, clean_line, "# nki-verify: ignore[NKI401]")
    assert not [d for d in verify_source(text, BUG, Options(ignore=("NKI4",))) if d.code == "NKI903"]
