"""Tail tiles: clamped with min() (good) and assuming divisibility without saying so (warning)."""
import nki
import nki.isa as nisa
import nki.language as nl

TILE = 512


@nki.jit
def scale_rows(x):
    P, F = x.shape
    assert P <= 128
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range((F + TILE - 1) // TILE):
        start = j * TILE
        end = min(start + TILE, F)
        t = nl.ndarray((128, TILE), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:P, 0:end - start], src=x[0:P, start:end])
        nisa.tensor_scalar(dst=t[0:P, 0:end - start], data=t[0:P, 0:end - start], op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=out[0:P, start:end], src=t[0:P, 0:end - start])
    return out


@nki.jit
def scale_rows_unclamped(x):
    P, F = x.shape
    assert P <= 128
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range((F + TILE - 1) // TILE):
        t = nl.ndarray((128, TILE), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:P, :], src=x[0:P, j * TILE:(j + 1) * TILE])  # expect: NKI101 warning
        nisa.tensor_scalar(dst=t[0:P, :], data=t[0:P, :], op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=out[0:P, j * TILE:(j + 1) * TILE], src=t[0:P, :])  # expect: NKI101 warning
    return out


@nki.jit
def last_rows_counted_from_the_end(x):
    # the rows past the last whole tile, sliced from the end: x[-rem:] starts at rows - rem
    rows, cols = x.shape
    assert cols <= 512 and rows % 128 > 0
    rem = rows % 128
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    nisa.dma_copy(dst=t[0:rem, :], src=x[-rem:, :])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def last_rows_counted_from_the_end_into_a_whole_tile(x):
    rows, cols = x.shape
    assert cols <= 512 and rows % 128 > 0
    rem = rows % 128
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    nisa.dma_copy(dst=t, src=x[-rem:, :])  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=t)
    return out
