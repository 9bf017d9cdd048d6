"""Front-end entry: find the kernels of a file, their launch contexts, and build their IR."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Iterator

from .. import expr as E
from .. import ir
from .astwalk import walk
from . import values as V
from .builder import KernelBuilder
from .calls import annotated_fields
from .interp import BudgetExceeded, Frame, Interpreter, Options
from .modules import ModuleIndex, SourceSet

MAX_CONTEXTS = 3
MAX_GIVEN = V.MAX_GIVEN
EVERY_PATH_FAILS = "every path through this kernel fails"
TENSOR_ANNOTATIONS = ("ndarray", "tensor", "Tensor", "NkiTensor", "tile", "Array", "hbm")
SCALAR_ANNOTATIONS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}


@dataclass
class FrontendResult:
    kernels: list = field(default_factory=list)
    issues: list = field(default_factory=list)
    read_paths: list = field(default_factory=list)
    kernel_names: list = field(default_factory=list)
    origins: dict = field(default_factory=dict)  # id of a kernel run -> (kernel value, launch context)
    interp: Any = None

    def at_ranks(self, kernel: ir.Kernel, ranks: dict, oracle: Any = None) -> list | None:
        """The runs of `kernel`'s launch with the inputs of `ranks` given those ranks to start from (a use that
        fixes another rank still corrects it), with the same optional inputs given and defaults chosen as
        `kernel`'s run: [(kernel, issues)], without the runs that fail on every path.  None when the launch is
        not known.  Built again by the same interpreter, with `oracle` for its branch questions."""
        origin = self.origins.get(id(kernel))
        if origin is None or self.interp is None:
            return None
        kv, ctx = origin
        interp = self.interp
        saved = interp.oracle
        interp.oracle = oracle if oracle is not None else saved
        interp._forced_ranks = dict(ranks)
        try:
            runs = run_with_retries(interp, kv, ctx)
        finally:
            interp._forced_ranks = {}
            interp.oracle = saved
        return [(k, issues) for k, issues in runs
                if k.given == kernel.given and k.chosen == kernel.chosen and not _failed(interp, k)
                and not _fails_everywhere([(k, issues)])]


class IntervalOracle:
    """Decides conditions with interval reasoning only (no solver)."""

    def decide(self, cond: E.BExpr, facts: E.BExpr, kb: KernelBuilder, ranges: dict) -> bool | None:
        return E.decide(cond, ranges)

    def valid(self, cond: E.BExpr) -> bool:
        return E.decide(cond, {}) is True


@dataclass
class LaunchContext:
    description: str
    args: list
    kwargs: dict
    grid: tuple | None
    span: ir.Span | None = None
    closure_syms: tuple = ()  # symbols of a factory's parameters the kernel's closure holds (inputs too)


def analyze(source: str, path: str, options: Options, oracle: Any = None,
            sources: SourceSet | None = None) -> FrontendResult:
    """Build the IR of every kernel in `source` (the text of `path`).  Never executes it."""
    sources = sources or SourceSet()
    index = ModuleIndex(sources, path, getattr(options, "search_path", ()))
    pm = index.parse(path, source)
    result = FrontendResult()
    if pm is None or pm.error is not None:
        err = pm.error if pm is not None else SyntaxError("unreadable file")
        line = getattr(err, "lineno", None) or 1
        col = getattr(err, "offset", None) or 1
        msg = getattr(err, "msg", None) or str(err)
        lines = source.splitlines() if source else []
        newer = _newer_syntax(lines[line - 1] if 0 < line <= len(lines) else "")
        if newer and sys.version_info < newer[0]:
            msg += (f" ({newer[1]} is Python {newer[0][0]}.{newer[0][1]} syntax; nki-verify runs on Python "
                    f"{sys.version_info.major}.{sys.version_info.minor})")
        result.issues.append(ir.FrontendIssue("NKI999", f"cannot parse this file: {msg}",
                                              ir.Span(index.entry_path, line, col, line, col + 1)))
        result.read_paths = list(index.read_paths)
        return result
    if "nki" not in source:
        result.read_paths = list(index.read_paths)
        return result
    interp = Interpreter(index, options, oracle or IntervalOracle(), itertools.count(1))
    mod = interp.load_module(index.entry_path, as_main=True)
    kernels = _kernels_of(interp, mod)
    result.kernel_names = [k.func.name for k in kernels]
    _explore_launchers(interp, mod, kernels)
    # kernels defined inside a test function or launcher (`def test_add(): @nki.jit def add(...)`) and launched
    # there: analysed at those launches
    known = {id(kv.func) for kv in kernels}
    for k, *_ in interp.launches:
        if id(k.func) not in known and k.func.module is mod and not (options.kernels and
                                                                     k.func.name not in options.kernels):
            known.add(id(k.func))
            kernels.append(k)
            result.kernel_names.append(k.func.name)
    kernels = _without_unknown_twins(interp, kernels)
    launched = {id(k.func) for k, *_ in interp.launches}
    called = _called_from_kernels(kernels)
    pm = index.parse(index.entry_path)
    found = {id(kv.func.node) for kv in kernels} | {id(k.func.node) for k, *_ in interp.launches}
    built: list = []
    for node, factory in _factory_kernels(pm.tree) if pm is not None and pm.tree is not None else ():
        if id(node) in found or options.kernels and node.name not in options.kernels:
            continue
        made = _from_factory(interp, mod, factory, node)
        if made is None and not _captures(pm.tree, factory, node):
            # a kernel a test function defines and hands to a harness the analysis cannot follow (`if
            # NEURON_AVAILABLE: run_on_device(f, ...)`), which takes nothing from that function: it is the same
            # kernel wherever it is defined, analysed standalone like a module-level one
            made = _defined_standalone(interp, mod, node)
        if made is not None:
            built.append(made)
            found.add(id(node))
            continue
        result.kernel_names.append(node.name)
        result.issues.append(ir.FrontendIssue(
            "NKI902", f"kernel {node.name} is defined inside {factory}(), which this module never calls: its "
            f"closure values come from that call, so it was not analysed (call {factory}(...) at module level, "
            "or define the kernel at module level with those values as parameters)",
            ir.Span(mod.path, node.lineno, node.col_offset + 1, node.lineno, node.col_offset + 5 + len(node.name)),
            node.name))
    result.interp = interp
    for kv, ctx in built:
        result.kernel_names.append(kv.func.name)
        for kernel, issues in run_with_retries(interp, kv, ctx):
            result.kernels.append(kernel)
            result.issues.extend(issues)
            result.origins[id(kernel)] = (kv, ctx)
    for kv in kernels:
        if options.kernels and kv.func.name not in options.kernels:
            continue
        if not options.kernels and kv.func.name in called and id(kv.func) not in launched:
            continue  # a sub-kernel: checked where its callers call it, with their shapes
        for ctx in _contexts(interp, kv):
            for kernel, issues in run_with_retries(interp, kv, ctx):
                result.kernels.append(kernel)
                result.issues.extend(issues)
                result.origins[id(kernel)] = (kv, ctx)
    result.read_paths = list(index.read_paths)
    return result


NEWER_SYNTAX = (
    # (pattern on the failing line, the version that parses it, what it is)
    (re.compile(r"^\s*(async\s+)?def\s+\w+\s*\["), (3, 12), "a function with type parameters (`def f[T](...)`)"),
    (re.compile(r"^\s*class\s+\w+\s*\["), (3, 12), "a class with type parameters (`class C[T]: ...`)"),
    (re.compile(r"^\s*type\s+\w+(\[.*\])?\s*="), (3, 12), "a type alias statement (`type X = ...`)"),
    # (PEP 701: a replacement field may hold the f-string's own quote, `f"{row["name"]}"`)
    (re.compile(r"""\b[fF][rR]?(['"])[^'"\n]*\{[^}\n]*\1"""), (3, 12),
     "an f-string whose replacement field holds the f-string's own quote (`f'{d['k']}'`)"),
)


def _newer_syntax(line: str) -> tuple | None:
    """(version, what) when a line that did not parse uses syntax of a newer Python than this one."""
    for pattern, version, what in NEWER_SYNTAX:
        if pattern.search(line):
            return version, what
    return None


def _kernels_of(interp: Interpreter, mod: V.ModuleVal) -> list:
    """Kernels defined in this module: decorated, wrapped at a call site, or launched."""
    found: dict = {}
    values = list(mod.namespace.values())
    # kernels defined in a class body (`@staticmethod @nki.jit def kernel(...)`), nested classes included
    classes = [v for v in values if isinstance(v, V.ClassVal) and v.module is mod]
    while classes:
        c = classes.pop()
        for v in c.attrs.values():
            if isinstance(v, V.ClassVal) and v.module is mod:
                classes.append(v)
            elif isinstance(v, V.KernelVal) or isinstance(v, V.FunctionVal) and v.kernel and v.is_static:
                values.append(v)
    for v in values:
        if isinstance(v, V.KernelVal) and v.func.module is mod:
            found.setdefault(id(v.func), v)
    pm = interp.index.parse(mod.path)
    for name in _jit_wrapped(pm.tree) if pm is not None and pm.tree is not None else ():
        v = mod.namespace.get(name)
        if isinstance(v, V.FunctionVal) and v.module is mod and id(v) not in found:
            found[id(v)] = V.KernelVal(v, dialect=_module_dialect(mod))
    for name in _grid_launched(pm.tree) if pm is not None and pm.tree is not None else ():
        v = mod.namespace.get(name)
        if isinstance(v, V.FunctionVal) and v.module is mod and id(v) not in found:
            # launched on a grid (`f[1, heads](...)`) but not known to be a kernel: a decorator the analysis
            # cannot follow (a registry of custom operators) made it one, since a plain function takes no grid
            v.kernel = True
    for v in values:
        if isinstance(v, V.FunctionVal) and v.kernel and v.module is mod and id(v) not in found:
            found[id(v)] = V.KernelVal(v, dialect=_module_dialect(mod))
    for k, *_ in interp.launches:
        if k.func.module is mod and id(k.func) not in found:
            found[id(k.func)] = V.KernelVal(k.func, dialect=k.dialect)
    out = list(found.values())
    out.sort(key=lambda k: k.func.node.lineno)
    return out


JIT_WRAPPERS = frozenset({"jit", "baremetal", "benchmark", "profile", "simulate_kernel", "nki_jit"})


def _from_factory(interp: Interpreter, mod: V.ModuleVal, factory: str, node: ast.AST) -> tuple | None:
    """(kernel, context) for a kernel a module function builds and returns (`def make(rows): @nki.jit def
    k(x): ... rows ...; return k`), the factory called with a symbol for each parameter without a default:
    the kernel is analysed for every value of them, like its own inputs.  None when the factory does not
    return the kernel that way."""
    fv = mod.namespace.get(factory)
    if not isinstance(fv, V.FunctionVal) or fv.module is not mod:
        return None
    a = fv.node.args
    required = (a.posonlyargs + a.args)[:len(a.posonlyargs + a.args) - len(fv.defaults)]
    syms = [interp.fresh_int(p.arg, "scalar") for p in required]
    out = _kernel_in(_call_host(interp, mod, fv, syms), node, 0)
    if out is None:
        return None
    shown = ", ".join(p.arg for p in required)
    return out, LaunchContext(f"built by {factory}({shown}), symbolic shapes", [], {}, None,
                              closure_syms=tuple(syms))


