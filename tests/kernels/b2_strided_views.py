"""Slices whose step is computed from the shapes (`x[:, c:F:C]` with C = F // G): a view the kernel's asserts
keep well formed (a positive step), checked like any other slice."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def channels_to_groups(x, groups: int):
    # y[:, c*G + g] = x[:, g*C + c]: each iteration gathers one channel of every group (a strided view)
    rows, F = x.shape
    G = groups
    assert rows == 128 and G >= 1 and F % G == 0 and F <= 4096
    C = F // G
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    xt = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    yt = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.sbuf)
    for c in nl.affine_range(C):
        nisa.tensor_copy(dst=yt[:, c * G:(c + 1) * G], src=xt[:, c:F:C])
    nisa.dma_copy(dst=out, src=yt)
    return out


@nki.jit
def channels_to_groups_starting_one_channel_late(x, groups: int):
    rows, F = x.shape
    G = groups
    assert rows == 128 and G >= 1 and F % G == 0 and F <= 4096
    C = F // G
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    xt = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    yt = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.sbuf)
    for c in nl.affine_range(C):
        # the last channel has one element fewer than a group (G - 1 of them), whatever the shapes: an error
        nisa.tensor_copy(dst=yt[:, c * G:(c + 1) * G], src=xt[:, c + 1:F:C])  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=yt)
    return out


@nki.jit
def odd_rows(x):
    # x[1:257:2] of 256 rows reads rows 1, 3, ..., 255: the stop past the end is never reached
    assert x.shape == (256, 64)
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[1:257:2, :])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def odd_rows_from_the_third(x):
    assert x.shape == (256, 64)
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[3:259:2, :])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out
