"""Kernels launched on rows the host code gathers with an index tensor.  In torch and numpy, `x[ids]` with ids a
tensor puts the index's axes in place of the axis it indexes (advanced indexing), so the rows of a 2-D array
picked by a 1-D index stay a 2-D block; a list of row numbers does the same, and a boolean mask leaves one axis
of unknown length (was: every index taken for an integer, the block a vector, and `rows, cols = x.shape` failed
on every path)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_row_blocks(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, 0:cols])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 0:cols], src=t)
    return out


@nki.jit
def copy_first_wide_block(x):
    rows, cols = x.shape
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:128, 0:512])  # expect: NKI101 error
    nisa.dma_copy(dst=out[0:128, 0:512], src=t)
    return out


@nki.jit
def copy_listed_rows(x):
    rows, cols = x.shape
    assert rows <= 128
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:rows, 0:cols])
    nisa.dma_copy(dst=out[0:rows, 0:cols], src=t)
    return out


@nki.jit
def copy_selected(x):
    (n,) = x.shape  # a mask over every axis of an array selects a vector
    out = nl.ndarray((n,), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out


if __name__ == "__main__":
    import numpy as np
    import torch

    hidden = torch.zeros(1024, 256)
    token_ids = torch.arange(512).view(2, 256)
    for block in range(2):
        rows = hidden[token_ids[block]]  # 256 rows of 256 columns
        copy_row_blocks(rows)
        copy_first_wide_block(rows)  # only 256 columns: the block of 512 reads past them
    copy_listed_rows(hidden[[0, 5, 7]])
    copy_listed_rows(hidden[..., 0:64][[1, 2]])
    copy_selected(hidden[torch.ones(1024, 256, dtype=torch.bool)])
    copy_selected(hidden[np.greater(np.zeros((1024, 256)), 0)])
