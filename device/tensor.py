"""Tensors on the device: a `Storage` (one allocation, typed over a byte array) and `Tensor` views of it.

Every storage is laid out as a 2-D typed array (rows, cols): on-chip tensors have one row per partition
(Beta-1 block dimensions multiply the rows), HBM tensors one row per index of their first axis.  A view is
NKI's `offset + sum(stride * index)` over the storage's flat row-major elements.  Views that decompose
into row and column strides become numpy `as_strided` views (no copy); others (index grids, patterns that
wrap a row) are gathers.  The same geometry addresses the shadow array (written bytes), so every access
can be checked for reads of unwritten memory at numpy speed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from compiler.spec import dtypes as D

from . import dtypes as DT
from .faults import Site

HBM_BUFFERS = frozenset({"hbm", "shared_hbm", "private_hbm"})
ON_CHIP = frozenset({"sbuf", "psum"})
_SHADOW = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def layout(shape: tuple, buffer: str, par_dim: int) -> tuple:
    """(rows, cols) of a storage."""
    if not shape:
        return 1, 1
    if buffer in ON_CHIP:
        return math.prod(shape[:par_dim + 1]), math.prod(shape[par_dim + 1:])
    if len(shape) == 1:
        return 1, shape[0]
    return shape[0], math.prod(shape[1:])


def shadow_dtype(itemsize: int) -> np.dtype:
    return _SHADOW[itemsize]


class Life:
    """What liveness checks need to know about an allocation; it outlives the storage (which the allocator
    frees as soon as the kernel drops it)."""

    __slots__ = ("alloc_time", "first_use", "last_use", "uses_as_src", "other_uses", "placement", "buffer", "name",
                 "site", "kind", "block_bytes", "inside")

    def __init__(self, buffer: str, name: str, site: Site, kind: str, block_bytes: int) -> None:
        self.alloc_time = 0
        self.first_use = None
        self.last_use = 0
        self.uses_as_src = 0  # reads by an assignment (`t[...] = tile`)
        self.other_uses = 0
        self.placement = None
        self.inside = None  # the loops (by site) every access so far happened in: "used only inside loop L"
        self.buffer, self.name, self.site, self.kind, self.block_bytes = buffer, name, site, kind, block_bytes


def _delegate(field: str) -> property:
    return property(lambda self: getattr(self.life, field), lambda self, v: setattr(self.life, field, v))


class Storage:
    """One allocation: typed data and shadow arrays of shape (rows, cols)."""

    __slots__ = ("sid", "name", "buffer", "dname", "shape", "par_dim", "data", "shadow", "full", "kind", "site",
                 "owner", "read_yet", "token", "memory", "written", "producer", "all_written", "fresh", "exact", "life",
                 "unmarked", "tags", "tag", "__weakref__")

    alloc_time = _delegate("alloc_time")
    first_use = _delegate("first_use")
    last_use = _delegate("last_use")
    uses_as_src = _delegate("uses_as_src")
    other_uses = _delegate("other_uses")
    placement = _delegate("placement")

    def __init__(self, sid: int, name: str, buffer: str, dname: str, shape: tuple, par_dim: int,
                 data: np.ndarray, shadow: np.ndarray, kind: str, site: Site, owner: Any) -> None:
        self.sid = sid
        self.name = name
        self.buffer = buffer
        self.dname = dname
        self.shape = tuple(shape)
        self.par_dim = par_dim
        self.data = data
        self.shadow = shadow
        # Shadow state.  all_written: every element written (inputs; or a write covered the storage): no check
        # needed.  fresh: nothing written yet and the shadow bytes not yet cleared (cleared on the first partial
        # write).  exact: other storages alias these bytes (manual placement, reinterpretation), so the shadow
        # bytes are kept exact even when a flag says the same.
        self.all_written = shadow is None
        self.fresh = False
        self.exact = False
        # HBM: rectangles written but not yet marked in the shadow (marked when something reads the storage,
        # so an output that is only written never touches its shadow's pages)
        self.unmarked: list | None = [] if buffer in HBM_BUFFERS and shadow is not None else None
        self.full = np.iinfo(shadow.dtype).max if shadow is not None else 0
        self.kind = kind  # param | ndarray | result | const
        self.site = site
        self.owner = owner  # the program instance for private buffers, None when shared
        self.life = Life(buffer, name, site, kind, math.prod(self.shape[par_dim + 1:]) * DT.itemsize(dname))
        self.read_yet = False
        self.token = None
        self.memory = None
        self.written = False  # a kernel input the kernel wrote (copied back to the host array)
        self.producer = None  # the instruction that made a result tile
        self.tags = None  # a manual placement: its bytes' owner tags, one value per element (device.memory)
        self.tag = 0  # the value meaning "this storage wrote the element"

    def flush(self) -> None:
        """Mark the deferred writes in the shadow."""
        pending, self.unmarked = self.unmarked, []
        for r in pending or ():
            if r.is_rect:
                self.shadow[r.r0:r.r1, r.c0:r.c1] = self.full
            else:
                self.shadow[r.flat // self.cols, r.flat % self.cols] = self.full

    @property
    def rows(self) -> int:
        return self.data.shape[0]

    @property
    def cols(self) -> int:
        return self.data.shape[1]

    @property
    def on_chip(self) -> bool:
        return self.buffer in ON_CHIP

    @property
    def partitions(self) -> int:
        return self.shape[self.par_dim] if self.shape else 1

    def block_bytes(self) -> int:
        """Bytes per partition of one block (Beta-1 block dimensions rotate through buffers: one counts)."""
        return math.prod(self.shape[self.par_dim + 1:]) * DT.itemsize(self.dname)

    def __repr__(self) -> str:
        return f"<{self.buffer} {self.name} {self.shape} {self.dname}>"


# ----------------------------------------------------------------------------- geometry


def row_major(shape: tuple) -> tuple:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return tuple(reversed(out))


def strided(base: np.ndarray, offset: int, shape: tuple, strides: tuple) -> np.ndarray | None:
    """A numpy view of the elements `offset + sum(strides * i)` of `base` (rows, cols), or None when the
    pattern does not decompose into row and column steps."""
    cols = base.shape[1]
    r0, c0 = divmod(offset, cols)
    if len(shape) == 2:  # the common tile: rows (a row step) by columns (a column step), by basic slicing
        (n0, n1), (s0, s1) = shape, strides
        if n0 > 0 and n1 > 0 and s0 > 0 and s0 % cols == 0 and (0 < s1 < cols or n1 == 1):
            rs, cs = s0 // cols, max(s1, 1)
            r1, c1 = r0 + (n0 - 1) * rs + 1, c0 + (n1 - 1) * cs + 1
            if r1 <= base.shape[0] and c1 <= cols:
                return base[r0:r1:rs, c0:c1:cs]
    rs, cs = [], []
    cend = c0
    for n, s in zip(shape, strides):
        if n <= 1 or s == 0:
            rs.append(0)
            cs.append(0)
            continue
        if s < 0:
            return None
        r, c = divmod(s, cols)
        rs.append(r)
        cs.append(c)
        cend += c * (n - 1)
    if cend >= cols or r0 >= base.shape[0] or r0 < 0:
        return None
    st0, st1 = base.strides
    byte_strides = tuple(r * st0 + c * st1 for r, c in zip(rs, cs))
    if base.dtype.isbuiltin == 2:  # ml_dtypes: the array interface cannot describe them; stride the raw words
        raw = base.view(_SHADOW[base.dtype.itemsize])
        return as_strided(raw[r0:, c0:], shape=shape, strides=byte_strides).view(base.dtype)
    return as_strided(base[r0:, c0:], shape=shape, strides=byte_strides)


def flat_indices(offset: int, shape: tuple, strides: tuple) -> np.ndarray:
    e = np.full(shape, offset, dtype=np.int64) if shape else np.array(offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        if s and n > 1:
            idx = np.arange(n, dtype=np.int64) * s
            e = e + idx.reshape((n,) + (1,) * (len(shape) - axis - 1))
    return e


@dataclass(frozen=True)
class Region:
    """The elements an access touches: a rectangle of the storage's (rows, cols) layout, or a set."""

    r0: int
    r1: int
    c0: int
    c1: int
    flat: Any = None  # sorted unique flat indices when not a rectangle

    @property
    def is_rect(self) -> bool:
        return self.flat is None

    def indices(self, cols: int) -> np.ndarray:
        if self.flat is not None:
            return self.flat
        r = np.arange(self.r0, self.r1, dtype=np.int64)[:, None] * cols
        return (r + np.arange(self.c0, self.c1, dtype=np.int64)[None, :]).ravel()

    def empty(self) -> bool:
        return self.r1 <= self.r0 or self.c1 <= self.c0


