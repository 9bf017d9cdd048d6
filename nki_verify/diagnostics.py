"""Diagnostics: frozen values carrying a code, a location, a message and the evidence."""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {ERROR: 2, WARNING: 1, INFO: 0}


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int  # exclusive


@dataclass(frozen=True, slots=True)
class Note:
    """A secondary location (the loop whose bound matters, the other access of a race)."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class TextEdit:
    location: Location  # the range to replace
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    description: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: str
    message: str
    location: Location
    kernel: str | None = None
    counterexample: tuple[tuple[str, object], ...] | None = None  # ordered (name, value) pairs
    suggestion: str | None = None  # e.g. "assert a.shape[0] % 128 == 0"
    notes: tuple[Note, ...] = field(default=())
    fixes: tuple[Fix, ...] = field(default=())

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def column(self) -> int:
        return self.location.column

    def counterexample_dict(self) -> dict | None:
        return None if self.counterexample is None else dict(self.counterexample)

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)


def counterexample_text(ce: tuple | None) -> str:
    if not ce:
        return ""
    return ", ".join(f"{k} = {v}" for k, v in ce)
