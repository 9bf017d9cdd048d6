"""The ALU operators and activation functions of the engines, as numpy functions.

Arithmetic runs in float32 (the Vector/Scalar engines up-cast their inputs and the result is cast to the
destination dtype); when every input is an integer, arithmetic is exact (GpSimd integer math).  Bitwise
operators need integers and work on the bit patterns.  Comparisons give 1/0.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

FP32_MIN = float(np.finfo(np.float32).min)


class Op:
    """An operator or activation function as kernels name it (`nl.add`, `nl.exp`, `np.add`)."""

    __slots__ = ("spec_name", "fn", "kind", "identity")

    def __init__(self, name: str, fn: Callable, kind: str, identity: Any = None) -> None:
        self.spec_name = name
        self.fn = fn
        self.kind = kind  # arith | bitvec | compare | logical | unary | activation
        self.identity = identity

    def __repr__(self) -> str:
        return f"nl.{self.spec_name}"


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 refined (max error 1.2e-7): enough for float32 results
    x = np.asarray(x, dtype=np.float64)
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * a)
    y = 1.0 - t * np.exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return (s * y).astype(np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_dx(x: np.ndarray) -> np.ndarray:
    cdf = 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))
    return cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _gelu_sigmoid_dx(x: np.ndarray) -> np.ndarray:
    s = _sigmoid(1.702 * x)
    return s + 1.702 * x * s * (1.0 - s)


def _silu_dx(x: np.ndarray) -> np.ndarray:
    s = _sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x).astype(np.float32)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return 1.0 / x


def _abs_max(a: Any, b: Any) -> Any:
    return np.maximum(np.abs(a), np.abs(b))


def _abs_min(a: Any, b: Any) -> Any:
    return np.minimum(np.abs(a), np.abs(b))


def _cmp(f: Callable) -> Callable:
    return lambda a, b: f(a, b).astype(np.float32)


def _logical(f: Callable) -> Callable:
    return lambda a, b: f(np.asarray(a) != 0, np.asarray(b) != 0).astype(np.float32)


BINARY = {
    "add": Op("add", np.add, "arith", 0), "subtract": Op("subtract", np.subtract, "arith", 0),
    "multiply": Op("multiply", np.multiply, "arith", 1), "divide": Op("divide", np.divide, "arith"),
    "maximum": Op("maximum", np.maximum, "arith", -np.inf), "minimum": Op("minimum", np.minimum, "arith", np.inf),
    "power": Op("power", np.power, "arith"), "fmod": Op("fmod", np.fmod, "arith"), "mod": Op("mod", np.mod, "arith"),
    "abs_max": Op("abs_max", _abs_max, "arith", 0), "abs_min": Op("abs_min", _abs_min, "arith", np.inf),
    "equal": Op("equal", _cmp(np.equal), "compare"), "not_equal": Op("not_equal", _cmp(np.not_equal), "compare"),
    "less": Op("less", _cmp(np.less), "compare"), "less_equal": Op("less_equal", _cmp(np.less_equal), "compare"),
    "greater": Op("greater", _cmp(np.greater), "compare"),
    "greater_equal": Op("greater_equal", _cmp(np.greater_equal), "compare"),
    "logical_and": Op("logical_and", _logical(np.logical_and), "logical", 1),
    "logical_or": Op("logical_or", _logical(np.logical_or), "logical", 0),
    "logical_xor": Op("logical_xor", _logical(np.logical_xor), "logical", 0),
    "bitwise_and": Op("bitwise_and", np.bitwise_and, "bitvec", -1),
    "bitwise_or": Op("bitwise_or", np.bitwise_or, "bitvec", 0),
    "bitwise_xor": Op("bitwise_xor", np.bitwise_xor, "bitvec", 0),
    "left_shift": Op("left_shift", np.left_shift, "bitvec"), "right_shift": Op("right_shift", np.right_shift, "bitvec"),
}

UNARY = {
    "abs": np.abs, "square": np.square, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": _rsqrt,
    "tanh": np.tanh, "sigmoid": _sigmoid, "relu": lambda x: np.maximum(x, 0.0), "gelu": _gelu,
    "gelu_apprx_sigmoid": lambda x: x * _sigmoid(1.702 * x), "gelu_apprx_tanh": _gelu_tanh, "gelu_dx": _gelu_dx,
    "gelu_apprx_sigmoid_dx": _gelu_sigmoid_dx, "silu": lambda x: x * _sigmoid(x), "silu_dx": _silu_dx,
    "softplus": _softplus, "mish": lambda x: x * np.tanh(_softplus(x)), "erf": _erf,
    "erf_dx": lambda x: (2.0 / math.sqrt(math.pi)) * np.exp(-x * x), "reciprocal": _reciprocal, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "arctan": np.arctan, "ceil": np.ceil, "floor": np.floor, "trunc": np.trunc,
    "negative": np.negative, "sign": np.sign, "copy": lambda x: x, "identity": lambda x: x,
    "bypass": lambda x: x, "invert": np.invert, "logical_not": lambda x: (np.asarray(x) == 0).astype(np.float32),
}

UNARY_OPS = {name: Op(name, fn, "unary") for name, fn in UNARY.items()}
ALL = {**UNARY_OPS, **BINARY}
ALL["prelu"] = Op("prelu", lambda x, alpha=0.0: np.where(x >= 0, x, alpha * x), "unary")
ALL["average"] = Op("average", np.add, "arith", 0)

# numpy functions Beta-1 kernels pass as ALU operators
NUMPY_NAMES = {"add": "add", "subtract": "subtract", "multiply": "multiply", "true_divide": "divide",
               "divide": "divide", "maximum": "maximum", "minimum": "minimum", "amax": "maximum", "max": "maximum",
               "amin": "minimum", "min": "minimum", "power": "power", "equal": "equal", "not_equal": "not_equal",
               "less": "less", "less_equal": "less_equal", "greater": "greater", "greater_equal": "greater_equal",
               "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
               "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
               "left_shift": "left_shift", "right_shift": "right_shift", "exp": "exp", "tanh": "tanh",
               "sqrt": "sqrt", "abs": "abs", "absolute": "abs", "negative": "negative", "square": "square",
               "log": "log", "sin": "sin", "cos": "cos", "sign": "sign", "reciprocal": "reciprocal", "sum": "add",
               "prod": "multiply", "mean": "average", "fmod": "fmod", "mod": "mod", "remainder": "mod",
               "floor": "floor", "ceil": "ceil", "trunc": "trunc", "arctan": "arctan", "tan": "tan"}


class OpError(ValueError):
    pass


def as_op(x: Any) -> Op:
    """The operator a kernel passed: an `nl` op, an `nl` function of the same name or a numpy function."""
    if isinstance(x, Op):
        return x
    name = getattr(x, "spec_name", None)
    if name in ALL:
        return ALL[name]
    np_name = getattr(x, "__name__", None)
    if np_name in NUMPY_NAMES:
        return ALL[NUMPY_NAMES[np_name]]
    if isinstance(x, str) and x in ALL:
        return ALL[x]
    raise OpError(f"{x!r} is not an NKI operator")


def is_int_array(a: Any) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.kind in "iub"


def apply_binary(op: Op, a: Any, b: Any) -> np.ndarray:
    """op(a, b) with the engines' arithmetic: exact for integers, float32 otherwise."""
    if op.kind == "bitvec":
        return op.fn(_as_int(a), _as_int(b))
    if _all_int(a, b) and op.spec_name not in ("divide", "power") and op.kind == "arith":
        return op.fn(_as_int(a), _as_int(b))
    with np.errstate(all="ignore"):
        return np.asarray(op.fn(_f32(a), _f32(b)), dtype=np.float32)


