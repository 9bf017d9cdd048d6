"""The device's memories: SBUF and PSUM of one program as byte arrays with the target's real geometry
(partitions x bytes per partition; PSUM = 8 banks of 2 KiB per partition), each with a shadow byte array
that marks written bytes.  HBM tensors get their own byte buffers (HBM is large and linear).

Automatic allocation places a tile at the first free byte range (PSUM: on bank boundaries, whole banks) and
frees it when the kernel drops its last reference.  A manual placement (`address=`) is put exactly where the
kernel says, so two overlapping placements really alias, as on hardware; each byte a placed tile writes is
tagged with that tile, so that a read which finds another tile's tag has lost its value (NKI302 by value:
two placements may share bytes as long as neither overwrites a value the other still reads).  When automatic
allocation finds no room (the capacity rule NKI204 is judged separately, by liveness, see `device.hazards`),
the tile gets private backing memory instead: the run goes on.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import numpy as np

from compiler.spec.targets import Target


@dataclass(frozen=True)
class Placement:
    partition: int
    byte: int
    partitions: int
    nbytes: int
    manual: bool


class Region2D:
    """A byte array rows x bytes_per_row with its shadow; typed (rows, cols) views of any rectangle."""

    def __init__(self, rows: int, row_bytes: int) -> None:
        # calloc-backed: pages are only materialised when a tile touches them
        self.data = np.zeros((rows, row_bytes), dtype=np.uint8)
        self.shadow = np.zeros((rows, row_bytes), dtype=np.uint8)

    def typed(self, p0: int, np_: int, b0: int, nbytes: int, dtype: np.dtype, shadow_dtype: np.dtype) -> tuple:
        data = self.data[p0:p0 + np_, b0:b0 + nbytes].view(dtype)
        shadow = self.shadow[p0:p0 + np_, b0:b0 + nbytes].view(shadow_dtype)
        return data, shadow


class OnChipMemory:
    """SBUF or PSUM of one program: a byte array and a first-fit allocator over byte ranges.

    Automatic tiles take all partitions of their byte range (the allocator ignores partition offsets);
    manual placements are recorded too, so that automatic tiles avoid them, but they may overlap each other.
    """

    def __init__(self, buffer: str, target: Target) -> None:
        self.buffer = buffer
        self.pmax = target.pmax
        self.capacity = target.sbuf_bytes_per_partition if buffer == "sbuf" else target.psum_bytes_per_partition
        self.align = target.psum_bank_bytes if buffer == "psum" else 4
        self.mem = Region2D(self.pmax, self.capacity)
        self._used: list = []  # sorted (start, end, token) byte ranges in use
        self._token = 0
        self.high_water = 0  # bytes per partition ever handed out (what a reset must clear)
        self.owners: np.ndarray | None = None  # per byte: the tag of the placed tile that wrote it last (0: none)
        self.tagged: dict = {}  # tag -> the placed storage it stands for

    def reset(self) -> None:
        """Ready for another program: nothing allocated, nothing written (data stays stale, as on hardware)."""
        self.mem.shadow[:, :self.high_water] = 0
        if self.owners is not None:
            self.owners[:, :self.high_water] = 0
        self.tagged = {}
        self._used = []
        self.high_water = 0

    def _insert(self, start: int, end: int) -> int:
        self.high_water = max(self.high_water, min(end, self.capacity))
        self._token += 1
        bisect.insort(self._used, (start, end, self._token))
        return self._token

    def auto(self, partitions: int, nbytes: int) -> tuple | None:
        """(placement, token) for an automatically allocated tile, or None when there is no room."""
        size = max(self.align, -(-nbytes // self.align) * self.align)
        if partitions > self.pmax or size > self.capacity:
            return None
        pos = 0
        for s, e, _ in self._used:
            if s - pos >= size:
                break
            pos = max(pos, -(-e // self.align) * self.align)
        if pos + size > self.capacity:
            return None
        return Placement(0, pos, partitions, nbytes, False), self._insert(pos, pos + size)

    def place(self, partition: int, byte: int, partitions: int, nbytes: int) -> tuple:
        """A manual placement: exactly there, overlapping whatever is there (the caller checked the range)."""
        return Placement(partition, byte, partitions, nbytes, True), self._insert(byte, byte + max(nbytes, 1))

    def tags(self, pl: Placement, itemsize: int, storage: Any) -> tuple:
        """(per-element view of the owner tags, the element value meaning "written by this storage") for a
        manual placement; the tag is 16 bits per byte, repeated over an element's bytes."""
        if self.owners is None:
            self.owners = np.zeros((self.pmax, self.capacity), dtype=np.uint16)  # calloc: pages on first touch
        tag = storage.sid % 65535 + 1
        self.tagged[tag] = storage
        view = self.owners[pl.partition:pl.partition + pl.partitions, pl.byte:pl.byte + pl.nbytes]
        return element_tags(view, itemsize, tag)

    def free(self, token: int) -> None:
        for i, (_, _, t) in enumerate(self._used):
            if t == token:
                del self._used[i]
                return

    def fits(self, partition: int, byte: int, partitions: int, nbytes: int) -> bool:
        return partition >= 0 and byte >= 0 and partition + partitions <= self.pmax and byte + nbytes <= self.capacity


def element_tags(owner_bytes: np.ndarray, itemsize: int, tag: int) -> tuple:
    """The owner bytes (uint16 each) seen one element of `itemsize` bytes at a time, and `tag` in every byte."""
    dtype = {1: np.uint16, 2: np.uint32, 4: np.uint64}[itemsize]
    whole = 0
    for i in range(itemsize):
        whole |= tag << (16 * i)
    return owner_bytes.view(dtype), dtype(whole)


class ArenaPool:
    """On-chip memories kept between programs and runs of one `Device`: allocating and first touching 28 MiB
    of SBUF (and its shadow) per program would dominate short runs."""

    def __init__(self) -> None:
        self._free: dict = {}

    def take(self, buffer: str, target: Target) -> OnChipMemory:
        free = self._free.get((buffer, target.name))
        if free:
            return free.pop()
        return OnChipMemory(buffer, target)

    def give(self, mem: OnChipMemory, target: Target) -> None:
        mem.reset()
        self._free.setdefault((mem.buffer, target.name), []).append(mem)
