"""Command line: `nki-verify [check] PATH...`, `nki-verify ir PATH`, `nki-verify rule CODE`.

Exit codes: 0 no errors, 1 errors found, 2 usage error or a file that cannot be read.
The contract is documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import Sequence

from compiler.spec.targets import ALIASES, TARGETS

from . import rules
from .api import analyze_source
from .config import Config, ConfigError, find_config, load_config
from .diagnostics import ERROR
from .options import Options
from .report import json_report
from .report.text import SourceCache, format_diagnostic, summary, use_color

COMMANDS = ("check", "ir", "rule", "lsp", "run")
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
    check.add_argument("--output-format", choices=("text", "json"), default="text")
    irp = sub.add_parser("ir", help="print the kernel IR the verifier understood")
    _common(irp)
    irp.add_argument("paths", nargs="+")
    rule = sub.add_parser("rule", help="print the documentation of a rule")
    rule.add_argument("code", nargs="?", help="e.g. NKI101 (omit to list all rules)")
    # listed for --help; their own parsers live in lsp/ and device/
    sub.add_parser("lsp", help="start the language server (stdio; see `nki-verify lsp --help`)", add_help=False)
    sub.add_parser("run", help="EXECUTE a kernel on the numpy reference device: the only command that runs "
                   "your code (see `nki-verify run --help`)", add_help=False)
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", choices=_targets(), default=None,
                   help="NeuronCore generation (default trn2, or the kernel's own platform_target)")
    p.add_argument("--shape", action="append", default=[], metavar="[KERNEL.]PARAM=DxD[:DTYPE]",
                   help="fix an input shape, e.g. --shape tensor_add.a=256x1024:bfloat16 (repeatable)")
    p.add_argument("--grid", action="append", default=[], metavar="[KERNEL=]DxD",
                   help="fix the launch grid, e.g. --grid tensor_add=2x2")
    p.add_argument("--kernel", action="append", default=[], metavar="NAME", help="only analyse this kernel")
    p.add_argument("--solver-timeout", type=int, default=None, metavar="MS",
                   help="wall-clock limit per solver query in milliseconds (default 1000); each query also has "
                        "a deterministic resource limit")
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
    return Options(target=args.target or "trn2", target_explicit=args.target is not None, shapes=shapes, grids=grids,
                   kernels=tuple(args.kernel) if args.kernel else None,
                   solver_timeout_ms=args.solver_timeout if args.solver_timeout is not None else 1000,
                   select=select, extend_select=_code_list(args.extend_select, "--extend-select"),
                   ignore=_code_list(args.ignore, "--ignore"), explicit=frozenset(explicit))


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
    options = _options(args)
    configs = Configs(args)
    files = [f for f in collect_files(args.paths)
             if f in args.paths or not configs.for_path(f).is_excluded(f)]
    t0 = time.perf_counter()
    diags: list = []
    n_kernels = 0
    for path in files:
        text = read_source(path)
        res = analyze_source(text, os.path.abspath(path), configs.for_path(path).options(options, path))
        n_kernels += len({k.name for k in res.kernels})
        diags.extend(res.diagnostics)
    seconds = time.perf_counter() - t0
    if args.output_format == "json":
        sys.stdout.write(json_report.render(diags, len(files), n_kernels, seconds) + "\n")
    else:
        color = use_color(sys.stdout)
        cache = SourceCache()
        for d in diags:
            sys.stdout.write(format_diagnostic(d, cache, color) + "\n\n")
        sys.stdout.write(summary(len(files), n_kernels, diags, seconds) + "\n")
    return 1 if any(d.severity == ERROR for d in diags) else 0


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
        return {"check": cmd_check, "ir": cmd_ir, "rule": cmd_rule}[args.command](args)
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
