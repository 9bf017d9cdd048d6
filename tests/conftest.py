"""Shared test configuration: hypothesis profiles (a short `ci` profile by default, `long` on demand), and no
z3 default context left behind by a test."""

from __future__ import annotations

import gc
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=10_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_default_z3_context():
    """Tests that build a prover or an oracle without a context use z3's default one; left alive, it stops
    every later file analysis in this process from resetting z3's global memory (solver.Z3Context.close), and
    verdicts and counterexamples then depend on the tests that ran before (as they never do in the CLI)."""
    yield
    z3 = sys.modules.get("z3.z3")
    if z3 is not None and getattr(z3, "_main_ctx", None) is not None:
        z3._main_ctx = None
        gc.collect()
