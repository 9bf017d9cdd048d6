"""Finding and reading the modules of the analysed project (never importing them).

A file's package is found by walking up `__init__.py` directories; absolute
imports are resolved against that package root, the file's own directory
(scripts that import their siblings), a `src/` layout next to a
`pyproject.toml` and the directories of the search-path option, and a dotted
name found nowhere else against the file's ancestor directories up to the
project's top.  Relative imports are resolved from the file's package.

A module found nowhere else is looked for among the installed packages (the
directories of this interpreter's path, read as files): an NKI helper
library (`pip install`ed, its source next to the other site packages) is
followed like the project's own code.  Only packages that use NKI are: one
of their modules imports it.  Frameworks (torch, numpy) stay opaque.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping

NKI_ROOTS = ("nki", "neuronxcc")
# installed packages never followed (large, and known not to hold NKI kernels): no directory scan for them
OPAQUE_PACKAGES = frozenset({
    "torch", "numpy", "jax", "jaxlib", "tensorflow", "transformers", "scipy", "triton", "torch_neuronx",
    "torch_xla", "libneuronxla", "neuronx_distributed", "pytest", "hypothesis", "z3", "ml_dtypes", "pygls",
    "setuptools", "pip", "typing_extensions", "compiler", "nki_verify", "device", "lsp"})
MAX_PACKAGE_SCAN = 800  # files read to tell whether an installed package uses NKI
_USES_NKI = re.compile(r"^\s*(?:from|import)\s+(?:neuronxcc|nki)\b", re.M)
FRAMEWORK_NKI = {
    "torch_neuronx": {"nki_jit": "nki_jit", "nki_op": "nki_op"},
    "torch_neuronx.xla_impl.ops": {"nki_jit": "nki_jit"},
    "jax_neuronx": {"nki_call": "nki_call"},
}


@dataclass
class ParsedModule:
    path: str
    name: str  # dotted module name (best effort)
    package: str  # dotted package for relative imports
    source: str
    tree: ast.Module | None
    error: SyntaxError | None = None


@dataclass
class SourceSet:
    """Where sources come from: open editor buffers first, then the file system."""

    overlays: Mapping[str, str] = field(default_factory=dict)
    reader: Callable[[str], str | None] | None = None

    def read(self, path: str) -> str | None:
        ap = os.path.abspath(path)
        if ap in self.overlays:
            return self.overlays[ap]
        if path in self.overlays:
            return self.overlays[path]
        if self.reader is not None:
            return self.reader(ap)
        try:
            with open(ap, encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError):
            return None

    def exists(self, path: str) -> bool:
        ap = os.path.abspath(path)
        return ap in self.overlays or os.path.isfile(ap)


def package_root(path: str) -> tuple[str, str]:
    """(root directory, dotted module name) for a file, following the __init__.py chain."""
    d = os.path.dirname(os.path.abspath(path))
    base = os.path.splitext(os.path.basename(path))[0]
    parts = [] if base == "__init__" else [base]
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.insert(0, os.path.basename(d))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return d, ".".join(parts)


def _project_roots(path: str) -> list[str]:
    """Extra absolute-import roots: src/ layouts next to a pyproject.toml found walking up."""
    out = []
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(12):
        if os.path.isfile(os.path.join(d, "pyproject.toml")) or os.path.isfile(os.path.join(d, "setup.py")):
            out.append(d)
            src = os.path.join(d, "src")
            if os.path.isdir(src):
                out.append(src)
                # src/<dist>/<package> layouts (e.g. src/nkilib_src/nkilib)
                try:
                    for entry in sorted(os.listdir(src)):
                        sub = os.path.join(src, entry)
                        if os.path.isdir(sub) and not os.path.isfile(os.path.join(sub, "__init__.py")):
                            out.append(sub)
                except OSError:
                    pass
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return out


@functools.lru_cache(maxsize=512)
def _parse(path: str, text: str) -> ast.Module:
    """The syntax tree of a module's text.  Trees are never modified (the front end only reads them and
    keeps derived data on them, see astwalk), so one tree serves every analysis of the same text: a package's
    shared modules are parsed once per process, not once per importing file (parsing was 8 % of a run over
    nki-library)."""
    return ast.parse(text, filename=path, type_comments=False)


class ModuleIndex:
    """Parses and caches the project's modules for one analysis."""

    def __init__(self, sources: SourceSet, entry_path: str, search_path: tuple = ()) -> None:
        self.sources = sources
        self.entry_path = os.path.abspath(entry_path)
        root, _ = package_root(entry_path)
        self.roots = [root, os.path.dirname(self.entry_path)] + _project_roots(entry_path) + \
            [os.path.abspath(d) for d in search_path]
        self._installed: dict[str, str | None] = {}  # top-level name -> the site directory holding it (NKI users)
        self._cache: dict[str, ParsedModule] = {}
        self.read_paths: list[str] = []  # every project file read (for cache keys)

    def parse(self, path: str, source: str | None = None) -> ParsedModule | None:
        ap = os.path.abspath(path)
        if ap in self._cache:
            return self._cache[ap]
        text = source if source is not None else self.sources.read(ap)
        if text is None:
            return None
        if ap not in self.read_paths:
            self.read_paths.append(ap)
        _, name = package_root(ap)
        is_pkg = os.path.basename(ap) == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        try:
            pm = ParsedModule(ap, name, package, text, _parse(ap, text))
        except (SyntaxError, ValueError) as exc:
            err = exc if isinstance(exc, SyntaxError) else SyntaxError(str(exc))
            pm = ParsedModule(ap, name, package, text, None, err)
        self._cache[ap] = pm
        return pm

    def resolve(self, dotted: str, level: int = 0, importer: ParsedModule | None = None) -> str | None:
        """The file of a project module, or None when it is not part of the project."""
        if level:
            if importer is None:
                return None
            # by directories: `from ..util import x` in pkg/kernels/k.py is pkg/util, whether or not the
            # directories between have an __init__.py (PEP 420 namespace packages: nki-samples' rmsnorm_quant
            # imports `..util` across one), as Python resolves it when the file is imported from its package
            importer_dir = os.path.dirname(importer.path)
            up = importer_dir
            for _ in range(level - 1):
                up = os.path.dirname(up)
            rel = dotted.split(".") if dotted else []
            return self._find(up, rel)
        head = dotted.split(".")[0]
        if head in NKI_ROOTS:
            return None
        for root in self.roots:
            hit = self._find(root, dotted.split("."))
            if hit:
                return hit
        if "." in dotted:
            # a package of the project that no root holds: `from kernel_library.allocation.utils import f` in
            # kernel_library/k.py of a repository run from its top (namespace packages, or a top directory
            # with an __init__.py of its own): the entry file's ancestors, up to the project's top
            for d in self._ancestors():
                hit = self._find(d, dotted.split("."))
                if hit:
                    return hit
        site = self._installed_root(head)
        return self._find(site, dotted.split(".")) if site else None

    def _ancestors(self) -> list:
        """The entry file's ancestor directories not among the roots, nearest first, up to the first that marks
        a project's top (a .git, pyproject.toml or setup.py) and at most 8."""
        out = []
        d = os.path.dirname(self.entry_path)
        for _ in range(8):
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
            if d not in self.roots:
                out.append(d)
            if any(os.path.exists(os.path.join(d, m)) for m in (".git", "pyproject.toml", "setup.py")):
                break
        return out

    def _installed_root(self, top: str) -> str | None:
        """The site directory of an installed package that uses NKI, else None (read, never imported)."""
        if top in self._installed:
            return self._installed[top]
        found = None
        if top not in OPAQUE_PACKAGES and top.isidentifier():
            for d in sys.path:
                if not d or not os.path.isabs(d) or d in self.roots or os.path.abspath(d) == os.getcwd():
                    continue  # the working directory is not an installation
                pkg = os.path.join(d, top)
                if os.path.isfile(os.path.join(pkg, "__init__.py")):
                    found = d if _uses_nki(pkg, self.sources) else None
                    break
                if self.sources.exists(pkg + ".py"):
                    found = d if _USES_NKI.search(self.sources.read(pkg + ".py") or "") else None
                    break
        self._installed[top] = found
        return found

    def _find(self, root: str, parts: list[str]) -> str | None:
        if not parts:
            init = os.path.join(root, "__init__.py")
            return init if self.sources.exists(init) else None
        p = os.path.join(root, *parts)
        if self.sources.exists(p + ".py"):
            return p + ".py"
        init = os.path.join(p, "__init__.py")
        if self.sources.exists(init):
            return init
        return None


