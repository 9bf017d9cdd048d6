"""Views whose rows or columns come from offsets read at run time: `.vector_select(0, offsets)` has
offsets.shape[0] partitions and the tensor's other axes; `.indirect(index, num_elem)` (trn3) is a
(P, num_elem) view."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def gather_even_rows(a):
    assert a.shape == (128, 512)
    offsets = nl.ndarray((64, 1), nl.int32, buffer=nl.sbuf)
    nisa.iota(offsets, [[1, 1]], 0, 2)  # 0, 2, ..., 126
    out = nl.ndarray((64, 512), a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a.vector_select(0, offsets))
    return out


@nki.jit
def gather_even_rows_into_every_row(a):
    assert a.shape == (128, 512)
    offsets = nl.ndarray((64, 1), nl.int32, buffer=nl.sbuf)
    nisa.iota(offsets, [[1, 1]], 0, 2)
    out = nl.ndarray((128, 512), a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a.vector_select(0, offsets))  # expect: NKI501 error
    return out


@nki.jit(platform_target="trn3")
def gather_columns(a):
    assert a.shape == (128, 512)
    data = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=data, src=a)
    index = nl.ndarray((128, 2), nl.int32, buffer=nl.sbuf)
    nisa.iota(index, [[1, 2]], 0, 0)
    picked = nl.ndarray((128, 256), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=picked, src=data.indirect(index))  # 128 x 256 offsets
    out = nl.ndarray((128, 256), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=picked)
    return out
