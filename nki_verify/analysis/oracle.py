"""Decisions the front end asks for while interpreting (is this branch condition settled?).

Interval reasoning first; z3 with a small deterministic budget when intervals
cannot tell.  An undecided condition makes the front end explore both branches,
which is always sound.
"""

from __future__ import annotations

from typing import Any

from compiler import expr as E

from ..options import DEFAULT_SOLVER_TIMEOUT_MS
from .solver import Translator, Z3Context, assert_term, make_solver, model_values, relevant

# (over nki-library, at 300k the branch questions' checks were 660 unsat and 716 sat, 5 undecided; at 60k the
# same 660 unsat, and 21 of the sat ones undecided instead, which answers the same (both branches explored); at
# 30k two unsat ones were lost.  The sat ones are the slow ones: 3.5 s at 300k, 2.2 s at 60k)
DECIDE_RLIMIT = 60_000
# solver calls the front end may make per kernel on branch conditions; past it, only intervals decide (an
# undecided condition explores both branches: more to analyse, never unsound).  A count, not seconds, so
# that what is explored does not depend on the machine's speed; per kernel (see `new_kernel`), so that what a
# kernel's analysis decides does not depend on which kernels of its file were analysed before it.
DECIDE_BUDGET = 150
VALID_SIZE = 80  # the largest question `valid` takes (a loop step's induction is about 40)
# the solver's models of a file's earlier branch questions, kept to witness later ones: a condition both of whose
# sides hold at some kept point (every fact checked there) is open, and needs no solver call.  Most conditions
# the front end cannot settle are of that kind (a loop index compared with a constant, a shape's remainder),
# and proving it took two satisfiable checks (660 of 1320 solves over nki-library, 5 of its 7.5 s)
POINTS_KEPT = 24
WITNESS_EVALUATIONS = 16  # points evaluated per question (each against all its facts)
SIMPLIFIED_KEPT = 20_000  # conditions simplified in their ranges, remembered (see SolverOracle._simplified)


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
        self._simple: dict = {}  # (condition, ranges of its symbols) -> the condition simplified in them
        self._points: list = []  # models of earlier questions (symbol -> value), the newest last
        self.queries = 0
        self.witnessed = 0  # sides of conditions shown possible by a kept point instead of the solver

    def close(self) -> None:
        """Drop the z3 terms and context (the oracle answers from intervals and its cache afterwards)."""
        self._tr = None
        if self.context is not None:
            self.context.close()
        self.budget = 0

    def new_kernel(self) -> None:
        """A kernel's analysis starts: it gets the whole budget.  (Per file, the budget a file's first kernels
        spent was not there for a later one: load_gate_up_weight_scale_bias, analysed after
        gate_up_projection_mx_shard_I in its file, could no longer settle the shape rule that corrects the
        guessed rank of its bias, and a check that failed only at that guessed rank became an error; with
        `--kernel` it was the warning it is.)"""
        if self.budget > 0:  # (a closed oracle stays closed)
            self.solved = 0

    def decide(self, cond: E.BExpr, facts: E.BExpr, kb: Any, ranges: dict) -> bool | None:
        d = E.decide(cond, ranges)
        if d is not None:
            return d
        cond = self._simplified(cond, ranges)
        if isinstance(cond, E.BConst):
            return cond.value
        syms = E.free_syms(cond)
        if any(getattr(s, "kind", "") == "probe" for s in syms):
            return None
        if E.size(cond) + E.size(facts) > 400:
            return None  # too large to be worth a solver call here; both branches get explored
        key = ("oracle", cond, facts, *kb.facts_key(), self.timeout_ms)
        if key in self._cache:
            return self._cache[key]
        if self.solved >= self.budget:
            return None
        self.solved += 1
        out = self._solve(cond, facts, kb)
        self._cache[key] = out
        return out

    def _translator(self) -> Translator:
        if self._tr is None:
            self._tr = Translator(self.context.get() if self.context is not None else None)
        return self._tr

    def valid(self, cond: E.BExpr) -> bool:
        """Whether `cond` holds for every value of its symbols, no fact assumed: a small question (the step of a
        loop's value in every iteration but the last, its start any integer), asked outside the budget of
        decisions, which a large kernel spends before its last loops are summarised, and remembered."""
        if E.decide(cond, {}) is True:
            return True
        if self.budget <= 0 or E.size(cond) > VALID_SIZE:
            return False
        key = ("valid", cond)
        got = self._cache.get(key)
        if got is None:
            tr = self._translator()
            s = make_solver(self.timeout_ms, DECIDE_RLIMIT, tr.ctx, simple=True)
            s.add(tr.z3.Not(tr.term(cond)))
            self.queries += 1
            try:
                got = s.check() == tr.z3.unsat
            except Exception:  # noqa: BLE001 - a solver failure only means "not shown"
                got = False
            self._cache[key] = got
        return got

    def _simplified(self, cond: E.BExpr, ranges: dict) -> E.BExpr:
        """`E.simplify_in(cond, ranges)`, remembered by the condition and the ranges of its own symbols (all it
        depends on): a loop's summary passes and a kernel's runs per rank ask the same conditions again, and
        simplifying them was an eighth of the front end's time on MoE kernels."""
        syms = E.free_syms(cond)
        # (and the bounds the facts give the condition's compound terms, `min(128, n // g) != 0`: another kernel
        # of the file may not have them)
        key = (cond, tuple((s, r.lo, r.hi) for s in sorted(syms, key=lambda s: s.uid)
                           if (r := ranges.get(s)) is not None), _compound_bounds(cond, ranges))
        got = self._simple.get(key)
        if got is None:
            if len(self._simple) >= SIMPLIFIED_KEPT:
                self._simple.clear()
            got = self._simple[key] = E.simplify_in(cond, ranges)
        return got

    def _solve(self, cond: E.BExpr, facts: E.BExpr, kb: Any) -> bool | None:
        tr = self._translator()
        z3 = tr.z3
        base = [facts] + [a.cond for a in kb.assumptions]
        for info in kb.symbols:
            if info.role == "loop":
                # a loop index's range holds inside its loop only, and the enclosing loops' come with `facts`
                # (Interpreter.loop_facts): as a fact everywhere it says every loop runs, so a loop that is empty
                # for some inputs (`for i in range(n - 32)` in a branch) made those inputs contradict the facts
                # and a condition that holds only elsewhere (the branch's own) decided true
                continue
            bounds = self._bounds.get(info)
            if bounds is None:
                bounds = self._bounds[info] = ([E.ge(info.sym, info.lo)] if info.lo is not None else []) + \
                    ([E.lt(info.sym, info.hi)] if info.hi is not None else [])
            base.extend(bounds)
        base = relevant(set(E.free_syms(cond)), [f for f in base if f != E.TRUE])  # the cone of influence
        need: set = set(E.free_syms(cond))  # the question's symbols
        for f in base:
            need |= E.free_syms(f)
        sides = self._witnessed(cond, base, kb, need)
        if sides == (True, True):
            return None
        try:
            if not sides[1]:
                r1 = self._check(base, z3.Not(tr.term(cond)), need)
                if r1 == z3.unsat:
                    return True
            if not sides[0]:
                r2 = self._check(base, tr.term(cond), need)
                if r2 == z3.unsat:
                    return False
        except Exception:  # noqa: BLE001 - an oracle failure only means "undecided"
            return None
        return None

    def _check(self, base: list, side: Any, need: set) -> Any:
        """Is one side of the condition possible?  A solver of its own for each side: z3 preprocesses a
        question it is asked once (no push), which was cheaper than taking in the facts for both (measured)."""
        tr = self._tr
        s = make_solver(self.timeout_ms, DECIDE_RLIMIT, tr.ctx, simple=True)
        for f in base:
            assert_term(s, tr.term(f))
        s.add(side)
        self.queries += 1
        r = s.check()
        if r == tr.z3.sat:
            self._keep(s.model(), need)
        return r

    def _witnessed(self, cond: E.BExpr, facts: list, kb: Any, need: set) -> tuple:
        """(some point satisfies the facts and `cond`, some satisfies them and not `cond`): the kept points, newest
        first, completed to the question's symbols (`completed`), and each moved along the condition's symbols.
        Every point is checked against every fact.  `need`: the symbols of `cond` and the facts."""
        infos = {info.sym: info for info in kb.symbols if info.sym in need}
        cond_syms = sorted((x for x in E.free_syms(cond) if isinstance(x, E.Sym)), key=lambda x: x.uid)
        yes = no = False
        budget = [WITNESS_EVALUATIONS]
        for point in reversed(self._points):
            if budget[0] <= 0:
                break
            p = completed(point, need, infos)
            if p is None:
                continue
            side = point_side(p, cond, facts, budget)
            if side is None:
                continue
            yes, no = yes or side, no or not side
            if yes and no:
                break
            for x in cond_syms[:3]:
                for v in _alternatives(x, p[x], infos.get(x)):
                    q = dict(p)
                    q[x] = v
                    other = point_side(q, cond, facts, budget)
                    if other is not None and other != side:
                        yes = no = True
                        break
                if (yes and no) or budget[0] <= 0:
                    break
            if yes and no:
                break
        self.witnessed += yes + no
        return yes, no

    def _keep(self, model: Any, need: set) -> None:
        """Keep the model's values of the question's symbols (checked again wherever the point is used)."""
        point = model_values(model, [(x, self._tr.var(x)) for x in need], completion=True)
        if len(point) == len(need):
            self._points.append(point)
            if len(self._points) > POINTS_KEPT:
                del self._points[0]


