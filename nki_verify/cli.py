"""Command line: `nki-verify [check] PATH...`, `nki-verify ir PATH`, `nki-verify rule CODE`, `nki-verify map PATH`.

Exit codes: 0 no errors (or nothing at the --fail-on level), 1 findings at that level, 2 usage error or a file
that cannot be read.  The contract is documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import time
from typing import Sequence

from compiler.spec.targets import ALIASES, TARGETS

from . import fixes, hlo, rules
from .api import analyze_source
from .cache import DIRNAME as CACHE_DIRNAME
from .cache import Cache
from .config import Config, ConfigError, find_config, find_config_file, load_config
from .diagnostics import ERROR, SEVERITY_RANK, WARNING, Location, Note
from .process import fixed_layout, tune_gc
from .options import DEFAULT_SOLVER_TIMEOUT_MS, Options
from .report import FileResult, Run, github, json_report, junit, sarif, statistics
from .report.text import (SourceCache, display_path, format_diagnostic, preconditions, statistics_table, summary,
                          use_color)
from .runner import Job, default_jobs, run_jobs

COMMANDS = ("check", "ir", "rule", "map", "lsp", "run")
FORMATS = ("text", "json", "sarif", "github", "junit")
FAIL_ON = {"error": SEVERITY_RANK[ERROR], "warning": SEVERITY_RANK[WARNING], "never": None}
# subcommands that live in other packages (lazy imports: the verifier never needs them)
DELEGATED = {"lsp": ("lsp.__main__", "main"), "run": ("device.cli", "main")}
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".mypy_cache",
             ".pytest_cache", "build", "dist", ".nki_verify_cache"}
SHAPE_RE = re.compile(r"^(?:(?P<kernel>[A-Za-z_*][\w*]*)\.)?(?P<param>[A-Za-z_]\w*)=(?P<dims>\d+(?:x\d+)*)"
                      r"(?::(?P<dtype>\w+))?$")
GRID_RE = re.compile(r"^(?:(?P<kernel>[A-Za-z_*][\w*]*)=)?(?P<dims>\d+(?:x\d+)*)$")


class UsageError(Exception):
    pass


def _targets() -> list:
    return sorted(TARGETS) + sorted(ALIASES)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nki-verify", description="Static verifier and linter for NKI kernels. "
                                "Never executes the analysed files.")
    sub = p.add_subparsers(dest="command")
    check = sub.add_parser("check", help="verify kernels (the default command)")
    _common(check)
    check.add_argument("paths", nargs="+", help="files or directories (directories recurse over .py files)")
    _check_options(check)
    irp = sub.add_parser("ir", help="print the kernel IR the verifier understood")
    _common(irp)
    irp.add_argument("paths", nargs="+")
    mp = sub.add_parser("map", help="draw a kernel's SBUF and PSUM occupancy over program order (SVG or PNG)")
    _common(mp)
    mp.add_argument("path", help="the kernel's file")
    mp.add_argument("-o", "--output", metavar="FILE", default=None,
                    help="write the picture to FILE (.svg, or .png with the optional cairosvg); default: SVG on "
                         "standard output")
    rule = sub.add_parser("rule", help="print the documentation of a rule")
    rule.add_argument("code", nargs="?", help="e.g. NKI101 (omit to list all rules)")
    # listed for --help; their own parsers live in lsp/ and device/
    sub.add_parser("lsp", help="start the language server (stdio; see `nki-verify lsp --help`)", add_help=False)
    sub.add_parser("run", help="EXECUTE a kernel on the numpy reference device: the only command that runs "
                   "your code (see `nki-verify run --help`)", add_help=False)
    return p


def _check_options(p: argparse.ArgumentParser) -> None:
    out = p.add_argument_group("output and exit status")
    out.add_argument("--output-format", choices=FORMATS, default="text",
                     help="text for people (default); json (the documented contract); sarif (SARIF 2.1.0); github "
                          "(workflow-command annotations); junit (JUnit XML)")
    out.add_argument("-o", "--output-file", metavar="FILE", default=None,
                     help="write the report to FILE instead of standard output")
    out.add_argument("--fail-on", choices=tuple(FAIL_ON), default="error",
                     help="exit 1 when a finding of this severity or worse is reported (default error; never: "
                          "exit 0 whatever is found)")
    out.add_argument("--exit-zero", action="store_true",
                     help="exit 0 even when findings are reported (same as --fail-on never)")
    out.add_argument("--statistics", action="store_true",
                     help="show the number of findings per code instead of each finding (text; json adds a "
                          "\"statistics\" list)")
    out.add_argument("-q", "--quiet", action="store_true",
                     help="print the findings and nothing else (no summary, no progress bar)")
    fix = p.add_argument_group("fixes")
    fx = fix.add_mutually_exclusive_group()
    fx.add_argument("--fix", action="store_true",
                    help="apply the mechanical fixes findings carry (never to a file with a syntax error), then "
                         "report what remains")
    fx.add_argument("--diff", action="store_true",
                    help="print the fixes --fix would apply as a unified diff, change nothing; exit 1 when there "
                         "are some")
    p.add_argument("--hlo", action="append", default=[], metavar="FILE",
                   help="verify the kernels a framework's HLO text dump calls (custom-calls to "
                        "AwsNeuronCustomNativeKernel) at exactly the operand shapes and dtypes (and grid) there "
                        "(repeatable)")
    run = p.add_argument_group("performance")
    run.add_argument("-j", "--jobs", type=_positive, default=None, metavar="N",
                     help=f"worker processes (default: the number of CPUs, here {default_jobs()})")
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    run.add_argument("--cache-dir", metavar="DIR", default=None,
                     help=f"cache directory (default: {CACHE_DIRNAME}/ at the project root; env NKI_VERIFY_CACHE_DIR)")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return n


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", choices=_targets(), default=None,
                   help="NeuronCore generation (default trn2, or the kernel's own platform_target)")
    p.add_argument("--shape", action="append", default=[], metavar="[KERNEL.]PARAM=DxD[:DTYPE]",
                   help="fix an input shape, e.g. --shape tensor_add.a=256x1024:bfloat16 (repeatable)")
    p.add_argument("--grid", action="append", default=[], metavar="[KERNEL=]DxD",
                   help="fix the launch grid, e.g. --grid tensor_add=2x2")
    p.add_argument("--kernel", action="append", default=[], metavar="NAME", help="only analyse this kernel")
    p.add_argument("--search-path", action="append", default=[], metavar="DIR",
                   help="another directory to find imported modules in, after the file's own project (like "
                        "PYTHONPATH; repeatable). Installed packages that use NKI are found without it")
    p.add_argument("--solver-timeout", type=int, default=None, metavar="MS",
                   help=f"wall-clock limit per solver query in milliseconds (default {DEFAULT_SOLVER_TIMEOUT_MS}), a "
                        "last resort: each query has a deterministic resource limit that binds first, so that "
                        "verdicts do not depend on the machine's speed or load")
    p.add_argument("--nki-version", default=None, metavar="X.Y",
                   help="the NKI version the kernels target (default: the newest documented, 0.6); version-"
                        "dependent lints follow it (NKI602, NKI603)")
    p.add_argument("--select", action="append", default=[], metavar="CODES",
                   help="report only these codes or prefixes, comma-separated (e.g. NKI1,NKI401)")
    p.add_argument("--extend-select", action="append", default=[], metavar="CODES",
                   help="add codes or prefixes to the selection")
    p.add_argument("--ignore", action="append", default=[], metavar="CODES",
                   help="never report these codes or prefixes")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="use this configuration file instead of the nearest pyproject.toml [tool.nki-verify] "
                        "or nki-verify.toml")
    p.add_argument("--isolated", action="store_true", help="ignore configuration files")


def parse_shapes(specs: Sequence[str]) -> dict:
    shapes: dict = {}
    for s in specs:
        m = SHAPE_RE.match(s.strip())
        if not m:
            raise UsageError(f"invalid --shape {s!r}: expected [KERNEL.]PARAM=DIMxDIM[:DTYPE], e.g. k.a=256x1024")
        dims = tuple(int(x) for x in m.group("dims").split("x"))
        if any(d <= 0 for d in dims):
            raise UsageError(f"invalid --shape {s!r}: dimensions must be positive")
        dtype = m.group("dtype")
        if dtype is not None:
            from compiler.spec import dtypes
            canon = dtypes.canonical(dtype)
            if canon is None:
                raise UsageError(f"invalid --shape {s!r}: unknown dtype {dtype!r}")
            dtype = canon
        shapes.setdefault(m.group("kernel") or "*", {})[m.group("param")] = (dims, dtype)
    return shapes


def parse_grids(specs: Sequence[str]) -> dict:
    grids: dict = {}
    for s in specs:
        m = GRID_RE.match(s.strip())
        if not m:
            raise UsageError(f"invalid --grid {s!r}: expected [KERNEL=]DIMxDIM, e.g. k=2x2")
        grids[m.group("kernel") or "*"] = tuple(int(x) for x in m.group("dims").split("x"))
    return grids


def collect_files(paths: Sequence[str]) -> list:
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise UsageError(f"{p}: no such file or directory")
    return out


def _code_list(values: Sequence[str], flag: str) -> tuple:
    out = []
    known = rules.codes()
    for v in values:
        for c in v.split(","):
            c = c.strip().upper()
            if not c:
                continue
            if c == "ALL":
                c = "NKI"
            if not c.startswith("NKI") or not any(k.startswith(c) for k in known):
                raise UsageError(f"{flag} {c!r}: not a rule code or prefix (see `nki-verify rule`)")
            out.append(c)
    return tuple(out)


def _options(args: argparse.Namespace) -> Options:
    grids = parse_grids(args.grid)
    shapes = parse_shapes(args.shape)
    if "*" in grids:
        grids = {**{k: grids["*"] for k in shapes if k != "*"}, **grids}
    explicit = set()
    if args.target is not None:
        explicit.add("target")
    if args.shape:
        explicit.add("shapes")
    if args.grid:
        explicit.add("grids")
    if args.solver_timeout is not None:
        explicit.add("solver_timeout_ms")
    select = _code_list(args.select, "--select") if args.select else None
    if select is not None:
        explicit.add("select")
    version = getattr(args, "nki_version", None)
    if version is not None:
        if not re.match(r"^\d+(\.\d+){0,2}$", version):
            raise UsageError(f"invalid --nki-version {version!r}: expected a version such as 0.6 or 0.2.0")
        explicit.add("nki_version")
    return Options(target=args.target or "trn2", target_explicit=args.target is not None, shapes=shapes, grids=grids,
                   kernels=tuple(args.kernel) if args.kernel else None,
                   solver_timeout_ms=DEFAULT_SOLVER_TIMEOUT_MS if args.solver_timeout is None else args.solver_timeout,
                   select=select, extend_select=_code_list(args.extend_select, "--extend-select"),
                   ignore=_code_list(args.ignore, "--ignore"), nki_version=version, explicit=frozenset(explicit),
                   search_path=tuple(os.path.abspath(d) for d in getattr(args, "search_path", [])))


class Configs:
    """The configuration of each file: --config, else the nearest config file (cached per directory)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.isolated = getattr(args, "isolated", False)
        self.fixed = None
        self.by_dir: dict = {}
        if getattr(args, "config", None):
            try:
                self.fixed = load_config(args.config)
            except ConfigError as exc:
                raise UsageError(str(exc)) from None

    def for_path(self, path: str) -> Config:
        if self.isolated:
            return Config()
        if self.fixed is not None:
            return self.fixed
        d = os.path.dirname(os.path.abspath(path))
        c = self.by_dir.get(d)
        if c is None:
            try:
                c = find_config(d)
            except ConfigError as exc:
                raise UsageError(str(exc)) from None
            self.by_dir[d] = c
        return c


