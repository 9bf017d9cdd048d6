"""Python operators on abstract values: arithmetic, comparison, truth, merging.

Operators dispatch through tables keyed by the AST operator class.  Integer
arithmetic on symbolic values builds `compiler.expr` expressions; tensors
route to the NKI model (Beta-1 tile arithmetic becomes instructions).
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from .. import expr as E
from . import values as V


def _floordiv(a: E.IntLike, b: E.IntLike) -> E.IntLike:
    return E.lower(E.floordiv(a, b))


def _mod(a: E.IntLike, b: E.IntLike) -> E.IntLike:
    return E.lower(E.mod(a, b))


INT_BINOPS = {
    ast.Add: lambda a, b: E.lower(E.add(a, b)),
    ast.Sub: lambda a, b: E.lower(E.sub(a, b)),
    ast.Mult: lambda a, b: E.lower(E.mul(a, b)),
    ast.FloorDiv: _floordiv,
    ast.Mod: _mod,
}

PY_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}

CMP_INT = {
    ast.Lt: E.lt, ast.LtE: E.le, ast.Gt: E.gt, ast.GtE: E.ge, ast.Eq: E.eq, ast.NotEq: E.ne,
}

PY_CMP = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}

# tile operators (Beta 1 overloads, Beta-2 wrappers) -> nki.language function
TILE_BINOPS = {
    ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power",
    ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor", ast.LShift: "left_shift",
    ast.RShift: "right_shift", ast.Mod: "mod", ast.MatMult: "matmul",
}
TILE_CMPS = {
    ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal", ast.Eq: "equal",
    ast.NotEq: "not_equal",
}

SCALAR_TYPES = (int, float, bool, str, type(None), bytes)


def _nc_gen(v: Any) -> Any:
    """nisa.nc_version.genN compares like the integer N (`get_nc_version() >= 3`)."""
    if isinstance(v, V.ApiVal) and v.path.startswith("isa.nc_version.gen"):
        try:
            return int(v.path.rsplit("gen", 1)[1])
        except ValueError:
            return v
    return v


def _internal_api(v: Any) -> bool:
    """A member of an internal NKI module (`nki._pre_prod_kernels...`, `nki.private_api...`)."""
    return isinstance(v, V.ApiVal) and any(p.startswith("_") or p == "private_api" for p in v.path.split(".")[:-1])


def _internal_beside_int(a: Any, b: Any) -> bool:
    """One operand an internal NKI module's constant, the other a number: both are numbers (see as_int)."""
    return (_internal_api(a) and V.is_int(b)) or (_internal_api(b) and V.is_int(a))


