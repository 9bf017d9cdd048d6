"""Functions, classes, attributes, items and imports."""

from __future__ import annotations

import ast
from typing import Any, Callable

from .. import expr as E
from .. import ir
from . import builtins
from . import values as V
from .control import NoFallthrough, ReturnSignal
from .modules import FRAMEWORK_NKI, nki_api_path

MAX_DEPTH = 48
MAX_PHI_SPLITS = 3  # nested calls split per structurally different argument (2**3 paths at most)
MISSING_MODULE = ", a module that could not be found"  # the reason of a name a failed relative import gave

KERNEL_DECORATORS = frozenset({
    "jit", "baremetal", "benchmark", "profile", "trace", "nki_jit", "compiler.skip_middle_end_transformations",
    "compiler.enable_stack_allocator", "compiler.force_auto_alloc",
})
PASS_THROUGH_DECORATORS = frozenset({"compiler.skip_middle_end_transformations", "compiler.enable_stack_allocator",
                                     "compiler.force_auto_alloc"})


def _int_choices(v: Any) -> bool:
    """A merged value every choice of which is an integer (an index the subscript takes as one expression)."""
    if isinstance(v, V.Phi):
        return _int_choices(v.a) and _int_choices(v.b)
    return V.is_int(v)


class SuperProxy:
    def __init__(self, cls: V.ClassVal, obj: Any) -> None:
        self.cls, self.obj = cls, obj


class FieldSpec:
    """`dataclasses.field(...)` in a class body."""

    def __init__(self, default: Any = V.MISSING, factory: Any = V.MISSING) -> None:
        self.default, self.factory = default, factory


class AutoValue:
    """`enum.auto()`."""


def _dtype_scalar(dtype: str) -> Any:
    """The scalar constructor of a dtype (`np.float32(x)`): numbers become floats or ints, others stay."""
    def make(it: Any, a: list, k: dict, n: Any) -> Any:
        x = a[0] if a else 0
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return float(x) if dtype.startswith(("float", "bfloat", "tfloat")) else int(x)
        return x
    return make


def _dtype_limit(dtype: str, name: str) -> Any:
    """`nl.fp32.min`: the dtype's limit as a float (an opaque float when the dtype is not a known float)."""
    import ml_dtypes
    import numpy as np

    try:
        info = ml_dtypes.finfo(getattr(ml_dtypes, dtype, None) or np.dtype(dtype))
    except (TypeError, ValueError):
        return V.OPAQUE_FLOAT
    return float(getattr(info, name, V.OPAQUE_FLOAT))


def _structural(v: V.Phi) -> bool:
    """Two values no merge can fold into one: sequences of different lengths, tensors of different ranks."""
    a, b = v.a, v.b
    if isinstance(a, V.Phi) or isinstance(b, V.Phi):
        return (isinstance(a, V.Phi) and _structural(a)) or (isinstance(b, V.Phi) and _structural(b))
    if isinstance(a, (tuple, V.PyList)) and isinstance(b, (tuple, V.PyList)):
        return True
    return isinstance(a, V.TensorVal) and isinstance(b, V.TensorVal)


def _failure_prone(v: Any) -> bool:
    """Values whose attributes Python code only reads after a check (None, an absent optional)."""
    return v is None or (isinstance(v, V.Phi) and (_failure_prone(v.a) or _failure_prone(v.b)))


def annotated_fields(cls: V.ClassVal) -> list:
    """(name, annotation node) of the class and its bases, base first."""
    out: dict = {}
    for c in reversed(cls.mro()):
        node = getattr(c, "node", None)
        if not isinstance(node, ast.ClassDef):
            continue
        for st in node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and \
                    not ast.unparse(st.annotation).startswith("ClassVar"):
                out[st.target.id] = st.annotation
    return list(out.items())


def _nkiobject_based(cls: V.ClassVal) -> bool:
    seen = 0
    stack = list(cls.bases)
    while stack and seen < 50:
        b = stack.pop()
        seen += 1
        if isinstance(b, (V.ApiVal, V.ExternalVal)) and b.path.endswith("NKIObject"):
            return True
        if isinstance(b, V.ClassVal):
            stack.extend(b.bases)
    return False


# builtins without side effects that may take one of two lists of different lengths (`Phi`): each side is
# called on its own
SPLIT_BUILTINS = frozenset(("enumerate", "zip", "reversed", "list", "tuple", "sorted", "sum", "min", "max", "any",
                            "all", "len", "set"))
MAX_ENUM_CHOICE = 16  # members of an enum an input may be (a larger enum's input stays unknown)


