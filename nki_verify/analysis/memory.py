"""Memory and placement: NKI203 (PSUM bank), NKI204 (capacity), NKI301 (PSUM alignment),
NKI302 (overlapping manual placements), NKI304 (a kernel writes one of its inputs).

Liveness model (documented in docs/design.md): a tensor is live from its allocation (one placed with
`address=`: from its first use) to its last use in program order, and to the end of every loop body it is
used in but was allocated outside of (the loop's back edge: the next iteration uses it again).  A tensor
allocated inside a loop is one buffer per iteration; only one iteration's buffer counts as live unless the
tensor is used after the loop (kept in a list, say), in which case every iteration's buffer is live at
once.  Input dtypes that are not known take a symbolic item size in {1, 2, 4} bytes, so an overflow that
only happens for some dtypes is a warning that names it.  NKI302 refines it by value (`_clobbers`): sharing
bytes is fine when neither tensor overwrites a value the other still reads.
"""

from __future__ import annotations

from compiler import expr as E
from compiler import ir, spec
from compiler.spec import dtypes as D
from compiler.spec.targets import get_target

from ..diagnostics import WARNING, Note
from .accesses import fresh, obviously_covers, reads, shared_loops
from .engine import KernelAnalysis, Obligation, location

ONE_BANK_DST = {"isa.nc_matmul": ("trn1", "trn2"), "isa.nc_transpose": ("trn1", "trn2", "trn3"),
                "language.matmul": ("trn1", "trn2", "trn3"), "language.transpose": ("trn1", "trn2", "trn3")}


class Sizes:
    """Item sizes in bytes, with one symbol per unknown dtype."""

    def __init__(self, ka: KernelAnalysis) -> None:
        self.ka = ka
        self.syms: dict = {}
        self.chosen = dict(ka.k.dtype_sizes)  # dtypes chosen by a condition -> their item sizes

    def itemsize(self, dtype: str | None) -> tuple:
        """(size expr, facts)"""
        if dtype is not None and not dtype.startswith("?") and dtype in D.DTYPES:
            return E.Const(D.size_bytes(dtype)), []
        chosen = self.chosen.get(dtype) if dtype else None
        if chosen is not None:
            return chosen, []  # a dtype chosen by a condition: the conditional of its choices' sizes
        key = dtype or "?"
        s = self.syms.get(key)
        if s is None:
            label = f"itemsize({key[1:]})" if key.startswith("?") and len(key) > 1 else "itemsize(unknown dtype)"
            # the kernel's own `x.dtype.itemsize`, when it reads it, is this size (the front end's symbol)
            s = next((i.sym for i in self.ka.k.symbols if i.label == label), None)
            if s is not None:
                self.syms[key] = s
                return s, []
            s = fresh(self.ka.uids, label, "shape")
            self.syms[key] = s
            # (a dtype the front end could not determine: what depends on its size is undecided, not a finding,
            # for the size the kernel computes for it, say a helper's table on that dtype, is a value of its own)
            role = "scalar" if key.startswith("?") and len(key) > 1 else "unknown"
            self.ka.info[s] = ir.SymInfo(s, role, label, E.ONE, E.Const(5))
            self.ka.ranges[s] = E.Interval(1, 4)
            self.ka.add_input_fact(E.bor(E.eq(s, 1), E.eq(s, 2), E.eq(s, 4)))
        return s, []

    def bytes_per_partition(self, t: ir.Tensor) -> tuple:
        """Bytes per partition of one block of `t`.  Beta-1 block dimensions (those before `par_dim`) are
        rotated through as few physical buffers as the compiler finds safe, at least one, so only one block
        is counted: an overflow reported on that basis happens whatever the allocator does."""
        size, facts = self.itemsize(t.dtype if t.buffer != ir.PSUM or t.dtype else "float32")
        free: E.Expr = E.ONE
        for d in t.shape[(t.par_dim or 0) + 1:]:
            free = E.mul(free, d)
        return E.mul(free, size), facts


