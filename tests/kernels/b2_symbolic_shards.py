"""Beta-2 kernels sharded over the cores by columns of a symbolic width: each core owns width // n columns
of every row and walks them in 512-wide tiles, the last one clipped.  The writes of two cores are apart
(a mixed-radix address: row, core, tile, column) without any shape being known; the twins that get the
per-core offset wrong race (NKI402).  And a size list that a helper returns either as given or rebuilt
(whether a symbolic size is -1 stays open), iterated item by item."""
import nki
import nki.isa as nisa
import nki.language as nl

TILE = 512


def _shard_info():
    if nl.program_ndim() != 0:
        return nl.num_programs(axes=0), nl.program_id(axis=0)
    return 1, 0


@nki.jit
def column_shards(a):
    rows, width = a.shape
    n_cores, core = _shard_info()
    assert width % n_cores == 0
    per_core = width // n_cores
    out = nl.ndarray((rows, width), dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range((rows + 127) // 128):
        n_rows = min(128, rows - r * 128)
        for j in nl.affine_range((per_core + TILE - 1) // TILE):
            n_cols = min(TILE, per_core - j * TILE)
            offset = r * 128 * width + core * per_core + j * TILE
            t = nl.ndarray((128, TILE), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t[0:n_rows, 0:n_cols],
                          src=a.ap(pattern=[[width, n_rows], [1, n_cols]], offset=offset))
            nisa.dma_copy(dst=out.ap(pattern=[[width, n_rows], [1, n_cols]], offset=offset),
                          src=t[0:n_rows, 0:n_cols])
    return out


@nki.jit
def column_shards_half_offset(a):
    # the core offset is half a shard: core 1 writes over the second half of core 0's columns
    rows, width = a.shape
    n_cores, core = _shard_info()
    assert width % n_cores == 0
    per_core = width // n_cores
    out = nl.ndarray((rows, width), dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range((rows + 127) // 128):
        n_rows = min(128, rows - r * 128)
        for j in nl.affine_range((per_core + TILE - 1) // TILE):
            n_cols = min(TILE, per_core - j * TILE)
            offset = r * 128 * width + core * (per_core // 2) + j * TILE
            t = nl.ndarray((128, TILE), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t[0:n_rows, 0:n_cols],
                          src=a.ap(pattern=[[width, n_rows], [1, n_cols]], offset=offset))
            nisa.dma_copy(dst=out.ap(pattern=[[width, n_rows], [1, n_cols]], offset=offset),  # expect: NKI402 warning
                          src=t[0:n_rows, 0:n_cols])
    return out


@nki.jit
def row_block_shards(a):
    # each core owns a block of rows: row = core * rows_per_core + 128 * tile + partition
    rows, width = a.shape
    n_cores, core = _shard_info()
    assert rows % (128 * n_cores) == 0
    assert width <= 512
    per_core = rows // n_cores
    out = nl.ndarray((rows, width), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(per_core // 128):
        start = core * per_core + i * 128
        t = nl.ndarray((128, width), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[start:start + 128, :])
        nisa.dma_copy(dst=out[start:start + 128, :], src=t)
    return out


def _infer_minus_one(dims, total):
    # the view helpers' reshape: a -1 among the sizes is what the others leave of `total`; the sizes come
    # back as given when there is none (whether a symbolic size is -1 stays open: both lists are possible)
    missing = None
    known = 1
    for i in range(len(dims)):
        if dims[i] == -1:
            missing = i
        else:
            known *= dims[i]
    if missing is None:
        return dims
    out = []
    for i in range(len(dims)):
        out.append(total // known if i == missing else dims[i])
    return out


@nki.jit
def columns_of_a_reshaped_row(x, blocks: int):
    P, F = x.shape
    assert P == 128 and F == 1024
    dims = _infer_minus_one([blocks, 256], F)
    width = 0
    for d in dims:
        width = d  # the last size: 256 either way
    t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, F - width:F])
    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def columns_of_a_reshaped_row_one_past(x, blocks: int):
    P, F = x.shape
    assert P == 128 and F == 1024
    dims = _infer_minus_one([blocks, 256], F)
    width = 0
    for d in dims:
        width = d
    t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, F - width + 1:F + 1])  # expect: NKI101 error
    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out
