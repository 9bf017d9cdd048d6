"""A dataclass's field with `field(default=...)` read from the class itself (`Sizes.per_stage`, as top-k
kernels keep their tuning constants in a nested dataclass): @dataclass leaves the default there as the class
attribute. It was the `field(...)` record, so `math.ceil(k / Sizes.per_stage)` was not understood (NKI902) and
every size after it unknown."""
import math
from dataclasses import dataclass, field

import nki
import nki.isa as nisa
import nki.language as nl


class Constants:
    @dataclass
    class Sizes:
        rows: int
        per_stage: int = field(default=32)
        names: list = field(default_factory=list)


@nki.jit
def stages_of_rows(x, k: int):
    assert 1 <= k <= 128
    n_stages = math.ceil(k / Constants.Sizes.per_stage)
    out = nl.ndarray((n_stages * 32, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((n_stages * 32, 64), dtype=x.dtype, buffer=nl.sbuf)
    assert x.shape[0] >= 128 and x.shape[1] >= 64
    nisa.dma_copy(dst=t, src=x[0:n_stages * 32, 0:64])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def stages_of_rows_one_stage_too_many(x, k: int):
    assert 1 <= k <= 128
    n_stages = math.ceil(k / Constants.Sizes.per_stage) + 1
    out = nl.ndarray((n_stages * 32, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((n_stages * 32, 64), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
    assert x.shape[0] >= 160 and x.shape[1] >= 64
    nisa.dma_copy(dst=t, src=x[0:n_stages * 32, 0:64])
    nisa.dma_copy(dst=out, src=t)
    return out