def memory_obligations(ka: KernelAnalysis) -> list:
    out: list = []
    sizes = Sizes(ka)
    out.extend(_writes_input(ka))
    out.extend(_psum_bank(ka, sizes))
    out.extend(_psum_alignment(ka))
    out.extend(_overlaps(ka, sizes))
    out.extend(_capacity(ka, sizes))
    out.extend(_placement_range(ka, sizes))
    return out


# ----------------------------------------------------------------------------- NKI304


def _writes_input(ka: KernelAnalysis) -> list:
    """Beta 1 only: its getting-started guide says an output cannot also be an input (unless annotated
    `nt.mutable_tensor`, or handed to an `@nki.trace` sub-kernel to update).  Current NKI writes inputs in place
    (the NKI library's `inplace=True` kernels, `nki_op(mutates_args=...)`)."""
    k = ka.k
    if k.dialect != ir.B1:
        return []
    out = []
    first_read: dict = {}
    first_write: dict = {}
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            t = k.tensors[op.tensor]
            if t.kind != "param" or t.name in k.inout:
                continue
            if op.mode in ("r", "rw"):
                first_read.setdefault(t.id, (n, op))
            if op.mode in ("w", "rw"):
                first_write.setdefault(t.id, (n, op))
    for tid, (nw, opw) in first_write.items():
        read = first_read.get(tid)
        if read is None or read[0] > nw:
            continue  # an output passed by reference (Beta-1 style), not an input
        t = k.tensors[tid]
        msg = (f"this kernel writes its input '{t.name}', which it also reads: in/out parameters are not supported; "
               f"write a new output tensor and return it")
        out.append(Obligation("NKI304", E.FALSE, ka.local_facts(k.instrs[nw].ctx), opw.span, msg,
                              notes=(Note(location(read[1].span), f"'{t.name}' is read here"),)))
    return out


# ----------------------------------------------------------------------------- NKI203 / NKI301


def _free_offset_bytes(t: ir.Tensor, op: ir.Operand, size: E.Expr) -> E.Expr:
    """Byte offset within a partition (of its block, for Beta-1 block dimensions) at which the view starts
    (row-major storage)."""
    free: E.Expr = E.ONE
    for d in t.shape[(t.par_dim or 0) + 1:]:
        free = E.mul(free, d)
    offset = op.access.offset if op.access is not None else E.ZERO
    if op.access is not None and op.access.iotas:  # index-grid views start where every grid index is 0
        offset = E.substitute(offset, {io.var: E.ZERO for io in op.access.iotas})
    # a manual placement is taken to be bank-aligned here: NKI301 reports it when it is not
    return E.mul(E.mod(offset, free) if free != E.ONE else E.ZERO, size)


def _assigned_results(k: ir.Kernel) -> set:
    """Result tiles whose only use is to be assigned into a view (`t[j] = nl.load(x)`, Beta 1): the
    instruction writes straight into that view, so the tile takes no memory of its own."""
    uses: dict = {}
    for ins in k.instrs:
        for op in ins.operands:
            if op.mode == "r":
                uses.setdefault(op.tensor, []).append(ins.op == "language.__assign__" and op.role == "src")
    return {t.id for t in k.tensors if t.kind == "result" and uses.get(t.id) and all(uses[t.id])}


def _bank_bound_writes(k: ir.Kernel) -> list:
    """(instruction, dst operand, producing op) triples whose destination must sit in one PSUM bank: matmul/transpose
    destinations, and the views their result tiles are assigned to (`acc[j] = nisa.nc_matmul(...)`)."""
    out = []
    produced: dict = {}
    for ins in k.instrs:
        targets = ONE_BANK_DST.get(ins.op)
        if targets is None or k.target not in targets:
            continue
        for op in ins.operands:
            if op.role == "dst":
                out.append((ins, op, ins.op))
                produced[op.tensor] = ins.op
    for ins in k.instrs:
        if ins.op != "language.__assign__":
            continue
        src = next((op for op in ins.operands if op.role == "src"), None)
        if src is not None and src.tensor in produced:
            out.extend((ins, op, produced[src.tensor]) for op in ins.operands if op.role == "dst")
    return out


