"""NKI101: every index and slice a kernel evaluates stays inside its tensor, for every admissible input.
NKI102: accesses whose address involves a runtime value (a register, an SBUF-held index, `nl.ds(reg, n)`)
and `.ap(...)` access patterns, proven in bounds for every element of the pattern.

A runtime value is bounded by what the kernel wrote into it (compiler/frontend/contents.py); when nothing
bounds it the finding is a warning that names the value.  Accesses of instructions with
`oob_mode=nisa.oob_mode.skip` are not checked for their runtime part: the hardware skips what falls outside.
"""

from __future__ import annotations

import functools

from compiler import expr as E
from compiler import ir

from ..diagnostics import WARNING
from . import rewrite
from .accesses import fresh
from .engine import KernelAnalysis, Obligation

RUNTIME_ROLES = frozenset({"register"})  # values read at run time


def runtime_syms(ka: KernelAnalysis, e: object) -> list:
    """The values read at run time (registers, indices held in tensors) that `e` depends on."""
    return [s for s in E.free_syms(e) if ka.info.get(s) is not None and ka.info[s].role in RUNTIME_ROLES]


def _unbounded(ka: KernelAnalysis, syms: list) -> list:
    return [s for s in syms if ka.info[s].lo is None or ka.info[s].hi is None]


def _oob_skipped(k: ir.Kernel) -> set:
    """(tensor, span) of the operands of instructions that skip out-of-bounds elements, and (tensor, access) of
    those operands: a view made earlier and kept in a variable (`v = t.ap(..., scalar_offset=i)`, then
    `dma_copy(dst=v, ..., oob_mode=skip)`) is the same access."""
    out = set()
    for ins in k.instrs:
        if any(name == "oob_mode" and v == "skip" for name, v in ins.attrs):
            out.update((op.tensor, op.span) for op in ins.operands)
            out.update((op.tensor, op.access) for op in ins.operands if op.access is not None)
    return out


def subscript_obligations(ka: KernelAnalysis) -> list:
    out = []
    k = ka.k
    skipped = _oob_skipped(k)
    for sub in k.subscripts:
        t = k.tensors[sub.tensor]
        facts = ka.local_facts(sub.ctx, sub.iotas, sub.mask)
        if sub.what == "ap":
            if sub.pattern is not None:
                out.extend(_pattern(ka, t, sub, facts, (sub.tensor, sub.span) in skipped or
                                    (sub.tensor, sub.pattern.access) in skipped))
            continue
        for axis, item in enumerate(sub.items):
            if axis >= len(sub.shape):
                break
            dim = sub.shape[axis]
            span = item.span or sub.span
            obs = _item(ka, t, axis, dim, item, facts, span, sub)
            out.extend(_as_runtime(ka, ob, (sub.tensor, sub.span) in skipped) for ob in obs)
    return [ob for ob in out if ob is not None]


def _as_runtime(ka: KernelAnalysis, ob: Obligation, skipped: bool) -> Obligation | None:
    """An index that involves a runtime value is NKI102: skipped under oob_mode.skip, a warning naming the
    value when nothing the kernel wrote bounds it."""
    syms = runtime_syms(ka, ob.goal)
    if not syms:
        return ob
    if skipped:
        return None
    ob.code = "NKI102"
    free = _unbounded(ka, syms)
    if free and _grows_past(ka, ob.goal, free):
        # the unbounded runtime value alone breaks the bound: no need to ask the solver for a model
        ob.goal, ob.quantities, ob.show = E.FALSE, (), ()
    if free:
        names = ", ".join(sorted(ka.names(s) for s in free))
        sides = {("above" if ka.info[s].hi is None else "") + ("below" if ka.info[s].lo is None else "")
                 for s in free}
        what = "nothing the kernel writes into it bounds" if sides == {"abovebelow"} else \
            f"what the kernel writes into it has no bound {'above' if sides == {'above'} else 'below'}"
        ob.message += (f"; it depends on the runtime value {names}, and {what} (fill it with memset/iota/"
                       f"register_move, clamp it with nisa.tensor_scalar(..., op0=nl.minimum), or use "
                       f"oob_mode=nisa.oob_mode.skip)")
        ob.floor = WARNING
    return ob


def _grows_past(ka: KernelAnalysis, goal: E.BExpr, free: list) -> bool:
    """`e <= 0` where raising (lowering) a runtime value unbounded above (below) provably raises e."""
    if not (isinstance(goal, E.Cmp) and goal.op == E.LE):
        return False
    ranges = dict(ka.ranges)
    for s in free:
        step = E.sub(E.substitute(goal.e, {s: E.add(s, 1)}), goal.e)
        iv = E.interval(step, ranges)
        if ka.info[s].hi is None and iv.lo is not None and iv.lo >= 1:
            return True
        if ka.info[s].lo is None and iv.hi is not None and iv.hi <= -1:
            return True
    return False


