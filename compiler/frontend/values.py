"""Abstract values of the front end.

Known Python values are represented by themselves (int, float, bool, str,
None, tuple, slice).  Symbolic integers are `compiler.expr.Expr`, symbolic
booleans `BExpr`.  Everything else is one of the classes below.

Mutable values (lists, dicts, instances) live on a `Heap` that can take a
snapshot of an object the first time a trial (a branch, a loop body analysed
once) mutates it, so the interpreter can roll back or merge the two paths.
"""

from __future__ import annotations

from ..record import Record

import ast
from typing import Any

from .. import expr as E
from .. import ir


class Unknown:
    """A value the front end could not determine (third-party result, not-understood construct)."""

    __slots__ = ("reason", "span")

    def __init__(self, reason: str, span: ir.Span | None = None) -> None:
        self.reason = reason
        self.span = span

    def __repr__(self) -> str:
        return f"Unknown({self.reason})"


class SymFloat:
    """A float known only as num / den of integer expressions (den None: an opaque float)."""

    __slots__ = ("num", "den")

    def __init__(self, num: E.Expr | None, den: E.Expr | None) -> None:
        self.num, self.den = num, den


OPAQUE_FLOAT = SymFloat(None, None)


# ----------------------------------------------------------------------------- heap


class Trial:
    """Bookkeeping for one speculative execution (a branch or a loop body)."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch
        self.saved: dict = {}  # id(obj) -> (obj, snapshot before the first mutation)

    def touched(self) -> list:
        return [obj for obj, _ in self.saved.values()]


class Heap:
    def __init__(self) -> None:
        self.epoch = 0
        self.trials: list[Trial] = []

    def new_epoch(self) -> int:
        self.epoch += 1
        return self.epoch

    def begin(self) -> Trial:
        t = Trial(self.new_epoch())
        self.trials.append(t)
        return t

    def end(self, t: Trial) -> None:
        assert self.trials and self.trials[-1] is t
        self.trials.pop()
        # an enclosing trial must still be able to restore what this one touched
        if self.trials:
            outer = self.trials[-1]
            for key, (obj, snap) in t.saved.items():
                if obj.epoch < outer.epoch and key not in outer.saved:
                    outer.saved[key] = (obj, snap)

    def rollback(self, t: Trial) -> None:
        for obj, snap in t.saved.values():
            obj.restore(snap)

    def will_mutate(self, obj: "Mutable") -> None:
        for t in self.trials:
            if obj.epoch < t.epoch and id(obj) not in t.saved:
                t.saved[id(obj)] = (obj, obj.snapshot())


class Mutable:
    __slots__ = ("heap", "epoch", "__weakref__")

    def __init__(self, heap: Heap) -> None:
        self.heap = heap
        self.epoch = heap.epoch

    def _mut(self) -> None:
        if self.heap.trials:
            self.heap.will_mutate(self)

    def snapshot(self) -> Any:
        raise NotImplementedError

    def restore(self, snap: Any) -> None:
        raise NotImplementedError


class SymSeq:
    """A sequence summarised from a loop: element `elem` (which mentions `var`) for
    var in [0, length).  Built when a loop appends one value per iteration."""

    __slots__ = ("var", "length", "elem", "is_tuple")

    def __init__(self, var: E.Sym, length: E.IntLike, elem: Any, is_tuple: bool = False) -> None:
        self.var, self.length, self.elem, self.is_tuple = var, length, elem, is_tuple


class PyList(Mutable):
    __slots__ = ("items", "tail")

    def __init__(self, heap: Heap, items: list | None = None, tail: SymSeq | None = None) -> None:
        super().__init__(heap)
        self.items = list(items or [])
        self.tail = tail  # a summarised suffix, after `items`

    def snapshot(self) -> Any:
        return (list(self.items), self.tail)

    def restore(self, snap: Any) -> None:
        self.items, self.tail = list(snap[0]), snap[1]

    def append(self, v: Any) -> None:
        self._mut()
        if self.tail is not None:
            raise NotUnderstood("appending to a list whose length is symbolic")
        self.items.append(v)

    def set_items(self, items: list, tail: SymSeq | None = None) -> None:
        self._mut()
        self.items, self.tail = list(items), tail


class PyDict(Mutable):
    __slots__ = ("items",)

    def __init__(self, heap: Heap, items: dict | None = None) -> None:
        super().__init__(heap)
        self.items = dict(items or {})

    def snapshot(self) -> Any:
        return dict(self.items)

    def restore(self, snap: Any) -> None:
        self.items = dict(snap)

    def set(self, k: Any, v: Any) -> None:
        self._mut()
        self.items[k] = v

    def delete(self, k: Any) -> None:
        self._mut()
        del self.items[k]


class Instance(Mutable):
    __slots__ = ("cls", "attrs")

    def __init__(self, heap: Heap, cls: "ClassVal", attrs: dict | None = None) -> None:
        super().__init__(heap)
        self.cls = cls
        self.attrs = dict(attrs or {})

    def snapshot(self) -> Any:
        return dict(self.attrs)

    def restore(self, snap: Any) -> None:
        self.attrs = dict(snap)

    def set(self, name: str, v: Any) -> None:
        self._mut()
        self.attrs[name] = v


class Cell(Mutable):
    """A closure cell / a frame slot shared with nested functions."""

    __slots__ = ("value",)

    def __init__(self, heap: Heap, value: Any) -> None:
        super().__init__(heap)
        self.value = value

    def snapshot(self) -> Any:
        return self.value

    def restore(self, snap: Any) -> None:
        self.value = snap


# ----------------------------------------------------------------------------- code objects


class ModuleVal(Record):
    # dialect: the NKI dialect the module imports
    _fields = ('name', 'path', 'namespace', 'dialect', 'package')
    __slots__ = _fields
    _defaults = {'dialect': None, 'package': None}
    _identity = True


class FunctionVal(Record):
    # node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    # closure: name -> Cell
    # decorators: evaluated decorator values
    # kernel: decorated with nki.jit (or wrapped at a call site)
    # owner: the class a method was defined in (for super())
    _fields = ('name', 'node', 'module', 'closure', 'defaults', 'kwdefaults', 'qualname', 'decorators',
               'is_property', 'is_static', 'is_classmethod', 'kernel', 'owner')
    __slots__ = _fields
    _defaults = {'qualname': "", 'decorators': (), 'is_property': False, 'is_static': False,
                 'is_classmethod': False, 'kernel': False, 'owner': None}
    _identity = True


class BoundMethod(Record):
    # func: FunctionVal or builtin callable
    _fields = ('func', 'obj')
    __slots__ = _fields
    _identity = True


class ClassVal(Record):
    # dataclass_fields: [(name, has_default, default_value or factory)]
    _fields = ('name', 'bases', 'attrs', 'module', 'node', 'dataclass_fields', 'is_enum', 'frozen')
    __slots__ = _fields
    _defaults = {'node': None, 'dataclass_fields': None, 'is_enum': False, 'frozen': False}
    _identity = True

    def lookup(self, name: str) -> Any:
        for c in self.mro():
            if name in c.attrs:
                return c.attrs[name]
        return _MISSING

    def mro(self) -> list:
        out, seen = [], set()

        def walk(c: "ClassVal") -> None:
            if id(c) in seen:
                return
            seen.add(id(c))
            out.append(c)
            for b in c.bases:
                if isinstance(b, ClassVal):
                    walk(b)

        walk(self)
        return out

    def is_subclass(self, other: "ClassVal") -> bool:
        return any(c is other for c in self.mro())


_MISSING = object()
MISSING = _MISSING


class EnumMember(Record):
    _fields = ('cls', 'name', 'value')
    __slots__ = _fields
    _identity = True

    def __hash__(self) -> int:
        return hash((id(self.cls), self.name))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnumMember) and other.cls is self.cls and other.name == self.name


class Builtin(Record):
    """A callable implemented by the interpreter (Python builtins, math, numpy helpers)."""

    _fields = ('name', 'fn')
    __slots__ = _fields


class ApiVal(Record):
    """Something from the NKI API: a module (`nki.language`), a function, a constant or an enum member.

    `path` is canonical and dialect-free, e.g. "language.add", "isa.nc_matmul", "isa.engine.vector",
    "language.tile_size.pmax", "jit".
    """

    _fields = ('path', 'dialect')
    __slots__ = _fields

    @property
    def spec_name(self) -> str:
        return self.path.rsplit(".", 1)[-1]


class ExternalVal(Record):
    """A third-party module or object (numpy, torch, math, ...), by dotted name."""

    _fields = ('path',)
    __slots__ = _fields


class DTypeVal(Record):
    # name: canonical dtype name
    _fields = ('name',)
    __slots__ = _fields

    @property
    def spec_name(self) -> str:
        return self.name


class BufferVal(Record):
    # name: sbuf | psum | hbm | shared_hbm | private_hbm
    # of_input: the `.buffer` of a kernel input, which the launch decides: `hbm` on one core, `shared_hbm` when
    #   the cores of a launch share it (the simulator's LNC2); it compares equal to either
    _fields = ('name', 'of_input')
    __slots__ = _fields
    _defaults = {'of_input': False}

    @property
    def spec_name(self) -> str:
        return self.name


class ParDim(Record):
    """Beta-1 `nl.par_dim(n)` inside a shape."""

    _fields = ('size',)
    __slots__ = _fields


class RangeVal(Record):
    # kind: range | affine_range | sequential_range | static_range | tile_range | dynamic_range
    _fields = ('start', 'stop', 'step', 'kind', 'dialect')
    __slots__ = _fields
    _defaults = {'dialect': None}


class View(Record):
    """How a tensor value addresses its tensor's storage (elements, row-major flattening).

    Element v of the view lives at offset + sum(strides[j] * v[j]).  For Beta-1
    grid accesses the per-element address is carried by `offset`, which then
    mentions the iota variables listed in `iotas`.
    """

    # mask: Beta-1 mask attached by the consuming instruction
    # coords: the same view in index space, (frame, consts, rows): element v is at coordinate
    #   consts[k] + sum(rows[j][k] * v[j]) of a tensor of shape `frame` (None when not affine per axis)
    _fields = ('shape', 'offset', 'strides', 'iotas', 'dtype', 'dynamic', 'mask', 'coords')
    __slots__ = _fields
    _defaults = {'iotas': (), 'dtype': None, 'dynamic': False, 'mask': E.TRUE, 'coords': None}


class TensorVal(Record):
    # instance: Exprs: the allocation's iteration indices
    # checks: deferred Beta-1 subscripts (emitted when the consumer's mask is known)
    _fields = ('tensor', 'instance', 'view', 'checks')
    __slots__ = _fields
    _defaults = {'checks': ()}

    @property
    def shape(self) -> tuple:
        return self.view.shape

    @property
    def dtype(self) -> str | None:
        return self.view.dtype or self.tensor.dtype

    @property
    def buffer(self) -> str:
        return self.tensor.buffer


class IndexGrid(Record):
    """A Beta-1 index expression built from `nl.arange` / `nl.mgrid`: affine in iota variables,
    with a broadcast shape."""

    # iotas: ir.Iota
    _fields = ('expr', 'shape', 'iotas')
    __slots__ = _fields


class MGridVal(Record):
    """The `nl.mgrid` object (subscript it to get grids)."""

    _fields = ('dialect',)
    __slots__ = _fields


class GridTuple(Record):
    """What nl.mgrid[...] returns: a tuple of grids that also answers .p, .x, .y, .z."""

    _fields = ('grids',)
    __slots__ = _fields


class Register(Record):
    """A Beta-2 VirtualRegister: a runtime 32-bit value."""

    # known: value when it was set from a known immediate
    _fields = ('sym', 'known')
    __slots__ = _fields
    _defaults = {'known': None}


class Guarded(Record):
    """An item a loop appended only on some iterations (`if s < end: tiles.append(...)`): there when `cond`
    holds.  Only a loop over the list reads it (its body runs under `cond`); other uses are not modelled."""

    _fields = ('cond', 'value')
    __slots__ = _fields


GUARDED_USE = "a list a loop appended to under a condition, used other than by a loop over it"


def guarded(x: Any) -> bool:
    """A list (or the summarised sequence of one) whose items a loop appended under a condition (`Guarded`)."""
    seq = x.tail if isinstance(x, PyList) else x
    return isinstance(seq, SymSeq) and isinstance(seq.elem, Guarded)


class HostArray(Record):
    """A framework/numpy array at a launch site: only its shape and dtype matter."""

    # shape: None until a use fixes the rank
    _fields = ('shape', 'dtype', 'label')
    __slots__ = _fields
    _defaults = {'label': ""}
    _identity = True


class DecoratorFactory(Record):
    """`nki.jit(mode=..., platform_target=...)`: a decorator still waiting for its function."""

    _fields = ('path', 'dialect', 'kwargs')
    __slots__ = _fields
    _identity = True


class KernelVal(Record):
    """A kernel function (decorated or wrapped), possibly with a launch grid applied."""

    # target: platform_target given to the decorator
    _fields = ('func', 'grid', 'via', 'dialect', 'target')
    __slots__ = _fields
    _defaults = {'grid': None, 'via': "jit", 'dialect': None, 'target': None}
    _identity = True


class Phi(Record):
    """A value that is `a` when `cond` holds and `b` otherwise (after a symbolic branch)."""

    _fields = ('cond', 'a', 'b')
    __slots__ = _fields


class ContextManagerVal(Record):
    _fields = ('name',)
    __slots__ = _fields
    _identity = True


class GuessedShape(tuple):
    """The shape of an input whose rank the front end had to guess (it can be corrected by a retry); or a
    slice of one that leaves out `dropped` of its dimensions (`x.shape[1:]`, `x.shape[:-2]`)."""

    param: str = ""
    dropped: int = 0


KIND_INT = 0  # RankRetry ranks that re-type a parameter guessed to be a tensor
KIND_OBJECT = -1
KIND_FLOAT = -2  # a number passed where an instruction takes a scalar or a tile (`imm0=`, `operand0=`)


class RankRetry(Exception):
    """The kernel uses an input with another rank than guessed: analyse it again with `rank` (KIND_INT:
    it is an integer; KIND_OBJECT: an object such as a config)."""

    def __init__(self, param: str, rank: int, at_least: bool = False, soft: bool = False,
                 from_rank: int | None = None) -> None:
        super().__init__(f"{param} has rank {'at least ' if at_least else ''}{rank}")
        # at_least: the use shows only a lower bound (an index into the shape, a number of subscripts); the next
        # analysis keeps the rank a guess, so that a larger index corrects it again.  soft: only a hint (a call
        # that fails at the guessed rank); any use that says otherwise wins over it.  from_rank: the rank the run
        # gave the input, where it is not the default 2 a first retry assumes was tried (`a[i]` alone: 1)
        self.param, self.rank, self.at_least, self.soft, self.from_rank = param, rank, at_least, soft, from_rank


MAX_GIVEN = 6  # optional inputs (and optional fields of object inputs) analysed as given


class GivenRetry(Exception):
    """The kernel dereferences an optional input left at its default None (`bias.dtype`, `bias[0]`) on a
    path every launch takes, or every path with it left at None fails after testing it (`assert cos is not
    None`): analyse it again with that input given.  `why` says which, for the kernel's description."""

    def __init__(self, param: str, why: str = ir.GIVEN_DEREFERENCED) -> None:
        super().__init__(f"{param} is used as given")
        self.param, self.why = param, why


