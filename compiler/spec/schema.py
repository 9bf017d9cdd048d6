"""The vocabulary of the ISA specification.

An `Instruction` declares its signature(s), its tensor operands (role, access
mode, accepted buffers) and its rules.  A rule is a predicate written in a
tiny declarative language over the operands' shapes, dtypes and buffers, the
call's attributes and the target's constants.  The same predicate evaluates

* symbolically, to a `compiler.expr.BExpr` proof obligation (the verifier),
* concretely, to `TRUE`/`FALSE` when every shape is an int (the device).

A predicate that mentions an operand the call did not pass, or a dtype that is
not known, is not applicable and evaluates to None.
"""

from __future__ import annotations

from ..record import Record

from typing import Any, Protocol, Sequence, Union

from .. import expr as E
from . import dtypes as D
from .targets import Target

SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM = "sbuf", "psum", "hbm", "shared_hbm", "private_hbm"
ON_CHIP = frozenset({SBUF, PSUM})
ANY_HBM = frozenset({HBM, SHARED_HBM, PRIVATE_HBM})
ANY_BUFFER = ON_CHIP | ANY_HBM
SBUF_ONLY = frozenset({SBUF})
PSUM_ONLY = frozenset({PSUM})
HBM_OR_SBUF = ANY_HBM | SBUF_ONLY
ALL_TARGETS = frozenset({"trn1", "trn2", "trn3"})
TRN2_UP = frozenset({"trn2", "trn3"})
TRN3_ONLY = frozenset({"trn3"})

MISSING = object()  # an attribute the call did not give (and that has no default)


class NotApplicable(Exception):
    """A rule mentions something the call does not have."""


class Binding(Protocol):
    """What a rule may ask about one call."""

    target: Target

    def has(self, role: str) -> bool: ...

    def is_tensor(self, role: str) -> bool: ...

    def shape(self, role: str) -> Sequence[E.IntLike] | None: ...

    def dtype(self, role: str) -> str | None: ...

    def buffer(self, role: str) -> str | None: ...

    def attr(self, name: str) -> Any: ...


# ----------------------------------------------------------------------------- terms (integers)


class Term:
    def ev(self, b: Binding) -> E.IntLike:
        raise NotImplementedError

    def show(self) -> str:
        raise NotImplementedError


def _product(factors: Sequence[E.IntLike]) -> E.IntLike:
    out: E.IntLike = 1
    for d in factors:
        out = E.lower(E.mul(out, d))
    return out


def _shape(b: Binding, role: str) -> Sequence[E.IntLike]:
    if not b.has(role) or not b.is_tensor(role):
        raise NotApplicable(role)
    s = b.shape(role)
    if s is None:
        raise NotApplicable(role)
    return s


class Dim(Term, Record):
    _fields = ('role', 'axis')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        s = _shape(b, self.role)
        if not -len(s) <= self.axis < len(s):
            raise NotApplicable(self.role)
        return s[self.axis]

    def show(self) -> str:
        # in words, not `x.shape[0]`: an operand role (nl.add's `x`) is often also the name of a kernel input,
        # whose dimensions the counterexample lists in that form
        return f"partitions of {self.role}" if self.axis == 0 else f"size of axis {self.axis} of {self.role}"


class Free(Term, Record):
    """Elements per partition: product of dims 1..n-1 (1 for a rank-1 view)."""

    _fields = ('role',)
    __slots__ = _fields

    def factors(self, b: Binding) -> list:
        return list(_shape(b, self.role))[1:]

    def ev(self, b: Binding) -> E.IntLike:
        return _product(self.factors(b))

    def show(self) -> str:
        return f"free size of {self.role}"


class Numel(Term, Record):
    _fields = ('role',)
    __slots__ = _fields

    def factors(self, b: Binding) -> list:
        return list(_shape(b, self.role))

    def ev(self, b: Binding) -> E.IntLike:
        return _product(self.factors(b))

    def show(self) -> str:
        return f"number of elements of {self.role}"


