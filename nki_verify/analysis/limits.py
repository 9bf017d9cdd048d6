"""NKI201: SBUF/PSUM tensors and operands span at most `pmax` (128) partitions."""

from __future__ import annotations

from compiler import expr as E
from compiler import ir
from compiler.spec.targets import get_target

from .engine import KernelAnalysis, Obligation


def partition_obligations(ka: KernelAnalysis) -> list:
    k = ka.k
    pmax = get_target(k.target).pmax
    out = []
    derived = _derived_partitions(k)
    for t in k.tensors:
        if t.buffer not in ir.ON_CHIP or not t.shape:
            continue
        axis = t.par_dim or 0
        p = t.shape[axis]
        if t.id in derived:
            continue  # the tile an instruction made from an on-chip operand of the same partitions: said there
        out.append(Obligation(
            "NKI201", E.le(p, pmax), ka.local_facts(t.ctx), t.span,
            f"'{t.name}' spans {ka.show(p)} partitions of {t.buffer.upper()}; the partition dimension "
            f"(axis {axis}) is limited to {pmax}", (("partitions", p),), loops=t.ctx.loops))
    for ins in k.instrs:
        for op in ins.operands:
            t = k.tensors[op.tensor]
            if t.buffer not in ir.ON_CHIP or not op.shape or t.par_dim:
                continue
            p = op.shape[0]
            if p == t.shape[0]:
                continue  # the allocation's own check covers it
            out.append(Obligation(
                "NKI201", E.le(p, pmax), ka.local_facts(ins.ctx, ins.iotas, ins.mask), op.span,
                f"operand {op.role} of {display(ins.op)} spans {ka.show(p)} partitions; at most {pmax} are allowed",
                (("partitions", p),), loops=ins.ctx.loops))
    return out


def _derived_partitions(k: ir.Kernel) -> set:
    """Result tiles (`nl.exp(t)`) whose partition count is that of an on-chip operand the same instruction
    reads: a tile too tall is reported once, where it is first made, not at every tile computed from it."""
    out = set()
    for ins in k.instrs:
        reads = [op for op in ins.operands if op.mode == "r" and op.shape and
                 k.tensors[op.tensor].buffer in ir.ON_CHIP and not k.tensors[op.tensor].par_dim]
        for op in ins.operands:
            t = k.tensors[op.tensor]
            if op.mode == "w" and t.kind == "result" and t.shape and not t.par_dim and \
                    any(r.shape[0] == t.shape[0] and r.tensor != t.id for r in reads):
                out.add(t.id)
    return out


def display(op: str) -> str:
    module, _, name = op.partition(".")
    if name == "__assign__":
        return "the assignment"
    return ("nisa." if module == "isa" else "nl.") + name
