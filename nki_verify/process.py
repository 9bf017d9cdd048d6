"""Process-wide settings for the programs that run analyses (the CLI and the language server), never
applied by the library API itself (an embedding program keeps its own)."""

from __future__ import annotations

import gc
import os
import sys

# An analysis allocates hundreds of thousands of small, mostly acyclic objects (expressions, IR records) and
# the expression memo keeps many alive: with CPython's default thresholds (700, 10, 10) the cyclic collector
# walks them over and over (measured: a quarter of the time of re-analysing a 300-line kernel in the language
# server).  Collect young objects 70 times less often; cyclic garbage is still collected.
GC_THRESHOLDS = (50_000, 20, 20)


def tune_gc(freeze: bool = False) -> None:
    """Collector thresholds; `freeze` (a long-running server, once its modules are imported) also moves every
    object alive now (modules, the ISA tables, the protocol's classes) out of the collector's full passes."""
    gc.set_threshold(*GC_THRESHOLDS)
    if freeze:
        gc.collect()
        gc.freeze()


# z3's search near its resource limit depends on where its objects lie in memory (it hashes some of them by
# address) and the front end's on the hash seed of Python's strings.  Measured on nki-library's
# attention_block_tkg, 3000 solver queries with the same inputs in the same order: two runs agreed about half the
# time with a random layout, every time (4 of 4) with the layout fixed and PYTHONHASHSEED=0; with only one of the
# two fixed, runs still differed.  A query proved in one run was undecided in the other, so the findings of a
# kernel changed from run to run (3 of its 138).
ADDR_NO_RANDOMIZE = 0x0040000  # personality(2): the process's memory layout is the same in every run
HASH_SEED = "0"
REEXEC_MARK = "NKI_VERIFY_FIXED_LAYOUT"  # set in the program started again (and inherited by its workers)


def fixed_layout() -> bool:
    """Run the program again (the same command line, once) with the memory layout fixed and the hash seed 0, so
    that its findings are the same in every run.  For the programs' entry points only (the CLI, the language
    server), never for the library API.  Linux only: elsewhere, or where the layout cannot be fixed (a
    sandbox's seccomp may refuse the personality call), the program goes on as it is, and an undecided check
    near the solver's limit may differ between runs.  Returns False when the program goes on as it is (on
    success it does not return)."""
    if os.environ.get(REEXEC_MARK) or not sys.platform.startswith("linux") or not sys.executable \
            or not getattr(sys, "orig_argv", None):
        return False
    try:
        import ctypes  # noqa: PLC0415 - only the programs' entry points need it

        libc = ctypes.CDLL(None, use_errno=True)
        current = libc.personality(0xFFFFFFFF)  # (this value only reads the personality)
        if current == -1:
            return False
        if not current & ADDR_NO_RANDOMIZE and libc.personality(current | ADDR_NO_RANDOMIZE) == -1:
            return False
    except (OSError, AttributeError):
        return False
    env = dict(os.environ)
    env[REEXEC_MARK] = "1"
    env["PYTHONHASHSEED"] = HASH_SEED
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, sys.orig_argv, env)
    except OSError:
        libc.personality(current)
    return False
