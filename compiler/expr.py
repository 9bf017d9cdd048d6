"""Symbolic integer and boolean expressions, independent of any solver.

The front end computes with these: shapes, loop indices, program ids and
Python integer arithmetic on them.  Constructors normalise eagerly (linear
forms, constant folding, exact division) so that equal quantities usually
compare equal structurally, and so that most proof obligations are
discharged by `interval` reasoning before a solver is ever imported.

Every node is immutable and hashable; its hash and sort key are computed once.
"""

from __future__ import annotations

import bisect

import functools
import itertools
import math
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Union

Number = int
IntLike = Union[int, "Expr"]
Bound = Optional[int]  # None = unbounded


# One key object per expression value, keyed by hash (see `_canonical`).  Emptied with the memo as an analysis
# starts when it holds more than _KEYS_LIMIT keys.
_KEYS: dict = {}
_KEYS_LIMIT = 2_000_000


def _canonical(key: tuple, h: int) -> tuple:
    """The key object every expression equal to this one holds.  A key nests its children's keys, so comparing two
    copies of a large expression compared their trees element by element, the sub-terms they share as often as
    they are reached (a walk of the DAG as a tree: minutes on nki-library's attention_block_tkg).  With one object
    per value, the children of a new key are already the canonical objects, this comparison stops at them (the
    same object), and so does every later comparison of two equal expressions.  (A hash collision keeps the key.)"""
    got = _KEYS.get(h)
    if got is None:
        _KEYS[h] = key
        return key
    return got if got is key or got == key else key


class Expr:
    """An integer-valued expression."""

    __slots__ = ("_hash", "_key", "_syms", "_size")

    def _init(self, key: tuple, h: tuple) -> None:
        # `h` is the key with each sub-expression's key replaced by its hash: hashing it is constant work (a
        # nested key would be hashed whole), and holds no strings, so hashes, and the iteration order of sets
        # of symbols, are the same in every process (PYTHONHASHSEED)
        self._hash = hash(h)
        self._key = _canonical(key, self._hash)
        self._syms: frozenset | None = None
        self._size = 0

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and self._hash == other._hash and self._key == other._key

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: "Expr") -> bool:  # canonical ordering only
        return self._key < other._key

    def __repr__(self) -> str:
        return f"Expr({to_str(self)})"

    def __str__(self) -> str:
        return to_str(self)

    @property
    def key(self) -> tuple:
        return self._key


class Const(Expr):
    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = int(value)
        self._init((0, self.value), (0, self.value))


class Sym(Expr):
    """A named unknown.  Identity is the uid; the name is for humans."""

    __slots__ = ("name", "uid", "kind")

    def __init__(self, name: str, uid: int, kind: str = "input") -> None:
        self.name = name
        self.uid = uid
        self.kind = kind
        self._init((1, uid, name, kind), (1, uid))


class Lin(Expr):
    """const + sum(coeff * atom); atoms are non-constant, non-linear nodes."""

    __slots__ = ("terms", "const")

    def __init__(self, terms: tuple, const: int) -> None:
        self.terms = terms
        self.const = const
        self._init((2, tuple((a._key, c) for a, c in terms), const), (2, tuple((a._hash, c) for a, c in terms), const))


class Mul(Expr):
    """Product of two or more atoms (non-linear)."""

    __slots__ = ("factors",)

    def __init__(self, factors: tuple) -> None:
        self.factors = factors
        self._init((3, tuple(f._key for f in factors)), (3, tuple(f._hash for f in factors)))


class FloorDiv(Expr):
    __slots__ = ("a", "b")

    def __init__(self, a: Expr, b: Expr) -> None:
        self.a, self.b = a, b
        self._init((4, a._key, b._key), (4, a._hash, b._hash))


class Mod(Expr):
    __slots__ = ("a", "b")

    def __init__(self, a: Expr, b: Expr) -> None:
        self.a, self.b = a, b
        self._init((5, a._key, b._key), (5, a._hash, b._hash))


class Min(Expr):
    __slots__ = ("args",)

    def __init__(self, args: tuple) -> None:
        self.args = args
        self._init((6, tuple(x._key for x in args)), (6, tuple(x._hash for x in args)))


class Max(Expr):
    __slots__ = ("args",)

    def __init__(self, args: tuple) -> None:
        self.args = args
        self._init((7, tuple(x._key for x in args)), (7, tuple(x._hash for x in args)))


class Ite(Expr):
    __slots__ = ("cond", "a", "b")

    def __init__(self, cond: "BExpr", a: Expr, b: Expr) -> None:
        self.cond, self.a, self.b = cond, a, b
        self._init((8, cond._key, a._key, b._key), (8, cond._hash, a._hash, b._hash))


# ----------------------------------------------------------------------------- booleans


class BExpr:
    """A boolean-valued expression."""

    __slots__ = ("_hash", "_key", "_syms", "_size")

    def _init(self, key: tuple, h: tuple) -> None:
        self._hash = hash(h)  # (see Expr._init)
        self._key = _canonical(key, self._hash)
        self._syms: frozenset | None = None
        self._size = 0

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BExpr) and self._hash == other._hash and self._key == other._key

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: "BExpr") -> bool:
        return self._key < other._key

    def __repr__(self) -> str:
        return f"BExpr({to_str(self)})"

    def __str__(self) -> str:
        return to_str(self)

    @property
    def key(self) -> tuple:
        return self._key


class BConst(BExpr):
    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = bool(value)
        self._init((20, self.value), (20, self.value))


class BSym(BExpr):
    __slots__ = ("name", "uid")

    def __init__(self, name: str, uid: int) -> None:
        self.name, self.uid = name, uid
        self._init((21, uid, name), (21, uid))


LE, EQ, NE = "<=", "==", "!="
_OPS = {NE: 0, LE: 1, EQ: 2}  # in hashes, which hold no strings


class Cmp(BExpr):
    """`e <= 0`, `e == 0` or `e != 0`."""

    __slots__ = ("op", "e")

    def __init__(self, op: str, e: Expr) -> None:
        self.op, self.e = op, e
        self._init((22, op, e._key), (22, _OPS[op], e._hash))


class BAnd(BExpr):
    __slots__ = ("args",)

    def __init__(self, args: tuple) -> None:
        self.args = args
        self._init((23, tuple(a._key for a in args)), (23, tuple(a._hash for a in args)))


class BOr(BExpr):
    __slots__ = ("args",)

    def __init__(self, args: tuple) -> None:
        self.args = args
        self._init((24, tuple(a._key for a in args)), (24, tuple(a._hash for a in args)))


class BNot(BExpr):
    __slots__ = ("a",)

    def __init__(self, a: BExpr) -> None:
        self.a = a
        self._init((25, a._key), (25, a._hash))


class Exists(BExpr):
    """exists vars. body (only for solver queries: intervals and evaluation do not look inside)."""

    __slots__ = ("vars", "body")

    def __init__(self, vars: tuple, body: BExpr) -> None:
        self.vars, self.body = vars, body
        self._init((26, tuple(v._key for v in vars), body._key), (26, tuple(v._hash for v in vars), body._hash))


TRUE = BConst(True)
FALSE = BConst(False)
ZERO = Const(0)
ONE = Const(1)

