"""One call of an `nki.isa` / `nki.language` instruction on the device.

The call is bound to the instruction's signature in compiler/spec (the dialect's form first, as the
verifier does), every applicable spec rule is evaluated on the concrete operands (`ConcreteBinding`
implements the spec's `Binding` protocol over real shapes, dtypes and buffers, so the rules fold to
true/false), value-returning forms get their result tile from the spec's `Result` declaration, and the
instruction's semantics (device.isa / device.language) read and write operands through the `Call`, which
does the bookkeeping of every access.
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Callable

import numpy as np

from compiler import expr as E
from compiler import spec
from compiler.spec import schema as S

from . import dtypes as DT
from .faults import Site
from .grids import Mask
from .tensor import View


class BindError(TypeError):
    pass


# ----------------------------------------------------------------------------- attribute values


def attr_value(v: Any) -> Any:
    """An argument as the spec's rules see it (the front end's spelling: enum members and operators by
    name, dtypes by canonical name)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    name = getattr(v, "spec_name", None)
    if isinstance(name, str):
        return name
    if type(v).__name__ == "Register":
        return "<register>"
    if isinstance(v, (tuple, list)):
        return tuple(attr_value(x) for x in v)
    try:
        return DT.dtype_name(v)
    except (DT.DTypeError, TypeError):
        pass
    np_name = getattr(v, "__name__", None)
    if isinstance(np_name, str):
        from .ops import NUMPY_NAMES
        return NUMPY_NAMES.get(np_name, np_name)
    return f"<{type(v).__name__}>"


class ConcreteBinding:
    """compiler.spec's Binding protocol over concrete values: the rules fold to TRUE / FALSE."""

    def __init__(self, target: Any, tensors: dict, attrs: dict) -> None:
        self.target = target
        self.tensors = tensors
        self.attrs = attrs

    def has(self, role: str) -> bool:
        if role in self.tensors:
            return True
        v = self.attrs.get(role, S.MISSING)
        return v is not S.MISSING and v is not None

    def is_tensor(self, role: str) -> bool:
        return role in self.tensors

    def shape(self, role: str) -> tuple | None:
        t = self.tensors.get(role)
        return None if t is None else t.shape

    def dtype(self, role: str) -> str | None:
        t = self.tensors.get(role)
        return None if t is None else t.storage.dname

    def buffer(self, role: str) -> str | None:
        t = self.tensors.get(role)
        return None if t is None else t.storage.buffer

    def attr(self, name: str) -> Any:
        return self.attrs.get(name, S.MISSING)


def violations(decl: Any, dialect: str, target: Any, tensors: dict, attrs: dict) -> list:
    """(rule, quantities) for every applicable rule of `decl` that the operands break."""
    b = ConcreteBinding(target, tensors, attrs)
    out = []
    for rule in decl.all_rules():
        if not rule.applies(target.name, dialect) or rule.severity == "warning":
            continue  # (a rule the compiler is known to accept breaking is no fault of the hardware)
        if rule.code == "NKI303" and dialect == "beta1" and spec.compiler_placed(rule, {
                role: (v.storage.buffer, v.storage.kind == "result") for role, v in tensors.items()}):
            continue
        goal = spec.evaluate(rule, b)
        if goal is None or goal != E.FALSE:
            continue
        out.append((rule, _quantities(rule.pred, b)))
    return out


def _quantities(pred: Any, b: ConcreteBinding) -> tuple:
    out = []
    for p in spec.leaves(pred):
        if isinstance(p, (S.Le, S.Eq)):
            for term in (p.a, p.b):
                try:
                    v = term.ev(b)
                except S.NotApplicable:
                    continue
                if not isinstance(term, S.Lit):
                    out.append((term.show(), v))
    return tuple(dict.fromkeys(out))


def display(qualname: str) -> str:
    module, _, name = qualname.partition(".")
    if name == "__assign__":
        return "the assignment"
    return ("nisa." if module == "isa" else "nl.") + name


# ----------------------------------------------------------------------------- binding a call


def bind(decl: Any, dialect: str, args: tuple, kwargs: dict, defaults: Callable[[str], Any]) -> tuple:
    """(form, {role: value}) choosing the signature the call matches (the kernel's dialect first)."""
    forms = [("beta1", decl.b1), ("beta2", decl.b2)] if dialect == "beta1" else [("beta2", decl.b2),
                                                                               ("beta1", decl.b1)]
    errors = []
    for form, sig in forms:
        if sig is None:
            continue
        try:
            return form, _bind_signature(decl, form, sig, args, kwargs, defaults)
        except BindError as exc:
            errors.append(str(exc))
    raise BindError(f"{display(decl.qualname)}(): {errors[0] if errors else 'no signature'}")


