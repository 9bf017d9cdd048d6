"""The abstract interpreter: Python AST in, kernel IR out.  It never executes the code.

Known values are computed exactly; unknown input shapes are symbols; `if` on a
symbolic condition explores both branches and merges them; loops are analysed
once with a symbolic index unless Python state forces a bounded unrolling.
A construct without a handler raises `NotUnderstood`, which becomes an NKI902
diagnostic at its span (in kernel code) and leaves the assigned names unknown.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import os
from typing import Any, Callable

from .. import expr as E
from .. import ir
from . import values as V
from .builder import KernelBuilder
from .builtins import BUILTINS, BuiltinsMixin
from .calls import CallsMixin
from .contents import ContentsMixin
from .lints import LintMixin
from .control import ControlMixin, NoFallthrough, ReturnSignal, binding_lines, walk_scope
from .hostlib import HostMixin
from .modules import ModuleIndex, ParsedModule
from .nki_api import NkiMixin
from .ops import OpsMixin
from .tensors import TensorMixin

EXEC_ROLES = frozenset({"loop", "pid", "iota", "register", "seq"})
STEP_BUDGET = 150_000
PATH_MEMO_SIZE = 4096  # path conditions kept by Interpreter.path_cond


class BudgetExceeded(Exception):
    pass


_NO_VALUE = object()  # no operand short-circuited a boolean operator


def _conjuncts(b: E.BExpr) -> set:
    out: set = set()
    stack = [b]
    while stack:
        x = stack.pop()
        if isinstance(x, E.BAnd):
            stack.extend(x.args)
        else:
            out.add(x)
    return out


class PathList(list):
    """A frame's path conditions, each with the part of it that is a branch taken (`held`): an assertion of the
    kernel (`assert`, an assertion helper) holds there, and a branch that raised was not taken, wherever a later
    point was reached without aborting, so they are TRUE in `held`.  A write's path seen from a later read (was
    this element written in an earlier iteration?) needs only its branches: the assertions on the way to it
    held, the read being reached.  (`held` is weaker than the path and equivalent to it once that is known.)"""

    __slots__ = ("held",)

    def __init__(self) -> None:
        super().__init__()
        self.held: list = []

    def append(self, cond: E.BExpr) -> None:
        self.add(cond, cond)

    def add(self, cond: E.BExpr, held: E.BExpr) -> None:
        super().append(cond)
        self.held.append(held)

    def pop(self, i: int = -1) -> E.BExpr:  # type: ignore[override]
        self.held.pop(i)
        return super().pop(i)

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        del self.held[key]


class Frame:
    __slots__ = ("func", "module", "locals", "closure", "pc", "returns", "globals_decl", "nonlocal_decl", "name",
                 "owner", "kind", "call_site", "caller_stmt", "loop_base", "none_origin")

    def __init__(self, func: V.FunctionVal | None, module: V.ModuleVal, closure: tuple = (), name: str = "") -> None:
        self.func = func
        self.module = module
        self.locals: dict = {}
        self.closure = closure  # enclosing frames' locals, innermost first
        self.pc = PathList()  # path conditions since this frame started
        self.returns: list = []  # (condition, value, the condition's branches: PathList)
        self.globals_decl: set = set()
        self.nonlocal_decl: set = set()
        self.name = name
        self.owner = None  # the class a method was defined in (for super())
        self.kind = "function"  # function | module | class
        self.call_site: ir.Span | None = None  # where the caller called this function
        self.caller_stmt: ast.stmt | None = None  # the caller's statement making the call
        self.loop_base = 0  # how many symbolic loops were open when this function was called
        # local name -> the optional kernel input left at None whose None it holds (see Calls.none_origin)
        self.none_origin: dict = {}

    @staticmethod
    def of_module(module: V.ModuleVal, namespace: dict | None = None) -> "Frame":
        """A frame running code at the top level of `module` (its own namespace, or `namespace`)."""
        frame = Frame(None, module, (), "")
        frame.kind = "module"
        frame.locals = module.namespace if namespace is None else namespace
        return frame


class Options:
    """What the front end needs to know (a subset of the verifier's options)."""

    def __init__(self, target: str = "trn2", shapes: dict | None = None, kernels: list | None = None,
                 unroll_limit: int = 256, nki_version: str | None = None, target_explicit: bool = False,
                 search_path: tuple = ()) -> None:
        self.target = target
        self.target_explicit = target_explicit
        self.grids: dict = {}
        self.shapes = shapes or {}  # kernel -> param -> (dims, dtype)
        self.kernels = kernels  # restrict to these names
        self.unroll_limit = unroll_limit
        self.nki_version = nki_version
        self.search_path = tuple(search_path)  # more import roots (see ModuleIndex)


class Interpreter(OpsMixin, BuiltinsMixin, CallsMixin, ControlMixin, NkiMixin, TensorMixin, HostMixin,
                  ContentsMixin, LintMixin):
    def __init__(self, index: ModuleIndex, options: Options, oracle: Any, uids: itertools.count | None = None) -> None:
        self.index = index
        self.options = options
        self.oracle = oracle
        self.uids = uids or itertools.count(1)
        self.heap = V.Heap()
        self.frames: list[Frame] = []
        self._path_memo: dict = {}  # path conditions -> their conjunction (_conjunction)
        self.kb: KernelBuilder | None = None
        self.modules: dict[str, V.ModuleVal] = {}
        self.parsed: dict[str, ParsedModule] = {}  # by module path
        self.loop_tracks: list = []
        self.loop_facts: list = []  # per symbolic loop: BExpr facts about its index
        self.every_iteration_loops: set = set()  # ids of loops no iteration of which ends the loop early
        self.asserted: set = set()  # conditions the kernel asserts (on its path), as opposed to branch conditions
        # paths that ended in a way no assumption excludes (an abort not recorded, a return, break or continue out
        # of a branch): a branch with none has a fall-through condition the facts imply (see narrow_implied)
        self.unrecorded_aborts = 0
        self.jumps = 0
        # condition -> {(the path before it, the builder state)} where the facts were found to imply it
        self._implied: dict = {}
        self.steps = 0
        self.launches: list = []  # (KernelVal, args, kwargs, grid, span)
        self.host_issues: list = []
        self._lines: dict = {}
        self._segment_lines: dict = {}
        self.current_stmt: ast.AST | None = None
        self._invoked: set = set()  # host functions already run (launch discovery)
        self._host_rank_hints: dict = {}
        # Beta-1 index variables placed on one axis of a grid (`nl.arange(P)[:, None]`: axis 0 of 2): the axis,
        # by which a mask's own `nl.arange` is the access's index on that axis (see unify_mask_iotas)
        self._iota_axis: dict = {}
        self._host_exact_ranks: set = set()  # host parameters whose rank the host code states exactly
        self._guessed_host_arrays: set = set()  # host arrays whose rank is only a guess (see host_shape)
        self._unread_host_arrays: set = set()  # launched arrays whose shape no host code read: a guessed rank
        self._rank_overrides: dict = {}  # param -> rank learnt from a RankRetry
        self._rank_at_least: set = set()  # params of those whose rank is only known from below
        self._guessed_ranks: dict = {}  # tensor id -> param whose rank was guessed
        self._tile_from_guess: dict = {}  # tile id -> (param, guessed rank, view rank) (see _assign_rank_hint)
        self._derived_from_guess: dict = {}  # result id -> (param, guessed rank) of a result made from such tiles
        self._dtype_eqs: dict = {}  # (input dtype not known, dtype) -> the predicate of their equality
        self._rank_confirmed: set = set()  # params whose guessed rank a use agreed with
        self._rank_observed: dict = {}  # params whose guessed shape's length was taken -> that rank, latest last
        self._rank_tests: dict = {}  # params whose guessed rank a branch tests -> the ranks its code dispatches on
        self._rank_tested_as: dict = {}  # those params -> the rank the run analysed
        self._split_rank_tests: dict = {}  # the same, of params split by rank, over the runs of the split
        self._rank_test_sites: dict = {}  # (function node, compared expression) -> the constants it is compared with
        self._no_soft: set = set()  # params whose soft rank hint a use contradicted
        self._soft_ranks: set = set()  # params whose rank in this run comes from a soft hint only
        self._forced_ranks: dict = {}  # param -> rank every run starts from (FrontendResult.at_ranks)
        self._exact_params: set = set()
        self._stated_params: set = set()  # params whose rank the kernel states (not learnt from a retry)
        self._no_retry = False
        self._value_params: dict = {}
        self._none_defaults: set = set()  # kernel inputs left at their default None in this run
        self._given: set = set()  # optional inputs analysed as given (GivenRetry)
        self._none_derefs: set = set()  # optional inputs left at None that some path dereferences
        self._deref_spans: dict = {}  # where (see entry.run_with_retries)
        # optional inputs left at None tested against None last before a path failed, in order
        self._none_tests: dict = {}
        # optional inputs left at None that some path tests against None (`if bias is not None:`): the paths where
        # it is given are analysed in another run (see entry._run_given)
        self._none_tested: set = set()
        # id(instance) -> (instance, {attribute: optional kernel input whose None it holds}) (see none_origin)
        self._attr_none_origin: dict = {}
        self._last_none_test: str | None = None
        self._last_abort: ir.Span | None = None  # where the latest path failed (an assert or raise)
        self._phi_splits = 0  # calls being followed once per side of a structurally merged argument

    # ------------------------------------------------------------------ locations
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def module_of_frame(self) -> V.ModuleVal:
        return self.frame.module

    def span(self, node: ast.AST | None, module: V.ModuleVal | None = None) -> ir.Span:
        mod = module or (self.frame.module if self.frames else None)
        path = mod.path if mod else "<unknown>"
        if node is None or not hasattr(node, "lineno"):
            node = self.current_stmt
        if node is None or not hasattr(node, "lineno"):
            return ir.Span(path, 1, 1, 1, 1)
        line, end_line = node.lineno, getattr(node, "end_lineno", None) or node.lineno
        col = self._char_col(path, line, node.col_offset)
        end_col_b = getattr(node, "end_col_offset", None)
        end_col = self._char_col(path, end_line, end_col_b) if end_col_b is not None else col + 1
        via = tuple(f.call_site for f in self.frames if f.call_site is not None) if module is None else ()
        return ir.Span(path, line, col + 1, end_line, end_col + 1, via)

    def source_segment(self, node: ast.AST) -> str:
        pm = self.parsed.get(self.frame.module.path) if self.frames else None
        if pm is None:
            return ""
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        col, end_col = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if None in (start, end, col, end_col):
            return ""
        lines = self._segment_lines.get(pm.path)
        if lines is None:  # ast.get_source_segment re-splits the whole file on every call
            lines = ast._splitlines_no_ff(pm.source)  # type: ignore[attr-defined]
            self._segment_lines[pm.path] = lines
        if not 0 < start <= end <= len(lines):
            return ""
        first, last = lines[start - 1].encode(), lines[end - 1].encode()
        if start == end:
            return first[col:end_col].decode(errors="replace")
        return "".join([first[col:].decode(errors="replace"), *lines[start:end - 1],
                        last[:end_col].decode(errors="replace")])

    def _char_col(self, path: str, line: int, byte_col: int) -> int:
        lines = self._lines.get(path)
        if lines is None:
            pm = self.parsed.get(path)
            lines = pm.source.splitlines() if pm else []
            self._lines[path] = lines
        if 0 < line <= len(lines):
            text = lines[line - 1]
            if text.isascii():
                return byte_col
            return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))
        return byte_col

    # ------------------------------------------------------------------ symbols
    def ranges(self) -> dict:
        return self.kb.ranges if self.kb is not None else {}

    def fresh_int(self, label: str, role: str = "unknown", lo: Any = None, hi: Any = None) -> E.Sym:
        if self.kb is not None:
            return self.kb.new_sym(label, role, lo, hi)
        return E.Sym(label, next(self.uids), role)

    def fresh_bool(self, label: str) -> E.BSym:
        return E.BSym(label, next(self.uids))

    def fresh_seq_var(self) -> E.Sym:
        return self.fresh_int("k", "seq", 0)

    def is_exec_sym(self, s: Any) -> bool:
        return getattr(s, "kind", None) in EXEC_ROLES

    # ------------------------------------------------------------------ path conditions
    def path_cond(self) -> E.BExpr:
        return self._conjunction(self._path_parts())

    def _path_parts(self) -> tuple:
        """The path's conditions, the outermost frame's first."""
        return tuple(c for f in self.frames for c in f.pc)

    def _conjunction(self, parts: tuple) -> E.BExpr:
        """The conjunction of path conditions (`path_cond`, `held_path`)."""
        if not parts:
            return E.TRUE
        # asked again and again under one path (every decision and check of a loop body): the conjunction of
        # the same conditions is built once (a tuple key: equal conditions are usually the same objects)
        memo = self._path_memo
        got = memo.get(parts)
        if got is None:
            if len(memo) > PATH_MEMO_SIZE:
                memo.clear()
            # the path one condition longer than a path already built (the next branch): that conjunction and
            # the new condition (band places it by bisection; the same result as building it whole)
            shorter = memo.get(parts[:-1])
            got = memo[parts] = E.band(shorter, parts[-1]) if shorter is not None else E.band(*parts)
        return got

    def narrow(self, v: Any) -> Any:
        """The alternative of a merged value (`x = n + 1 if c else None`) the current path has chosen (under
        `if x is not None:` it is the integer), when the path states the merge condition or its negation."""
        known = None
        while isinstance(v, V.Phi):
            if known is None:
                known = _conjuncts(self.path_cond())
            if v.cond in known:
                v = v.a
            elif E.bnot(v.cond) in known:
                v = v.b
            else:
                break
        return v

    def held_path(self) -> E.BExpr | None:
        """The path's branches alone (`PathList`), or None when that is the whole path."""
        if all(h is c for f in self.frames for h, c in zip(f.pc.held, f.pc)):
            return None
        return self._conjunction(tuple(h for f in self.frames for h in f.pc.held))

    def ctx(self) -> ir.Ctx:
        kb = self.kb
        path = self.path_cond()
        held = self.held_path()
        return ir.Ctx(tuple(kb.loop_stack) if kb else (), path, None if held == path else held)

    def decide(self, cond: E.BExpr) -> bool | None:
        """Settle a condition under the current path, when cheaply possible."""
        if isinstance(cond, E.BConst):
            return cond.value
        if self.kb is None:
            return None
        path = self.path_cond()
        known = _conjuncts(path)
        if cond in known or (isinstance(cond, E.BAnd) and all(a in known for a in cond.args)):
            return True  # the path already says so (no arithmetic needed, however non-linear)
        if E.bnot(cond) in known:
            return False
        # (the same path and loop facts for every decision of a loop body: their conjunction, whose canonical
        # order sorts every conjunct, is built once)
        key = (path, tuple(self.loop_facts))
        facts = self._path_memo.get(key)
        if facts is None:
            if len(self._path_memo) > PATH_MEMO_SIZE:
                self._path_memo.clear()
            facts = self._path_memo[key] = E.band(path, *self.loop_facts)
        ranges = dict(self.kb.ranges)
        E.refine_ranges(ranges, facts)
        return self.oracle.decide(cond, facts, self.kb, ranges)

    def assume(self, cond: E.BExpr, node: ast.AST | None, origin: str = "assert") -> None:
        """The kernel states `cond` here: a global assumption when it concerns inputs only."""
        if self.kb is None or cond == E.TRUE:
            return
        path = self.fact_path()
        # (a path or condition over loop indices or program ids is not a global assumption: said before the
        # implication is built, which negates the whole path, a tenth of the front end's time on MoE kernels)
        if any(self.is_exec_sym(s) for s in E.free_syms(path)):
            return
        execs = [s for s in E.free_syms(cond) if self.is_exec_sym(s)]
        if not execs:
            self.kb.assume(E.implies(path, cond), self.span(node), origin)
            return
        # over the indices of enclosing loops with a few constant iterations (`for seg in range(3)`, each
        # segment allocating its own tile count): every launch that reaches the loop runs each iteration, so the
        # condition holds at each of their values (an allocation's `(D - 2*K) // 128 >= 1` at seg == 2)
        values = self._constant_loop_values(execs)
        if values is None:
            return
        for combo in itertools.product(*values.values()):
            c = E.substitute(cond, {x: E.const(v) for x, v in zip(values, combo)})
            if not any(self.is_exec_sym(s) for s in E.free_syms(c)):
                self.kb.assume(E.implies(path, c), self.span(node), origin)

    def _constant_loop_values(self, syms: list) -> dict | None:
        """{index: its values} when each of `syms` is the index of an enclosing loop with constant bounds, a few
        iterations in all (at most 16 combinations) and no `break` or `return` in its body, else None."""
        active = {self.kb.loops[i].var: self.kb.loops[i] for i in self.kb.loop_stack if i in self.every_iteration_loops}
        out: dict = {}
        count = 1
        for x in sorted(syms, key=lambda x: x.key):
            lp = active.get(x)
            if lp is None or not all(isinstance(b, E.Const) for b in (lp.start, lp.stop, lp.step)) or \
                    lp.step.value <= 0:
                return None
            vals = range(lp.start.value, lp.stop.value, lp.step.value)
            count *= len(vals)
            if not vals or count > 16:
                return None
            out[x] = vals
        return out

    def fact_path(self) -> E.BExpr:
        """The path condition less the conditions already assumed: past `kernel_assert(k == n)` the path holds
        `k == n` (the branch that raises was left), and a fact stated under it (a divisor's `d != 0`, the next
        assert) is implied by the path's other conditions alone, so it is said without it: `d != 0`, not
        `k != n or d != 0`, a bound the interval reasoning reads."""
        parts = self._path_parts()
        if not parts:
            return E.TRUE
        return self._conjunction(tuple(c for i, c in enumerate(parts) if not self.kb.known(c)
                                       and not self._is_implied(c, parts, i)))

    def _is_implied(self, c: E.BExpr, parts: tuple, i: int) -> bool:
        """Whether `narrow_implied` found `c`, the i-th condition of the path `parts`, implied there, under
        assumptions the kernel still holds."""
        return any(st[0] == id(self.kb) and len(before) == i and before == parts[:i] and self.kb.intact(st[1], st[2])
                   for before, st in self._implied.get(c, ()))

    def _builder_state(self) -> tuple:
        """The kernel builder, its count of rewrites and of assumptions: an implication found under its
        assumptions holds as long as they are kept (a rollback to before the assumption it rests on drops it; one
        of a loop pass after it does not)."""
        return id(self.kb), self.kb.edits, len(self.kb.assumptions)

    def exits(self) -> tuple:
        """The count of the paths ended so far that no assumption excludes (see narrow_implied)."""
        return self.unrecorded_aborts, self.jumps

    def narrow_implied(self, since: tuple, cond: E.BExpr, held: E.BExpr, aborts_only: bool = False) -> None:
        """Add `cond`, the condition of falling through a branch (or a call), to the path: when every path of
        it that did not fall through raised with an assumption recorded (none returned, broke out, or aborted
        unrecorded since `since`, the `exits()` before it), the facts imply `cond` under the path before it, and
        fact_path leaves it out of what is assumed later (`k % 2 == 0` past `if k % 2: raise`, however the
        branches that raised were nested).  `aborts_only`: returns do not count (a call's exits)."""
        now = self.exits()
        if self.kb is not None and (now[0] == since[0] and (aborts_only or now[1] == since[1])):
            parts = self._path_parts()
            self._implied.setdefault(cond, set()).add((parts, self._builder_state()))
        self.frame.pc.add(cond, held)

    def abort_path(self, node: ast.AST | None, origin: str = "raise") -> None:
        """This path raises: inputs reaching it are not admissible."""
        if self._last_none_test is not None:
            self._none_tests.setdefault(self._last_none_test)
        self._last_abort = self.span(node) if node is not None else None
        if self.kb is not None:
            path = self.path_cond()
            if path == E.TRUE:
                pass  # the kernel always fails here; nothing admissible reaches later code
            elif not any(self.is_exec_sym(s) for s in E.free_syms(path)):
                rest = self.fact_path()  # (see fact_path: the earlier asserts' conditions are facts already)
                self.kb.assume(E.bnot(rest if rest != E.TRUE else path), self.span(node), origin)
                raise V.PathAbort(recorded=True)
        raise V.PathAbort()

    def make_check(self, code: str, cond: E.BExpr, message: str, node: ast.AST | None) -> ir.Check:
        return ir.Check(code, cond, message, self.span(node), self.ctx())

    # ------------------------------------------------------------------ diagnostics
    def not_understood(self, message: str, node: ast.AST | None) -> None:
        if self.kb is not None:
            self.kb.issue("NKI902", message, self.span(node))

    # ------------------------------------------------------------------ names
    def load_name(self, name: str, node: ast.AST | None = None) -> Any:
        f = self.frame
        if name in f.locals:
            self.track_read(name)
            v = f.locals[name]
            return self.narrow(v) if isinstance(v, V.Phi) else v
        if name in f.globals_decl:
            return self._global(name, f, node)
        for env in f.closure:
            if name in env:
                return env[name]
        return self._global(name, f, node)

    def _global(self, name: str, f: Frame, node: ast.AST | None) -> Any:
        if f.func is not None and name not in f.globals_decl and name in local_names(f.func.node):
            self._unbound_local(name, f, node)
        ns = f.module.namespace
        if name in ns:
            return ns[name]
        if name in BUILTINS:
            return BUILTINS[name]
        if self.kb is not None and self.kb.dialect == ir.B2 and name in ir.TRACER_BUFFERS:
            # names the Beta-2 tracer provides to kernel code (`sbuf.view(dtype=..., shape=...)`, used without an
            # import by kernels written against it)
            return V.BufferVal(ir.TRACER_BUFFERS[name])
        if self.kb is not None and _undefined_in_file(name, self.parsed.get(f.module.path)):
            self.trace_error("NKI608", f"name {name!r} is not defined: nothing in {os.path.basename(f.module.path)} "
                                       f"binds it and it is not a builtin, so tracing raises NameError here", node,
                             "undefined")
        raise V.NotUnderstood(f"name {name!r} is not defined (or comes from a construct that was not understood)",
                              node)

    def _path_beyond_assumptions(self) -> set:
        """The conditions of the current path besides what the kernel asserts of its inputs: empty when every
        launch gets here."""
        if self.kb is None:
            return set()
        return _conjuncts(self.path_cond()) - _conjuncts(E.band(*(a.cond for a in self.kb.assumptions)))

    def _unbound_local(self, name: str, f: Frame, node: ast.AST | None) -> None:
        """`name` is assigned somewhere in the function, so Python makes it local to it, and no path the
        analysis followed to here assigned it (a branch on a symbolic value assigns for both sides; a
        statement not understood assigns unknowns): tracing raises UnboundLocalError here (NKI607)."""
        where = sorted(local_names(f.func.node)[name])
        self.trace_error("NKI607", f"{name!r} is assigned in {f.func.name}() (line{'s' if len(where) > 1 else ''} "
                                   f"{', '.join(map(str, where[:3]))}) but not on this path: tracing raises "
                                   f"UnboundLocalError here", node, "unbound")

    def type_error(self, message: str, node: ast.AST | None) -> None:
        """Tracing raises TypeError here (NKI609).  Outside a kernel, the construct is not understood."""
        if self.kb is None:
            raise V.NotUnderstood(message, node)
        self.trace_error("NKI609", message, node, "type-error")

    def trace_error(self, code: str, message: str, node: ast.AST | None, origin: str, end_path: bool = True) -> None:
        """Python raises here while tracing (NKI607-NKI609): an error when every launch gets here, else a
        warning; the path ends (unless `end_path` is False: the caller goes on past the construct)."""
        self.lint(code, message, node, severity="warning" if self._path_beyond_assumptions() else None)
        if end_path:
            self.abort_path(node, origin)

    def store_name(self, name: str, value: Any) -> None:
        f = self.frame
        if name in f.globals_decl:
            f.module.namespace[name] = value
            return
        if name in f.nonlocal_decl:
            for env in f.closure:
                if name in env:
                    env[name] = value
                    return
        f.locals[name] = value
        self.track_write(name)

    # ------------------------------------------------------------------ expressions
    def eval(self, node: ast.AST) -> Any:
        h = _EXPR.get(type(node))
        if h is None:
            raise V.NotUnderstood(f"expression {type(node).__name__}", node)
        return h(self, node)

    def _constant(self, node: ast.Constant) -> Any:
        return node.value

    def _name(self, node: ast.Name) -> Any:
        return self.load_name(node.id, node)

    def _attribute(self, node: ast.Attribute) -> Any:
        return self.get_attr(self.eval(node.value), node.attr, node)

    def _subscript(self, node: ast.Subscript) -> Any:
        obj = self.eval(node.value)
        key = self.eval_index(node.slice)
        return self.get_item(obj, key, node)

    def eval_index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Tuple):
            return tuple(self.eval_index(e) for e in node.elts)
        if isinstance(node, ast.Slice):
            lo = self.eval(node.lower) if node.lower is not None else None
            hi = self.eval(node.upper) if node.upper is not None else None
            st = self.eval(node.step) if node.step is not None else None
            return slice(lo, hi, st)
        return self.eval(node)

    def _slice(self, node: ast.Slice) -> Any:
        return self.eval_index(node)

    def _binop(self, node: ast.BinOp) -> Any:
        return self.binop(type(node.op), self.eval(node.left), self.eval(node.right), node)

    def _unaryop(self, node: ast.UnaryOp) -> Any:
        return self.unop(type(node.op), self.eval(node.operand), node)

    def _boolop(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        results = []
        for sub in node.values:
            v = self.eval(sub)
            t = self.truth(v)
            if isinstance(t, bool):
                if is_and and not t:
                    return self._fold_boolop(is_and, results, v)
                if not is_and and t:
                    return self._fold_boolop(is_and, results, v)
                results.append((True, v, t))
                continue
            results.append((False, v, t))
        return self._fold_boolop(is_and, results, _NO_VALUE)

    def _fold_boolop(self, is_and: bool, results: list, last: Any) -> Any:
        """Combine `a and b and ...` where some operands are symbolic (`last`: the operand that decided the
        result by short-circuiting, or _NO_VALUE)."""
        sym = [r for r in results if not r[0]]
        if not sym:
            return last if last is not _NO_VALUE else (results[-1][1] if results else None)
        if all(isinstance(r[1], (bool, E.BExpr)) for r in sym) and (
                last is _NO_VALUE or isinstance(last, (bool, E.BExpr))):
            parts = [r[2] for r in sym] + ([self.as_bexpr(last)] if last is not _NO_VALUE else [])
            parts = [E.bconst(p) if isinstance(p, bool) else p for p in parts]
            r = E.band(*parts) if is_and else E.bor(*parts)
            return r.value if isinstance(r, E.BConst) else r
        # value-returning `x or default` on a symbolic truth: merge
        out = last if last is not _NO_VALUE else results[-1][1]
        for _known, v, t in reversed(sym):
            c = t if isinstance(t, E.BExpr) else E.bconst(t)
            out = self.merge(E.bnot(c) if is_and else c, v, out)
        return out

    def _compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        result: Any = True
        for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
            right = self.eval(comp)
            if (left is None or right is None) and self._none_defaults:
                self._note_none_test(node.left if i == 0 else node.comparators[i - 1], comp)
            r = self.compare(type(op), left, right, node)
            if isinstance(result, bool) and result:
                result = r
            elif isinstance(result, bool):
                return False
            else:
                rb = E.bconst(r) if isinstance(r, bool) else r
                result = E.band(result, rb) if isinstance(rb, E.BExpr) else result
            if result is False:
                return False
            left = right
        if isinstance(result, E.BConst):
            return result.value
        return result

    def _note_none_test(self, *sides: ast.AST) -> None:
        """`bias is not None` where `bias` names a kernel input left at its default None (directly or as a field
        carrying it): if every path of the kernel fails, it is analysed again with the input tested last before
        the first failure given (`if cache is not None: ... else: assert cos is not None`)."""
        for side in sides:
            name = side.id if isinstance(side, ast.Name) else side.attr if isinstance(side, ast.Attribute) else None
            if name in self._none_defaults:
                self._last_none_test = name
                self._none_tested.add(name)

    def _ifexp(self, node: ast.IfExp) -> Any:
        c = self.truth(self.eval(node.test))
        if isinstance(c, bool):
            return self.eval(node.body if c else node.orelse)
        d = self.decide(c)
        if d is not None:
            return self.eval(node.body if d else node.orelse)
        self.frame.pc.append(c)
        try:
            a = self._eval_or_unknown(node.body)
        finally:
            self.frame.pc.pop()
        self.frame.pc.append(E.bnot(c))
        try:
            b = self._eval_or_unknown(node.orelse)
        finally:
            self.frame.pc.pop()
        if a is _DEAD:
            return b
        if b is _DEAD:
            return a
        return self.merge(c, a, b)

    def _eval_or_unknown(self, node: ast.AST) -> Any:
        try:
            return self.eval(node)
        except V.PathAbort as exc:
            self.unrecorded_aborts += not exc.recorded
            return _DEAD

    def _tuple(self, node: ast.Tuple) -> Any:
        return tuple(self._elts(node.elts))

    def _list(self, node: ast.List) -> Any:
        items = self._elts(node.elts)
        if isinstance(items, V.SymSeq):
            return V.PyList(self.heap, [], items)
        return V.PyList(self.heap, items)

    def _set(self, node: ast.Set) -> Any:
        return V.PyList(self.heap, self._elts(node.elts))

    def _elts(self, elts: list) -> Any:
        out: list = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.iterate_known(self.eval(e.value), e))
            else:
                out.append(self.eval(e))
        return out

    def _dict(self, node: ast.Dict) -> Any:
        d = V.PyDict(self.heap)
        for k, v in zip(node.keys, node.values):
            if k is None:
                other = self.eval(v)
                if isinstance(other, V.PyDict):
                    d.items.update(other.items)
                continue
            kv = self.eval(k)
            if self.kb is not None and not isinstance(kv, str):
                self.lint_dict_keys([kv], k)
            key = self.hashable_key(kv)
            if key is None:
                raise V.NotUnderstood("a dict key whose value is not known", k)
            d.items[key] = self.eval(v)
        return d

    def _joinedstr(self, node: ast.JoinedStr) -> Any:
        text = "".join(str(v.value) if isinstance(v, ast.Constant) else self._formatted(v) for v in node.values)
        return text if all(isinstance(v, ast.Constant) for v in node.values) else V.OpaqueStr(text)

    def _formatted(self, node: ast.FormattedValue) -> Any:
        """A field of an f-string: not evaluated, an opaque text that compares equal to nothing decidably in a
        kernel (it was the literal "{…}", taken as the text).  (Formatting the fields whose values are known made
        host code that keys dicts by f-strings, `d[f"tensor_{i}"]`, merge a different dict per branch of its
        loops: exponential, a tutorial's launcher class never finished.)"""
        return V.OpaqueStr("{…}")

    def _lambda(self, node: ast.Lambda) -> Any:
        return self.make_function(node, "<lambda>")

    def _namedexpr(self, node: ast.NamedExpr) -> Any:
        v = self.eval(node.value)
        self.assign(node.target, v, node)
        return v

    def _starred(self, node: ast.Starred) -> Any:
        raise V.NotUnderstood("a starred expression here", node)

    def _call(self, node: ast.Call) -> Any:
        fn = self.eval(node.func)
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.iterate_known(self.eval(a.value), a))
            else:
                args.append(self.eval(a))
        kwargs: dict = {}
        for kw in node.keywords:
            if kw.arg is None:
                d = self.eval(kw.value)
                if isinstance(d, V.PyDict):
                    for k, v in d.items.items():
                        if isinstance(k, str):
                            kwargs[k] = v
                elif not isinstance(d, V.Unknown):
                    raise V.NotUnderstood("** of a value that is not a dict", kw.value)
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        return self.call_value(fn, args, kwargs, node)

    def _comprehension(self, node: Any) -> Any:
        return self.comprehension(node)

    def _await(self, node: ast.AST) -> Any:
        raise V.NotUnderstood("await / yield in analysed code", node)

    # ------------------------------------------------------------------ statements
    def exec_block(self, stmts: list) -> None:
        for st in stmts:
            self.exec_stmt(st)

    def exec_stmt(self, st: ast.stmt) -> None:
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise BudgetExceeded()
        prev = self.current_stmt
        self.current_stmt = st
        try:
            h = _STMT.get(type(st))
            if h is None:
                raise V.NotUnderstood(f"statement {type(st).__name__}", st)
            h(self, st)
        except V.NotUnderstood as exc:
            if not exc.silent:
                self.not_understood(exc.message, exc.node or st)
            if isinstance(st, ast.Return) and self.frames and self.frame.kind == "function":
                # the function returns something not understood, not None by falling off its end (which made
                # every use of the result a second, misleading finding: "attribute X of None")
                self.return_value(V.Unknown(f"the value returned at line {st.lineno} (not understood)", self.span(st)))
            self.havoc_targets(st)
        except RecursionError:
            self.not_understood("nesting too deep to follow", st)
            self.havoc_targets(st)
        finally:
            self.current_stmt = prev

    def havoc_targets(self, st: ast.stmt) -> None:
        """After a statement that was not understood, what it assigns is unknown: the names it binds anywhere
        inside (a compound statement's blocks included) that are not bound already."""
        assigned = binding_lines([st])
        for name in sorted(assigned):
            if name in self.frame.locals and not isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                                 ast.For, ast.AsyncFor)):
                continue  # (a name a compound statement may have rebound keeps what it had: one side of it)
            try:
                self.store_name(name, V.Unknown(f"{name} (line {st.lineno}, not understood)", self.span(st)))
            except Exception:  # noqa: BLE001 - havoc is best effort
                pass

    def _expr_stmt(self, st: ast.Expr) -> None:
        if isinstance(st.value, ast.Constant):
            return  # docstring
        self.eval(st.value)

    def _assign(self, st: ast.Assign) -> None:
        v = self.eval(st.value)
        for t in st.targets:
            self.assign(t, v, st)

    def _annassign(self, st: ast.AnnAssign) -> None:
        if st.value is not None:
            self.assign(st.target, self.eval(st.value), st)

    def _augassign(self, st: ast.AugAssign) -> None:
        t = st.target
        if isinstance(t, ast.Name):
            cur = self.load_name(t.id, t)
            rhs = self.eval(st.value)
            if isinstance(cur, V.TensorVal) and cur.tensor.buffer in ir.ON_CHIP and self.kb is not None and \
                    isinstance(rhs, (V.TensorVal, int, float, E.Expr, V.SymFloat)) and not isinstance(rhs, bool):
                # `acc += part` on a tile accumulates into it in place (NkiTensor.__iadd__, like `acc[...] += part`):
                # no new tile, and the name keeps the same buffer
                self.tensor_augassign(cur, None, type(st.op), rhs, st)
                return
            new = self.augmented(type(st.op), cur, rhs, st)
            self.store_name(t.id, new)
        elif isinstance(t, ast.Attribute):
            obj = self.eval(t.value)
            cur = self.get_attr(obj, t.attr, t)
            self.set_attr(obj, t.attr, self.augmented(type(st.op), cur, self.eval(st.value), st), t)
        elif isinstance(t, ast.Subscript):
            obj = self.eval(t.value)
            key = self.eval_index(t.slice)
            rhs = self.eval(st.value)
            if isinstance(obj, V.TensorVal):
                self.tensor_augassign(obj, key, type(st.op), rhs, st)
                return
            cur = self.get_item(obj, key, t)
            self.set_item(obj, key, self.augmented(type(st.op), cur, rhs, st), t)
        else:
            raise V.NotUnderstood("augmented assignment target", st)

    def augmented(self, op: type, cur: Any, rhs: Any, node: ast.AST) -> Any:
        if isinstance(cur, V.PyList) and op is ast.Add:
            for item in self.iterate_known(rhs, node):
                cur.append(item)
            return cur
        return self.binop(op, cur, rhs, node)

    def assign(self, target: ast.AST, value: Any, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.store_name(target.id, value)
            origins = self.frame.none_origin
            if value is None and self.kb is not None:
                # `scale = inps.scale`: the name carries the optional input's None (see none_origin)
                origin = self.none_origin(getattr(node, "value", None))
                if origin is not None:
                    origins[target.id] = origin
                else:
                    origins.pop(target.id, None)
            elif origins:
                origins.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target.elts, value, node)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value)
            self.set_attr(obj, target.attr, value, target)
            self.note_none_attr(obj, target.attr, value, getattr(node, "value", None))
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value)
            self.set_item(obj, self.eval_index(target.slice), value, target)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, node)
        else:
            raise V.NotUnderstood(f"assignment to {type(target).__name__}", target)

    def _unpack(self, elts: list, value: Any, node: ast.AST) -> None:
        star = [i for i, e in enumerate(elts) if isinstance(e, ast.Starred)]
        if isinstance(value, V.Unknown):
            for e in elts:
                self.assign(e, value, node)
            return
        if isinstance(value, V.GuessedShape) and not star:
            if len(value) != len(elts):
                self.rank_mismatch(value.param, len(elts) + value.dropped, from_rank=len(value) + value.dropped)
            self._rank_confirmed.add(value.param)
        if star and star[0] == len(elts) - 1 and isinstance(value, (V.PyList, V.SymSeq)) and \
                (value.tail is not None if isinstance(value, V.PyList) else True):
            # `first, *rest = tiles` of a list of symbolic length: the leading items by index (each one checked
            # against the length), the rest a slice
            i = star[0]
            for k, e in enumerate(elts[:i]):
                self.assign(e, self.seq_getitem(value, k, node), node)
            self.assign(elts[i].value, self.seq_getitem(value, slice(i, None, None), node), node)
            return
        items = self.iterate_known(value, node, expect=None if star else len(elts))
        if star:
            i = star[0]
            n_after = len(elts) - i - 1
            if len(items) < len(elts) - 1:
                if isinstance(value, V.GuessedShape):
                    self.rank_mismatch(value.param, len(elts) - 1 + value.dropped, at_least=True)
                raise V.NotUnderstood("not enough values to unpack", node)
            head, mid, tail = items[:i], items[i:len(items) - n_after], items[len(items) - n_after:]
            for e, v in zip(elts[:i], head):
                self.assign(e, v, node)
            if isinstance(value, V.GuessedShape):
                # `b, *rest = x.shape`: the rest of a guessed rank, which a comparison with another length corrects
                # (a tuple rather than Python's list: what such code does with it is compare, index or measure it)
                self.assign(elts[i].value, V.guessed(tuple(mid), value.param, value.dropped + len(elts) - 1), node)
            else:
                self.assign(elts[i].value, V.PyList(self.heap, mid), node)
            for e, v in zip(elts[i + 1:], tail):
                self.assign(e, v, node)
            return
        if len(items) != len(elts):
            raise V.NotUnderstood(f"cannot unpack {len(items)} values into {len(elts)} names", node)
        for e, v in zip(elts, items):
            self.assign(e, v, node)

    def _pass(self, st: ast.stmt) -> None:
        return None

    def _delete(self, st: ast.Delete) -> None:
        for t in st.targets:
            if isinstance(t, ast.Name):
                self.frame.locals.pop(t.id, None)
            elif isinstance(t, ast.Subscript):
                obj = self.eval(t.value)
                if isinstance(obj, V.PyDict):
                    k = self.hashable_key(self.eval_index(t.slice))
                    if k in obj.items:
                        obj.delete(k)

    def _global_stmt(self, st: ast.Global) -> None:
        self.frame.globals_decl.update(st.names)

    def _nonlocal_stmt(self, st: ast.Nonlocal) -> None:
        self.frame.nonlocal_decl.update(st.names)

    def _assert(self, st: ast.Assert) -> None:
        try:
            cond = self.truth(self.eval(st.test))
        except V.NotUnderstood as exc:
            self.not_understood(exc.message, exc.node or st)
            return
        self.assert_cond(cond, st)

    def assert_cond(self, cond: Any, node: ast.AST) -> None:
        """An assert (or an assertion helper): its condition is an assumption from here on."""
        if cond is True:
            return
        if cond is False:
            self.abort_path(node, "assert")
        c = cond if isinstance(cond, E.BExpr) else E.bconst(bool(cond))
        d = self.decide(c)
        if d is True:
            return
        if d is False:
            self.abort_path(node, "assert")
        self.assume(c, node, "assert")
        self.frame.pc.add(c, E.TRUE)
        self.asserted.add(c)

    def _raise(self, st: ast.Raise) -> None:
        self.abort_path(st, "raise")

    def _return(self, st: ast.Return) -> None:
        self.return_value(self.eval(st.value) if st.value is not None else None)

    def return_value(self, v: Any) -> None:
        base = self.frame.loop_base
        if self.kb is None or len(self.loop_facts) <= base:
            raise ReturnSignal(v)
        n = len(self.loop_facts) - base
        loop_vars = tuple(self.kb.loops[lid].var for lid in self.kb.loop_stack[-n:])
        raise ReturnSignal(v, tuple(self.loop_facts[base:]), loop_vars)

    def returned(self, pc: PathList, r: ReturnSignal) -> tuple:
        """(condition, value, the condition's branches) of a return: from inside symbolic loops of the function,
        the value is the one of some iteration whose path returns, so the loops' index variables are renamed to
        fresh ones (the iteration that returned) constrained by the loops' ranges in the condition; the loop's own
        index keeps meaning "the current iteration" inside the loop, and its range is not assumed outside it."""
        cond = E.band(*pc, *r.facts)
        held = E.band(*pc.held, *r.facts)
        if not r.loop_vars:
            return cond, r.value, held
        m = {}
        for var in r.loop_vars:
            info = self.kb.info_of(var)
            m[var] = self.kb.new_sym(f"{info.label if info else var.name} (returned)", "loop")
        return E.substitute(cond, m), self.subst_value(r.value, m), E.substitute(held, m)

    def _import(self, st: ast.Import) -> None:
        self.do_import(st)

    def _importfrom(self, st: ast.ImportFrom) -> None:
        self.do_import_from(st)

    def _functiondef(self, st: ast.FunctionDef) -> None:
        fn = self.make_function(st, st.name)
        value = self.apply_decorators(fn, st)
        self.store_name(st.name, value)

    def _classdef(self, st: ast.ClassDef) -> None:
        self.store_name(st.name, self.make_class(st))

    def _with(self, st: ast.With) -> None:
        for item in st.items:
            v = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, v, st)
        self.exec_block(st.body)

    def _try(self, st: Any) -> None:
        # the analysed code is assumed not to raise on admissible inputs: follow the body and finally
        try:
            self.exec_block(st.body)
            self.exec_block(st.orelse)
        finally:
            self.exec_block(st.finalbody)

    def _match(self, st: ast.AST) -> None:
        raise V.NotUnderstood("match statements", st)


