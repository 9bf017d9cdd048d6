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
