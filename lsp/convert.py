"""Pure conversions between nki_verify's values and LSP's: no server, no I/O.

nki_verify locations are 1-based lines and 1-based character (code point) columns, end exclusive; LSP
positions are 0-based lines and 0-based columns in the negotiated encoding (UTF-16 unless the client offers
another).  The caller passes an `Encoder` that knows the text of each file; the default counts code points.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from nki_verify import rules
from nki_verify.diagnostics import Diagnostic, Fix, Location, counterexample_text

SOURCE = "nki-verify"
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}

# (path, 0-based line, 0-based code point column) -> LSP position
Encoder = Callable[[str, int, int], types.Position]


def code_points(_path: str, line: int, column: int) -> types.Position:
    return types.Position(line=max(line, 0), character=max(column, 0))


def make_encoder(lines_of: Callable[[str], Sequence[str] | None], units: Callable[[str], int] = len) -> Encoder:
    """An encoder reading each file's lines through `lines_of`; `units(s)` counts s in the client's code units
    (UTF-16 for most clients).  Columns past the end of a line are clamped to it."""

    def encode(path: str, line: int, column: int) -> types.Position:
        line, column = max(line, 0), max(column, 0)
        lines = lines_of(path)
        if lines is None or line >= len(lines):
            return types.Position(line=line, character=column)
        text = lines[line].rstrip("\r\n")
        return types.Position(line=line, character=units(text[:min(column, len(text))]))

    return encode


def utf16_units(s: str) -> int:
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def path_to_uri(path: str) -> str:
    return from_fs_path(path) or path


def uri_to_path(uri: str) -> str:
    return to_fs_path(uri) or uri


def to_range(loc: Location, encode: Encoder = code_points) -> types.Range:
    start = encode(loc.path, loc.line - 1, loc.column - 1)
    end = encode(loc.path, loc.end_line - 1, loc.end_column - 1)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return types.Range(start=start, end=end)


def message_text(d: Diagnostic) -> str:
    """The message with its evidence: the counterexample and the missing precondition, when there are any."""
    parts = [d.message]
    if d.counterexample:
        parts.append(f"counterexample: {counterexample_text(d.counterexample)}")
    if d.suggestion:
        parts.append(f"help: if this is a precondition of the kernel, state it: `{d.suggestion}`")
    return "\n".join(parts)


def fix_data(fix: Fix, encode: Encoder = code_points) -> dict:
    return {"title": fix.description,
            "edits": [{"uri": path_to_uri(e.location.path), "range": _range_json(to_range(e.location, encode)),
                       "newText": e.new_text} for e in fix.edits]}


def _range_json(r: types.Range) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def to_lsp(d: Diagnostic, encode: Encoder = code_points) -> types.Diagnostic:
    """One nki_verify diagnostic as an LSP diagnostic (its fixes travel in `data` for code actions)."""
    rule = rules.RULES.get(d.code)
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=path_to_uri(n.location.path), range=to_range(n.location, encode)),
        message=n.message) for n in d.notes]
    data: dict[str, Any] = {"fixes": [fix_data(f, encode) for f in d.fixes]}
    if d.suggestion:
        data["suggestion"] = d.suggestion
    if d.kernel:
        data["kernel"] = d.kernel
    return types.Diagnostic(
        range=to_range(d.location, encode), message=message_text(d), severity=SEVERITY.get(d.severity),
        code=d.code, code_description=types.CodeDescription(href=rule.help_uri) if rule else None, source=SOURCE,
        related_information=related or None, data=data)


def group_by_uri(diags: Iterable[Diagnostic], encode: Encoder = code_points,
                 uris: Mapping[str, str] | None = None) -> dict[str, list[types.Diagnostic]]:
    """LSP diagnostics keyed by the URI of the file each one is located in (`uris` maps a path to the URI the
    client used for it, which may be spelled differently from ours)."""
    uris = uris or {}
    out: dict[str, list[types.Diagnostic]] = {}
    for d in diags:
        uri = uris.get(d.location.path) or path_to_uri(d.location.path)
        out.setdefault(uri, []).append(to_lsp(d, encode))
    return out


def internal_error(path: str, what: str) -> Diagnostic:
    """The single diagnostic that stands for an analysis that crashed or ran out of time."""
    return Diagnostic("NKI902", "warning", f"{what}; this file was not checked (see the nki-verify output log)",
                      Location(path, 1, 1, 1, 1))


def edits_from_data(fix: Mapping[str, Any]) -> dict[str, list[types.TextEdit]]:
    """A fix from a diagnostic's `data` as TextEdits grouped by URI (the shape of WorkspaceEdit.changes)."""
    out: dict[str, list[types.TextEdit]] = {}
    for e in fix.get("edits", ()):
        r = e["range"]
        rng = types.Range(start=types.Position(line=r["start"]["line"], character=r["start"]["character"]),
                          end=types.Position(line=r["end"]["line"], character=r["end"]["character"]))
        out.setdefault(e["uri"], []).append(types.TextEdit(range=rng, new_text=e["newText"]))
    return out