def _bind_signature(decl: Any, form: str, sig: Any, args: tuple, kwargs: dict, defaults: Callable) -> dict:
    pos = sig.positional
    if len(args) > len(pos) and not sig.varargs:
        raise BindError(f"takes {len(pos)} positional arguments but {len(args)} were given")
    bound = dict(zip(pos, args))
    for k, v in kwargs.items():
        if k in bound:
            raise BindError(f"got multiple values for {k!r}")
        bound[k] = v
    for name, text in _defaults(sig, defaults):
        if name not in bound:
            if text is S.MISSING:
                raise BindError(f"missing argument {name!r}")
            bound[name] = text
    roles = _roles(decl.qualname, form)
    return {roles.get(k, k): v for k, v in bound.items()}


def _defaults(sig: Any, resolve: Callable) -> list:
    """(name, default value or MISSING) per parameter, evaluated once per signature by the namespaces that
    resolve them (resolve.__self__ keeps the cache)."""
    cache = getattr(getattr(resolve, "__self__", None), "default_cache", None)
    got = cache.get(sig.text) if cache is not None else None
    if got is None:
        got = []
        for name in sig.names:
            d = sig.default(name)
            got.append((name, S.MISSING if d is S.MISSING else _default(d, resolve)))
        if cache is not None:
            cache[sig.text] = got
    return got


@functools.cache
def _roles(qualname: str, form: str) -> dict:
    decl = spec.lookup(qualname)
    sig = decl.signature(form)
    return {n: spec.param_role(decl, form, n) for n in sig.names}


def _default(text: str, defaults: Callable[[str], Any]) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return defaults(text)


# ----------------------------------------------------------------------------- the call


class Call:
    """An instruction being executed: its bound arguments and the accessors its semantics use."""

    def __init__(self, program: Any, decl: Any, form: str, bound: dict, site: Site, mask: Mask | None) -> None:
        self.program = program
        self.decl = decl
        self.form = form
        self.bound = bound
        self.site = site
        self.mask = mask.values if mask is not None else None
        self.result: View | None = None
        self.faulted = False
        self.codes: set = set()

    @property
    def target(self) -> Any:
        return self.program.run.target

    @property
    def dialect(self) -> str:
        return self.program.dialect

    def get(self, name: str, default: Any = None) -> Any:
        v = self.bound.get(name, default)
        return default if v is S.MISSING else v

    def tensor(self, role: str) -> View | None:
        v = self.bound.get(role)
        return v if isinstance(v, View) else None

    def is_tensor(self, role: str) -> bool:
        return isinstance(self.bound.get(role), View)

    def _mask_for(self, view: View) -> np.ndarray | None:
        m = self.mask
        if m is None:
            return None
        try:
            if np.broadcast_shapes(m.shape, view.shape) != view.shape:
                return None
        except ValueError:
            return None
        return np.broadcast_to(m, view.shape)

    # ------------------------------------------------------------------ operands
    def read(self, role: str, acc: bool = False, as_src: bool = False, check: bool = True) -> np.ndarray:
        """The operand's values in its storage dtype (view shape); `check=False`: no uninitialised-read check."""
        view = self.tensor(role)
        return self.program.load(view, self._mask_for(view), acc, as_src, check)

    def read_f32(self, role: str) -> np.ndarray:
        v = self.read(role)
        return v if self.tensor(role).storage.dname in ("float32", "tfloat32") else DT.to_f32(v)

    def operand(self, role: str, free_like: View | None = None) -> Any:
        """A scalar operand as a float32 scalar, or a (P, 1) tile as a (P, 1[,1...]) column that broadcasts
        along the free dimensions of `free_like`."""
        v = self.bound.get(role)
        if isinstance(v, View):
            col = DT.to_f32(self.read(role)).reshape(v.shape[0], -1)[:, :1]
            if free_like is not None:
                return col.reshape((v.shape[0],) + (1,) * (len(free_like.shape) - 1))
            return col
        if v is None or v is S.MISSING:
            return None
        if type(v).__name__ == "Register":
            return np.float32(v.value)
        return np.float32(v)

    def write(self, role: str, values: Any, acc: bool = False, keep: np.ndarray | None = None) -> None:
        """Cast `values` to the operand's dtype and store them (reshaped row-major when only the element
        counts agree, as DMA does); `keep` (element-count shaped) skips elements."""
        view = self.tensor(role)
        values = np.asarray(values)
        if values.shape != view.shape:
            if values.size == view.numel:
                values = values.reshape(view.shape)
            else:
                values = np.broadcast_to(values, view.shape)
        mask = self._mask_for(view)
        if keep is not None and keep.size == view.numel:
            keep = keep.reshape(view.shape)
            mask = keep if mask is None else (mask & keep)
        self.program.store(view, DT.cast(values, view.storage.dname), mask, acc)

    def written(self, role: str) -> Any:
        view = self.tensor(role)
        return view.written(self._mask_for(view))

    def fault(self, code: str, message: str, values: tuple = ()) -> None:
        self.faulted = self.faulted or code not in ("NKI401", "NKI402", "NKI403", "NKI404")
        self.codes.add(code)
        self.program.fault(code, f"{display(self.decl.qualname)}: {message}", values, self.site)

    def output_roles(self) -> list:
        return [o.name for o in self.decl.operands if o.mode in ("w", "rw") and self.is_tensor(o.name)]