def _captures(tree: ast.Module, factory: str, node: ast.AST) -> bool:
    """Does the kernel `node`, defined inside module function `factory`, read a name that function binds (a
    parameter, a local): a closure value only a call of it gives?"""
    outer = next((st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                  st.name == factory), None)
    if outer is None:
        return True
    def bound(fn: ast.AST) -> set:
        a = fn.args
        names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        for n in walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
                names.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names |= {(al.asname or al.name).split(".")[0] for al in n.names}
        return names
    own = bound(node)
    used = {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    used |= {n.id for d in node.decorator_list for n in walk(d) if isinstance(n, ast.Name)}
    return bool((used - own) & (bound(outer) - {node.name}))


def _defined_standalone(interp: Interpreter, mod: V.ModuleVal, node: ast.AST) -> tuple | None:
    """(kernel, standalone context) for a kernel defined inside a function, its definition run as if at
    module level (its decorator applied; names resolve in the module)."""
    frame = Frame.of_module(mod, dict(mod.namespace))  # (the module's own namespace is left as it is)
    saved = interp.frames
    interp.frames = [frame]
    try:
        interp.exec_stmt(node)
        kv = frame.locals.get(node.name)
    except Exception:  # noqa: BLE001 - a definition not followed leaves the finding as it was
        kv = None
    finally:
        interp.frames = saved
    if not isinstance(kv, V.KernelVal):
        return None
    ctx = next(iter(_contexts(interp, kv)), None)
    return (kv, ctx) if ctx is not None else None


def _kernel_in(v: Any, node: ast.AST, depth: int) -> V.KernelVal | None:
    """The kernel of `node` in what a factory returned: itself, an item of a returned tuple, or held by a
    returned launcher's closure (`def run(q): return _kernel[h](q)`; `return run, pad`)."""
    if isinstance(v, V.KernelVal):
        return v if v.func.node is node else None
    if depth > 3:
        return None
    if isinstance(v, tuple):
        items = list(v)
    elif isinstance(v, V.PyList) and v.tail is None:
        items = list(v.items)
    elif isinstance(v, V.FunctionVal):
        # its closure: the enclosing frames' locals, innermost first
        items = [c.value if isinstance(c, V.Cell) else c for scope in v.closure if isinstance(scope, dict)
                 for c in scope.values()]
    else:
        return None
    for x in items:
        found = _kernel_in(x, node, depth + 1)
        if found is not None:
            return found
    return None


def _factory_kernels(tree: ast.Module) -> list:
    """(def, enclosing function name) of kernels decorated inside a module function (a kernel factory:
    `def make(rows): @nki.jit def k(x): ... rows ...; return k`)."""
    out = []
    for st in tree.body:
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in walk(st):
            if n is not st and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    (_callee(d) if isinstance(d, ast.Call) else
                     d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", None)) in JIT_WRAPPERS
                    for d in n.decorator_list):
                out.append((n, st.name))
    return out


def _grid_launched(tree: ast.Module) -> list:
    """Decorated module functions launched on a grid somewhere in the module (`f[grid](...)`)."""
    funcs = {st.name for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
             and st.decorator_list}
    return sorted({n.func.value.id for n in walk(tree) if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Subscript) and isinstance(n.func.value, ast.Name)
                   and n.func.value.id in funcs})