def read_source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None


def cmd_check(args: argparse.Namespace) -> int:
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics goes with --output-format text or json")
    options = _options(args)
    configs = Configs(args)
    files = [f for f in collect_files(args.paths)
             if f in args.paths or not configs.for_path(f).is_excluded(f)]
    files = list({os.path.abspath(f): f for f in files}.values())  # a file named twice is analysed once
    t0 = time.perf_counter()
    jobs, tags = _jobs(files, options, configs, args)
    workers = args.jobs or default_jobs()
    cache = _cache(args)
    results = _merge(files, jobs, tags, run_jobs(jobs, workers, cache, progress=not args.quiet))
    fixed = 0
    if args.fix or args.diff:
        outcome = fixes.fix_all([d for r in results for d in r.diagnostics], _read_raw,
                                lambda changed: _reanalyse(jobs, changed, workers))
        _warn_refused(outcome)
        if args.diff:
            return _show_diff(outcome, args)
        fixed = _write_fixes(outcome)
        if outcome.fixed:
            jobs = [dataclasses.replace(j, text=read_source(j.path)) for j in jobs]
            results = _merge(files, jobs, tags, run_jobs(jobs, workers, cache, progress=not args.quiet))
    run = Run(results, time.perf_counter() - t0, fixed)
    _emit(_render(run, args), args)
    return exit_status(run, args)


