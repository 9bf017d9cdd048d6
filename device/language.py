"""Numpy semantics of the `nki.language` functions, and the language's control constructs on the device
(program ids, loop iterators with their hazard scopes, dynamic loops)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import numpy as np

from . import context
from . import dtypes as DT
from . import ops as O
from .calls import Call
from .core import LoopScope
from .dispatch import semantics
from .faults import Unsupported, user_site
from .hazards import AccessLog
from .isa import Register, accumulate_into


def _f(call: Call, role: str) -> Any:
    """An operand as float32 values (tiles) or a scalar."""
    v = call.bound.get(role)
    if call.is_tensor(role):
        x = call.read(role)
        return x if O.is_int_array(x) else DT.to_f32(x)
    if isinstance(v, Register):
        return v.value
    return v


# ----------------------------------------------------------------------------- element-wise and reductions


def _binary(call: Call) -> None:
    op = O.ALL[call.decl.name]
    x, y = _f(call, "x"), _f(call, "y")
    rank = max(np.ndim(x), np.ndim(y))
    if rank > 1:  # a tile of partitions only ((P,): a reduction without keepdims) lines up with the partitions
        x, y = (np.reshape(v, np.shape(v) + (1,) * (rank - 1)) if np.ndim(v) == 1 else v for v in (x, y))
    call.write("dst", np.broadcast_to(O.apply_binary(op, x, y), call.tensor("dst").shape))


def _unary(call: Call) -> None:
    op = O.ALL[call.decl.name]
    call.write("dst", O.apply_unary(op, _f(call, "x")))


def _reduce(call: Call) -> None:
    x = call.tensor("x")
    v = _f(call, "x")
    axis = call.get("axis")
    axes = tuple(int(a) % len(x.shape) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    keep = bool(call.get("keepdims"))
    name = call.decl.name
    if name == "var":
        out = np.var(DT.to_f32(np.asarray(v)), axis=axes, keepdims=keep)
    elif name == "all":
        out = np.all(np.asarray(v) != 0, axis=axes, keepdims=keep)
    else:
        out = O.reduce(O.ALL[{"sum": "add", "max": "maximum", "min": "minimum", "mean": "average",
                              "prod": "multiply"}[name]], np.asarray(v), axes, keepdims=keep)
    call.write("dst", np.asarray(out).reshape(call.tensor("dst").shape))


def _register_elementwise() -> None:
    from compiler.spec import language as L
    for name in L.BINARY:
        semantics(f"language.{name}")(_binary)
    for name in L.UNARY:
        semantics(f"language.{name}")(_unary)
    for name in L.REDUCE:
        semantics(f"language.{name}")(_reduce)


_register_elementwise()


# ----------------------------------------------------------------------------- allocation


@semantics("language.ndarray", "language.empty_like")
def ndarray(call: Call) -> None:
    pass  # uninitialised: reading it before writing is NKI404


def _fill(call: Call, value: Any) -> None:
    dst = call.tensor("dst")
    call.write("dst", np.full(dst.shape, value))


@semantics("language.zeros", "language.zeros_like")
def zeros(call: Call) -> None:
    _fill(call, 0)


@semantics("language.ones")
def ones(call: Call) -> None:
    _fill(call, 1)


@semantics("language.full")
def full(call: Call) -> None:
    _fill(call, call.get("fill_value"))


@semantics("language.rand")
def rand(call: Call) -> None:
    dst = call.tensor("dst")
    call.write("dst", call.program.rng.random(dst.shape, dtype=np.float32))


@semantics("language.shared_identity_matrix")
def identity(call: Call) -> None:
    if call.tensor("dst").storage.kind != "const":  # (a Beta-1 constant is written when allocated)
        call.write("dst", np.eye(call.tensor("dst").shape[0]))


@semantics("language.shared_constant")
def shared_constant(call: Call) -> None:
    pass  # written when allocated


# ----------------------------------------------------------------------------- movement


@semantics("language.load", "language.copy", "language.static_cast")
def load(call: Call) -> None:
    src = "src" if call.is_tensor("src") else "x"
    v = call.read(src)
    a, b = call.tensor(src).storage.dname, call.tensor("dst").storage.dname
    call.write("dst", v if a == b or (DT.is_int(a) and DT.is_int(b)) else DT.to_f32(v))


@semantics("language.load_transpose2d")
def load_transpose2d(call: Call) -> None:
    call.write("dst", np.asarray(call.read("src")).reshape(call.tensor("src").shape[0], -1).T)


@semantics("language.store")
def store(call: Call) -> None:
    v = call.read("value")
    a, b = call.tensor("value").storage.dname, call.tensor("dst").storage.dname
    call.write("dst", v if a == b or (DT.is_int(a) and DT.is_int(b)) else DT.to_f32(v))


@semantics("language.atomic_rmw")
def atomic_rmw(call: Call) -> None:
    op = O.as_op(call.get("op"))
    old = DT.to_f32(call.read("dst"))
    call.write("dst", O.apply_binary(op, old, DT.to_f32(call.read("value")).reshape(old.shape)))


@semantics("language.__assign__")
def assign(call: Call) -> None:
    """`t[...] = v` (a tile or a constant) and `t[...] += v` (accumulate: commutes across iterations)."""
    acc = call.get("accumulate")
    if acc is None and call.is_tensor("src"):
        acc = call.program.reductions.get(call.tensor("src").storage.sid)  # nl.loop_reduce's result
    written = None
    if call.is_tensor("src") and acc is None and call.program.run.options.hazards:
        # a Beta-1 assignment binds the value to its destination: unwritten elements of the value (a masked
        # load's) stay unwritten there, and the read that consumes them faults (NKI404 at that line)
        written = call.written("src")
    if call.is_tensor("src"):
        value = call.read("src", acc=acc is not None, as_src=True, check=written is None)
    else:
        value = call.get("value")
        value = value.value if isinstance(value, Register) else value
    dst = call.tensor("dst")
    if acc is None:
        src = call.tensor("src")
        a = src.storage.dname if src is not None else None
        same = a is not None and (a == dst.storage.dname or (DT.is_int(a) and DT.is_int(dst.storage.dname)))
        keep = None if written is None or written is True else np.asarray(written)
        call.write("dst", np.asarray(value) if same else DT.to_f32(np.asarray(value, dtype=np.float64)
                                                                    if not isinstance(value, np.ndarray) else value),
                   keep=keep)
        return
    old = call.read("dst", acc=True)
    old = old if O.is_int_array(old) else DT.to_f32(old)
    v = np.asarray(value)
    v = v if O.is_int_array(v) else DT.to_f32(v)
    call.write("dst", O.apply_binary(O.as_op(acc), old, v.reshape(old.shape) if v.size == old.size else v),
               acc=True)


# ----------------------------------------------------------------------------- compute


@semantics("language.matmul")
def matmul(call: Call) -> None:
    x, y = call.tensor("x"), call.tensor("y")
    a = DT.to_f32(call.read("x")).reshape(x.shape[0], -1)
    b = DT.to_f32(call.read("y")).reshape(y.shape[0], -1)
    a = a if call.get("transpose_x") else a.T
    k = min(a.shape[0], b.shape[0])
    accumulate_into(call, "dst", np.matmul(a[:k].T, b[:k]), False)


@semantics("language.transpose")
def transpose(call: Call) -> None:
    x = call.tensor("x")
    call.write("dst", np.asarray(call.read("x")).reshape(x.shape[0], -1).T)


@semantics("language.softmax")
def softmax(call: Call) -> None:
    v = DT.to_f32(call.read("x"))
    axis = call.get("axis")
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    m = v.max(axis=axes, keepdims=True)
    e = np.exp(v - m)
    call.write("dst", e / e.sum(axis=axes, keepdims=True))


@semantics("language.rms_norm")
def rms_norm(call: Call) -> None:
    v = DT.to_f32(call.read("x"))
    w = DT.to_f32(call.read("w"))
    axis = call.get("axis")
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    n = float(call.get("n"))
    rms = np.sqrt(np.square(v).sum(axis=axes, keepdims=True) / n + np.float32(call.get("epsilon")))
    call.write("dst", v / rms * w.reshape(v.shape) if w.size == v.size else v / rms * w)


@semantics("language.where")
def where(call: Call) -> None:
    cond = np.asarray(call.read("condition")) != 0
    out = np.where(cond.reshape(call.tensor("dst").shape) if cond.size == call.tensor("dst").numel else cond,
                   _f(call, "x"), _f(call, "y"))
    call.write("dst", out)


@semantics("language.dropout")
def dropout(call: Call) -> None:
    x = DT.to_f32(call.read("x"))
    rate = call.operand("rate", call.tensor("x"))
    keep = call.program.rng.random(x.shape) >= rate
    call.write("dst", np.where(keep, x, 0))


@semantics("language.gather_flattened")
def gather_flattened(call: Call) -> None:
    d = call.tensor("data")
    data = np.asarray(call.read("data")).reshape(d.shape[0], -1)
    idx = np.asarray(call.read("indices")).reshape(d.shape[0], -1).astype(np.int64)
    call.write("dst", np.take_along_axis(data, np.clip(idx, 0, data.shape[1] - 1), axis=1))


@semantics("language.broadcast_to")
def broadcast_to(call: Call) -> None:
    call.write("dst", np.broadcast_to(call.read("x"), call.tensor("dst").shape))


@semantics("language.expand_dims")
def expand_dims(call: Call) -> None:
    x = call.tensor("x")
    call.write("dst", np.asarray(call.read("x")).reshape(call.tensor("dst").shape))
    _ = x


@semantics("language.device_print")
def device_print(call: Call) -> None:
    print(call.get("print_prefix", call.get("prefix", "")), np.asarray(call.read("tensor")))


@semantics("language.random_seed")
def random_seed(call: Call) -> None:
    seed = int(np.asarray(call.read("seed")).ravel()[0])
    call.program.rng = np.random.default_rng(seed & 0xFFFFFFFF)


@semantics("language.loop_reduce")
def loop_reduce(call: Call) -> None:
    """A reduction across loop iterations: assigned into a view, `t[...] = nl.loop_reduce(x, op, ...)` computes
    t = op(x, t) (the destination is the op's other input) and commutes across iterations like `+=`."""
    call.write("dst", DT.to_f32(call.read("x")))
    call.program.reductions[call.tensor("dst").storage.sid] = O.as_op(call.get("op"))


@semantics("language.all_reduce")
def unsupported(call: Call) -> None:
    raise Unsupported(f"nl.{call.decl.name} is not implemented by the device")


# ----------------------------------------------------------------------------- SPMD


def program_id(axis: int = 0) -> int:
    prog = context.current()
    if not prog.launch.grid_given:
        return 0
    return prog.pid[int(axis)]


def num_programs(axes: Any = 0) -> int:
    prog = context.current()
    grid = prog.launch.grid if prog.launch.grid_given else (1,)
    if axes is None:
        return int(np.prod(grid))
    if isinstance(axes, (tuple, list)):
        return int(np.prod([grid[a] for a in axes]))
    return grid[int(axes)]


def program_ndim() -> int:
    prog = context.current()
    return len(prog.launch.grid) if prog.launch.grid_given else 0


def nc(n: int) -> int:
    """Beta-1 `nl.nc(k)`: a grid dimension spread over k cores (every instance still runs)."""
    return int(n)


def spmd_dim(*dims: Any) -> int:
    return int(np.prod([int(d) for d in dims]))


# ----------------------------------------------------------------------------- loops


def _range_args(start: Any, stop: Any, step: Any) -> range:
    if stop is None:
        start, stop = 0, start
    return range(_val(start), _val(stop), _val(step))


def _val(x: Any) -> int:
    return x.value if isinstance(x, Register) else int(x)


def affine_range(start: Any, stop: Any = None, step: Any = 1, precise_schedule: bool = False,
                 **directives: Any) -> Iterator[int]:
    """Iterations that promise independence: their accesses are logged and compared (NKI401/NKI403).
    With a shuffle seed they run in a random order.  (`precise_schedule=True` keeps them in order, as the
    verifier reads it; scheduling `directives=` change nothing here.)"""
    return _loop("sequential" if precise_schedule else "affine", _range_args(start, stop, step), user_site())


def sequential_range(start: Any, stop: Any = None, step: Any = 1, **directives: Any) -> Iterator[int]:
    return _loop("sequential", _range_args(start, stop, step), user_site())


static_range = sequential_range


def _loop(kind: str, r: range, site: Any) -> Iterator[int]:
    prog = context.current()
    run = prog.run
    items = list(r)
    if kind == "affine":
        items = run.shuffled(items)
    scope = LoopScope(kind, site, run.tick(), AccessLog() if kind == "affine" and len(items) > 1 else None,
                      trips=len(items))
    prog.loops.append(scope)
    try:
        for i in items:
            scope.iteration = i
            run.tick()
            yield i
    finally:
        scope.end_time = run.tick()
        if scope in prog.loops:
            prog.loops.remove(scope)


def dynamic_range(start: Any, stop: Any = None, step: int = 1) -> Iterator[Register]:
    """A hardware loop with register bounds; its index is a read-only register."""
    r = _range_args(start, stop, step)
    prog = context.current()
    scope = LoopScope("dynamic", user_site(), prog.run.tick(), trips=len(r))
    prog.loops.append(scope)
    try:
        for i in r:
            prog.run.tick()
            yield Register(i, frozen=True)
    finally:
        scope.end_time = prog.run.tick()
        if scope in prog.loops:
            prog.loops.remove(scope)


def fori_loop(lower: Any, upper: Any, body_fun: Callable, step: int = 1) -> None:
    for i in dynamic_range(lower, upper, step):
        body_fun(i)


def while_loop(init: Any, body_fun: Callable) -> None:
    r = init
    while _val(r) != 0:
        r = body_fun(r)


@contextlib.contextmanager
def no_reorder() -> Iterator[None]:
    yield  # the device executes in program order anyway


def ds(start: Any, size: Any) -> Any:
    from .nkitensor import DynSlice
    if isinstance(start, Register):
        return DynSlice(start, size)
    return slice(int(start), int(start) + int(size))
