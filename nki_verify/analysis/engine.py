"""Proof obligations of one kernel, and how a verdict becomes a diagnostic.

An obligation is a condition that must hold at a node, under the node's local
facts (path condition, Beta-1 mask, the ranges of its loop indices, program
ids and index-grid variables) and the kernel's global facts (input shapes are
positive, the kernel's own asserts).  Interval reasoning settles most of them;
the rest go to z3.  A violation is

* an error when every admissible input reaches it (for some iteration/program),
* a warning when only some admissible inputs do (with the assert that would
  rule them out, when one is found),
* NKI901 when it cannot be decided or hinges on a value the front end could not
  determine.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import itertools

import math
import re
from dataclasses import dataclass, field
from typing import Callable

from compiler import expr as E
from compiler import ir
from compiler.spec import dtypes as D

from ..diagnostics import ERROR, LOOP_COPY, UNDECIDED, WARNING, Diagnostic, Location, Note, finding_key, finding_rank
from . import radix, rewrite
from .accesses import UNKNOWN_COPY, conjuncts
from .solver import (FINE_POINTS_KEPT, PROVED, QUANT_RLIMIT, QUIET_RLIMIT, RLIMIT, Proved, Prover, Unknown, Violated,
                     Z3Context, conjunct_list, relevant)

INPUT_ROLES = frozenset({"shape", "scalar", "grid", "unknown", "config"})
EXEC_ROLES = frozenset({"loop", "pid", "iota", "register", "seq", "probe"})
RADIX_CODES = frozenset({"NKI401", "NKI402"})  # checks of `two executions touch the same element`
BOUND_CODES = frozenset({"NKI101", "NKI102"})  # upper bounds of accesses: digits in mixed radix (radix.bounded)


# per kernel analysis: solver queries spent on what only makes a finding nicer (a realistic counterexample, the
# assert to suggest).  A count, like the other budgets, so that the same findings carry the same suggestions
# on any machine.
EXTRAS_QUERY_BUDGET = 60
# the mixed-radix upper bounds (radix.bounded), tried only after the solver gave up: attempts and their side
# conditions per kernel analysis (a kernel full of undecided bounds, fgcc with 124 of them and none provable
# so, spent 2.6 s on them; their case splits simplify every fact)
BOUND_ATTEMPT_BUDGET = 12
BOUND_QUERY_BUDGET = 40
# per kernel analysis: solver queries for the checks whose undecided verdicts are quiet (the quantified
# uninitialised-read queries, the slowest kind); past it the remaining ones are not decided, and counted as
# skipped.  A count, not seconds: the verdicts stay the same on a slower or busier machine.
QUIET_QUERY_BUDGET = 80
# violations whose facts name values the front end could not determine, asked whether any value of those decides
# them (see _whatever_unknown): per kernel analysis
WHATEVER_QUERY_BUDGET = 24
# per kernel analysis: violations asked again at the first iterations of the loops whose carried values they
# depend on (see KernelAnalysis._at_first_iterations), and the loops nested around one another looked through
FIRST_ITERATION_BUDGET = 24
MAX_LOOP_NESTING = 8
# checks of one execution, whose undetermined values take one value there (not so for two program instances or
# two iterations: a program's index from a helper not followed is one symbol for both, and they seem to race)
ONE_EXECUTION_CODES = frozenset({"NKI101", "NKI102", "NKI201", "NKI202", "NKI203", "NKI501"})
# per kernel analysis: checks the solver could not decide at its full resource limit (copies of a check shown
# undecided at their place not counted again).  Past it, a kernel the
# solver cannot follow (non-linear sizes computed from values the front end could not determine, hundreds of
# them) gets the quiet checks' smaller limit and no second chances for the rest of its checks: their verdicts
# are the same when decided, and the undecided ones say the budget was spent.  A count, like the others.
UNDECIDED_BUDGET = 24
SHAPE_LABEL = re.compile(r"(.+)\.shape\[(\d+)\]")  # an input dimension's label: array, axis
SUGGESTION_BISECTIONS = 8  # queries lowering a suggested `assert n >= c` (KernelAnalysis._least_floor)
ATOM_SIZE = 12  # the largest part of a check's condition suggested as an assert (`d % 2 == 0` is 4)
LONG_NOTE = 120  # characters of a loop's bounds in terms of the inputs shown in its note (else the source's words)
CASE_SPLIT_LIMIT = 16  # cases of a split over symbols with a few values (KernelAnalysis._by_cases)
# the work allowed to the question asked first of a check on configuration fields (is some configuration always
# fine?): a short one, since an undecided answer only means the usual questions are asked after it
PRECHECK_RLIMIT = 30_000


def location(span: ir.Span) -> Location:
    return Location(span.file, span.line, span.col, span.end_line, span.end_col)


def call_notes(span: ir.Span) -> tuple:
    """The helper calls that led from the kernel to `span`, innermost first: in a shared helper, which use
    of it is meant."""
    return tuple(Note(location(site), "reached through this call") for site in reversed(span.via))


@dataclass
class Obligation:
    code: str
    goal: E.BExpr
    facts: tuple
    span: ir.Span
    message: str  # what is wrong, in words (symbolic quantities rendered with labels)
    quantities: tuple = ()  # (name, Expr) evaluated under a counterexample: "here: end = 129, size = 128"
    notes: tuple = ()
    loops: tuple = ()  # loop ids of the node (for related information)
    floor: str | None = None  # force a severity
    fixes: tuple = ()  # mechanical fixes (diagnostics.Fix)
    show: tuple = ()  # symbols always shown in the counterexample (e.g. the two iterations of a dependency)
    definite: bool = False  # report only violations every admissible input reaches (no input-dependent warning)
    quiet_unknown: bool = False  # an undecided verdict is not reported (NKI901 off for this check)
    # the goals each of which implies `goal` under the facts, easier to prove (an access pattern's coordinates
    # each inside their axis, bounds.py; two element counts equal axis by axis, spec_rules.py), made from the
    # kernel's rewriting rules (see `_rules`): a proof of one proves the check, their violations say nothing
    stronger: Callable[[dict], tuple] | None = None


@dataclass
class Stats:
    obligations: int = 0
    by_interval: int = 0
    by_cases: int = 0  # undecided goals proved by a narrower question: their own facts, or case by case (_by_cases)
    by_radix: int = 0  # two executions shown apart by their distinct index digits (radix.py)
    by_rewrite: int = 0  # non-linear goals shown by the facts' equalities (rewrite.py)
    queries: int = 0
    z3_seconds: float = 0.0
    skipped: int = 0  # quiet checks left undecided once their budget was spent
    by_point: int = 0  # shown to pass for some input at an input kept from the solver (no finding to show)
    by_last_chance: int = 0  # undecided copies proved with a larger work bound (see _last_chance)
    by_sibling: int = 0  # undecided copies another check's counterexample at their place settles (_by_sibling_models)
    by_axes: int = 0  # undecided checks proved axis by axis (see _by_axes)


# conditions of the goal's conditionals split on, one inside the other, for an undecided goal (see _by_conditions)
CONDITION_SPLIT_DEPTH = 4
CONDITION_SPLIT_QUERIES = 12
CONDITION_SPLIT_KERNEL_QUERIES = 96  # per kernel
# the last chance of the checks the solver could not decide (see KernelAnalysis.settle_deferred): asked again with
# ten times the work bound, once the kernel's other questions are answered, in a kernel run with a few such places
# only (one with many is not made fully analysed by settling some), those places with a few copies each, and
# within a number of solver queries per run.  (Over nki-library: the MX gate/up projection's bias walk, attention
# backward's transpose and SPMD writes, a slice of output projection's weights; kernels fully analysed 26 -> 28,
# NKI901 315 -> 304, at no measurable cost in time)
LAST_CHANCE_RLIMIT = 10 * RLIMIT
# solver queries per kernel run spent proving undecided checks axis by axis (see _by_axes)
AXES_QUERIES = 64
MAX_LEMMA_INDICES = 4  # the execution indices and remainders `_remainder_lemmas` pairs, at most
MAX_LEMMA_REMAINDERS = 4
LAST_CHANCE_PLACES = 12  # undecided places in the run at most
LAST_CHANCE_COPIES = 8  # copies of the check at one place at most
LAST_CHANCE_QUERIES = 16  # solver queries per kernel run
SIBLING_MODELS = 2  # counterexamples kept per place (KernelAnalysis._by_sibling_models)
SIBLING_QUERIES = 16  # solver queries per kernel run (ditto)
# the values of a counterexample past SHRINK_ABOVE are made smaller, one symbol at a time, by trying round values
# from 128 up, each kept only where the goal still fails and the kernel's facts hold, evaluated without the solver
# (see KernelAnalysis._shrunk); at most SHRINK_EVALS evaluations per finding
SHRINK_ABOVE = 65536
SHRINK_EVALS = 400
_ROUND_VALUES = tuple(sorted({2 ** k for k in range(7, 31)} | {128 * k for k in range(1, 65)}))

# the kernel's facts added to a query only when it finds a violation without them (see KernelAnalysis.lazy):
# allocated dimensions are at least 1, and what a gcd or lcm of symbolic sizes divides (mod facts with a symbolic
# divisor, on sizes that half the kernel's questions name: +50 % time on attention_block_tkg given to all of them),
# and the item size of an input's dtype where the kernel tests which dtype it is (they tie each question on the
# bytes of a tile to every fact on that dtype: three more NKI901 on nki-library and a tenth more time when eager)
LAZY_ORIGINS = frozenset({"allocation", "divisor", "itemsize"})
# analysis-made symbols never collide with the front end's (which count up from 1)
ANALYSIS_UIDS = 10**9


class KernelAnalysis:
    def __init__(self, kernel: ir.Kernel, timeout_ms: int, cache: dict | None = None,
                 context: Z3Context | None = None, shown: dict | None = None) -> None:
        self.k = kernel
        self.info = {s.sym: s for s in kernel.symbols}
        self.loops = {lp.id: lp for lp in kernel.loops}
        self.ranges = self._ranges()
        base = []
        for s in kernel.symbols:
            if s.role in INPUT_ROLES:
                if s.lo is not None:
                    base.append(E.ge(s.sym, s.lo))
                if s.hi is not None:
                    base.append(E.lt(s.sym, s.hi))
        self._n_input_facts = len(base)
        base.extend(a.cond for a in kernel.assumptions if a.origin not in LAZY_ORIGINS)
        self.base = base
        # the lazy facts (LAZY_ORIGINS; that allocated dimensions are at least 1, say: true of every launch, but
        # many, and with divisions that slow every query they join, +30 % solver time on the MoE kernels), added
        # only to a query that finds a violation without them; each with the symbols a question must name for it
        # to join: any of the fact's, but for an item size's tie to the dtype tests, the item size (the tie
        # matters to the bytes of a tile, not to the other questions on the dtype, which it only makes harder)
        self._lazy_on_syms = [(a.cond, frozenset(x for x in E.free_syms(a.cond) if isinstance(x, E.Sym))
                               if a.origin == "itemsize" else E.free_syms(a.cond))
                              for a in kernel.assumptions if a.origin in LAZY_ORIGINS]
        self.lazy = [f for f, _ in self._lazy_on_syms]
        # (the input test is a plain function of the symbol table: a bound method would make a reference cycle
        # that keeps the file's z3 context alive until the next garbage collection)
        self.prover = Prover(base, timeout_ms, cache, inputs=functools.partial(_is_input, self.info),
                             ranges=self.ranges, context=context)
        # solver queries spent on what only makes a finding nicer (a realistic counterexample, the assert to
        # suggest): past the budget, findings keep the solver's own model and no suggestion
        self.extras_queries = 0
        self.quiet_queries = 0
        self.whatever_queries = 0
        self.first_queries = 0  # spent by _at_first_iterations
        self.bound_queries = 0
        self.bound_attempts = 0
        self.condition_queries = 0  # spent by _by_conditions (see CONDITION_SPLIT_KERNEL_QUERIES)
        self.deferred: list = []  # (NKI901 finding, goal, facts, check) for `settle_deferred`
        self.undecided_copies: list = []  # (NKI901 finding, check, goal, facts, obligation) of every such copy, ditto
        self._loop_of: dict | None = None  # loop variable -> loop (see _tile_lemmas)
        self._carried_by: dict | None = None  # carried value -> its loop (see _at_first_iterations)
        self.axes_copies: list = []  # (NKI901 finding, check, stronger goals, facts, ranges) of every copy (_by_axes)
        # id of an undecided finding -> the finding the last chance found in its place (see _last_chance)
        self.replacements: dict = {}
        # place -> the models of the violations found there (see _by_sibling_models)
        self._violation_models: dict = {}
        self._sibling_spent = 0  # solver queries _by_sibling_models asked in this run
        self.undecided = 0  # checks the solver could not decide at RLIMIT (see UNDECIDED_BUDGET)
        self.stats = Stats()
        self._seen: set = set()
        # the rank of the finding shown so far under each key (diagnostics.finding_key), in this kernel and
        # the file's kernels analysed before it (the caller's dict): a copy that could not outrank it would
        # be dropped from the output (api._dedupe), so it is not worked out
        self._shown: dict = shown if shown is not None else {}
        # the analyses' own symbols (per-side copies, pattern indices): numbered per kernel, so that analysing
        # the same kernel again builds the same expressions (memoised) and the same solver queries
        self.uids = itertools.count(ANALYSIS_UIDS)
        self._loop_bounds: list | None = None
        self._point_facts: dict = {}  # (symbols, facts on inputs so far) -> their facts on inputs (_fine_at_points)
        self._point_evals: dict = {}  # id of a fine point -> (it, {fact: whether it holds there})
        self._base_rules: dict | None = None
        self._base_atoms: set | None = None  # the conjuncts of the kernel's facts (see _lazy_on)

    def impossible(self) -> Diagnostic | None:
        """NKI901 when the kernel's own conditions (asserts, raise guards, launch shapes) hold for no input at
        all: every launch fails, and every check would hold vacuously.  The front end reports an assert it
        sees fail outright; this catches the ones it cannot (`assert tile == 64 and n > 64` with `tile` merged
        from `if n <= 32: ... elif n <= 64: ...`).  Said at the first condition the earlier ones contradict."""
        if self.k.placeholders or self.k.given or not self.k.complete:
            return None  # a contradiction may be the approximation's (a None default analysed as a value)
        # the conditions the kernel body and its launch state, not the ones the front end derives (nonzero
        # divisors) nor those of helpers (`kernel_assert(False)` after a chain of dtype tests): those follow the
        # front end's reading of values it may have approximated, and the corpus has such false contradictions
        conds = [a for a in self.k.assumptions if a.cond != E.TRUE and (
            a.origin in ("launch", "option") or a.origin in ("assert", "raise") and a.span is not None
            and not a.span.via)]
        inputs = self.base[:self._n_input_facts]
        alone = Prover([], self.prover.timeout_ms, self.prover.cache, context=self.prover.context)  # no base facts
        if not conds or not isinstance(alone.find_violation(E.FALSE, inputs + [a.cond for a in conds]), Proved):
            return None
        for i, a in enumerate(conds):
            facts = inputs + [c.cond for c in conds[:i + 1]]
            if a.span is not None and isinstance(alone.find_violation(E.FALSE, facts), Proved):
                admitted = "every input" if i == 0 else "every input the kernel's earlier conditions admit"
                what = f"this raise is reached by {admitted}" if a.origin == "raise" else \
                    f"this {'assert' if a.origin == 'assert' else 'condition'} fails for {admitted}"
                return Diagnostic("NKI901", WARNING, f"{what}: every launch fails here, and nothing in the kernel "
                                  "was checked", location(a.span), self.k.name, notes=call_notes(a.span))
        return Diagnostic("NKI901", WARNING, "the conditions this kernel states (asserts, raise guards, launch "
                          "shapes) hold for no input: every launch fails, and nothing in the kernel was checked",
                          location(self.k.span), self.k.name)

    # ------------------------------------------------------------------ facts
    def add_input_fact(self, fact: E.BExpr) -> None:
        """A constraint on admissible inputs discovered by an analysis (the item size of an unknown dtype is
        1, 2 or 4): it restricts the inputs, unlike a local fact, which only says where a node is reached."""
        self.base.append(fact)
        self.prover.base.append(fact)
        E.refine_ranges(self.ranges, fact)
        self._base_rules = None
        self._base_atoms = None

    def _ranges(self) -> dict:
        r: dict = {}
        for s in self.k.symbols:
            lo = E.interval(s.lo, r).lo if s.lo is not None else None
            hi = E.interval(s.hi, r).hi if s.hi is not None else None
            r[s.sym] = E.Interval(lo, None if hi is None else hi - 1)
        for a in self.k.assumptions:
            E.refine_ranges(r, a.cond)
        for lp in self.k.loops:  # loops are in creation order: parents first
            lo = E.interval(lp.start, r).lo
            hi = E.interval(lp.stop, r).hi
            r[lp.var] = E.Interval(lo, None if hi is None else hi - 1)
        return r

    def names(self, s: object) -> str:
        info = self.info.get(s)
        return info.label if info is not None else getattr(s, "name", "?")

    def show(self, e: object) -> str:
        if isinstance(e, (E.Expr, E.BExpr)):
            return E.short(e, self.names, 60)
        return str(e)

    def local_facts(self, ctx: ir.Ctx, iotas: tuple = (), mask: E.BExpr = E.TRUE) -> tuple:
        facts = []
        for lid in ctx.loops:
            lp = self.loops.get(lid)
            if lp is None:
                continue
            facts.append(E.ge(lp.var, lp.start))
            facts.append(E.lt(lp.var, lp.stop))
            if lp.step != E.ONE:
                facts.append(E.eq(E.mod(E.sub(lp.var, lp.start), lp.step), 0))
        for io in iotas:
            facts.append(E.ge(io.var, 0))
            facts.append(E.lt(io.var, io.size))
        if ctx.path != E.TRUE:
            facts.append(ctx.path)
        if mask != E.TRUE:
            facts.append(mask)
        return tuple(facts)

    def exec_bounds(self, syms: set) -> list:
        """Range facts of program ids (and other exec symbols with declared bounds) an obligation mentions."""
        out = []
        for s in syms:
            info = self.info.get(s)
            if info is None or info.role not in ("pid", "register", "seq"):
                continue
            if info.lo is not None:
                out.append(E.ge(s, info.lo))
            if info.hi is not None:
                out.append(E.lt(s, info.hi))
        return out

    def _bounds(self, syms: set, local: list) -> dict:
        """Symbolic [lo, hi] (inclusive) of the execution symbols an obligation mentions."""
        out: dict = {}
        if self._loop_bounds is None:  # the same for every obligation: computed once, in loop order
            self._loop_bounds = []
            for lp in self.loops.values():
                if lp.step == E.ONE:
                    self._loop_bounds.append((lp.var, (lp.start, E.sub(lp.stop, 1))))
                elif isinstance(lp.step, E.Const) and lp.step.value > 0:
                    trip = E.ceildiv(E.sub(lp.stop, lp.start), lp.step)
                    self._loop_bounds.append((lp.var, (lp.start, E.add(lp.start, E.mul(lp.step, E.sub(trip, 1))))))
        for var, b in self._loop_bounds:
            if var in syms:
                out[var] = b
        for s in syms:
            info = self.info.get(s)
            if info is not None and info.role in ("pid", "iota", "seq") and s not in out:
                out[s] = (info.lo, None if info.hi is None else E.sub(info.hi, 1))
        for f in local:  # iota ranges and the like come as facts
            if isinstance(f, E.Cmp) and f.op == E.LE:
                t, c = E._linear_parts(f.e)
                if len(t) >= 1:
                    for s, k in t.items():
                        if isinstance(s, E.Sym) and s in syms and k == 1 and s not in out and len(t) > 1:
                            rest = E.sub(f.e, s)
                            out[s] = (None, E.neg(rest))
        return out

    # ------------------------------------------------------------------ deciding
    def check(self, ob: Obligation) -> Diagnostic | None:
        self.stats.obligations += 1
        if ob.goal == E.TRUE:
            return None
        key = (ob.code, ob.span, ob.goal, ob.facts, ob.message)
        if key in self._seen:
            return None
        self._seen.add(key)
        if self._outranked(ob, ob.floor or ERROR):
            return None
        local = list(ob.facts)
        syms = set(E.free_syms(ob.goal))
        for f in local:
            syms |= E.free_syms(f)
        local.extend(self.exec_bounds(syms))
        for f in local:
            syms |= E.free_syms(f)
        if ob.quiet_unknown and self._undetermined(syms):
            # a value the front end could not determine: whatever the solver answers, a quiet check reports
            # nothing (see `_violation`), so it is not asked
            self.stats.skipped += 1
            return None
        ranges = dict(self.ranges)
        for f in local:
            E.refine_ranges(ranges, f)
        stronger: tuple = ()
        if ob.goal != E.FALSE:
            bounds = self._bounds(syms, local)
            proved, simpler = by_intervals(ob.goal, ranges, bounds)
            if not proved and ob.stronger is not None:
                stronger = ob.stronger(self._rules(local))
                proved = any(by_intervals(g, ranges, bounds)[0] for g in stronger)
            if proved:
                self.stats.by_interval += 1
                return None
            # what the intervals settle inside the goal (a max with 0 of a remainder, a min one side of which
            # always wins) leaves the solver linear terms more often
            if simpler != ob.goal and simpler != E.FALSE:
                ob = dataclasses.replace(ob, goal=simpler)
            if self._cheap_proof(ob, local, ranges):
                return None
            if self._warning_copy(ob, syms) and self._fine_at_points(ob, local):
                # another copy of a finding shown as a warning, and this one is not an error either: some input
                # passes it on every execution (a warning copy would not be shown)
                self.stats.by_point += 1
                return None
        if ob.goal != E.FALSE and _follows_from_conjuncts(ob.goal, local):
            self.stats.by_interval += 1
            return None
        if ob.quiet_unknown:
            if self.quiet_queries >= QUIET_QUERY_BUDGET:
                self.stats.skipped += 1
                return None
            before = self.prover.queries
            try:
                return self._decide(ob, local, syms, ranges, stronger)
            finally:
                self.quiet_queries += self.prover.queries - before
        return self._decide(ob, local, syms, ranges, stronger)

    def _warning_copy(self, ob: Obligation, syms: set) -> bool:
        """A copy of a finding shown as a warning, which only an error would outrank, and whose violation would
        be graded by the severity question (not a forced severity, not on configuration fields, which are not
        shown as warnings, and with no undetermined value, which makes it NKI901)."""
        if ob.floor is not None or ob.definite or not self._outranked(ob, WARNING):
            return False
        inputs = [s for s in syms if self._is_input(s)]
        return bool(inputs) and not _config_in(self.info, inputs) and not self._undetermined(syms)

    def _fine_at_points(self, ob: Obligation, local: list) -> bool:
        """Some admissible input passes `ob` on every execution, shown without the solver: at an input the
        severity questions found fine before (the prover's `fine_points`), every fact on admissible inputs
        evaluates true, and with the inputs fixed the intervals prove the goal wherever the node is reached.
        True is `Prover.sometimes_fine` True (for a check whose inputs need not reach it); False says nothing."""
        points = self.prover.fine_points
        if not points:
            return False
        syms = set(E.free_syms(ob.goal))
        for f in local:
            syms |= E.free_syms(f)
        # the facts on admissible inputs connected to the check (allocation facts inside loops, which name loop
        # indices, say nothing of admissibility)
        key = (frozenset(syms), len(self.base))
        facts = self._point_facts.get(key)
        if facts is None:
            facts = self._point_facts[key] = [f for f in relevant(syms, self.base + self.lazy)
                                              if not any(map(self._is_exec, E.free_syms(f)))]
        need = {x for x in syms if not self._is_exec(x)}
        for f in facts:
            need |= E.free_syms(f)
        execs = syms - need
        for point in reversed(points):
            if not need <= point.keys():
                continue
            env = {x: point[x] for x in need}
            if not self._admitted_at(point, facts):
                continue
            try:
                fixed = {x: E.Const(v) if isinstance(x, E.Sym) else (E.TRUE if v else E.FALSE) for x, v in env.items()}
                goal = E.substitute(ob.goal, fixed)
                there = [E.substitute(f, fixed) for f in local]
            except (ZeroDivisionError, KeyError, TypeError):
                continue
            if goal == E.TRUE or E.FALSE in there:
                return True
            ranges = dict(self.ranges)
            for f in there:
                E.refine_ranges(ranges, f)
            if any(ranges[x].lo is not None and ranges[x].hi is not None and ranges[x].lo > ranges[x].hi
                   for x in execs if x in ranges):
                return True  # no execution reaches the node with these inputs
            bounds = {x: tuple(None if b is None else E.substitute(b, fixed) for b in lohi)
                      for x, lohi in self._bounds(execs, there).items()}
            if by_intervals(goal, ranges, bounds)[0]:
                return True
        return False

    def _admitted_at(self, point: dict, facts: list) -> bool:
        """Every fact evaluates true at the point (one that cannot be evaluated there, a division by zero, does
        not); each fact's value at each point is kept, since the checks of a kernel ask about the same facts."""
        held = self._point_evals.get(id(point))
        if held is None or held[0] is not point:
            if len(self._point_evals) > 4 * FINE_POINTS_KEPT:  # the prover keeps the newest points only
                kept = {id(p) for p in self.prover.fine_points}
                self._point_evals = {k: v for k, v in self._point_evals.items() if k in kept}
            held = self._point_evals[id(point)] = (point, {})
        values = held[1]
        for f in facts:
            v = values.get(f)
            if v is None:
                try:
                    v = values[f] = E.evaluate(f, point) is True
                except (ZeroDivisionError, KeyError, TypeError):
                    v = values[f] = False
            if not v:
                return False
        return True

    def _outranked(self, ob: Obligation, severity: str) -> bool:
        """A finding at most this severe for `ob` would not be shown: the same finding is shown already, as
        severe and naming no more loop copies (its quantities name none, so `ob.message` counts them all)."""
        shown = self._shown.get(finding_key(ob.code, location(ob.span), ob.message))
        return shown is not None and shown >= finding_rank(severity, ob.message)

    def _cheap_proof(self, ob: Obligation, local: list, ranges: dict) -> bool:
        """Distinct digits (NKI401/402) or rewriting by the facts' equalities; the verdict is kept in the
        solver cache under the exact question, like the solver's (an unchanged obligation of a re-analysed
        file is not worked out again)."""
        key = ("cheap=", ob.code, ob.goal, tuple(local), tuple(self.base))
        hit = self.prover.cache.get(key)
        if hit is None:
            if ob.code in RADIX_CODES and radix.refutes(ob.goal, local + self.base, self._is_exec, ranges,
                                                        self._side_proved):
                hit = "radix"
            elif rewrite.nonlinear(ob.goal) and rewrite.proves(ob.goal, self._rules(local), ranges):
                hit = "rewrite"
            else:
                hit = ""
            self.prover.cache[key] = hit
        if hit == "radix":
            self.stats.by_radix += 1
        elif hit == "rewrite":
            self.stats.by_rewrite += 1
        return bool(hit)

    def _rules(self, local: list) -> dict:
        """Rewriting rules from the kernel's equalities (once) and the node's own."""
        keep = lambda s: not self._is_exec(s)  # noqa: E731
        if self._base_rules is None:
            self._base_rules = rewrite.rules(self.base, keep)
        extra = rewrite.rules(local, keep)
        return {**self._base_rules, **{k: v for k, v in extra.items() if k not in self._base_rules}}

    def _is_input(self, s: object) -> bool:
        return _is_input(self.info, s)

    def _is_exec(self, s: object) -> bool:
        """An execution symbol (loop, program or pattern index): what differs between two executions."""
        if not isinstance(s, E.Sym):
            return False  # the predicates on input dtypes
        info = self.info.get(s)
        return info is None or info.role not in INPUT_ROLES

    def _bound_side_proved(self, cond: E.BExpr, facts: list) -> bool:
        """`_side_proved` within the kernel's budget for the side conditions of upper bounds."""
        if self.bound_queries >= BOUND_QUERY_BUDGET:
            return False
        before = self.prover.queries
        try:
            return self._side_proved(cond, facts)
        finally:
            self.bound_queries += self.prover.queries - before

    def _by_cases(self, goal: E.BExpr, local: list, ranges: dict, rlimit: int, facts_too: bool = True) -> bool:
        """Proved once per value of the goal's symbols that take only a few (an LNC launch's program_ndim() in
        0..2, grid[0] in 1..2, program_id(0) in 0..1; an index over two halves): with each fixed, a product by
        it (`(H // num_programs) * program_id`) is linear, and the solver settles what it gave up on.  The values
        come from the symbols' ranges, so the cases cover every input; a case whose value the kernel's facts
        exclude is proved at once."""
        if not rewrite.nonlinear(goal):
            return facts_too and self._by_fact_cases(goal, local, ranges, rlimit)
        syms = sorted((x for x in E.free_syms(goal) if isinstance(x, E.Sym)), key=lambda x: x.key)
        small, cases = _few_valued(syms, ranges)
        # a symbol the facts pin to one value (a tile index over a single tile) is that value in every case
        fixed = E.fixed_by(ranges)
        pinned = {x: fixed[x] for x in syms if x in fixed}
        # a conditional whose branches are all numbers (a tile factor chosen by a degree, `2 if tp == 4 else (4
        # if tp == 64 else 1)`) takes one of a few values whatever the input: one case per value, the conditional
        # replaced by it in the goal and the node's facts (each input is in one of the cases)
        choices: list = []
        for node, values in _constant_conditionals(goal):
            if cases * len(values) <= CASE_SPLIT_LIMIT:
                choices.append((node, values))
                cases *= len(values)
        with_lemmas = local + quotient_product_lemmas(goal)
        if not small and not choices:
            if pinned and self.prover.proves_case(goal, with_lemmas, pinned, rlimit):
                return True
            return facts_too and self._by_fact_cases(goal, local, ranges, rlimit)
        for table in E.value_cases(choices):
            g, there = (goal, with_lemmas) if not table else (E.replace_nodes(goal, table),
                                                              [E.replace_nodes(f, table) for f in with_lemmas])
            if g == E.TRUE:
                continue
            cases_of = ({**pinned, **{s: E.const(v) for (s, _), v in zip(small, values)}}
                        for values in itertools.product(*(r for _, r in small)))
            if not all(self.prover.proves_case(g, there, case, rlimit) for case in cases_of):
                return False
        return True

    def _by_fact_cases(self, goal: E.BExpr, local: list, ranges: dict, rlimit: int) -> bool:
        """Proved once per value of the symbols with a few values in the goal's facts, not in the goal itself
        (a program id and the grid of an LNC launch in a shard's bounds `grp < n * pid + a - a * pid`): with each
        fixed, the products by it in the facts are linear, and the goal follows from the facts that are linear
        then.  The values come from the symbols' ranges, so the cases cover every input."""
        syms = set(E.free_syms(goal))
        for f in local:
            syms |= E.free_syms(f)
        facts = [g for f in local + relevant(syms, self.base) if f != E.TRUE
                 for g in (f.args if isinstance(f, E.BAnd) else (f,))]
        memo = self.prover.nonlinear_memo
        # the symbols of the non-linear facts, fact by fact (each in order), the first time each is met
        syms = list(dict.fromkeys(x for f in facts if rewrite.nonlinear(f, memo)
                                  for x in sorted((y for y in E.free_syms(f) if isinstance(y, E.Sym)),
                                                  key=lambda y: y.key)))
        small, _ = _few_valued(syms, ranges)
        if not small:
            return False
        for values in itertools.product(*(r for _, r in small)):
            case = {s: E.const(v) for (s, _), v in zip(small, values)}
            if not self.prover.proves_case(goal, facts, case, rlimit, linear=True):
                return False
        return True

    def settle_deferred(self) -> set:
        """The ids of the undecided findings (NKI901) that `_by_conditions` proves after all.  Asked once the
        kernel's other questions are answered: z3's search depends on the terms made before, so these queries,
        asked inline, moved verdicts of later checks both ways (rope_hf: two findings with counterexamples
        became undecided)."""
        proved = set()
        for d, goal, local, check in self.deferred:
            if self._undecided_at(d.location, check):
                continue  # another copy there is undecided for good: a proof of this one would change nothing shown
            if self._by_conditions(goal, local, QUIET_RLIMIT):
                self.stats.by_cases += 1
                proved.add(id(d))
            else:
                self._shown_undecided(d, check)
        self.deferred = []
        proved |= self._by_axes(proved)
        proved |= self._by_sibling_models(proved)
        models = sum(map(len, self._violation_models.values()))
        proved |= self._last_chance(proved)
        if sum(map(len, self._violation_models.values())) > models:
            proved |= self._by_sibling_models(proved)  # (a violation the last chance found, at another copy's place)
        self.undecided_copies = []
        return proved

    def _by_axes(self, proved: set) -> set:
        """The ids of the undecided findings whose stronger goals (`Obligation.stronger`: an access pattern's
        coordinates, element counts axis by axis) are proved, for places each copy of which is (see
        `_last_chance`), within AXES_QUERIES.  Asked here, not inline, for the reason `settle_deferred` gives."""
        places = _by_place(self.axes_copies, proved)
        self.axes_copies = []
        out: set = set()
        start = self.prover.queries
        for key, copies in places.items():
            if not all(stronger for _, stronger, _, _ in copies):
                continue
            if self.prover.queries - start >= AXES_QUERIES:
                break
            if all(self._stronger_proved(stronger, local, ranges) for _, stronger, local, ranges in copies):
                self.stats.by_axes += len(copies)
                out |= {id(d) for d, _, _, _ in copies}
                self._shown.pop(key, None)  # (not shown undecided by this run after all)
        return out

    def _by_sibling_models(self, proved: set) -> set:
        """The ids of the undecided findings at places where another check was found violated (the same access
        of a second buffer of the same size, a helper's two call sites' copies): each copy is asked again with
        the symbols that violation's counterexample names pinned to its values, a near-ground question the
        solver answers where the open one was too hard.  A violation found so takes the place of every copy's
        NKI901 there, graded as any other (`self.replacements`, as `_last_chance`); a proof says nothing."""
        out: set = set()
        if not self._violation_models:
            return out
        start = self.prover.queries - self._sibling_spent  # (one budget for both calls of a run)
        try:
            self._sibling_places(proved, start, out)
        finally:
            self._sibling_spent = self.prover.queries - start
        return out

    def _sibling_places(self, proved: set, start: int, out: set) -> None:
        for key, copies in _by_place(self.undecided_copies, proved).items():
            models = self._violation_models.get(copies[0][0].location)
            if not models:
                continue
            for _, _, local, ob in copies:
                if self.prover.queries - start >= SIBLING_QUERIES:
                    return
                found = self._violated_at(ob, local, models)
                if found is not False:
                    self.stats.by_sibling += len(copies)
                    out |= {id(d) for d, _, _, _ in copies}
                    self._shown.pop(key, None)
                    if found is not None:
                        self.replacements[id(copies[0][0])] = found
                    break

    def _violated_at(self, ob: Obligation, local: list, models: list) -> Diagnostic | None | bool:
        """The finding of `ob` violated with its symbols pinned where one of `models` has them (None where the
        grading shows nothing), or False where none of them gives a violation."""
        syms = set(E.free_syms(ob.goal)).union(*map(E.free_syms, local))
        for model in models:
            pins = [(s if model[s] else E.bnot(s)) if isinstance(s, E.BSym) else E.eq(s, model[s])
                    for s in syms if s in model]
            if not pins:
                continue
            verdict = self.prover.find_violation(ob.goal, local + pins, RLIMIT, retry=False)
            if isinstance(verdict, Violated):
                verdict, extra = self._with_lazy(ob, local + pins, verdict, RLIMIT, retry=False)
                if isinstance(verdict, Violated):
                    return self._violation(ob, local, syms, verdict, extra)
        return False

    def _last_chance(self, proved: set) -> set:
        """The ids of the undecided findings the solver proves with LAST_CHANCE_RLIMIT: a place is settled when
        each of its copies in this run is (a place one copy leaves undecided shows NKI901 whatever the others).
        A copy the larger bound shows violated is a finding like any other, graded and with its counterexample:
        it takes the place of every copy's NKI901 there (`self.replacements`; nothing, where the grading shows
        nothing, a configuration some value of which escapes it)."""
        places = _by_place(self.undecided_copies, proved)
        out: set = set()
        if len(places) > LAST_CHANCE_PLACES:
            return out
        start = self.prover.queries
        for key, copies in places.items():
            if len(copies) > LAST_CHANCE_COPIES:
                continue
            settled, found = True, None
            for _, goal, local, ob in copies:
                if self.prover.queries - start >= LAST_CHANCE_QUERIES:
                    return out
                verdict = self.prover.find_violation(goal, local, LAST_CHANCE_RLIMIT, retry=False)
                if isinstance(verdict, Violated):
                    # (as `_decide` makes the finding: the lazy facts join where the model breaks one)
                    verdict, extra = self._with_lazy(ob, local, verdict, LAST_CHANCE_RLIMIT, retry=False)
                    if isinstance(verdict, Violated):
                        syms = set(E.free_syms(ob.goal)).union(*map(E.free_syms, local))
                        found = self._violation(ob, local, syms, verdict, extra)
                        break  # (the finding takes the place, whatever the other copies)
                if not isinstance(verdict, Proved):
                    settled = False
                    break
            if settled:
                self.stats.by_last_chance += len(copies)
                out |= {id(d) for d, _, _, _ in copies}
                self._shown.pop(key, None)  # (not shown undecided by this run after all)
                if found is not None:
                    self.replacements[id(copies[0][0])] = found
        return out

    def _with_lazy(self, ob: Obligation, local: list, verdict: Violated, rlimit: int,
                   retry: bool = True) -> tuple:
        """(the verdict, the lazy facts asked with) of a violation found without the lazy facts on the goal's
        inputs (`self.lazy`): asked again with them where the model breaks one."""
        extra = self._lazy_naming(E.free_syms(ob.goal)) if self.lazy else []
        if extra and any(not _holds(f, verdict.model) for f in extra):
            return self.prover.find_violation(ob.goal, local + extra, rlimit, retry=retry), extra
        return verdict, extra

    def _undecided_at(self, where: Location, check: str) -> bool:
        """The undecided check `check` ("CODE: what", as an NKI901 message names it) is shown at this place for
        good (one a later split cannot prove).  Another check there does not count: a copy of it (the same
        helper's access of another array) may be violated later, and that finding then takes the place's
        place, leaving any copy of this one not proved the only undecided check there."""
        return _undecided_key(where, check) in self._shown

    def _shown_undecided(self, d: Diagnostic, check: str) -> None:
        self._shown.setdefault(_undecided_key(d.location, check), finding_rank(d.severity, d.message))

    def _by_conditions(self, goal: E.BExpr, local: list, rlimit: int, depth: int = 0,
                       budget: list | None = None) -> bool:
        """Proved on each side of the conditions of the goal's conditionals (a tiling size chosen by the input's
        size, `32 if n <= 32 else (64 if n <= 64 else 128)`, times an index bounded by `128 // size`): on each
        side the conditional is its branch in the goal and the facts, the product by it linear, and the
        condition a fact.  Outermost first, at most CONDITION_SPLIT_DEPTH conditions deep and
        CONDITION_SPLIT_QUERIES solver queries; a side the solver shows violated ends the attempt."""
        if budget is None:
            if self.condition_queries >= CONDITION_SPLIT_KERNEL_QUERIES:
                return False
            budget = [CONDITION_SPLIT_QUERIES]
        if depth >= CONDITION_SPLIT_DEPTH:
            return False
        # only those of conditionals that multiply, whose branches leave the products linear (splitting on every
        # conditional settled a few more goals at many more queries, and the solver's search depends on the terms
        # made before: other verdicts moved both ways); none in a linear goal, which multiplies by no unknown
        conds = E.ite_conditions(goal, products=True)
        if not conds:
            return False
        cond = conds[0]
        for value in (True, False):
            side = E.settle(goal, cond, value)
            if side == E.TRUE:
                continue
            facts = [g for g in (E.settle(f, cond, value) for f in local) if g != E.TRUE]
            if any(f == E.FALSE for f in facts):
                continue  # this side cannot happen
            facts.append(cond if value else E.bnot(cond))
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            self.condition_queries += 1
            verdict = self.prover.find_violation(side, facts, rlimit)
            if isinstance(verdict, Proved):
                continue
            if isinstance(verdict, Violated) or not self._by_conditions(side, facts, rlimit, depth + 1, budget):
                return False
        return True

    def _side_proved(self, cond: E.BExpr, facts: list) -> bool:
        """A side condition over input symbols only, under the given (input-only) facts."""
        return isinstance(self.prover.find_violation(cond, facts), Proved)

    def _decide(self, ob: Obligation, local: list, syms: set, ranges: dict, stronger: tuple = ()) -> Diagnostic | None:
        """`ranges`: the kernel's ranges refined by `local` (as `check` computed them); `stronger`: the
        obligation's stronger goals (see `Obligation.stronger`)."""
        if ob.definite:
            # an input-dependent condition (a capacity that large inputs exceed): a finding only when no
            # admissible input, whatever the values the front end could not determine, satisfies it
            if self._fine_at_points(ob, local):
                self.stats.by_point += 1
                return None
            execs = [x for x in syms if self._is_exec(x)]
            if self.prover.sometimes_fine(ob.goal, local, execs) is not False:
                return None
        elif self._on_config(ob, syms):
            # only shown if no configuration escapes it (see `_violation`): whether one does is asked first, with
            # the allocation facts on the goal's inputs (fewer inputs than `_violation` asks about, so a True here
            # is true there); when one does there is nothing to show whatever the violation query would answer,
            # undecided included (rotational_topk: 125 violations found for no finding, 8.7 s -> 3.6 s, and its
            # three NKI901 gone).  (Asking first where the finding is shown already as a warning saved nothing
            # on the MoE kernels: most of those copies are proved, and the question replaced a cheaper one.)
            if ob.code not in RADIX_CODES and self._fine_at_points(ob, local):
                # a configuration an earlier question found fine passes this one too (no solver; where the
                # configuration must reach the check, a race's, the kept points do not say it does)
                self.stats.by_point += 1
                return None
            goal_syms = E.free_syms(ob.goal)
            lazy = self._lazy_naming(goal_syms)
            execs = [x for x in syms if self._is_exec(x)]
            if self._escapes(ob, local, execs, lazy, True, PRECHECK_RLIMIT) is True:
                return None
        # a place already shown as undecided (another copy of the check, another launch context): a proof of this
        # copy would not change what is shown there, only a violation would, so the narrower proofs are not tried
        # when the solver gives up (blockwise_mm_backward: 550 such copies took 13 s of its 46)
        check = f"{ob.code}: {ob.message}"
        again = not ob.quiet_unknown and self._undecided_at(location(ob.span), check)
        spent = self.undecided >= UNDECIDED_BUDGET
        rlimit = QUIET_RLIMIT if ob.quiet_unknown or spent else RLIMIT
        extra: list = []
        verdict = self.prover.find_violation(ob.goal, local, rlimit, retry=not spent)
        # an undecided goal: a narrower question may settle it (the facts over its own symbols; one case per value
        # of its symbols that take a few), where the solver is lost among a large kernel's facts
        if isinstance(verdict, Unknown) and not again and (
                self.prover.proves_narrowly(ob.goal, local + self._lazy_on(ob.goal, local), QUIET_RLIMIT)
                or self._by_cases(ob.goal, local, ranges, QUIET_RLIMIT, facts_too=not spent)):
            self.stats.by_cases += 1
            return None
        if isinstance(verdict, Unknown) and not ob.quiet_unknown and not again:
            self.undecided += 1  # (another copy of a check shown undecided at its place adds nothing shown)
        if isinstance(verdict, Violated):
            verdict, extra = self._with_lazy(ob, local, verdict, rlimit)
        self.stats.queries = self.prover.queries
        self.stats.z3_seconds = self.prover.seconds
        if isinstance(verdict, Proved):
            return None
        if isinstance(verdict, Unknown) and not ob.quiet_unknown and ob.code in BOUND_CODES and not spent and \
                not again and self.bound_attempts < BOUND_ATTEMPT_BUDGET and self.bound_queries < BOUND_QUERY_BUDGET:
            self.bound_attempts += 1
            facts = local + relevant(syms, self.base)  # the kernel's facts connected to the goal, as the solver's
            if radix.bounded(ob.goal, facts, self._is_exec, ranges, self._bound_side_proved):
                self.stats.by_radix += 1
                return None
        if isinstance(verdict, Unknown) and not ob.quiet_unknown and not spent and not again and \
                rewrite.nonlinear(ob.goal):
            if self._rewriting_proves(ob.goal, local, local):
                self.stats.by_rewrite += 1
                return None
        if isinstance(verdict, Unknown):
            if ob.quiet_unknown:
                return None
            if ob.goal == E.FALSE:
                # the check fails on every input that reaches it (a feature the target lacks): only whether
                # this path is reachable is undecided, so the finding stands as a warning saying so
                return self._without_model(ob, ob.code, f"{ob.message} (whenever this point is reached; the solver "
                                           f"could not decide whether any admissible input reaches it: "
                                           f"{verdict.reason})")
            budget = "; the kernel had spent its budget for hard questions" if spent else ""
            d = self._undecided(ob, f"the solver could not decide it ({verdict.reason}{budget})")
            if not again and E.ite_conditions(ob.goal, products=True):
                self.deferred.append((d, ob.goal, local, check))
            else:
                self._shown_undecided(d, check)
            if not spent:
                self.undecided_copies.append((d, check, ob.goal, local, ob))
            self.axes_copies.append((d, check, stronger, local, ranges))
            return d
        return self._violation(ob, local, syms, verdict, extra)

    def _stronger_proved(self, stronger: tuple, local: list, ranges: dict) -> bool:
        """One of an undecided obligation's stronger goals proved, conjunct by conjunct (the coordinates of an
        access pattern: the hard one, a batch index computed from program ids, is the same question as the
        plain index of that batch elsewhere, and as hard alone as beside the easy ones), each with the lazy
        facts on its inputs (a coordinate inside an axis needs the axis not empty)."""
        for g in stronger:
            if all(self._part_proved(p, local, ranges) for p in conjunct_list([g])):
                return True
        return False

    def _part_proved(self, goal: E.BExpr, local: list, ranges: dict) -> bool:
        """Intervals, then the solver, then the kernel's equalities as rules (see `_decide`)."""
        syms = set(E.free_syms(goal))
        for f in local:
            syms |= E.free_syms(f)
        if by_intervals(goal, ranges, self._bounds(syms, local))[0]:
            return True
        facts = local + self._lazy_on(goal, local) + self._tile_lemmas(goal)
        verdict = self.prover.find_violation(goal, facts, RLIMIT)
        if isinstance(verdict, Unknown):
            # (asked again with them, not at once: more facts lost the solver on a qkv pattern it proves without)
            more = self._remainder_lemmas(goal, local)
            if more:
                verdict = self.prover.find_violation(goal, facts + more, RLIMIT)
        if isinstance(verdict, Unknown) and rewrite.nonlinear(goal):
            return self._rewriting_proves(goal, local, facts)
        return isinstance(verdict, Proved)

    def _rewriting_proves(self, goal: E.BExpr, local: list, facts: list) -> bool:
        """The simpler goals the kernel's equalities as rules give (`rewrite.sufficient`, with the node's own
        `local` facts among the rules) each proved under `facts` and its case's conditions."""
        cases = rewrite.sufficient(goal, self._rules(local), self.ranges, self._is_input)
        return cases is not None and all(isinstance(self.prover.find_violation(g, facts + more), Proved)
                                         for more, g in cases)

    def _tile_lemmas(self, goal: E.BExpr) -> list:
        """For each loop over tiles the goal names, `for i in range(ceil(n / b))` (or `range(m // b)`), what
        its index implies of its tiles, `b*i <= n - 1` (`b*(i + 1) <= m`) for `b >= 1`: linear in the product
        the goal has (`min(b, n - i*b) >= 0`), where the solver does not find it from `i < ceil(n / b)`."""
        if self._loop_of is None:
            self._loop_of = {lp.var: lp for lp in self.loops.values()}
        out = []
        for s in E.free_syms(goal):
            lp = self._loop_of.get(s)
            if lp is None or lp.start != E.ZERO or lp.step != E.ONE:
                continue
            stop = lp.stop
            if isinstance(stop, E.Max) and len(stop.args) == 2 and E.ZERO in stop.args:
                stop = stop.args[0] if stop.args[1] == E.ZERO else stop.args[1]  # (range(max(0, ...)))
            parts = _quotient_parts(stop)
            if parts is not None:
                last, b = parts
                out.append(E.implies(E.ge(b, 1), E.le(E.mul(b, s), last)))
        return out

    def _remainder_lemmas(self, goal: E.BExpr, local: list) -> list:
        """For each remainder `a % m` the goal or its facts name (with no constant m) and each execution index t
        of the goal, `t*m <= a` implies `t*m <= a - a % m` for `m >= 1`: a multiple of m at most a is at most a's
        last whole one.  A fold of n elements into rows of m = ceil(n / f), whose last row holds n % m, is
        inside n by it (`p*m + q < n` for p < f, q < n % m, n >= 128*f): the solver does not find that step."""
        syms = E.free_syms(goal)
        execs = sorted((s for s in syms if self._is_exec(s)), key=lambda s: s._key)[:MAX_LEMMA_INDICES]
        if not execs:
            return []
        mods: dict = {}
        for e in E.distinct_nodes([goal] + [f for f in local if E.free_syms(f) & syms]):
            if isinstance(e, E.Mod) and not isinstance(e.b, E.Const):
                mods.setdefault(e, None)
                if len(mods) >= MAX_LEMMA_REMAINDERS:
                    break
        return [_remainder_lemma(t, r) for r in mods for t in execs]

    def _lazy_naming(self, syms: frozenset | set) -> list:
        """The lazy facts (`self.lazy`) a question over `syms` is given once it finds a violation without them."""
        return [f for f, on in self._lazy_on_syms if on & syms]

    def _lazy_on(self, goal: E.BExpr, local: list) -> list:
        """The allocation facts (see `self.lazy`) on the goal's own symbols, each without the alternatives the
        kernel's facts and `local` rule out: an allocation made on a path holds its dimensions at least 1 under
        that path's conditions (`grid != 2 or H % 512 != 0 or (B + 127) // 128 > 0`), which the narrow proof
        could not use for their other symbols.  Facts that hold outright are left out."""
        if self._base_atoms is None:
            self._base_atoms = set().union(*map(conjuncts, self.base))
        atoms = self._base_atoms.union(*map(conjuncts, local))
        out = []
        for f in self._lazy_naming(E.free_syms(goal)):
            if isinstance(f, E.BOr):
                parts = [d for d in f.args if E.bnot(d) not in atoms]
                if any(d in atoms for d in parts):
                    continue
                f = E.bor(*parts)
            out.append(f)
        return out

    def _on_config(self, ob: Obligation, syms: set) -> bool:
        """`ob` depends on fields of a configuration object, and on no value the front end could not determine
        (which makes a finding NKI901 whatever else)."""
        inputs = [s for s in syms if self._is_input(s)]
        return bool(inputs) and not self._undetermined(syms) and _config_in(self.info, inputs)

    def _escapes(self, ob: Obligation, local: list, execs: list, lazy: list, config: bool,
                 rlimit: int = QUANT_RLIMIT) -> bool | None:
        """`Prover.sometimes_fine` for `ob`: some admissible input passes it on every execution.  On a
        configuration, that input must reach it: a configuration that escapes a race by running the loop once
        says nothing of the others."""
        return self.prover.sometimes_fine(ob.goal, local, execs, tuple(lazy), rlimit,
                                          reaching=config and ob.code in RADIX_CODES)

    def _fails_at_ends(self, ob: Obligation, local: list, execs: list, lazy: list, model: dict) -> bool:
        """Every admissible input fails the check at one execution chosen per input: each execution symbol at
        the end of its range where the counterexample has it (the last program, the last iteration).  A
        quantifier-free question in place of the severity question's `forall` over the executions, which z3
        finds far harder, and whose verdict near its resource limit moved with unrelated changes (an error
        shown as a warning).  True proves `sometimes_fine` False; False says nothing.  Asked only where that
        question is undecided: asked first, it was 447 more solver calls over nki-library (2.3 s), whose
        findings are warnings, for 2 proofs."""
        bounds = self._bounds(set(execs), local)
        ends: dict = {}  # symbol -> the ends of its range where the counterexample has it, the upper one first
        for x in execs:
            if x in model and x in bounds:
                at = [e for e in reversed(bounds[x]) if e is not None and _in_model(e, model) == model[x]]
                if at:
                    ends[x] = at
        tried: list = []
        for pick in (0, -1):  # (where a range has one element, both ends match: the upper, then the lower)
            choice = {x: at[pick] for x, at in ends.items()}
            if choice and choice not in tried:
                tried.append(choice)
                if self._fails_at(ob, local, lazy, choice):
                    return True
        return False

    def _fails_at(self, ob: Obligation, local: list, lazy: list, choice: dict) -> bool:
        """Every admissible input fails `ob` with the execution symbols at `choice` (expressions over the inputs
        and each other)."""
        for _ in range(len(choice)):  # ends given by enclosing loops' indices (a triangular nest)
            if not any(E.free_syms(e) & choice.keys() for e in choice.values()):
                break
            choice = {x: E.substitute(e, choice) for x, e in choice.items()}
        else:
            return False
        there = E.band(*[E.substitute(f, choice) for f in local], E.bnot(E.substitute(ob.goal, choice)))
        if there == E.FALSE:
            return False
        return isinstance(self.prover.find_violation(there, list(lazy)), Proved)

    def _undetermined(self, syms: set) -> list:
        """The values among `syms` the front end could not determine."""
        return [s for s in syms if self.info.get(s) is not None and self.info[s].role == "unknown"
                or getattr(s, "kind", None) == UNKNOWN_COPY]

    def _violation(self, ob: Obligation, local: list, syms: set, v: Violated, lazy: list,
                   first: bool = False) -> Diagnostic | None:
        """`lazy`: the allocation facts on the goal's inputs (`self.lazy`), facts on admissible inputs too.
        `first`: the question is already the one at the first iterations (see `_at_first_iterations`)."""
        unknown = self._undetermined(syms)
        if unknown and ob.quiet_unknown:
            return None
        kept = self._violation_models.setdefault(location(ob.span), [])
        if len(kept) < SIBLING_MODELS:
            kept.append(v.model)
        if unknown and not ob.definite and not first:
            at_first = self._at_first_iterations(ob, local, unknown, lazy)
            if at_first is not None:
                return at_first[0]
        whatever = bool(unknown) and not ob.definite and ob.code in ONE_EXECUTION_CODES and \
            self._whatever_unknown(ob, local, syms, unknown)
        if whatever:
            # every value of the undetermined ones at which the node is reached admits the violation: they do
            # not decide it (an internal constant that only sizes another input, beside a slice past the end of
            # x).  A warning: whether a value the kernel really has reaches the node is not known
            unknown = []
        if unknown and not ob.definite:
            labels = ", ".join(sorted(self.names(s) for s in unknown))
            d = self._undecided(ob, f"it depends on {labels}, which the verifier could not determine")
            if self.k.missing:
                # (the likely source of the unknown values, and how to make them known)
                names = ", ".join(repr(m) for m in self.k.missing)
                d = dataclasses.replace(d, notes=d.notes + (Note(location(self.k.span), (
                    f"the kernel uses {'a module' if len(self.k.missing) == 1 else 'modules'} not found ({names}): "
                    "what it computes with them is unknown; --search-path DIR (or installing the package) lets "
                    "the verifier read them")),))
            return d
        inputs = [s for s in syms if self._is_input(s)]
        execs = [s for s in syms if self._is_exec(s)]
        shown = _connected(set(E.free_syms(ob.goal)), local + self.base)
        severity = WARNING if whatever else ob.floor or ERROR
        suggestion = None
        config = _config_in(self.info, inputs)
        if (ob.floor is None or config) and inputs and not ob.definite:
            # (an input kept from an earlier severity question answers it, where it shows the check passing)
            fine = True if not config and self._fine_at_points(ob, local) else \
                self._escapes(ob, local, execs, lazy, config)
            if fine is None and self._fails_at_ends(ob, local, execs, lazy, v.model):
                fine = False
            if fine is not False:
                if config:
                    # fields of a configuration object are derived by code outside the kernel: a finding
                    # for only some of their values says nothing about the configurations really built
                    return None
                severity = WARNING
                if self._outranked(ob, severity):
                    return None
                # (not for a violation found at the first iterations: a precondition that passes those says
                # nothing of the iterations after them)
                suggestion = None if first else self._extra(self._suggest, ob, local + lazy, inputs, v.model)
        model = self._extra(self._nicer_model, ob, local + lazy, [s for s in inputs if s in shown]) or v.model
        model = self._shrunk(ob, local + lazy, model)
        shown |= set(ob.show)
        execs = [s for s in execs if s.kind != "index"] + [s for s in ob.show if s not in execs]
        ce = self._counterexample(model, [s for s in inputs if s in shown], [s for s in execs if s in shown])
        message = ob.message
        here = self._quantities(ob, model)
        if here:
            message += f" ({here})"
        key = finding_key(ob.code, location(ob.span), message)
        self._shown[key] = max(self._shown.get(key, (-1, 0)), finding_rank(severity, message))
        notes = self._notes(ob, syms)
        dtypes = _dtypes_in(model, syms)
        if dtypes:
            notes += (Note(location(ob.span), f"with {dtypes}"),)
        return Diagnostic(ob.code, severity, message, location(ob.span), self.k.name, ce, suggestion, notes,
                          tuple(ob.fixes))

    def _at_first_iterations(self, ob: Obligation, local: list, unknown: list, lazy: list) -> tuple | None:
        """The violation again at the first iteration of the loops whose carried values (`ir.Loop.carried`: a
        value the loop changes in a way not followed) it depends on, where each of those values is the one the
        loop is entered with (the front end's closed form picks it at the loop's start): a violation there is
        on a real execution, graded and shown as any other, `(finding or None,)`.  None when an undetermined
        value remains (one computed after a loop, or a copy of one for another execution), or no violation is
        at the first iterations."""
        if self.first_queries >= FIRST_ITERATION_BUDGET:
            return None
        if self._carried_by is None:
            self._carried_by = {c: lp for lp in self.loops.values() for c in lp.carried}
        at: dict = {}
        goal, facts, left = ob.goal, list(local), list(unknown)
        for _ in range(MAX_LOOP_NESTING):
            loops = [self._carried_by.get(u) for u in left]
            if any(lp is None for lp in loops):
                return None
            step = {lp.var: lp.start for lp in loops if lp.var not in at}
            if not step:
                return None
            for lp in loops:
                if lp.kind == "while" and isinstance(lp.stop, E.Sym):
                    # (a while loop's count of iterations, decided by its condition: the first iteration is
                    # reached when the condition holds as the loop is entered, which the node's facts say)
                    step[lp.stop] = E.add(lp.start, 1)
            at.update(step)
            goal, *facts = E.substitute_all([goal] + facts, step)
            syms = set(E.free_syms(goal)).union(*(E.free_syms(f) for f in facts))
            left = self._undetermined(syms)
            if not left:
                break
        else:
            return None
        if goal == E.TRUE or E.FALSE in facts:
            return None
        self.first_queries += 1
        verdict = self.prover.find_violation(goal, facts, QUIET_RLIMIT, retry=False)
        if not isinstance(verdict, Violated):
            return None
        d = self._violation(dataclasses.replace(ob, goal=goal, facts=tuple(facts)), facts, syms, verdict, lazy,
                            first=True)
        if d is not None:
            firsts = sorted({self._carried_by[u] for u in unknown}, key=lambda lp: lp.id)
            d = dataclasses.replace(d, notes=d.notes + tuple(Note(location(lp.span), (
                "found at the first iteration of this loop: it changes values in a way not followed, but its first "
                "iteration starts with the ones the loop is entered with")) for lp in firsts))
        return (d,)

    def _whatever_unknown(self, ob: Obligation, local: list, syms: set, unknown: list) -> bool:
        """Whether, for every value of the `unknown` symbols at which the node is reached, some input and
        execution violate the goal: no value of them makes the check pass (one quantified question, with all
        the other symbols inner)."""
        if self.whatever_queries >= WHATEVER_QUERY_BUDGET:
            return False
        self.whatever_queries += 1
        facts = list(local) + relevant(syms, self.base)
        inner = set(syms)
        for f in facts:
            inner |= E.free_syms(f)
        inner -= set(unknown)
        inner_list = sorted(inner, key=lambda x: (type(x).__name__, x.uid))
        return self.prover.sometimes_fine(ob.goal, facts, inner_list, reaching=True) is False

    def _extra(self, fn: Callable, *args: object) -> object:
        """`fn(*args)` while the kernel's budget for the extras of findings lasts, else None."""
        if self.extras_queries >= EXTRAS_QUERY_BUDGET:
            return None
        before = self.prover.queries
        try:
            return fn(*args)
        finally:
            self.extras_queries += self.prover.queries - before

    def _nicer_model(self, ob: Obligation, local: list, inputs: list) -> dict | None:
        """A counterexample with realistic shapes (multiples of 128 first), when one exists."""
        shapes = [s for s in inputs if self.info[s].role == "shape"]
        if not shapes:
            return None
        for nice in (E.band(*[E.band(E.eq(E.mod(s, 128), 0), E.ge(s, 128)) for s in shapes]),
                     E.band(*[E.ge(s, 128) for s in shapes])):
            r = self.prover.find_violation(ob.goal, list(local) + [nice])
            if isinstance(r, Violated):
                return r.model
        return None

    def _shrunk(self, ob: Obligation, local: list, model: dict) -> dict:
        """`model` with its input values past SHRINK_ABOVE made smaller and rounder (an element count of 1.6e23
        says less than one of 65536): one input at a time, largest first, each takes the smallest of
        _ROUND_VALUES (or one more) below its value with which the goal still fails and every fact of the
        question holds, evaluated concretely, with the execution symbols as they were or all at the upper or all
        at the lower ends of their ranges (the last tile of a smaller input).  The result is a counterexample as
        much as the solver's was; `model` itself when it does not name every symbol of the question.  Values up
        to SHRINK_ABOVE are left as they are (a nicer model's 128s)."""
        big = [x for x, val in model.items() if isinstance(x, E.Sym) and self._is_input(x) and
               isinstance(val, int) and not isinstance(val, bool) and abs(val) > SHRINK_ABOVE]
        if not big:
            return model
        syms = set(E.free_syms(ob.goal))
        for f in local:
            syms |= E.free_syms(f)
        facts = [f for f in local + relevant(syms, self.base) if f != E.TRUE]
        for f in facts:
            syms |= E.free_syms(f)
        if not syms <= model.keys():
            return model
        execs = sorted((x for x in model if isinstance(x, E.Sym) and self._is_exec(x)), key=lambda x: x.key)
        ends = self._bounds(set(execs), local)

        def fails(env: dict) -> bool:
            memo: dict = {}
            try:
                return E.evaluate(ob.goal, env, memo) is False and all(E.evaluate(f, env, memo) is True
                                                                       for f in facts)
            except Exception:  # noqa: BLE001 - a division by zero: not a counterexample
                return False

        def at_ends(env: dict, side: int) -> dict | None:
            out = dict(env)
            for x in execs:
                end = ends.get(x, (None, None))[side]
                if end is not None:
                    value = _in_model(end, out)
                    if value is None or isinstance(value, bool):
                        return None
                    out[x] = value
            return out

        env = dict(model)
        if not fails(env):
            return model
        evals = 0
        for x in sorted(big, key=lambda x: (-abs(model[x]), x.key)):
            for c in (r + d for r in _ROUND_VALUES for d in (0, 1)):  # (one past a round size: a tile too many)
                if c >= env[x] or evals >= SHRINK_EVALS:
                    break
                moved = {**env, x: c}
                tried = [moved, at_ends(moved, 1), at_ends(moved, 0)] if execs else [moved]
                found = None
                for there in tried:
                    if there is not None and evals < SHRINK_EVALS:
                        evals += 1
                        if fails(there):
                            found = there
                            break
                if found is not None:
                    env = found
                    break
        return env

    def _undecided(self, ob: Obligation, why: str) -> Diagnostic:
        return self._without_model(ob, "NKI901", f"{UNDECIDED} ({ob.code}: {ob.message}): {why}")

    def _without_model(self, ob: Obligation, code: str, message: str) -> Diagnostic:
        """A warning at the obligation's place with its notes, and no counterexample (there is no model)."""
        return Diagnostic(code, WARNING, message, location(ob.span), self.k.name, None, None,
                          self._notes(ob, set(E.free_syms(ob.goal))))

    def _counterexample(self, model: dict, inputs: list, execs: list) -> tuple:
        def order(s: E.Sym) -> tuple:
            role = self.info[s].role if s in self.info else "zz"
            rank = {"shape": 0, "scalar": 1, "grid": 2, "pid": 3, "loop": 4, "iota": 5}.get(role, 6)
            return (rank, s.uid)

        out = []
        for s in sorted(inputs, key=order) + sorted(execs, key=order):
            if s in model:
                out.append((self.names(s), model[s]))
        return tuple(out)

    def _quantities(self, ob: Obligation, model: dict) -> str:
        parts = []
        for name, e in ob.quantities:
            if not isinstance(e, E.Expr) or isinstance(e, E.Const):
                continue
            # (not named by the model: a violation whatever the values; unevaluable: just not shown)
            value = _in_model(e, model)
            if value is not None and f"{name} = {value}" not in parts:
                # (once: a rule of two conditions on the same quantities, `x and y must have the same partition
                # count, or one of them 1`, names them for each)
                parts.append(f"{name} = {value}")
        return ", ".join(parts)

    def _notes(self, ob: Obligation, syms: set) -> tuple:
        notes = list(call_notes(ob.span)) + list(ob.notes)
        goal_syms = E.free_syms(ob.goal)
        for lid in ob.loops:
            lp = self.loops.get(lid)
            if lp is not None and lp.var in syms and (lp.kind != "dynamic_while" or lp.var in goal_syms):
                # (a loop on a register has no index of the kernel's: its iterations' count only says the body
                # runs, unless the check depends on which iteration it is)
                bounds = f"range({self.show(lp.start)}, {self.show(lp.stop)}" \
                         f"{'' if lp.step == E.ONE else ', ' + self.show(lp.step)})"
                if len(bounds) > LONG_NOTE and lp.range_text and "\n" not in lp.range_text:
                    # bounds that take lines to spell out in the inputs' terms: in the kernel's own words
                    bounds = f"{lp.range_text} (bounds too long to show in terms of the inputs)"
                notes.append(Note(location(lp.span), f"loop index {self.names(lp.var)} ranges over {bounds}"))
        # said where the findings are read, not only in the kernel report: the user may never have passed it
        for text in ir.given_notes(self.k.given, self.k.given_why):
            notes.append(Note(location(self.k.span), text))
        for param, value, default in self.k.chosen:
            notes.append(Note(location(self.k.span), f"analysed with {param}={value}: every path with its default "
                                                     f"{default} fails (an assert or raise), so launches pass "
                                                     f"another value"))
        return tuple(notes)

    def _suggest(self, ob: Obligation, local: list, inputs: list, model: dict) -> str | None:
        """An assertion on the inputs under which the check holds (`model`: the finding's counterexample)."""
        cands: list = []
        goal_too = _simple(ob.goal) and \
            all(self._is_input(s) for s in E.free_syms(ob.goal) if isinstance(s, E.Sym))
        # (only a goal over the inputs: one naming loop indices, or the two iterations' copies of a race check,
        # `e0_1 != e0_2`, is nothing the kernel could assert; one on a product of dimensions, after the same
        # axes of two inputs equal, which is what a kernel means by `k.size == v.size` more often than not)
        products = any(isinstance(a, E.Mul) for a in E._linear_parts(ob.goal.e)[0]) if goal_too else False
        if goal_too and not products:
            cands.append(ob.goal)
        is_input = lambda s: self.info.get(s) is not None and self.info[s].role in ("shape", "scalar")  # noqa: E731
        # the parts of the check's own condition that are over the inputs alone (`d % 2 == 0` in `d % 2 == 0 or
        # n_tiles == 0`): the kernel may mean to require one of them
        cands.extend(a for a in _input_atoms(ob.goal, is_input) if a not in cands)
        # dimensions of two inputs that the access mixes (an index whose loop runs over q's batch used on k's
        # axis 0, k's rows walked with q's row stride): the same axes equal, all of them at once
        cands.extend(self._same_axes(ob, is_input))
        if products and ob.goal not in cands:
            cands.append(ob.goal)
        solved = _solved_bounds(ob.goal, is_input)
        # with each loop/pattern index at its worst end, a bound on the input that sets the range
        goal = E.substitute(ob.goal, E.fixed_by(self.ranges))  # dimensions the kernel's asserts fix
        worst = _at_worst(goal, self._bounds(set(E.free_syms(goal)), local))
        if worst is not None:
            solved += [c for c in _solved_bounds(worst, is_input) if c not in solved]
        if solved:
            cands.append(E.band(*solved))
        cands.extend(solved)
        consts = sorted({c for c in _constants(ob.goal) if c > 1}, reverse=True)[:3]
        goal_syms = [s for s in E.free_syms(ob.goal) if self.info.get(s) is not None
                     and self.info[s].role in ("shape", "scalar")]
        shape_syms = [s for s in inputs if self.info[s].role in ("shape", "scalar")]
        # a dimension that must match another one (the loop bound comes from a different input): one that bounds
        # a loop or pattern index of the check (any other pairing that happens to prove it, a batch size equal
        # to a sequence length, is no precondition the kernel means)
        bounding = set().union(*(E.free_syms(f) for f in local if isinstance(f, E.Cmp)
                                 and any(map(self._is_exec, E.free_syms(f)))))
        for s in goal_syms[:2]:
            for t in shape_syms:
                pinned = self.ranges.get(t)
                if pinned is not None and pinned.lo is not None and pinned.lo == pinned.hi:
                    continue  # equating with a fixed dimension just pins this one to a constant
                if t is not s and t not in goal_syms and t in bounding:
                    cands.append(E.eq(s, t))
        # alignment goals (1024*half % 2048 == 0) want the ratio of their constants (half % 2 == 0)
        ratios = sorted({a // math.gcd(a, b) for a in consts for b in consts if a != b and a % b == 0} - {1})
        floors: dict = {}  # candidate `s >= c` -> (s, c): lowered to the least such c that still proves the goal
        if any(isinstance(x, E.Exists) for x in _walk(ob.goal)):
            # coverage goals (something must have been written): the loop that writes must run at all
            lows = sorted({c for f in [ob.goal, *local] for c in _constants(f) if c > 1})
            for s in shape_syms[:3]:
                for c in lows[:4]:
                    cand = E.ge(s, c)
                    floors[cand] = (s, c)
                    cands.append(cand)
        for s in shape_syms[:3]:
            for c in ratios + consts:
                cands.append(E.eq(E.mod(s, c), 0))
        for s in shape_syms[:3]:
            for c in consts:
                cands.append(E.le(s, c))
        refuting = [model]  # violations known: a candidate one of them satisfies cannot be the fix
        for cand in cands[:12]:
            if cand in (E.TRUE, E.FALSE) or any(_in_model(cand, m) is True for m in refuting):
                continue
            r = self.prover.find_violation(ob.goal, list(local) + [cand])
            if isinstance(r, Unknown) and self._holds_given_equal(ob, local, cand):
                r = PROVED
            if isinstance(r, Violated):
                refuting.append(r.model)
            # the assertion must leave some admissible input that still reaches the check (one that empties
            # the loop around it proves nothing useful)
            elif isinstance(r, Proved) and isinstance(self.prover.find_violation(E.bnot(cand), list(local)), Violated):
                if cand in floors:
                    cand = self._least_floor(ob.goal, local, *floors[cand])
                text = self.show(cand)
                if _python_expression(text):
                    return f"assert {text}"
                # (a value the front end could not determine is named in words, `result of f()`: no assert a
                # kernel could state; the next candidate may name dimensions only)
        return None

    def _holds_given_equal(self, ob: Obligation, local: list, cand: E.BExpr) -> bool:
        """Where the solver gave up on the check under a candidate made of equalities of dimensions: the check
        with each equal dimension replaced by the other (one symbol fewer each), asked again, and for an upper
        bound of a flattened access by mixed-radix digits (`radix.bounded`), as the checks themselves are."""
        eqs = cand.args if isinstance(cand, E.BAnd) else (cand,)
        subst: dict = {}
        for c in eqs:
            if not (isinstance(c, E.Cmp) and c.op == E.EQ):
                return False
            t, k = E._linear_parts(c.e)
            if k != 0 or len(t) != 2 or sorted(t.values()) != [-1, 1] or not all(isinstance(a, E.Sym) for a in t):
                return False
            a, b = sorted(t, key=lambda x: x.uid)
            subst[b] = a
        goal = E.substitute(ob.goal, subst)
        facts = [E.substitute(f, subst) for f in local]
        if isinstance(self.prover.find_violation(goal, facts, QUIET_RLIMIT, retry=False), Proved):
            return True
        if ob.code not in BOUND_CODES:
            return False
        syms = set(E.free_syms(goal)).union(*(E.free_syms(f) for f in facts))
        ranges = dict(self.ranges)
        for f in facts:
            E.refine_ranges(ranges, f)
        base = [E.substitute(f, subst) for f in relevant(syms, self.base)]
        return radix.bounded(goal, facts + base, self._is_exec, ranges, self._bound_side_proved)

    def _same_axes(self, ob: Obligation, is_input: Callable) -> list:
        """For two inputs whose dimensions the check mentions (or the bounds of the loops whose indices it
        mentions), the conjunction of `a.shape[i] == b.shape[i]` over the axes both have mentioned."""
        free = E.free_syms(ob.goal)
        mentioned = {x for x in free if isinstance(x, E.Sym) and is_input(x)}
        for lid in ob.loops:
            lp = self.loops.get(lid)
            if lp is not None and lp.var in free:
                mentioned |= {x for x in E.free_syms(lp.stop) if isinstance(x, E.Sym) and is_input(x)}
        axes: dict = {}  # array -> {axis: symbol}
        for x in sorted(mentioned, key=lambda x: x.uid):
            m = SHAPE_LABEL.fullmatch(self.info[x].label)
            if m:
                axes.setdefault(m.group(1), {})[int(m.group(2))] = x
        out = []
        names = list(axes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                common = sorted(axes[a].keys() & axes[b].keys())
                if common:
                    out.append(E.band(*[E.eq(axes[a][k], axes[b][k]) for k in common]))
        return out[:4]

    def _least_floor(self, goal: E.BExpr, local: list, s: E.Sym, c: int) -> E.BExpr:
        """`s >= c'` for the least c' <= c under which the goal holds, by bisection (a few queries): the loop that
        writes must run twice, `K >= 256`, not the constant that happened to be tried, `K > 510`."""
        r = self.ranges.get(s)
        lo = max(0, r.lo if r is not None and isinstance(r.lo, int) else 0)  # s >= lo: known not to be enough
        hi = c
        for _ in range(SUGGESTION_BISECTIONS):
            if hi - lo <= 1:
                break
            mid = (lo + hi) // 2
            if isinstance(self.prover.find_violation(goal, list(local) + [E.ge(s, mid)]), Proved):
                hi = mid
            else:
                lo = mid
        # the same bound said as the kernel's facts make it (`K % 128 == 0`: K >= 130 is K >= 256)
        for unit in (512, 256, 128, 64, 32, 16, 8, 4, 2):
            v = -(-hi // unit) * unit
            if v == hi:
                break
            if v <= c and isinstance(self.prover.find_violation(E.ge(s, v), list(local) + [E.ge(s, hi)]), Proved):
                return E.ge(s, v)
        return E.ge(s, hi)


DTYPE_TEST = re.compile(r"<(.+) == (\w+)>")  # the front end's predicate that an input's dtype is a given one


def _dtypes_in(model: dict, syms: set) -> str:
    """The input dtypes a counterexample chooses, from the predicates the check depends on: `x.dtype =
    float8_e4m3` where the model makes one true, else `x.dtype not float32, bfloat16` ("" when none)."""
    tests: dict = {}  # array's dtype -> {dtype: value in the model}
    for s in sorted((x for x in syms if isinstance(x, E.BSym)), key=lambda x: x.uid):
        m = DTYPE_TEST.fullmatch(s.name)
        if m and s in model:
            tests.setdefault(m.group(1), {})[m.group(2)] = model[s]
    sizes = {s.name[len("itemsize("):-1]: v for s, v in model.items()
             if isinstance(s, E.Sym) and s.name.startswith("itemsize(") and isinstance(v, int)}
    parts = (_dtype_chosen(what, values, sizes.get(what)) for what, values in tests.items())
    return ", ".join(p for p in parts if p)


def _dtype_chosen(what: str, values: dict, size: int | None) -> str:
    """What a counterexample says of one input dtype `what`, from its dtype tests' `values` in the model and the
    item `size` it gives ("" when it makes several tests true)."""
    chosen = [d for d, v in values.items() if v]
    if len(chosen) == 1:
        return f"{what} = {chosen[0]}"
    if chosen:
        return ""
    # none of the dtypes it tests, but of a size the counterexample gives: the dtypes of that size left (an input
    # dtype the kernel's tables do not list, `float8_e5m2_x4` beside the 4-byte ones they do)
    left = [d for d in D.DTYPES if d != "bool_" and d not in values and D.size_bytes(d) == size]
    if len(left) == 1:
        return f"{what} = {left[0]}"
    if 1 < len(left) <= 5:
        return f"{what} one of {', '.join(left)} ({size} bytes; not {', '.join(values)})"
    return f"{what} not {', '.join(values)}"


def _input_atoms(goal: E.BExpr, is_input: Callable) -> list:
    """The comparisons inside a disjunction or conjunction (`goal` itself excluded) whose symbols are all
    inputs, in order, at most four."""
    out: list = []
    stack = list(goal.args) if isinstance(goal, (E.BOr, E.BAnd)) else []
    while stack and len(out) < 4:
        g = stack.pop(0)
        if isinstance(g, (E.BOr, E.BAnd)):
            stack.extend(g.args)
        elif isinstance(g, E.Cmp) and E.size(g) <= ATOM_SIZE:
            syms = E.free_syms(g)
            if syms and all(isinstance(x, E.Sym) and is_input(x) for x in syms):
                out.append(g)
    return out


def _quotient_parts(stop: E.Expr) -> tuple | None:
    """(bound, b) with `b*i <= bound` for every `i < stop`, where stop is `ceil(n / b)` (bound `n - 1`) or
    `m // b` (bound `m - b`) for a divisor b that is no constant."""
    terms, c = E._linear_parts(stop)
    if c == 0 and len(terms) == 1:
        (atom, k), = terms.items()
        if k == -1 and isinstance(atom, E.FloorDiv) and not isinstance(atom.b, E.Const):
            return E.sub(E.neg(atom.a), 1), atom.b  # -((-n) // b)
    if isinstance(stop, E.FloorDiv) and not isinstance(stop.b, E.Const):
        return E.sub(stop.a, stop.b), stop.b
    return None


def _remainder_lemma(t: E.Expr, r: E.Mod) -> E.BExpr:
    """`m >= 1 and t*m <= a` implies `t*m <= a - a % m`, for r = a % m: t <= a / m makes t <= a // m for an
    integer t, and m*(a // m) = a - a % m (Python's floor division and remainder, as the solver's for m > 0)."""
    tm = E.mul(t, r.b)
    return E.implies(E.band(E.ge(r.b, 1), E.le(tm, r.a)), E.le(tm, E.sub(r.a, r)))


def _by_place(copies: list, proved: set) -> dict:
    """The undecided copies [(finding, check, *rest)] not proved yet, by place (see `_undecided_key`):
    key -> [(finding, *rest)], in the order they came."""
    places: dict = {}
    for d, check, *rest in copies:
        if id(d) not in proved:
            places.setdefault(_undecided_key(d.location, check), []).append((d, *rest))
    return places


def _undecided_key(where: Location, check: str) -> tuple:
    """The key of an undecided check at a place in the findings shown: the check as the message names it, but
    for its loop copies and the quantities in parentheses (see finding_key)."""
    return "NKI901", where, UNDECIDED, LOOP_COPY.sub("", check.split(" (")[0])


def _in_model(e: E.Expr | E.BExpr, model: dict) -> int | bool | None:
    """The value of `e` in the solver's model, or None when the model does not name all its symbols or it
    cannot be evaluated."""
    syms = E.free_syms(e)
    if not syms <= model.keys():
        return None
    try:
        return E.evaluate(e, {s: model[s] for s in syms})
    except Exception:  # noqa: BLE001
        return None


def _holds(fact: E.BExpr, model: dict) -> bool:
    """`fact` is true in the solver's model (False when the model does not settle it: it is asked again)."""
    return _in_model(fact, model) is True


def _config_in(info: dict, inputs: list) -> bool:
    """Some of these inputs are fields of a configuration object."""
    return any(info[s].role == "config" for s in inputs)


def _is_input(info: dict, s: object) -> bool:
    i = info.get(s)
    return i is not None and i.role in INPUT_ROLES


def _linear_key(e: E.Expr) -> tuple:
    """(the non-constant part of `e` as a hashable key, its constant)."""
    if isinstance(e, E.Lin):
        return e.terms, e.const
    if isinstance(e, E.Const):
        return (), e.value
    return ((e, 1),), 0


def _follows_from_conjuncts(goal: E.BExpr, facts: list) -> bool:
    """Each conjunct of `goal` is a conjunct of the facts with a constant no weaker: `m >= 0` where the path
    says `m > 0` (a tile's size under the branch that tested it), `i < n` where a fact says `i < n - 1`.  No
    arithmetic beyond comparing constants, however non-linear m is."""
    least: dict = {}  # non-constant part of `e <= 0` -> the largest constant of such a fact
    equal: set = set()
    for f in facts:
        for c in f.args if isinstance(f, E.BAnd) else (f,):
            if not isinstance(c, E.Cmp) or c.op == E.NE:
                continue
            key, k = _linear_key(c.e)
            if c.op == E.EQ:
                equal.add((key, k))
                sides = [(key, k), _linear_key(E.neg(c.e))]
            else:
                sides = [(key, k)]
            for part, const in sides:
                if part not in least or least[part] < const:
                    least[part] = const
    for g in goal.args if isinstance(goal, E.BAnd) else (goal,):
        if not isinstance(g, E.Cmp) or g.op == E.NE:
            return False
        key, k = _linear_key(g.e)
        if g.op == E.EQ:
            if (key, k) not in equal and _linear_key(E.neg(g.e)) not in equal:
                return False
        elif key not in least or least[key] < k:  # e + k <= 0 follows from e + k' <= 0 with k' >= k
            return False
    return True


def quotient_product_lemmas(goal: E.BExpr, most: int = 8) -> list:
    """For each product `f*x` in the goal whose factor f also divides a quotient `n // f` there, what the
    quotient bounds of the product: `x <= n // f - 1` implies `f*x <= n - f`, and `x <= n // f` implies
    `f*x <= n` (for f >= 1).  A loop packing `n // f` tiles of f columns into a bank (`for t in range(512 //
    padded)` at column `t*padded`) stays inside it by these; the solver does not find the step from `t < 512 //
    padded` to `t*padded <= 512 - padded` when f is itself a formula.  At most `most` lemmas."""
    quotients: dict = {}  # divisor -> the dividends it divides in the goal
    products: list = []
    for e in E.distinct_nodes([goal]):
        if isinstance(e, E.FloorDiv) and not isinstance(e.b, E.Const):
            quotients.setdefault(e.b, []).append(e.a)
        elif isinstance(e, E.Mul):
            products.append(e)
    out: dict = {}
    for p in products:
        for i, f in enumerate(p.factors):
            for n in quotients.get(f, ()):
                q = E.floordiv(n, f)
                # each other factor alone (a product by an item size too, `size*padded*t`, is a multiple of the
                # pair's once the size is a number)
                for x in dict.fromkeys(p.factors[:i] + p.factors[i + 1:]):
                    fx = E.mul(f, x)
                    out[E.implies(E.band(E.ge(f, 1), E.le(x, E.sub(q, 1))), E.le(fx, E.sub(n, f)))] = None
                    out[E.implies(E.band(E.ge(f, 1), E.le(x, q)), E.le(fx, n))] = None
                    if len(out) >= most:
                        return list(out)
    return list(out)


def _few_valued(syms: list, ranges: dict) -> tuple:
    """([(symbol, its values)], number of cases): the symbols of `syms`, in order, whose ranges hold a few values,
    as long as the product of their counts stays within CASE_SPLIT_LIMIT (a symbol that would pass it is left
    out, a later smaller one may still fit)."""
    small: list = []
    cases = 1
    for s in syms:
        iv = ranges.get(s)
        if iv is None or iv.lo is None or iv.hi is None:
            continue
        width = iv.hi - iv.lo + 1
        if 1 < width and cases * width <= CASE_SPLIT_LIMIT:
            small.append((s, range(iv.lo, iv.hi + 1)))
            cases *= width
    return small, cases


def _constant_conditionals(e: E.AnyExpr, most: int = 4) -> list:
    """[(conditional, its values)] of the outermost conditionals in `e` whose branches are all numbers, at most
    `most` values each, the most frequent first (by how many nodes they are children of)."""
    found: dict = {}
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        for c in E.children(x):
            if isinstance(c, E.Ite):
                values = E.branch_values(c)
                if values is not None and 1 < len(values) <= most:
                    found.setdefault(c, [values, 0])[1] += 1
                    continue
            stack.append(c)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][1], E.size(kv[0])))
    return [(c, sorted(v)) for c, (v, _) in ranked]


def by_intervals(goal: E.BExpr, ranges: dict, bounds: dict) -> tuple:
    """(whether `prove_cheaply` proves the goal or its simplification under the ranges, that simplification)."""
    if prove_cheaply(goal, ranges, bounds):
        return True, goal
    simpler = E.simplify_in(goal, ranges)
    return simpler == E.TRUE or (simpler != goal and prove_cheaply(simpler, ranges, bounds)), simpler


def prove_cheaply(goal: E.BExpr, ranges: dict, bounds: dict) -> bool:
    """Intervals, min/max case splits and monotone substitution of bounded indices (no solver)."""
    if E.decide(goal, ranges) is True:
        return True
    if isinstance(goal, E.BAnd):
        return all(prove_cheaply(g, ranges, bounds) for g in goal.args)
    if isinstance(goal, E.BOr):  # disjoint placements: one of `a ends before b` / `b ends before a` holds
        return any(prove_cheaply(g, ranges, bounds) for g in goal.args)
    if isinstance(goal, E.Cmp) and goal.op == E.LE:
        return _nonpos(goal.e, ranges, bounds, 0)
    return False


def _nonpos(e: E.Expr, ranges: dict, bounds: dict, depth: int, tried: dict | None = None) -> bool:
    """`e <= 0` by the relaxations below, at most 8 deep.  `tried`: the expressions this search has settled, each
    with the depth it was first tried at (two orders of the same substitutions reach the same expression; one
    tried less deep and not shown is not shown deeper, where the search is a part of that one)."""
    if tried is None:
        tried = {}
    seen = tried.get(e)
    if seen is not None:
        if seen is True or seen <= depth:
            return seen is True
    tried[e] = depth
    if _nonpos_search(e, ranges, bounds, depth, tried):
        tried[e] = True
        return True
    return False


def _nonpos_search(e: E.Expr, ranges: dict, bounds: dict, depth: int, tried: dict) -> bool:
    iv = E.interval(e, ranges)
    if iv.hi is not None and iv.hi <= 0:
        return True
    if depth > 8:
        return False
    terms, c = E._linear_parts(e)
    for atom, k in terms.items():
        if isinstance(atom, (E.Min, E.Max)):
            rest = E.sub(e, E.mul(k, atom))
            cases = [E.add(rest, E.mul(k, arg)) for arg in atom.args]
            need_any = (isinstance(atom, E.Min) and k > 0) or (isinstance(atom, E.Max) and k < 0)
            if need_any:
                if any(_nonpos(x, ranges, bounds, depth + 1, tried) for x in cases):
                    return True
            elif all(_nonpos(x, ranges, bounds, depth + 1, tried) for x in cases):
                return True
            return False
    # a floor division whose coefficient is a multiple of its divisor has linear bounds:
    # (a - d + 1) / d <= a // d <= a / d; substitute the end that makes e larger (sound for e <= 0)
    for atom, k in terms.items():
        if isinstance(atom, E.FloorDiv) and isinstance(atom.b, E.Const) and atom.b.value > 0 and \
                k % atom.b.value == 0:
            d = atom.b.value
            bound = E.mul(k // d, atom.a) if k > 0 else E.mul(k // d, E.sub(atom.a, d - 1))
            if _nonpos(E.add(E.sub(e, E.mul(k, atom)), bound), ranges, bounds, depth + 1, tried):
                return True
    divided = _floors_relaxed(terms, e)
    if divided is not None and _nonpos(divided, ranges, bounds, depth + 1, tried):
        return True
    relaxed = _relaxed(terms, e, ranges, bounds)
    if relaxed is not None and _nonpos(relaxed, ranges, bounds, depth + 1, tried):
        return True
    for atom, k in terms.items():
        if not isinstance(atom, E.Sym) or atom not in bounds:
            continue
        others = [a for a in terms if a is not atom]
        if any(atom in E.free_syms(a) for a in others):
            continue
        lo, hi = bounds[atom]
        repl = hi if k > 0 else lo
        if repl is None:
            continue
        if _nonpos(E.substitute(e, {atom: repl}), ranges, bounds, depth + 1, tried):
            return True
    return False


def _floors_relaxed(terms: dict, e: E.Expr) -> E.Expr | None:
    """`s*e` (s > 0, so that each coefficient is a multiple of its divisor) with every floor division by a constant
    replaced by the linear bound that makes it largest: (a - d + 1) / d <= a // d <= a / d (`16*((2*n + 31) // 32)`
    is at least n), all at once.  None without floor divisions, and for a single one whose coefficient is already
    such a multiple (the substitution one at a time, before this, covers it)."""
    floors = [(atom, k) for atom, k in terms.items()
              if isinstance(atom, E.FloorDiv) and isinstance(atom.b, E.Const) and atom.b.value > 0]
    if not floors or all(k % atom.b.value == 0 for atom, k in floors) and len(floors) == 1:
        return None
    scale = 1
    for atom, k in floors:
        d = atom.b.value
        step = d // math.gcd(abs(k), d)
        scale = scale * step // math.gcd(scale, step)
    out = E.mul(scale, e)
    for atom, k in floors:
        d, k2 = atom.b.value, k * scale
        bound = E.mul(k2 // d, atom.a) if k > 0 else E.mul(k2 // d, E.sub(atom.a, d - 1))
        out = E.add(E.sub(out, E.mul(k2, atom)), bound)
    return out


def _relaxed(terms: dict, e: E.Expr, ranges: dict, bounds: dict) -> E.Expr | None:
    """`e` with each remainder by a positive divisor, and each product of one such remainder or one bounded
    execution symbol with non-negative factors, replaced by the end of its range that makes `e` largest (`c*(i %
    m)` by `c*(m - 1)` for c > 0, by 0 for c < 0): `e <= 0` follows from the result `<= 0`.  A rotating buffer's
    offset, `base + size*(i % n)`, stays below `base + size*n` whatever `i`; the sizes left cancel linearly.
    None when no term is of that kind."""
    out = e
    changed = False
    for atom, k in terms.items():
        if isinstance(atom, E.Mod):
            factor, rest = atom, []
        elif isinstance(atom, E.Mul):
            picks = [f for f in atom.factors if isinstance(f, E.Mod) or isinstance(f, E.Sym) and f in bounds]
            if len(picks) != 1:
                continue
            factor = picks[0]
            rest = list(atom.factors)
            rest.remove(factor)
        else:
            continue
        others = E.ONE
        for f in rest:
            others = E.mul(others, f)
        low = E.interval(others, ranges).lo if rest else 0
        if low is None or low < 0:
            continue  # a factor that may be negative turns the ends around
        if isinstance(factor, E.Mod):
            d = E.interval(factor.b, ranges)
            if d.lo is None or d.lo < 1:
                continue
            lo, hi = E.ZERO, E.sub(factor.b, 1)
        else:
            lo, hi = bounds[factor]
            if (hi if k > 0 else lo) is None:
                continue
        end = hi if k > 0 else lo
        out = E.add(out, E.mul(k, E.sub(E.mul(end, others), atom)))
        changed = True
    return out if changed else None


def _at_worst(goal: E.BExpr, bounds: dict) -> E.BExpr | None:
    """`goal` with each bounded execution symbol replaced by the end of its range that makes each
    `e <= 0` conjunct hardest (its upper end where its coefficient is positive)."""
    parts = []
    changed = False
    for g in goal.args if isinstance(goal, E.BAnd) else (goal,):
        if isinstance(g, E.Cmp) and g.op == E.LE:
            terms, _ = E._linear_parts(g.e)
            m = {}
            for s, k in terms.items():
                if s in bounds:
                    lo, hi = bounds[s]
                    end = hi if k > 0 else lo
                    if end is not None:
                        m[s] = end
            if m:
                g = E.le(E.substitute(g.e, m), 0)
                changed = True
        parts.append(g)
    return E.band(*parts) if changed else None


def _solved_bounds(goal: E.BExpr, is_input: Callable) -> list:
    """Conjuncts `k*s + c <= 0` of the goal over one input symbol, solved for it (2048*bank + 512 <= 16384
    gives bank <= 7)."""
    out = []
    for g in goal.args if isinstance(goal, E.BAnd) else (goal,):
        if not (isinstance(g, E.Cmp) and g.op == E.LE):
            continue
        terms, c = E._linear_parts(g.e)
        if len(terms) != 1:
            continue
        (s, k), = terms.items()
        if not (isinstance(s, E.Sym) and is_input(s)) or k == 0:
            continue
        out.append(E.le(s, (-c) // k) if k > 0 else E.ge(s, -((-c) // k)))
    return out


def _connected(syms: set, facts: list) -> set:
    """Symbols linked to `syms` through individual conjuncts of the facts (for a short counterexample)."""
    parts = []
    for f in facts:
        parts.extend(f.args if isinstance(f, E.BAnd) else (f,))
    out = set(syms)
    changed = True
    while changed:
        changed = False
        for p in parts:
            fs = E.free_syms(p)
            if fs & out and not fs <= out and len(fs) <= 3:
                out |= fs
                changed = True
    return out


def _python_expression(text: str) -> bool:
    """`text` reads as a Python expression (a suggestion the user can paste as an assert): one that calls no
    function but Python's own (the analysis's name for a dtype's size, `itemsize(x.dtype)`, is no function a
    kernel has)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return all(not isinstance(n, ast.Call) or isinstance(n.func, ast.Name) and n.func.id in ("min", "max", "abs")
               for n in ast.walk(tree))


def _simple(goal: E.BExpr) -> bool:
    """A condition short enough to suggest as an assert (N <= 128, K == K2, B*S <= 128: a product of a few
    dimensions, the rows of a batch flattened into one tile's partitions)."""
    if not isinstance(goal, E.Cmp):
        return False
    t, _ = E._linear_parts(goal.e)
    return len(t) <= 2 and all((isinstance(a, E.Sym) or isinstance(a, E.Mul) and len(a.factors) <= 3 and
                                all(isinstance(f, E.Sym) for f in a.factors)) and abs(k) == 1 for a, k in t.items())


def _walk(e: object) -> list:
    out = [e]
    for c in E.children(e) if isinstance(e, (E.Expr, E.BExpr)) else ():
        out.extend(_walk(c))
    return out


def _constants(b: object) -> set:
    out: set = set()

    def walk(e: object) -> None:
        if isinstance(e, E.Const):
            out.add(abs(e.value))
        elif isinstance(e, E.Lin):
            out.add(abs(e.const))
            for _, c in e.terms:
                out.add(abs(c))
        for c in E.children(e) if isinstance(e, (E.Expr, E.BExpr)) else ():
            walk(c)

    walk(b)
    return out


Check = Callable[[KernelAnalysis], list]
_ = field
