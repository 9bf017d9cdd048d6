"""Process-wide settings for the programs that run analyses (the CLI and the language server), never
applied by the library API itself (an embedding program keeps its own)."""

from __future__ import annotations

import gc

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
