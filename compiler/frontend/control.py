"""Control flow: symbolic branches, loops analysed once, summarised or unrolled.

A loop over a range (or a summarised sequence) is first analysed once with a
symbolic index.  If that pass reads Python state written by a previous
iteration, or mutates an object that existed before the loop, the pass is
undone and the loop is either summarised (integer inductions `x += d`, one
`append` per iteration -> a `SymSeq`), unrolled (known trip count within the
limit) or analysed with the carried values unknown (reported as NKI902).
"""

from __future__ import annotations

import ast
import itertools
from typing import Any, Callable, Iterator

from .. import expr as E
from .. import ir
from ..record import Record
from .astwalk import walk
from . import values as V

MAX_SEQ_UNROLL = 256


class ReturnSignal(Exception):
    def __init__(self, value: Any, facts: tuple = (), loop_vars: tuple = ()) -> None:
        super().__init__()
        self.value = value
        # the index ranges of the function's symbolic loops around the return, and their index variables: a
        # value returned from inside a loop (`for i in range(n): if s[i] == 1: return i`) is one of the loop's
        # indices (see `Interpreter.returned`)
        self.facts = facts
        self.loop_vars = loop_vars


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


class NoFallthrough(Exception):
    """Every path through a block left it (return / break / continue / raise) with the exits recorded."""


class LoopTrack:
    __slots__ = ("frame", "assigned", "written", "carried", "reads", "appended", "first_sym", "probes", "epoch")

    def __init__(self, frame: Any, assigned: set, first_sym: int, probes: frozenset, epoch: int) -> None:
        self.frame = frame
        self.assigned = assigned
        self.epoch = epoch  # the heap's epoch when the pass began: a mutable of this epoch or later is the pass's own
        # the symbols the loop makes from here on (its index, per-iteration values) and its probes: a condition
        # over none of them is the same in every iteration
        self.first_sym = first_sym
        self.probes = probes
        self.written: set = set()
        self.carried: set = set()
        self.reads: set = set()  # ids of lists read (indexed, measured, iterated) during the pass
        self.appended: set = set()  # ids of lists appended to during the pass


class Branch:
    __slots__ = ("ft", "held", "env", "muts", "trial")

    def __init__(self, ft: E.BExpr, held: E.BExpr, env: dict, muts: dict, trial: V.Trial) -> None:
        # ft: the branch's path where it falls through; held: its branches alone (`PathList`; TRUE where it raised)
        self.ft, self.held, self.env, self.muts, self.trial = ft, held, env, muts, trial


def _loads(node: ast.AST) -> dict:
    """name -> how many times `node` reads it (kept on the node)."""
    out = getattr(node, "_nki_loads", None)
    if out is None:
        out = {}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out[n.id] = out.get(n.id, 0) + 1
        node._nki_loads = out
    return out


def assigned_names(stmts: list) -> set:
    """Names a block assigns (not counting nested function/class bodies)."""
    return set(binding_lines(stmts))


def walk_scope(stmts: list) -> Any:
    """The nodes of a function's own scope: nested functions, classes, lambdas and comprehensions are other
    scopes (their names, not their bodies)."""
    stack = list(reversed(stmts))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(reversed(n.decorator_list))
            continue
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def binding_lines(stmts: list) -> dict:
    """Names bound in these statements (this scope only), with the lines binding them (a new dict: the
    statements' own are kept on them, as loops and branches ask again for every pass)."""
    out: dict = {}
    for st in stmts:
        own = getattr(st, "_nki_binding_lines", None)
        if own is None:
            own = _binding_lines(st)
            st._nki_binding_lines = own
        for name, lines in own.items():
            out.setdefault(name, set()).update(lines)
    return out


def _binding_lines(st: ast.stmt) -> dict:
    out: dict = {}
    for n in walk_scope([st]):
        names: list = []
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names = [n.id]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [n.name]
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names = [n.name]
        elif isinstance(n, ast.NamedExpr):
            names = [n.target.id]
        for name in names:
            out.setdefault(name, set()).add(getattr(n, "lineno", 0))
    return out


def _read_before_write(stmts: list, assigned: set) -> list:
    """Names of `assigned` that the block reads before writing them (in statement order)."""
    written: set = set()
    out: list = []

    def visit(block: list) -> None:
        for st in block:
            if isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                head = []
                if isinstance(st, (ast.If, ast.While)):
                    head = [st.test]
                elif isinstance(st, ast.For):
                    head = [st.iter]
                elif isinstance(st, ast.With):
                    head = [i.context_expr for i in st.items]
                for h in head:
                    for n in walk(h):
                        if isinstance(n, ast.Name) and n.id in assigned and n.id not in written and n.id not in out:
                            out.append(n.id)
                if isinstance(st, ast.For):
                    written.update(_names(st.target))
                for sub in ("body", "orelse", "finalbody"):
                    visit(getattr(st, sub, []) or [])
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                written.add(st.name)
                continue
            loads = [n.id for n in walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                loads.append(st.target.id)
            for name in loads:
                if name in assigned and name not in written and name not in out:
                    out.append(name)
            for n in walk(st):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    written.add(n.id)

    visit(stmts)
    return out


def trip_count(start: E.IntLike, stop: E.IntLike, step: E.IntLike, positive: bool = False) -> E.IntLike:
    """`positive`: a symbolic step the caller showed to be positive."""
    if isinstance(step, int) and step > 0 or positive and not isinstance(step, int):
        return E.lower(E.maximum(0, E.ceildiv(E.sub(stop, start), step)))
    if isinstance(step, int) and step < 0:
        return E.lower(E.maximum(0, E.ceildiv(E.sub(start, stop), -step)))
    raise V.NotUnderstood("a range whose step is not a known integer")


SMALL_TRIP = 16
MAX_EXEMPT_FIELDS = 32  # fields of objects a symbolic loop may leave unknown and still be summarised (loop_over)
STEP_SIGN_DEPTH = 6  # levels of a range step taken apart to show it non-negative (ControlMixin._step_nonneg)


def _probe_label(key: tuple) -> str:
    """A probed value as the kernel names it: ("name", x) is x, ("attr", obj, k) is Class.k."""
    return key[1] if key[0] == "name" else f"{key[1].cls.name}.{key[2]}"


STEADY_STEP_SIZE = 60  # nodes of a step `_steady_step` looks into
STEADY_STEP_CHOICES = 4  # of its min, max and conditionals, per replacement
PERIODIC_CANDIDATES = 4  # steps `_periodic` tries per value
PERIODIC_TRIES = 8  # combinations of them


def _iteration_facts(var: E.Sym, start: Any, stop: Any, step: Any) -> list:
    """What an iteration of `for var in range(start, stop, step)` knows of its index."""
    facts = [E.ge(var, start), E.lt(var, stop)]
    if not (isinstance(step, int) and step == 1):
        facts.append(E.eq(E.mod(E.sub(var, start), step), 0))
    return facts


def _cycle_lengths(now: E.Expr, probe: E.Sym) -> list:
    """The n for which `now` may be `0 if probe + 1 == n else probe + 1` (a counter that goes round n values,
    however the wrap is written: `probe + 1 == n`, `probe + 1 < n`, `probe + 1 >= n`): candidates read off its
    condition, to be proved."""
    if not (isinstance(now, E.Ite) and isinstance(now.cond, E.Cmp)):
        return []
    one = E.const(1)
    inc = now.b if now.a == E.const(0) else now.a if now.b == E.const(0) else None
    if inc is None or E.sub(inc, probe) != one:
        return []
    e = now.cond.e
    out = []
    for n in (E.sub(inc, e), E.add(inc, e), E.sub(E.add(inc, 1), e), E.add(E.sub(inc, 1), e)):
        if probe not in E.free_syms(n) and n not in out:
            out.append(n)
    return out


def _invariant_variants(d: E.Expr, varying: set, depth: int = 2) -> list:
    """`d` with one of its min, max or conditionals replaced by one of its operands, again up to `depth` times,
    where the result mentions none of `varying` (the steps a steady value may take, see `_steady_step`); none
    for a step too large to be a tile's size (each replacement rebuilds it)."""
    out: list = []
    tables = _step_tables(d, varying)
    if tables is None:
        return out
    if tables:  # each table one node: a placeholder while the candidates are made
        holders = {node: E.Sym(f"<table {i}>", -(1 << 40) - i, "unknown") for i, (node, _v) in enumerate(tables)}
        back = {h: node for node, h in holders.items()}
        return [E.substitute(x, back) for x in _invariant_variants(E.replace_nodes(d, holders), varying, depth)]
    if E.size(d) > STEADY_STEP_SIZE:
        return out

    def go(e: E.Expr, left: int) -> None:
        if not (E.free_syms(e) & varying):
            if e not in out:
                out.append(e)
            return
        if left == 0 or len(out) >= 6:
            return
        for x in _one_choice_taken(e):
            go(x, left - 1)

    go(d, depth)
    return out


def _rounds(value: E.Expr, probe: E.Sym, varying: frozenset | set | None = None) -> bool:
    """`probe` occurs in `value` only inside floor divisions or remainders by constants, or, given `varying`,
    by values that do not change in the loop (none of `varying`): roundings of it, like an address aligned to
    an item size."""
    def walk(e: E.Expr, inside: bool) -> bool:
        if e == probe:
            return inside
        if isinstance(e, (E.FloorDiv, E.Mod)) and (isinstance(e.b, E.Const) if varying is None else
                                                   not (E.free_syms(e.b) & (set(varying) | {probe}))):
            return walk(e.a, True) and walk(e.b, inside)
        return all(walk(c, inside) for c in E.children(e))
    return probe in E.free_syms(value) and walk(value, False)


STEADY_TABLES = 2  # tables a steady step's proof is split on, case by case (`_tables`)
# the largest step looked into for tables: one allocation's step with a table of item sizes is about 500 nodes (the
# table counted at each of its uses), 22 with it one node; a step larger still is no single allocation's
STEADY_TABLE_STEP_SIZE = 1000
STEADY_TABLE_VALUES = 4  # distinct values of such a table


def _step_tables(d: E.Expr, varying: set) -> list | None:
    """The tables of a step (`_tables`) small enough to look into with each table one node, else None."""
    if E.size(d) <= STEADY_STEP_SIZE:
        return _tables(d, varying)
    if E.size(d) > STEADY_TABLE_STEP_SIZE:
        return None
    tables = _tables(d, varying)
    return tables if tables and _size_with_tables(d, tables) <= STEADY_STEP_SIZE else None


def _table_values(e: E.Expr) -> tuple | None:
    """The values of a conditional whose branches are all constants, nested (None for any other, or for one of
    more than STEADY_TABLE_VALUES values)."""
    vals = E.branch_values(e)
    return tuple(sorted(vals)) if vals is not None and len(vals) <= STEADY_TABLE_VALUES else None


def _tables(e: E.Expr, varying: set) -> list:
    """The loop-invariant conditionals in `e` whose branches are all constants, each with its values: tables
    like a helper's item size per dtype (`4 if dt == float32 else 2 if ... else 1`). An address rounded up to
    such a size grows steadily for each of its values, which the induction proves one value at a time (with
    the table a symbol it would divide by an unknown); and a step with a table in it counts the table as one
    node (see `_invariant_variants`)."""
    out: list = []
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, E.Ite) and not (E.free_syms(x) & varying):
            vals = _table_values(x)
            if vals is not None:
                out.append((x, vals))
                continue
        stack.extend(c for c in E.children(x) if isinstance(c, E.Expr))
    return out


def _size_with_tables(e: E.Expr, tables: list) -> int:
    """`E.size(e)` with each table one node."""
    nodes = {node for node, _vals in tables}
    memo: dict = {}

    def go(x: Any) -> int:
        if x in nodes:
            return 1
        n = memo.get(x)
        if n is None:
            n = memo[x] = 1 + sum(go(c) for c in E.children(x))
        return n
    return go(e) if nodes else E.size(e)


def _table_cases(tables: list) -> list:
    """Each combination of the tables' values, as a replacement table for `E.replace_nodes` (one empty case
    when there are none, or more than STEADY_TABLES)."""
    if not tables or len(tables) > STEADY_TABLES:
        return [{}]
    return list(E.value_cases(tables))


