"""`NkiTensor` on the device: what kernels hold and index.

Indexing follows NKI: integers, slices (positive steps), `...`, `None`, `nl.ds(start, size)`, negative
indices counted from the end; slices are *not* clamped (a slice past the end of an axis is NKI101, as in
the verifier).  On-chip tensors keep the partition dimension (an integer on it leaves size 1) and stay at
least 2-D; HBM tensors drop integer-indexed axes.  Beta-1 index grids (`nl.arange`, `nl.mgrid`) make a
gather whose bounds are checked by the instruction that uses it, under that instruction's mask.
Registers, SBUF-held values and `.ap(scalar_offset=..., vector_offset=...)` are dynamic: out of bounds
is NKI102.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from . import context
from . import dtypes as DT
from .faults import subscript_item_site, user_site
from .grids import IndexGrid, Mask
from .tensor import HBM_BUFFERS, ON_CHIP, Storage, View, row_major


class DynSlice:
    """`nl.ds(start, size)`: `start:start+size`, where start may be a runtime register."""

    __slots__ = ("start", "size")

    def __init__(self, start: Any, size: Any) -> None:
        self.start = start
        self.size = size


class Buffer:
    """`nl.sbuf`, `nl.psum`, `nl.hbm`, `nl.private_hbm`, `nl.shared_hbm`."""

    __slots__ = ("spec_name", "value")

    def __init__(self, name: str) -> None:
        self.spec_name = name
        self.value = name

    def __repr__(self) -> str:
        return f"nl.{self.spec_name}"

    def __eq__(self, other: object) -> bool:
        # nl.hbm is an alias of nl.private_hbm
        return other is not None and _ALIAS.get(buffer_name(other), "?") == _ALIAS[self.spec_name]

    def __hash__(self) -> int:
        return hash(self.spec_name)


BUFFERS = {n: Buffer(n) for n in ("sbuf", "psum", "hbm", "private_hbm", "shared_hbm")}
_ALIAS = {n: "private_hbm" if n == "hbm" else n for n in BUFFERS}


def buffer_name(x: Any) -> str | None:
    if isinstance(x, Buffer):
        return x.spec_name
    if isinstance(x, str) and x in BUFFERS:
        return x
    return getattr(x, "spec_name", None) if getattr(x, "spec_name", None) in BUFFERS else None


def _int(x: Any) -> int:
    if isinstance(x, bool):
        return int(x)
    if hasattr(x, "__index__"):
        return int(x.__index__())
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise TypeError(f"an index must be an integer, got {type(x).__name__}")


def _dynamic_value(x: Any) -> int | None:
    """The runtime value of a register or of a one-element SBUF tensor used as an index."""
    if type(x).__name__ == "Register":
        return int(x.value)
    if isinstance(x, View):
        prog = context.current()
        vals = prog.load(x)
        return int(np.asarray(vals).ravel()[0])
    return None


class NkiTensor(View):
    """A view of a storage, with NKI's tensor API."""

    __slots__ = ()

    # ------------------------------------------------------------------ attributes
    @property
    def dtype(self) -> Any:
        return DT.public(self.storage.dname)

    @property
    def buffer(self) -> Buffer:
        st = self.storage
        if st.kind == "param" and st.buffer in HBM_BUFFERS:
            # like NKI's simulator: a kernel input is in nl.hbm on one core, in nl.shared_hbm when the launch's
            # cores share it
            prog = context.current_or_none()
            return BUFFERS["shared_hbm" if prog is not None and prog.launch.size > 1 else "hbm"]
        return BUFFERS[st.buffer]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self.numel

    @property
    def name(self) -> str:
        return self.storage.name

    @property
    def address(self) -> Any:
        pl = self.storage.placement
        return None if pl is None else (pl.partition, pl.byte)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"NkiTensor({self.storage.name}, shape={self.shape}, dtype={self.storage.dname}, " \
               f"buffer={self.storage.buffer})"

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        v = np.array(self.values(), copy=True)
        return v.astype(dtype) if dtype is not None else v

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a tensor is not defined in NKI")

    def _derive(self, shape: tuple, strides: tuple, offset: int, **kw: Any) -> "NkiTensor":
        kw.setdefault("dynamic", self.dynamic)
        kw.setdefault("oob", self.oob)
        return NkiTensor(self.storage, shape, strides, offset, **kw)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key: Any) -> "NkiTensor":
        return subscript(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        target = subscript(self, key)
        if value is target or (isinstance(value, View) and value.storage is target.storage and
                               value.offset == target.offset and value.shape == target.shape and
                               value.strides == target.strides):
            return  # `t[...] += v` stores back the view it updated in place
        context.current().language("__assign__")(dst=target, src=value if isinstance(value, View) else None,
                                                 value=None if isinstance(value, View) else value)

    def slice(self, dim: int, start: int, end: int, step: int = 1) -> "NkiTensor":
        keys: list = [slice(None)] * len(self.shape)
        keys[dim] = slice(start, end, step)
        return subscript(self, tuple(keys))

    def select(self, dim: int, index: Any) -> "NkiTensor":
        keys: list = [slice(None)] * len(self.shape)
        keys[dim] = index
        return subscript(self, tuple(keys))

    # ------------------------------------------------------------------ views
    def reshape(self, *shape: Any) -> "NkiTensor":
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)
        shape = tuple(_int(d) for d in shape)
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(self.numel // known if d == -1 else d for d in shape)
        if math.prod(shape) != self.numel:
            # (the view is left as it was: tracing stops here on the real compiler)
            context.current().fault("NKI501", f"reshape from {tuple(self.shape)} to {shape} must keep the number "
                                              f"of elements ({self.numel} and {math.prod(shape)})")
            return self
        if not self.is_contiguous_all():
            raise ValueError("reshape of a non-contiguous view (slice or permute first, then reshape)")
        if self.storage.on_chip and shape[0] != self.shape[0]:
            raise ValueError("reshape must keep the partition dimension of an on-chip tensor")
        strides = row_major(shape)
        if self.storage.on_chip and shape:
            strides = (self.strides[0],) + row_major(shape[1:])
        return self._derive(shape, strides, self.offset)

    def permute(self, dims: Any, *more: Any) -> "NkiTensor":
        dims = tuple(dims) + more if not more else (dims,) + more
        if sorted(dims) != list(range(len(self.shape))):
            raise ValueError(f"permute({dims}) is not a permutation of the {len(self.shape)} dimensions")
        if self.storage.on_chip and dims[0] != 0:
            raise ValueError("permute must keep the partition dimension of an on-chip tensor first")
        return self._derive(tuple(self.shape[d] for d in dims), tuple(self.strides[d] for d in dims), self.offset)

    def broadcast(self, dim: int, size: int) -> "NkiTensor":
        if self.shape[dim] != 1:
            raise ValueError("broadcast needs a dimension of size 1")
        shape, strides = list(self.shape), list(self.strides)
        shape[dim], strides[dim] = _int(size), 0
        return self._derive(tuple(shape), tuple(strides), self.offset)

    def expand_dim(self, dim: int) -> "NkiTensor":
        shape, strides = list(self.shape), list(self.strides)
        shape.insert(dim, 1)
        strides.insert(dim, 0)
        return self._derive(tuple(shape), tuple(strides), self.offset)

    def squeeze_dim(self, dim: int) -> "NkiTensor":
        if self.shape[dim] != 1:
            raise ValueError("squeeze_dim needs a dimension of size 1")
        shape, strides = list(self.shape), list(self.strides)
        del shape[dim], strides[dim]
        return self._derive(tuple(shape), tuple(strides), self.offset)

    def reshape_dim(self, dim: int, shape: Any) -> "NkiTensor":
        shape = [_int(d) for d in shape]
        n = self.shape[dim]
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            shape = [n // known if d == -1 else d for d in shape]
        if math.prod(shape) != n:
            raise ValueError(f"reshape_dim: {shape} does not have {n} elements")
        inner = row_major(tuple(shape))
        strides = list(self.strides[:dim]) + [s * self.strides[dim] for s in inner] + list(self.strides[dim + 1:])
        return self._derive(tuple(self.shape[:dim]) + tuple(shape) + tuple(self.shape[dim + 1:]), tuple(strides),
                            self.offset)

    def flatten_dims(self, start_dim: int, end_dim: int) -> "NkiTensor":
        for d in range(start_dim, end_dim):
            if self.strides[d] != self.strides[d + 1] * self.shape[d + 1]:
                raise ValueError("flatten_dims over dimensions that are not contiguous")
        n = math.prod(self.shape[start_dim:end_dim + 1])
        shape = self.shape[:start_dim] + (n,) + self.shape[end_dim + 1:]
        strides = self.strides[:start_dim] + (self.strides[end_dim],) + self.strides[end_dim + 1:]
        return self._derive(shape, strides, self.offset)

    def rearrange(self, src_pattern: Any, dst_pattern: Any, fixed_sizes: Any = None) -> "NkiTensor":
        """einops style: split each source axis into its names, reorder, merge each destination group."""
        sizes = dict(fixed_sizes or {})
        src = [[g] if isinstance(g, str) else list(g) for g in src_pattern]
        dst = [[g] if isinstance(g, str) else list(g) for g in dst_pattern]
        flat_src = [n for g in src for n in g]
        flat_dst = [n for g in dst for n in g]
        if len(src) != len(self.shape) or sorted(flat_src) != sorted(flat_dst):
            raise ValueError(f"rearrange: {src_pattern} -> {dst_pattern} does not fit shape {self.shape}")
        if self.storage.on_chip and (len(src[0]) > 1 or flat_dst[0] != flat_src[0] or len(dst[0]) > 1):
            raise ValueError("rearrange must keep the partition dimension of an on-chip tensor first and whole")
        for axis, names in enumerate(src):
            known = math.prod(_int(sizes[n]) for n in names if n in sizes)
            free = [n for n in names if n not in sizes]
            if len(names) > 1 and (known * (self.shape[axis] // known if free else 1) != self.shape[axis]):
                # (the view is left as it was: tracing stops here on the real compiler)
                context.current().fault("NKI501", f"rearrange: the sizes of ({', '.join(names)}) must multiply "
                                                  f"to axis {axis}'s {self.shape[axis]}")
                return self
        t = self
        for axis in reversed(range(len(src))):
            names = src[axis]
            if len(names) > 1:
                t = t.reshape_dim(axis, [_int(sizes[n]) if n in sizes else -1 for n in names])
        t = t.permute(tuple(flat_src.index(n) for n in flat_dst))
        k = 0
        for names in dst:
            if len(names) > 1:
                t = t.flatten_dims(k, k + len(names) - 1)
            k += 1
        return t

    def view(self, dtype: Any) -> "NkiTensor":
        return reinterpret(self, DT.dtype_name(dtype))

    reinterpret_cast = view

    def ap(self, pattern: Any, offset: Any = None, scalar_offset: Any = None, vector_offset: Any = None,
           indirect_dim: int = 0, dtype: Any = None) -> "NkiTensor":
        return access_pattern(self, pattern, offset, scalar_offset, vector_offset, indirect_dim, dtype)

    def vector_select(self, dim: int, vector_offset: Any) -> "NkiTensor":
        pattern = [[self.strides[0], vector_offset.shape[0]]] + [[s, n] for s, n in zip(self.strides[1:],
                                                                                      self.shape[1:])]
        return access_pattern(self, pattern, 0, None, vector_offset, 0, None)

    def is_contiguous(self) -> bool:
        dims = list(zip(self.shape, self.strides))
        if self.storage.on_chip:
            dims = dims[1:]
        return _dense(dims)

    def is_contiguous_all(self) -> bool:
        dims = list(zip(self.shape, self.strides))
        if self.storage.on_chip and dims:
            return _dense(dims[1:])
        return _dense(dims)

    def get_pattern(self) -> list:
        return [[s, n] for s, n in zip(self.strides, self.shape)]

    def is_indirect(self) -> bool:
        return self.dynamic

    def indirect(self, index: Any, num_elem: Any = None) -> "NkiTensor":
        from .faults import Unsupported
        raise Unsupported("tensor indirection (.indirect, trn3) is not implemented by the device")

    def broadcast_to(self, shape: Any) -> Any:
        """Beta-1 `tile.broadcast_to(shape)`: a new tile (nl.broadcast_to)."""
        return context.current().language("broadcast_to")(self, shape=tuple(shape))

    # ------------------------------------------------------------------ Beta-1 tile operators
    def _binop(self, name: str, other: Any, swap: bool = False) -> Any:
        _beta1_operators(name)
        fn = context.current().language(name)
        return fn(other, self) if swap else fn(self, other)

    def __iadd__(self, other: Any) -> "NkiTensor":
        _beta1_operators("add")
        context.current().language("__assign__")(dst=self, src=other if isinstance(other, View) else None,
                                                 value=None if isinstance(other, View) else other,
                                                 accumulate=_IADD["add"])
        return self


def _beta1_operators(name: str) -> None:
    """Tile operators are Beta 1's: a Beta-2 tensor has none, and Python raises TypeError (verifier: NKI609)."""
    if context.current().dialect == "beta2":
        raise TypeError(f"a Beta-2 tensor has no operators (nl.{name} on a tensor through an operator is Beta 1's); "
                        "compute on tiles with nisa instructions")


_IADD = {"add": "add"}
_TILE_OPS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "pow": "power",
             "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
             "rshift": "right_shift", "mod": "mod", "floordiv": "divide"}


def _install_operators() -> None:
    for py, name in _TILE_OPS.items():
        setattr(NkiTensor, f"__{py}__", lambda self, o, n=name: self._binop(n, o))
        setattr(NkiTensor, f"__r{py}__", lambda self, o, n=name: self._binop(n, o, True))
    for py, name in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
        setattr(NkiTensor, f"__{py}__", lambda self, o, n=name: self._binop(n, o))
    for py, name in (("isub", "subtract"), ("imul", "multiply"), ("itruediv", "divide")):
        def inplace(self: NkiTensor, other: Any, n: str = name) -> NkiTensor:
            _beta1_operators(n)
            context.current().language("__assign__")(dst=self, src=other if isinstance(other, View) else None,
                                                     value=None if isinstance(other, View) else other, accumulate=n)
            return self
        setattr(NkiTensor, f"__{py}__", inplace)
    def neg(self: NkiTensor) -> Any:
        _beta1_operators("negative")
        return context.current().language("negative")(self)
    NkiTensor.__neg__ = neg
    NkiTensor.__hash__ = object.__hash__


_install_operators()


def _dense(dims: list) -> bool:
    expect = 1
    for n, s in reversed(dims):
        if n == 1:
            continue
        if s != expect:
            return False
        expect *= n
    return True


def full_view(st: Storage) -> NkiTensor:
    return NkiTensor(st, st.shape, row_major(st.shape), 0)


# ----------------------------------------------------------------------------- subscripts


def subscript(t: NkiTensor, key: Any) -> NkiTensor:
    if isinstance(key, (bool, np.bool_, Mask)) and t.storage.on_chip:
        return _masked(t, key)
    keys = list(key) if isinstance(key, tuple) else [key]
    flat = []
    for k in keys:
        flat.extend(k if isinstance(k, tuple) and k and all(isinstance(g, IndexGrid) for g in k) else [k])
    keys = flat
    rank = len(t.shape)
    consuming = [k for k in keys if k is not None and k is not Ellipsis]
    exact = not any(k is Ellipsis for k in keys)  # key positions are the subscript's elements
    if any(k is Ellipsis for k in keys):
        i = next(j for j, k in enumerate(keys) if k is Ellipsis)
        keys = keys[:i] + [slice(None)] * (rank - len(consuming)) + keys[i + 1:]
    consuming = [k for k in keys if k is not None]
    if len(consuming) > rank:
        context.current().fault("NKI101", f"{len(consuming)} indices for a tensor of rank {rank}", ())
        consuming = consuming[:rank]
        keys = consuming
    keys = keys + [slice(None)] * (rank - len(consuming))
    if any(isinstance(k, IndexGrid) for k in keys):
        return _grid_subscript(t, keys)
    return _basic_subscript(t, keys, exact)


def _basic_subscript(t: NkiTensor, keys: list, exact: bool = True) -> NkiTensor:
    st = t.storage
    on_chip = st.on_chip
    pdim = st.par_dim
    shape: list = []
    strides: list = []
    offset = t.offset
    dynamic = t.dynamic
    oob = t.oob
    axis = 0
    dropped_last = None
    for item, k in enumerate(keys):
        item = item if exact else len(keys)
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        dim, stride = t.shape[axis], t.strides[axis]
        dyn = None if isinstance(k, (slice, int, np.integer, DynSlice)) else _dynamic_value(k)
        if isinstance(k, DynSlice):
            start_dyn = _dynamic_value(k.start)
            start = _int(k.start) if start_dyn is None else start_dyn
            size = _int(k.size)
            dynamic = dynamic or start_dyn is not None
            oob |= _check_slice(t, axis, start, start + size, dim, True, start_dyn is not None, item)
            shape.append(size)
            strides.append(stride)
            offset += stride * start
        elif isinstance(k, slice):
            start, stop, step, written = _norm_slice(k, dim)
            oob |= _check_slice(t, axis, start, stop, dim, written, False, item, step)
            n = max(0, -(-(stop - start) // step))
            shape.append(n)
            strides.append(stride * step)
            offset += stride * start
        else:
            if dyn is not None:
                i = dyn
                dynamic = True
            else:
                i = _int(k)
                if i < 0:
                    i += dim
            oob |= _check_index(t, axis, i, dim, dyn is not None, item)
            offset += stride * i
            if (on_chip and axis == pdim) or (on_chip and axis < pdim and False):
                shape.append(1)
                strides.append(stride)
            else:
                dropped_last = stride
        axis += 1
    if on_chip and len(shape) < 2:
        shape.append(1)
        strides.append(dropped_last if dropped_last is not None else 1)
    view = NkiTensor(st, tuple(shape), tuple(strides), offset, dynamic=dynamic, oob=oob, site=user_site())
    view.deferred = t.deferred + take_deferred()
    return view


def _norm_slice(k: slice, dim: int) -> tuple:
    step = 1 if k.step is None else _int(k.step)
    if step <= 0:
        raise ValueError("NKI slices need a positive step")
    start = 0 if k.start is None else _slice_bound(k.start)
    stop = dim if k.stop is None else _slice_bound(k.stop)
    if start < 0:
        start += dim
    if stop < 0:
        stop += dim
    return start, stop, step, k.stop is not None


def _slice_bound(x: Any) -> int:
    d = _dynamic_value(x) if not isinstance(x, (int, np.integer)) else None
    return d if d is not None else _int(x)


def _where(t: NkiTensor, axis: int, dim: int) -> str:
    return f"axis {axis} of '{t.storage.name}' (size {dim})"


class _Deferred:
    """Collects the dynamic (NKI102) out-of-bounds findings of one subscript: the consuming instruction
    reports them, unless it asks for oob_mode.skip."""

    def __init__(self) -> None:
        self.items: list = []

    def fault(self, code: str, message: str, values: tuple = (), site: Any = None) -> None:
        self.items.append((code, message, values, site or user_site()))


def _reporter(dynamic: bool) -> Any:
    prog = context.current()
    if not dynamic:
        return prog
    pending = getattr(prog, "deferred_oob", None)
    if pending is None:
        pending = prog.deferred_oob = _Deferred()
    return pending


def take_deferred() -> tuple:
    prog = context.current()
    pending = getattr(prog, "deferred_oob", None)
    if pending is None or not pending.items:
        return ()
    items, pending.items = tuple(pending.items), []
    return items


def _check_slice(t: NkiTensor, axis: int, start: int, stop: int, dim: int, written: bool, dynamic: bool,
                 item: int = 0, step: int = 1) -> bool:
    problems = []
    if start < 0:
        problems.append(f"slice start {start} is negative on {_where(t, axis, dim)}")
    if written and step != 1 and start < stop and start + step * (-(-(stop - start) // step) - 1) >= dim:
        # a stepped slice: its last element must be in the axis (x[1:257:2] of 256 rows reads up to row 255)
        problems.append(f"slice {start}:{stop}:{step} runs past the end of {_where(t, axis, dim)}")
    elif written and step == 1 and stop > dim:
        problems.append(f"slice {start}:{stop} runs past the end of {_where(t, axis, dim)}")
    if written and start > stop:
        problems.append(f"slice {start}:{stop} on {_where(t, axis, dim)} has its start after its end")
    if not written and start > dim:
        problems.append(f"slice start {start} is past the end of {_where(t, axis, dim)}")
    if problems:
        code = "NKI102" if dynamic else "NKI101"
        vals = (("start", start), ("end", stop), ("size", dim))
        site = subscript_item_site(item)
        for message in problems:
            _reporter(dynamic).fault(code, message, vals, site)
    return bool(problems)


def _check_index(t: NkiTensor, axis: int, i: int, dim: int, dynamic: bool, item: int = 0) -> bool:
    if 0 <= i < dim:
        return False
    code = "NKI102" if dynamic else "NKI101"
    what = "negative" if i < 0 else "out of bounds"
    _reporter(dynamic).fault(code, f"index {i} is {what} for {_where(t, axis, dim)}", (("index", i), ("size", dim)),
                             subscript_item_site(item))
    return True


def _grid_subscript(t: NkiTensor, keys: list) -> NkiTensor:
    """Index grids: a gather; bounds are checked by the consuming instruction under its mask."""
    arrays = []
    dims = []
    runtime = []  # axes indexed by a value held on chip (a Beta-1 dynamic index): NKI102, not NKI101
    for axis, k in enumerate(keys):
        dim = t.shape[axis]
        runtime.append(False)
        if isinstance(k, IndexGrid):
            arrays.append(k.values)
        elif isinstance(k, slice):
            if k == slice(None) and dim == 1:
                arrays.append(np.zeros((), dtype=np.int64))
            else:
                raise TypeError("mixing slices and nl.arange/nl.mgrid index grids in one subscript")
        elif isinstance(k, View) and math.prod(k.shape) > 1:
            # an index tile (`data[idx_tile[i_p, 0], i_f]`): one index per element, in the tile's layout, so
            # that it broadcasts with the other axes' grids (a gather of rows)
            runtime[-1] = True
            arrays.append(np.asarray(context.current().load(k)).reshape(k.shape).astype(np.int64))
        else:
            dyn = _dynamic_value(k)
            runtime[-1] = dyn is not None
            i = dyn if dyn is not None else _int(k)
            arrays.append(np.asarray(i + dim if (dyn is None and i < 0) else i, dtype=np.int64))
        dims.append(dim)
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    flat = np.full(shape, t.offset, dtype=np.int64)
    for a, stride in zip(arrays, t.strides):
        flat = flat + a * stride
    if t.grid is not None:
        raise TypeError("indexing an index-grid view again is not supported")
    view = GridTensor(t.storage, shape, (0,) * len(shape), 0, grid=flat, valid=None, dynamic=t.dynamic,
                      site=user_site())
    view.pending = (arrays, dims, runtime)  # checked by the instruction that consumes the view, under its mask
    return view


def _masked(t: NkiTensor, key: Any) -> NkiTensor:
    """Beta-1 operand masking (`nl.matmul(lhs, rhs[i_f < n])`): the same tile, with a mask the consuming
    instruction applies as if passed as its `mask=` (a Python bool, a mask the loop already settled, masks all
    or nothing)."""
    values = key.values if isinstance(key, Mask) else np.asarray(bool(key))
    out = copy.copy(t)
    out.operand_mask = values if t.operand_mask is None else (t.operand_mask & values)
    return out


class GridTensor(NkiTensor):
    """A Beta-1 index-grid view: its bounds wait for the consuming instruction's mask."""

    __slots__ = ("pending",)


def check_pending(view: Any, mask: np.ndarray | None) -> None:
    """Bounds of an index-grid view, for the elements the consuming instruction touches."""
    pending = getattr(view, "pending", None)
    if pending is None:
        return
    arrays, dims, runtime = pending
    prog = context.current()
    keep = np.ones(view.shape, dtype=np.bool_) if mask is None else np.broadcast_to(mask, view.shape).copy()
    valid = np.ones(view.shape, dtype=np.bool_)
    for axis, (a, dim, dyn) in enumerate(zip(arrays, dims, runtime)):
        a = np.broadcast_to(a, view.shape)
        bad = keep & ((a < 0) | (a >= dim))
        if bad.any():
            v = int(a[bad].flat[0])
            what = "negative" if v < 0 else "out of bounds"
            prog.fault("NKI102" if dyn else "NKI101",
                       f"index expression value {v} is {what} for {_where(view, axis, dim)}",
                       (("index", v), ("size", dim)), view.site)
            valid &= ~bad
    if not valid.all():
        view.valid = valid if view.valid is None else (view.valid & valid)


# ----------------------------------------------------------------------------- .ap() and reinterpretation


def access_pattern(t: NkiTensor, pattern: Any, offset: Any, scalar_offset: Any, vector_offset: Any,
                   indirect_dim: int, dtype: Any) -> NkiTensor:
    """`t.ap(pattern, ...)`: element (i0, i1, ...) is storage[base + sum(step_k * i_k)], where base is the view's
    offset plus `offset` (the API docstring's reading), plus a runtime scalar offset scaled by the dimensions
    after `indirect_dim` of `t` (the migration guide's `prod(A.shape[indirect_dim + 1:])`: a reshape's own); with
    `vector_offset`, row w starts at row vector_offset[w] of `t`."""
    base_t = reinterpret(t, DT.dtype_name(dtype)) if dtype is not None else t
    st = base_t.storage
    pairs = [(_int(s), _int(n)) for s, n in pattern]
    base = base_t.offset + (0 if offset is None else _int(offset))
    dynamic = t.dynamic
    if scalar_offset is not None:
        v = _dynamic_value(scalar_offset)
        v = _int(scalar_offset) if v is None else v
        mult = math.prod(base_t.shape[indirect_dim + 1:]) if base_t.shape else 1
        base += v * mult
        dynamic = True
    shape = tuple(n for _, n in pairs)
    strides = tuple(s for s, _ in pairs)
    n_elems = st.rows * st.cols
    code = "NKI102"
    if vector_offset is not None:
        rows = np.asarray(context.current().load(vector_offset)).reshape(-1).astype(np.int64)[:shape[0]]
        row_elems = math.prod(base_t.shape[1:]) if len(base_t.shape) > 1 else 1
        flat = flat_grid(base, shape, strides, rows * row_elems)
        return _checked_gather(base_t, flat, shape, code, True)
    if any(s < 0 for s in strides) or not shape:
        flat = flat_grid(base, shape, strides, None)
        return _checked_gather(base_t, flat, shape, code, dynamic)
    lo = base
    hi = base + sum(s * (n - 1) for s, n in pairs if n > 0)
    oob = False
    if st.on_chip and len(pairs) > 1 and pairs[0][1] > 1 and pairs[0][0] != st.cols:
        # on chip the first pair walks consecutive partitions: its step is the elements of one partition
        _reporter(True).fault(code, f"the first pair of the access pattern {[list(p) for p in pairs]} walks the "
                              f"partitions of '{st.name}': its step must be the {st.cols} elements of a partition, "
                              f"not {pairs[0][0]}", (("step", pairs[0][0]), ("partition elements", st.cols)))
        oob = True
    elif lo < 0 or hi >= n_elems:
        _reporter(True).fault(code, f"the access pattern {[list(p) for p in pairs]} with offset {base} addresses "
                              f"elements [{lo}, {hi}] of '{st.name}', which has {n_elems}",
                              (("first element", lo), ("last element", hi), ("elements", n_elems)))
        oob = True
    view = NkiTensor(st, shape, strides, base, dynamic=dynamic, oob=oob, site=user_site())
    view.deferred = take_deferred()
    return view


def flat_grid(base: int, shape: tuple, strides: tuple, row_starts: Any) -> np.ndarray:
    from .tensor import flat_indices
    flat = flat_indices(base, shape, strides)
    if row_starts is not None:
        # the first pair's step is ignored with a vector offset: row w starts where vector_offset[w] says
        first = np.arange(shape[0], dtype=np.int64) * strides[0]
        flat = flat - first.reshape((-1,) + (1,) * (len(shape) - 1)) + \
            np.asarray(row_starts).reshape((-1,) + (1,) * (len(shape) - 1))
    return flat


def _checked_gather(t: NkiTensor, flat: np.ndarray, shape: tuple, code: str, dynamic: bool) -> NkiTensor:
    st = t.storage
    n = st.rows * st.cols
    inside = (flat >= 0) & (flat < n)
    valid = None
    if not inside.all():
        bad = flat[~inside]
        _reporter(True).fault(code, f"the access addresses element {int(bad.flat[0])} of '{st.name}', which has "
                              f"{n} elements", (("element", int(bad.flat[0])), ("elements", n)))
        valid = inside
    view = NkiTensor(st, shape, (0,) * len(shape), 0, grid=flat, valid=valid, dynamic=dynamic, site=user_site())
    view.deferred = take_deferred()
    return view


def reinterpret(t: NkiTensor, dname: str) -> NkiTensor:
    """The same bytes as another dtype: the last dimension scales by the size ratio."""
    st = t.storage
    if dname == st.dname:
        return t
    old, new = DT.itemsize(st.dname), DT.itemsize(dname)
    if t.strides and t.strides[-1] != 1 and t.shape[-1] != 1:
        raise ValueError("view(dtype) needs a contiguous last dimension")
    if (st.cols * old) % new:
        raise ValueError(f"cannot reinterpret rows of {st.cols * old} bytes as {dname}")
    data = st.data.view(DT.storage_dtype(dname)) if st.data.flags.c_contiguous or st.data.strides[1] == old \
        else None
    if data is None:
        raise ValueError("cannot reinterpret this storage")
    from .tensor import shadow_dtype
    if st.fresh:
        st.shadow[...] = 0
        st.fresh = False
    if st.unmarked:
        st.flush()
    st.unmarked = None  # the alias shares the shadow: mark eagerly from now on
    if st.all_written and st.shadow is not None and not st.exact:
        st.shadow[...] = st.full
    st.exact = True  # the alias shares the shadow bytes from now on
    if st.shadow is None:
        shadow = None
    elif st.on_chip:
        shadow = st.shadow.view(np.uint8).view(shadow_dtype(new))
    else:  # one shadow byte per element: a new per-element copy (reinterpreted HBM views do not share it)
        per_byte = np.repeat(st.shadow, old, axis=1)
        shadow = per_byte.reshape(st.rows, -1, new).min(axis=2)
    shape = st.shape[:-1] + (st.shape[-1] * old // new,) if st.shape else st.shape
    alias = Storage(st.sid, st.name, st.buffer, dname, shape, st.par_dim, data, shadow, st.kind, st.site, st.owner)
    alias.life = st.life
    alias.read_yet = st.read_yet
    alias.all_written, alias.exact = st.all_written, True
    if st.tags is not None:
        from .memory import element_tags
        alias.tags, alias.tag = element_tags(st.tags.view(np.uint16), new, int(st.tag) & 0xFFFF)
        alias.memory = st.memory
    last = t.shape[-1] * old // new if t.shape else 1
    strides = tuple(s * old // new for s in t.strides[:-1]) + ((1,) if t.shape else ())
    return NkiTensor(alias, t.shape[:-1] + (last,), strides, t.offset * old // new, dynamic=t.dynamic, oob=t.oob)


def is_hbm(buffer: Any) -> bool:
    return buffer_name(buffer) in HBM_BUFFERS


def is_on_chip(buffer: Any) -> bool:
    return buffer_name(buffer) in ON_CHIP
