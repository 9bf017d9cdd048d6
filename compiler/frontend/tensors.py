"""Tensors as the front end sees them: allocation, views, subscripts, tile arithmetic.

A tensor value is a view of a tensor instance: element v of the view lives at
storage element `offset + sum(strides[j] * v[j])` of the tensor (row-major),
in units of the tensor's dtype.  Every subscript the kernel evaluates is
recorded as written (for the bounds analysis); every operand carries the
canonical access (for the dependency and overlap analyses).
"""

from __future__ import annotations

import ast
from typing import Any

from .. import expr as E
from .. import ir
from .. import spec
from ..spec import dtypes as D
from . import values as V
from .ops import TILE_BINOPS, TILE_CMPS


def identity_coords(shape: tuple) -> tuple:
    frame = tuple(E.lift(d) for d in shape)
    n = len(frame)
    rows = tuple(tuple(E.ONE if j == k else E.ZERO for k in range(n)) for j in range(n))
    return (frame, tuple(E.ZERO for _ in range(n)), rows)


def _coords_index(coords: tuple | None, j: int, value: E.IntLike) -> tuple | None:
    """Fix view dimension j at `value` (drop its row into the constants)."""
    if coords is None:
        return None
    frame, consts, rows = coords
    row = rows[j]
    return (frame, tuple(E.add(c, E.mul(r, value)) for c, r in zip(consts, row)), rows)


def row_major(shape: tuple) -> tuple:
    strides: list = []
    acc: E.IntLike = 1
    for d in reversed(shape):
        strides.append(acc)
        acc = E.lower(E.mul(acc, d))
    return tuple(reversed(strides))



def shapes_text(shapes: list) -> str:
    """`(128, n) and (128,)`: operand shapes as a message shows them."""
    return " and ".join("(" + ", ".join(E.short(E.lift(d)) for d in sh) + ")" for sh in shapes)

