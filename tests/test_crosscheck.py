"""The cross-check: generated kernel programs, verified statically (nki_verify) and executed on the reference
device, must agree (see tests/crosscheck/oracle.py for the three properties).

HYPOTHESIS_PROFILE=ci (default) runs a few hundred programs; HYPOTHESIS_PROFILE=long runs 12,000.  A
disagreement fails with the shrunk program, its diagnostics and the device's faults.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings

from .crosscheck.oracle import Checker
from .crosscheck.programs import build, specs
from .crosscheck.regressions import KNOWN_GAPS, REGRESSIONS

EXAMPLES = {"ci": 300, "dev": 600, "long": 12_000}.get(os.environ.get("HYPOTHESIS_PROFILE", "ci"), 300)


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker()


@settings(max_examples=EXAMPLES)
@given(spec=specs())
def test_verifier_and_device_agree(checker: Checker, spec: object) -> None:
    program = build(spec)
    outcome = checker.check(program)
    assert not outcome.problems, outcome.report(program)


@pytest.mark.parametrize("spec", REGRESSIONS, ids=lambda s: type(s).__name__)
def test_regressions(checker: Checker, spec: object) -> None:
    program = build(spec)
    outcome = checker.check(program)
    assert not outcome.problems, outcome.report(program)


@pytest.mark.parametrize("gap", sorted(KNOWN_GAPS), ids=lambda g: g.split(":")[0][:40])
def test_known_verifier_gaps_still_disagree(checker: Checker, gap: str) -> None:
    """The gaps the generator steers around are real: when one is fixed, this fails and the program moves to
    the regressions (and the generator's exclusion goes)."""
    program = build(KNOWN_GAPS[gap])
    outcome = checker.check(program)
    assert outcome.problems, f"no longer a gap ({gap}):\n{outcome.report(program)}"


def test_clean_programs_are_compared_with_numpy(checker: Checker) -> None:
    """The agreement property really runs: a clean program's output is compared (and a wrong one would fail)."""
    program = build(REGRESSIONS[-1])
    assert checker.check(program).compared
    program.reference = lambda values: values["x"][:1, :1] * 0 - 1.0
    outcome = checker.check(program)
    assert any(p.startswith("disagreement") for p in outcome.problems)
