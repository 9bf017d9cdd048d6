"""Machine-readable output (the documented contract, version 1)."""

from __future__ import annotations

import json

from ..diagnostics import ERROR, WARNING, Diagnostic

VERSION = 1


def diagnostic_json(d: Diagnostic) -> dict:
    loc = d.location
    out = {
        "path": loc.path, "line": loc.line, "column": loc.column, "end_line": loc.end_line,
        "end_column": loc.end_column, "code": d.code, "severity": d.severity, "message": d.message,
        "kernel": d.kernel, "counterexample": d.counterexample_dict(),
    }
    if d.suggestion:
        out["suggestion"] = d.suggestion
    if d.notes:
        out["related"] = [{"path": n.location.path, "line": n.location.line, "column": n.location.column,
                           "end_line": n.location.end_line, "end_column": n.location.end_column,
                           "message": n.message} for n in d.notes]
    if d.fixes:
        out["fixes"] = [{"description": f.description,
                         "edits": [{"path": e.location.path, "line": e.location.line, "column": e.location.column,
                                    "end_line": e.location.end_line, "end_column": e.location.end_column,
                                    "new_text": e.new_text} for e in f.edits]} for f in d.fixes]
    return out


def render(diags: list, n_files: int, n_kernels: int, seconds: float, stats: list | None = None) -> str:
    """The version-1 document; `stats` ((code, count, fixable) from report.statistics) adds a
    "statistics" list (--statistics)."""
    doc: dict = {
        "version": VERSION,
        "diagnostics": [diagnostic_json(d) for d in diags],
        "summary": {
            "files": n_files, "kernels": n_kernels,
            "errors": sum(1 for d in diags if d.severity == ERROR),
            "warnings": sum(1 for d in diags if d.severity == WARNING),
            "seconds": round(seconds, 4),
        },
    }
    if stats is not None:
        doc["statistics"] = [{"code": code, "name": _rule_name(code), "count": n, "fixable": fixable}
                             for code, n, fixable in stats]
    return json.dumps(doc, indent=2)


def _rule_name(code: str) -> str | None:
    from .. import rules

    r = rules.RULES.get(code)
    return r.name if r is not None else None
