"""Beta-2 kernels sharded over the cores by columns of a symbolic width: each core owns width // n columns
of every row and walks them in 512-wide tiles, the last one clipped.  The writes of two cores are apart
(a mixed-radix address: row, core, tile, column) without any shape being known; the twins that get the
per-core offset wrong race (NKI402)."""
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
