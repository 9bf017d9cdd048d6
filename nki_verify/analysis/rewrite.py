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


def nonlinear(b: E.BExpr) -> bool:
    """Does the goal multiply or divide unknowns (where rewriting may help)?"""
    def walk(e: object) -> bool:
        if isinstance(e, E.Mul):
            return True
        if isinstance(e, (E.FloorDiv, E.Mod)) and not isinstance(e.b, E.Const):
            return True
        return any(walk(c) for c in E.children(e)) if isinstance(e, (E.Expr, E.BExpr)) else False
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


def proves(goal: E.BExpr, rule: dict, ranges: dict) -> bool:
    """Is the goal TRUE once the rules are applied (to a fixpoint, at most MAX_ROUNDS times)?"""
    if not rule:
        return False
    g = goal
    for _ in range(MAX_ROUNDS):
        h = E.substitute(g, rule)
        if h == g:
            break
        g = h
        if g == E.TRUE:
            return True
    if g == E.TRUE:
        return True
    return E.decide(E.simplify_in(g, ranges), ranges) is True
