"""The kernel IR: what the front end understood a kernel to do.

Plain frozen dataclasses.  Every node that came from source carries a `Span`
that is absolute in its file (helpers in other modules keep their own file).
Symbolic quantities are `compiler.expr` expressions; a shape entry, an index
or a bound is an `Expr` (constants are `Const`).

The IR records facts, not verdicts: tensors and their allocations, loops,
every subscript the kernel evaluated (with the indices as written), every
instruction with its operands (with the canonical linear access pattern),
and the assumptions (asserts) the kernel states.  Analyses in `nki_verify`
turn these into proof obligations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from . import expr as E

SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM = "sbuf", "psum", "hbm", "shared_hbm", "private_hbm"
ON_CHIP = (SBUF, PSUM)
HBM_KINDS = (HBM, SHARED_HBM, PRIVATE_HBM)
# the memory names the Beta-2 tracer gives kernel code (`sbuf.view(dtype=..., shape=...)`) and their buffers
TRACER_BUFFERS = {"sbuf": SBUF, "psum": PSUM, "hbm": HBM, "shared_hbm": SHARED_HBM, "private_hbm": PRIVATE_HBM}
# the decorators and wrappers that make a function an NKI kernel (`@nki.jit`, `@nki.benchmark(...)`,
# `nki.simulate(f)`), by their last name
KERNEL_WRAPPERS = frozenset({"jit", "baremetal", "benchmark", "profile", "trace", "nki_jit", "simulate"})
# why an optional input (default None) is analysed as given (Kernel.given_why)
GIVEN_DEREFERENCED = "dereferenced by the kernel"
GIVEN_NONE_FAILS = "every path with it left at None fails"
GIVEN_TESTED = "tested against None by the kernel"  # (the run with it at None is kept as well)


def given_groups(given: tuple, given_why: tuple) -> list:
    """[(why, names)] of the optional inputs analysed as given, in order of first appearance (a missing why is
    GIVEN_DEREFERENCED): the kernel's description and its findings' notes say each reason once."""
    whys = tuple(given_why) + (GIVEN_DEREFERENCED,) * (len(given) - len(given_why))
    return [(why, [p for p, w in zip(given, whys) if w == why]) for why in dict.fromkeys(whys)]


def given_notes(given: tuple, given_why: tuple) -> list:
    """The notes a finding of a run with optional inputs analysed as given carries, one per reason: the user
    may never pass them, and a launch without them does not take this run's paths."""
    out = []
    for why, names in given_groups(given, given_why):
        one = len(names) == 1
        it, they = ("it", "it is") if one else ("them", "they are")
        reason = (f"every path with {it} left at None fails (an assert or raise), so launches pass {it}"
                  if why == GIVEN_NONE_FAILS else
                  f"the kernel tests {it} against None, and this run follows the paths where {they} given "
                  f"(another, those where {they} None)"
                  if why == GIVEN_TESTED else
                  f"the kernel dereferences {it}, so a launch without {it} fails while tracing")
        out.append(f"analysed with the optional input{'' if one else 's'} {', '.join(names)} given: {reason}")
    return out


B1, B2 = "beta1", "beta2"  # neuronxcc.nki vs nki


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based lines and 1-based columns (characters), end exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    # the helper calls that led here from the kernel, outermost first (not part of the span's identity)
    via: tuple = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class SymInfo:
    """What a symbol stands for, for counterexamples and `nki-verify ir`."""

    sym: E.Sym
    role: str  # shape | scalar | loop | pid | grid | iota | register | unknown
    label: str  # e.g. "a_input.shape[0]", "i", "program_id(0)"
    lo: E.Expr | None = None  # inclusive lower bound, when the role implies one
    hi: E.Expr | None = None  # exclusive upper bound


@dataclass(frozen=True, slots=True)
class Loop:
    id: int
    var: E.Sym
    start: E.Expr
    stop: E.Expr
    step: E.Expr
    kind: str  # range | affine_range | sequential_range | static_range | tile_range | dynamic_range
    span: Span  # the loop header (`for i in nl.affine_range(n)`)
    parent: int | None
    dialect: str
    iter_func: Span | None = None  # the iterator's callee (`nl.affine_range`), for fixes
    iter_text: str = ""  # its source text
    range_text: str = ""  # the source text of the whole iterator (`nl.affine_range(n_tiles)`), for messages
    body: Span | None = None  # the first statement of the body (where an allocation can be moved)
    # symbols for values the loop changes in a way not followed (an offset bumped by a size that varies): each
    # stands for its value at the start of one iteration, so two iterations (or two program instances) have
    # their own copies
    carried: tuple = ()