# ----------------------------------------------------------------------------- constructors


def const(v: int) -> Expr:
    return Const(v)


def lift(v: IntLike) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, bool):
        return Const(int(v))
    if isinstance(v, int):
        return Const(v)
    raise TypeError(f"cannot lift {type(v).__name__} to an integer expression")


def lower(e: IntLike) -> IntLike:
    """A Python int when the expression is constant, else the expression."""
    if isinstance(e, Const):
        return e.value
    return e


def _linear_parts(e: Expr) -> tuple[dict, int]:
    if isinstance(e, Const):
        return {}, e.value
    if isinstance(e, Lin):
        return {a: c for a, c in e.terms}, e.const
    return {e: 1}, 0


def _fold_mod(terms: dict, const: int) -> tuple:
    """k*x - k*c*(x // c)  ==>  k*(x % c)  for a positive constant c (x an atom or a linear form)."""
    for a, co in list(terms.items()):
        if not (isinstance(a, FloorDiv) and isinstance(a.b, Const) and a.b.value > 0 and co != 0):
            continue
        c = a.b.value
        if co % c:
            continue
        k = -co // c
        x = a.a
        xt, xc = _linear_parts(x)
        if k == 0 or not xt or any(terms.get(t, 0) != k * ct for t, ct in xt.items()):
            continue
        if a not in terms:
            continue
        del terms[a]
        for t in xt:
            del terms[t]
        const -= k * xc
        m = Mod(x, a.b)
        terms[m] = terms.get(m, 0) + k
    return terms, const


def _make_lin(terms: dict, c: int) -> Expr:
    if any(isinstance(a, FloorDiv) for a in terms):
        terms, c = _fold_mod(dict(terms), c)
    items = tuple(sorted(((a, k) for a, k in terms.items() if k != 0), key=lambda t: t[0]._key))
    if not items:
        return Const(c)
    if len(items) == 1 and items[0][1] == 1 and c == 0:
        return items[0][0]
    return Lin(items, c)


# ----------------------------------------------------------------------------- memoised constructors
#
# The constructors below are pure functions of their arguments' structure (an Expr is equal to another exactly
# when its canonical key is), and the front end builds the same few expressions over and over (every tile of a
# loop, every re-analysis of an edited file).  A bounded table of their results is therefore invisible to
# callers: it only saves the canonicalisation (sorting terms, folding remainders, normalising by the gcd).

_MEMO: dict = {}
_MEMO_LIMIT = 200_000
_MEMO_TYPES: set = {int, str}  # argument types a key may hold (expression classes join on first use)


def _memo_type(a: Any) -> bool:
    """An expression (its class is remembered, so that the next test is one set lookup)."""
    if isinstance(a, (Expr, BExpr)):
        _MEMO_TYPES.add(type(a))
        return True
    return False


def _memo(fn: Callable) -> Callable:
    tag = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        for a in args:
            if type(a) not in _MEMO_TYPES and not _memo_type(a):
                return fn(*args)  # bools, numpy ints ...: not worth telling apart from equal ints
        key = (tag, args)
        got = _MEMO.get(key)
        if got is None:
            got = fn(*args)
            if len(_MEMO) < _MEMO_LIMIT:  # full: no longer added to (see `start_analysis`)
                _MEMO[key] = got
        return got

    return wrapper


def start_analysis() -> None:
    """Called as an analysis starts: the memo is emptied when it is more than half full, so that it does not fill
    in the middle of one; when it does fill, it is no longer added to, never emptied.  (A table emptied in the
    middle of an analysis makes new copies of expressions the analysis holds, and comparing two copies of a large
    shared expression walks it as a tree: nki-library's blockwise_mm_backward, analysed after attention_cte in
    one process, ran for more than ten minutes instead of 52 s.)"""
    if len(_MEMO) > _MEMO_LIMIT // 2:
        _MEMO.clear()
    if len(_KEYS) > _KEYS_LIMIT:
        _KEYS.clear()


@_memo
def add(*xs: IntLike) -> Expr:
    terms: dict = {}
    c = 0
    for x in xs:
        t, k = _linear_parts(lift(x))
        c += k
        for a, co in t.items():
            terms[a] = terms.get(a, 0) + co
    return _make_lin(terms, c)


def neg(x: IntLike) -> Expr:
    return mul(-1, x)


def sub(a: IntLike, b: IntLike) -> Expr:
    return add(a, mul(-1, b))


def _scale(e: Expr, k: int) -> Expr:
    if k == 0:
        return ZERO
    if k == 1:
        return e
    t, c = _linear_parts(e)
    return _make_lin({a: co * k for a, co in t.items()}, c * k)


def _atom_factors(e: Expr) -> list:
    return list(e.factors) if isinstance(e, Mul) else [e]


@_memo
def mul(a: IntLike, b: IntLike) -> Expr:
    a, b = lift(a), lift(b)
    if isinstance(a, Const):
        return _scale(b, a.value)
    if isinstance(b, Const):
        return _scale(a, b.value)
    # distribute over linear forms so that polynomials stay canonical
    ta, ca = _linear_parts(a)
    tb, cb = _linear_parts(b)
    if len(ta) + (ca != 0) > 1 or len(tb) + (cb != 0) > 1:
        parts = []
        for x, cx in list(ta.items()) + ([(ONE, ca)] if ca else []):
            for y, cy in list(tb.items()) + ([(ONE, cb)] if cb else []):
                parts.append(_scale(_mul_atoms(x, y), cx * cy))
        return add(*parts)
    (x, cx), = ta.items()
    (y, cy), = tb.items()
    return _scale(_mul_atoms(x, y), cx * cy)


def _mul_atoms(x: Expr, y: Expr) -> Expr:
    if x == ONE:
        return y
    if y == ONE:
        return x
    fs = sorted(_atom_factors(x) + _atom_factors(y), key=lambda f: f._key)
    return Mul(tuple(fs))


