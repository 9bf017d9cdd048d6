"""Options of one analysis: what the CLI, the language server and the tests pass to verify_source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from compiler.spec.targets import DEFAULT_TARGET

# the wall-clock limit per solver query: a last resort.  Each query's deterministic resource limit binds first
# (the slowest query over nki-library took 0.8 s, at that limit), so verdicts do not depend on the machine's load
# (at 1 s, and 200 ms for the front end's branch decisions, a busy machine changed findings from run to run).
DEFAULT_SOLVER_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Options:
    target: str = DEFAULT_TARGET
    target_explicit: bool = False  # chosen by the user (--target / config), not the default
    # kernel name (or "*") -> parameter -> (dims, dtype or None)
    shapes: Mapping[str, Mapping[str, tuple]] = field(default_factory=dict)
    grids: Mapping[str, tuple] = field(default_factory=dict)
    kernels: tuple[str, ...] | None = None  # analyse only these kernels
    solver_timeout_ms: int = DEFAULT_SOLVER_TIMEOUT_MS
    nki_version: str | None = None
    unroll_limit: int = 256
    # more directories to find imported modules in (like PYTHONPATH), after the analysed file's own project
    search_path: tuple[str, ...] = ()
    # open editor buffers (absolute path -> text) read instead of the disk for imported modules
    overlays: Mapping[str, str] = field(default_factory=dict)
    reader: Callable[[str], str | None] | None = None
    # which findings are reported: codes or prefixes ("NKI4"); select None means all
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)  # code -> "error" | "warning"
    suppressions: bool = True  # honour `# nki-verify: ignore[...]` comments (and report unused ones)
    # option names the user set explicitly (CLI flags): a configuration file does not override them
    explicit: frozenset = frozenset()
    # solver verdicts kept across calls by a long-lived caller (the language server); never part of a result's
    # identity: a verdict only depends on its query
    solver_cache: dict | None = field(default=None, compare=False, hash=False, repr=False)

    def reports(self, code: str) -> bool:
        """Is `code` selected?  The longest matching prefix of select/ignore decides, as in ruff."""
        chosen = list(self.select if self.select is not None else ("NKI",)) + list(self.extend_select)
        best_sel = max((len(p) for p in chosen if code.startswith(p)), default=-1)
        best_ign = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return best_sel >= 0 and best_sel > best_ign

    def cache_key(self) -> tuple:
        shapes = tuple(sorted((k, tuple(sorted(v.items()))) for k, v in self.shapes.items()))
        grids = tuple(sorted(self.grids.items()))
        return (self.target, self.target_explicit, shapes, grids, self.kernels, self.solver_timeout_ms,
                self.nki_version, self.unroll_limit, self.search_path, self.select, self.extend_select, self.ignore,
                tuple(sorted(self.severity.items())), self.suppressions)
