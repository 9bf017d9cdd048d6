"""Hazards detected while executing: conflicting accesses between the iterations of an affine_range loop
(NKI401/NKI403) or between program instances (NKI402), and on-chip capacity by liveness (NKI204).

An `AccessLog` holds every access of one scope (one affine_range loop instance, or one phase of an SPMD
launch between barriers) as the region of the storage it touched, tagged with *who* made it (the iteration
or the program instance).  A new access conflicts with a logged one of another `who` when their regions
share an element and one of them writes; two accumulations (matmul into PSUM, `t[...] += v`) commute and
never conflict.  Regions are rectangles of the storage's (rows, cols) layout, checked in bulk with numpy;
other shapes are element sets, compared exactly.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

import numpy as np

from .faults import Site
from .tensor import Region, regions_overlap

# entry columns
WHO, SEQ, ACC, WRITE, R0, R1, C0, C1, SET = range(9)


@dataclass(frozen=True)
class Access:
    who: int
    seq: int  # program order of the site (first execution order)
    site: Site
    acc: bool
    write: bool
    region: Region


@dataclass(frozen=True)
class Conflict:
    other: Access
    element: int  # a flat element index both touch


class _Entries:
    """The accesses of one storage in one scope, in a growable numpy table."""

    def __init__(self) -> None:
        self.table = np.zeros((8, 9), dtype=np.int64)
        self.n = 0
        self.n_writes = 0
        self.accesses: list = []

    def add(self, a: Access) -> None:
        if self.n == len(self.table):
            self.table = np.concatenate([self.table, np.zeros_like(self.table)])
        r = a.region
        self.table[self.n] = (a.who, a.seq, a.acc, a.write, r.r0, r.r1, r.c0, r.c1, 0 if r.is_rect else 1)
        self.accesses.append(a)
        self.n += 1
        self.n_writes += a.write


class AccessLog:
    def __init__(self) -> None:
        self._by_storage: dict = {}

    def check(self, sid: int, cols: int, a: Access) -> list:
        """Every logged access of another `who` that conflicts with `a`, one per site (then `a` is logged)."""
        ent = self._by_storage.get(sid)
        if ent is None:
            ent = self._by_storage[sid] = _Entries()
        found: list = []
        if ent.n and (a.write or ent.n_writes):
            found = self._find(ent, cols, a)
        ent.add(a)
        return found

    @staticmethod
    def _find(ent: _Entries, cols: int, a: Access) -> list:
        t = ent.table[:ent.n]
        r = a.region
        hit = (t[:, WHO] != a.who) & (t[:, R0] < r.r1) & (r.r0 < t[:, R1]) & (t[:, C0] < r.c1) & (r.c0 < t[:, C1])
        if not a.write:
            hit &= t[:, WRITE] == 1
        if a.acc:
            hit &= t[:, ACC] == 0
        out: list = []
        sites: set = set()
        for i in np.flatnonzero(hit):
            other = ent.accesses[i]
            key = (other.site.path, other.site.line, other.write)
            if key in sites:
                continue
            both = regions_overlap(other.region, r, cols)
            if both is not None:
                sites.add(key)
                out.append(Conflict(other, int(both[0])))
        return out


def primary_site(a: Access, b: Access) -> Site:
    """Where the verifier reports a conflicting pair: at the write, or at the earlier of two writes in
    program order."""
    if a.write and not b.write:
        return a.site
    if b.write and not a.write:
        return b.site
    return a.site if a.seq <= b.seq else b.site


# ----------------------------------------------------------------------------- capacity by liveness


@dataclass(frozen=True)
class Live:
    """One on-chip allocation's lifetime: from its allocation to its last use (in execution order)."""

    start: int
    end: int
    amount: int  # bytes per partition (SBUF) or banks (PSUM)
    site: Site
    name: str


def overflows(lives: list, limit: int) -> list:
    """(allocation, total live, names) for every allocation at which the live amount exceeds `limit`.

    As the verifier does, the check is made at each allocation, counting every allocation made at or
    before it whose last use is at or after it; the fault is reported at that allocation."""
    out = []
    active: list = []  # heap of (end, index)
    total = 0
    order = sorted(range(len(lives)), key=lambda i: lives[i].start)
    for i in order:
        t = lives[i]
        while active and active[0][0] < t.start:
            _, j = heapq.heappop(active)
            total -= lives[j].amount
        heapq.heappush(active, (t.end, i))
        total += t.amount
        if total > limit:
            names = sorted({lives[j].name for _, j in active})
            out.append((t, total, names))
    return out


def first_unwritten(ok: Any, shape: tuple) -> tuple:
    """The index of the first element a read found unwritten."""
    flat = int(np.flatnonzero(~np.asarray(ok).ravel())[0])
    return tuple(int(x) for x in np.unravel_index(flat, shape)) if shape else ()