class OpsMixin:
    """Operators; mixed into the Interpreter (uses self.kb, self.fresh_int, ...)."""

    # ------------------------------------------------------------------ conversions
    def as_int(self, v: Any, what: str = "value") -> E.IntLike:
        """An int or Expr for v; unknown values become fresh unconstrained symbols."""
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            return v
        if isinstance(v, E.Expr):
            return E.lower(v)
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, V.Register):
            return v.known if v.known is not None else v.sym
        if isinstance(v, V.EnumMember) and V.is_int(v.value):
            return v.value
        if isinstance(v, V.Phi):
            return E.lower(E.ite(v.cond, self.as_int(v.a, what), self.as_int(v.b, what)))
        if isinstance(v, V.Unknown):
            return self.fresh_int(v.reason if v.span is not None else f"<{v.reason}>")
        if isinstance(v, V.SymFloat):
            return self.fresh_int(f"<float {what}>")
        if _internal_api(v) and self.kb is not None:
            # a constant of an internal NKI module (`from neuronxcc.nki._pre_prod_kernels.x import TILE_SIZE`):
            # said once, then one unknown number for every use, so that what does not depend on it is checked
            memo = self.__dict__.setdefault("_api_numbers", {})
            key = (id(self.kb), v.path)
            if key not in memo:
                self.not_understood(f"nki.{v.path} (an internal NKI module's constant) is not modelled by the "
                                    "verifier: its value is unknown", self.current_stmt)
                memo[key] = (self.kb, self.fresh_int(f"nki.{v.path}"))
            return memo[key][1]
        self.none_fails_for_rank(v)
        raise V.NotUnderstood(f"expected an integer for {what}, got {V.describe(v)}")

    def none_fails_for_rank(self, *values: Any) -> None:
        """In a run for one rank of an input the kernel uses with several (or dispatches on, analysed once per
        rank), None where a number is needed (the number of experts a helper leaves at None for 2-D weights,
        read by the code for 4-D ones) fails tracing there, as unpacking the shape with the wrong length does:
        the path is not one this rank takes, and is dropped."""
        if any(v is None for v in values) and (getattr(self, "_rank_split", None) or
                                               getattr(self, "_rank_tests", None)):
            raise V.PathAbort()

    def as_bexpr(self, v: Any) -> E.BExpr:
        t = self.truth(v)
        return E.bconst(t) if isinstance(t, bool) else t

    def truth(self, v: Any) -> Any:
        """Python truthiness: a bool when known, else a BExpr."""
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float, str, bytes, type(None))):
            return bool(v)
        if isinstance(v, E.BExpr):
            return v.value if isinstance(v, E.BConst) else v
        if isinstance(v, E.Expr):
            b = E.ne(v, 0)
            return b.value if isinstance(b, E.BConst) else b
        if isinstance(v, tuple):
            return len(v) > 0
        if isinstance(v, V.PyList):
            if v.tail is None or v.items:
                return len(v.items) > 0 or v.tail is not None and self._seq_nonempty(v.tail)
            return self._seq_nonempty(v.tail)
        if isinstance(v, V.SymSeq):
            return self._seq_nonempty(v)
        if isinstance(v, V.PyDict):
            return len(v.items) > 0
        if isinstance(v, V.Phi):
            a, b = self.as_bexpr(v.a), self.as_bexpr(v.b)
            r = E.bor(E.band(v.cond, a), E.band(E.bnot(v.cond), b))
            return r.value if isinstance(r, E.BConst) else r
        if isinstance(v, V.Unknown):
            return self.fresh_bool(f"<{v.reason}>")
        if isinstance(v, V.SymFloat):
            if v.num is not None:
                return self.truth(v.num)
            return self.fresh_bool("<float>")
        if isinstance(v, V.Register):
            raise V.NotUnderstood("a register's value is only known at run time; use it as a loop bound or "
                                  "scalar_offset, not in a Python condition")
        if isinstance(v, V.Instance):
            meth = v.cls.lookup("__bool__")
            if meth is V.MISSING:
                meth = v.cls.lookup("__len__")
            if meth is not V.MISSING:
                return self.truth(self.call_value(meth, [v], {}, None))
            return True
        if isinstance(v, V.TensorVal):
            # `if flag:` on a parameter only guessed to be a tensor (no annotation, no default): a flag or a count
            self.retry_kind(v, V.KIND_INT)
        return True

    def _seq_nonempty(self, s: V.SymSeq) -> Any:
        b = E.gt(s.length, 0)
        return b.value if isinstance(b, E.BConst) else b

    # ------------------------------------------------------------------ binary operators
    def binop(self, op: type, a: Any, b: Any, node: ast.AST | None = None) -> Any:
        if isinstance(a, V.Phi) or isinstance(b, V.Phi):
            return self._phi_map2(a, b, lambda x, y: self.binop(op, x, y, node))
        if isinstance(a, (V.TensorVal, V.IndexGrid)) or isinstance(b, (V.TensorVal, V.IndexGrid)):
            return self.tensor_binop(op, a, b, node)
        if isinstance(a, V.Instance) or isinstance(b, V.Instance):
            return self._instance_binop(op, a, b, node)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and (isinstance(a, E.BExpr) or isinstance(b, E.BExpr)) and \
                all(isinstance(x, (E.BExpr, bool)) for x in (a, b)):
            # `(i_p < 64) & (i_f < 256)`: a conjunction of conditions (Beta-1 masks)
            x, y = self.as_bexpr(a), self.as_bexpr(b)
            r = E.band(x, y) if op is ast.BitAnd else E.bor(x, y) if op is ast.BitOr else \
                E.bor(E.band(x, E.bnot(y)), E.band(E.bnot(x), y))
            return r.value if isinstance(r, E.BConst) else r
        if op in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod) and \
                (isinstance(a, E.BExpr) or isinstance(b, E.BExpr)) and \
                all(isinstance(x, (E.BExpr, bool)) or V.is_int(x) for x in (a, b)):
            # a symbolic bool in arithmetic is the int 0 or 1 (`n + flag`)
            a, b = (E.lower(E.ite(x, 1, 0)) if isinstance(x, E.BExpr) else x for x in (a, b))
        int_like = (V.is_int(a) or isinstance(a, bool)) and (V.is_int(b) or isinstance(b, bool))
        if int_like and not (isinstance(a, bool) and isinstance(b, bool)):
            a, b = int(a) if isinstance(a, bool) else a, int(b) if isinstance(b, bool) else b
            if isinstance(a, int) and isinstance(b, int):
                return self._py_binop(op, a, b, node)
            fn = INT_BINOPS.get(op)
            if fn is not None:
                if op in (ast.FloorDiv, ast.Mod) and self._maybe_zero(b):
                    self.note_division(b, node)
                    if isinstance(b, int) or isinstance(b, E.Const):
                        raise V.PathAbort()  # Python raises ZeroDivisionError while tracing
                return fn(a, b)
            if op is ast.Div and isinstance(b, int) and b == 0:
                self.note_division(0, node)
                raise V.PathAbort()
            if op is ast.Div:
                if self._maybe_zero(b):
                    self.note_division(b, node)  # `math.ceil(n / f)`: f != 0 on every path that goes on
                return V.SymFloat(E.lift(a), E.lift(b))
            if op is ast.Pow and isinstance(b, int) and 0 <= b <= 8:
                return E.lower(E.power(a, b))
            if op is ast.BitAnd:
                bits = self._clear_lowest_bit(a, b)
                if bits is not None:
                    return bits
            if op in (ast.LShift,) and isinstance(b, int) and 0 <= b < 63:
                return E.lower(E.mul(a, 1 << b))
            if op in (ast.RShift,) and isinstance(b, int) and 0 <= b < 63:
                return E.lower(E.floordiv(a, 1 << b))
            return self.fresh_int(f"<{ast.unparse(node) if node is not None else 'int expression'}>")
        if isinstance(a, SCALAR_TYPES) and isinstance(b, SCALAR_TYPES):
            return self._py_binop(op, a, b, node)
        if isinstance(a, tuple) and isinstance(b, tuple) and op is ast.Add:
            return a + b
        if isinstance(a, tuple) and V.is_known_int(b) and op is ast.Mult:
            return a * b
        if isinstance(a, V.PyList) and isinstance(b, V.PyList) and op is ast.Add:
            if a.tail is None and b.tail is None:
                return V.PyList(self.heap, a.items + b.items)
            if a.tail is None and b.tail is not None:
                return V.PyList(self.heap, a.items + b.items, b.tail)  # `[first] + rest`: known items, then the rest
        if isinstance(a, V.PyList) and V.is_known_int(b) and op is ast.Mult and a.tail is None:
            return V.PyList(self.heap, a.items * b)
        if isinstance(a, V.PyList) and V.is_int(b) and op is ast.Mult and a.tail is None and len(a.items) == 1:
            return V.PyList(self.heap, [], V.SymSeq(self.fresh_seq_var(), b, a.items[0]))
        if isinstance(a, str) and op is ast.Mod:
            return "<formatted>"
        if isinstance(a, V.HostArray) or isinstance(b, V.HostArray):
            return self.host_binop(op, a, b)  # `(np.random.random_sample(shape) - 0.5) * 2`: the array's shape
        if isinstance(a, (float, V.SymFloat)) or isinstance(b, (float, V.SymFloat)):
            return self._float_binop(op, a, b)
        if isinstance(a, (V.Unknown, V.HostArray)) or isinstance(b, (V.Unknown, V.HostArray)):
            return self.host_binop(op, a, b)
        if _internal_beside_int(a, b):
            return self.binop(op, self.as_int(a), self.as_int(b), node)
        if isinstance(a, (V.DTypeVal, V.ApiVal)) or isinstance(b, (V.DTypeVal, V.ApiVal)):
            return V.Unknown("operator on an NKI API value")
        for x in (a, b):
            # a constant imported from a module not found (`PSUM_BANK_SIZE` of nkilib without nkilib): the module
            # is said once, the arithmetic on it is unknown (and said no more)
            if isinstance(x, V.ExternalVal) and self.missing_module(x.path, node, x.path):
                return V.Unknown(f"arithmetic on {x.path}", self.span(node))
        raise V.NotUnderstood(f"operator {op.__name__} on {V.describe(a)} and {V.describe(b)}")

    def _py_binop(self, op: type, a: Any, b: Any, node: ast.AST | None) -> Any:
        fn = PY_BINOPS.get(op)
        if fn is None:
            raise V.NotUnderstood(f"operator {op.__name__}")
        try:
            return fn(a, b)
        except ZeroDivisionError:
            self.note_division(0, node)
            raise V.PathAbort() from None
        except (TypeError, ValueError, OverflowError) as exc:
            self.none_fails_for_rank(a, b)
            raise V.NotUnderstood(f"operator {op.__name__} on {V.describe(a)} and {V.describe(b)}: {exc}") from None

    def _maybe_zero(self, b: E.IntLike) -> bool:
        if isinstance(b, int):
            return b == 0
        iv = E.interval(b, self.ranges())
        return not (iv.lo is not None and iv.lo > 0 or iv.hi is not None and iv.hi < 0)

    def note_division(self, b: Any, node: ast.AST | None) -> None:
        """Python raises at trace time on a zero divisor: inputs that make it zero are not admissible."""
        if self.kb is None or node is None:
            return
        if isinstance(b, int):
            if b == 0:
                self.kb.add_check(self.make_check("NKI501", E.FALSE, "integer division by zero", node))
            return
        self.assume(E.ne(b, 0), node, "division")

    def _clear_lowest_bit(self, a: Any, b: Any) -> Any:
        """`x & (x - 1)` (the power-of-two test `x & (x - 1) == 0`) for a positive x: 0 when x is a power of two,
        else a positive integer not followed further (x up to 2**40)."""
        for x, y in ((a, b), (b, a)):
            if E.lift(y) == E.lift(E.sub(x, 1)):
                pow2 = E.bor(*(E.eq(E.lift(x), 1 << k) for k in range(41)))
                rest = self.fresh_int("<x & (x - 1) of an x that is not a power of two>", "scalar", 1, None)
                if self.decide(E.ge(E.lift(x), 1)) is True:
                    return E.lower(E.ite(pow2, 0, rest))
                # (`x > 0 and x & (x - 1) == 0`: the `and` does not make x positive here) 0 for x == 0 too; a
                # negative x keeps its sign bit, so the result is negative
                neg = self.fresh_int("<x & (x - 1) of a negative x>", "scalar", None, 0)
                return E.lower(E.ite(E.bor(pow2, E.eq(E.lift(x), 0)), 0, E.ite(E.ge(E.lift(x), 1), rest, neg)))
        return None

    def _float_binop(self, op: type, a: Any, b: Any) -> Any:
        fa, fb = self._float_of(a), self._float_of(b)
        if isinstance(fa, float) and isinstance(fb, float):
            return self._py_binop(op, fa, fb, None)
        if op is ast.Div and isinstance(a, V.SymFloat) and a.num is not None and V.is_int(b):
            return V.SymFloat(a.num, E.mul(a.den, b))
        if op is ast.Mult and isinstance(a, V.SymFloat) and a.num is not None and V.is_int(b):
            return V.SymFloat(E.mul(a.num, b), a.den)
        # an integer times or over a float constant (`int(total * 0.65)`): the constant as the fraction it
        # spells (13/20), so what is derived from it stays exact
        for x, c in ((a, b), (b, a)):
            if V.is_int(x) and isinstance(c, float) and op is ast.Mult and (q := _fraction(c)) is not None:
                return V.SymFloat(E.mul(x, q[0]), E.lift(q[1]))
        if op is ast.Div and V.is_int(a) and isinstance(b, float) and b != 0 and (q := _fraction(b)) is not None:
            return V.SymFloat(E.mul(a, q[1]), E.lift(q[0]))
        return V.OPAQUE_FLOAT

    def _float_of(self, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if isinstance(v, V.SymFloat) and v.num is not None:
            n, d = v.num, v.den
            if isinstance(n, E.Const) and isinstance(d, E.Const) and d.value != 0:
                return n.value / d.value
        return v

    def _instance_binop(self, op: type, a: Any, b: Any, node: ast.AST | None) -> Any:
        names = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
                 ast.Mod: "mod", ast.MatMult: "matmul"}
        name = names.get(op)
        if name and isinstance(a, V.Instance):
            m = a.cls.lookup(f"__{name}__")
            if m is not V.MISSING:
                return self.call_value(m, [a, b], {}, node)
        if name and isinstance(b, V.Instance):
            m = b.cls.lookup(f"__r{name}__")
            if m is not V.MISSING:
                return self.call_value(m, [b, a], {}, node)
        raise V.NotUnderstood(f"operator {op.__name__} on {V.describe(a)} and {V.describe(b)}")

    def _phi_map2(self, a: Any, b: Any, fn) -> Any:
        a, b = self.narrow(a), self.narrow(b)
        if isinstance(a, V.Phi):
            return self.merge(a.cond, self._phi_map2(a.a, b, fn), self._phi_map2(a.b, b, fn))
        if isinstance(b, V.Phi):
            return self.merge(b.cond, self._phi_map2(a, b.a, fn), self._phi_map2(a, b.b, fn))
        return fn(a, b)

    # ------------------------------------------------------------------ unary operators
    def unop(self, op: type, v: Any, node: ast.AST | None = None) -> Any:
        if op is ast.Not:
            t = self.truth(v)
            return (not t) if isinstance(t, bool) else E.bnot(t)
        if isinstance(v, V.Phi):
            return self.merge(v.cond, self.unop(op, v.a, node), self.unop(op, v.b, node))
        if isinstance(v, (V.TensorVal, V.IndexGrid)):
            return self.tensor_unop(op, v, node)
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, (int, float)):
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[op](v)
        if isinstance(v, E.Expr):
            if op is ast.USub:
                return E.lower(E.neg(v))
            if op is ast.UAdd:
                return v
            if op is ast.Invert:
                return E.lower(E.sub(E.neg(v), 1))
        if isinstance(v, V.SymFloat):
            if op is ast.USub and v.num is not None:
                return V.SymFloat(E.neg(v.num), v.den)
            return v
        if isinstance(v, V.Unknown):
            return v
        raise V.NotUnderstood(f"unary {op.__name__} on {V.describe(v)}")

    # ------------------------------------------------------------------ comparisons
    def compare(self, op: type, a: Any, b: Any, node: ast.AST | None = None) -> Any:
        if op in (ast.Is, ast.IsNot):
            return self._identity(op, a, b)
        if op in (ast.Eq, ast.NotEq) and (a is None or b is None):
            return self._identity(ast.Is if op is ast.Eq else ast.IsNot, a, b)
        if op in (ast.In, ast.NotIn):
            r = self.contains(b, a)
            if op is ast.NotIn:
                return (not r) if isinstance(r, bool) else E.bnot(r)
            return r
        if isinstance(a, V.Phi) or isinstance(b, V.Phi):
            return self._phi_map2(a, b, lambda x, y: self.compare(op, x, y, node))
        a, b = _nc_gen(a), _nc_gen(b)
        if _internal_beside_int(a, b):
            a, b = self.as_int(a), self.as_int(b)
        if isinstance(a, (V.TensorVal, V.IndexGrid)) or isinstance(b, (V.TensorVal, V.IndexGrid)):
            return self.tensor_compare(op, a, b, node)
        if (V.is_int(a) or isinstance(a, bool)) and (V.is_int(b) or isinstance(b, bool)):
            if op in (ast.Eq, ast.NotEq) and (isinstance(a, V.GuessedLen) or isinstance(b, V.GuessedLen)) and \
                    not self._note_rank_test(a, b, node):
                self.equal(a, b)  # `len(x.shape) == 1` corrects a guessed rank
            if isinstance(a, (int, bool)) and isinstance(b, (int, bool)):
                return PY_CMP[op](a, b)
            r = CMP_INT[op](self.as_int(a), self.as_int(b))
            return r.value if isinstance(r, E.BConst) else r
        if isinstance(a, E.BExpr) or isinstance(b, E.BExpr):
            if op in (ast.Eq, ast.NotEq):
                x, y = self.as_bexpr(a), self.as_bexpr(b)
                r = E.bor(E.band(x, y), E.band(E.bnot(x), E.bnot(y)))
                if op is ast.NotEq:
                    r = E.bnot(r)
                return r.value if isinstance(r, E.BConst) else r
        # (the name of an unknown input dtype is compared as the dtype, by `equal` below)
        dtype_name = op in (ast.Eq, ast.NotEq) and (isinstance(a, (V.DTypeStr, V.OpaqueStr)) or
                                                    isinstance(b, (V.DTypeStr, V.OpaqueStr)))
        if isinstance(a, SCALAR_TYPES) and isinstance(b, SCALAR_TYPES) and not dtype_name:
            try:
                return PY_CMP[op](a, b)
            except TypeError:
                if op in (ast.Eq, ast.NotEq):
                    return op is ast.NotEq
                raise V.NotUnderstood(f"comparison of {V.describe(a)} and {V.describe(b)}") from None
        if op in (ast.Eq, ast.NotEq):
            eq = self.equal(a, b)
            if isinstance(eq, bool):
                return eq if op is ast.Eq else not eq
            return eq if op is ast.Eq else E.bnot(eq)
        if isinstance(a, tuple) and isinstance(b, tuple):
            return self._tuple_order(op, a, b)
        if isinstance(a, V.PyList) and isinstance(b, V.PyList) and a.tail is None and b.tail is None:
            return self._tuple_order(op, tuple(a.items), tuple(b.items))  # lists order element by element
        if isinstance(a, (V.SymFloat, float)) or isinstance(b, (V.SymFloat, float)):
            fa, fb = self._float_of(a), self._float_of(b)
            if isinstance(fa, float) and isinstance(fb, float):
                return PY_CMP[op](fa, fb)
            return self.fresh_bool("<float comparison>")
        if isinstance(a, V.Unknown) or isinstance(b, V.Unknown):
            return self.fresh_bool("<comparison of unknown values>")
        raise V.NotUnderstood(f"comparison {op.__name__} of {V.describe(a)} and {V.describe(b)}")

    def _note_rank_test(self, a: Any, b: Any, node: ast.AST | None) -> bool:
        """`len(x.shape) == 2` (or `rank == 2` of a name holding it) of an input whose rank is a guess: the ranks
        the function compares the same expression with are the ranks its code dispatches on (`if rank == 2: ...
        elif rank == 4: ...`).  Two or more, and the kernel is analysed once per rank (see
        entry._run_with_retries), not only for the rank guessed or learnt first, whose test settles it.  True
        when the rank analysed is one of them: the test is then a branch, neither confirming the guess nor
        correcting it."""
        g, other = (a, b) if isinstance(a, V.GuessedLen) else (b, a)
        if not isinstance(g, V.GuessedLen) or type(other) is not int:
            return False
        ranks = {other}
        side = None
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            ints = [x for x in operands if isinstance(x, ast.Constant) and type(x.value) is int]
            if len(ints) == 1:
                side = next((x for x in operands if x is not ints[0]), None)
        fn = self.frames[-1].func if self.frames else None
        if side is not None and fn is not None:
            key = (fn.node, ast.dump(side))
            sites = self._rank_test_sites
            if key not in sites:
                sites[key] = _compared_constants(fn.node, key[1])
            ranks |= sites[key]
        rank = int(g) + g.dropped
        ranks = {r + g.dropped for r in ranks if 1 <= r + g.dropped <= 8}
        if g.param in getattr(self, "_rank_split", ()):
            # a run for one rank of an input analysed once per rank: the ranks this code names join them
            if len(ranks) >= 2:
                self._split_rank_tests.setdefault(g.param, set()).update(ranks)
            return False
        if len(ranks) < 2 or rank not in ranks:
            return False
        self._rank_tested_as.setdefault(g.param, rank)
        self._rank_tests.setdefault(g.param, set()).update(ranks)
        return True

    def _tuple_order(self, op: type, a: tuple, b: tuple) -> Any:
        if all(isinstance(x, SCALAR_TYPES) for x in a + b):
            return PY_CMP[op](a, b)
        return self.fresh_bool("<tuple comparison>")

    def equal(self, a: Any, b: Any) -> Any:
        """Python == on abstract values: bool or BExpr."""
        if a is b:
            return True
        if isinstance(a, V.OpaqueStr) or isinstance(b, V.OpaqueStr):
            return self._opaque_text_equal(a, b)
        if isinstance(a, V.DTypeStr) or isinstance(b, V.DTypeStr):
            # the name of an unknown dtype: the question of the dtype itself, when the other side names one
            x, y = (a.dtype if isinstance(a, V.DTypeStr) else a), (b.dtype if isinstance(b, V.DTypeStr) else b)
            if isinstance(x, (str, V.DTypeVal)) and isinstance(y, (str, V.DTypeVal)):
                return self.api_equal(x, y)
            return False
        for x, y in ((a, b), (b, a)):
            if isinstance(x, V.GuessedLen) and type(y) is int and x.param not in getattr(self, "_rank_split", ()):
                if int(x) != y and 1 <= y + x.dropped <= 8:
                    self.rank_mismatch(x.param, y + x.dropped, from_rank=int(x) + x.dropped)
                elif int(x) == y:
                    self._rank_confirmed.add(x.param)
        if (V.is_int(a) or isinstance(a, bool)) and (V.is_int(b) or isinstance(b, bool)):
            r = E.eq(self.as_int(a), self.as_int(b))
            return r.value if isinstance(r, E.BConst) else r
        if _internal_beside_int(a, b):
            r = E.eq(self.as_int(a), self.as_int(b))
            return r.value if isinstance(r, E.BConst) else r
        if isinstance(a, tuple) and isinstance(b, tuple):
            if len(a) != len(b):
                # a guessed shape compared with a known one (or with a guessed one a use has settled,
                # `a, b, c = w.shape`) has the rank of the known one; of two guesses, the shorter is raised to
                # the longer (ranks only grow, so the retries end)
                settled = self._rank_confirmed | self._exact_params
                split = getattr(self, "_rank_split", ())
                for x, y in ((a, b), (b, a)):
                    if not isinstance(x, V.GuessedShape) or x.param in split or \
                            x.param in self._rank_confirmed | self._stated_params:
                        continue
                    fixed_here = isinstance(y, V.GuessedShape) and y.param in split
                    if x.param in self._exact_params:
                        # a rank learnt by a retry moves only for an input whose rank this run fixes (`cos.shape
                        # == sin.shape` in the run for a rank-2 cos): it follows, as a conflict of its own
                        if fixed_here:
                            self.rank_mismatch(x.param, len(y) + x.dropped)
                    elif not isinstance(y, V.GuessedShape) or y.param in settled or fixed_here:
                        self.rank_mismatch(x.param, len(y) + x.dropped)
                    elif len(x) < len(y):
                        self.rank_mismatch(x.param, len(y) + x.dropped, at_least=True)
                return False
            for x, y in ((a, b), (b, a)):
                if isinstance(x, V.GuessedShape) and not isinstance(y, V.GuessedShape):
                    self._rank_confirmed.add(x.param)  # `x.shape == (n, d)`
            parts = [self.equal(x, y) for x, y in zip(a, b)]
            if any(p is False for p in parts):
                return False
            rest = [p for p in parts if p is not True]
            if not rest:
                return True
            r = E.band(*[E.bconst(p) if isinstance(p, bool) else p for p in rest])
            return r.value if isinstance(r, E.BConst) else r
        if isinstance(a, V.PyList) and isinstance(b, V.PyList) and a.tail is None and b.tail is None:
            return self.equal(tuple(a.items), tuple(b.items))
        if isinstance(a, V.PyDict) and isinstance(b, V.PyDict):
            # equal keys, and equal values under each
            if set(a.items) != set(b.items):
                return False
            keys = list(a.items)
            return self.equal(tuple(a.items[k] for k in keys), tuple(b.items[k] for k in keys))
        if isinstance(a, (V.PyList, tuple)) and isinstance(b, (V.PyList, tuple)):
            ta = tuple(a.items) if isinstance(a, V.PyList) and a.tail is None else a
            tb = tuple(b.items) if isinstance(b, V.PyList) and b.tail is None else b
            if isinstance(ta, tuple) and isinstance(tb, tuple):
                return self.equal(ta, tb)
        if isinstance(a, SCALAR_TYPES) and isinstance(b, SCALAR_TYPES):
            return a == b
        if isinstance(a, (V.DTypeVal, V.BufferVal, V.ApiVal, V.EnumMember)) or isinstance(
                b, (V.DTypeVal, V.BufferVal, V.ApiVal, V.EnumMember)):
            return self.api_equal(a, b)
        if isinstance(a, V.TensorVal) and isinstance(b, V.TensorVal):
            return a.tensor.id == b.tensor.id and a.view == b.view and a.instance == b.instance
        if isinstance(a, V.Instance) and isinstance(b, V.Instance):
            m = a.cls.lookup("__eq__")
            if m is not V.MISSING:
                return self.truth(self.call_value(m, [a, b], {}, None))
            if a.cls.dataclass_fields is not None and a.cls is b.cls:
                return self.equal(tuple(a.attrs.get(f[0]) for f in a.cls.dataclass_fields),
                                  tuple(b.attrs.get(f[0]) for f in b.cls.dataclass_fields))
            return False
        if isinstance(a, V.Unknown) or isinstance(b, V.Unknown):
            return self.fresh_bool("<equality of unknown values>")
        if isinstance(a, (V.SymFloat, float)) and isinstance(b, (V.SymFloat, float, int)):
            fa, fb = self._float_of(a), self._float_of(b)
            if isinstance(fa, float) and isinstance(fb, float):
                return fa == fb
            return self.fresh_bool("<float equality>")
        if type(a) is not type(b):
            return False
        return a == b

    def _opaque_text_equal(self, a: Any, b: Any) -> Any:
        """`==` with an f-string not formatted (`f"tensor_{i}"`, its unknown fields shown as "{…}"): False when
        the texts' known starts or ends differ, or the other side is no text; else undecided inside a kernel. In
        host code it is decided on the texts as shown: a fresh condition per comparison there split every loop
        of a launcher in two, exponentially (a tutorial's host class never finished)."""
        if not (isinstance(a, str) and isinstance(b, str)):
            return False
        (hx, tx), (hy, ty) = _known_ends(a), _known_ends(b)
        if not (hx.startswith(hy) or hy.startswith(hx)) or not (tx.endswith(ty) or ty.endswith(tx)):
            return False
        if self.kb is None:
            return str(a) == str(b)
        return self.fresh_bool("<equality of a text not formatted>")

    def _identity(self, op: type, a: Any, b: Any) -> Any:
        if (isinstance(a, V.Phi) or isinstance(b, V.Phi)) and a is not None and b is not None:
            return self._phi_map2(a, b, lambda x, y: self._identity(op, x, y))
        if b is None or a is None:
            other = a if b is None else b
            if isinstance(other, V.Unknown):
                r = self.fresh_bool("<is None>")
            elif isinstance(other, V.Phi):
                x = self._identity(ast.Is, other.a, None)
                y = self._identity(ast.Is, other.b, None)
                r = E.bor(E.band(other.cond, E.bconst(x) if isinstance(x, bool) else x),
                          E.band(E.bnot(other.cond), E.bconst(y) if isinstance(y, bool) else y))
                r = r.value if isinstance(r, E.BConst) else r
            else:
                r = other is None
        elif isinstance(a, (bool, type(None))) or isinstance(b, (bool, type(None))):
            r = a is b
        elif isinstance(a, (int, str)) and isinstance(b, (int, str)):
            r = a == b
        elif isinstance(a, (V.EnumMember, V.ApiVal, V.DTypeVal, V.BufferVal)):
            r = self.api_equal(a, b)
        else:
            r = a is b
        if op is ast.IsNot:
            return (not r) if isinstance(r, bool) else E.bnot(r)
        return r

    def contains(self, container: Any, item: Any) -> Any:
        if isinstance(item, V.Phi) and isinstance(item.a, str) and isinstance(item.b, str):
            return self.merge(item.cond, self.contains(container, item.a), self.contains(container, item.b))
        if isinstance(container, V.PyDict):
            key = self.hashable_key(item)
            if key is None:
                return self.fresh_bool("<dict membership>")
            return key in container.items
        if isinstance(container, V.DTypeStr) or isinstance(item, V.DTypeStr) and isinstance(container, str):
            return self.fresh_bool("<dtype of an input>")  # a substring of the name of an unknown dtype
        if isinstance(container, str) and isinstance(item, str):
            return item in container
        seq = None
        if isinstance(container, (tuple, list)):
            seq = list(container)
        elif isinstance(container, V.PyList) and container.tail is None:
            seq = container.items
        elif isinstance(container, (set, frozenset)):
            seq = list(container)
        if seq is None:
            return self.fresh_bool("<membership>")
        parts = []
        for x in seq:
            e = self.equal(x, item)
            if e is True:
                return True
            if e is not False:
                parts.append(e)
        if not parts:
            return False
        r = E.bor(*parts)
        return r.value if isinstance(r, E.BConst) else r

    def hashable_key(self, v: Any) -> Any:
        """A dict key for a known value, else None."""
        if isinstance(v, (int, str, bool, type(None), float, bytes)):
            return v
        if isinstance(v, (E.Expr, E.BExpr)):
            return v
        if isinstance(v, tuple):
            parts = tuple(self.hashable_key(x) for x in v)
            return None if any(p is None and x is not None for p, x in zip(parts, v)) else parts
        if isinstance(v, (V.EnumMember, V.ApiVal, V.DTypeVal, V.BufferVal)):
            return v
        if isinstance(v, (V.ClassVal, V.FunctionVal, V.Instance)):
            return ("@obj", id(v))
        return None

    # ------------------------------------------------------------------ merging after a symbolic branch
    def merge(self, c: E.BExpr, a: Any, b: Any) -> Any:
        if a is b:
            return a
        if isinstance(c, E.BConst):
            return a if c.value else b
        # a side that is itself merged on this condition, or its negation, is the alternative that side takes
        # (`align = 32 if tp else None; if align == None: align = 4`: where tp holds align is 32, never None)
        a, b = _settled(a, c, True), _settled(b, c, False)
        if a is b:
            return a
        if (V.is_int(a) or isinstance(a, bool)) and (V.is_int(b) or isinstance(b, bool)) and not (
                isinstance(a, bool) and isinstance(b, bool)):
            return E.lower(E.ite(c, self.as_int(a), self.as_int(b)))
        if isinstance(a, (bool, E.BExpr)) and isinstance(b, (bool, E.BExpr)):
            x, y = self.as_bexpr(a), self.as_bexpr(b)
            r = E.bor(E.band(c, x), E.band(E.bnot(c), y))
            return r.value if isinstance(r, E.BConst) else r
        if isinstance(a, SCALAR_TYPES) and isinstance(b, SCALAR_TYPES) and type(a) is type(b) and a == b:
            return a
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            return tuple(self.merge(c, x, y) for x, y in zip(a, b))
        if isinstance(a, V.TensorVal) and isinstance(b, V.TensorVal) and a == b:
            return a
        if isinstance(a, V.Unknown) != isinstance(b, V.Unknown) and isinstance(b if isinstance(a, V.Unknown) else a,
                                                                             V.TensorVal):
            # a tile on one side only (a buffer allocated under a flag, in a loop that leaves the field unknown at
            # each iteration's start): kept, for the paths that state the condition (`if flash:` before each use)
            return V.Phi(c, a, b)
        if isinstance(a, V.Unknown):
            return a
        if isinstance(b, V.Unknown):
            return b
        if isinstance(a, str) and isinstance(b, str) and not (isinstance(a, V.OpaqueStr) or
                                                             isinstance(b, V.OpaqueStr)):
            # one of two texts (`str(dt)` of a dtype chosen by a condition, a mode name): compared with another
            # text, the condition says which (a placeholder text compared unequal to every name, and sent
            # `sizeinbytes(nl.float8_e4m3 if fp8 else w.dtype)` to its `dtype size unknown` assert on every path)
            return V.Phi(c, a, b)
        if isinstance(a, str) and isinstance(b, str):
            return V.OpaqueStr("{…}")
        if isinstance(a, (float, V.SymFloat)) and isinstance(b, (float, V.SymFloat, int)):
            return V.OPAQUE_FLOAT
        return V.Phi(c, a, b)

    def merge_state(self, c: E.BExpr, obj: Any, s1: Any, s2: Any) -> Any:
        """Merge two snapshots of a mutable object."""
        if isinstance(obj, V.PyList):
            (i1, t1), (i2, t2) = s1, s2
            if len(i1) == len(i2) and t1 is t2:
                return ([self.merge(c, x, y) for x, y in zip(i1, i2)], t1)
            if t1 is None and t2 is None and abs(len(i1) - len(i2)) == 1 and \
                    any(id(obj) in tr.appended for tr in self.loop_tracks):
                # appended on one side only, in a loop the summary pass is following: the item is guarded by that
                # side's condition (the pass keeps it only as a summarised sequence, see `_judge_pass`)
                (longer, cond), shorter = ((i1, c), i2) if len(i1) > len(i2) else ((i2, E.bnot(c)), i1)
                if all(a is b for a, b in zip(longer, shorter)):
                    return (list(shorter) + [V.Guarded(cond, longer[-1])], None)
            raise V.NotUnderstood("a list whose length depends on a symbolic condition")
        if isinstance(obj, (V.Instance, V.PyDict)):
            out = {}
            for k in list(s1) + [k for k in s2 if k not in s1]:  # in order: merges may make symbols
                if k in s1 and k in s2:
                    out[k] = self.merge(c, s1[k], s2[k])
                else:
                    out[k] = s1.get(k, s2.get(k))
            return out
        if isinstance(obj, V.Cell):
            return self.merge(c, s1, s2)
        return s2