def _psum_bank(ka: KernelAnalysis, sizes: Sizes) -> list:
    k = ka.k
    target = get_target(k.target)
    bank = target.psum_bank_bytes
    out = []
    for ins, op, producer in _bank_bound_writes(k):
        t = k.tensors[op.tensor]
        if op.role != "dst" or t.buffer != ir.PSUM or not op.shape:
            continue
        size, facts = sizes.itemsize(op.dtype or t.dtype or "float32")
        free: E.Expr = E.ONE
        for d in op.shape[1:]:
            free = E.mul(free, d)
        nbytes = E.mul(free, size)
        start = _free_offset_bytes(t, op, size)
        goal = E.le(E.add(E.mod(start, bank), nbytes), bank)
        what = "transpose" if "transpose" in producer else "matmul"
        msg = (f"the {what} destination '{t.name}' must sit in one 2 KiB PSUM bank per partition, but this view "
               f"covers {ka.show(nbytes)} bytes starting {ka.show(E.mod(start, bank))} bytes into a bank")
        out.append(Obligation("NKI203", goal, ka.local_facts(ins.ctx, ins.iotas, ins.mask) + tuple(facts),
                              op.span, msg, (("bytes", nbytes), ("offset in bank", E.mod(start, bank))),
                              loops=ins.ctx.loops))
    return out


def _psum_alignment(ka: KernelAnalysis) -> list:
    k = ka.k
    bank = get_target(k.target).psum_bank_bytes
    out = []
    for t in k.tensors:
        if t.buffer != ir.PSUM or t.address is None or len(t.address) < 2:
            continue
        off = t.address[1]
        msg = (f"PSUM tensor '{t.name}' is placed at byte offset {ka.show(off)}, which is not the start of a "
               f"2 KiB bank (use bank_id * 2048)")
        out.append(Obligation("NKI301", E.eq(E.mod(off, bank), 0), ka.local_facts(t.ctx), t.span, msg,
                              (("offset", off),), loops=t.ctx.loops))
    return out


# ----------------------------------------------------------------------------- liveness


def _last_use(k: ir.Kernel) -> dict:
    last: dict = {}
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            last[op.tensor] = n
    return last


def _touched(k: ir.Kernel) -> set:
    """The tensors some instruction reads or writes, directly or through a reshape of them.  The others take
    no memory: an allocation nothing uses is dropped by the compiler (a pool of eight 32 KiB slots of which a
    kernel uses two compiles on trn2, 224 KiB per partition), so it neither fills a buffer nor overlaps."""
    ids = {op.tensor for ins in k.instrs for op in ins.operands}
    aliases = [t for t in k.tensors if t.kind == "alias" and t.base is not None]
    grew = True
    while grew:
        grew = False
        for t in aliases:
            if t.id in ids and t.base not in ids:
                ids.add(t.base)
                grew = True
    return ids


def _used_outside(k: ir.Kernel, t: ir.Tensor, lid: int) -> bool:
    return any(lid not in ins.ctx.loops for ins in k.instrs for op in ins.operands if op.tensor == t.id)


def _multiplicity(ka: KernelAnalysis, t: ir.Tensor) -> E.Expr:
    """How many instances of `t` are live at once: every iteration's when used after its loop (tiles kept in a
    list), but two when every use after the loop is of one instance (`acc = acc + part` rebinds a name: after
    the loop only the last iteration's tile is left, and in the loop the previous one is read while the next is
    written)."""
    k = ka.k
    loops = {lp.id: lp for lp in k.loops}
    indices = {lp.var for lp in k.loops}
    mult: E.Expr = E.ONE
    for pos, lid in enumerate(t.loops):
        lp = loops.get(lid)
        outside = [op for ins in k.instrs if lid not in ins.ctx.loops for op in ins.operands if op.tensor == t.id]
        if lp is None or not outside:
            continue
        trip = E.maximum(0, E.ceildiv(E.sub(lp.stop, lp.start), lp.step))
        if t.address is not None:
            # placed by hand: iterations at the same address share its bytes (`address=(0, (k % 4) * BANK)` is
            # four regions whatever the trip count)
            distinct = _distinct_addresses(t.address, lp.var)
            if distinct is not None:
                mult = E.mul(mult, E.minimum(trip, distinct))
                continue
        instances = {op.instance[pos] for op in outside if len(op.instance) > pos}
        if len(instances) == 1 and not E.free_syms(E.lift(next(iter(instances)))) & indices:
            trip = E.minimum(trip, 2)
        mult = E.mul(mult, trip)
    return mult


