"""Beta 1 inputs whose rank only the uses tell: a tile loaded from x[0] of an input stated only by its trailing
dimensions."""
from neuronxcc import nki
import neuronxcc.nki.language as nl


@nki.jit
def load_a_block(x):
    # at the guessed rank 2, x[0] is a row of 512 elements: a tile of 512 partitions whatever the inputs, so
    # the kernel means x to have (at least) three dimensions, and x[0] is a 128 x 512 block
    assert x.shape[-2:] == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x[0]))
    return out


@nki.jit
def load_a_row_of_a_stated_rank(x):
    rows, cols = x.shape
    assert rows == 128 and cols == 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x[0]))  # expect: NKI201 error, NKI501 error
    return out


@nki.jit
def sum_four_slabs(table):
    # `nl.load(table[i])` then `slab[0:128, 0:64]`: table has three axes, though nothing but the tile's
    # indexing says so (it was a rank-0 tile and an error); what is left are the unstated sizes
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(4):
        slab = nl.load(table[i])  # expect: NKI101 warning, NKI201 warning
        acc[...] = nl.add(acc, slab[0:128, 0:64])  # expect: NKI101 warning
    nl.store(out, value=acc)
    return out
