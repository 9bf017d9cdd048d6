"""NKI402: races between program instances of an SPMD launch (GPUVerify-style, two symbolic instances).

Two distinct instances p != q of the launch grid (Beta 1: any grid; Beta 2: the cores of an LNC2
launch) race when one writes an element of a tensor they share (HBM inputs and outputs, shared_hbm
buffers) that the other writes or reads, and no `nisa.core_barrier` orders the two accesses.  Every
loop index, index-grid variable and program id gets a copy per instance; input shapes are shared.

Cores that may take different control-flow paths around a barrier are reported too.
"""

from __future__ import annotations

from compiler import expr as E
from compiler import ir

from ..diagnostics import Note
from .accesses import iteration_syms, same_element, shared_loops, side
from .engine import KernelAnalysis, Obligation, location

BARRIER = "isa.core_barrier"
# in the binary before any program runs (a Beta-1 shared_identity_matrix is such a constant in shared HBM)
CONSTANTS = frozenset({"language.shared_constant", "language.shared_identity_matrix"})


def _shared(t: ir.Tensor, dialect: str) -> bool:
    if t.kind == "param":
        return True
    if t.buffer == ir.SHARED_HBM:
        return True
    return False  # SBUF, PSUM and private HBM are per instance


COPIES = frozenset({"isa.dma_copy", "isa.tensor_copy"})


def _self_copy(ins: ir.Instr) -> bool:
    """A copy whose destination is its source, element for element: it leaves memory as it is."""
    if ins.op not in COPIES:
        return False
    dst = [op for op in ins.operands if op.role == "dst"]
    src = [op for op in ins.operands if op.role == "src"]
    return (len(dst) == 1 and len(src) == 1 and dst[0].tensor == src[0].tensor and dst[0].access is not None
            and dst[0].access == src[0].access and dst[0].instance == src[0].instance
            and dst[0].dtype == src[0].dtype)


def race_obligations(ka: KernelAnalysis) -> list:
    k = ka.k
    pids = [s.sym for s in k.symbols if s.role == "pid"]
    if not pids and k.grid is None:
        return []
    if k.grid is not None and all(g == E.ONE for g in k.grid):
        return []
    out = _divergent_barriers(ka, pids)
    accesses = []
    for n, ins in enumerate(k.instrs):
        if ins.op == BARRIER:
            continue  # the barrier's tensor only names what it synchronises
        if ins.op in CONSTANTS:
            continue  # a constant baked into the binary: there before any instance runs, never written by one
        if _self_copy(ins):
            continue  # `dma_copy(out, out)` (a flush): writes each element the value it reads there
        for op in ins.operands:
            t = k.tensors[op.tensor]
            if _shared(t, k.dialect) and op.access is not None and not op.access.dynamic:
                accesses.append((n, ins, op))
    barriers = [(n, ins) for n, ins in enumerate(k.instrs) if ins.op == BARRIER]
    uniform = _uniform_instrs(k, pids)
    atoms = _pid_atoms(ka, pids)
    seen: set = set()
    for ia, (na, ins_a, oa) in enumerate(accesses):
        if oa.mode not in ("w", "rw"):
            continue
        for ib, (nb, ins_b, ob) in enumerate(accesses):
            # a read earlier in program order races too (another instance may already have written);
            # a pair of writes is taken once, with the earlier one first
            if ob.tensor != oa.tensor or (ib < ia and ob.mode in ("w", "rw")):
                continue
            if _ordered(k, na, ins_a, nb, ins_b, barriers):
                continue
            key = (oa.span, ob.span)
            if key in seen:
                continue
            if oa.span == ob.span and ins_a.id in uniform:
                continue  # every instance writes the same values there (zero-initialising an output): benign
            seen.add(key)
            out.append(_pair(ka, pids, barriers, (na, ins_a, oa), (nb, ins_b, ob), atoms))
    return out


