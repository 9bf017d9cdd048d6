"""Verdicts do not depend on the process: string hashing is randomised per process (PYTHONHASHSEED), and the
order of a set of symbols decides the order of terms in a solver query, which decides verdicts near the
resource limit.  Expression hashes therefore hold no strings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .cli_run import KERNELS, ROOT, run

HASHES = """
from compiler import expr as E
n, m = E.Sym("n", 1), E.Sym("m", 2, "shape")
b = E.BSym("is_fp8", 3)
print(hash(n), hash(E.add(E.mul(n, m), 3)), hash(E.le(E.floordiv(n, m), 7)), hash(E.band(b, E.ne(n, m))),
      [s.name for s in {E.Sym(f"x{i}", 10 + i) for i in range(20)}])
"""


def _in_process(code: str, seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True).stdout


def test_expression_hashes_and_symbol_set_order_are_the_same_in_every_process() -> None:
    assert _in_process(HASHES, "1") == _in_process(HASHES, "2") == _in_process(HASHES, "3")


def test_findings_are_the_same_in_every_process() -> None:
    kernels = [os.path.join(KERNELS, k) for k in ("b2_symbolic_shards.py", "b2_uninitialized.py",
                                                  "b1_spmd_races.py", "b2_tail_tiles.py")]
    outs = []
    for seed in ("1", "2"):
        r = run("check", "--no-cache", "--output-format", "json", "--exit-zero", *kernels, PYTHONHASHSEED=seed)
        report = json.loads(r.stdout)
        assert report["diagnostics"]
        outs.append([(d["path"], d["line"], d["code"], d["message"], d.get("counterexample"), d.get("suggestion"))
                     for d in report["diagnostics"]])
    assert outs[0] == outs[1]