def _jit_wrapped(tree: ast.Module) -> list:
    """Module functions wrapped as kernels by host code the analysis may never run: `nki.jit(f, ...)` or
    `nki.jit(...)(f)` anywhere in the module (in a launcher function nobody calls, under a flag), and through
    a function parameter: `run(f)` where `run(kernel)` does `nki.jit(kernel)`.  Syntactic, like a reader's."""
    funcs = {st.name: st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def wrapped(call: ast.Call) -> ast.AST | None:
        f = call.func
        if isinstance(f, ast.Call) and not f.args and _callee(f) in JIT_WRAPPERS:
            return call.args[0] if call.args else None  # nki.jit(platform_target=...)(f)
        return call.args[0] if call.args and _callee(call) in JIT_WRAPPERS else None

    # another name for a module function (`kernel = matmul_kernel if flag else other`), scopes ignored
    names: dict = {f: {f} for f in funcs}
    for n in walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            for v in walk(n.value):
                if isinstance(v, ast.Name) and v.id in funcs and n.targets[0].id not in funcs:
                    names.setdefault(n.targets[0].id, set()).add(v.id)
    out: set = set()
    wrapping: dict = {}  # module function -> positions and names of its parameters it wraps as kernels
    for name, fn in funcs.items():
        params = [p.arg for p in fn.args.posonlyargs + fn.args.args]
        for n in walk(fn):
            if isinstance(n, ast.Call) and isinstance(a := wrapped(n), ast.Name) and a.id in params:
                wrapping.setdefault(name, set()).add((params.index(a.id), a.id))
    for n in walk(tree):
        if not isinstance(n, ast.Call):
            continue
        a = wrapped(n)
        if isinstance(a, ast.Name):
            out |= names.get(a.id, set())
        for pos, pname in wrapping.get(_callee(n) or "", ()):
            args = [x for x in n.args if not isinstance(x, ast.Starred)]
            a = args[pos] if pos < len(args) else next((k.value for k in n.keywords if k.arg == pname), None)
            if isinstance(a, ast.Name):
                out |= names.get(a.id, set())
    return sorted(out)


def _callee(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)


def _called_from_kernels(kernels: list) -> set:
    """Names of this module's kernels that another of its kernels calls (syntactically)."""
    names = {k.func.name for k in kernels}
    out: set = set()
    for k in kernels:
        for n in walk(k.func.node):
            if isinstance(n, ast.Call):
                callee = _callee(n)
                if callee in names and callee != k.func.name:
                    out.add(callee)
    return out


def _module_dialect(mod: V.ModuleVal) -> str:
    dialects = {v.dialect for v in mod.namespace.values() if isinstance(v, V.ApiVal)}
    if dialects == {ir.B1}:
        return ir.B1
    return ir.B2 if ir.B2 in dialects else ir.B1


def _explore_launchers(interp: Interpreter, mod: V.ModuleVal, kernels: list) -> None:
    """Host functions that launch a kernel but were not called by the module: run them with symbolic inputs.
    A test harness is host code too: pytest-style `test_*` functions, and the `test*` methods of a test class
    (a `unittest.TestCase` or a pytest `Test*` class), run on an instance whose `setUp` ran first: the shapes
    they launch a kernel with are the ones the kernel is analysed at."""
    names = {k.func.name for k in kernels}
    for v in list(mod.namespace.values()):
        if isinstance(v, V.ClassVal) and v.module is mod and _is_test_class(v):
            _explore_test_class(interp, mod, v, names)
            continue
        if not isinstance(v, V.FunctionVal) or v.kernel or v.module is not mod:
            continue
        _explore_host_function(interp, mod, v, names, [])


def _explore_host_function(interp: Interpreter, mod: V.ModuleVal, v: V.FunctionVal, names: set,
                           bound: list) -> None:
    """Run host function `v` (after the arguments `bound`, e.g. a test instance) when it names a kernel, or
    when it is a test that defines one of its own."""
    used = {n.id for n in walk(v.node) if isinstance(n, ast.Name)}
    if not used & names and not (v.name.startswith("test") and _defines_kernel(v.node)):
        return
    args = list(bound)
    a = v.node.args
    n_required = len(a.args) - len(v.defaults)
    params = a.args[len(bound):]
    hints = _rank_hints(v.node, [p.arg for p in params])
    interp._host_rank_hints = hints
    # ranks the host code states exactly; the others (`heads = cache.shape[2]`: at least 3) are guesses that
    # the kernel's own exact rank corrects (see _convert_arg)
    interp._host_exact_ranks = set(_exact_rank_params(v.node, [p.arg for p in params]))
    values = _value_evidence(v.node, [p.arg for p in params])
    for p in a.args[len(bound):n_required]:
        ann = ast.unparse(p.annotation).split(".")[-1] if p.annotation is not None else None
        if ann == "int" or (ann is None and values.get(p.arg) == "int"):
            # a size the host code builds its arrays from (`run(b: int, ...)`: `torch.randn(b, h, s, d)` is 4-D
            # whatever the sizes are)
            args.append(interp.fresh_int(p.arg, "shape", 1))
        else:
            args.append(V.HostArray(None, None, p.arg))
    try:
        _call_host(interp, mod, v, args)
    finally:
        interp._host_rank_hints = {}
        interp._host_exact_ranks = set()


def _defines_kernel(fn: ast.AST) -> bool:
    """A nested function decorated with something named like `jit` (nki.jit, nki_jit, baremetal...)."""
    for n in walk(fn):
        if n is not fn and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(any(w in ast.unparse(d) for w in ("jit", "baremetal", "simulate", "benchmark"))
                   for d in n.decorator_list):
                return True
    return False


def _is_test_class(cls: V.ClassVal) -> bool:
    """A unittest.TestCase subclass, or a class pytest collects (`Test*` without an __init__)."""
    node = cls.node
    if not isinstance(node, ast.ClassDef):
        return False
    if any(ast.unparse(b).split(".")[-1] in ("TestCase", "IsolatedAsyncioTestCase") for b in node.bases):
        return True
    return cls.name.startswith("Test") and cls.lookup("__init__") is V.MISSING


def _explore_test_class(interp: Interpreter, mod: V.ModuleVal, cls: V.ClassVal, names: set) -> None:
    node = cls.node
    for st in node.body:
        if not isinstance(st, ast.FunctionDef) or not st.name.startswith("test"):
            continue
        method = cls.attrs.get(st.name)
        if not isinstance(method, V.FunctionVal) or method.kernel:
            continue
        inst = V.Instance(interp.heap, cls)
        setup = cls.lookup("setUp")
        if isinstance(setup, V.FunctionVal) and setup.module is mod:
            _call_host(interp, mod, setup, [inst])
        _explore_host_function(interp, mod, method, names, [inst])


def _call_host(interp: Interpreter, mod: V.ModuleVal, fv: V.FunctionVal, args: list) -> Any:
    """`fv(*args)` as host code run from the module's top level; V.ABORTED when it fails (host code is explored
    on a best-effort basis)."""
    frame = Frame.of_module(mod)
    saved = interp.frames
    interp.frames = [frame]
    interp.steps = 0
    try:
        return interp.invoke(fv, list(args), {}, fv.node)
    except Exception:  # noqa: BLE001
        return V.ABORTED
    finally:
        interp.frames = saved


_NO_SHAPE = object()  # (a host array whose shape the analysis leaves to the kernel: a symbol of its own)


def _launch_leaves(v: Any, depth: int = 0) -> Iterator:
    """The sizes and values in a launch argument or closure value: the items of tuples, lists and dicts, the
    dimensions of host arrays (`_NO_SHAPE` for an array of a shape not given), and the value itself."""
    if isinstance(v, V.HostArray):
        if v.shape is None:
            yield _NO_SHAPE
        else:
            yield from _launch_leaves(tuple(v.shape), depth)
    elif isinstance(v, (tuple, list, dict)):
        if depth < 4:
            for x in v.values() if isinstance(v, dict) else v:
                yield from _launch_leaves(x, depth + 1)
    else:
        yield v


def _unknown_in(v: Any) -> bool:
    """Does a launch argument or closure value hold a value the host code computed in a way not followed (an
    opaque value, or a size derived from one: `np.zeros((args.s, 128))`)?"""
    return any(isinstance(x, V.Unknown) or isinstance(x, (E.Expr, E.BExpr)) and
               any(getattr(s, "kind", "") == "unknown" for s in E.free_syms(x)) for x in _launch_leaves(v))


def _symbolic_in(v: Any) -> bool:
    """Does a launch argument or closure value hold a size that is a symbol (a launcher run with a symbol for each
    of its sizes): a launch for every value of it?"""
    return any(x is _NO_SHAPE or isinstance(x, (E.Expr, E.BExpr)) and bool(E.free_syms(x))
               for x in _launch_leaves(v))


def _tainted_launch(args: list, kwargs: dict) -> bool:
    return _unknown_in([args, kwargs])


def _without_unknown_twins(interp: Interpreter, kernels: list) -> list:
    """Kernels a host function defines and launches, built once per call of it: where one call passes symbols for
    the sizes (the launcher explored with a symbol for each) and another passes values the analysis does not
    follow (`bench(args.seq_len)` after `argparse`), the second adds nothing the first does not cover, only values
    not known (findings at a size of 0, undecided checks): it is dropped."""
    groups: dict = {}
    for kv in kernels:
        groups.setdefault(id(kv.func.node), []).append(kv)
    drop: set = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        tainted, symbolic = set(), False
        for kv in group:
            reads = {n.id for n in walk(kv.func.node) if isinstance(n, ast.Name)}
            cells = [env[name] for env in kv.func.closure for name in reads if name in env]
            launches = [(args, kwargs) for k, args, kwargs, _span in interp.launches if k.func is kv.func]
            if _unknown_in(cells) or any(_tainted_launch(args, kwargs) for args, kwargs in launches):
                tainted.add(id(kv))
            else:
                symbolic |= _symbolic_in(cells) or any(_symbolic_in([args, kwargs]) for args, kwargs in launches)
        if symbolic:
            drop |= tainted
    return [kv for kv in kernels if id(kv) not in drop]


def _contexts(interp: Interpreter, kv: V.KernelVal) -> list:
    name = kv.func.name
    opts = interp.options
    if name in opts.shapes or "*" in opts.shapes:
        shapes = dict(opts.shapes.get("*", {}))
        shapes.update(opts.shapes.get(name, {}))
        args = []
        kwargs = {}
        for p in kv.func.node.args.args:
            if p.arg in shapes:
                dims, dtype = shapes[p.arg]
                kwargs[p.arg] = V.HostArray(tuple(dims), dtype, p.arg)
        grid = getattr(opts, "grids", {}).get(name)
        return [LaunchContext("shapes from --shape", args, kwargs, tuple(grid) if grid else None)]
    out: list = []
    seen: set = set()
    for k, args, kwargs, span in interp.launches:
        if k.func is not kv.func:
            continue
        key = _context_key(interp, args, kwargs, k.grid)
        if key in seen:
            continue
        seen.add(key)
        out.append(LaunchContext(f"launched at line {span.line}", list(args), dict(kwargs), k.grid, span))
    if any(not _tainted_launch(c.args, c.kwargs) and _symbolic_in([c.args, c.kwargs]) for c in out):
        # (a launch with sizes not followed adds nothing to one with symbols for them)
        out = [c for c in out if not _tainted_launch(c.args, c.kwargs)]
    if not out:
        return [LaunchContext("standalone, symbolic shapes", [], {}, None)]
    return out[:MAX_CONTEXTS]


def _context_key(interp: Interpreter, args: list, kwargs: dict, grid: Any) -> str:
    def desc(v: Any) -> str:
        if isinstance(v, V.HostArray):
            return f"A{v.shape}:{v.dtype}" if v.shape is not None else f"A?{v.label}"
        if isinstance(v, (int, float, str, bool, type(None))):
            return repr(v)
        if isinstance(v, (E.Expr, E.BExpr)):
            return str(v)
        if isinstance(v, tuple):
            return "(" + ",".join(desc(x) for x in v) + ")"
        return type(v).__name__
    return desc(tuple(args)) + desc(tuple(sorted(kwargs.items()))) + desc(grid)


# ----------------------------------------------------------------------------- one kernel, one context


def run_with_retries(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext) -> list:
    """Run a kernel; when an input turns out to have another rank than guessed, run it again.  An input
    used with different ranks on different paths (`if in_sbuf: x[:, :, j] else: x[i, j]`) is analysed once
    per rank, each run following only the paths that fit its rank.  An optional input left at None that some
    paths dereference (`if use_bias: bias.dtype`) is analysed both ways: left at None (those paths dropped)
    and given.  When every run fails on every path with a parameter at its default, and that default is an enum
    member or a bool, the kernel is analysed with each other value instead (see `_other_defaults`)."""
    start = getattr(interp.oracle, "new_kernel", None)
    if start is not None:
        start()  # (the oracle's budget of solver calls is per kernel)
    interp._default_overrides = {}
    interp._failed_runs = []  # the kernels of runs on which every path failed (kept: compared by identity)
    interp._rank_memo = {}  # what the retries learnt of the inputs' ranks, for the next runs (see _run_with_retries)
    out = _run_given(interp, kv, ctx)
    # only runs that fail by the kernel's own asserts and raises, where the front end understood all it followed
    # (a path it gave up on fails for its own reasons; a name unbound on every path is a finding, NKI607)
    if _fails_everywhere(out):
        choices = _defaulted_choices(kv.func, ctx)
        others = _other_defaults(interp, kv, ctx, choices)
        if others:
            return others
        if choices:
            # (said on the run with the defaults: the runs with other values are dropped)
            every = sum(len(v) for _, _, v in choices) <= MAX_DEFAULT_RUNS
            values = f"{'every value' if every else 'other values'} of {', '.join(p for p, _, _ in choices)}"
            _, issues = out[-1]
            issues[:] = [dataclasses.replace(i, message=i.message.replace(
                "for the analysed inputs", f"for the analysed inputs and {values}")) for i in issues]
    return out


MAX_DEFAULT_RUNS = 8  # runs with another value of a defaulted parameter (see _other_defaults)


def _failed(interp: Interpreter, kernel: ir.Kernel) -> bool:
    return any(k is kernel for k in interp._failed_runs)


def _other_defaults(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext, choices: list) -> list:
    """The runs with another value of one parameter left at its default, when every path with the defaults fails
    (`scaling_mode: Mode = Mode.PRE_SCALE` and `if cfg.scaling_mode == Mode.PRE_SCALE: kernel_assert(False, "not
    implemented")`): a launch passes another value, and the kernel is analysed with each one it admits (a value
    whose run fails on every path too is dropped).  Enum members and bools only: their values are few and known.
    Parameters (`choices`, see _defaulted_choices) are tried in order; the first whose values let a run through
    is taken (empty: none did)."""
    runs = 0
    for param, default, values in choices:
        kept = []
        for value in values:
            if runs >= MAX_DEFAULT_RUNS:
                return kept
            runs += 1
            interp._default_overrides = {param: (value, default)}
            try:
                kept += [(k, i) for k, i in _run_given(interp, kv, ctx) if not _failed(interp, k)]
            finally:
                interp._default_overrides = {}
        if kept:
            return kept
    return []


def _defaulted_choices(fn: V.FunctionVal, ctx: LaunchContext) -> list:
    """[(param, default, other values)] of the kernel's parameters that the launch leaves at a default that is
    an enum member or a bool."""
    a = fn.node.args
    pos = a.posonlyargs + a.args
    pairs = list(zip([p.arg for p in pos[len(pos) - len(fn.defaults):]], fn.defaults))
    pairs += [(p.arg, fn.kwdefaults[p.arg]) for p in a.kwonlyargs if p.arg in fn.kwdefaults]
    supplied = {p.arg for p in pos[:len(ctx.args)]} | set(ctx.kwargs)
    out = []
    for name, d in pairs:
        if name in supplied:
            continue
        if isinstance(d, V.EnumMember):
            others = [v for v in d.cls.attrs.values() if isinstance(v, V.EnumMember) and v != d]
        elif isinstance(d, bool):
            others = [not d]
        else:
            continue
        if others:
            out.append((name, d, others))
    return out


def _run_given(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext) -> list:
    interp._given = set()  # optional inputs left at None that the kernel dereferences anyway: analysed as given
    interp._none_derefs = set()
    interp._none_tested = set()
    interp._given_why = {}  # param -> why it is analysed as given (see GivenRetry)
    interp._silent_runs = {}  # id(kernel) -> (span, where) of rank-split runs that failed on every path
    interp._deref_spans = {}  # optional input (or field) -> where a dropped path dereferences it
    out = _run_with_retries(interp, kv, ctx)
    tried: set = set()  # tensor inputs tested against None whose run with them given was dropped (see below)
    while True:
        # the run with the inputs given may drop paths of its own (another optional input, a field of the one
        # given): another run follows them with those given too, as long as that stays within MAX_GIVEN.  Each
        # run is kept: the previous one checked its paths with those inputs at None (with a bias given, an MX
        # path may assert it is None: only the run without it reaches that path's code; and the same check
        # may hold with the bias given and not without it)
        # (and a tensor input left at None that the kernel tests, `if bias is not None: ...`: the run with it at
        # None never reaches the code that uses it, which a launch with a bias runs)
        tested = {p for p in interp._none_tested if _tensor_param(kv.func, p)} - tried
        conditional = (interp._none_derefs | tested) - interp._given
        if not conditional or len(interp._given | conditional) > MAX_GIVEN:
            break
        only_tested = conditional - interp._none_derefs
        for p in sorted(only_tested):
            interp._given_why.setdefault(p, ir.GIVEN_TESTED)
        before, why_before = set(interp._given), dict(interp._given_why)
        interp._given |= conditional
        runs = _run_with_retries(interp, kv, ctx)
        if only_tested and _fails_everywhere(runs):
            # given together with the inputs given because every path without them fails (rope's cos and sin),
            # the tested one may be their alternative (`either rope_cache or cos and sin`): given in their place
            instead = {p for p in before if why_before.get(p) == ir.GIVEN_NONE_FAILS}
            if instead:
                interp._given = (before - instead) | conditional
                interp._given_why = {p: w for p, w in interp._given_why.items() if p not in instead}
                runs = _run_with_retries(interp, kv, ctx)
            if _fails_everywhere(runs):
                # no launch passes it with what else is given (`if bias is not None: assert False, "no bias
                # yet"`): a kernel that refuses an input is not at fault, and the run is dropped
                tried |= only_tested
                interp._given, interp._given_why = before, why_before
                if len(only_tested) > 1:
                    # given one at a time: a kernel may accept each but not both (`if scale is not None: assert
                    # bias is None`); a run that fails on every path is dropped as above
                    for p in sorted(only_tested):
                        interp._given = before | (conditional - only_tested) | {p}
                        interp._given_why = {**why_before, p: ir.GIVEN_TESTED}
                        one = _run_with_retries(interp, kv, ctx)
                        if not _fails_everywhere(one):
                            out += one
                    interp._given, interp._given_why = before, why_before
                continue
        out += runs
    left = sorted(interp._none_derefs - interp._given)
    if left and out:
        kernel, issues = out[-1]
        issues.append(ir.FrontendIssue(
            "NKI902", f"paths that dereference the optional input{'s' if len(left) > 1 else ''} "
            f"{', '.join(left)} left at None were not analysed: with {'them' if len(left) > 1 else 'it'} given, "
            f"more than {MAX_GIVEN} optional inputs would be (give shapes with --shape KERNEL.PARAM=DxD)",
            interp._deref_spans.get(left[0], kernel.span),
            kernel.name))
    return out


def _run_with_retries(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext, base: dict | None = None,
                      split: frozenset = frozenset()) -> list:
    """`base`, `split`: a run for one rank of an input used with several (see run_with_retries), whose paths
    for other ranks are dropped; the ranks of the other inputs are still corrected by retries."""
    # (the ranks a rerun starts from, FrontendResult.at_ranks: not for an input this run splits by rank)
    overrides: dict = {**{p: r for p, r in interp._forced_ranks.items() if p not in split}, **(base or {})}
    at_least: set = set()  # params whose rank is known only from below (an index into the shape): still a guess
    tried: dict = {}
    conflict = None
    soft: set = set()  # params whose rank comes from a soft hint (see RankRetry)
    interp._no_soft = set()  # params whose hint a use contradicted: their findings stand
    # the ranks an earlier run of this kernel learnt with the same base (the run before another optional input
    # was given, or another default tried) are where this one starts, as if its retries had gone on: it does
    # not find them again, one failed run each (moe_cte: 41 runs of the front end became 21, 24.7 s -> 9.6 s)
    # (keyed by the ranks of the inputs split on, not by the ranks the enclosing run learnt for the others: the
    # run for rank 2 of the gate/up weights with a scale given meets the down weights' conflict of ranks again,
    # three runs each time, when another optional input is given and the run before it learnt the scale's rank)
    memo_key = (tuple(sorted((p, r) for p, r in (base or {}).items() if p in split)), split,
                tuple(sorted(interp._default_overrides)))

    def remember(conflict: tuple | None) -> None:
        interp._rank_memo[memo_key] = (dict(overrides), set(at_least), {p: set(r) for p, r in tried.items()},
                                       set(soft), set(interp._no_soft), conflict)

    memo = interp._rank_memo.get(memo_key)
    if memo is not None:
        m_overrides, m_at_least, m_tried, m_soft, m_no_soft, conflict = memo
        overrides.update({p: r for p, r in m_overrides.items() if p not in (base or {})})
        at_least |= m_at_least
        tried = {p: set(r) for p, r in m_tried.items()}
        soft |= m_soft
        interp._no_soft |= m_no_soft
    for _ in range(0 if conflict is not None else 8 + 4):
        interp._rank_overrides = dict(overrides)
        interp._rank_at_least = set(at_least)
        interp._rank_split = set(split)
        interp._soft_ranks = set(soft)
        try:
            run = run_kernel(interp, kv, ctx)
            remember(None)
            dispatch = _rank_dispatch(interp, overrides, split)
            if dispatch is None:
                return [run]
            param, ranks, analysed = dispatch
            return _split_by_rank(interp, kv, ctx, overrides, split, param, ranks, (analysed, run))
        except V.GivenRetry as g:
            if g.param in interp._given or len(interp._given) >= MAX_GIVEN:
                break
            interp._given.add(g.param)
            interp._given_why[g.param] = g.why
        except V.RankRetry as r:
            if r.rank < V.KIND_FLOAT or r.rank > 8 or r.param in split:
                break
            seen = tried.setdefault(r.param, {overrides.get(r.param, r.from_rank or 2)})
            if r.soft:
                if r.rank in seen:
                    interp._no_soft.add(r.param)  # tried already: the hint is not followed again
                    continue
                soft.add(r.param)
            elif r.param in soft:
                # a use that settles the rank otherwise than the hint: it wins, and the hint is not taken again
                soft.discard(r.param)
                interp._no_soft.add(r.param)
                seen.clear()
            elif r.rank in seen:
                if r.rank > 0 and len(seen) >= 1 and all(x > 0 for x in seen):
                    conflict = (r.param, sorted(seen))
                break
            seen.add(r.rank)
            overrides[r.param] = r.rank
            if r.at_least:
                at_least.add(r.param)
            else:
                at_least.discard(r.param)
        finally:
            interp._rank_overrides = {}
            interp._rank_at_least = set()
            interp._rank_split = set()
    remember(conflict)
    if conflict is not None and len(split) < 2:
        param, ranks = conflict
        return _split_by_rank(interp, kv, ctx, overrides, split, param, ranks)
    interp._rank_overrides = dict(overrides)
    interp._rank_split = set(split)
    interp._soft_ranks = set(soft)
    interp._no_retry = True
    try:
        return [run_kernel(interp, kv, ctx)]
    finally:
        interp._no_retry = False
        interp._rank_overrides = {}
        interp._rank_split = set()


def _rank_dispatch(interp: Interpreter, overrides: dict, split: frozenset) -> tuple | None:
    """After a run that got through: an input whose rank is a guess (not stated by the kernel's own unpacking
    of its shape) and whose code dispatches on it (`if rank == 2: ... elif rank == 4: ...`, see
    Ops._note_rank_test) -> (the input, the ranks to analyse, the rank this run analysed).  The run's own
    tests agreed with its rank (one that did not was retried), so the other ranks come from the branches it
    did not take."""
    if len(split) >= 2:
        return None
    for param, ranks in interp._rank_tests.items():
        if param in split or param in interp._stated_params:
            continue
        analysed = interp._rank_tested_as.get(param)
        others = sorted(r for r in ranks if r != analysed)
        if analysed is not None and others:
            return param, sorted({analysed, *others}), analysed
    return None


def _split_by_rank(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext, overrides: dict, split: frozenset,
                   param: str, ranks: list, done: tuple | None = None) -> list:
    """One run per rank of an input the kernel uses with several, each dropping the paths of the other ranks
    (`done`: the rank a run already analysed and its result, kept).  A run whose code dispatches on ranks of
    the input not among them (a helper's `if rank == 2: ... elif rank == 5:` reached in the run for rank 2 of
    weights two unpackings disagree on) adds runs for those."""
    out = []
    ranks = list(ranks)
    interp._split_rank_tests.pop(param, None)
    i = 0
    while i < len(ranks):
        rank = ranks[i]
        i += 1
        if done is not None and rank == done[0]:
            out.append(done[1])
            continue
        out += _run_with_retries(interp, kv, ctx, {**overrides, param: rank}, split | {param})
        ranks += sorted(r for r in interp._split_rank_tests.pop(param, ()) if r not in ranks)
    silent = [interp._silent_runs.get(id(k)) for k, _ in out]
    if out and all(silent) and not split:
        # each run dropped the paths of the other ranks and failed on all of its own: no rank of the input
        # gets through, so the kernel fails for every input (said once, on the last run).  Within a run for
        # one rank of another input, the runs stay silent: that rank may be the one no path admits, which the
        # enclosing split tells from its other runs
        kernel, issues = out[-1]
        for k, _ in out:
            interp._silent_runs.pop(id(k), None)
        span, where = silent[-1]
        ranks_text = " and ".join(str(r) for r in ranks)
        issues.append(ir.FrontendIssue(
            "NKI901", f"{EVERY_PATH_FAILS} (an assert or raise always triggers) for every rank of input "
            f"{param!r} its uses admit ({ranks_text}){where}; nothing after it was checked", span, kernel.name,
            "warning"))
    return out


def run_kernel(interp: Interpreter, kv: V.KernelVal, ctx: LaunchContext) -> tuple:
    fn = kv.func
    dialect = kv.dialect or _module_dialect(fn.module)
    opts = interp.options
    target, origin = opts.target, ("option" if opts.target_explicit else "default")
    if not opts.target_explicit and kv.target:
        from ..spec.targets import ALIASES, TARGETS
        t = ALIASES.get(kv.target, kv.target)
        if t in TARGETS:
            target, origin = t, "kernel"
    saved_target = opts.target
    opts.target = target
    kb = KernelBuilder(fn.name, fn.module.path, dialect, target, interp.uids)
    kb.target_origin = origin
    for s in ctx.closure_syms:
        _register_host_syms(kb, s)
    interp.kb = kb
    # (a kernel run's own dtype predicates, each tied to this run's item size symbol where it is made: shared
    # with an earlier run, they had no fact here, and a tile's bytes disagreed with a helper's size table)
    interp._dtype_eqs = {}
    interp.frames = []
    interp.loop_tracks = []
    interp.loop_facts = []
    interp.every_iteration_loops = set()
    interp.asserted = set()
    interp._none_tests = {}
    interp._attr_none_origin = {}
    interp._last_none_test = None
    interp._last_abort = None
    interp.steps = 0
    span = interp.span(fn.node, fn.module)
    silent = None  # (span, where) when a rank-split run fails on every path (see _run_with_retries)
    failed = False  # every path failed (an assert, a raise, a name unbound on every path)
    params = [p.arg for p in fn.node.args.posonlyargs + fn.node.args.args]
    try:
        try:
            if ctx.grid is not None:
                kb.grid = tuple(_grid_dim(interp, kb, g) for g in ctx.grid)
                for g in kb.grid:
                    kb.assume(E.ge(g, 0), None, "grid")
            args, kwargs = _entry_args(interp, kb, fn, ctx)
            root = Frame(None, fn.module, (), "")
            root.kind = "module"
            root.locals = fn.module.namespace
            interp.frames = [root]
            interp.lint_kernel_signature(fn)
            interp.invoke(fn, args, kwargs, fn.node)
        except V.PathAbort:
            failed = True
            split = bool(getattr(interp, "_rank_split", None))
            dropped = interp._none_derefs - interp._given
            if dropped and not interp._no_retry and not split:
                # every path dereferences an optional input left at None: the kernel needs it.  (Not said by a
                # run for one rank of an input used with several: the runs for its other ranks may not need it,
                # moe_block_tkg's MX weights of rank 2 need their scales, its plain ones of rank 4 do not; the
                # input is given in another run, see _run_given)
                raise V.GivenRetry(sorted(dropped)[0]) from None
            tested = [p for p in interp._none_tests if p not in interp._given and
                      (_tensor_param(fn, p) or _numbers_param(interp, p))]
            if tested and not interp._no_retry and not split:
                # every path fails with an optional input left at None that the kernel tests (`if cache is not
                # None: ... else: assert cos is not None`): launches pass it.  Tensors only: an object given in
                # its place has only its annotated fields (`sbm: Optional[SbufManager]` has none), so what its
                # methods read would be unknown
                raise V.GivenRetry(tested[0], ir.GIVEN_NONE_FAILS) from None
            settled = interp.rank_settled()
            observed = [(p, r) for p, r in interp._rank_observed.items() if p not in settled and r < 8]
            if observed and not interp._no_retry:
                # every path fails after the code took the length of a shape whose rank is a guess: a larger rank
                # is tried (a hint: a use that settles the rank wins over it)
                param, rank = observed[-1]
                raise V.RankRetry(param, rank + 1, at_least=True, soft=True) from None
            if all(i.code in ("NKI901", "NKI902") for i in kb.issues) and not any(c.cond == E.FALSE for c in kb.checks):
                # (a finding the front end reported where a path fails, `w.shape[3]` of a 3-tuple, says why already)
                last = interp._last_abort
                where = f"; the last path fails at {_where(last, kb.path)}" if last is not None else ""
                if getattr(interp, "_rank_split", None):
                    # a run for one rank of an input used with several drops the paths of the other ranks: said
                    # only if the runs for its other ranks fail on every path too (see _run_with_retries)
                    silent = (span, where)
                else:
                    kb.issue("NKI901", f"{EVERY_PATH_FAILS} (an assert or raise always triggers) for "
                                       f"the analysed inputs{where}; nothing after it was checked", span, "warning")
        except V.NotUnderstood as exc:
            interp.not_understood(exc.message, exc.node or fn.node)
        except BudgetExceeded:
            kb.issue("NKI902", "the analysis of this kernel exceeded its step budget; the rest was not checked",
                     span)
        except V.RankRetry as r:
            if not getattr(interp, "_no_retry", False):
                raise
            kb.issue("NKI902", f"could not settle the rank of input {r.param!r}; pass it with --shape", span)
        except RecursionError:
            kb.issue("NKI902", "this kernel nests calls too deeply to follow", span)
    finally:
        interp.kb = None
        interp.frames = []
        opts.target = saved_target
    description = ctx.description
    given = tuple(sorted(interp._given))
    given_why = tuple(getattr(interp, "_given_why", {}).get(p, ir.GIVEN_DEREFERENCED) for p in given)
    for why, names in ir.given_groups(given, given_why):
        description += "; " + ", ".join(names) + f" given (optional, and {why})"
    # inputs with a None default, analysed as None or as a value: a launch may choose the other
    optional = tuple(sorted(getattr(interp, "_placeholders", set()) | getattr(interp, "_none_defaults", set())))
    chosen = tuple((p, _value_text(v), _value_text(d)) for p, (v, d) in getattr(interp, "_default_overrides",
                                                                                {}).items())
    for p, v, d in chosen:
        description += f"; {p}={v} (every path with its default {d} fails)"
    kernel = kb.build(span, description, tuple(params), given, given_why, optional, chosen, _inout_params(fn.node),
                      _guessed_inputs(interp, kb))
    if silent is not None:
        interp._silent_runs[id(kernel)] = silent
    if failed:
        interp._failed_runs.append(kernel)
    issues = list(kb.issues)
    if given:
        # a finding of the front end's (a name unbound, a TypeError while tracing) on this run's paths holds for
        # the launches that pass these inputs: said, as the checks' findings say it
        notes = tuple((span, text) for text in ir.given_notes(given, given_why))
        issues = [dataclasses.replace(i, notes=i.notes + notes) if i.code in TRACE_ERRORS else i for i in issues]
    return kernel, issues


TRACE_ERRORS = frozenset({"NKI607", "NKI608", "NKI609"})  # what Python raises while tracing the run's paths


def _guessed_inputs(interp: Interpreter, kb: KernelBuilder) -> tuple:
    """(name, rank) of the inputs whose rank this run still only guesses: not stated by the kernel, not agreed
    with by a use (`a, b = x.shape` in a helper, `x.shape == (n, d)`), not fixed by a use that corrected it (a
    retry; a soft hint, from a call that fails at the guess, is still a guess), not split by rank."""
    settled = (interp._rank_confirmed | interp._stated_params | set(getattr(interp, "_rank_split", ()))
               | (interp._exact_params - interp._soft_ranks))
    out = {}
    for tid, name in interp._guessed_ranks.items():
        if name not in settled and 0 <= tid < len(kb.tensors) and isinstance(name, str):
            out[name] = len(kb.tensors[tid].shape)
    return tuple(sorted(out.items()))


def _inout_params(node: ast.AST) -> tuple:
    """Parameters a Beta-1 kernel may write in place: annotated `nt.mutable_tensor` (the Beta-1 errors
    page's way to make an input writable) or `nt.tensor[nt.mutable]`, or all of an `@nki.trace` function's (a
    sub-kernel, which its caller hands buffers to update)."""
    a = node.args
    params = [p for p in a.posonlyargs + a.args + a.kwonlyargs]
    traced = any((_callee(d) if isinstance(d, ast.Call) else d.attr if isinstance(d, ast.Attribute)
                  else getattr(d, "id", None)) == "trace" for d in node.decorator_list)
    return tuple(p.arg for p in params if traced or (p.annotation is not None and
                                                     re.search(r"\bmutable", ast.unparse(p.annotation)) is not None))


def _value_text(v: Any) -> str:
    return f"{v.cls.name}.{v.name}" if isinstance(v, V.EnumMember) else repr(v)


def _names_tensor(ann: str) -> bool:
    """An annotation's text names a tensor type (`nl.ndarray`, `Optional[nt.tensor]`)."""
    return any(t in ann for t in TENSOR_ANNOTATIONS)


def _fails_everywhere(runs: list) -> bool:
    """Every run of the list failed on every path, by the kernel's own asserts and raises.  (Also where part of
    the kernel was not understood, NKI902: a statement not understood leaves its targets unknown and the path
    goes on, so it is not what made the paths fail.)"""
    return bool(runs) and all(any(i.code == "NKI901" and i.message.startswith(EVERY_PATH_FAILS)
                                                 for i in issues) for k, issues in runs)


def _numbers_param(interp: Interpreter, name: str) -> bool:
    """A parameter the kernel reads as an int or a tuple of ints (`block_size[1] * scale.shape[1]`): given in
    place of its None default, it is symbols the kernel's own asserts constrain."""
    kind = getattr(interp, "_value_params", {}).get(name)
    return isinstance(kind, str) and kind.split(":")[0] in ("int", "sizes", "pairs")


def _tensor_param(fn: Any, name: str) -> bool:
    """A parameter of `fn` annotated as a tensor (or not annotated)."""
    a = fn.node.args
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        if p.arg == name:
            ann = ast.unparse(p.annotation) if p.annotation is not None else ""
            return not ann or _names_tensor(ann)
    return False


def _where(span: ir.Span, entry_file: str) -> str:
    """`line 12` (in the kernel's file) or `helpers.py:12`, with the call that reaches it from the kernel, and
    where the function holding it was called when that is another call (an assertion helper's caller, where the
    condition is: `kernel_assert.py:17, called at router_topk.py:260`)."""

    def place(s: ir.Span) -> str:
        return f"line {s.line}" if s.file == entry_file else f"{os.path.basename(s.file)}:{s.line}"

    at = place(span)
    via = getattr(span, "via", None)
    if via:
        if len(via) > 1:
            at += f", called at {place(via[-1])}"
        at += f" (reached through the call at line {via[0].line})"
    return at


def _grid_dim(interp: Interpreter, kb: KernelBuilder, g: Any) -> E.IntLike:
    if isinstance(g, V.HostArray) and g.shape is None and g.label:
        # a launcher's parameter (taken for an array until used) that sizes the grid: an integer the host passes
        return kb.new_sym(g.label, "grid", 1)
    v = interp.as_int(g, "a grid dimension")
    _register_host_syms(kb, v)
    return v


def _register_host_syms(kb: KernelBuilder, v: Any) -> None:
    """Symbols created by host code (launch shapes) become the kernel's input symbols."""
    exprs = [v] if isinstance(v, (E.Expr, E.BExpr)) else [x for x in (v if isinstance(v, tuple) else ())
                                                             if isinstance(x, E.Expr)]
    known = {info.sym for info in kb.symbols}
    for e in exprs:
        for s in E.free_syms(e):
            if isinstance(s, E.Sym) and s not in known:
                role = "shape" if s.kind == "shape" else "scalar"
                lo = 1 if role == "shape" else None
                kb.add_symbol(ir.SymInfo(s, role, s.name, E.lift(lo) if lo is not None else None, None))
                kb.ranges[s] = E.Interval(lo, None)
                known.add(s)


def _entry_args(interp: Interpreter, kb: KernelBuilder, fn: V.FunctionVal, ctx: LaunchContext) -> tuple:
    a = fn.node.args
    pos = a.posonlyargs + a.args
    interp._entry_module = fn.module
    hints = _rank_hints(fn.node, [p.arg for p in pos])
    overrides = dict(getattr(interp, "_rank_overrides", {}))
    interp._kind_overrides = {p: r for p, r in overrides.items() if r <= 0}
    interp._guessed_kind = {}
    exact = {p: r for p, r in overrides.items() if r > 0 and p not in getattr(interp, "_rank_at_least", ())}
    interp._guessed_ranks = {}
    interp._tile_from_guess = {}  # tile id -> (param, its guessed rank, the rank of the view it came from)
    interp._derived_from_guess = {}  # result id -> (param, its guessed rank) of a result made from such a tile
    # a rank learnt from one use (`exact`) is still a guess at the next: a use with another rank on another path
    # (one implementation of a dispatching kernel unpacks `T, H = x.shape`, another `B, T, H = x.shape`) is a
    # conflict, analysed once per rank (see _run_with_retries), not a path the front end does not understand
    interp._stated_params = set(_exact_rank_params(fn.node, [p.arg for p in pos]))
    interp._exact_params = interp._stated_params | set(exact)
    interp._rank_confirmed = set()  # guessed ranks a use agreed with (`a, b = x.shape`): no hint moves them
    interp._rank_observed = {}
    interp._rank_tests = {}
    interp._rank_tested_as = {}
    hints.update({p: r for p, r in overrides.items() if r > 0})
    evidence = _tensor_evidence(fn.node, [p.arg for p in pos])
    interp._value_params = _value_evidence(fn.node, [p.arg for p in pos + a.kwonlyargs])
    for name, kind in _helper_evidence(fn, [p.arg for p in pos + a.kwonlyargs]).items():
        if name not in evidence:
            interp._value_params.setdefault(name, kind)
    pm = interp.index.parse(fn.module.path) if fn.module is not None else None
    if pm is not None and pm.tree is not None:
        for name in _float_launch_args(pm.tree, fn.node):
            if name not in evidence:
                interp._value_params.setdefault(name, "float")
    interp._none_tested = _none_tested(fn.node, {p.arg for p in pos + a.kwonlyargs})
    interp._none_defaults = set()
    interp._placeholders = set()
    interp._optional_fields = _optional_tensor_fields(interp, fn)
    n_defaults = len(fn.defaults)
    chosen = {p: v for p, (v, _) in getattr(interp, "_default_overrides", {}).items()}
    args: list = []
    kwargs: dict = {}
    for i, p in enumerate(pos):
        # a launch argument the host code computed in a way not followed (`np.sort(x).reshape(...)`), or a
        # launcher's own parameter the kernel only computes with as a number (`split[lnc](x, parts)` with
        # `x.shape[0] % parts`), is the parameter as if launched standalone
        if i < len(ctx.args) and _forwarded_scalar(interp, p, ctx.args[i], evidence):
            args.append(_symbolic_param(interp, kb, p, hints, evidence))
            continue
        if i < len(ctx.args) and not isinstance(ctx.args[i], V.Unknown):
            args.append(_convert_arg(interp, kb, p.arg, ctx.args[i], hints))
            continue
        if p.arg in ctx.kwargs and not isinstance(ctx.kwargs[p.arg], V.Unknown):
            args.append(_convert_arg(interp, kb, p.arg, ctx.kwargs[p.arg], hints))
            continue
        if i < len(ctx.args) or p.arg in ctx.kwargs:
            args.append(_symbolic_param(interp, kb, p, hints, evidence))
            continue
        j = i - (len(pos) - n_defaults)
        if p.arg in chosen:
            args.append(chosen[p.arg])
            continue
        if j >= 0 and not _placeholder_default(interp, p, fn.defaults[j]) and not _given(interp, p, fn.defaults[j]):
            args.append(fn.defaults[j])
            continue
        if j >= 0 and fn.defaults[j] is None:
            interp._placeholders.add(p.arg)
        args.append(_symbolic_param(interp, kb, p, hints, evidence))
    for p in a.kwonlyargs:
        if p.arg in ctx.kwargs and not isinstance(ctx.kwargs[p.arg], V.Unknown):
            kwargs[p.arg] = _convert_arg(interp, kb, p.arg, ctx.kwargs[p.arg], hints)
        elif p.arg in chosen:
            kwargs[p.arg] = chosen[p.arg]
        elif (p.arg not in fn.kwdefaults or _placeholder_default(interp, p, fn.kwdefaults[p.arg])
              or _given(interp, p, fn.kwdefaults[p.arg])):
            if p.arg in fn.kwdefaults and fn.kwdefaults[p.arg] is None:
                interp._placeholders.add(p.arg)
            kwargs[p.arg] = _symbolic_param(interp, kb, p, hints, evidence)
    # what the launch passes beyond the named parameters goes to `*args` and `**kwargs` (`kernel(x, scale=2.0)`
    # for `def kernel(a, **kwargs)` reading `kwargs['scale']`)
    if a.vararg is not None:
        args += [_convert_arg(interp, kb, a.vararg.arg, v, hints) for v in ctx.args[len(pos):]
                 if not isinstance(v, V.Unknown)]
    if a.kwarg is not None:
        named = {p.arg for p in pos + a.kwonlyargs}
        kwargs.update({k: _convert_arg(interp, kb, k, v, hints) for k, v in ctx.kwargs.items()
                       if k not in named and not isinstance(v, V.Unknown)})
    return args, kwargs


def _none_tested(fn_node: ast.AST, params: set) -> set:
    """Parameters the kernel compares with None (`x is None`, `x is not None`, `x == None`)."""
    out: set = set()
    for n in walk(fn_node):
        if isinstance(n, ast.Compare) and len(n.comparators) == 1:
            sides = (n.left, n.comparators[0])
            if any(isinstance(x, ast.Constant) and x.value is None for x in sides):
                out |= {x.id for x in sides if isinstance(x, ast.Name) and x.id in params}
    return out


def _forwarded_scalar(interp: Interpreter, p: ast.arg, v: Any, evidence: set) -> bool:
    """A launcher's parameter passed on as is (to the launcher, an array of unknown shape), where the kernel uses
    the parameter only as a number (`_value_evidence`) and never as a tensor (`_tensor_evidence`)."""
    return isinstance(v, V.HostArray) and v.shape is None and p.arg not in evidence and \
        getattr(interp, "_value_params", {}).get(p.arg) in ("int", "value")


def _given(interp: Interpreter, p: ast.arg, default: Any) -> bool:
    """A None default the analysis replaces by a symbolic input: the kernel dereferences it on a path every
    launch takes (see `GivenRetry`).  Other None defaults are recorded, so that such a use is recognised."""
    if default is not None:
        return False
    if p.arg in getattr(interp, "_given", ()):
        return True
    interp._none_defaults.add(p.arg)
    return False


def _placeholder_default(interp: Interpreter, p: ast.arg, default: Any) -> bool:
    """`block_size: int = None`: a None default under a non-optional int or tensor annotation (or, without an
    annotation, of a parameter the kernel computes with as an int) is a placeholder the caller always
    replaces, not a value to analyse with."""
    if default is not None:
        return False
    if p.arg in getattr(interp, "_none_tested", ()):
        return False  # the kernel asks whether it is None (`if cp_deg is not None:`): None is a real choice
    if p.annotation is None:
        return getattr(interp, "_value_params", {}).get(p.arg) == "int"
    ann = ast.unparse(p.annotation)
    if "Optional" in ann or "None" in ann or "|" in ann or "Union" in ann:
        return False
    base = ann.split("[")[0].split(".")[-1]
    return SCALAR_ANNOTATIONS.get(base) == "int" or any(t == base for t in TENSOR_ANNOTATIONS)


def _convert_arg(interp: Interpreter, kb: KernelBuilder, name: str, v: Any, hints: dict, depth: int = 0) -> Any:
    if isinstance(v, V.HostArray):
        if v.shape is not None and v in interp._guessed_host_arrays and name in interp._exact_params and \
                hints.get(name, 0) > len(v.shape):
            # the launcher only read the first dimensions of an array the kernel unpacks whole: the rest follow
            more = range(len(v.shape), hints[name])
            v.shape = tuple(v.shape) + tuple(interp.fresh_int(f"{v.label or name}.shape[{i}]", "shape", 1)
                                             for i in more)
        if v in interp._unread_host_arrays and name in interp._exact_params and hints.get(name, 0) != len(v.shape):
            v.shape = None  # a rank this function guessed, for an array the launcher never measured: corrected
        if v.shape is None:
            v.shape = tuple(interp.fresh_int(f"{name}.shape[{i}]", "shape", 1) for i in range(hints.get(name, 2)))
            interp._unread_host_arrays.add(v)
        shape = tuple(v.shape)
        for d in shape:
            _register_host_syms(kb, d)
        tv = interp.new_tensor(name, _param_buffer(kb), shape, v.dtype, None, "param")
        if (v in interp._guessed_host_arrays or v in interp._unread_host_arrays) and name not in interp._exact_params:
            # a guessed rank, like a standalone input's: a use with another (`tuple(value.shape) == (1, h, s, d)`)
            # corrects it and the launch is analysed again
            interp._guessed_ranks[tv.tensor.id] = name
        return tv
    if isinstance(v, (E.Expr, E.BExpr)):
        _register_host_syms(kb, v)
    if isinstance(v, V.Instance) and depth < 3 and any(isinstance(x, (V.HostArray, V.Instance))
                                                       for x in v.attrs.values()):
        # a configuration object the launcher built around its arrays (`QuantConfig(scale=s)`): the kernel sees
        # those fields as input tensors (a copy: the launcher's own object keeps its arrays)
        inst = V.Instance(v.heap, v.cls)
        inst.attrs.update({k: _convert_arg(interp, kb, f"{name}.{k}", x, hints, depth + 1)
                           for k, x in v.attrs.items()})
        return inst
    if depth < 3 and isinstance(v, (tuple, V.PyList)) and _holds_arrays(v):
        # arrays inside a list or tuple the launcher passes (`layers=[(w0, b0), (w1, b1)]`): input tensors too
        items = v.items if isinstance(v, V.PyList) else v
        conv = [_convert_arg(interp, kb, f"{name}[{i}]", x, hints, depth + 1) for i, x in enumerate(items)]
        return tuple(conv) if isinstance(v, tuple) else V.PyList(v.heap, conv, v.tail)
    return v


def _holds_arrays(v: Any, depth: int = 0) -> bool:
    items = v.items if isinstance(v, V.PyList) else v if isinstance(v, tuple) else ()
    return depth < 3 and any(isinstance(x, V.HostArray) or _holds_arrays(x, depth + 1) for x in items)


def _param_buffer(kb: KernelBuilder) -> str:
    """Kernel inputs live in HBM; in Beta 2 they are shared by the cores of a launch (shared_hbm)."""
    return ir.SHARED_HBM if kb.dialect == ir.B2 else ir.HBM


def _symbolic_param(interp: Interpreter, kb: KernelBuilder, p: ast.arg, hints: dict, evidence: set) -> Any:
    ann = ast.unparse(p.annotation) if p.annotation is not None else ""
    base = ann.split("[")[0].split(".")[-1]
    if base in SCALAR_ANNOTATIONS and p.arg not in evidence:
        kind = SCALAR_ANNOTATIONS[base]
        if kind == "int":
            return kb.new_sym(p.arg, "scalar")
        if kind == "bool":
            return kb.new_bsym(p.arg)
        if kind == "float":
            return V.OPAQUE_FLOAT
        return V.Unknown(f"string parameter {p.arg}")
    if base in ("tuple", "Tuple", "list", "List", "dict", "Dict") and p.arg not in evidence:
        return V.Unknown(f"parameter {p.arg}")
    if ann and not _names_tensor(ann) and p.arg not in evidence:
        cls = _annotation_class(interp, p)
        if cls is not None:
            return interp.class_input(cls, p.arg, "scalar")
        return V.Unknown(f"parameter {p.arg} of type {ann}")
    kind = getattr(interp, "_value_params", {}).get(p.arg)
    if isinstance(kind, str) and kind.split(":")[0] in ("int", "value", "sizes", "pairs") and ann and \
            _names_tensor(ann) and base not in ("tuple", "Tuple", "list", "List", "Sequence"):
        kind = None  # (`x: nt.tensor`, the name later holding a number: the annotation says what the input is)
    forced = getattr(interp, "_kind_overrides", {}).get(p.arg)
    if forced == V.KIND_INT:
        return kb.new_sym(p.arg, "scalar")
    if forced == V.KIND_OBJECT:
        return _object_param(interp, kb, p)
    if forced == V.KIND_FLOAT:
        return V.OPAQUE_FLOAT
    if kind == "int" and p.arg not in evidence:
        return kb.new_sym(p.arg, "scalar")
    if kind == "value" and p.arg not in evidence:
        return V.Unknown(f"parameter {p.arg}")
    if kind == "float" and p.arg not in evidence:
        return V.OPAQUE_FLOAT
    if isinstance(kind, str) and kind.startswith("pairs:") and p.arg not in evidence:
        # `(lo, hi) = padding[0]`: a tuple of tuples of numbers (paddings may be 0)
        n, m = (int(x) for x in kind.split(":")[1:])
        return tuple(tuple(kb.new_sym(f"{p.arg}[{i}][{j}]", "shape", 0) for j in range(m)) for i in range(n))
    if isinstance(kind, str) and kind.startswith("sizes:") and p.arg not in evidence:
        return tuple(kb.new_sym(f"{p.arg}[{i}]", "shape", 1) for i in range(int(kind.split(":")[1])))
    if isinstance(kind, str) and kind.startswith("tensors:") and p.arg not in evidence:
        # a tuple of input tensors (each of a guessed rank, as a standalone input's)
        out = []
        for i in range(int(kind.split(":")[1])):
            label = f"{p.arg}[{i}]"
            shape = tuple(kb.new_sym(f"{label}.shape[{j}]", "shape", 1) for j in range(2))
            tv = interp.new_tensor(label, _param_buffer(kb), shape, None, p, "param")
            interp._guessed_ranks[tv.tensor.id] = label
            out.append(tv)
        return tuple(out)
    rank = hints.get(p.arg, 2)
    shape = tuple(kb.new_sym(f"{p.arg}.shape[{i}]", "shape", 1) for i in range(rank))
    tv = interp.new_tensor(p.arg, _param_buffer(kb), shape, None, p, "param")
    if p.arg not in interp._stated_params:
        interp._guessed_ranks[tv.tensor.id] = p.arg
    if p.arg not in evidence and not (ann and _names_tensor(ann)):
        interp._guessed_kind[tv.tensor.id] = p.arg
    return tv


def _object_param(interp: Interpreter, kb: KernelBuilder, p: ast.arg) -> Any:
    """A parameter used as an object: an instance of its annotated class with symbolic fields, else opaque."""
    cls = _annotation_class(interp, p)
    if cls is not None:
        return interp.class_input(cls, p.arg, "scalar")
    return V.Unknown(f"parameter {p.arg} (an object the kernel takes as input)")


def _optional_tensor_fields(interp: Interpreter, fn: Any) -> dict:
    """field name -> (parameter, field) for the fields of the kernel's object parameters (`quant:
    Optional[QuantConfig] = None`) annotated as optional tensors with the default None: a field such a
    parameter leaves at None that the kernel dereferences is analysed as given (see none_default_used)."""
    a = fn.node.args
    out: dict = {}
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        cls = _annotation_class(interp, p) if p.annotation is not None and not _names_tensor(
            ast.unparse(p.annotation)) else None
        if cls is None or cls.is_enum:
            continue
        for name, ann in annotated_fields(cls):
            text = ast.unparse(ann)
            if "Optional" in text and _names_tensor(text) and cls.lookup(name) is None:
                out.setdefault(name, (p.arg, name))
    return out


def _annotation_class(interp: Interpreter, p: ast.arg) -> V.ClassVal | None:
    """The user class a parameter is annotated with (`cfg: TileConfig`, `Optional[TileConfig]`, an enum), if
    any."""
    node = p.annotation
    if node is None:
        return None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Optional":
        node = node.slice
    mod = getattr(interp, "_entry_module", None)
    if mod is None:
        return None
    frame = Frame.of_module(mod)
    saved = interp.frames
    interp.frames = [frame]
    try:
        v = interp.eval(node)
    except Exception:  # noqa: BLE001 - an annotation we cannot evaluate says nothing
        v = None
    finally:
        interp.frames = saved
    return v if isinstance(v, V.ClassVal) else None


# ----------------------------------------------------------------------------- syntactic hints


def _rank_hints(fn_node: ast.AST, params: list) -> dict:
    """Ranks of tensor parameters, inferred from how the body uses them."""
    ps = set(params)
    exact: dict = {}
    at_least: dict = {}

    def note(name: str, r: int) -> None:
        at_least[name] = max(at_least.get(name, 0), r)

    rebound = _rebound_at(fn_node, ps)

    def shape_of(n: ast.AST) -> str | None:
        # (a use after the parameter's name was rebound, `k, v = squeeze(k, v)`, is another value's)
        if isinstance(n, ast.Attribute) and n.attr == "shape" and isinstance(n.value, ast.Name) and \
                n.value.id in ps and n.lineno <= rebound.get(n.value.id, n.lineno):
            return n.value.id
        return None

    for n in walk(fn_node):
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], (ast.Tuple, ast.List)):
            src = shape_of(n.value)
            if src and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts):
                exact[src] = len(n.targets[0].elts)
        elif isinstance(n, ast.Subscript):
            src = shape_of(n.value)
            if src and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, int):
                k = n.slice.value
                note(src, k + 1 if k >= 0 else -k)
            elif isinstance(n.value, ast.Name) and n.value.id in ps and n.lineno <= rebound.get(n.value.id, n.lineno):
                sl = n.slice
                elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                if not any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts):
                    note(n.value.id, len([e for e in elts if not (isinstance(e, ast.Constant) and e.value is None)]))
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq):
            lhs, rhs = n.left, n.comparators[0]
            for a, b in ((lhs, rhs), (rhs, lhs)):
                name = None
                if isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == "len" and a.args:
                    name = shape_of(a.args[0])
                elif isinstance(a, ast.Attribute) and a.attr == "ndim" and isinstance(a.value, ast.Name):
                    name = a.value.id if a.value.id in ps and a.lineno <= rebound.get(a.value.id, a.lineno) else None
                if name and isinstance(b, ast.Constant) and isinstance(b.value, int):
                    exact.setdefault(name, b.value)
    out = dict(at_least)
    for k, v in exact.items():
        out[k] = v
    for k, v in list(out.items()):
        if v < 1:
            del out[k]
    vectors = _vector_params(fn_node, ps)
    return {k: (v if k in exact or k in vectors else max(v, 2)) for k, v in out.items()}


