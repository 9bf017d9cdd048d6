"""The one ISA/API specification read by the front end, the analyses and the device.

Look instructions up by qualified name: `lookup("isa.nc_matmul")`,
`lookup("language.load")`.  A missing entry raises `KeyError` naming it.
"""

from __future__ import annotations

from . import collectives, dtypes, isa, language, targets
from .schema import MISSING, Binding, Instruction, Operand, Result, Rule, Signature, evaluate, partitions_aligned
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


def param_role(ins: Instruction, dialect: str, param: str) -> str:
    """The operand role a signature parameter binds (Beta 1 renames a few)."""
    if dialect == "beta1" and ins.module == "language":
        return language.B1_PARAM_ROLES.get(ins.name, {}).get(param, param)
    return param


__all__ = [
    "MISSING", "Binding", "Instruction", "Operand", "Result", "Rule", "Signature", "Target", "TARGETS",
    "DEFAULT_TARGET", "dtypes", "evaluate", "find", "get_target", "lookup", "param_role", "all_instructions",
    "targets", "partitions_aligned",
]
