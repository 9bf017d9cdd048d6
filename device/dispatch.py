"""From a kernel's call to the instruction's semantics: bind, allocate the result, check the spec, execute."""

from __future__ import annotations

import linecache
import math
import re
from typing import Any, Callable

import numpy as np

from compiler import spec

from . import context
from . import dtypes as DT
from .calls import Call, attr_value, bind, display, violations
from .faults import Unsupported, user_site
from .grids import IndexGrid, Mask
from .nkitensor import GridTensor, NkiTensor, buffer_name, check_pending, full_view
from .tensor import ON_CHIP, View

IMPLS: dict = {}
ALLOC = frozenset({"ndarray", "zeros", "ones", "full", "rand", "zeros_like", "empty_like", "shared_identity_matrix",
                   "shared_constant"})


def semantics(*qualnames: str) -> Callable:
    """Register the numpy semantics of instructions (device/isa.py, device/language.py)."""
    def deco(fn: Callable) -> Callable:
        for q in qualnames:
            spec.lookup(q)  # a missing spec entry is an error naming the instruction
            IMPLS[q] = fn
        return fn
    return deco


class Handle:
    """What a Beta-2 ISA call returns: an instruction handle (scheduling hints are accepted and ignored)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def depends_on(self, *producers: Any) -> "Handle":
        return self


class ParDim:
    """Beta-1 `nl.par_dim(n)` inside a shape."""

    __slots__ = ("size",)

    def __init__(self, size: Any) -> None:
        self.size = int(size)

    def __index__(self) -> int:
        return self.size

    def __int__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"par_dim({self.size})"


def instruction(qualname: str, dialect: str) -> Callable:
    """The callable a kernel sees as nisa.<name> / nl.<name>."""
    decl = spec.lookup(qualname)
    impl = IMPLS.get(qualname)

    def call(*args: Any, **kwargs: Any) -> Any:
        if impl is None:
            raise Unsupported(f"{display(qualname)} is not implemented by the device")
        return invoke(decl, dialect, impl, args, kwargs)

    call.__name__ = decl.name
    call.__qualname__ = f"{decl.module}.{decl.name}"
    call.spec_name = decl.name
    call.__doc__ = decl.summary
    return call


def invoke(decl: Any, dialect: str, impl: Callable, args: tuple, kwargs: dict) -> Any:
    prog = context.current()
    prog.site = user_site()
    try:
        return _invoke(prog, decl, dialect, impl, args, kwargs)
    finally:
        prog.site = None  # accesses outside an instruction (a dynamic index read) find their own line


def _invoke(prog: Any, decl: Any, dialect: str, impl: Callable, args: tuple, kwargs: dict) -> Any:
    site = prog.site
    prog.run.tick()
    prog.run.stats["instructions"] += 1
    form, bound = bind(decl, dialect, args, kwargs, prog.launch.default_value)
    mask = bound.pop("mask", None)
    mask = mask if isinstance(mask, Mask) else None
    for v in bound.values():
        if isinstance(v, View) and v.operand_mask is not None:
            mask = Mask(v.operand_mask if mask is None else (mask.values & v.operand_mask))
    call = Call(prog, decl, form, bound, site, mask)
    skip = getattr(call.get("oob_mode"), "spec_name", None) == "skip"
    empty = False  # an instruction on an empty view (a zero-size tail tile) moves no data
    for v in bound.values():
        if isinstance(v, View):
            if isinstance(v, GridTensor):
                check_pending(v, call._mask_for(v))
            if v.deferred and not skip:
                for code, message, values, where in v.deferred:
                    prog.fault(code, message, values, where)  # a dynamic access out of bounds (oob_mode.error)
            empty = empty or 0 in v.shape
    if _returns_tile(decl, form, bound):
        call.result = make_result(call)
        bound[decl.result.role] = call.result
        empty = empty or 0 in call.result.shape
    check_rules(call, dialect)
    check_partitions(call)
    check_bank(call)
    if call.faulted:
        _degraded(call, impl)
    elif not empty:
        impl(call)
    if call.result is not None:
        return call.result
    return call.get("__return__", Handle(decl.name))


def _degraded(call: Call, impl: Callable) -> None:
    """In collect mode, an instruction that faulted does what it can; its outputs count as written so that
    one fault does not cascade into reads of unwritten memory."""
    try:
        impl(call)
        return
    except Exception:  # noqa: BLE001 - shapes the spec rejected may not compute
        pass
    for role in call.output_roles():
        view = call.tensor(role)
        call.program.on_write(view, None)  # the access still happened: log it
        call.program.written(view, None)


def _returns_tile(decl: Any, form: str, bound: dict) -> bool:
    res = decl.result
    if res is None or not (form == "beta1" or decl.module == "language"):
        return False
    if decl.operand(res.role) is None:
        return False
    return not isinstance(bound.get(res.role), View)


# ----------------------------------------------------------------------------- spec checks


def check_rules(call: Call, dialect: str) -> None:
    tensors, raw = {}, {}
    for role, v in call.bound.items():
        if isinstance(v, View):
            tensors[role] = v
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], View) and call.decl.operand(role) is not None:
            tensors[role] = v[0]
        else:
            raw[role] = v
    key = _cache_key(call.decl.qualname, dialect, call.program.run.target.name, tensors, raw)
    cache = call.program.launch.rule_cache
    found = cache.get(key) if key is not None else None
    if found is None:
        attrs = {role: attr_value(v) for role, v in raw.items()}
        found = violations(call.decl, dialect, call.target, tensors, attrs)
        if key is not None:
            cache[key] = found
    for rule, quantities in found:
        call.fault(rule.code, rule.message, quantities)


def _cache_key(qualname: str, dialect: str, target: str, tensors: dict, raw: dict) -> Any:
    """Equal keys mean equal operands for every rule: shapes, dtypes, buffers and the arguments themselves
    (hashable ones as they are, which is cheaper than normalising them first)."""
    ts = tuple([(r, t.shape, t.storage.dname, t.storage.buffer) for r, t in tensors.items()])
    key = (qualname, dialect, target, ts, tuple(raw.items()))
    if _BY_VALUE.isdisjoint(map(type, raw.values())):
        try:
            hash(key)
            return key
        except TypeError:
            pass
    try:
        key = key[:4] + (tuple((r, _hashable(v)) for r, v in raw.items()),)
        hash(key)
        return key
    except TypeError:
        return None


# arguments whose identity says nothing about their value (or whose == is element-wise)
_BY_VALUE = frozenset({Mask, IndexGrid, np.ndarray, list})


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return ("list",) + tuple(_hashable(x) for x in v)
    if isinstance(v, (Mask, IndexGrid, np.ndarray)) or type(v).__name__ == "Register":
        return attr_value(v)
    return v


def check_partitions(call: Call) -> None:
    pmax = call.target.pmax
    for op in call.decl.operands:
        v = call.bound.get(op.name)
        if not isinstance(v, View):
            continue
        st = v.storage
        if st.buffer not in ON_CHIP or st.par_dim or not v.shape:
            continue
        if v.shape[0] > pmax:
            call.fault("NKI201", f"operand {op.name} spans {v.shape[0]} partitions; at most {pmax} are allowed",
                       (("partitions", v.shape[0]),))


# Tensor Engine results must land in one 2 KiB PSUM bank per partition (nc_matmul may span all eight banks
# on trn3).  A hardware constraint the verifier checks in its memory analysis (NKI203).
ONE_BANK_DST = {"isa.nc_matmul": ("trn1", "trn2"), "isa.nc_transpose": ("trn1", "trn2", "trn3"),
                "language.matmul": ("trn1", "trn2", "trn3"), "language.transpose": ("trn1", "trn2", "trn3")}


def check_bank(call: Call) -> None:
    q = call.decl.qualname
    dst = call.tensor("dst")
    if q == "language.__assign__":
        src = call.tensor("src")
        producer = src.storage.producer if src is not None else None
        producer = producer if producer in ONE_BANK_DST else None
    else:
        producer = q if q in ONE_BANK_DST else None
    if dst is None or producer is None or call.target.name not in ONE_BANK_DST[producer]:
        return
    if "NKI202" in call.codes:
        return  # too large for the PE array, hence for one bank: reported once, as NKI202 (as the verifier does)
    st = dst.storage
    if st.buffer != "psum" or not dst.shape:
        return
    bank = call.target.psum_bank_bytes
    nbytes = math.prod(dst.shape[1:]) * DT.itemsize(st.dname)
    start = dst.partition_offset_bytes() % bank
    if start + nbytes > bank:
        what = "transpose" if "transpose" in producer else "matmul"
        call.fault("NKI203", f"the {what} destination '{st.name}' must sit in one 2 KiB PSUM bank per partition, "
                   f"but this view covers {nbytes} bytes starting {start} bytes into a bank",
                   (("bytes", nbytes), ("offset in bank", start)))


# ----------------------------------------------------------------------------- result tiles


def make_result(call: Call) -> NkiTensor:
    decl = call.decl
    res = decl.result
    prog = call.program
    if decl.module == "language" and decl.name in ALLOC:
        return _allocation(call)
    shape = result_shape(call, res.shape)
    buffer = _result_buffer(call, res.buffer)
    dname = _result_dtype(call, res.dtype)
    st = prog.allocate(f"{decl.name}_result", buffer, dname, shape, kind="result", site=call.site, fill=False)
    st.producer = decl.qualname
    return full_view(st)


def _allocation(call: Call) -> NkiTensor:
    decl = call.decl
    prog = call.program
    name = decl.name
    if name == "shared_constant":
        arr = _constant(call.get("constant"))
        dname = DT.dtype_name(call.get("dtype")) if call.get("dtype") is not None else DT.dtype_name(arr.dtype)
        st = prog.allocate(_alloc_name(call), "shared_hbm", dname, arr.shape, kind="const", site=call.site)
        view = full_view(st)
        view.write(st.data, DT.cast(arr, dname))
        view.mark_written()
        return view
    if name == "shared_identity_matrix":
        n = int(call.get("n"))
        dname = DT.dtype_name(call.get("dtype") or "uint8")
        buffer = decl.result.buffer_in(call.dialect)
        if buffer == "sbuf":
            st = prog.allocate(_alloc_name(call), buffer, dname, (n, n), kind="ndarray", site=call.site)
            return full_view(st)
        # Beta 1: a constant in shared HBM, like shared_constant (in the binary before any program runs)
        st = prog.allocate(_alloc_name(call), buffer, dname, (n, n), kind="const", site=call.site)
        view = full_view(st)
        view.write(st.data, DT.cast(np.eye(n), dname))
        view.mark_written()
        return view
    raw = call.get("shape") if name not in ("zeros_like", "empty_like") else call.tensor("x").shape
    shape, par_dim = _shape_and_par_dim(raw)
    buffer = _result_buffer(call, decl.result.buffer)
    dname = _result_dtype(call, decl.result.dtype)
    if dname is None:
        raise TypeError(f"nl.{name}: a dtype is required")
    address = call.get("address")
    if buffer == "shared_hbm" and prog.launch.size > 1:
        return _shared(call, buffer, dname, shape)
    st = prog.allocate(_alloc_name(call), buffer, dname, shape, par_dim, "ndarray", address, call.site)
    return full_view(st)


def _shared(call: Call, buffer: str, dname: str, shape: tuple) -> NkiTensor:
    """Every program instance allocating at the same place (the n-th time) gets the same shared_hbm tensor:
    that is how an SPMD kernel's instances share their output."""
    prog = call.program
    key = (call.site.path, call.site.line)
    n = prog.shared_seen.get(key, 0)
    prog.shared_seen[key] = n + 1
    st = prog.launch.shared_allocs.get((key, n))
    if st is None or st.shape != shape or st.dname != dname:
        st = prog.allocate(_alloc_name(call), buffer, dname, shape, 0, "ndarray", None, call.site)
        prog.launch.shared_allocs[(key, n)] = st
    return full_view(st)