def _distinct_addresses(address: tuple, var: E.Sym) -> int | None:
    """How many different addresses a placement takes as `var` varies: 1 when it does not mention `var`, m when
    `var` only appears inside `... % m` for a constant m; None when not known (every iteration's may differ)."""
    out = 1
    for e in address:
        found = _moduli_of(E.lift(e), var)
        if found is None:
            return None
        for m in found:
            out *= m
    return out


def _moduli_of(e: E.Expr, var: E.Sym) -> list | None:
    """The constant moduli m of the `x % m` that hold every occurrence of `var` in `e` (None: one is outside)."""
    if var not in E.free_syms(e):
        return []
    if isinstance(e, E.Mod) and isinstance(e.b, E.Const) and e.b.value > 0:
        return [e.b.value]
    if e is var or e == var:
        return None
    out: list = []
    for k in E.children(e):
        if not isinstance(k, E.Expr):
            return None
        found = _moduli_of(k, var)
        if found is None:
            return None
        out += found
    return out


def _live_ranges(k: ir.Kernel, back_edge: bool = True) -> dict:
    """(allocation, last use) in program order; a tensor used inside a loop it was allocated outside of
    stays live to the end of that loop's body (the next iteration uses it again: the back edge).  A tensor
    placed by hand (`address=`) is live from its first use instead: nothing reserves its bytes before, so a
    kernel may place a scratch tile where another one goes that it only starts using later (and, in a loop
    it was allocated outside of, from the top of that loop's body, for the same back edge)."""
    last = _last_use(k)
    first: dict = {}
    loop_start: dict = {}
    loop_end: dict = {}
    for n, ins in enumerate(k.instrs):
        for lid in ins.ctx.loops:
            loop_start.setdefault(lid, n)
            loop_end[lid] = n
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            t = k.tensors[op.tensor]
            first.setdefault(t.id, n)
            for lid in ins.ctx.loops if back_edge else ():
                if lid not in t.loops:
                    if loop_end[lid] > last.get(t.id, -1):
                        last[t.id] = loop_end[lid]
                    first[t.id] = min(first[t.id], loop_start[lid])
    out = {}
    for t in k.tensors:
        start = t.order
        if t.address is not None and t.id in first:
            start = max(t.order, first[t.id])
        out[t.id] = (start, last.get(t.id, t.order))
    return out


# ----------------------------------------------------------------------------- NKI302


def _overlaps(ka: KernelAnalysis, sizes: Sizes) -> list:
    k = ka.k
    touched = _touched(k)
    placed = [t for t in k.tensors if t.address is not None and t.buffer in ir.ON_CHIP and len(t.address) >= 2
              and t.id in touched]
    if len(placed) < 2 and not any(t.loops for t in placed):
        return []
    live = _live_ranges(k)
    straight = _live_ranges(k, back_edge=False)
    loops = {lp.id: lp for lp in k.loops}
    uses: dict = {}
    for n, ins in enumerate(k.instrs):
        for op in ins.operands:
            uses.setdefault(op.tensor, []).append((n, ins, op))
    out = []
    for i, a in enumerate(placed):
        for b in placed[i:]:
            if a.buffer != b.buffer:
                continue
            (a0, a1), (b0, b1) = live[a.id], live[b.id]
            if a1 < b0 or b1 < a0:
                continue
            if a.id != b.id and not (_clobbers(k, a, b, live, uses) or _clobbers(k, b, a, live, uses)):
                continue
            same = a.id == b.id
            if same and not any(_used_outside(k, a, lid) for lid in a.loops):
                continue  # one instance live at a time
            (c0, c1), (d0, d1) = straight[a.id], straight[b.id]
            # live together only through a loop's back edge: an overlap only if one of them carries a value
            # from one iteration to the next, which a tile rewritten before it is read in every iteration does
            # not (the library places a transpose scratch on a PSUM bank its matmul tiles use in each iteration)
            carried = not same and (c1 < d0 or d1 < c0)
            out.append(_overlap(ka, sizes, loops, a, b, same, carried))
    return out