def exit_status(run: Run, args: argparse.Namespace) -> int:
    level = None if args.exit_zero else FAIL_ON[args.fail_on]
    if level is None:
        return 0
    return 1 if any(SEVERITY_RANK.get(d.severity, 0) >= level for d in run.diagnostics) else 0


def _jobs(files: list, options: Options, configs: Configs, args: argparse.Namespace) -> tuple:
    """One job per file; with --hlo, one per (custom-call, kernel it calls).  `tags` holds the note each job's
    findings get (which custom-call fixed the shapes), or None."""
    if not args.hlo:
        return [Job(os.path.abspath(f), read_source(f), configs.for_path(f).options(options, f)) for f in files], \
            [None] * len(files)
    calls = []
    for h in args.hlo:
        try:
            calls.extend((h, c) for c in hlo.read(h))
        except hlo.HloError as exc:
            raise UsageError(str(exc)) from None
    sources = {f: read_source(f) for f in files}
    kernels = {f: _kernel_params(f, text, configs.for_path(f).options(options, f)) for f, text in sources.items()}
    jobs, tags, seen = [], [], set()
    for h, call in calls:
        matches = _hlo_matches(call, kernels, args.kernel)
        if not matches:
            sys.stderr.write(f"nki-verify: warning: {h}:{call.line}: no kernel in the given files takes "
                             f"{call.describe()}{' (' + call.kernel + ')' if call.kernel else ''}\n")
        for f, name, shapes in matches:
            key = (os.path.abspath(f), name, tuple(sorted(shapes.items())), call.grid)
            if key in seen:
                continue  # the same kernel called again at the same shapes: verified once
            seen.add(key)
            base = configs.for_path(f).options(options, f)
            grids = {name: call.grid} if call.grid else {}
            opts = dataclasses.replace(base, shapes={name: shapes}, grids=grids, kernels=(name,),
                                       explicit=base.explicit | {"shapes", "grids"})
            jobs.append(Job(os.path.abspath(f), sources[f], opts))
            loc = Location(os.path.abspath(h), call.line, call.column, call.line, call.column + len(call.name) + 1)
            tags.append(Note(loc, f"shapes from the HLO custom-call {call.describe()}"))
    if not jobs:
        raise UsageError("none of the HLO custom-calls calls a kernel in the given files")
    return jobs, tags