def _vector_params(fn_node: ast.AST, ps: set) -> set:
    """Parameters the body only ever reads as vectors: subscripted with one index (`bias[a:b]`), its
    `shape[0]`, its dtype; nothing else (not passed on, not used whole, no other dimension).  Their rank is
    guessed to be 1, not 2 (`bias[o:o + 128]` of a 2-D guess is a 128 x bias.shape[1] block, and a copy of it
    into a (128, 1) tile was a false NKI501); a use that says otherwise corrects the guess as for any other."""
    parent: dict = {}
    for n in walk(fn_node):
        for c in ast.iter_child_nodes(n):
            parent[id(c)] = n
    simple: dict = {}
    for n in walk(fn_node):
        if not (isinstance(n, ast.Name) and n.id in ps and isinstance(n.ctx, ast.Load)):
            continue
        up = parent.get(id(n))
        ok = False
        if isinstance(up, ast.Subscript) and up.value is n:
            sl = up.slice
            ok = not isinstance(sl, ast.Tuple) and not (isinstance(sl, ast.Constant) and sl.value in (Ellipsis, None))
        elif isinstance(up, ast.Attribute) and up.attr == "dtype":
            ok = True
        elif isinstance(up, ast.Attribute) and up.attr == "shape":
            top = parent.get(id(up))
            ok = isinstance(top, ast.Subscript) and top.value is up and isinstance(top.slice, ast.Constant) and \
                top.slice.value == 0
        simple[n.id] = simple.get(n.id, True) and ok
    return {k for k, v in simple.items() if v}


