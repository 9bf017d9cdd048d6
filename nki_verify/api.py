"""The one analysis entry point, shared by the CLI, the language server and the tests.

    verify_source(text, path, options) -> list[Diagnostic]

Source text in (never executed), diagnostics out.  No global state: the result
depends only on the arguments (and on the project modules the file imports).
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from dataclasses import dataclass, field

from compiler import expr, frontend, ir
from compiler.frontend import SourceSet

from . import rules, suppressions
from .analysis.bounds import check_obligations, subscript_obligations
from .analysis.dependencies import dependency_obligations
from .analysis.initialized import initialization_obligations
from .analysis.memory import memory_obligations
from .analysis.races import race_obligations
from .analysis.engine import KernelAnalysis, call_notes, location
from .analysis.limits import partition_obligations
from .analysis.oracle import SolverOracle
from .analysis.solver import Z3Context
from .analysis.spec_rules import instruction_obligations
from .diagnostics import (ERROR, SEVERITY_RANK, WARNING, Diagnostic, Fix, Location, Note, TextEdit, finding_key,
                          finding_rank, undecided_check)
from .options import Options

ANALYSES = (subscript_obligations, check_obligations, partition_obligations, instruction_obligations,
            dependency_obligations, race_obligations, memory_obligations, initialization_obligations)


@dataclass
class KernelReport:
    name: str
    context: str
    complete: bool
    obligations: int
    by_interval: int
    solver_queries: int
    solver_seconds: float
    skipped: int = 0  # quiet checks (NKI404) left undecided past their per-kernel query budget


@dataclass
class VerifyResult:
    path: str
    diagnostics: list = field(default_factory=list)
    kernels: list = field(default_factory=list)  # KernelReport
    ir: list = field(default_factory=list)  # ir.Kernel
    read_paths: list = field(default_factory=list)
    seconds: float = 0.0


def verify_source(text: str, path: str, options: Options | None = None) -> list[Diagnostic]:
    """Diagnostics for one file's source text."""
    return analyze_source(text, path, options).diagnostics


def analyze_source(text: str, path: str, options: Options | None = None) -> VerifyResult:
    options = options or Options()
    t0 = time.perf_counter()
    expr.start_analysis()
    result = VerifyResult(path)
    fe_opts = frontend.Options(target=options.target, shapes=dict(options.shapes),
                               kernels=list(options.kernels) if options.kernels else None,
                               unroll_limit=options.unroll_limit, nki_version=options.nki_version,
                               target_explicit=options.target_explicit, search_path=tuple(options.search_path))
    fe_opts.grids = dict(options.grids)
    sources = SourceSet(dict(options.overlays), options.reader)
    # solver verdicts shared by the kernels and launch contexts of this file (and, when the caller keeps
    # one across calls, by earlier versions of it: the language server's edits)
    cache = options.solver_cache if options.solver_cache is not None else {}
    context = Z3Context()  # the file's own, dropped with it
    try:
        diags, fr = _analyse_file(text, path, options, fe_opts, sources, cache, context, result)
    finally:
        context.close()
    if fr is None:
        result.diagnostics = diags
        result.seconds = time.perf_counter() - t0
        return result
    result.diagnostics = _finish(_dedupe(diags), text, path, options, sources)
    result.read_paths = fr.read_paths
    result.seconds = time.perf_counter() - t0
    return result


def _analyse_file(text: str, path: str, options: Options, fe_opts: frontend.Options, sources: SourceSet,
                  cache: dict, context: Z3Context, result: VerifyResult) -> tuple:
    """(diagnostics, front-end result or None); every z3 object it makes is unreachable once it returns."""
    # the front end's branch questions get a z3 context of their own, dropped before the checks start: z3's
    # search depends on the terms made before it, so the checks' verdicts near their resource limits do not move
    # when the front end asks z3 more or fewer questions
    oracle = SolverOracle(options.solver_timeout_ms, cache=cache, context=Z3Context())
    try:
        fr = frontend.analyze(text, path, fe_opts, oracle, sources)
    except Exception as exc:  # noqa: BLE001 - an internal failure becomes a located diagnostic, never a traceback
        return [_internal(path, exc)], None
    finally:
        oracle.close()
    diags = [_front(issue) for issue in fr.issues]
    shown: dict = {}  # the findings to show so far, across the file's kernels (as `_dedupe` merges them)
    guessed: list = []  # (kernel, its findings) of runs with errors and inputs whose rank is a guess
    for kernel in fr.kernels:
        result.ir.append(kernel)
        try:
            found, impossible = _analyse_kernel(kernel, options, result, cache, context, shown)
        except Exception as exc:  # noqa: BLE001
            diags.append(_internal(path, exc, kernel))
            continue
        if kernel.guessed and any(d.severity == ERROR for d in found):
            guessed.append((kernel, found))
        if impossible:
            # the kernel's conditions hold for no input, said at the condition that fails (KernelAnalysis.impossible):
            # the front end's "every path fails" for the same kernel says less
            diags = [d for d in diags if not (d.code == "NKI901" and d.kernel == kernel.name and
                                              d.message.startswith(frontend.EVERY_PATH_FAILS))]
        diags.extend(found)
    # (after every kernel's checks, each with a solver context of its own: the file's verdicts do not move)
    for kernel, found in guessed:
        try:
            weaker = _rank_guesses(kernel, found, fr, options)
        except Exception as exc:  # noqa: BLE001
            diags.append(_internal(path, exc, kernel))
            continue
        diags = [weaker.get(id(d), d) for d in diags]
    return diags, fr


