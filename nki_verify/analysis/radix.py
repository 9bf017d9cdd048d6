"""Distinct digits give distinct addresses: a cheap refutation of `two executions touch the same element`.

The race and dependency checks (NKI401/402) ask whether two executions (two program instances, two
iterations) can address the same element.  The address is typically a mixed-radix number whose digits are
the loop, program and pattern indices and whose place values are products of input sizes::

    addr = e1 + W*e0 + 128*W*tile + (W // g)*pid        with 0 <= e1 < W // g, 0 <= e0 < 128 ...

`addr_p == addr_q` then forces every digit to agree, which contradicts `pid_p != pid_q`.  Solvers find this
hard (the products of symbolic sizes make the query non-linear) yet the argument is short: order the digits by
place value c_0 < c_1 < ...; if c_0 >= 1 and c_j * n_j <= c_(j+1) for a digit that takes n_j values, the lower
digits together span less than one unit of the next, so equal sums have equal digits, from the top down.

Only those side conditions, over input sizes alone, are proved (intervals, then the kernel's prover); the
argument itself is sound for any integers.  When it does not apply, the caller asks the solver as before.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Iterator

from compiler import expr as E

MAX_DIGITS = 10
MAX_SIDE_CONDITIONS = 24
MAX_SHIFTED_SIDE_CONDITIONS = 12  # for the chain again with input terms in its lowest digit (_shifted_low_digit)
# input sizes at which place values are estimated to order the digits (the order is a heuristic: the side
# conditions are proved); the smaller ones for place values that vanish at the first (`min(128 // rows, ...)`),
# the last for those that vanish below it (a program's share of the tiles, `I // 512 // grid[0]`)
SAMPLE_BASES = (1000, 128, 8, 1, 65536)
MAX_TIE_ORDERS = 4


def refutes(goal: E.BExpr, facts: list, is_exec: Callable, ranges: dict, prove: Callable, depth: int = 0) -> bool:
    """True when `facts and not goal` is shown unsatisfiable by equating digits.

    `prove(cond, facts)` decides a side condition over input symbols (True only when proved)."""
    pinned = {x: v for x, v in E.fixed_by(ranges).items() if is_exec(x)}
    if pinned and depth == 0:
        # an index the facts fix (`t == 0` of a loop this path runs once): not a digit, its place value being
        # out of order with the others' (a row's sub-tile between its block and the element in it)
        goal = E.substitute(goal, pinned)
        facts = E.substitute_all(facts, pinned)
    eqs = _equations(E.bnot(goal))
    if not eqs:
        return False
    cond = _case(eqs, is_exec) if depth < 2 else None
    if cond is not None:
        # an index that only counts under an input condition (`program_id(0) if program_ndim() else 0`):
        # refute both cases, each with the conditionals it settles simplified away
        for case in (cond, E.bnot(cond)):
            r2 = dict(ranges)
            E.refine_ranges(r2, case)
            # the sizes the case pins (two programs: G == 2), in the goal too, as `bounded` does: a place value
            # G*W*m against a width of 2 is otherwise a product the side conditions' solver may not settle
            fixed = {x: v for x, v in E.fixed_by(r2).items() if not is_exec(x)}
            g2 = E.simplify_in(E.substitute(goal, fixed) if fixed else goal, r2)
            if g2 == E.TRUE:
                continue  # the goal holds outright in this case
            if g2 == goal:
                return False
            f2 = _pinned(E.simplify_all(facts, r2) + [case], r2)
            if f2 is None:
                continue  # this case cannot happen
            if not refutes(g2, f2, is_exec, r2, prove, depth + 1):
                return False
        return True
    bounds = _Bounds(facts, is_exec, ranges)
    for f in facts:  # equalities the facts already impose (the same outer iteration on both sides)
        if isinstance(f, E.Cmp) and f.op == E.EQ and _exec_pair(f.e, is_exec):
            eqs.append(f.e)
    side = [f for f in facts if not any(is_exec(s) for s in E.free_syms(f))]
    # an execution symbol's range is not empty, since the executions exist (`0 <= nt < (D - 2*k) // 128 //
    # g` makes that count at least 1, which a place value that is a multiple of it needs)
    for x in sorted({s for e in eqs for s in E.free_syms(e) if is_exec(s)}, key=lambda s: s.key):
        lo, hi = bounds.of(x, False), bounds.of(x, True)
        if lo is not None and hi is not None:
            nonempty = E.le(lo, hi)
            if nonempty not in (E.TRUE, E.FALSE):
                side.append(nonempty)
    budget = [MAX_SIDE_CONDITIONS]
    same: dict = {}  # variable -> the variable it is shown equal to
    progress = True
    while progress:
        progress = False
        rest = []
        for e in eqs:
            e = E.substitute(e, same) if same else e
            if e == E.ZERO:
                continue
            pairs = _digits(e, is_exec)
            found = None if pairs is None else _equal_digits(pairs, bounds, side, ranges, prove, budget)
            if not found:
                rest.append(e)
                continue
            if len(found) < len(pairs):
                rest.append(e)  # the digits left may be settled once others are known
            for x, y in found:
                same[y] = x
                for k in list(same):
                    if same[k] == y:
                        same[k] = x
            progress = True
        eqs = rest
    if not same:
        return False
    for f in facts:
        g = E.substitute(f, same)
        if g == E.FALSE or E.decide(g, ranges) is False:
            return True
    return False


def _pinned(facts: list, ranges: dict) -> list | None:
    """The facts with the symbols their ranges fix replaced by those values, refining the ranges in place
    (a case with one program: `p < n` and `n == 1` make `p` 0); None when they contradict each other."""
    for _ in range(3):
        for f in facts:
            E.refine_ranges(ranges, f)
        fixed = E.fixed_by(ranges)
        new = E.simplify_all(E.substitute_all(facts, fixed), ranges) if fixed else facts
        if E.FALSE in new or any(iv.lo is not None and iv.hi is not None and iv.lo > iv.hi for iv in ranges.values()):
            return None
        if new == facts:
            break
        facts = new
    return facts


def _case(eqs: list, is_exec: Callable) -> E.BExpr | None:
    """The condition of a conditional in one of the equations that holds an execution symbol: an input-only
    condition choosing between digits, or a condition on an execution symbol choosing a place value (a loop
    over three segments, each with its own tile count: `nt * T + e0 * T * (n0 if seg == 0 else n1)`, the
    segment the same for both executions).  Either way the cases cover every execution."""
    for e in eqs:
        terms, _ = E._linear_parts(e)
        for atom in terms:
            for f in E._atom_factors(atom):
                if not isinstance(f, E.Ite):
                    continue
                in_cond = {s for s in E.free_syms(f.cond) if is_exec(s)}
                in_all = {s for s in E.free_syms(f) if is_exec(s)}
                if not in_cond and in_all:
                    return f.cond
                if in_cond and in_all <= in_cond:  # (the branches: further conditions on the same symbols)
                    return f.cond
    return None


def _equations(b: E.BExpr) -> list:
    """The `e == 0` conjuncts of `b`, as the expressions e."""
    parts = b.args if isinstance(b, E.BAnd) else (b,)
    return [p.e for p in parts if isinstance(p, E.Cmp) and p.op == E.EQ]


def _exec_pair(e: E.Expr, is_exec: Callable) -> bool:
    t, c = E._linear_parts(e)
    return c == 0 and len(t) == 2 and sorted(t.values()) == [-1, 1] and all(
        isinstance(a, E.Sym) and is_exec(a) for a in t)


def _coefficients(e: E.Expr, is_exec: Callable) -> tuple | None:
    """`e` as sum_k c_k * x_k + R with execution symbols x_k and input-only c_k, R: ({x_k: c_k}, [terms of R]),
    or None when a term holds a product of two indices or an index inside a non-linear function."""
    terms, const = E._linear_parts(e)
    coef: dict = {}
    rest: list = [E.Const(const)] if const else []
    for atom, k in terms.items():
        factors = E._atom_factors(atom)
        ex = [f for f in factors if any(is_exec(s) for s in E.free_syms(f))]
        if not ex:
            rest.append(E.mul(k, atom))
            continue
        if len(ex) != 1 or not isinstance(ex[0], E.Sym):
            return None
        x = ex[0]
        c: E.Expr = E.Const(k)
        for f in factors:
            if f is not x:
                c = E.mul(c, f)
        coef[x] = E.add(coef.get(x, E.ZERO), c)
    return coef, rest


def _digits(e: E.Expr, is_exec: Callable) -> list | None:
    """`e == 0` as sum_k c_k * (x_k - y_k) == 0: [(x_k, y_k, c_k)], or None when it is not of that form."""
    split = _coefficients(e, is_exec)
    if split is None or split[1]:
        return None  # a product of two indices, or an input-only part that does not cancel
    coef = split[0]
    pos = [(x, c) for x, c in coef.items() if c != E.ZERO]
    if len(pos) > 2 * MAX_DIGITS:
        return None
    out = []
    used: set = set()
    for x, c in pos:
        if x in used:
            continue
        partner = [y for y, d in pos if y not in used and y is not x and E.add(c, d) == E.ZERO]
        if not partner:
            return None
        y = partner[0]
        used |= {x, y}
        out.append((x, y, c))
    return out


class _Bounds:
    """Input-only lower and upper bounds of execution symbols, read off the facts."""

    def __init__(self, facts: list, is_exec: Callable, ranges: dict) -> None:
        self.is_exec = is_exec
        self.ranges = ranges
        self.up: dict = {}
        self.down: dict = {}
        self.linear: list = []  # `e <= 0` facts, with each min on the larger side split into its arguments
        for f in facts:
            for g in f.args if isinstance(f, E.BAnd) else (f,):
                if not (isinstance(g, E.Cmp) and g.op in (E.LE, E.EQ)):
                    continue
                if g.op == E.LE:
                    self.linear.extend(_split_min(g.e, 0))
                terms, _ = E._linear_parts(g.e)
                for x, k in terms.items():
                    if not (isinstance(x, E.Sym) and is_exec(x)) or abs(k) != 1:
                        continue
                    rest = E.sub(g.e, E.mul(k, x))  # k*x + rest <= 0
                    if k == 1 or g.op == E.EQ:
                        self.up.setdefault(x, []).append(E.neg(rest) if k == 1 else rest)
                    if k == -1 or g.op == E.EQ:
                        self.down.setdefault(x, []).append(rest if k == -1 else E.neg(rest))

    def of(self, x: E.Sym, upper: bool, depth: int = 0) -> E.Expr | None:
        best = None
        iv = self.ranges.get(x)
        end = None if iv is None else (iv.hi if upper else iv.lo)
        for b in [*(self.up if upper else self.down).get(x, ()), *(() if end is None else (E.Const(end),))]:
            v = self._free(b, upper, depth + 1)
            if v is None:
                continue
            if isinstance(v, E.Const):
                if best is None or not isinstance(best, E.Const) or (v.value < best.value if upper else
                                                                      v.value > best.value):
                    best = v
            elif best is None:
                best = v
        return best

    def _free(self, e: E.Expr, upper: bool, depth: int) -> E.Expr | None:
        """An input-only bound of `e` (from above when `upper`)."""
        if not any(self.is_exec(s) for s in E.free_syms(e)):
            return e
        if depth > 6:
            return None
        terms, const = E._linear_parts(e)
        out: list = [E.Const(const)]
        for atom, k in terms.items():
            if not any(self.is_exec(s) for s in E.free_syms(atom)):
                out.append(E.mul(k, atom))
                continue
            up = upper == (k > 0)  # the end of the atom that bounds k*atom from the wanted side
            if isinstance(atom, E.Sym):
                b = self.of(atom, up, depth)
            elif isinstance(atom, E.Min) and up or isinstance(atom, E.Max) and not up:
                # the bounds of every argument that has one, together: x < min(512, n, n - 512*j) is below
                # min(512, n), a tile of a symbolic size (the place value of j), where 512 alone is not
                found = [v for v in (self._free(a, up, depth + 1) for a in atom.args) if v is not None]
                b = (E.minimum(*found) if up else E.maximum(*found)) if found else None
            else:
                b = None
            if b is None:
                return None
            out.append(E.mul(k, b))
        return E.add(*out)


def _split_min(e: E.Expr, depth: int) -> list:
    """`e <= 0` implies `e' <= 0` for e' = e with a term -k*min(args) (or +k*max(args)) replaced by any of
    its arguments: the bounds hidden in clipped tile sizes (x < min(512, n - 512*j) gives x + 512*j < n)."""
    out = [e]
    if depth > 2:
        return out
    terms, _ = E._linear_parts(e)
    for atom, k in terms.items():
        if isinstance(atom, E.Min) and k < 0 or isinstance(atom, E.Max) and k > 0:
            rest = E.sub(e, E.mul(k, atom))
            for a in atom.args:
                out.extend(_split_min(E.add(rest, E.mul(k, a)), depth + 1))
            break
    return out


def _content(c: E.Expr) -> tuple:
    """c as (r, base) with r the integer content: 128*W -> (128, W), 512 -> (512, 1)."""
    if isinstance(c, E.Const):
        return c.value, E.ONE
    terms, const = E._linear_parts(c)
    g = const
    for k in terms.values():
        g = math.gcd(g, k)
    g = abs(g) or 1
    if terms and min(terms.items(), key=lambda kv: kv[0].key)[1] < 0:
        g = -g
    return g, E.add(*[E.mul(k // g, a) for a, k in terms.items()], const // g)


def _width(bounds: "_Bounds", xs: list) -> E.Expr | None:
    """How many values sum(r * x) takes at most, for [(r, x)] with r > 0: from a bound the facts give the
    sum itself, else from the bounds of each x."""
    lo = E.add(*[E.mul(r, b) for r, x in xs if (b := bounds.of(x, False)) is not None])
    if any(bounds.of(x, False) is None for _, x in xs):
        return None
    z = E.add(*[E.mul(r, x) for r, x in xs])
    if len(xs) > 1:
        for f in bounds.linear:  # z + rest <= 0 with rest free of execution symbols
            rest = E.sub(f, z)
            if not any(bounds.is_exec(s) for s in E.free_syms(rest)):
                return E.add(E.sub(E.neg(rest), lo), 1)
    his = [bounds.of(x, True) for _, x in xs]
    if any(h is None for h in his):
        return None
    return E.add(E.sub(E.add(*[E.mul(r, h) for (r, _), h in zip(xs, his)]), lo), 1)


def _pair_width(bounds: "_Bounds", members: list) -> E.Expr | None:
    """The width of a digit [(k, x, y)] in both executions (x's side and y's), or None when unknown."""
    wp = _width(bounds, [(k, x) for k, x, _ in members])
    wq = _width(bounds, [(k, y) for k, _, y in members])
    if wp is None or wq is None:
        return None
    return wp if wp == wq else E.maximum(wp, wq)


def _equal_digits(pairs: list, bounds: "_Bounds", side: list, ranges: dict, prove: Callable,
                  budget: list) -> list:
    """The pairs (x, y) that sum c_k*(x_k - y_k) == 0 forces equal.

    A digit is single, or compound: the digits of a tile index and the index inside the tile (place values
    that differ by a constant factor), or digits a fact bounds together (x < min(T, n - T*j) gives
    x + T*j < n).  The digits must be in mixed radix, then the digits inside each compound."""
    oriented = []
    for x, y, c in pairs:
        est = _sample(c, ranges, 0)
        if est == 0:
            # a place value that is 0 at the usual sample (`min(128 // rows, n // 128)` with many rows): the
            # orientation is only a heuristic (the side conditions are proved), so try smaller inputs
            est = next((v for v in (_sample(c, ranges, 0, base) for base in SAMPLE_BASES[1:]) if v), 0)
        if est is not None and est < 0:
            # a difference of inputs, negative at the uniform points: positive where the inputs differ?
            est = next((v for v in (_sample(c, ranges, 0, base, k) for base in SAMPLE_BASES
                                    for k in range(1, SPREADS)) if v is not None and v > 0), est)
        if est is None or est == 0:
            return []
        if est < 0:
            c, x, y = E.neg(c), y, x
        oriented.append((c, x, y))
    for digits in _digit_sets(oriented, bounds, side, prove):
        out = _radix(digits, bounds, side, ranges, prove, budget)
        if out:
            return out
    return []


def _digit_sets(oriented: list, bounds: "_Bounds", side: list, prove: Callable) -> Iterator[list]:
    """The ways to read [(place, x, y)] as digits [(place, width, members)]: single digits, digits whose place
    values differ by a constant factor merged, and compounds a fact bounds together."""
    singles = [(c, [(E.ONE, x, y)]) for c, x, y in oriented]
    attempts = [singles, _by_base(singles)]
    tried: list = []
    # compounds as the facts come, then the innermost first: a program's columns (`e + T*h < W // G`) rather
    # than those and the program's digit above them (`e + T*h + (W // G)*pid < W`), which leaves pid no place
    for inner_first in (False, True):
        compounds = _fact_compounds(oriented, bounds, side, prove, inner_first)
        if not compounds or compounds in tried:
            continue
        tried.append(compounds)
        rest = [d for d in singles if not any(d[1][0][1] in cx for cx, _ in compounds)]
        attempts += [[c for _, c in compounds] + rest, [c for _, c in compounds] + _by_base(rest)]
    for attempt in attempts:
        digits = []
        for d in attempt:
            if len(d) == 3:  # a compound with the width its fact gives
                digits.append(d)
                continue
            c, members = d
            w = _pair_width(bounds, members)
            if w is None:
                break
            digits.append((c, w, members))
        else:
            yield digits


def bounded(goal: E.BExpr, facts: list, is_exec: Callable, ranges: dict, prove: Callable, depth: int = 0) -> bool:
    """True when `sum_k c_k * x_k + R <= 0` follows from the digits x_k being in mixed radix: each x_k in
    [0, w_k), place values chained (c_k * w_k <= c_(k+1), the smallest >= 1), so the sum is at most
    c_top * w_top - 1 and `R + c_top * w_top - 1 <= 0` remains, over inputs only.  The upper bound of a
    flattened access (`e1 + W*e0 + W*P*tile < N*W*P` for e1 < W, e0 < P, tile < N) that solvers find hard for
    the products of symbolic sizes.  Side conditions are proved by `prove(cond, facts)`."""
    if not (isinstance(goal, E.Cmp) and goal.op == E.LE):
        return False
    cond = _case([goal.e], is_exec) if depth < 2 else None
    if cond is not None:
        # a digit that only counts under an input condition (`program_id(0) if program_ndim() else 0`): each
        # case with the conditionals it settles simplified away
        for case in (cond, E.bnot(cond)):
            r2 = dict(ranges)
            E.refine_ranges(r2, case)
            f2 = _pinned(E.simplify_all(facts, r2) + [case], r2)
            if f2 is None:
                continue  # this case cannot happen
            fixed = E.fixed_by(r2)  # the sizes the case pins (one program: G == 1), in the goal too
            g2 = E.simplify_in(E.substitute(goal, fixed) if fixed else goal, r2)
            if g2 == E.TRUE:
                continue
            if g2 == goal:
                return False
            if not bounded(g2, f2, is_exec, r2, prove, depth + 1):
                return False
        return True
    split = _coefficients(goal.e, is_exec)
    if split is None:
        return False
    coef, rest = split
    oriented = [(c, x, x) for x, c in coef.items() if c != E.ZERO]
    if not oriented or len(oriented) > MAX_DIGITS:
        return False
    for c, _, _ in oriented:
        est = next((v for v in (_sample(c, ranges, 0, base) for base in SAMPLE_BASES) if v), None)
        if est is None or est < 0:
            return False  # a digit that counts down: its lower end would matter
    bounds = _Bounds(facts, is_exec, ranges)
    if any(bounds.of(x, False) != E.ZERO for _, x, _ in oriented):
        return False
    side = [f for f in facts if not any(is_exec(s) for s in E.free_syms(f))]
    remainder = E.add(*rest)
    budget = [MAX_SIDE_CONDITIONS]
    for digits in _digit_sets(oriented, bounds, side, prove):
        order = _chain_order(digits, side, ranges, prove, budget, bounds)
        if order is None:
            continue
        fits = _top_fits(order, remainder, bounds, side, ranges, prove, budget)
        if fits is not False:
            return fits is True  # (None: the budget ran out)
    if _shifted_low_digit(oriented, rest, bounds, side, ranges, prove, [MAX_SHIFTED_SIDE_CONDITIONS]):
        return True
    return _at_maximum(oriented, remainder, bounds, side, ranges, prove, budget)


def _shifted_low_digit(oriented: list, rest: list, bounds: "_Bounds", side: list, ranges: dict, prove: Callable,
                       budget: list) -> bool:
    """The chain again with the input-only terms that add to the sum (`head_dim` in `head_dim + e + D*row <
    N*D`, the second half of each row) taken into the digit of place value 1: that digit plus them stays below
    its width plus them, and the chain needs `head_dim + head_dim <= D` where the sum alone left `head_dim` over
    the top digit's span.  Only upper bounds enter the argument (each digit at most its width less one, the
    chain telescoping from a first place value >= 1); the terms moved are non-negative (by their ranges), so
    that the widened digit keeps a width >= 1 and the place values above it stay positive."""
    shift = [t for t in rest if not isinstance(t, E.Const) and (_sample(t, ranges, 0) or 0) > 0]
    if not shift or budget[0] <= 0:
        return False
    off = E.add(*shift)
    if E.decide(E.ge(off, 0), ranges) is not True:
        return False
    remainder = E.sub(E.add(*rest), off)
    for digits in _digit_sets(oriented, bounds, side, prove):
        low = [i for i, d in enumerate(digits) if d[0] == E.ONE]
        if len(low) != 1:
            continue
        c, w, members = digits[low[0]][:3]
        moved = list(digits)
        moved[low[0]] = (c, E.add(w, off), members)
        order = _chain_order(moved, side, ranges, prove, budget, bounds)
        if order is None:
            continue
        fits = _top_fits(order, remainder, bounds, side, ranges, prove, budget)
        if fits is not False:
            return fits is True
    return False


def _top_fits(order: list, remainder: E.Expr, bounds: "_Bounds", side: list, ranges: dict, prove: Callable,
              budget: list) -> bool | None:
    """Whether the chained digits (`order`, the top one last) with `remainder` stay at or below 0: the digits
    sum to at most the top place value times its width, less the lowest place value c_0, so `remainder + c_top *
    w - c_0 <= 0` for one of the top digit's widths, by the ranges or proved.  (Each digit is at most its width
    less one and c_k * w_k <= c_(k+1), so sum_k c_k * (w_k - 1) telescopes to at most c_top * w_top - c_0: the end
    of the last block of a flattened copy, `offset + B <= size` with B the lowest place value, fits where `- 1`
    left B - 1 over.)  None when the budget ran out before that was settled."""
    top, width, members = order[-1][:3]
    low = order[0][0]
    for w in [width] + _other_widths(bounds, members, width):
        # the top digit's width from each of its bounds: the one taken for the chain may be a constant
        # (`program_id(0) < 2` of an LNC launch) where the sum needs the symbolic one (`< grid[0]`)
        cond = E.le(E.add(remainder, E.mul(top, w), E.neg(low)), 0)
        if cond == E.TRUE or E.decide(cond, ranges) is True:
            return True
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        if prove(cond, side):
            return True
    return False


def _other_widths(bounds: "_Bounds", members: list, width: E.Expr) -> list:
    """The widths of a single digit [(1, x, x)] from its other input-only upper bounds than `width`'s."""
    if len(members) != 1 or members[0][0] != E.ONE:
        return []
    x = members[0][1]
    lo = bounds.of(x, False)
    if lo is None:
        return []
    out = []
    for b in bounds.up.get(x, ()):
        hi = bounds._free(b, True, 1)
        if hi is not None:
            w = E.add(E.sub(hi, lo), 1)
            if w != width and w not in out:
                out.append(w)
    return out[:2]


