"""Python builtins and the standard-library helpers kernels use (math, functools, dataclasses, ...).

Each is a `Builtin(name, fn)` with `fn(interp, args, kwargs, node)`; tables, not if-chains.
"""

from __future__ import annotations

import math
from typing import Any

from .. import expr as E
from . import values as V


def _ints(it: Any, args: list) -> list:
    return [it.as_int(a) for a in args]


# ----------------------------------------------------------------------------- len / range / numbers


def b_len(it: Any, args: list, kw: dict, node: Any) -> Any:
    (x,) = args
    if isinstance(x, V.Phi):  # one of two sequences (`t = a.shape if c else b.shape`): each side's length
        return it._on_phi(x, lambda v: b_len(it, [v], kw, node))
    if isinstance(x, V.GuessedShape):
        it.rank_observed(x)
        return V.guessed_len(len(x), x.param, x.dropped)  # `len(x.shape) == 1` can correct the guess
    if isinstance(x, (tuple, str, list)):
        return len(x)
    if isinstance(x, V.PyList):
        it.note_read(x)
        if V.guarded(x):
            # appended under a condition: between none and all of the loop's iterations
            return it.fresh_int("<length of a list appended to under a condition>", "unknown", len(x.items),
                                E.lower(E.add(len(x.items) + 1, x.tail.length)))
        return len(x.items) if x.tail is None else E.lower(E.add(len(x.items), x.tail.length))
    if isinstance(x, V.SymSeq):
        return x.length
    if isinstance(x, V.PyDict):
        return len(x.items)
    if isinstance(x, V.RangeVal):
        from .control import trip_count
        return trip_count(x.start, x.stop, x.step)
    if isinstance(x, V.TensorVal):
        return x.shape[0]
    if isinstance(x, V.HostArray):
        return it.host_shape(x, node)[0]
    if isinstance(x, V.GridTuple):
        return len(x.grids)
    if isinstance(x, V.Instance):
        m = x.cls.lookup("__len__")
        if m is not V.MISSING:
            return it.call_value(m, [x], {}, node)
    if isinstance(x, V.Unknown):
        return it.fresh_int(f"<len of {x.reason}>", "unknown", 0)
    raise V.NotUnderstood(f"len() of a {V.describe(x)}", node)


def b_range(it: Any, args: list, kw: dict, node: Any) -> Any:
    return make_range(it, args, "range", None, node)


def make_range(it: Any, args: list, kind: str, dialect: str | None, node: Any) -> V.RangeVal:
    if not 1 <= len(args) <= 3:
        raise V.NotUnderstood(f"{kind}() takes 1 to 3 arguments", node)
    conv = []
    for a in args:
        if isinstance(a, V.Register):
            conv.append(a)
        else:
            conv.append(it.as_int(a, f"a {kind} bound"))
    if len(conv) == 1:
        return V.RangeVal(0, conv[0], 1, kind, dialect)
    if len(conv) == 2:
        return V.RangeVal(conv[0], conv[1], 1, kind, dialect)
    return V.RangeVal(conv[0], conv[1], conv[2], kind, dialect)


def _minmax(it: Any, args: list, kw: dict, node: Any, is_min: bool) -> Any:
    name = "min" if is_min else "max"
    if len(args) == 1:
        vals = it.iterate_known(args[0], node) if not _is_symseq(args[0]) else None
        if vals is None:
            raise V.NotUnderstood(f"{name}() of a list of symbolic length", node)
    else:
        vals = list(args)
    if not vals:
        if "default" in kw:
            return kw["default"]
        raise V.NotUnderstood(f"{name}() of an empty sequence", node)
    if "key" in kw and kw["key"] is not None:
        keys = [it.call_value(kw["key"], [v], {}, node) for v in vals]
        if all(isinstance(k, (int, float, str)) for k in keys):
            idx = keys.index(min(keys) if is_min else max(keys))
            return vals[idx]
        raise V.NotUnderstood(f"{name}(key=...) on symbolic keys", node)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, bool) for v in vals):
        return min(vals) if is_min else max(vals)
    if all(V.is_int(v) or isinstance(v, bool) for v in vals):
        xs = [it.as_int(v) for v in vals]
        return E.lower(E.minimum(*xs) if is_min else E.maximum(*xs))
    floats = [it._float_of(v) for v in vals]
    if all(isinstance(f, float) for f in floats):
        return min(floats) if is_min else max(floats)
    return V.OPAQUE_FLOAT


def _is_symseq(x: Any) -> bool:
    return isinstance(x, V.SymSeq) or isinstance(x, V.PyList) and x.tail is not None and not (
        isinstance(x.tail.length, int) and x.tail.length <= 256)


def b_abs(it: Any, args: list, kw: dict, node: Any) -> Any:
    (x,) = args
    if isinstance(x, (int, float)):
        return abs(x)
    if V.is_int(x):
        return E.lower(E.absolute(x))
    if isinstance(x, V.SymFloat):
        return V.OPAQUE_FLOAT
    return V.Unknown("abs()")


