"""Beta-1 index grids with masks for a ragged last tile; operand masks; a mask on a reduced axis."""
import math

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def copy_masked(in_tensor):
    sz_p, sz_f = in_tensor.shape
    out_tensor = nl.ndarray((sz_p, sz_f), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(sz_f)[None, :]
    for p in nl.affine_range(math.ceil(sz_p / 128)):
        i_p = p * 128 + nl.arange(128)[:, None]
        tile = nl.load(in_tensor[i_p, i_f], mask=(i_p < sz_p))
        nl.store(out_tensor[i_p, i_f], value=tile, mask=(i_p < sz_p))
    return out_tensor


@nki.jit
def copy_unmasked(in_tensor):
    sz_p, sz_f = in_tensor.shape
    out_tensor = nl.ndarray((sz_p, sz_f), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(sz_f)[None, :]
    for p in nl.affine_range(math.ceil(sz_p / 128)):
        i_p = p * 128 + nl.arange(128)[:, None]
        tile = nl.load(in_tensor[i_p, i_f])  # expect: NKI101 error
        nl.store(out_tensor[i_p, i_f], value=tile)  # expect: NKI101 error
    return out_tensor


@nki.jit
def transpose_mgrid(in_tensor):
    out_tensor = nl.ndarray((128, 64), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:64]
    tile = nl.load(in_tensor[i_p, i_f])
    nl.store(out_tensor[i_p, i_f], value=tile)
    bad = nl.load(in_tensor[i_p, i_f + 64])  # expect: NKI101 error
    nl.store(out_tensor[i_p, i_f], value=bad)
    return out_tensor


if __name__ == "__main__":
    import numpy as np
    x = np.zeros((300, 64), dtype=np.float32)
    copy_masked(x)
    copy_unmasked(x)
    transpose_mgrid(np.zeros((128, 100), dtype=np.float32))  # the second load reads columns 64..127 of 100


@nki.jit
def copy_masked_by_its_own_grid(in_tensor):
    # The mask builds its own nl.arange(128)[:, None]: NKI matches a mask's indices to the tile's by position,
    # so it is the partition index of the access (was: a warning on both lines, the two aranges taken as
    # independent; an error where the sizes are known)
    sz_p, sz_f = in_tensor.shape
    out_tensor = nl.ndarray((sz_p, sz_f), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    for p in nl.affine_range(math.ceil(sz_p / 128)):
        rows = p * 128 + nl.arange(128)[:, None]
        cols = nl.arange(sz_f)[None, :]
        inside = (sz_p - 1 - p * 128 - nl.arange(128)[:, None] >= 0)
        tile = nl.load(in_tensor[rows, cols], mask=inside)
        nl.store(out_tensor[rows, cols], value=tile, mask=inside)
    return out_tensor


@nki.jit
def copy_masked_by_its_own_grid_one_row_too_many(in_tensor):
    sz_p, sz_f = in_tensor.shape
    out_tensor = nl.ndarray((sz_p, sz_f), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    for p in nl.affine_range(math.ceil(sz_p / 128)):
        rows = p * 128 + nl.arange(128)[:, None]
        cols = nl.arange(sz_f)[None, :]
        inside = (sz_p - p * 128 - nl.arange(128)[:, None] >= 0)
        tile = nl.load(in_tensor[rows, cols], mask=inside)  # expect: NKI101 warning
        nl.store(out_tensor[rows, cols], value=tile, mask=inside)  # expect: NKI101 warning
    return out_tensor


@nki.jit
def grids_rebuilt_in_each_loop(src):
    # The second loop indexes with the grids the first loop built, then builds them again itself (as vLLM's
    # paged attention does): the same grids over fresh index variables, not state carried from iteration to
    # iteration (was: NKI902, the loop's Python state not followed)
    n_tiles = src.shape[0] // 128
    assert src.shape[1] == 512
    out = nl.ndarray((src.shape[0], 512), dtype=src.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(n_tiles):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(512)[None, :]
        tile = nl.load(src[t * 128 + i_p, i_f])
        nl.store(out[t * 128 + i_p, i_f], value=tile)
    for t in nl.affine_range(n_tiles):
        tile = nl.load(src[t * 128 + i_p, i_f])
        nl.store(out[t * 128 + i_p, i_f], value=nl.add(tile, tile))
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(512)[None, :]
    return out


@nki.jit
def grids_rebuilt_in_each_loop_one_column_over(src):
    n_tiles = src.shape[0] // 128
    assert src.shape[1] == 512
    out = nl.ndarray((src.shape[0], 512), dtype=src.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(n_tiles):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(512)[None, :]
        tile = nl.load(src[t * 128 + i_p, i_f])
        nl.store(out[t * 128 + i_p, i_f], value=tile)
    for t in nl.affine_range(n_tiles):
        tile = nl.load(src[t * 128 + i_p, i_f + 1])  # expect: NKI101 warning
        nl.store(out[t * 128 + i_p, i_f], value=nl.add(tile, tile))
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(512)[None, :]
    return out


@nki.jit
def matmul_with_a_masked_moving_operand(lhsT, rhs, n_valid: int):
    # operand masking: only the first n_valid columns of the moving tile take part (`rhs_tile[i_f < n]`)
    assert lhsT.shape == (128, 128) and rhs.shape == (128, 512) and n_valid <= 512
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT)
    rt = nl.load(rhs)
    i_f = nl.arange(512)[None, :]
    res = nl.matmul(lt, rt[i_f < n_valid], transpose_x=True)
    nl.store(out, value=nl.copy(res))
    return out



@nki.jit
def matmul_masked_by_a_one_tile_loop(lhsT, rhs):
    # a mask on the tile index of a loop that runs once (`t < 1`) holds whatever the index: it masks nothing
    assert lhsT.shape == (128, 128) and rhs.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT)
    rt = nl.load(rhs)
    i_f = nl.arange(512)[None, :]
    for t in nl.affine_range(1):
        ps = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        ps += nisa.nc_matmul(lt, rt[i_f < 512][t < 1])
        nl.store(out, value=nl.copy(ps))
    return out


@nki.jit
def row_sums_of_the_valid_columns(x):
    # a mask on the reduced axis shrinks the reduction's input: every row of the result is still written
    n = x.shape[1]
    assert x.shape[0] == 128 and n <= 512
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    t = nl.load(x[i_p, i_f], mask=(i_f < n))
    sums = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    sums[i_p, 0] = nisa.tensor_reduce(nl.add, t[i_p, i_f], axis=(1,), mask=(i_f < n), dtype=nl.float32)
    nl.store(out, value=nl.multiply(sums, 2.0))
    return out


@nki.jit
def row_sums_of_the_valid_columns_half_written(x):
    n = x.shape[1]
    assert x.shape[0] == 128 and n <= 512
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(64)[:, None]
    i_f = nl.arange(512)[None, :]
    t = nl.load(x[i_p, i_f], mask=(i_f < n))
    sums = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    sums[i_p, 0] = nisa.tensor_reduce(nl.add, t[i_p, i_f], axis=(1,), mask=(i_f < n), dtype=nl.float32)
    nl.store(out, value=nl.multiply(sums, 2.0))  # expect: NKI404 error
    return out


@nki.jit
def copy_block_sized_by_its_grids(in_tensor):
    # an index grid's broadcast shape: (128, 1) and (1, 512)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    assert i_p.shape == (128, 1) and i_f.ndim == 2
    assert in_tensor.shape == (i_p.shape[0], i_f.shape[1])
    out_tensor = nl.ndarray((i_p.shape[0], i_f.shape[1]), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    nl.store(out_tensor[i_p, i_f], value=nl.load(in_tensor[i_p, i_f]))
    return out_tensor


@nki.jit
def copy_columns_masked_by_a_reshaped_mask(src):
    # A one-dimensional mask reshaped where it is used (`m[None, :]`), as the ragged last tile of columns is
    # often written: the mask's arange becomes the free index of the access (was: NKI902, subscripting a
    # symbolic bool)
    assert src.shape[0] == 128
    n = src.shape[1]
    out = nl.ndarray((128, n), dtype=src.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    for t in nl.affine_range((n + 511) // 512):
        valid = t * 512 + nl.arange(512) < n
        tile = nl.load(src[i_p, t * 512 + nl.arange(512)[None, :]], mask=valid[None, :])
        nl.store(out[i_p, t * 512 + nl.arange(512)[None, :]], value=tile, mask=valid[None, :])
    return out


@nki.jit
def copy_columns_masked_by_a_reshaped_mask_one_column_over(src):
    assert src.shape[0] == 128
    n = src.shape[1]
    out = nl.ndarray((128, n), dtype=src.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    for t in nl.affine_range((n + 511) // 512):
        valid = t * 512 + nl.arange(512) <= n
        tile = nl.load(src[i_p, t * 512 + nl.arange(512)[None, :]], mask=valid[None, :])  # expect: NKI101 warning
        nl.store(out[i_p, t * 512 + nl.arange(512)[None, :]], value=tile, mask=valid[None, :])  # expect: NKI101 warning
    return out


@nki.jit
def copy_rows_masked_by_a_column_mask_made_a_row_mask(src):
    # The same mask placed on the partition axis (`m[:, None]`) against the free axis of the access
    # proves nothing about the free index
    assert src.shape[0] == 128
    n = src.shape[1]
    out = nl.ndarray((128, n), dtype=src.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    for t in nl.affine_range((n + 511) // 512):
        valid = t * 512 + nl.arange(128) < n
        tile = nl.load(src[i_p, t * 512 + nl.arange(512)[None, :]], mask=valid[:, None])  # expect: NKI101 warning
        nl.store(out[i_p, t * 512 + nl.arange(512)[None, :]], value=tile)  # expect: NKI101 warning
    return out


@nki.jit
def copy_columns_with_one_dimensional_grids(src):
    # A bare nl.arange(512) in the last index, and a one-dimensional mask: both broadcast from the last axis as
    # numpy does, so the mask's arange is the access's column index
    assert src.shape[0] == 128
    n = src.shape[1]
    out = nl.ndarray((128, n), dtype=src.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    rows = i_p < 128
    for t in nl.affine_range((n + 511) // 512):
        cols = t * 512 + nl.arange(512) < n
        tile = nl.load(src[i_p, t * 512 + nl.arange(512)], mask=rows & cols)
        nl.store(out[i_p, t * 512 + nl.arange(512)], value=tile, mask=rows & cols)
    return out