def _clobbers(k: ir.Kernel, x: ir.Tensor, y: ir.Tensor, live: dict, uses: dict) -> bool:
    """Whether a write of `x` inside `y`'s live range can destroy a value of `y` that a later read needs.
    Liveness is by value: a write of `x` between `y`'s last read of one value and a write of `y` that
    rewrites everything the next read reads (the very same view, or the whole tile, on every path to that
    read) harms nothing.  The library places a transpose scratch on a PSUM bank whose matmul tile is
    rewritten before it is read again, and a tile the kernel writes but never reads holds nothing anyone
    needs."""
    y0, y1 = live[y.id]
    y_uses = uses.get(y.id, ())
    for p, _, op in uses.get(x.id, ()):
        if op.mode in ("w", "rw") and y0 <= p <= y1 and _read_sees(k, y, p, y_uses):
            return True
    return False


def _read_sees(k: ir.Kernel, y: ir.Tensor, p: int, y_uses: tuple) -> bool:
    """Whether some read of `y` may observe what `y` held when instruction `p` ran: a read after `p` in
    program order, or one before it in a loop around both that `y` outlives (the next iteration's read),
    with no killing write of `y` in between."""
    loops_p = k.instrs[p].ctx.loops
    for n, ins, op in y_uses:
        if not reads(ins, op):
            continue
        shared = shared_loops(loops_p, ins.ctx.loops)
        if n == p:
            return True  # one instruction reading y and writing x: the placements must not overlap
        if n < p and not any(lid not in y.loops for lid in shared):
            continue  # runs before p, and no back edge brings it after p with the same value
        after = p if n > p else -1
        if not any(after < m < n and len(w_ins.ctx.loops) >= len(shared) and _kills(k, y, (m, w_ins, w_op), n, ins,
                                                                                    op, y_uses)
                   for m, w_ins, w_op in y_uses):
            return True
    return False


def _kills(k: ir.Kernel, y: ir.Tensor, w: tuple, n: int, r_ins: ir.Instr, r_op: ir.Operand, y_uses: tuple) -> bool:
    """Does write `w` of `y` rewrite everything the read `(n, r_ins, r_op)` reads, whatever `y` held before?"""
    m, w_ins, w_op = w
    if reads(w_ins, w_op) or w_op.mode not in ("w", "rw") or not obviously_covers(k, w, n, r_ins, r_op):
        return False
    sp = spec.find(w_ins.op)
    sig = sp.signature(w_ins.dialect) if sp is not None else None
    if sig is None or "accumulate" not in sig.text or w_ins.attr("accumulate") is False:
        return True
    # a Tensor Engine write whose accumulation is left to the compiler starts a new accumulation group only
    # when it is the first write since the tile was last read: the access before it (in program order, and
    # at the end of every loop body around it that `y` outlives) must be a read or nothing
    before = [u for u in y_uses if u[0] < m]
    if before and before[-1][2].mode != "r":
        return False
    for lid in w_ins.ctx.loops:
        if lid in y.loops:
            continue
        body = [u for u in y_uses if lid in u[1].ctx.loops]
        if body and body[-1][2].mode != "r":
            return False
    return True


def _rename_instance(ka: KernelAnalysis, t: ir.Tensor, loops: dict, tag: str) -> dict:
    return {loops[lid].var: fresh(ka.uids, f"{loops[lid].var.name}{tag}") for lid in t.loops if lid in loops}


