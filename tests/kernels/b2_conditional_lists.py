"""Lists of tiles built by loops the verifier turns into range loops: one that appends only on some iterations
(`if s < end: tiles.append(...)`), whose consumer's body is checked for every iteration that appended, under
that iteration's condition; a counting `while r < rows: ...; r += 128`; and a helper that appends an extra
output only when asked (`if with_stats: outs.append(stats)`), whose caller takes it out under the same
condition: after the branch the list is one of two lists, so `outs[2]`, `len(outs)` and the loops and
comprehensions over it are checked on each; the same for a list held as an object's attribute (an
allocator-style stack of tiles).  A window of a list at a loop-dependent start (`tiles[4*h:4*h + 4]`) holds
the items its positions select."""
import nki
import nki.isa as nisa
import nki.language as nl


def _row_tiles(rows, start, end):
    # the tiles of rows [start, end): as many candidate tiles as the whole tensor has, kept while they start
    # before the end
    tiles = []
    for i in range((rows + 127) // 128):
        s = start + i * 128
        if s < end:
            tiles.append((s, min(128, end - s)))
    return tiles


@nki.jit
def copy_a_row_range(x, start: int, end: int):
    rows, cols = x.shape
    assert 0 <= start <= end <= rows and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles(rows, start, end):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[s:s + n, :])
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


@nki.jit
def copy_a_row_range_one_row_past_each_tile(x, start: int, end: int):
    rows, cols = x.shape
    assert 0 <= start <= end <= rows and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles(rows, start, end):
        t = nl.ndarray((129, cols), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
        nisa.dma_copy(dst=t[0:n + 1, :], src=x[s:s + n + 1, :])  # expect: NKI201 warning, NKI101 warning
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


def _row_tiles_while(rows):
    tiles = []
    r = 0
    while r < rows:
        tiles.append((r, min(128, rows - r)))
        r += 128
    return tiles


@nki.jit
def copy_rows_tiled_by_a_while_loop(x):
    rows, cols = x.shape
    assert cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for s, n in _row_tiles_while(rows):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[s:s + n, :])
        nisa.dma_copy(dst=out[s:s + n, :], src=t[0:n, :])
    return out


@nki.jit
def copy_rows_tiled_by_a_while_loop_without_the_tail(x):
    rows, cols = x.shape
    assert cols <= 512 and rows % 128 == 64
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    r = 0
    while r < rows:
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[r:r + 128, :])  # expect: NKI101 warning, NKI101 warning
        nisa.dma_copy(dst=out[r:r + 128, :], src=t)  # expect: NKI101 warning, NKI101 warning
        r += 128
    return out


def _load_outputs(x, with_stats):
    # the row block, its first half, and (when asked) a narrow block of statistics
    outs = []
    full = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=full, src=x[0:128, 0:512])
    outs.append(full)
    outs.append(full[:, 0:256])
    if with_stats:
        stats = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=stats, src=x[0:128, 0:64])
        outs.append(stats)
    return outs