@_memo
def floordiv(a: IntLike, b: IntLike) -> Expr:
    a, b = lift(a), lift(b)
    if isinstance(b, Const):
        d = b.value
        if d == 0:
            raise ZeroDivisionError("integer division by zero")
        if isinstance(a, Const):
            return Const(a.value // d)
        if d == 1:
            return a
        if d == -1:
            return neg(a)
        if d > 0:
            t, c = _linear_parts(a)
            exact = {x: co // d for x, co in t.items() if co % d == 0}
            rest = {x: co for x, co in t.items() if co % d != 0}
            cq, cr = divmod(c, d)
            if not rest:
                return add(_make_lin(exact, cq))
            if exact or cq:
                return add(_make_lin(exact, cq), floordiv(_make_lin(rest, cr), b))
            if isinstance(a, FloorDiv) and isinstance(a.b, Const) and a.b.value > 0:
                return floordiv(a.a, a.b.value * d)
            return FloorDiv(a, b)
    if isinstance(a, Const) and a.value == 0:
        return ZERO
    if a == b:
        return ONE  # valid for b != 0, which division requires anyway
    q = _exact_quotient(a, b)  # (x*t) // t == x for t != 0
    if q is not None:
        return q
    f = _common_factor(a, b)
    if f is not None:  # (f*x) // (f*y) == x // y for f != 0 (b != 0)
        return floordiv(_exact_quotient(a, f), _exact_quotient(b, f))
    g = _common_content(a, b)
    if g > 1:  # (4*i) // (4*n) == i // n: a constant factor of both sides cancels exactly
        return floordiv(_divided_by(a, g), _divided_by(b, g))
    return FloorDiv(a, b)


@_memo
def mod(a: IntLike, b: IntLike) -> Expr:
    a, b = lift(a), lift(b)
    if isinstance(b, Const):
        d = b.value
        if d == 0:
            raise ZeroDivisionError("integer modulo by zero")
        if isinstance(a, Const):
            return Const(a.value % d)
        if d in (1, -1):
            return ZERO
        if d > 0:
            t, c = _linear_parts(a)
            rest = {x: co % d for x, co in t.items() if co % d != 0}
            if not rest:
                return Const(c % d)
            if len(rest) != len(t) or c % d != c:
                return mod(_make_lin(rest, c % d), b)
            if isinstance(a, Mod) and a.b == b:
                return a
            return Mod(a, b)
    if isinstance(a, Const) and a.value == 0:
        return ZERO
    if a == b or _exact_quotient(a, b) is not None:
        return ZERO
    t, c = _linear_parts(a)
    if len(t) > 1 or c:  # (k*b + r) % b == r % b: terms that are multiples of b drop out
        rest = {x: co for x, co in t.items() if _exact_quotient(x, b) is None}
        if len(rest) < len(t):
            return mod(_make_lin(rest, c), b)
    f = _common_factor(a, b)
    if f is not None:  # (f*x) % (f*y) == f * (x % y) for f != 0 (b != 0)
        return mul(f, mod(_exact_quotient(a, f), _exact_quotient(b, f)))
    g = _common_content(a, b)
    if g > 1:  # (4*i) % (4*n) == 4 * (i % n) for a constant g > 0
        return mul(g, mod(_divided_by(a, g), _divided_by(b, g)))
    return Mod(a, b)


def _common_content(a: Expr, b: Expr) -> int:
    """The greatest positive integer dividing every coefficient and constant of both linear forms (1 when a side
    is a constant: a division by a constant is normalised on its own)."""
    if isinstance(a, Const) or isinstance(b, Const):
        return 1
    g = 0
    for e in (a, b):
        t, c = _linear_parts(e)
        g = math.gcd(g, c, *t.values())
        if g == 1:
            return 1
    return g


def _divided_by(e: Expr, g: int) -> Expr:
    """A linear form every coefficient and constant of which `g` divides, divided by `g`."""
    t, c = _linear_parts(e)
    return _make_lin({x: k // g for x, k in t.items()}, c // g)


def _common_factor(a: Expr, b: Expr) -> Expr | None:
    """A non-constant atom that divides both a and b exactly (syntactically), or None."""
    if isinstance(a, Const) or isinstance(b, (Const, Lin)):
        return None
    for f in (b.factors if isinstance(b, Mul) else (b,)):
        if f != b and _exact_quotient(a, f) is not None:
            return f
    return None


def ceildiv(a: IntLike, b: IntLike) -> Expr:
    return neg(floordiv(neg(a), b))


def _flatten(cls: type, xs: Iterable[Expr]) -> list:
    out = []
    for x in xs:
        if isinstance(x, cls):
            out.extend(x.args)
        else:
            out.append(x)
    return out


def minimum(*xs: IntLike) -> Expr:
    return _minmax(Min, [lift(x) for x in xs], min)


def maximum(*xs: IntLike) -> Expr:
    return _minmax(Max, [lift(x) for x in xs], max)


def _minmax(cls: type, xs: list, pick: Callable) -> Expr:
    xs = _flatten(cls, xs)
    consts = [x.value for x in xs if isinstance(x, Const)]
    rest = [x for x in xs if not isinstance(x, Const)]
    if consts:
        rest.append(Const(pick(consts)))
    # drop arguments dominated by a constant difference
    kept: list = []
    for x in rest:
        dominated = False
        for i, y in enumerate(kept):
            d = sub(x, y)
            if isinstance(d, Const):
                better = (d.value < 0) if cls is Min else (d.value > 0)
                if better:
                    kept[i] = x
                dominated = True
                break
        if not dominated:
            kept.append(x)
    uniq = sorted(set(kept), key=lambda e: e._key)
    if len(uniq) == 1:
        return uniq[0]
    return cls(tuple(uniq))


def absolute(x: IntLike) -> Expr:
    x = lift(x)
    if isinstance(x, Const):
        return Const(abs(x.value))
    return maximum(x, neg(x))


def ite(c: "BExpr", a: IntLike, b: IntLike) -> Expr:
    a, b = lift(a), lift(b)
    if isinstance(c, BConst):
        return a if c.value else b
    if a == b:
        return a
    return Ite(c, a, b)


def power(a: IntLike, n: int) -> Expr:
    out: Expr = ONE
    for _ in range(n):
        out = mul(out, a)
    return out


# ----------------------------------------------------------------------------- boolean constructors


def bconst(v: bool) -> BExpr:
    return TRUE if v else FALSE


def _gcd_normalise(op: str, e: Expr) -> Expr:
    t, c = _linear_parts(e)
    if not t:
        return e
    g = 0
    for k in t.values():
        g = math.gcd(g, k)
    if g <= 1:
        return e
    if op == LE:  # g*X + c <= 0  <=>  X + ceil(c/g) <= 0
        return _make_lin({a: k // g for a, k in t.items()}, -((-c) // g))
    if c % g:
        return Const(1)  # g*X == -c has no integer solution: X == ... is false, != is true
    return _make_lin({a: k // g for a, k in t.items()}, c // g)


@_memo
def _cmp(op: str, e: Expr) -> BExpr:
    e = _gcd_normalise(op, e)
    if isinstance(e, Const):
        v = e.value
        return bconst(v <= 0 if op == LE else v == 0 if op == EQ else v != 0)
    if op in (EQ, NE):
        at_max = _equal_to_max(e)
        if at_max is not None:
            return at_max if op == EQ else bnot(at_max)
        t, c = _linear_parts(e)
        lead = min(t.items(), key=lambda kv: kv[0]._key)[1] if t else 1
        if lead < 0:
            e = neg(e)
    return Cmp(op, e)


def _equal_to_max(e: Expr) -> BExpr | None:
    """`e == 0` where e is `a - max(a, b, ...)` (or its negation): `a >= b and ...`, the condition without the
    maximum (a slice's length `max(0, n)` compared with the tile's `n` becomes `n >= 0`, which intervals
    prove where the solver is lost in a large `n`)."""
    terms, c = _linear_parts(e)
    for m, co in terms.items():
        if not isinstance(m, Max) or co not in (1, -1):
            continue
        rest = _make_lin({t: k * -co for t, k in terms.items() if t is not m}, c * -co)  # e == 0 <=> rest == m
        if rest in m.args:
            return band(*(le(x, rest) for x in m.args if x != rest))
    return None


def le(a: IntLike, b: IntLike) -> BExpr:
    return _cmp(LE, sub(a, b))


def lt(a: IntLike, b: IntLike) -> BExpr:
    return _cmp(LE, add(sub(a, b), 1))


def ge(a: IntLike, b: IntLike) -> BExpr:
    return le(b, a)


def gt(a: IntLike, b: IntLike) -> BExpr:
    return lt(b, a)


def eq(a: IntLike, b: IntLike) -> BExpr:
    return _cmp(EQ, sub(a, b))


def ne(a: IntLike, b: IntLike) -> BExpr:
    return _cmp(NE, sub(a, b))


def band(*xs: BExpr) -> BExpr:
    if len(xs) > 1:
        big = max((x for x in xs if isinstance(x, BAnd)), key=lambda x: len(x.args), default=None)
        if big is not None and len(big.args) > 8 and len(xs) <= len(big.args) // 2:
            return _band_into(big, [x for x in xs if x is not big])
    out = []
    for x in xs:
        if isinstance(x, BConst):
            if not x.value:
                return FALSE
            continue
        if isinstance(x, BAnd):
            out.extend(x.args)
        else:
            out.append(x)
    uniq = sorted(set(out), key=lambda b: b._key)
    if not uniq:
        return TRUE
    if len(uniq) == 1:
        return uniq[0]
    return BAnd(tuple(uniq))


def _band_into(conj: BAnd, more: list) -> BExpr:
    """`band(conj, *more)` for a long conjunction and a few more conditions (a path condition and the next
    branch's): each is placed among the conjunction's arguments, which are sorted already, by bisection, so the
    result is the one `band` builds (the same order), in a few comparisons of large keys instead of a sort."""
    args = list(conj.args)
    keys = [a._key for a in args]
    for x in more:
        if isinstance(x, BConst):
            if not x.value:
                return FALSE
            continue
        for y in (x.args if isinstance(x, BAnd) else (x,)):
            i = bisect.bisect_left(keys, y._key)
            if i < len(keys) and args[i] == y:
                continue
            args.insert(i, y)
            keys.insert(i, y._key)
    return conj if len(args) == len(conj.args) else BAnd(tuple(args))


def bor(*xs: BExpr) -> BExpr:
    out = []
    for x in xs:
        if isinstance(x, BConst):
            if x.value:
                return TRUE
            continue
        if isinstance(x, BOr):
            out.extend(x.args)
        else:
            out.append(x)
    seen = set(out)
    if not seen:
        return FALSE
    if len(seen) == 1:
        return out[0]
    # a condition or its negation (`n >= 512 or n < 512`: the fall-through of an if/else both of whose sides
    # fall through): true whatever the condition
    if len(seen) <= 16 and any(bnot(x) in seen for x in seen if isinstance(x, Cmp)):
        return TRUE
    return BOr(tuple(sorted(seen, key=lambda b: b._key)))


def exists(vars: tuple, body: BExpr) -> BExpr:
    vs = [v for v in vars if v in free_syms(body)]
    # the one-point rule: a conjunct `v == t`, with t free of the bound variables, defines v, and
    # `exists v: v == t and P(v)` is `P(t)` (a write's copy of a loop index equal to the read's own, an
    # element index equal to the read's offset): fewer quantified variables, often none
    while vs and isinstance(body, BAnd):
        definition = _definition(body.args, vs)
        if definition is None:
            break
        body = substitute(body, definition)
        vs = [x for x in vs if x not in definition and x in free_syms(body)]
    if not vs or isinstance(body, BConst):
        return body
    return Exists(tuple(vs), body)


def _definition(conjuncts: tuple, vs: list) -> dict | None:
    """Bound variables the conjuncts define, as a substitution: every `v == t` (the first one of each v; each t
    is free of the bound variables, so they apply at once), else the two digits of one `t == m*b + r`."""
    bound = set(vs)
    out: dict = {}
    for c in conjuncts:
        v, t = _defined(c, vs, bound)
        if v is not None and v not in out:
            out[v] = t
    if out:
        return out
    for c in conjuncts:
        split = _digits_defined(c, vs, bound, conjuncts)
        if split is not None:
            return split
    return None


def _digits_defined(c: BExpr, vs: list, bound: set, conjuncts: tuple) -> dict | None:
    """{b: t // m, r: t % m} when the conjunct `c` says `t == m*b + r` for bound variables b and r, a constant
    m > 1 and a t free of bound variables, and the conjuncts bound r to [0, m): the only b and r there are
    (an element of a tile split into rows of m)."""
    if not (isinstance(c, Cmp) and c.op == EQ):
        return None
    terms, _ = _linear_parts(c.e)
    for r in vs:
        k = terms.get(r)
        if k != 1 and k != -1:
            continue
        for b in vs:
            kb = terms.get(b)
            if b is r or kb is None or kb % k or kb // k <= 1:
                continue
            m = kb // k
            rest = sub(c.e, add(mul(k, r), mul(kb, b)))  # c.e == k*(r + m*b) + rest
            if free_syms(rest) & bound or ge(r, 0) not in conjuncts or not _below(r, m, conjuncts):
                continue
            t = neg(rest) if k == 1 else rest
            return {b: floordiv(t, m), r: mod(t, m)}
    return None


def _below(r: Sym, m: int, conjuncts: tuple) -> bool:
    """A conjunct bounds r below m: `r < m`, or `r < u` with u at most m whatever its symbols (the partial
    last tile's `r < max(0, min(m, n - m*i))`)."""
    for c in conjuncts:
        if isinstance(c, Cmp) and c.op == LE:
            terms, const = _linear_parts(c.e)
            if terms.get(r) == 1:
                rest = sub(c.e, r)  # r + rest <= 0: r <= -rest
                if r not in free_syms(rest) and (hi := interval(neg(rest), {}).hi) is not None and hi <= m - 1:
                    return True
    return False


def _defined(c: BExpr, vs: list, bound: set) -> tuple:
    """(v, t) when the conjunct `c` says `v == t` for a bound variable v and a t free of bound variables."""
    if not (isinstance(c, Cmp) and c.op == EQ):
        return None, None
    terms, _ = _linear_parts(c.e)
    for v in vs:
        k = terms.get(v)
        if k == 1 or k == -1:
            rest = sub(c.e, mul(k, v))  # c.e == k*v + rest
            if not free_syms(rest) & bound:
                return v, (neg(rest) if k == 1 else rest)
    return None, None


def bnot(x: BExpr) -> BExpr:
    """`not x`, pushed through ands and ors to the comparisons."""
    if isinstance(x, BConst):
        return bconst(not x.value)
    if isinstance(x, BNot):
        return x.a
    if isinstance(x, Cmp):
        if x.op == LE:  # not (e <= 0)  <=>  -e + 1 <= 0
            return _cmp(LE, add(neg(x.e), 1))
        return _cmp(NE if x.op == EQ else EQ, x.e)
    if isinstance(x, (BAnd, BOr)):
        return _bnot_compound(x)
    return BNot(x)


@_memo
def _bnot_compound(x: BExpr) -> BExpr:
    """(memoised: a pure function of its argument, and path conditions, negated at every assert, repeat their
    sub-terms from one to the next)"""
    parts = [bnot(a) for a in x.args]
    return bor(*parts) if isinstance(x, BAnd) else band(*parts)


def implies(a: BExpr, b: BExpr) -> BExpr:
    return bor(bnot(a), b)


# ----------------------------------------------------------------------------- traversal


AnyExpr = Union[Expr, BExpr]


def children(e: AnyExpr) -> tuple:
    if isinstance(e, Lin):
        return tuple(a for a, _ in e.terms)
    if isinstance(e, Mul):
        return e.factors
    if isinstance(e, (FloorDiv, Mod)):
        return (e.a, e.b)
    if isinstance(e, (Min, Max, BAnd, BOr)):
        return e.args
    if isinstance(e, Ite):
        return (e.cond, e.a, e.b)
    if isinstance(e, Cmp):
        return (e.e,)
    if isinstance(e, BNot):
        return (e.a,)
    if isinstance(e, Exists):
        return (e.body,)
    return ()


def distinct_nodes(roots: Iterable) -> Iterator:
    """Each node of the expressions `roots` once (by identity, shared sub-terms once), depth first from the last
    root; the caller may stop early."""
    seen: set = set()
    stack = list(roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack.extend(children(e))


def free_syms(e: AnyExpr) -> frozenset:
    """All Sym/BSym leaves of an expression (cached on the node)."""
    cached = e._syms
    if cached is not None:
        return cached
    if isinstance(e, (Sym, BSym)):
        out = frozenset((e,))
    elif isinstance(e, Exists):
        out = free_syms(e.body) - frozenset(e.vars)
    else:
        acc: set = set()
        for c in children(e):
            acc |= free_syms(c)
        out = frozenset(acc)
    e._syms = out
    return out


def size(e: AnyExpr) -> int:
    """Number of nodes (cached on the node)."""
    n = e._size
    if n:
        return n
    n = 1 + sum(size(c) for c in children(e))
    e._size = n
    return n


def short(e: AnyExpr, names: Callable | None = None, limit: int = 40) -> str:
    """to_str, but an enormous expression is abbreviated."""
    if size(e) > limit:
        return "<a long expression>"
    return to_str(e, names)


def substitute(e: AnyExpr, mapping: Mapping) -> AnyExpr:
    """Replace symbols by expressions (mapping keys are Sym/BSym)."""
    if not mapping or not (free_syms(e) & mapping.keys()):
        return e
    return _subst(e, mapping, {})


def substitute_all(es: Iterable, mapping: Mapping, memo: dict | None = None) -> list:
    """`substitute` of each expression, the sub-terms they share replaced once.  `memo`: the caller's table of
    the replacements made so far with this very mapping (kept across calls that substitute it again)."""
    if memo is None:
        memo = {}
    keys = mapping.keys()
    return [_subst(e, mapping, memo) if mapping and free_syms(e) & keys else e for e in es]


def _subst(e: AnyExpr, m: Mapping, memo: dict) -> AnyExpr:
    """(memoised per call: expressions share sub-terms, and a tree walk of the DAG can be exponential)"""
    r = memo.get(e)
    if r is not None:
        return r
    r = _subst1(e, m, memo)
    memo[e] = r
    return r


def _subst1(e: AnyExpr, m: Mapping, memo: dict) -> AnyExpr:
    if not (free_syms(e) & m.keys()):
        return e
    if isinstance(e, (Sym, BSym)):
        v = m[e]
        return lift(v) if isinstance(e, Sym) else v
    if isinstance(e, Exists):
        inner = {k: v for k, v in m.items() if k not in e.vars}
        return exists(e.vars, _subst(e.body, inner, {}) if inner else e.body)
    return _rebuild(e, lambda x: _subst(x, m, memo))


def _rebuild(e: AnyExpr, f: Callable) -> AnyExpr:
    """`e` made again by the canonicalising constructors from `f` of each child (a leaf or a quantifier: `e`)."""
    if isinstance(e, Lin):
        return add(e.const, *(mul(c, f(a)) for a, c in e.terms))
    if isinstance(e, Mul):
        out: Expr = ONE
        for x in e.factors:
            out = mul(out, f(x))
        return out
    if isinstance(e, FloorDiv):
        return floordiv(f(e.a), f(e.b))
    if isinstance(e, Mod):
        return mod(f(e.a), f(e.b))
    if isinstance(e, Min):
        return minimum(*(f(a) for a in e.args))
    if isinstance(e, Max):
        return maximum(*(f(a) for a in e.args))
    if isinstance(e, Ite):
        return ite(f(e.cond), f(e.a), f(e.b))
    if isinstance(e, Cmp):
        return _cmp(e.op, f(e.e))
    if isinstance(e, BAnd):
        return band(*(f(a) for a in e.args))
    if isinstance(e, BOr):
        return bor(*(f(a) for a in e.args))
    if isinstance(e, BNot):
        return bnot(f(e.a))
    return e


def branch_values(x: Expr) -> set | None:
    """The values a conditional of numbers takes (None when a branch is not a number): a table of a few
    values, like an item size per dtype or a tile factor per degree."""
    if isinstance(x, Const):
        return {x.value}
    if isinstance(x, Ite):
        a, b = branch_values(x.a), branch_values(x.b)
        return None if a is None or b is None else a | b
    return None


def value_cases(choices: list) -> Iterator[dict]:
    """Each combination of values of [(conditional, its values)], as a replacement table for `replace_nodes`
    (one case per way the tables can evaluate; a single empty one for no tables)."""
    for picked in itertools.product(*(values for _node, values in choices)):
        yield {node: const(v) for (node, _values), v in zip(choices, picked)}


def ite_conditions(e: AnyExpr, products: bool = False) -> list:
    """The distinct conditions of the conditionals in `e`, outermost first.  `products`: only of those that
    multiply (a factor of a product, a divisor), whose branches leave the product linear when constant."""
    out: list = []
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop(0)
        if x in seen:
            continue
        seen.add(x)
        if products:
            if isinstance(x, Mul):
                found = [f for f in x.factors if isinstance(f, Ite)]
            elif isinstance(x, (FloorDiv, Mod)):
                found = [x.b] if isinstance(x.b, Ite) else []
            else:
                found = []
        else:
            found = [x] if isinstance(x, Ite) else []
        out.extend(f.cond for f in found if f.cond not in out)
        stack.extend(children(x))
    return out


def replace_nodes(e: AnyExpr, table: Mapping, memo: dict | None = None) -> AnyExpr:
    """`e` with the sub-expressions of `table` replaced by their values (each rebuilt by the canonicalising
    constructors)."""
    memo = {} if memo is None else memo
    hit = table.get(e)
    if hit is not None:
        return hit
    r = memo.get(e)
    if r is None:
        r = memo[e] = _rebuild(e, lambda x: replace_nodes(x, table, memo)) if children(e) else e
    return r


def settle(e: AnyExpr, cond: "BExpr", value: bool) -> AnyExpr:
    """`e` where `cond` has the truth value `value`: each conditional on it replaced by its branch, and each
    occurrence of it as a boolean by the constant."""
    return _settle(e, cond, value, {})


def _settle(e: AnyExpr, c: "BExpr", v: bool, memo: dict) -> AnyExpr:
    r = memo.get(e)
    if r is not None:
        return r
    if e == c:
        r = TRUE if v else FALSE
    elif isinstance(e, Ite) and e.cond == c:
        r = _settle(e.a if v else e.b, c, v, memo)
    else:
        r = _rebuild(e, lambda x: _settle(x, c, v, memo))  # (a quantifier's body is left alone)
    memo[e] = r
    return r


def evaluate(e: AnyExpr, env: Mapping, memo: dict | None = None) -> Union[int, bool]:
    """Evaluate with every free symbol bound in `env` (Sym -> int).  `memo` (node id -> value, for one `env`):
    each shared sub-term evaluated once, as large DAGs need."""
    if memo is not None:
        r = memo.get(id(e))
        if r is not None:
            return r
    if isinstance(e, (Const, BConst)):
        r = e.value
    elif isinstance(e, (Sym, BSym)):
        r = env[e]
    elif isinstance(e, Lin):
        r = e.const + sum(c * evaluate(a, env, memo) for a, c in e.terms)
    elif isinstance(e, Mul):
        r = 1
        for f in e.factors:
            r *= evaluate(f, env, memo)
    elif isinstance(e, FloorDiv):
        r = evaluate(e.a, env, memo) // evaluate(e.b, env, memo)
    elif isinstance(e, Mod):
        r = evaluate(e.a, env, memo) % evaluate(e.b, env, memo)
    elif isinstance(e, Min):
        r = min(evaluate(a, env, memo) for a in e.args)
    elif isinstance(e, Max):
        r = max(evaluate(a, env, memo) for a in e.args)
    elif isinstance(e, Ite):
        r = evaluate(e.a, env, memo) if evaluate(e.cond, env, memo) else evaluate(e.b, env, memo)
    elif isinstance(e, Cmp):
        v = evaluate(e.e, env, memo)
        r = v <= 0 if e.op == LE else (v == 0 if e.op == EQ else v != 0)
    elif isinstance(e, BAnd):
        r = all(evaluate(a, env, memo) for a in e.args)
    elif isinstance(e, BOr):
        r = any(evaluate(a, env, memo) for a in e.args)
    elif isinstance(e, BNot):
        r = not evaluate(e.a, env, memo)
    else:
        raise TypeError(f"cannot evaluate {type(e).__name__}")
    if memo is not None:
        memo[id(e)] = r
    return r


# ----------------------------------------------------------------------------- intervals


class Interval:
    """A closed integer interval with optional infinite ends."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo: Bound, hi: Bound) -> None:
        self.lo, self.hi = lo, hi

    def __repr__(self) -> str:
        return f"[{'-inf' if self.lo is None else self.lo}, {'inf' if self.hi is None else self.hi}]"

    @property
    def empty(self) -> bool:
        return self.lo is not None and self.hi is not None and self.lo > self.hi


TOP = Interval(None, None)


def _iadd(a: Interval, b: Interval) -> Interval:
    return Interval(
        None if a.lo is None or b.lo is None else a.lo + b.lo,
        None if a.hi is None or b.hi is None else a.hi + b.hi,
    )


def _iscale(a: Interval, k: int) -> Interval:
    if k >= 0:
        return Interval(None if a.lo is None else a.lo * k, None if a.hi is None else a.hi * k)
    return Interval(None if a.hi is None else a.hi * k, None if a.lo is None else a.lo * k)


def _imul(a: Interval, b: Interval) -> Interval:
    if a.lo is not None and a.lo == a.hi:
        return _iscale(b, a.lo)
    if b.lo is not None and b.lo == b.hi:
        return _iscale(a, b.lo)
    if a.lo is not None and b.lo is not None and a.lo >= 0 and b.lo >= 0:
        hi = None if a.hi is None or b.hi is None else a.hi * b.hi
        return Interval(a.lo * b.lo, hi)
    if None in (a.lo, a.hi, b.lo, b.hi):
        return TOP
    ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return Interval(min(ps), max(ps))


def _ifloordiv(a: Interval, b: Interval) -> Interval:
    if b.lo is None or b.lo <= 0:
        return TOP
    if a.lo is None:
        lo = None
    elif a.lo >= 0:
        lo = 0 if b.hi is None else a.lo // b.hi  # the largest divisor gives the smallest quotient
    else:
        lo = a.lo // b.lo  # a negative dividend: the smallest divisor gives the most negative quotient
    if a.hi is None:
        hi = None
    elif a.hi >= 0:
        hi = a.hi // b.lo
    else:
        hi = a.hi // b.hi if b.hi is not None else -1
    return Interval(lo, hi)


def _imod(a: Interval, b: Interval) -> Interval:
    if b.lo is None or b.lo <= 0:
        return TOP
    top = None if b.hi is None else b.hi - 1
    if a.lo is not None and a.lo >= 0 and a.hi is not None and top is not None and a.hi <= top:
        if b.lo > a.hi:
            return Interval(a.lo, a.hi)
    if a.lo is not None and a.lo >= 0:
        hi = top if a.hi is None or top is None else min(a.hi, top)
        return Interval(0, hi)
    return Interval(0, top)


def _imin(xs: list) -> Interval:
    lo = None if any(x.lo is None for x in xs) else min(x.lo for x in xs)
    his = [x.hi for x in xs if x.hi is not None]
    return Interval(lo, min(his) if his else None)


def _imax(xs: list) -> Interval:
    los = [x.lo for x in xs if x.lo is not None]
    hi = None if any(x.hi is None for x in xs) else max(x.hi for x in xs)
    return Interval(max(los) if los else None, hi)


def _ijoin(a: Interval, b: Interval) -> Interval:
    lo = None if a.lo is None or b.lo is None else min(a.lo, b.lo)
    hi = None if a.hi is None or b.hi is None else max(a.hi, b.hi)
    return Interval(lo, hi)


def interval(e: Expr, ranges: Mapping, nonzero_divisors: bool = False, memo: dict | None = None) -> Interval:
    """Sound interval of `e` given intervals for its symbols (missing = unbounded).  With
    `nonzero_divisors`, a divisor is taken as non-zero (the kernel divides by it, so it is not zero wherever
    the kernel runs); `memo` caches sub-terms across calls on one expression DAG (one is made per call
    otherwise: sub-terms are shared, and a chain of conditionals would be walked once per path)."""
    t = type(e)
    if t is Const:
        return Interval(e.value, e.value)
    if t is Sym:
        return ranges.get(e, TOP)
    return _interval(e, ranges, nonzero_divisors, {} if memo is None else memo)


def _interval(e: Expr, ranges: Mapping, nz: bool, m: dict) -> Interval:
    """`interval` of a compound node (leaves are worked out in place, without the memo)."""
    r = m.get(e)
    if r is not None:
        return r
    t = type(e)
    if t is Lin:
        r = Interval(e.const, e.const)
        for a, c in e.terms:
            ta = type(a)
            iv = Interval(a.value, a.value) if ta is Const else ranges.get(a, TOP) if ta is Sym else \
                _interval(a, ranges, nz, m)
            r = _iadd(r, _iscale(iv, c))
    elif t is Mul:
        r = Interval(1, 1)
        for f in e.factors:
            r = _imul(r, interval(f, ranges, nz, m))
    elif t is FloorDiv or t is Mod:
        d = interval(e.b, ranges, nz, m)
        d = _nonzero_divisor(d) if nz else d
        r = (_ifloordiv if t is FloorDiv else _imod)(interval(e.a, ranges, nz, m), d)
    elif t is Min:
        r = _imin([interval(a, ranges, nz, m) for a in e.args])
    elif t is Max:
        r = _imax([interval(a, ranges, nz, m) for a in e.args])
    elif t is Ite:
        r = _ijoin(interval(e.a, ranges, nz, m), interval(e.b, ranges, nz, m))
    else:
        r = TOP
    known = ranges.get(e)  # a bound the facts state of the term itself (`min(128, n // g) != 0`)
    if known is not None:
        r = _imeet(r, known)
    m[e] = r
    return r


def _imeet(a: Interval, b: Interval) -> Interval:
    lo = b.lo if a.lo is None else a.lo if b.lo is None else max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    return Interval(lo, hi)


def decide(b: BExpr, ranges: Mapping, nonzero_divisors: bool = False, memo: dict | None = None) -> bool | None:
    """True/False when interval reasoning settles `b`, else None (options as for `interval`)."""
    if isinstance(b, BConst):
        return b.value
    if memo is None:
        memo = {}
    if isinstance(b, Cmp):
        iv = interval(b.e, ranges, nonzero_divisors, memo)
        if b.op == LE:
            if iv.hi is not None and iv.hi <= 0:
                return True
            if iv.lo is not None and iv.lo > 0:
                return False
            return None
        zero_in = (iv.lo is None or iv.lo <= 0) and (iv.hi is None or iv.hi >= 0)
        if iv.lo is not None and iv.lo == iv.hi == 0:
            return b.op == EQ
        if not zero_in:
            return b.op == NE
        return None
    if isinstance(b, BAnd):
        vals = [decide(a, ranges, nonzero_divisors, memo) for a in b.args]
        if any(v is False for v in vals):
            return False
        if all(v is True for v in vals):
            return True
        return None
    if isinstance(b, BOr):
        vals = [decide(a, ranges, nonzero_divisors, memo) for a in b.args]
        if any(v is True for v in vals):
            return True
        if all(v is False for v in vals):
            return False
        return None
    if isinstance(b, BNot):
        v = decide(b.a, ranges, nonzero_divisors, memo)
        return None if v is None else not v
    return None


# ----------------------------------------------------------------------------- printing


def to_str(e: AnyExpr, names: Callable[[Union[Sym, BSym]], str] | None = None) -> str:
    return _Printer(names).show(e, 0)


_PREC_ADD, _PREC_MUL, _PREC_ATOM = 1, 2, 3


def _tz(n: int) -> int:
    """Trailing zero bits (0 counts as very round)."""
    if n == 0:
        return 64
    return (n & -n).bit_length() - 1


class _Printer:
    def __init__(self, names: Callable | None) -> None:
        self.names = names

    def name(self, s: Union[Sym, BSym]) -> str:
        return self.names(s) if self.names else s.name

    def show(self, e: AnyExpr, prec: int) -> str:
        text, p = self._show(e)
        return f"({text})" if p < prec else text

    def _show(self, e: AnyExpr) -> tuple:
        if isinstance(e, Const):
            return (str(e.value), _PREC_ATOM if e.value >= 0 else _PREC_ADD)
        if isinstance(e, (Sym, BSym)):
            return (self.name(e), _PREC_ATOM)
        if isinstance(e, BConst):
            return ("True" if e.value else "False", _PREC_ATOM)
        if isinstance(e, Lin):
            return (self._lin(e), _PREC_ADD)
        if isinstance(e, Mul):
            return ("*".join(self.show(f, _PREC_MUL + 1) for f in e.factors), _PREC_MUL)
        if isinstance(e, FloorDiv):
            return (f"{self.show(e.a, _PREC_MUL)} // {self.show(e.b, _PREC_MUL + 1)}", _PREC_MUL)
        if isinstance(e, Mod):
            return (f"{self.show(e.a, _PREC_MUL)} % {self.show(e.b, _PREC_MUL + 1)}", _PREC_MUL)
        if isinstance(e, Min):
            return ("min(" + ", ".join(self.show(a, 0) for a in e.args) + ")", _PREC_ATOM)
        if isinstance(e, Max):
            return ("max(" + ", ".join(self.show(a, 0) for a in e.args) + ")", _PREC_ATOM)
        if isinstance(e, Ite):
            return (f"({self.show(e.a, 0)} if {self.show(e.cond, 0)} else {self.show(e.b, 0)})", _PREC_ATOM)
        if isinstance(e, Cmp):
            return (self._cmp(e), 0)
        if isinstance(e, BAnd):
            return (" and ".join(self.show(a, 1) for a in e.args), 0)
        if isinstance(e, BOr):
            return (" or ".join(self.show(a, 1) for a in e.args), 0)
        if isinstance(e, BNot):
            return ("not " + self.show(e.a, 1), 0)
        if isinstance(e, Exists):
            return ("exists " + ", ".join(self.show(v, 0) for v in e.vars) + ": " + self.show(e.body, 0), 0)
        return ("?", _PREC_ATOM)

    def _term(self, a: Expr, c: int, lead_neg: bool = False) -> str:
        if abs(c) != 1:
            return f"{abs(c)}*{self.show(a, _PREC_MUL + 1)}"
        # a leading unary minus binds tighter than * and //: parenthesise those
        return self.show(a, _PREC_ATOM if lead_neg else _PREC_MUL)

    def _lin(self, e: Lin) -> str:
        parts = []
        for i, (a, c) in enumerate(e.terms):
            t = self._term(a, c, lead_neg=(i == 0 and c < 0))
            if i == 0:
                parts.append(("-" if c < 0 else "") + t)
            else:
                parts.append(("- " if c < 0 else "+ ") + t)
        if e.const:
            parts.append(("- " if e.const < 0 else "+ ") + str(abs(e.const)))
        return " ".join(parts)

    def _cmp(self, e: Cmp) -> str:
        # split the linear form into positive and negative sides for readability
        t, c = _linear_parts(e.e)
        pos = {a: k for a, k in t.items() if k > 0}
        negs = {a: -k for a, k in t.items() if k < 0}
        op = e.op
        if op == LE and _tz(abs(c - 1)) > _tz(abs(c)):  # pos + 129 <= neg  reads as  pos + 128 < neg
            op, c = "<", c - 1
        lhs = _make_lin(pos, max(c, 0))
        rhs = _make_lin(negs, max(-c, 0))
        if isinstance(lhs, Const) and not isinstance(rhs, Const):  # "x >= 512" reads better than "512 <= x"
            flipped = {"<=": ">=", "<": ">", "==": "==", "!=": "!="}[op]
            return f"{self.show(rhs, 1)} {flipped} {self.show(lhs, 1)}"
        return f"{self.show(lhs, 1)} {op} {self.show(rhs, 1)}"


def refine_ranges(ranges: dict, cond: BExpr) -> None:
    """Tighten intervals in place with the simple facts of `cond` (s <= c, s >= c, s == c, s != c): of symbols,
    and of compound terms (`min(128, n // g) != 0`, the divisor of a division the kernel made), which `interval`
    meets with what it computes for the term."""
    parts = cond.args if isinstance(cond, BAnd) else (cond,)
    for p in parts:
        if not isinstance(p, Cmp):
            continue
        e = p.e
        if isinstance(e, Lin) and len(e.terms) == 1:
            (s, k), c = e.terms[0], e.const
        elif isinstance(e, (Const, Lin)):
            if p.op == LE and isinstance(e, Lin) and len(e.terms) == 2:
                _refine_pair(ranges, e)
            continue
        else:
            s, k, c = e, 1, 0
        if k not in (1, -1):
            continue
        iv = interval(s, ranges)
        lo, hi = iv.lo, iv.hi
        if p.op == NE:  # s != v trims an end of the interval that is v
            v = -c * k
            if lo is not None and lo == v:
                lo += 1
            elif hi is not None and hi == v:
                hi -= 1
        elif p.op == EQ:
            lo = hi = -c * k
        elif k == 1:  # s + c <= 0
            hi = -c if hi is None else min(hi, -c)
        else:  # -s + c <= 0
            lo = c if lo is None else max(lo, c)
        ranges[s] = Interval(lo, hi)


def _refine_pair(ranges: dict, e: Lin) -> None:
    """`-x + ky*y + c <= 0` bounds x from below by y's interval, for x a symbol or `(s + c0) // d` (then a bound
    on s): `i < n` with i >= 0 says n >= 1, and `i < (n + 511) // 512` says n >= 1 (an enclosing loop runs at
    least once wherever its body is reached).  (Upper bounds so derived would replace symbolic ones a loop
    index has, `j < min(128, n - 128*i)`, by constants, and the analyses that compare digit widths need those.)"""
    for (x, kx), (y, ky) in ((e.terms[0], e.terms[1]), (e.terms[1], e.terms[0])):
        if kx != -1:
            continue
        iy = interval(y, ranges)
        end = iy.lo if ky > 0 else iy.hi
        if end is None:
            continue
        least = e.const + ky * end  # x >= least
        if isinstance(x, Sym):
            s = x
        elif isinstance(x, FloorDiv) and isinstance(x.b, Const) and x.b.value > 0:
            ta, ca = _linear_parts(x.a)
            if len(ta) != 1:
                continue
            ((s, ks),) = ta.items()
            if not isinstance(s, Sym) or ks != 1:
                continue
            least = least * x.b.value - ca  # (s + ca) // d >= B  <=>  s >= B*d - ca
        else:
            continue
        iv = ranges.get(s, TOP)
        ranges[s] = Interval(least if iv.lo is None else max(iv.lo, least), iv.hi)


def fixed_by(ranges: Mapping) -> dict:
    """The symbols whose intervals hold one value, as constants: a substitution valid wherever the ranges
    hold."""
    return {s: Const(iv.lo) for s, iv in ranges.items()
            if isinstance(s, Sym) and iv.lo is not None and iv.lo == iv.hi}


# ----------------------------------------------------------------------------- simplification under ranges


def _nonzero_divisor(iv: Interval) -> Interval:
    """A divisor the kernel divides by is not zero (Python would raise before any instruction ran): an
    interval starting at 0 starts at 1."""
    return Interval(1, iv.hi) if iv.lo == 0 and (iv.hi is None or iv.hi >= 1) else iv


def _exact_quotient(a: Expr, b: Expr) -> Expr | None:
    """q with a == q * b syntactically (b a non-constant atom or product of atoms), else None."""
    if isinstance(b, Const):
        return None
    if a == b:
        return const(1)
    want = list(b.factors) if isinstance(b, Mul) else [b]
    if isinstance(a, Mul):
        rest = list(a.factors)
        for f in want:
            if f not in rest:
                return None
            rest.remove(f)
        out: Expr = const(1)
        for f in rest:
            out = mul(out, f)
        return out
    if isinstance(a, Lin) and a.const == 0 and a.terms:
        parts = []
        for atom, c in a.terms:
            q = _exact_quotient(atom, b)
            if q is None:
                return None
            parts.append(mul(c, q))
        return add(*parts)
    return None


def simplify_in(e: AnyExpr, ranges: Mapping) -> AnyExpr:
    """`e` with the min/max arguments, remainders, quotients and conditionals that the symbols' intervals
    settle replaced by what they are (`max(0, x % m)` -> `x % m`); equal to `e` wherever the ranges hold and
    no divisor is zero.  Bound variables of quantifiers are left alone."""
    return simplify_all([e], ranges)[0]


def simplify_all(es: Iterable, ranges: Mapping) -> list:
    """`simplify_in` of each expression, under the same ranges: the sub-terms they share (a kernel's facts
    repeat its sizes and tile counts) are simplified once."""
    memo: dict = {}
    ivs: dict = {}

    def itv(x: Expr) -> Interval:
        return interval(x, ranges, True, ivs)

    def below(a: Interval, b: Interval) -> bool:  # every value of a <= every value of b
        return a.hi is not None and b.lo is not None and a.hi <= b.lo

    def go(x: AnyExpr) -> AnyExpr:
        r = memo.get(x)
        if r is not None:
            return r
        r = x
        if isinstance(x, Lin):
            r = add(*[mul(c, go(a)) for a, c in x.terms], x.const)
        elif isinstance(x, Mul):
            r = go(x.factors[0])
            for f in x.factors[1:]:
                r = mul(r, go(f))
        elif isinstance(x, (FloorDiv, Mod)):  # the constructors also cancel exact quotients: (a*t) // t == a
            a, b = go(x.a), go(x.b)
            ia, ib = itv(a), _nonzero_divisor(itv(b))
            small = ia.lo is not None and ia.lo >= 0 and ia.hi is not None and ib.lo is not None and ia.hi < ib.lo
            try:
                if isinstance(x, FloorDiv):
                    r = const(0) if small else floordiv(a, b)
                else:
                    r = a if small else mod(a, b)
            except ZeroDivisionError:
                r = x  # a divisor that is zero wherever the ranges hold: leave it to the solver
        elif isinstance(x, (Min, Max)):
            args = [go(a) for a in x.args]
            spans = [itv(a) for a in args]
            keep = []
            for i, (a, s) in enumerate(zip(args, spans)):
                # drop an argument another one always beats (ties: keep the first)
                beaten = any((below(t, s) if isinstance(x, Min) else below(s, t)) and (j < i or t.lo != t.hi or
                             s.lo != s.hi or t.lo != s.lo) for j, t in enumerate(spans) if j != i)
                if not beaten:
                    keep.append(a)
            keep = keep or args[:1]
            r = minimum(*keep) if isinstance(x, Min) else maximum(*keep)
        elif isinstance(x, Ite):
            c = go(x.cond)
            v = decide(c, ranges, True, ivs)
            r = go(x.a) if v is True else go(x.b) if v is False else ite(c, go(x.a), go(x.b))
        elif isinstance(x, Cmp):
            inner = go(x.e)
            r = _cmp(x.op, inner) if inner is not x.e else x
            v = decide(r, ranges, True, ivs)
            if v is not None:
                r = bconst(v)
        elif isinstance(x, BAnd):
            r = band(*[go(a) for a in x.args])
        elif isinstance(x, BOr):
            r = bor(*[go(a) for a in x.args])
        elif isinstance(x, BNot):
            r = bnot(go(x.a))
        memo[x] = r
        return r

    return [go(e) for e in es]
