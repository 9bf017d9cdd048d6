"""Kernel objects (`@nki.jit` and friends) and what happens when one is launched on the device."""

from __future__ import annotations

import ast
import contextvars
import copy
import inspect
import os
import textwrap
from typing import Any, Callable

import numpy as np

from compiler.ir import KERNEL_WRAPPERS, TRACER_BUFFERS

from . import context
from .faults import KernelPrecondition, Site
from .launch import Launch
from .nkitensor import NkiTensor, full_view
from .tensor import View

_RUN: contextvars.ContextVar = contextvars.ContextVar("nki_device_run", default=None)
_DEVICE_DIR = os.path.dirname(os.path.abspath(__file__))


def active_run() -> Any:
    return _RUN.get()


def enter_run(run: Any) -> contextvars.Token:
    return _RUN.set(run)


def leave_run(token: contextvars.Token) -> None:
    _RUN.reset(token)


class Kernel:
    """A decorated kernel: call it (one instance), or index it with a grid: `k[2, 4](a, b)`, `k[2](a)` (LNC2)."""

    def __init__(self, fn: Callable, dialect: str, options: dict | None = None) -> None:
        self.fn = fn
        self.dialect = dialect
        self.options = dict(options or {})
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return launch(self, None, args, kwargs)

    def __getitem__(self, grid: Any) -> Callable:
        g = grid if isinstance(grid, tuple) else (grid,)
        return _Gridded(self, tuple(int(x) for x in g))

    def __repr__(self) -> str:
        return f"<nki kernel {self.__name__} ({self.dialect})>"


class _Gridded:
    def __init__(self, kernel: Kernel, grid: tuple) -> None:
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return launch(self.kernel, self.grid, args, kwargs)


def jit_decorator(dialect: str) -> Callable:
    """`@nki.jit`, `@nki.jit(mode=...)`, `nki.jit(fn, ...)`, `nki.baremetal`, `torch_neuronx.nki_jit`."""

    def jit(fn: Any = None, **options: Any) -> Any:
        if fn is None:
            return lambda f: Kernel(_unwrap(f), dialect, options)
        if isinstance(fn, Kernel):
            return Kernel(fn.fn, fn.dialect, {**fn.options, **options})
        return Kernel(fn, dialect, options)

    return jit


def _unwrap(f: Any) -> Callable:
    return f.fn if isinstance(f, Kernel) else f


def simulate(kernel: Any) -> Callable:
    """`nki.simulate(kernel)(args)`, also with `kernel[2]`."""
    return kernel if isinstance(kernel, (Kernel, _Gridded)) else Kernel(kernel, dialect_of(kernel))


def simulate_kernel(kernel: Any, *args: Any, **kwargs: Any) -> Any:
    return simulate(kernel)(*args, **kwargs)


def nki_call(fn: Any, *args: Any, grid: Any = None, out_shape: Any = None, **kwargs: Any) -> Any:
    k = fn if isinstance(fn, Kernel) else Kernel(fn, "beta1")
    return launch(k, tuple(grid) if grid is not None else None, args, kwargs)


def dialect_of(fn: Any) -> str:
    """Which NKI the function's module imported: Beta 1 when it uses neuronxcc.nki."""
    g = getattr(fn, "__globals__", {})
    for v in g.values():
        name = getattr(v, "__name__", "")
        if isinstance(name, str) and name.startswith("neuronxcc"):
            return "beta1"
    return "beta2"


def is_host_function(fn: Any) -> bool:
    """A plain function that launches kernels (`add(a, b)` calling `add_kernel[grid](a, b)`), not a kernel."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    g = getattr(fn, "__globals__", {})
    if any(isinstance(g.get(n), Kernel) for n in code.co_names):
        return True
    # a test that defines its kernel inside itself and launches it (`def test_add(): @nki.jit def add(...)`), or
    # a benchmark that does (`def bench(rows): @nki.benchmark(...) def kernel(x): ...; kernel(x)`)
    if not any(hasattr(c, "co_code") for c in code.co_consts):
        return False
    return getattr(fn, "__name__", "").startswith("test") or _defines_decorated_kernel(fn)


def _defines_decorated_kernel(fn: Any) -> bool:
    """Does `fn`'s source define a function decorated as a kernel (`@nki.jit`, `@nki.benchmark(...)`)?"""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    outer = tree.body[0] if tree.body else None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not outer:
            for d in node.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                name = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""
                if name in KERNEL_WRAPPERS:
                    return True
    return False


# ----------------------------------------------------------------------------- launching


def launch(kernel: Kernel, grid: tuple | None, args: tuple, kwargs: dict) -> Any:
    if context.current_or_none() is not None:
        return kernel.fn(*args, **kwargs)  # a kernel calling another one: inlined, as the compiler does
    run = active_run()
    if run is None:
        raise context.NoDevice("launch kernels through device.run(...) or `nki-verify run`")
    lnc = kernel.dialect == "beta2"
    la = Launch(run, kernel.__name__, kernel.dialect, grid or (1,), lnc and grid is not None, grid is not None,
                run.modules.namespaces(kernel.dialect))
    token = context.enter(la.programs[0])
    try:
        params, originals = _params(la, kernel, args, kwargs)
    finally:
        context.leave(token)
    bound_args, bound_kwargs = params
    if kernel.dialect == "beta2":
        _tracer_buffers(kernel.fn, run.modules.namespaces("beta2").language)

    def body(program: Any) -> Any:
        try:
            return kernel.fn(*bound_args, **bound_kwargs)
        except AssertionError as exc:
            site = _assert_site(exc)
            if site is None:
                raise
            raise KernelPrecondition(site, str(exc) or "assertion failed") from None

    results = la.execute(body)
    _write_back(originals)
    run.launches.append(la)
    return to_host(results[0])