def _uniform_instrs(k: ir.Kernel, pids: list) -> set:
    """Instructions every program instance executes identically: same addresses, same loop ranges, same
    path, and inputs that no instance-dependent instruction wrote (a fixpoint over the whole kernel, since
    loops repeat).  Two instances running such an instruction write the same values to the same place."""
    pidset = set(pids)
    loops = {lp.id: lp for lp in k.loops}

    def mentions(x: object) -> bool:
        return isinstance(x, (E.Expr, E.BExpr)) and bool(E.free_syms(x) & pidset)

    def depends(ins: ir.Instr, tainted: set) -> bool:
        if mentions(ins.ctx.path) or mentions(ins.mask) or any(mentions(v) for _, v in ins.attrs):
            return True
        for lid in ins.ctx.loops:
            lp = loops.get(lid)
            if lp is not None and (mentions(lp.start) or mentions(lp.stop) or mentions(lp.step)):
                return True
        for op in ins.operands:
            acc = op.access
            if acc is not None and (acc.dynamic or mentions(acc.offset)
                                    or any(mentions(s) or mentions(n) for s, n in acc.dims)):
                return True
            if any(mentions(i) for i in op.instance):
                return True
            if op.mode in ("r", "rw") and op.tensor in tainted:
                return True
        return False

    tainted: set = set()
    changed = True
    while changed:
        changed = False
        for ins in k.instrs:
            if depends(ins, tainted):
                for op in ins.operands:
                    if op.mode in ("w", "rw") and op.tensor not in tainted:
                        tainted.add(op.tensor)
                        changed = True
    return {ins.id for ins in k.instrs if not depends(ins, tainted)}


def _ordered(k: ir.Kernel, na: int, ia: ir.Instr, nb: int, ib: ir.Instr, barriers: list) -> bool:
    """A barrier between the two accesses, executed on the path from one to the other."""
    lo, hi = min(na, nb), max(na, nb)
    common = shared_loops(ia.ctx.loops, ib.ctx.loops)
    for n, bar in barriers:
        if lo < n < hi and tuple(bar.ctx.loops) == common:
            return True
    return False


def _agree(x: object, ma: dict, mb: dict, pids: set) -> E.BExpr:
    """x takes the same value for the two instances (split on conditions that do not depend on the
    program id, which keeps the query small: `pid if n > 1 else 0` agrees exactly when n <= 1 or p == q)."""
    if isinstance(x, E.Ite) and not E.free_syms(x.cond) & pids:
        return E.bor(E.band(x.cond, _agree(x.a, ma, mb, pids)), E.band(E.bnot(x.cond), _agree(x.b, ma, mb, pids)))
    if not E.free_syms(x) & pids:
        return E.TRUE
    xa, xb = E.substitute(x, ma), E.substitute(x, mb)
    if isinstance(x, E.BExpr):
        return E.bor(E.band(xa, xb), E.band(E.bnot(xa), E.bnot(xb)))
    return E.eq(xa, xb)


def _pid_atoms(ka: KernelAnalysis, pids: list) -> list:
    """The smallest sub-expressions of the kernel through which the program id enters: the ids themselves
    and the conditionals that select them (`pid if n > 1 else 0`).  Everything else is a function of these
    and of the inputs, so when they all agree for two instances the two run the same instruction stream."""
    k = ka.k
    pidset = set(pids)
    out: dict = {}

    def walk(e: object) -> None:
        if not isinstance(e, (E.Expr, E.BExpr)) or not E.free_syms(e) & pidset:
            return
        if isinstance(e, E.Sym) or isinstance(e, E.Ite):
            out[e] = None
            return
        for c in E.children(e):
            walk(c)

    for ins in k.instrs:
        walk(ins.ctx.path)
        walk(ins.mask)
        for _, v in ins.attrs:
            walk(v)
        for op in ins.operands:
            for i in op.instance:
                walk(i)
            if op.access is not None:
                walk(op.access.offset)
                for st, n in op.access.dims:
                    walk(st)
                    walk(n)
    for lp in k.loops:
        for e in (lp.start, lp.stop, lp.step):
            walk(e)
    return list(out)