def _constant(v: Any) -> np.ndarray:
    if isinstance(v, str):
        return np.load(v)
    return np.asarray(v)


def _shape_and_par_dim(raw: Any) -> tuple:
    if isinstance(raw, (int, np.integer, ParDim)):
        raw = (raw,)
    dims, par_dim = [], 0
    for i, d in enumerate(raw):
        if isinstance(d, ParDim):
            par_dim = i
        dims.append(int(d))
    return tuple(dims), par_dim


_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]")


def _alloc_name(call: Call) -> str:
    """The variable the kernel assigns the allocation to (`a_tile = nl.ndarray(...)`), for messages."""
    line = linecache.getline(call.site.path, call.site.line)
    m = _ASSIGN.match(line)
    return m.group(1) if m else call.decl.name


def result_shape(call: Call, rule: tuple) -> tuple:
    kind = rule[0]
    t = call.tensor(rule[1]) if len(rule) > 1 and isinstance(rule[1], str) else None
    if kind == "like":
        if t is None:
            g = call.get(rule[1])
            if isinstance(g, IndexGrid):
                return g.shape
            raise TypeError(f"{display(call.decl.qualname)}: {rule[1]} must be a tensor")
        return t.shape
    if kind == "broadcast":
        shapes = spec.partitions_aligned([call.tensor(r).shape for r in rule[1:] if call.tensor(r) is not None])
        if not shapes:
            raise TypeError(f"{display(call.decl.qualname)}: an element-wise operation needs a tensor operand")
        if len({len(s) for s in shapes}) > 1 and not _broadcastable(shapes):
            # operands of different ranks (the instruction's rules compare operands of one rank)
            call.fault("NKI501", f"operands of shapes {' and '.join(str(tuple(s)) for s in shapes)} do not "
                                 "broadcast (numpy rules: trailing axes aligned)")
        return _broadcast(shapes)
    if kind == "reduce":
        return _reduced_shape(call, t, rule)
    if kind == "transpose":
        return (math.prod(t.shape[1:]), t.shape[0])
    if kind == "matmul":
        return (math.prod(t.shape[1:]), math.prod(call.tensor(rule[2]).shape[1:]))
    if kind == "nl_matmul":
        y = call.tensor(rule[2])
        m = math.prod(t.shape[1:]) if call.get(rule[3]) else t.shape[0]
        return (m, math.prod(y.shape[1:]))
    if kind == "attr":
        return _shape_and_par_dim(call.get(rule[1]))[0]
    if kind == "partitions_and":
        return (t.shape[0], rule[2])
    if kind == "local_gather":
        n_valid = call.get(rule[2])
        n_valid = int(n_valid) if n_valid is not None else math.prod(t.shape[1:]) * 16
        per_idx = call.get(rule[3])
        return (t.shape[0], n_valid * (int(per_idx) if per_idx is not None else 1))
    if kind == "bounds":
        return (t.shape[0], 2) + tuple(t.shape[1:])
    if kind == "partition_reduce":
        return (1,) + tuple(t.shape[1:])
    if kind == "grid":
        g = call.get(rule[1])
        # a scalar expression (a program id) is a one-element tile of one partition
        return g.shape if isinstance(g, IndexGrid) else (tuple(np.shape(g)) or (1,))
    if kind == "square":
        n = int(call.get(rule[1]))
        return (n, n)
    if kind == "expand":
        s = list(t.shape)
        s.insert(int(call.get(rule[2])) % (len(s) + 1), 1)
        return tuple(s)
    raise Unsupported(f"result shape rule {kind}")