@dataclass(frozen=True, slots=True)
class Ctx:
    """Where a node sits: enclosing loops (outermost first) and the path condition."""

    loops: tuple[int, ...] = ()
    path: E.BExpr = E.TRUE
    # the path's branches alone, when the path also has the kernel's assertions (and branches that raise, not
    # taken): what a later point reached without aborting knows of this one's path (None: the whole path)
    held: E.BExpr | None = None


@dataclass(frozen=True, slots=True)
class Tensor:
    id: int
    name: str
    buffer: str
    shape: tuple[E.Expr, ...]
    dtype: str | None  # None when unknown
    span: Span
    kind: str  # param | ndarray | result | alias | constant
    loops: tuple[int, ...] = ()  # loops enclosing the allocation: one instance per iteration
    address: tuple[E.Expr, ...] | None = None  # manual placement (partition, byte offset)
    base: int | None = None  # for kind == alias (reshape of another tensor's storage)
    par_dim: int | None = None  # Beta-1 nl.par_dim position when not 0
    ctx: Ctx = Ctx()  # where the allocation happens
    order: int = 0  # program point: the number of instructions emitted before the allocation
    stmt: Span | None = None  # the statement `name = nl.ndarray(...)` when the allocation is one
    stmt_text: str = ""


@dataclass(frozen=True, slots=True)
class IdxInt:
    """One axis indexed by a single integer (possibly symbolic)."""

    value: E.Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class IdxSlice:
    """One axis indexed by start:stop:step (already normalised against the axis size)."""

    start: E.Expr
    stop: E.Expr
    step: E.Expr
    span: Span | None = None
    written_stop: bool = True  # False when the stop was implicit (`:`)


@dataclass(frozen=True, slots=True)
class IdxGrid:
    """One axis indexed by a Beta-1 affine index expression over iota variables."""

    value: E.Expr
    span: Span | None = None


AxisIndex = Union[IdxInt, IdxSlice, IdxGrid]


@dataclass(frozen=True, slots=True)
class Iota:
    """A Beta-1 `nl.arange`/`nl.mgrid` variable: ranges over [0, size)."""

    var: E.Sym
    size: E.Expr


@dataclass(frozen=True, slots=True)
class Subscript:
    """An indexing of a tensor (or view) as the kernel wrote it."""

    id: int
    tensor: int
    shape: tuple[E.Expr, ...]  # shape of the indexed view
    items: tuple[AxisIndex, ...]
    span: Span
    ctx: Ctx
    iotas: tuple[Iota, ...] = ()
    mask: E.BExpr = E.TRUE
    what: str = "index"  # index | slice | select | ds | dynamic | ap
    pattern: "Pattern | None" = None  # what an `.ap(...)` view addresses (what == "ap")


@dataclass(frozen=True, slots=True)
class Access:
    """A canonical access: element (flattened row-major, in elements of the base tensor)
    offset + sum(stride_k * i_k) for i_k in [0, count_k)."""

    offset: E.Expr
    dims: tuple[tuple[E.Expr, E.Expr], ...]  # (stride, count), outermost first
    iotas: tuple[Iota, ...] = ()
    dynamic: bool = False  # a runtime (register / SBUF-held) offset is involved
    # the access in index space when it is affine per axis: (frame shape, consts, rows); element i is at
    # coordinate consts[k] + sum(rows[j][k] * i[j]) of the frame.  Comparing coordinates avoids the
    # non-linear products of the flattened address.
    coords: tuple | None = None


@dataclass(frozen=True, slots=True)
class Pattern:
    """An `.ap(pattern=[[step, count], ...], offset=, scalar_offset=, vector_offset=)` view, in elements of the
    view's dtype: element (i_0, ..., i_k) is at storage[offset + sum(step_j * i_j)] (the first step is
    ignored with a vector offset, whose row index is part of `offset`)."""

    access: Access
    numel: E.Expr  # elements of the underlying storage
    partitions: E.Expr | None  # on-chip: the storage's partition count (the first pair walks partitions)
    row: E.Expr | None  # on-chip: elements per partition
    vector: bool = False
    first_step: E.Expr | None = None  # the step written in the first pair (checked against `row` on chip)


@dataclass(frozen=True, slots=True)
class Operand:
    role: str
    tensor: int
    instance: tuple[E.Expr, ...]  # iteration indices of the loops enclosing the allocation
    shape: tuple[E.Expr, ...]  # the operand's view shape (partition dim first for on-chip)
    access: Access | None
    mode: str  # r | w | rw
    span: Span
    dtype: str | None = None  # the view's dtype when it reinterprets the tensor


