"""A while loop on a symbolic condition that works through rows in chunks, `while remaining > 0: size =
min(128, remaining); ...; remaining -= size; row += size`: the loop over a number of iterations T, each starting
under the condition, after which the condition is false.  The remaining count steps by -128 and the row by 128
in every iteration but the last (proved with the condition at the next iteration's start), so the chunks'
accesses are checked exactly, and the values after the loop are known.  Before, the loop's values were unknown
(NKI902) and every access in it undecided.  (The first iteration, whose condition the inputs settle, is
analysed on its own; T counts the ones after it.)"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_in_chunks(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    remaining = n
    row = 0
    while remaining > 0:
        size = min(128, remaining)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[row:row + size, :])
        nisa.dma_copy(dst=out[row:row + size, :], src=t[:size, :])
        remaining -= size
        row += size
    return out


@nki.jit
def sum_in_chunks_from_an_offset(a, start: int):
    n, m = a.shape
    assert m <= 512 and 0 <= start < n
    out = nl.ndarray((128, m), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, m), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(acc, 0.0)
    row = start
    while row < n:
        size = min(128, n - row)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size, :], src=a[row:row + size, :])
        nisa.tensor_tensor(dst=acc[:size, :], data1=acc[:size, :], data2=t[:size, :], op=nl.add)
        row += size
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def reads_whole_tiles(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    remaining = n
    row = 0
    while remaining > 0:
        size = min(128, remaining)
        t = nl.ndarray((128, m), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[row:row + 128, :])  # expect: NKI101 warning
        remaining -= size
        row += size
    return out


@nki.jit
def reads_the_row_after_the_last(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.shared_hbm)
    remaining = n
    row = 0
    while remaining > 0:
        size = min(128, remaining)
        remaining -= size
        row += size
    t = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[row:row + 1, :])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def reads_the_last_row(a):
    n, m = a.shape
    assert m <= 512
    out = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.shared_hbm)
    remaining = n
    row = 0
    while remaining > 0:
        size = min(128, remaining)
        remaining -= size
        row += size
    t = nl.ndarray((1, m), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[row - 1:row, :])
    nisa.dma_copy(dst=out, src=t)
    return out
