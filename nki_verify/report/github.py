"""GitHub Actions workflow commands: one `::error` / `::warning` annotation per finding.

    ::error file=kernels/add.py,line=19,col=41,endLine=19,endColumn=62,title=NKI101::slice ... runs past ...

Paths are relative to `$GITHUB_WORKSPACE` (else the working directory); `endColumn` is exclusive, as in
the other formats.  Values are escaped as the Actions toolkit does (`%`, CR, LF; and `:` `,` in properties).
"""

from __future__ import annotations

import os

from ..diagnostics import Diagnostic, counterexample_text
from . import Run, relative_path

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, base: str | None = None) -> str:
    loc = d.location
    props = [("file", relative_path(loc.path, base)), ("line", str(loc.line)), ("col", str(loc.column)),
             ("endLine", str(loc.end_line)), ("endColumn", str(loc.end_column)), ("title", d.code)]
    body = d.message
    if d.counterexample:
        body += f"\ncounterexample: {counterexample_text(d.counterexample)}"
    if d.suggestion:
        body += f"\nhelp: if this is a precondition of the kernel, state it: `{d.suggestion}`"
    for n in d.notes:
        body += f"\nnote: {n.message} ({relative_path(n.location.path, base)}:{n.location.line})"
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{COMMANDS.get(d.severity, 'warning')} {head}::{escape_data(body)}"


def render(run: Run, base: str | None = None) -> str:
    base = base or os.environ.get("GITHUB_WORKSPACE") or None
    return "".join(annotation(d, base) + "\n" for d in run.diagnostics)