@functools.lru_cache(maxsize=8192)
def rect_of(cols: int, offset: int, shape: tuple, strides: tuple) -> Region | None:
    """The rectangle of the (rows, cols) layout the pattern covers exactly, or None (memoised: the same tile
    patterns recur in every iteration; a Region is immutable)."""
    r0, c0 = divmod(offset, cols)
    row_dims, col_dims = [], []
    for n, s in zip(shape, strides):
        if n == 0:
            return Region(r0, r0, c0, c0)
        if n == 1 or s == 0:
            continue
        if s % cols == 0:
            row_dims.append((s // cols, n))
        elif 0 < s < cols:
            col_dims.append((s, n))
        else:
            return None
    sizes = []
    for dims in (row_dims, col_dims):
        dims.sort()
        expect = 1
        for st, n in dims:
            if st != expect:
                return None
            expect *= n
        sizes.append(expect)
    if c0 + sizes[1] > cols:
        return None
    return Region(r0, r0 + sizes[0], c0, c0 + sizes[1])


def set_region(flat: np.ndarray, cols: int) -> Region:
    u = np.unique(flat.ravel())
    if u.size == 0:
        return Region(0, 0, 0, 0, u)
    rows, cs = u // cols, u % cols
    return Region(int(rows.min()), int(rows.max()) + 1, int(cs.min()), int(cs.max()) + 1, u)


def regions_overlap(a: Region, b: Region, cols: int) -> np.ndarray | None:
    """Flat indices of the elements both regions touch (None when they share none)."""
    if a.r1 <= b.r0 or b.r1 <= a.r0 or a.c1 <= b.c0 or b.c1 <= a.c0:
        return None
    if a.is_rect and b.is_rect:
        r0, r1, c0, c1 = max(a.r0, b.r0), min(a.r1, b.r1), max(a.c0, b.c0), min(a.c1, b.c1)
        return Region(r0, r1, c0, c1).indices(cols)
    both = np.intersect1d(a.indices(cols), b.indices(cols), assume_unique=True)
    return both if both.size else None


# ----------------------------------------------------------------------------- views


class View:
    """Which elements of a storage a tensor value denotes (the part of `Tensor` the engines read)."""

    __slots__ = ("storage", "shape", "strides", "offset", "grid", "valid", "dynamic", "oob", "site", "deferred",
                 "operand_mask", "_dv", "_sv")

    def __init__(self, storage: Storage, shape: tuple, strides: tuple, offset: int, grid: Any = None,
                 valid: Any = None, dynamic: bool = False, oob: bool = False, site: Site | None = None) -> None:
        self.storage = storage
        self.shape = tuple(int(d) for d in shape)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        self.grid = grid  # flat element indices (view shape) for gathers, else None
        self.valid = valid  # boolean (view shape) for gathers that skip elements, else None
        self.dynamic = dynamic
        self.oob = oob
        self.site = site
        self._dv = self._sv = None  # cached numpy views of the data and shadow arrays
        self.deferred = ()  # out-of-bounds dynamic accesses: faults unless the instruction says oob_mode.skip
        self.operand_mask = None  # Beta-1 operand masking (`rhs[i_f < n]`): booleans the instruction applies

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def _base_view(self, base: np.ndarray) -> np.ndarray | None:
        if self.grid is not None or self.oob:
            return None
        st = self.storage
        if base is st.data:
            if self._dv is None:
                self._dv = strided(base, self.offset, self.shape, self.strides)
            return self._dv
        if base is st.shadow:
            if self._sv is None:
                self._sv = strided(base, self.offset, self.shape, self.strides)
            return self._sv
        return strided(base, self.offset, self.shape, self.strides)

    def indices(self) -> np.ndarray:
        if self.grid is not None:
            return self.grid
        return flat_indices(self.offset, self.shape, self.strides)

    def region(self, mask: np.ndarray | None = None) -> Region:
        cols = self.storage.cols
        if self.grid is None and mask is None and not self.oob:
            r = rect_of(cols, self.offset, self.shape, self.strides)
            if r is not None:
                return r
        flat = self.indices()
        keep = self._keep(mask)
        if keep is not None:
            flat = flat[np.broadcast_to(keep, flat.shape)]
        return set_region(flat, cols)

    def valid_mask(self) -> np.ndarray | None:
        """The elements this view can address (None: all of them); out-of-bounds dynamic elements are not."""
        keep = self._keep(None)
        return None if keep is None else np.broadcast_to(keep, self.shape)

    def _keep(self, mask: np.ndarray | None) -> np.ndarray | None:
        keep = self.valid
        if mask is not None:
            keep = mask if keep is None else (keep & mask)
        if self.oob:
            n = self.storage.rows * self.storage.cols
            flat = self.indices()
            inside = (flat >= 0) & (flat < n)
            keep = inside if keep is None else (keep & inside)
        return keep

    # ------------------------------------------------------------------ element access
    def read(self, base: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The view's elements of `base` (data or shadow) as an array of the view's shape; elements outside
        the mask or the storage come back as whatever the gather finds (callers ignore them)."""
        v = self._base_view(base) if mask is None else None
        if v is not None:
            return v
        flat = self.indices()
        cols = base.shape[1]
        n = base.shape[0] * cols
        safe = np.clip(flat, 0, max(n - 1, 0))
        return base[safe // cols, safe % cols]

    def write(self, base: np.ndarray, values: Any, mask: np.ndarray | None = None) -> None:
        v = self._base_view(base) if mask is None else None
        if v is not None:
            v[...] = values
            return
        flat = self.indices()
        keep = self._keep(mask)
        vals = np.broadcast_to(np.asarray(values, dtype=base.dtype), self.shape)
        if keep is not None:
            keep = np.broadcast_to(keep, self.shape)
            flat, vals = flat[keep], vals[keep]
        cols = base.shape[1]
        base[flat // cols, flat % cols] = vals

    def written(self, mask: np.ndarray | None = None) -> np.ndarray | bool:
        """True when every element (in the mask) has been written; else a boolean array per element."""
        st = self.storage
        if st.all_written:
            return True
        if st.fresh:
            return np.zeros(self.shape, dtype=np.bool_) if self.numel else True
        if st.unmarked:
            st.flush()
        sh = self.read(st.shadow, mask)
        full = self.storage.full
        if sh.size == 0 or sh.min() == full:
            return True
        ok = sh == full
        keep = self._keep(mask)
        if keep is not None:
            ok = ok | ~np.broadcast_to(keep, ok.shape)
        return True if ok.all() else ok

    def mark_written(self, mask: np.ndarray | None = None) -> None:
        st = self.storage
        if st.fresh:
            st.shadow[...] = 0
            st.fresh = False
        if not st.all_written or st.exact:
            self.write(st.shadow, st.full, mask)

    def values(self, mask: np.ndarray | None = None) -> np.ndarray:
        return self.read(self.storage.data, mask)

    def covers_storage(self) -> bool:
        """The view is every element of its storage (a whole overwrite)."""
        if self.grid is not None or self.oob:
            return False
        st = self.storage
        r = rect_of(st.cols, self.offset, self.shape, self.strides)
        return r is not None and (r.r0, r.r1, r.c0, r.c1) == (0, st.rows, 0, st.cols) and \
            self.numel == st.rows * st.cols

    def partition_offset_bytes(self) -> int:
        """Byte offset within a partition (of its block) at which the view starts."""
        st = self.storage
        free = st.cols
        return (self.offset % free) * DT.itemsize(st.dname) if free else 0


def dtype_bits_ok(name: str) -> bool:
    return name in D.DTYPES