def _rank_guesses(kernel: ir.Kernel, found: list, fr: frontend.FrontendResult, options: Options) -> dict:
    """The errors of `kernel`'s run that fail only at the ranks it guessed for inputs whose rank nothing in the
    kernel states (`x[0]` copied into a 128 x 512 tile: a row of a 2-D x, a matrix of a 3-D one), as warnings
    (id of the error -> the warning).  The launch is built again with those inputs one rank higher: an error that
    is not an error there, at a place that run reaches, holds for the guessed rank only."""
    ranks = {name: rank + 1 for name, rank in kernel.guessed}
    oracle = SolverOracle(options.solver_timeout_ms, cache={}, context=Z3Context())
    try:
        runs = fr.at_ranks(kernel, ranks, oracle)
    finally:
        oracle.close()
    if not runs or not all(other.complete for other, _ in runs):
        return {}  # (a run the front end did not wholly understand shows nothing by what it does not report)
    errors: set = set()
    reached: set = set()
    context = Z3Context()
    try:
        for other, issues in runs:
            out, impossible = _analyse_kernel(other, options, VerifyResult(kernel.path), {}, context, {})
            if impossible:
                continue
            errors |= {(d.location.path, d.location.line) for d in out + [_front(i) for i in issues]
                       if d.severity == ERROR}
            reached |= _lines_of(other)
    finally:
        context.close()
    one = len(kernel.guessed) == 1
    name, rank = kernel.guessed[0]
    said = " and ".join(f"{n} of rank {r}" for n, r in kernel.guessed)
    more = f"{name} of rank {rank + 1}" if one else "each a rank more"
    weaker = {}
    for d in found:
        where = (d.location.path, d.location.line)
        # (an error of another kind there is an error too: `x[4]` of a trailing (4, 128, 512) is out of bounds
        # at rank 3, a block of the wrong shape at rank 4)
        if d.severity != ERROR or where in errors or where not in reached:
            continue
        note = Note(location(kernel.span),
                    f"a warning, not an error: it fails for every input with {said}, "
                    f"{'a rank' if one else 'ranks'} the verifier guessed (nothing in the kernel states "
                    f"{'it' if one else 'them'}), and not with {more}; stating the rank (`assert len({name}.shape) "
                    f"== {rank}`) makes it certain")
        weaker[id(d)] = dataclasses.replace(d, severity=WARNING, notes=d.notes + (note,))
    return weaker


def _lines_of(kernel: ir.Kernel) -> set:
    """(file, line) of every instruction, access and check of a kernel run, and of the calls that lead to them."""
    out = set()
    for x in list(kernel.instrs) + list(kernel.subscripts) + list(kernel.checks):
        span = getattr(x, "span", None)
        if span is not None:
            out.update((sp.file, sp.line) for sp in (span,) + tuple(span.via))
    return out


def _finish(diags: list, text: str, path: str, options: Options, sources: SourceSet) -> list:
    """Severity overrides, inline suppressions (and NKI903 for unused ones), then select/ignore."""
    if options.severity:
        diags = [dataclasses.replace(d, severity=options.severity[d.code]) if d.code in options.severity else d
                 for d in diags]
    if options.suppressions:
        texts = {path: text}
        for d in diags:
            p = d.location.path
            if p not in texts:
                texts[p] = sources.read(p)
        understood = not any(d.code in ("NKI902", "NKI999") and d.location.path == path for d in diags)
        diags = suppressions.apply(diags, texts, path, rules.codes(), options.reports, understood)
    return sorted((d for d in diags if options.reports(d.code)), key=lambda d: d.sort_key())


def _analyse_kernel(kernel: ir.Kernel, options: Options, result: VerifyResult, cache: dict,
                    context: Z3Context | None = None, shown: dict | None = None) -> tuple:
    """(the kernel's diagnostics, whether its conditions hold for no input)"""
    ka = KernelAnalysis(kernel, options.solver_timeout_ms, cache, context, shown)
    impossible = ka.impossible()
    out = [impossible] if impossible is not None else []
    for analysis in ANALYSES if impossible is None else ():
        for ob in analysis(ka):
            d = ka.check(ob)
            if d is not None:
                out.append(d)
    # undecided findings a split on their conditions proves, asked last (see KernelAnalysis.settle_deferred)
    proved = ka.settle_deferred()
    out = [ka.replacements.get(id(d), d) for d in out if id(d) not in proved or id(d) in ka.replacements]
    result.kernels.append(KernelReport(kernel.name, kernel.context, kernel.complete, ka.stats.obligations,
                                       ka.stats.by_interval, ka.prover.queries, ka.prover.seconds,
                                       ka.stats.skipped))
    return out, impossible is not None