def _fold_tables(e: E.Expr, tables: list) -> E.Expr:
    """`e` with each of its floor divisions and remainders that reads only the tables replaced by its value,
    where that is the same in every case (`(size - 1) // size` is 0 for each item size)."""
    if not tables or len(tables) > STEADY_TABLES:
        return e
    cases = _table_cases(tables)
    table_syms = set().union(*(E.free_syms(node) for node, _vals in tables))
    found: dict = {}
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, (E.FloorDiv, E.Mod)) and E.free_syms(x) and E.free_syms(x) <= table_syms:
            vals = {E.lower(E.replace_nodes(x, case)) for case in cases}
            if len(vals) == 1 and isinstance(next(iter(vals)), int):
                found[x] = E.const(next(iter(vals)))
                continue
        stack.extend(c for c in E.children(x) if isinstance(c, E.Expr))
    return E.replace_nodes(e, found) if found else e


def _one_choice_taken(e: E.Expr) -> Iterator[E.Expr]:
    """`e` with one of its min, max or conditionals (the first STEADY_STEP_CHOICES found) replaced by one of its
    operands, each in turn."""
    nodes: list = []
    stack = [e]
    while stack and len(nodes) < STEADY_STEP_CHOICES:
        x = stack.pop()
        if isinstance(x, (E.Min, E.Max, E.Ite)) and x not in nodes:
            nodes.append(x)
        stack.extend(c for c in E.children(x) if isinstance(c, E.Expr))
    for node in nodes:
        for c in E.children(node):
            if isinstance(c, E.Expr):
                yield E.replace_nodes(e, {node: c})


def _pure_integer_updates(body: list, names: set) -> bool:
    """Only assignments of plain names, no calls and no control flow (a search loop)."""
    for st in body:
        if not isinstance(st, (ast.Assign, ast.AugAssign)):
            return False
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            return False
        if any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.NamedExpr)) for n in walk(st)):
            return False
    return True


def _update_directions(body: list) -> dict:
    """name -> -1 / +1 for `name -= c` / `name += c` with a positive constant c, the only updates of it."""
    out: dict = {}
    for st in body:
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and isinstance(st.value, ast.Constant) \
                and isinstance(st.value.value, int) and st.value.value > 0 and isinstance(st.op, (ast.Add, ast.Sub)):
            d = 1 if isinstance(st.op, ast.Add) else -1
            out[st.target.id] = d if out.get(st.target.id, d) == d else 0
        else:
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                if isinstance(t, ast.Name):
                    out[t.id] = 0
    return out


def _builds_lists(body: list) -> bool:
    """A Python loop that builds lists, or searches (returns from inside the loop): unrolled when short."""
    for st in body:
        for n in walk(st):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in ("append", "extend", "insert"):
                return True
            if isinstance(n, ast.Return):
                return True
    return False


def _same_tiles(a: Any, b: Any, depth: int = 0) -> bool:
    """Two values of the same structure whose leaves are tensors of the same shapes (lists or tuples of them,
    nested): what a loop that rebinds its accumulators each iteration carries."""
    if isinstance(a, V.TensorVal) and isinstance(b, V.TensorVal):
        return tuple(a.shape) == tuple(b.shape)
    if isinstance(a, V.IndexGrid) and isinstance(b, V.IndexGrid):
        # `i_p = nl.arange(128)[:, None]` rebuilt each iteration: the same grid over fresh index variables
        if tuple(E.lift(d) for d in a.shape) != tuple(E.lift(d) for d in b.shape) or len(a.iotas) != len(b.iotas) \
                or any(E.lift(x.size) != E.lift(y.size) for x, y in zip(a.iotas, b.iotas)):
            return False
        return E.substitute(b.expr, {y.var: x.var for x, y in zip(a.iotas, b.iotas)}) == a.expr
    if depth > 4:
        return False
    if isinstance(a, V.PyList) and isinstance(b, V.PyList):
        if (a.tail is None) != (b.tail is None):
            return False
        if a.tail is not None and not (E.lift(a.tail.length) == E.lift(b.tail.length)
                                       and _same_tiles(a.tail.elem, b.tail.elem, depth + 1)):
            return False  # summarised sequences (a list built by a loop of symbolic trip count)
        if a.tail is not None and not a.items and not b.items:
            return True
        a, b = a.items, b.items
    elif not (isinstance(a, tuple) and isinstance(b, tuple)):
        return False
    return len(a) == len(b) > 0 and all(_same_tiles(x, y, depth + 1) for x, y in zip(a, b))


def _phi_leaf(v: Any, obj: Any) -> bool:
    """Whether `obj` is `v` or one of the values of the Phi `v`."""
    while isinstance(v, V.Phi):
        if _phi_leaf(v.a, obj):
            return True
        v = v.b
    return v is obj


def _replace_phi_leaf(v: Any, obj: Any, new: Any) -> Any:
    if v is obj:
        return new
    if isinstance(v, V.Phi):
        a, b = _replace_phi_leaf(v.a, obj, new), _replace_phi_leaf(v.b, obj, new)
        return v if a is v.a and b is v.b else V.Phi(v.cond, a, b)
    return v