def _pair(ka: KernelAnalysis, pids: list, barriers: list, a: tuple, b: tuple, atoms: list = ()) -> Obligation:
    k = ka.k
    loops = {lp.id: lp for lp in k.loops}
    (_, ia, oa), (_, ib, ob) = a, b
    per_a = set(pids) | iteration_syms(loops, ia.ctx.loops)
    per_b = set(pids) | iteration_syms(loops, ib.ctx.loops)
    sa = side(k, ia, oa, "_p", per_a, ka.info, ka.uids)
    sb = side(k, ib, ob, "_q", per_b, ka.info, ka.uids)
    facts = list(sa.facts) + list(sb.facts)
    for pid in pids:  # both instances exist in the grid
        info = ka.info.get(pid)
        for s in (sa.mapping[pid], sb.mapping[pid]):
            if info is not None and info.lo is not None:
                facts.append(E.ge(s, info.lo))
            if info is not None and info.hi is not None:
                facts.append(E.lt(s, info.hi))
    facts.append(E.bor(*[E.ne(sa.mapping[p], sb.mapping[p]) for p in pids]) if pids else E.TRUE)
    # a barrier inside a loop both accesses share orders different iterations: compare the same iteration
    for lid in shared_loops(ia.ctx.loops, ib.ctx.loops):
        if any(lid in bar.ctx.loops for _, bar in barriers):
            lp = loops[lid]
            facts.append(E.eq(sa.mapping[lp.var], sb.mapping[lp.var]))
    t = k.tensors[oa.tensor]
    if not pids:
        # every instance runs the same code on the same elements: a race as soon as there are two
        grid_two = E.bor(*[E.ge(g, 2) for g in (k.grid or ())])
        facts.append(grid_two)
    goal = E.bnot(same_element(sa, sb))
    if oa.span == ob.span and oa.mode == "w" and atoms:
        # two instances running the same instruction stream write the same values: not a race
        ma = {p: sa.mapping[p] for p in pids}
        mb = {p: sb.mapping[p] for p in pids}
        identical = E.band(*[_agree(x, ma, mb, set(pids)) for x in atoms])
        goal = E.bor(goal, identical)
    what_b = "writes" if ob.mode in ("w", "rw") else "reads"
    if oa.span == ob.span:
        msg = f"two program instances write the same element of '{t.name}' here (an SPMD race)"
    else:
        msg = (f"one program instance writes '{t.name}' here and another {what_b} the same element at line "
               f"{ob.span.line} with no core_barrier between them (an SPMD race)")
    notes = () if oa.span == ob.span else (Note(location(ob.span), f"the other instance's {what_b[:-1]}"),)
    show = tuple(sa.mapping[p] for p in pids) + tuple(sb.mapping[p] for p in pids)
    return Obligation("NKI402", goal, tuple(facts), oa.span, msg, notes=notes, show=show)


def _divergent_barriers(ka: KernelAnalysis, pids: list) -> list:
    """A core_barrier on a path that depends on the program id: the cores may not all reach it."""
    out = []
    k = ka.k
    for ins in k.instrs:
        if ins.op != BARRIER or not pids:
            continue
        path_syms = E.free_syms(ins.ctx.path)
        if not any(p in path_syms for p in pids):
            continue
        m1 = {p: E.Sym(f"{p.name}_a", 2_000_000_000 + 2 * i, "copy") for i, p in enumerate(pids)}
        m2 = {p: E.Sym(f"{p.name}_b", 2_000_000_001 + 2 * i, "copy") for i, p in enumerate(pids)}
        facts = []
        for p in pids:
            info = ka.info.get(p)
            for s in (m1[p], m2[p]):
                if info is not None and info.lo is not None:
                    facts.append(E.ge(s, info.lo))
                if info is not None and info.hi is not None:
                    facts.append(E.lt(s, info.hi))
        reach_a = E.substitute(ins.ctx.path, m1)
        reach_b = E.substitute(ins.ctx.path, m2)
        goal = E.bor(E.bnot(reach_a), reach_b)  # whenever one instance reaches the barrier, so does the other
        msg = ("this core_barrier is on a path that depends on the program id: one core may reach it while the "
               "other does not (divergent control flow around a barrier)")
        out.append(Obligation("NKI402", goal, tuple(facts + [reach_a]), ins.span, msg,
                              show=tuple(m1.values()) + tuple(m2.values())))
    return out