def _uses_nki(pkg: str, sources: SourceSet) -> bool:
    """Does a module of the package directory import NKI?  (Its first MAX_PACKAGE_SCAN files.)"""
    seen = 0
    for d, dirs, files in os.walk(pkg):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            seen += 1
            if seen > MAX_PACKAGE_SCAN:
                return False
            if _USES_NKI.search(sources.read(os.path.join(d, f)) or ""):
                return True
    return False


def nki_api_path(dotted: str) -> tuple[str, str] | None:
    """(canonical API path, dialect) for an NKI module path, else None.

    `neuronxcc.nki.language` -> ("language", "beta1"); `nki.isa.constants` -> ("isa", "beta2").
    """
    parts = dotted.split(".")
    if parts[0] == "neuronxcc":
        if len(parts) == 1:
            return ("neuronxcc", "beta1")
        if parts[1] != "nki":
            return None
        dialect, rest = "beta1", parts[2:]
    elif parts[0] == "nki":
        dialect, rest = "beta2", parts[1:]
    else:
        return None
    rest = [p for p in rest if p not in ("constants", "_private", "compat")]
    return (".".join(rest), dialect)


def reachable_source(path: str, text: str, sources: SourceSet | None = None, search_path: tuple = ()) -> int:
    """Characters of source the analysis of a file may read: its own and those of the project modules it imports,
    directly or through one another, wherever the import statement sits (parsed, never imported).  A measure of
    the work an analysis does, for scheduling a run of many files: nki-library's moe_block_tkg.py is 17 kB and
    its analysis the longest, through the 37 modules it reaches (700 kB)."""
    index = ModuleIndex(sources or SourceSet(), path, search_path)
    start = index.parse(path, text)
    seen = {os.path.abspath(path)}
    stack = [start] if start is not None else []
    total = 0
    while stack:
        pm = stack.pop()
        total += len(pm.source)
        if pm.tree is None:
            continue
        for node in ast.walk(pm.tree):
            if isinstance(node, ast.Import):
                names = [(a.name, 0) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                # `from pkg import mod` names a submodule as often as an attribute
                names = [(base, node.level)] + [(f"{base}.{a.name}" if base else a.name, node.level)
                                                 for a in node.names if a.name != "*"]
            else:
                continue
            for dotted, level in names:
                found = index.resolve(dotted, level, pm) if dotted or level else None
                if found is not None and found not in seen:
                    seen.add(found)
                    module = index.parse(found)
                    if module is not None:
                        stack.append(module)
    return total
