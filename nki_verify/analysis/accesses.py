"""Symbolic element sets of operand accesses, with per-side copies of execution variables.

To ask "can access A in iteration i and access B in iteration j != i touch the same element?" each side
gets its own copies of the variables that differ between the two executions (the loop index, loops
nested inside it, index-grid variables, program ids for races) while the variables they share (outer
loops, input shapes) stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from compiler import expr as E
from compiler import ir


@dataclass
class Side:
    """One execution of one operand access."""

    addr: E.Expr  # element address in the tensor's storage
    facts: list  # loop ranges, index ranges, path condition, mask (all renamed)
    coords: tuple | None  # (frame, coordinate exprs) when the access is affine per axis
    inst: tuple  # the tensor instance (iteration indices of its allocation), renamed
    mapping: dict = field(default_factory=dict)  # original symbol -> this side's copy
    index_vars: list = field(default_factory=list)
    unit: int = 0  # bytes per element of this access when it reinterprets the tensor's dtype (0: same dtype)
    base_unit: int = 0  # bytes per element of the tensor (0: unknown)


UNKNOWN_COPY = "unknown copy"  # the kind of a side's copy of a value the front end could not determine


def fresh(uids: Iterator[int], name: str, kind: str = "copy") -> E.Sym:
    """A new symbol numbered by the kernel analysis' counter (`KernelAnalysis.uids`)."""
    return E.Sym(name, next(uids), kind)


def iteration_syms(loops: dict, lids: Iterable[int]) -> set:
    """The symbols each iteration of these loops (ids into `loops`) has its own of: their indices, and the values
    they change in a way not followed (ir.Loop.carried)."""
    return {s for lid in lids if lid in loops for s in (loops[lid].var, *loops[lid].carried)}


def loop_facts(lp: ir.Loop, var: E.Expr) -> list:
    facts = [E.ge(var, lp.start), E.lt(var, lp.stop)]
    if lp.step != E.ONE:
        facts.append(E.eq(E.mod(E.sub(var, lp.start), lp.step), 0))
    return facts


def side(k: ir.Kernel, ins: ir.Instr, op: ir.Operand, tag: str, per_side: set, info: dict,
         uids: Iterator[int], held: bool = False) -> Side:
    """The access `op` of `ins` with the symbols of `per_side` (plus its iotas) copied for this side.  `held`:
    the path's branches alone (`ir.Ctx.held`), for an access seen from a later point reached without aborting."""
    tensor = k.tensors[op.tensor]
    loops = {lp.id: lp for lp in k.loops}
    mapping: dict = {}
    for s in per_side:
        # (a copy of a value the front end could not determine is one too: a finding on it is undecided)
        unknown = info.get(s) is not None and info[s].role == "unknown"
        mapping[s] = fresh(uids, f"{getattr(s, 'name', 's')}{tag}", UNKNOWN_COPY if unknown else "copy")
    iotas = list(ins.iotas) + [io for io in (op.access.iotas if op.access else ()) if io not in ins.iotas]
    if ins.mask != E.TRUE:
        # a Beta-1 mask on another operand's axis (`s[i_p, 0] = nisa.tensor_reduce(..., t[i_p, i_f],
        # mask=(i_f < n))`): the instruction runs on the elements the mask keeps there, so that index is this
        # side's own copy (bound with the side's other indices), not one free unknown on which every element
        # of the result would depend
        in_mask = E.free_syms(ins.mask)
        for o in ins.operands:
            for io in (o.access.iotas if o.access else ()):
                if io.var in in_mask and all(io.var != j.var for j in iotas):
                    iotas.append(io)
        for x in sorted(in_mask, key=lambda x: x.uid):
            if getattr(x, "kind", None) == "iota" and all(x != j.var for j in iotas):
                mapping.setdefault(x, fresh(uids, f"{x.name}{tag}"))  # its range is the other operand's
    for io in iotas:
        mapping.setdefault(io.var, fresh(uids, f"{io.var.name}{tag}"))
    facts: list = []
    for lid in ins.ctx.loops:
        lp = loops.get(lid)
        if lp is None:
            continue
        v = mapping.get(lp.var, lp.var)
        for f in loop_facts(lp, v):
            facts.append(E.substitute(f, mapping))
    for io in iotas:
        v = mapping[io.var]
        facts.append(E.ge(v, 0))
        facts.append(E.lt(v, E.substitute(io.size, mapping)))
    path = ins.ctx.held if held and ins.ctx.held is not None else ins.ctx.path
    if path != E.TRUE:
        facts.append(E.substitute(path, mapping))
    if ins.mask != E.TRUE:
        facts.append(E.substitute(ins.mask, mapping))
    for s, copy in list(mapping.items()):  # ranges of copied program ids / registers
        meta = info.get(s)
        if meta is not None and meta.role in ("pid", "register", "seq"):
            if meta.lo is not None:
                facts.append(E.ge(copy, E.substitute(meta.lo, mapping)))
            if meta.hi is not None:
                facts.append(E.lt(copy, E.substitute(meta.hi, mapping)))
    index_vars: list = []
    acc = op.access
    coords = None
    if acc is None:
        addr: E.Expr = E.ZERO
    else:
        addr = E.substitute(acc.offset, mapping)
        xs = []
        for n, (stride, count) in enumerate(acc.dims):
            rows = acc.coords[2] if acc.coords is not None else None
            moves = stride != E.ZERO or (rows is not None and any(r != E.ZERO for r in rows[n]))
            if not moves:
                xs.append(None)
                facts.append(E.ge(E.substitute(count, mapping), 1))  # an empty view touches nothing
                continue
            x = fresh(uids, f"e{n}{tag}", "index")
            xs.append(x)
            index_vars.append(x)
            facts.append(E.ge(x, 0))
            facts.append(E.lt(x, E.substitute(count, mapping)))
            addr = E.add(addr, E.mul(E.substitute(stride, mapping), x))
        if acc.coords is not None:
            frame, consts, rows = acc.coords
            cs = []
            for k in range(len(frame)):
                c = E.substitute(consts[k], mapping)
                for j, x in enumerate(xs):
                    if x is not None and j < len(rows) and rows[j][k] != E.ZERO:
                        c = E.add(c, E.mul(E.substitute(rows[j][k], mapping), x))
                cs.append(c)
            coords = (tuple(E.substitute(f, mapping) for f in frame), tuple(cs))
    inst = tuple(E.substitute(i, mapping) for i in op.instance)
    base = _bytes(tensor.dtype)
    unit = _bytes(op.dtype) if op.dtype and op.dtype != tensor.dtype else 0
    return Side(addr, facts, coords, inst, mapping, index_vars, unit if unit and base else 0, base)


