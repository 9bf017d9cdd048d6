"""JUnit XML for CI dashboards: one test suite per file, one failing test case per finding (a file without
findings is one passing test case), so a dashboard shows which files and kernels fail and why."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..diagnostics import Diagnostic, counterexample_text
from . import FileResult, Run, relative_path


def render(run: Run) -> str:
    diags = run.diagnostics
    root = ET.Element("testsuites", name="nki-verify", tests=str(sum(max(1, len(f.diagnostics)) for f in run.files)),
                      failures=str(len(diags)), errors="0", time=f"{run.seconds:.3f}")
    for f in run.files:
        _suite(root, f)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(root: ET.Element, f: FileResult) -> None:
    path = relative_path(f.path)
    diags = sorted(f.diagnostics, key=lambda d: d.sort_key())
    suite = ET.SubElement(root, "testsuite", name=path, tests=str(max(1, len(diags))), failures=str(len(diags)),
                          errors="0", skipped="0", time=f"{f.seconds:.3f}")
    if not diags:
        ET.SubElement(suite, "testcase", name="nki-verify", classname=path, file=path, time=f"{f.seconds:.3f}")
        return
    for d in diags:
        case = ET.SubElement(suite, "testcase", name=f"{d.code} {d.kernel or path}:{d.line}:{d.column}",
                             classname=path, file=relative_path(d.path), line=str(d.line))
        failure = ET.SubElement(case, "failure", message=d.message, type=f"{d.code} {d.severity}")
        failure.text = _details(d)


def _details(d: Diagnostic) -> str:
    lines = [f"{relative_path(d.path)}:{d.line}:{d.column}: {d.code} {d.severity}: {d.message}"]
    if d.kernel:
        lines.append(f"kernel: {d.kernel}")
    if d.counterexample:
        lines.append(f"counterexample: {counterexample_text(d.counterexample)}")
    if d.suggestion:
        lines.append(f"help: if this is a precondition of the kernel, state it: `{d.suggestion}`")
    for n in d.notes:
        lines.append(f"note: {n.message} ({relative_path(n.location.path)}:{n.location.line}:{n.location.column})")
    return "\n".join(lines)