def _overlap(ka: KernelAnalysis, sizes: Sizes, loops: dict, a: ir.Tensor, b: ir.Tensor, same: bool,
             carried: bool = False) -> Obligation:
    ma = _rename_instance(ka, a, loops, "_1") if same else {}
    mb = _rename_instance(ka, b, loops, "_2") if same else {}
    facts: list = []
    for t, m in ((a, ma), (b, mb)):
        for lid in t.loops:
            lp = loops.get(lid)
            if lp is None:
                continue
            v = m.get(lp.var, lp.var)
            facts += [E.ge(v, lp.start), E.lt(v, lp.stop)]
    if same:
        facts.append(E.bor(*[E.ne(ma[v], mb[v]) for v in ma]) if ma else E.FALSE)
    ba, fa = sizes.bytes_per_partition(a)
    bb, fb = sizes.bytes_per_partition(b)
    pa, oa = (E.substitute(x, ma) for x in a.address[:2])
    pb, ob = (E.substitute(x, mb) for x in b.address[:2])
    na, nb = a.shape[a.par_dim or 0], b.shape[b.par_dim or 0]
    # a placement outside the buffer is NKI204's finding; with it, where the bytes would be means nothing
    target = get_target(ka.k.target)
    facts += [_in_buffer(pa, oa, na, ba, target.pmax, _capacity_of(a, target)),
              _in_buffer(pb, ob, nb, bb, target.pmax, _capacity_of(b, target))]
    overlap = E.band(E.lt(pa, E.add(pb, nb)), E.lt(pb, E.add(pa, na)),
                     E.lt(oa, E.add(ob, bb)), E.lt(ob, E.add(oa, ba)))
    if same or a.span == b.span:
        # two instances of one allocation at exactly the same place is buffer rotation (the migration guide's
        # `sca + (i % n) * size`, the library's modular allocator): the kernel uses them at different times.
        # A partial overlap is a placement bug (a stride in elements instead of bytes, say).
        overlap = E.band(overlap, E.bnot(E.band(E.eq(pa, pb), E.eq(oa, ob))))
    if same:
        msg = f"two iterations' instances of '{a.name}' are live at once and their manual placements overlap"
    else:
        msg = (f"'{a.name}' and '{b.name}' are both live and their manual placements overlap "
               f"(partitions x bytes): one overwrites the other")
    if carried:
        msg = (f"'{a.name}' and '{b.name}' are used in the same loop and their manual placements overlap "
               f"(partitions x bytes): one overwrites the other if either carries a value from one iteration to "
               f"the next")
    notes = () if same else (Note(location(b.span), f"'{b.name}' is placed here"),)
    return Obligation("NKI302", E.bnot(overlap), tuple(facts + fa + fb), a.span, msg, notes=notes,
                      show=tuple(ma.values()) + tuple(mb.values()), floor=WARNING if carried else None)


# ----------------------------------------------------------------------------- NKI204