def _bytes(dtype: str | None) -> int:
    from compiler.spec import dtypes as D

    if not dtype or dtype.startswith("?") or dtype not in D.DTYPES:
        return 0
    return D.size_bytes(dtype)


def same_element(a: Side, b: Side) -> E.BExpr:
    if a.unit != b.unit and (a.unit or b.unit):
        # a dtype-reinterpreting view (`.ap(dtype=...)`): compare the byte ranges of the two elements
        ua, ub = a.unit or a.base_unit, b.unit or b.base_unit
        lo_a, lo_b = E.mul(a.addr, ua), E.mul(b.addr, ub)
        parts = [E.lt(lo_a, E.add(lo_b, ub)), E.lt(lo_b, E.add(lo_a, ua))]
    elif a.coords is not None and b.coords is not None and a.coords[0] == b.coords[0]:
        parts = [E.eq(x, y) for x, y in zip(a.coords[1], b.coords[1])]
    else:
        parts = [E.eq(a.addr, b.addr)]
    for x, y in zip(a.inst, b.inst):
        parts.append(E.eq(x, y))
    return E.band(*parts)


def inner_loops(k: ir.Kernel, ins: ir.Instr, outer: int) -> list:
    """Loop ids of `ins` nested inside loop `outer` (outer included)."""
    lids = list(ins.ctx.loops)
    if outer not in lids:
        return []
    return lids[lids.index(outer):]


def covers_whole(t: ir.Tensor, op: ir.Operand) -> bool:
    """Does the access address every element of its tensor instance (a full, row-major view)?"""
    acc = op.access
    if acc is None or acc.iotas or acc.dynamic or acc.offset != E.ZERO:
        return False
    if tuple(op.shape) != tuple(t.shape):
        return False
    expect: E.Expr = E.ONE
    for (stride, count), d in zip(reversed(acc.dims), reversed(t.shape)):
        if count != d:
            return False
        if d != E.ONE and stride != expect:
            return False
        expect = E.mul(expect, d)
    return True


def obviously_covers(k: ir.Kernel, w: tuple, n: int, r_ins: ir.Instr, r_op: ir.Operand) -> bool:
    """A write earlier in the same iteration, on a path the read's path implies, of the whole tensor
    instance or of exactly the view read: no query needed."""
    m, w_ins, w_op = w
    if m >= n or w_ins.mask != E.TRUE or w_ins.iotas:
        return False
    if tuple(w_ins.ctx.loops) != tuple(r_ins.ctx.loops)[:len(w_ins.ctx.loops)]:
        return False
    if not conjuncts(w_ins.ctx.path) <= conjuncts(r_ins.ctx.path):
        return False
    t = k.tensors[w_op.tensor]
    if tuple(w_op.instance) != tuple(r_op.instance):
        return False
    if w_op.dtype != r_op.dtype and w_op.dtype and r_op.dtype:
        return False
    if covers_whole(t, w_op):
        return True
    wa, ra = w_op.access, r_op.access
    return wa is not None and ra is not None and not wa.iotas and not ra.iotas and \
        wa.offset == ra.offset and wa.dims == ra.dims and tuple(w_ins.ctx.loops) == tuple(r_ins.ctx.loops)


def conjuncts(b: E.BExpr) -> set:
    if b == E.TRUE:
        return set()
    return set(b.args) if isinstance(b, E.BAnd) else {b}


def shared_loops(a: tuple, b: tuple) -> tuple:
    """The loops two program points are both in (the common prefix of their enclosing loops)."""
    out = []
    for x, y in zip(a, b):
        if x != y:
            break
        out.append(x)
    return tuple(out)


def accumulates(ins: ir.Instr, op: ir.Operand) -> bool:
    """nc_matmul(accumulate=True) adds onto what its destination holds."""
    return op.role == "dst" and ins.attr("accumulate") is True


def reads(ins: ir.Instr, op: ir.Operand) -> bool:
    """Does the operand read the values its view holds: an input, an accumulating destination, a
    read-modify-write (`t[...] += v`; `t[...] = v` only writes, PSUM accumulation groups start there)."""
    if op.mode == "r" or accumulates(ins, op):
        return True
    return op.mode == "rw" and ins.op != "language.__assign__"
