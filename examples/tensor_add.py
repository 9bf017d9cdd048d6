"""Element-wise addition of two [N*128, F] tensors, tiled by 128 rows (NKI Beta 2).

Verify it with:  nki-verify examples/tensor_add.py
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tensor_add(a, b):
    P, F = a.shape
    assert a.shape == b.shape, "a and b must have the same shape"
    assert P % nl.tile_size.pmax == 0, "rows must be a multiple of 128"
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(P // nl.tile_size.pmax):
        rows = slice(i * 128, (i + 1) * 128)
        a_tile = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((128, F), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[rows, :])
        nisa.dma_copy(dst=b_tile, src=b[rows, :])
        nisa.tensor_tensor(dst=a_tile, data1=a_tile, data2=b_tile, op=nl.add)
        nisa.dma_copy(dst=out[rows, :], src=a_tile)
    return out
