"""The partition dimension of SBUF/PSUM tensors is limited to 128."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_rows(x):
    P, F = x.shape
    assert P <= nl.tile_size.pmax
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def copy_rows_unchecked(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def big_tile(x):
    assert x.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((256, 512), dtype=nl.float32, buffer=nl.sbuf)  # expect: NKI201 error
    nisa.dma_copy(dst=t, src=x[0:256, 0:512])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scaled_exp_of_rows(x):
    # tiles computed from a tile have its partitions: one check, where the first tile is made
    assert x.shape[0] <= 128 and x.shape[1] <= 512
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=nl.exp(nl.multiply(t, 2.0)))
    return out


@nki.jit
def scaled_exp_of_too_many_rows(x):
    # the tile of 256 partitions is reported once, not again at each tile computed from it
    assert x.shape[0] == 256 and x.shape[1] <= 512
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 error
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=nl.exp(nl.multiply(t, 2.0)))
    return out