def _broadcastable(shapes: list) -> bool:
    rank = max(len(s) for s in shapes)
    for i in range(rank):
        dims = {s[i - (rank - len(s))] for s in shapes if i - (rank - len(s)) >= 0} - {1}
        if len(dims) > 1:
            return False
    return True


def _broadcast(shapes: list) -> tuple:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[i - (rank - len(s))] for s in shapes if i - (rank - len(s)) >= 0]
        non_one = [d for d in dims if d != 1]
        out.append(non_one[0] if non_one else 1)
    return tuple(out)


def _reduced_shape(call: Call, t: View, rule: tuple) -> tuple:
    axis = call.get(rule[2])
    keep = bool(call.get(rule[3], False)) if len(rule) > 3 else False
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    rank = len(t.shape)
    norm = {int(a) % rank for a in axes}
    out = [1 if i in norm else d for i, d in enumerate(t.shape) if keep or i not in norm]
    if not out and t.storage.buffer in ON_CHIP:
        out = [1]
    return tuple(out)


def _result_buffer(call: Call, rule: Any) -> str:
    if isinstance(rule, str) and not rule.startswith("@"):
        return rule
    if isinstance(rule, str):
        t = call.tensor(rule[1:])
        return t.storage.buffer if t is not None else "sbuf"
    _, name, default = rule
    b = buffer_name(call.get(name))
    if b is not None:
        return b
    if isinstance(default, str) and default.startswith("@"):
        t = call.tensor(default[1:])
        return t.storage.buffer if t is not None else "sbuf"
    return default or "sbuf"


def _result_dtype(call: Call, rule: Any) -> str | None:
    if isinstance(rule, str) and not rule.startswith("@"):
        return rule
    if isinstance(rule, str):
        t = call.tensor(rule[1:])
        return t.storage.dname if t is not None else None
    _, name, fallback = rule
    v = call.get(name)
    if v is not None:
        try:
            return DT.dtype_name(v)
        except (DT.DTypeError, TypeError):
            pass
    if isinstance(fallback, str) and fallback.startswith("@"):
        t = call.tensor(fallback[1:])
        if t is not None:
            return t.storage.dname
        other = call.get(fallback[1:])
        return _scalar_dtype(other)
    return fallback


def _scalar_dtype(v: Any) -> str | None:
    if isinstance(v, bool):
        return "uint8"
    if isinstance(v, (int, np.integer)):
        return "int32"
    if isinstance(v, (float, np.floating)):
        return "float32"
    return None
