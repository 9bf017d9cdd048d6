"""Input shapes from a framework's HLO text dump (`--hlo FILE`).

A kernel called from PyTorch (torch-neuronx writes the HLO with NEURON_FRAMEWORK_DEBUG=1) or JAX (printed
from `.lower().compile()`) becomes a `custom-call` with target `AwsNeuronCustomNativeKernel`:

    %custom-call.0 = f32[256,1024]{1,0} custom-call(f32[256,1024]{1,0} %Arg_0.1, f32[256,1024]{1,0} %Arg_1.2),
        custom_call_target="AwsNeuronCustomNativeKernel", ...,
        metadata={op_name="jit(add)/.../nki_call[func=<function nki_tensor_add_kernel_ at 0x7f6b> grid=(2, 2) ...]"}

Its operands are the kernel's tensor arguments in order, with their shapes and dtypes; its result is what the
kernel returns (or writes into its trailing output parameters, in the pass-by-reference style).  JAX's
metadata names the kernel and the launch grid; PyTorch's does not, so the kernel is the one whose signature
fits (or the one chosen with --kernel).  The HLO text is only read, never compiled or run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

TARGET = "AwsNeuronCustomNativeKernel"
# XLA primitive types -> NKI dtype names
DTYPES = {"pred": "bool_", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
          "f64": "float64", "f8e4m3fn": "float8_e4m3fn", "f8e4m3": "float8_e4m3", "f8e5m2": "float8_e5m2",
          "f8e8m0fnu": "float8_e8m0fnu"}

_DEF = re.compile(r"(?:ROOT\s+)?%?(?P<name>[\w.\-]+)\s*=\s*(?P<type>[^=%\"]*?)\s*(?P<op>[a-z][\w\-]*)\(")
_PARAM = re.compile(r"(?P<name>[\w.\-]+)\s*:\s*(?P<type>\w+\[[^\]]*\])")
_ARRAY = re.compile(r"(?P<ty>[a-z]\w*)\[(?P<dims>[^\]]*)\]")
_NEXT = re.compile(r"\n\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*[^=%\"]*?\s*[a-z][\w\-]*\(|\n\s*\}")
_FUNC = re.compile(r"func=<function\s+(?P<name>[\w.<>]+?)(?:\s+at\s+0x[0-9a-fA-F]+)?>")
_GRID = re.compile(r"\bgrid=\((?P<grid>[\d,\s]*)\)")


class HloError(Exception):
    """An HLO file that cannot be used (the message names the file and what is wrong)."""


@dataclass(frozen=True)
class Array:
    dtype: str | None  # NKI dtype name, None for a type NKI has no name for
    dims: tuple | None  # None when a dimension is dynamic

    def text(self, ty: str = "") -> str:
        return f"{ty or self.dtype}[{','.join(str(d) for d in self.dims or ())}]"


@dataclass(frozen=True)
class CustomCall:
    name: str  # the instruction, e.g. "custom-call.0"
    line: int  # 1-based line of the instruction in the HLO file
    column: int
    operands: tuple  # Array per operand
    results: tuple  # Array per result (a tuple-shaped result has several)
    kernel: str | None  # from JAX's metadata
    grid: tuple | None

    def describe(self) -> str:
        shapes = ", ".join(a.text() for a in self.operands)
        grid = f", grid {self.grid}" if self.grid else ""
        return f"%{self.name}({shapes}){grid}"


def parse_array(text: str) -> Array | None:
    m = _ARRAY.fullmatch(text.strip().split("{")[0].strip())
    if m is None:
        return None
    dims_text = m.group("dims").strip()
    dims: tuple | None = ()
    if dims_text:
        try:
            dims = tuple(int(d) for d in dims_text.split(","))
        except ValueError:  # dynamic dimensions (`<=256`, `?`)
            dims = None
    return Array(DTYPES.get(m.group("ty")), dims)


def _arrays(type_text: str) -> tuple:
    """The arrays of a (possibly tuple) HLO type, e.g. `(f32[2]{0}, bf16[4,8]{1,0})`."""
    return tuple(a for a in (parse_array(m.group(0)) for m in _ARRAY.finditer(type_text)) if a is not None)


def _close(text: str, start: int) -> int:
    """The index of the parenthesis closing the one just before `start`."""
    depth = 1
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _split_top(text: str) -> list:
    parts, depth, cur = [], 0, []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def parse(text: str) -> list:
    """Every `AwsNeuronCustomNativeKernel` custom-call of an HLO module, in file order."""
    types = {m.group("name"): m.group("type") for m in _DEF.finditer(text)}
    types.update({m.group("name"): m.group("type") for m in _PARAM.finditer(text)})
    calls = []
    for m in _DEF.finditer(text):
        if m.group("op") != "custom-call":
            continue
        close = _close(text, m.end())
        nxt = _NEXT.search(text, close)
        attrs = text[close + 1: nxt.start() if nxt else len(text)]
        if f'custom_call_target="{TARGET}"' not in attrs:
            continue
        operands = tuple(_operand(op, types) for op in _split_top(text[m.end():close]))
        func = _FUNC.search(attrs)
        grid = _GRID.search(attrs)
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        calls.append(CustomCall(m.group("name"), line, column, operands, _arrays(m.group("type")),
                                func.group("name").split(".")[-1] if func else None,
                                tuple(int(g) for g in grid.group("grid").replace(" ", "").split(",") if g)
                                if grid else None))
    return calls


def _operand(op: str, types: dict) -> Array | None:
    op = op.strip()
    ref = re.search(r"%?([\w.\-]+)\s*$", op)
    typed = op[:ref.start()] if ref else op
    arrays = _arrays(typed)
    if not arrays and ref is not None and ref.group(1) in types:  # untyped operands: look the value up
        arrays = _arrays(types[ref.group(1)])
    return arrays[0] if len(arrays) == 1 else None


def read(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise HloError(f"{path}: cannot read the HLO file ({exc})") from None
    calls = parse(text)
    if not calls:
        raise HloError(f"{path}: no custom-call with custom_call_target=\"{TARGET}\" (is this an HLO text dump of "
                       "a model that calls an NKI kernel?)")
    return calls


def function_params(source: str) -> dict:
    """name -> positional parameter names (those without a default) of every function defined in `source`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            required = args[:len(args) - len(node.args.defaults)]
            out.setdefault(node.name, tuple(a.arg for a in required))
    return out


def bind(call: CustomCall, params: tuple) -> dict | None:
    """param -> (dims, dtype) for a kernel with these required parameters, or None when it cannot take the call:
    operands bind the leading parameters; results bind trailing output parameters (pass-by-reference style)."""
    arrays = list(call.operands)
    if len(params) == len(call.operands) + len(call.results) and call.results:
        arrays += list(call.results)
    elif len(params) != len(call.operands):
        return None
    out = {}
    for p, a in zip(params, arrays):
        if a is None or a.dims is None or not a.dims:
            continue  # a scalar, a token, or a dynamic shape: leave it to the kernel's own analysis
        out[p] = (a.dims, a.dtype)
    return out