FLOAT_FUNCS = frozenset({"sqrt", "exp", "log", "log2", "log10", "pow", "float", "rsqrt", "tanh", "cos", "sin"})


def _float_valued(e: ast.AST) -> bool:
    """An expression that is a Python float whatever the names in it hold: a float literal, `math.sqrt(...)`,
    `float(...)`, `torch.finfo(dtype).min`, and arithmetic on those with numbers."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, float)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _float_valued(e.operand)
    if isinstance(e, ast.BinOp):
        sides = (e.left, e.right)
        return any(_float_valued(x) for x in sides) and all(
            _float_valued(x) or isinstance(x, ast.Constant) and isinstance(x.value, int) for x in sides)
    if isinstance(e, ast.Call):
        return _callee(e) in FLOAT_FUNCS and (isinstance(e.func, ast.Name) or (
            isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
            and e.func.value.id in ("math", "np", "numpy")))
    if isinstance(e, ast.Attribute) and e.attr in ("min", "max", "eps", "tiny", "smallest_normal"):
        return isinstance(e.value, ast.Call) and _callee(e.value) == "finfo"
    return False


def _float_launch_args(tree: ast.Module, fn_node: ast.AST) -> list:
    """Parameters of kernel `fn_node` that every call of it in the module that binds them binds to a float
    (`kernel(q, k, math.sqrt(d), mask, torch.finfo(q.dtype).min)`, `kernel[grid](x, 1.0 / h)`): numbers, not
    tensors, though the kernel only computes with them (`tile / scale`).  Syntactic, like a reader's."""
    a = fn_node.args
    pos = [p.arg for p in a.posonlyargs + a.args]
    names = set(pos) | {p.arg for p in a.kwonlyargs}
    seen: dict = {}
    for n in walk(tree):
        if not isinstance(n, ast.Call):
            continue
        f = n.func.value if isinstance(n.func, ast.Subscript) else n.func
        if not (isinstance(f, ast.Name) and f.id == fn_node.name or isinstance(f, ast.Attribute)
                and f.attr == fn_node.name):
            continue
        if any(isinstance(x, ast.Starred) for x in n.args):
            continue
        bound = list(zip(pos, n.args)) + [(k.arg, k.value) for k in n.keywords if k.arg in names]
        for name, arg in bound:
            seen[name] = seen.get(name, True) and _float_valued(arg)
    return sorted(name for name, is_float in seen.items() if is_float)


