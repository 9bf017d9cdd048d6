"""A sequential loop of symbolic trip count that carries its accumulators as a Python list rebound each iteration
(`acc = new`): the list the iteration builds has the same tiles, shape for shape, so the loop is followed once
with the list read as the pre-loop tiles (was: the carried list became unknown, NKI902)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sum_row_blocks(x):
    assert x.shape[0] % 128 == 0 and x.shape[0] >= 128 and x.shape[1] == 512
    acc = []
    for h in range(2):
        t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=t, value=0.0)
        acc.append(t)
    for c in range(x.shape[0] // 128):
        new = []
        for h in range(2):
            a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=x[c * 128:(c + 1) * 128, h * 256:(h + 1) * 256])
            s = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=s, data1=acc[h], data2=a, op=nl.add)
            new.append(s)
        acc = new
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in range(2):
        nisa.dma_copy(dst=out[0:128, h * 256:(h + 1) * 256], src=acc[h])
    return out


@nki.jit
def sum_row_blocks_reads_past_the_tile(x):
    assert x.shape[0] % 128 == 0 and x.shape[0] >= 128 and x.shape[1] == 512
    acc = []
    for h in range(2):
        t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=t, value=0.0)
        acc.append(t)
    for c in range(x.shape[0] // 128):
        new = []
        for h in range(2):
            a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=x[c * 128:(c + 1) * 128, h * 256:(h + 1) * 256])
            s = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=s, data1=acc[h][0:128, 1:257], data2=a, op=nl.add)  # expect: NKI101 error
            new.append(s)
        acc = new
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in range(2):
        nisa.dma_copy(dst=out[0:128, h * 256:(h + 1) * 256], src=acc[h])
    return out


@nki.jit
def tiles_of_row_blocks(x):
    # a list filled by two nested loops of symbolic trip counts: one sequence of blocks * halves tiles, indexed
    # later as tiles[n_h * b + h] (was: NKI902, appending to a list whose length is symbolic)
    assert x.shape[0] % 128 == 0 and x.shape[1] % 256 == 0
    n_h = x.shape[1] // 256
    tiles = []
    for b in range(x.shape[0] // 128):
        for h in range(n_h):
            t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[b * 128:(b + 1) * 128, h * 256:(h + 1) * 256])
            tiles.append(t)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for b in range(x.shape[0] // 128):
        for h in range(n_h):
            nisa.dma_copy(dst=out[b * 128:(b + 1) * 128, h * 256:(h + 1) * 256], src=tiles[n_h * b + h])
    return out


@nki.jit
def tiles_of_row_blocks_one_too_far(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] % 256 == 0
    n_h = x.shape[1] // 256
    tiles = []
    for b in range(x.shape[0] // 128):
        for h in range(n_h):
            t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[b * 128:(b + 1) * 128, h * 256:(h + 1) * 256])
            tiles.append(t)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for b in range(x.shape[0] // 128):
        for h in range(n_h):
            nisa.dma_copy(dst=out[b * 128:(b + 1) * 128, h * 256:(h + 1) * 256],
                          src=tiles[n_h * b + h + 1])  # expect: NKI101 error
    return out


def tile_grid(rows, cols, tile_shape, dtype, fill=None):
    """rows x cols tiles as a list of lists: a flat list filled in a loop of symbolic trip count, each new tile
    zeroed through `grid[-1]` (the value this iteration appended, not one carried in), then cut into rows by
    slicing (was: NKI902, the read of the list inside the loop made it carried state)."""
    flat = []
    for _ in range(rows * cols):
        flat.append(nl.ndarray(tile_shape, dtype=dtype, buffer=nl.sbuf))
        if fill is not None:
            nisa.memset(dst=flat[-1], value=fill)
    grid = []
    for r in range(rows):
        grid.append(flat[r * cols:(r + 1) * cols])
    return grid


@nki.jit
def copy_through_a_tile_grid(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] % 256 == 0
    rows, cols = x.shape[0] // 128, x.shape[1] // 256
    grid = tile_grid(rows, cols, (128, 256), x.dtype, fill=0.0)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in range(rows):
        for c in range(cols):
            nisa.dma_copy(dst=grid[r][c], src=x[r * 128:(r + 1) * 128, c * 256:(c + 1) * 256])
            nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, c * 256:(c + 1) * 256], src=grid[r][c])
    return out


@nki.jit
def copy_through_a_tile_grid_too_wide(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] % 256 == 0
    rows, cols = x.shape[0] // 128, x.shape[1] // 256
    grid = tile_grid(rows, cols, (128, 256), x.dtype, fill=0.0)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in range(rows):
        for c in range(cols):
            nisa.dma_copy(dst=grid[r][c][0:128, 1:257],  # expect: NKI101 error
                          src=x[r * 128:(r + 1) * 128, c * 256:(c + 1) * 256])
    return out
