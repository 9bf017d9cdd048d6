"""SARIF 2.1.0 (the format GitHub code scanning and most CI dashboards ingest).

Every rule of the catalog is listed with its documentation (the same text as `nki-verify rule CODE`) and
help URI; each finding is a result with its region, related locations (notes), fixes, and the
counterexample in the message and in the result's property bag.  Paths inside the working directory are
relative URIs against `%SRCROOT%` (the working directory), as code scanning expects; columns count
Unicode code points (`columnKind`), as the verifier's do.
"""

from __future__ import annotations

import json
import os
import pathlib
import urllib.parse

from .. import rules
from ..diagnostics import Diagnostic, Location, counterexample_text
from . import Run, relative_path

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/nki-verify/nki-verify"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def render(run: Run, version: str, base: str | None = None) -> str:
    base = os.path.abspath(base or os.getcwd())
    catalog = sorted(rules.RULES)
    index = {code: i for i, code in enumerate(catalog)}
    doc = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "nki-verify", "version": version, "semanticVersion": version,
                                "informationUri": INFORMATION_URI,
                                "rules": [_rule(rules.RULES[c]) for c in catalog]}},
            "originalUriBaseIds": {SRCROOT: {"uri": pathlib.Path(base).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True}],
            "results": [_result(d, index, base) for d in run.diagnostics],
        }],
    }
    return json.dumps(doc, indent=2)


def _rule(r: rules.Rule) -> dict:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.what},
        "help": {"text": r.text(), "markdown": r.markdown()},
        "helpUri": r.help_uri,
        "defaultConfiguration": {"level": LEVELS[r.severity], "enabled": r.implemented},
        "properties": {"tags": ["nki", r.name]},
    }


def _result(d: Diagnostic, index: dict, base: str) -> dict:
    text = d.message
    if d.counterexample:
        text += f" (counterexample: {counterexample_text(d.counterexample)})"
    if d.suggestion:
        text += f" Precondition to state: `{d.suggestion}`."
    out: dict = {
        "ruleId": d.code,
        "level": LEVELS.get(d.severity, "warning"),
        "message": {"text": text},
        "locations": [{"physicalLocation": _physical(d.location, base)}],
    }
    if d.code in index:
        out["ruleIndex"] = index[d.code]
    if d.notes:
        out["relatedLocations"] = [{"id": i, "physicalLocation": _physical(n.location, base),
                                    "message": {"text": n.message}} for i, n in enumerate(d.notes)]
    if d.fixes:
        out["fixes"] = [_fix(f, base) for f in d.fixes]
    props: dict = {}
    if d.kernel:
        props["kernel"] = d.kernel
    if d.counterexample:
        props["counterexample"] = {str(k): v for k, v in d.counterexample}
    if d.suggestion:
        props["suggestion"] = d.suggestion
    if props:
        out["properties"] = props
    return out


def _fix(f, base: str) -> dict:
    by_path: dict = {}
    for e in f.edits:
        by_path.setdefault(e.location.path, []).append(
            {"deletedRegion": _region(e.location), "insertedContent": {"text": e.new_text}})
    return {"description": {"text": f.description},
            "artifactChanges": [{"artifactLocation": _artifact(p, base), "replacements": reps}
                                for p, reps in by_path.items()]}


def _physical(loc: Location, base: str) -> dict:
    return {"artifactLocation": _artifact(loc.path, base), "region": _region(loc)}


def _artifact(path: str, base: str) -> dict:
    rel = relative_path(path, base)
    if rel != path or not os.path.isabs(path):
        return {"uri": urllib.parse.quote(rel), "uriBaseId": SRCROOT}
    return {"uri": pathlib.Path(path).as_uri()}


def _region(loc: Location) -> dict:
    return {"startLine": max(loc.line, 1), "startColumn": max(loc.column, 1),
            "endLine": max(loc.end_line, loc.line, 1), "endColumn": max(loc.end_column, 1)}
