"""NKI404: a read of on-chip memory that no earlier write covers, element by element.

For a read R of an allocated SBUF/PSUM tensor (`nl.ndarray`: uninitialised memory), every element R
touches must be written first, on every path that reaches R, by some write W of the same tensor instance:

    for every element e of R:  OR over writes W of  exists (W's indices and loop iterations):
        W touches e  and  W's path holds  and  W happens before R

"Before" is program order inside one iteration of the loops W and R share, or any earlier iteration of
them (lexicographically), so an accumulator initialised in iteration 0 and read later is covered.  W's
other loops are existential: one iteration that writes e is enough.  The query is quantified; when the
solver cannot settle it the read is not reported (no NKI901 by default: an uninitialised read is rare and
the quantified query is the one most likely to time out).

Not checked: reads through runtime offsets or of tensors with runtime-addressed writes (the element is
not known), kernels the front end did not fully understand, and PSUM accumulation (`+=`, a matmul whose
`accumulate` is left to the compiler or computed), whose first write starts the accumulation group.  A
matmul with `accumulate=True` adds onto its destination: that is a read.
"""

from __future__ import annotations

from compiler import expr as E
from compiler import ir, spec

from ..diagnostics import WARNING, Note
from .accesses import accumulates, conjuncts, obviously_covers, reads, same_element, shared_loops, side
from .engine import KernelAnalysis, Obligation, location


def initialization_obligations(ka: KernelAnalysis) -> list:
    k = ka.k
    if not k.complete:
        return []
    writes: dict = {}
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            if op.mode in ("w", "rw"):
                writes.setdefault(op.tensor, []).append((n, ins, op))
    out = []
    seen: set = set()
    write_sides: dict = {}  # one renamed copy of each write, shared by the reads it may cover
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            if not _is_read(ins, op):
                continue
            t = k.tensors[op.tensor]
            if t.kind != "ndarray" or t.buffer not in ir.ON_CHIP or op.access is None or op.access.dynamic:
                continue
            # (a matmul accumulating onto its destination reads what its own earlier iterations wrote)
            ws = [w for w in writes.get(op.tensor, ()) if not (w[0] == n and w[2] is op and not accumulates(ins, op))]
            if any(w[2].access is None or w[2].access.dynamic for w in ws):
                continue
            if any(obviously_covers(k, w, n, ins, op) for w in ws):
                continue  # an earlier write of the whole instance (or of the very same view) on the same path
            key = (op.span, op.tensor)
            if key in seen:
                continue
            seen.add(key)
            out.append(_read(ka, n, ins, op, ws, write_sides))
    return out


def _is_read(ins: ir.Instr, op: ir.Operand) -> bool:
    spec_op = _spec_operand(ins.op, op.role)
    if spec_op is not None and spec_op.partial:
        return False  # reads only documented parts of the view (e.g. every 16th partition)
    return reads(ins, op)


def _spec_operand(qualname: str, role: str) -> object:
    ins = spec.find(qualname)
    return ins.operand(role) if ins is not None else None


def _read(ka: KernelAnalysis, n: int, ins: ir.Instr, op: ir.Operand, ws: list, write_sides: dict) -> Obligation:
    k = ka.k
    loops = {lp.id: lp for lp in k.loops}
    r = side(k, ins, op, "", set(), ka.info, ka.uids)
    covers = []
    for m, w_ins, w_op in ws:
        w = write_sides.get(id(w_op))
        if w is None:
            # the write's copies of its loop indices are bound by the query's `exists`: the same copies serve
            # every read (a tensor written by many instructions and read by many made this quadratic).  Its path
            # without the kernel's assertions: those on the way to a write before the read held, the read being
            # reached (a helper asserting under `if k % 2 == 0` in the iteration that wrote)
            w_loops = [loops[lid].var for lid in w_ins.ctx.loops if lid in loops]
            w = write_sides[id(w_op)] = side(k, w_ins, w_op, "_w", set(w_loops), ka.info, ka.uids, held=True)
        shared = shared_loops(ins.ctx.loops, w_ins.ctx.loops)
        order = _before(shared, loops, w.mapping, m < n)
        body = E.band(*w.facts, order, same_element(w, r))
        bound = tuple(w.mapping.values()) + tuple(w.index_vars)
        covers.append(E.exists(bound, body))
    goal = E.bor(*covers) if covers else E.FALSE
    t = k.tensors[op.tensor]
    if not ws:
        msg = f"'{t.name}' is read here but nothing ever writes it (nl.ndarray memory is not initialised)"
    else:
        msg = f"this reads elements of '{t.name}' that no earlier write covers (nl.ndarray memory is not initialised)"
    floor = None
    if _one_to_one(k, ins, op) and any(_filled_before(w, n, ins) for w in ws):
        # `scatter into every 16th column, transpose the whole tile, use every 16th row`: the tile was filled
        # in part just before, and the stale rest lands in elements of the destination that nothing may read;
        # whether that is a bug is the reader's call.  (An accumulator read before its first write stays an
        # error: nothing filled any of it first.)
        floor = WARNING
        msg += f"; {ins.op.split('.')[-1]} moves each of them to one element of its on-chip destination, where " \
               "stale values are a bug only if read"
    if accumulates(ins, op):
        msg += "; accumulate=True adds the product onto them (start each accumulation group with " \
               "accumulate=False, e.g. accumulate=(k > 0), or leave it to the compiler with accumulate=None)"
    notes = tuple(Note(location(w_op.span), f"'{t.name}' is written here") for _, _, w_op in ws[:3])
    return Obligation("NKI404", goal, tuple(r.facts), op.span, msg, notes=notes, loops=ins.ctx.loops,
                      show=tuple(r.index_vars), quiet_unknown=True, floor=floor)


def _filled_before(w: tuple, n: int, r_ins: ir.Instr) -> bool:
    """The write comes earlier in program order (in the loops the two share, in the same iteration; loops of
    its own have run to their end), on a path the read's path implies."""
    m, w_ins, _ = w
    return m < n and conjuncts(w_ins.ctx.path) <= conjuncts(r_ins.ctx.path)


def _one_to_one(k: ir.Kernel, ins: ir.Instr, op: ir.Operand) -> bool:
    """`op`'s elements each land in one element of the instruction's destinations, all on chip."""
    spec_op = _spec_operand(ins.op, op.role)
    how = getattr(spec_op, "one_to_one", False)
    if isinstance(how, str):
        how = ins.attr(how) is True
    return bool(how) and all(k.tensors[o.tensor].buffer in ir.ON_CHIP for o in ins.operands
                             if o.mode in ("w", "rw") and o is not op)


def _before(shared: tuple, loops: dict, mapping: dict, earlier_in_body: bool) -> E.BExpr:
    """The write's iteration of the shared loops is lexicographically earlier than the read's, or the same
    one with the write first in the body."""
    if not shared:
        return E.TRUE if earlier_in_body else E.FALSE
    options = []
    eq_prefix: list = []
    for lid in shared:
        v = loops[lid].var
        wv = mapping.get(v, v)
        options.append(E.band(*eq_prefix, E.lt(wv, v)))
        eq_prefix.append(E.eq(wv, v))
    if earlier_in_body:
        options.append(E.band(*eq_prefix))
    return E.bor(*options)