def _known_ends(text: str) -> tuple:
    """(start, end) of a text that are known: an f-string's text before its first field and after its last one,
    a plain text whole."""
    if not isinstance(text, V.OpaqueStr):
        return str(text), str(text)
    return text.partition("{…}")[0], text.rpartition("{…}")[2]


def _settled(v: Any, c: E.BExpr, holds: bool) -> Any:
    """`v` where condition `c` is known to be `holds`: a merged value on `c` (or on its negation) is its
    alternative for that outcome, nested merges included."""
    while isinstance(v, V.Phi):
        if v.cond == c:
            v = v.a if holds else v.b
        elif v.cond == E.bnot(c):
            v = v.b if holds else v.a
        else:
            break
    return v


def _fraction(c: float) -> tuple | None:
    """(num, den) of a float constant as a short fraction that is the same float (0.65 is 13/20), else None."""
    import fractions
    import math

    if not math.isfinite(c):
        return None
    q = fractions.Fraction(c).limit_denominator(1 << 16)
    if float(q) != c:
        return None
    return q.numerator, q.denominator


def _compared_constants(fn_node: ast.AST, side: str) -> frozenset:
    """The int constants a function compares the expression `side` (an ast.dump) with by ==, != or `in` (the
    rank chain `if rank == 2: ... elif rank == 4: ...`, `len(k.shape) == len(v.shape) == 3`,
    `len(x.shape) in (2, 3)`)."""
    out: set = set()
    for n in ast.walk(fn_node):
        if not isinstance(n, ast.Compare):
            continue
        operands = [n.left, *n.comparators]
        if all(isinstance(o, (ast.Eq, ast.NotEq)) for o in n.ops):
            if any(not isinstance(x, ast.Constant) and ast.dump(x) == side for x in operands):
                out.update(x.value for x in operands if isinstance(x, ast.Constant) and type(x.value) is int)
        elif len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)) and ast.dump(n.left) == side and \
                isinstance(n.comparators[0], (ast.Tuple, ast.List, ast.Set)):
            # `len(x.shape) in (2, 3)`
            out.update(x.value for x in n.comparators[0].elts if isinstance(x, ast.Constant) and type(x.value) is int)
    return frozenset(out)