def b_int(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return 0
    x = args[0]
    if isinstance(x, (int, float, bool)):
        return int(x)
    if isinstance(x, str):
        try:
            return int(x, *(args[1:2]))
        except ValueError:
            return V.Unknown("int() of a string")
    if isinstance(x, E.Expr):
        return x
    if isinstance(x, E.BExpr):
        return E.lower(E.ite(x, 1, 0))
    if isinstance(x, V.SymFloat) and x.num is not None:
        return E.lower(E.floordiv(x.num, x.den))  # truncation == floor for the non-negative sizes kernels use
    if isinstance(x, V.Register):
        raise V.NotUnderstood("int() of a register: its value is only known at run time", node)
    if isinstance(x, V.EnumMember):
        return x.value
    return it.fresh_int("<int()>")


def b_float(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return 0.0
    x = args[0]
    if isinstance(x, (int, float, bool)):
        return float(x)
    if isinstance(x, str):
        try:
            return float(x)
        except ValueError:
            return V.OPAQUE_FLOAT
    if isinstance(x, E.Expr):
        return V.SymFloat(x, E.ONE)
    return V.OPAQUE_FLOAT


def b_bool(it: Any, args: list, kw: dict, node: Any) -> Any:
    return it.truth(args[0]) if args else False


def b_str(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return ""
    x = args[0]
    if isinstance(x, (str, int, float, bool, type(None))):
        return str(x)
    if isinstance(x, V.Phi):  # one of two values (a dtype chosen by a condition): the string of each
        return it._on_phi(x, lambda v: b_str(it, [v], kw, node))
    if isinstance(x, V.DTypeVal):
        return V.dtype_str(x) if x.name.startswith("?") else x.name
    if isinstance(x, V.ApiVal) and it.api_dtype(x) is not None:
        return it.api_dtype(x)
    if isinstance(x, V.EnumMember):
        return f"{x.cls.name}.{x.name}"
    if isinstance(x, V.Unknown):
        return V.Unknown(f"str({x.reason})")  # compared with a string, it may be equal or not
    return V.OpaqueStr("{…}")  # a text not known: compared with another, it may be equal or not


def b_round(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    if isinstance(x, (int, float)) and len(args) == 1:
        return round(x)
    if isinstance(x, (int, float)):
        return round(x, args[1])
    if V.is_int(x):
        return x
    return V.OPAQUE_FLOAT


def b_divmod(it: Any, args: list, kw: dict, node: Any) -> Any:
    a, b = _ints(it, args)
    return (E.lower(E.floordiv(a, b)), E.lower(E.mod(a, b)))


def b_pow(it: Any, args: list, kw: dict, node: Any) -> Any:
    import ast
    r = it.binop(ast.Pow, args[0], args[1], node)
    if len(args) == 3:
        return it.binop(ast.Mod, r, args[2], node)
    return r


# ----------------------------------------------------------------------------- containers


def b_tuple(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return ()
    x = args[0]
    if isinstance(x, V.GuessedShape):
        return x  # `tuple(v.shape)`: still the guess, which a comparison with another rank corrects
    if isinstance(x, V.Phi):  # one of two sequences, of different lengths: the tuple of each side
        return it._on_phi(x, lambda v: b_tuple(it, [v], kw, node))
    if isinstance(x, V.SymSeq):
        return V.PyList(it.heap, [], x)
    if isinstance(x, V.PyList) and x.tail is not None:
        return V.PyList(it.heap, list(x.items), x.tail)
    if isinstance(x, V.RangeVal):
        seq = it._symbolic_iter(x)
        if seq is not None:
            k = it.fresh_seq_var()
            return V.PyList(it.heap, [], V.SymSeq(k, seq[0], seq[1](k), True))
    return tuple(it.iterate_known(x, node))


def b_list(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return V.PyList(it.heap)
    x = args[0]
    if isinstance(x, V.SymSeq):
        return V.PyList(it.heap, [], x)
    if isinstance(x, V.PyList) and x.tail is not None:
        return V.PyList(it.heap, list(x.items), x.tail)
    if isinstance(x, V.RangeVal):
        seq = it._symbolic_iter(x)
        if seq is not None:
            k = it.fresh_seq_var()
            return V.PyList(it.heap, [], V.SymSeq(k, seq[0], seq[1](k)))
    return V.PyList(it.heap, it.iterate_known(x, node))


def b_dict(it: Any, args: list, kw: dict, node: Any) -> Any:
    d = V.PyDict(it.heap)
    if args:
        src = args[0]
        if isinstance(src, V.PyDict):
            d.items.update(src.items)
        else:
            for pair in it.iterate_known(src, node):
                k, v = it.iterate_known(pair, node, 2)
                key = it.hashable_key(k)
                if key is None:
                    raise V.NotUnderstood("dict() with keys that are not known", node)
                d.items[key] = v
    d.items.update(kw)
    return d


def b_set(it: Any, args: list, kw: dict, node: Any) -> Any:
    if not args:
        return V.PyList(it.heap)
    out = []
    for x in it.iterate_known(args[0], node):
        if not any(it.equal(x, y) is True for y in out):
            out.append(x)
    return V.PyList(it.heap, out)


def b_enumerate(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    start = it.as_int(args[1] if len(args) > 1 else kw.get("start", 0))
    seq = _as_symseq(it, x)
    if seq is not None:
        k = it.fresh_seq_var()
        elem = it.subst_value(seq.elem, {seq.var: k})
        return V.PyList(it.heap, [], V.SymSeq(k, seq.length, (E.lower(E.add(k, start)), elem)))
    if isinstance(x, V.PyList) and x.items and x.tail is not None and \
            _as_symseq(it, V.PyList(it.heap, [], x.tail)) is not None:
        # `enumerate([first] + rest)`: the known items, then the rest numbered after them
        head = [(E.lower(E.add(i, start)), v) for i, v in enumerate(x.items)]
        k = it.fresh_seq_var()
        elem = it.subst_value(x.tail.elem, {x.tail.var: k})
        return V.PyList(it.heap, head, V.SymSeq(k, x.tail.length, (E.lower(E.add(k, len(x.items) + start)), elem)))
    items = it.iterate_known(x, node)
    return V.PyList(it.heap, [(E.lower(E.add(i, start)) if not isinstance(start, int) else i + start, v)
                              for i, v in enumerate(items)])


def _as_symseq(it: Any, x: Any) -> V.SymSeq | None:
    if V.guarded(x):
        raise V.NotUnderstood(V.GUARDED_USE)
    if isinstance(x, V.SymSeq):
        return x
    if isinstance(x, V.PyList) and x.tail is not None and not x.items:
        if isinstance(x.tail.length, int) and x.tail.length <= 256:
            return None
        return x.tail
    if isinstance(x, V.RangeVal):
        seq = it._symbolic_iter(x)
        if seq is not None:
            k = it.fresh_seq_var()
            return V.SymSeq(k, seq[0], seq[1](k))
    return None


def b_zip(it: Any, args: list, kw: dict, node: Any) -> Any:
    seqs = [_as_symseq(it, a) for a in args]
    if any(s is not None for s in seqs):
        if not all(s is not None for s in seqs):
            raise V.NotUnderstood("zip() of sequences some of which have symbolic length", node)
        k = it.fresh_seq_var()
        length = seqs[0].length
        for s in seqs[1:]:
            length = E.lower(E.minimum(length, s.length))
        return V.PyList(it.heap, [], V.SymSeq(k, length, tuple(it.subst_value(s.elem, {s.var: k}) for s in seqs)))
    lists = [it.iterate_known(a, node) for a in args]
    return V.PyList(it.heap, [tuple(xs) for xs in zip(*lists)])


def b_reversed(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    seq = _as_symseq(it, x)
    if seq is not None:
        k = it.fresh_seq_var()
        return V.PyList(it.heap, [], V.SymSeq(k, seq.length, it.subst_value(
            seq.elem, {seq.var: E.sub(E.sub(seq.length, 1), k)})))
    return V.PyList(it.heap, list(reversed(it.iterate_known(x, node))))


def b_sorted(it: Any, args: list, kw: dict, node: Any) -> Any:
    items = it.iterate_known(args[0], node)
    key = kw.get("key")
    keys = [it.call_value(key, [v], {}, node) for v in items] if key is not None else items
    if not all(isinstance(k, (int, float, str, tuple)) for k in keys):
        raise V.NotUnderstood("sorted() of symbolic values", node)
    order = sorted(range(len(items)), key=lambda i: keys[i], reverse=bool(kw.get("reverse", False)))
    return V.PyList(it.heap, [items[i] for i in order])


def b_sum(it: Any, args: list, kw: dict, node: Any) -> Any:
    import ast
    x = args[0]
    acc = args[1] if len(args) > 1 else kw.get("start", 0)
    if _is_symseq(x):
        seq = _as_symseq(it, x)
        if seq is not None and V.is_int(seq.elem) and seq.var not in E.free_syms(E.lift(seq.elem)):
            return E.lower(E.add(it.as_int(acc), E.mul(seq.length, seq.elem)))
        return it.fresh_int("<sum of a symbolic-length list>")
    for v in it.iterate_known(x, node):
        acc = it.binop(ast.Add, acc, v, node)
    return acc


def b_any(it: Any, args: list, kw: dict, node: Any) -> Any:
    parts = [it.truth(v) for v in it.iterate_known(args[0], node)]
    if any(p is True for p in parts):
        return True
    rest = [p for p in parts if p is not False]
    if not rest:
        return False
    r = E.bor(*rest)
    return r.value if isinstance(r, E.BConst) else r


def b_all(it: Any, args: list, kw: dict, node: Any) -> Any:
    parts = [it.truth(v) for v in it.iterate_known(args[0], node)]
    if any(p is False for p in parts):
        return False
    rest = [p for p in parts if p is not True]
    if not rest:
        return True
    r = E.band(*rest)
    return r.value if isinstance(r, E.BConst) else r


def b_map(it: Any, args: list, kw: dict, node: Any) -> Any:
    fn, *its = args
    lists = [it.iterate_known(a, node) for a in its]
    return V.PyList(it.heap, [it.call_value(fn, list(xs), {}, node) for xs in zip(*lists)])


def b_filter(it: Any, args: list, kw: dict, node: Any) -> Any:
    fn, seq = args
    out = []
    for v in it.iterate_known(seq, node):
        t = it.truth(v if fn is None else it.call_value(fn, [v], {}, node))
        if isinstance(t, E.BExpr):
            raise V.NotUnderstood("filter() on a symbolic condition", node)
        if t:
            out.append(v)
    return V.PyList(it.heap, out)


def b_iter(it: Any, args: list, kw: dict, node: Any) -> Any:
    return V.PyList(it.heap, it.iterate_known(args[0], node))


def b_next(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    if isinstance(x, V.PyList) and x.tail is None:
        if x.items:
            v = x.items[0]
            x.set_items(x.items[1:])
            return v
        if len(args) > 1:
            return args[1]
    raise V.NotUnderstood("next() on this value", node)


# ----------------------------------------------------------------------------- types and reflection

TYPE_NAMES = ("int", "float", "str", "bool", "tuple", "list", "dict", "set", "frozenset", "object", "type",
              "bytes", "slice")


def _isinstance_one(it: Any, x: Any, t: Any) -> Any:
    if isinstance(t, tuple):
        parts = [_isinstance_one(it, x, u) for u in t]
        return True if any(p is True for p in parts) else (False if all(p is False for p in parts) else None)
    if isinstance(t, V.Builtin):
        n = t.name
        checks = {
            "int": lambda: (V.is_int(x) or isinstance(x, bool) or isinstance(x, V.Register)),
            "float": lambda: isinstance(x, (float, V.SymFloat)),
            "str": lambda: isinstance(x, str),
            "bool": lambda: isinstance(x, (bool, E.BExpr)),
            "tuple": lambda: isinstance(x, tuple) or isinstance(x, V.PyList) and x.tail is not None and x.tail.is_tuple,
            "list": lambda: isinstance(x, V.PyList),
            "dict": lambda: isinstance(x, V.PyDict),
            "set": lambda: isinstance(x, V.PyList),
            "frozenset": lambda: False,
            "object": lambda: True,
            "type": lambda: isinstance(x, V.ClassVal),
            "bytes": lambda: isinstance(x, bytes),
            "slice": lambda: isinstance(x, slice),
        }
        if n in checks:
            return checks[n]()
        return None
    if isinstance(t, V.ClassVal):
        if isinstance(x, V.Instance):
            return x.cls.is_subclass(t)
        if isinstance(x, V.EnumMember):
            return x.cls.is_subclass(t)
        if isinstance(x, V.Unknown):
            return None
        return False
    if isinstance(t, V.ApiVal):
        if t.spec_name in ("ndarray", "NkiTensor", "tensor", "tile"):
            return isinstance(x, V.TensorVal) or (False if not isinstance(x, V.Unknown) else None)
        if t.spec_name == "VirtualRegister":
            return isinstance(x, V.Register)
        return None
    if isinstance(t, V.ExternalVal):
        last = t.path.split(".")[-1]
        if last in ("ndarray", "Tensor", "Array"):
            return isinstance(x, (V.HostArray, V.TensorVal)) or (False if not isinstance(x, V.Unknown) else None)
        if last in ("Enum", "IntEnum"):
            return isinstance(x, V.EnumMember)
        if last in ("Integral", "int32", "int64"):
            return V.is_int(x)
        if last in ("Number", "Real"):
            return V.is_int(x) or isinstance(x, (float, V.SymFloat))
        return None
    return None


def b_isinstance(it: Any, args: list, kw: dict, node: Any) -> Any:
    x, t = args
    if isinstance(x, V.Phi):
        a = b_isinstance(it, [x.a, t], kw, node)
        b = b_isinstance(it, [x.b, t], kw, node)
        return it.merge(x.cond, a, b)
    r = _isinstance_one(it, x, t)
    if r is None:
        return it.fresh_bool("<isinstance>")
    return r


def b_issubclass(it: Any, args: list, kw: dict, node: Any) -> Any:
    a, b = args
    if isinstance(a, V.ClassVal) and isinstance(b, V.ClassVal):
        return a.is_subclass(b)
    return it.fresh_bool("<issubclass>")


def b_hasattr(it: Any, args: list, kw: dict, node: Any) -> Any:
    obj, name = args
    if not isinstance(name, str):
        return it.fresh_bool("<hasattr>")
    if isinstance(obj, V.Instance):
        return name in obj.attrs or obj.cls.lookup(name) is not V.MISSING
    if isinstance(obj, V.ClassVal):
        return obj.lookup(name) is not V.MISSING
    if isinstance(obj, V.ModuleVal):
        return name in obj.namespace
    if isinstance(obj, V.TensorVal):
        return name in ("shape", "dtype", "buffer", "ndim", "size", "name", "address", "offset", "strides",
                        "reshape", "ap", "view", "slice", "select", "permute")
    try:
        it.get_attr(obj, name, node)
        return True
    except V.NotUnderstood:
        return it.fresh_bool("<hasattr>")


def b_getattr(it: Any, args: list, kw: dict, node: Any) -> Any:
    obj, name = args[0], args[1]
    if not isinstance(name, str):
        raise V.NotUnderstood("getattr() with a name that is not known", node)
    if len(args) > 2:
        if obj is None or isinstance(obj, (bool, int, float, str)) and not hasattr(obj, name):
            return args[2]  # `getattr(cfg, "tile", 256)` with cfg left at None: the default, not a dereference
        if isinstance(obj, V.Phi):
            return it._on_phi(obj, lambda side: b_getattr(it, [side, name, args[2]], kw, node))
        if isinstance(obj, V.Instance) and name not in obj.attrs and obj.cls.lookup(name) is V.MISSING:
            return args[2]
        if isinstance(obj, V.ClassVal) and obj.lookup(name) is V.MISSING:
            return args[2]
        try:
            return it.get_attr(obj, name, node)
        except V.NotUnderstood:
            return args[2]
    return it.get_attr(obj, name, node)


def b_setattr(it: Any, args: list, kw: dict, node: Any) -> Any:
    obj, name, value = args
    if not isinstance(name, str):
        raise V.NotUnderstood("setattr() with a name that is not known", node)
    it.set_attr(obj, name, value, node)
    return None


def b_type(it: Any, args: list, kw: dict, node: Any) -> Any:
    (x,) = args[:1]
    if isinstance(x, V.Instance):
        return x.cls
    if isinstance(x, V.EnumMember):
        return x.cls
    for name, test in (("bool", lambda: isinstance(x, bool)), ("int", lambda: V.is_int(x)),
                       ("float", lambda: isinstance(x, float)), ("str", lambda: isinstance(x, str)),
                       ("tuple", lambda: isinstance(x, tuple)), ("list", lambda: isinstance(x, V.PyList)),
                       ("dict", lambda: isinstance(x, V.PyDict))):
        if test():
            return BUILTINS[name]
    return V.Unknown("type()")


def b_super(it: Any, args: list, kw: dict, node: Any) -> Any:
    from .calls import SuperProxy
    if len(args) == 2:
        return SuperProxy(args[0], args[1])
    f = it.frame
    owner = f.owner
    if owner is None or f.func is None:
        raise V.NotUnderstood("super() outside a method", node)
    first = f.func.node.args.args[0].arg if f.func.node.args.args else None
    if first is None or first not in f.locals:
        raise V.NotUnderstood("super() in a method without self", node)
    return SuperProxy(owner, f.locals[first])


def b_print(it: Any, args: list, kw: dict, node: Any) -> Any:
    return None


def b_int_text(it: Any, args: list, kw: dict, node: Any) -> Any:
    """bin/hex/oct of a known integer (for messages); of anything else a string not known."""
    name = getattr(getattr(node, "func", None), "id", "hex")
    if args and isinstance(args[0], int) and not isinstance(args[0], bool):
        return {"bin": bin, "oct": oct}.get(name, hex)(args[0])
    return V.Unknown(f"result of {name}()")


def b_slice(it: Any, args: list, kw: dict, node: Any) -> Any:
    if len(args) == 1:
        return slice(None, args[0], None)
    return slice(*args)


def b_property(it: Any, args: list, kw: dict, node: Any) -> Any:
    fn = args[0]
    if isinstance(fn, V.FunctionVal):
        fn.is_property = True
    return fn


def b_identity(it: Any, args: list, kw: dict, node: Any) -> Any:
    return args[0] if args else None


def b_exception(it: Any, args: list, kw: dict, node: Any) -> Any:
    return V.Unknown("exception object")


def b_hash(it: Any, args: list, kw: dict, node: Any) -> Any:
    return it.fresh_int("<hash>")


def b_callable(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    return isinstance(x, (V.FunctionVal, V.BoundMethod, V.Builtin, V.ClassVal, V.ApiVal, V.KernelVal))


def b_opaque(it: Any, args: list, kw: dict, node: Any) -> Any:
    if it.kb is not None:
        fn = getattr(getattr(node, "func", None), "id", "this builtin")
        raise V.NotUnderstood(f"{fn}() cannot be evaluated without running the code", node)
    return V.Unknown("result of a builtin the verifier does not evaluate")


def b_format(it: Any, args: list, kw: dict, node: Any) -> Any:
    return "<formatted>"


def b_chr_ord(it: Any, args: list, kw: dict, node: Any) -> Any:
    return V.Unknown("chr/ord")


# ----------------------------------------------------------------------------- math / functools / dataclasses


def _float_fn(py: Any) -> Any:
    def fn(it: Any, args: list, kw: dict, node: Any) -> Any:
        xs = [it._float_of(a) for a in args]
        if all(isinstance(x, (int, float)) for x in xs):
            try:
                return py(*xs)
            except (ValueError, OverflowError):
                return V.OPAQUE_FLOAT
        return V.OPAQUE_FLOAT
    return fn


def m_ceil(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    if isinstance(x, (int, float)):
        return math.ceil(x)
    if V.is_int(x):
        return x
    if isinstance(x, V.SymFloat) and x.num is not None:
        return E.lower(E.ceildiv(x.num, x.den))
    return it.fresh_int("<ceil of a float>")


def m_floor(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    if isinstance(x, (int, float)):
        return math.floor(x)
    if V.is_int(x):
        return x
    if isinstance(x, V.SymFloat) and x.num is not None:
        return E.lower(E.floordiv(x.num, x.den))
    return it.fresh_int("<floor of a float>")


def m_prod(it: Any, args: list, kw: dict, node: Any) -> Any:
    import ast
    acc: Any = kw.get("start", 1)
    for v in it.iterate_known(args[0], node):
        acc = it.binop(ast.Mult, acc, v, node)
    return acc


def m_gcd(it: Any, args: list, kw: dict, node: Any) -> Any:
    if all(isinstance(a, int) for a in args):
        return math.gcd(*args)
    g = it.fresh_int("<gcd>", "unknown", 1)
    # what any common divisor satisfies (`block_len // math.gcd(block_len, d)` divides exactly): it divides
    # each argument, and is at most each positive one
    _divisor_facts(it, args, lambda a: E.band(E.eq(E.mod(a, g), 0), E.bor(E.le(a, 0), E.le(g, a))))
    return g


def m_lcm(it: Any, args: list, kw: dict, node: Any) -> Any:
    if all(isinstance(a, int) for a in args):
        return math.lcm(*args)
    m = it.fresh_int("<lcm>", "unknown", 1)
    # a common multiple: each non-zero argument divides it
    _divisor_facts(it, args, lambda a: E.bor(E.eq(a, 0), E.eq(E.mod(m, a), 0)))
    return m


def _divisor_facts(it: Any, args: list, fact: Any) -> None:
    """State `fact(a)` of each argument `a` of a gcd or lcm (what the new symbol satisfies), when the arguments
    are integers of the inputs only: true wherever it is computed (a fresh symbol per evaluation), while one that
    names a loop index would hold for a single iteration and is left out."""
    if it.kb is None or not all(V.is_int(a) for a in args):
        return
    if any(it.is_exec_sym(s) for a in args if isinstance(a, E.Expr) for s in E.free_syms(a)):
        return
    it.kb.assume(E.band(*(fact(E.lift(a)) for a in args)), None, "divisor")


def m_isqrt(it: Any, args: list, kw: dict, node: Any) -> Any:
    if isinstance(args[0], int):
        return math.isqrt(args[0])
    return it.fresh_int("<isqrt>", "unknown", 0)


def m_log2(it: Any, args: list, kw: dict, node: Any) -> Any:
    x = args[0]
    if isinstance(x, (int, float)) and x > 0:
        return math.log2(x)
    return V.OPAQUE_FLOAT


def f_reduce(it: Any, args: list, kw: dict, node: Any) -> Any:
    fn, seq = args[0], args[1]
    items = it.iterate_known(seq, node)
    if len(args) > 2:
        acc = args[2]
    elif items:
        acc, items = items[0], items[1:]
    else:
        raise V.NotUnderstood("reduce() of an empty sequence", node)
    for v in items:
        acc = it.call_value(fn, [acc, v], {}, node)
    return acc


def f_partial(it: Any, args: list, kw: dict, node: Any) -> Any:
    fn, bound = args[0], list(args[1:])
    bound_kw = dict(kw)

    def call(it2: Any, a: list, k: dict, n: Any) -> Any:
        merged = dict(bound_kw)
        merged.update(k)
        return it2.call_value(fn, bound + list(a), merged, n)

    return V.Builtin("partial", call)


def f_decorator_factory(it: Any, args: list, kw: dict, node: Any) -> Any:
    if args and isinstance(args[0], (V.FunctionVal, V.ClassVal)) and len(args) == 1 and not kw:
        return args[0]
    return V.Builtin("identity_decorator", b_identity)


def dc_dataclass(it: Any, args: list, kw: dict, node: Any) -> Any:
    if args and isinstance(args[0], V.ClassVal):
        return args[0]
    return V.BoundMethod(V.Builtin("dataclass_with", lambda it2, a, k, n: a[1] if len(a) > 1 else None), dict(kw))


def dc_field(it: Any, args: list, kw: dict, node: Any) -> Any:
    from .calls import FieldSpec
    return FieldSpec(kw.get("default", V.MISSING), kw.get("default_factory", V.MISSING))


def dc_replace(it: Any, args: list, kw: dict, node: Any) -> Any:
    obj = args[0]
    if not isinstance(obj, V.Instance):
        raise V.NotUnderstood("dataclasses.replace() of a non-instance", node)
    attrs = dict(obj.attrs)
    attrs.update(kw)
    return V.Instance(it.heap, obj.cls, attrs)


def copy_copy(it: Any, args: list, kw: dict, node: Any) -> Any:
    obj = args[0]
    if isinstance(obj, V.Instance):
        return V.Instance(it.heap, obj.cls, dict(obj.attrs))
    if isinstance(obj, V.PyList):
        return V.PyList(it.heap, list(obj.items), obj.tail)
    if isinstance(obj, V.PyDict):
        return V.PyDict(it.heap, dict(obj.items))
    return obj


def enum_auto(it: Any, args: list, kw: dict, node: Any) -> Any:
    from .calls import AutoValue
    return AutoValue()


def itertools_product(it: Any, args: list, kw: dict, node: Any) -> Any:
    import itertools
    lists = [it.iterate_known(a, node) for a in args] * int(kw.get("repeat", 1))
    return V.PyList(it.heap, [tuple(p) for p in itertools.product(*lists)])


def itertools_chain(it: Any, args: list, kw: dict, node: Any) -> Any:
    out: list = []
    for a in args:
        out.extend(it.iterate_known(a, node))
    return V.PyList(it.heap, out)


def typing_cast(it: Any, args: list, kw: dict, node: Any) -> Any:
    return args[1]


def _b(name: str, fn: Any) -> V.Builtin:
    return V.Builtin(name, fn)


BUILTINS: dict = {
    "len": _b("len", b_len), "range": _b("range", b_range),
    "min": _b("min", lambda it, a, k, n: _minmax(it, a, k, n, True)),
    "max": _b("max", lambda it, a, k, n: _minmax(it, a, k, n, False)),
    "abs": _b("abs", b_abs), "int": _b("int", b_int), "float": _b("float", b_float), "bool": _b("bool", b_bool),
    "str": _b("str", b_str), "repr": _b("repr", b_str), "round": _b("round", b_round),
    "divmod": _b("divmod", b_divmod), "pow": _b("pow", b_pow),
    "tuple": _b("tuple", b_tuple), "list": _b("list", b_list), "dict": _b("dict", b_dict), "set": _b("set", b_set),
    "frozenset": _b("frozenset", b_set),
    "enumerate": _b("enumerate", b_enumerate), "zip": _b("zip", b_zip), "reversed": _b("reversed", b_reversed),
    "sorted": _b("sorted", b_sorted), "sum": _b("sum", b_sum), "any": _b("any", b_any), "all": _b("all", b_all),
    "map": _b("map", b_map), "filter": _b("filter", b_filter), "iter": _b("iter", b_iter), "next": _b("next", b_next),
    "isinstance": _b("isinstance", b_isinstance), "issubclass": _b("issubclass", b_issubclass),
    "hasattr": _b("hasattr", b_hasattr), "getattr": _b("getattr", b_getattr), "setattr": _b("setattr", b_setattr),
    "type": _b("type", b_type), "super": _b("super", b_super), "print": _b("print", b_print),
    "breakpoint": _b("breakpoint", b_print),  # a debugger stop (the NKI simulator): nothing for the kernel
    "bin": _b("bin", b_int_text), "hex": _b("hex", b_int_text), "oct": _b("oct", b_int_text),
    "ascii": _b("ascii", b_str), "dir": _b("dir", b_opaque), "memoryview": _b("memoryview", b_opaque),
    "slice": _b("slice", b_slice), "property": _b("property", b_property),
    "staticmethod": _b("staticmethod", b_identity), "classmethod": _b("classmethod", b_identity),
    "callable": _b("callable", b_callable), "hash": _b("hash", b_hash), "id": _b("id", b_hash),
    "format": _b("format", b_format), "chr": _b("chr", b_chr_ord), "ord": _b("ord", b_chr_ord),
    "object": _b("object", b_exception), "bytes": _b("bytes", b_opaque),
    "vars": _b("vars", b_opaque), "globals": _b("globals", b_opaque), "locals": _b("locals", b_opaque),
    "open": _b("open", b_opaque), "input": _b("input", b_opaque), "eval": _b("eval", b_opaque),
    "exec": _b("exec", b_opaque), "__import__": _b("__import__", b_opaque),
    "NotImplemented": V.Unknown("NotImplemented"), "Ellipsis": Ellipsis, "__debug__": True,
}
for _exc in ("Exception", "BaseException", "ValueError", "TypeError", "AssertionError", "RuntimeError", "KeyError",
             "IndexError", "NotImplementedError", "AttributeError", "ZeroDivisionError", "ArithmeticError",
             "StopIteration", "OverflowError", "ImportError", "ModuleNotFoundError", "LookupError", "OSError",
             "Warning", "UserWarning", "DeprecationWarning"):
    BUILTINS[_exc] = _b(_exc, b_exception)

# third-party / stdlib functions by dotted path
EXTERNAL_FUNCS: dict = {
    "math.ceil": m_ceil, "math.floor": m_floor, "math.prod": m_prod, "math.gcd": m_gcd, "math.lcm": m_lcm,
    "math.isqrt": m_isqrt, "math.log2": m_log2, "math.sqrt": _float_fn(math.sqrt), "math.log": _float_fn(math.log),
    "math.exp": _float_fn(math.exp), "math.fabs": _float_fn(math.fabs), "math.pow": _float_fn(math.pow),
    "math.trunc": m_floor, "math.isclose": lambda it, a, k, n: it.fresh_bool("<isclose>"),
    "math.log10": _float_fn(math.log10), "math.tanh": _float_fn(math.tanh), "math.erf": _float_fn(math.erf),
    "functools.reduce": f_reduce, "functools.partial": f_partial, "functools.lru_cache": f_decorator_factory,
    "functools.cache": f_decorator_factory, "functools.wraps": f_decorator_factory,
    "functools.cached_property": b_property,
    "dataclasses.dataclass": dc_dataclass, "dataclasses.field": dc_field, "dataclasses.replace": dc_replace,
    "copy.copy": copy_copy, "copy.deepcopy": copy_copy, "enum.auto": enum_auto,
    "itertools.product": itertools_product, "itertools.chain": itertools_chain,
    "typing.cast": typing_cast, "typing.final": b_identity, "typing.overload": b_identity,
    "operator.mul": lambda it, a, k, n: it.binop(__import__("ast").Mult, a[0], a[1], n),
    "operator.add": lambda it, a, k, n: it.binop(__import__("ast").Add, a[0], a[1], n),
    "builtins.min": BUILTINS["min"].fn, "builtins.max": BUILTINS["max"].fn,
}
EXTERNAL_CONSTS: dict = {"math.pi": math.pi, "math.e": math.e, "math.inf": math.inf, "math.nan": math.nan,
                         "sys.maxsize": 2 ** 63 - 1, "numpy.inf": math.inf, "numpy.nan": math.nan,
                         "numpy.pi": math.pi, "numpy.e": math.e}
DECORATOR_NAMES = frozenset({"dataclasses.dataclass"})


# ----------------------------------------------------------------------------- methods of built-in values


def _list_method(name: str) -> Any:
    def append(it: Any, a: list, k: dict, n: Any) -> Any:
        it.list_append(a[0], a[1])
        return None

    def extend(it: Any, a: list, k: dict, n: Any) -> Any:
        lst, src = a[0], a[1]
        if isinstance(src, V.SymSeq) or isinstance(src, V.PyList) and src.tail is not None:
            if not lst.items and lst.tail is None:
                tail = src if isinstance(src, V.SymSeq) else src.tail
                lst.set_items(list(src.items) if isinstance(src, V.PyList) else [], tail)
                return None
        for v in it.iterate_known(src, n):
            it.list_append(lst, v)
        return None

    def insert(it: Any, a: list, k: dict, n: Any) -> Any:
        lst, idx, v = a
        items = list(lst.items)
        if lst.tail is not None or not isinstance(idx, int):
            raise V.NotUnderstood("list.insert() at an unknown position", n)
        items.insert(idx, v)
        lst.set_items(items)
        return None

    def pop(it: Any, a: list, k: dict, n: Any) -> Any:
        lst = a[0]
        idx = a[1] if len(a) > 1 else -1
        if lst.tail is not None or not isinstance(idx, int) or not lst.items:
            raise V.NotUnderstood("list.pop() on a list that is not known", n)
        items = list(lst.items)
        v = items.pop(idx)
        lst.set_items(items)
        return v

    def index(it: Any, a: list, k: dict, n: Any) -> Any:
        _takes_value(a, "list.index()", n, exactly=False)
        items = it.iterate_known(a[0], n)
        for i, x in enumerate(items):
            if it.equal(x, a[1]) is True:
                return i
        raise V.NotUnderstood("list.index() of a value that is not known to be present", n)

    def count(it: Any, a: list, k: dict, n: Any) -> Any:
        _takes_value(a, "list.count()", n)
        return sum(1 for x in it.iterate_known(a[0], n) if it.equal(x, a[1]) is True)

    def copy(it: Any, a: list, k: dict, n: Any) -> Any:
        lst = a[0]
        return V.PyList(it.heap, list(lst.items), lst.tail)

    def reverse(it: Any, a: list, k: dict, n: Any) -> Any:
        lst = a[0]
        lst.set_items(list(reversed(it.iterate_known(lst, n))))
        return None

    def sort(it: Any, a: list, k: dict, n: Any) -> Any:
        lst = a[0]
        lst.set_items(b_sorted(it, [lst], k, n).items)
        return None

    def clear(it: Any, a: list, k: dict, n: Any) -> Any:
        a[0].set_items([])
        return None

    def remove(it: Any, a: list, k: dict, n: Any) -> Any:
        _takes_value(a, "list.remove()", n)
        lst = a[0]
        items = list(lst.items)
        for i, x in enumerate(items):
            if it.equal(x, a[1]) is True:
                del items[i]
                lst.set_items(items)
                return None
        raise V.NotUnderstood("list.remove() of a value that is not known to be present", n)

    return locals().get(name)


def _numbers(values: list) -> bool:
    """Integers and floats only, at least one (a table of sizes or limits)."""
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def table_lookup(it: Any, items: dict, key: Any, default: Any, why: str) -> Any:
    """`table[key]` (`table.get(key, default)` with a default other than V.MISSING) of a table of numbers (sizes,
    limits) whose key the verifier does not know, else V.MISSING (a table of other values, a key known).

    - `key` None (not known at all): one of the numbers, not known which.  One of several floats is a float not
      known; one of several integers a value not determined in their range (a check that holds over the range
      is proved, one that depends on the choice is undecided).  A default of None is left out: a key missing
      from the table gives None (or KeyError), which fails where a number is needed.
    - An input's dtype not known: each entry under the condition that the dtype is its key (`dtype_lookup`)."""
    values = list(items.values())
    if key is None:
        values += [default] if default is not None and default is not V.MISSING else []
        if not _numbers(values):
            return V.MISSING
        if any(isinstance(v, float) for v in values):
            return V.OPAQUE_FLOAT
        return it.fresh_int(f"<one of {len(set(values))} values: {why}>", "unknown", min(values), max(values) + 1)
    if isinstance(key, V.DTypeVal) and key.name.startswith("?") and _numbers(values):
        return it.dtype_lookup(items, key, default)
    return V.MISSING


def _takes_value(a: list, method: str, n: Any, exactly: bool = True) -> None:
    """A sequence method called with its object and the value it needs (`exactly`: and nothing more); else a
    finding on the call, as Python raises TypeError (not an internal error on the missing argument)."""
    if len(a) < 2 or exactly and len(a) > 2:
        what = "exactly one value" if exactly else "the value to find"
        raise V.NotUnderstood(f"{method} takes {what} (Python raises TypeError)", n)


def _dict_method(name: str) -> Any:
    def clear(it: Any, a: list, k: dict, n: Any) -> Any:
        d = a[0]
        for key in list(d.items):
            d.delete(key)  # (through delete: a branch's snapshot sees the change)
        return None

    def get(it: Any, a: list, k: dict, n: Any) -> Any:
        d, key = a[0], it.hashable_key(a[1])
        default = a[2] if len(a) > 2 else None
        got = table_lookup(it, d.items, key, default, "dict.get() with an unknown key")
        if got is not V.MISSING:
            return got
        if key is None:
            return V.Unknown("dict.get() with an unknown key")
        return d.items.get(key, default)

    def keys(it: Any, a: list, k: dict, n: Any) -> Any:
        return V.PyList(it.heap, list(a[0].items.keys()))

    def values(it: Any, a: list, k: dict, n: Any) -> Any:
        return V.PyList(it.heap, list(a[0].items.values()))

    def items(it: Any, a: list, k: dict, n: Any) -> Any:
        return V.PyList(it.heap, [(kk, vv) for kk, vv in a[0].items.items()])

    def update(it: Any, a: list, k: dict, n: Any) -> Any:
        d = a[0]
        if len(a) > 1 and isinstance(a[1], V.PyDict):
            for kk, vv in a[1].items.items():
                d.set(kk, vv)
        for kk, vv in k.items():
            d.set(kk, vv)
        return None

    def pop(it: Any, a: list, k: dict, n: Any) -> Any:
        d, key = a[0], it.hashable_key(a[1])
        if key in d.items:
            v = d.items[key]
            d.delete(key)
            return v
        if len(a) > 2:
            return a[2]
        raise V.NotUnderstood("dict.pop() of a missing key", n)

    def setdefault(it: Any, a: list, k: dict, n: Any) -> Any:
        d, key = a[0], it.hashable_key(a[1])
        if key is None:
            raise V.NotUnderstood("dict.setdefault() with an unknown key", n)
        if key not in d.items:
            d.set(key, a[2] if len(a) > 2 else None)
        return d.items[key]

    def copy(it: Any, a: list, k: dict, n: Any) -> Any:
        return V.PyDict(it.heap, dict(a[0].items))

    return locals().get(name)


def _str_method(name: str) -> Any:
    def known(fn: Any) -> Any:
        def call(it: Any, a: list, k: dict, n: Any) -> Any:
            if any(isinstance(x, (V.OpaqueStr, V.DTypeStr)) for x in a):
                # a text only partly known (an f-string's field, an input's dtype name): not worked out on its
                # placeholder letters (`str(x.dtype).startswith("float8")` is a question, not False)
                if name in ("startswith", "endswith", "isdigit"):
                    return it.fresh_bool(f"<str.{name}>")
                if name in ("find", "count"):
                    return V.Unknown(f"str.{name}")
                return V.OpaqueStr("{…}")
            if all(isinstance(x, (str, int, float, bool, type(None))) for x in a) and not k:
                try:
                    return fn(*a)
                except Exception:  # noqa: BLE001
                    return V.OpaqueStr("{…}")
            return V.OpaqueStr("{…}")
        return call

    if name in ("upper", "lower", "strip", "lstrip", "rstrip", "replace", "title", "capitalize", "startswith",
                "endswith", "split", "join", "find", "isdigit", "zfill", "ljust", "rjust", "center", "count"):
        py = getattr(str, name)
        if name == "split":
            def split(it: Any, a: list, k: dict, n: Any) -> Any:
                if all(isinstance(x, str) for x in a):
                    return V.PyList(it.heap, a[0].split(*a[1:]))
                return V.PyList(it.heap, [])
            return split
        if name == "join":
            return lambda it, a, k, n: V.OpaqueStr("{…}")
        return known(py)
    if name == "format":
        return lambda it, a, k, n: "<formatted>"
    return None


def _tuple_method(name: str) -> Any:
    def index(it: Any, a: list, k: dict, n: Any) -> Any:
        _takes_value(a, "tuple.index()", n, exactly=False)
        for i, x in enumerate(a[0]):
            if it.equal(x, a[1]) is True:
                return i
        raise V.NotUnderstood("tuple.index() of a value that is not known to be present", n)

    def count(it: Any, a: list, k: dict, n: Any) -> Any:
        _takes_value(a, "tuple.count()", n)
        return sum(1 for x in a[0] if it.equal(x, a[1]) is True)

    return locals().get(name)


class BuiltinsMixin:
    def builtin_method(self, obj: Any, name: str) -> Any | None:
        fn = None
        if isinstance(obj, V.PyList):
            fn = _list_method(name)
            if fn is None and name in ("index", "count"):
                fn = _tuple_method(name)
        elif isinstance(obj, V.PyDict):
            fn = _dict_method(name)
        elif isinstance(obj, str):
            fn = _str_method(name)
        elif isinstance(obj, tuple):
            fn = _tuple_method(name)
        elif isinstance(obj, slice):
            if name in ("start", "stop", "step"):
                return getattr(obj, name)
        elif isinstance(obj, float):
            if name == "is_integer":
                return V.Builtin("is_integer", lambda it, a, k, n: a[0].is_integer())
        elif V.is_int(obj) and name in ("real", "numerator"):
            return obj
        if fn is None:
            return None
        return V.BoundMethod(V.Builtin(name, fn), obj)
