"""What on-chip tensors and registers hold: integer value ranges, for dynamic offsets (NKI102).

A runtime offset (a 1x1 SBUF tensor, an index vector, a VirtualRegister) is in bounds only when what was
written into it is known.  This tracks, per tensor and per register, an interval [lo, hi] of the integer
values written so far: memset / nl.full constants, iota patterns, register_move immediates, and their
images through copies and simple arithmetic (add, subtract, multiply, min, max, bitwise_and with a
constant).  Any other write makes the contents unknown.  Writes only widen (a join), so a loop body
analysed once is sound: when a loop closes, the offsets read inside it are re-bounded with everything
the body wrote after them (later iterations see those values).
"""

from __future__ import annotations

from typing import Any

from .. import expr as E
from .. import ir
from . import values as V
from ..spec.schema import MISSING as SPEC_MISSING

UNKNOWN = None  # contents not known at all; otherwise (lo, hi), either end None when unbounded
FILLS = {"isa.memset": "value", "language.full": "fill_value", "language.zeros": 0, "language.ones": 1,
         "language.memset": "value"}
COPIES = {"isa.tensor_copy": "src", "isa.dma_copy": "src", "language.copy": "x", "language.__assign__": "src",
          "language.load": "src", "language.store": "value"}
UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
ARITH = {"add": "add", "subtract": "sub", "multiply": "mul", "minimum": "min", "maximum": "max",
         "bitwise_and": "and"}


def _join(a: Any, b: Any) -> Any:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    lo = None if a[0] is None or b[0] is None else E.minimum(a[0], b[0])
    hi = None if a[1] is None or b[1] is None else E.maximum(a[1], b[1])
    return UNKNOWN if lo is None and hi is None else (lo, hi)


def _lift2(f: Any, x: Any, y: Any) -> Any:
    return None if x is None or y is None else f(x, y)