def _assert_site(exc: BaseException) -> Site | None:
    """Where a kernel's own assert failed (None when the assertion is the device's)."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return None
    fn = last.tb_frame.f_code.co_filename
    if fn.startswith(_DEVICE_DIR + os.sep):
        return None
    return Site(fn, last.tb_lineno, last.tb_frame.f_code.co_name)


class _TracerBuffer:
    """`sbuf`, `psum`, `hbm`: names the Beta-2 tracer gives kernel code; `.view(dtype, shape)` allocates there."""

    def __init__(self, name: str, language: Any) -> None:
        self.name, self.language = name, language

    def view(self, dtype: Any = None, shape: Any = None, name: str = "") -> Any:
        return self.language.ndarray(shape, dtype=dtype, buffer=getattr(self.language, self.name), name=name)


def _tracer_buffers(fn: Callable, language: Any) -> None:
    """Give a Beta-2 kernel's module the tracer's memory names it does not define itself."""
    g = getattr(fn, "__globals__", None)
    if isinstance(g, dict):
        for name in TRACER_BUFFERS:
            if name not in g:
                g[name] = _TracerBuffer(name, language)


def _params(la: Launch, kernel: Kernel, args: tuple, kwargs: dict) -> tuple:
    """Host arrays become HBM tensors shared by every program instance (inputs are in shared HBM)."""
    try:
        sig = inspect.signature(kernel.fn)
        bound = sig.bind_partial(*args, **kwargs)
        names = list(bound.arguments)
    except (TypeError, ValueError):
        names = [f"arg{i}" for i in range(len(args))] + list(kwargs)
    buffer = "shared_hbm" if kernel.dialect == "beta2" else "hbm"
    prog = la.programs[0]
    originals = []
    conv_args = []
    for i, a in enumerate(args):
        name = names[i] if i < len(names) else f"arg{i}"
        conv_args.append(_param(prog, name, a, buffer, originals))
    conv_kwargs = {k: _param(prog, k, v, buffer, originals) for k, v in kwargs.items()}
    # inputs annotated `nt.mutable_tensor` may be written in place (Beta 1's in/out rule exempts them)
    mutable = _mutable_params(kernel.fn)
    for name, v in list(zip(names, conv_args)) + list(conv_kwargs.items()):
        if name in mutable and isinstance(v, View):
            la.run.mutable.add(v.storage.sid)
    return (tuple(conv_args), conv_kwargs), originals


def _mutable_params(fn: Callable) -> set:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return set()
    # (the annotation object, or its text under `from __future__ import annotations`)
    return {p.name for p in params if (isinstance(p.annotation, str) and "mutable_tensor" in p.annotation) or
            getattr(p.annotation, "__name__", None) == "_MutableTensor"}


def _param(prog: Any, name: str, a: Any, buffer: str, originals: list, depth: int = 0) -> Any:
    if depth < 3 and not isinstance(a, (View, type)) and not _is_array(a) and hasattr(a, "__dict__") and \
            any(_is_array(v) for v in vars(a).values()):
        # a configuration object the host built around its arrays (`QuantConfig(scale=s)`): its arrays are
        # input tensors too (in a copy: the host's object keeps its arrays)
        obj = copy.copy(a)
        for k, v in vars(a).items():
            setattr(obj, k, _param(prog, f"{name}.{k}", v, buffer, originals, depth + 1))
        return obj
    if depth < 3 and isinstance(a, (list, tuple)) and any(_is_array(x) or isinstance(x, (list, tuple)) for x in a):
        # arrays inside a list or tuple the host passes (`layers=[(w0, b0), (w1, b1)]`): input tensors too
        items = [_param(prog, f"{name}[{i}]", x, buffer, originals, depth + 1) for i, x in enumerate(a)]
        if isinstance(a, list):
            return items
        return tuple(items) if type(a) is tuple else type(a)(*items)  # (a named tuple takes its fields)
    if isinstance(a, View) or not _is_array(a):
        return a
    arr = np.asarray(a)
    st = prog.wrap(name, buffer, arr, Site("<inputs>", 0, name))
    if not np.shares_memory(st.data, arr):
        originals.append((a, st))
    return full_view(st)


def _is_array(a: Any) -> bool:
    if isinstance(a, np.ndarray):
        return True
    return hasattr(a, "__array__") and hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, type)


def _write_back(originals: list) -> None:
    """Inputs the kernel wrote are updated in place, as NKI's simulator does."""
    for a, st in originals:
        if not isinstance(a, np.ndarray) or not a.flags.writeable:
            continue
        if st.written:
            a[...] = np.asarray(full_view(st).values()).reshape(a.shape).astype(a.dtype, copy=False)


def to_host(v: Any) -> Any:
    """Tensors returned by a kernel as numpy arrays (the storage itself for a whole HBM tensor: the run is over,
    nothing else uses it)."""
    if isinstance(v, NkiTensor):
        st = v.storage
        if v.covers_storage() and st.data.flags.c_contiguous and st.kind != "param" and v.shape == st.shape \
                and not st.on_chip:
            return st.data.reshape(st.shape)
        return np.array(v.values(), copy=True)
    if isinstance(v, tuple):
        return tuple(to_host(x) for x in v)
    if isinstance(v, list):
        return [to_host(x) for x in v]
    if isinstance(v, dict):
        return {k: to_host(x) for k, x in v.items()}
    return v

