"""Beta-2 kernels whose loop body sets names on one side of a condition that is the same in every iteration
(the condition is over the input shapes, so both sides are analysed): a bias of one block is loaded once
before the loop and serves every row tile, a bias of one block per row tile is loaded in every iteration
into buffers the body allocates.  On one side every iteration assigns the names before using them, on the
other none does, so no iteration sees what an earlier one left, and the loop is followed for a symbolic row
count (before, the names were unknown after the first iteration: NKI902).  The twins read the streamed
block one row late, and index the buffer list with a count only the shared side makes safe.  And lists
each iteration of a batch loop makes, one appended under such a condition by an inner loop: it is one of
two lists after the inner loop (before, a guarded list, NKI902 on any use but a loop over it); the twin
uses it without asking."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def bias_shared_or_streamed(x, bias):
    rows, width = x.shape
    assert width <= 1024
    assert rows % 128 == 0
    shared = bias.shape[0] == 128  # one block serves every row tile
    assert bias.shape[1] == width and (shared or bias.shape[0] == rows)
    if shared:
        n_bufs = 1
        bufs = [nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)]
        nisa.dma_copy(dst=bufs[0], src=bias[0:128, :])
    out = nl.ndarray((rows, width), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        if not shared:
            # buffers sized for the widest row, each holding the block of the iteration that loads it
            n_bufs = 2
            bufs = []
            for _ in range(2):
                bufs.append(nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf))
            nisa.dma_copy(dst=bufs[i % 2][:, 0:width], src=bias[i * 128:(i + 1) * 128, :])
        t = nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=t, data1=t, data2=bufs[i % n_bufs][:, 0:width], op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def bias_streamed_one_row_late(x, bias):
    rows, width = x.shape
    assert width <= 1024
    assert rows % 128 == 0
    shared = bias.shape[0] == 128  # one block serves every row tile
    assert bias.shape[1] == width and (shared or bias.shape[0] == rows)
    if shared:
        n_bufs = 1
        bufs = [nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)]
        nisa.dma_copy(dst=bufs[0], src=bias[0:128, :])
    out = nl.ndarray((rows, width), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        if not shared:
            # buffers sized for the widest row, each holding the block of the iteration that loads it
            n_bufs = 2
            bufs = []
            for _ in range(2):
                bufs.append(nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf))
            nisa.dma_copy(dst=bufs[i % 2][:, 0:width], src=bias[i * 128 + 1:(i + 1) * 128 + 1, :])  # expect: NKI101 warning
        t = nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=t, data1=t, data2=bufs[i % n_bufs][:, 0:width], op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def bias_buffer_index_past_the_streamed_list(x, bias):
    rows, width = x.shape
    assert width <= 1024
    assert rows % 128 == 0
    shared = bias.shape[0] == 128  # one block serves every row tile
    assert bias.shape[1] == width and (shared or bias.shape[0] == rows)
    if shared:
        n_bufs = 1
        bufs = [nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)]
        nisa.dma_copy(dst=bufs[0], src=bias[0:128, :])
    out = nl.ndarray((rows, width), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        if not shared:
            # buffers sized for the widest row, each holding the block of the iteration that loads it
            n_bufs = 3
            bufs = []
            for _ in range(2):
                bufs.append(nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf))
            nisa.dma_copy(dst=bufs[i % 2][:, 0:width], src=bias[i * 128:(i + 1) * 128, :])
        t = nl.ndarray((128, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=t, data1=t, data2=bufs[i % n_bufs][:, 0:width], op=nl.add)  # expect: NKI101 warning
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def batches_doubled_when_wide(x):
    # x: (batch, n, m); the tiles are doubled when the rows are wide (a flag over the shape, the same in every
    # iteration of both loops); each batch makes its own lists, one appended under the flag
    batch, n, m = x.shape
    assert m <= 512
    wide = m > 256
    out = nl.ndarray((batch, n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        tiles = []
        doubled = []
        for _ in range((n + 127) // 128):
            tiles.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
            if wide:
                doubled.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
        for i in range((n + 127) // 128):
            size = min(128, n - i * 128)
            nisa.dma_copy(dst=tiles[i][:size, :], src=x[b, i * 128:i * 128 + size, :])
            if wide:
                nisa.tensor_scalar(dst=doubled[i][:size, :], data=tiles[i][:size, :], op0=nl.multiply, operand0=2.0)
                nisa.dma_copy(dst=out[b, i * 128:i * 128 + size, :], src=doubled[i][:size, :])
            else:
                nisa.dma_copy(dst=out[b, i * 128:i * 128 + size, :], src=tiles[i][:size, :])
    return out


@nki.jit
def batches_doubled_without_asking(x):
    # x: (batch, n, m); the tiles are doubled when the rows are wide (a flag over the shape, the same in every
    # iteration of both loops); each batch makes its own lists, one appended under the flag
    batch, n, m = x.shape
    assert m <= 512
    wide = m > 256
    out = nl.ndarray((batch, n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        tiles = []
        doubled = []
        for _ in range((n + 127) // 128):
            tiles.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
            if wide:
                doubled.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
        for i in range((n + 127) // 128):
            size = min(128, n - i * 128)
            nisa.dma_copy(dst=tiles[i][:size, :], src=x[b, i * 128:i * 128 + size, :])
            d = doubled[i]  # expect: NKI101 warning
            nisa.tensor_scalar(dst=d[:size, :], data=tiles[i][:size, :], op0=nl.multiply, operand0=2.0)
            nisa.dma_copy(dst=out[b, i * 128:i * 128 + size, :], src=d[:size, :])
    return out