def _pattern(ka: KernelAnalysis, t: ir.Tensor, sub: ir.Subscript, facts: tuple, skipped: bool) -> list:
    """Every element of an `.ap` pattern lies inside the storage (on chip: inside its partition row)."""
    pat = sub.pattern
    acc = pat.access
    idx = []
    local = list(facts)
    for n, (_, count) in enumerate(acc.dims):
        s = fresh(ka.uids, f"ap[{n}]", "copy")
        ka.info[s] = ir.SymInfo(s, "iota", f"pattern index {n}", E.ZERO, count)
        ka.ranges[s] = E.Interval(0, None)
        idx.append(s)
        local += [E.ge(s, 0), E.lt(s, count)]
    terms = [E.mul(stride, i) for (stride, _), i in zip(acc.dims, idx)]
    addr = E.add(acc.offset, *terms) if terms else acc.offset
    where = f"'{t.name}'"
    loops = sub.ctx.loops
    q = (("element", addr),)
    obs = []
    if pat.row is not None and pat.partitions is not None and not pat.vector and idx:
        row = pat.row
        if pat.first_step is not None:
            obs.append(Obligation("NKI102", E.bor(E.eq(pat.first_step, row), E.eq(acc.dims[0][1], 1)), tuple(facts),
                                  sub.span, f"the first pair of this pattern walks the partitions of {where}: its "
                                  f"step must be the {ka.show(row)} elements of a partition, not "
                                  f"{ka.show(pat.first_step)}", loops=loops))
        part = E.add(E.floordiv(acc.offset, row), idx[0])
        free = E.add(E.mod(acc.offset, row), *terms[1:]) if len(terms) > 1 else E.mod(acc.offset, row)
        qp = (("partition", part), ("size", pat.partitions))
        qf = (("offset in partition", free), ("row", row))
        inside = functools.partial(_inside_axes, t, pat, idx, True)
        obs += [
            Obligation("NKI102", E.ge(part, 0), tuple(local), sub.span,
                       f"this access pattern starts before partition 0 of {where}", qp, loops=loops, show=tuple(idx)),
            Obligation("NKI102", E.lt(part, pat.partitions), tuple(local), sub.span,
                       f"this access pattern walks past the last partition of {where} (size "
                       f"{ka.show(pat.partitions)})", qp, loops=loops, show=tuple(idx)),
            Obligation("NKI102", E.ge(free, 0), tuple(local), sub.span,
                       f"this access pattern reaches before the start of a partition row of {where}", qf,
                       loops=loops, show=tuple(idx)),
            Obligation("NKI102", E.lt(free, row), tuple(local), sub.span,
                       f"this access pattern runs past the end of a partition row of {where} "
                       f"({ka.show(row)} elements)", qf, loops=loops, show=tuple(idx)),
        ]
        for ob in obs[-4:]:
            ob.stronger = inside
    else:
        inside = functools.partial(_inside_axes, t, pat, idx, False)
        obs += [
            Obligation("NKI102", E.ge(addr, 0), tuple(local), sub.span,
                       f"this access pattern reaches before the start of {where}", q, loops=loops, show=tuple(idx)),
            Obligation("NKI102", E.lt(addr, pat.numel), tuple(local), sub.span,
                       f"this access pattern runs past the end of {where} ({ka.show(pat.numel)} elements)",
                       q + (("size", pat.numel),), loops=loops, show=tuple(idx)),
        ]
        for ob in obs[-2:]:
            ob.stronger = inside
    out = []
    for ob in obs:
        if runtime_syms(ka, ob.goal) and skipped:
            continue
        out.append(_as_runtime(ka, ob, False))
    return out


def _inside_axes(t: ir.Tensor, pat: ir.Pattern, idx: list, on_chip: bool, rule: dict) -> tuple:
    """A sufficient condition for a pattern over `t`'s storage to stay inside it, easier to prove than the
    flattened address: the offset and each step written as coordinates of `t`'s axes (`b*d*s + o` over a
    (B, D, S) tensor is the element [b, 0, o]; a step of `s` walks axis 1), and every element's coordinates
    inside their axes.  Flattened addresses are products of sizes the solver gets lost in (`(b + 1)*d*s <=
    B*d*s`), the coordinates are mostly linear.  It is no necessary condition (a pattern may run along a row
    into the next one), so only a proof of it counts.  On chip the first pair walks the partitions (axis 0)
    and the others must stay off them.  () when the storage is not `t`'s shape or a step is no multiple of
    an axis' stride.  `rule`: the kernel's equalities as rewriting rules (`d*s` written with one input's sizes
    over another input of the same sizes, `assert k.shape[1] == d`), applied to all of it first."""
    acc = pat.access
    rule = {s: v for s, v in rule.items() if not any(getattr(x, "kind", "") == "quotient" for x in E.free_syms(v))}
    apply = functools.partial(rewrite.applied, rule=rule)
    shape = tuple(apply(x) for x in t.shape)
    if not shape or not idx:
        return ()
    if on_chip:
        if shape[0] != apply(pat.partitions) or _product(shape[1:]) != apply(pat.row):
            return ()
    elif _product(shape) != apply(pat.numel):
        return ()
    offset, dims = apply(acc.offset), [(apply(step), count) for step, count in acc.dims]
    # then with two neighbouring axes as one (a batch folded into the rows where the sequence is short: row
    # b*S + s of a (B, S, H) tensor), the partition axis on chip kept apart
    shapes = [shape] + [shape[:k] + (E.mul(shape[k], shape[k + 1]),) + shape[k + 2:]
                        for k in range(1 if on_chip else 0, len(shape) - 1) if len(shape) > 2 + on_chip]
    out = (_axes_goal(sh, offset, dims, idx, on_chip) for sh in shapes)
    return tuple(g for g in out if g is not None)


