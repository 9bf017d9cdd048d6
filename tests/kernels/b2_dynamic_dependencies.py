"""Writes an affine_range loop places by a value read at run time: a scatter by an index each iteration reads
for itself is a dependency unless the indices are distinct (a warning naming the value, with no fix offered);
a value read once before the loop shifts every iteration alike."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def scatter_rows_by_index(x, idx):
    # each iteration loads its own row index and writes the block it names: two equal indices write the same
    # rows, so the iterations are not independent unless the caller promises distinct indices
    assert x.shape == (512, 256) and idx.shape == (4, 1)
    out = nl.ndarray((512, 256), x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        raw = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=raw, src=idx[i:i + 1, :])
        row = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=row, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=384)
        t = nl.ndarray((128, 256), x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out.ap(pattern=[[256, 128], [1, 256]], offset=0,  # expect: NKI401 warning
                                 scalar_offset=row, indirect_dim=0), src=t)
    return out


@nki.jit
def scatter_rows_by_index_in_place(x, idx):
    # the indices are loaded before the loop, but each iteration reads its own one: the same dependency
    assert x.shape == (512, 256) and idx.shape == (4, 1)
    out = nl.ndarray((512, 256), x.dtype, buffer=nl.shared_hbm)
    raw = nl.ndarray((4, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=raw, src=idx)
    rows = nl.ndarray((4, 1), nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=rows, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=384)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 256), x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out.ap(pattern=[[256, 128], [1, 256]], offset=0,  # expect: NKI401 warning
                                 scalar_offset=rows[i:i + 1, :], indirect_dim=0), src=t)
    return out


@nki.jit
def blocks_shifted_by_one_index(x, idx):
    # one index, read before the loop, shifts every block alike: the blocks stay disjoint
    assert x.shape == (512, 256) and idx.shape == (1, 1)
    out = nl.ndarray((1024, 256), x.dtype, buffer=nl.shared_hbm)
    raw = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=raw, src=idx)
    base = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=base, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=384)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 256), x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out.ap(pattern=[[256, 128], [1, 256]], offset=i * 128 * 256, scalar_offset=base,
                                 indirect_dim=0), src=t)
    return out