_DEAD = object()


def local_names(fn: ast.AST) -> dict:
    """The names Python makes local to a function (bound anywhere in its body, not declared global or
    nonlocal), each with the lines binding it; kept on the function's node (read at every global lookup)."""
    names = getattr(fn, "_nki_local_names", None)
    if names is not None:
        return names
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    declared: set = set()
    for n in walk_scope(body):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
    args = fn.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    names = {k: v for k, v in binding_lines(body).items() if k not in declared and k not in params}
    fn._nki_local_names = names
    return names


MODULE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                            "__builtins__", "__path__", "__dict__", "__annotations__", "__cached__", "__debug__"})


def _undefined_in_file(name: str, pm: Any) -> bool:
    """Nothing in the module's file binds `name` in any scope (assignment, parameter, def, class, import, loop or
    with target, except clause, match capture, global statement), the file has no star import, and `name` is
    not a Python builtin: reading it raises NameError whatever runs before."""
    if pm is None or pm.tree is None or name in MODULE_DUNDERS or hasattr(builtins, name):
        return False
    bound = getattr(pm.tree, "_nki_bound_anywhere", None)
    if bound is None:
        bound = set()
        for n in ast.walk(pm.tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                bound.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    bound.add("*" if a.name == "*" else (a.asname or a.name).split(".")[0])
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                bound.update(n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                bound.add(n.name)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                bound.add(n.name)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                bound.add(n.rest)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("globals", "exec",
                                                                                           "eval", "vars"):
                bound.add("*")  # the module may bind names through its namespace dict
        pm.tree._nki_bound_anywhere = bound
    return "*" not in bound and name not in bound


def _target_names(t: ast.AST) -> list:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _target_names(e)]
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    return []


_EXPR: dict[type, Callable] = {
    ast.Constant: Interpreter._constant,
    ast.Name: Interpreter._name,
    ast.Attribute: Interpreter._attribute,
    ast.Subscript: Interpreter._subscript,
    ast.BinOp: Interpreter._binop,
    ast.UnaryOp: Interpreter._unaryop,
    ast.BoolOp: Interpreter._boolop,
    ast.Compare: Interpreter._compare,
    ast.IfExp: Interpreter._ifexp,
    ast.Tuple: Interpreter._tuple,
    ast.List: Interpreter._list,
    ast.Set: Interpreter._set,
    ast.Dict: Interpreter._dict,
    ast.JoinedStr: Interpreter._joinedstr,
    ast.FormattedValue: Interpreter._formatted,
    ast.Lambda: Interpreter._lambda,
    ast.NamedExpr: Interpreter._namedexpr,
    ast.Starred: Interpreter._starred,
    ast.Call: Interpreter._call,
    ast.ListComp: Interpreter._comprehension,
    ast.GeneratorExp: Interpreter._comprehension,
    ast.SetComp: Interpreter._comprehension,
    ast.DictComp: Interpreter._comprehension,
    ast.Slice: Interpreter._slice,
    ast.Await: Interpreter._await,
    ast.Yield: Interpreter._await,
    ast.YieldFrom: Interpreter._await,
}

_STMT: dict[type, Callable] = {
    ast.Expr: Interpreter._expr_stmt,
    ast.Assign: Interpreter._assign,
    ast.AnnAssign: Interpreter._annassign,
    ast.AugAssign: Interpreter._augassign,
    ast.Pass: Interpreter._pass,
    ast.Delete: Interpreter._delete,
    ast.Global: Interpreter._global_stmt,
    ast.Nonlocal: Interpreter._nonlocal_stmt,
    ast.Assert: Interpreter._assert,
    ast.Raise: Interpreter._raise,
    ast.Return: Interpreter._return,
    ast.Import: Interpreter._import,
    ast.ImportFrom: Interpreter._importfrom,
    ast.FunctionDef: Interpreter._functiondef,
    ast.AsyncFunctionDef: Interpreter._functiondef,
    ast.ClassDef: Interpreter._classdef,
    ast.With: Interpreter._with,
    ast.AsyncWith: Interpreter._with,
    ast.Try: Interpreter._try,
    ast.If: ControlMixin.exec_if,
    ast.For: ControlMixin.exec_for,
    ast.AsyncFor: ControlMixin.exec_for,
    ast.While: ControlMixin.exec_while,
    ast.Break: ControlMixin.exec_break,
    ast.Continue: ControlMixin.exec_continue,
}
if hasattr(ast, "TryStar"):
    _STMT[ast.TryStar] = Interpreter._try
if hasattr(ast, "Match"):
    _STMT[ast.Match] = Interpreter._match

__all__ = ["Interpreter", "Options", "Frame", "BudgetExceeded", "NoFallthrough", "KernelBuilder", "ModuleIndex"]
