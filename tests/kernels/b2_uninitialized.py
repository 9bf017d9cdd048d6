"""Reads of on-chip memory that no earlier write covers (nl.ndarray memory is not initialised)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def read_before_write(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=out, src=t)  # expect: NKI404 error
    nisa.dma_copy(dst=t, src=x)
    return out


@nki.jit
def tail_tile_read_in_full(x, f_size):
    # The tile is loaded for f_size columns but all 512 are stored.
    assert x.shape == (128, 512) and 1 <= f_size <= 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:f_size], src=x[:, 0:f_size])
    nisa.dma_copy(dst=out, src=t)  # expect: NKI404 warning
    return out


@nki.jit
def tail_tile_read_as_written(x, f_size):
    assert x.shape == (128, 512) and 1 <= f_size <= 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:f_size], src=x[:, 0:f_size])
    nisa.dma_copy(dst=out[:, 0:f_size], src=t[:, 0:f_size])
    return out


@nki.jit
def columns_filled_by_a_loop(x):
    # Four 128-column writes cover the whole tile before it is read.
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    for j in nl.affine_range(4):
        nisa.dma_copy(dst=t[:, j * 128:(j + 1) * 128], src=x[:, j * 128:(j + 1) * 128])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def columns_filled_but_one(x):
    # Three of the four column blocks: the last 128 columns are never written.
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    for j in nl.affine_range(3):
        nisa.dma_copy(dst=t[:, j * 128:(j + 1) * 128], src=x[:, j * 128:(j + 1) * 128])
    nisa.dma_copy(dst=out, src=t)  # expect: NKI404 error
    return out


@nki.jit
def accumulator_initialised_in_first_iteration(x):
    # Iteration 0 initialises the accumulator; later iterations read what earlier ones wrote.
    K, F = x.shape
    assert K % 128 == 0 and F == 512
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.sequential_range(K // 128):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[k * 128:(k + 1) * 128, :])
        if k == 0:
            nisa.tensor_copy(dst=acc, src=t)
        else:
            nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def accumulator_never_initialised(x):
    K, F = x.shape
    assert K % 128 == 0 and F == 512
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.sequential_range(K // 128):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[k * 128:(k + 1) * 128, :])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)  # expect: NKI404 error
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def written_only_when_the_loop_runs(x, n):
    # If n == 0 the loop body never runs and the tile is read unwritten.
    assert x.shape == (128, 512) and 0 <= n <= 4
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.sequential_range(n):
        nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)  # expect: NKI404 warning
    return out


@nki.jit
def zeroed_then_accumulated(a, b):
    # PSUM accumulation into memset memory: initialised.
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=a_t, moving=b_t)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def transpose_of_every_16th_column(x):
    # Eight columns scattered to columns 0, 16, ..., 112, the whole tile transposed, and only the rows those
    # columns became read back: the transpose moves the stale columns to rows nothing reads. A warning, not
    # an error: each stale element lands in one element of an on-chip tile, and whether it is read is the
    # later code's business.
    assert x.shape == (128, 8)
    a = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    for j in range(8):
        nisa.tensor_copy(dst=a[:, j * 16:j * 16 + 1], src=x_tile(x, j))
    ident = nl.shared_identity_matrix(128, dtype=nl.float32)
    p = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=a, moving=ident, is_transpose=True)  # expect: NKI404 warning
    out = nl.ndarray((8, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    for j in range(8):
        row = nl.ndarray((1, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=row, src=p[j * 16:j * 16 + 1, :])
        nisa.dma_copy(dst=out[j:j + 1, :], src=row)
    return out


def x_tile(x, j):
    t = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, j:j + 1])
    return t


@nki.jit
def every_16th_column_stored_whole(x):
    # The same scattered tile stored to HBM whole: the stale columns leave the chip. An error.
    assert x.shape == (128, 8)
    a = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    for j in range(8):
        nisa.tensor_copy(dst=a[:, j * 16:j * 16 + 1], src=x_tile(x, j))
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)  # expect: NKI404 error
    return out


def check_dtype(t, dtype):
    assert t.dtype == dtype, "unexpected dtype"


@nki.jit
def accumulated_after_a_helper_asserts_every_other_iteration(x):
    # Iteration k reads what iteration 0 wrote; iteration 0's path holds a helper's assertion (made only in even
    # iterations), which any later iteration, being reached, knows held.
    K, F = x.shape
    assert K % 128 == 0 and F == 512
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.sequential_range(K // 128):
        if k % 2 == 0:
            check_dtype(x, nl.float32)
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[k * 128:(k + 1) * 128, :])
        if k == 0:
            nisa.tensor_copy(dst=acc, src=t)
        else:
            nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def accumulator_initialised_only_when_asked(x, init: bool):
    # The first iteration writes the accumulator only under a branch (not an assertion): without `init` it is
    # read uninitialised (then written: the store after the loop reads what the last iteration wrote). The
    # helper's assertion on the other path does not help.
    K, F = x.shape
    assert K % 128 == 0 and K >= 256 and F == 512
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    if init:
        check_dtype(x, nl.float32)
    for k in nl.sequential_range(K // 128):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[k * 128:(k + 1) * 128, :])
        if k == 0:
            if init:
                nisa.tensor_copy(dst=acc, src=t)
        else:
            nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)  # expect: NKI404 warning
    nisa.dma_copy(dst=out, src=acc)
    return out