@nki.jit
def outputs_taken_under_the_same_condition(x, with_stats: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    outs = _load_outputs(x, with_stats)
    nisa.dma_copy(dst=out, src=outs[0])
    if with_stats:
        nisa.dma_copy(dst=out[:, 0:64], src=outs[2])
    if len(outs) == 3:
        nisa.dma_copy(dst=out[:, 64:128], src=outs[-1])
    for t in [o[:, 0:64] for o in outs]:
        nisa.dma_copy(dst=out[:, 128:192], src=t)
    return out


@nki.jit
def outputs_taken_without_asking(x, with_stats: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    outs = _load_outputs(x, with_stats)
    nisa.dma_copy(dst=out[:, 0:64], src=outs[2])  # expect: NKI101 warning
    return out


@nki.jit
def every_output_read_as_wide_as_the_first(x, with_stats: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    outs = _load_outputs(x, with_stats)
    for i, o in enumerate(outs):
        nisa.dma_copy(dst=out[:, 0:128], src=o[:, 0:128])  # expect: NKI101 warning
    return out


@nki.jit
def two_optional_outputs(x, with_half: bool, with_quarter: bool):
    # appended under two conditions: four lists, each checked where it is used
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    full = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=full, src=x)
    outs = [full]
    if with_half:
        outs.append(full[:, 0:256])
    if with_quarter:
        outs.append(full[:, 0:128])
    if with_half and with_quarter:
        nisa.dma_copy(dst=out[:, 0:128], src=outs[2])
    if with_quarter and not with_half:
        nisa.dma_copy(dst=out[:, 0:128], src=outs[1])
    nisa.dma_copy(dst=out[:, 0:64], src=outs[2][:, 0:64])  # expect: NKI101 warning, NKI101 warning
    return out


class _TileStack(nl.NKIObject):
    # an allocator-style helper: the tiles it handed out, in order, as an attribute
    def __init__(self):
        self.tiles = []

    def push(self, shape, dtype):
        t = nl.ndarray(shape, dtype=dtype, buffer=nl.sbuf)
        self.tiles.append(t)
        return t

    def depth(self):
        return len(self.tiles)


@nki.jit
def scale_pushed_only_when_scaled(x, scaled: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    st = _TileStack()
    rows = st.push((128, 512), x.dtype)
    nisa.dma_copy(dst=rows, src=x)
    if scaled:
        scale = st.push((128, 1), x.dtype)
        nisa.dma_copy(dst=scale, src=x[:, 0:1])
    half = st.push((128, 256), x.dtype)
    nisa.dma_copy(dst=half, src=x[:, 0:256])
    nisa.dma_copy(dst=out[:, 0:256], src=st.tiles[-1])
    if st.depth() == 3:
        nisa.dma_copy(dst=out[:, 0:1], src=st.tiles[1])
    return out


@nki.jit
def second_tile_taken_as_the_half(x, scaled: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    st = _TileStack()
    rows = st.push((128, 512), x.dtype)
    nisa.dma_copy(dst=rows, src=x)
    if scaled:
        scale = st.push((128, 1), x.dtype)
        nisa.dma_copy(dst=scale, src=x[:, 0:1])
    half = st.push((128, 256), x.dtype)
    nisa.dma_copy(dst=half, src=x[:, 0:256])
    nisa.dma_copy(dst=out[:, 0:256], src=st.tiles[1][:, 0:256])  # expect: NKI101 warning
    return out


@nki.jit
def sum_two_windows_of_tiles(x):
    # `tiles[4*half:4*half + 4]` in a loop over half: a window of four tiles, each the one its position selects
    assert x.shape == (128, 1024)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    for t in range(8):
        buf = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=buf, src=x[0:128, t * 128:(t + 1) * 128])
        tiles.append(buf)
    acc = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    for half in range(2):
        window = tiles[half * 4:half * 4 + 4]
        for j in range(4):
            dst = acc[0:128, j * 128:(j + 1) * 128]
            if half == 0:
                nisa.tensor_copy(dst=dst, src=window[j])
            else:
                nisa.tensor_tensor(dst=dst, data1=dst, data2=window[j], op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def sum_two_windows_of_tiles_too_wide(x):
    assert x.shape == (128, 1024)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    for t in range(8):
        buf = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=buf, src=x[0:128, t * 128:(t + 1) * 128])
        tiles.append(buf)
    acc = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf)
    for half in range(2):
        window = tiles[half * 4:half * 4 + 4]
        for j in range(4):
            nisa.tensor_copy(dst=acc[0:128, j * 256:(j + 1) * 256], src=window[j])  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=acc[0:128, 0:512])
    return out


@nki.jit
def tiles_appended_under_a_flag(x, scale: bool):
    # a symbolic loop appends to `scaled` only when the flag is set, the same in every iteration: after it the
    # list is one of two lists, a tile per iteration or none, and the uses under the same flag index the first
    n, m = x.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    scaled = []
    for _ in range((n + 127) // 128):
        tiles.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
        if scale:
            scaled.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
    for i in range((n + 127) // 128):
        size = min(128, n - i * 128)
        nisa.dma_copy(dst=tiles[i][:size, :], src=x[i * 128:i * 128 + size, :])
        if scale:
            nisa.tensor_scalar(dst=scaled[i][:size, :], data=tiles[i][:size, :], op0=nl.multiply, operand0=2.0)
            nisa.dma_copy(dst=out[i * 128:i * 128 + size, :], src=scaled[i][:size, :])
        else:
            nisa.dma_copy(dst=out[i * 128:i * 128 + size, :], src=tiles[i][:size, :])
    return out


@nki.jit
def tiles_appended_under_a_flag_used_without_it(x, scale: bool):
    n, m = x.shape
    assert m <= 512
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    scaled = []
    for _ in range((n + 127) // 128):
        tiles.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
        if scale:
            scaled.append(nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf))
    for i in range((n + 127) // 128):
        size = min(128, n - i * 128)
        nisa.dma_copy(dst=tiles[i][:size, :], src=x[i * 128:i * 128 + size, :])
        nisa.tensor_copy(dst=scaled[i][:size, :], src=tiles[i][:size, :])  # expect: NKI101 warning
    return out