class OpaqueStr(str):
    """An f-string the analysis could not format (a field of a value it does not know as a Python number or
    string): usable as a message, equal to no other text decidably."""


class DTypeStr(str):
    """`str(x.dtype)` of an input whose dtype is unknown: comparing it with the name of a dtype asks the same
    question as comparing the dtype itself (`str(dt) == str(nl.float32)` is `dt == nl.float32`)."""

    dtype: Any = None


def dtype_str(dt: DTypeVal) -> DTypeStr:
    s = DTypeStr(dt.name)
    s.dtype = dt
    return s


class GuessedLen(int):
    """len() of a guessed shape: comparing it with another rank corrects the guess."""

    param: str = ""
    dropped: int = 0


def guessed_len(n: int, param: str, dropped: int = 0) -> GuessedLen:
    g = GuessedLen(n)
    g.param, g.dropped = param, dropped
    return g


def guessed(shape: tuple, param: str, dropped: int = 0) -> GuessedShape:
    g = GuessedShape(shape)
    g.param, g.dropped = param, dropped
    return g


class NotUnderstood(Exception):
    """The front end met a construct it does not model (becomes NKI902)."""

    def __init__(self, message: str, node: ast.AST | None = None, silent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.node = node
        self.silent = silent  # a consequence of a construct already reported


class PathAbort(Exception):
    """The current path cannot continue (raise, assert False): the path is infeasible.  `recorded`: the inputs
    that reach it are excluded by an assumption made as it was raised (Interp.abort_path), or every path it
    stands for was counted where it ended (see Interpreter.narrow_implied)."""

    def __init__(self, recorded: bool = False) -> None:
        super().__init__()
        self.recorded = recorded


ABORTED = object()  # marks the branch of a forked call whose path aborted


def is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, E.Expr)


def is_known_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def describe(v: Any) -> str:
    """A short, user-facing name for the kind of a value."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, E.Expr):
        return "symbolic int"
    if isinstance(v, E.BExpr):
        return "symbolic bool"
    if isinstance(v, TensorVal):
        return "tensor"
    if isinstance(v, (PyList, SymSeq)):
        return "list"
    if isinstance(v, PyDict):
        return "dict"
    if isinstance(v, Instance):
        return f"{v.cls.name} instance"
    if isinstance(v, Unknown):
        return "unknown value"
    return type(v).__name__

