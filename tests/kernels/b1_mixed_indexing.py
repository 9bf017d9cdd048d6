"""Beta-1 subscripts that mix slices with nl.arange index grids: the NKI compiler rejects basic and advanced
indexing together (NKI610, was NKI902 and nothing after it checked).  The slice is read as the grid of the same
elements, so the rest of the kernel is still checked (test_api: its bounds too; the device refuses the mix as the
compiler does, so it cannot run such a kernel to confirm them)."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def copy_block_half_gridded(a):
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    tile = nl.load(a[i_p, 0:512])  # expect: NKI610 error
    nl.store(out[i_p, nl.arange(512)[None, :]], value=tile)
    return out


@nki.jit
def copy_block_fully_gridded(a):
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    tile = nl.load(a[i_p, i_f])
    nl.store(out[i_p, i_f], value=tile)
    # the full slice of an axis of size 1 beside a grid is accepted
    col = nl.load(a[i_p, nl.arange(1)[None, :]])
    nl.store(out[i_p, nl.arange(1)[None, :]], value=col[i_p, :])
    return out



@nki.jit
def copy_columns_one_dimensional_grid(a):
    # `x[:, nl.arange(64)]`: a one-dimensional grid beside a slice (rejected: NKI610), whose shape the slice's
    # grid does not broadcast with; what the analysis could not make of it is that construct, not said again
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    tile = nl.load(a[:, :])
    part = tile[:, nl.arange(64)]  # expect: NKI610 error
    nl.store(out, value=part)
    return out
