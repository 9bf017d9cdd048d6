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