def _compound_bounds(cond: E.BExpr, ranges: dict) -> tuple:
    """(term, lo, hi) of the compound terms of `cond` the ranges bound (what `E.simplify_in` reads of them)."""
    out = []
    seen: set = set()
    stack = [cond]
    while stack:
        e = stack.pop()
        if id(e) in seen or isinstance(e, (E.Const, E.Sym)):
            continue
        seen.add(id(e))
        if isinstance(e, E.Expr) and (r := ranges.get(e)) is not None:
            out.append((e, r.lo, r.hi))
        stack.extend(E.children(e))
    return tuple(out)


def _alternatives(x: Any, v: int, info: Any) -> list:
    """Other values to try for symbol `x` (now `v`): the rest of a small constant range, else nearby sizes."""
    if info is not None and isinstance(info.lo, E.Const) and isinstance(info.hi, E.Const) and \
            info.hi.value - info.lo.value <= 8:
        return [w for w in range(info.lo.value, info.hi.value) if w != v]
    out = [w for w in (v + 1, v - 1, 2 * v, v // 2, v + 128, v - 128, 0, 1) if w != v]
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------- points


def _name(x: Any) -> str:
    return x.name.split("@")[0]


def completed(point: dict, need: set, infos: dict) -> dict | None:
    """`point` over the symbols `need`: a missing one takes the value of a same-named one (another copy of a loop
    index, the same dimension in another launch context), else the constant start of its range (a loop index
    the earlier questions did not name: its first iteration), else None."""
    missing = need - point.keys()
    if not missing:
        return point
    by_name: dict = {}
    for x, v in point.items():
        if isinstance(x, E.Sym):
            by_name.setdefault(_name(x), v)
    out = dict(point)
    for x in missing:
        v = by_name.get(_name(x)) if isinstance(x, E.Sym) else None
        if v is None:
            info = infos.get(x)
            if info is None or not isinstance(info.lo, E.Const):
                return None
            v = info.lo.value
        out[x] = v
    return out


def point_side(point: dict, cond: E.BExpr, facts: list, budget: list) -> bool | None:
    """The value of `cond` at `point` when every fact holds there, else None."""
    budget[0] -= 1
    memo: dict = {}
    try:
        if not all(E.evaluate(f, point, memo) for f in facts):
            return None
        return bool(E.evaluate(cond, point, memo))
    except (ArithmeticError, KeyError, TypeError):
        return None
