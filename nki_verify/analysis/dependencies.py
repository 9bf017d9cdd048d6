"""NKI401 (loop-carried dependency in an affine_range loop) and NKI403 (buffer reused across iterations).

For every pair of accesses to the same tensor inside an `affine_range` loop, at least one a write, the
solver looks for two different iterations i != j (with their own copies of every inner loop index and
index-grid variable) in which the two accesses touch the same element of the same tensor instance.
Accumulation into PSUM by matmul (`nc_matmul`, `+=` of a matmul result) is the documented exception; in Beta 2,
where iterations run in order, so is `nisa.tensor_tensor(dst=acc, data1=acc, data2=x, op=nl.add)` (the Beta-2
spelling of `acc += x`, as in the SDK's Mamba example) with an associative, commutative op.

A buffer allocated outside the loop that each iteration first overwrites completely only serialises
the iterations (false dependencies): that is NKI403, with the fix of allocating it inside the loop.
"""

from __future__ import annotations

from compiler import expr as E
from compiler import ir
from compiler.spec.isa import REORDERABLE_OPS

from ..diagnostics import Fix, Note, TextEdit
from .accesses import covers_whole, inner_loops, iteration_syms, same_element, side
from .bounds import runtime_syms
from .engine import KernelAnalysis, Obligation, location

ACCUMULATING = frozenset({"isa.nc_matmul", "isa.nc_matmul_mx", "language.matmul"})


def _accumulation(k: ir.Kernel, ins: ir.Instr, op: ir.Operand) -> str | None:
    """The reduction an access takes part in, when it is an associative accumulation whose order does not
    matter: matmul into PSUM, `t[...] += v`, nl.loop_reduce, and in Beta 2 a tensor_tensor whose dst is one of
    its own data operands (dst and that operand both)."""
    if op.role == "dst" and ins.op == "language.__assign__" and ins.attr("accumulate") is not None:
        return "reorderable"
    if op.role == "dst" and ins.op in ACCUMULATING and k.tensors[op.tensor].buffer == ir.PSUM:
        return "reorderable"
    if ins.op == "isa.tensor_tensor" and ins.dialect == ir.B2 and ins.attr("op") in REORDERABLE_OPS:
        dst = ins.operand("dst")
        if dst is not None and op.tensor == dst.tensor and op.access == dst.access and any(
                o.role != "dst" and o.tensor == dst.tensor and o.access == dst.access for o in ins.operands):
            return f"tensor_tensor.{ins.attr('op')}"
    return None


def _writes(op: ir.Operand) -> bool:
    return op.mode in ("w", "rw")


def _reads(op: ir.Operand) -> bool:
    return op.mode in ("r", "rw")


def dependency_obligations(ka: KernelAnalysis) -> list:
    k = ka.k
    out: list = []
    for lp in k.loops:
        if lp.kind != "affine_range":
            continue
        body = [(n, ins) for n, ins in enumerate(k.instrs) if lp.id in ins.ctx.loops]
        by_tensor: dict = {}
        for n, ins in body:
            for op in ins.operands:
                t = k.tensors[op.tensor]
                if lp.id in t.loops or op.access is None or op.access.dynamic and not _runtime_in(ka, op.access):
                    continue
                by_tensor.setdefault(t.id, []).append((n, ins, op))
        per_iteration = _read_per_iteration(k, lp) if k.runtime_reads else set()
        for tid, accesses in by_tensor.items():
            t = k.tensors[tid]
            if not any(_writes(op) for _, _, op in accesses):
                continue
            reuse = _reused_buffer(ka, lp, t, accesses)
            if reuse is not None:
                out.append(reuse)
                continue
            out.extend(_pairs(ka, lp, t, accesses, per_iteration))
    return out


def _reused_buffer(ka: KernelAnalysis, lp: ir.Loop, t: ir.Tensor, accesses: list) -> Obligation | None:
    """NKI403: allocated outside, used only inside, and overwritten entirely first in each iteration."""
    k = ka.k
    if t.buffer not in ir.ON_CHIP:
        return None
    # (inside a copy of the same source loop counts as inside: an enclosing Python loop unrolled, each copy
    # overwriting the buffer first, serialises each the same way, as the device sees the loop's one site)
    copies = {x.id for x in k.loops if x.span == lp.span}
    uses_outside = any(not copies.intersection(ins.ctx.loops) for ins in k.instrs for op in ins.operands
                       if op.tensor == t.id)
    if uses_outside:
        return None
    n0, ins0, op0 = min(accesses, key=lambda a: a[0])
    if not (_writes(op0) and op0.mode == "w" and ins0.ctx.loops and ins0.ctx.loops[-1] == lp.id
            and covers_whole(t, op0)):
        return None
    fixes: tuple = ()
    if t.stmt is not None and t.stmt_text and lp.body is not None and "\n" not in t.stmt_text:
        indent = " " * (lp.body.col - 1)
        edits = (
            TextEdit(location(ir.Span(t.stmt.file, t.stmt.line, 1, t.stmt.line + 1, 1)), ""),
            TextEdit(location(ir.Span(lp.body.file, lp.body.line, 1, lp.body.line, 1)),
                     indent + t.stmt_text + "\n"),
        )
        fixes = (Fix(f"move the allocation of '{t.name}' into the loop", edits),)
    msg = (f"'{t.name}' is allocated outside this affine_range loop and completely rewritten in every iteration: "
           f"the iterations serialise on it; allocate it inside the loop so each iteration gets its own buffer")
    # iterations only serialise when there are at least two of them
    trips = E.maximum(0, E.ceildiv(E.sub(lp.stop, lp.start), lp.step))
    outer = ir.Ctx(loops=tuple(lid for lid in ins0.ctx.loops if lid != lp.id and lid in _ancestors(k, lp)))
    return Obligation("NKI403", E.le(trips, 1), ka.local_facts(outer), t.span, msg,
                      notes=(Note(location(lp.span), "the loop"), Note(location(op0.span), "the rewrite")),
                      floor="warning", fixes=fixes)


