"""The same kernel with a tail-tile bug: it assumes the row count is a multiple of 128 without saying so,
and it loads one tile too many.

    nki-verify examples/tensor_add_bug.py      # exits 1: NKI101 with a counterexample
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tensor_add_bug(a, b):
    P, F = a.shape
    assert a.shape == b.shape
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(P // 128 + 1):
        a_tile = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((128, F), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=b_tile, src=b[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=a_tile, data1=a_tile, data2=b_tile, op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=a_tile)
    return out