class ControlMixin:
    # ------------------------------------------------------------------ if
    def exec_if(self, st: ast.If) -> None:
        self.branch_on(self.truth(self.eval(st.test)), st.body, st.orelse)

    def branch_on(self, c: E.BExpr | bool, body: list | Callable, orelse: list | Callable) -> None:
        """`body` where `c` holds and `orelse` where it does not (statements, or a function to call): the side
        the path settles, else both (`symbolic_branch`)."""
        d = c if isinstance(c, bool) else self.decide(c)
        if d is not None:
            chosen = body if d else orelse
            if callable(chosen):
                chosen()
            else:
                self.exec_block(chosen)
            return
        self.symbolic_branch(c, body, orelse)

    def symbolic_branch(self, c: E.BExpr, body: list | Callable, orelse: list | Callable) -> None:
        f = self.frame
        env0 = dict(f.locals)
        written0 = [(tr, set(tr.written)) for tr in self.loop_tracks if tr.frame is f]
        exits0 = self.exits()
        b1 = self._run_branch(c, body)
        self.heap.rollback(b1.trial)
        f.locals.clear()
        f.locals.update(env0)
        b2 = self._run_branch(E.bnot(c), orelse)
        if written0:
            self._carried_through_branch(c, env0, b1, b2, written0, body, orelse)
        if b1.ft == E.FALSE and b2.ft == E.FALSE:
            raise NoFallthrough()
        held = E.bor(b1.held, b2.held)
        if b1.ft == E.FALSE:
            self._narrow(b2.ft, held, exits0)
            return
        if b2.ft == E.FALSE:
            self.heap.rollback(b2.trial)
            for obj, snap in b1.muts.values():
                obj.restore(snap)
            f.locals.clear()
            f.locals.update(b1.env)
            self._narrow(b1.ft, held, exits0)
            return
        self._merge_branches(c, b1, b2)
        self._narrow(E.bor(b1.ft, b2.ft), held, exits0)

    def _carried_through_branch(self, c: E.BExpr, env0: dict, b1: Branch, b2: Branch, written0: list, body: Any,
                                orelse: Any) -> None:
        """A name one side assigns and the other leaves as it was (`if rows > 0: wrote = True` in a loop body),
        and that the function reads outside this branch: after the branch it may hold what the previous
        iteration left, so the loop carries it, as if read.  (A temporary only the branch itself reads is not.)
        Not for a loop whose iterations all take the same side (`if not prefetched: bufs = [...]`, the condition
        over none of the loop's symbols): on one side every iteration assigns the name, on the other none does,
        so no iteration sees what an earlier one left (a read before the assignment is tracked as such)."""
        fn = self.frame.func.node if self.frame.func is not None else None
        syms = E.free_syms(c)
        written0 = [(tr, written) for tr, written in written0 if self._varies_in(syms, tr)]
        if not written0:
            return
        for name, v0 in env0.items():
            kept1, kept2 = b1.env.get(name, V.MISSING) is v0, b2.env.get(name, V.MISSING) is v0
            if kept1 == kept2:
                continue
            loops = [tr for tr, written in written0 if name in tr.assigned and name not in written]
            if not loops or fn is None:
                continue
            inside = sum(_loads(st).get(name, 0) for part in (body, orelse) if isinstance(part, list) for st in part)
            if _loads(fn).get(name, 0) > inside:
                for tr in loops:
                    tr.carried.add(name)

    def _varies_in(self, syms: set, tr: LoopTrack) -> bool:
        """Does a condition over `syms` change from one iteration of the loop `tr` tracks to the next?"""
        if syms & tr.probes:
            return True
        made = self.kb.symbols[tr.first_sym:]
        return any(info.sym in syms for info in made)

    def _narrow(self, cond: E.BExpr, held: E.BExpr, exits0: tuple) -> None:
        if cond != E.TRUE:
            self.narrow_implied(exits0, cond, held)

    def _run_branch(self, cond: E.BExpr, stmts: list | Callable) -> Branch:
        f = self.frame
        base = len(f.pc)
        f.pc.append(cond)
        t = self.heap.begin()
        try:
            if callable(stmts):
                stmts()
            else:
                self.exec_block(stmts)
            ft = E.band(*f.pc[base:])
            held = E.band(*f.pc.held[base:])
        except ReturnSignal as r:
            f.returns.append(self.returned(f.pc, r))
            ft = held = E.FALSE
            self.jumps += 1
        except V.PathAbort as exc:
            ft, held = E.FALSE, E.TRUE  # (known not taken wherever a later point was reached)
            self.unrecorded_aborts += not exc.recorded
        except (BreakSignal, ContinueSignal):
            ft = held = E.FALSE
            self.jumps += 1
        except NoFallthrough:
            ft = held = E.FALSE  # (each of its paths counted where it ended)
        finally:
            del f.pc[base:]
            self.heap.end(t)
        muts = {id(o): (o, o.snapshot()) for o in t.touched()}
        return Branch(ft, held, dict(f.locals), muts, t)

    def _merge_branches(self, c: E.BExpr, b1: Branch, b2: Branch) -> None:
        f = self.frame
        env: dict = {}
        for name in list(b1.env) + [n for n in b2.env if n not in b1.env]:  # in order: merges may make symbols
            v1, v2 = b1.env.get(name, V.MISSING), b2.env.get(name, V.MISSING)
            if v1 is V.MISSING:
                env[name] = v2
            elif v2 is V.MISSING:
                env[name] = v1
            else:
                env[name] = self.merge(c, v1, v2)
        f.locals.clear()
        f.locals.update(env)
        objs = {k: o for k, (o, _) in b1.muts.items()}
        objs.update({k: o for k, (o, _) in b2.muts.items()})
        unmerged = []  # lists of different lengths: split once every other object has its merged state
        for key, obj in objs.items():
            if key in b1.muts:
                s1 = b1.muts[key][1]
            else:
                s1 = obj.snapshot()  # b1 left it unchanged: its current (b2) state only if b2 also did not touch it
                if key in b2.trial.saved:
                    s1 = b2.trial.saved[key][1]
            s2 = obj.snapshot()
            try:
                obj.restore(self.merge_state(c, obj, s1, s2))
            except V.NotUnderstood as exc:
                unmerged.append((obj, s1, s2, b2.trial.saved.get(key, (obj, s2))[1], exc))
        for obj, s1, s2, before, exc in unmerged:
            if not self._split_list(c, obj, s1, s2, before):
                self.not_understood(exc.message, self.current_stmt)

    @staticmethod
    def _lengths_differ(v: V.Phi) -> bool:
        lens = set()
        stack: list = [v]
        while stack:
            x = stack.pop()
            if isinstance(x, V.Phi):
                stack += [x.a, x.b]
            elif isinstance(x, V.PyList) and x.tail is None:
                lens.add(len(x.items))
            elif isinstance(x, (list, tuple)):
                lens.add(len(x))
            else:
                return False
        return len(lens) > 1

    def _split_list(self, c: E.BExpr, obj: Any, s1: Any, s2: Any, before: Any) -> bool:
        """A list the two branches left with different lengths (`if c: outs.append(x)`), held only by variables
        (of any frame) and attributes of objects (`self.allocs`): those places become Phi(c, the list as the
        first branch left it, as the second did), two lists, so that `outs[3]` or `len(outs)` later depend on
        `c` as the program does.  The original object, now unreachable on this path, gets back its state from
        before the branches."""
        if not isinstance(obj, V.PyList):
            return False
        slots = self._list_slots(obj)
        if not slots:
            return False
        phi = V.Phi(c, V.PyList(self.heap, *s1), V.PyList(self.heap, *s2))
        for holder, key in slots:
            if isinstance(holder, V.Instance):
                holder.set(key, _replace_phi_leaf(holder.attrs[key], obj, phi))
            else:
                holder[key] = _replace_phi_leaf(holder[key], obj, phi)
        obj.restore(before)
        return True

    def _list_slots(self, obj: Any) -> list | None:
        """The places holding `obj` (directly or as a value of a Phi there), as (holder, key): a frame's variables
        (a dict) or an object's attributes (an Instance).  None when something else can reach it (an item of a
        list, a tuple, a closure value, a pending return value, a module's global), or when a loop the verifier
        is following could see the change: a loop of the frame whose variable it would be, or any loop for an
        attribute.  (A list the current iteration of every loop followed made, `tiles = []` in the body, no
        iteration sees from another but through a variable, whose value each loop judges as any other.)"""
        slots: dict = {}
        seen: set = set()
        fresh = all(obj.epoch >= tr.epoch for tr in self.loop_tracks)
        looping = set() if fresh else {id(tr.frame) for tr in self.loop_tracks}
        stack: list = []  # (value, holder or None, key)
        for fr in self.frames:
            writable = id(fr) not in looping
            stack.extend((v, fr.locals if writable else None, k) for k, v in fr.locals.items())
            stack.extend((v, None, None) for d in fr.closure for v in d.values())
            stack.extend((v, None, None) for _, v, _ in fr.returns)
        stack.extend((v, None, None) for m in self.modules.values() for v in m.namespace.values())
        while stack:
            v, holder, key = stack.pop()
            if v is obj or isinstance(v, V.Phi) and _phi_leaf(v, obj):
                if holder is None:
                    return None
                slots[(id(holder), key)] = (holder, key)
                if v is not obj:
                    stack.append((_replace_phi_leaf(v, obj, None), None, None))
                continue
            if isinstance(v, (int, str, float, bool, type(None), E.Expr, E.BExpr, V.TensorVal)) or id(v) in seen:
                continue
            seen.add(id(v))
            if isinstance(v, V.Instance):
                stack.extend((x, v if not looping else None, k) for k, x in v.attrs.items())
            elif isinstance(v, dict):
                stack.extend((x, None, None) for x in v.keys())
                stack.extend((x, None, None) for x in v.values())
            elif isinstance(v, (list, tuple, set, frozenset)):
                stack.extend((x, None, None) for x in v)
            elif isinstance(v, V.Mutable):
                stack.append((v.snapshot(), None, None))
            elif isinstance(v, Record):
                stack.extend((getattr(v, f), None, None) for f in v._fields)
        return list(slots.values())

    def exec_break(self, st: ast.Break) -> None:
        raise BreakSignal()

    def exec_continue(self, st: ast.Continue) -> None:
        raise ContinueSignal()

    # ------------------------------------------------------------------ loop tracking
    def track_read(self, name: str) -> None:
        for tr in self.loop_tracks:
            if tr.frame is self.frames[-1] and name in tr.assigned and name not in tr.written:
                tr.carried.add(name)

    def track_write(self, name: str) -> None:
        for tr in self.loop_tracks:
            if tr.frame is self.frames[-1]:
                tr.written.add(name)

    # ------------------------------------------------------------------ for
    def exec_for(self, st: ast.For) -> None:
        it = self.eval(st.iter)
        self.for_over(st, it)

    def for_over(self, st: ast.For, it: Any) -> None:
        if isinstance(it, V.RangeVal):
            self.for_range(st, it)
            return
        if isinstance(it, V.SymSeq):
            it = V.PyList(self.heap, [], it)
        if isinstance(it, V.PyList) and it.tail is not None:
            if it.items:
                for item in list(it.items):
                    if self._unrolled_iteration(st, item):
                        return
            seq = it.tail
            if V.guarded(seq):
                self._guarded_loop(st, seq)
                return
            # the loop runs over the position in the sequence: named for the target only when the target is that
            # position (else `for s, n in tiles` would show the position as `s = 1`)
            label = st.target if seq.elem is seq.var and not it.items else _iter_label(st.target)
            self.loop_over(st, "range", 0, seq.length, 1, lambda var: self.subst_value(seq.elem, {seq.var: var}),
                           label_from=label)
            self.exec_block(st.orelse)
            return
        if isinstance(it, V.Unknown):
            self.not_understood(f"iteration over a value that is not known ({it.reason})", st.iter)
            self.loop_over(st, "range", 0, self.fresh_int("<unknown trip count>"), 1,
                           lambda var: V.Unknown("element of an unknown sequence"), label_from=st.target)
            return
        if isinstance(it, V.Phi) and self._lengths_differ(it):
            # one of two lists of different lengths (items appended under a condition): the loop runs on each
            self.branch_on(it.cond, lambda: self.for_over(st, it.a), lambda: self.for_over(st, it.b))
            return
        items = self.iterate_known(it, st.iter)
        if len(items) > self.options.unroll_limit * 4:
            raise V.NotUnderstood(f"a loop over {len(items)} Python items (more than the unroll limit)", st.iter)
        for item in items:
            if self._unrolled_iteration(st, item):
                return
        self.exec_block(st.orelse)

    def _unrolled_iteration(self, st: ast.For, value: Any) -> bool:
        """One concrete iteration; True when the loop was left with break."""
        self.assign(st.target, value, st)
        f = self.frame
        base = len(f.pc)
        try:
            self.exec_block(st.body)
        except BreakSignal:
            return True
        except (ContinueSignal, NoFallthrough):
            pass
        finally:
            del f.pc[base:]
        return False

    def _guarded_loop(self, st: ast.For, seq: V.SymSeq) -> None:
        """`for s, n in tiles` over a list appended under a condition: over every iteration of the loop that
        built it, the body running only where that iteration appended (`for k: if cond(k): body(item(k))`), so
        that what the body carries across iterations merges like any branch."""
        guard = "\0guard"
        body = ast.If(test=ast.Name(id=guard, ctx=ast.Load()), body=st.body, orelse=[])
        ast.copy_location(body, st.body[0])
        target = ast.Tuple(elts=[st.target, ast.Name(id=guard, ctx=ast.Store())], ctx=ast.Store())
        ast.copy_location(target, st.target)
        loop = ast.For(target=target, iter=st.iter, body=[body], orelse=[], type_comment=None)
        ast.copy_location(loop, st)
        ast.fix_missing_locations(loop)
        label = _iter_label(st.target)

        def elem(var: E.Sym) -> tuple:
            g = self.subst_value(seq.elem, {seq.var: var})
            return (g.value, g.cond)

        try:
            self.loop_over(loop, "range", 0, seq.length, 1, elem, label_from=label)
        finally:
            self.frame.locals.pop(guard, None)
        self.exec_block(st.orelse)

    def for_range(self, st: ast.For, r: V.RangeVal) -> None:
        start, stop, step = r.start, r.stop, r.step
        if r.kind == "dynamic_range":
            self.dynamic_loop(st, r)
            return
        positive = self._positive_step(step, st)
        signed = not positive and V.is_int(step) and not isinstance(step, int) and self.kb is not None
        if signed:
            # a computed step the path does not show positive: Python raises for zero, counts down for a negative
            # one; the loop runs over its iteration number k (as a counting-down loop below) up to a trip count
            # for either sign
            self.assume(E.ne(E.lift(step), 0), st, "division")
            # (counting down from start to stop by step takes as many iterations as counting up from stop to start
            # by -step)
            trip = E.lower(E.ite(E.gt(step, 0), trip_count(start, stop, step, True),
                                 trip_count(stop, start, E.neg(step), True)))
        else:
            trip = trip_count(start, stop, step, positive)
        if isinstance(trip, int) and trip == 0:
            self.exec_block(st.orelse)
            return
        if isinstance(trip, int) and trip == 1:
            self._unrolled_iteration(st, start)
            self.exec_block(st.orelse)
            return
        if self.kb is None:
            self._host_range_loop(st, start, step, trip)
            return
        if signed or isinstance(step, int) and step < 0:
            # a loop that counts down (`range(n - 1, -1, -1)`): analysed over its iteration number k, from 0 up
            # to the trip count, the target being start + k*step, so that every analysis reads loops one way
            # (indices from start below stop, earlier iterations first)
            label = _iter_label(st.target) if isinstance(st.target, ast.Name) else st.target
            self.loop_over(st, r.kind, 0, trip, 1, lambda k: E.lower(E.add(start, E.mul(k, step))),
                           label_from=label, dialect=r.dialect)
        else:
            self.loop_over(st, r.kind, start, stop, step, lambda var: var, label_from=st.target,
                           dialect=r.dialect, positive=positive)
        self.exec_block(st.orelse)

    def _positive_step(self, step: Any, st: ast.AST) -> bool:
        """A symbolic range step (`range(0, n, section)` with a computed section) that is positive: Python
        raises for a zero step, so launches with one fail (an assumption, like a nonzero divisor), and a step
        the path shows non-negative is then positive.  Else its sign is not known (for_range)."""
        if V.is_int(step) and not isinstance(step, int) and self.kb is not None and \
                self._step_nonneg(E.lift(step), STEP_SIGN_DEPTH):
            self.assume(E.ne(E.lift(step), 0), st, "division")
            return True
        return False

    def _step_nonneg(self, e: E.Expr, depth: int, local: tuple = ()) -> bool:
        """`e >= 0` on this path, asked of the parts of a min, product, quotient or conditional when the whole is
        not settled: a step chosen by an `if` (`min(8, free // need) if free >= need > 0 else 1`) is non-negative
        because each branch is under its own condition, which one question about the merged value does not
        see (the quotient of two non-linear sizes defeats the solver).  `local`: the conditions of the
        conditionals taken apart so far, whose `k <= 0` parts are added to a sum (`free >= need > 0` shows
        `free >= 0` as `free + (need - free) + (1 - need) >= 1`)."""
        if self.decide(E.ge(e, 0)) is True:
            return True
        if depth <= 0:
            return False
        if isinstance(e, E.Ite):
            f = self.frame
            for cond, part in ((e.cond, e.a), (E.bnot(e.cond), e.b)):
                f.pc.append(cond)
                try:
                    if not self._step_nonneg(part, depth - 1, local + (cond,)):
                        return False
                finally:
                    f.pc.pop()
            return True
        if isinstance(e, (E.Min, E.Mul)):
            return all(self._step_nonneg(a, depth - 1, local) for a in (e.args if isinstance(e, E.Min) else e.factors))
        if isinstance(e, E.Max):
            return any(self._step_nonneg(a, depth - 1, local) for a in e.args)
        if isinstance(e, E.FloorDiv):  # a divisor of zero raises: a // b >= 0 wherever a, b >= 0
            return self._step_nonneg(e.a, depth - 1, local) and self._step_nonneg(e.b, depth - 1, local)
        if isinstance(e, E.Lin) and all(c > 0 for _, c in e.terms) and e.const >= 0 and \
                all(self._step_nonneg(a, depth - 1, local) for a, _ in e.terms):
            return True
        parts = [k for c in local for k in (c.args if isinstance(c, E.BAnd) else (c,))]
        ks = [k.e for k in parts if isinstance(k, E.Cmp) and k.op == E.LE]
        return any(self.decide(E.ge(E.add(e, k), 0)) is True for k in ks) or \
            any(self.decide(E.ge(E.add(e, k1, k2), 0)) is True for i, k1 in enumerate(ks) for k2 in ks[i + 1:])

    def _host_range_loop(self, st: ast.For, start: Any, step: Any, trip: Any) -> None:
        if isinstance(trip, int) and trip <= self.options.unroll_limit:
            for k in range(trip):
                if self._unrolled_iteration(st, E.lower(E.add(start, E.mul(k, step)))):
                    return
            return
        # host code with a symbolic trip count: one iteration with an unknown index is enough
        self._unrolled_iteration(st, self.fresh_int("<host loop index>"))

    # ------------------------------------------------------------------ the symbolic loop
    def loop_over(self, st: ast.For, kind: str, start: Any, stop: Any, step: Any, elem: Callable[[Any], Any],
                  label_from: ast.AST | None = None, dialect: str | None = None, positive: bool = False,
                  guard: ast.expr | None = None) -> None:
        """Analyse `for target in <start..stop by step>` once with a symbolic index.

        Integers the body reads before writing are probed with fresh symbols from the start; if each
        changes by a loop-invariant amount per iteration the pass is kept and the probes are replaced by
        their closed forms.  A pre-existing list that gets exactly one append per iteration becomes a
        summarised sequence.  Anything else is unrolled (known trip count) or treated as unknown.
        """
        f = self.frame
        trip = trip_count(start, stop, step, positive)
        if isinstance(trip, int) and trip <= SMALL_TRIP and kind in ("range", "static_range") and \
                _builds_lists(st.body):
            # a short Python loop building lists (strides, shapes): unrolled, the lists stay exact
            for k in range(trip):
                if self._unrolled_iteration(st, elem(E.lower(E.add(start, E.mul(k, step))))):
                    return
            return
        targets = set(_names(st.target))
        assigned = assigned_names(st.body) - targets
        env0 = dict(f.locals)
        probes: dict = {}
        for name in _read_before_write(st.body, assigned):
            v = env0.get(name, V.MISSING)
            if V.is_int(v) or isinstance(v, (bool, E.BExpr)):
                probes[("name", name)] = self._probe(name, v)
        outcome = None
        exempt: dict = {}  # (id of an object, field) -> the object: fields unknown at each iteration's start
        unrolled = isinstance(trip, int) and trip <= self.options.unroll_limit  # if not summarised
        for _attempt in range(5):
            outcome = self._summary_pass(st, kind, start, stop, step, elem, label_from, dialect, trip, assigned,
                                         targets, env0, probes, guard, frozenset(exempt))
            if outcome[0] == "retry":
                probes.update(outcome[1])
                continue
            if outcome[0] == "fail" and not outcome[1] and outcome[2] and not unrolled and \
                    all(id(o) in outcome[3] for o in outcome[2]) and len(exempt) < MAX_EXEMPT_FIELDS:
                # fields of objects the body sets to values not followed (a config's weights replaced by a view
                # of this iteration's expert): those fields, and no others, are unknown at each iteration's
                # start and after the loop; the fields the body leaves alone keep their values (a flag set
                # before the loop), and the pass is tried again.  So are fields given tiles of another shape in
                # each iteration (attention's score tile, reallocated with each tile's width): a read before the
                # iteration sets them is an operand not known
                for o in outcome[2]:
                    fields = sorted(outcome[3][id(o)])
                    self._havoc_object(o, fields)
                    exempt.update(((id(o), k), o) for k in fields)
                continue
            break
        if outcome[0] == "ok":
            for (_, k), o in sorted(exempt.items(), key=lambda kv: kv[0][1]):
                self._havoc_object(o, (k,))
            return
        carried, touched = outcome[1], outcome[2]
        if isinstance(trip, int) and trip <= self.options.unroll_limit:
            for k in range(trip):
                if self._unrolled_iteration(st, elem(E.lower(E.add(start, E.mul(k, step))))):
                    return
            return
        names = sorted(carried) + [V.describe(o) for o in touched]
        self.not_understood(
            f"this loop carries Python state from one iteration to the next ({', '.join(names) or 'objects'}) in a "
            f"way the verifier does not follow for a symbolic trip count; those values are treated as unknown", st)
        for name in sorted(carried):
            f.locals[name] = V.Unknown(f"value of {name} carried across iterations")
        for o in touched:
            self._havoc_object(o)
        var = self._loop_pass(st, kind, start, stop, step, elem, label_from, dialect, guard)
        self._finish_loop(var, start, step, trip, assigned | targets, env0)

    def _probe(self, name: str, v: Any) -> Any:
        if isinstance(v, (bool, E.BExpr)):
            return self.fresh_bool(f"<{name} at iteration start>")
        return self.fresh_int(f"<{name} at iteration start>", "probe")

    def _summary_pass(self, st: ast.For, kind: str, start: Any, stop: Any, step: Any, elem: Callable,
                      label_from: ast.AST | None, dialect: str | None, trip: Any, assigned: set,
                      targets: set, env0: dict, probes: dict, guard: ast.expr | None = None,
                      exempt: frozenset = frozenset()) -> tuple:
        f = self.frame
        mark = self.kb.mark()
        t = self.heap.begin()
        track = LoopTrack(f, assigned, mark.sizes[0], frozenset(probes.values()), t.epoch)
        base_attrs = {}
        for key, p in probes.items():
            if key[0] == "name":
                f.locals[key[1]] = p
                track.written.add(key[1])
        for key, p in probes.items():
            if key[0] == "attr":
                o = key[1]
                base_attrs[key] = o.attrs.get(key[2])
                o.set(key[2], p)
        self.loop_tracks.append(track)
        guards: list = []
        try:
            var = self._loop_pass(st, kind, start, stop, step, elem, label_from, dialect, guard, guards)
        finally:
            self.loop_tracks.pop()
            self.heap.end(t)
        # a known short trip count is unrolled rather than widened (exact values for `for d in dims: n *= d`)
        widen = not (isinstance(trip, int) and trip <= self.options.unroll_limit)
        made = {info.sym for info in self.kb.symbols[mark.sizes[0]:]}
        verdict = self._judge_pass(var, probes, track, t, env0, base_attrs, widen,
                                   (start, stop, step, trip, made, guards[0] if guards else None), exempt)
        if verdict[0] == "ok":
            verdict[1]["made"] = made
            if guards:
                verdict[1]["guard"] = (guards[0], st)
            self._commit_summary(var, start, step, trip, assigned | targets, env0, probes, base_attrs, verdict[1],
                                 mark)
            return ("ok",)
        self.kb.rollback(mark)
        self.heap.rollback(t)
        f.locals.clear()
        f.locals.update(env0)
        return verdict

    def _judge_pass(self, var: E.Sym, probes: dict, track: LoopTrack, t: V.Trial, env0: dict,
                    base_attrs: dict, widen: bool, bounds: tuple, exempt: frozenset = frozenset()) -> tuple:
        """("ok", plan) | ("retry", new probes) | ("fail", carried names, touched objects, {id of an object: the
        fields it changed in a way not followed}).  `bounds`: the loop's start, stop, step and trip count, the
        symbols the pass made, and the condition each iteration starts under (a while loop's, over the probes;
        None for a for loop).  `exempt`: (id of an object, field) already unknown at each iteration's start."""
        f = self.frame
        probe_syms = {p for p in probes.values()}
        plan: dict = {"deltas": {}, "lists": []}
        more: dict = {}
        failed_names: set = set()
        for name in sorted(track.carried):  # (a set: sorted, so that the probes' symbols come in one order)
            if ("name", name) in probes:
                continue
            v0 = env0.get(name, V.MISSING)
            if V.is_int(v0) or isinstance(v0, (bool, E.BExpr)):
                more[("name", name)] = self._probe(name, v0)
            elif v0 is not V.MISSING and f.locals.get(name, V.MISSING) is v0:
                # the value it had before the loop, the very object: on this path the body never rebinds it (a
                # bias tile allocated only when the kernel has a bias, None throughout when it has none)
                continue
            elif _same_tiles(v0, f.locals.get(name, V.MISSING)):
                # tiles rebound each iteration (acc = acc + x; a list of accumulators replaced by the tiles the
                # iteration wrote): same shapes, read as the pre-loop tiles
                continue
            else:
                failed_names.add(name)
        rules = {}
        for key, p in probes.items():
            now = f.locals.get(key[1]) if key[0] == "name" else key[1].attrs.get(key[2])
            rules[key] = (now, self._induction(now, p, probe_syms, var))
        if widen:  # (a known short trip count is unrolled: exact values, whatever the steps)
            self._steady_steps(rules, probes, env0, base_attrs, var, bounds)
        for key, (_now, rule) in rules.items():
            if rule is None or rule[0] == "widen" and not widen:
                failed_names.add(_probe_label(key))
            else:
                plan["deltas"][key] = rule
        touched_bad = []
        bad_fields: dict = {}
        unsolved = probe_syms - {probes[key] for key in plan["deltas"]}  # probes with no closed form (yet)
        for o in t.touched():
            snap = t.saved[id(o)][1]
            if isinstance(o, V.PyList):
                items0, tail0 = snap
                # a stack each iteration pushes and pops back (scopes opened and closed): the same items again
                if o.tail is tail0 and len(o.items) == len(items0) and all(a is b for a, b in zip(o.items, items0)):
                    continue
                ok = (o.tail is tail0 is None and len(o.items) == len(items0) + 1
                      and all(a is b for a, b in zip(o.items, items0)) and id(o) not in track.reads
                      and not self._mentions_syms(o.items[-1], unsolved))
                # an empty list that an inner loop (summarised) fills with the same number of values in every
                # iteration: `for m: for t: tiles.append(...)` is one sequence of trip * length values
                nested = (not ok and not items0 and tail0 is None and not o.items and o.tail is not None
                          and not (E.free_syms(E.lift(o.tail.length)) & (probe_syms | {var}))
                          and id(o) not in track.reads
                          and not self._mentions_syms(o.tail.elem, unsolved))
                # a list of a fixed length the body only assigns into (`mask[off + i] = i`), at positions a
                # summary does not follow: after the loop each item is a value not followed (a known short trip
                # count is unrolled instead: exact items)
                rewritten = (widen and o.tail is tail0 is None and len(o.items) == len(items0)
                             and id(o) not in track.reads)
                if ok:
                    plan["lists"].append((o, list(items0)))
                elif nested:
                    plan.setdefault("nested", []).append((o, o.tail))
                elif rewritten:
                    plan.setdefault("rewritten", []).append(o)
                else:
                    touched_bad.append(o)
            elif isinstance(o, V.Instance):
                fields: set = set()  # changed to values not followed (tiles of another shape among them)
                for k, v in o.attrs.items():
                    key = ("attr", o, k)
                    if key in probes or (id(o), k) in exempt:
                        continue
                    if k not in snap or snap[k] is not v and not self._same(snap[k], v):
                        if isinstance(snap.get(k), V.Unknown) and isinstance(v, V.Unknown):
                            continue  # unknown before the loop and after each iteration: unknown after it
                        if _same_tiles(snap[k], v) if k in snap and snap[k] is not None else _same_tiles(v, v):
                            # a field given new tiles in every iteration (`bufs.x = nl.ndarray(...)` in a helper
                            # the body calls): as a rebound accumulator name, read as this iteration's tiles
                            continue
                        if k in snap and (V.is_int(snap[k]) or isinstance(snap[k], (bool, E.BExpr))):
                            more[key] = self._probe(_probe_label(key), snap[k])
                        else:
                            fields.add(k)
                if fields:
                    touched_bad.append(o)
                    bad_fields[id(o)] = fields
            else:
                touched_bad.append(o)
        if failed_names or touched_bad:
            return ("fail", failed_names | set(track.carried) - {k[1] for k in probes if k[0] == "name"},
                    touched_bad, bad_fields)
        if more:
            return ("retry", more)
        if widen:  # (only for a pass whose summary is kept: a failed or retried one would prove them for nothing)
            self._widened_bounds(plan["deltas"], rules, probes, env0, base_attrs, var, bounds)
        return ("ok", plan)

    def _induction(self, now: Any, probe: Any, probes: set, var: E.Sym) -> tuple | None:
        """How a probed value evolves: ("step", d) for x + d, ("const", c) when reset to c every iteration."""
        if isinstance(probe, E.BSym):
            if isinstance(now, bool):
                return ("const", now)
            if isinstance(now, E.BExpr) and not (E.free_syms(now) & (probes | {var})):
                return ("const", now)
            if now is probe:
                return ("step", 0)
            return None
        if not V.is_int(now):
            return None
        d = E.sub(now, probe)
        fs = E.free_syms(d)
        if not (fs & probes) and var not in fs:
            return ("step", E.lower(d))
        fs_now = E.free_syms(E.lift(now))
        if not (fs_now & probes) and var not in fs_now:
            return ("const", E.lower(now))
        if isinstance(now, E.Mod):  # a counter modulo a loop-invariant count: `bank = (bank + 1) % 8`
            d = E.sub(now.a, probe)
            fs = E.free_syms(d) | E.free_syms(now.b)
            if not (fs & probes) and var not in fs:
                return ("mod", (E.lower(d), now.b))
        # any other integer (a running maximum, an address bumped by a size that varies): analysed as an arbitrary
        # integer at each iteration's start, and not known after the loop; what depends on it is undecided
        return ("widen", None)

    def _steady_steps(self, rules: dict, probes: dict, env0: dict, base_attrs: dict, var: E.Sym,
                      bounds: tuple) -> None:
        """Upgrade the probes widened by `_induction` whose step is steady (see `_steady_step`), in rounds: a value
        whose step depends on another one the loop changes (`i += min(128, remaining)`) is tried once that one's
        closed form is known."""
        start, step = bounds[0], bounds[2]
        idx = E.floordiv(E.sub(var, start), step)
        closed: dict = {}  # probe -> its value at the start of iteration idx
        # the same with each starting value a symbol of its own (see _steady_step): the induction rarely needs
        # what the start is, and with it the question is small
        generic: dict = {}
        pending = {}
        for key, (now, rule) in rules.items():
            x0 = env0.get(key[1], V.MISSING) if key[0] == "name" else base_attrs.get(key, V.MISSING)
            if rule is not None and rule[0] == "step" and V.is_int(x0):
                closed[probes[key]] = E.add(x0, E.mul(rule[1], idx))
                generic[probes[key]] = E.add(self._any_start(probes[key]), E.mul(rule[1], idx))
            elif rule is not None and rule[0] == "widen" and V.is_int(x0) and V.is_int(now):
                pending[key] = (now, x0)
        nows = {probes[key]: E.lift(now) for key, (now, _rule) in rules.items() if V.is_int(now)}
        while pending:
            progress = False
            for key in sorted(pending, key=_probe_label):
                now, x0 = pending[key]
                p = probes[key]
                c = self._steady_step(now, p, self._any_start(p), set(probes.values()), var, bounds, generic, nows,
                                      generic=True)
                if c is None:
                    c = self._steady_step(now, p, x0, set(probes.values()), var, bounds, closed, nows)
                if c is not None:
                    rules[key] = (now, ("steady", (c, now)))
                    closed[p] = E.add(x0, E.mul(c, idx))
                    generic[p] = E.add(self._any_start(p), E.mul(c, idx))
                    del pending[key]
                    progress = True
                    continue
                found = self._steady_after_first(now, p, x0, set(probes.values()), var, bounds, closed, generic)
                if found is not None:
                    c, x1, x1_any = found
                    rules[key] = (now, ("steady1", (c, x1, now)))
                    later = E.mul(c, E.sub(idx, 1))
                    closed[p] = E.ite(E.eq(idx, 0), x0, E.add(x1, later))
                    generic[p] = E.ite(E.eq(idx, 0), self._any_start(p), E.add(x1_any, later))
                    del pending[key]
                    progress = True
            if not progress and pending:
                progress = self._periodic(pending, rules, probes, var, bounds, closed)
            if not progress:
                return

    def _widened_bounds(self, deltas: dict, rules: dict, probes: dict, env0: dict, base_attrs: dict, var: E.Sym,
                        bounds: tuple) -> None:
        """For the values still not followed (`("widen", None)`) with a known start x0, the side of it they never
        leave: `x >= x0` when an iteration that starts with x >= x0 leaves it so (`k *= 2` from 1, a running
        maximum), `x <= x0` likewise, proved by induction for any values of the others the loop changes, under
        the loop's own facts (and a while loop's condition at the iteration's start).  The rule becomes
        `("widen", (at least x0, at most x0))` in the summary's `deltas`, the range of the value at every
        iteration's start and after the loop (the last iteration's); `rules` give each value's `now`."""
        start, stop, step, _trip, _made, guard = bounds
        inside = _iteration_facts(var, start, stop, step) + ([guard] if guard is not None else [])
        for key in sorted(deltas, key=_probe_label):
            now = rules[key][0]
            if deltas[key][0] != "widen" or not V.is_int(now):
                continue
            x0 = env0.get(key[1], V.MISSING) if key[0] == "name" else base_attrs.get(key, V.MISSING)
            if not isinstance(x0, int) or isinstance(x0, bool):
                continue  # (only a number: a range bound of the symbols, see _commit_summary)
            p = probes[key]
            sides = []
            for cmp in (E.ge, E.le):
                q = E.implies(E.band(*inside, cmp(p, x0)), cmp(E.lift(now), x0))
                sides.append(self.oracle.valid(q) or self.decide(q) is True)
            if any(sides):
                deltas[key] = ("widen", tuple(sides))

    def _periodic(self, pending: dict, rules: dict, probes: dict, var: E.Sym, bounds: tuple, closed: dict) -> bool:
        """Multi-buffering: a section counter that goes round (`sec += 1; if sec == n: sec = 0`) from c0 in
        [0, n), and values in step with it, `B + sec*D` at the start of each iteration but the last (a stack address
        set back to its scope's start B when the counter wraps, past the previous section's allocations otherwise).
        B is the value the wrap sets, if the loop does not change it (the start then has to be B + c0*D), else
        x0 - c0*D.  Proved together by induction, for any section r in [0, n) an iteration k <= trip - 2 starts
        in: from the values `B + r*D` (the counter r), the iteration leaves `B + (r + 1)*D` (r + 1), or `B` (0)
        when r + 1 = n; the values after the loop are the forms at k = trip when the last iteration keeps the step
        too.  The candidates for D are the first iteration's step, its wrap not taken, and that step with a min,
        max or conditional replaced.  Upgrades the rules of those it proves ("periodic") and says whether it
        did."""
        start, stop, step, trip, made, guard = bounds
        if guard is not None:
            return False
        varying = set(probes.values()) | made | {var}
        counter = None
        for key in sorted(pending, key=_probe_label):
            now, x0 = pending[key]
            p = probes[key]
            for n in _cycle_lengths(E.lift(now), p):
                if E.free_syms(n) & varying or not V.is_int(x0) \
                        or self.decide(E.band(E.ge(x0, 0), E.lt(x0, n))) is not True:
                    continue
                wrap = E.ite(E.eq(E.add(p, 1), n), 0, E.add(p, 1))
                if E.lift(now) == wrap or self.oracle.valid(
                        E.implies(E.band(E.ge(p, 0), E.lt(p, n)), E.eq(E.lift(now), wrap))):
                    counter = (key, n)
                    break
            if counter is not None:
                break
        if counter is None:
            return False
        ckey, n = counter
        pc = probes[ckey]
        members = [k for k in sorted(pending, key=_probe_label) if k != ckey]
        allowed = set(closed) | {probes[k] for k in pending}
        members = [k for k in members if not (E.free_syms(E.lift(pending[k][0])) & (set(probes.values()) - allowed))]
        if not members:
            return False
        idx = E.floordiv(E.sub(var, start), step)
        first = {q: E.substitute(v, {var: start}) for q, v in closed.items()}
        first.update({probes[k]: E.lift(pending[k][1]) for k in members})
        c0 = E.lift(pending[ckey][1])
        first[pc] = c0
        # (the counter's condition, and the truth value it has when the counter wraps)
        now_c = E.lift(pending[ckey][0])
        wraps_when = now_c.a == E.const(0)
        wrap_first = E.substitute(E.substitute(now_c.cond, first), {var: start})
        options = []
        for k in members:
            now, x0 = pending[k]
            d1 = E.settle(E.sub(E.substitute(E.substitute(E.lift(now), first), {var: start}), x0), wrap_first,
                          not wraps_when)
            cands = [d for d in dict.fromkeys([self._simpler(d1), d1]) if not (E.free_syms(d) & varying)]
            cands += [c for c in _invariant_variants(d1, varying) if c not in cands]
            if not cands:
                return False
            options.append(cands[:PERIODIC_CANDIDATES])
        r = self._any_start(pc)
        inside = _iteration_facts(var, start, stop, step) + [E.ge(r, 0), E.lt(r, n)]
        before_last = E.le(idx, E.sub(trip, 2))
        wraps = E.eq(E.add(r, 1), n)
        # where each value goes when the counter wraps (its scope's start): the base of its sections, if it does
        # not change in the loop; else the start less c0 steps
        resets = []
        for k in members:
            w = E.settle(E.lift(pending[k][0]), now_c.cond, wraps_when)
            resets.append(None if E.free_syms(w) & varying else w)
        tried = 0
        for ds in itertools.product(*options):
            tried += 1
            if tried > PERIODIC_TRIES:
                return False
            # (the counter's own step is the wrap, proved when it was chosen)
            at_k = dict(closed)
            at_k[pc] = r
            goals = []
            bases = [E.sub(pending[k][1], E.mul(c0, d)) if w is None else w
                     for k, d, w in zip(members, ds, resets)]
            if any(w is not None for w in resets):
                # (each value starts in the section the counter starts in)
                starts = E.band(*(E.eq(pending[k][1], E.add(b, E.mul(c0, d)))
                                  for k, d, b, w in zip(members, ds, bases, resets) if w is not None))
                if self.decide(starts) is not True:
                    continue
            for k, d, b in zip(members, ds, bases):
                at_k[probes[k]] = E.add(b, E.mul(r, d))
            for k, d, b in zip(members, ds, bases):
                after = E.ite(wraps, b, E.add(b, E.mul(E.add(r, 1), d)))
                goals.append(E.eq(E.substitute(E.lift(pending[k][0]), at_k), after))
            question = E.implies(E.band(*inside, before_last), E.band(*goals))
            if not (self.oracle.valid(question) or self.decide(question) is True):
                continue
            # the last iteration too (its tiles as wide as the others'): the values after the loop are the same
            # forms at k = trip; else they are the last iteration's step from its start
            everywhere = E.implies(E.band(*inside), E.band(*goals))
            exact = self.oracle.valid(everywhere) or self.decide(everywhere) is True
            phase, phase_after = E.mod(E.add(c0, idx), n), E.mod(E.add(c0, trip), n)
            for k, d, b in [(ckey, None, None)] + list(zip(members, ds, bases)):
                now, x0 = pending.pop(k)
                form = phase if d is None else E.add(b, E.mul(phase, d))
                after = phase_after if d is None else E.add(b, E.mul(phase_after, d))
                rules[k] = (now, ("periodic", (form, now, after if exact or d is None else None)))
                closed[probes[k]] = form
            return True
        return False

    def _any_start(self, probe: E.Sym) -> E.Sym:
        """A symbol for the value `probe` starts the loop with, whatever it is: not in the kernel's symbol table
        (no fact names it), the same one for the same probe."""
        return E.Sym(f"<{probe.name}: any start>", -probe.uid, "unknown")

    def _simpler(self, e: E.Expr) -> E.Expr:
        """`e` with one of its min, max or conditionals replaced by an operand, where the two are equal (the row a
        chunked loop ends at, `min(128, n - 128*(t - 1)) + 128*(t - 1)` for t = ceil(n / 128) chunks, is n)."""
        for _round in range(2):
            if E.size(e) > 2 * STEADY_STEP_SIZE:
                return e
            found = next((x for x in _one_choice_taken(e) if E.size(x) < E.size(e)
                          and self.decide(E.eq(x, e)) is True), None)
            if found is None:
                return e
            e = found
        return e

    def _steady_step(self, now: Any, probe: E.Sym, x0: Any, probes: set, var: E.Sym, bounds: tuple, closed: dict,
                     nows: dict, generic: bool = False) -> E.IntLike | None:
        """The loop-invariant c when the value grows by c in every iteration but the last (an offset bumped by a
        tile's size, the last tile partial: `off += min(128, n - off)`), so that at the start of iteration k it
        is x0 + c*k.  Proved by induction: in each iteration k <= trip - 2 that starts with it (and the other
        values the step reads) at their closed forms, the step is c; in a while loop, also under its condition
        at the start of iteration k + 1.  The candidates for c are the step with one of its min, max or
        conditionals replaced by a loop-invariant operand.  With `x0` (and the other values' starts in `closed`)
        symbols that stand for any start (`generic`), the proof holds for every start, the kernel's one included,
        and the first iteration's own step is no candidate (it would name the symbol)."""
        start, stop, step, trip, made, guard = bounds
        d = E.sub(now, probe)
        at_k = dict(closed)
        if E.free_syms(d) & (probes - set(closed) - {probe}):
            return None  # the step depends on another value the loop changes that has no closed form
        varying = probes | made | {var}
        candidates = _invariant_variants(d, varying)
        # the first iteration's own step, where it depends on the value only through roundings (an address
        # taken down and back up to a multiple of 4 by an allocation and its release): the same in every
        # iteration when the value stays in the same residue, which the induction below proves or not
        tables = _step_tables(d, varying)
        if _rounds(E.lift(now), probe, None if tables is None else varying):
            # (and, for a step small enough, the step from a start that is a multiple of everything, 0, for a start
            # that is one too)
            firsts = [] if generic else [E.substitute(d, {probe: E.lift(x0)})]
            for first in firsts + ([E.substitute(d, {probe: 0})] if tables is not None else []):
                first = E.lower(_fold_tables(first, tables or []))
                if first not in candidates and not (E.free_syms(E.lift(first)) & varying):
                    candidates.append(first)
        if not candidates:
            return None
        idx = E.floordiv(E.sub(var, start), step)
        inside = _iteration_facts(var, start, stop, step) + [E.le(idx, E.sub(trip, 2))]
        for c in candidates:
            at_k[probe] = E.add(x0, E.mul(c, idx))
            facts = list(inside)
            if guard is not None and all(q in nows for q in E.free_syms(guard) & probes):
                # the condition holds at the start of the next iteration, on the values this one leaves
                facts.append(E.substitute(guard, {q: E.substitute(nows[q], at_k) for q in E.free_syms(guard)
                                                  if q in probes}))
            d_k = E.substitute(d, at_k)
            question = E.implies(E.band(*facts), E.eq(d_k, c))
            if self._valid_by_cases(question, tables or [], generic):
                return E.lower(c)
        return None

    def _steady_after_first(self, now: Any, probe: E.Sym, x0: Any, probes: set, var: E.Sym, bounds: tuple,
                            closed: dict, generic: dict) -> tuple | None:
        """(c, x1, x1 from any start) when the value is x1 after the first iteration and grows by the
        loop-invariant c in every later one but the last: a stack address rounded up to an item size before
        each allocation (`addr = align(addr, size) + n*size`) takes its first step from wherever it starts,
        and a steady one from the rounded value on.  Proved by induction as `_steady_step` does, from any
        start first (each other value too) and then from the kernel's; the candidates for c are the second
        iteration's step from a start of 0 and the step with a min, max or conditional replaced."""
        start, stop, step, trip, made, guard = bounds
        if guard is not None:
            return None  # (a while loop: its condition would have to hold at both starts)
        d = E.sub(now, probe)
        if E.free_syms(d) & (probes - set(closed) - {probe}):
            return None
        varying = probes | made | {var}
        tables = _step_tables(d, varying)
        if tables is None:
            return None  # (a step too large to be one allocation's or one tile's: no proof comes of it)
        if not _rounds(E.lift(now), probe, varying):
            return None  # (only a rounding of the start makes the first step differ from the others)
        idx = E.floordiv(E.sub(var, start), step)
        inside = _iteration_facts(var, start, stop, step) + [E.ge(idx, 1), E.le(idx, E.sub(trip, 2))]
        anys = {self._any_start(q): 0 for q in probes}
        for forms, x_start, is_generic in ((generic, self._any_start(probe), True), (closed, x0, False)):
            x1 = self._after_first(now, probe, x_start, forms, var, start, tables)
            if E.free_syms(E.lift(x1)) & varying:
                continue
            second = E.substitute(E.substitute(E.substitute(d, {probe: E.lift(x1)}), anys),
                                  {var: E.add(start, step)})
            candidates = [E.lower(_fold_tables(second, tables))] + _invariant_variants(d, varying)
            at_k = dict(forms)
            for c in candidates:
                if E.free_syms(E.lift(c)) & (varying | set(anys)):
                    continue
                at_k[probe] = E.add(x1, E.mul(c, E.sub(idx, 1)))
                question = E.implies(E.band(*inside), E.eq(E.substitute(d, at_k), c))
                if self._valid_by_cases(question, tables, is_generic):
                    if is_generic:
                        return E.lower(c), self._after_first(now, probe, x0, closed, var, start, tables), x1
                    return E.lower(c), x1, x1
        return None

    def _after_first(self, now: Any, probe: E.Sym, x0: Any, closed: dict, var: E.Sym, start: Any,
                     tables: list) -> E.IntLike:
        """The value after the first iteration, from `x0` (the other values at their closed forms `closed`)."""
        at_0 = dict(closed)
        at_0[probe] = E.lift(x0)
        return E.lower(_fold_tables(E.substitute(E.substitute(E.lift(now), at_0), {var: start}), tables))

    def _valid_by_cases(self, question: E.BExpr, tables: list, generic: bool) -> bool:
        """`question` holds in each case of the tables' values (see `_tables`); `generic`: a question over
        symbols that stand for any value, asked of the solver alone first."""
        for case in _table_cases(tables):
            q = E.replace_nodes(question, case) if case else question
            if not (generic and self.oracle.valid(q) or self.decide(q) is True):
                return False
        return True

    def _mentions_syms(self, v: Any, syms: set) -> bool:
        return bool(syms) and self._mentions_deep(v, set(syms), 0) if not isinstance(v, (int, str, type(None))) \
            else False

    def _commit_summary(self, var: E.Sym, start: Any, step: Any, trip: Any, names: set, env0: dict, probes: dict,
                        base_attrs: dict, plan: dict, mark: Any) -> None:
        f = self.frame
        idx = E.floordiv(E.sub(var, start), step)
        probe_map: dict = {}
        finals: dict = {}
        steady: list = []
        for key, (kind, d) in plan["deltas"].items():
            x0 = env0[key[1]] if key[0] == "name" else base_attrs[key]
            p = probes[key]
            if isinstance(p, E.BSym):
                x0b = self.as_bexpr(x0)
                db = self.as_bexpr(d) if kind == "const" else x0b
                probe_map[p] = E.bor(E.band(E.eq(idx, 0), x0b), E.band(E.ne(idx, 0), db)) if kind == "const" else x0b
                finals[key] = E.bor(E.band(E.le(trip, 0), x0b), E.band(E.gt(trip, 0), db)) if kind == "const" else x0
            elif kind == "step":
                probe_map[p] = E.add(x0, E.mul(d, idx))
                finals[key] = E.lower(E.add(x0, E.mul(d, trip)))
            elif kind == "mod":
                d, m = d
                probe_map[p] = E.ite(E.eq(idx, 0), x0, E.mod(E.add(x0, E.mul(d, idx)), m))
                finals[key] = E.lower(E.ite(E.gt(trip, 0), E.mod(E.add(x0, E.mul(d, trip)), m), x0))
            elif kind == "steady":
                c, now = d
                probe_map[p] = E.add(x0, E.mul(c, idx))
                steady.append((key, now, x0))
            elif kind == "periodic":
                form, now, after = d
                probe_map[p] = form
                if after is not None:
                    finals[key] = E.lower(after)
                else:
                    steady.append((key, now, x0))
            elif kind == "steady1":
                c, x1, now = d
                probe_map[p] = E.ite(E.eq(idx, 0), x0, E.add(x1, E.mul(c, E.sub(idx, 1))))
                steady.append((key, now, x0))
            elif kind == "widen":
                what = _probe_label(key)
                # the side of its start it never leaves (see _widened_bounds), as the range of the symbols: not
                # facts, which would tie them to the rest of the kernel's questions
                at_least, at_most = d or (False, False)
                lo, hi = x0 if at_least else None, x0 if at_most else None
                later = self.fresh_int(f"<{what} at the start of an iteration: the loop changes it in a way "
                                       "not followed>", "unknown", lo, hi)
                self.kb.note_carried(var, later)
                after = self.fresh_int(f"<{what} after a loop that changes it in a way not followed>", "unknown",
                                       lo, hi)
                if V.is_int(x0):
                    # the first iteration starts with the value the loop is entered with, whatever the others do
                    # (a check that fails there fails on a real execution), and a loop that does not run leaves it
                    probe_map[p] = E.ite(E.eq(idx, 0), E.lift(x0), later)
                    finals[key] = E.lower(E.ite(E.gt(trip, 0), after, E.lift(x0)))
                else:
                    probe_map[p], finals[key] = later, after
            else:
                probe_map[p] = E.ite(E.eq(idx, 0), x0, d)
                finals[key] = E.lower(E.ite(E.gt(trip, 0), d, x0))
        last_var = E.add(start, E.mul(step, E.sub(trip, 1)))
        # (by the inputs' ranges only: the loop index's own bounds, facts by now, would say the loop ran)
        runs = E.decide(E.gt(trip, 0), self.kb.ranges) if steady else None
        for key, now, x0 in steady:
            # the last iteration's step, on the values it starts with (the other values' closed forms included)
            at_last = self._simpler(E.substitute(E.substitute(E.lift(now), probe_map), {var: last_var}))
            finals[key] = E.lower(at_last if runs else E.ite(E.gt(trip, 0), at_last, x0))
        self.kb.substitute_since(mark, probe_map)
        if "guard" in plan:
            # a while loop's last iteration started under its condition (it pins the number of iterations where
            # the values after the loop leave the condition false for several)
            g, node = plan["guard"]
            self.assume(E.implies(E.gt(trip, 0), E.substitute(E.substitute(g, probe_map), {var: last_var})), node,
                        "while loop condition")
        for o, items0 in plan["lists"]:
            value = self.subst_value(o.items[-1], probe_map)
            k = self.fresh_seq_var()
            loop_value = E.add(start, E.mul(k, step))
            seq = V.SymSeq(k, trip, self.subst_value(value, {var: loop_value}))
            if isinstance(seq.elem, V.Guarded) and not E.free_syms(seq.elem.cond) & (plan["made"] | {k, var}):
                # appended under a condition the same in every iteration (a configuration's flag): the list is
                # one of two lists, all the iterations' items or none, as after `if c: lst.append(...)`
                whole = (list(items0), V.SymSeq(k, trip, seq.elem.value))
                if self._split_list(seq.elem.cond, o, whole, (list(items0), None), (list(items0), None)):
                    continue
            o.set_items(items0, seq)
        for o, inner in plan.get("nested", ()):
            # element v of the whole sequence: iteration v // L of this loop, element v % L of the inner one
            length = E.lift(inner.length)
            k = self.fresh_seq_var()
            value = self.subst_value(inner.elem, probe_map)
            value = self.subst_value(value, {var: E.add(start, E.mul(E.floordiv(k, length), step)),
                                             inner.var: E.mod(k, length)})
            o.set_items([], V.SymSeq(k, E.lower(E.mul(trip, length)), value))
        what = "a list a loop assigns into at positions not followed"
        for o in plan.get("rewritten", ()):
            o.set_items([self.fresh_int(f"<item {j} of {what}>") if V.is_int(x) else V.Unknown(f"an item of {what}")
                         for j, x in enumerate(o.items)])
        rest = names - {key[1] for key in plan["deltas"] if key[0] == "name"}
        self._finish_loop(var, start, step, trip, rest, env0, probe_map)
        for key, v in finals.items():
            v = v.value if isinstance(v, E.BConst) else v
            if key[0] == "name":
                f.locals[key[1]] = v
            else:
                key[1].set(key[2], v)

    def _loop_pass(self, st: ast.For, kind: str, start: Any, stop: Any, step: Any, elem: Callable,
                   label_from: ast.AST | None, dialect: str | None, guard: ast.expr | None = None,
                   guards: list | None = None) -> E.Sym:
        """`guard`: a condition every iteration starts under (a while loop's), appended to `guards` as the
        pass evaluated it."""
        var, loop = self.open_loop(kind, start, stop, step, st, label_from, dialect)
        f = self.frame
        base = len(f.pc)
        try:
            self.assign(st.target, elem(var), st)
            if guard is not None:
                g = self.as_bexpr(self.truth(self.eval(guard)))
                f.pc.append(g)
                if guards is not None:
                    guards.append(g)
            try:
                self.exec_block(st.body)
            except (BreakSignal, ContinueSignal, NoFallthrough):
                pass
        finally:
            del f.pc[base:]
            self.close_loop(loop)
        return var

    def open_loop(self, kind: str, start: Any, stop: Any, step: Any, node: ast.AST, label_from: ast.AST | None,
                  dialect: str | None) -> tuple:
        kb = self.kb
        label = _label(label_from) if label_from is not None else "i"
        if kb.label_taken(label):
            label = f"{label}@{node.lineno}"
            n = 2
            while kb.label_taken(label):
                label = f"{_label(label_from)}@{node.lineno}.{n}"
                n += 1
        var = kb.new_sym(label, "loop", start if V.is_int(start) else None, stop if V.is_int(stop) else None)
        parent = kb.loop_stack[-1] if kb.loop_stack else None
        span = self.span(node)
        iter_func = body = None
        iter_text = range_text = ""
        if isinstance(node, (ast.For, ast.AsyncFor)):
            end = self.span(node.iter)
            span = ir.Span(span.file, span.line, span.col, end.end_line, end.end_col)
            range_text = self.source_segment(node.iter)
            if isinstance(node.iter, ast.Call):
                iter_func = self.span(node.iter.func)
                iter_text = self.source_segment(node.iter.func)
            if node.body:
                body = self.span(node.body[0])
        loop = kb.add_loop(var=var, start=E.lift(start), stop=E.lift(stop), step=E.lift(step), kind=kind,
                           span=span, parent=parent, dialect=dialect or kb.dialect, iter_func=iter_func,
                           iter_text=iter_text, range_text=range_text, body=body)
        kb.loop_stack.append(loop.id)
        if isinstance(node, (ast.For, ast.AsyncFor)) and not any(
                isinstance(n, (ast.Break, ast.Return, ast.Yield, ast.YieldFrom)) for st in node.body for n in walk(st)):
            self.every_iteration_loops.add(loop.id)  # (no iteration ends the loop early: see interp.assume)
        self.snapshot_contents(loop.id)
        self.loop_facts.append(E.band(*_iteration_facts(var, start, stop, step)))
        return var, loop

    def close_loop(self, loop: ir.Loop) -> None:
        self.kb.loop_stack.pop()
        self.loop_facts.pop()
        self.rebound_runtime_values(loop.id)

    def _finish_loop(self, var: E.Sym, start: Any, step: Any, trip: Any, names: set, env0: dict,
                     extra: dict | None = None) -> None:
        """After a loop analysed once: names it assigned hold their last-iteration values."""
        f = self.frame
        last = E.lower(E.add(start, E.mul(E.sub(trip, 1), step)))
        maybe_empty = not (isinstance(trip, int) or self.decide(E.gt(trip, 0)) is True)
        for name in sorted(names):
            if name not in f.locals:
                continue
            v = f.locals[name]
            if extra:
                v = self.subst_value(v, extra)
            nv = self.subst_value(v, {var: E.lift(last)})
            if maybe_empty and name in env0 and V.is_int(nv) and V.is_int(env0[name]):
                nv = self.merge(E.gt(trip, 0), nv, env0[name])
            f.locals[name] = nv

    # ------------------------------------------------------------------ helpers
    def _same(self, a: Any, b: Any) -> bool:
        try:
            return a == b if isinstance(a, (int, str, float, type(None), E.Expr)) else a is b
        except Exception:  # noqa: BLE001
            return False

    def list_append(self, lst: V.PyList, value: Any) -> None:
        lst.append(value)
        for tr in self.loop_tracks:
            tr.appended.add(id(lst))

    def note_read(self, obj: Any, last: bool = False) -> None:
        """A list read inside a loop.  `last`: `tiles[-1]` after this iteration appended to it reads the value
        the iteration itself appended (`tiles.append(t); memset(tiles[-1])`), not one carried in."""
        for tr in self.loop_tracks:
            if not (last and id(obj) in tr.appended):
                tr.reads.add(id(obj))

    def _havoc_object(self, o: Any, fields: Any = None) -> None:
        """What a loop changed in a way not followed becomes unknown: an object's `fields` (all when None), a
        list's items and length, a dict's entries."""
        if isinstance(o, V.Instance):
            for k in list(o.attrs) if fields is None else fields:
                o.set(k, V.Unknown(f"{o.cls.name}.{k} changed in a loop"))
        elif isinstance(o, V.PyList):
            o.set_items([], V.SymSeq(self.fresh_seq_var(), self.fresh_int("<length of a list built in a loop>"),
                                     V.Unknown("element of a list built in a loop")))
        elif isinstance(o, V.PyDict):
            for k in list(o.items):
                o.set(k, V.Unknown("dict entry changed in a loop"))

    # ------------------------------------------------------------------ dynamic loops (Beta 2 registers)
    def loop_bound(self, v: Any, node: ast.AST) -> E.IntLike:
        """A dynamic loop's bound: a register holds what was last moved or loaded into it (`register_alloc(4)`,
        a count clamped to [0, 4] by tensor_scalar then loaded), read when the loop starts."""
        if isinstance(v, V.Register):
            return self.runtime_value(v, self.runtime_label(v, node))
        return self.as_int(v)

    def dynamic_loop(self, st: ast.For, r: V.RangeVal) -> None:
        """The body of a dynamic loop is traced once; its index is a runtime register."""
        start, stop = self.loop_bound(r.start, st), self.loop_bound(r.stop, st)
        var, loop = self.open_loop("dynamic_range", start, stop, r.step, st, st.target, "beta2")
        f = self.frame
        base = len(f.pc)
        try:
            self.assign(st.target, V.Register(var), st)
            try:
                self.exec_block(st.body)
            except (BreakSignal, ContinueSignal, NoFallthrough):
                pass
        finally:
            del f.pc[base:]
            self.close_loop(loop)

    # ------------------------------------------------------------------ while
    def exec_while(self, st: ast.While) -> None:
        v = self.eval(st.test)
        if isinstance(v, V.Register):
            self._dynamic_while(st, v)
            return
        c = self.truth(v)
        n = 0
        while True:
            if isinstance(c, E.BExpr):
                d = self.decide(c)
                if d is None:
                    self._symbolic_while(st, c)
                    return
                c = d
            if not c:
                self.exec_block(st.orelse)
                return
            n += 1
            if n > self.options.unroll_limit * 16:
                raise V.NotUnderstood("a while loop that runs longer than the unroll limit", st)
            f = self.frame
            base = len(f.pc)
            try:
                self.exec_block(st.body)
            except BreakSignal:
                return
            except (ContinueSignal, NoFallthrough):
                pass
            finally:
                del f.pc[base:]
            c = self.truth(self.eval(st.test))

    def _dynamic_while(self, st: ast.While, reg: V.Register) -> None:
        if self.kb is None:
            return
        self.lint_while_register(st, reg)
        var, loop = self.open_register_loop("<dynamic while trip count>", st)
        f = self.frame
        base = len(f.pc)
        try:
            self.exec_block(st.body)
        except (BreakSignal, ContinueSignal, NoFallthrough):
            pass
        finally:
            del f.pc[base:]
            self.close_loop(loop)
        self.dynamic_while_done(st, reg)

    def open_register_loop(self, trips: str, node: ast.AST | None) -> tuple:
        """Open a loop on a register (`while reg:`, `nl.while_loop`), traced once.  Its trip count, labelled
        `trips`, is data read at run time, as a register's value is (an execution symbol from 0 up): a check in
        the body that fails for some input fails whenever the body runs, and some data runs it."""
        return self.open_loop("dynamic_while", 0, self.fresh_int(trips, "register", 0), 1, node, None, "beta2")

    def _symbolic_while(self, st: ast.While, c: E.BExpr) -> None:
        """A while loop on a symbolic condition: analysed once, its carried state unknown."""
        f = self.frame
        names = assigned_names(st.body)
        if self._integer_search_loop(st, names) or self._counting_while(st, names) or \
                self._summarised_while(st, names):
            return
        if self.kb is not None and names:
            self.not_understood("a while loop whose condition is symbolic: values it updates are treated as "
                                "unknown", st)
        for name in sorted(names):
            if name in f.locals:
                f.locals[name] = V.Unknown(f"value of {name} updated by a while loop")
        base = len(f.pc)
        f.pc.append(self.as_bexpr(self.eval(st.test)))
        t = self.heap.begin()
        try:
            self.exec_block(st.body)
        except (BreakSignal, ContinueSignal, NoFallthrough):
            pass
        finally:
            del f.pc[base:]
            self.heap.end(t)
        for o in t.touched():
            self._havoc_object(o)
        for name in sorted(names):
            if name in f.locals:
                f.locals[name] = V.Unknown(f"value of {name} after a while loop")

    def _counting_while(self, st: ast.While, names: set) -> bool:
        """`while c < n: ...; c += step` (the counter's only update, last; no break, continue or return; n and
        step not changed by the body): the loop `for c in range(c0, n, step)`, after which c is the first value
        past n.  Lists it builds, tiles it writes and what it carries are then followed like any range loop's."""
        f = self.frame
        test, body = st.test, st.body
        if self.kb is None or not body or not isinstance(test, ast.Compare) or len(test.ops) != 1 or \
                not isinstance(test.ops[0], (ast.Lt, ast.LtE)) or not isinstance(test.left, ast.Name):
            return False
        name = test.left.id
        last = body[-1]
        if not (isinstance(last, ast.AugAssign) and isinstance(last.op, ast.Add) and isinstance(last.target, ast.Name)
                and last.target.id == name):
            return False
        if assigned_names(body[:-1]) & {name} or any(isinstance(n, (ast.Break, ast.Continue, ast.Return))
                                                     for s in body for n in walk(s)):
            return False
        used = {n.id for e in (test.comparators[0], last.value) for n in walk(e) if isinstance(n, ast.Name)}
        if used & names:
            return False  # the bound or the step changes in the loop
        start = f.locals.get(name)
        if not V.is_int(start):
            return False
        stop, step = self.eval(test.comparators[0]), self.eval(last.value)
        if not (V.is_int(stop) and V.is_int(step)):
            return False
        if isinstance(test.ops[0], ast.LtE):
            stop = E.lower(E.add(stop, 1))
        positive = isinstance(step, int) and step > 0 or not isinstance(step, int) and \
            self.decide(E.ge(E.lift(step), 1)) is True
        if not positive:
            return False
        loop = ast.For(target=ast.Name(id=name, ctx=ast.Store()), iter=test, body=body[:-1] or [ast.Pass()],
                       orelse=[], type_comment=None)
        ast.copy_location(loop, st)
        ast.fix_missing_locations(loop)
        self.for_range(loop, V.RangeVal(start, stop, step, "range"))
        f.locals[name] = E.lower(E.add(start, E.mul(step, trip_count(start, stop, step, True))))
        self.exec_block(st.orelse)
        return True

    def _summarised_while(self, st: ast.While, names: set) -> bool:
        """`while remaining > 0: size = min(128, remaining); ...; remaining -= size; row += size` (no break,
        continue or return): the loop `for k in range(T)` over a new symbol T, the number of iterations, whose
        every iteration starts under the loop's condition, and after which the condition is false.  The values it
        carries are followed as a range loop's are (a steady step, here -128 and 128 but in the last iteration, is
        proved with the condition at the next iteration's start); a loop whose state is not followed is analysed
        once with that state unknown, as a symbolic while loop was."""
        f = self.frame
        if self.kb is None or st.orelse or not names or any(
                isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield)) for s in st.body for n in walk(s)):
            return False
        line = st.lineno
        trips = self.fresh_int(f"<iterations of the while loop at line {line}>", "config", 0)
        target = f"<while loop at line {line}>"
        loop = ast.For(target=ast.Name(id=target, ctx=ast.Store()), iter=st.test, body=st.body, orelse=[],
                       type_comment=None)
        ast.copy_location(loop, st)
        ast.fix_missing_locations(loop)
        self.loop_over(loop, "while", 0, trips, 1, lambda v: v, ast.Name(id="iteration"), guard=st.test,
                       positive=True)
        f.locals.pop(target, None)
        try:
            after = self.as_bexpr(self.truth(self.eval(st.test)))
        except V.NotUnderstood:
            return True
        self.assume(E.bnot(after), st, "while loop exit")
        return True

    def _integer_search_loop(self, st: ast.While, names: set) -> bool:
        """`while N % g or g * D > 128: g -= 1` (a search over integers, no side effects): its result is a
        new value that satisfies the exit condition, and moves only in the direction of its updates."""
        f = self.frame
        if self.kb is None or st.orelse or not names or not _pure_integer_updates(st.body, names):
            return False
        if not all(V.is_int(f.locals.get(n)) for n in names):
            return False
        line = st.lineno
        before = {n: f.locals[n] for n in sorted(names)}
        for n in sorted(names):
            f.locals[n] = self.fresh_int(f"{n} after the while loop at line {line}", "config")
        try:
            exit_cond = E.bnot(self.as_bexpr(self.truth(self.eval(st.test))))
        except V.NotUnderstood:
            for n in names:
                f.locals[n] = before[n]
            return False
        facts = [exit_cond]
        for n, direction in _update_directions(st.body).items():
            if n in names and direction < 0:
                facts.append(E.le(E.lift(f.locals[n]), E.lift(before[n])))
            elif n in names and direction > 0:
                facts.append(E.ge(E.lift(f.locals[n]), E.lift(before[n])))
        self.kb.assume(E.band(*facts), self.span(st), "while loop exit")
        return True

    # ------------------------------------------------------------------ comprehensions
    def comprehension(self, node: Any, first: Any = V.MISSING) -> Any:
        """A list, set or dict comprehension; `first`: the value of the first generator's iterable when it is
        known already."""
        gens = node.generators
        f = self.frame
        saved = {n: f.locals[n] for g in gens for n in _names(g.target) if n in f.locals}
        try:
            it = self.eval(gens[0].iter) if first is V.MISSING else first
            if isinstance(it, V.Phi) and self._lengths_differ(it):
                # over one of two lists of different lengths: a list made on each side, as `a if c else b`
                return self._on_phi(it, lambda seq: self.comprehension(node, seq))
            if len(gens) == 1 and not gens[0].ifs and not isinstance(node, ast.DictComp):
                seq = self._symbolic_iter(it)
                if seq is not None:
                    return self._symbolic_comprehension(node, gens[0], seq)
            items = self._comp_items(node, gens, 0, [], it)
        finally:
            for g in gens:
                for n in _names(g.target):
                    f.locals.pop(n, None)
            f.locals.update(saved)
        if isinstance(node, ast.DictComp):
            d = V.PyDict(self.heap)
            for k, v in items:
                key = self.hashable_key(k)
                if key is None:
                    raise V.NotUnderstood("a dict key whose value is not known", node)
                d.items[key] = v
            return d
        return V.PyList(self.heap, items)

    def _symbolic_iter(self, it: Any) -> tuple | None:
        """(start, length, step, elem(idx)) for an iterable with a symbolic length."""
        if isinstance(it, V.RangeVal):
            trip = trip_count(it.start, it.stop, it.step)
            if isinstance(trip, int):
                return None
            return (trip, lambda k: E.lower(E.add(it.start, E.mul(k, it.step))))
        if isinstance(it, V.SymSeq):
            it = V.PyList(self.heap, [], it)
        if isinstance(it, V.PyList) and it.tail is not None and not it.items:
            seq = it.tail
            if isinstance(seq.length, int) and seq.length <= MAX_SEQ_UNROLL:
                return None
            return (seq.length, lambda k: self.subst_value(seq.elem, {seq.var: k}))
        return None

    def _symbolic_comprehension(self, node: Any, gen: ast.comprehension, seq: tuple) -> Any:
        length, elem = seq
        if self.kb is None:
            k = self.fresh_seq_var()
            self.assign(gen.target, elem(k), node)
            return V.PyList(self.heap, [], V.SymSeq(k, length, self.eval(node.elt)))
        var, loop = self.open_loop("range", 0, length, 1, node, gen.target, None)
        try:
            self.assign(gen.target, elem(var), node)
            value = self.eval(node.elt)
        finally:
            self.close_loop(loop)
        k = self.fresh_seq_var()
        return V.PyList(self.heap, [], V.SymSeq(k, length, self.subst_value(value, {var: k})))

    def _comp_items(self, node: Any, gens: list, i: int, out: list, first: Any = V.MISSING) -> list:
        if i == len(gens):
            if isinstance(node, ast.DictComp):
                out.append((self.eval(node.key), self.eval(node.value)))
            else:
                out.append(self.eval(node.elt))
            return out
        g = gens[i]
        seq = first if i == 0 and first is not V.MISSING else self.eval(g.iter)
        for item in self.iterate_known(seq, g.iter):
            self.assign(g.target, item, node)
            ok = True
            for cond in g.ifs:
                t = self.truth(self.eval(cond))
                if isinstance(t, E.BExpr):
                    d = self.decide(t)
                    if d is None:
                        raise V.NotUnderstood("a comprehension filter on a symbolic condition", cond)
                    t = d
                if not t:
                    ok = False
                    break
            if ok:
                self._comp_items(node, gens, i + 1, out)
        return out

    # ------------------------------------------------------------------ iteration of known values
    def iterate_known(self, v: Any, node: ast.AST | None, expect: int | None = None) -> list:
        if isinstance(v, V.GuessedShape):
            self.rank_observed(v)
        if isinstance(v, (tuple, list)):
            return list(v)
        if isinstance(v, V.PyList):
            self.note_read(v)
            if v.tail is None:
                return list(v.items)
            if V.guarded(v):
                raise V.NotUnderstood(V.GUARDED_USE, node)
            n = v.tail.length
            if isinstance(n, int) and n <= MAX_SEQ_UNROLL:
                return list(v.items) + [self.subst_value(v.tail.elem, {v.tail.var: i}) for i in range(n)]
            if expect is not None:
                n_tail = expect - len(v.items)
                return list(v.items) + [self.subst_value(v.tail.elem, {v.tail.var: i}) for i in range(max(n_tail, 0))]
            raise V.NotUnderstood("unpacking a list whose length is symbolic", node)
        if isinstance(v, V.SymSeq):
            return self.iterate_known(V.PyList(self.heap, [], v), node, expect)
        if isinstance(v, V.PyDict):
            return list(v.items.keys())
        if isinstance(v, str):
            return list(v)
        if isinstance(v, (set, frozenset)):
            return list(v)
        if isinstance(v, V.RangeVal):
            trip = trip_count(v.start, v.stop, v.step)
            if isinstance(trip, int):
                if trip > self.options.unroll_limit * 16:
                    raise V.NotUnderstood(f"a range of {trip} items used as a Python sequence", node)
                return [E.lower(E.add(v.start, E.mul(k, v.step))) for k in range(trip)]
            raise V.NotUnderstood("a range of symbolic length used as a Python sequence", node)
        if isinstance(v, V.GridTuple):
            return list(v.grids)
        if isinstance(v, V.Phi):
            # one of two sequences (a helper returning its argument or a rebuilt list): item by item when both
            # sides have as many items, each item merged under the condition
            both = self._on_phi(v, lambda side: tuple(self.iterate_known(side, node, expect)))
            if isinstance(both, tuple):
                return list(both)
        if isinstance(v, V.Unknown) and expect is not None:
            return [V.Unknown(f"item of {v.reason}", v.span) for _ in range(expect)]
        if isinstance(v, V.Instance):
            m = v.cls.lookup("__iter__")
            if m is not V.MISSING:
                return self.iterate_known(self.call_value(m, [v], {}, node), node, expect)
        if isinstance(v, V.HostArray) and v.shape is not None and expect is not None:
            return [V.HostArray(v.shape[1:], v.dtype) for _ in range(expect)]
        raise V.NotUnderstood(f"iterating over a {V.describe(v)}", node)

    # ------------------------------------------------------------------ substitution in values
    def subst_value(self, v: Any, m: dict, depth: int = 0) -> Any:
        if not m or depth > 12:
            return v
        if isinstance(v, (E.Expr, E.BExpr)):
            r = E.substitute(v, m)
            return E.lower(r) if isinstance(r, E.Expr) else (r.value if isinstance(r, E.BConst) else r)
        if isinstance(v, tuple):
            return tuple(self.subst_value(x, m, depth + 1) for x in v)
        if isinstance(v, V.TensorVal):
            return self.subst_tensor(v, m)
        if isinstance(v, V.PyList):
            if not self._mentions_any(v, m):
                return v
            tail = v.tail
            if tail is not None:
                tail = V.SymSeq(tail.var, E.lower(E.substitute(E.lift(tail.length), m)),
                                self.subst_value(tail.elem, m, depth + 1), tail.is_tuple)
            return V.PyList(self.heap, [self.subst_value(x, m, depth + 1) for x in v.items], tail)
        if isinstance(v, V.Instance):
            if not self._mentions_any(v, m):
                return v
            return V.Instance(self.heap, v.cls, {k: self.subst_value(x, m, depth + 1) for k, x in v.attrs.items()})
        if isinstance(v, V.PyDict):
            if not self._mentions_any(v, m):
                return v
            return V.PyDict(self.heap, {k: self.subst_value(x, m, depth + 1) for k, x in v.items.items()})
        if isinstance(v, V.SymSeq):
            return V.SymSeq(v.var, E.lower(E.substitute(E.lift(v.length), m)), self.subst_value(v.elem, m, depth + 1),
                            v.is_tuple)
        if isinstance(v, V.IndexGrid):
            return V.IndexGrid(E.substitute(v.expr, m), v.shape, v.iotas)
        if isinstance(v, V.Phi):
            c = E.substitute(v.cond, m)
            return self.merge(c, self.subst_value(v.a, m, depth + 1), self.subst_value(v.b, m, depth + 1))
        if isinstance(v, V.SymFloat) and v.num is not None:
            return V.SymFloat(E.substitute(v.num, m), E.substitute(v.den, m))
        if isinstance(v, slice):
            return slice(self.subst_value(v.start, m, depth + 1), self.subst_value(v.stop, m, depth + 1),
                         self.subst_value(v.step, m, depth + 1))
        if isinstance(v, V.Register):
            return v
        if isinstance(v, V.Guarded):
            return V.Guarded(self.as_bexpr(self.subst_value(v.cond, m, depth + 1)), self.subst_value(v.value, m,
                                                                                                    depth + 1))
        return v

    def _mentions_any(self, v: Any, m: dict) -> bool:
        keys = set(m)
        return self._mentions_deep(v, keys, 0)

    def _mentions_deep(self, v: Any, keys: set, depth: int) -> bool:
        if depth > 10:
            return True
        if isinstance(v, (E.Expr, E.BExpr)):
            return bool(E.free_syms(v) & keys)
        if isinstance(v, tuple):
            return any(self._mentions_deep(x, keys, depth + 1) for x in v)
        if isinstance(v, V.PyList):
            if v.tail is not None:
                return True
            return any(self._mentions_deep(x, keys, depth + 1) for x in v.items)
        if isinstance(v, V.Instance):
            return any(self._mentions_deep(x, keys, depth + 1) for x in v.attrs.values())
        if isinstance(v, V.PyDict):
            return any(self._mentions_deep(x, keys, depth + 1) for x in v.items.values())
        if isinstance(v, V.Guarded):
            return bool(E.free_syms(v.cond) & keys) or self._mentions_deep(v.value, keys, depth + 1)
        if isinstance(v, (V.TensorVal, V.SymSeq, V.IndexGrid, V.Phi, V.SymFloat, slice)):
            return True
        return False


def _names(t: ast.AST) -> list:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _names(e)]
    if isinstance(t, ast.Starred):
        return _names(t.value)
    return []


def _iter_label(t: ast.AST) -> ast.Name:
    """The name of a loop's iteration number when the target is not that number (a count-down loop's `c`, a
    sequence's items): `c_iter`."""
    return ast.Name(id=f"{_label(t)}_iter")


def _label(t: ast.AST | None) -> str:
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, (ast.Tuple, ast.List)):
        names = [n for n in _names(t)]
        return names[0] if names else "i"
    return "i"
