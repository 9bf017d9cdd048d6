"""The NKI API as the front end sees it: `nki` / `neuronxcc.nki` modules, constants, calls.

Calls of instructions are driven by `compiler.spec`: the signature binds the
arguments, the operand table says which are tensors and how they are accessed,
and the result description shapes the tile a value-returning form creates.
"""

from __future__ import annotations

import ast
import functools
import os
from typing import Any

from .. import expr as E
from .. import ir
from .. import spec
from ..spec import dtypes as D
from ..spec.schema import MISSING as SPEC_MISSING
from ..spec.targets import get_target, tile_size
from . import values as V
from .builtins import make_range
from .tensors import shapes_text

BUFFERS = {"sbuf": ir.SBUF, "psum": ir.PSUM, "hbm": ir.HBM, "shared_hbm": ir.SHARED_HBM,
           "private_hbm": ir.PRIVATE_HBM}
ISA_ENUMS = {
    "engine": ("tensor", "scalar", "gpsimd", "dma", "vector", "sync", "unknown", "activation", "pool"),
    "reduce_cmd": ("idle", "reset", "reduce", "reset_reduce", "load_reduce"),
    "dge_mode": ("unknown", "swdge", "hwdge", "none"),
    "oob_mode": ("error", "skip"),
    "matmul_perf_mode": ("none", "double_row", "double_row_gen3", "double_row_gen4"),
    "nc_version": ("gen2", "gen3", "gen4"),
    "dma_engine": ("dma", "gpsimd_dma"),
}
DEPRECATED_ENGINES = {"tensor_engine": "tensor", "vector_engine": "vector", "scalar_engine": "scalar",
                      "gpsimd_engine": "gpsimd", "unknown_engine": "unknown"}
LOOP_KINDS = {"affine_range", "sequential_range", "static_range", "dynamic_range", "tile_range", "range"}
KERNEL_WRAPPERS = ir.KERNEL_WRAPPERS
COMPILER_DECORATORS = {"compiler.skip_middle_end_transformations", "compiler.enable_stack_allocator",
                       "compiler.force_auto_alloc"}
TYPING_NAMES = {"tensor", "tile", "NkiTensor", "ndarray", "NKIObject", "VirtualRegister", "NkiInstruction"}
ALLOC_FUNCS = {"ndarray", "zeros", "ones", "full", "rand", "zeros_like", "empty_like", "shared_identity_matrix",
               "shared_constant"}
GEN = {2: "gen2", 3: "gen3", 4: "gen4"}


def _reshaped_dims(dims: list, key: Any, node: ast.AST | None, moved: dict | None = None) -> list:
    """The dimensions of an index grid (or mask) of dimensions `dims` after a reshaping subscript (`[:, None]`,
    `[None, :]`, `[...]`); `moved`, when given, receives each old axis's new position."""
    keys = key if isinstance(key, tuple) else (key,)
    out, i = [], 0
    for k in keys:
        if k is None:
            out.append(1)
        elif isinstance(k, slice) and k.start is None and k.stop is None and k.step is None:
            if i >= len(dims):
                raise V.NotUnderstood("too many ':' when reshaping an index grid", node)
            if moved is not None:
                moved[i] = len(out)
            out.append(dims[i])
            i += 1
        elif k is Ellipsis:
            for j in range(i, len(dims) - sum(1 for x in keys[keys.index(k) + 1:] if x is not None)):
                if moved is not None:
                    moved[j] = len(out)
                out.append(dims[j])
                i = j + 1
        else:
            raise V.NotUnderstood("indexing an nl.arange grid with something other than ':' and None", node)
    for j in range(i, len(dims)):
        if moved is not None:
            moved[j] = len(out)
        out.append(dims[j])
    return out