class TensorMixin:
    # ------------------------------------------------------------------ creation
    def new_tensor(self, name: str, buffer: str, shape: tuple, dtype: str | None, node: ast.AST | None,
                   kind: str, address: tuple | None = None, par_dim: int | None = None) -> V.TensorVal:
        kb = self.kb
        loops = tuple(kb.loop_stack)
        instance = tuple(kb.loops[i].var for i in loops)
        shape = tuple(E.lift(d) if not isinstance(d, E.Expr) else d for d in shape)
        stmt, stmt_text = None, ""
        st = self.current_stmt
        if kind == "ndarray" and isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is node:
            stmt, stmt_text = self.span(st), self.source_segment(st)
        t = kb.add_tensor(name=name, buffer=buffer, shape=shape, dtype=dtype, span=self.span(node), kind=kind,
                          loops=loops, address=address, par_dim=par_dim, ctx=self.ctx(), order=len(kb.instrs),
                          stmt=stmt, stmt_text=stmt_text)
        lowered = tuple(E.lower(d) for d in shape)
        view = V.View(lowered, E.ZERO, row_major(lowered), dtype=None, coords=identity_coords(shape))
        return V.TensorVal(t, instance, view)

    def shape_value(self, v: Any, node: ast.AST | None) -> tuple:
        """A shape from a Python value: tuple/list of ints, a single int, a tensor's .shape."""
        if isinstance(v, (tuple, V.PyList)):
            items = self.iterate_known(v, node)
        elif V.is_int(v):
            items = [v]
        elif isinstance(v, V.Unknown):
            raise V.NotUnderstood(f"a shape that is not known ({v.reason})", node)
        else:
            raise V.NotUnderstood(f"a shape given as a {V.describe(v)}", node)
        out = []
        for x in items:
            if isinstance(x, V.ParDim):
                x = x.size
            out.append(self.as_int(x, "a dimension"))
        return tuple(out)

    def allocate(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if self.kb is None:
            return V.Unknown(f"nki.{fn.path} outside a kernel")
        ins = spec.lookup(fn.path)
        form, bound = self.bind_call(ins, fn.dialect, args, kwargs, node)
        bound.pop("__form__", None)
        name_v = bound.get("name")
        par_dim = None
        raw_shape = bound.get("shape")
        if isinstance(raw_shape, (tuple, V.PyList)):
            items = self.iterate_known(raw_shape, node)
            for i, x in enumerate(items):
                if isinstance(x, V.ParDim) and i > 0:
                    par_dim = i
        if isinstance(bound.get("buffer"), str):
            self.lint_buffer_string(bound.get("buffer"), node)
        like = bound.get("x")
        if fn.spec_name in ("zeros_like", "empty_like"):
            if not isinstance(like, V.TensorVal):
                raise V.NotUnderstood(f"nl.{fn.spec_name} of a {V.describe(like)}", node)
        shape = self._result_shape(ins.result.shape, bound, node)
        for d in shape:
            if V.is_int(d) and not isinstance(d, int) and E.decide(E.ge(E.lift(d), 1), self.kb.ranges) is not True:
                # an allocation with a dimension below 1 fails while tracing: like a zero divisor, inputs that
                # make one are not admissible (`(128, n_cols // shards)` needs n_cols >= shards)
                self.assume(E.ge(E.lift(d), 1), node, "allocation")
        buffer = self._result_buffer(ins.result.buffer_in(fn.dialect), bound)
        dtype = self._result_dtype(ins.result.dtype, bound)
        address = None
        addr = bound.get("address")
        if isinstance(addr, V.Phi):
            addr = None  # `address=None if auto else (0, off)`: placed by the allocator on some paths: not known
        if addr is not None and not isinstance(addr, V.Unknown) and addr is not spec.MISSING:
            parts = self.iterate_known(addr, node)
            address = tuple(E.lift(self.as_int(p, "an address")) for p in parts)
        name = name_v if isinstance(name_v, str) and name_v and "{" not in name_v else self._alloc_name(node)
        tv = self.new_tensor(name, buffer, shape, dtype, node, "ndarray", address, par_dim)
        if isinstance(raw_shape, V.GuessedShape) and raw_shape.param:
            # `nl.ndarray(x.shape, ...)` inherits x's guessed rank: a use with another rank corrects both
            self._guessed_ranks[tv.tensor.id] = raw_shape.param
        if fn.spec_name in ("zeros", "ones", "full", "rand", "zeros_like", "shared_identity_matrix",
                            "shared_constant"):
            self.kb.add_instr(op=ins.qualname, dialect=self.kb.dialect,
                              operands=(self.operand_ir("dst", tv, "w", node),), attrs=(),
                              span=self.span(node), ctx=self.ctx())
        return tv

    def _alloc_name(self, node: ast.AST | None) -> str:
        st = self.current_stmt
        depth = len(self.frames) - 1
        while isinstance(st, ast.Return) and depth > 0 and self.frames[depth].caller_stmt is not None:
            st = self.frames[depth].caller_stmt  # `return nl.ndarray(...)` in a helper: the caller's target
            depth -= 1
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            if isinstance(t, ast.Name):
                return t.id
            if isinstance(t, ast.Attribute):
                return t.attr
            if isinstance(t, ast.Subscript):  # tiles[i] = nl.ndarray(...)
                return ast.unparse(t)
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            return st.target.id
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
                and st.value.func.attr in ("append", "insert") and isinstance(st.value.func.value, (ast.Name,
                                                                                                    ast.Attribute)):
            return f"{ast.unparse(st.value.func.value)}[...]"  # tiles.append(nl.ndarray(...))
        return f"tensor@{getattr(node, 'lineno', 0)}"

    def operand_ir(self, role: str, tv: V.TensorVal, mode: str, node: ast.AST | None) -> ir.Operand:
        v = tv.view
        acc = ir.Access(E.lift(v.offset), tuple((E.lift(s), E.lift(n)) for s, n in zip(v.strides, v.shape)),
                        tuple(v.iotas), v.dynamic, v.coords)
        return ir.Operand(role, tv.tensor.id, tuple(E.lift(i) for i in tv.instance),
                          tuple(E.lift(d) for d in v.shape), acc, mode, self.span(node), v.dtype)

    def subst_tensor(self, tv: V.TensorVal, m: dict) -> V.TensorVal:
        v = tv.view
        coords = v.coords
        if coords is not None:
            frame, consts, rows = coords
            coords = (tuple(E.substitute(x, m) for x in frame), tuple(E.substitute(x, m) for x in consts),
                      tuple(tuple(E.substitute(x, m) for x in r) for r in rows))
        view = V.View(tuple(E.lower(E.substitute(E.lift(d), m)) for d in v.shape),
                      E.substitute(E.lift(v.offset), m),
                      tuple(E.lower(E.substitute(E.lift(s), m)) for s in v.strides), v.iotas, v.dtype, v.dynamic,
                      v.mask, coords)
        inst = tuple(E.substitute(E.lift(i), m) for i in tv.instance)
        return V.TensorVal(tv.tensor, inst, view, tv.checks)

    # ------------------------------------------------------------------ attributes
    def tensor_attr(self, tv: V.TensorVal, name: str, node: ast.AST | None) -> Any:
        if name == "shape":
            param = getattr(self, "_guessed_ranks", {}).get(tv.tensor.id)
            if param is not None and len(tv.shape) <= len(tv.tensor.shape):
                # (a view that indexes away leading axes, `x[0].shape`, lacks that many of the input's axes)
                return V.guessed(tuple(tv.shape), param, len(tv.tensor.shape) - len(tv.shape))
            hint = getattr(self, "_tile_from_guess", {}).get(tv.tensor.id)
            if hint is not None and len(tv.shape) == len(tv.tensor.shape):
                # a tile loaded from such a view (`re = nl.load(u[0])`) lacks as many: `re.shape == (128, 128)`
                # says the input has two axes more than the tile, as `u[0].shape == (128, 128)` would
                param, full, rank = hint
                return V.guessed(tuple(tv.shape), param, full - rank)
            return tuple(tv.shape)
        if name == "dtype":
            dt = tv.dtype
            return V.DTypeVal(dt) if dt else V.DTypeVal(f"?{tv.tensor.name}.dtype")
        if name == "buffer":
            return V.BufferVal(tv.buffer, tv.tensor.kind == "param" and tv.buffer in ir.HBM_KINDS)
        if name == "ndim":
            return len(tv.shape)
        if name == "size":
            return self.free_size((1,) + tuple(tv.shape))
        if name == "name":
            return tv.tensor.name
        if name == "address":
            return tv.tensor.address if tv.tensor.address is not None else None
        if name == "offset":
            return E.lower(tv.view.offset)
        if name == "strides":
            return tuple(tv.view.strides)
        if name == "base_tensor":
            # the tensor a view was made from (used by the NKI library; not in the API reference)
            t = tv.tensor
            shape = tuple(E.lower(d) for d in t.shape)
            strides = []
            acc: Any = 1
            for d in reversed(shape):
                strides.append(acc)
                acc = E.lower(E.mul(acc, d))
            view = V.View(shape, 0, tuple(reversed(strides)), (), t.dtype, False)
            return V.TensorVal(t, tv.instance, view)
        if name == "itemsize":
            return self.itemsize_of(tv.dtype)
        method = _TENSOR_METHODS.get(name)
        if method is not None:
            return V.BoundMethod(V.Builtin(name, method), tv)
        if name in ("T", "transpose"):
            # (torch's; NKI tensors have neither: the NKI API reference lists the methods of NkiTensor)
            raise V.NotUnderstood(f"tensor.{name}, which NKI tensors do not have (nl.transpose / nisa.nc_transpose "
                                  f"move data; .permute makes a view)", node)
        self.retry_kind(tv, V.KIND_OBJECT)  # a parameter guessed to be a tensor is an object after all
        raise V.NotUnderstood(f"tensor attribute {name!r}", node)

    def itemsize_of(self, dtype: str | None) -> Any:
        """The item size in bytes of a dtype; for an input's dtype the path does not settle, one symbol per
        dtype and kernel, `itemsize(x.dtype)`, that is 1, 2 or 4 (the analysis's sizes of tiles of that dtype
        use the same symbol)."""
        dt = self.settled_dtype(dtype)
        if dt in D.DTYPES:
            return D.size_bytes(dt)
        if self.kb is None or not dt or not dt.startswith("?") or len(dt) < 2:
            return self.fresh_int("<itemsize>", "unknown", 1, 9)
        return self.input_itemsize(dt)

    def input_itemsize(self, dt: str) -> E.Sym:
        """The symbol `itemsize(x.dtype)` of an input's dtype `dt` ("?x.dtype"), made once per kernel: 1, 2 or 4,
        and the size of each dtype the kernel compares it with where it is that dtype (`x.dtype in (nl.float16,
        nl.bfloat16)` tested for a 2-byte layout, the tile's bytes counted by the itemsize)."""
        label = f"itemsize({dt[1:]})"
        s = self.kb.itemsizes.get(dt)
        if s is None or not self.kb.label_taken(label):  # (not yet, or made by an analysis since restarted)
            # (lasting: a loop's trial pass that first asks for it is rolled back, and the symbol and its facts
            # with it, while the dtype predicates the pass made are kept; so were the facts that tie them)
            s = self.kb.itemsizes[dt] = self.kb.new_sym(label, "shape", 1, 5, lasting=True)
            self.kb.assume(E.bor(E.eq(s, 1), E.eq(s, 2), E.eq(s, 4)), None, "dtype", lasting=True)
            for (name, known), pred in self._dtype_eqs.items():
                if name == dt:
                    self._itemsize_of_equal(s, known, pred)
        return s

    def _itemsize_of_equal(self, s: E.Sym, known: str, pred: E.BExpr) -> None:
        """`itemsize(x.dtype)` is `known`'s size where `pred` (x.dtype == known) holds."""
        if known in D.DTYPES and D.size_bytes(known) in (1, 2, 4):
            fact = E.bor(E.bnot(pred), E.eq(s, D.size_bytes(known)))
            if not self.kb.known(fact):  # (a symbol made for a new predicate has tied it already)
                self.kb.assume(fact, None, "itemsize", lasting=True)

    def rank_settled(self) -> set:
        """Inputs whose rank a soft hint may no longer move: stated exactly, agreed with by a use, contradicted
        after a hint, or split by rank."""
        return self._exact_params | self._rank_confirmed | self._no_soft | set(getattr(self, "_rank_split", ()))

    def rank_mismatch(self, param: str, rank: int, at_least: bool = False, from_rank: int | None = None) -> None:
        """An input whose rank was guessed is used with rank `rank` (or at least `rank`): analyse again with
        that rank, or, when the kernel uses it with different ranks on different paths (one analysis per rank),
        this path does not belong to the rank being analysed.  `from_rank`: the rank this run gave it."""
        if param in getattr(self, "_rank_split", ()):
            raise V.PathAbort()
        if not getattr(self, "_no_retry", False):
            raise V.RankRetry(param, rank, at_least, from_rank=from_rank)

    def rank_observed(self, shape: V.GuessedShape) -> None:
        """The length of a guessed shape is taken (`len(x.shape)`, `tuple(x.shape)` copied into a helper's view
        and iterated): code that follows may fail only because the guess is wrong (a view class asserting
        `dim < len(self.shape)` after selecting two axes).  The latest such input is the one raised when every
        path of the kernel fails (see entry.run_kernel)."""
        observed = self._rank_observed
        observed.pop(shape.param, None)
        observed[shape.param] = len(shape) + shape.dropped

    def retry_kind(self, v: Any, kind: int) -> None:
        """A kernel parameter that was only guessed to be a tensor is used as an int or an object: analyse the
        kernel again with the parameter typed that way."""
        if not isinstance(v, V.TensorVal) or getattr(self, "_no_retry", False):
            return
        param = getattr(self, "_guessed_kind", {}).get(v.tensor.id)
        if param is not None:
            raise V.RankRetry(param, kind)

    @staticmethod
    def free_size(shape: tuple) -> E.IntLike:
        out: E.IntLike = 1
        for d in shape[1:]:
            out = E.lower(E.mul(out, d))
        return out

    # ------------------------------------------------------------------ subscripts
    def tensor_getitem(self, tv: V.TensorVal, key: Any, node: ast.AST | None) -> V.TensorVal:
        if isinstance(key, bool) and tv.tensor.buffer in ir.ON_CHIP:
            # a mask the front end has already settled (`t < 1` over a loop of one iteration): a mask, not the
            # index 0 or 1 a Python bool also is
            key = E.TRUE if key else E.FALSE
        if isinstance(key, E.BConst) and key.value and tv.tensor.buffer in ir.ON_CHIP:
            return tv
        if isinstance(key, E.BExpr) and tv.tensor.buffer in ir.ON_CHIP:
            # Beta-1 operand masking (`nl.matmul(lhs, rhs[i_f < n])`): the tile, with a mask the consuming
            # instruction applies
            v = tv.view
            mask = key if v.mask is None else E.band(v.mask, key)
            return V.TensorVal(tv.tensor, tv.instance, V.View(v.shape, v.offset, v.strides, v.iotas, v.dtype,
                                                              v.dynamic, mask, v.coords), tv.checks)
        if self.kb is not None:
            self.lint_nested_slice(tv, node)
        keys = list(key) if isinstance(key, tuple) else [key]
        view = tv.view
        rank = len(view.shape)
        if any(isinstance(k, V.GridTuple) for k in keys):
            flat = []
            for k in keys:
                flat.extend(k.grids if isinstance(k, V.GridTuple) else [k])
            keys = flat
        consuming = [k for k in keys if k is not None and k is not Ellipsis]
        if Ellipsis in keys:
            i = keys.index(Ellipsis)
            keys = keys[:i] + [slice(None)] * (rank - len(consuming)) + keys[i + 1:]
            consuming = [k for k in keys if k is not None]
        if len(consuming) > rank:
            param = getattr(self, "_guessed_ranks", {}).get(tv.tensor.id)
            if param is not None:
                self.rank_mismatch(param, len(consuming), at_least=True)
            hint = getattr(self, "_tile_from_guess", {}).get(tv.tensor.id)
            if hint is not None and not self._no_retry and hint[0] not in self.rank_settled():
                # a tile loaded from a view of an input whose rank is a guess (`slab = nl.load(table[i])`), then
                # indexed with more indices than it has (`slab[0:128, 0:64]`): the input has as many more axes
                raise V.RankRetry(hint[0], hint[1] + len(consuming) - rank, at_least=True, soft=True)
            self.kb.add_check(self.make_check(
                "NKI101", E.FALSE, f"{len(consuming)} indices for a tensor of rank {rank}", node))
            raise V.NotUnderstood(f"too many indices ({len(consuming)}) for a rank-{rank} tensor", node)
        if len(consuming) < rank and any(isinstance(k, V.IndexGrid) for k in keys):
            # `idx[i_p]` with index grids on an input whose rank was guessed: grids index every axis, so the
            # input has as many axes as the subscript (the alternative, grids mixed with implicit slices, is not
            # followed)
            param = getattr(self, "_guessed_ranks", {}).get(tv.tensor.id)
            if param is not None and param not in getattr(self, "_exact_params", ()):
                self.rank_mismatch(param, len(consuming))
        keys = keys + [slice(None)] * (rank - len(consuming))
        if any(isinstance(k, V.IndexGrid) for k in keys):
            return self._grid_subscript(tv, keys, node)
        return self._basic_subscript(tv, keys, node)

    def _basic_subscript(self, tv: V.TensorVal, keys: list, node: ast.AST | None) -> V.TensorVal:
        view = tv.view
        on_chip = tv.buffer in ir.ON_CHIP
        pdim = tv.tensor.par_dim or 0
        items: list = []
        shape: list = []
        strides: list = []
        offset = E.lift(view.offset)
        dynamic = view.dynamic
        axis = 0
        trivial = True
        dropped_last = None
        coords = view.coords
        new_rows: list = []
        zero_row = tuple(E.ZERO for _ in coords[0]) if coords is not None else None
        for k in keys:
            if k is None:
                shape.append(1)
                strides.append(0)
                new_rows.append(zero_row)
                continue
            dim = view.shape[axis]
            stride = view.strides[axis]
            span = self._item_span(node, len(items))
            if isinstance(k, slice):
                start, stop, step = self._norm_slice(k, dim, node)
                if not (start == 0 and k.stop is None and step == 1):
                    trivial = False
                items.append(ir.IdxSlice(E.lift(start), E.lift(stop), E.lift(step), span, k.stop is not None))
                size = self._slice_size(start, stop, step)
                shape.append(size)
                strides.append(E.lower(E.mul(stride, step)))
                offset = E.add(offset, E.mul(stride, start))
                if coords is not None:
                    new_rows.append(tuple(E.mul(r, step) for r in coords[2][axis]))
                    coords = _coords_index(coords, axis, start)
            elif isinstance(k, tuple) and len(k) == 3 and k[0] == "ds_dynamic":
                trivial = False
                dyn = self.runtime_value(k[1], self.runtime_label(k[1], node))
                items.append(ir.IdxSlice(E.lift(dyn), E.add(dyn, k[2]), E.ONE, span))
                dynamic = True
                shape.append(k[2])
                strides.append(stride)
                offset = E.add(offset, E.mul(stride, dyn))
                coords = None
            elif isinstance(k, (V.TensorVal, V.Register)):
                trivial = False
                dyn = self.runtime_value(k, self.runtime_label(k, node))
                items.append(ir.IdxInt(E.lift(dyn), span))
                dynamic = True
                offset = E.add(offset, E.mul(stride, dyn))
                coords = None
                if on_chip and axis == pdim:
                    shape.append(1)
                    strides.append(stride)
                else:
                    dropped_last = stride
            else:
                trivial = False
                i = self.from_the_end(self.as_int(k, "an index"), dim)
                items.append(ir.IdxInt(E.lift(i), span))
                offset = E.add(offset, E.mul(stride, i))
                if coords is not None:
                    coords = _coords_index(coords, axis, i)
                if on_chip and axis == pdim:
                    shape.append(1)
                    strides.append(stride)
                    new_rows.append(zero_row)
                else:
                    dropped_last = stride
            axis += 1
        if on_chip and len(shape) < 2:
            shape.append(1)
            strides.append(dropped_last if dropped_last is not None else 1)
            new_rows.append(zero_row)
        if coords is not None and None not in new_rows and len(new_rows) == len(shape):
            coords = (coords[0], coords[1], tuple(new_rows))
        else:
            coords = None
        if not trivial and not dynamic:
            self.kb.add_subscript(tensor=tv.tensor.id, shape=tuple(E.lift(d) for d in view.shape),
                                  items=tuple(items), span=self.span(node), ctx=self.ctx(), iotas=tuple(view.iotas))
        elif not trivial:
            self.kb.add_subscript(tensor=tv.tensor.id, shape=tuple(E.lift(d) for d in view.shape),
                                  items=tuple(items), span=self.span(node), ctx=self.ctx(), iotas=tuple(view.iotas),
                                  what="dynamic")
        nv = V.View(tuple(shape), E.lower(offset), tuple(strides), view.iotas, view.dtype, dynamic, view.mask,
                    coords)
        return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks)

    def _slice_size(self, start: E.IntLike, stop: E.IntLike, step: int) -> E.IntLike:
        extent = E.sub(stop, start)
        if step == 1:
            if self.kb is not None and E.decide(E.ge(extent, 0), self.kb.ranges) is True:
                return E.lower(extent)
            if self.kb is not None and self.decide(E.ge(extent, 0)) is True:
                return E.lower(extent)
        return E.lower(E.maximum(0, E.ceildiv(extent, step)))

    def _item_span(self, node: ast.AST | None, i: int) -> ir.Span | None:
        elt = _subscript_item(node, i)
        return self.span(elt) if elt is not None else None

    def _norm_slice(self, k: slice, dim: E.IntLike, node: ast.AST | None) -> tuple:
        step = 1 if k.step is None else self.as_int(k.step, "a slice step")
        if not isinstance(step, int) and self.kb is not None and self.decide(E.ge(E.lift(step), 1)) is True:
            pass  # a step computed from the shapes that the kernel's asserts keep positive (`x[:, c:F:F // G]`)
        elif not isinstance(step, int) or step <= 0:
            raise V.NotUnderstood("a slice whose step is not a known positive integer", node)
        start = 0 if k.start is None else self.as_int(k.start, "a slice start")
        stop = dim if k.stop is None else self.as_int(k.stop, "a slice stop")
        return self.from_the_end(start, dim), self.from_the_end(stop, dim), step

    def from_the_end(self, i: E.IntLike, dim: E.IntLike) -> E.IntLike:
        """Python's reading of a negative index or slice bound (`x[-1]`, `x[-r:]` with r computed from the
        shapes): counted from the end of the axis, before the kernel is traced.  One in terms of loop or program
        indices is an access pattern, which the hardware does not wrap (`x[i - 1]` at i = 0 is out of bounds)."""
        if isinstance(i, int):
            return (i + dim if isinstance(dim, int) else E.lower(E.add(dim, i))) if i < 0 else i
        e = E.lift(i)
        terms, const = E._linear_parts(e)
        if const > 0 or any(k > 0 for k in terms.values()) or self.kb is None or \
                any(self.is_exec_sym(s) for s in E.free_syms(e)):
            return i  # not written as a negative number (`-r`, `-(n % 128)`): an index from the start
        iv = E.interval(e, self.kb.ranges)
        if iv.lo is not None and iv.lo >= 0:
            return i
        d = True if iv.hi is not None and iv.hi < 0 else self.decide(E.lt(e, 0))
        if d is True:
            return E.lower(E.add(dim, e))
        if d is False:
            return i
        return E.lower(E.ite(E.lt(e, 0), E.add(dim, e), e))  # `x[-r:]` with r possibly 0: the whole axis then

    def _mixed_slices_as_grids(self, view: V.View, keys: list, rank: int, node: ast.AST | None) -> list:
        """Slices beside index grids in one subscript (`a[i_p, 0:512]`): the NKI compiler rejects the mix
        (NKI610), so each is reported and read as the grid of the elements it selects, placed on the result's
        axis the slice would give, so that the rest of the kernel is still checked.  The full slice of an axis of
        size 1 is accepted (`t[i_p, :]` of a (128, 1) tile)."""
        out = list(keys)
        turned = [axis for axis, k in enumerate(keys) if isinstance(k, slice) and not (
            k.start is None and k.stop is None and k.step is None
            and self.decide(E.eq(E.lift(view.shape[axis]), 1)) is True)]
        places = _numpy_places(keys, turned, rank)
        for axis in turned:
            k = keys[axis]
            elt = _subscript_item(node, axis) or node
            self.lint("NKI610", "this subscript mixes a slice with nl.arange/nl.mgrid index grids: the NKI compiler "
                      "rejects basic and advanced indexing together; index every axis with a grid "
                      "(nl.arange(n)[None, :]), or every axis with integers and slices", elt)
            lo, hi, step = self._norm_slice(k, view.shape[axis], node)
            size = self._slice_size(lo, hi, step)
            var = self.new_iota(size, elt)
            if places is None:
                pos, width = _result_axis(keys, axis), rank
            else:
                pos, width = places[axis], places["rank"]
            shape = (1,) * pos + (size,) + (1,) * max(0, width - pos - 1)
            out[axis] = V.IndexGrid(E.add(E.mul(var.var, step), lo), shape, (var,))
        if places is not None:
            # the grids' broadcast block at its place among the slices' axes
            at, width = places["block"], places["rank"]
            for axis, k in enumerate(keys):
                if isinstance(k, V.IndexGrid):
                    padded = (1,) * (rank - len(k.shape)) + tuple(k.shape)
                    out[axis] = V.IndexGrid(k.expr, (1,) * at + padded + (1,) * (width - at - rank), k.iotas)
        return out

    def _grid_subscript(self, tv: V.TensorVal, keys: list, node: ast.AST | None) -> V.TensorVal:
        view = tv.view
        rank = max(len(k.shape) for k in keys if isinstance(k, V.IndexGrid))
        keys = self._mixed_slices_as_grids(view, keys, rank, node)
        shapes = [k.shape for k in keys if isinstance(k, V.IndexGrid)]
        for axis, k in enumerate(keys):
            # an index tile (indirect access, `data[idx_tile[i_p, 0], i_f]`) spans its partitions along the axis
            # it indexes; an index whose value was not understood spans a number that is not known either
            if isinstance(k, V.TensorVal) and k.shape:
                size = k.shape[0]
            elif isinstance(k, V.Unknown):
                size = self.fresh_int(f"<size of an index tile: {k.reason}>")
            else:
                continue
            # the axis of the result it spans: axes indexed by a single integer (`cache[0, idx_tile, i_f]`) drop out
            pos = _result_axis(keys, axis)
            if pos < rank:
                shapes.append((1,) * pos + (size,) + (1,) * (rank - pos - 1))
        shape = self.broadcast_shapes(shapes, node)
        offset = E.lift(view.offset)
        items: list = []
        iotas: list = list(view.iotas)
        coords = view.coords
        for axis, k in enumerate(keys):
            stride = view.strides[axis]
            span = self._item_span(node, axis)
            if isinstance(k, V.IndexGrid):
                items.append(ir.IdxGrid(k.expr, span))
                offset = E.add(offset, E.mul(stride, k.expr))
                coords = _coords_index(coords, axis, k.expr)
                iotas.extend(k.iotas)
            elif isinstance(k, slice):
                continue  # the full slice of an axis of size 1 (`_mixed_slices_as_grids` turned the others)
            elif isinstance(k, (V.TensorVal, V.Register)):
                dyn = self.runtime_value(k, self.runtime_label(k, node))
                items.append(ir.IdxInt(E.lift(dyn), span))
                offset = E.add(offset, E.mul(stride, dyn))
                coords = None
            else:
                i = self.as_int(k, "an index")
                items.append(ir.IdxInt(E.lift(i), span))
                offset = E.add(offset, E.mul(stride, i))
                coords = _coords_index(coords, axis, i)
        iotas = list(dict.fromkeys(iotas))
        pending = dict(tensor=tv.tensor.id, shape=tuple(E.lift(d) for d in view.shape), items=tuple(items),
                       span=self.span(node), ctx=self.ctx(), iotas=tuple(iotas))
        if coords is not None:
            zero = tuple(E.ZERO for _ in coords[0])
            coords = (coords[0], coords[1], tuple(zero for _ in shape))
        nv = V.View(tuple(shape), offset, tuple(0 for _ in shape), tuple(iotas), view.dtype, view.dynamic,
                    coords=coords)
        return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks + (pending,))

    def flush_checks(self, deferred: list, mask: E.BExpr, node: ast.AST | None) -> None:
        seen = set()
        for d in deferred:
            key = (d["tensor"], d["span"], d["items"])
            if key in seen:
                continue
            seen.add(key)
            self.kb.add_subscript(mask=mask, **d)

    def broadcast_shapes(self, shapes: list, node: ast.AST | None) -> tuple:
        rank = max(len(s) for s in shapes)
        out: list = []
        for i in range(rank):
            dims = [s[i - (rank - len(s))] for s in shapes if i - (rank - len(s)) >= 0]
            non_one = [d for d in dims if not (isinstance(d, int) and d == 1)]
            if not non_one:
                out.append(1)
                continue
            d0 = non_one[0]
            for d in non_one[1:]:
                if isinstance(d0, int) and isinstance(d, int):
                    if d0 != d:
                        raise V.NotUnderstood(f"shapes {shapes} do not broadcast", node)
                elif self.kb is not None and E.lift(d0) != E.lift(d) and (len({len(s) for s in shapes}) > 1 or i > 0):
                    # sizes known only symbolically: equal, or one of them 1, for the operands to broadcast (the
                    # partitions of operands of one rank are the instruction rules' to compare)
                    a, b = E.lift(d0), E.lift(d)
                    self.kb.add_check(self.make_check(
                        "NKI501", E.bor(E.eq(a, b), E.eq(a, 1), E.eq(b, 1)),
                        f"operands of shapes {shapes_text(shapes)} must broadcast (numpy rules: trailing axes "
                        f"aligned): {E.short(a)} and {E.short(b)} on axis {i - rank}", node))
            out.append(d0)
        return tuple(out)

    # ------------------------------------------------------------------ assignment into tensors (Beta 1)
    def tensor_setitem(self, tv: V.TensorVal, key: Any, value: Any, node: ast.AST | None) -> None:
        target = self.tensor_getitem(tv, key, node)
        self._assign_into(target, value, node, "w", None)

    def tensor_augassign(self, tv: V.TensorVal, key: Any, op: type, rhs: Any, node: ast.AST | None) -> None:
        target = self.tensor_getitem(tv, key, node) if key is not None else tv
        name = TILE_BINOPS.get(op, op.__name__)
        self._assign_into(target, rhs, node, "rw", name)

    def _assign_into(self, target: V.TensorVal, value: Any, node: ast.AST | None, mode: str,
                     accumulate: str | None) -> None:
        if isinstance(value, V.Phi):
            # `if t.dtype != x.dtype: x = nl.copy(x, dtype=...)` with dtypes not known: one assignment per side,
            # each under its condition
            d = self.decide(value.cond)
            if d is not None:
                self._assign_into(target, value.a if d else value.b, node, mode, accumulate)
                return
            f = self.frame
            for cond, side in ((value.cond, value.a), (E.bnot(value.cond), value.b)):
                f.pc.append(cond)
                try:
                    self._assign_into(target, side, node, mode, accumulate)
                finally:
                    f.pc.pop()
            return
        operands = [self.operand_ir("dst", target, mode, node)]
        attrs: list = []
        if accumulate:
            attrs.append(("accumulate", accumulate))
        if isinstance(value, V.TensorVal):
            self._assign_rank_hint(target, value)
            operands.append(self.operand_ir("src", value, "r", node))
            deferred = list(target.checks) + list(value.checks)
            if value.tensor.kind == "result" and not accumulate and any(
                    i.op == "language.loop_reduce" and any(o.tensor == value.tensor.id and o.mode == "w"
                                                          for o in i.operands) for i in reversed(self.kb.instrs)):
                attrs.append(("accumulate", "loop_reduce"))
        elif isinstance(value, (int, float, bool, E.Expr, V.SymFloat)):
            attrs.append(("value", value if not isinstance(value, V.SymFloat) else "<float>"))
            deferred = list(target.checks)
        else:
            silent = isinstance(value, V.Unknown) and value.span is not None
            raise V.NotUnderstood(f"assigning a {V.describe(value)} into a tensor", node, silent=silent)
        mask = self._last_mask()
        self.flush_checks(deferred, mask, node)
        self.kb.add_instr(op="language.__assign__", dialect=self.kb.dialect, operands=tuple(operands),
                          attrs=tuple(attrs), span=self.span(node), ctx=self.ctx(), mask=mask,
                          iotas=tuple(dict.fromkeys(list(target.view.iotas) + (
                              list(value.view.iotas) if isinstance(value, V.TensorVal) else []))))
        # what the target holds now (index tiles clamped by `y[...] = nl.bitwise_and(y, 1023)`); an accumulation
        # or a value not followed leaves it unknown
        self.track_assignment(target, value, accumulate, mask)

    def _assign_rank_hint(self, target: V.TensorVal, value: V.TensorVal) -> None:
        """`buf[0:128, 0:512] = nl.load(x[i])` with x's rank only a guess, the loaded tile having fewer
        dimensions than the view and an element count that cannot match it: the kernel means x to have as
        many more dimensions (a soft hint, like the operand hint of NkiMixin._rank_hint).  A result computed from
        such a tile (`nc_matmul(nl.load(a[i]), ...)`) that cannot match: at least one more."""
        if self._no_retry or self.kb is None:
            return
        hint = self._tile_from_guess.get(value.tensor.id)
        if hint is not None:
            param, full, _ = hint
            wider = len(target.shape)
            if wider <= len(value.shape):
                return
            retry = V.RankRetry(param, full + wider - len(value.shape), at_least=True, soft=True)
        else:
            derived = self._derived_from_guess.get(value.tensor.id)
            if derived is None:
                return
            param, full = derived
            retry = V.RankRetry(param, full + 1, at_least=True, soft=True, from_rank=full)
        if param in self.rank_settled():
            return
        numel = [E.lift(self.free_size((1,) + tuple(t.shape))) for t in (target, value)]
        if self.decide(E.eq(*numel)) is False:
            raise retry

    def _last_mask(self) -> E.BExpr:
        kb = self.kb
        if kb.instrs and kb.instrs[-1].span.line == getattr(self.current_stmt, "lineno", -1):
            return kb.instrs[-1].mask
        return E.TRUE

    # ------------------------------------------------------------------ operators on tiles and grids
    def tensor_binop(self, op: type, a: Any, b: Any, node: ast.AST | None) -> Any:
        for x, y in ((a, b), (b, a)):
            if isinstance(x, V.TensorVal) and x.tensor.kind == "param" and not isinstance(y, V.TensorVal):
                self.retry_kind(x, V.KIND_INT)  # `block_size // 128`: an HBM input is never computed on
        if isinstance(a, V.IndexGrid) or isinstance(b, V.IndexGrid):
            if not isinstance(a, V.TensorVal) and not isinstance(b, V.TensorVal):
                return self._grid_arith(op, a, b, node)
        self._no_b2_operators(a, b, node=node)
        name = TILE_BINOPS.get(op)
        if name is None:
            raise V.NotUnderstood(f"operator {op.__name__} on tiles", node)
        dialect = self.kb.dialect if self.kb else ir.B1
        ins = spec.lookup(f"language.{name}")
        return self.emit_instruction(ins, dialect, [a, b], {}, node)

    def _no_b2_operators(self, *operands: Any, node: ast.AST | None) -> None:
        """In a Beta-2 kernel a tensor has no arithmetic, bitwise or ordering operators (the tile operators are
        Beta 1's, see the API's NkiTensor): tracing raises TypeError here (NKI609), and the path ends."""
        if self.kb is None or self.kb.dialect != ir.B2:
            return
        t = next((x for x in operands if isinstance(x, V.TensorVal)), None)
        if t is None:
            return
        for x in operands:
            self.retry_kind(x, V.KIND_INT)  # a parameter only guessed to be a tensor is a number (`group >= 2`)
        self.type_error(f"an operator applied to the tensor {t.tensor.name!r}: Beta-2 tensors have no operators "
                        "(Beta 1's tile operators were removed), so Python raises TypeError here while tracing; "
                        "compute on tiles with nisa instructions, and hand a value held in a tile to the "
                        "instruction that reads it (scalar_offset=, a register)", node)

    def _grid_arith(self, op: type, a: Any, b: Any, node: ast.AST | None) -> Any:
        ga = a if isinstance(a, V.IndexGrid) else None
        gb = b if isinstance(b, V.IndexGrid) else None
        ea = ga.expr if ga else E.lift(self.as_int(a, "an index offset"))
        eb = gb.expr if gb else E.lift(self.as_int(b, "an index offset"))
        fns = {ast.Add: E.add, ast.Sub: E.sub, ast.Mult: E.mul, ast.FloorDiv: E.floordiv, ast.Mod: E.mod}
        fn = fns.get(op)
        if fn is None:
            raise V.NotUnderstood(f"operator {op.__name__} on index grids", node)
        shapes = [g.shape for g in (ga, gb) if g is not None]
        shape = self.broadcast_shapes(shapes, node)
        iotas = tuple(dict.fromkeys((ga.iotas if ga else ()) + (gb.iotas if gb else ())))
        return V.IndexGrid(fn(ea, eb), shape, iotas)

    def tensor_unop(self, op: type, v: Any, node: ast.AST | None) -> Any:
        if isinstance(v, V.IndexGrid):
            if op is ast.USub:
                return V.IndexGrid(E.neg(v.expr), v.shape, v.iotas)
            if op is ast.UAdd:
                return v
        self._no_b2_operators(v, node=node)
        name = {ast.USub: "negative", ast.Invert: "invert"}.get(op)
        if name is None:
            raise V.NotUnderstood(f"unary {op.__name__} on a tile", node)
        ins = spec.lookup(f"language.{name}")
        return self.emit_instruction(ins, self.kb.dialect if self.kb else ir.B1, [v], {}, node)

    def tensor_compare(self, op: type, a: Any, b: Any, node: ast.AST | None) -> Any:
        if not isinstance(a, V.TensorVal) and not isinstance(b, V.TensorVal):
            ea = a.expr if isinstance(a, V.IndexGrid) else E.lift(self.as_int(a))
            eb = b.expr if isinstance(b, V.IndexGrid) else E.lift(self.as_int(b))
            fns = {ast.Lt: E.lt, ast.LtE: E.le, ast.Gt: E.gt, ast.GtE: E.ge, ast.Eq: E.eq, ast.NotEq: E.ne}
            r = fns[op](ea, eb)
            return r.value if isinstance(r, E.BConst) else r
        if op in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
            self._no_b2_operators(a, b, node=node)
        name = TILE_CMPS.get(op)
        if name is None:
            raise V.NotUnderstood(f"comparison {op.__name__} on tiles", node)
        ins = spec.lookup(f"language.{name}")
        return self.emit_instruction(ins, self.kb.dialect if self.kb else ir.B1, [a, b], {}, node)