def _front(issue: ir.FrontendIssue) -> Diagnostic:
    sev = issue.severity or rules.default_severity(issue.code)
    fixes = tuple(Fix(desc, tuple(TextEdit(location(span), text) for span, text in edits))
                  for desc, edits in issue.fixes)
    notes = call_notes(issue.span) + tuple(Note(location(span), text) for span, text in issue.notes)
    return Diagnostic(issue.code, sev, issue.message, location(issue.span), issue.kernel, notes=notes, fixes=fixes)


def _internal(path: str, exc: BaseException, kernel: ir.Kernel | None = None) -> Diagnostic:
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    origin = f" ({type(exc).__name__} in {where.name})" if where else f" ({type(exc).__name__})"
    loc = location(kernel.span) if kernel is not None else Location(path, 1, 1, 1, 1)
    return Diagnostic("NKI902", "warning", f"internal error while analysing this kernel{origin}: {exc}; "
                      "the kernel was not fully checked (please report this)", loc,
                      kernel.name if kernel is not None else None)


SUBSUMED = {
    "NKI203": {"NKI202"},  # a matmul too large for the PE array is also too large for one bank
    "NKI404": {"NKI101", "NKI102"},  # an out-of-bounds read also reads what nothing wrote
    # what the analysis did not understand on the line of a construct NKI rejects and it reads as best it can (the
    # shapes of a subscript mixing slices and grids, an API call no form of which takes its arguments) is that
    # construct, said already.  (Not every NKI6xx: a plain class instantiated in a kernel, NKI601, beside a keyword
    # it lacks, NKI902, are two things to fix)
    "NKI902": {"NKI609", "NKI610"},
}


def _undecided_but_found(d: Diagnostic, found: set) -> bool:
    """`d` is an NKI901 whose check is shown at the same place as a finding (its `finding_key` is in `found`)."""
    check = undecided_check(d.message) if d.code == "NKI901" else None
    return check is not None and finding_key(check[0], d.location, check[1]) in found


def _missing_module(d: Diagnostic) -> str | None:
    """The module an NKI902 says was not found (frontend: HostMixin.missing_module), else None."""
    if d.code != "NKI902":
        return None
    head, sep, _ = d.message.partition(frontend.MODULE_NOT_FOUND)
    return head.rpartition("module ")[2].strip("'") if sep else None


def _dedupe(diags: list) -> list:
    best: dict = {}
    for d in diags:
        key = (d.code, d.location, d.message)
        prev = best.get(key)
        if prev is None or SEVERITY_RANK[d.severity] > SEVERITY_RANK[prev.severity]:
            best[key] = d
    # a check left undecided in one launch context (or call of a helper) that another shows as a finding is not
    # repeated: the place is flagged (before the undecided checks of one place are taken as one, below)
    found = {finding_key(d.code, d.location, d.message) for d in best.values() if d.code not in ("NKI901", "NKI902")}
    # the same finding from several launch contexts: keep the most severe per (code, location)
    by_loc: dict = {}
    for d in best.values():
        if _undecided_but_found(d, found):
            continue
        key = finding_key(d.code, d.location, d.message)
        prev = by_loc.get(key)
        if prev is None or finding_rank(d.severity, d.message) > finding_rank(prev.severity, prev.message):
            by_loc[key] = d
    # a finding implied by a more specific one at the same place is not repeated
    codes_at: dict = {}
    for d in by_loc.values():
        codes_at.setdefault((d.location.path, d.location.line), set()).add(d.code)
    kept = [d for d in by_loc.values()
            if not SUBSUMED.get(d.code, set()) & codes_at[(d.location.path, d.location.line)]]
    merged: dict = {}
    missing: set = set()
    out = []
    for d in sorted(kept, key=lambda d: d.sort_key()):
        module = _missing_module(d)
        if module is not None:
            # a module not found is said once per kernel (where it is first used), not once per run of the kernel
            # (with and without an optional input, one per rank) at the line each run reached first
            if (d.kernel, module) in missing:
                continue
            missing.add((d.kernel, module))
        if d.code == "NKI901":
            key = (d.location.path, d.location.line)
            prev = merged.get(key)
            if prev is not None:
                merged[key] = (prev[0], prev[1] + 1)
                continue
            merged[key] = (len(out), 1)
        out.append(d)
    for i, n in merged.values():
        if n > 1:
            d = out[i]
            out[i] = dataclasses.replace(d, message=f"{d.message} (and {n - 1} more undecided check"
                                                    f"{'s' if n > 2 else ''} here)")
    return out
