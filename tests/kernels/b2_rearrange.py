"""`NkiTensor.rearrange`, einops style: an HBM input read as heads, and an on-chip tile whose free axis is split
into (groups, width) and reordered.  The bad twins read one head too many and split an axis that the sizes do
not divide."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def heads_first(x):
    # (tokens, heads * d) read as (heads, tokens, d): one head at a time
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    heads = x.rearrange(("t", ("h", "d")), ("h", "t", "d"), {"d": 128})
    back = out.rearrange(("t", ("h", "d")), ("h", "t", "d"), {"d": 128})
    for h in nl.affine_range(4):
        t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=heads[h])
        nisa.dma_copy(dst=back[h], src=t)
    return out


@nki.jit
def heads_first_one_too_many(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    heads = x.rearrange(("t", ("h", "d")), ("h", "t", "d"), {"d": 128})
    for h in nl.sequential_range(5):
        t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=heads[h])  # expect: NKI101 error
        nisa.dma_copy(dst=out[0:128, 0:128], src=t)
    return out


@nki.jit
def swap_groups_on_chip(x):
    # the free axis (g, w) becomes (w, g) and is merged again: a transposed copy of each row's groups
    assert x.shape == (128, 96)
    out = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.sbuf)
    b = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    swapped = a.rearrange(("p", ("g", "w")), ("p", "w", "g"), {"g": 3})
    nisa.tensor_copy(dst=b.reshape((128, 32, 3)), src=swapped)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def split_that_does_not_divide(x):
    assert x.shape == (128, 96)
    out = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    _ = a.rearrange(("p", ("g", "w")), ("p", "g", "w"), {"g": 5, "w": 20})  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=a)
    return out


@nki.jit
def heads_as_rows(x):
    # (tokens, heads, d) with heads and d adjacent in memory: merged into one axis of heads * d
    assert x.shape == (128, 4, 128)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = x.rearrange(("t", "h", "d"), ("t", ("h", "d")))
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=rows)
    nisa.dma_copy(dst=out, src=t)
    return out