def _value_evidence(fn_node: ast.AST, params: list) -> dict:
    """Parameters used like Python values rather than tensors: 'int' (arithmetic, ranges) or 'value'
    (compared with dtypes/constants, passed as dtype=)."""
    from ..spec import dtypes as D

    # a local that is only another name for a parameter (`B = block_size`) gives evidence for the parameter
    alias = {p: p for p in params}
    stores: dict = {}
    for n in walk(fn_node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    for n in walk(fn_node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, ast.Name) and n.value.id in params and n.targets[0].id not in alias and \
                stores.get(n.targets[0].id) == 1:
            alias[n.targets[0].id] = n.value.id
    out: dict = {}
    for n in walk(fn_node):
        if isinstance(n, ast.keyword) and n.arg in ("dtype", "op", "op0", "op1", "engine") and isinstance(
                n.value, ast.Name) and n.value.id in alias:
            out[alias[n.value.id]] = "value"
        elif isinstance(n, ast.keyword) and n.arg == "mask":
            # a Beta-1 mask compares index expressions with sizes: `mask=(512 * ix + iy < n)`
            for c in walk(n.value):
                if isinstance(c, ast.Compare):
                    for s in [c.left] + list(c.comparators):
                        if isinstance(s, ast.Name) and s.id in alias:
                            out.setdefault(alias[s.id], "int")
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], (ast.Tuple, ast.List)) \
                and isinstance(n.value, ast.Name) and n.value.id in alias and \
                all(isinstance(e, ast.Name) for e in n.targets[0].elts):
            # `p, f = out_shape`: a tuple of that many sizes (a tensor is not unpacked by its rows in a kernel); of
            # tensors when the kernel uses the names so (`a, b = pair` and then `a[0:128]`, `a.shape`)
            names = {e.id for e in n.targets[0].elts}
            as_tensor = any(isinstance(u, (ast.Subscript, ast.Attribute)) and isinstance(u.value, ast.Name) and
                            u.value.id in names and (isinstance(u, ast.Subscript) or
                                                     u.attr in TENSOR_ATTRS | {"view"})
                            for u in walk(fn_node))
            out[alias[n.value.id]] = f"{'tensors' if as_tensor else 'sizes'}:{len(n.targets[0].elts)}"
        elif isinstance(n, ast.Compare):
            sides = [n.left] + list(n.comparators)
            names = [alias[s.id] for s in sides if isinstance(s, ast.Name) and s.id in alias]
            consts = [e for s in sides if isinstance(s, (ast.List, ast.Tuple, ast.Set)) for e in s.elts]
            if names and consts and all(isinstance(e, ast.Constant) for e in consts) and \
                    all(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops):
                # `perm == [0, 1, 2, 3]`: a list of values (a tensor compared so would be a tile of booleans)
                for nm in names:
                    out[nm] = "value"
            elif names and consts and all(isinstance(e, ast.Constant) for e in consts) and \
                    any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
                # `assert mode in ["copy", "double"]`: one of these values
                kind = "int" if all(type(e.value) is int for e in consts) else "value"
                for nm in names:
                    out[nm] = kind if kind == "value" else out.get(nm, kind)
            attrs = [s for s in sides if isinstance(s, ast.Attribute)]
            if names and any(D.canonical(a.attr) is not None or a.attr.isupper() for a in attrs):
                for nm in names:
                    out[nm] = "value"
            if names and any(isinstance(s, ast.Constant) and isinstance(s.value, (str, bool)) for s in sides):
                for nm in names:
                    out[nm] = "value"
            if names and any(isinstance(s, ast.Constant) and type(s.value) is int for s in sides):
                for nm in names:
                    out.setdefault(nm, "int")
            if any(_is_shape(s) for s in sides):
                # `x.shape == (batch, heads, n, d)`: the names in the tuple are sizes
                for s in sides:
                    for e in s.elts if isinstance(s, (ast.Tuple, ast.List)) else ():
                        if isinstance(e, ast.Name) and e.id in alias:
                            out.setdefault(alias[e.id], "int")
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            # kernel inputs are HBM tensors, which no operator computes on: a parameter in integer-style
            # arithmetic (bank * BANK_SIZE, n // 128) is a scalar argument
            for side in (n.left, n.right):
                if isinstance(side, ast.Name) and side.id in alias:
                    out.setdefault(alias[side.id], "int")
        elif isinstance(n, ast.Call):
            fname = _callee(n) or ""
            if fname in ("range", "affine_range", "sequential_range", "static_range", "ds", "float", "int", "sqrt"):
                for a in n.args:
                    if isinstance(a, ast.Name) and a.id in alias:
                        out.setdefault(alias[a.id], "int")
            elif fname in SHAPED_ALLOCATIONS:
                # the sizes of an allocated tile: `nl.ndarray((tile_m, d_size), ...)`
                shape = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "shape"), None)
                for e in shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else ():
                    if isinstance(e, ast.Name) and e.id in alias:
                        out.setdefault(alias[e.id], "int")
    for name, kind in _tuple_kinds(fn_node, alias).items():
        out.setdefault(name, kind)
    return out