def _kernel_params(path: str, text: str, options: Options) -> dict:
    """kernel name -> required positional parameters, for the kernels the front end finds in a file."""
    from compiler import frontend

    fe = frontend.Options(target=options.target, kernels=["\0"], nki_version=options.nki_version)
    try:
        names = frontend.analyze(text, os.path.abspath(path), fe).kernel_names
    except Exception:  # noqa: BLE001 - the real analysis reports what it cannot understand
        return {}
    params = hlo.function_params(text)
    return {n: params[n] for n in names if n in params}


def _hlo_matches(call: hlo.CustomCall, kernels: dict, only: Sequence[str]) -> list:
    """(file, kernel, shapes) for the kernels a custom-call calls: the one JAX names, or (PyTorch) the one
    whose signature fits, which --kernel chooses among several."""
    cands = []
    for f, ks in kernels.items():
        for name, params in ks.items():
            if (call.kernel and name != call.kernel) or (only and name not in only):
                continue
            shapes = hlo.bind(call, params)
            if shapes is not None:
                cands.append((f, name, shapes))
    if call.kernel is None and len({(f, n) for f, n, _ in cands}) > 1:
        names = ", ".join(sorted({n for _, n, _ in cands}))
        raise UsageError(f"the HLO custom-call %{call.name} (line {call.line}) does not name its kernel and several "
                         f"kernels fit its operands ({names}): choose with --kernel")
    return cands


