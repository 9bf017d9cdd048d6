"""Helpers used by kernel.py: analysed in the caller's context."""
import nki.isa as nisa
import nki.language as nl

TILE_P = 128


def load_tile(src, row, width):
    t = nl.ndarray((TILE_P, width), dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src[row * TILE_P:(row + 1) * TILE_P, 0:width])
    return t


def load_tile_shifted(src, row, width):
    t = nl.ndarray((TILE_P, width), dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src[row * TILE_P + 1:(row + 1) * TILE_P + 1, 0:width])  # expect: NKI101 error
    return t


def check_rows(x):
    assert x.shape[0] % TILE_P == 0, "rows must be a multiple of 128"
