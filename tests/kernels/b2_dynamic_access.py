"""Access patterns (.ap) and dynamic offsets: every element proven in bounds, runtime values bounded by what
the kernel wrote into them (memset, iota, register_move, clamps, the positions nc_find_index8 finds)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def scalar_offset_rows(A):
    # The migration guide's scalar dynamic access: rows 384..511 of a 512x512 input.
    assert A.shape == (512, 512)
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.memset(batch_idx, value=3 * 128)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap(pattern=[[512, 128], [1, 256]], offset=0, scalar_offset=batch_idx, indirect_dim=0),
                  dst=result[...])
    return result


@nki.jit
def scalar_offset_one_row_too_far(A):
    assert A.shape == (512, 512)
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.memset(batch_idx, value=3 * 128 + 1)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap(pattern=[[512, 128], [1, 256]], offset=0,  # expect: NKI102 error
                           scalar_offset=batch_idx, indirect_dim=0),
                  dst=result[...])
    return result


@nki.jit
def scalar_offset_from_the_input(A, idx):
    # The offset is loaded from an input: nothing bounds it.
    assert A.shape == (512, 512) and idx.shape == (1, 1)
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=batch_idx, src=idx)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap(pattern=[[512, 128], [1, 256]], offset=0,  # expect: NKI102 warning
                           scalar_offset=batch_idx, indirect_dim=0),
                  dst=result[...])
    return result


@nki.jit
def row_of_a_reshaped_input(tokens, idx):
    # The offset counts rows of the tensor `.ap` is called on: rows of 128 of the reshape, clamped to 0..31.
    assert tokens.shape == (4096,) and idx.shape == (1, 1)
    raw = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=raw, src=idx)
    row = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=row, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=31)
    rows = tokens.reshape((32, 128))
    t = nl.ndarray((1, 128), tokens.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=rows.ap(pattern=[[128, 1], [1, 128]], offset=0, scalar_offset=row, indirect_dim=0))
    out = nl.ndarray((1, 128), tokens.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def row_of_a_reshaped_input_clamped_one_too_far(tokens, idx):
    # Clamped to 0..32: row 32 of the reshape starts at element 4096, past the end.
    assert tokens.shape == (4096,) and idx.shape == (1, 1)
    raw = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=raw, src=idx)
    row = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=row, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=32)
    rows = tokens.reshape((32, 128))
    t = nl.ndarray((1, 128), tokens.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=rows.ap(pattern=[[128, 1], [1, 128]], offset=0,  # expect: NKI102 error
                                     scalar_offset=row, indirect_dim=0))
    out = nl.ndarray((1, 128), tokens.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scalar_offset_clamped(A, idx):
    # The same offset, clamped to rows 0..384 by a max and a min: in bounds.
    assert A.shape == (512, 512) and idx.shape == (1, 1)
    raw = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=raw, src=idx)
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=batch_idx, data=raw, op0=nl.maximum, operand0=0, op1=nl.minimum, operand1=384)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap(pattern=[[512, 128], [1, 256]], offset=0, scalar_offset=batch_idx, indirect_dim=0),
                  dst=result[...])
    return result


@nki.jit
def scalar_offset_skipped(A, idx):
    # oob_mode.skip: out-of-bounds rows are skipped by the DMA, so nothing to prove.
    assert A.shape == (512, 512) and idx.shape == (1, 1)
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=batch_idx, src=idx)
    result = nl.ndarray((128, 256), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap(pattern=[[512, 128], [1, 256]], offset=0, scalar_offset=batch_idx, indirect_dim=0),
                  dst=result[...], oob_mode=nisa.oob_mode.skip)
    return result


@nki.jit
def vector_offset_rows(A):
    # The migration guide's vector dynamic access: rows 0, 2, ..., 126 of a 128x512 input.
    assert A.shape == (128, 512)
    dynamic_idx_legal = nl.ndarray((64, 1), nl.int32, nl.sbuf)
    nisa.iota(dynamic_idx_legal, [[1, 1]], 0, 2)
    result_sb = nl.ndarray((64, 512), nl.float32, buffer=nl.sbuf)
    result_hbm = nl.ndarray((64, 512), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap([[512, 64], [1, 512]], 0, vector_offset=dynamic_idx_legal, indirect_dim=0),
                  dst=result_sb, name='inst0')
    nisa.dma_copy(result_hbm, result_sb, name="copy1")
    return result_hbm


@nki.jit
def vector_offset_stride_too_large(A):
    # Every fourth row: the last index is 252, past the 128 rows.
    assert A.shape == (128, 512)
    idx = nl.ndarray((64, 1), nl.int32, nl.sbuf)
    nisa.iota(idx, [[1, 1]], 0, 4)
    result_sb = nl.ndarray((64, 512), nl.float32, buffer=nl.sbuf)
    result_hbm = nl.ndarray((64, 512), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(src=A.ap([[512, 64], [1, 512]], 0, vector_offset=idx, indirect_dim=0),  # expect: NKI102 error
                  dst=result_sb)
    nisa.dma_copy(result_hbm, result_sb)
    return result_hbm


@nki.jit
def static_pattern_every_element(x):
    # A transposing read: element (i, j) at 64*j + i; the last one is 64*63 + 63 = 4095 < 4096.
    assert x.shape == (64, 64)
    out = nl.ndarray((64, 64), x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((64, 64), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[1, 64], [64, 64]]))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def static_pattern_past_the_end(x):
    # The same read shifted by one element: element (63, 63) is at 4096.
    assert x.shape == (64, 64)
    out = nl.ndarray((64, 64), x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((64, 64), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[1, 64], [64, 64]], offset=1))  # expect: NKI102 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def sbuf_pattern_in_rows(x):
    # On chip the first pair walks partitions with the row length as its step; free steps stay in a row.
    assert x.shape == (128, 64)
    out = nl.ndarray((128, 32), x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    half = nl.ndarray((128, 32), x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=half, src=t.ap(pattern=[[64, 128], [2, 32]], offset=1))
    nisa.dma_copy(dst=out, src=half)
    return out


@nki.jit
def sbuf_pattern_wraps_a_row(x):
    # Stride 2 from offset 2: the last element is 2 + 2*31 = 64, one past the 64-element row.
    assert x.shape == (128, 64)
    out = nl.ndarray((128, 32), x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    half = nl.ndarray((128, 32), x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=half, src=t.ap(pattern=[[64, 128], [2, 32]], offset=2))  # expect: NKI102 error
    nisa.dma_copy(dst=out, src=half)
    return out


@nki.jit
def sbuf_pattern_skips_partitions(x):
    # Every other partition: the partition step must be the row length.
    assert x.shape == (128, 64)
    out = nl.ndarray((64, 64), x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    odd = nl.ndarray((64, 64), x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=odd, src=t.ap(pattern=[[128, 64], [1, 64]]))  # expect: NKI102 error
    nisa.dma_copy(dst=out, src=odd)
    return out


@nki.jit
def register_offset(A):
    # A register set from an immediate, used as a dynamic slice start.
    assert A.shape == (512, 512)
    r = nisa.register_alloc(256)
    out = nl.ndarray((128, 512), A.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=A[nl.ds(r, 128), :])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def register_moved_too_far(A):
    assert A.shape == (512, 512)
    r = nisa.register_alloc(0)
    nisa.register_move(r, 448)
    out = nl.ndarray((128, 512), A.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=A[nl.ds(r, 128), :])  # expect: NKI102 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def dynamic_loop_tiles(A, n_tiles):
    # A dynamic loop whose register index walks the tiles: bounded by the loop's own range.
    assert A.shape == (4, 128, 512) and n_tiles <= 4
    out = nl.ndarray((4, 128, 512), A.dtype, buffer=nl.shared_hbm)
    for i in nl.dynamic_range(n_tiles):
        t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=A.ap(pattern=[[512, 128], [1, 512]], offset=0, scalar_offset=i, indirect_dim=0))
        nisa.dma_copy(dst=out.ap(pattern=[[512, 128], [1, 512]], offset=0, scalar_offset=i, indirect_dim=0), src=t)
    return out


@nki.jit
def dynamic_loop_one_tile_too_many(A, n_tiles):
    assert A.shape == (4, 128, 512) and n_tiles <= 5
    out = nl.ndarray((4, 128, 512), A.dtype, buffer=nl.shared_hbm)
    for i in nl.dynamic_range(n_tiles):
        t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=A.ap(pattern=[[512, 128], [1, 512]], offset=0,  # expect: NKI102 warning
                                      scalar_offset=i, indirect_dim=0))
        nisa.dma_copy(dst=out[0], src=t)
    return out


@nki.jit
def dynamic_loop_to_a_register(A):
    # the bound is a register: the loop runs to what it holds (4 tiles), not to any value
    assert A.shape == (4, 128, 512)
    out = nl.ndarray((4, 128, 512), A.dtype, buffer=nl.shared_hbm)
    n = nisa.register_alloc(0)
    nisa.register_move(n, 4)
    for i in nl.dynamic_range(n):
        t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=A.ap(pattern=[[512, 128], [1, 512]], offset=0, scalar_offset=i, indirect_dim=0))
        nisa.dma_copy(dst=out.ap(pattern=[[512, 128], [1, 512]], offset=0, scalar_offset=i, indirect_dim=0), src=t)
    return out


@nki.jit
def dynamic_loop_to_a_register_one_too_far(A):
    assert A.shape == (4, 128, 512)
    out = nl.ndarray((4, 128, 512), A.dtype, buffer=nl.shared_hbm)
    n = nisa.register_alloc(5)
    for i in nl.dynamic_range(n):
        t = nl.ndarray((128, 512), A.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=A.ap(pattern=[[512, 128], [1, 512]], offset=0,  # expect: NKI102 error
                                      scalar_offset=i, indirect_dim=0))
        nisa.dma_copy(dst=out[0], src=t)
    return out


@nki.jit
def row_blocks_up_to_a_clamped_count(x, n_rows):
    # a row count read at run time, clamped to [0, rows] in place before it bounds the loop
    rows, cols = x.shape
    assert rows % 128 == 0 and cols == 512 and n_rows.shape == (1, 1)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    count = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=count, src=n_rows)
    nisa.tensor_scalar(dst=count, data=count, op0=nl.minimum, operand0=rows, op1=nl.maximum, operand1=0)
    ub = nisa.register_alloc()
    nisa.register_load(ub, count)

    def body(r):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap(pattern=[[cols, 128], [1, cols]], offset=0, scalar_offset=r, indirect_dim=0))
        nisa.dma_copy(dst=out.ap(pattern=[[cols, 128], [1, cols]], offset=0, scalar_offset=r, indirect_dim=0), src=t)

    nl.fori_loop(0, ub, body, step=128)
    return out


@nki.jit
def row_blocks_up_to_an_unclamped_count(x, n_rows):
    rows, cols = x.shape
    assert rows % 128 == 0 and cols == 512 and n_rows.shape == (1, 1)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    count = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=count, src=n_rows)
    ub = nisa.register_alloc()
    nisa.register_load(ub, count)

    def body(r):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap(pattern=[[cols, 128], [1, cols]], offset=0,  # expect: NKI102 warning
                                      scalar_offset=r, indirect_dim=0))
        nisa.dma_copy(dst=out.ap(pattern=[[cols, 128], [1, cols]], offset=0,  # expect: NKI102 warning
                                 scalar_offset=r, indirect_dim=0), src=t)

    nl.fori_loop(0, ub, body, step=128)
    return out


@nki.jit
def row_of_the_largest_score(scores, table):
    # nc_find_index8 gives the position of each value max8 took from the row: below the row's 128 elements,
    # so a row of the 128-row table
    assert scores.shape == (1, 128) and table.shape == (128, 512)
    out = nl.ndarray((1, 512), dtype=table.dtype, buffer=nl.shared_hbm)
    s = nl.ndarray((1, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=scores)
    top = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=top, src=s)
    idx = nl.ndarray((1, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(dst=idx, data=s, vals=top)
    row = nl.ndarray((1, 512), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=row, src=table.ap(pattern=[[512, 1], [1, 512]], offset=0,
                                        scalar_offset=idx.ap(pattern=[[8, 1], [1, 1]], offset=0), indirect_dim=0))
    nisa.dma_copy(dst=out, src=row)
    return out


@nki.jit
def row_of_the_largest_score_in_half_the_table(scores, table):
    assert scores.shape == (1, 128) and table.shape == (64, 512)
    out = nl.ndarray((1, 512), dtype=table.dtype, buffer=nl.shared_hbm)
    s = nl.ndarray((1, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=scores)
    top = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=top, src=s)
    idx = nl.ndarray((1, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(dst=idx, data=s, vals=top)
    row = nl.ndarray((1, 512), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=row, src=table.ap(pattern=[[512, 1], [1, 512]], offset=0,  # expect: NKI102 error
                                        scalar_offset=idx.ap(pattern=[[8, 1], [1, 1]], offset=0), indirect_dim=0))
    nisa.dma_copy(dst=out, src=row)
    return out
