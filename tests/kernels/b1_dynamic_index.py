"""Beta-1 dynamic indices: a tile value used as an index, bounded by the arithmetic that produced it."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def batch_from_masked_index(A, dynamic_idx):
    # The migration guide's Beta-1 form: (idx & 3) picks one of A's 4 batches.
    assert A.shape == (4, 128, 256) and dynamic_idx.shape == (1, 1)
    batch_idx = nl.bitwise_and(nl.load(dynamic_idx), y=3)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:256]
    nisa.dma_copy(src=A[batch_idx, i_p, i_f], dst=result[i_p, i_f])
    return result


@nki.jit
def batch_from_wider_mask(A, dynamic_idx):
    # (idx & 7) reaches batches 4..7, which A does not have.
    assert A.shape == (4, 128, 256) and dynamic_idx.shape == (1, 1)
    batch_idx = nl.bitwise_and(nl.load(dynamic_idx), y=7)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:256]
    nisa.dma_copy(src=A[batch_idx, i_p, i_f], dst=result[i_p, i_f])  # expect: NKI102 error
    return result


@nki.jit
def batch_from_raw_input(A, dynamic_idx):
    # Nothing bounds the loaded value.
    assert A.shape == (4, 128, 256) and dynamic_idx.shape == (1, 1)
    batch_idx = nl.load(dynamic_idx)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:256]
    nisa.dma_copy(src=A[batch_idx, i_p, i_f], dst=result[i_p, i_f])  # expect: NKI102 warning
    return result


@nki.jit
def batch_from_iota(A):
    # An iota over 4 partitions holds 0..3: every row of the index tile is a valid batch.
    assert A.shape == (4, 128, 256)
    result = nl.ndarray((4, 128, 256), A.dtype, buffer=nl.shared_hbm)
    i_b = nl.arange(4)[:, None]
    idx = nisa.iota(i_b, dtype=nl.int32)
    i_p, i_f = nl.mgrid[0:128, 0:256]
    nisa.dma_copy(src=A[idx[0, 0], i_p, i_f], dst=result[0, i_p, i_f])
    return result


@nki.jit
def gather_rows(table, idx):
    # an index tile of 64 row numbers, one per partition, clamped to the table: a gather of 64 rows
    assert table.shape == (128, 512) and idx.shape == (64, 1)
    out = nl.ndarray((64, 512), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(64)[:, None]
    i_f = nl.arange(512)[None, :]
    rows = nl.minimum(nl.maximum(nl.load(idx[i_p, 0]), 0), 127)
    nl.store(out, value=nl.load(table[rows[i_p, 0], i_f]))
    return out


@nki.jit
def gather_rows_clamped_one_past_the_table(table, idx):
    assert table.shape == (128, 512) and idx.shape == (64, 1)
    out = nl.ndarray((64, 512), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(64)[:, None]
    i_f = nl.arange(512)[None, :]
    rows = nl.minimum(nl.maximum(nl.load(idx[i_p, 0]), 0), 128)
    nl.store(out, value=nl.load(table[rows[i_p, 0], i_f]))  # expect: NKI102 error
    return out


@nki.jit
def rows_clamped_in_place(table, rows):
    # `idx[...] = nl.bitwise_and(idx, 1023)` clamps the loaded row numbers into the table's 1024 rows
    assert table.shape == (1024, 64) and rows.shape == (128, 1)
    out = nl.ndarray((128, 64), dtype=table.dtype, buffer=nl.shared_hbm)
    idx = nl.load(rows)
    idx[...] = nl.bitwise_and(idx, 1023)
    nl.store(out, value=nl.load(table[idx, nl.arange(64)[None, :]]))
    return out


@nki.jit
def rows_shifted_in_place(table):
    # `idx[...] += 1000` moves rows 0..127 to 1000..1127, past the table's 1024 rows
    assert table.shape == (1024, 64)
    out = nl.ndarray((128, 64), dtype=table.dtype, buffer=nl.shared_hbm)
    idx = nisa.iota(nl.arange(128)[:, None], dtype=nl.int32)
    idx[...] += 1000
    nl.store(out, value=nl.load(table[idx, nl.arange(64)[None, :]]))  # expect: NKI102 error
    return out


@nki.jit
def rows_of_one_plane(table, cache):
    # `cache[0, idx, i_f]`: the integer picks a plane, the (128, 1) index tile picks one row per partition
    assert table.shape == (128, 4) and cache.shape == (2, 1024, 256)
    out = nl.ndarray((128, 256), dtype=cache.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    tbl = nl.load(table)
    idx = nl.ndarray((128, 1), dtype=nl.int32, buffer=nl.sbuf)
    idx[...] = nl.bitwise_and(tbl[i_p, 1], 1023)
    i_f = nl.arange(256)[None, :]
    nl.store(out[i_p, i_f], value=nl.load(cache[0, idx, i_f]))
    return out