# ----------------------------------------------------------------------------- tensor methods


def _contiguous_free(view: V.View) -> bool:
    shape, strides = view.shape, view.strides
    if view.iotas:
        return False
    if len(shape) <= 1:
        return True
    expect: E.IntLike = 1
    for d, s in zip(reversed(shape[1:]), reversed(strides[1:])):
        if isinstance(d, int) and d == 1:
            continue
        if E.lift(s) != E.lift(expect):
            return False
        expect = E.lower(E.mul(expect, d))
    return True


def _contiguous_all(view: V.View) -> bool:
    if not _contiguous_free(view):
        return False
    if len(view.shape) <= 1:
        return E.lift(view.strides[0] if view.strides else 1) == E.ONE or view.shape == (1,)
    free: E.IntLike = 1
    for d in view.shape[1:]:
        free = E.lower(E.mul(free, d))
    return E.lift(view.strides[0]) == E.lift(free) or (isinstance(view.shape[0], int) and view.shape[0] == 1)


def _reshape_rank_hint(it: Any, tv: V.TensorVal, new_total: E.IntLike, c: E.BExpr) -> None:
    """A reshape of a whole input whose rank is only a guess, which keeps the number of elements with fewer
    dimensions but not with the guessed ones (`g.reshape((1, n))` after `assert x.shape[1] == g.shape[0]`, g
    guessed 2-D): the kernel means that smaller rank.  Analysed again with it, still a guess (a later use such
    as `g.shape[1]` corrects it; a use that settled the rank first keeps the guess and the finding)."""
    if getattr(it, "_no_retry", False):
        return
    param = it._guessed_ranks.get(tv.tensor.id)
    if param is None:
        return
    full = tuple(E.lift(d) for d in tv.tensor.shape)
    if param in it.rank_settled() or tuple(E.lift(d) for d in tv.shape) != full or tv.view.offset != E.ZERO:
        return
    if it.decide(c) is True:
        return
    for rank in range(len(full) - 1, 0, -1):
        if it.decide(E.eq(it.free_size((1,) + full[:rank]), new_total)) is True:
            raise V.RankRetry(param, rank, soft=True)


