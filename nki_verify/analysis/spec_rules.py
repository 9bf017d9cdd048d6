"""NKI202/303/501/502/503: every instruction call against its compiler/spec declaration."""

from __future__ import annotations

from typing import Any

from compiler import expr as E
from compiler import ir, spec

from .engine import KernelAnalysis, Obligation
from .limits import display


def instruction_obligations(ka: KernelAnalysis) -> list:
    k = ka.k
    out = []
    for ins in k.instrs:
        decl = spec.find(ins.op)
        if decl is None:
            continue
        b = spec.OperandBinding(k.target, k.tensors, ins.operands, ins.attrs)
        facts = ka.local_facts(ins.ctx, ins.iotas, ins.mask)
        for rule in decl.all_rules():
            if not rule.applies(k.target, ins.dialect):
                continue
            if rule.code == "NKI303" and ins.dialect == ir.B1 and spec.compiler_placed(rule, {
                    o.role: (k.tensors[o.tensor].buffer, k.tensors[o.tensor].kind == "result") for o in ins.operands}):
                continue
            goal = spec.evaluate(rule, b)
            if goal is None or goal == E.TRUE:
                continue
            floor = rule.severity
            anywhere = rule.code == "NKI503" and _on_no_target(rule)  # not a matter of the target chosen
            if rule.code == "NKI503" and k.target_origin == "default" and not anywhere:
                floor = "warning"  # the target is only the default: the kernel may be meant for another one
            message = f"{display(ins.op)}: {rule.message}"
            param_ops = _param_operands(k, ins, rule)
            if rule.code == "NKI303" and param_ops:
                # a kernel input used where on-chip memory is required: a bug at top level, but the usual shape
                # of a decorated helper that a caller invokes with SBUF/PSUM tensors
                floor = "warning"
                message += (f" ('{param_ops[0]}' is a kernel input, i.e. HBM when this function is launched; if it "
                            f"is a helper called with on-chip tensors, drop @nki.jit or verify its caller)")
            if rule.code == "NKI503" and not anywhere:
                message += f" (the selected target is {k.target}" + (
                    "; choose another with --target" if k.target_origin == "default" else "") + ")"
            ob = Obligation(rule.code, goal, facts, ins.span, message, _quantities(rule.pred, b), loops=ins.ctx.loops,
                            floor=floor)
            axes = spec.axiswise(rule, b)
            if axes is not None:
                ob.stronger = lambda _rules, axes=axes: (axes,)
            out.append(ob)
    return out


def _on_no_target(rule: Any) -> bool:
    """A rule that no target satisfies (a wrapper the hardware has no instruction for, on any of them)."""
    from compiler.spec import schema as S
    leaves = [p for p in spec.leaves(rule.pred) if isinstance(p, S.TargetIn)]
    return bool(leaves) and all(not p.targets for p in leaves)


def _param_operands(k: ir.Kernel, ins: ir.Instr, rule: Any) -> list:
    from compiler.spec import schema as S

    roles = {p.role for p in spec.leaves(rule.pred) if isinstance(p, S.BufferIn)}
    out = []
    for o in ins.operands:
        t = k.tensors[o.tensor]
        if o.role in roles and t.kind == "param":
            out.append(t.name)
    return out


def _quantities(pred: Any, b: spec.OperandBinding) -> tuple:
    """The two sides of a comparison, for the 'here: ...' part of a message."""
    from compiler.spec import schema as S

    out = []
    for p in spec.leaves(pred):
        if isinstance(p, (S.Le, S.Eq)):
            for term in (p.a, p.b):
                try:
                    v = term.ev(b)
                except S.NotApplicable:
                    continue
                if isinstance(v, E.Expr):
                    out.append((term.show(), v))
    return tuple(out)

