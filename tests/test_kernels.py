"""Every test kernel's diagnostics match its inline expectations, in both dialects."""

from __future__ import annotations

import glob
import os

import pytest

from nki_verify import Options, analyze_source

from .expectations import compare, rewrite

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")


def _cases() -> list:
    cases = sorted(glob.glob(os.path.join(KERNELS, "*.py")))
    for pkg in sorted(glob.glob(os.path.join(KERNELS, "*", "__init__.py"))):
        d = os.path.dirname(pkg)
        cases.extend(sorted(p for p in glob.glob(os.path.join(d, "*.py")) if os.path.basename(p).startswith("kernel")))
    return cases


def _files_of(case: str) -> list:
    d = os.path.dirname(case)
    if os.path.isfile(os.path.join(d, "__init__.py")):
        return sorted(p for p in glob.glob(os.path.join(d, "*.py")) if not p.endswith("__init__.py"))
    return [case]


def options_of(text: str) -> Options:
    """A file may fix its options on one line: `# verify-options: nki_version=0.2, target=trn1`."""
    kw: dict = {}
    for line in text.splitlines()[:10]:
        if line.startswith("# verify-options:"):
            for part in line.split(":", 1)[1].split(","):
                key, _, value = part.strip().partition("=")
                kw[key.strip()] = value.strip()
    if "target" in kw:
        kw["target_explicit"] = True
    return Options(**kw)


@pytest.mark.parametrize("case", _cases(), ids=lambda p: os.path.relpath(p, KERNELS))
def test_expectations(case: str) -> None:
    with open(case, encoding="utf-8") as f:
        text = f.read()
    result = analyze_source(text, case, options_of(text))
    files = _files_of(case)
    if os.environ.get("NKI_VERIFY_UPDATE_EXPECTATIONS"):
        rewrite(files, result.diagnostics)
        return
    problems = compare(files, result.diagnostics)
    assert not problems, "\n".join(problems + [f"  {d.path}:{d.line} {d.code} {d.message}"
                                               for d in result.diagnostics])


def test_every_case_has_a_good_twin() -> None:
    """Each test module that marks bad lines also contains kernels that come out clean."""
    for case in _cases():
        result = analyze_source(open(case, encoding="utf-8").read(), case)
        if not result.kernels:
            continue
        diagnosed = {d.kernel for d in result.diagnostics}
        clean = [k.name for k in result.kernels if k.name not in diagnosed]
        if os.path.basename(case) in ("syntax_error.py", "not_understood.py", "never_execute.py"):
            continue
        assert clean, f"{case}: no clean kernel (every bad kernel needs a good twin)"
