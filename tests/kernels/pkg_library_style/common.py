"""Helpers shared by the package's kernels: analysed in the calling kernel's context."""
from dataclasses import dataclass
from enum import Enum

import nki.language as nl

P_MAX = 128
F_MAX = 512
BANK_F32 = 2048 // 4  # fp32 elements in one PSUM bank


def kernel_assert(condition, message):
    """The library idiom: a failed precondition is an error with a message."""
    if not condition:
        raise AssertionError(message)


class Activation(Enum):
    NONE = 0
    EXP = 1


@dataclass
class TileConfig(nl.NKIObject):
    tile_p: int = P_MAX
    tile_f: int = F_MAX
    activation: Activation = Activation.NONE

    def tiles_of(self, size, tile):
        return (size + tile - 1) // tile


@dataclass
class Tile(nl.NKIObject):
    index: int
    start: int
    size: int


class TiledRange(nl.NKIObject):
    """Tiles of `tile` elements over `size`; the last one may be short."""

    def __init__(self, size, tile):
        self.size = size
        self.tile = tile

    @property
    def count(self):
        return (self.size + self.tile - 1) // self.tile

    def at(self, i):
        start = i * self.tile
        return Tile(i, start, min(self.tile, self.size - start))


def largest_divisor_tile(n, limit):
    """The largest power-of-two tile not above `limit` that divides n (a search loop)."""
    t = limit
    while t > 1 and n % t != 0:
        t = t // 2
    return t


def alloc_like(shape, dtype, *, buffer=nl.sbuf, **kwargs):
    return nl.ndarray(shape, dtype=dtype, buffer=buffer, **kwargs)  # expect: NKI201 error
