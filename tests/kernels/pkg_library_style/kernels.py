"""Kernels of the library-style package (good and bad twins)."""
import nki
import nki.isa as nisa
import nki.language as nl

from . import common
from .common import P_MAX, TileConfig, TiledRange, alloc_like, kernel_assert


def _scale_rows(x, out, rows, cfg):
    for i in nl.affine_range(rows.count):
        tile = rows.at(i)
        t = alloc_like((cfg.tile_p, x.shape[1]), x.dtype)
        nisa.dma_copy(dst=t[0:tile.size, :], src=x[tile.start:tile.start + tile.size, :])
        if cfg.activation == common.Activation.EXP:
            nisa.activation(dst=t[0:tile.size, :], op=nl.exp, data=t[0:tile.size, :])
        nisa.dma_copy(dst=out[tile.start:tile.start + tile.size, :], src=t[0:tile.size, :])


@nki.jit
def scale_rows(x, cfg=None):
    # A config given or defaulted (the `cfg or default` idiom); rows tiled with a short last tile.
    cfg = cfg or TileConfig(activation=common.Activation.EXP)
    R, F = x.shape
    kernel_assert(F <= cfg.tile_f, "at most one free tile per row block")
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    _scale_rows(x, out, TiledRange(R, cfg.tile_p), cfg)
    return out


@nki.jit
def scale_rows_unchecked(x):
    # The same without the precondition on F: a row wider than the tile config allows is not checked.
    cfg = TileConfig()
    R, F = x.shape
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = TiledRange(R, cfg.tile_p)
    for i in nl.affine_range(rows.count):
        tile = rows.at(i)
        t = alloc_like((cfg.tile_p, cfg.tile_f), x.dtype)
        nisa.dma_copy(dst=t[0:tile.size, 0:F], src=x[tile.start:tile.start + tile.size, :])  # expect: NKI101 warning
        nisa.dma_copy(dst=out[tile.start:tile.start + tile.size, :], src=t[0:tile.size, 0:F])  # expect: NKI101 warning
    return out


@nki.jit
def scale_rows_full_tiles(x):
    # Every tile taken as full: the last one reads past the end of x when R is not a multiple of 128.
    cfg = TileConfig()
    R, F = x.shape
    kernel_assert(F <= cfg.tile_f, "one free tile")
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = TiledRange(R, cfg.tile_p)
    for i in nl.affine_range(rows.count):
        tile = rows.at(i)
        t = alloc_like((cfg.tile_p, F), x.dtype)
        nisa.dma_copy(dst=t, src=x[tile.start:tile.start + cfg.tile_p, :])  # expect: NKI101 warning
        nisa.dma_copy(dst=out[tile.start:tile.start + tile.size, :], src=t[0:tile.size, :])
    return out


@nki.jit
def column_blocks(x):
    # A tile width found by a search loop divides F, so the column blocks tile F exactly.
    R, F = x.shape
    kernel_assert(R == P_MAX, "one partition tile")
    kernel_assert(F % 2 == 0 and F <= 8192, "even width")
    w = common.largest_divisor_tile(F, 512)
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for j, name in enumerate(["lo", "hi"]):
        half = F // 2
        t = alloc_like((R, half), x.dtype, name=name)
        nisa.dma_copy(dst=t, src=x[:, j * half:(j + 1) * half])
        nisa.dma_copy(dst=out[:, j * half:(j + 1) * half], src=t)
    for c in nl.affine_range(F // w):
        t = alloc_like((R, w), x.dtype)
        nisa.dma_copy(dst=t, src=x[:, c * w:(c + 1) * w])
        nisa.activation(dst=t, op=nl.exp, data=t)
        nisa.dma_copy(dst=out[:, c * w:(c + 1) * w], src=t)
    return out


@nki.jit
def tile_too_tall(x):
    # A config whose partition tile is doubled past the 128 partitions.
    cfg = TileConfig(tile_p=2 * P_MAX)
    R, F = x.shape
    kernel_assert(R % cfg.tile_p == 0 and F <= cfg.tile_f, "whole tiles")
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // cfg.tile_p):
        t = alloc_like((cfg.tile_p, F), x.dtype)  # the allocation is reported in the helper, with this call
        nisa.dma_copy(dst=t, src=x[i * cfg.tile_p:(i + 1) * cfg.tile_p, :])
        nisa.dma_copy(dst=out[i * cfg.tile_p:(i + 1) * cfg.tile_p, :], src=t)
    return out


def _load_block(x, dst, block_idx, rows):
    nisa.dma_copy(dst=dst, src=x[block_idx * rows:(block_idx + 1) * rows, :])  # expect: NKI101 error


@nki.jit
def add_next_block(x, block_rows=None):
    # Each block plus the one after it (the last block alone). `nxt` is an int or None; the helper that loads
    # it is reached only where it is an int. block_rows=None is a placeholder the caller always replaces (it
    # is used as an int through the alias B).
    B = block_rows
    R, F = x.shape
    kernel_assert(B <= P_MAX and R % B == 0 and F <= 512, "blocks of at most 128 rows that tile x")
    n = R // B
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n):
        t = alloc_like((B, F), x.dtype)
        nisa.dma_copy(dst=t, src=x[i * B:(i + 1) * B, :])
        nxt = i + 1 if i != n - 1 else None
        if nxt is not None:
            u = alloc_like((B, F), x.dtype)
            _load_block(x, u, nxt, B)
            nisa.tensor_tensor(dst=t, data1=t, data2=u, op=nl.add)
        nisa.dma_copy(dst=out[i * B:(i + 1) * B, :], src=t)
    return out


@nki.jit
def add_next_block_past_the_end(x, block_rows=None):
    # The same with the last block's test off by one: the last block adds a block after the end of x.
    B = block_rows
    R, F = x.shape
    kernel_assert(B <= P_MAX and R % B == 0 and F <= 512, "blocks of at most 128 rows that tile x")
    n = R // B
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n):
        t = alloc_like((B, F), x.dtype)
        nisa.dma_copy(dst=t, src=x[i * B:(i + 1) * B, :])
        nxt = i + 1 if i != n else None
        if nxt is not None:
            u = alloc_like((B, F), x.dtype)
            _load_block(x, u, nxt, B)
            nisa.tensor_tensor(dst=t, data1=t, data2=u, op=nl.add)
        nisa.dma_copy(dst=out[i * B:(i + 1) * B, :], src=t)
    return out