def t_reshape(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv: V.TensorVal = args[0]
    rest = args[1:]
    if len(rest) == 1 and isinstance(rest[0], (tuple, V.PyList)):
        dims = list(it.iterate_known(rest[0], node))
    else:
        dims = list(rest) if rest else list(it.iterate_known(kw.get("shape"), node))
    # (a Beta-1 `par_dim(128)` among the new dimensions names the partition axis: its size is the dimension)
    new = [it.as_int(d.size if isinstance(d, V.ParDim) else d, "a reshape dimension") for d in dims]
    total = it.free_size((1,) + tuple(tv.shape))
    if any(isinstance(d, int) and d == -1 for d in new):
        known: E.IntLike = 1
        for d in new:
            if not (isinstance(d, int) and d == -1):
                known = E.lower(E.mul(known, d))
        new = [E.lower(E.floordiv(total, known)) if isinstance(d, int) and d == -1 else d for d in new]
    new_total = it.free_size((1,) + tuple(new))
    if it.kb is not None:
        c = E.eq(total, new_total)
        if c != E.TRUE:
            _reshape_rank_hint(it, tv, new_total, c)
            it.kb.add_check(it.make_check("NKI501", c, f"reshape from {_shape_str(tv.shape)} to {_shape_str(new)} "
                                                       f"must keep the number of elements", node))
    view = tv.view
    on_chip = tv.buffer in ir.ON_CHIP
    if on_chip:
        if not _contiguous_free(view):
            raise V.NotUnderstood("reshape of a view whose free dimensions are not contiguous", node)
        strides = (view.strides[0],) + row_major(tuple(new[1:]))
    else:
        if not _contiguous_all(view):
            raise V.NotUnderstood("reshape of a non-contiguous view", node)
        strides = row_major(tuple(new))
    coords = None
    full = view.offset == E.ZERO and tuple(E.lift(d) for d in view.shape) == tuple(tv.tensor.shape)
    if full and not view.iotas and (not on_chip or len(new) >= 1):
        coords = identity_coords(tuple(new))
    nv = V.View(tuple(new), view.offset, tuple(strides), view.iotas, view.dtype, view.dynamic, coords=coords)
    return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks)


