"""A helper that realigns rows through a staging tile only when they start off a 32-row quadrant, with a loop in
that branch whose trip count (`start % 32`) is zero on the other side.  The loop's index range holds inside the
loop only: taken as a fact everywhere, it said every loop runs, so `start % 32 != 0` held for every input, the
merged `src` after the branch was the staging tile alone, and the copy from `src[start:start + rows]` of an
aligned start was reported past the staging tile's 32 rows (a false warning, in nki-library's
cross_partition_copy too)."""
import nki
import nki.isa as nisa
import nki.language as nl

Q = 32


def realign(src, dst, start, rows, cols):
    if start % Q != 0:
        staged = nl.ndarray((Q, cols), dtype=src.dtype, buffer=nl.sbuf)
        nisa.memset(dst=staged, value=0.0)
        order = [0] * Q
        for i in range(start % Q):
            order[i] = i
        nisa.tensor_copy(dst=staged[0:rows, :], src=src[start:start + rows, :])  # expect: NKI101 warning
        src = staged
        start = 0
    nisa.tensor_copy(dst=dst[0:rows, :], src=src[start:start + rows, :])  # expect: NKI101 warning


@nki.jit
def rows_realigned(x, start, rows):
    n, m = x.shape
    assert n == 128 and m <= 512 and 0 <= start and 0 < rows <= Q and start + rows <= n
    a = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    b = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    realign(a, b, start, rows, m)
    out = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[0:rows, :], src=b[0:rows, :])
    return out


@nki.jit
def rows_realigned_past_the_staging_tile(x, start, rows):
    n, m = x.shape
    assert n == 128 and m <= 512 and 0 <= start and 0 < rows <= 2 * Q and start + rows <= n
    a = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    b = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    realign(a, b, start, rows, m)
    out = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[0:rows, :], src=b[0:rows, :])
    return out
