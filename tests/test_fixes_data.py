"""Mechanical fixes carried by diagnostics: applied to the source, the finding goes away and nothing breaks."""

from __future__ import annotations

import os

import pytest

from nki_verify import Diagnostic, verify_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "kernels")


def apply_fix(text: str, d: Diagnostic) -> str:
    """Apply the first fix of `d` (edits in reverse document order, 1-based inclusive-exclusive columns)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(line: int, col: int) -> int:
        if line > len(lines):
            return len(text)
        return starts[line - 1] + col - 1

    out = text
    for e in sorted(d.fixes[0].edits, key=lambda e: (e.location.line, e.location.column), reverse=True):
        a = offset(e.location.line, e.location.column)
        b = offset(e.location.end_line, e.location.end_column)
        out = out[:a] + e.new_text + out[b:]
    return out


def kernel_source(name: str, kernel: str) -> str:
    """One kernel of a test file, with the file's imports and module-level definitions."""
    import ast

    path = os.path.join(KERNELS, name)
    text = open(path).read()
    lines = text.splitlines()
    keep = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name != kernel:
            continue
        if isinstance(node, ast.If):
            continue  # launch blocks
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        keep.append("\n".join(lines[first - 1:node.end_lineno]))
    return "\n\n\n".join(keep) + "\n"


@pytest.mark.parametrize("file, kernel, code", [
    ("b2_language.py", "copy_returning_a_tile", "NKI606"),
    ("b2_language.py", "copy_into_a_view_returning", "NKI606"),
    ("b2_language.py", "index_grid", "NKI602"),
    ("b2_language.py", "string_buffer", "NKI601"),
    ("b1_dependencies.py", None, "NKI401"),
    ("b2_dependencies.py", None, "NKI403"),
])
def test_fix_removes_the_finding(file: str, kernel: str | None, code: str) -> None:
    path = os.path.join(KERNELS, file)
    text = kernel_source(file, kernel) if kernel else open(path).read()
    text = "\n".join(ln.split("  # expect:")[0] for ln in text.splitlines()) + "\n"
    before = [d for d in verify_source(text, path) if d.code == code and d.fixes]
    assert before, f"no {code} with a fix in {file}"
    # apply fixes one at a time, re-analysing each time (positions move)
    for _ in range(10):
        current = [d for d in verify_source(text, path) if d.code == code and d.fixes]
        if not current:
            break
        text = apply_fix(text, current[0])
    after = verify_source(text, path)
    assert not [d for d in after if d.code == code], "\n" + text
    assert not [d for d in after if d.code in ("NKI999", "NKI902")], "\n" + text
    compile(text, path, "exec")
