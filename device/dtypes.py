"""NKI dtypes on the device: canonical names (compiler/spec/dtypes) and their numpy storage.

Low-precision floats are stored with ml_dtypes (bfloat16, float8_*), as NKI's CPU simulator does with
NKI_PRECISE_FP=1.  tfloat32 is stored as float32 rounded to 10 mantissa bits.  The packed MX types
(x4) are stored as raw unsigned words: the device moves them but does not compute with them.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from compiler.spec import dtypes as D


class NkiDType:
    """A dtype with no numpy equivalent (tfloat32, packed MX types): what `nl.tfloat32` is on the device."""

    __slots__ = ("name", "storage")

    def __init__(self, name: str, storage: np.dtype) -> None:
        self.name = name
        self.storage = storage

    def __repr__(self) -> str:
        return f"nl.{self.name}"

    def __eq__(self, other: object) -> bool:
        return dtype_name(other) == self.name if other is not None else False

    def __hash__(self) -> int:
        return hash(self.name)

    @property
    def itemsize(self) -> int:
        return D.size_bytes(self.name)


STORAGE: dict[str, np.dtype] = {
    "bool_": np.dtype(np.bool_),
    "int8": np.dtype(np.int8), "int16": np.dtype(np.int16), "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8), "uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "float8_e4m3": np.dtype(ml_dtypes.float8_e4m3), "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2), "float8_e8m0fnu": np.dtype(ml_dtypes.float8_e8m0fnu),
    "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "tfloat32": np.dtype(np.float32), "float32": np.dtype(np.float32), "float64": np.dtype(np.float64),
    "float8_e5m2_x4": np.dtype(np.uint32), "float8_e4m3fn_x4": np.dtype(np.uint32),
    "float4_e2m1fn_x4": np.dtype(np.uint16),
}
assert set(STORAGE) == set(D.DTYPES), set(D.DTYPES) ^ set(STORAGE)

# what kernels see as nl.<name>: numpy dtypes where numpy has one, NkiDType otherwise
PUBLIC: dict[str, Any] = {n: (NkiDType(n, s) if n in ("tfloat32",) or D.DTYPES[n].kind == "packed" else s)
                          for n, s in STORAGE.items()}
_BY_NUMPY = {s: n for n, s in STORAGE.items() if n not in ("tfloat32",) and D.DTYPES[n].kind != "packed"}


class DTypeError(TypeError):
    pass


def dtype_name(x: Any) -> str:
    """The canonical NKI name of a dtype given as a numpy dtype/type, an ml_dtypes type, a string or NkiDType."""
    if isinstance(x, NkiDType):
        return x.name
    if isinstance(x, str):
        n = D.canonical(x)
        if n is None:
            raise DTypeError(f"unknown dtype {x!r}")
        return n
    try:
        dt = np.dtype(x)
    except TypeError:
        name = getattr(x, "name", None) or getattr(x, "__name__", None) or str(x)
        n = D.canonical(str(name))
        if n is None:
            raise DTypeError(f"unknown dtype {x!r}") from None
        return n
    n = _BY_NUMPY.get(dt)
    if n is None:
        raise DTypeError(f"dtype {dt} is not an NKI dtype")
    return n


def storage_dtype(name: str) -> np.dtype:
    return STORAGE[name]


def public(name: str) -> Any:
    return PUBLIC[name]


def itemsize(name: str) -> int:
    return STORAGE[name].itemsize


def is_float(name: str) -> bool:
    return D.DTYPES[name].kind == "float"


def is_int(name: str) -> bool:
    return D.DTYPES[name].kind in ("int", "uint", "bool")


def _round_tf32(x: np.ndarray) -> np.ndarray:
    """Round float32 values to 10 mantissa bits, ties to even (NaN and inf pass through)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    lsb = (bits >> 13) & 1
    rounded = (bits + 0x0FFF + lsb) & np.uint32(0xFFFFE000)
    special = (bits & 0x7F800000) == 0x7F800000
    return np.where(special, bits, rounded).view(np.float32)


def cast(values: np.ndarray, name: str) -> np.ndarray:
    """Convert computed values to dtype `name` as the engines do: floats round to nearest even; integers
    round half to even and saturate (NaN becomes 0); bool is `!= 0`."""
    dst = STORAGE[name]
    kind = D.DTYPES[name].kind
    values = np.asarray(values)
    if values.dtype == dst and name != "tfloat32":
        return values
    if kind == "bool":
        return values != 0
    if kind in ("int", "uint"):
        info = np.iinfo(dst)
        if values.dtype.kind in "fc" or values.dtype in _ML_FLOATS:
            v = np.rint(values.astype(np.float64))
            v = np.nan_to_num(v, nan=0.0, posinf=float(info.max), neginf=float(info.min))
            return np.clip(v, info.min, info.max).astype(dst)
        if values.dtype.kind == "b":
            return values.astype(dst)
        return np.clip(values.astype(np.int64), info.min, info.max).astype(dst)
    if kind == "packed":
        return values.astype(dst)
    if name == "tfloat32":
        return _round_tf32(values.astype(np.float32))
    return values.astype(dst)


_ML_FLOATS = frozenset(STORAGE[n] for n in ("bfloat16", "float8_e4m3", "float8_e4m3fn", "float8_e5m2",
                                            "float8_e8m0fnu"))


def to_f32(values: np.ndarray) -> np.ndarray:
    """Values as float32 (the engines' arithmetic type)."""
    if values.dtype == np.float32:
        return values
    return values.astype(np.float32)


def nan_fill(name: str) -> Any:
    """What a fresh allocation holds, as in NKI's simulator: NaN for floats, 4 for integers."""
    kind = D.DTYPES[name].kind
    if kind == "float":
        return np.nan
    if kind == "bool":
        return True
    return 4
