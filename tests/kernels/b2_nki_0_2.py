# verify-options: nki_version=0.2
"""Kernels written for NKI 0.2: what that version rejected and later versions accept."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_tile(src, dst):
    nisa.dma_copy(dst=dst, src=src)


@nki.jit
def calls_a_jit_subkernel(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    copy_tile(x, t)  # expect: NKI603 error
    nisa.dma_copy(dst=out, src=t)
    return out


def copy_tile_plain(src, dst):
    nisa.dma_copy(dst=dst, src=src)


@nki.jit
def calls_a_plain_helper(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    copy_tile_plain(x, t)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def slices_a_slice(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((64, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t[0:64, :][:, 0:256])  # expect: NKI602 error
    return out


@nki.jit
def loads_with_the_wrapper(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)  # expect: NKI602 error
    nl.store(out, value=t)  # expect: NKI602 error
    return out
