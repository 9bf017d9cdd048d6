"""Project configuration: `[tool.nki-verify]` in pyproject.toml, or a `nki-verify.toml` (same keys at top level).

The configuration that applies to a file is the nearest one found walking up from the file's directory
(a pyproject.toml without a `[tool.nki-verify]` table does not count, as with ruff).  Keys:

    target = "trn2"                         # trn1 | trn2 | trn3 (or an alias)
    select = ["NKI1", "NKI401"]             # codes or prefixes to report (default: all)
    extend-select = ["NKI903"]              # added to select
    ignore = ["NKI403"]                     # codes or prefixes never reported
    per-file-ignores = {"tests/*.py" = ["NKI101"]}
    exclude = ["build/**", "third_party/**"]
    severity = {NKI403 = "error"}           # per-code severity override
    shapes = {tensor_add = {a = [256, 1024], b = [256, 1024, "bfloat16"]}}
    grids = {tensor_add = [2, 2]}
    solver-timeout = 10000                  # milliseconds per query (a last resort)
    nki-version = "0.6"
    unroll-limit = 256
    search-path = ["../vendor"]             # more import roots, relative to this file (like PYTHONPATH)

Unknown keys, unknown codes and ill-typed values raise ConfigError with the file and the key: a typo never
silently disables a check.  `Config.options(base, path)` merges the configuration under options the user
gave explicitly (CLI flags win).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from dataclasses import dataclass, field
from typing import Any

from compiler.spec import dtypes as D
from compiler.spec.targets import ALIASES, TARGETS

from . import rules
from .options import Options

CONFIG_FILES = ("nki-verify.toml", ".nki-verify.toml", "pyproject.toml")
KEYS = ("target", "select", "extend-select", "ignore", "per-file-ignores", "exclude", "severity", "shapes",
        "grids", "solver-timeout", "nki-version", "unroll-limit", "search-path")


class ConfigError(Exception):
    """A configuration file that cannot be used, with the file and key in the message."""


def _toml_load(path: str) -> dict:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    with open(path, "rb") as fh:
        try:
            return tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


@dataclass(frozen=True)
class Config:
    path: str | None = None  # the file it came from (None: defaults)
    target: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    shapes: dict = field(default_factory=dict)
    grids: dict = field(default_factory=dict)
    solver_timeout_ms: int | None = None
    nki_version: str | None = None
    unroll_limit: int | None = None
    search_path: tuple[str, ...] = ()  # absolute directories (relative entries are taken from the file's folder)

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()

    def relpath(self, path: str) -> str:
        try:
            return os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        except ValueError:  # another drive (Windows)
            return path.replace(os.sep, "/")

    def is_excluded(self, path: str) -> bool:
        rel = self.relpath(path)
        return any(_glob(rel, pat) for pat in self.exclude)

    def ignores_for(self, path: str) -> tuple[str, ...]:
        rel = self.relpath(path)
        out = list(self.ignore)
        for pat, codes in self.per_file_ignores:
            if _glob(rel, pat):
                out.extend(codes)
        return tuple(out)

    def options(self, base: Options, path: str | None = None) -> Options:
        """`base` with this configuration filled in where the user did not set a value explicitly."""
        explicit = base.explicit
        changes: dict[str, Any] = {}
        if self.target and "target" not in explicit:
            changes.update(target=ALIASES.get(self.target, self.target), target_explicit=True)
        if "shapes" not in explicit and self.shapes:
            merged = {k: dict(v) for k, v in self.shapes.items()}
            for k, v in base.shapes.items():
                merged.setdefault(k, {}).update(v)
            changes["shapes"] = merged
        if "grids" not in explicit and self.grids:
            changes["grids"] = {**self.grids, **dict(base.grids)}
        if self.solver_timeout_ms is not None and "solver_timeout_ms" not in explicit:
            changes["solver_timeout_ms"] = self.solver_timeout_ms
        if self.nki_version is not None and "nki_version" not in explicit:
            changes["nki_version"] = self.nki_version
        if self.unroll_limit is not None and "unroll_limit" not in explicit:
            changes["unroll_limit"] = self.unroll_limit
        if self.search_path:
            changes["search_path"] = tuple(base.search_path) + self.search_path
        if "select" not in explicit and self.select is not None:
            changes["select"] = self.select
        extend = tuple(base.extend_select) + self.extend_select
        if extend != tuple(base.extend_select):
            changes["extend_select"] = extend
        ignore = tuple(base.ignore) + (self.ignores_for(path) if path else self.ignore)
        if ignore != tuple(base.ignore):
            changes["ignore"] = ignore
        if self.severity:
            changes["severity"] = {**dict(self.severity), **dict(base.severity)}
        return dataclasses.replace(base, **changes) if changes else base


def _glob(rel: str, pat: str) -> bool:
    pat = pat.replace(os.sep, "/")
    if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*"):
        return True
    if pat.startswith("**/") and fnmatch.fnmatch(rel, pat[3:]):
        return True
    # a bare name matches that file or directory anywhere (like ruff's exclude)
    return "/" not in pat and any(fnmatch.fnmatch(part, pat) for part in rel.split("/"))


def find_config_file(start: str) -> str | None:
    """The nearest configuration file at or above `start` (a file or directory)."""
    d = os.path.abspath(start)
    if not os.path.isdir(d):
        d = os.path.dirname(d)
    while True:
        for name in CONFIG_FILES:
            p = os.path.join(d, name)
            if os.path.isfile(p) and (name != "pyproject.toml" or _has_section(p)):
                return p
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _has_section(pyproject: str) -> bool:
    try:
        data = _toml_load(pyproject)
    except (ConfigError, OSError):
        return False
    return isinstance(data.get("tool"), dict) and "nki-verify" in data["tool"]


def find_config(start: str) -> Config:
    p = find_config_file(start)
    return load_config(p) if p else Config()


def load_config(path: str) -> Config:
    try:
        data = _toml_load(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    if os.path.basename(path) == "pyproject.toml":
        table = data.get("tool", {}).get("nki-verify")
        if table is None:
            return Config(path=path)
        where = "[tool.nki-verify]"
    else:
        table, where = data, ""
    return parse_table(table, path, where)


def parse_table(table: Any, path: str = "<config>", where: str = "") -> Config:
    def err(key: str, msg: str) -> ConfigError:
        return ConfigError(f"{path}: {where + ' ' if where else ''}{key}: {msg}")

    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where or 'configuration'} must be a table")
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise ConfigError(f"{path}: {where + ': ' if where else ''}unknown key{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(repr(k) for k in unknown)} (known: {', '.join(KEYS)})")
    kw: dict[str, Any] = {"path": path}
    if "target" in table:
        t = table["target"]
        if not isinstance(t, str) or (t not in TARGETS and t not in ALIASES):
            raise err("target", f"{t!r} is not a target (choose from {', '.join(sorted(TARGETS) + sorted(ALIASES))})")
        kw["target"] = t
    for key, attr in (("select", "select"), ("extend-select", "extend_select"), ("ignore", "ignore")):
        if key in table:
            kw[attr] = _codes(table[key], err(key, "").args[0])
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise err("per-file-ignores", "must be a table of glob = [codes]")
        kw["per_file_ignores"] = tuple((str(g), _codes(c, err(f"per-file-ignores.{g}", "").args[0]))
                                       for g, c in pfi.items())
    if "exclude" in table:
        ex = table["exclude"]
        if not isinstance(ex, list) or not all(isinstance(x, str) for x in ex):
            raise err("exclude", "must be a list of glob strings")
        kw["exclude"] = tuple(ex)
    if "severity" in table:
        sev = table["severity"]
        if not isinstance(sev, dict):
            raise err("severity", "must be a table of CODE = \"error\" | \"warning\"")
        pairs = []
        for code, level in sev.items():
            _codes([code], err("severity", "").args[0])
            if level not in ("error", "warning"):
                raise err(f"severity.{code}", f"{level!r} is not \"error\" or \"warning\"")
            pairs.append((code, level))
        kw["severity"] = tuple(pairs)
    if "shapes" in table:
        kw["shapes"] = _shapes(table["shapes"], err)
    if "grids" in table:
        g = table["grids"]
        if not isinstance(g, dict):
            raise err("grids", "must be a table of kernel = [dims]")
        grids = {}
        for k, dims in g.items():
            if not isinstance(dims, list) or not dims or not all(isinstance(x, int) and x > 0 for x in dims):
                raise err(f"grids.{k}", "must be a non-empty list of positive integers")
            grids[k] = tuple(dims)
        kw["grids"] = grids
    for key, attr in (("solver-timeout", "solver_timeout_ms"), ("unroll-limit", "unroll_limit")):
        if key in table:
            v = table[key]
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise err(key, "must be a positive integer")
            kw[attr] = v
    if "search-path" in table:
        v = table["search-path"]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err("search-path", "must be a list of directories")
        kw["search_path"] = tuple(os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), x))
                                  for x in v)
    if "nki-version" in table:
        v = table["nki-version"]
        if not isinstance(v, str):
            raise err("nki-version", "must be a string such as \"0.6\"")
        kw["nki_version"] = v
    return Config(**kw)


def _codes(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ConfigError(f"{where}must be a list of rule codes or prefixes")
    known = rules.codes()
    out = []
    for c in value:
        c = c.strip().upper()
        if c == "ALL" or c == "NKI":
            out.append("NKI")
            continue
        if not c.startswith("NKI") or not any(k.startswith(c) for k in known):
            raise ConfigError(f"{where}{c!r} is not a rule code or prefix (see `nki-verify rule`)")
        out.append(c)
    return tuple(out)


def _shapes(value: Any, err: Any) -> dict:
    if not isinstance(value, dict):
        raise err("shapes", "must be a table of kernel = {param = [dims, optional dtype]}")
    out: dict = {}
    for kernel, params in value.items():
        if not isinstance(params, dict):
            raise err(f"shapes.{kernel}", "must be a table of param = [dims, optional dtype]")
        for name, spec in params.items():
            where = f"shapes.{kernel}.{name}"
            if not isinstance(spec, list) or not spec:
                raise err(where, "must be a list of dimensions, optionally ending with a dtype name")
            dtype = None
            if isinstance(spec[-1], str):
                dtype = D.canonical(spec[-1])
                if dtype is None:
                    raise err(where, f"{spec[-1]!r} is not an NKI dtype")
                spec = spec[:-1]
            if not spec or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in spec):
                raise err(where, "dimensions must be positive integers")
            out.setdefault(kernel, {})[name] = (tuple(spec), dtype)
    return out
