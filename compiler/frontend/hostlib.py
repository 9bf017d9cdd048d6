"""Host-side values at launch sites: numpy / torch / jax arrays, known only by shape and dtype.

Third-party modules are opaque outside kernels; only the array constructors and
shape-preserving methods that launch code uses to build kernel inputs are
modelled, so that `kernel[grid](np.zeros((256, 1024)))` fixes the kernel's shapes.
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from .. import expr as E
from ..spec import dtypes as D
from . import values as V
from .builtins import EXTERNAL_CONSTS, EXTERNAL_FUNCS, b_len, m_prod
from .modules import FRAMEWORK_NKI

ROOT_ALIASES = {"np": "numpy", "jnp": "jax.numpy"}
# frameworks and libraries a kernel file commonly imports for host code: opaque, and not worth a finding when
# kernel code calls them (numpy helpers, math); anything else a kernel calls that no import resolved is said
KNOWN_LIBRARIES = frozenset({"numpy", "torch", "jax", "ml_dtypes", "torch_neuronx", "jax_neuronx", "torch_xla",
                             "neuronxcc", "scipy", "einops", "transformers", "triton", "pytest", "unittest"})

# constructors: (first shape source, default dtype)
SHAPE_VARARGS = {"numpy.random.rand", "numpy.random.randn", "torch.rand", "torch.randn", "torch.zeros", "torch.ones",
                 "torch.empty"}
SHAPE_ARG0 = {"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.random.random_sample",
              "numpy.random.random", "numpy.random.standard_normal", "jax.numpy.zeros", "jax.numpy.ones",
              "jax.numpy.empty", "jax.numpy.full", "torch.full", "numpy.ndarray"}
SHAPE_KW = {"numpy.random.uniform": "size", "numpy.random.normal": "size", "numpy.random.randint": "size",
            "torch.randint": "size", "numpy.random.default_rng": None}
SHAPE_ARG1 = {"jax.random.normal", "jax.random.uniform", "jax.random.bernoulli", "jax.random.randint"}
LIKE = {"numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like", "torch.zeros_like",
        "torch.ones_like", "torch.empty_like", "torch.rand_like", "torch.randn_like", "jax.numpy.zeros_like",
        "jax.numpy.ones_like", "numpy.copy", "numpy.asarray", "numpy.ascontiguousarray", "torch.clone",
        "torch.from_numpy", "torch.as_tensor", "jax.numpy.asarray", "jax.device_put"}
SAME_SHAPE_METHODS = {"astype", "to", "numpy", "float", "half", "bfloat16", "contiguous", "cpu", "detach",
                      "requires_grad_", "clone", "copy", "cuda", "block_until_ready", "type"}
DTYPE_METHODS = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64", "int": "int32"}
# element-wise functions of numpy / torch / jax.numpy on host arrays: the shape of their array argument (the
# largest rank among them, numpy broadcasting); comparisons and logical functions give booleans
ELEMENTWISE = frozenset({"sort", "abs", "absolute", "exp", "log", "sqrt", "square", "tanh", "negative", "sign",
                         "clip", "round", "rint", "sin", "cos", "reciprocal", "add", "subtract", "multiply", "divide",
                         "true_divide", "power", "maximum", "minimum", "where", "less", "less_equal", "greater",
                         "greater_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_not",
                         "bitwise_and", "bitwise_or", "isnan", "isinf", "nan_to_num", "tril", "triu", "flip",
                         "fliplr", "flipud"})
BOOLEAN_RESULT = frozenset({"less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
                            "logical_or", "logical_not", "isnan", "isinf"})


def _norm(path: str) -> str:
    head, _, rest = path.partition(".")
    head = ROOT_ALIASES.get(head, head)
    return f"{head}.{rest}" if rest else head


# what the NKI902 for a module no import resolved says after its name (the API says it once per kernel)
MODULE_NOT_FOUND = (" was not found in the project, the --search-path directories or the installed packages, so "
                    "what the kernel does with it is not checked")


class HostMixin:
    def external_attr(self, obj: V.ExternalVal, name: str, node: ast.AST | None) -> Any:
        path = _norm(f"{obj.path}.{name}")
        if path in EXTERNAL_CONSTS:
            return EXTERNAL_CONSTS[path]
        if path == "os.environ":
            # the analysis assumes an empty environment: settings read from it take their defaults
            return V.PyDict(self.heap)
        for module, names in FRAMEWORK_NKI.items():
            if obj.path == module and name in names:  # torch_neuronx.nki_jit, jax_neuronx.nki_call
                return V.ApiVal(names[name], "beta1")
        return V.ExternalVal(path)

    def call_external(self, fn: V.ExternalVal, args: list, kwargs: dict, node: ast.AST | None) -> Any:
        path = _norm(fn.path)
        impl = EXTERNAL_FUNCS.get(path)
        if impl is not None:
            return impl(self, args, kwargs, node)
        if path in ("os.getenv", "os.environ.get"):
            return args[1] if len(args) > 1 else kwargs.get("default")  # an empty environment
        last = path.rsplit(".", 1)[-1]
        if path in ("numpy.prod", "numpy.product"):
            return m_prod(self, args, kwargs, node)
        if path in ("numpy.ceil", "numpy.floor"):
            return EXTERNAL_FUNCS["math." + last](self, args, kwargs, node)
        if path in ("numpy.int32", "numpy.int64", "numpy.uint32", "numpy.int16", "numpy.uint8", "numpy.int8"):
            from .builtins import b_int
            return b_int(self, args, kwargs, node)
        if path in ("numpy.float32", "numpy.float16", "numpy.float64"):
            from .builtins import b_float
            return b_float(self, args, kwargs, node)
        if path in ("numpy.dtype", "torch.dtype"):
            if args and isinstance(args[0], str):
                dt = D.canonical(args[0])
            else:
                dt = self.api_dtype(args[0]) if args else None
            return V.DTypeVal(dt) if dt else V.Unknown("dtype")
        if path in ("numpy.minimum", "numpy.maximum") and len(args) == 2 and all(V.is_int(a) for a in args):
            return E.lower(E.minimum(*args) if last == "minimum" else E.maximum(*args))
        arr = self._host_constructor(path, args, kwargs, node)
        if arr is not None:
            return arr
        arr = self._host_combined(path, last, args, kwargs, node)
        if arr is not None:
            return arr
        if path.startswith(("numpy.", "torch.", "jax.numpy.")):
            arr = self._host_elementwise(last, args, kwargs, node)
            if arr is not None:
                return arr
        if self.missing_module(path, node, f"{path}()"):
            # (said: the uses of what it returns, each an operand not known, would repeat it at every line)
            return V.Unknown(f"result of {path}()", self.span(node))
        return V.Unknown(f"result of {path}()")

    def missing_module(self, path: str, node: ast.AST | None, what: str) -> bool:
        """Whether a kernel uses `path` of a module no import resolved (`from nkilib.core.utils... import
        TensorView` without that package), said once per module and kernel where the kernel first uses it."""
        root = path.split(".")[0]
        if self.kb is None or root in KNOWN_LIBRARIES or root in sys.stdlib_module_names:
            return False
        self.say_missing_module(root, f"{what} is not followed: module {root!r}{MODULE_NOT_FOUND}", node)
        return True

    def say_missing_module(self, module: str, message: str, node: ast.AST | None) -> None:
        """NKI902 `message` for a module not found, once per module and kernel (where the kernel first uses it)."""
        if module not in self.kb.missing_modules:
            self.kb.missing_modules.add(module)
            self.not_understood(message, node)

    def _host_elementwise(self, name: str, args: list, kwargs: dict, node: ast.AST | None) -> Any | None:
        arrays = [a for a in list(args) + list(kwargs.values()) if isinstance(a, V.HostArray)]
        if not arrays:
            return None
        if name in ELEMENTWISE:
            known = [a for a in arrays if a.shape is not None]
            base = max(known, key=lambda a: len(a.shape)) if known else arrays[0]
            dtype = "bool_" if name in BOOLEAN_RESULT else base.dtype
            return V.HostArray(base.shape, dtype, base.label)
        if name == "transpose" and len(args) == 1 and arrays[0] is args[0] and args[0].shape is not None:
            return V.HostArray(tuple(reversed(args[0].shape)), args[0].dtype, args[0].label)
        if name == "tile" and len(args) == 2 and arrays[0] is args[0] and args[0].shape is not None:
            reps = self._host_dims(args[1] if isinstance(args[1], (tuple, V.PyList)) else (args[1],), node)
            if reps is None:
                return None
            shape = list(args[0].shape)
            width = max(len(shape), len(reps))
            shape = [1] * (width - len(shape)) + shape
            reps = [1] * (width - len(reps)) + list(reps)
            return V.HostArray(tuple(E.lower(E.mul(d, r)) for d, r in zip(shape, reps)), args[0].dtype,
                               args[0].label)
        return None

    def _host_combined(self, path: str, name: str, args: list, kwargs: dict, node: ast.AST | None) -> Any | None:
        """The shape of arrays made from others (host code building a kernel's constants): np.repeat,
        np.kron, np.concatenate / np.stack / np.vstack / np.hstack, scipy.linalg.circulant.  None when the
        function is not one of these or its operands are not arrays of known shape."""
        if not path.startswith(("numpy.", "jax.numpy.", "scipy.linalg.")):
            return None
        arrays = [a for a in args if isinstance(a, V.HostArray)]
        if name == "circulant" and len(args) == 1 and arrays:
            n = self.host_shape(arrays[0], node)
            return V.HostArray((n[0], n[0]), arrays[0].dtype, path) if len(n) == 1 else None
        if name == "repeat" and len(args) >= 2 and arrays and args[0] is arrays[0] and V.is_int(args[1]):
            shape = list(self.host_shape(arrays[0], node))
            reps = self.as_int(args[1])
            axis = args[2] if len(args) > 2 else kwargs.get("axis")
            if axis is None:
                total: E.IntLike = reps
                for d in shape:
                    total = E.lower(E.mul(total, d))
                return V.HostArray((total,), arrays[0].dtype, path)
            if isinstance(axis, int) and -len(shape) <= axis < len(shape):
                shape[axis] = E.lower(E.mul(shape[axis], reps))
                return V.HostArray(tuple(shape), arrays[0].dtype, path)
            return None
        if name == "kron" and len(args) == 2 and len(arrays) == 2:
            a, b = (self.host_shape(x, node) for x in arrays)
            width = max(len(a), len(b))
            a, b = (1,) * (width - len(a)) + tuple(a), (1,) * (width - len(b)) + tuple(b)
            return V.HostArray(tuple(E.lower(E.mul(x, y)) for x, y in zip(a, b)), arrays[0].dtype, path)
        if name in ("concatenate", "stack", "vstack", "hstack") and args:
            try:
                parts = self.iterate_known(args[0], node)
            except V.NotUnderstood:
                return None
            if not parts or not all(isinstance(x, V.HostArray) for x in parts):
                return None
            shapes = [self.host_shape(x, node) for x in parts]
            first = list(shapes[0])
            if any(len(sh) != len(first) for sh in shapes):
                return None
            axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
            if name == "vstack":
                if len(first) == 1:
                    return V.HostArray((len(parts), first[0]), parts[0].dtype, path)
                name, axis = "concatenate", 0
            elif name == "hstack":
                name, axis = "concatenate", 0 if len(first) == 1 else 1
            if not isinstance(axis, int):
                return None
            if name == "stack":
                axis = axis + len(first) + 1 if axis < 0 else axis
                return V.HostArray(tuple(first[:axis]) + (len(parts),) + tuple(first[axis:]), parts[0].dtype, path)
            axis = axis + len(first) if axis < 0 else axis
            if not 0 <= axis < len(first):
                return None
            total = first[axis]
            for sh in shapes[1:]:
                total = E.lower(E.add(total, sh[axis]))
            first[axis] = total
            return V.HostArray(tuple(first), parts[0].dtype, path)
        return None

    def _host_constructor(self, path: str, args: list, kwargs: dict, node: ast.AST | None) -> Any | None:
        dtype = self.api_dtype(kwargs.get("dtype")) if kwargs.get("dtype") is not None else None
        shape = None
        if path in SHAPE_VARARGS:
            if len(args) == 1 and isinstance(args[0], (tuple, V.PyList)):
                shape = self._host_dims(args[0], node)
            elif args:
                shape = self._host_dims(tuple(args), node)
            elif "size" in kwargs:
                shape = self._host_dims(kwargs["size"], node)
        elif path in SHAPE_ARG0:
            src = args[0] if args else kwargs.get("shape")
            if src is not None:
                shape = self._host_dims(src, node)
            if path.endswith("full") and len(args) > 2 and dtype is None:
                dtype = self.api_dtype(args[2])
            elif len(args) > 1 and dtype is None and not path.endswith("full"):
                dtype = self.api_dtype(args[1])
        elif path in SHAPE_KW:
            key = SHAPE_KW[path]
            if key and key in kwargs:
                shape = self._host_dims(kwargs[key], node)
            elif key == "size" and len(args) >= 3:
                shape = self._host_dims(args[2], node)
        elif path in SHAPE_ARG1:
            if len(args) > 1:
                shape = self._host_dims(args[1], node)
            elif "shape" in kwargs:
                shape = self._host_dims(kwargs["shape"], node)
            if len(args) > 2 and dtype is None:
                dtype = self.api_dtype(args[2])
        elif path in LIKE:
            if args and isinstance(args[0], V.HostArray):
                return V.HostArray(self.host_shape(args[0], node), dtype or args[0].dtype)
            return None
        elif path in ("numpy.arange", "torch.arange", "jax.numpy.arange"):
            ints = [self.as_int(a) for a in args if V.is_int(a)]
            if len(ints) == 1:
                shape = (ints[0],)
            elif len(ints) >= 2:
                step = ints[2] if len(ints) > 2 else 1
                shape = (E.lower(E.maximum(0, E.ceildiv(E.sub(ints[1], ints[0]), step))),)
        elif path in ("numpy.identity", "numpy.eye", "torch.eye", "jax.numpy.eye", "jax.numpy.identity"):
            first = args[0] if args else kwargs.get("n", kwargs.get("N"))
            second = args[1] if len(args) > 1 else kwargs.get("M", kwargs.get("m"))
            n = self.as_int(first) if V.is_int(first) else None
            m = self.as_int(second) if V.is_int(second) and not path.endswith("identity") else n
            if n is not None:
                shape = (n, m)
            if dtype is None and len(args) > 1 and path.endswith("identity"):
                dtype = self.api_dtype(args[1])
        elif path in ("numpy.array", "torch.tensor", "jax.numpy.array"):
            if args and isinstance(args[0], V.HostArray):  # a copy of an array (`torch.tensor(x_np, dtype=...)`)
                return V.HostArray(self.host_shape(args[0], node), dtype or args[0].dtype)
            shape = self._nested_shape(args[0] if args else None, node)
        else:
            return None
        if shape is None:
            return V.HostArray(None, dtype, path)
        if dtype is None and path.startswith(("numpy.random", "torch.rand", "jax.random")):
            dtype = "float32" if not path.startswith("numpy") else "float64"
        return V.HostArray(tuple(shape), dtype, path)

    def _host_dims(self, v: Any, node: ast.AST | None) -> tuple | None:
        try:
            if V.is_int(v):
                return (self.as_int(v),)
            if isinstance(v, V.HostArray):
                return None
            items = self.iterate_known(v, node)
            return tuple(self.as_int(x, "an array dimension") for x in items)
        except V.NotUnderstood:
            return None

    def _nested_shape(self, v: Any, node: ast.AST | None) -> tuple | None:
        try:
            items = self.iterate_known(v, node)
        except V.NotUnderstood:
            return None
        if not items:
            return (0,)
        inner = self._nested_shape(items[0], node) if isinstance(items[0], (tuple, V.PyList)) else ()
        return (len(items),) + (inner or ())

    # ------------------------------------------------------------------ arrays
    def host_shape(self, arr: V.HostArray, node: ast.AST | None) -> tuple:
        if arr.shape is None:
            rank = self.host_rank_hint(arr.label)
            arr.shape = tuple(self.fresh_int(f"{arr.label or 'array'}.shape[{i}]", "shape", 1) for i in range(rank))
            if arr.label not in self._host_exact_ranks:
                self._guessed_host_arrays.add(arr)
        return arr.shape

    def host_rank_hint(self, label: str) -> int:
        hints = getattr(self, "_host_rank_hints", {})
        return hints.get(label, 2)

    def host_attr(self, arr: V.HostArray, name: str, node: ast.AST | None) -> Any:
        if name == "shape":
            return tuple(self.host_shape(arr, node))
        if name == "dtype":
            return V.DTypeVal(arr.dtype) if arr.dtype else V.Unknown("dtype of a host array")
        if name == "ndim":
            return len(self.host_shape(arr, node))
        if name in ("size", "numel"):
            shape = self.host_shape(arr, node)
            out: E.IntLike = 1
            for d in shape:
                out = E.lower(E.mul(out, d))
            return out if name == "size" else V.Builtin("numel", lambda it, a, k, n: out)
        if name == "T":
            s = self.host_shape(arr, node)
            return V.HostArray(tuple(reversed(s)), arr.dtype, arr.label)
        if name in SAME_SHAPE_METHODS:
            return V.BoundMethod(V.Builtin(name, _same_shape_method), arr)
        if name in ("reshape", "view"):
            return V.BoundMethod(V.Builtin(name, _reshape_method), arr)
        if name in ("transpose", "permute"):
            return V.BoundMethod(V.Builtin(name, _permute_method), arr)
        if name == "size" or name == "dim":
            return V.BoundMethod(V.Builtin(name, _size_method), arr)
        return V.Unknown(f"attribute {name} of a host array")

    def host_getitem(self, arr: V.HostArray, key: Any, node: ast.AST | None) -> Any:
        """numpy/torch indexing of a host array: an integer drops its axis, a slice keeps it, None adds one, `...`
        stands for the axes no other item takes, and an index array or list (advanced indexing: `x[idx]` with
        idx a tensor of token ids) puts its own axes in place of the one it indexes; a boolean mask, one axis of
        unknown length in place of the axes it covers."""
        shape = list(self.host_shape(arr, node))
        keys = list(key) if isinstance(key, tuple) else [key]
        taken = sum(len(self.host_shape(k, node)) if _is_mask(k) else 1
                    for k in keys if k is not None and k is not Ellipsis)
        if any(k is Ellipsis for k in keys):
            at = next(j for j, k in enumerate(keys) if k is Ellipsis)
            keys[at:at + 1] = [slice(None)] * max(0, len(shape) - taken)
        advanced = [k for k in keys if isinstance(k, (V.HostArray, V.PyList, list))]
        if len(advanced) > 1:
            return V.HostArray(None, arr.dtype, "")  # several index arrays broadcast together: not followed
        out: list = []
        i = 0
        for k in keys:
            if k is None:
                out.append(1)
                continue
            if i >= len(shape):
                return V.Unknown("over-indexed host array")
            if isinstance(k, slice):
                lo = 0 if k.start is None else self.as_int(k.start)
                hi = shape[i] if k.stop is None else self.as_int(k.stop)
                out.append(E.lower(E.maximum(0, E.sub(E.minimum(hi, shape[i]), lo))))
            elif _is_mask(k):
                covered = len(self.host_shape(k, node))
                out.append(self.fresh_int(f"{arr.label or 'array'} elements selected by a mask", "shape", 0))
                i += covered
                continue
            elif isinstance(k, V.HostArray):
                out.extend(self.host_shape(k, node))
            elif isinstance(k, (V.PyList, list)):
                out.append(b_len(self, [k], {}, node))
            i += 1
        out.extend(shape[i:])
        return V.HostArray(tuple(out), arr.dtype, arr.label)

    def host_binop(self, op: type, a: Any, b: Any) -> Any:
        for x in (a, b):
            if isinstance(x, V.HostArray):
                return V.HostArray(x.shape, x.dtype, x.label)
        return V.Unknown("arithmetic on unknown values")


def _is_mask(k: Any) -> bool:
    """A boolean host array (its dtype the canonical bool_)."""
    return isinstance(k, V.HostArray) and k.dtype == "bool_"


def _same_shape_method(it: Any, args: list, kw: dict, node: Any) -> Any:
    arr = args[0]
    dtype = arr.dtype
    if len(args) > 1:
        dt = it.api_dtype(args[1])
        if dt is not None:
            dtype = dt
    if "dtype" in kw:
        dtype = it.api_dtype(kw["dtype"]) or dtype
    name = getattr(node.func, "attr", "") if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
    if name in DTYPE_METHODS:
        dtype = DTYPE_METHODS[name]
    return V.HostArray(arr.shape, dtype, arr.label)


def _reshape_method(it: Any, args: list, kw: dict, node: Any) -> Any:
    arr = args[0]
    dims = args[1] if len(args) == 2 and isinstance(args[1], (tuple, V.PyList)) else tuple(args[1:])
    shape = it._host_dims(dims, node)
    if shape is not None and any(isinstance(d, int) and d == -1 for d in shape):
        total: E.IntLike = 1
        for d in it.host_shape(arr, node):
            total = E.lower(E.mul(total, d))
        known: E.IntLike = 1
        for d in shape:
            if not (isinstance(d, int) and d == -1):
                known = E.lower(E.mul(known, d))
        shape = tuple(E.lower(E.floordiv(total, known)) if isinstance(d, int) and d == -1 else d for d in shape)
    return V.HostArray(shape, arr.dtype, arr.label)


def _permute_method(it: Any, args: list, kw: dict, node: Any) -> Any:
    arr = args[0]
    shape = it.host_shape(arr, node)
    dims = args[1] if len(args) == 2 and isinstance(args[1], (tuple, V.PyList)) else tuple(args[1:])
    order = [d for d in it.iterate_known(dims, node)] if dims else list(reversed(range(len(shape))))
    if all(isinstance(d, int) for d in order) and len(order) == len(shape):
        return V.HostArray(tuple(shape[d] for d in order), arr.dtype, arr.label)
    return V.HostArray(None, arr.dtype, arr.label)


def _size_method(it: Any, args: list, kw: dict, node: Any) -> Any:
    arr = args[0]
    shape = it.host_shape(arr, node)
    if len(args) > 1 and isinstance(args[1], int):
        return shape[args[1]]
    return tuple(shape)