def _shape_str(s: Any) -> str:
    return "(" + ", ".join(E.short(E.lift(d)) for d in s) + ")"


def t_ap(it: Any, args: list, kw: dict, node: Any) -> Any:
    """`.ap(pattern, offset=None, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None)`: the
    pattern addresses the underlying storage; `offset` is added to the view's own (API docstring)."""
    tv: V.TensorVal = args[0]
    names = ["pattern", "offset", "scalar_offset", "vector_offset", "indirect_dim", "dtype"]
    bound = dict(zip(names, args[1:]))
    bound.update(kw)
    pattern = it.iterate_known(bound.get("pattern"), node)
    pairs = []
    for p in pattern:
        step, num = it.iterate_known(p, node, 2)
        pairs.append((it.as_int(step, "an access-pattern step"), it.as_int(num, "an access-pattern count")))
    dt = bound.get("dtype")
    view_dtype = it.api_dtype(dt) if dt is not None else tv.view.dtype
    num, den = _dtype_ratio(tv.tensor.dtype, view_dtype)  # storage elements -> view elements

    def units(e: E.IntLike) -> E.Expr:
        return E.floordiv(E.mul(e, num), den) if den != 1 else E.mul(e, num)

    offset = bound.get("offset")
    base = units(tv.view.offset)
    if isinstance(offset, V.TensorVal):
        # (arithmetic on an SBUF tensor is a tensor: `block_idx * row_size` with block_idx a (1, 1) tile)
        raise V.NotUnderstood("the offset of .ap() is an integer known when the kernel is traced, and this one is "
                              "a tensor: a value held in a tensor or register goes in scalar_offset= (with "
                              "indirect_dim=, whose dimensions after it scale the value)", node)
    if offset is not None:
        base = E.add(base, it.as_int(offset, "an access-pattern offset"))
    dynamic = tv.view.dynamic
    so, vo = bound.get("scalar_offset"), bound.get("vector_offset")
    indirect_dim = bound.get("indirect_dim", 0) or 0
    strides = [s for s, _ in pairs]
    first_step = E.lift(strides[0]) if strides else None
    if so is not None or vo is not None:
        dynamic = True
        src = vo if vo is not None else so
        dyn = it.runtime_value(src, it.runtime_label(src, node))
        if isinstance(indirect_dim, int):
            # the dimensions after `indirect_dim` of the tensor `.ap` is called on, not the pattern's (the migration
            # guide: the offset is `scalar_offset * prod(A.shape[indirect_dim + 1:])`): a reshape's own
            # (`t.reshape((n // B, B)).ap(..., scalar_offset=row, indirect_dim=0)` starts at row * B)
            shape = tuple(tv.view.shape)
            mult = it.free_size((1,) + shape[indirect_dim + 1:]) if indirect_dim + 1 <= len(shape) else 1
            base = E.add(base, E.mul(dyn, units(mult)))
        if vo is not None and strides:
            strides[0] = 0  # the row comes from the index vector; the written step is ignored
    nv = V.View(tuple(n for _, n in pairs), E.lower(base), tuple(strides), tv.view.iotas, view_dtype, dynamic)
    if it.kb is not None:
        t = tv.tensor
        numel = units(it.free_size((1,) + tuple(t.shape)))
        on_chip = t.buffer in ir.ON_CHIP and len(t.shape) >= 1
        acc = ir.Access(E.lift(base), tuple((E.lift(s), E.lift(n)) for s, (_, n) in zip(strides, pairs)),
                        tuple(tv.view.iotas), dynamic)
        pat = ir.Pattern(acc, E.lift(numel), E.lift(t.shape[0]) if on_chip else None,
                         units(it.free_size((1,) + tuple(t.shape[1:]))) if on_chip else None,
                         vo is not None, first_step)
        it.kb.add_subscript(tensor=t.id, shape=tuple(E.lift(d) for d in t.shape), items=(),
                            span=it.span(node), ctx=it.ctx(), what="ap", iotas=tuple(tv.view.iotas), pattern=pat)
    return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks)