class ContentsMixin:
    """Mixed into the interpreter; state lives on the kernel builder (`kb.contents`, `kb.reg_ranges`)."""

    def _state(self) -> tuple:
        kb = self.kb
        if not hasattr(kb, "contents"):
            kb.contents = {}
            kb.reg_ranges = {}
            kb.dyn_uses = []
        return kb.contents, kb.reg_ranges

    # ------------------------------------------------------------------ reading
    def content_range(self, tv: Any) -> Any:
        contents, regs = self._state()
        if isinstance(tv, V.Register):
            if tv.sym in regs:
                return regs[tv.sym]
            if tv.known is not None:
                return E.lift(tv.known), E.lift(tv.known)
            return _own_range(self.kb.info_of(tv.sym) if self.kb is not None else None)
        if isinstance(tv, V.TensorVal):
            return contents.get(tv.tensor.id, UNKNOWN)
        return UNKNOWN

    def runtime_label(self, source: Any, node: Any) -> str:
        """`batch_idx@26`: the tensor or register read, and the line of the read."""
        line = getattr(node, "lineno", 0)
        if isinstance(source, V.TensorVal):
            return f"{source.tensor.name}@{line}"
        if isinstance(source, V.Register) and self.kb is not None:
            info = self.kb.info_of(source.sym)
            return f"{info.label if info else 'register'}@{line}"
        return f"runtime value@{line}"

    def runtime_value(self, source: Any, label: str) -> E.Sym:
        """A symbol for a value read at run time from `source` (tensor or register), bounded by what is
        known to have been written into it."""
        if isinstance(source, V.Register) and self.kb is not None:
            info = self.kb.info_of(source.sym)
            if info is not None and info.role == "loop":
                return source.sym  # a dynamic_range index: its loop bounds apply
        rng = self.content_range(source)
        lo, hi = (None, None) if rng is UNKNOWN else (rng[0], None if rng[1] is None else E.add(rng[1], 1))
        dtype = source.view.dtype or source.tensor.dtype if isinstance(source, V.TensorVal) else None
        if lo is None and dtype in UNSIGNED:
            lo = E.ZERO  # an index held in an unsigned integer tensor is never negative
        s = self.fresh_int(label, "register", lo, hi)
        if self.kb is not None:
            self._state()
            # (the symbols of the element read: a loop's index there reads one value per iteration)
            index = frozenset(E.free_syms(E.lift(source.view.offset))) if isinstance(source, V.TensorVal) else \
                frozenset()
            self.kb.dyn_uses.append((s, self._source_key(source), tuple(self.kb.loop_stack), label, index))
        return s

    def _source_key(self, source: Any) -> tuple:
        if isinstance(source, V.Register):
            return ("reg", source.sym)
        if isinstance(source, V.TensorVal):
            return ("tensor", source.tensor.id)
        return ("unknown", id(source))  # a value the front end could not follow: nothing written is known

    # ------------------------------------------------------------------ writing
    def track_contents(self, ins: Any, bound: dict, result: Any) -> None:
        if self.kb is None:
            return
        q = ins.qualname
        dst = result if result is not None else bound.get("dst")
        if q == "isa.register_store":
            self.track_register_store(bound.get("dst"), bound.get("src"))
            return
        if q.startswith("isa.register_"):
            self._track_register(q, bound)
            return
        if not isinstance(dst, V.TensorVal):
            return
        self._record_write(dst, bound, self._written_range(q, bound))

    def _record_write(self, dst: V.TensorVal, bound: dict, rng: Any) -> None:
        """`dst` was written with values in `rng`: it holds them (the whole tensor overwritten on the
        unconditional path), else them or what it held before."""
        contents, _ = self._state()
        if rng is not UNKNOWN and not self._exec_free(rng):
            rng = UNKNOWN  # depends on a loop index or program id: not one value for the whole tensor
        tid = dst.tensor.id
        if tid in contents and self._overwritten(dst, bound):
            contents[tid] = rng  # the whole tensor, on every path that gets here: what it held is gone
            return
        contents[tid] = rng if tid not in contents else _join(contents[tid], rng)

    def track_assignment(self, target: V.TensorVal, value: Any, accumulate: str | None, mask: E.BExpr) -> None:
        """`t[...] = v` and `t[...] += v`: what `t` holds after it (`idx[...] += 1000` moves an index tile's
        range; a value not followed leaves it unknown)."""
        if self.kb is None:
            return
        if accumulate in ARITH:
            before = self.content_range(target)
            rng = self._apply(V.ApiVal(f"language.{accumulate}", ir.B1), before, self._const_range(value), False)
        elif accumulate:
            rng = UNKNOWN
        elif isinstance(value, V.TensorVal):
            rng = self.content_range(value) if value.tensor.buffer in ir.ON_CHIP else UNKNOWN
        else:
            rng = self._const_range(value)
        self._record_write(target, {"mask": None if mask is E.TRUE else mask}, rng)

    def _overwritten(self, dst: V.TensorVal, bound: dict) -> bool:
        """A write of the whole tensor (one allocated outside loops, unmasked), on the kernel's unconditional
        path: `tensor_scalar(dst=n, data=n, op0=minimum, operand0=4, ...)` after loading n clamps what it
        holds.  (Writes in branches or to tensors of one iteration join what was there: another path, or
        another iteration's tensor, may still hold it.)"""
        if dst.instance or bound.get("mask") not in (None, SPEC_MISSING) or E.lift(dst.view.offset) != E.ZERO:
            return False
        if tuple(dst.shape) != tuple(E.lower(d) for d in dst.tensor.shape):
            return False
        return all(c in self.asserted for f in self.frames for c in f.pc)

    def _written_range(self, q: str, bound: dict) -> Any:
        if q in FILLS:
            v = FILLS[q]
            return self._const_range(v if isinstance(v, int) else bound.get(v))
        if q in COPIES:
            src = bound.get(COPIES[q])
            if isinstance(src, V.TensorVal) and src.tensor.buffer in ir.ON_CHIP:
                return self.content_range(src)
            return UNKNOWN
        if q == "isa.iota":
            return self._iota_range(bound)
        if q == "isa.nc_find_index8":
            # a position in the row searched: below its elements per partition.  (The all-ones value for a value
            # the row lacks is not modelled: the kernels search for what max8 took from that same row.)
            data = bound.get("data")
            if isinstance(data, V.TensorVal):
                return (E.ZERO, E.lift(E.sub(self.free_size(tuple(data.shape)), 1)))
            return UNKNOWN
        if q == "isa.tensor_scalar":
            rng = self.content_range(bound.get("data"))
            for op_key, arg_key in (("op0", "operand0"), ("op1", "operand1")):
                op = bound.get(op_key)
                if op is None:
                    continue
                rng = self._apply(op, rng, self._const_range(bound.get(arg_key)), bound.get("reverse" + op_key[-1]))
            return rng
        if q == "isa.tensor_tensor":
            return self._apply(bound.get("op"), self.content_range(bound.get("data1")),
                               self.content_range(bound.get("data2")), False)
        name = q.split(".", 1)[1]
        if q.startswith("language.") and name in ARITH:
            x, y = bound.get("x"), bound.get("y")
            rx = self.content_range(x) if isinstance(x, V.TensorVal) else self._const_range(x)
            ry = self.content_range(y) if isinstance(y, V.TensorVal) else self._const_range(y)
            return self._apply(V.ApiVal(f"language.{name}", ir.B1), rx, ry, False)
        return UNKNOWN

    def _const_range(self, v: Any) -> Any:
        if isinstance(v, bool):
            return (E.lift(int(v)), E.lift(int(v)))
        if isinstance(v, float) and v.is_integer():
            return (E.lift(int(v)), E.lift(int(v)))
        if isinstance(v, (int, E.Expr)):
            return (E.lift(v), E.lift(v))
        if isinstance(v, V.Register):
            return self.content_range(v)
        if isinstance(v, V.TensorVal):
            return self.content_range(v)
        return UNKNOWN

    def _apply(self, op: Any, a: Any, b: Any, reverse: Any) -> Any:
        """The range of `a op b` (either may be UNKNOWN or half-bounded)."""
        name = getattr(op, "spec_name", None) or (op.path.rsplit(".", 1)[-1] if isinstance(op, V.ApiVal) else "")
        kind = ARITH.get(name)
        if reverse is True:
            a, b = b, a
        a = (None, None) if a is UNKNOWN else a
        b = (None, None) if b is UNKNOWN else b
        out: Any = UNKNOWN
        if kind == "add":
            out = (_lift2(E.add, a[0], b[0]), _lift2(E.add, a[1], b[1]))
        elif kind == "sub":
            out = (_lift2(E.sub, a[0], b[1]), _lift2(E.sub, a[1], b[0]))
        elif kind == "min":  # min(x, c) <= c whatever x is
            hi = b[1] if a[1] is None else (a[1] if b[1] is None else E.minimum(a[1], b[1]))
            out = (_lift2(E.minimum, a[0], b[0]), hi)
        elif kind == "max":
            lo = b[0] if a[0] is None else (a[0] if b[0] is None else E.maximum(a[0], b[0]))
            out = (lo, _lift2(E.maximum, a[1], b[1]))
        elif kind == "mul":
            out = self._mul_range(a, b)
        elif kind == "and":  # x & c with c >= 0 lies in [0, c] (and in [0, x] for x >= 0)
            for x, y in ((a, b), (b, a)):
                if y[0] is not None and y[0] == y[1] and self._nonneg(y[0]):
                    bounded = x[0] is not None and x[1] is not None and self._nonneg(x[0])
                    out = (E.ZERO, E.minimum(x[1], y[1]) if bounded else y[1])
                    break
        if out is UNKNOWN or (out[0] is None and out[1] is None):
            return UNKNOWN
        return out

    def _mul_range(self, a: tuple, b: tuple) -> Any:
        if None in a or None in b:
            if a[0] is not None and b[0] is not None and self._nonneg(a[0]) and self._nonneg(b[0]):
                return (E.mul(a[0], b[0]), _lift2(E.mul, a[1], b[1]))
            return UNKNOWN
        corners = [E.mul(x, y) for x in a for y in b]
        if all(isinstance(c, E.Const) for c in corners):
            vals = [c.value for c in corners]
            return (E.lift(min(vals)), E.lift(max(vals)))
        if self._nonneg(a[0]) and self._nonneg(b[0]):
            return (E.mul(a[0], b[0]), E.mul(a[1], b[1]))
        return UNKNOWN

    def _nonneg(self, e: Any) -> bool:
        return self.decide(E.ge(e, 0)) is True

    def _iota_range(self, bound: dict) -> Any:
        expr = bound.get("expr")
        if isinstance(expr, V.IndexGrid):  # Beta 1: nisa.iota(expr, dtype)
            e = E.lift(expr.expr)
            lo, hi = e, e
            for io in expr.iotas:
                lo = E.minimum(E.substitute(lo, {io.var: E.ZERO}), E.substitute(lo, {io.var: E.sub(io.size, 1)}))
                hi = E.maximum(E.substitute(hi, {io.var: E.ZERO}), E.substitute(hi, {io.var: E.sub(io.size, 1)}))
            return (lo, hi)
        dst = bound.get("dst")
        pattern = bound.get("pattern")
        try:
            pairs = [tuple(self.iterate_known(p, None, 2)) for p in self.iterate_known(pattern, None)]
        except Exception:  # noqa: BLE001 - an unusual pattern: contents unknown
            return UNKNOWN
        off = E.lift(self.as_int(bound.get("offset", 0) or 0))
        cm = E.lift(self.as_int(bound.get("channel_multiplier", 0) or 0))
        terms = []
        if isinstance(dst, V.TensorVal) and dst.shape:
            terms.append((cm, dst.shape[0]))
        terms.extend((E.lift(self.as_int(s)), E.lift(self.as_int(n))) for s, n in pairs)
        lo, hi = off, off
        for step, count in terms:
            last = E.mul(step, E.sub(count, 1))
            lo = E.add(lo, E.minimum(0, last))
            hi = E.add(hi, E.maximum(0, last))
        return (lo, hi)

    def _track_register(self, q: str, bound: dict) -> None:
        _, regs = self._state()
        dst = bound.get("dst")
        if not isinstance(dst, V.Register):
            return
        if q == "isa.register_move":
            rng = self._const_range(bound.get("src"))
        elif q == "isa.register_load":
            src = bound.get("src")
            rng = self.content_range(src) if isinstance(src, V.TensorVal) and src.tensor.buffer in ir.ON_CHIP \
                else UNKNOWN
        else:
            return
        if rng is not UNKNOWN and not self._exec_free(rng):
            rng = UNKNOWN
        prev = self.content_range(dst)
        regs[dst.sym] = rng if prev is UNKNOWN and dst.sym not in regs and dst.known is None else _join(prev, rng)

    def track_register_store(self, dst: Any, src: Any) -> None:
        """register_store(dst tensor, src register): the tensor now holds the register's values."""
        if self.kb is None or not isinstance(dst, V.TensorVal):
            return
        contents, _ = self._state()
        rng = self.content_range(src) if isinstance(src, V.Register) else UNKNOWN
        tid = dst.tensor.id
        contents[tid] = rng if tid not in contents else _join(contents[tid], rng)

    def _exec_free(self, rng: tuple) -> bool:
        return not any(self.is_exec_sym(s) for e in rng if e is not None for s in E.free_syms(e))

    # ------------------------------------------------------------------ loops
    def snapshot_contents(self, loop_id: int) -> None:
        if self.kb is None:
            return
        contents, regs = self._state()
        self.kb.content_snapshots = getattr(self.kb, "content_snapshots", {})
        self.kb.content_snapshots[loop_id] = (dict(contents), dict(regs))

    def _widen(self, loop_id: int) -> None:
        """The body runs again with what it wrote: a range that grew in one pass grows without bound
        (interval widening), so `x += 128` in a loop has no upper bound."""
        snap = getattr(self.kb, "content_snapshots", {}).pop(loop_id, None)
        if snap is None:
            return
        for now, before in ((self.kb.contents, snap[0]), (self.kb.reg_ranges, snap[1])):
            for key, rng in list(now.items()):
                if rng is UNKNOWN or key not in before:
                    continue  # first written in this loop: one pass wrote everything it can
                old = before[key]
                if old is UNKNOWN:
                    now[key] = UNKNOWN
                    continue
                lo = rng[0] if rng[0] is not None and old[0] is not None and \
                    self.decide(E.ge(rng[0], old[0])) is True else None
                hi = rng[1] if rng[1] is not None and old[1] is not None and \
                    self.decide(E.le(rng[1], old[1])) is True else None
                now[key] = UNKNOWN if lo is None and hi is None else (lo, hi)

    def rebound_runtime_values(self, loop_id: int) -> None:
        """A loop closes: offsets read inside it may see what the body wrote after them."""
        if self.kb is None or not hasattr(self.kb, "dyn_uses"):
            return
        self._widen(loop_id)
        kb = self.kb
        uses = [u for u in kb.dyn_uses if loop_id in u[2]]
        if not uses:
            return  # (the usual case: the symbols are not indexed for nothing at every loop's end)
        index = {info.sym: n for n, info in enumerate(kb.symbols)}
        for sym, (kind, key), _loops, _label, _index in uses:
            if sym not in index:
                continue
            if kind != "reg":
                rng = kb.contents.get(key, UNKNOWN)
            else:  # (a register nothing wrote into: its own value's range)
                rng = kb.reg_ranges[key] if key in kb.reg_ranges else \
                    _own_range(kb.symbols[index[key]] if key in index else None)
            info = kb.symbols[index[sym]]
            if rng is UNKNOWN:
                lo = hi = None
            else:  # widen what the read assumed with everything written by the end of the loop
                lo = None if rng[0] is None or info.lo is None else E.minimum(info.lo, rng[0])
                hi = None if rng[1] is None or info.hi is None else E.maximum(info.hi, E.add(rng[1], 1))
            kb.replace_symbol(index[sym], ir.SymInfo(sym, info.role, info.label, lo, hi))
            kb.ranges[sym] = E.Interval(kb._lo_bound(lo), kb._hi_bound(hi))


def _own_range(info: ir.SymInfo | None) -> Any:
    """The range of a register's own value, for one nothing the kernel wrote into (a rank id is never negative):
    (lo, hi) inclusive, UNKNOWN when its symbol has no bounds."""
    if info is not None and info.role == "register" and (info.lo is not None or info.hi is not None):
        return (None if info.lo is None else E.lift(info.lo), None if info.hi is None else E.lift(E.sub(info.hi, 1)))
    return UNKNOWN
