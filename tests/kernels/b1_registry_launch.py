"""A kernel registered with a custom-operator registry the analysis cannot follow (its module is not installed)
and launched on a grid by host code: the launch syntax says it is a kernel.  Its @nki.jit helper updates the
on-chip buffers its caller hands it, so it is checked at that call, not launched on its own."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import numpy as np
from op_registry_not_installed import OpRegistry


@nki.jit
def _accumulate_rows(acc, x_tile, scale):
    # acc and x_tile are SBUF tiles of the caller: writing acc after reading it is the helper's job
    prev = nl.copy(acc)
    acc[...] = nl.add(prev, nl.multiply(x_tile, scale))


@OpRegistry.register("demo::row_sum")
def row_sum(x, scale):
    rows, cols = x.shape
    assert rows % 128 == 0 and cols <= 512
    out = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(rows // 128):
        x_tile = nl.load(x[i * 128:(i + 1) * 128, :])
        _accumulate_rows(acc, x_tile, scale)
    nl.store(out, value=acc)
    return out


@OpRegistry.register("demo::row_sum_bug")
def row_sum_bug(x, scale):
    rows, cols = x.shape
    assert rows % 128 == 0 and cols <= 512
    out = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(rows // 128 + 1):
        x_tile = nl.load(x[i * 128:(i + 1) * 128, :])  # expect: NKI101 error
        _accumulate_rows(acc, x_tile, scale)
    nl.store(out, value=acc)
    return out


def run(x: np.ndarray):
    return row_sum[1](x, 2.0), row_sum_bug[1](x, 2.0)