@dataclass(frozen=True, slots=True)
class Instr:
    id: int
    op: str  # spec name, e.g. "isa.nc_matmul" or "language.load"
    dialect: str
    operands: tuple[Operand, ...]
    attrs: tuple[tuple[str, object], ...]
    span: Span
    ctx: Ctx
    mask: E.BExpr = E.TRUE
    iotas: tuple[Iota, ...] = ()

    def attr(self, name: str, default: object = None) -> object:
        for k, v in self.attrs:
            if k == name:
                return v
        return default

    def operand(self, role: str) -> Operand | None:
        for o in self.operands:
            if o.role == role:
                return o
        return None


@dataclass(frozen=True, slots=True)
class Check:
    """A front-end obligation that is not a tensor subscript (e.g. a Python list index)."""

    code: str
    cond: E.BExpr
    message: str
    span: Span
    ctx: Ctx


@dataclass(frozen=True, slots=True)
class Assumption:
    """A condition the kernel states (assert, kernel_assert, raise-guard, launch shapes)."""

    cond: E.BExpr
    span: Span | None
    origin: str  # assert | raise | launch | option | grid


@dataclass(frozen=True, slots=True)
class Kernel:
    name: str
    path: str
    span: Span
    dialect: str
    context: str  # human description of the entry context (standalone / launch at line N / --shape)
    params: tuple[str, ...]
    symbols: tuple[SymInfo, ...]
    loops: tuple[Loop, ...]
    tensors: tuple[Tensor, ...]
    subscripts: tuple[Subscript, ...]
    instrs: tuple[Instr, ...]
    checks: tuple[Check, ...]
    assumptions: tuple[Assumption, ...]
    grid: tuple[E.Expr, ...] | None
    target: str
    complete: bool = True  # False when part of the kernel was not understood
    target_origin: str = "default"  # option (--target) | kernel (platform_target=) | default
    given: tuple = ()  # optional inputs (default None) analysed as given: the kernel dereferences them
    given_why: tuple = ()  # why each of `given` is (the same order): GIVEN_DEREFERENCED, _NONE_FAILS or _TESTED
    # inputs with a None default, analysed as None or (`block: int = None`, a placeholder the caller replaces;
    # the optional inputs above) as a value: the analysis sees one of a launch's two choices
    placeholders: tuple = ()
    # (param, value, default) of parameters analysed with another value than their default, as text: every path
    # with the default fails (an assert or raise), so launches pass another value
    chosen: tuple = ()
    # (symbol, loop ids, source, index symbols) of each value read at run time: the loops around the read, what
    # it reads (("tensor", tensor id), ("reg", register symbol) or ("unknown", _)) and the symbols of the offset
    # of the element read
    runtime_reads: tuple = ()
    # parameters the kernel may write in place (Beta 1): annotated `nt.mutable_tensor`, or every parameter of
    # an `@nki.trace` sub-kernel, which its caller hands buffers to update
    inout: tuple = ()
    # (input name, rank) of inputs whose rank this run only guessed: nothing in the kernel states it (`a, b =
    # x.shape`, `len(x.shape) == 2`, `x.shape == (n, d)`) and no use fixed it (see nki_verify.api._rank_guesses)
    guessed: tuple = ()
    missing: tuple = ()  # modules the kernel uses that no import resolved (each said by an NKI902)
    # (dtype name, item size) of each dtype chosen by a condition (`nl.bfloat16 if x.dtype == nl.float32 else
    # x.dtype`): an unknown dtype ("?..."), whose size is a conditional of its choices' sizes
    dtype_sizes: tuple = ()

    def tensor(self, tid: int) -> Tensor:
        return self.tensors[tid]

    def loop(self, lid: int) -> Loop:
        return self.loops[lid]

    def symbol(self, s: E.Sym) -> SymInfo | None:
        for info in self.symbols:
            if info.sym == s:
                return info
        return None


@dataclass(frozen=True, slots=True)
class FrontendIssue:
    """A diagnostic raised by the front end itself (not-understood constructs, unparsable files)."""

    code: str
    message: str
    span: Span
    kernel: str | None = None
    severity: str | None = None  # None = the rule's default
    data: tuple = field(default=())
    fixes: tuple = field(default=())  # (description, ((Span, new_text), ...)) mechanical fixes
    notes: tuple = field(default=())  # (Span, text): related information (the run's optional inputs given)


# ----------------------------------------------------------------------------- printer