class Rank(Term, Record):
    _fields = ('role',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        return len(_shape(b, self.role))

    def show(self) -> str:
        return f"rank of {self.role}"


class Lit(Term, Record):
    _fields = ('value',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        return self.value

    def show(self) -> str:
        return str(self.value)


class Limit(Term, Record):
    """A target constant (an attribute of `Target`)."""

    _fields = ('name',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        return getattr(b.target, self.name)

    def show(self) -> str:
        return self.name


class AttrInt(Term, Record):
    _fields = ('name',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        v = b.attr(self.name)
        if v is MISSING or v is None or isinstance(v, bool):
            raise NotApplicable(self.name)
        if isinstance(v, (int, E.Expr)):
            return v
        raise NotApplicable(self.name)

    def show(self) -> str:
        return self.name


class PatternCount(Term, Record):
    """Product of the counts of an access-pattern attribute [[step, num], ...]."""

    _fields = ('name',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        v = b.attr(self.name)
        if not isinstance(v, (list, tuple)) or not v:
            raise NotApplicable(self.name)
        out: E.IntLike = 1
        for pair in v:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not isinstance(pair[1], (int, E.Expr)):
                raise NotApplicable(self.name)
            out = E.lower(E.mul(out, pair[1]))
        return out

    def show(self) -> str:
        return f"product of the counts of {self.name}"


class ReducedFree(Term, Record):
    """Free size of `role` after reducing the axes named by attribute `axis`."""

    _fields = ('role', 'axis')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        s = list(_shape(b, self.role))
        axes = b.attr(self.axis)
        if isinstance(axes, int):
            axes = (axes,)
        if not isinstance(axes, (list, tuple)) or not all(isinstance(a, int) for a in axes):
            raise NotApplicable(self.axis)
        norm = {a % len(s) for a in axes}
        out: E.IntLike = 1
        for i, d in enumerate(s):
            if i and i not in norm:
                out = E.lower(E.mul(out, d))
        return out

    def show(self) -> str:
        return f"free size of {self.role} without the reduced axes"


class Times(Term, Record):
    _fields = ('a', 'b')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.IntLike:
        return E.lower(E.mul(self.a.ev(b), self.b.ev(b)))

    def show(self) -> str:
        return f"{self.a.show()} * {self.b.show()}"


# ----------------------------------------------------------------------------- predicates


class Pred:
    def ev(self, b: Binding) -> E.BExpr:
        """The condition as a BExpr; raises NotApplicable."""
        raise NotImplementedError

    def show(self) -> str:
        raise NotImplementedError


def _as_b(x: Union[bool, E.BExpr]) -> E.BExpr:
    return E.bconst(x) if isinstance(x, bool) else x


class Le(Pred, Record):
    _fields = ('a', 'b')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.le(self.a.ev(b), self.b.ev(b))

    def show(self) -> str:
        return f"{self.a.show()} <= {self.b.show()}"


class Eq(Pred, Record):
    _fields = ('a', 'b')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        fa, fb = _factors(self.a, b), _factors(self.b, b)
        if fa is not None and fb is not None:
            return _product_eq(fa, fb)
        return E.eq(self.a.ev(b), self.b.ev(b))

    def show(self) -> str:
        return f"{self.a.show()} == {self.b.show()}"


def _factors(t: Term, b: Binding) -> list | None:
    """The factors of a product of dimensions (Numel, Free, Dim, Lit), before they are multiplied out."""
    if isinstance(t, (Numel, Free)):
        return t.factors(b)
    if isinstance(t, (Dim, Lit)):
        return [t.ev(b)]
    return None


def _product_eq(fa: list, fb: list) -> E.BExpr:
    """prod(fa) == prod(fb), with the factors both sides share taken out: c*x == c*y is c == 0 or x == y.  The
    same question, without the products of a shared (often symbolic) dimension that make it non-linear: a
    tile `t[0:n, :]` copied into `x[i, 0:n, :]` compares n*F with n*F', which is F == F' unless n is 0."""
    common, only_a, rest = _shared(fa, fb)
    same = E.eq(_product(only_a), _product(rest))
    return E.bor(*(E.eq(c, 0) for c in common), same) if common else same


def _shared(fa: list, fb: list) -> tuple:
    """(the factors both lists have, the rest of fa, the rest of fb), each list in its order and without its
    1s (which change no product); a number is never counted as shared."""
    rest = [g for g in map(E.lower, fb) if g != 1]
    common, only_a = [], []
    for f in map(E.lower, fa):
        if f == 1:
            continue
        if not isinstance(f, int) and f in rest:
            common.append(f)
            rest.remove(f)
        else:
            only_a.append(f)
    return common, only_a, rest


class MultipleOf(Pred, Record):
    _fields = ('a', 'k')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.eq(E.mod(self.a.ev(b), self.k), 0)

    def show(self) -> str:
        return f"{self.a.show()} is a multiple of {self.k}"


class OneOf(Pred, Record):
    _fields = ('a', 'values')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        v = self.a.ev(b)
        return E.bor(*(E.eq(v, x) for x in self.values))

    def show(self) -> str:
        return f"{self.a.show()} in {set(self.values)}"


class All(Pred, Record):
    _fields = ('parts',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.band(*(p.ev(b) for p in self.parts))

    def show(self) -> str:
        return " and ".join(p.show() for p in self.parts)


class Any_(Pred, Record):
    _fields = ('parts',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.bor(*(p.ev(b) for p in self.parts))

    def show(self) -> str:
        return " or ".join(p.show() for p in self.parts)


class Implies(Pred, Record):
    _fields = ('cond', 'then')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        try:
            c = self.cond.ev(b)
        except NotApplicable:
            return E.TRUE
        if c == E.FALSE:
            return E.TRUE
        return E.implies(c, self.then.ev(b))

    def show(self) -> str:
        return f"if {self.cond.show()} then {self.then.show()}"


class Present(Pred, Record):
    _fields = ('role',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.bconst(b.has(self.role))

    def show(self) -> str:
        return f"{self.role} is given"


class IsTensor(Pred, Record):
    _fields = ('role',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.bconst(b.has(self.role) and b.is_tensor(self.role))

    def show(self) -> str:
        return f"{self.role} is a tensor"


class AttrIn(Pred, Record):
    """An attribute (an enum member or op name, as a string) is one of `values`.  `absent`: its value when a
    signature does not have the parameter (Beta 1's `nc_matmul` has no perf_mode: it is the plain mode)."""

    _fields = ('name', 'values', 'absent')
    __slots__ = _fields
    _defaults = {'absent': MISSING}

    def ev(self, b: Binding) -> E.BExpr:
        v = b.attr(self.name)
        if v is MISSING:
            v = self.absent
        if v is MISSING:
            raise NotApplicable(self.name)
        key = v if isinstance(v, (str, bool, type(None))) else getattr(v, "spec_name", None)
        if key is None:
            raise NotApplicable(self.name)
        return E.bconst(key in self.values)

    def show(self) -> str:
        return f"{self.name} in {sorted(map(str, self.values))}"


class TargetIn(Pred, Record):
    _fields = ('targets',)
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        return E.bconst(b.target.name in self.targets)

    def show(self) -> str:
        return f"target in {sorted(self.targets)}"


class DtypeIn(Pred, Record):
    _fields = ('role', 'dtypes')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        if not b.has(self.role) or not b.is_tensor(self.role):
            raise NotApplicable(self.role)
        d = b.dtype(self.role)
        if d is None or d.startswith("?"):  # "?a.dtype": the (unknown) dtype of input a
            raise NotApplicable(self.role)
        return E.bconst(d in self.dtypes)

    def show(self) -> str:
        return f"{self.role}.dtype in {{{', '.join(sorted(self.dtypes))}}}"


class TrailingAxes(Pred, Record):
    """The axes named by attribute `axis` are the last free axes of `role`, contiguous and ending at its last
    axis, never the partition axis (nki.isa.tensor_reduce's rule)."""

    _fields = ('role', 'axis')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        rank, norm = self._axes(b)
        return E.bconst(norm == set(range(rank - len(norm), rank)) and 0 not in norm)

    def _axes(self, b: Binding) -> tuple:
        """(rank of `role`, the set of axes named, made non-negative); NotApplicable unless they are integers."""
        rank = len(_shape(b, self.role))
        axes = b.attr(self.axis)
        if isinstance(axes, int) and not isinstance(axes, bool):
            axes = (axes,)
        if not isinstance(axes, (list, tuple)) or not axes or \
                not all(isinstance(a, int) and not isinstance(a, bool) for a in axes) or rank < 2:
            raise NotApplicable(self.axis)
        return rank, {a % rank for a in axes}

    def show(self) -> str:
        return f"{self.axis} names the trailing free axes of {self.role}"


class LeadingFreeAxes(TrailingAxes):
    """The axes named by attribute `axis` are consecutive free axes starting at axis 1 (Beta 1's
    nki.isa.tensor_reduce: "must contain axis 1 ... must be consecutive", up to four)."""

    _fields = ('role', 'axis')
    __slots__ = ()

    def ev(self, b: Binding) -> E.BExpr:
        _, norm = self._axes(b)
        return E.bconst(norm == set(range(1, 1 + len(norm))) and len(norm) <= 4)

    def show(self) -> str:
        return f"{self.axis} names consecutive free axes of {self.role} from axis 1"


class DtypeEq(Pred, Record):
    _fields = ('a', 'b')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        for r in (self.a, self.b):
            if not b.has(r) or not b.is_tensor(r) or b.dtype(r) is None:
                raise NotApplicable(r)
        da, db = b.dtype(self.a), b.dtype(self.b)
        if da == db:
            return E.TRUE
        if da.startswith("?") or db.startswith("?"):  # an input's unknown dtype: cannot compare
            raise NotApplicable(self.a)
        return E.FALSE

    def show(self) -> str:
        return f"{self.a}.dtype == {self.b}.dtype"


class BufferIn(Pred, Record):
    _fields = ('role', 'buffers')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        if not b.has(self.role) or not b.is_tensor(self.role) or b.buffer(self.role) is None:
            raise NotApplicable(self.role)
        return E.bconst(b.buffer(self.role) in self.buffers)

    def show(self) -> str:
        return f"{self.role} in {'/'.join(sorted(self.buffers))}"


class NotBoth(Pred, Record):
    """At most one of two operands lives in `buffer`."""

    _fields = ('a', 'b', 'buffer')
    __slots__ = _fields

    def ev(self, b: Binding) -> E.BExpr:
        for r in (self.a, self.b):
            if not b.has(r) or not b.is_tensor(r) or b.buffer(r) is None:
                return E.TRUE
        return E.bconst(not (b.buffer(self.a) == self.buffer and b.buffer(self.b) == self.buffer))

    def show(self) -> str:
        return f"{self.a} and {self.b} are not both in {self.buffer}"


# ----------------------------------------------------------------------------- shorthand


def same_partitions(*roles: str) -> Pred:
    return All(tuple(Eq(Dim(roles[0], 0), Dim(r, 0)) for r in roles[1:]))


def same_free(*roles: str) -> Pred:
    return All(tuple(Eq(Free(roles[0]), Free(r)) for r in roles[1:]))


def same_tile(*roles: str) -> Pred:
    """Same partition count and same number of elements per partition (free ranks may differ)."""
    return All((same_partitions(*roles), same_free(*roles)))


def column_of(role: str, like: str) -> Pred:
    """`role` is a (P, 1) tile matching `like`'s partitions, when it is a tensor."""
    return Implies(IsTensor(role), All((Eq(Dim(role, 0), Dim(like, 0)), Eq(Free(role), Lit(1)))))


# ----------------------------------------------------------------------------- rules and instructions


class Rule(Record):
    # code: NKI202 | NKI303 | NKI501 | NKI502 | NKI503
    # message: what must hold, in words
    # severity: "warning" for a rule the documentation states but the compiler has been seen to accept (the
    #   verifier reports it as a warning at most; the device, which models the hardware, does not fault)
    _fields = ('code', 'pred', 'message', 'targets', 'dialects', 'severity')
    __slots__ = _fields
    _defaults = {'targets': ALL_TARGETS, 'dialects': frozenset({"beta1", "beta2"}), 'severity': None}

    def applies(self, target: str, dialect: str) -> bool:
        return target in self.targets and dialect in self.dialects


class Operand(Record):
    """A tensor parameter of an instruction."""

    # mode: r | w | rw
    # scalar_ok: a compile-time number may be passed instead of a tile
    # is_list: a list of tensors (dma_compute srcs)
    # buffers_b1: Beta-1 differs
    # partial: the instruction touches only part of the view (documented per instruction, e.g. partitions
    #   0, 16, ..., 112 for the GpSimd cores): element-level analyses do not treat it as a full access
    # one_to_one: each element read lands in one element of the destination (a copy, an element-wise op, a
    #   transpose), so a value nothing wrote spoils only its own destination element; True, or the name of
    #   the boolean attribute that makes it so (nc_matmul's stationary with is_transpose=True)
    _fields = ('name', 'mode', 'buffers', 'scalar_ok', 'is_list', 'buffers_b1', 'partial', 'one_to_one')
    __slots__ = _fields
    _defaults = {'mode': "r", 'buffers': ON_CHIP, 'scalar_ok': False, 'is_list': False, 'buffers_b1': None,
                 'partial': False, 'one_to_one': False}

    def accepted(self, dialect: str) -> frozenset:
        if dialect == "beta1" and self.buffers_b1 is not None:
            return self.buffers_b1
        return self.buffers


class Signature(Record):
    """A Python parameter list, parsed from its source spelling."""

    # defaults: (name, default-spelling) pairs
    _fields = ('text', 'positional', 'kwonly', 'defaults', 'varargs', 'varkw')
    __slots__ = _fields
    _defaults = {'positional': (), 'kwonly': (), 'defaults': (), 'varargs': False, 'varkw': False}

    @staticmethod
    def parse(text: str) -> "Signature":
        """Parse `a, b=1, *, c=None, **kwargs` (no annotations); no compile() so imports stay fast."""
        parts, depth, cur = [], 0, []
        for ch in text:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append("".join(cur))
                cur = []
            else:
                cur.append(ch)
        parts.append("".join(cur))
        pos: list = []
        kw: list = []
        defaults: list = []
        star = varargs = varkw = False
        for part in parts:
            p = part.strip()
            if not p:
                continue
            if p == "*":
                star = True
                continue
            if p.startswith("**"):
                varkw = True
                continue
            if p.startswith("*"):
                varargs = star = True
                continue
            name, eq, default = p.partition("=")
            name = name.strip()
            (kw if star else pos).append(name)
            if eq:
                defaults.append((name, default.strip()))
        return Signature(text, tuple(pos), tuple(kw), tuple(defaults), varargs, varkw)

    @property
    def names(self) -> tuple:
        return self.positional + self.kwonly

    def default(self, name: str) -> Any:
        for n, d in self.defaults:
            if n == name:
                return d
        return MISSING


def partitions_aligned(shapes: Sequence[tuple]) -> list:
    """The operand shapes of an element-wise form as they broadcast: a tile of partitions only ((P,): a
    reduction without keepdims) lines up with the others' partitions, as (P, 1, ...); then numpy's rules."""
    rank = max((len(s) for s in shapes), default=0)
    return [tuple(s) + (1,) * (rank - 1) if len(s) == 1 and rank > 1 else s for s in shapes]


class Result(Record):
    """How a value-returning form (Beta 1, nki.language) shapes its new tile.

    shape: ("like", role) | ("broadcast", role, role) | ("reduce", role, axis_attr, keep_attr)
           | ("transpose", role) | ("matmul", stationary, moving) | ("nl_matmul", x, y, transpose_attr)
           | ("attr", name) | ("partitions_and", role, n) | ("grid", attr)
           | ("bounds", role): (P, 2, free...) of the role's (P, free...) (start and end rows)
           | ("local_gather", index, n_valid_attr, per_index_attr): (P, valid indices x elements per index)
    buffer: a buffer name, or ("attr", name, default)
    dtype:  a dtype name, or ("attr", name, fallback-role-or-dtype)
    """

    # role: the operand role the new tile fills
    # buffer_b1: the Beta-1 form's buffer when it differs
    _fields = ('shape', 'buffer', 'dtype', 'role', 'buffer_b1')
    __slots__ = _fields
    _defaults = {'buffer': SBUF, 'dtype': ("attr", "dtype", "@x"), 'role': "dst", 'buffer_b1': None}

    def buffer_in(self, dialect: str) -> Any:
        return self.buffer_b1 if dialect == "beta1" and self.buffer_b1 is not None else self.buffer


class Instruction(Record):
    # module: isa | language
    # b2: nki.* form (isa: dst first, returns a handle)
    # b1: neuronxcc.nki.* form
    # result: when a form returns a new tile
    # kind: compute | dma | alloc | control | register | elementwise | reduce
    _fields = ('name', 'module', 'summary', 'engine', 'operands', 'b2', 'b1', 'result', 'rules', 'targets', 'kind')
    __slots__ = _fields
    _defaults = {'b2': None, 'b1': None, 'result': None, 'rules': (), 'targets': ALL_TARGETS, 'kind': "compute"}

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"

    def operand(self, role: str) -> Operand | None:
        for o in self.operands:
            if o.name == role:
                return o
        return None

    def signature(self, dialect: str) -> Signature | None:
        return self.b1 if dialect == "beta1" else self.b2

    def all_rules(self) -> tuple:
        """Declared rules plus the buffer rule of every operand."""
        out = list(self.rules)
        for o in self.operands:
            for dialect in ("beta1", "beta2"):
                bufs = o.accepted(dialect)
                if bufs != ANY_BUFFER:
                    out.append(Rule("NKI303", BufferIn(o.name, bufs),
                                    f"{o.name} must be in {'/'.join(sorted(bufs))}",
                                    dialects=frozenset({dialect})))
        return tuple(out)


def leaves(p: Pred) -> list:
    """The predicates a rule's predicate is made of (through All, Any_ and the consequent of Implies)."""
    if isinstance(p, (All, Any_)):
        return [x for q in p.parts for x in leaves(q)]
    if isinstance(p, Implies):
        return leaves(p.then)
    return [p]


def compiler_placed(rule: Rule, operands: dict) -> bool:
    """Every operand a Beta-1 buffer rule rejects is a tile an earlier call returned (`nc_matmul(
    nisa.nc_transpose(x), y)`): Beta 1 leaves a returned tile's placement to the compiler, which moves it where
    its consumer needs it (as `nl.matmul` lowers to `nc_matmul(nc_transpose(x), y)` itself); only tiles the
    kernel placed (`nl.ndarray(..., buffer=nl.psum)`, an input) are bound by it.  `operands`: role -> (buffer,
    whether the tensor is a returned tile), for the verifier's and the device's tensors alike."""
    wanted = {p.role: p.buffers for p in leaves(rule.pred) if isinstance(p, BufferIn)}
    wrong = [returned for role, (buffer, returned) in operands.items() if role in wanted and buffer not in wanted[role]]
    return bool(wrong) and all(wrong)


def evaluate(rule: Rule, b: Binding) -> E.BExpr | None:
    """The rule's obligation for this call, or None when the rule does not apply."""
    try:
        return rule.pred.ev(b)
    except NotApplicable:
        return None


def axiswise(rule: Rule, b: Binding) -> E.BExpr | None:
    """A condition that implies the rule's obligation, easier to prove: an equality of two products of
    dimensions (element counts, free sizes) as its factors equal axis by axis, where the two have as many
    factors once those both share and the 1s are taken out (`min(128, n - i)*F == max(0, min(128, n - i))*F'`
    as `min(128, n - i) == max(0, min(128, n - i))` and `F == F'`: two small questions for a non-linear one);
    in a conjunction, each equality so.  None where nothing changes, or the rule does not apply."""
    try:
        return _axiswise(rule.pred, b)
    except NotApplicable:
        return None


def _axiswise(pred: Pred, b: Binding) -> E.BExpr | None:
    if isinstance(pred, All):
        parts = [_axiswise(p, b) for p in pred.parts]
        if all(q is None for q in parts):
            return None
        return E.band(*(q if q is not None else p.ev(b) for p, q in zip(pred.parts, parts)))
    if not isinstance(pred, Eq):
        return None
    fa, fb = _factors(pred.a, b), _factors(pred.b, b)
    if fa is None or fb is None:
        return None
    _, only_a, rest = _shared(fa, fb)
    if len(only_a) != len(rest) or len(rest) < 2:
        return None
    return E.band(*(E.eq(x, y) for x, y in zip(only_a, rest)))


def sig(text: str) -> Signature:
    return Signature.parse(text)


def dtype_set(*names: str) -> frozenset:
    for n in names:
        assert n in D.DTYPES, n
    return frozenset(names)
