"""What the server analyses with: the client's settings over the workspace's `[tool.nki-verify]`.

Client settings (section `nkiVerify`) are what the user chose in the editor, so they win over the project's
configuration (they are marked explicit, as CLI flags are):

    enable    false turns the analysis off (diagnostics are cleared)
    target    "trn1" | "trn2" | "trn3" (or an alias); empty means the project's or the default
    severity  {"NKI403": "error", "NKI901": "off"}  per-code overrides; "off" ignores the code
    ignore    ["NKI9"]  codes or prefixes never reported
"""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

from compiler.spec.targets import ALIASES, TARGETS
from nki_verify import Options, VerifyResult, analyze_source, rules
from nki_verify.config import Config, ConfigError, find_config_file, load_config

SECTION = "nkiVerify"
LEVELS = ("error", "warning", "off")


@dataclass(frozen=True)
class ServerOptions:
    """How `create_server` builds a server; tests swap `analyze` for a crashing or slow one."""

    base: Options = Options()
    debounce: float = 0.15  # seconds of quiet after an edit before a document is analysed
    time_budget: float = 120.0  # seconds one analysis may take before its result is given up on
    analyze: Callable[[str, str, Options], VerifyResult] = analyze_source


@dataclass(frozen=True)
class ClientSettings:
    enable: bool = True
    target: str | None = None
    severity: tuple[tuple[str, str], ...] = ()
    ignore: tuple[str, ...] = ()

    def apply(self, base: Options) -> Options:
        changes: dict[str, Any] = {}
        explicit = set(base.explicit)
        if self.target:
            changes.update(target=ALIASES.get(self.target, self.target), target_explicit=True)
            explicit.add("target")
        levels = {c: lvl for c, lvl in self.severity if lvl != "off"}
        if levels:
            changes["severity"] = {**dict(base.severity), **levels}
        off = tuple(c for c, lvl in self.severity if lvl == "off") + self.ignore
        if off:
            changes["ignore"] = tuple(base.ignore) + off
        if not changes:
            return base
        return dataclasses.replace(base, explicit=frozenset(explicit), **changes)


def parse_settings(raw: Any) -> tuple[ClientSettings, list[str]]:
    """Client settings from a JSON value (unknown or ill-typed entries are reported and skipped)."""
    problems: list[str] = []
    if raw is None:
        return ClientSettings(), problems
    if not isinstance(raw, dict):
        return ClientSettings(), [f"{SECTION} settings must be an object, not {type(raw).__name__}"]
    if isinstance(raw.get(SECTION), dict):  # {"nkiVerify": {...}} as sent by didChangeConfiguration
        raw = raw[SECTION]
    kw: dict[str, Any] = {}
    if isinstance(raw.get("enable"), bool):
        kw["enable"] = raw["enable"]
    target = raw.get("target")
    if target:
        if target in TARGETS or target in ALIASES:
            kw["target"] = target
        else:
            problems.append(f"{SECTION}.target: {target!r} is not a target ({', '.join(sorted(TARGETS))})")
    sev = raw.get("severity") or {}
    if isinstance(sev, dict):
        pairs = []
        for code, level in sev.items():
            code = str(code).upper()
            if level not in LEVELS or not any(k.startswith(code) for k in rules.codes()):
                problems.append(f"{SECTION}.severity: {code} = {level!r} ignored (a rule code and one of "
                                f"{', '.join(LEVELS)})")
                continue
            pairs.append((code, level))
        kw["severity"] = tuple(pairs)
    ignore = raw.get("ignore") or []
    if isinstance(ignore, list):
        kw["ignore"] = tuple(str(c).upper() for c in ignore if isinstance(c, str))
    return ClientSettings(**kw), problems


class ConfigProblem(Exception):
    """A configuration file that cannot be used: where it is and what is wrong."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


class ConfigCache:
    """The configuration file that applies to each directory, and each file's parsed contents.

    A file is re-read when its modification time changes, so an edited pyproject.toml takes effect even in a
    client that does not report watched files; `invalidate()` (on watched-file events) also forgets which file
    applies where, for created and deleted configuration files.  Used from the analysis threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file_for_dir: dict[str, str | None] = {}
        self._loaded: dict[str, tuple[int, Config]] = {}

    def invalidate(self) -> None:
        with self._lock:
            self._file_for_dir.clear()
            self._loaded.clear()

    def config_for(self, path: str) -> Config:
        """The configuration for a file; raises ConfigProblem for a configuration that cannot be used."""
        d = os.path.dirname(os.path.abspath(path))
        with self._lock:
            known = d in self._file_for_dir
            cfg_path = self._file_for_dir.get(d)
        if not known:
            cfg_path = find_config_file(d)
            with self._lock:
                self._file_for_dir[d] = cfg_path
        if cfg_path is None:
            return Config()
        try:
            mtime = os.stat(cfg_path).st_mtime_ns
        except OSError:
            self.invalidate()
            return Config()
        with self._lock:
            hit = self._loaded.get(cfg_path)
        if hit is not None and hit[0] == mtime:
            return hit[1]
        try:
            cfg = load_config(cfg_path)
        except ConfigError as exc:
            raise ConfigProblem(cfg_path, str(exc)) from exc
        with self._lock:
            self._loaded[cfg_path] = (mtime, cfg)
        return cfg


def is_config_file(path: str) -> bool:
    return os.path.basename(path) in ("pyproject.toml", "nki-verify.toml", ".nki-verify.toml")
