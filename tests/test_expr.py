"""The symbolic arithmetic agrees with Python's integer semantics (floor division, modulo, min/max)."""

from __future__ import annotations

import operator

from hypothesis import given, settings, strategies as st

from compiler import expr as E

SYMS = [E.Sym(n, i + 1, "shape") for i, n in enumerate("abcd")]


@st.composite
def exprs(draw, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return E.Const(draw(st.integers(-50, 50)))
        return draw(st.sampled_from(SYMS))
    op = draw(st.sampled_from(["add", "sub", "mul", "floordiv", "mod", "min", "max", "neg"]))
    a = draw(exprs(depth - 1))
    if op == "neg":
        return E.neg(a)
    if op in ("floordiv", "mod"):
        c = draw(st.integers(1, 17))
        return (E.floordiv if op == "floordiv" else E.mod)(a, c)
    b = draw(exprs(depth - 1))
    return {"add": E.add, "sub": E.sub, "mul": E.mul, "min": E.minimum, "max": E.maximum}[op](a, b)


def reference(e: E.Expr, env: dict) -> int:
    """Evaluate the expression tree the slow, obviously-correct way."""
    return E.evaluate(e, env)


ENVS = st.fixed_dictionaries({s: st.integers(-40, 40) for s in SYMS})


@given(exprs(), exprs(), ENVS)
def test_constructors_match_python(a: E.Expr, b: E.Expr, env: dict) -> None:
    x, y = E.evaluate(a, env), E.evaluate(b, env)
    assert E.evaluate(E.add(a, b), env) == x + y
    assert E.evaluate(E.sub(a, b), env) == x - y
    assert E.evaluate(E.mul(a, b), env) == x * y
    assert E.evaluate(E.minimum(a, b), env) == min(x, y)
    assert E.evaluate(E.maximum(a, b), env) == max(x, y)


@given(exprs(), st.integers(1, 300), ENVS)
def test_division_by_constants(a: E.Expr, c: int, env: dict) -> None:
    x = E.evaluate(a, env)
    assert E.evaluate(E.floordiv(a, c), env) == x // c
    assert E.evaluate(E.mod(a, c), env) == x % c
    assert E.evaluate(E.ceildiv(a, c), env) == -((-x) // c)


@given(exprs(), exprs(), ENVS)
def test_comparisons_and_negation(a: E.Expr, b: E.Expr, env: dict) -> None:
    x, y = E.evaluate(a, env), E.evaluate(b, env)
    for fn, py in ((E.lt, operator.lt), (E.le, operator.le), (E.gt, operator.gt), (E.ge, operator.ge),
                   (E.eq, operator.eq), (E.ne, operator.ne)):
        c = fn(a, b)
        assert E.evaluate(c, env) == py(x, y)
        assert E.evaluate(E.bnot(c), env) == (not py(x, y))


@given(exprs(), exprs(), exprs(), ENVS)
def test_equality_with_a_maximum_of_itself(a: E.Expr, b: E.Expr, c: E.Expr, env: dict) -> None:
    # `a == max(a, b, c)` is built as `a >= b and a >= c` (a slice length max(0, n) against a tile's n: n >= 0)
    x = E.evaluate(a, env)
    m = max(x, E.evaluate(b, env), E.evaluate(c, env))
    for cond, want in ((E.eq(a, E.maximum(a, b, c)), x == m), (E.eq(E.maximum(b, a, c), a), x == m),
                       (E.ne(a, E.maximum(a, b)), x != max(x, E.evaluate(b, env))),
                       (E.eq(E.add(a, 1), E.maximum(a, b)), x + 1 == max(x, E.evaluate(b, env)))):
        assert E.evaluate(cond, env) == want
    n = SYMS[0]
    assert E.eq(n, E.maximum(0, n)) == E.ge(n, 0)


@given(exprs(), ENVS)
def test_intervals_are_sound(a: E.Expr, env: dict) -> None:
    ranges = {s: E.Interval(v - 3, v + 5) for s, v in env.items()}
    iv = E.interval(a, ranges)
    for delta in (0, 3, 5, -3):
        env2 = {s: min(max(v + delta, v - 3), v + 5) for s, v in env.items()}
        val = E.evaluate(a, env2)
        assert iv.lo is None or iv.lo <= val
        assert iv.hi is None or val <= iv.hi


@given(exprs(), ENVS, ENVS)
def test_decide_never_lies(a: E.Expr, env: dict, env2: dict) -> None:
    ranges = {s: E.Interval(min(env[s], env2[s]), max(env[s], env2[s])) for s in SYMS}
    c = E.le(a, 0)
    d = E.decide(c, ranges)
    if d is not None:
        for e in (env, env2):
            assert E.evaluate(c, e) == d


@given(exprs(), ENVS)
def test_substitution(a: E.Expr, env: dict) -> None:
    sub = {SYMS[0]: E.add(SYMS[1], 3)}
    env2 = dict(env)
    env2[SYMS[0]] = env[SYMS[1]] + 3
    assert E.evaluate(E.substitute(a, sub), env) == E.evaluate(a, env2)


def test_canonical_forms() -> None:
    n, i = SYMS[0], SYMS[1]
    assert E.floordiv(E.add(E.mul(n, 128), 5), 128) == n
    assert E.sub(n, E.mul(128, E.floordiv(n, 128))) == E.mod(n, 128)
    assert E.eq(E.mul(n, 2), 3) == E.FALSE
    assert str(E.lt(E.add(E.mul(i, 128), 128), n)) == "128*b + 128 < a"
    assert str(E.ceildiv(n, 128)) == "-((-a) // 128)"


@st.composite
def exprs_any_divisor(draw, depth: int = 3):
    """Like `exprs`, but divisors and moduli may be symbolic (the kernel's own `n // t`)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return E.Const(draw(st.integers(-20, 20)))
        return draw(st.sampled_from(SYMS))
    op = draw(st.sampled_from(["add", "mul", "floordiv", "mod", "min", "max", "neg", "scaled"]))
    a = draw(exprs_any_divisor(depth - 1))
    if op == "neg":
        return E.neg(a)
    b = draw(exprs_any_divisor(depth - 1))
    if isinstance(b, E.Const) and b.value == 0 and op in ("scaled", "floordiv", "mod"):
        b = E.Const(7)
    if op == "scaled":  # (a*b) // b and (a*b) % b: the exact quotient
        return E.floordiv(E.mul(a, b), b) if draw(st.booleans()) else E.mod(E.mul(a, b), b)
    if op in ("floordiv", "mod"):
        return (E.floordiv if op == "floordiv" else E.mod)(a, b)
    return {"add": E.add, "mul": E.mul, "min": E.minimum, "max": E.maximum}[op](a, b)


@given(exprs_any_divisor(2), exprs_any_divisor(2), st.integers(2, 12), st.integers(-9, 9), st.integers(-9, 9), ENVS)
def test_a_constant_factor_of_both_sides_of_a_division_cancels(a: E.Expr, b: E.Expr, g: int, ca: int, cb: int,
                                                               env: dict) -> None:
    # (g*a + g*ca) // (g*b + g*cb) and its remainder, with a symbolic divisor: the constructors take g out of both
    # sides (floor((g*x) / (g*y)) == floor(x / y), (g*x) % (g*y) == g * (x % y) for g > 0)
    top, bottom = E.mul(g, E.add(a, ca)), E.mul(g, E.add(b, cb))
    x, y = _value(top, env), _value(bottom, env)
    if x is None or y is None or y == 0:
        return
    assert _value(E.floordiv(top, bottom), env) == x // y
    assert _value(E.mod(top, bottom), env) == x % y


def test_a_constant_factor_of_both_sides_of_a_division_is_taken_out() -> None:
    n, i = SYMS[0], SYMS[1]
    assert E.floordiv(E.mul(4, i), E.mul(4, n)) == E.floordiv(i, n)
    assert E.mod(E.add(E.mul(6, i), 4), E.add(E.mul(2, n), 2)) == E.mul(2, E.mod(E.add(E.mul(3, i), 2), E.add(n, 1)))
    assert isinstance(E.floordiv(E.mul(4, i), E.mul(6, n)), E.FloorDiv)  # (2*(2i)) // (2*(3n)) -> (2i) // (3n)
    assert E.floordiv(E.mul(4, i), E.mul(6, n)) == E.floordiv(E.mul(2, i), E.mul(3, n))


def _value(e: E.AnyExpr, env: dict) -> int | bool | None:
    try:
        return E.evaluate(e, env)
    except ZeroDivisionError:
        return None  # a kernel dividing by zero never runs: nothing to preserve


@given(exprs_any_divisor(), exprs_any_divisor(), ENVS, st.integers(0, 6))
def test_simplification_under_ranges_preserves_values(a: E.Expr, b: E.Expr, env: dict, width: int) -> None:
    """simplify_in(e, ranges) == e wherever the ranges hold and no divisor is zero."""
    ranges = {s: E.Interval(v - width, v + width) for s, v in env.items()}
    for e in (a, E.le(a, b), E.eq(E.mul(a, b), E.mul(b, E.maximum(0, a)))):
        simple = E.simplify_in(e, ranges)
        for delta in (0, width, -width):
            env2 = {s: v + delta for s, v in env.items()}
            want = _value(e, env2)
            if want is not None:
                assert _value(simple, env2) == want


def test_simplification_settles_what_intervals_decide() -> None:
    n, x = SYMS[0], SYMS[1]
    f = E.minimum(E.floordiv(128, x), E.floordiv(n, 128))
    r = E.mod(n, E.ceildiv(n, f))  # a remainder by a positive divisor is never negative
    goal = E.eq(E.mul(r, f), E.mul(f, E.maximum(0, r)))
    assert E.simplify_in(goal, {n: E.Interval(1, None), x: E.Interval(1, 128)}) == E.TRUE
    assert E.floordiv(E.mul(n, x), x) == n and E.mod(E.mul(n, x), x) == E.ZERO
    assert E.simplify_in(E.minimum(n, E.add(n, 3)), {n: E.Interval(0, 10)}) == E.minimum(n, E.add(n, 3))
    assert E.simplify_in(E.minimum(x, 200), {x: E.Interval(1, 128)}) == x


@given(exprs_any_divisor(), ENVS, st.integers(0, 6))
def test_intervals_are_sound_with_symbolic_divisors(a: E.Expr, env: dict, width: int) -> None:
    ranges = {s: E.Interval(v - width, v + width) for s, v in env.items()}
    iv = E.interval(a, ranges)
    for delta in (0, width, -width):
        val = _value(a, {s: v + delta for s, v in env.items()})
        if val is not None:
            assert (iv.lo is None or iv.lo <= val) and (iv.hi is None or val <= iv.hi)


B_VAR, R_VAR = E.Sym("b", 90, "index"), E.Sym("r", 91, "index")


def _holds_somewhere(body: E.BExpr, env: dict) -> bool:
    """`exists b, r in [-20, 20]: body`, by enumeration (the bodies below bound b and r to that range)."""
    return any(E.evaluate(body, {**env, B_VAR: b, R_VAR: r}) for b in range(-20, 21) for r in range(-20, 21))


@given(exprs(2), exprs(2), st.integers(2, 9), ENVS)
def test_bound_variables_defined_by_an_equation_are_eliminated(t: E.Expr, u: E.Expr, m: int, env: dict) -> None:
    """`exists` drops a bound variable a conjunct defines (`r == t`) and the two digits of `t == m*b + r`
    with r in [0, m) or below a bound at most m: the result is the same formula over the free symbols."""
    b, r = B_VAR, R_VAR
    cases = [
        E.band(E.eq(r, t), E.le(r, u), E.ge(r, -20), E.le(r, 20)),
        E.band(E.eq(t, E.add(E.mul(m, b), r)), E.ge(r, 0), E.lt(r, m), E.le(b, u), E.ge(b, -20), E.le(b, 20)),
        E.band(E.eq(E.add(E.mul(m, b), r), t), E.ge(r, 0), E.lt(r, E.maximum(0, E.minimum(m, E.sub(u, b)))),
               E.ge(b, -20), E.le(b, 20)),
    ]
    for body in cases:
        out = E.exists((b, r), body)
        assert not isinstance(out, E.Exists) and not E.free_syms(out) & {b, r}
        assert E.evaluate(out, env) == _holds_somewhere(body, env), (E.short(body, str, 200), env)


def test_digits_are_not_eliminated_without_their_range() -> None:
    b, r, t = B_VAR, R_VAR, SYMS[0]
    out = E.exists((b, r), E.band(E.eq(t, E.add(E.mul(8, b), r)), E.ge(r, 0), E.lt(r, 9)))
    assert isinstance(out, E.Exists) and set(out.vars) == {b, r}
    assert E.exists((b,), E.band(E.eq(E.mul(2, b), t), E.ge(b, 0))) == E.Exists((b,), E.band(E.eq(E.mul(2, b), t),
                                                                                                E.ge(b, 0)))


@given(st.sampled_from([1, -1, 2, -3]), st.sampled_from([1, -1, 2, -3]), st.integers(-30, 30), st.integers(1, 9),
       st.booleans(), ENVS, st.integers(-40, 0), st.integers(0, 40))
def test_two_term_facts_refine_both_symbols_soundly(kx: int, ky: int, c: int, d: int, div: bool, env: dict,
                                                    lo: int, hi: int) -> None:
    """`kx*x + ky*y + c <= 0` (x a symbol or `(s + c0) // d`) bounds each side by the other's interval: every
    point the fact and the starting intervals admit stays inside the refined ones."""
    a, b = SYMS[0], SYMS[1]
    x = E.floordiv(E.add(a, c % 7), d) if div else a
    fact = E.le(E.add(E.mul(kx, x), E.mul(ky, b), c), 0)
    ranges = {a: E.Interval(lo, hi), b: E.Interval(lo, hi)}
    E.refine_ranges(ranges, fact)
    if E.evaluate(fact, env) and all(lo <= env[s] <= hi for s in (a, b)):
        for s in (a, b):
            iv = ranges[s]
            assert (iv.lo is None or iv.lo <= env[s]) and (iv.hi is None or env[s] <= iv.hi), (s, iv, env)


def test_a_loop_bound_says_the_loop_runs_wherever_its_body_is_reached() -> None:
    i, n = E.Sym("i", 90, "loop"), SYMS[0]
    ranges = {i: E.Interval(0, None)}
    E.refine_ranges(ranges, E.lt(i, E.floordiv(E.add(n, 511), 512)))
    assert ranges[n].lo == 1  # (n + 511) // 512 >= 1
    assert E.decide(E.ge(E.minimum(512, n), 0), ranges) is True


@given(exprs(), exprs(), exprs(), st.fixed_dictionaries({s: st.integers(-20, 20) for s in SYMS}))
def test_settling_a_condition_keeps_the_value_where_it_has_that_truth(a: E.Expr, b: E.Expr, c: E.Expr,
                                                                       env: dict) -> None:
    # a conditional on `a <= b`, inside an expression and a comparison: settled to the side the environment gives
    cond = E.le(a, b)
    e = E.add(E.mul(E.ite(cond, c, E.add(c, 1)), 3), E.ite(E.gt(c, 0), E.ite(cond, 1, 2), 5))
    goal = E.band(E.lt(e, 40), E.bor(cond, E.gt(a, 3)))
    assert cond in E.ite_conditions(e) or isinstance(cond, E.BConst)  # (`a <= a` is folded at once)
    truth = E.evaluate(cond, env)
    for x in (e, goal):
        settled = E.settle(x, cond, truth)
        assert E.evaluate(settled, env) == E.evaluate(x, env)
    assert cond not in E.ite_conditions(E.settle(e, cond, truth))


def test_the_constructor_memo_is_never_emptied_during_an_analysis(monkeypatch) -> None:
    # emptied mid-analysis, it made new copies of expressions the analysis still held, and comparing two copies
    # of a large shared expression walks it as a tree (minutes instead of seconds on a real kernel)
    monkeypatch.setattr(E, "_MEMO", {})
    monkeypatch.setattr(E, "_MEMO_LIMIT", 50)
    x = E.Sym("x", 987001)
    kept = [E.add(x, i) for i in range(50)]
    assert len(E._MEMO) == 50
    more = [E.add(x, i) for i in range(50, 80)]  # full: computed, not added, nothing dropped
    assert len(E._MEMO) == 50
    assert all(E.add(x, i) is kept[i] for i in range(50))
    assert more[0] == E.add(x, 50)
    E.start_analysis()  # more than half full: emptied before the next analysis
    assert E._MEMO == {}
    E.add(x, 1)
    E.start_analysis()  # nearly empty: kept for the next analysis (an edited file re-analysed)
    assert len(E._MEMO) == 1


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(-3, 3)), min_size=9, max_size=30),
       st.lists(st.tuples(st.integers(0, 9), st.integers(-3, 3)), min_size=1, max_size=6), st.randoms())
def test_a_long_conjunction_and_a_few_more_conditions_is_the_conjunction_of_all(long, more, rnd):
    # band places a few conditions into a long conjunction by bisection (a path condition and the next
    # branch's): the result must be the one built from all of them at once, in the same canonical order
    xs = [E.Sym(f"x{i}", 100 + i) for i in range(10)]
    conj = E.band(*[E.lt(xs[i], c) for i, c in long])
    extra = [E.lt(xs[i], c) for i, c in more] + [E.TRUE]
    args = [conj] + extra
    rnd.shuffle(args)
    flat = [a for x in args if not isinstance(x, E.BConst) for a in (x.args if isinstance(x, E.BAnd) else (x,))]
    whole = sorted(set(flat), key=lambda b: b._key)
    got = E.band(*args)
    assert (got.args if isinstance(got, E.BAnd) else (got,)) == tuple(whole)


def test_equal_expressions_built_apart_share_one_key() -> None:
    """Two copies of an expression built node by node without the constructors' memo (as after the memo is
    emptied, or by two routes) hold the same key object at every level, so that comparing them stops at the
    first level instead of walking the sub-terms they share as a tree; unequal expressions keep their own."""
    n, k = E.Sym("n", 1), E.Sym("k", 2)

    def build(depth: int) -> E.Expr:
        x: E.Expr = E.Lin(((n, 1), (k, 2)), 3)
        for i in range(depth):
            c = E.Cmp(E.LE, E.Lin(((x, 1),), -i))
            x = E.Ite(c, E.Mul((x, n)), E.Lin(((x, 1),), i))  # each level reaches the one below three times
        return x

    a, b = build(12), build(12)
    assert a is not b and a == b and a.key is b.key
    assert a.a.key is b.a.key and a.cond.key is b.cond.key
    c = build(13)
    assert c != a and c.key is not a.key


@given(exprs(), exprs(), st.sampled_from(["ne", "le", "ge", "eq"]), st.integers(-5, 5), ENVS, st.integers(-20, 0),
       st.integers(0, 20))
def test_a_fact_on_a_compound_term_bounds_it_soundly(t: E.Expr, other: E.Expr, op: str, c: int, env: dict,
                                                     lo: int, hi: int) -> None:
    """A fact on a term that is not a symbol (`min(128, n // g) != 0`) bounds the term itself: whatever the
    environment the fact and the symbols' intervals admit, the intervals of the term and of an expression over it
    hold its value."""
    fact = getattr(E, op)(t, c)
    ranges = {s: E.Interval(lo, hi) for s in SYMS}
    E.refine_ranges(ranges, fact)
    if not (E.evaluate(fact, env) and all(lo <= env[s] <= hi for s in SYMS)):
        return
    for e in (t, E.add(E.mul(3, t), other), E.minimum(t, other), E.floordiv(other, t) if E.evaluate(t, env) else t):
        iv = E.interval(e, ranges)
        v = E.evaluate(e, env)
        assert (iv.lo is None or iv.lo <= v) and (iv.hi is None or v <= iv.hi), (E.short(e), iv, env)


def test_a_nonzero_divisor_fact_makes_a_tile_count_non_negative() -> None:
    n, g = SYMS[0], SYMS[1]
    tile = E.minimum(128, E.floordiv(n, g))
    count = E.floordiv(E.add(E.floordiv(n, g), tile, -1), tile)  # ceil(n // g / tile)
    ranges = {n: E.Interval(1, None), g: E.Interval(1, 4)}
    assert E.interval(tile, ranges).lo == 0 and E.interval(count, ranges).lo is None
    E.refine_ranges(ranges, E.ne(tile, 0))  # the kernel divides by it
    assert (E.interval(tile, ranges).lo, E.interval(tile, ranges).hi) == (1, 128)
    assert E.decide(E.ge(E.mul(tile, count), 0), ranges) is True


@given(exprs(), exprs(), st.sampled_from(["le", "lt", "eq", "ne"]), exprs(), ENVS)
def test_a_condition_or_its_negation_is_true(a: E.Expr, b: E.Expr, op: str, c: E.Expr, env: dict) -> None:
    """`x >= 512 or x < 512`, the fall-through of an if/else both of whose sides fall through, is TRUE as built;
    a disjunction with other parts still evaluates as Python's `or`."""
    cond = getattr(E, op)(a, b)
    assert E.bor(cond, E.bnot(cond)) == E.TRUE
    assert E.bor(E.le(c, 0), cond, E.bnot(cond)) == E.TRUE
    other = E.bor(cond, E.le(c, 0))
    assert E.evaluate(other, env) == (E.evaluate(cond, env) or E.evaluate(c, env) <= 0)