def _e(x: object, names) -> str:
    if isinstance(x, (E.Expr, E.BExpr)):
        return E.to_str(x, names)
    if isinstance(x, tuple):
        return "(" + ", ".join(_e(v, names) for v in x) + ("," if len(x) == 1 else "") + ")"
    return repr(x) if isinstance(x, str) else str(x)


def _shape(shape: tuple, names) -> str:
    return "[" + ", ".join(_e(d, names) for d in shape) + "]"


def _item(it: AxisIndex, names) -> str:
    if isinstance(it, IdxInt):
        return _e(it.value, names)
    if isinstance(it, IdxSlice):
        step = "" if it.step == E.ONE else ":" + _e(it.step, names)
        return f"{_e(it.start, names)}:{_e(it.stop, names)}{step}"
    return "grid(" + _e(it.value, names) + ")"


def format_kernel(k: Kernel) -> str:
    """A stable, diffable dump of what the verifier understood."""
    labels = {info.sym: info.label for info in k.symbols}

    def names(s):
        return labels.get(s, s.name)

    out = [f"kernel {k.name}  [{k.dialect}, target {k.target}]  ({k.context})"]
    if not k.complete:
        out.append("  note: part of this kernel was not understood (see NKI902)")
    if k.grid is not None:
        out.append("  grid " + _shape(k.grid, names))
    for info in k.symbols:
        if info.role in ("shape", "scalar", "pid", "grid", "register", "unknown"):
            rng = ""
            if info.lo is not None or info.hi is not None:
                rng = f" in [{_e(info.lo, names) if info.lo is not None else '-inf'}, " \
                      f"{_e(info.hi, names) if info.hi is not None else 'inf'})"
            out.append(f"  sym {info.label}: {info.role}{rng}")
    for a in k.assumptions:
        out.append(f"  assume {_e(a.cond, names)}  ({a.origin}{', line ' + str(a.span.line) if a.span else ''})")
    for t in k.tensors:
        extra = f" address={_e(t.address, names)}" if t.address is not None else ""
        per = f" per-iteration of {['L' + str(x) for x in t.loops]}" if t.loops else ""
        out.append(f"  %{t.id} {t.name}: {t.buffer} {_shape(t.shape, names)} {t.dtype or '?'}"
                   f" ({t.kind}, line {t.span.line}){extra}{per}")
    for lp in k.loops:
        parent = f" in L{lp.parent}" if lp.parent is not None else ""
        out.append(f"  L{lp.id} {lp.kind} {names(lp.var)} in range({_e(lp.start, names)}, "
                   f"{_e(lp.stop, names)}, {_e(lp.step, names)}){parent}  (line {lp.span.line})")
    events = [(s.span.line, s.span.col, 0, s) for s in k.subscripts] + \
             [(i.span.line, i.span.col, 1, i) for i in k.instrs] + \
             [(c.span.line, c.span.col, 2, c) for c in k.checks]
    for _, _, _, ev in sorted(events, key=lambda t: (t[0], t[1], t[2])):
        out.append("  " + _format_event(ev, k, names))
    return "\n".join(out)


def _ctx(ctx: Ctx, names) -> str:
    parts = []
    if ctx.loops:
        parts.append("in " + ",".join(f"L{x}" for x in ctx.loops))
    if ctx.path != E.TRUE:
        parts.append("if " + _e(ctx.path, names))
    return ("  [" + "; ".join(parts) + "]") if parts else ""


def _format_event(ev: object, k: Kernel, names) -> str:
    if isinstance(ev, Subscript):
        t = k.tensors[ev.tensor]
        items = ", ".join(_item(i, names) for i in ev.items)
        mask = f" mask({_e(ev.mask, names)})" if ev.mask != E.TRUE else ""
        return f"line {ev.span.line}: %{t.id} {t.name}{_shape(ev.shape, names)}[{items}]{mask}{_ctx(ev.ctx, names)}"
    if isinstance(ev, Instr):
        ops = []
        for o in ev.operands:
            t = k.tensors[o.tensor]
            ops.append(f"{o.role}={o.mode}:%{t.id}{_shape(o.shape, names)}")
        attrs = "".join(f", {n}={_e(v, names) if isinstance(v, (E.Expr, E.BExpr)) else v}" for n, v in ev.attrs
                        if v is not None and n != "name")
        return f"line {ev.span.line}: {ev.op}({', '.join(ops)}{attrs}){_ctx(ev.ctx, names)}"
    if isinstance(ev, Check):
        return f"line {ev.span.line}: check {ev.code} {_e(ev.cond, names)}{_ctx(ev.ctx, names)}"
    return str(ev)
