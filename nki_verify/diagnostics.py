"""Diagnostics: frozen values carrying a code, a location, a message and the evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {ERROR: 2, WARNING: 1, INFO: 0}

# a loop's label in another copy of the same code (`h_idx@1006.2`: a helper called from several places)
LOOP_COPY = re.compile(r"@\d+(?:\.\d+)*")
# codes whose findings are one per place, whatever their messages say (the races and the uninitialised reads)
PER_LOCATION = frozenset({"NKI401", "NKI402", "NKI403", "NKI404"})


UNDECIDED = "could not decide whether this is safe"  # how an NKI901 message starts: `{UNDECIDED} (CODE: what): why`
_UNDECIDED_CHECK = re.compile(re.escape(UNDECIDED) + r" \((NKI\d{3}): (.*)", re.S)


def undecided_check(message: str) -> tuple | None:
    """(code, message) of the check an NKI901 message says is undecided; None for other NKI901 messages."""
    m = _UNDECIDED_CHECK.match(message)
    return (m.group(1), m.group(2)) if m else None


def finding_key(code: str, location: "Location", message: str) -> tuple:
    """What makes two findings one to show: the same code at the same place saying the same thing, but for the
    loop copies it names and the quantities in parentheses (the same finding from several launch contexts)."""
    return code, location, "" if code in PER_LOCATION else LOOP_COPY.sub("", message.split(" (")[0])


def finding_rank(severity: str, message: str) -> tuple:
    """Which of one finding's copies is shown: the most severe, then the one naming fewest loop copies."""
    return SEVERITY_RANK[severity], -len(LOOP_COPY.findall(message))


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
