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


def drop_the_head_axis(k, v):
    # caches come as (b, 1, s, d) or already as (b, s, d)
    if len(k.shape) != 4:
        assert len(k.shape) == len(v.shape) == 3
        return k, v
    assert len(v.shape) == 4 and k.shape[1] == v.shape[1] == 1
    return k.reshape((k.shape[0], k.shape[2], k.shape[3])), v.reshape((v.shape[0], v.shape[2], v.shape[3]))


@nki.jit
def sum_first_rows_of_the_caches(k_cache, v_cache):
    # `_, s, d = v_cache.shape` reads the rebound name (the squeezed view): it says nothing of the input's rank
    k_cache, v_cache = drop_the_head_axis(k_cache, v_cache)
    _, s, d = v_cache.shape
    assert tuple(k_cache.shape) == tuple(v_cache.shape) and s >= 128 and d <= 512
    out = nl.ndarray((128, d), dtype=v_cache.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.load(k_cache[0, 0:128, 0:d]), nl.load(v_cache[0, 0:128, 0:d])))
    return out


@nki.jit
def apply_both_parts(state, u):
    # u holds a real and an imaginary 128 x 128 part: only the loaded tiles' shapes say so (at the guessed rank
    # 2, u[0] is a row and the asserts fail on every path)
    assert u.shape[0] == 2
    re = nl.load(u[0])
    im = nl.load(u[1])
    assert re.shape == (128, 128) and u[1].shape == (128, 128)
    assert state.shape == (128, 512)
    s = nl.load(state)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.matmul(re, s, transpose_x=True), nl.matmul(im, s, transpose_x=True)))
    return out


@nki.jit
def apply_a_third_part(state, u):
    re = nl.load(u[0])
    assert re.shape == (128, 128) and u.shape[0] == 2
    assert state.shape == (128, 512)
    s = nl.load(state)
    extra = nl.load(u[2])  # expect: NKI101 error
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.matmul(re, s, transpose_x=True), nl.matmul(extra, s, transpose_x=True)))
    return out