def _capacity(ka: KernelAnalysis, sizes: Sizes) -> list:
    k = ka.k
    target = get_target(k.target)
    live = _live_ranges(k)
    out = []
    aliases = _assigned_results(k)
    touched = _touched(k)
    allocated = [t for t in k.tensors if t.buffer in ir.ON_CHIP and t.kind in ("ndarray", "result")
                 and t.id not in aliases and t.id in touched]
    checked: set = set()
    mults: dict = {}  # tensor id -> _multiplicity (the same at every point the tensor is live)
    for t0 in sorted(allocated, key=lambda x: live[x.id][0]):
        point = live[t0.id][0]  # where it becomes live (its allocation; a placed tensor's first use)
        at_point = [u for u in allocated if live[u.id][0] <= point <= live[u.id][1]]
        # reported where the last of the live tensors is allocated: the allocation that does not fit
        t = max((u for u in at_point if u.buffer == t0.buffer), key=lambda u: (u.order, u.span.line, u.span.col))
        key = (t.buffer, tuple(sorted(u.id for u in at_point if u.buffer == t.buffer)))
        if key in checked:
            continue
        checked.add(key)
        # The allocator places rectangles (partitions x bytes) anywhere in the buffer, so what must fit is the
        # area: sum of partitions x bytes (PSUM: x banks) over the live tensors, against pmax x capacity.
        total: E.Expr = E.ZERO
        per_partition: E.Expr = E.ZERO  # the same sum when every live tensor spans all partitions
        full = True
        facts: list = []
        placed: set = set()  # (address, bytes) of the tensors placed by hand counted so far
        for u in at_point:
            if u.buffer != t.buffer:
                continue
            nbytes, f = sizes.bytes_per_partition(u)
            if u.address is not None:
                # tensors placed at the same address share its bytes (a placement rotated between buffers)
                key = (tuple(E.lift(a) for a in u.address), E.lift(nbytes))
                if key in placed:
                    continue
                placed.add(key)
            facts += f
            mult = mults.get(u.id)
            if mult is None:
                mult = mults[u.id] = _multiplicity(ka, u)
            parts = E.minimum(u.shape[u.par_dim or 0], target.pmax) if u.shape else E.ONE
            full = full and parts == E.Const(target.pmax)
            per = E.ceildiv(nbytes, target.psum_bank_bytes) if t.buffer == ir.PSUM else nbytes
            total = E.add(total, E.mul(mult, E.mul(parts, per)))
            per_partition = E.add(per_partition, E.mul(mult, per))
        psum = t.buffer == ir.PSUM
        cap = target.psum_banks if psum else target.sbuf_bytes_per_partition
        limit = cap * target.pmax
        if full:
            what = "PSUM banks" if psum else "bytes per partition of SBUF"
            msg = (f"{ka.show(per_partition)} {what} are live here, more than the {cap} "
                   f"{'banks' if psum else 'bytes'} of {target.name}")
        else:
            what = "bank-partitions of PSUM" if psum else "bytes of SBUF (partitions x bytes per partition)"
            msg = (f"{ka.show(total)} {what} are live here, more than the {target.pmax} x {cap} of "
                   f"{target.name} (tensors on fewer partitions are counted by the partitions they use)")
        names = ", ".join(sorted({u.name for u in at_point if u.buffer == t.buffer})[:6])
        # Tiles sized by the inputs overflow for large enough inputs: that is a precondition of the kernel,
        # not a finding, unless every admissible input overflows (check concrete shapes with --shape).
        # Sizes that depend only on dtypes are checked for every dtype (a warning names the one that fails).
        dtype_syms = set(sizes.syms.values())
        by_shape = any(s not in dtype_syms for s in E.free_syms(total))
        out.append(Obligation("NKI204", E.le(total, limit), ka.local_facts(t.ctx) + tuple(dict.fromkeys(facts)),
                              t.span, msg + f" (live: {names})", (("live", total),), loops=t.ctx.loops,
                              definite=by_shape))
    return out


def _placement_range(ka: KernelAnalysis, sizes: Sizes) -> list:
    """A manually placed tensor must lie inside the buffer: partitions [p, p+n) within pmax, bytes
    [off, off+size) within the per-partition capacity."""
    k = ka.k
    target = get_target(k.target)
    out = []
    for t in k.tensors:
        if t.address is None or t.buffer not in ir.ON_CHIP or len(t.address) < 2:
            continue
        part, off = t.address[:2]
        nbytes, facts = sizes.bytes_per_partition(t)
        cap = _capacity_of(t, target)
        n = t.shape[t.par_dim or 0] if t.shape else E.ONE
        end = E.add(off, nbytes)
        goal = _in_buffer(part, off, n, nbytes, target.pmax, cap)
        msg = (f"'{t.name}' is placed at partitions [{ka.show(part)}, {ka.show(E.add(part, n))}) and bytes "
               f"[{ka.show(off)}, {ka.show(end)}) of each partition, outside the {target.pmax} partitions x {cap} "
               f"bytes of {t.buffer.upper()} on {target.name}")
        out.append(Obligation("NKI204", goal, ka.local_facts(t.ctx) + tuple(facts), t.span, msg,
                              (("end byte", end), ("end partition", E.add(part, n))), loops=t.ctx.loops))
    return out


def _capacity_of(t: ir.Tensor, target: object) -> int:
    return target.sbuf_bytes_per_partition if t.buffer == ir.SBUF else target.psum_bytes_per_partition


def _in_buffer(part: E.Expr, off: E.Expr, n: E.Expr, nbytes: E.Expr, pmax: int, cap: int) -> E.BExpr:
    return E.band(E.ge(part, 0), E.le(E.add(part, n), pmax), E.ge(off, 0), E.le(E.add(off, nbytes), cap))


# ----------------------------------------------------------------------------- public

# The liveness model, for the occupancy map (nki_verify/mapview.py), which must agree with NKI204 and NKI302.
live_ranges = _live_ranges
multiplicity = _multiplicity
used_outside = _used_outside
assigned_results = _assigned_results
touched = _touched
