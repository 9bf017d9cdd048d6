"""Typed faults of the reference device.

A fault carries the rule code of the catalog (the same code the verifier reports for the same problem),
the kernel source location that caused it and the values involved.  Hazards (reads of unwritten memory,
cross-iteration and cross-program conflicts) are faults too; they are detected while executing.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import sys
from dataclasses import dataclass, field
from typing import Any

_DEVICE_DIR = os.path.dirname(os.path.abspath(__file__))
_HERE_PREFIXES = (_DEVICE_DIR + os.sep,)

# Faults that do not make the faulting instruction impossible to execute: the run continues
# (in collect mode) with exactly the same semantics.
HAZARD_CODES = frozenset({"NKI302", "NKI401", "NKI402", "NKI403", "NKI404"})

# Codes the device checks at run time (docs/device.md explains the others).
RUNTIME_CODES = frozenset({"NKI101", "NKI102", "NKI201", "NKI202", "NKI203", "NKI204", "NKI301", "NKI302", "NKI303",
                           "NKI304", "NKI401", "NKI402", "NKI403", "NKI404", "NKI501", "NKI502", "NKI503"})


@dataclass(frozen=True)
class Site:
    """Where in the user's source a device call came from."""

    path: str
    line: int
    function: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


UNKNOWN_SITE = Site("<unknown>", 0)


def user_site(depth: int = 1) -> Site:
    """The innermost frame outside the device package: the kernel line that made the current call."""
    f = _user_frame(depth + 1)
    return UNKNOWN_SITE if f is None else Site(f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def _user_frame(depth: int) -> Any:
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename
        user = _USER_FILES.get(fn)
        if user is None:
            user = _USER_FILES[fn] = not fn.startswith(_HERE_PREFIXES) and not _is_library(fn)
        if user:
            return f
        f = f.f_back
    return None


# filename -> the frame is the kernel's (not the device's, numpy's or the standard library's): a pure function of
# the name, asked for every instruction
_USER_FILES: dict = {}


def is_user_file(fn: str) -> bool:
    """A file of the kernel's (not the device's, numpy's or the standard library's)."""
    user = _USER_FILES.get(fn)
    if user is None:
        user = _USER_FILES[fn] = not fn.startswith(_HERE_PREFIXES) and not _is_library(fn)
    return user


def subscript_item_site(item: int) -> Site:
    """The line of the `item`-th element of the subscript being evaluated (`a[0:128,\n 0:600]` reports the
    second slice at its own line, as the verifier does)."""
    f = _user_frame(2)
    if f is None:
        return UNKNOWN_SITE
    site = Site(f.f_code.co_filename, f.f_lineno, f.f_code.co_name)
    try:
        pos = list(f.f_code.co_positions())[f.f_lasti // 2]
    except (IndexError, AttributeError):
        return site
    line = _item_line(f.f_code.co_filename, pos, item)
    return site if line is None else Site(site.path, line, site.function)


@functools.lru_cache(maxsize=4096)
def _item_line(path: str, pos: tuple, item: int) -> int | None:
    start, end, col, end_col = pos
    if None in pos or start == end:
        return None if None in pos else start
    lines = [linecache.getline(path, n) for n in range(start, end + 1)]
    lines[-1] = lines[-1][:end_col]
    lines[0] = lines[0][col:]
    try:
        node = ast.parse("(" + "".join(lines) + ")", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Subscript):
        return None
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if item >= len(elts):
        return None
    return start + elts[item].lineno - 1


def _is_library(filename: str) -> bool:
    # numpy / the standard library calling back into us (e.g. contextlib, functools)
    return filename.startswith("<frozen") or os.sep + "numpy" + os.sep in filename or \
        filename.endswith(("contextlib.py", "functools.py", "threading.py"))


class DeviceFault(Exception):
    """A kernel did something the hardware (or the NKI compiler) does not allow."""

    def __init__(self, code: str, message: str, site: Site = UNKNOWN_SITE, values: tuple = (),
                 program: tuple | None = None) -> None:
        self.code = code
        self.message = message
        self.site = site
        self.values = tuple(values)
        self.program = program
        super().__init__(self.describe())

    @property
    def line(self) -> int:
        return self.site.line

    @property
    def path(self) -> str:
        return self.site.path

    @property
    def hazard(self) -> bool:
        return self.code in HAZARD_CODES

    def describe(self) -> str:
        vals = ", ".join(f"{k} = {_show(v)}" for k, v in self.values)
        prog = f" [program {', '.join(map(str, self.program))}]" if self.program else ""
        return f"{self.site}: {self.code} {self.message}" + (f" ({vals})" if vals else "") + prog


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


class KernelPrecondition(Exception):
    """The kernel's own `assert` rejected the inputs: they are not admissible (not a device fault)."""

    def __init__(self, site: Site, message: str) -> None:
        self.site = site
        super().__init__(f"{site}: the kernel rejects these inputs: {message}")


class Unsupported(Exception):
    """A construct the device does not implement (said, never silently approximated)."""


@dataclass
class FaultLog:
    """Faults of one run.  In `raise` mode the first fault is raised; in `collect` mode they are recorded
    and execution continues (the faulting instruction does what it can: in-bounds elements only)."""

    mode: str = "raise"
    faults: list = field(default_factory=list)
    first_hard: int | None = None  # index of the first fault that made an instruction misbehave
    _seen: set = field(default_factory=set)

    def report(self, fault: DeviceFault) -> None:
        if self.mode == "raise":
            raise fault
        key = (fault.code, fault.site.path, fault.site.line)
        if key in self._seen:
            return
        self._seen.add(key)
        if not fault.hazard and self.first_hard is None:
            self.first_hard = len(self.faults)
        self.faults.append(fault)

    def before_first_hard(self) -> list:
        """Faults up to and including the first hard one: what happens afterwards is undefined behaviour."""
        if self.first_hard is None:
            return list(self.faults)
        return self.faults[: self.first_hard + 1]
