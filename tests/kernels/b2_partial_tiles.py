"""A running offset bumped by a tile size that is partial only in the last iteration: `off += min(128, n - off)`
or `off += min(128, n - 128 * i)`.  The step is not one value, so the offset used to be an arbitrary integer at
each iteration's start (its accesses undecided, and iterations of an affine_range loop seemed to write the same
rows); it is 128 * i, proved by induction over the iterations, and its value after the loop is known."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def offset_from_the_index(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    offset = 0
    for i in nl.affine_range((n + 127) // 128):
        size = min(128, n - i * 128)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[offset:offset + size, :])
        nisa.dma_copy(dst=out[offset:offset + size, :], src=t[:size, :])
        offset += size
    return out


@nki.jit
def offset_from_itself(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    done = 0
    for _ in nl.sequential_range((n + 127) // 128):
        size = min(128, n - done)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[done:done + size, :])
        nisa.dma_copy(dst=out[done:done + size, :], src=t[:size, :])
        done += size
    return out


class Cursor(nl.NKIObject):
    def __init__(self):
        self.row = 0


@nki.jit
def offset_in_an_object(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    cur = Cursor()
    for _ in range((n + 127) // 128):
        size = min(128, n - cur.row)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[cur.row:cur.row + size, :])
        nisa.dma_copy(dst=out[cur.row:cur.row + size, :], src=t[:size, :])
        cur.row += size
    return out


@nki.jit
def last_tile_one_row_too_long(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    done = 0
    for _ in nl.sequential_range((n + 127) // 128):
        size = min(128, n - done + 1)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[done:done + size, :])  # expect: NKI101 warning
        done += size
    return out


@nki.jit
def read_at_the_end_after_the_loop(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.shared_hbm)
    done = 0
    for _ in range((n + 127) // 128):
        done += min(128, n - done)
    t = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[done:done + 1, :])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def read_the_last_row_after_the_loop(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.shared_hbm)
    done = 0
    for _ in range((n + 127) // 128):
        done += min(128, n - done)
    t = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[done - 1:done, :])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def gap_after_every_tile(a):
    # one row of gap after every tile: the offset is 129 * i, and the tiles run past the end of 'a'
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    offset = 0
    for i in nl.affine_range((n + 127) // 128):
        size = min(128, n - i * 128)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[offset:offset + size, :])  # expect: NKI101 warning
        offset += size + 1
    return out


@nki.jit
def sizes_that_alternate(a):
    # 64 rows, then 128, then 64...: the offset's closed form is not followed, so it is a different unknown at the
    # start of each iteration (never below 0: every step is positive).  The tiles' ends and whether two
    # iterations write the same rows of 'out' are undecided; they used to be a race with a counterexample in
    # which both iterations started at the same row
    n, m = a.shape
    assert n == 4096 and m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    offset = 0
    for i in nl.affine_range(n // 256):
        size = 64 + (i % 2) * 64
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[offset:offset + size, :])  # expect: NKI901 warning
        nisa.dma_copy(dst=out[offset:offset + size, :], src=t[:size, :])  # expect: NKI901 warning
        offset += size
    return out