def _runtime_in(ka: KernelAnalysis, acc: ir.Access) -> list:
    """The values read at run time an access's address depends on (empty when its dynamic part is not one the
    analysis sees: such an access is left out of the pairs, as before)."""
    return [s for e in [acc.offset] + [x for d in acc.dims for x in d] for s in runtime_syms(ka, e)]


def _read_per_iteration(k: ir.Kernel, lp: ir.Loop) -> set:
    """The runtime values each iteration of `lp` reads for itself: read inside it from a tensor the loop
    allocates or writes (an index loaded per iteration), at an element the loop's indices choose, or from a
    register or a value not followed.  One element of a tensor written only before the loop is one value for
    every iteration."""
    inside = {x.var for x in k.loops if x.id == lp.id or lp.id in _ancestors(k, x)}
    out = set()
    for sym, loops, (kind, key), index in k.runtime_reads:
        if lp.id not in loops:
            continue
        if kind == "tensor" and not index & inside:
            t = k.tensors[key]
            written = lp.id in t.loops or any(
                lp.id in ins.ctx.loops and any(op.tensor == key and op.mode in ("w", "rw") for op in ins.operands)
                for ins in k.instrs)
            if not written:
                continue
        out.add(sym)
    return out


def _ancestors(k: ir.Kernel, lp: ir.Loop) -> set:
    loops = {x.id: x for x in k.loops}
    out, parent = set(), lp.parent
    while parent is not None and parent in loops:
        out.add(parent)
        parent = loops[parent].parent
    return out


def _pairs(ka: KernelAnalysis, lp: ir.Loop, t: ir.Tensor, accesses: list, per_iteration: set) -> list:
    k = ka.k
    out = []
    seen: set = set()
    for a_idx, (na, ia, oa) in enumerate(accesses):
        for nb, ib, ob in accesses[a_idx:]:
            if not (_writes(oa) or _writes(ob)):
                continue
            red = _accumulation(k, ia, oa)
            if red is not None and red == _accumulation(k, ib, ob):
                continue
            key = (oa.span, ob.span, oa.mode, ob.mode)
            if key in seen:
                continue
            seen.add(key)
            out.append(_pair_obligation(ka, lp, t, (na, ia, oa), (nb, ib, ob), per_iteration))
    return out


def _pair_obligation(ka: KernelAnalysis, lp: ir.Loop, t: ir.Tensor, a: tuple, b: tuple,
                     per_iteration: set) -> Obligation:
    """`per_iteration`: the runtime values each iteration of `lp` reads for itself (`_read_per_iteration`)."""
    k = ka.k
    loops = {x.id: x for x in k.loops}
    (_, ia, oa), (_, ib, ob) = a, b
    per_a = iteration_syms(loops, inner_loops(k, ia, lp.id))
    per_b = iteration_syms(loops, inner_loops(k, ib, lp.id))
    # a value read at run time inside the loop (an index loaded per iteration) is its own in each iteration:
    # both may hold anything the reads allow, equal or not
    runtime = _runtime_in(ka, oa.access) + _runtime_in(ka, ob.access)
    per_a |= per_iteration & set(runtime)
    per_b |= per_iteration & set(runtime)
    sa = side(k, ia, oa, "_1", per_a, ka.info, ka.uids)
    sb = side(k, ib, ob, "_2", per_b, ka.info, ka.uids)
    i1, i2 = sa.mapping[lp.var], sb.mapping[lp.var]
    facts = tuple(sa.facts + sb.facts + [E.ne(i1, i2)])
    goal = E.bnot(same_element(sa, sb))
    primary = oa if _writes(oa) else ob
    other = ob if primary is oa else oa
    what_p = "written" if _writes(primary) else "read"
    what_o = "written" if _writes(other) else "read"
    if oa.span == ob.span:
        what = f"'{t.name}' is {what_p} here by two different iterations of this affine_range loop"
    else:
        what = (f"'{t.name}' is {what_p} here (line {primary.span.line}) and {what_o} at line {other.span.line} "
                f"by two different iterations of this affine_range loop")
    kind = "an affine_range loop promises independent iterations" if lp.dialect == ir.B1 else \
        "in NKI Beta 2 affine_range is an alias of range, but its name claims iterations are independent"
    msg = f"{what}: a loop-carried dependency ({kind})"
    floor = None if lp.dialect == ir.B1 else "warning"
    dynamic = sorted({ka.names(s) for s in runtime})
    if dynamic:
        # which element is written depends on values only the run knows: iterations whose values coincide
        msg += (f"; it depends on the runtime value {', '.join(dynamic)}: unless the values the iterations read "
                f"are distinct, use a sequential loop")
        floor = "warning"
    notes = [Note(location(lp.span), f"the loop; iterations {i1.name} and {i2.name} touch the same element")]
    if other.span != primary.span:
        notes.append(Note(location(other.span), f"the other access ({'write' if _writes(other) else 'read'})"))
    fixes = []
    if lp.iter_func is not None and "affine_range" in lp.iter_text and not dynamic:
        # (not offered when runtime values decide: the caller may promise distinct ones)
        new = lp.iter_text.replace("affine_range", "sequential_range") if lp.dialect == ir.B1 else "range"
        fixes.append(Fix(f"use {new} (the loop carries a dependency)", (TextEdit(location(lp.iter_func), new),)))
    return Obligation("NKI401", goal, facts, primary.span, msg, notes=tuple(notes), loops=(),
                      floor=floor, fixes=tuple(fixes), show=(i1, i2))
