"""The program instance the current thread is executing (a kernel call reaches the device through here)."""

from __future__ import annotations

import contextvars
from typing import Any

_PROGRAM: contextvars.ContextVar = contextvars.ContextVar("nki_device_program", default=None)


class NoDevice(RuntimeError):
    pass


def current() -> Any:
    p = _PROGRAM.get()
    if p is None:
        raise NoDevice("this NKI call is not running on the device: run the kernel with device.run(...) or "
                       "`nki-verify run`")
    return p


def current_or_none() -> Any:
    return _PROGRAM.get()


def enter(program: Any) -> contextvars.Token:
    return _PROGRAM.set(program)


def leave(token: contextvars.Token) -> None:
    _PROGRAM.reset(token)
