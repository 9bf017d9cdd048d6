"""A configuration validated up front (an assertion helper that raises, a chain of `if/elif` choosing a channel
count), then sizes derived from it by floor divisions, and blocks of tiles laid out one after another along
the free axis of one buffer, each copied to `offset:offset + block` with `offset` a mixed-radix number of the
channel, row block and tile indices.

Three things the verifier needs here: the end of the last block is the end of the buffer (the sum of the
digits stays below the top place value times its width less the lowest place value, the block, not less one);
a divisor the kernel divides by is not zero (`tile_m` below: a Python division by zero would raise while
tracing), a bound of the term itself that interval reasoning uses; and the path the facts are stated under
leaves out the conditions that earlier assertions and branches settle (past `require(group % 2 == 0)` the
path holds `group % 2 == 0`, and each later fact used to be "group % 2 != 0 or ..."). Before, each check of
the copies was undecided (NKI901)."""
import nki
import nki.isa as nisa
import nki.language as nl


def require(cond, message):
    if not cond:
        raise ValueError(message)


def channels_for(group, wide):
    if wide:
        if group == 4:
            return 2
        elif group == 8:
            return 2
        elif group == 16:
            return 4
        else:
            return 1
    return 1


def layout(rows, cols, group, wide):
    require(cols <= 128, "the contraction must fit the partitions")
    require(group >= 2 and group % 2 == 0, "the group must be even and at least 2")
    chans = channels_for(group, wide)
    require(rows % (group * chans) == 0, "the rows must split evenly")
    local = rows // group // chans
    tile_m = min(local, 128)
    tiles = (local + tile_m - 1) // tile_m
    block = tile_m * tiles
    n_blocks = (local + block - 1) // block
    return chans, tile_m, tiles, block, n_blocks


def fill_blocks(flat, chans, n_blocks, tiles, tile_m, cols, dtype):
    for c in range(chans):
        for b in range(n_blocks):
            for t in range(tiles):
                offset = ((c * n_blocks + b) * tiles + t) * tile_m
                part = nl.ndarray((cols, tile_m), dtype=dtype, buffer=nl.sbuf)
                nisa.memset(part, 0)
                nisa.tensor_copy(dst=flat[:, offset:offset + tile_m], src=part)


@nki.jit
def blocks_laid_out_in_one_buffer(x, group, wide):
    cols, rows = x.shape
    chans, tile_m, tiles, block, n_blocks = layout(rows, cols, group, wide)
    require(chans * n_blocks * block <= 8192, "the buffer must fit a partition")
    flat = nl.ndarray((cols, chans * n_blocks * block), dtype=x.dtype, buffer=nl.sbuf)
    fill_blocks(flat, chans, n_blocks, tiles, tile_m, cols, x.dtype)
    # one block as it is laid out: its width is a tile count times the tile, never negative
    for c in range(chans):
        for b in range(n_blocks):
            start = (c * n_blocks + b) * block
            whole = nl.ndarray((cols, block), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=whole, src=flat[:, start:start + block])
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[:, 0:tile_m], src=flat[:, 0:tile_m])
    return out


@nki.jit
def blocks_laid_out_one_channel_short(x, group, wide):
    cols, rows = x.shape
    chans, tile_m, tiles, block, n_blocks = layout(rows, cols, group, wide)
    require(chans * n_blocks * block <= 8192, "the buffer must fit a partition")
    flat = nl.ndarray((cols, (chans - 1) * n_blocks * block + tile_m), dtype=x.dtype, buffer=nl.sbuf)
    for c in range(chans):
        for b in range(n_blocks):
            for t in range(tiles):
                offset = ((c * n_blocks + b) * tiles + t) * tile_m
                part = nl.ndarray((cols, tile_m), dtype=x.dtype, buffer=nl.sbuf)
                nisa.memset(part, 0)
                nisa.tensor_copy(dst=flat[:, offset:offset + tile_m], src=part)  # expect: NKI101 warning
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[:, 0:tile_m], src=flat[:, 0:tile_m])
    return out
