"""Lists of tiles built by loops the verifier turns into range loops: one that appends only on some iterations
(`if s < end: tiles.append(...)`), whose consumer's body is checked for every iteration that appended, under
that iteration's condition; and a counting `while r < rows: ...; r += 128`."""
import nki
import nki.isa as nisa
import nki.language as nl


def _row_tiles(rows, start, end):
    # the tiles of rows [start, end): as many candidate tiles as the whole tensor has, kept while they start
    # before the end
    tiles = []
    for i in range((rows + 127) // 128):
        s = start + i * 128
        if s < end:
            tiles.append((s, min(128, end - s)))
    return tiles


@nki.jit
def copy_a_row_range(x, start: int, end: int):
    rows, cols = x.shape
    assert 0 <= start <= end <= rows and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles(rows, start, end):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[s:s + n, :])
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


@nki.jit
def copy_a_row_range_one_row_past_each_tile(x, start: int, end: int):
    rows, cols = x.shape
    assert 0 <= start <= end <= rows and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles(rows, start, end):
        t = nl.ndarray((129, cols), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
        nisa.dma_copy(dst=t[0:n + 1, :], src=x[s:s + n + 1, :])  # expect: NKI201 warning, NKI101 warning
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


def _row_tiles_while(rows):
    tiles = []
    r = 0
    while r < rows:
        tiles.append((r, min(128, rows - r)))
        r += 128
    return tiles


@nki.jit
def copy_rows_tiled_by_a_while_loop(x):
    rows, cols = x.shape
    assert cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles_while(rows):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[s:s + n, :])
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


@nki.jit
def copy_rows_tiled_by_a_while_loop_without_the_tail(x):
    rows, cols = x.shape
    assert cols <= 512 and rows % 128 == 64
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    r = 0
    while r < rows:
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[r:r + 128, :])  # expect: NKI101 warning, NKI101 warning
        nisa.dma_copy(dst=out[r:r + 128, :], src=t)  # expect: NKI101 warning, NKI101 warning
        r += 128
    return out