def _axes_goal(shape: tuple, offset: E.Expr, dims: list, idx: list, on_chip: bool) -> E.BExpr | None:
    strides = [E.ONE] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = E.mul(strides[k + 1], shape[k + 1])
    coords = _coordinates(offset, strides)
    if coords is None:
        return None
    for n, ((step, _), i) in enumerate(zip(dims, idx)):
        if on_chip and n == 0:
            coords[0] = E.add(coords[0], i)
            continue
        row = _coordinates(step, strides)
        if row is None or (on_chip and row[0] != E.ZERO):
            return None
        coords = [E.add(c, E.mul(r, i)) for c, r in zip(coords, row)]
    return E.band(*[E.band(E.ge(c, 0), E.lt(c, n)) for c, n in zip(coords, shape)])


def _product(xs: tuple | list) -> E.Expr:
    return functools.reduce(E.mul, xs, E.ONE)


def _monomial(e: E.Expr) -> tuple | None:
    """(coefficient, factors) of a constant times a product of atoms, else None."""
    if isinstance(e, E.Const):
        return e.value, ()
    if isinstance(e, E.Lin):
        if e.const != 0 or len(e.terms) != 1:
            return None
        (a, c), = e.terms
        return c, tuple(E._atom_factors(a))
    return 1, tuple(E._atom_factors(e))


def _quotient(factors: list, divisor: tuple) -> list | None:
    """`factors` without those of `divisor` (each once), or None when one is missing."""
    rest = list(factors)
    for f in divisor:
        if f not in rest:
            return None
        rest.remove(f)
    return rest


def _coordinates(e: E.Expr, strides: list) -> list | None:
    """c with e == sum(c[k] * strides[k]) term by term: each term of `e` goes to the outermost axis whose
    stride divides it (a constant is split by the constant strides, outermost first); None when a term
    divides by no stride."""
    monos = [_monomial(st) for st in strides]
    parts: list = [[] for _ in strides]
    terms, c = E._linear_parts(e)
    for atom, coef in terms.items():
        for k, m in enumerate(monos):
            rest = _quotient(E._atom_factors(atom), m[1]) if m is not None and m[0] and coef % m[0] == 0 else None
            if rest is not None:
                parts[k].append(E.mul(coef // m[0], _product(rest)))
                break
        else:
            return None
    for k, m in enumerate(monos):
        if c and m is not None and not m[1] and m[0] > 0:
            q, c = divmod(c, m[0])
            if q:
                parts[k].append(E.const(q))
    if c:
        return None
    return [E.add(*p) if p else E.ZERO for p in parts]


def _item(ka: KernelAnalysis, t: ir.Tensor, axis: int, dim: E.Expr, item: ir.AxisIndex, facts: tuple,
          span: ir.Span, sub: ir.Subscript) -> list:
    name = t.name
    show = ka.show
    where = f"axis {axis} of '{name}' (size {show(dim)})"
    loops = sub.ctx.loops
    if isinstance(item, (ir.IdxInt, ir.IdxGrid)):
        v = item.value
        kind = "index" if isinstance(item, ir.IdxInt) else "index expression"
        q = (("index", v), ("size", dim))
        return [
            Obligation("NKI101", E.ge(v, 0), facts, span, f"{kind} {show(v)} is negative on {where}", q, loops=loops),
            Obligation("NKI101", E.lt(v, dim), facts, span, f"{kind} {show(v)} is out of bounds for {where}", q,
                       loops=loops),
        ]
    start, stop = item.start, item.stop
    q = (("start", start), ("end", stop), ("size", dim))
    out = [Obligation("NKI101", E.ge(start, 0), facts, span, f"slice start {show(start)} is negative on {where}", q,
                      loops=loops)]
    step = getattr(item, "step", E.ONE)
    if item.written_stop and step != E.ONE:
        # a stepped slice touches start, start + step, ... below stop: its last element must be in the axis
        # (x[1:257:2] of 256 rows reads up to row 255, as x[1::2] does)
        last = E.add(start, E.mul(step, E.sub(E.ceildiv(E.sub(stop, start), step), 1)))
        out.append(Obligation("NKI101", E.implies(E.lt(start, stop), E.lt(last, dim)), facts, span,
                              f"slice {show(start)}:{show(stop)}:{show(step)} runs past the end of {where}",
                              q + (("last element", last),), loops=loops))
    elif item.written_stop:
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
