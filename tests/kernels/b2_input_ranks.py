"""Inputs the signature leaves open: a rank only the uses tell (an index into the shape says it is at least
that large, unpacking the shape says it exactly), and shapes of different lengths merged after a branch."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def fold_experts(w):
    # w is (E, G, P, F): the rank shows in shape[2], then shape[3]; each index raises the guess
    shape = w.shape
    flat = w.reshape((shape[0] * shape[1], shape[2], shape[3]))
    assert shape[2] <= 128 and shape[3] <= 512
    out = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat[0, 0:shape[2], 0:shape[3]])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def fold_experts_past_the_end(w):
    shape = w.shape
    flat = w.reshape((shape[0] * shape[1], shape[2], shape[3]))
    assert shape[2] <= 128 and shape[3] <= 512
    out = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((shape[2], shape[3]), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat[shape[0] * shape[1], 0:shape[2], 0:shape[3]])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out



def _dims(x, flatten):
    # one of two shapes of different lengths, chosen by an input: a merged value
    return (x.shape[0] * x.shape[1],) if flatten else x.shape


@nki.jit
def merged_shapes(x, flatten: int):
    assert x.shape == (128, 512)
    dims = tuple(_dims(x, flatten == 1))
    n = len(dims)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:128, 0:256 * n], src=x[0:128, 0:256 * n])
    nisa.dma_copy(dst=t[0:128, 0:256 * n], src=x[0:128, 256 * n:512 * n])  # expect: NKI101 warning
    nisa.dma_copy(dst=out[0:128, 0:256 * n], src=t[0:128, 0:256 * n])
    return out



@nki.jit
def tail_of_the_shape(x):
    # only the trailing dimensions are stated: x is (B, 128, 512) whatever B, the rank shown by the comparison
    assert x.shape[1:] == (128, 512) and x.shape[:-2] == (4,)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[3])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def tail_of_the_shape_one_block_too_far(x):
    assert x.shape[1:] == (128, 512) and x.shape[:-2] == (4,)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[4])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def blocks_and_the_rest(x):
    # `b, *rest = x.shape`: the rest is compared as a whole, which shows the rank
    b, *rest = x.shape
    assert b == 4 and tuple(rest) == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[b - 1])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def blocks_and_the_rest_one_too_far(x):
    b, *rest = x.shape
    assert b == 4 and tuple(rest) == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[b])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def trailing_dims_then_a_block(x):
    # only the last two dimensions are stated and nothing else settles the rank: copying x[0] into a 2-D tile
    # fails at the guessed rank 2 whatever the inputs, so the kernel means x to have (at least) three
    assert x.shape[-2:] == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def trailing_dims_then_a_block_too_far(x):
    assert x.shape[-3:] == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[4])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def rank_stated_then_a_row(x):
    # the unpacking says rank 2: x[0] is one row of 512 elements, which cannot fill a 128 x 512 tile
    rows, cols = x.shape
    assert rows == 128 and cols == 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0])  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def rank_stated_after_the_row(x):
    # the same, with the unpacking after the copy: it still settles the rank the copy is judged at
    assert x.shape[-2:] == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0])  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=t)
    rows, cols = x.shape
    return out


@nki.jit
def one_row_into_a_row_tile(x):
    # a rank-2 input whose row fills a (1, N) tile exactly: nothing to correct
    assert x.shape[0] >= 4
    out = nl.ndarray((1, x.shape[1]), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((1, x.shape[1]), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[3])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def unpacked_tail(x):
    # `a, b = x.shape[1:]`: two names for the shape without its first dimension, so x has rank 3
    a, b = x.shape[1:]
    assert a <= 128
    out = nl.ndarray((a, b), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((a, b), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def two_layouts_of_one_input(x, blocked: int):
    # one implementation unpacks three dimensions, the other two: the rank the first use teaches is still a guess
    # at the second, so the input is analysed once per rank (the two-dimensional path used to be not understood,
    # and its bug unseen)
    if blocked == 1:
        B, T, H = x.shape
        assert T == 128 and H <= 512
        out = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[B - 1])
        nisa.dma_copy(dst=out, src=t)
    else:
        T, H = x.shape
        assert T == 128 and H <= 512
        out = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, 1:H + 1])  # expect: NKI101 warning
        nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def weight_vector_as_a_row(x, g):
    # g is (H,): only g.shape[0] is read, and the reshape to one row keeps its elements at rank 1 (the guessed
    # rank 2 would make the reshape need g.shape[1] == 1)
    rows, hidden = x.shape
    assert rows <= 128 and hidden <= 512 and g.shape[0] == hidden
    out = nl.ndarray((rows, hidden), dtype=x.dtype, buffer=nl.shared_hbm)
    g_row = nl.ndarray((1, hidden), dtype=g.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g.reshape((1, hidden)))
    t = nl.ndarray((rows, hidden), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def weight_matrix_reshaped_as_a_row(x, g):
    # the bad twin: g's second dimension is read, so g is 2-D, and a row of `hidden` elements drops the rest
    rows, hidden = x.shape
    assert rows <= 128 and hidden <= 512 and g.shape[0] == hidden and g.shape[1] == 2
    out = nl.ndarray((rows, hidden), dtype=x.dtype, buffer=nl.shared_hbm)
    g_row = nl.ndarray((1, hidden), dtype=g.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g.reshape((1, hidden)))  # expect: NKI501 error
    t = nl.ndarray((rows, hidden), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def bias_vector_in_column_tiles(x, bias):
    # bias is only read as a vector (bias[a:b], bias.shape[0]): guessed 1-D, so a slice of 128 of it fills a
    # (128, 1) column (guessed 2-D, the slice was a 128 x bias.shape[1] block that did not fit)
    rows, cols = x.shape
    assert rows == bias.shape[0] and rows % 128 == 0 and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        b = nl.ndarray((128, 1), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b, src=bias[i * 128:(i + 1) * 128])
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=b)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def bias_vector_one_past_the_end(x, bias):
    rows, cols = x.shape
    assert rows == bias.shape[0] and rows % 128 == 0 and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        b = nl.ndarray((128, 1), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b, src=bias[i * 128 + 1:(i + 1) * 128 + 1])  # expect: NKI101 error
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=b)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def swap_leading_axes(x):
    # nothing reads x.shape: a permutation of three axes says x has three
    v = x.permute((1, 0, 2))
    out = nl.ndarray(v.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=v)
    return out


@nki.jit
def add_a_pair(pair):
    # a parameter unpacked into names used as tensors is a tuple of input tensors
    a, b = pair
    assert a.shape == (128, 512) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:128, 0:512])
    nisa.dma_copy(dst=tb, src=b[0:128, 0:512])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out


@nki.jit
def add_a_pair_of_different_widths(pair):
    a, b = pair
    assert a.shape == (128, 256) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:128, 0:512])  # expect: NKI101 error
    nisa.dma_copy(dst=tb, src=b[0:128, 0:512])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out


class _ExpertDims(nl.NKIObject):
    # a helper that dispatches on the rank of the weights: (rows, cols) for one expert, (experts, rows, cols)
    def __init__(self, w):
        rank = len(w.shape)
        if rank == 2:
            self.experts = 1
            self.rows, self.cols = w.shape
        elif rank == 3:
            self.experts, self.rows, self.cols = w.shape
        else:
            assert False, "w must be (rows, cols) or (experts, rows, cols)"


@nki.jit
def last_expert_by_rank(w):
    # both ranks the helper dispatches on are analysed, not only the one its first test agrees with
    d = _ExpertDims(w)
    assert d.rows <= 128 and d.cols <= 512
    out = nl.ndarray((d.rows, d.cols), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((d.rows, d.cols), dtype=w.dtype, buffer=nl.sbuf)
    if d.experts == 1 and len(w.shape) == 2:
        nisa.dma_copy(dst=t, src=w)
    else:
        nisa.dma_copy(dst=t, src=w[d.experts - 1])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def last_expert_by_rank_one_too_far(w):
    d = _ExpertDims(w)
    assert d.rows <= 128 and d.cols <= 512
    out = nl.ndarray((d.rows, d.cols), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((d.rows, d.cols), dtype=w.dtype, buffer=nl.sbuf)
    if len(w.shape) == 2:
        nisa.dma_copy(dst=t, src=w)
    else:
        nisa.dma_copy(dst=t, src=w[d.experts])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def tokens_of_either_rank(x):
    # x is (T, H) or (B, S, H), flattened to (T, H) by the branch the first test does not take
    if len(x.shape) != 2:
        assert len(x.shape) == 3, "x must be (T, H) or (B, S, H)"
        x = x.reshape((x.shape[0] * x.shape[1], x.shape[2]))
    T, H = x.shape
    assert T <= 128 and H <= 512
    out = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def tokens_of_either_rank_last_batch_only(x):
    if len(x.shape) != 2:
        assert len(x.shape) == 3, "x must be (T, H) or (B, S, H)"
        x = x[x.shape[0]]  # expect: NKI101 error
    T, H = x.shape
    assert T <= 128 and H <= 512
    out = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


def _rows_of(w):
    # the rows of w of any layout the kernel takes, leading axes flattened
    rank = len(w.shape)
    if rank == 2:
        return w.shape[0]
    if rank == 3:
        return w.shape[0] * w.shape[1]
    assert rank == 4, "w must have 2, 3 or 4 axes"
    return w.shape[0] * w.shape[1] * w.shape[2]


def _rows_of_off_by_one(w):
    rank = len(w.shape)
    if rank == 2:
        return w.shape[0]
    if rank == 3:
        return w.shape[0] * w.shape[1]
    assert rank == 4, "w must have 2, 3 or 4 axes"
    return w.shape[0] * w.shape[1] * w.shape[2] + 1


@nki.jit
def rows_by_layout(w, layout: int):
    # two unpackings disagree on the rank of w (2 or 3): one run per rank; the helper of the third layout
    # names a rank neither does (4), which gets a run of its own
    if layout == 0:
        R, C = w.shape
        rows = R
    elif layout == 1:
        E, R, C = w.shape
        rows = E * R
    else:
        rows = _rows_of(w)
        C = w.shape[-1]
    assert rows <= 128 and C <= 512
    flat = w.reshape((rows, C))
    out = nl.ndarray((rows, C), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, C), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def rows_by_layout_one_too_many(w, layout: int):
    if layout == 0:
        R, C = w.shape
        rows = R
    elif layout == 1:
        E, R, C = w.shape
        rows = E * R
    else:
        rows = _rows_of_off_by_one(w)
        C = w.shape[-1]
    assert rows <= 128 and C <= 512
    flat = w.reshape((rows, C))  # expect: NKI501 warning
    out = nl.ndarray((rows, C), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, C), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat)
    nisa.dma_copy(dst=out, src=t)
    return out


class _Experts(nl.NKIObject):
    # the number of experts is None for the weights of one expert (2-D), as in a config shared with MLP kernels
    def __init__(self, w):
        rank = len(w.shape)
        if rank == 2:
            self.count = None
            self.rows, self.cols = w.shape
        elif rank == 3:
            self.count, self.rows, self.cols = w.shape
        else:
            assert False, "w must be (rows, cols) or (experts, rows, cols)"


@nki.jit
def expert_scales(w, scales, per_expert: int):
    # the scales are read per expert when asked: with 2-D weights the tile's first dimension is None, which
    # fails tracing there (a path of rank 2 launches do not take, not a construct the verifier does not
    # understand)
    e = _Experts(w)
    assert e.rows <= 128 and e.cols <= 512
    out = nl.ndarray((e.rows, e.cols), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((e.rows, e.cols), dtype=w.dtype, buffer=nl.sbuf)
    if per_expert == 1:
        s = nl.ndarray((e.count, 1), dtype=scales.dtype, buffer=nl.sbuf)
        assert scales.shape == (e.count, 1) and e.count <= e.rows
        nisa.dma_copy(dst=s, src=scales)
        nisa.dma_copy(dst=t, src=w[e.count - 1])
        nisa.dma_copy(dst=out[0:e.count, 0:1], src=s)
    else:
        nisa.dma_copy(dst=t, src=w if len(w.shape) == 2 else w[0])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def expert_scales_one_row_short(w, scales, per_expert: int):
    e = _Experts(w)
    assert e.rows <= 128 and e.cols <= 512
    out = nl.ndarray((e.rows, e.cols), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((e.rows, e.cols), dtype=w.dtype, buffer=nl.sbuf)
    if per_expert == 1:
        s = nl.ndarray((e.count - 1, 1), dtype=scales.dtype, buffer=nl.sbuf)
        assert scales.shape == (e.count, 1) and e.count <= e.rows
        nisa.dma_copy(dst=s, src=scales)  # expect: NKI501 warning
        nisa.dma_copy(dst=t, src=w[e.count - 1])
    else:
        nisa.dma_copy(dst=t, src=w if len(w.shape) == 2 else w[0])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def batches_of_either_rank(x):
    # the ranks the kernel takes named by `in`: (T, H) gets a batch axis, (B, T, H) is copied batch by batch
    assert len(x.shape) in (2, 3), "x must be (T, H) or (B, T, H)"
    if len(x.shape) == 2:
        x = x.reshape((1, x.shape[0], x.shape[1]))
    B, T, H = x.shape
    assert T <= 128 and H <= 512
    out = nl.ndarray((B, T, H), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(B):
        t = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[b])
        nisa.dma_copy(dst=out[b], src=t)
    return out


@nki.jit
def batches_of_either_rank_one_too_many(x):
    assert len(x.shape) in (2, 3), "x must be (T, H) or (B, T, H)"
    if len(x.shape) == 2:
        x = x.reshape((1, x.shape[0], x.shape[1]))
    else:
        x = x[0:x.shape[0] + 1]  # expect: NKI101 error
    B, T, H = x.shape
    assert T <= 128 and H <= 512
    out = nl.ndarray((B, T, H), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(B):
        t = nl.ndarray((T, H), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[b])
        nisa.dma_copy(dst=out[b], src=t)
    return out
