"""Code actions (quick fixes) for nki-verify diagnostics: pure functions of the text and the diagnostics.

Three sources of fixes:
* the fixes a diagnostic carries (affine_range -> sequential_range, move an allocation, Beta-1 -> Beta-2
  rewrites, remove an unused suppression...), which `convert.to_lsp` put in the diagnostic's `data`;
* the missing precondition the analysis suggested (`assert a.shape[0] % 128 == 0`), inserted in the kernel
  before the statement that needs it;
* a suppression comment `# nki-verify: ignore[CODE]` on the diagnostic's line.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable, Sequence

from lsprotocol import types

from .convert import SOURCE, edits_from_data, utf16_units

DIRECTIVE = re.compile(r"#\s*nki-verify\s*:\s*ignore\s*\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
NOT_SUPPRESSIBLE = ("NKI903", "NKI999")


def code_actions(uri: str, text: str, diagnostics: Sequence[types.Diagnostic],
                 units: Callable[[str], int] = utf16_units) -> list[types.CodeAction]:
    lines = text.splitlines(keepends=True)
    out: list[types.CodeAction] = []
    for d in diagnostics:
        if d.source != SOURCE:
            continue
        data = d.data if isinstance(d.data, dict) else {}
        for i, fix in enumerate(data.get("fixes") or ()):
            out.append(_action(fix["title"], d, edits_from_data(fix), preferred=i == 0))
        suggestion = data.get("suggestion")
        if suggestion and suggestion.startswith("assert ") and data.get("kernel"):
            edit = assert_edit(text, data["kernel"], d.range.start.line, suggestion)
            if edit is not None:
                out.append(_action(f"add `{suggestion}` (the precondition the counterexample violates)", d,
                                   {uri: [edit]}, preferred=not data.get("fixes")))
        code = str(d.code) if d.code is not None else ""
        if code and code not in NOT_SUPPRESSIBLE and d.range.start.line < len(lines):
            edit = suppression_edit(lines[d.range.start.line], d.range.start.line, code, units)
            out.append(_action(f"suppress {code} on this line", d, {uri: [edit]}))
    return out


def _action(title: str, d: types.Diagnostic, changes: dict, preferred: bool = False) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[d],
                            edit=types.WorkspaceEdit(changes=changes), is_preferred=preferred or None)


def suppression_edit(line_text: str, line: int, code: str,
                     units: Callable[[str], int] = utf16_units) -> types.TextEdit:
    """Add `code` to the line's `# nki-verify: ignore[...]` comment, or append such a comment."""
    body = line_text.rstrip("\r\n")
    m = DIRECTIVE.search(body)
    if m is not None:
        codes = [c.strip() for c in m.group("codes").split(",") if c.strip()]
        new = f"# nki-verify: ignore[{', '.join(codes + [code])}]"
        start, end = units(body[:m.start()]), units(body[:m.end()])
    else:
        stripped = body.rstrip()
        new = f"  # nki-verify: ignore[{code}]"
        start, end = units(stripped), units(body)
    rng = types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=end))
    return types.TextEdit(range=rng, new_text=new)


def assert_edit(text: str, kernel: str, line: int, suggestion: str) -> types.TextEdit | None:
    """Insert `suggestion` in kernel `kernel` before its top-level statement that contains `line` (0-based), so
    that the names the statement can see are defined.  None when the kernel cannot be found in the text."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    target = line + 1
    for fn in _functions(tree):
        if fn.name != kernel or not (fn.lineno <= target <= (fn.end_lineno or fn.lineno)):
            continue
        for stmt in fn.body:
            if _is_docstring(stmt, fn):
                continue
            if stmt.lineno == fn.lineno:  # `def k(x): return ...`: no line to insert before
                return None
            if stmt.lineno <= target <= (stmt.end_lineno or stmt.lineno) or stmt.lineno > target:
                indent = " " * stmt.col_offset
                pos = types.Position(line=stmt.lineno - 1, character=0)
                return types.TextEdit(range=types.Range(start=pos, end=pos), new_text=f"{indent}{suggestion}\n")
    return None


def _functions(tree: ast.AST) -> list[Any]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _is_docstring(stmt: ast.stmt, fn: Any) -> bool:
    return (stmt is fn.body[0] and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))
