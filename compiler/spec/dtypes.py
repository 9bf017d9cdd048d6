"""NKI data types: canonical names, sizes, classes, and their spellings in source."""

from __future__ import annotations

from ..record import Record



class DType(Record):
    # kind: float | int | uint | bool | packed
    _fields = ('name', 'bits', 'kind')
    __slots__ = _fields

    @property
    def bytes(self) -> int:
        return max(1, self.bits // 8)


_ALL = [
    DType("bool_", 8, "bool"),
    DType("int8", 8, "int"), DType("int16", 16, "int"), DType("int32", 32, "int"), DType("int64", 64, "int"),
    DType("uint8", 8, "uint"), DType("uint16", 16, "uint"), DType("uint32", 32, "uint"), DType("uint64", 64, "uint"),
    DType("float8_e4m3", 8, "float"), DType("float8_e4m3fn", 8, "float"), DType("float8_e5m2", 8, "float"),
    DType("float8_e8m0fnu", 8, "float"),
    DType("float16", 16, "float"), DType("bfloat16", 16, "float"), DType("tfloat32", 32, "float"),
    DType("float32", 32, "float"), DType("float64", 64, "float"),
    DType("float8_e5m2_x4", 32, "packed"), DType("float8_e4m3fn_x4", 32, "packed"),
    DType("float4_e2m1fn_x4", 16, "packed"),
]
DTYPES = {d.name: d for d in _ALL}

# spellings seen in kernels (numpy, ml_dtypes, torch, legacy NKI names) -> canonical
ALIASES = {
    "bool": "bool_", "float": "float32", "int": "int32", "fp32": "float32", "fp16": "float16",
    "bf16": "bfloat16", "half": "float16", "float8e4": "float8_e4m3", "float8e5": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fn", "tf32": "tfloat32", "double": "float64",
}

FLOATS = frozenset(n for n, d in DTYPES.items() if d.kind == "float")
INTS = frozenset(n for n, d in DTYPES.items() if d.kind in ("int", "uint", "bool"))
FP8 = frozenset({"float8_e4m3", "float8_e5m2", "float8_e4m3fn"})
MX_DATA = frozenset({"float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4"})
ALL = frozenset(DTYPES)


def canonical(name: str) -> str | None:
    """The canonical dtype name for a spelling, or None when it is not a dtype."""
    n = name.rsplit(".", 1)[-1]
    n = ALIASES.get(n, n)
    return n if n in DTYPES else None


def size_bytes(name: str) -> int:
    return DTYPES[name].bytes
