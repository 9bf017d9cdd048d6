"""Decisions the front end asks for while interpreting (is this branch condition settled?).

Interval reasoning first; z3 with a small deterministic budget when intervals
cannot tell.  An undecided condition makes the front end explore both branches,
which is always sound.
"""

from __future__ import annotations

from typing import Any

from compiler import expr as E

from ..options import DEFAULT_SOLVER_TIMEOUT_MS
from .solver import Translator, Z3Context, make_solver, relevant

DECIDE_RLIMIT = 300_000
# solver calls the front end may make per file on branch conditions; past it, only intervals decide (an
# undecided condition explores both branches: more to analyse, never unsound).  A count, not seconds, so
# that what is explored does not depend on the machine's speed.
DECIDE_BUDGET = 150


class SolverOracle:
    def __init__(self, timeout_ms: int = DEFAULT_SOLVER_TIMEOUT_MS, cache: dict | None = None,
                 budget: int = DECIDE_BUDGET, context: Z3Context | None = None) -> None:
        self.timeout_ms = timeout_ms
        self.context = context
        self.budget = budget
        self.solved = 0
        self._tr: Translator | None = None
        # decisions by condition, facts, assumptions and symbol ranges: shared with the caller's solver cache
        # (the language server keeps one per open document, so an edit re-asks nothing already decided)
        self._cache: dict = cache if cache is not None else {}
        self._bounds: dict = {}  # symbol info -> its range as facts
        self.queries = 0

    def decide(self, cond: E.BExpr, facts: E.BExpr, kb: Any, ranges: dict) -> bool | None:
        d = E.decide(cond, ranges)
        if d is not None:
            return d
        cond = E.simplify_in(cond, ranges)
        if isinstance(cond, E.BConst):
            return cond.value
        syms = E.free_syms(cond)
        if any(getattr(s, "kind", "") == "probe" for s in syms):
            return None
        if E.size(cond) + E.size(facts) > 400:
            return None  # too large to be worth a solver call here; both branches get explored
        key = ("oracle", cond, facts, tuple(kb.assumptions),
               tuple((info.sym, info.lo, info.hi) for info in kb.symbols), self.timeout_ms)
        if key in self._cache:
            return self._cache[key]
        if self.solved >= self.budget:
            return None
        self.solved += 1
        out = self._solve(cond, facts, kb)
        self._cache[key] = out
        return out

    def _solve(self, cond: E.BExpr, facts: E.BExpr, kb: Any) -> bool | None:
        if self._tr is None:
            self._tr = Translator(self.context.get() if self.context is not None else None)
        tr = self._tr
        z3 = tr.z3
        base = [facts] + [a.cond for a in kb.assumptions]
        for info in kb.symbols:
            bounds = self._bounds.get(info)
            if bounds is None:
                bounds = self._bounds[info] = ([E.ge(info.sym, info.lo)] if info.lo is not None else []) + \
                    ([E.lt(info.sym, info.hi)] if info.hi is not None else [])
            base.extend(bounds)
        base = relevant(set(E.free_syms(cond)), [f for f in base if f != E.TRUE])  # the cone of influence
        try:
            s = make_solver(self.timeout_ms, DECIDE_RLIMIT, tr.ctx)
            for f in base:
                if f != E.TRUE:
                    s.add(tr.term(f))
            c = tr.term(cond)
            self.queries += 2
            s.push()
            s.add(z3.Not(c))
            r1 = s.check()
            s.pop()
            if r1 == z3.unsat:
                return True
            s.add(c)
            r2 = s.check()
            if r2 == z3.unsat:
                return False
        except Exception:  # noqa: BLE001 - an oracle failure only means "undecided"
            return None
        return None