def _dtype_ratio(storage: str | None, view: str | None) -> tuple:
    """(num, den): one storage element is num/den view elements (bf16 over fp32: 2/1)."""
    from ..spec import dtypes as D

    if not storage or not view or storage == view or storage.startswith("?") or view.startswith("?"):
        return 1, 1
    if storage not in D.DTYPES or view not in D.DTYPES:
        return 1, 1
    a, b = D.size_bytes(storage), D.size_bytes(view)
    return (a // b, 1) if a >= b else (1, b // a)


def t_slice(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv = args[0]
    names = ["dim", "start", "end", "step"]
    b = dict(zip(names, args[1:]))
    b.update(kw)
    dim = b["dim"]
    if not isinstance(dim, int):
        raise V.NotUnderstood("tensor.slice() on a dimension that is not a known integer", node)
    keys: list = [slice(None)] * len(tv.shape)
    keys[dim] = slice(b.get("start", 0), b.get("end"), b.get("step", 1))
    return it.tensor_getitem(tv, tuple(keys), node)


def t_select(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, dim, index = args[0], args[1] if len(args) > 1 else kw["dim"], args[2] if len(args) > 2 else kw["index"]
    if not isinstance(dim, int):
        raise V.NotUnderstood("tensor.select() on a dimension that is not a known integer", node)
    keys: list = [slice(None)] * len(tv.shape)
    keys[dim] = index
    out = it.tensor_getitem(tv, tuple(keys), node)
    return out


def t_permute(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv = args[0]
    dims = it.iterate_known(args[1] if len(args) == 2 else tuple(args[1:]), node)
    if sorted(dims) != list(range(len(tv.shape))):
        param = it._guessed_ranks.get(tv.tensor.id)
        if param is not None and sorted(dims) == list(range(len(dims))) and len(tv.shape) == len(tv.tensor.shape):
            it.rank_mismatch(param, len(dims))  # a permutation of another rank than guessed: the input's rank
        raise V.NotUnderstood("permute() with dims that are not a permutation", node)
    v = tv.view
    coords = v.coords
    if coords is not None:
        coords = (coords[0], coords[1], tuple(coords[2][d] for d in dims))
    nv = V.View(tuple(v.shape[d] for d in dims), v.offset, tuple(v.strides[d] for d in dims), v.iotas, v.dtype,
                v.dynamic, coords=coords)
    return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks)


def _with_rows(v: V.View, shape: list, strides: list, rows: list | None) -> V.View:
    coords = None if rows is None or v.coords is None else (v.coords[0], v.coords[1], tuple(rows))
    return V.View(tuple(shape), v.offset, tuple(strides), v.iotas, v.dtype, v.dynamic, coords=coords)


def _rows(v: V.View) -> list | None:
    return list(v.coords[2]) if v.coords is not None else None


def _zero_row(v: V.View) -> tuple:
    return tuple(E.ZERO for _ in v.coords[0]) if v.coords is not None else ()


def t_broadcast(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, dim, size = args[0], args[1], args[2]
    v = tv.view
    shape, strides, rows = list(v.shape), list(v.strides), _rows(v)
    shape[dim] = it.as_int(size)
    strides[dim] = 0
    if rows is not None:
        rows[dim] = _zero_row(v)
    return V.TensorVal(tv.tensor, tv.instance, _with_rows(v, shape, strides, rows), tv.checks)


def t_expand_dim(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, dim = args[0], args[1]
    v = tv.view
    shape, strides, rows = list(v.shape), list(v.strides), _rows(v)
    shape.insert(dim, 1)
    strides.insert(dim, 0)
    if rows is not None:
        rows.insert(dim, _zero_row(v))
    return V.TensorVal(tv.tensor, tv.instance, _with_rows(v, shape, strides, rows), tv.checks)


def t_squeeze_dim(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, dim = args[0], args[1]
    v = tv.view
    shape, strides, rows = list(v.shape), list(v.strides), _rows(v)
    del shape[dim]
    del strides[dim]
    if rows is not None:
        del rows[dim]
    return V.TensorVal(tv.tensor, tv.instance, _with_rows(v, shape, strides, rows), tv.checks)


def t_view(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv = args[0]
    new = it.api_dtype(args[1] if len(args) > 1 else kw.get("dtype"))
    old = it.settled_dtype(tv.dtype)
    if new is None:
        raise V.NotUnderstood("a view() to a dtype that is not known", node)
    unknown = [d for d in (old, new) if d is not None and d not in D.DTYPES]
    if unknown and old != new:  # the same dtype, even one not known, is the same element size
        raise V.NotUnderstood(f"view() of a tensor as {new} while {unknown[0].lstrip('?')} is not known "
                              f"(the element size decides the shape)", node)
    if old is None or old == new or D.size_bytes(old) == D.size_bytes(new):
        v = tv.view
        return V.TensorVal(tv.tensor, tv.instance, V.View(v.shape, v.offset, v.strides, v.iotas, new, v.dynamic,
                                                          coords=v.coords), tv.checks)
    raise V.NotUnderstood(f"reinterpreting {old} as {new} (different sizes) is not modelled yet", node)


def t_is_contiguous(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv = args[0]
    return _contiguous_free(tv.view) if tv.buffer in ir.ON_CHIP else _contiguous_all(tv.view)


def t_is_indirect(it: Any, args: list, kw: dict, node: Any) -> Any:
    return bool(args[0].view.dynamic)


def t_get_pattern(it: Any, args: list, kw: dict, node: Any) -> Any:
    v = args[0].view
    return V.PyList(it.heap, [V.PyList(it.heap, [s, n]) for s, n in zip(v.strides, v.shape)])


def t_flatten_dims(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, start, end = args[0], args[1], args[2]
    shape = list(tv.shape)
    merged: E.IntLike = 1
    for d in shape[start:end + 1]:
        merged = E.lower(E.mul(merged, d))
    new = shape[:start] + [merged] + shape[end + 1:]
    return t_reshape(it, [tv, tuple(new)], {}, node)


def t_reshape_dim(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv, dim, sub = args[0], args[1], it.iterate_known(args[2], node)
    shape = list(tv.shape)
    new = shape[:dim] + list(sub) + shape[dim + 1:]
    return t_reshape(it, [tv, tuple(new)], {}, node)


def t_rearrange(it: Any, args: list, kw: dict, node: Any) -> Any:
    """`.rearrange(src_pattern, dst_pattern, fixed_sizes=None)`, einops style: each source dimension split into
    its group of names, the names put in the destination's order, each destination group merged (API
    docstring).  A split is a reshape (the element count is checked); a merge needs its dimensions adjacent in
    memory."""
    tv: V.TensorVal = args[0]
    bound = dict(zip(["src_pattern", "dst_pattern", "fixed_sizes"], args[1:]))
    bound.update(kw)
    fixed = bound.get("fixed_sizes")
    sizes = dict(fixed.items) if isinstance(fixed, V.PyDict) else dict(fixed or {})

    def groups(pattern: Any) -> list:
        out = []
        for entry in it.iterate_known(pattern, node):
            names = [entry] if isinstance(entry, str) else list(it.iterate_known(entry, node))
            if not names or not all(isinstance(n, str) for n in names):
                raise V.NotUnderstood("rearrange() with a pattern that is not names or groups of names", node)
            out.append(names)
        return out

    src, dst = groups(bound.get("src_pattern")), groups(bound.get("dst_pattern"))
    flat_src = [n for g in src for n in g]
    flat_dst = [n for g in dst for n in g]
    if len(src) != len(tv.shape) or sorted(flat_src) != sorted(flat_dst) or len(set(flat_src)) != len(flat_src):
        raise V.NotUnderstood("rearrange() whose patterns do not match the tensor's rank or each other", node)
    v = tv.view
    split_shape: list = []
    split_strides: list = []
    for axis, (names, d, stride) in enumerate(zip(src, v.shape, v.strides)):
        unknown = [n for n in names if n not in sizes]
        if len(unknown) > 1:
            raise V.NotUnderstood(f"rearrange() with the sizes of {', '.join(unknown)} unknown", node)
        known: E.IntLike = 1
        for n in names:
            if n in sizes:
                known = E.lower(E.mul(known, it.as_int(sizes[n], "a rearrange size")))
        part = [it.as_int(sizes[n], "a rearrange size") if n in sizes else E.lower(E.floordiv(d, known))
                for n in names]
        total: E.IntLike = 1
        for x in part:
            total = E.lower(E.mul(total, x))
        if it.kb is not None and len(names) > 1:
            c = E.eq(total, d)
            if c != E.TRUE:
                it.kb.add_check(it.make_check("NKI501", c, f"rearrange: the sizes of ({', '.join(names)}) must "
                                                           f"multiply to axis {axis}'s {E.short(E.lift(d))}", node))
        split_shape.extend(part)
        split_strides.extend(E.lower(E.mul(stride, r)) for r in row_major(tuple(part)))
    order = [flat_src.index(n) for n in flat_dst]
    if tv.buffer in ir.ON_CHIP and (len(src[0]) > 1 or order[0] != 0 or len(dst[0]) > 1):
        raise V.NotUnderstood("rearrange() that moves or splits the partition dimension", node)
    tv = V.TensorVal(tv.tensor, tv.instance, V.View(tuple(split_shape[i] for i in order), v.offset,
                                                    tuple(split_strides[i] for i in order), v.iotas, v.dtype,
                                                    v.dynamic), tv.checks)
    v = tv.view
    shape, strides, k = [], [], 0
    for names in dst:
        size: E.IntLike = v.shape[k]
        for j in range(k + 1, k + len(names)):
            if E.lift(v.strides[j - 1]) != E.lift(E.mul(v.strides[j], v.shape[j])):
                raise V.NotUnderstood("rearrange() merging dimensions that are not adjacent in memory", node)
            size = E.lower(E.mul(size, v.shape[j]))
        shape.append(size)
        strides.append(v.strides[k + len(names) - 1])
        k += len(names)
    if len(shape) == len(v.shape):
        return tv
    nv = V.View(tuple(shape), v.offset, tuple(strides), v.iotas, v.dtype, v.dynamic)
    return V.TensorVal(tv.tensor, tv.instance, nv, tv.checks)


def t_dynamic(it: Any, args: list, kw: dict, node: Any) -> Any:
    tv = args[0]
    v = tv.view
    return V.TensorVal(tv.tensor, tv.instance, V.View(v.shape, v.offset, v.strides, v.iotas, v.dtype, True),
                       tv.checks)


def t_vector_select(it: Any, args: list, kw: dict, node: Any) -> Any:
    """`.vector_select(0, vector_offset)`: partition p reads the row `vector_offset[p]`; the view has
    vector_offset.shape[0] partitions and the rest of the tensor's axes (API docstring)."""
    tv = args[0]
    b = dict(zip(["dim", "vector_offset"], args[1:]))
    b.update(kw)
    idx, v = b.get("vector_offset"), tv.view
    if b.get("dim", 0) != 0 or not isinstance(idx, V.TensorVal) or not v.shape or not v.strides:
        return t_dynamic(it, args, kw, node)
    dyn = it.runtime_value(idx, it.runtime_label(idx, node))
    offset = E.lower(E.add(E.lift(v.offset), E.mul(dyn, E.lift(v.strides[0]))))
    view = V.View((idx.shape[0],) + tuple(v.shape[1:]), offset, (0,) + tuple(v.strides[1:]), v.iotas, v.dtype, True)
    return V.TensorVal(tv.tensor, tv.instance, view, tv.checks)


def t_indirect(it: Any, args: list, kw: dict, node: Any) -> Any:
    """`.indirect(index, num_elem=None)` (trn3 Tensor Indirection): each partition reads `num_elem` elements
    (default index.size) at free offsets read from `index`: a (P, num_elem) view (API docstring)."""
    tv = args[0]
    b = dict(zip(["index", "num_elem"], args[1:]))
    b.update(kw)
    idx, v = b.get("index"), tv.view
    if not isinstance(idx, V.TensorVal) or len(v.shape) < 2:
        return t_dynamic(it, args, kw, node)
    n = b.get("num_elem")
    n = it.free_size((1,) + tuple(idx.shape)) if n is None else it.as_int(n, "num_elem")
    dyn = it.runtime_value(idx, it.runtime_label(idx, node))
    offset = E.lower(E.add(E.lift(v.offset), E.mul(dyn, E.lift(v.strides[-1]))))
    view = V.View((v.shape[0], n), offset, (v.strides[0], 0), v.iotas, v.dtype, True)
    return V.TensorVal(tv.tensor, tv.instance, view, tv.checks)


def _nl_method(name: str):
    """Beta-1 tiles expose some nki.language functions as methods (tile.broadcast_to(shape))."""

    def call(it: Any, args: list, kw: dict, node: Any) -> Any:
        ins = spec.lookup(f"language.{name}")
        dialect = it.kb.dialect if it.kb is not None else ir.B1
        return it.emit_instruction(ins, dialect, list(args), kw, node)

    return call


_TENSOR_METHODS = {
    "reshape": t_reshape, "ap": t_ap, "slice": t_slice, "select": t_select, "permute": t_permute,
    "broadcast": t_broadcast, "expand_dim": t_expand_dim, "squeeze_dim": t_squeeze_dim, "view": t_view,
    "reinterpret_cast": t_view, "is_contiguous": t_is_contiguous, "get_pattern": t_get_pattern,
    "flatten_dims": t_flatten_dims, "reshape_dim": t_reshape_dim, "vector_select": t_vector_select,
    "indirect": t_indirect, "bitcast": t_view, "rearrange": t_rearrange, "is_indirect": t_is_indirect,
    "broadcast_to": _nl_method("broadcast_to"),
}


def _subscript_item(node: ast.AST | None, i: int) -> ast.AST | None:
    """The AST of a subscript's i-th item, if it has one."""
    if isinstance(node, ast.Subscript):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if i < len(elts):
            return elts[i]
    return None


def _numpy_places(keys: list, turned: list, rank: int) -> dict | None:
    """Where a mixed subscript's slices and grids go when the grids do not span its axes (`t[:, nl.arange(64)]`:
    one-dimensional grids beside slices), as numpy places them: each slice keeps an axis of its own and the
    grids' broadcast shape (`rank` axes) sits where they are, or first when slices separate them.  {item's
    axis: result axis, "block": the grids' first result axis, "rank": the result's rank}; None when the grids
    have an axis for every item (`a[i_p, 0:512]` with i_p = nl.arange(128)[:, None]: the slice fills its own)."""
    if not turned or any(isinstance(k, (V.TensorVal, V.Unknown)) for k in keys):
        return None
    grids = [axis for axis, k in enumerate(keys) if isinstance(k, V.IndexGrid)]
    making = [axis for axis, k in enumerate(keys) if isinstance(k, (V.IndexGrid, slice))]
    if not grids or rank >= len(making):
        return None
    inner = [axis for axis in making if grids[0] <= axis <= grids[-1]]
    together = all(isinstance(keys[axis], V.IndexGrid) for axis in inner)
    out: dict = {}
    pos = 0 if together else rank
    for axis in making:
        if isinstance(keys[axis], V.IndexGrid):
            if together and axis == grids[0]:
                out["block"] = pos
                pos += rank
            continue
        out[axis] = pos
        pos += 1
    out.setdefault("block", 0)
    out["rank"] = rank + len(turned)
    return out


def _result_axis(keys: list, axis: int) -> int:
    """The axis of a grid subscript's result that item `axis` spans: the items before it that make an axis (grids,
    index tiles, slices); one indexed by a single integer drops out (`cache[0, idx_tile, i_f]`)."""
    return sum(1 for k in keys[:axis] if isinstance(k, (V.IndexGrid, V.TensorVal, V.Unknown, slice)))