def _merge(files: list, jobs: list, tags: list, results: list) -> list:
    """One FileResult per file, in the order given (several HLO jobs on one file are merged)."""
    by_path: dict = {os.path.abspath(f): FileResult(os.path.abspath(f)) for f in files}
    for job, tag, res in zip(jobs, tags, results):
        merged = by_path[job.path]
        diags = res.diagnostics if tag is None else [dataclasses.replace(d, notes=d.notes + (tag,))
                                                     for d in res.diagnostics]
        known = set(merged.diagnostics)
        merged.diagnostics.extend(d for d in diags if d not in known)
        merged.kernels += res.kernels
        merged.seconds += res.seconds
        merged.cached = res.cached
    for r in by_path.values():
        r.diagnostics.sort(key=lambda d: d.sort_key())
    return list(by_path.values())


def _cache(args: argparse.Namespace) -> Cache | None:
    """The result cache: --cache-dir, else $NKI_VERIFY_CACHE_DIR, else .nki_verify_cache/ at the project root
    (the directory of the configuration file that applies to the working directory, else the working directory)."""
    if args.no_cache:
        return None
    d = args.cache_dir or os.environ.get("NKI_VERIFY_CACHE_DIR")
    if not d:
        cfg = args.config if args.config else (None if args.isolated else find_config_file(os.getcwd()))
        d = os.path.join(os.path.dirname(os.path.abspath(cfg)) if cfg else os.getcwd(), CACHE_DIRNAME)
    return Cache(d)


