"""A light record base class for the many small value types of the front end and the spec.

`dataclasses` generates and compiles methods for every class at import time, which costs about half a
millisecond per class; with a hundred of them the CLI's cold start suffers.  Records declare
`_fields` (and `_defaults`), get a generic constructor, structural equality and hashing (unless
`_identity = True`), `repr` and `_replace`.  IR nodes and diagnostics stay frozen dataclasses.
"""

from __future__ import annotations

from typing import Any


class Record:
    __slots__ = ()
    _fields: tuple = ()
    _defaults: dict = {}
    _identity = False  # compare and hash by identity (mutable values)

    def __init__(self, *args: Any, **kw: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} arguments")
        for name, v in zip(fields, args):
            object.__setattr__(self, name, v)
        for name in fields[len(args):]:
            if name in kw:
                v = kw.pop(name)
            elif name in self._defaults:
                v = self._defaults[name]
            else:
                raise TypeError(f"{type(self).__name__} is missing {name!r}")
            object.__setattr__(self, name, v)
        if kw:
            raise TypeError(f"{type(self).__name__} got unexpected {', '.join(kw)}")

    def __eq__(self, other: object) -> bool:
        if self._identity:
            return self is other
        if type(self) is not type(other):
            return False
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        if self._identity:
            return id(self)
        return hash((type(self).__name__,) + tuple(getattr(self, f) for f in self._fields))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields) + ")"

    def _replace(self, **kw: Any) -> Any:
        values = {f: getattr(self, f) for f in self._fields}
        values.update(kw)
        return type(self)(**values)
