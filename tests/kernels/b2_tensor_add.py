"""Beta-2 tensor add: a good kernel and its off-by-one twin."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tensor_add(a, b):
    P, F = a.shape
    assert a.shape == b.shape
    assert P % 128 == 0
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(P // 128):
        ta = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((128, F), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=tb, src=b[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=ta)
    return out


@nki.jit
def tensor_add_off_by_one(a, b):
    P, F = a.shape
    assert a.shape == b.shape
    assert P % 128 == 0
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(P // 128):
        ta = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((128, F), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=tb, src=b[i * 128 + 1:(i + 1) * 128 + 1, :])  # expect: NKI101 error
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=ta)
    return out