class NkiMixin:
    # ------------------------------------------------------------------ attributes
    def api_attr(self, obj: V.ApiVal, name: str, node: ast.AST | None) -> Any:
        path, d = obj.path, obj.dialect
        if path == "neuronxcc":
            return V.ApiVal("", "beta1") if name == "nki" else V.ExternalVal(f"neuronxcc.{name}")
        full = f"{path}.{name}" if path else name
        if path in ("language", "") and D.canonical(name) is not None and name not in ("float", "int", "bool"):
            return V.DTypeVal(D.canonical(name))
        if path == "language":
            if name in BUFFERS:
                return V.BufferVal(BUFFERS[name])
            if name == "mgrid":
                return V.MGridVal(d)
            if name in ("fp32", "bfp16"):
                return V.ApiVal(full, d)
        if path == "language.tile_size":
            consts = tile_size(get_target(self.options.target))
            if name in consts:
                return consts[name]
            raise V.NotUnderstood(f"nl.tile_size.{name} is not a known constant", node)
        if path in ("language.fp32", "isa.fp32", "language.bfp16") and name == "min":
            return -3.4028234663852886e38
        if path == "isa":
            if name in DEPRECATED_ENGINES:
                return V.ApiVal(f"isa.engine.{DEPRECATED_ENGINES[name]}", d)
            if name == "constants":
                return obj
        if path.startswith("isa.") and path[4:] in ISA_ENUMS:
            if name not in ISA_ENUMS[path[4:]] and not name.startswith("_"):
                raise V.NotUnderstood(f"{path}.{name} is not a member of {path}", node)
        return V.ApiVal(full, d)

    def api_getitem(self, obj: V.ApiVal, key: Any, node: ast.AST | None) -> Any:
        """Typing generics such as `nt.tensor[...]`.  In host code, `nt.tensor[[256, 512], nl.bfloat16]` stands
        for an input of that shape and dtype (the matmul tutorial benchmarks kernels with such placeholders): a
        host array."""
        if self.kb is None and obj.path.endswith("tensor") and isinstance(key, tuple) and len(key) == 2 and \
                isinstance(key[0], (tuple, V.PyList)):
            shape = self._host_dims(key[0], node)
            if shape is not None:
                return V.HostArray(tuple(shape), self.api_dtype(key[1]), "nt.tensor")
        return obj

    def api_dtype(self, v: Any) -> str | None:
        """The canonical dtype a value denotes, or None."""
        if isinstance(v, V.DTypeVal):
            return v.name
        if isinstance(v, V.ApiVal):
            return D.canonical(v.spec_name)
        if isinstance(v, V.ExternalVal):
            return D.canonical(v.path)
        if isinstance(v, str):
            return D.canonical(v)
        if isinstance(v, V.Builtin) and v.name in ("float", "int", "bool"):
            return D.canonical(v.name)
        return None

    def conditional_dtype(self, v: V.Phi) -> str | None:
        """A dtype chosen by a condition (`nl.bfloat16 if x.dtype == nl.float32 else x.dtype`, a compute dtype):
        an unknown dtype to the checks that compare dtypes, whose item size is the conditional of its choices'
        sizes (2 where x is float32, else x's), so that byte counts and placements follow it.  None when a
        choice is not a dtype."""
        def size(x: Any) -> tuple:
            if isinstance(x, V.Phi):
                (na, sa), (nb, sb) = size(x.a), size(x.b)
                if na is None or nb is None:
                    return None, None
                return (na, sa) if na == nb else (f"{na} or {nb}", E.ite(x.cond, sa, sb))
            dt = self.api_dtype(x)
            if dt is None:
                return None, None
            if dt.startswith("?"):
                return dt, self.input_itemsize(dt)
            if dt in D.DTYPES and D.size_bytes(dt) in (1, 2, 4, 8):
                return dt, E.const(D.size_bytes(dt))
            return None, None

        if self.kb is None:
            return None
        name, sz = size(v)
        if name is None or " or " not in name:
            return name  # (the same dtype either way)
        key = f"?({name.replace('?', '')})#{len(self.kb.dtype_sizes)}"
        self.kb.dtype_sizes[key] = sz
        return key

    def settled_dtype(self, name: str | None) -> str | None:
        """The dtype the path states for an input dtype not known otherwise (`assert x.dtype == nl.bfloat16`),
        else `name` itself."""
        if not name or not name.startswith("?"):
            return name
        for (n, dt), pred in self._dtype_eqs.items():
            if n == name and self.decide(pred) is True:
                return dt
        return name

    def dtype_lookup(self, items: dict, key: V.DTypeVal, missing: Any = V.MISSING) -> Any:
        """`table[key]` (or `table.get(key, missing)`) for an input's dtype the verifier does not know: each
        entry under the condition that the dtype is the entry's key (the predicates the kernel's own dtype tests
        use, so an `assert q.dtype == nl.float8_e4m3` before the lookup settles it).  Without `missing` a key the
        table lacks raises KeyError, so the last entry is taken where no other matches."""
        out = missing
        for k, v in reversed(list(items.items())):
            c = self.api_equal(key, k)
            if c is False:
                continue
            if c is True or out is V.MISSING:
                out = v
            else:
                out = self.merge(c, v, out)
        return None if out is V.MISSING else out

    def api_equal(self, a: Any, b: Any) -> Any:
        da, db = self.api_dtype(a), self.api_dtype(b)
        if isinstance(a, V.DTypeVal) or isinstance(b, V.DTypeVal):
            unknown_a = isinstance(a, V.DTypeVal) and a.name.startswith("?")
            if unknown_a or isinstance(b, V.DTypeVal) and b.name.startswith("?"):
                if isinstance(a, V.DTypeVal) and isinstance(b, V.DTypeVal) and a.name == b.name:
                    return True
                name, known = (a.name, db) if unknown_a else (b.name, da)
                if known is None:
                    return self.fresh_bool("<dtype of an input>")
                # one predicate per input dtype and dtype, so that what an assert states (`x.dtype == nl.bfloat16`)
                # is known where the dtype matters (see `settled_dtype`)
                key = (name, known)
                if key not in self._dtype_eqs:
                    pred = self._dtype_eqs[key] = self.fresh_bool(f"<{name[1:]} == {known}>")
                    if self.kb is not None and len(name) > 1:
                        self._itemsize_of_equal(self.input_itemsize(name), known, pred)
                return self._dtype_eqs[key]
            if da is not None and db is not None:
                return da == db
        if isinstance(a, V.BufferVal) and isinstance(b, V.BufferVal):
            return self._buffer_equal(a, b)
        if isinstance(a, V.ApiVal) and isinstance(b, V.ApiVal):
            return a.path == b.path
        if isinstance(a, V.EnumMember) and isinstance(b, V.EnumMember):
            return a == b
        return False

    def _buffer_equal(self, a: V.BufferVal, b: V.BufferVal) -> bool:
        """`nl.hbm` is an alias of `nl.private_hbm`.  A kernel input's buffer is `hbm` when the launch runs on one
        core and `shared_hbm` when its cores share the inputs (NKI's simulator): it equals either, so that
        `assert x.buffer == nl.hbm` and `x.buffer in (nl.hbm, nl.shared_hbm)` hold without splitting the analysis
        on which launch it is."""
        def kind(v: V.BufferVal) -> str:
            return ir.PRIVATE_HBM if v.name == ir.HBM else v.name
        if a.of_input and b.of_input:
            return True
        if a.of_input or b.of_input:
            return kind(b if a.of_input else a) in ir.HBM_KINDS
        return kind(a) == kind(b)

    # ------------------------------------------------------------------ calls
    def call_api(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        path = fn.path
        name = fn.spec_name
        if self.kb is not None:
            self.lint_api_call(fn, kwargs, node)
        if path.startswith(("compiler.sbuf.", "compiler.psum.")):
            # Beta-1 direct allocation: ncc.sbuf.alloc(fn), ncc.psum.mod_alloc(base_bank=...), ...
            return V.BufferVal(ir.SBUF if path.startswith("compiler.sbuf") else ir.PSUM)
        if path in KERNEL_WRAPPERS or path in COMPILER_DECORATORS:
            return self._wrap_kernel(fn, args, kwargs, node)
        if path in ("simulate_kernel", "nki_call"):
            return self._launch_call(fn, args, kwargs, node)
        if path.startswith("collectives.") and self.kb is not None and spec.find(path) is None:
            if name == "ReplicaGroup":
                return V.Unknown("a replica group")
            if name in ("rank_id", "collective_permute_implicit_current_processing_rank_id"):
                # a rank id only known at run time: a register (offsets computed from it are NKI102's), never
                # negative (ranks are numbered from 0 in their group, whose size the replica group says)
                return V.Register(self.fresh_int(f"{name}()", "register", 0), None)
            raise V.NotUnderstood(f"nki.{path} (collectives) is not modelled", node)
        if path in ("compiler.multi_buffer", "compiler.tile_position"):
            # scheduling directives (`nl.sequential_range(n, directives=ncc.multi_buffer(2))`): how the compiler
            # pipelines the loop, nothing the checks depend on
            return V.Unknown(f"nki.{path} directive")
        if path in ("FrameworkKernel", "nki_op") or path.startswith("typing") or (
                path.startswith("collectives") and spec.find(path) is None):
            return V.Unknown(f"nki.{path}")
        if path.startswith("isa.") and path.count(".") == 1 and name in ISA_ENUMS:
            return V.ApiVal(f"isa.{name}.{args[0]}" if args and isinstance(args[0], str) else path, fn.dialect)
        handler = _API_CALLS.get(path)
        if handler is not None:
            return handler(self, fn, args, kwargs, node)
        if path.startswith("language.") and name in LOOP_KINDS:
            if name == "affine_range" and self.truth(kwargs.get("precise_schedule", False)) is True:
                name = "sequential_range"  # iterations run in order: the software-pipelining idiom
            return make_range(self, args, name, fn.dialect, node)
        ins = spec.find(path)
        if ins is not None:
            if self.kb is None:
                return V.Unknown(f"result of nki.{path} outside a kernel")
            return self.emit_instruction(ins, fn.dialect, args, kwargs, node)
        if self.kb is None:
            return V.Unknown(f"nki.{path}")
        raise V.NotUnderstood(f"the NKI API nki.{path} is not modelled by the verifier", node)

    def _wrap_kernel(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        target = args[0] if args else kwargs.get("kernel", kwargs.get("func"))
        if target is None:
            return V.DecoratorFactory(fn.path, fn.dialect, dict(kwargs))  # nki.jit(mode=...)
        if isinstance(target, V.KernelVal):
            return target
        if isinstance(target, V.FunctionVal):
            target.kernel = True
            return V.KernelVal(target, via=fn.path, dialect=fn.dialect)
        if isinstance(target, V.Unknown):
            return target
        return fn

    def _launch_call(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if not args:
            return V.Unknown("launch")
        k = args[0]
        if isinstance(k, V.FunctionVal):
            k.kernel = True
            k = V.KernelVal(k, via=fn.path, dialect=fn.dialect)
        if not isinstance(k, V.KernelVal):
            return V.Unknown("launch of an unknown kernel")
        grid = kwargs.pop("grid", None)
        kwargs.pop("out_shape", None)
        if grid is not None:
            grid = tuple(self.iterate_known(grid, node)) if not isinstance(grid, tuple) else grid
            k = V.KernelVal(k.func, grid=grid, via=k.via, dialect=k.dialect)
        return self.call_kernel(k, list(args[1:]), kwargs, node)

    def call_kernel(self, k: V.KernelVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if self.kb is None:
            self.launches.append((k, list(args), dict(kwargs), self.span(node)))
            # an array of shapes not followed here: a kernel it is passed to sees symbolic dimensions, of the
            # rank that kernel uses (`z = gemm(x, w); gelu(z)`), rather than an unknown value
            return V.HostArray(None, None, f"output of {k.func.name}")
        # a kernel called from a kernel is a sub-kernel: analysed in the caller's context
        self.lint_subkernel(k, node)
        return self.invoke(k.func, args, kwargs, node)

    # ------------------------------------------------------------------ SPMD
    def _program_id(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        axis = args[0] if args else kwargs.get("axis", 0)
        if not isinstance(axis, int):
            raise V.NotUnderstood("program_id() of an axis that is not a known integer", node)
        return self.program_id(axis, node)

    def program_id(self, axis: int, node: ast.AST | None) -> E.Expr:
        kb = self.kb
        if kb is None:
            return self.fresh_int(f"program_id({axis})")
        if axis in kb.pids:
            return kb.pids[axis]
        hi = None
        if kb.grid is not None and axis < len(kb.grid):
            hi = kb.grid[axis]
        else:
            hi = self.grid_size(axis)
        s = kb.new_sym(f"program_id({axis})", "pid", 0, hi)
        kb.pids[axis] = s
        return s

    def grid_size(self, axis: int) -> E.IntLike:
        kb = self.kb
        if kb.grid is not None and axis < len(kb.grid):
            return kb.grid[axis]
        key = f"grid[{axis}]"
        for info in kb.symbols:
            if info.label == key:
                return info.sym
        if kb.dialect == ir.B2:
            lnc = get_target(self.options.target).lnc_max
            return kb.new_sym(key, "grid", 1, lnc + 1)
        return kb.new_sym(key, "grid", 1)

    def _num_programs(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        axes = args[0] if args else kwargs.get("axes", 0 if fn.dialect == ir.B2 else None)
        if self.kb is None:
            return self.fresh_int("num_programs")
        if axes is None:
            if self.kb.grid is None:
                return self.grid_size(0)
            out: E.IntLike = 1
            for g in self.kb.grid:
                out = E.lower(E.mul(out, g))
            return out
        if isinstance(axes, tuple):
            out = 1
            for a in axes:
                out = E.lower(E.mul(out, self.grid_size(a)))
            return out
        if isinstance(axes, int):
            return self.grid_size(axes)
        raise V.NotUnderstood("num_programs() of axes that are not known", node)

    def _program_ndim(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        kb = self.kb
        if kb is None:
            return self.fresh_int("program_ndim()", "unknown", 0, 4)
        if kb.grid is not None:
            return len(kb.grid)
        for info in kb.symbols:
            if info.label == "program_ndim()":
                return info.sym
        # a launch parameter like the grid: 0 when launched without a grid (then one program), else the
        # grid's rank (Beta 2: kernel[n] has rank 1)
        ndim = kb.new_sym("program_ndim()", "grid", 0, 2 if kb.dialect == ir.B2 else 4)
        kb.assume(E.bor(E.ne(ndim, 0), E.eq(self.grid_size(0), 1)), self.span(node), "launch")
        return ndim

    # ------------------------------------------------------------------ index helpers
    def _arange(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        if len(args) == 1:
            start, stop = 0, self.as_int(args[0], "an arange bound")
        elif len(args) >= 2:
            start, stop = self.as_int(args[0]), self.as_int(args[1])
        else:
            raise V.NotUnderstood("nl.arange() without arguments", node)
        size = E.lower(E.sub(stop, start))
        var = self.new_iota(size, node)
        self._iota_axis[var.var] = (0, 1, E.lift(size))
        return V.IndexGrid(E.add(var.var, start), (size,), (var,))

    def new_iota(self, size: E.IntLike, node: ast.AST | None, name: str | None = None) -> ir.Iota:
        st = self.current_stmt
        line = getattr(node, "lineno", 0)
        if name is None:
            label = f"arange({E.short(E.lift(size))})@{line}"
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                v = st.value.value if isinstance(st.value, ast.Subscript) else st.value
                target = st.targets[0].id
                label = target if isinstance(v, ast.Call) else f"arange({E.short(E.lift(size))}) in {target}"
        else:
            label = name
        if self.kb is not None:
            n = sum(1 for s in self.kb.symbols if s.label.startswith(label))
            if n:
                label = f"{label}.{n}"
        s = self.fresh_int(label, "iota", 0, size)
        return ir.Iota(s, E.lift(size))

    def mgrid_getitem(self, obj: V.MGridVal, key: Any, node: ast.AST | None) -> Any:
        if self.kb is not None:
            self.lint_api_call(V.ApiVal("language.mgrid", obj.dialect), {}, node)
        keys = key if isinstance(key, tuple) else (key,)
        sizes, starts = [], []
        for k in keys:
            if not isinstance(k, slice) or k.step not in (None, 1):
                raise V.NotUnderstood("nl.mgrid needs start:stop slices", node)
            lo = 0 if k.start is None else self.as_int(k.start)
            hi = self.as_int(k.stop)
            sizes.append(E.lower(E.sub(hi, lo)))
            starts.append(lo)
        shape = tuple(sizes)
        grids = []
        st = self.current_stmt
        names: list = []
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], (ast.Tuple, ast.List)):
            names = [e.id if isinstance(e, ast.Name) else None for e in st.targets[0].elts]
        for j, (lo, n) in enumerate(zip(starts, sizes)):
            nm = names[j] if j < len(names) and names[j] else f"mgrid@{getattr(node, 'lineno', 0)}[{j}]"
            it = self.new_iota(n, node, nm if lo == 0 else f"{nm} - {lo}")
            self._iota_axis[it.var] = (j, len(shape), E.lift(it.size))
            grids.append(V.IndexGrid(E.add(it.var, lo), shape, (it,)))
        return V.GridTuple(tuple(grids)) if len(grids) > 1 else grids[0]

    def grid_getitem(self, g: V.IndexGrid, key: Any, node: ast.AST | None) -> Any:
        out = _reshaped_dims(list(g.shape), key, node)
        if len(g.iotas) == 1:
            placed = [j for j, d in enumerate(out) if not (isinstance(d, int) and d == 1)]
            if len(placed) == 1:
                self._iota_axis[g.iotas[0].var] = (placed[0], len(out), E.lift(g.iotas[0].size))
        return V.IndexGrid(g.expr, tuple(out), g.iotas)

    def _ds(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        start = args[0] if args else kwargs["start"]
        size = args[1] if len(args) > 1 else kwargs["size"]
        if isinstance(start, V.Register) or isinstance(start, V.TensorVal):
            return ("ds_dynamic", start, self.as_int(size))
        s = self.as_int(start, "nl.ds start")
        return slice(s, E.lower(E.add(s, self.as_int(size, "nl.ds size"))), None)

    def _par_dim(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return V.ParDim(args[0])

    def _nc(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return self.as_int(args[0])

    def _spmd_dim(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        out: E.IntLike = 1
        for a in args:
            out = E.lower(E.mul(out, self.as_int(a)))
        return out

    def _no_reorder(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return V.ContextManagerVal("no_reorder")

    def _identity(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return args[0] if args else None

    def _buffer_pred(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        b = args[0] if args else None
        name = b.name if isinstance(b, V.BufferVal) else None
        if name is None:
            return self.fresh_bool("<buffer predicate>")
        return {"is_hbm": name in ir.HBM_KINDS, "is_sbuf": name == ir.SBUF, "is_psum": name == ir.PSUM,
                "is_on_chip": name in ir.ON_CHIP}[fn.spec_name]

    def _nc_version(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return V.ApiVal(f"isa.nc_version.{GEN[get_target(self.options.target).gen]}", fn.dialect)

    def _sub_version(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return self.fresh_int("<nc sub-version>", "unknown", 0, 2)

    def _register_alloc(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        x = args[0] if args else kwargs.get("x")
        known = self.as_int(x) if x is not None and not isinstance(x, V.TensorVal) else None
        name = self._alloc_name(node)
        if name.startswith("tensor@"):
            name = f"register@{getattr(node, 'lineno', 0)}"
        return V.Register(self.fresh_int(name, "register"), known)

    def _register_move(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        dst = args[0] if args else kwargs.get("dst")
        src = args[1] if len(args) > 1 else kwargs.get("src", kwargs.get("imm"))
        if self.kb is not None:
            self._track_register("isa.register_move", {"dst": dst, "src": src})
        return None

    def _fori_loop(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        lower = args[0] if args else kwargs["lower"]
        upper = args[1] if len(args) > 1 else kwargs["upper"]
        body = args[2] if len(args) > 2 else kwargs["body_fun"]
        step = args[3] if len(args) > 3 else kwargs.get("step", 1)
        if self.kb is None:
            return None
        lo, hi = self.loop_bound(lower, node), self.loop_bound(upper, node)
        var, loop = self.open_loop("dynamic_range", lo, hi, step, node, None, "beta2")
        try:
            self.call_value(body, [V.Register(var)], {}, node)
        finally:
            self.close_loop(loop)
        return None

    def _while_loop(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        body = args[1] if len(args) > 1 else kwargs["body_fun"]
        init = args[0] if args else kwargs.get("init")
        if self.kb is None:
            return None
        var, loop = self.open_register_loop("<while_loop trip count>", node)
        try:
            # the body gets the condition's register (`body_fun(r) -> r`)
            self.call_value(body, [init], {}, node)
        finally:
            self.close_loop(loop)
        return None

    def dynamic_while_done(self, st: ast.AST, reg: V.Register) -> None:
        return None

    def _opaque(self, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        return V.Unknown(f"nki.{fn.path}")

    # ------------------------------------------------------------------ instructions
    def emit_instruction(self, ins: Any, dialect: str, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        form, bound = self.bind_call(ins, dialect, args, kwargs, node)
        if self.kb is not None and self.kb.dialect == ir.B2:
            self.lint_isa_form(ins, form, bound, node)
        bound["__nodes__"] = self._arg_nodes(ins, form, node)
        phis = [(k, v) for k, v in bound.items() if isinstance(v, V.Phi) and ins.operand(k) is not None]
        bound.pop("__nodes__", None) if phis else None
        if phis:
            return self._fork_on_phi(ins, dialect, args, kwargs, node, phis[0])
        return self.instruction_from_binding(ins, form, bound, node)

    def _fork_on_phi(self, ins: Any, dialect: str, args: list, kwargs: dict, node: ast.AST | None,
                     phi: tuple) -> Any:
        name, p = phi

        def with_side(v: Any) -> tuple:
            a2 = [v if x is p else x for x in args]
            k2 = {k: (v if x is p else x) for k, x in kwargs.items()}
            return a2, k2

        # the side the path already settles, alone: with two operands chosen by the same index (`w[j]`, `x[j]`),
        # the second's fork ran under the first's condition, and its other sides were instructions on paths
        # that contradict it (`j == 0 and j == 1`), each with checks to prove (bwmm_shard_on_I: 16 copies of
        # a matmul for 4 values of the index)
        d = self.decide(p.cond)
        if d is not None:
            return self.emit_instruction(ins, dialect, *with_side(p.a if d else p.b), node)
        f = self.frame
        f.pc.append(p.cond)
        try:
            a2, k2 = with_side(p.a)
            ra = self.emit_instruction(ins, dialect, a2, k2, node)
        finally:
            f.pc.pop()
        f.pc.append(E.bnot(p.cond))
        try:
            a2, k2 = with_side(p.b)
            rb = self.emit_instruction(ins, dialect, a2, k2, node)
        finally:
            f.pc.pop()
        return self.merge(p.cond, ra, rb)

    def bind_call(self, ins: Any, dialect: str, args: list, kwargs: dict, node: ast.AST | None) -> tuple:
        """(form, {param: value}) for a call, choosing the signature the call matches."""
        forms = []
        if dialect == ir.B1:
            forms = [("beta1", ins.b1), ("beta2", ins.b2)]
        else:
            forms = [("beta2", ins.b2), ("beta1", ins.b1)]
        errors = []
        for form, sig in forms:
            if sig is None:
                continue
            try:
                return form, self._bind_signature(ins, form, sig, args, kwargs)
            except _BindError as exc:
                errors.append(str(exc))
        if errors and self.kb is not None:
            # no form of the API takes these arguments: Python raises TypeError when this call is traced (`nl.sum(x)`
            # without its axis; NKI609, an error where every launch gets here).  Unlike the other TypeErrors the
            # path goes on, the call's result unknown: what follows is checked too, where the fix will lead
            self.trace_error("NKI609", f"nki.{ins.qualname}() {errors[0]}: Python raises TypeError here while tracing",
                             node, "type-error", end_path=False)
            raise V.NotUnderstood(f"nki.{ins.qualname}(): {errors[0]}", node, silent=True)
        raise V.NotUnderstood(f"nki.{ins.qualname}(): {errors[0] if errors else 'no signature'}", node)

    def _bind_signature(self, ins: Any, form: str, sig: Any, args: list, kwargs: dict) -> dict:
        bound: dict = {}
        pos = list(sig.positional)
        if len(args) > len(pos) and not sig.varargs:
            raise _BindError(f"takes {len(pos)} positional arguments but {len(args)} were given")
        for name, v in zip(pos, args):
            bound[name] = v
        known = set(sig.names)
        for k, v in kwargs.items():
            if k in bound:
                raise _BindError(f"got multiple values for {k!r}")
            if k not in known and not sig.varkw:
                # tolerated here; the language rules (NKI606) judge unknown keywords
                bound[k] = v
                continue
            bound[k] = v
        for name in sig.names:
            if name not in bound:
                d = sig.default(name)
                if d is SPEC_MISSING:
                    raise _BindError(f"missing argument {name!r}")
                bound[name] = self._default_value(d)
        out = {spec.param_role(ins, form, k): v for k, v in bound.items()}
        out["__form__"] = form
        return out

    def _default_value(self, text: str) -> Any:
        value = _literal(text)
        if value is _MUTABLE:
            return ast.literal_eval(text)  # a mutable literal ([], {}): a fresh one each time
        if value is not _NOT_LITERAL:
            return value
        head, _, tail = text.rpartition(".")
        if head in ISA_ENUMS:
            return V.ApiVal(f"isa.{head}.{tail}", ir.B2)
        return V.ApiVal(f"language.{text}", ir.B2) if "." not in text else V.Unknown(text)

    def _arg_nodes(self, ins: Any, form: str, node: ast.AST | None) -> dict:
        """The AST node of each bound parameter (for operand-level spans)."""
        if not isinstance(node, ast.Call):
            return {}
        sig = ins.signature(form)
        out: dict = {}
        if sig is not None:
            for name, a in zip(sig.positional, node.args):
                if isinstance(a, ast.Starred):
                    break
                out[spec.param_role(ins, form, name)] = a
        for kw in node.keywords:
            if kw.arg is not None:
                out[spec.param_role(ins, form, kw.arg)] = kw.value
        return out

    def instruction_from_binding(self, ins: Any, form: str, bound: dict, node: ast.AST | None) -> Any:
        kb = self.kb
        bound.pop("__form__", None)
        arg_nodes = bound.pop("__nodes__", {})
        operands: list = []
        attrs: list = []
        iotas: list = []
        mask = E.TRUE
        m = bound.get("mask")
        if m is not None and m is not SPEC_MISSING and not isinstance(m, V.Unknown):
            mask = self.as_bexpr(m)
        deferred: list = []
        views: dict = {}  # role -> the one tensor view bound to it
        for name, v in bound.items():
            if name == "mask":
                continue
            op = ins.operand(name)
            if op is not None and v is not None:
                if isinstance(v, V.TensorVal) and op.scalar_ok and v.tensor.kind == "param" and \
                        ins.module == "isa" and not set(op.buffers) & set(ir.HBM_KINDS):
                    # an input only guessed to be a tensor, passed where the instruction takes a number or an
                    # on-chip tile (`imm0=scale`): a number
                    self.retry_kind(v, V.KIND_FLOAT)
                tvs = self._operand_tensors(op, v, node)
                if tvs is None:
                    attrs.append((name, self._attr_value(v)))
                    continue
                for tv in tvs:
                    operands.append(self.operand_ir(op.name, tv, op.mode, arg_nodes.get(name, node)))
                    iotas.extend(tv.view.iotas)
                    deferred.extend(tv.checks)
                    if tv.view.mask is not None and tv.view.mask is not E.TRUE:
                        mask = E.band(mask, tv.view.mask)  # Beta-1 operand masking (`rhs[i_f < n]`)
                if len(tvs) == 1:
                    views[op.name] = tvs[0]
            else:
                attrs.append((name, self._attr_value(v)))
        result = None
        returns_tile = ins.result is not None and (form == "beta1" or ins.module == "language") and \
            ins.operand(ins.result.role) is not None and not any(o.role == ins.result.role for o in operands)
        if returns_tile:
            result = self.result_tile(ins, bound, operands, node)
            operands.append(self.operand_ir(ins.result.role, result, "w", node))
        self._rank_hint(ins, form, views, operands, attrs, result)
        if mask is not E.TRUE and iotas:
            mask = self.unify_mask_iotas(mask, iotas)
        self.flush_checks(deferred, mask, node)
        kb.add_instr(op=ins.qualname, dialect=kb.dialect, operands=tuple(operands), attrs=tuple(attrs),
                     span=self.span(node), ctx=self.ctx(), mask=mask, iotas=tuple(dict.fromkeys(iotas)))
        self.track_contents(ins, bound, result)
        if result is not None:
            return result
        return V.Unknown(f"instruction handle of nki.{ins.qualname}")

    def _rank_hint(self, ins: Any, form: str, views: dict, operands: list, attrs: list,
                   result: V.TensorVal | None) -> None:
        """An operand indexed out of an input whose rank is only a guess (`x[0]`), with fewer dimensions than
        another operand of the call, and a shape rule of the call that certainly fails at the guessed rank
        (`dma_copy(dst=t128x512, src=x[0])` after `assert x.shape[-2:] == (128, 512)`): the kernel means a
        larger rank.  Analysed again with the rank that gives the operand as many dimensions as the other one,
        still a guess (a later use corrects it); a use that settles the rank first (`a, b = x.shape`), or one
        that contradicts the hint afterwards, keeps the guess and the finding.  Likewise a tile loaded from such
        an operand (`nl.load(x[0])`) whose partition dimension certainly exceeds the partitions: one more."""
        if self._no_retry or self.kb is None:
            return
        guessed = self._guessed_ranks
        settled = self.rank_settled()
        if result is not None:
            # an instruction's result made from such a tile (`nc_matmul(nl.load(a[i]), ...)`) keeps its input:
            # assigning it where it certainly cannot fit says the input has more axes (tensors._assign_rank_hint)
            for tv in views.values():
                hint = self._tile_from_guess.get(tv.tensor.id) or self._derived_from_guess.get(tv.tensor.id)
                if hint is not None and hint[0] not in settled:
                    self._derived_from_guess.setdefault(result.tensor.id, hint[:2])
                    break
        for role, tv in views.items():
            param = guessed.get(tv.tensor.id)
            rank, full = len(tv.shape), len(tv.tensor.shape)
            if param is None or param in settled or rank >= full:
                continue
            if result is not None:
                # the tile keeps the operand's deficit: assigning it where it cannot fit says the same
                self._tile_from_guess[result.tensor.id] = (param, full, rank)
            wider = max((len(o.shape) for r, o in views.items() if r != role and guessed.get(o.tensor.id) != param),
                        default=0)
            if result is not None and result.tensor.buffer in ("sbuf", "psum") and result.shape and \
                    self.decide(E.le(E.lift(result.shape[0]), get_target(self.kb.target).pmax)) is False:
                raise V.RankRetry(param, full + 1, at_least=True, soft=True)
            if wider <= rank:
                continue
            b = spec.OperandBinding(self.kb.target, self.kb.tensors, operands, attrs)
            for rule in ins.rules:
                if rule.code != "NKI501" or not rule.applies(self.kb.target, form):
                    continue
                try:
                    goal = spec.evaluate(rule, b)
                except Exception:  # noqa: BLE001 - a rule this light binding cannot evaluate says nothing here
                    continue
                if goal is not None and role in _rule_roles(rule) and self.decide(goal) is False:
                    raise V.RankRetry(param, full + wider - rank, at_least=True, soft=True)

    @staticmethod
    def mask_reshape_key(key: Any) -> bool:
        """Whether a subscript only reshapes (`[:, None]`, `[None, :]`, `[...]`): what NKI allows on a mask."""
        keys = key if isinstance(key, tuple) else (key,)
        return all(k is None or k is Ellipsis or isinstance(k, slice) and k.start is None and k.stop is None
                   and k.step is None for k in keys)

    def mask_getitem(self, mask: Any, key: Any, node: ast.AST | None) -> Any:
        """`m[:, None]` of a mask built from index grids (`m = start + nl.arange(512) < n`): the mask is a
        condition on its grids' index variables, so reshaping it places each of them on the axis the subscript
        gives it, as `nl.arange(512)[:, None]` would.  Each variable is copied (the mask itself may still be
        used with its old shape); a mask of no index variable (a condition on the loop indices alone) broadcasts
        and is itself."""
        if isinstance(mask, bool):
            return mask
        placed = {s: self._iota_axis[s] for s in E.free_syms(mask) if s in self._iota_axis}
        if not placed:
            return mask
        rank = max(r for _, r, _ in placed.values())
        dims: list = [1] * rank
        for axis, r, size in placed.values():
            dims[rank - r + axis] = size
        out = _reshaped_dims(dims, key, node, moved := {})
        renames: dict = {}
        for s, (axis, r, size) in placed.items():
            it = self.new_iota(size, node, s.name)
            self._iota_axis[it.var] = (moved[rank - r + axis], len(out), size)
            renames[s] = it.var
        return E.substitute(mask, renames)

    def unify_mask_iotas(self, mask: E.BExpr, iotas: list) -> E.BExpr:
        """A mask's own `nl.arange(P)[:, None]` is the index of that axis of the tile the instruction
        accesses (NKI matches a mask's indices to the tile's by position, broadcasting as numpy does: from the
        last axis, so a bare `nl.arange(512)` is the last axis of a 2-D tile): each one is renamed to the
        operands' index variable on the same axis, counted from the last, and of the same size."""
        mine = {it.var: it for it in iotas}
        renames: dict = {}

        def place(s: Any) -> Any:
            p = self._iota_axis.get(s)
            return None if p is None else (p[1] - p[0], p[2])

        for s in E.free_syms(mask):
            if s in mine or s not in self._iota_axis:
                continue
            same = [it.var for it in iotas if place(it.var) == place(s)]
            if len(same) == 1:
                renames[s] = same[0]
        return E.substitute(mask, renames) if renames else mask

    def _operand_tensors(self, op: Any, v: Any, node: ast.AST | None) -> list | None:
        if isinstance(v, V.TensorVal):
            return [v]
        if op.is_list and isinstance(v, (tuple, V.PyList, V.SymSeq)):
            tvs: list = []
            stack = [v]
            while stack:  # lists of lists (per channel) flattened; a list built in a loop by its element
                x = stack.pop(0)
                if isinstance(x, V.TensorVal):
                    tvs.append(x)
                elif isinstance(x, tuple):
                    stack[:0] = list(x)
                elif isinstance(x, V.PyList):
                    stack[:0] = list(x.items) + ([x.tail] if x.tail is not None else [])
                elif isinstance(x, V.SymSeq):
                    stack.insert(0, x.elem)
            return tvs
        if isinstance(v, (int, float, bool, E.Expr, V.SymFloat)) and op.scalar_ok:
            return None
        if isinstance(v, (int, float, bool, E.Expr, V.SymFloat)):
            if op.name == "value" or op.scalar_ok:
                return None
            raise V.NotUnderstood(f"{op.name} must be a tensor, got {V.describe(v)}", node)
        if isinstance(v, V.Unknown):
            raise V.NotUnderstood(f"operand {op.name} is not known ({v.reason})", node, silent=v.span is not None)
        if isinstance(v, V.IndexGrid):
            return None
        if isinstance(v, V.Register):
            return None
        raise V.NotUnderstood(f"operand {op.name} is a {V.describe(v)}, not a tensor", node)

    def _attr_value(self, v: Any) -> Any:
        if isinstance(v, (V.ApiVal, V.BufferVal)):
            return v.spec_name
        if isinstance(v, V.DTypeVal):
            return v.name
        if isinstance(v, V.ExternalVal):
            dt = D.canonical(v.path)
            return dt if dt else v.path.rsplit(".", 1)[-1]
        if isinstance(v, V.EnumMember):
            return v.name
        if isinstance(v, V.Builtin):
            return self.api_dtype(v) or v.name
        if isinstance(v, (int, float, bool, str, type(None), E.Expr, E.BExpr)):
            return v
        if isinstance(v, tuple):
            return tuple(self._attr_value(x) for x in v)
        if isinstance(v, V.PyList) and v.tail is None:
            return tuple(self._attr_value(x) for x in v.items)
        if isinstance(v, V.Register):
            return "<register>"
        if isinstance(v, V.SymFloat):
            return "<float>"
        return f"<{V.describe(v)}>"

    def result_tile(self, ins: Any, bound: dict, operands: list, node: ast.AST | None) -> V.TensorVal:
        """Allocate the new tile a value-returning form produces."""
        res = ins.result
        shape = self._result_shape(res.shape, bound, node)
        buffer = self._result_buffer(res.buffer, bound)
        dtype = self._result_dtype(res.dtype, bound)
        name = f"{ins.name}_result"
        st = self.current_stmt
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is node:
            target = self._alloc_name(node)  # `acc = nl.matmul(...)`: the tile is called acc
            if not target.startswith("tensor@"):
                name = target
        tv = self.new_tensor(name, buffer, shape, dtype, node, "result")
        if res.shape[0] == "like":
            # `src = nl.load(src_tensor)` whole: the tile inherits the input's guessed rank, so that unpacking its
            # shape (`d0, d1, d2 = src.shape`) corrects the guess as unpacking the input's would
            t = self._role_tensor(bound, res.shape[1])
            param = self._guessed_ranks.get(t.tensor.id) if t is not None else None
            if param is not None and tuple(t.shape) == tuple(E.lower(d) for d in t.tensor.shape):
                self._guessed_ranks[tv.tensor.id] = param
        return tv

    def _role_tensor(self, bound: dict, role: str) -> V.TensorVal | None:
        v = bound.get(role)
        return v if isinstance(v, V.TensorVal) else None

    def _required_tensor(self, bound: dict, role: str, node: ast.AST | None) -> Any:
        """The tensor bound to `role`, which a result shape rule needs."""
        t = self._role_tensor(bound, role)
        if t is None:
            raise V.NotUnderstood(f"{role} must be a tensor", node)
        return t

    def _result_shape(self, rule: tuple, bound: dict, node: ast.AST | None) -> tuple:
        kind = rule[0]
        if kind == "like":
            t = self._role_tensor(bound, rule[1])
            if t is None:
                g = bound.get(rule[1])
                if isinstance(g, V.IndexGrid):
                    return g.shape
                raise V.NotUnderstood(f"{rule[1]} must be a tensor", node)
            return tuple(t.shape)
        if kind == "broadcast":
            shapes = [tuple(t.shape) for r in rule[1:] for t in [self._role_tensor(bound, r)] if t is not None]
            if not shapes:
                raise V.NotUnderstood("an element-wise operation without a tensor operand", node)
            shapes = spec.partitions_aligned(shapes)
            try:
                return self.broadcast_shapes(shapes, node)
            except V.NotUnderstood:
                if self.kb is not None and (len({len(sh) for sh in shapes}) != 1 or _free_sizes_differ(shapes)):
                    # ranks that differ too ((4, 128, 768) and (4, 128): numpy aligns the last axes), or free
                    # sizes ((128, 512) and (128, 513)): no rule of the instruction compares them, so the mismatch
                    # is reported here
                    self.kb.add_check(self.make_check("NKI501", E.FALSE, f"operands of shapes {shapes_text(shapes)} "
                                                      "do not broadcast (numpy rules: trailing axes are aligned)",
                                                      node))
                    return max(shapes, key=len)
                # known sizes that differ ((128, 512) and (2, 512)): the instruction's rule reports it, and the
                # result is taken to have the first operand's shape so that the analysis goes on
                return shapes[0]
        if kind == "reduce":
            t = self._required_tensor(bound, rule[1], node)
            axis = bound.get(rule[2])
            keep = bool(bound.get(rule[3], False)) if len(rule) > 3 else False
            axes = axis if isinstance(axis, (tuple, list)) else (axis,)
            if isinstance(axis, V.PyList):
                axes = tuple(axis.items)
            rank = len(t.shape)
            norm = set()
            for a in axes:
                if not isinstance(a, int):
                    raise V.NotUnderstood("a reduction axis that is not a known integer", node)
                norm.add(a % rank)
            out = []
            for i, d in enumerate(t.shape):
                if i in norm:
                    if keep:
                        out.append(1)
                else:
                    out.append(d)
            if not out and t.buffer in ir.ON_CHIP:
                out = [1]
            return tuple(out)
        if kind == "transpose":
            t = self._required_tensor(bound, rule[1], node)
            axes = bound.get("axes")
            if isinstance(axes, (tuple, V.PyList)):
                perm = self.iterate_known(axes, node)
                if sorted(p for p in perm if isinstance(p, int)) == list(range(len(t.shape))):
                    return tuple(t.shape[p] for p in perm)  # `axes=(2, 1, 0)`: the permuted shape
            free: E.IntLike = 1
            for d in t.shape[1:]:
                free = E.lower(E.mul(free, d))
            return (free, t.shape[0])
        if kind == "matmul":
            st, mv = self._role_tensor(bound, rule[1]), self._role_tensor(bound, rule[2])
            if st is None or mv is None:
                raise V.NotUnderstood("matmul operands must be tensors", node)
            if "double_row" in str(bound.get("perf_mode", "")) and len(st.shape) >= 3 and len(mv.shape) >= 3:
                # FP8 double-row mode: stationary (K', 2, M), moving (K', 2, N); the 2 is part of the contraction
                return (self.free_size((1,) + tuple(st.shape[2:])), self.free_size((1,) + tuple(mv.shape[2:])))
            return (self.free_size(st.shape), self.free_size(mv.shape))
        if kind == "nl_matmul":
            x, y = self._role_tensor(bound, rule[1]), self._role_tensor(bound, rule[2])
            if x is None or y is None:
                raise V.NotUnderstood("matmul operands must be tensors", node)
            tx = bool(bound.get(rule[3], False))
            m = self.free_size(x.shape) if tx else x.shape[0]
            return (m, self.free_size(y.shape))
        if kind == "attr":
            v = bound.get(rule[1])
            return self.shape_value(v, node)
        if kind == "partitions_and":
            t = self._required_tensor(bound, rule[1], node)
            return (t.shape[0], rule[2])
        if kind == "local_gather":
            t = self._required_tensor(bound, rule[1], node)
            n_valid = bound.get(rule[2])
            if n_valid is None or n_valid is SPEC_MISSING:
                n_valid = E.lower(E.mul(self.free_size(tuple(t.shape)), 16))  # every index of a core's slice
            per_idx = bound.get(rule[3], 1)
            per_idx = 1 if per_idx is None or per_idx is SPEC_MISSING else per_idx
            return (t.shape[0], E.lower(E.mul(self.as_int(n_valid, "num_valid_indices"),
                                               self.as_int(per_idx, "num_elem_per_idx"))))
        if kind == "bounds":
            t = self._required_tensor(bound, rule[1], node)
            return (t.shape[0], 2) + tuple(t.shape[1:])
        if kind == "partition_reduce":
            t = self._required_tensor(bound, rule[1], node)
            return (1,) + tuple(t.shape[1:])
        if kind == "grid":
            g = bound.get(rule[1])
            if isinstance(g, V.IndexGrid):
                return g.shape
            if V.is_int(g):
                return (1,)  # a scalar expression (a program id): a one-element tile of one partition
            raise V.NotUnderstood("iota of something other than an index expression", node)
        if kind == "square":
            n = self.as_int(bound.get(rule[1]))
            return (n, n)
        if kind == "expand":
            t = self._role_tensor(bound, rule[1])
            ax = bound.get(rule[2])
            if t is None or not isinstance(ax, int):
                raise V.NotUnderstood("expand_dims of an unknown axis", node)
            s = list(t.shape)
            s.insert(ax % (len(s) + 1), 1)
            return tuple(s)
        if kind == "constant":
            v = bound.get(rule[1])
            if isinstance(v, V.HostArray) and v.shape is not None:
                return tuple(v.shape)
            # a constant loaded from a file (or built by host code) the verifier does not read: a matrix of
            # unknown size; what depends on its size is undecided (NKI901), the rest of the kernel is checked
            span = self.span(node) if node is not None else None
            where = f" ({os.path.basename(span.file)}:{span.line})" if span is not None else ""
            return tuple(self.fresh_int(f"<dimension {i} of the shared_constant{where}, whose array is not known>",
                                        "unknown", 1) for i in range(2))
        raise V.NotUnderstood(f"result shape rule {kind}", node)

    def _result_buffer(self, rule: Any, bound: dict) -> str:
        if isinstance(rule, str) and not rule.startswith("@"):
            return rule
        if isinstance(rule, str):
            t = self._role_tensor(bound, rule[1:])
            return t.buffer if t is not None else ir.SBUF
        _, name, default = rule
        v = bound.get(name)
        if isinstance(v, V.BufferVal):
            return v.name
        if isinstance(v, str) and v in BUFFERS:
            return BUFFERS[v]
        if isinstance(default, str) and default.startswith("@"):
            t = self._role_tensor(bound, default[1:])
            return t.buffer if t is not None else ir.SBUF
        return default or ir.SBUF

    def _result_dtype(self, rule: Any, bound: dict) -> str | None:
        if isinstance(rule, str) and not rule.startswith("@"):
            return rule
        if isinstance(rule, str):
            t = self._role_tensor(bound, rule[1:])
            return t.dtype if t is not None else None
        _, name, fallback = rule
        v = bound.get(name)
        if v is not None and not isinstance(v, V.Unknown):
            dt = self.conditional_dtype(v) if isinstance(v, V.Phi) else self.api_dtype(v)
            if dt is not None:
                return dt
        if isinstance(fallback, str) and fallback.startswith("@"):
            t = self._role_tensor(bound, fallback[1:])
            return t.dtype if t is not None else None
        return fallback


class _BindError(Exception):
    pass


def _alloc(self: Any, fn: V.ApiVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
    return self.allocate(fn, args, kwargs, node)


_API_CALLS = {
    "language.program_id": NkiMixin._program_id,
    "language.num_programs": NkiMixin._num_programs,
    "language.program_ndim": NkiMixin._program_ndim,
    "language.arange": NkiMixin._arange,
    "language.ds": NkiMixin._ds,
    "language.par_dim": NkiMixin._par_dim,
    "language.nc": NkiMixin._nc,
    "language.spmd_dim": NkiMixin._spmd_dim,
    "language.no_reorder": NkiMixin._no_reorder,
    "compiler.no_reorder": NkiMixin._no_reorder,
    "language.is_hbm": NkiMixin._buffer_pred,
    "language.is_sbuf": NkiMixin._buffer_pred,
    "language.is_psum": NkiMixin._buffer_pred,
    "language.is_on_chip": NkiMixin._buffer_pred,
    "language.fori_loop": NkiMixin._fori_loop,
    "language.while_loop": NkiMixin._while_loop,
    "language.finfo": NkiMixin._opaque,
    "language.random_seed": NkiMixin._opaque,
    "isa.get_nc_version": NkiMixin._nc_version,
    "isa.get_nc_sub_version": NkiMixin._sub_version,
    "isa.register_alloc": NkiMixin._register_alloc,
    "isa.register_move": NkiMixin._register_move,
    "language.NKIObject": NkiMixin._opaque,
}
for _name in ALLOC_FUNCS:
    _API_CALLS[f"language.{_name}"] = _alloc


_NOT_LITERAL = object()
_MUTABLE = object()


@functools.lru_cache(maxsize=1024)
def _literal(text: str) -> Any:
    """The immutable literal a spec default's text spells (every call binds the instruction's defaults)."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _NOT_LITERAL
    return v if isinstance(v, (int, float, str, bool, type(None), tuple)) else _MUTABLE


def _rule_roles(rule: Any) -> set:
    """The operand roles a rule's predicate mentions."""
    out: set = set()
    stack = [rule.pred]
    while stack:
        x = stack.pop()
        for f in getattr(x, "_fields", ()):
            v = getattr(x, f, None)
            if isinstance(v, str) and f in ("role", "a", "b"):
                out.add(v)
            elif isinstance(v, tuple):
                stack.extend(v)
            elif v is not None and hasattr(v, "_fields"):
                stack.append(v)
    return out


def _free_sizes_differ(shapes: list) -> bool:
    """Operands of one rank with known sizes that do not broadcast on an axis after the partitions."""
    for i in range(1, len(shapes[0])):
        sizes = {s[i] for s in shapes if isinstance(s[i], int) and s[i] != 1}
        if len(sizes) > 1:
            return True
    return False
