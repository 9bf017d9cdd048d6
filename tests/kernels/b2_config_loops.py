"""A loop whose trip count is a field of a configuration object built by host code: a configuration that runs the
loop once escapes every race between two of its iterations, which says nothing of the configurations that run it
more often (the race is reported).  Beta 2: NKI401 is a warning.  The kernels take an alternating sum of the
blocks (each block minus the running value), whose result depends on the order of the iterations: a plain sum
(`op=nl.add` into the accumulator) is an accumulation, which Beta 2 allows in an affine_range loop."""
from dataclasses import dataclass

import nki
import nki.isa as nisa
import nki.language as nl


@dataclass
class BlockConfig(nl.NKIObject):
    """Built by host code outside the kernel: its fields are configuration values."""

    n_blocks: int


@nki.jit
def sum_config_blocks_sequential(x, cfg: BlockConfig):
    assert x.shape == (8, 128, 512)
    assert cfg.n_blocks <= 8
    res = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.sequential_range(cfg.n_blocks):
        t = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.subtract)
    nisa.dma_copy(dst=res, src=acc)
    return res


@nki.jit
def sum_config_blocks_affine(x, cfg: BlockConfig):
    # a configuration with one block does not race, but says nothing of the configurations with more
    assert x.shape == (8, 128, 512)
    assert cfg.n_blocks <= 8
    res = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.affine_range(cfg.n_blocks):
        t = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.subtract)  # expect: NKI401 warning
    nisa.dma_copy(dst=res, src=acc)
    return res


class ColumnTiles(nl.NKIObject):
    """A configuration whose own __init__ derives a field (no annotation declares n_tiles): the kernel reads
    it as the object the caller built, __init__ run (was NKI902 'no attribute n_tiles')."""

    def __init__(self, width: int, tile: int):
        assert 0 < tile <= 512
        self.width = width
        self.tile = tile
        self.n_tiles = width // tile


@nki.jit
def copy_column_tiles(x, cfg: ColumnTiles):
    P, F = x.shape
    assert P == 128 and F == cfg.width
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(cfg.n_tiles):
        t = nl.ndarray((P, cfg.tile), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, i * cfg.tile:(i + 1) * cfg.tile])
        nisa.dma_copy(dst=out[:, i * cfg.tile:(i + 1) * cfg.tile], src=t)
    return out


@nki.jit
def copy_column_tiles_one_too_many(x, cfg: ColumnTiles):
    P, F = x.shape
    assert P == 128 and F == cfg.width
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(cfg.n_tiles + 1):
        t = nl.ndarray((P, cfg.tile), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, i * cfg.tile:(i + 1) * cfg.tile])  # expect: NKI101 error
        nisa.dma_copy(dst=out[:, i * cfg.tile:(i + 1) * cfg.tile], src=t)  # expect: NKI101 error
    return out