class CallsMixin:
    # ------------------------------------------------------------------ calling
    def call_value(self, fn: Any, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if isinstance(fn, V.FunctionVal):
            return self.invoke(fn, args, kwargs, node)
        if isinstance(fn, V.BoundMethod):
            if isinstance(fn.func, V.Builtin):
                return fn.func.fn(self, [fn.obj] + list(args), kwargs, node)
            return self.call_value(fn.func, [fn.obj] + list(args), kwargs, node)
        if isinstance(fn, V.Builtin):
            if fn.name in SPLIT_BUILTINS:
                for i, a in enumerate(args):
                    if isinstance(a, V.Phi) and self._lengths_differ(a):
                        # `enumerate(outs)` of one of two lists of different lengths: on each, under its condition
                        return self._on_phi(a, lambda side, i=i: self.call_value(fn, [*args[:i], side, *args[i + 1:]],
                                                                                 kwargs, node))
            return fn.fn(self, list(args), kwargs, node)
        if isinstance(fn, V.ClassVal):
            return self.instantiate(fn, list(args), kwargs, node)
        if isinstance(fn, V.ApiVal):
            return self.call_api(fn, list(args), kwargs, node)
        if isinstance(fn, V.KernelVal):
            return self.call_kernel(fn, list(args), kwargs, node)
        if isinstance(fn, V.ExternalVal):
            return self.call_external(fn, list(args), kwargs, node)
        if isinstance(fn, V.Instance):
            m = fn.cls.lookup("__call__")
            if m is not V.MISSING:
                return self.call_value(m, [fn] + list(args), kwargs, node)
            raise V.NotUnderstood(f"calling a {fn.cls.name} instance that has no __call__", node)
        if isinstance(fn, V.Unknown):
            missing = fn.reason.partition(MISSING_MODULE)[0].rpartition(" from ")[2] if MISSING_MODULE in fn.reason \
                else None
            if missing and self.kb is not None:
                # a kernel calls what a relative import of a module not found should have given (the import
                # itself ran with the module, outside any kernel)
                self.say_missing_module(missing, f"{fn.reason.partition(' from ')[0]}() is not followed: the "
                                                 f"relative import of {missing} found no such module, so what the "
                                                 "kernel does with it is not checked", node)
            # (a value from what was said not understood is said no more: its span marks it)
            span = self.span(node) if fn.span is None and missing and self.kb is not None else fn.span
            return V.Unknown(f"result of calling {fn.reason}", span)
        if isinstance(fn, V.DecoratorFactory):
            return self._decorate(fn, args[0], node) if len(args) == 1 else V.Unknown("decorator")
        if isinstance(fn, SuperProxy):
            raise V.NotUnderstood("calling super() directly", node)
        if isinstance(fn, V.Phi):
            return self._call_phi(fn, args, kwargs, node)
        if isinstance(fn, V.ModuleVal):
            # `from ..utils import stream_shuffle_broadcast` of a package whose __init__ does not import the
            # function: the name is the module, and calling it raises TypeError when this path is traced
            name = fn.name.rpartition(".")[2]
            self.type_error(f"calling the module {fn.name!r}: a module is not callable, so Python raises TypeError "
                            f"here while tracing (the function would be {name}.{name}, or imported from the module)",
                            node)
        raise V.NotUnderstood(f"calling a {V.describe(fn)}", node)

    def invoke(self, fn: V.FunctionVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        from .interp import Frame  # late import: interp imports this module

        if self.kb is not None and self.frames and self._phi_splits < MAX_PHI_SPLITS:
            for key, v in list(enumerate(args)) + list(kwargs.items()):
                if isinstance(v, V.Phi) and _structural(v):
                    return self._split_call(fn, args, kwargs, key, v, node)
        if len(self.frames) > MAX_DEPTH:
            raise V.NotUnderstood(f"calls nested deeper than {MAX_DEPTH} (recursion?) in {fn.name}", node)
        if self.kb is None:
            self._invoked.add(id(fn))
        frame = Frame(fn, fn.module, fn.closure, fn.name)
        frame.owner = getattr(fn, "owner", None)
        frame.loop_base = len(self.loop_facts)
        if self.frames and self.frames[-1].kind == "function" and node is not None and self.kb is not None:
            frame.call_site = self.span(node)
            frame.caller_stmt = self.current_stmt
        self.bind_params(fn, args, kwargs, frame.locals, node)
        if self.kb is not None:
            if len(self.frames) == 1:
                # the kernel itself: its optional inputs left at None
                frame.none_origin = {p: p for p in self._none_defaults if frame.locals.get(p, 0) is None}
            elif any(v is None for v in args) or any(v is None for v in kwargs.values()):
                frame.none_origin = self._none_origins(fn, args, kwargs, node)
        self.frames.append(frame)
        aborted = False
        exits0 = self.exits()
        try:
            if isinstance(fn.node, ast.Lambda):
                frame.returns.append((E.TRUE, self.eval(fn.node.body), E.TRUE))
            else:
                try:
                    self.exec_block(fn.node.body)
                    frame.returns.append((E.band(*frame.pc), None, E.band(*frame.pc.held)))
                except ReturnSignal as r:
                    frame.returns.append(self.returned(frame.pc, r))
                except NoFallthrough:
                    pass
                except V.PathAbort as exc:
                    aborted = True
                    # the path that falls through raises (`if a: return 4 elif b: return 2 / raise ...`): the
                    # call fails only when no earlier path returned; abort_path made that path's inputs
                    # inadmissible already
                    if not frame.returns:
                        raise
                    self.unrecorded_aborts += not exc.recorded
        finally:
            self.frames.pop()
            self.jumps = exits0[1]  # (a return ends the function's paths, not the caller's branch)
        if not frame.returns:
            raise V.PathAbort(recorded=True)  # (each path counted where it ended)
        value = frame.returns[-1][1]
        for cond, v, _ in reversed(frame.returns[:-1]):
            value = self.merge(cond, v, value)
        exit_cond = E.bor(*[c for c, _, _ in frame.returns])
        if exit_cond != E.TRUE and self.frames:
            # (a path of the function that raised is not taken where a later point was reached)
            held = E.TRUE if aborted else E.bor(*[h for _, _, h in frame.returns])
            self.narrow_implied(exits0, exit_cond, held, aborts_only=True)
        return value

    def none_origin(self, expr: ast.AST | None) -> str | None:
        """The optional kernel input left at None whose None the expression carries, in the current frame: the
        input itself, a helper's parameter or a local name given it, or an object's attribute set from it
        (`QuantParams(down_w_scale=expert_down_weights_scale)`, then `params.quant.down_w_scale.shape`).  A
        dereference of that None is the input's (see none_default_used), whatever names it went by."""
        if isinstance(expr, ast.Name):
            return self.frame.none_origin.get(expr.id)
        if isinstance(expr, ast.Attribute):
            obj = self._plain_value(expr.value)
            entry = self._attr_none_origin.get(id(obj)) if isinstance(obj, V.Instance) else None
            if entry is not None and entry[0] is obj:
                return entry[1].get(expr.attr)
        return None

    def _plain_value(self, expr: ast.AST) -> Any:
        """The value of a name or a chain of instance attributes, looked up without evaluating anything (no
        property runs, no read is recorded); MISSING for anything else."""
        if isinstance(expr, ast.Name):
            f = self.frame
            for env in (f.locals, *f.closure, f.module.namespace):
                if expr.id in env:
                    return env[expr.id]
            return V.MISSING
        if isinstance(expr, ast.Attribute):
            obj = self._plain_value(expr.value)
            if isinstance(obj, V.Instance):
                return obj.attrs.get(expr.attr, V.MISSING)
        return V.MISSING

    def note_none_attr(self, obj: Any, name: str, value: Any, expr: ast.AST | None) -> None:
        """`obj.name = value` (an assignment, a dataclass field): where value is None from an optional kernel
        input, the attribute carries that input's None (see none_origin); any other value ends it."""
        if not isinstance(obj, V.Instance) or self.kb is None:
            return
        origin = self.none_origin(expr) if value is None else None
        entry = self._attr_none_origin.get(id(obj))
        if origin is not None:
            if entry is None or entry[0] is not obj:
                entry = self._attr_none_origin[id(obj)] = (obj, {})
            entry[1][name] = origin
        elif entry is not None and entry[0] is obj:
            entry[1].pop(name, None)

    def _arg_exprs(self, n_args: int, node: ast.AST | None) -> tuple:
        """The call's argument expressions: ([expression of each of the n_args positional values, None where
        not known], {keyword: expression}).  A bound method's self comes first, without an expression."""
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            return [None] * n_args, {}
        extra = n_args - len(node.args)
        pos = [None] * extra + list(node.args) if extra >= 0 else [None] * n_args
        return pos, {k.arg: k.value for k in node.keywords if k.arg is not None}

    def _none_origins(self, fn: V.FunctionVal, args: list, kwargs: dict, node: ast.AST | None) -> dict:
        """The callee's parameters bound to a None that carries an optional kernel input's (see none_origin)."""
        a = fn.node.args
        pos_exprs, kw_exprs = self._arg_exprs(len(args), node)
        out = {}
        for p, v, e in zip(a.posonlyargs + a.args, args, pos_exprs):
            if v is None and (origin := self.none_origin(e)) is not None:
                out[p.arg] = origin
        for k, v in kwargs.items():
            if v is None and (origin := self.none_origin(kw_exprs.get(k))) is not None:
                out[k] = origin
        return out

    def bind_params(self, fn: V.FunctionVal, args: list, kwargs: dict, env: dict, node: ast.AST | None) -> None:
        a = fn.node.args
        pos = a.posonlyargs + a.args
        kwargs = dict(kwargs)
        for i, p in enumerate(pos):
            if i < len(args):
                if p.arg in kwargs and i >= len(a.posonlyargs):
                    raise V.NotUnderstood(f"{fn.name}() got multiple values for {p.arg!r}", node)
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs.pop(p.arg)
            else:
                j = i - (len(pos) - len(fn.defaults))
                if j >= 0:
                    env[p.arg] = fn.defaults[j]
                else:
                    raise V.NotUnderstood(f"{fn.name}() is missing argument {p.arg!r}", node)
        extra = list(args[len(pos):])
        if a.vararg is not None:
            env[a.vararg.arg] = tuple(extra)
        elif extra:
            raise V.NotUnderstood(f"{fn.name}() takes {len(pos)} positional arguments but got {len(args)}", node)
        for p in a.kwonlyargs:
            if p.arg in kwargs:
                env[p.arg] = kwargs.pop(p.arg)
            elif p.arg in fn.kwdefaults:
                env[p.arg] = fn.kwdefaults[p.arg]
            else:
                raise V.NotUnderstood(f"{fn.name}() is missing keyword argument {p.arg!r}", node)
        if a.kwarg is not None:
            env[a.kwarg.arg] = V.PyDict(self.heap, kwargs)
        elif kwargs:
            raise V.NotUnderstood(f"{fn.name}() got unexpected keyword argument(s) {', '.join(sorted(kwargs))}", node)

    # ------------------------------------------------------------------ definitions
    def make_function(self, node: Any, name: str) -> V.FunctionVal:
        a = node.args
        defaults = tuple(self.eval(d) for d in a.defaults)
        kwdefaults = {p.arg: self.eval(d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        f = self.frame
        kind = getattr(f, "kind", "function")
        if f.func is None and not kind == "class":
            closure: tuple = ()  # module level: globals are the module namespace
        elif kind == "class":
            closure = f.closure
        else:
            closure = (f.locals,) + tuple(f.closure)
        qual = f"{f.name}.{name}" if f.name else name
        return V.FunctionVal(name, node, f.module, closure, defaults, kwdefaults, qual)

    def apply_decorators(self, fn: V.FunctionVal, node: Any) -> Any:
        value: Any = fn
        for dec in reversed(node.decorator_list):
            try:
                d = self.eval(dec)
            except V.NotUnderstood:
                continue
            value = self._decorate(d, value, dec)
        return value

    def _decorate(self, d: Any, value: Any, dec: ast.AST) -> Any:
        if isinstance(d, V.ApiVal):
            if d.path in KERNEL_DECORATORS or d.path.endswith(".jit"):
                if isinstance(value, V.KernelVal):
                    return value
                if isinstance(value, V.FunctionVal):
                    value.kernel = True
                    return V.KernelVal(value, via=d.path, dialect=d.dialect)
            return value
        if isinstance(d, V.KernelVal):
            return value
        if isinstance(d, V.DecoratorFactory):
            if isinstance(value, V.FunctionVal):
                value.kernel = True
                pt = d.kwargs.get("platform_target")
                return V.KernelVal(value, via=d.path, dialect=d.dialect, target=pt if isinstance(pt, str) else None)
            return value
        if isinstance(d, V.Builtin):
            if d.name in ("staticmethod", "classmethod", "property"):
                if isinstance(value, V.FunctionVal):
                    value.is_static = d.name == "staticmethod"
                    value.is_classmethod = d.name == "classmethod"
                    value.is_property = d.name == "property"
                return value
            if d.name in ("identity_decorator",):
                return value
            try:
                out = d.fn(self, [value], {}, dec)
            except V.NotUnderstood:
                return value
            return value if isinstance(out, V.Unknown) else out
        if isinstance(d, (V.FunctionVal, V.BoundMethod, V.Instance)):
            try:
                out = self.call_value(d, [value], {}, dec)
            except (V.NotUnderstood, V.PathAbort):
                return value
            if isinstance(out, (V.Unknown, type(None))):
                return value
            return out
        return value

    def make_class(self, node: ast.ClassDef) -> V.ClassVal:
        from .interp import Frame

        bases = tuple(self.eval(b) for b in node.bases)
        decos = []
        for dec in node.decorator_list:
            try:
                decos.append(self.eval(dec))
            except V.NotUnderstood:
                pass
        f = self.frame
        frame = Frame(None, f.module, (f.locals,) + tuple(f.closure) if f.func is not None else tuple(f.closure),
                      node.name)
        frame.kind = "class"
        self.frames.append(frame)
        try:
            self.exec_block(node.body)
        finally:
            self.frames.pop()
        cls = V.ClassVal(node.name, bases, frame.locals, f.module, node)
        for v in frame.locals.values():
            if isinstance(v, V.FunctionVal):
                v.owner = cls
        cls.is_enum = any(self._is_enum_base(b) for b in bases)
        if cls.is_enum:
            self._make_enum(cls, node)
        is_dc = any(self._is_dataclass_decorator(d) for d in decos)
        if is_dc or any(isinstance(b, V.ExternalVal) and b.path.endswith("NamedTuple") for b in bases):
            cls.dataclass_fields = self._dataclass_fields(cls, node)
            cls.frozen = any(self._dataclass_frozen(d) for d in decos)
            # as @dataclass leaves the class: a field(default=x) is x as a class attribute
            # (`Sizes.per_stage`), one with only a factory is not a class attribute at all
            for name, v in list(cls.attrs.items()):
                if isinstance(v, FieldSpec):
                    if v.default is not V.MISSING:
                        cls.attrs[name] = v.default
                    else:
                        del cls.attrs[name]
        elif any(isinstance(b, V.ClassVal) and b.dataclass_fields is not None for b in bases):
            cls.dataclass_fields = None
        return cls

    def _is_enum_base(self, b: Any) -> bool:
        if isinstance(b, V.ExternalVal):
            return b.path.split(".")[-1] in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")
        return isinstance(b, V.ClassVal) and b.is_enum

    def _is_dataclass_decorator(self, d: Any) -> bool:
        if isinstance(d, V.ExternalVal) and d.path in ("dataclasses.dataclass", "attr.s", "attrs.define"):
            return True
        return isinstance(d, V.Builtin) and d.name in ("dataclass", "dataclass_factory") or (
            isinstance(d, V.BoundMethod) and isinstance(d.func, V.Builtin) and d.func.name == "dataclass_with")

    def _dataclass_frozen(self, d: Any) -> bool:
        return isinstance(d, V.BoundMethod) and isinstance(d.obj, dict) and bool(d.obj.get("frozen"))

    def _make_enum(self, cls: V.ClassVal, node: ast.ClassDef) -> None:
        counter = 1
        for name, v in list(cls.attrs.items()):
            if name.startswith("_") or isinstance(v, (V.FunctionVal, V.Builtin)):
                continue
            if isinstance(v, AutoValue):
                v = counter
            if isinstance(v, int):
                counter = v + 1
            cls.attrs[name] = V.EnumMember(cls, name, v)

    def _dataclass_fields(self, cls: V.ClassVal, node: ast.ClassDef) -> list:
        fields: list = []
        for b in reversed(cls.bases):
            if isinstance(b, V.ClassVal) and b.dataclass_fields:
                for fld in b.dataclass_fields:
                    fields = [x for x in fields if x[0] != fld[0]] + [fld]
        for st in node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                name = st.target.id
                ann = ast.unparse(st.annotation)
                if ann.startswith("ClassVar"):
                    continue
                default = cls.attrs.get(name, V.MISSING) if st.value is not None else V.MISSING
                fields = [x for x in fields if x[0] != name] + [(name, default)]
        if _nkiobject_based(cls):
            # an NKIObject dataclass's class attributes without an annotation (`offset = None`) are fields too,
            # after the annotated ones: the library builds them by keyword (`SectionParams(offset=...)`), which
            # a plain dataclass would refuse (the device's NKIObject does the same, device/modules.py)
            named = {x[0] for x in fields}
            for st in node.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                    name = st.targets[0].id
                    if not name.startswith("__") and name not in named and \
                            not isinstance(st.value, (ast.List, ast.Dict, ast.Set, ast.Lambda)):
                        fields.append((name, cls.attrs.get(name, V.MISSING)))
                        named.add(name)
        return fields

    def instantiate(self, cls: V.ClassVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if self.kb is not None:
            self.lint_instantiate(cls, node)
        if cls.is_enum:
            if len(args) == 1:
                for v in cls.attrs.values():
                    if isinstance(v, V.EnumMember) and self.equal(v.value, args[0]) is True:
                        return v
                if isinstance(args[0], V.EnumMember) and args[0].cls is cls:
                    return args[0]
            raise V.NotUnderstood(f"{cls.name}({', '.join(V.describe(a) for a in args)}) is not a known member", node)
        inst = V.Instance(self.heap, cls)
        init = cls.lookup("__init__")
        if cls.dataclass_fields is not None and "__init__" not in cls.attrs:
            self._dataclass_init(cls, inst, args, kwargs, node)
            post = cls.lookup("__post_init__")
            if isinstance(post, V.FunctionVal):
                self.invoke(post, [inst], {}, node)
            return inst
        if isinstance(init, V.FunctionVal):
            self.invoke(init, [inst] + list(args), kwargs, node)
        elif init is V.MISSING:
            if any(isinstance(c, V.ClassVal) and c.dataclass_fields is not None for c in cls.mro()):
                self._dataclass_init(cls, inst, args, kwargs, node)
            elif _nkiobject_based(cls):
                # nl.NKIObject.__init__(**kwargs) sets one attribute per keyword
                if args:
                    raise V.NotUnderstood(f"{cls.name}() takes keyword arguments only (NKIObject)", node)
                inst.attrs.update(kwargs)
                post = cls.lookup("__post_init__")
                if isinstance(post, V.FunctionVal):
                    self.invoke(post, [inst], {}, node)
        return inst

    def _on_phi(self, obj: V.Phi, op: Callable) -> Any:
        """Apply `op` to a value chosen by a symbolic condition: the side the path already settles, else both
        sides merged.  A side on which `op` fails (`x.shape` where x may be None) would crash the kernel in
        Python, so the path through it is infeasible and the other side is the value."""
        d = self.decide(obj.cond)
        if d is True:
            return op(obj.a)
        if d is False:
            return op(obj.b)
        results = []
        pc = self.frame.pc
        aborted = 0
        for side, cond in ((obj.a, obj.cond), (obj.b, E.bnot(obj.cond))):
            # each side under its condition: what `op` checks there (`strides[i]` of the shorter tuple) holds
            # only for the inputs that choose that side
            pc.append(cond)
            try:
                results.append(op(side))
            except V.NotUnderstood:
                if not _failure_prone(side):
                    raise
                results.append(V.ABORTED)
            except V.PathAbort as exc:
                # this side always fails here (its check is recorded under its condition): the other is the value
                aborted += 1
                self.unrecorded_aborts += not exc.recorded
                results.append(V.ABORTED)
            finally:
                pc.pop()
        a, b = results
        if aborted and a is V.ABORTED and b is V.ABORTED:
            raise V.PathAbort(recorded=True)  # (each side counted above)
        if a is V.ABORTED and b is V.ABORTED:
            raise V.NotUnderstood(f"{V.describe(obj.a)} / {V.describe(obj.b)} used where neither fits")
        if a is V.ABORTED:
            return b
        if b is V.ABORTED:
            return a
        return self.merge(obj.cond, a, b)

    def _split_call(self, fn: V.FunctionVal, args: list, kwargs: dict, key: Any, phi: V.Phi,
                    node: ast.AST | None) -> Any:
        """`f(x)` where `x` is one of two values of different structure (a shape of rank 3 or 4 after a
        branch that may reshape): the call is followed once per value, each under its condition, like the
        two sides of an `if`, and the results merged.  Code that takes `len(x)` or loops over `x` then sees
        one exact value on each path."""
        f = self.frame
        slot = "\0split"

        def side(value: Any) -> Callable:
            def run() -> None:
                a, k = list(args), dict(kwargs)
                if isinstance(key, int):
                    a[key] = value
                else:
                    k[key] = value
                f.locals[slot] = self.invoke(fn, a, k, node)
            return run

        self._phi_splits += 1
        try:
            self.symbolic_branch(phi.cond, side(phi.a), side(phi.b))
        finally:
            self._phi_splits -= 1
        return f.locals.pop(slot)

    def _call_phi(self, fn: V.Phi, args: list, kwargs: dict, node: Any) -> Any:
        """`f = g if c else h; f(x)`: call each under its path condition and merge the results (the side the
        path settles, alone)."""
        d = self.decide(fn.cond)
        if d is not None:
            return self.call_value(fn.a if d else fn.b, args, kwargs, node)
        f = self.frame
        results = []
        for cond, callee in ((fn.cond, fn.a), (E.bnot(fn.cond), fn.b)):
            f.pc.append(cond)
            try:
                results.append(self.call_value(callee, args, kwargs, node))
            except V.PathAbort as exc:
                self.unrecorded_aborts += not exc.recorded
                results.append(V.ABORTED)
            finally:
                f.pc.pop()
        a, b = results
        if a is V.ABORTED and b is V.ABORTED:
            raise V.PathAbort(recorded=True)  # (each side counted above)
        if a is V.ABORTED:
            return b
        if b is V.ABORTED:
            return a
        return self.merge(fn.cond, a, b)

    def symbolic_instance(self, cls: V.ClassVal, prefix: str, depth: int = 0) -> Any:
        """An input object of a known class: each annotated field gets a symbolic value of its type (tensors
        as symbolic inputs named `cfg.field`, ints as input symbols, nested classes recursively); a field
        with a class-level default keeps it."""
        inst = V.Instance(self.heap, cls)
        self._field_module = cls.module
        for name, ann in annotated_fields(cls):
            default = cls.lookup(name)
            if f"{prefix}.{name}" in getattr(self, "_given", ()):
                # an optional tensor field the kernel dereferences (see none_default_used): given
                inst.attrs[name] = self._symbolic_field(f"{prefix}.{name}", ann, depth)
                continue
            if default is not V.MISSING and not isinstance(default, (V.FunctionVal, V.Builtin)):
                inst.attrs[name] = default
                continue
            inst.attrs[name] = self._symbolic_field(f"{prefix}.{name}", ann, depth)
        self._init_fields(cls, inst, prefix, depth)
        return inst

    def _init_fields(self, cls: V.ClassVal, inst: V.Instance, prefix: str, depth: int) -> None:
        """The attributes the class's own `__init__` assigns and no annotation declares (`self.n_tiles = rows //
        tile`): that `__init__` run on symbolic arguments of its parameters' types, so that they exist (the
        compiler reads the instance it is given, whose `__init__` ran) and keep their relations to the
        others.  Left out when `__init__` is not followed."""
        init = cls.lookup("__init__")
        if not isinstance(init, V.FunctionVal) or depth >= 3 or self.kb is None:
            return
        assigned = [t.attr for n in ast.walk(init.node) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"]
        missing = [a for a in dict.fromkeys(assigned) if a not in inst.attrs]
        if not missing:
            return
        scratch = V.Instance(self.heap, cls)
        a = init.node.args
        params = (a.posonlyargs + a.args)[1:]
        first_default = len(params) - len(init.defaults)
        args: list = [scratch]
        for i, p in enumerate(params):
            args.append(init.defaults[i - first_default] if i >= first_default else
                        self._symbolic_field(f"{prefix}.{p.arg}", p.annotation, depth + 1))
        try:
            self.invoke(init, args, {}, None)
        except (V.NotUnderstood, V.PathAbort):
            return
        for name in missing:
            if name in scratch.attrs:
                inst.attrs[name] = scratch.attrs[name]

    def _symbolic_field(self, label: str, ann: ast.AST | None, depth: int) -> Any:
        text = ast.unparse(ann) if ann is not None else ""
        if isinstance(ann, ast.Subscript) and ast.unparse(ann.value).split(".")[-1] == "Optional":
            ann, text = ann.slice, ast.unparse(ann.slice)
        base = text.split("[")[0].split(".")[-1]
        kb = self.kb
        if kb is None:
            return V.Unknown(label)
        if base == "int":
            return kb.new_sym(label, "config")
        if base == "bool":
            return kb.new_bsym(label)
        if base == "float":
            return V.OPAQUE_FLOAT
        if base == "dtype":
            return V.DTypeVal(f"?{label}")
        if base in ("ndarray", "NkiTensor", "Tensor", "tensor", "tile"):
            rank = getattr(self, "_rank_overrides", {}).get(label, 2)
            shape = tuple(kb.new_sym(f"{label}.shape[{i}]", "shape", 1) for i in range(max(rank, 1)))
            tv = self.new_tensor(label, ir.SHARED_HBM if kb.dialect == ir.B2 else ir.HBM, shape, None, None, "param")
            self._guessed_ranks[tv.tensor.id] = label
            return tv
        if depth < 3 and ann is not None:
            v = self._eval_in_module(ann, getattr(self, "_field_module", None))
            if isinstance(v, V.ClassVal):
                return self.class_input(v, label, "config", depth + 1)
        return V.Unknown(f"{label} (an input field of type {text or 'unknown'})")

    def class_input(self, cls: V.ClassVal, label: str, role: str, depth: int = 0) -> Any:
        """An input annotated with a user class: one of its members for an enum, else an instance with
        symbolic fields."""
        if cls.is_enum:
            return self.enum_choice(cls, label, role)
        return self.symbolic_instance(cls, label, depth)

    def enum_choice(self, cls: V.ClassVal, label: str, role: str) -> Any:
        """An input of an enum type: any of its members, chosen by an input symbol numbering them (a Phi
        chain), so that `mode == Mode.A` is a condition on the input instead of a value the analysis cannot
        compare."""
        members = [v for v in cls.attrs.values() if isinstance(v, V.EnumMember)]
        if not members or len(members) > MAX_ENUM_CHOICE or self.kb is None:
            return V.Unknown(f"{label} (an input of type {cls.name})")
        if len(members) == 1:
            return members[0]
        k = self.kb.new_sym(f"{label} (member number of {cls.name})", role, 0, len(members))
        value: Any = members[-1]
        for i in range(len(members) - 2, -1, -1):
            value = V.Phi(E.eq(k, i), members[i], value)
        return value

    def _eval_in_module(self, node: ast.AST, mod: Any) -> Any:
        from .interp import Frame

        if mod is None:
            return None
        frame = Frame.of_module(mod)
        saved = self.frames
        self.frames = [frame]
        try:
            return self.eval(node)
        except Exception:  # noqa: BLE001 - an annotation we cannot evaluate says nothing
            return None
        finally:
            self.frames = saved

    def _dataclass_init(self, cls: V.ClassVal, inst: V.Instance, args: list, kwargs: dict, node: Any) -> None:
        fields = cls.dataclass_fields
        if fields is None:
            for c in cls.mro():
                if c.dataclass_fields is not None:
                    fields = c.dataclass_fields
                    break
        kwargs = dict(kwargs)
        exprs = None  # the call's argument expressions, for a field given a None (see note_none_attr)
        for i, (name, default) in enumerate(fields or []):
            if i < len(args):
                v = args[i]
            elif name in kwargs:
                v = kwargs.pop(name)
            elif isinstance(default, FieldSpec):
                if default.factory is not V.MISSING:
                    v = self.call_value(default.factory, [], {}, node)
                elif default.default is not V.MISSING:
                    v = default.default
                else:
                    raise V.NotUnderstood(f"{cls.name}() is missing field {name!r}", node)
            elif default is not V.MISSING:
                v = default
            elif _nkiobject_based(cls):
                # The NKI compiler builds an nl.NKIObject from its keywords (NKIObject.__init__(**kwargs)); a
                # field not given is left unset, and only reading it is an error (nki-library's mlp_tkg
                # constants leave a field that nothing reads unset).
                continue
            else:
                raise V.NotUnderstood(f"{cls.name}() is missing field {name!r}", node)
            inst.attrs[name] = v
            if v is None and self.kb is not None:
                if exprs is None:
                    exprs = self._arg_exprs(len(args), node)
                self.note_none_attr(inst, name, v, exprs[0][i] if i < len(args) else exprs[1].get(name))
        if kwargs:
            if not _nkiobject_based(cls):
                raise V.NotUnderstood(f"{cls.name}() got an unexpected keyword argument {next(iter(kwargs))!r} (it is "
                                      "not a field: a field of a dataclass is an annotated class attribute)", node)
            # nl.NKIObject.__init__(**kwargs) sets one attribute per keyword: a dataclass on it whose class
            # attributes are not annotated (`section_offset = None`) is built that way.  (They were dropped, and
            # every use of such an attribute met its class default, None: attention_cte's SectionParams)
            inst.attrs.update(kwargs)

    # ------------------------------------------------------------------ attributes
    def get_attr(self, obj: Any, name: str, node: ast.AST | None = None) -> Any:
        if isinstance(obj, V.Instance):
            return self._instance_attr(obj, name, node)
        if isinstance(obj, V.ModuleVal):
            return self._module_attr(obj, name, node)
        if isinstance(obj, V.ApiVal):
            return self.api_attr(obj, name, node)
        if isinstance(obj, V.TensorVal):
            return self.tensor_attr(obj, name, node)
        if isinstance(obj, V.ClassVal):
            return self._class_attr(obj, name, node)
        if isinstance(obj, V.ExternalVal):
            return self.external_attr(obj, name, node)
        if isinstance(obj, V.HostArray):
            return self.host_attr(obj, name, node)
        if isinstance(obj, V.Unknown):
            return V.Unknown(f"{obj.reason}.{name}", obj.span)
        if isinstance(obj, V.BufferVal) and name == "view":
            # the Beta-2 tracer's memory objects: `sbuf.view(dtype=..., shape=..., name=...)` allocates a tensor
            # there, as nl.ndarray(shape, dtype, buffer=...) does
            def view(it: Any, args: list, kwargs: dict, node: ast.AST | None, buf: V.BufferVal = obj) -> Any:
                args = list(args[1:])  # (the buffer itself, bound as the method's object)
                dtype = kwargs.pop("dtype", args.pop(0) if args else None)
                shape = kwargs.pop("shape", args.pop(0) if args else None)
                return it.call_api(V.ApiVal("language.ndarray", ir.B2), [shape, dtype], {"buffer": buf, **kwargs},
                                   node)
            return V.BoundMethod(V.Builtin("view", view), obj)
        if isinstance(obj, V.Phi):
            return self._on_phi(obj, lambda x: self.get_attr(x, name, node))
        if isinstance(obj, SuperProxy):
            return self._super_attr(obj, name, node)
        if isinstance(obj, V.EnumMember):
            if name == "name":
                return obj.name
            if name == "value":
                return obj.value
            m = obj.cls.lookup(name)
            if isinstance(m, V.FunctionVal):
                if m.is_property:
                    return self.invoke(m, [obj], {}, node)
                return V.BoundMethod(m, obj)
            raise V.NotUnderstood(f"enum member has no attribute {name!r}", node)
        if isinstance(obj, V.FunctionVal):
            if name == "__name__":
                return obj.name
            if name in ("setter", "getter", "deleter"):
                return V.Builtin("identity_decorator", lambda it, a, k, n: a[0] if a else None)
            raise V.NotUnderstood(f"function attribute {name!r}", node)
        if isinstance(obj, V.KernelVal):
            if name == "__name__":
                return obj.func.name
            if name in ("func", "__wrapped__"):
                return obj.func
            return V.Unknown(f"kernel attribute {name}")
        if isinstance(obj, V.IndexGrid) and name in ("shape", "ndim"):
            # an index expression's broadcast shape (`nl.arange(n)[:, None].shape` is (n, 1))
            return tuple(obj.shape) if name == "shape" else len(obj.shape)
        if isinstance(obj, V.GridTuple):
            idx = {"p": 0, "x": 1, "y": 2, "z": 3}.get(name)
            if idx is not None and idx < len(obj.grids):
                return obj.grids[idx]
        method = self.builtin_method(obj, name)
        if method is not None:
            return method
        if isinstance(obj, V.DTypeVal) and name == "itemsize":
            return self.itemsize_of(obj.name)  # numpy's `x.dtype.itemsize`
        if isinstance(obj, V.DTypeVal) and name in ("min", "max", "eps", "tiny"):
            return _dtype_limit(obj.name, name)  # Beta 1 `nl.fp32.min`, like `finfo(dtype).min`
        if isinstance(obj, V.DTypeVal) and name == "type":
            # `np.dtype(np.float32).type(0.5)`: the scalar type, a constant of that dtype
            return V.Builtin(f"{obj.name}.type", _dtype_scalar(obj.name))
        if obj is None:
            self.none_default_used(node)
            raise V.NotUnderstood(f"attribute {name!r} of None: the value is None on this path (an optional input "
                                  "left at its default None is analysed as None; to analyse the kernel with it, "
                                  "give it a shape: --shape KERNEL.PARAM=DxD)", node)
        raise V.NotUnderstood(f"attribute {name!r} of a {V.describe(obj)}", node)

    def _instance_attr(self, obj: V.Instance, name: str, node: ast.AST | None) -> Any:
        if name in obj.attrs:
            return obj.attrs[name]
        v = obj.cls.lookup(name)
        if v is V.MISSING:
            if name == "__class__":
                return obj.cls
            if name == "__dict__":
                return V.PyDict(self.heap, obj.attrs)
            ga = obj.cls.lookup("__getattr__")
            if isinstance(ga, V.FunctionVal):
                return self.invoke(ga, [obj, name], {}, node)
            external = next((b for c in obj.cls.mro() for b in c.bases if isinstance(b, V.ExternalVal)), None)
            if external is not None:
                # inherited from a class outside the analysed code (`self.assertTrue` of a unittest.TestCase)
                return V.ExternalVal(f"{external.path}.{name}")
            raise V.NotUnderstood(f"{obj.cls.name} object has no attribute {name!r}", node)
        return self._bind(v, obj, obj.cls, node)

    def _bind(self, v: Any, obj: Any, cls: V.ClassVal, node: ast.AST | None) -> Any:
        if isinstance(v, V.FunctionVal):
            if v.is_property:
                return self.invoke(v, [obj], {}, node)
            if v.is_static:
                return v
            if v.is_classmethod:
                return V.BoundMethod(v, cls)
            return V.BoundMethod(v, obj)
        return v

    def _class_attr(self, cls: V.ClassVal, name: str, node: ast.AST | None) -> Any:
        if name == "__name__":
            return cls.name
        v = cls.lookup(name)
        if v is V.MISSING:
            if cls.is_enum and name == "__members__":
                return V.PyDict(self.heap, {k: m for k, m in cls.attrs.items() if isinstance(m, V.EnumMember)})
            raise V.NotUnderstood(f"class {cls.name} has no attribute {name!r}", node)
        if isinstance(v, V.FunctionVal) and v.is_classmethod:
            return V.BoundMethod(v, cls)
        return v

    def _super_attr(self, sp: SuperProxy, name: str, node: ast.AST | None) -> Any:
        mro = sp.obj.cls.mro() if isinstance(sp.obj, V.Instance) else sp.cls.mro()
        after = False
        for c in mro:
            if after and name in c.attrs:
                return self._bind(c.attrs[name], sp.obj, c, node)
            if c is sp.cls:
                after = True
        if name in ("__init__", "__post_init__"):
            return V.Builtin("object_init", lambda it, a, k, n: None)
        raise V.NotUnderstood(f"super() has no attribute {name!r}", node)

    def _module_attr(self, mod: V.ModuleVal, name: str, node: ast.AST | None) -> Any:
        if name in mod.namespace:
            return mod.namespace[name]
        sub = self.import_project_submodule(mod, name)
        if sub is not None:
            return sub
        raise V.NotUnderstood(f"module {mod.name} has no attribute {name!r}", node)

    def set_attr(self, obj: Any, name: str, value: Any, node: ast.AST | None) -> None:
        if isinstance(obj, V.Instance):
            obj.set(name, value)
        elif isinstance(obj, V.ClassVal):
            obj.attrs[name] = value
        elif isinstance(obj, V.ModuleVal):
            obj.namespace[name] = value
        elif isinstance(obj, (V.Unknown, V.ExternalVal, V.HostArray)):
            return
        elif isinstance(obj, V.TensorVal):
            raise V.NotUnderstood(f"setting attribute {name!r} of a tensor", node)
        else:
            raise V.NotUnderstood(f"setting attribute {name!r} of a {V.describe(obj)}", node)

    # ------------------------------------------------------------------ items
    def get_item(self, obj: Any, key: Any, node: ast.AST | None) -> Any:
        if isinstance(obj, V.TensorVal):
            keys = key if isinstance(key, tuple) else (key,)
            at = next((i for i, k in enumerate(keys) if isinstance(k, V.Phi) and not _int_choices(k)), None)
            if at is not None:
                # an index chosen by a symbolic condition (`nl.arange(f)[None, :] if f > 1 else 0`): each
                # choice under its condition
                def with_choice(k: Any) -> Any:
                    chosen = keys[:at] + (k,) + keys[at + 1:]
                    return self.get_item(obj, chosen if isinstance(key, tuple) else chosen[0], node)
                return self._on_phi(keys[at], with_choice)
            return self.tensor_getitem(obj, key, node)
        if isinstance(obj, (tuple, V.PyList, V.SymSeq, str)):
            return self.seq_getitem(obj, key, node)
        if isinstance(obj, V.PyDict):
            k = self.hashable_key(key)
            if k is not None and k in obj.items:
                return obj.items[k]
            # (a table of sizes or limits; a key the table lacks raises KeyError, so those inputs are not
            # admissible.  A table of dtypes, whose entries would be a dtype chosen by a condition, is left not
            # understood)
            got = builtins.table_lookup(self, obj.items, k, V.MISSING, "a dict lookup with a key that is not known")
            if got is not V.MISSING:
                return got
            if k is None:
                raise V.NotUnderstood("a dict lookup with a key that is not known", node)
            if isinstance(key, (E.Expr, E.BExpr)):
                raise V.NotUnderstood("a dict lookup with a symbolic key", node)
            raise V.NotUnderstood(f"dict has no key {key!r}", node)
        if isinstance(obj, V.IndexGrid):
            return self.grid_getitem(obj, key, node)
        if isinstance(obj, (E.BExpr, bool)) and self.mask_reshape_key(key):
            return self.mask_getitem(obj, key, node)
        if isinstance(obj, V.MGridVal):
            return self.mgrid_getitem(obj, key, node)
        if isinstance(obj, V.KernelVal):
            grid = key if isinstance(key, tuple) else (key,)
            return V.KernelVal(obj.func, grid=grid, via=obj.via, dialect=obj.dialect)
        if isinstance(obj, V.FunctionVal) and obj.kernel:
            # a kernel behind a decorator the analysis cannot follow, launched on a grid (see entry._kernels_of);
            # its dialect is the module's, found where it runs (entry.run_kernel)
            return V.KernelVal(obj, grid=key if isinstance(key, tuple) else (key,))
        if isinstance(obj, V.GridTuple):
            return self.seq_getitem(obj.grids, key, node)
        if isinstance(obj, V.HostArray):
            return self.host_getitem(obj, key, node)
        if isinstance(obj, V.Instance):
            m = obj.cls.lookup("__getitem__")
            if m is not V.MISSING:
                return self.call_value(m, [obj, key], {}, node)
            raise V.NotUnderstood(f"{obj.cls.name} object is not subscriptable", node)
        if isinstance(obj, (V.ClassVal, V.ExternalVal, V.Builtin)):
            return obj  # typing generics: Optional[...], Tuple[int, ...]
        if isinstance(obj, V.Unknown):
            return V.Unknown(f"item of {obj.reason}", obj.span)
        if isinstance(obj, V.Phi):
            return self._on_phi(obj, lambda x: self.get_item(x, key, node))
        if isinstance(obj, V.ApiVal):
            return self.api_getitem(obj, key, node)
        if obj is None:
            self.none_default_used(node)
        raise V.NotUnderstood(f"subscripting a {V.describe(obj)}", node)

    def none_default_used(self, node: ast.AST | None) -> None:
        """`inps.bias.dtype` where `bias` is a kernel input left at its default None (the dereferenced value is
        named like such an input, directly or as a field carrying it, or that input is the only one left at
        None).  A path that dereferences None fails at trace time: on every path, the kernel is only meant for
        launches that pass the input, and is analysed again with it given; on some paths, those paths are
        dropped from this analysis and another one with the input given follows them."""
        base = getattr(node, "value", None)
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        field = getattr(self, "_optional_fields", {}).get(name) if isinstance(base, ast.Attribute) else None
        if name not in self._none_defaults and field is None:
            # the input's None under another name: a helper's parameter, a field of an object built from it
            name = self.none_origin(base) or name
        if name not in self._none_defaults and field is not None:
            # `inps.down_scale.dtype` where an object input of the kernel has an optional tensor field of that
            # name left at None (`quant: Optional[QuantConfig] = None`): the input is given with all of its
            # optional tensor fields at once, as for an optional input dereferenced under its own name (a launch
            # that passes the object passes its tensors: one run for moe_cte's two scales, not one per scale)
            param, _ = field
            wanted = {param} | {f"{p}.{f}" for p, f in self._optional_fields.values() if p == param}
            wanted -= self._given
            if not wanted or len(self._given | wanted) > V.MAX_GIVEN:
                return
            retry = sorted(wanted)[-1]
        else:
            if name not in self._none_defaults:
                if len(self._none_defaults) != 1:
                    return
                name = next(iter(self._none_defaults))  # under another name (`b = bias`), but no other candidate
            wanted, retry = {name}, name
        if any(f.pc for f in self.frames):
            # only on some paths (`if use_bias: bias.dtype`): a launch without the input that takes this path
            # fails while tracing, so the path is not followed here; the kernel is analysed with the input given
            # as well (see run_with_retries)
            self._none_derefs |= wanted
            for w in wanted:
                self._deref_spans.setdefault(w, self.span(node))
            raise V.PathAbort()
        if not self._no_retry:
            raise V.GivenRetry(retry)

    def seq_getitem(self, obj: Any, key: Any, node: ast.AST | None) -> Any:
        if isinstance(obj, V.PyList):
            self.note_read(obj, last=isinstance(key, int) and key == -1 and obj.tail is None)
        if isinstance(obj, V.SymSeq):
            obj = V.PyList(self.heap, [], obj)
        is_tuple = isinstance(obj, tuple)
        if isinstance(key, slice):
            if isinstance(obj, V.GuessedShape) and isinstance(key.start, int) and key.start < -len(obj):
                # `x.shape[-3:]` of a guessed rank 2: the kernel reads at least three dimensions
                self.rank_mismatch(obj.param, -key.start + obj.dropped, at_least=True)
            out = self._seq_slice(obj, key, node)
            if isinstance(obj, V.GuessedShape) and isinstance(out, tuple) and key.step is None:
                # `x.shape[1:]` / `x.shape[:-1]` of a guessed rank: a comparison with another length still
                # corrects the guess, by the dimensions the slice leaves out
                start, stop = key.start, key.stop
                if isinstance(start, int) and start >= 0 and stop is None:
                    return V.guessed(out, obj.param, obj.dropped + start)
                if start is None and isinstance(stop, int) and stop < 0:
                    return V.guessed(out, obj.param, obj.dropped - stop)
            return out
        if isinstance(obj, str):
            if isinstance(key, int):
                return obj[key] if -len(obj) <= key < len(obj) else V.Unknown("string index")
            return V.Unknown("string index")
        k = self.as_int(key, "a sequence index")
        if isinstance(obj, V.GuessedShape) and isinstance(k, int) and not -len(obj) <= k < len(obj):
            self.rank_mismatch(obj.param, k + 1 if k >= 0 else -k, at_least=True)
        items = list(obj) if is_tuple else obj.items
        tail = None if is_tuple else obj.tail
        n = len(items)
        if tail is None:
            if isinstance(k, int):
                if -n <= k < n:
                    return items[k]
                self._index_check(E.FALSE, f"index {k} is out of range for a sequence of length {n}", node)
                raise V.PathAbort()
            if n == 0:
                self._index_check(E.FALSE, f"index {E.short(k)} of an empty sequence", node)
                raise V.PathAbort()
            self._index_check(E.band(E.ge(k, -n), E.lt(k, n)), f"index {E.short(k)} of a sequence of length {n}", node)
            return self._select(k, items, node)
        if V.guarded(tail):
            raise V.NotUnderstood(V.GUARDED_USE, node)
        length = E.lower(E.add(n, tail.length))
        if isinstance(k, int) and k < 0:
            k = E.lower(E.add(length, k))
        if isinstance(k, int) and k < n:
            return items[k]
        self._index_check(E.band(E.ge(k, 0), E.lt(k, length)),
                          f"index {E.short(E.lift(k))} of a sequence of length {E.short(E.lift(length))}", node)
        if n and not isinstance(k, int):
            if self.decide(E.ge(k, n)) is not True:
                raise V.NotUnderstood("indexing a partly summarised list with a symbolic index", node)
        return self.subst_value(tail.elem, {tail.var: E.lift(E.sub(k, n))})

    def _select(self, k: E.Expr, items: list, node: ast.AST | None) -> Any:
        if len(items) > 16:
            raise V.NotUnderstood(f"indexing a {len(items)}-item list with a symbolic index", node)
        out = items[-1]
        for i in range(len(items) - 2, -1, -1):
            out = self.merge(E.eq(k, i), items[i], out)
        return out

    def _index_check(self, cond: E.BExpr, message: str, node: ast.AST | None) -> None:
        if self.kb is not None and cond != E.TRUE:
            self.kb.add_check(self.make_check("NKI101", cond, message, node))

    def _seq_slice(self, obj: Any, key: slice, node: ast.AST | None) -> Any:
        is_tuple = isinstance(obj, tuple)
        items = list(obj) if is_tuple else list(obj.items)
        tail = None if is_tuple else obj.tail
        parts = [key.start, key.stop, key.step]
        if tail is None and all(p is None or isinstance(p, int) for p in parts):
            out = items[slice(*parts)]
            return tuple(out) if is_tuple else V.PyList(self.heap, out)
        if V.guarded(tail):
            raise V.NotUnderstood(V.GUARDED_USE, node)
        if tail is not None and not items and (key.step is None or key.step == 1):
            n = tail.length
            lo = 0 if key.start is None else self.as_int(key.start)
            hi = n if key.stop is None else self.as_int(key.stop)
            if isinstance(hi, int) and hi < 0:
                hi = E.lower(E.add(n, hi))
            if isinstance(lo, int) and lo < 0:
                lo = E.lower(E.add(n, lo))
            hi = E.lower(E.minimum(hi, n))
            k = self.fresh_seq_var()
            seq = V.SymSeq(k, E.lower(E.maximum(0, E.sub(hi, lo))),
                           self.subst_value(tail.elem, {tail.var: E.lift(E.add(k, lo))}), tail.is_tuple)
            return V.PyList(self.heap, [], seq)
        if tail is None and (key.step is None or key.step == 1):
            lo = 0 if key.start is None else self.as_int(key.start)
            hi = len(items) if key.stop is None else self.as_int(key.stop)
            if isinstance(lo, int) and isinstance(hi, int):
                out = items[lo:hi]
                return tuple(out) if is_tuple else V.PyList(self.heap, out)
            # a window of a fixed length at a symbolic start inside the list (`tiles[4*h:4*h + 4]` in a loop over
            # h): each element is the item its position selects, as `tiles[4*h + j]` would be
            length = E.lower(E.sub(hi, lo))
            if isinstance(length, int) and 0 <= length <= len(items) and \
                    self.decide(E.band(E.ge(lo, 0), E.le(hi, len(items)))) is True:
                out = [self._select(E.lift(E.add(lo, j)), items, node) for j in range(length)]
                return tuple(out) if is_tuple else V.PyList(self.heap, out)
        raise V.NotUnderstood("slicing a Python sequence with symbolic bounds", node)

    def set_item(self, obj: Any, key: Any, value: Any, node: ast.AST | None) -> None:
        if isinstance(obj, V.TensorVal):
            self.tensor_setitem(obj, key, value, node)
            return
        if isinstance(obj, V.PyDict):
            k = self.hashable_key(key)
            if k is None:
                raise V.NotUnderstood("a dict key whose value is not known", node)
            obj.set(k, value)
            return
        if isinstance(obj, V.PyList):
            if obj.tail is None and isinstance(key, int) and -len(obj.items) <= key < len(obj.items):
                items = list(obj.items)
                items[key] = value
                obj.set_items(items)
                return
            if obj.tail is None and V.is_int(key) and not isinstance(key, bool):
                k = self.as_int(key)
                if not isinstance(k, int):
                    n = len(obj.items)
                    self._index_check(E.band(E.ge(k, 0), E.lt(k, n)),
                                      f"assigning into a list of {n} items at index {E.short(k)}, outside 0..{n - 1} "
                                      f"(Python raises IndexError past the end; a negative index is not followed)",
                                      node)
                    items = [self.merge(E.eq(k, i), value, x) for i, x in enumerate(obj.items)]
                    obj.set_items(items)
                    return
            raise V.NotUnderstood("assigning into a list at an index that is not known", node)
        if isinstance(obj, V.Instance):
            m = obj.cls.lookup("__setitem__")
            if m is not V.MISSING:
                self.call_value(m, [obj, key, value], {}, node)
                return
        if isinstance(obj, (V.Unknown, V.HostArray)):
            return
        raise V.NotUnderstood(f"item assignment on a {V.describe(obj)}", node)

    # ------------------------------------------------------------------ imports
    def do_import(self, st: ast.Import) -> None:
        for alias in st.names:
            if alias.asname:
                self.store_name(alias.asname, self.import_value(alias.name))
            else:
                top = alias.name.split(".")[0]
                self.store_name(top, self.import_value(top))
                if "." in alias.name:
                    self.import_value(alias.name)  # loads and links submodules

    def import_value(self, dotted: str) -> Any:
        api = nki_api_path(dotted)
        if api is not None:
            path, dialect = api
            return V.ApiVal(path if path != "neuronxcc" else "neuronxcc", dialect)
        importer = self.parsed.get(self.frame.module.path)
        found = self.index.resolve(dotted, 0, importer)
        if found:
            mod = self.load_module(found)
            if mod is not None:
                self._link_parents(dotted, found)
                return mod
        return V.ExternalVal(dotted)

    def _link_parents(self, dotted: str, found: str) -> None:
        parts = dotted.split(".")
        importer = self.parsed.get(self.frame.module.path)
        prev = None
        for i in range(1, len(parts) + 1):
            path = self.index.resolve(".".join(parts[:i]), 0, importer)
            mod = self.load_module(path) if path else None
            if prev is not None and mod is not None:
                prev.namespace.setdefault(parts[i - 1], mod)
            prev = mod

    def do_import_from(self, st: ast.ImportFrom) -> None:
        modname = st.module or ""
        if st.level == 0:
            api = nki_api_path(modname)
            if api is not None:
                path, dialect = api
                for alias in st.names:
                    if alias.name == "*":
                        continue
                    if path == "neuronxcc":
                        v = V.ApiVal("", "beta1") if alias.name == "nki" else V.ExternalVal(f"neuronxcc.{alias.name}")
                    else:
                        v = self.api_attr(V.ApiVal(path, dialect), alias.name, st)
                    self.store_name(alias.asname or alias.name, v)
                return
            if modname in FRAMEWORK_NKI:
                for alias in st.names:
                    canon = FRAMEWORK_NKI[modname].get(alias.name)
                    v = V.ApiVal(canon, "beta1") if canon else V.ExternalVal(f"{modname}.{alias.name}")
                    self.store_name(alias.asname or alias.name, v)
                return
        importer = self.parsed.get(self.frame.module.path)
        found = self.index.resolve(modname, st.level, importer)
        mod = self.load_module(found) if found else None
        for alias in st.names:
            if alias.name == "*":
                if mod is not None:
                    for k, v in mod.namespace.items():
                        if not k.startswith("_"):
                            self.store_name(k, v)
                continue
            if mod is None:
                if st.level and self.kb is not None:
                    self.not_understood(f"cannot follow the relative import of {'.' * st.level}{modname}", st)
                v: Any = V.ExternalVal(f"{modname}.{alias.name}")
                if st.level:
                    v = V.Unknown(f"{alias.name} from {'.' * st.level}{modname}{MISSING_MODULE}")
            elif alias.name in mod.namespace:
                v = mod.namespace[alias.name]
            else:
                sub = self.import_project_submodule(mod, alias.name)
                v = sub if sub is not None else V.Unknown(f"{alias.name} (not found in {mod.name})")
            self.store_name(alias.asname or alias.name, v)

    def import_project_submodule(self, mod: V.ModuleVal, name: str) -> V.ModuleVal | None:
        import os

        if not mod.path.endswith("__init__.py"):
            return None
        d = os.path.dirname(mod.path)
        for cand in (os.path.join(d, name + ".py"), os.path.join(d, name, "__init__.py")):
            if self.index.sources.exists(cand):
                sub = self.load_module(cand)
                if sub is not None:
                    mod.namespace.setdefault(name, sub)
                return sub
        return None

    def load_module(self, path: str, as_main: bool = False) -> V.ModuleVal | None:
        from .interp import Frame

        if path in self.modules:
            return self.modules[path]
        pm = self.index.parse(path)
        if pm is None:
            return None
        name = "__main__" if as_main else pm.name
        mod = V.ModuleVal(pm.name, path, {"__name__": name, "__file__": path, "__package__": pm.package},
                          package=pm.package)
        self.modules[path] = mod
        self.parsed[path] = pm
        if pm.tree is None:
            return mod
        frame = Frame.of_module(mod)
        saved_kb, saved_frames, saved_tracks, saved_facts = self.kb, self.frames, self.loop_tracks, self.loop_facts
        self.kb, self.frames, self.loop_tracks, self.loop_facts = None, [frame], [], []
        steps = self.steps
        self.steps = 0
        try:
            for st in pm.tree.body:
                try:
                    self.exec_stmt(st)
                except (V.PathAbort, ReturnSignal, NoFallthrough):
                    break
                except Exception as exc:  # noqa: BLE001 - a module we cannot follow is opaque, not fatal
                    if type(exc).__name__ == "BudgetExceeded":
                        break
                    continue
        finally:
            self.kb, self.frames, self.loop_tracks, self.loop_facts = saved_kb, saved_frames, saved_tracks, saved_facts
            self.steps = steps
        return mod