def _read_raw(path: str) -> str | None:
    """A file's exact text (line endings kept), for editing."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _reanalyse(jobs: list, changed: dict, workers: int) -> list:
    """Diagnostics of the jobs on changed files, analysed with the changed texts (also seen by imports)."""
    overlays = {p: t.replace("\r\n", "\n").replace("\r", "\n") for p, t in changed.items()}
    todo = [Job(j.path, overlays[j.path], dataclasses.replace(j.options, overlays={**j.options.overlays, **overlays}))
            for j in jobs if j.path in overlays]
    return [d for r in run_jobs(todo, workers, None, progress=False) for d in r.diagnostics]


def _warn_refused(outcome: fixes.Outcome) -> None:
    for path, reason in outcome.refused:
        sys.stderr.write(f"nki-verify: warning: {display_path(path)}: not fixed: {reason}\n")


def _show_diff(outcome: fixes.Outcome, args: argparse.Namespace) -> int:
    _emit(outcome.diff(display_path), args)
    if not args.quiet:
        n = len(outcome.fixed)
        sys.stderr.write(f"Would fix {outcome.applied} problem{'s' if outcome.applied != 1 else ''} "
                         f"in {n} file{'s' if n != 1 else ''}.\n" if outcome.fixed else "No fixes to apply.\n")
    return 1 if outcome.fixed and not (args.exit_zero or args.fail_on == "never") else 0


def _write_fixes(outcome: fixes.Outcome) -> int:
    for path, text in outcome.fixed.items():
        try:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        except OSError as exc:
            raise UsageError(f"{path}: cannot write the fixes ({exc.strerror})") from None
    return outcome.applied if outcome.fixed else 0


def _render(run: Run, args: argparse.Namespace) -> str:
    from . import __version__

    fmt = args.output_format
    if fmt == "json":
        text = json_report.render(run.diagnostics, len(run.files), run.kernels, run.seconds,
                                  statistics(run.diagnostics) if args.statistics else None)
        if args.fix:
            import json

            doc = json.loads(text)
            doc["summary"]["fixed"] = run.fixed
            text = json.dumps(doc, indent=2)
        return text + "\n"
    if fmt == "sarif":
        return sarif.render(run, __version__) + "\n"
    if fmt == "github":
        return github.render(run)
    if fmt == "junit":
        return junit.render(run)
    return _render_text(run, args)


def _render_text(run: Run, args: argparse.Namespace) -> str:
    color = args.output_file is None and use_color(sys.stdout)
    out = []
    if args.statistics:
        table = statistics_table(statistics(run.diagnostics))
        if table:
            out.append(table + "\n")
    else:
        cache = SourceCache()
        out.extend(format_diagnostic(d, cache, color) + "\n\n" for d in run.diagnostics)
        digest = "" if args.quiet else preconditions(run.diagnostics)
        if digest:
            out.append(digest + "\n\n")
    if not args.quiet:
        if args.fix and run.fixed:
            out.append(f"Fixed {run.fixed} problem{'s' if run.fixed != 1 else ''}.\n")
        out.append(summary(len(run.files), run.kernels, run.diagnostics, run.seconds) + "\n")
    return "".join(out)


def _emit(text: str, args: argparse.Namespace) -> None:
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise UsageError(f"{args.output_file}: cannot write ({exc.strerror})") from None
    else:
        sys.stdout.write(text)


def cmd_ir(args: argparse.Namespace) -> int:
    from compiler import ir

    options = _options(args)
    configs = Configs(args)
    for path in collect_files(args.paths):
        res = analyze_source(read_source(path), os.path.abspath(path), configs.for_path(path).options(options, path))
        for k in res.ir:
            sys.stdout.write(ir.format_kernel(k) + "\n\n")
        for d in res.diagnostics:
            if d.code in ("NKI901", "NKI902", "NKI999"):
                sys.stdout.write(f"{d.path}:{d.line}:{d.column}: {d.code} {d.message}\n")
    return 0


def cmd_map(args: argparse.Namespace) -> int:
    from . import mapview

    options = _options(args)
    path = collect_files([args.path])[0]
    opts = Configs(args).for_path(path).options(options, path)
    res = analyze_source(read_source(path), os.path.abspath(path), opts)
    if not res.ir:
        names = ", ".join(args.kernel) if args.kernel else "any kernel"
        raise UsageError(f"{path}: found no {names} to map" + _why(res))
    names = sorted({k.name for k in res.ir})
    if len(names) > 1:
        raise UsageError(f"{path} has several kernels ({', '.join(names)}): choose one with --kernel")
    svg = mapview.render_svg(mapview.build(res.ir[0], res.diagnostics, opts.solver_timeout_ms))
    out = args.output
    if out and out.lower().endswith(".png"):
        try:
            mapview.render_png(svg, out)
        except (ImportError, OSError) as exc:  # no cairosvg, or no cairo library under it
            raise UsageError(f"PNG output needs cairosvg and the cairo library ({exc}): pip install "
                             "'nki-verify[png]', or write .svg") from None
    elif out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(svg)
    else:
        sys.stdout.write(svg)
    if out and len({k.context for k in res.ir}) > 1:
        sys.stderr.write(f"nki-verify: note: {names[0]} has several launch contexts; mapped: {res.ir[0].context} "
                         "(fix one with --shape)\n")
    return 0


def _why(res) -> str:
    bad = [d for d in res.diagnostics if d.code in ("NKI999", "NKI902")]
    return f" ({bad[0].code}: {bad[0].message})" if bad else ""


def cmd_rule(args: argparse.Namespace) -> int:
    if not args.code:
        for code, r in sorted(rules.RULES.items()):
            mark = "" if r.implemented else "  (reserved)"
            sys.stdout.write(f"{code}  {r.name:<36} {r.severity:<8} {r.summary}{mark}\n")
        return 0
    r = rules.RULES.get(args.code.upper())
    if r is None:
        raise UsageError(f"unknown rule {args.code!r} (see `nki-verify rule` for the list)")
    sys.stdout.write(r.text())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program (not a call from Python): the same findings in every run
        fixed_layout()
    tune_gc()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version"):
        argv.insert(0, "check")
    if argv and argv[0] == "--version":
        from . import __version__
        sys.stdout.write(f"nki-verify {__version__}\n")
        return 0
    if argv and argv[0] in DELEGATED:
        import importlib

        module, func = DELEGATED[argv[0]]
        try:
            entry = getattr(importlib.import_module(module), func)
        except ImportError as exc:
            sys.stderr.write(f"nki-verify: error: `{argv[0]}` is not available ({exc})\n")
            return 2
        return int(entry(argv[1:]) or 0)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return {"check": cmd_check, "ir": cmd_ir, "rule": cmd_rule, "map": cmd_map}[args.command](args)
    except UsageError as exc:
        sys.stderr.write(f"nki-verify: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 2
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - never a traceback for users; NKI_VERIFY_DEBUG=1 shows it
        if os.environ.get("NKI_VERIFY_DEBUG"):
            raise
        sys.stderr.write(f"nki-verify: internal error: {type(exc).__name__}: {exc}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
