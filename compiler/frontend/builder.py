"""Collects the IR of one kernel analysis.

Speculative work (a loop body analysed once to see whether it carries Python
state) is undone with `mark()` / `rollback(mark)`.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

from .. import expr as E
from .. import ir


_FIELDS: dict = {}  # dataclass type -> the names of its fields


def _subst_node(node: object, m: dict, memo: tuple | None = None) -> object:
    """`node` (an IR node, a tuple of them, an expression or a message) with the symbols of `m` replaced.
    `memo`: shared by the nodes of one rewrite, (expressions by value, as `E.substitute_all` shares them; IR
    nodes by identity, each kept alive beside its rewrite)."""
    if memo is None:
        memo = ({}, {})
    if isinstance(node, (E.Expr, E.BExpr)):
        if not (E.free_syms(node) & m.keys()):
            return node
        return E._subst(node, m, memo[0])
    if isinstance(node, str):
        if "<" in node:
            # a message that names a probe (`index <i at iteration start> of ...`) names its closed form instead
            for s, v in m.items():
                if isinstance(s, E.Sym) and s.name in node:
                    node = node.replace(s.name, E.short(v))
        return node
    if node is None or isinstance(node, (int, float, bool)):
        return node
    hit = memo[1].get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    out = node
    if isinstance(node, tuple):
        items = tuple(_subst_node(x, m, memo) for x in node)
        if any(a is not b for a, b in zip(items, node)):
            out = items
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        names = _FIELDS.get(type(node))
        if names is None:
            names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node))
        changes = {}
        for name in names:
            v = getattr(node, name)
            if name in ("sym", "var") and isinstance(v, E.Sym):
                continue  # the symbol a node declares is not rewritten
            nv = _subst_node(v, m, memo)
            if nv is not v:
                changes[name] = nv
        if changes:
            out = dataclasses.replace(node, **changes)
    memo[1][id(node)] = (node, out)
    return out


class HashedTuple:
    """A tuple whose hash is computed once (a key made of a kernel's many symbols, looked up at every branch)."""

    __slots__ = ("items", "_hash")

    def __init__(self, items: tuple) -> None:
        self.items = items
        self._hash = hash(items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashedTuple) and self._hash == other._hash and self.items == other.items


@dataclass
class Mark:
    sizes: tuple


class KernelBuilder:
    def __init__(self, name: str, path: str, dialect: str, target: str, uids: "itertools.count") -> None:
        self.name = name
        self.path = path
        self.dialect = dialect
        self.target = target
        self._uids = uids
        self.symbols: list[ir.SymInfo] = []
        self.tensors: list[ir.Tensor] = []
        self.loops: list[ir.Loop] = []
        self.subscripts: list[ir.Subscript] = []
        self.instrs: list[ir.Instr] = []
        self.checks: list[ir.Check] = []
        self.assumptions: list[ir.Assumption] = []
        self.issues: list[ir.FrontendIssue] = []
        self.ranges: dict = {}  # Sym -> Interval, for cheap reasoning
        self.loop_stack: list[int] = []  # ids of the symbolic loops being analysed
        self.grid: tuple | None = None
        self.pids: dict = {}  # axis -> Sym
        self.complete = True
        self._issue_keys: set = set()
        self._edits = 0  # changes to symbols and assumptions other than appends (for `facts_key`)
        self._kept: list = []  # per change: how many assumptions (from the first) it left as they were (see intact)
        self._intact: dict = {}  # (edits, count) -> (changes checked, whether all kept that many): see intact
        self.itemsizes: dict = {}  # unknown input dtype -> the symbol of its item size (TensorMixin.itemsize_of)
        self.dtype_sizes: dict = {}  # dtype chosen by a condition -> its item size (NkiMixin.conditional_dtype)
        self.missing_modules: set = set()  # modules the kernel calls into that no import resolved (hostlib)
        self._facts_key: tuple | None = None
        self._labels: tuple = (-1, 0, set())  # (_edits, symbols seen, their labels): see label_taken
        self._known: tuple = (-1, 0, set())  # (_edits, assumptions seen, their conjuncts): see known
        # ids of the symbols and assumptions a rollback keeps: facts about the inputs alone, true on every path,
        # made where a trial pass first needed them (an input dtype's item size, see TensorMixin.input_itemsize)
        self._lasting: set = set()

    # ------------------------------------------------------------------ speculation
    def mark(self) -> Mark:
        return Mark((len(self.symbols), len(self.tensors), len(self.loops), len(self.subscripts), len(self.instrs),
                     len(self.checks), len(self.assumptions), len(self.issues)))

    def facts_key(self) -> tuple:
        """The assumptions and the symbols with their bounds, as two hashed tuples (a key for the decisions
        taken under them), remade only when they changed."""
        version = (self._edits, len(self.symbols), len(self.assumptions))
        if self._facts_key is None or self._facts_key[0] != version:
            self._facts_key = (version, HashedTuple(tuple(self.assumptions)),
                               HashedTuple(tuple((info.sym, info.lo, info.hi) for info in self.symbols)))
        return self._facts_key[1:]

    def label_taken(self, label: str) -> bool:
        """Whether a symbol has this label (the labels are kept as the symbols grow, and made again after a
        rollback or a rewrite: a loop's label is looked for once per nested copy, `i@12.2`, `i@12.3`, ...)."""
        edits, seen, labels = self._labels
        if edits != self._edits:
            edits, seen, labels = self._edits, 0, set()
        if seen < len(self.symbols):
            labels.update(info.label for info in self.symbols[seen:])
            seen = len(self.symbols)
        self._labels = (edits, seen, labels)
        return label in labels

    @property
    def edits(self) -> int:
        """Changes to the symbols and assumptions other than appends (a rollback, a rewrite) so far."""
        return self._edits

    def known(self, cond: E.BExpr) -> bool:
        """Whether `cond` is a conjunct of an assumption made so far (a kernel_assert's condition once its raise
        has been passed), kept as the assumptions grow and made again after a rollback or a rewrite."""
        edits, seen, conj = self._known
        if edits != self._edits or seen > len(self.assumptions):
            edits, seen, conj = self._edits, 0, set()
        if seen < len(self.assumptions):
            for a in self.assumptions[seen:]:
                conj.update(a.cond.args if isinstance(a.cond, E.BAnd) else (a.cond,))
            seen = len(self.assumptions)
        self._known = (edits, seen, conj)
        return cond in conj

    def add_symbol(self, info: ir.SymInfo) -> None:
        self.symbols.append(info)

    def info_of(self, sym: E.Sym) -> ir.SymInfo | None:
        """The symbol table's entry of `sym`, None for a symbol it does not hold."""
        return next((s for s in self.symbols if s.sym == sym), None)

    def replace_symbol(self, index: int, info: ir.SymInfo) -> None:
        self.symbols[index] = info
        self._edit(0)  # (a symbol's bounds are facts too: none is taken as kept)

    def _edit(self, kept: int) -> None:
        self._edits += 1
        self._kept.append(kept)

    def intact(self, edits: int, count: int) -> bool:
        """Whether the first `count` assumptions and the symbols are as they were when `edits` changes had been
        made: every change since kept them (a rollback or a rewrite of what came after them)."""
        key = (edits, count)
        checked, ok = self._intact.get(key, (edits, True))
        if ok and checked < len(self._kept):
            ok = all(k >= count for k in self._kept[checked:])
            self._intact[key] = (len(self._kept), ok)
        return ok

    def rollback(self, m: Mark) -> None:
        s = m.sizes
        self._edit(s[6])
        lasting = self._lasting
        kept_syms = [info for info in self.symbols[s[0]:] if id(info) in lasting] if lasting else []
        kept_facts = [a for a in self.assumptions[s[6]:] if id(a) in lasting] if lasting else []
        del self.symbols[s[0]:]
        del self.tensors[s[1]:]
        del self.loops[s[2]:]
        del self.subscripts[s[3]:]
        del self.instrs[s[4]:]
        del self.checks[s[5]:]
        del self.assumptions[s[6]:]
        for issue in self.issues[s[7]:]:
            self._issue_keys.discard((issue.code, issue.span, issue.message))
        del self.issues[s[7]:]
        self.symbols.extend(kept_syms)
        self.assumptions.extend(kept_facts)

    def substitute_since(self, m: Mark, mapping: dict) -> None:
        """Rewrite the IR emitted since `m` with symbols replaced (a pass analysed with probe symbols)."""
        if not mapping:
            return
        s = m.sizes
        self._edit(s[6])
        memo: tuple = ({}, {})
        for lst, start in ((self.symbols, s[0]), (self.tensors, s[1]), (self.loops, s[2]), (self.subscripts, s[3]),
                           (self.instrs, s[4]), (self.checks, s[5]), (self.assumptions, s[6])):
            for i in range(start, len(lst)):
                lst[i] = _subst_node(lst[i], mapping, memo)

    # ------------------------------------------------------------------ symbols
    def new_sym(self, label: str, role: str, lo: E.IntLike | None = None, hi: E.IntLike | None = None,
                lasting: bool = False) -> E.Sym:
        """`lasting`: kept by a rollback (see `_lasting`)."""
        s = E.Sym(label, next(self._uids), role)
        lo_e = None if lo is None else E.lift(lo)
        hi_e = None if hi is None else E.lift(hi)
        self.symbols.append(ir.SymInfo(s, role, label, lo_e, hi_e))
        if lasting:
            self._lasting.add(id(self.symbols[-1]))
        self.ranges[s] = E.Interval(self._lo_bound(lo_e), self._hi_bound(hi_e))
        return s

    def new_bsym(self, label: str) -> E.BSym:
        return E.BSym(label, next(self._uids))

    def _lo_bound(self, lo: E.Expr | None) -> int | None:
        if lo is None:
            return None
        return E.interval(lo, self.ranges).lo

    def _hi_bound(self, hi: E.Expr | None) -> int | None:
        if hi is None:
            return None
        h = E.interval(hi, self.ranges).hi
        return None if h is None else h - 1

    def refine(self, cond: E.BExpr) -> None:
        """Tighten symbol intervals with simple facts (x <= c, x == c, x >= c)."""
        E.refine_ranges(self.ranges, cond)

    # ------------------------------------------------------------------ IR
    def add_tensor(self, **kw) -> ir.Tensor:
        t = ir.Tensor(id=len(self.tensors), **kw)
        self.tensors.append(t)
        return t

    def replace_tensor(self, t: ir.Tensor) -> None:
        self.tensors[t.id] = t

    def add_loop(self, **kw) -> ir.Loop:
        lp = ir.Loop(id=len(self.loops), **kw)
        self.loops.append(lp)
        return lp

    def note_carried(self, var: E.Sym, sym: E.Sym) -> None:
        """`sym` stands for a value the loop over `var` changes in a way not followed (see ir.Loop.carried)."""
        for i, lp in enumerate(self.loops):
            if lp.var == var:
                self.loops[i] = dataclasses.replace(lp, carried=lp.carried + (sym,))
                self._edit(len(self.assumptions))
                return

    def add_subscript(self, **kw) -> ir.Subscript:
        s = ir.Subscript(id=len(self.subscripts), **kw)
        self.subscripts.append(s)
        return s

    def add_instr(self, **kw) -> ir.Instr:
        i = ir.Instr(id=len(self.instrs), **kw)
        self.instrs.append(i)
        return i

    def add_check(self, check: ir.Check) -> None:
        self.checks.append(check)

    def assume(self, cond: E.BExpr, span: ir.Span | None, origin: str, lasting: bool = False) -> None:
        """`lasting`: kept by a rollback (see `_lasting`)."""
        if cond == E.TRUE:
            return
        self.assumptions.append(ir.Assumption(cond, span, origin))
        if lasting:
            self._lasting.add(id(self.assumptions[-1]))
        self.refine(cond)

    def issue(self, code: str, message: str, span: ir.Span, severity: str | None = None, fixes: tuple = ()) -> None:
        key = (code, span, message)
        if key in self._issue_keys:
            return
        self._issue_keys.add(key)
        self.issues.append(ir.FrontendIssue(code, message, span, self.name, severity, fixes=fixes))
        if code == "NKI902":
            self.complete = False

    target_origin = "default"

    def build(self, span: ir.Span, context: str, params: tuple, given: tuple = (), given_why: tuple = (),
              placeholders: tuple = (), chosen: tuple = (), inout: tuple = (), guessed: tuple = ()) -> ir.Kernel:
        return ir.Kernel(
            name=self.name, path=self.path, span=span, dialect=self.dialect, context=context, params=params,
            symbols=tuple(self.symbols), loops=tuple(self.loops), tensors=tuple(self.tensors),
            subscripts=tuple(self.subscripts), instrs=tuple(self.instrs), checks=tuple(self.checks),
            assumptions=tuple(self.assumptions), grid=self.grid, target=self.target, complete=self.complete,
            target_origin=self.target_origin, given=given, given_why=given_why, placeholders=placeholders,
            chosen=chosen, inout=inout, guessed=guessed, missing=tuple(sorted(self.missing_modules)),
            dtype_sizes=tuple(self.dtype_sizes.items()),
            runtime_reads=tuple((sym, loops, source, index)
                                for sym, source, loops, _label, index in getattr(self, "dyn_uses", ())),
        )
