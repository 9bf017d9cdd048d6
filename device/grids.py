"""Beta-1 index grids: `nl.arange`, `nl.mgrid` and affine expressions over them, as concrete integer arrays.

`x[i_p, i_f]` with grids is a gather whose shape is the broadcast of the grids; comparisons of grids give
masks (`mask=(i_p < n)`), combined with `&`, `|` and `~`.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np


def _value(x: Any) -> Any:
    if isinstance(x, (IndexGrid, Mask)):
        return x.values
    if hasattr(x, "__index__") and not isinstance(x, (bool, np.ndarray)):
        return int(x.__index__())
    return x


class IndexGrid:
    """An integer array standing for an index expression (it broadcasts like numpy)."""

    __slots__ = ("values",)
    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __init__(self, values: np.ndarray) -> None:
        self.values = np.asarray(values, dtype=np.int64)

    @property
    def shape(self) -> tuple:
        return self.values.shape

    def __getitem__(self, key: Any) -> "IndexGrid":
        return IndexGrid(self.values[key])

    def __repr__(self) -> str:
        return f"IndexGrid(shape={self.shape})"

    def _bin(self, other: Any, op: Callable, swap: bool = False) -> Any:
        o = _value(other)
        r = op(o, self.values) if swap else op(self.values, o)
        return Mask(r) if r.dtype == np.bool_ else IndexGrid(r)


def _install() -> None:
    arith = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
             "mod": operator.mod}
    for name, op in arith.items():
        setattr(IndexGrid, f"__{name}__", lambda self, o, op=op: self._bin(o, op))
        setattr(IndexGrid, f"__r{name}__", lambda self, o, op=op: self._bin(o, op, True))
    for name in ("lt", "le", "gt", "ge", "eq", "ne"):
        op = getattr(operator, name)
        setattr(IndexGrid, f"__{name}__", lambda self, o, op=op: self._bin(o, op))
    IndexGrid.__neg__ = lambda self: IndexGrid(-self.values)
    IndexGrid.__hash__ = object.__hash__


class Mask:
    """A boolean array: the elements an instruction touches (Beta-1 `mask=`)."""

    __slots__ = ("values",)
    __array_priority__ = 1000

    def __init__(self, values: np.ndarray) -> None:
        self.values = np.asarray(values, dtype=np.bool_)

    def __and__(self, other: Any) -> "Mask":
        return Mask(self.values & _value(other))

    __rand__ = __and__

    def __or__(self, other: Any) -> "Mask":
        return Mask(self.values | _value(other))

    __ror__ = __or__

    def __invert__(self) -> "Mask":
        return Mask(~self.values)

    @property
    def shape(self) -> tuple:
        return self.values.shape

    def __getitem__(self, key: Any) -> "Mask":
        return Mask(self.values[key])  # `m[:, None]`: a mask reshaped as its grid would be

    def __bool__(self) -> bool:
        raise TypeError("a Beta-1 mask is an array: combine conditions with & and |, not `and`/`or`")


_install()


def arange(start: Any, stop: Any = None, step: int = 1) -> IndexGrid:
    if stop is None:
        start, stop = 0, start
    return IndexGrid(np.arange(int(start), int(stop), int(step)))


class GridTuple(tuple):
    """What `nl.mgrid[...]` returns: the grids, also as `.p`, `.x`, `.y`, `.z`."""

    @property
    def p(self) -> IndexGrid:
        return self[0]

    @property
    def x(self) -> IndexGrid:
        return self[1]

    @property
    def y(self) -> IndexGrid:
        return self[2]

    @property
    def z(self) -> IndexGrid:
        return self[3]


class _MGrid:
    def __getitem__(self, key: Any) -> GridTuple:
        keys = key if isinstance(key, tuple) else (key,)
        slices = [k if isinstance(k, slice) else slice(0, int(k)) for k in keys]
        grids = np.ogrid[tuple(slice(_value(s.start), _value(s.stop), _value(s.step)) for s in slices)]
        if not isinstance(grids, (list, tuple)):
            grids = [grids]
        return GridTuple(IndexGrid(g) for g in grids)


mgrid = _MGrid()
