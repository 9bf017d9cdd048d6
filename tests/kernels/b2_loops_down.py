"""Loops that count down (`range(n - 1, -1, -1)`): every index from n - 1 to 0 is visited, the last one first."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def fill_from_the_right(x):
    rows, cols = x.shape
    assert rows == 128 and cols % 128 == 0 and cols <= 4096
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    for c in range(cols // 128 - 1, -1, -1):
        nisa.dma_copy(dst=t[:, c * 128:(c + 1) * 128], src=x[:, c * 128:(c + 1) * 128])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def fill_from_the_right_but_not_the_first_block(x):
    rows, cols = x.shape
    assert rows == 128 and cols % 128 == 0 and cols <= 4096
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    for c in range(cols // 128 - 1, 0, -1):
        nisa.dma_copy(dst=t[:, c * 128:(c + 1) * 128], src=x[:, c * 128:(c + 1) * 128])
    nisa.dma_copy(dst=out, src=t)  # expect: NKI404 error
    return out


@nki.jit
def copy_from_the_right_starting_one_past_the_end(x):
    rows, cols = x.shape
    assert rows == 128 and cols % 128 == 0 and cols <= 4096
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in nl.sequential_range(cols // 128, -1, -1):
        t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, c * 128:(c + 1) * 128])  # expect: NKI101 error
        nisa.dma_copy(dst=out[:, c * 128:(c + 1) * 128], src=t)  # expect: NKI101 error
    return out


@nki.jit
def suffix_sums(x):
    # out[:, c] = x[:, c] + out[:, c + 1], right to left: each block reads the one written before it
    rows, cols = x.shape
    assert rows == 128 and cols % 128 == 0 and 256 <= cols <= 4096
    n = cols // 128
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=acc[:, (n - 1) * 128:n * 128], src=x[:, (n - 1) * 128:n * 128])
    for c in range(n - 2, -1, -1):
        t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, c * 128:(c + 1) * 128])
        nisa.tensor_tensor(dst=acc[:, c * 128:(c + 1) * 128], data1=t, data2=acc[:, (c + 1) * 128:(c + 2) * 128],
                           op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def suffix_sums_reading_the_block_not_yet_written(x):
    rows, cols = x.shape
    assert rows == 128 and cols % 128 == 0 and 256 <= cols <= 4096
    n = cols // 128
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=acc[:, (n - 1) * 128:n * 128], src=x[:, (n - 1) * 128:n * 128])
    for c in range(n - 2, -1, -1):
        t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, c * 128:(c + 1) * 128])
        # block c is read before anything writes it: a stale value moved on, and block 0 is never written
        here, right = acc[:, c * 128:(c + 1) * 128], acc[:, (c + 1) * 128:(c + 2) * 128]
        nisa.tensor_tensor(dst=right, data1=t, data2=here, op=nl.add)  # expect: NKI404 warning
    nisa.dma_copy(dst=out, src=acc)  # expect: NKI404 error
    return out


class Blocks(nl.NKIObject):
    """Block widths of a row, chosen by an input: two or three blocks."""

    def __init__(self, cols, wide):
        self.widths = (cols // 2, cols // 4, cols // 4) if wide == 1 else (cols // 2, cols // 2)

    def last_half_block(self, cols):
        # a search from the right that returns from inside the loop: the index of some block, or -1
        for i in range(len(self.widths) - 1, -1, -1):
            if self.widths[i] == cols // 2:
                return i
        return -1

    def after_last_half_block(self, cols):
        for i in range(len(self.widths) - 1, -1, -1):
            if self.widths[i] == cols // 2:
                return i + 1
        return -1


@nki.jit
def width_of_the_half_block(x, wide: int):
    assert x.shape == (128, 512)
    b = Blocks(512, wide)
    w = b.widths[b.last_half_block(512)]  # a block of the tuple this input chose, or the last one
    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:w // 2], src=x[:, 0:w // 2])
    nisa.dma_copy(dst=t[:, w // 2:256], src=x[:, w // 2:256])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def width_of_the_block_after_the_half_block(x, wide: int):
    assert x.shape == (128, 512)
    b = Blocks(512, wide)
    w = b.widths[b.after_last_half_block(512)]  # expect: NKI101 warning
    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:w // 2], src=x[:, 0:w // 2])
    nisa.dma_copy(dst=t[:, w // 2:256], src=x[:, w // 2:256])
    nisa.dma_copy(dst=out, src=t)
    return out


def _row_tiles(rows):
    return [(i * 128, 128) for i in range(rows // 128)]


@nki.jit
def first_tile_then_the_rest(x):
    # `first, *rest = tiles` of a list whose length is symbolic, then `enumerate([first] + rest)`
    rows, cols = x.shape
    assert rows % 128 == 0 and rows >= 128 and cols <= 512
    first, *rest = _row_tiles(rows)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i, (r0, n) in enumerate([first] + rest):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[r0:r0 + n, :])
        nisa.dma_copy(dst=out[r0:r0 + n, :], src=t[0:n, :])
    return out


@nki.jit
def first_tile_then_the_rest_one_row_too_many(x):
    rows, cols = x.shape
    assert rows % 128 == 0 and rows >= 128 and cols <= 512
    first, *rest = _row_tiles(rows)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i, (r0, n) in enumerate([first] + rest):
        t = nl.ndarray((129, cols), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 error
        nisa.dma_copy(dst=t[0:n + 1, :], src=x[r0:r0 + n + 1, :])  # expect: NKI101 warning, NKI101 warning
        nisa.dma_copy(dst=out[r0:r0 + n, :], src=t[0:n, :])
    return out
