"""The rule catalog: codes NKI101..NKI999 are a public contract (add, never renumber)."""

from __future__ import annotations

from . import (
    nki101_out_of_bounds_access,
    nki102_dynamic_access_out_of_bounds,
    nki201_partition_dimension_too_large,
    nki202_matmul_tile_too_large,
    nki203_psum_tile_exceeds_bank,
    nki204_on_chip_capacity_exceeded,
    nki301_psum_address_misaligned,
    nki302_manual_allocations_overlap,
    nki303_operand_in_wrong_buffer,
    nki304_kernel_writes_input,
    nki401_affine_loop_carried_dependency,
    nki402_spmd_race,
    nki403_buffer_reused_across_iterations,
    nki404_uninitialized_read,
    nki501_incompatible_shapes,
    nki502_unsupported_dtype,
    nki503_unavailable_on_target,
    nki601_python_not_allowed_in_kernel,
    nki602_beta1_api_in_beta2,
    nki603_jit_on_subkernel,
    nki604_non_string_dict_key,
    nki605_dynamic_while_never_updated,
    nki606_isa_call_without_dst,
    nki607_unbound_local,
    nki608_undefined_name,
    nki609_type_error_while_tracing,
    nki610_mixed_basic_advanced_indexing,
    nki901_undecided,
    nki902_not_understood,
    nki903_unused_suppression,
    nki999_unparsable_file,
)
from .base import DOCS_URL, Rule

RULES: dict[str, Rule] = {m.RULE.code: m.RULE for m in (
    nki101_out_of_bounds_access,
    nki102_dynamic_access_out_of_bounds,
    nki201_partition_dimension_too_large,
    nki202_matmul_tile_too_large,
    nki203_psum_tile_exceeds_bank,
    nki204_on_chip_capacity_exceeded,
    nki301_psum_address_misaligned,
    nki302_manual_allocations_overlap,
    nki303_operand_in_wrong_buffer,
    nki304_kernel_writes_input,
    nki401_affine_loop_carried_dependency,
    nki402_spmd_race,
    nki403_buffer_reused_across_iterations,
    nki404_uninitialized_read,
    nki501_incompatible_shapes,
    nki502_unsupported_dtype,
    nki503_unavailable_on_target,
    nki601_python_not_allowed_in_kernel,
    nki602_beta1_api_in_beta2,
    nki603_jit_on_subkernel,
    nki604_non_string_dict_key,
    nki605_dynamic_while_never_updated,
    nki606_isa_call_without_dst,
    nki607_unbound_local,
    nki608_undefined_name,
    nki609_type_error_while_tracing,
    nki610_mixed_basic_advanced_indexing,
    nki901_undecided,
    nki902_not_understood,
    nki903_unused_suppression,
    nki999_unparsable_file,
)}


def get(code: str) -> Rule:
    return RULES[code]


def codes() -> tuple[str, ...]:
    return tuple(sorted(RULES))


def default_severity(code: str) -> str:
    r = RULES.get(code)
    return r.severity if r is not None else "warning"


__all__ = ["DOCS_URL", "RULES", "Rule", "catalog_markdown", "codes", "default_severity", "get"]


def catalog_markdown() -> str:
    """docs/rules.md, generated from the rule files (a test keeps the committed copy in sync)."""
    lines = ["# Rule catalog", "",
             "Generated from `nki_verify/rules/` by `python -m nki_verify.rules`; do not edit by hand.", "",
             "Codes are a public contract: they are added, never renumbered or reused.", "",
             "| Code | Name | Severity | Summary |", "| --- | --- | --- | --- |"]
    for code, r in sorted(RULES.items()):
        status = "" if r.implemented else " *(reserved)*"
        lines.append(f"| [{code}](#{code.lower()}) | {r.name} | {r.severity} | {r.summary}{status} |")
    lines.append("")
    for code, r in sorted(RULES.items()):
        lines.append(f'<a id="{code.lower()}"></a>')
        lines.append(r.markdown())
    return "\n".join(lines)
