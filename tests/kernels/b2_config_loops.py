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