def _tuple_kinds(fn_node: ast.AST, names: dict) -> dict:
    """param -> 'sizes:N' / 'pairs:N:M' for the parameters `fn_node` reads as tuples of numbers, `names` mapping
    each name it reads them by to the parameter: a tuple of as many numbers as the items it reads (at least two:
    a stride or a dilation per axis), or of tuples of numbers where it unpacks the items (see _number_items,
    _tuple_items)."""
    out: dict = {}
    items: dict = {}
    for x, k in _number_items(fn_node, names):
        param = names[x.value.id]
        items[param] = max(items.get(param, 2), k + 1)
    for param, n in items.items():
        out[param] = f"sizes:{n}"
    for name, (n, m) in _tuple_items(fn_node, names).items():
        out.setdefault(names[name], f"pairs:{max(n, 2)}:{m}")
    return out


def _helper_evidence(fn: V.FunctionVal, params: list) -> dict:
    """param -> 'sizes:N' / 'pairs:N:M' for parameters the kernel only hands to a function of its module
    (`dilated(k, dilation)`) that reads them as tuples of numbers (see _number_items, _tuple_items)."""
    out: dict = {}
    names = set(params)
    for n in walk(fn.node):
        if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Name):
            continue
        callee = fn.module.namespace.get(n.func.id) if fn.module is not None else None
        if not isinstance(callee, V.FunctionVal) or not isinstance(callee.node, ast.FunctionDef):
            continue
        formal = [x.arg for x in callee.node.args.args]
        passed = {formal[i]: x.id for i, x in enumerate(n.args[:len(formal)]) if isinstance(x, ast.Name)}
        passed.update({k.arg: k.value.id for k in n.keywords if k.arg in formal and isinstance(k.value, ast.Name)})
        passed = {f: p for f, p in passed.items() if p in names}
        if passed:
            for param, kind in _tuple_kinds(callee.node, passed).items():
                out.setdefault(param, kind)
    return out


