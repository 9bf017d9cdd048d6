"""Inputs the signature leaves open: a rank only the uses tell (an index into the shape says it is at least
that large, unpacking the shape says it exactly), and shapes of different lengths merged after a branch."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def fold_experts(w):
    # w is (E, G, P, F): the rank shows in shape[2], then shape[3]; each index raises the guess
    shape = w.shape
    flat = w.reshape((shape[0] * shape[1], shape[2], shape[3]))
    assert shape[2] <= 128 and shape[3] <= 512
    out = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat[0, 0:shape[2], 0:shape[3]])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def fold_experts_past_the_end(w):
    shape = w.shape
    flat = w.reshape((shape[0] * shape[1], shape[2], shape[3]))
    assert shape[2] <= 128 and shape[3] <= 512
    out = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat[shape[0] * shape[1], 0:shape[2], 0:shape[3]])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out



def _dims(x, flatten):
    # one of two shapes of different lengths, chosen by an input: a merged value
    return (x.shape[0] * x.shape[1],) if flatten else x.shape


@nki.jit
def merged_shapes(x, flatten: int):
    assert x.shape == (128, 512)
    dims = tuple(_dims(x, flatten == 1))
    n = len(dims)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:128, 0:256 * n], src=x[0:128, 0:256 * n])
    nisa.dma_copy(dst=t[0:128, 0:256 * n], src=x[0:128, 256 * n:512 * n])  # expect: NKI101 warning
    nisa.dma_copy(dst=out[0:128, 0:256 * n], src=t[0:128, 0:256 * n])
    return out



@nki.jit
def tail_of_the_shape(x):
    # only the trailing dimensions are stated: x is (B, 128, 512) whatever B, the rank shown by the comparison
    assert x.shape[1:] == (128, 512) and x.shape[:-2] == (4,)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[3])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def tail_of_the_shape_one_block_too_far(x):
    assert x.shape[1:] == (128, 512) and x.shape[:-2] == (4,)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[4])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def blocks_and_the_rest(x):
    # `b, *rest = x.shape`: the rest is compared as a whole, which shows the rank
    b, *rest = x.shape
    assert b == 4 and tuple(rest) == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[b - 1])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def blocks_and_the_rest_one_too_far(x):
    b, *rest = x.shape
    assert b == 4 and tuple(rest) == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[b])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out
