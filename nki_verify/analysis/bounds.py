"""NKI101: every index and slice a kernel evaluates stays inside its tensor, for every admissible input."""

from __future__ import annotations

from compiler import expr as E
from compiler import ir

from .engine import KernelAnalysis, Obligation

SKIP_ROLES = frozenset({"register"})  # runtime offsets are NKI102's business


def _runtime(ka: KernelAnalysis, e: E.Expr) -> bool:
    return any(ka.info.get(s) is not None and ka.info[s].role in SKIP_ROLES for s in E.free_syms(e))


def subscript_obligations(ka: KernelAnalysis) -> list:
    out = []
    k = ka.k
    for sub in k.subscripts:
        if sub.what == "ap":
            continue
        t = k.tensors[sub.tensor]
        facts = ka.local_facts(sub.ctx, sub.iotas, sub.mask)
        for axis, item in enumerate(sub.items):
            if axis >= len(sub.shape):
                break
            dim = sub.shape[axis]
            span = item.span or sub.span
            out.extend(_item(ka, t, axis, dim, item, facts, span, sub))
    return out


def _item(ka: KernelAnalysis, t: ir.Tensor, axis: int, dim: E.Expr, item: ir.AxisIndex, facts: tuple,
          span: ir.Span, sub: ir.Subscript) -> list:
    name = t.name
    show = ka.show
    where = f"axis {axis} of '{name}' (size {show(dim)})"
    loops = sub.ctx.loops
    if isinstance(item, (ir.IdxInt, ir.IdxGrid)):
        v = item.value
        if _runtime(ka, v):
            return []
        kind = "index" if isinstance(item, ir.IdxInt) else "index expression"
        q = (("index", v), ("size", dim))
        return [
            Obligation("NKI101", E.ge(v, 0), facts, span, f"{kind} {show(v)} is negative on {where}", q, loops=loops),
            Obligation("NKI101", E.lt(v, dim), facts, span, f"{kind} {show(v)} is out of bounds for {where}", q,
                       loops=loops),
        ]
    start, stop = item.start, item.stop
    if _runtime(ka, start) or _runtime(ka, stop):
        return []
    q = (("start", start), ("end", stop), ("size", dim))
    out = [Obligation("NKI101", E.ge(start, 0), facts, span, f"slice start {show(start)} is negative on {where}", q,
                      loops=loops)]
    if item.written_stop:
        out.append(Obligation("NKI101", E.le(stop, dim), facts, span,
                              f"slice {show(start)}:{show(stop)} runs past the end of {where}", q, loops=loops))
        out.append(Obligation("NKI101", E.le(start, stop), facts, span,
                              f"slice {show(start)}:{show(stop)} on {where} has its start after its end", q,
                              loops=loops))
    else:
        out.append(Obligation("NKI101", E.le(start, dim), facts, span,
                              f"slice start {show(start)} is past the end of {where}", q, loops=loops))
    return out


def check_obligations(ka: KernelAnalysis) -> list:
    """Front-end obligations that are not tensor subscripts (Python list indices, divisions)."""
    out = []
    for c in ka.k.checks:
        facts = ka.local_facts(c.ctx)
        out.append(Obligation(c.code, c.cond, facts, c.span, c.message, loops=c.ctx.loops))
    return out
