"""Verdicts do not depend on the process: string hashing is randomised per process (PYTHONHASHSEED), and the
order of a set of symbols decides the order of terms in a solver query, which decides verdicts near the
resource limit.  Expression hashes therefore hold no strings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nki_verify.process import ADDR_NO_RANDOMIZE, REEXEC_MARK

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
        # (the program starts itself again with the hash seed 0, see the next test: not here, so that each run
        # analyses with its own seed)
        r = run("check", "--no-cache", "--output-format", "json", "--exit-zero", *kernels, PYTHONHASHSEED=seed,
                **{REEXEC_MARK: "1"})
        report = json.loads(r.stdout)
        assert report["diagnostics"]
        outs.append([(d["path"], d["line"], d["code"], d["message"], d.get("counterexample"), d.get("suggestion"))
                     for d in report["diagnostics"]])
    assert outs[0] == outs[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the layout is fixed on Linux only")
def test_the_program_runs_again_with_a_fixed_memory_layout_and_hash_seed(tmp_path, monkeypatch) -> None:
    # z3's search near its resource limit depends on the addresses of its objects: the CLI and the language
    # server start themselves again, once, with address randomisation off and the hash seed 0
    probe = tmp_path / "probe.py"
    probe.write_text("import os, sys\n"
                     "print(open('/proc/self/personality').read().strip(), os.environ.get('PYTHONHASHSEED'),\n"
                     "      sys.flags.hash_randomization, os.environ.get('NKI_VERIFY_FIXED_LAYOUT'))\n"
                     "from nki_verify.process import fixed_layout\n"
                     "print(fixed_layout())\n")
    env = dict(os.environ, PYTHONHASHSEED="random")
    env.pop(REEXEC_MARK, None)
    out = subprocess.run([sys.executable, str(probe)], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    # the first run prints its state, then starts again (the second prints its state and that it goes on)
    assert len(out) == 4 and out[3] == "", out
    first, second, goes_on = out[0].split(), out[1].split(), out[2]
    assert first[1:] == ["random", "1", "None"]
    assert int(second[0], 16) & ADDR_NO_RANDOMIZE and second[1:] == ["0", "0", "1"]
    assert goes_on == "False"  # once: the program started again does not start itself a third time
    # the CLI does so when run as the program, and not when called with its arguments from Python
    calls: list = []
    from nki_verify import cli

    monkeypatch.setattr(cli, "fixed_layout", lambda: calls.append(1))
    monkeypatch.setattr(sys, "argv", ["nki-verify", "--version"])
    assert cli.main() == 0 and calls == [1]
    assert cli.main(["--version"]) == 0 and calls == [1]


# fields and locals set under a symbolic condition, then changed by a loop the verifier does not follow: the
# branches' merge and the loop's probes used to go through sets of names, so the symbols came in another order
# in each process (and with them the terms of every later query: blockwise_mm_backward's NKI901 count moved)
MERGED_STATE = """
import nki
import nki.isa as nisa
import nki.language as nl


class Counters:
    def __init__(self):
        self.alpha = 0
        self.beta = 0
        self.gamma = 0
        self.delta = 0
        self.eps = 0
        self.zeta = 0


@nki.jit
def kernel(a, out):
    n = a.shape[0]
    c = Counters()
    p, q, r, s, u, v = 0, 0, 0, 0, 0, 0
    if n > 256:
        c.alpha, c.beta, c.gamma, c.delta, c.eps, c.zeta = 1, 2, 3, 4, 5, 6
        v, u, s, r, q, p = 1, 2, 3, 4, 5, 6
    for i in range(n // 128):
        c.alpha = c.alpha * 2 + c.zeta
        c.beta = c.beta * 3 + c.eps
        c.gamma = c.gamma * c.delta
        c.delta = c.delta * 5 + c.alpha
        c.eps = c.eps * c.beta
        c.zeta = c.zeta * 7 + c.gamma
        p, q, r, s, u, v = p * q, q * r, r * s, s * u, u * v, v * p
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[0:128, 0:512])
    nisa.dma_copy(dst=out[0:128, 0:512], src=t)
"""

SYMBOLS = """
from compiler.frontend.entry import analyze
from compiler.frontend.interp import Options
path = {path!r}
kernel = analyze(open(path).read(), path, Options()).kernels[0]
print([(info.sym.uid, info.label) for info in kernel.symbols])
"""


def test_the_front_end_makes_its_symbols_in_the_same_order_in_every_process(tmp_path) -> None:
    path = tmp_path / "merged_state.py"
    path.write_text(MERGED_STATE)
    code = SYMBOLS.format(path=str(path))
    outs = [_in_process(code, seed) for seed in ("1", "2", "3")]
    assert "<Counters.zeta at the start of an iteration" in outs[0] and "<p at the start of an iteration" in outs[0]
    assert outs[0] == outs[1] == outs[2]


RESETS = """
import z3
from nki_verify import analyze_source
from nki_verify.analysis.solver import Z3Context
resets = []
real = z3.Z3_reset_memory
z3.Z3_reset_memory = lambda: (resets.append(1), real())
text = open({path!r}).read()
analyze_source(text, {path!r})
alone = len(resets)
other = Z3Context()
other.get()  # another analysis's context, alive
analyze_source(text, {path!r})
with_other = len(resets) - alone
other.close()
closed = len(resets) - alone - with_other
print(alone, with_other, closed)
"""


FOREIGN = """
import z3
theirs = z3.Context()  # somebody else's, made before the verifier first used z3
x = z3.Int("x", theirs)
from nki_verify import analyze_source
resets = []
real = z3.Z3_reset_memory
z3.Z3_reset_memory = lambda: (resets.append(1), real())
analyze_source(open({path!r}).read(), {path!r})
mine = z3.Context()  # and one made after
del theirs, x
analyze_source(open({path!r}).read(), {path!r})
print(len(resets))
"""


def test_z3_memory_is_reset_after_a_file_only_when_no_other_context_is_alive() -> None:
    # z3 keeps process-wide memory across contexts, and its search depends on it: without the reset, a file's
    # verdicts depended on the files analysed before it in the same process
    path = os.path.join(KERNELS, "b2_symbolic_shards.py")
    out = _in_process(RESETS.format(path=path), "0").split()
    # alone: once after the front end's branch questions (their own context) and once after the checks
    assert out == ["2", "0", "1"]
    # a reset while any other z3 context lives would free its terms under it
    assert _in_process(FOREIGN.format(path=path), "0").split() == ["0"]