def _at_maximum(oriented: list, remainder: E.Expr, bounds: "_Bounds", side: list, ranges: dict, prove: Callable,
                budget: list) -> bool:
    """The goal with every digit at its upper end, over inputs: for a top digit that does not fill its place
    (`n_folded*(F - 1) + n % n_folded <= n` for rows of `n_folded = ceil(n / F)` elements), which no chain of
    place values shows.  Each place value must be non-negative, as the digits are (their lower end is 0)."""
    ends = []
    for c, x, _ in oriented:
        hi = bounds.of(x, True)
        if hi is None:
            return False
        ends.append(E.mul(c, hi))
    conds = [E.ge(c, 0) for c, _, _ in oriented]
    conds.append(E.le(E.add(remainder, *ends), 0))
    return _all_proved(conds, side, ranges, prove, budget)


def _by_base(singles: list) -> list:
    """Single digits whose place values differ by a constant factor, merged: [(place, members)]."""
    groups: dict = {}
    for c, [(_, x, y)] in singles:
        r, base = _content(c)
        if r < 0:
            r, base = -r, E.neg(base)
        groups.setdefault(base, []).append((r, x, y))
    out = []
    for base, members in groups.items():
        g = 0
        for r, _, _ in members:
            g = math.gcd(g, r)
        out.append((E.mul(g, base), [(E.Const(r // g), x, y) for r, x, y in members]))
    return out


def _fact_compounds(digits: list, bounds: "_Bounds", side: list, prove: Callable, inner_first: bool = False) -> list:
    """Compound digits a fact bounds: [(member xs, (place, width, members))], not overlapping.  `inner_first`:
    the facts over fewer digits are taken first."""
    place = {x: c for c, x, _ in digits}
    other = {x: y for _, x, y in digits}
    out: list = []
    taken: set = set()
    facts = bounds.linear
    if inner_first:
        facts = sorted(facts, key=lambda f: sum(1 for x in E.free_syms(f) if x in place))
    for f in facts:
        terms, _ = E._linear_parts(f)
        ex: dict | None = {}
        for atom, k in terms.items():
            if not any(bounds.is_exec(v) for v in E.free_syms(atom)):
                continue  # part of the bound
            factors = E._atom_factors(atom)
            xs = [g for g in factors if g in place]
            if len(xs) != 1 or xs[0] in taken or any(bounds.is_exec(v) for g in factors if g is not xs[0]
                                                     for v in E.free_syms(g)):
                ex = None
                break
            coef = E.Const(k)
            for g in factors:
                if g is not xs[0]:
                    coef = E.mul(coef, g)
            ex[xs[0]] = coef
        if not ex or len(ex) < 2:
            continue
        unit = [x for x, k in ex.items() if k == E.ONE]
        if not unit:
            continue
        c0 = place[unit[0]]
        # proportional place values: the compound sum(k_i * x_i) counts in units of c0
        if any(E.mul(c0, k) != place[x] for x, k in ex.items()):
            continue
        if E.substitute(f, {x: other[x] for x in ex}) not in bounds.linear:
            continue  # the other execution's digits must be bounded the same way
        if any(bounds.of(x, False) != E.ZERO or bounds.of(other[x], False) != E.ZERO for x in ex):
            continue
        if not all(isinstance(k, E.Const) and k.value > 0 or prove(E.ge(k, 0), side) for k in ex.values()):
            continue
        z = E.add(*[E.mul(k, x) for x, k in ex.items()])
        width = E.add(E.neg(E.sub(f, z)), 1)  # 0 <= z <= -(f - z)
        out.append((set(ex), (c0, width, [(k, x, other[x]) for x, k in ex.items()])))
        taken |= set(ex)
    return out


def _radix(digits: list, bounds: "_Bounds", side: list, ranges: dict, prove: Callable, budget: list) -> list:
    """The pairs shown equal when the (place, width, members) digits are in mixed radix."""
    if not _chain(digits, side, ranges, prove, budget, bounds):
        return []
    out = []
    for _, _, members in digits:
        if len(members) == 1:
            out.append(members[0][1:])
            continue
        inner = []
        for k, x, y in members:
            w = _pair_width(bounds, [(E.ONE, x, y)])
            if w is None:
                break
            inner.append((k, w, [(E.ONE, x, y)]))
        else:
            if _chain(inner, side, ranges, prove, budget, bounds):
                out.extend(m[0][1:] for _, _, m in inner)
    return out


SPREADS = 16  # sample points where the inputs differ by small factors (see _sample), after the uniform ones


def _sample(c: E.Expr, ranges: dict, seed: int, base: int = 1000, spread: int = 0) -> int | None:
    """`c` at a sample point: every input near `base`, or, with `spread`, at 1 to 9 times it by input, the
    factor a function of the input and the spread, so the same at every place value (the uniform points make
    a difference of inputs, `D - 2*k`, negative however large they are)."""
    env = {}
    for s in E.free_syms(c):
        if not isinstance(s, E.Sym):
            env[s] = False  # a predicate on a dtype: any value gives an estimate
            continue
        r = ranges.get(s)
        v = base + 37 * seed + s.uid % 13 if base >= 1000 else base + seed
        if spread:
            v *= 1 + (s.uid * (2 * spread + 1) + spread) % 9
        if r is not None:
            if r.hi is not None:
                v = min(v, r.hi)
            if r.lo is not None:
                v = max(v, r.lo)
        env[s] = v
    try:
        return int(E.evaluate(c, env))
    except Exception:  # noqa: BLE001 - an order we cannot estimate is just not tried
        return None


def _factor_count(c: E.Expr) -> int:
    """How many symbolic factors a place value multiplies (its integer content aside)."""
    _, base = _content(c)
    return 0 if isinstance(base, E.Const) else len(E._atom_factors(base))


def _chain(digits: list, side: list, ranges: dict, prove: Callable, budget: list,
           bounds: "_Bounds | None" = None) -> bool:
    """Digits [(place value, width, ...)] in mixed radix: ordered by place value, the smallest is >= 1 and
    each place value times its width is at most the next place value."""
    return _chain_order(digits, side, ranges, prove, budget, bounds) is not None


def _chain_order(digits: list, side: list, ranges: dict, prove: Callable, budget: list,
                 bounds: "_Bounds | None" = None) -> list | None:
    """The digits in the order that shows them in mixed radix (see `_chain`), or None."""
    keyed: list = []
    # one sample point for all digits, the first where every place value is positive (the uniform ones first)
    for spread, base in itertools.product(range(SPREADS), SAMPLE_BASES):
        keyed = []
        for d in digits:
            est = _sample(d[0], ranges, 0, base, spread)
            if est is None or est <= 0:
                break
            keyed.append(((est, _sample(d[0], ranges, 1, base, spread) or 0, _factor_count(d[0])), d))
        else:
            break
    if len(keyed) != len(digits):
        return None
    keyed.sort(key=lambda kd: kd[0])
    # place values the sample cannot tell apart (`1` and `min(128 // k, n // 128)` at 128): each order of them,
    # the first with the fewer factors lower (the place values of a flattened index are nested products, `B`,
    # `M*B`, `K*M*B`, whichever sizes the sample took as 1)
    groups = [[d for _, d in g] for _, g in itertools.groupby(keyed, key=lambda kd: kd[0][0])]
    orders = itertools.islice(itertools.product(*[itertools.permutations(g) for g in groups]), MAX_TIE_ORDERS)
    for order in orders:
        ordered = [d for g in order for d in g]
        if _chained(ordered, side, ranges, prove, budget, bounds):
            return ordered
    return None


def _chained(ordered: list, side: list, ranges: dict, prove: Callable, budget: list,
             bounds: "_Bounds | None" = None) -> bool:
    if not _all_proved([E.ge(ordered[0][0], 1)], side, ranges, prove, budget):
        return False
    for (c, n, *more), (c2, *_) in zip(ordered, ordered[1:]):
        # a single digit's width from each of its bounds (see `_other_widths`): the constant first
        widths = [n] + (_other_widths(bounds, more[0], n) if bounds is not None and more else [])
        if not any(_all_proved([E.le(E.mul(c, w), c2)], side, ranges, prove, budget) for w in widths):
            return False
    return True


def _all_proved(conds: list, side: list, ranges: dict, prove: Callable, budget: list) -> bool:
    """Every side condition holds: by the ranges, else by `prove`, each call spending one of `budget`."""
    for cond in conds:
        if cond == E.TRUE or E.decide(cond, ranges) is True:
            continue
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        if not prove(cond, side):
            return False
    return True
