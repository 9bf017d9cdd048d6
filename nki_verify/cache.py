"""A content-hash cache of per-file results, in a directory like ruff's (`.nki_verify_cache/` at the project root).

An entry is found by a key over the file's path and contents, the analysis options and the verifier's own
version (its version string and a fingerprint of its source files, so an edited checkout never reads
stale results).  The entry records the project modules the analysis read (`VerifyResult.read_paths`) with
the hash of their contents; it is used only while every one of them still has that hash.  Results with an
undecided check (NKI901) are not stored: a later run with more time may settle them.

The directory holds a CACHEDIR.TAG (so backup tools skip it) and a .gitignore that ignores everything in it.
Writes are atomic (a temporary file renamed into place), so concurrent runs never see half an entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from typing import Mapping

from .diagnostics import Diagnostic, Fix, Location, Note, TextEdit
from .options import Options
from .report import FileResult

DIRNAME = ".nki_verify_cache"
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by nki-verify.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")
FORMAT = 1  # bump when the entry layout changes


def code_fingerprint() -> str:
    """The verifier's version and the size/mtime of its own source files (nki_verify/ and compiler/)."""
    import compiler

    from . import __version__

    h = hashlib.sha256(f"{__version__}/{FORMAT}".encode())
    for pkg in (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(compiler.__file__))):
        for root, dirs, files in os.walk(pkg):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    st = os.stat(os.path.join(root, f))
                    h.update(f"{os.path.relpath(os.path.join(root, f), pkg)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


# Options fields that do not change a file's result here: editor buffers (the CLI has none) and which options
# were given on the command line (already merged with the configuration)
_NOT_IN_KEY = ("overlays", "reader", "explicit", "solver_cache")


def options_key(options: Options) -> str:
    """Every option that can change a result, in a canonical form (new Options fields are included by default)."""
    def canon(v: object) -> object:
        if isinstance(v, Mapping):
            return tuple(sorted((str(k), canon(x)) for k, x in v.items()))
        if isinstance(v, (tuple, list)):
            return tuple(canon(x) for x in v)
        if isinstance(v, (set, frozenset)):
            return tuple(sorted(repr(canon(x)) for x in v))
        return v

    return repr(tuple((f.name, canon(getattr(options, f.name))) for f in dataclasses.fields(options)
                      if f.name not in _NOT_IN_KEY))


def file_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


class Cache:
    def __init__(self, directory: str) -> None:
        self.directory = os.path.abspath(directory)
        self.fingerprint = code_fingerprint()
        self.entries = os.path.join(self.directory, self.fingerprint)
        self.hits = 0
        self.misses = 0

    def key(self, path: str, text: str, options: Options) -> str:
        h = hashlib.sha256()
        for part in (self.fingerprint, os.path.abspath(path), file_hash(text), options_key(options)):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.entries, key[:2], key + ".json")

    def get(self, key: str) -> FileResult | None:
        try:
            with open(self._entry_path(key), encoding="utf-8") as f:
                entry = json.load(f)
            deps_ok = all(_read_hash(p) == h for p, h in entry["deps"].items())
            result = FileResult(entry["path"], [diagnostic_from_json(d) for d in entry["diagnostics"]],
                                entry["kernels"], 0.0, cached=True) if deps_ok else None
        except (OSError, ValueError, KeyError, TypeError):
            result = None
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def put(self, key: str, result: FileResult, read_paths: list) -> None:
        if any(d.code == "NKI901" for d in result.diagnostics):
            return
        deps = {}
        for p in read_paths:
            if os.path.abspath(p) == os.path.abspath(result.path):
                continue  # its contents are in the key
            h = _read_hash(p)
            if h is None:
                return
            deps[p] = h
        entry = {"path": result.path, "kernels": result.kernels, "deps": deps,
                 "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics]}
        try:
            data = json.dumps(entry)
        except (TypeError, ValueError):  # a counterexample value JSON cannot hold: do not cache it
            return
        self._write(self._entry_path(key), data)

    def _write(self, path: str, data: str) -> None:
        try:
            self._prepare()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only checkout: run without caching

    def _prepare(self) -> None:
        if os.path.isdir(self.entries):
            return
        self._prune()
        if os.path.isfile(os.path.join(self.directory, "CACHEDIR.TAG")):
            return
        os.makedirs(self.directory, exist_ok=True)
        with open(os.path.join(self.directory, "CACHEDIR.TAG"), "w", encoding="utf-8") as f:
            f.write(CACHEDIR_TAG)
        with open(os.path.join(self.directory, ".gitignore"), "w", encoding="utf-8") as f:
            f.write("# Automatically created by nki-verify.\n*\n")


    def _prune(self) -> None:
        """Entries of other verifier versions can never be read again: remove them."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            if name != self.fingerprint and len(name) == 16 and all(c in "0123456789abcdef" for c in name):
                shutil.rmtree(os.path.join(self.directory, name), ignore_errors=True)


def _loc(loc: Location) -> list:
    return [loc.path, loc.line, loc.column, loc.end_line, loc.end_column]


def diagnostic_to_json(d: Diagnostic) -> dict:
    return {"code": d.code, "severity": d.severity, "message": d.message, "location": _loc(d.location),
            "kernel": d.kernel, "counterexample": [list(p) for p in d.counterexample] if d.counterexample is not None
            else None, "suggestion": d.suggestion, "notes": [[_loc(n.location), n.message] for n in d.notes],
            "fixes": [[f.description, [[_loc(e.location), e.new_text] for e in f.edits]] for f in d.fixes]}


def diagnostic_from_json(j: dict) -> Diagnostic:
    ce = j["counterexample"]
    return Diagnostic(j["code"], j["severity"], j["message"], Location(*j["location"]), j["kernel"],
                      tuple((k, v) for k, v in ce) if ce is not None else None, j["suggestion"],
                      tuple(Note(Location(*loc), m) for loc, m in j["notes"]),
                      tuple(Fix(desc, tuple(TextEdit(Location(*loc), t) for loc, t in edits))
                            for desc, edits in j["fixes"]))
