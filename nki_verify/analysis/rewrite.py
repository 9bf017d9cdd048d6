"""Equal products by rewriting: a cheap proof for the non-linear goals solvers give up on.

Element counts (`reshape`, `dma_copy`) compare products of input sizes: `D*G*(N // G) == K` under the
kernel's `assert K == N*D` and a loop's exit condition `N % G == 0`.  Non-linear integer arithmetic makes
z3 give up on many of these, yet they follow by substitution: the facts' equalities are used as rules
(`K -> N*D`; `N % G == 0` gives `N -> G*q` for a fresh q, so that `N // G` is `q`), applied to the goal,
and the canonical form of the result is TRUE.

Sound: each rule replaces a symbol by what it equals wherever the facts hold (the fresh quotient ranges over
every integer, so a goal valid for all of its values is valid for the original); a rewritten goal that is not
TRUE proves nothing and the caller asks the solver as before.
"""

from __future__ import annotations

from typing import Callable

from compiler import expr as E

MAX_ROUNDS = 6
QUOTIENT_UIDS = 3 * 10**9  # the fresh quotients' symbols, apart from the front end's and the analyses'


def nonlinear(b: E.BExpr, memo: dict | None = None) -> bool:
    """Does the goal multiply or divide unknowns (where rewriting may help)?  `memo`: the caller's table of the
    answers for sub-expressions (facts share their terms)."""
    memo = {} if memo is None else memo

    def walk(e: object) -> bool:
        hit = memo.get(e)
        if hit is None:
            if isinstance(e, E.Mul):
                hit = True
            elif isinstance(e, (E.FloorDiv, E.Mod)) and not isinstance(e.b, E.Const):
                hit = True
            else:
                hit = any(walk(c) for c in E.children(e)) if isinstance(e, (E.Expr, E.BExpr)) else False
            memo[e] = hit
        return hit
    return walk(b)


def rules(facts: list, keep: Callable) -> dict:
    """Symbol -> expression rules from the equalities among `facts` (conjuncts); `keep(sym)` says which
    symbols may be rewritten (input sizes, not loop indices)."""
    out: dict = {}
    n = 0
    for f in facts:
        for g in f.args if isinstance(f, E.BAnd) else (f,):
            if not (isinstance(g, E.Cmp) and g.op == E.EQ):
                continue
            e = g.e
            if isinstance(e, E.Mod) and isinstance(e.a, E.Sym) and keep(e.a) and e.a not in out and \
                    e.a not in E.free_syms(e.b):
                q = E.Sym(f"({e.a.name} // {E.short(e.b)})", QUOTIENT_UIDS + n, "quotient")
                n += 1
                out[e.a] = E.mul(e.b, q)  # a % b == 0  ->  a == b*q
                continue
            terms, _ = E._linear_parts(e)
            for s, k in terms.items():
                if isinstance(s, E.Sym) and abs(k) == 1 and keep(s) and s not in out:
                    rest = E.sub(e, E.mul(k, s))  # k*s + rest == 0
                    if s in E.free_syms(rest):
                        continue
                    out[s] = E.neg(rest) if k == 1 else rest
                    break
    return out


def applied(goal: E.AnyExpr, rule: dict) -> E.AnyExpr:
    """The goal (or expression) with the rules applied to a fixpoint (at most MAX_ROUNDS times)."""
    g = goal
    for _ in range(MAX_ROUNDS if rule else 0):
        h = E.substitute(g, rule)
        if h == g:
            break
        g = h
    return g


def proves(goal: E.BExpr, rule: dict, ranges: dict) -> bool:
    """Is the goal TRUE once the rules are applied?"""
    if not rule:
        return False
    g = applied(goal, rule)
    return g == E.TRUE or E.decide(E.simplify_in(g, ranges), ranges) is True


def sufficient(goal: E.BExpr, rule: dict, ranges: dict, is_input: Callable, depth: int = 0) -> list | None:
    """Simpler goals that together imply `goal`: [(case facts, goal')], or None when none is found.

    The rules are applied; a conditional on inputs is split into its two cases (each with the symbols its
    ranges then fix replaced by their values); and an equality whose terms share a factor, f*r == 0, is
    reduced to r == 0 (sufficient whatever the sign of f).  What is left is often linear, for the solver."""
    g = applied(goal, rule)
    if g == E.TRUE:
        return []
    cond = _input_condition(g, is_input) if depth < 2 else None
    if cond is not None:
        out: list = []
        for case in (cond, E.bnot(cond)):
            r2 = dict(ranges)
            E.refine_ranges(r2, case)
            fixed = {s: v for s, v in E.fixed_by(r2).items() if is_input(s)}
            g2 = E.simplify_in(E.substitute(g, fixed) if fixed else g, r2)
            if g2 == g:
                return None
            sub = sufficient(g2, rule, r2, is_input, depth + 1)
            if sub is None:
                return None
            out.extend(([case, *facts], h) for facts, h in sub)
        return out
    reduced = _cancel_factor(g)
    return None if reduced is None else [([], reduced)]


def _input_condition(b: E.BExpr, is_input: Callable) -> E.BExpr | None:
    """The condition of a conditional expression in `b` that only inputs decide."""
    stack = [b]
    seen: set = set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, E.Ite) and all(is_input(s) for s in E.free_syms(e.cond) if isinstance(s, E.Sym)):
            return e.cond
        if isinstance(e, (E.Expr, E.BExpr)):
            stack.extend(E.children(e))
    return None


def _cancel_factor(g: E.BExpr) -> E.BExpr | None:
    """f*r == 0 as r == 0, for the common non-constant factor f of every term (None if there is none)."""
    if not (isinstance(g, E.Cmp) and g.op == E.EQ):
        return None
    e = g.e
    changed = False
    while True:
        terms, c = E._linear_parts(e)
        if c or not terms:
            break
        first = next(iter(terms))
        f = next((x for x in E._atom_factors(first)
                  if all(E._exact_quotient(a, x) is not None for a in terms)), None)
        if f is None:
            break
        e = E.add(*[E.mul(k, E._exact_quotient(a, f)) for a, k in terms.items()])
        changed = True
    return E.eq(e, 0) if changed else None
