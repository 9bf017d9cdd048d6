"""The one ISA/API specification read by the front end, the analyses and the device.

Look instructions up by qualified name: `lookup("isa.nc_matmul")`,
`lookup("language.load")`.  A missing entry raises `KeyError` naming it.
"""

from __future__ import annotations

from .. import expr as E
from . import collectives, dtypes, isa, language, targets
from .schema import (MISSING, Binding, Instruction, Operand, Result, Rule, Signature, axiswise, compiler_placed,
                     evaluate, leaves, partitions_aligned)
from .targets import DEFAULT_TARGET, TARGETS, Target, get_target

_TABLE = {ins.qualname: ins for ins in isa.INSTRUCTIONS + language.INSTRUCTIONS + collectives.INSTRUCTIONS}


def lookup(qualname: str) -> Instruction:
    try:
        return _TABLE[qualname]
    except KeyError:
        raise KeyError(f"no ISA specification entry for {qualname!r}") from None


def find(qualname: str) -> Instruction | None:
    return _TABLE.get(qualname)


def all_instructions() -> tuple:
    return tuple(_TABLE.values())


class OperandBinding:
    """What a rule may ask about one call (the `Binding` protocol): its operands (IR operands: role, shape,
    tensor id, view dtype) over the kernel's tensors, and its attributes.  The analyses bind an IR instruction,
    the front end a call it is building."""

    def __init__(self, target: str, tensors: list, operands: tuple | list, attrs: tuple | list) -> None:
        self.target = get_target(target)
        self.tensors = tensors
        self.ops: dict = {}
        for o in operands:
            self.ops.setdefault(o.role, o)
        self.attrs = dict(attrs)

    def has(self, role: str) -> bool:
        if role in self.ops:
            return True
        v = self.attrs.get(role, MISSING)
        return v is not MISSING and v is not None

    def is_tensor(self, role: str) -> bool:
        return role in self.ops

    def shape(self, role: str) -> tuple | None:
        o = self.ops.get(role)
        return None if o is None else tuple(E.lower(d) for d in o.shape)

    def dtype(self, role: str) -> str | None:
        o = self.ops.get(role)
        return None if o is None else o.dtype or self.tensors[o.tensor].dtype

    def buffer(self, role: str) -> str | None:
        o = self.ops.get(role)
        return None if o is None else self.tensors[o.tensor].buffer

    def attr(self, name: str) -> object:
        return self.attrs.get(name, MISSING)


def param_role(ins: Instruction, dialect: str, param: str) -> str:
    """The operand role a signature parameter binds (Beta 1 renames a few)."""
    if dialect == "beta1" and ins.module == "language":
        return language.B1_PARAM_ROLES.get(ins.name, {}).get(param, param)
    return param


__all__ = [
    "MISSING", "Binding", "Instruction", "Operand", "Result", "Rule", "Signature", "Target", "TARGETS",
    "DEFAULT_TARGET", "dtypes", "evaluate", "find", "get_target", "lookup", "param_role", "all_instructions",
    "targets", "partitions_aligned", "OperandBinding", "compiler_placed", "leaves", "axiswise",
]
