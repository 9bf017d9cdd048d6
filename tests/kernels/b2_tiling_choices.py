"""Row groups whose size the kernel picks from the input's size (`32 if n <= 32 else (64 if n <= 64 else 128)`)
and walks with an index bounded by `128 // size`: the slice end `f*size + n` is a product of an index by a
conditional, which the solver alone left undecided (NKI901); on each side of the conditions the size is a
constant and the bound linear (the engine's `_by_conditions`; this small kernel the solver settles alone)."""
import nki
import nki.isa as nisa
import nki.language as nl


def _group_size(n):
    return 32 if n <= 32 else (64 if n <= 64 else 128)


@nki.jit
def rows_in_groups(x):
    b, s, h = x.shape
    n = b * s
    assert n <= 128 and h == 512
    size = _group_size(n)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for f in range(128 // size):
        nisa.memset(dst=t[f * size:f * size + n, 0:512], value=0.0)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[0:n, 0:512], src=t[0:n, 0:512])
    return out


@nki.jit
def rows_in_groups_one_too_many(x):
    b, s, h = x.shape
    n = b * s
    assert n <= 128 and h == 512
    size = _group_size(n)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for f in range(128 // size + 1):
        nisa.memset(dst=t[f * size:f * size + n, 0:512], value=0.0)  # expect: NKI101 error
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[0:n, 0:512], src=t[0:n, 0:512])
    return out