def _tuple_items(fn_node: ast.AST, names: set | dict) -> dict:
    """name -> (items read, their length) of `names` whose items the function unpacks into as many names
    (`lo, hi = padding[0]`): tuples of numbers per axis, not rows of a tensor."""
    read: dict = {}  # name -> how many items it reads
    lengths: dict = {}  # name -> the lengths they are unpacked into
    for n in walk(fn_node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], (ast.Tuple, ast.List)) \
                and all(isinstance(e, ast.Name) for e in n.targets[0].elts) and isinstance(n.value, ast.Subscript) \
                and isinstance(n.value.value, ast.Name) and n.value.value.id in names and \
                isinstance(n.value.slice, ast.Constant) and type(n.value.slice.value) is int and \
                n.value.slice.value >= 0:
            name = n.value.value.id
            read[name] = max(read.get(name, 0), n.value.slice.value + 1)
            lengths.setdefault(name, set()).add(len(n.targets[0].elts))
    # (unpacked into different lengths: not known)
    return {name: (read[name], next(iter(ms))) for name, ms in lengths.items() if len(ms) == 1}


TENSOR_ATTRS = frozenset({"shape", "dtype", "reshape", "ap", "buffer", "ndim"})  # attributes only tensors have
SHAPED_ALLOCATIONS = frozenset({"ndarray", "zeros", "ones", "full", "empty", "rand", "random_seed_tile"})


def _is_shape(n: ast.AST) -> bool:
    """`x.shape` or `tuple(x.shape)`."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("tuple", "list") and n.args:
        n = n.args[0]
    return isinstance(n, ast.Attribute) and n.attr == "shape"


def _rebound_at(fn_node: ast.AST, params: set) -> dict:
    """param -> the line of the first statement of the function that assigns its name again (the name holds
    another value after it: a reshaped or squeezed view whose rank says nothing of the input's)."""
    out: dict = {}
    for n in walk(fn_node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in params:
            out[n.id] = min(out.get(n.id, 10**9), n.lineno)
    return out


def _exact_rank_params(fn_node: ast.AST, params: list) -> list:
    """Parameters whose rank the body states exactly (tuple unpacking of .shape, len(x.shape) == k).  Unpacked
    with two lengths on two paths, the rank is not stated: each path's rank is analysed (_run_with_retries)."""
    ps = set(params)
    lengths: dict = {}
    rebound = _rebound_at(fn_node, ps)
    for n in walk(fn_node):
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], (ast.Tuple, ast.List)):
            v = n.value
            if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and \
                    n.lineno > rebound.get(v.value.id, 10**9):
                continue
            if isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(v.value, ast.Name) and \
                    v.value.id in ps and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts):
                lengths.setdefault(v.value.id, set()).add(len(n.targets[0].elts))
    return [p for p, ls in lengths.items() if len(ls) == 1]


def _tensor_evidence(fn_node: ast.AST, params: list) -> set:
    ps = set(params)
    out: set = set()
    # (a parameter with items read as numbers: its other items, `x[::dilation[0]]`, `f(dilation[1])`, are too)
    numbers = {x.value.id for x, _ in _number_items(fn_node, ps)} | set(_tuple_items(fn_node, ps))
    for n in walk(fn_node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ps and \
                n.attr in TENSOR_ATTRS:
            out.add(n.value.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in ps and \
                not (n.value.id in numbers and isinstance(n.slice, ast.Constant) and type(n.slice.value) is int):
            out.add(n.value.id)
        elif isinstance(n, ast.Call):
            # handed whole to what moves tensors: `nl.load(row_start)`, `nisa.dma_copy(src=x, ...)`
            fname = _callee(n) or ""
            operands = [k.value for k in n.keywords if k.arg in ("src", "dst", "data")]
            if fname in ("load", "load_transpose2d") and n.args:
                operands.append(n.args[0])
            out.update(x.id for x in operands if isinstance(x, ast.Name) and x.id in ps)
    return out


def _number_items(fn_node: ast.AST, names: set | dict) -> list:
    """[(subscript, index)] of the reads `p[k]` (k a non-negative int) of `names` in integer arithmetic or
    compared with an int (`(h - 1) * dilation[0]`, `stride[0] == 1`): items of a tuple of numbers (strides,
    dilations), since a kernel's input tensors are in HBM, where no operator computes on them."""
    out = []

    def item(x: ast.AST) -> bool:
        return isinstance(x, ast.Subscript) and isinstance(x.value, ast.Name) and x.value.id in names and \
            isinstance(x.slice, ast.Constant) and type(x.slice.value) is int and x.slice.value >= 0

    for n in walk(fn_node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            sides = [n.left, n.right]
        elif isinstance(n, ast.Compare) and any(isinstance(x, ast.Constant) and type(x.value) is int
                                                for x in n.comparators + [n.left]):
            sides = [n.left] + list(n.comparators)
        else:
            continue
        out.extend((x, x.slice.value) for x in sides if item(x))
    return out