def apply_binary_into(op: Op, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Float32 op(a, b) written into `out` (which may be one of the inputs: element-wise, that is safe)."""
    with np.errstate(all="ignore"):
        if isinstance(op.fn, np.ufunc):
            op.fn(a, b, out=out)
        else:
            out[...] = op.fn(a, b)


def apply_unary(op: Op, a: Any, **kw: Any) -> np.ndarray:
    if op.spec_name == "invert":
        return np.invert(_as_int(a))
    with np.errstate(all="ignore"):
        return np.asarray(op.fn(_f32(a), **kw), dtype=np.float32)


def reduce(op: Op, a: np.ndarray, axes: tuple, keepdims: bool = False) -> np.ndarray:
    name = op.spec_name
    if op.kind == "bitvec":
        ufunc = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}[name]
        return ufunc.reduce(_as_int(a), axis=axes, keepdims=keepdims)
    x = _as_int(a) if _all_int(a) and name in ("add", "multiply", "maximum", "minimum") else _f32(a)
    with np.errstate(all="ignore"):
        if name == "add":
            return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
        if name == "average":
            return np.mean(_f32(a), axis=axes, keepdims=keepdims, dtype=np.float32)
        if name == "multiply":
            return np.prod(x, axis=axes, keepdims=keepdims)
        if name == "maximum":
            return np.max(x, axis=axes, keepdims=keepdims)
        if name == "minimum":
            return np.min(x, axis=axes, keepdims=keepdims)
        if name == "subtract":
            first = np.take(x, [0], axis=axes[0]) if len(axes) == 1 else x
            return (2 * first.sum(axis=axes, keepdims=keepdims) - x.sum(axis=axes, keepdims=keepdims))
        if name in ("logical_and", "logical_or", "logical_xor"):
            f = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}[name]
            return f.reduce(x != 0, axis=axes, keepdims=keepdims).astype(np.float32)
        if name == "abs_max":
            return np.max(np.abs(x), axis=axes, keepdims=keepdims)
        if name == "abs_min":
            return np.min(np.abs(x), axis=axes, keepdims=keepdims)
    raise OpError(f"{name} is not a reduction operator")


def _all_int(*xs: Any) -> bool:
    return all(is_int_array(x) or (isinstance(x, (int, np.integer)) and not isinstance(x, bool)) for x in xs)


def _as_int(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        if a.dtype.kind in "iu":
            return a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.uint64).astype(np.int64)
        if a.dtype.kind == "b":
            return a.astype(np.int64)
        return np.rint(a.astype(np.float64)).astype(np.int64)
    return int(a)


def _f32(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return a if a.dtype == np.float32 else a.astype(np.float32)
    return np.float32(a)
