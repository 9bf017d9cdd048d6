"""The test kernels on the reference device: every runtime-checkable `# expect:` marker is a device fault
with the same code at the same line, and the good kernels compute what numpy computes.

Extra faults are allowed in two cases only: the same code as a marker of the kernel at another line (an
operand of more than 128 partitions faults at every instruction that uses it, where the verifier reports the
allocation), and reads of unwritten memory (NKI404) in the kernels listed below, written for other checks:
the verifier checks NKI404 on on-chip memory only (kernel-allocated HBM may be written by another program
instance), and those kernels read HBM that nothing wrote or are reported for a more specific reason.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import os
import sys
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest

import device
from device.faults import RUNTIME_CODES
from nki_verify.api import SUBSUMED, verify_source

from .expectations import parse

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
F32 = np.float32
RNG = np.random.default_rng(7)


@dataclasses.dataclass
class BlockConfig:
    """What host code passes for b2_config_loops.py's configuration (the kernel reads its fields)."""

    n_blocks: int


class _OpRegistry:
    """A stand-in for the custom-operator registry b1_registry_launch.py imports from a package outside the
    analysed tree (the verifier cannot follow it): `register` wraps the function as a kernel, as such
    registries do."""

    @staticmethod
    def register(name: str) -> object:
        return lambda f: importlib.import_module("neuronxcc.nki").jit(f)


@pytest.fixture(autouse=True)
def _installed_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "op_registry_not_installed", SimpleNamespace(OpRegistry=_OpRegistry))


def r(*shape: int, dtype: type = F32) -> np.ndarray:
    return RNG.random(shape).astype(dtype)


# file -> kernel (or host launcher) -> (inputs, grid, the kernel function whose markers apply)
CASES = {
    "b1_mixed_indexing.py": {"copy_block_fully_gridded": ([r(128, 512)],)},
    "b2_host_gathered_rows.py": {"copy_row_blocks": ([r(256, 256)],), "copy_first_wide_block": ([r(256, 256)],),
                                 "copy_listed_rows": ([r(3, 256)],)},
    "b2_optional_alternatives.py": {
        "project": ([r(64, 128), r(128, 256), None, r(128, 2), (1, 128)],),
        "project_scale_past_its_block": ([r(64, 128), r(128, 256), None, r(128, 2), (1, 128)],)},
    "b1_numpy_constants.py": {"add_quadrant_offsets": ([r(128, 64)],), "rotate_blocks": ([r(128, 256)],),
                              "stacked_offsets_one_block_too_many": ([r(128, 64)],)},
    "b2_segment_loop_facts.py": {"sum_segment_heads": ([r(512, 64), 128],),
                                 "sum_segment_heads_two_tiles_of_the_rest": ([r(384, 64), 128],)},
    "b1_registry_launch.py": {"row_sum": ([r(256, 64), 2.0],), "row_sum_bug": ([r(256, 64), 2.0],)},
    "b1_dependencies.py": {
        "accumulate_with_plus_equals": ([r(4, 128, 512)],), "accumulate_with_tensor_tensor": ([r(4, 128, 512)],),
        "prefix_rows": ([r(8, 128, 512)],), "prefix_rows_sequential": ([r(8, 128, 512)],)},
    "b1_broadcast.py": {"centre_rows": ([r(128, 8, 64)],), "centre_rows_without_keepdims": ([r(128, 8, 64)],),
                        "centre_rows_of_a_constant_tile": ([r(128, 8, 64)],),
                        "scale_rows_by_their_norm": ([r(128, 512)],),
                        "scale_rows_by_their_norm_into_a_half": ([r(128, 512)],),
                        "program_id_as_a_tile": ([r(2, 128)], 2)},
    "b1_dtype_branches.py": {"stage_as_float32": ([r(128, 512)],),
                             "stage_as_float32_into_a_narrower_view": ([r(128, 512)],)},
    "b1_host_arrays.py": {"first_block": ([r(128, 256)],), "doubled": ([r(128, 512)],),
                          "scale_and_shift_layers": ([r(128, 512), [(r(128, 512), r(128, 512)),
                                                                    (r(128, 512), r(128, 256))]],),
                          "first_wide_block": ([r(128, 256)],), "rows_in_one_tile": ([r(256, 64)],),
                          "run_first_columns": ([r(128, 64)], None, "first_columns")},
    "b1_test_harness.py": {"exp_rows": ([r(128, 1024)],), "exp_rows_launched_too_tall": ([r(256, 512)],),
                           "add_tiled_rows": ([r(128, 512), r(128, 512)],),
                           "copy_first_block": ([r(128, 256)],), "add_a_spectrum": ([r(128, 512), r(64, 256)],),
                           "test_nested_copy_of_a_tall_block": ([], None, "copy_tall_block")},
    "b1_sdk_forms.py": {"segment_bounds": ([RNG.integers(0, 4, (1, 64)).astype(np.int32)],),
                       "segment_bounds_into_one_row": ([RNG.integers(0, 4, (1, 64)).astype(np.int32)],),
                       "transpose_through_the_identity": ([r(128, 128)],),
                       "transpose_through_the_identity_not_loaded": ([r(128, 128)],),
                       "scale_rows": ([r(128, 512), 2.0],),
                       "scale_rows_by_an_input_in_hbm": ([r(128, 512), r(128, 1)],),
                       "causal_mask_on_the_matmul_result": ([r(128, 128), r(128, 128)],),
                       "transpose_straight_into_a_matmul": ([r(128, 128), r(128, 512)],),
                       "transpose_placed_in_psum_into_a_matmul": ([r(128, 128), r(128, 512)],),
                       "max_over_the_middle_axis": ([r(128, 4, 64)],),
                       "max_over_the_partition_axis": ([r(128, 4, 64)],),
                       "crop_to_any_height": ([r(256, 64), (256, 64)],)},
    "b1_masks.py": {"copy_masked": ([r(300, 64)],), "copy_unmasked": ([r(300, 64)],),
                    "transpose_mgrid": ([r(128, 100)],), "copy_masked_by_its_own_grid": ([r(300, 64)],),
                    "copy_masked_by_its_own_grid_one_row_too_many": ([r(300, 64)],),
                    "grids_rebuilt_in_each_loop": ([r(256, 512)],),
                    "grids_rebuilt_in_each_loop_one_column_over": ([r(256, 512)],),
                    "row_sums_of_the_valid_columns": ([r(128, 300)],),
                    "row_sums_of_the_valid_columns_half_written": ([r(128, 300)],),
                    "copy_columns_masked_by_a_reshaped_mask": ([r(128, 600)],),
                    "copy_columns_masked_by_a_reshaped_mask_one_column_over": ([r(128, 600)],),
                    "copy_rows_masked_by_a_column_mask_made_a_row_mask": ([r(128, 600)],),
                    "copy_columns_with_one_dimensional_grids": ([r(128, 600)],)},
    "b1_matmul.py": {"matmul": ([r(256, 128), r(256, 512)],), "matmul_too_wide": ([r(128, 128), r(128, 1024)],),
                     "block_dims": ([r(8, 128, 256)],), "block_dims_too_tall": ([r(128, 128)],),
                     "isa_matmul_into_blocks": ([r(128, 128), r(128, 1024)],),
                     "isa_matmul_into_blocks_twice_as_wide": ([r(128, 128), r(128, 1024)],),
                     "isa_matmul_accumulated_into_a_narrower_tile": ([r(128, 128), r(128, 513)],)},
    "b1_memory.py": {"scale_in_place": ([r(128, 512)],), "scale_in_place_declared_mutable": ([r(128, 512)],),
                     "scale_in_place_tensor_mutable": ([r(128, 512)],),
                     "sixteen_psum_blocks": ([r(128, 128), r(128, 8192)],),
                     "block_wider_than_a_bank": ([r(128, 128), r(128, 512)],),
                     "one_block_too_big": ([r(128, 65536)],), "sum_wide_blocks_in_place": ([r(8, 128, 8192)],),
                     "sum_wide_blocks_rebinding": ([r(8, 128, 8192)],), "keep_every_wide_block": ([r(8, 128, 8192)],)},
    "b1_spmd_add.py": {"add": ([r(256, 1024), r(256, 1024)], None, "add_kernel"),
                       "add_one_extra_program": ([r(256, 512), r(256, 512)], None, "add_kernel_overlapping")},
    "b1_launcher_grid.py": {"halves_of_rows": ([r(512, 256)], (2,)),
                            "halves_of_rows_strided_by_one_tile_too_many": ([r(512, 256)], (2,))},
    "b2_loops_down.py": {k: ([r(128, 512)],) for k in (
        "fill_from_the_right", "fill_from_the_right_but_not_the_first_block",
        "copy_from_the_right_starting_one_past_the_end", "suffix_sums",
        "suffix_sums_reading_the_block_not_yet_written")} | {
        "width_of_the_half_block": ([r(128, 512), 2],), "width_of_the_block_after_the_half_block": ([r(128, 512), 2],),
        "first_tile_then_the_rest": ([r(384, 256)],), "first_tile_then_the_rest_one_row_too_many": ([r(384, 256)],)},
    "b2_strided_views.py": {"channels_to_groups": ([r(128, 96), 4],),
                            "channels_to_groups_starting_one_channel_late": ([r(128, 96), 4],),
                            "odd_rows": ([r(256, 64)],), "odd_rows_from_the_third": ([r(256, 64)],)},
    "b2_conditional_lists.py": {"copy_a_row_range": ([r(384, 256), 100, 300],),
                                "sum_two_windows_of_tiles": ([r(128, 1024)],),
                                "sum_two_windows_of_tiles_too_wide": ([r(128, 1024)],),
                                "copy_a_row_range_one_row_past_each_tile": ([r(384, 256), 200, 384],),
                                "copy_rows_tiled_by_a_while_loop": ([r(300, 256)],),
                                "tiles_appended_under_a_flag": ([r(300, 256), True],),
                                "tiles_appended_under_a_flag_used_without_it": ([r(300, 256), False],),
                                "copy_rows_tiled_by_a_while_loop_without_the_tail": ([r(320, 256)],),
                                "outputs_taken_under_the_same_condition": ([r(128, 512), True],),
                                "outputs_taken_without_asking": ([r(128, 512), False],),
                                "every_output_read_as_wide_as_the_first": ([r(128, 512), True],),
                                "two_optional_outputs": ([r(128, 512), True, False],),
                                "scale_pushed_only_when_scaled": ([r(128, 512), True],),
                                "second_tile_taken_as_the_half": ([r(128, 512), True],)},
    "b1_spmd_races.py": {
        "nki_tensor_add_nc2": ([r(512, 1024), r(512, 1024)], None, "nki_tensor_add_kernel_"),
        "add_rows_overlapping_launch": ([r(512, 512), r(512, 512)], None, "add_rows_overlapping")},
    "b1_dynamic_index.py": {
        "batch_from_masked_index": ([r(4, 128, 256), np.array([[6]], np.int32)],),
        "batch_from_wider_mask": ([r(4, 128, 256), np.array([[6]], np.int32)],),
        "batch_from_raw_input": ([r(4, 128, 256), np.array([[9]], np.int32)],),
        "batch_from_iota": ([r(4, 128, 256)],),
        "rows_clamped_in_place": ([r(1024, 64), RNG.integers(0, 4096, (128, 1)).astype(np.int32)],),
        "rows_shifted_in_place": ([r(1024, 64)],),
        "rows_of_one_plane": ([RNG.integers(0, 1024, (128, 4)).astype(np.int32), r(2, 1024, 256)],),
        "gather_rows": ([r(128, 512), np.arange(64, dtype=np.int32).reshape(64, 1) * 2],),
        "gather_rows_clamped_one_past_the_table": ([r(128, 512), np.full((64, 1), 200, np.int32)],)},
    "b1_uninitialized.py": {"masked_load_full_store": ([r(100, 512)],)},
    "b2_dynamic_access.py": {
        "scalar_offset_rows": ([r(512, 512)],), "scalar_offset_one_row_too_far": ([r(512, 512)],),
        "row_of_the_largest_score": ([np.arange(128, dtype=np.float32)[None, :], r(128, 512)],),
        "row_of_the_largest_score_in_half_the_table": ([np.arange(128, dtype=np.float32)[None, :], r(64, 512)],),
        "scalar_offset_from_the_input": ([r(512, 512), np.array([[500]], np.int32)],),
        "row_of_a_reshaped_input": ([r(4096), np.array([[40]], np.int32)],),
        "row_of_a_reshaped_input_clamped_one_too_far": ([r(4096), np.array([[40]], np.int32)],),
        "vector_offset_rows": ([r(128, 512)],), "vector_offset_stride_too_large": ([r(128, 512)],),
        "static_pattern_every_element": ([r(64, 64)],), "static_pattern_past_the_end": ([r(64, 64)],),
        "sbuf_pattern_in_rows": ([r(128, 64)],), "sbuf_pattern_wraps_a_row": ([r(128, 64)],),
        "sbuf_pattern_skips_partitions": ([r(128, 64)],), "register_offset": ([r(512, 512)],),
        "register_moved_too_far": ([r(512, 512)],), "dynamic_loop_tiles": ([r(4, 128, 512), 4],),
        "dynamic_loop_one_tile_too_many": ([r(4, 128, 512), 5],),
        "dynamic_loop_to_a_register": ([r(4, 128, 512)],),
        "dynamic_loop_to_a_register_one_too_far": ([r(4, 128, 512)],),
        "row_blocks_up_to_a_clamped_count": ([r(512, 512), np.array([[9999]], np.int32)],),
        "row_blocks_up_to_an_unclamped_count": ([r(512, 512), np.array([[640]], np.int32)],)},
    "b2_uninitialized.py": {
        "read_before_write": ([r(128, 512)],), "tail_tile_read_in_full": ([r(128, 512), 100],),
        "tail_tile_read_as_written": ([r(128, 512), 100],), "columns_filled_by_a_loop": ([r(128, 512)],),
        "columns_filled_but_one": ([r(128, 512)],),
        "accumulator_initialised_in_first_iteration": ([r(384, 512)],),
        "accumulator_never_initialised": ([r(384, 512)],), "written_only_when_the_loop_runs": ([r(128, 512), 0],),
        "zeroed_then_accumulated": ([r(128, 128), r(128, 512)],),
        "transpose_of_every_16th_column": ([r(128, 8)],), "every_16th_column_stored_whole": ([r(128, 8)],),
        "accumulated_after_a_helper_asserts_every_other_iteration": ([r(384, 512)],),
        "accumulator_initialised_only_when_asked": ([r(384, 512), False],)},
    "b2_targets.py": {"exp_on_default_target": ([r(128, 512)],), "exp_behind_a_hard_condition": (
        [r(128, 512), -80538738812075974, 80435758145817515, 12602123297335631],),
        "normalise_rows_by_the_reciprocal": ([r(128, 512)],), "normalise_rows_by_a_division": ([r(128, 512)],)},
    "b2_accumulations.py": {"sum_of_blocks": ([r(4, 128, 512)],), "max_of_blocks_into_a_half": ([r(4, 128, 512)],),
                             "alternating_sum_of_blocks": ([r(4, 128, 512)],),
                             "sum_into_a_shifted_window": ([r(4, 128, 512)],),
                             "copy_an_input_asserted_in_hbm": ([r(128, 512), r(128, 512)],)},
    "b2_placed_and_carried.py": {
        "rotate_four_psum_banks": ([r(128, 128), r(128, 512)],), "copy_rows_that_exist": ([r(256, 128)],),
        "copy_first_share_of_groups": ([r(1792, 64)],),
        "copy_first_share_of_groups_and_one_more": ([r(1792, 64)],),
        "scatter_row_unless_out_of_range": ([r(1, 512), r(8, 512), np.array([[9]], np.int32)],),
        "copy_scaled_unless_split": ([r(128, 64)],), "whole_tiles_across_the_row": ([r(128, 32)],),
        "whole_tiles_across_the_row_of_any_width": ([r(128, 96)],)},
    "b2_indirect_views.py": {"gather_even_rows": ([r(128, 512)],), "gather_even_rows_into_every_row": ([r(128, 512)],)},
    "b2_config_loops.py": {"sum_config_blocks_sequential": ([r(8, 128, 512), BlockConfig(4)],),
                           "sum_config_blocks_affine": ([r(8, 128, 512), BlockConfig(4)],),
                           "copy_column_tiles": ([r(128, 512), SimpleNamespace(width=512, tile=128, n_tiles=4)],),
                           "copy_column_tiles_one_too_many": ([r(128, 512),
                                                               SimpleNamespace(width=512, tile=128, n_tiles=4)],)},
    "b2_dependencies.py": {
        "sb_blocks_migrated": ([r(8, 128, 512)],), "sb_blocks_migrated_incorrect": ([r(8, 128, 512)],),
        "sum_blocks_sequential": ([r(8, 128, 512)],), "sum_blocks_affine": ([r(8, 128, 512)],),
        "matmul_psum_accumulation": ([r(256, 128), r(256, 512)],), "shifted_rows": ([r(384, 128)],)},
    "b2_dynamic_dependencies.py": {
        # two iterations name the same rows (indices 1, 1, 2, 3)
        "scatter_rows_by_index": ([r(512, 256), np.array([[1], [1], [2], [3]], np.int32)],),
        "scatter_rows_by_index_in_place": ([r(512, 256), np.array([[1], [1], [2], [3]], np.int32)],),
        "blocks_shifted_by_one_index": ([r(512, 256), np.array([[2]], np.int32)],)},
    "b2_lnc_races.py": {k: ([r(256, 512)], 2) for k in (
        "halves", "halves_then_flush", "same_rows", "exchange_with_barrier", "exchange_without_barrier",
        "barrier_on_one_core", "both_cores_zero_the_output", "both_cores_fill_with_their_id")} | {
        "one_core_worth_of_rows_but_shifted": ([r(128, 512)], 2)},
    "b2_input_ranks.py": {"two_layouts_of_one_input": ([r(128, 512), 0],),
                          "add_a_pair": ([(r(128, 512), r(128, 512))],),
                          "add_a_pair_of_different_widths": ([(r(128, 256), r(128, 512))],),
                          "weight_vector_as_a_row": ([r(64, 256), r(256)],),
                          "bias_vector_in_column_tiles": ([r(256, 64), r(256)],),
                          "bias_vector_one_past_the_end": ([r(256, 64), r(256)],),
                          "weight_matrix_reshaped_as_a_row": ([r(64, 256), r(256, 2)],),
                          "fold_experts": ([r(2, 3, 64, 96)],), "fold_experts_past_the_end": ([r(2, 3, 64, 96)],),
                          "merged_shapes": ([r(128, 512), 2],), "tail_of_the_shape": ([r(4, 128, 512)],),
                          "tail_of_the_shape_one_block_too_far": ([r(4, 128, 512)],),
                          "blocks_and_the_rest": ([r(4, 128, 512)],),
                          "blocks_and_the_rest_one_too_far": ([r(4, 128, 512)],),
                          "trailing_dims_then_a_block": ([r(3, 128, 512)],),
                          "trailing_dims_then_a_block_too_far": ([r(4, 128, 512)],),
                          "rank_stated_then_a_row": ([r(128, 512)],), "rank_stated_after_the_row": ([r(128, 512)],),
                          "one_row_into_a_row_tile": ([r(5, 96)],), "unpacked_tail": ([r(2, 96, 200)],),
                          # the rank the first test does not take (see _rank_dispatch in the front end)
                          "last_expert_by_rank": ([r(3, 128, 512)],),
                          "last_expert_by_rank_one_too_far": ([r(3, 128, 512)],),
                          "tokens_of_either_rank": ([r(2, 64, 256)],),
                          "tokens_of_either_rank_last_batch_only": ([r(2, 64, 256)],),
                          "rows_by_layout": ([r(2, 3, 16, 64), 2],),
                          "rows_by_layout_one_too_many": ([r(2, 3, 16, 64), 2],),
                          "expert_scales": ([r(4, 64, 256), r(4, 1), 1],),
                          "expert_scales_one_row_short": ([r(4, 64, 256), r(4, 1), 1],),
                          "batches_of_either_rank": ([r(2, 64, 256)],),
                          "batches_of_either_rank_one_too_many": ([r(2, 64, 256)],)},
    "b1_input_ranks.py": {"load_a_block": ([r(2, 128, 512)],), "load_a_row_of_a_stated_rank": ([r(128, 512)],),
                          "sum_four_slabs": ([r(1, 256, 32)],), "apply_both_parts": ([r(128, 512), r(2, 128, 128)],),
                          "apply_a_third_part": ([r(128, 512), r(2, 128, 128)],)},
    "b2_carried_tiles.py": {"sum_row_blocks": ([r(384, 512)],), "sum_row_blocks_reads_past_the_tile": ([r(384, 512)],),
                            "tiles_of_row_blocks": ([r(256, 512)],),
                            "tiles_of_row_blocks_one_too_far": ([r(256, 512)],),
                            "copy_through_a_tile_grid": ([r(256, 768)],),
                            "copy_through_a_tile_grid_too_wide": ([r(256, 768)],)},
    "b2_optional_views.py": {
        "bias_used_on_every_path": ([r(128, 512), r(128, 512)],),
        "bias_used_past_its_end": ([r(128, 512), r(128, 512)],),
        "bias_only_when_given": ([r(128, 512), r(64, 512)],), "view_of_a_maybe_split_tensor": ([r(128, 1024), 1],),
        "tile_height_from_an_optional_config": ([r(384, 256)],),
        "tile_height_from_an_optional_config_too_tall": ([r(512, 256)],),
        "view_of_a_maybe_split_tensor_past_the_end": ([r(128, 1024), 1],)},
    "b2_rearrange.py": {"heads_first": ([r(128, 512)],), "heads_first_one_too_many": ([r(128, 512)],),
                        "swap_groups_on_chip": ([r(128, 96)],), "split_that_does_not_divide": ([r(128, 96)],),
                        "heads_as_rows": ([r(128, 4, 128)],)},
    "b2_symbolic_shards.py": {"column_shards": ([r(300, 1100)], 2), "column_shards_half_offset": ([r(300, 1100)], 2),
                              "row_block_shards": ([r(512, 384)], 2),
                              "columns_of_a_reshaped_row": ([r(128, 1024), 4],),
                              "columns_of_a_reshaped_row_one_past": ([r(128, 1024), -1],)},
    "b2_matmul.py": {
        "matmul_tiled": ([r(256, 256), r(256, 1024)],), "matmul_wide_moving": ([r(128, 128), r(128, 1024)],),
        "matmul_mismatched": ([r(128, 128), r(128, 512)],), "matmul_operand_in_psum": ([r(128, 128), r(128, 512)],),
        "matmul_accumulating_from_the_second_step": ([r(384, 128), r(384, 512)],),
        "matmul_accumulating_from_the_first_step": ([r(384, 128), r(384, 512)],)},
    "b2_memory.py": {
        "psum_on_bank_three": ([r(128, 128), r(128, 512)],), "psum_misaligned": ([r(128, 128), r(128, 512)],),
        "psum_bank_from_argument": ([r(128, 128), 3],), "psum_half_bank_offset": ([r(128, 128), 1],),
        "matmul_view_across_banks": ([r(128, 128), r(128, 512)],),
        "matmul_columns_in_a_loop": ([r(128, 128), r(128, 1024)],),
        "matmul_columns_straddle": ([r(128, 128), r(128, 768)],), "placed_tiles_per_block": ([r(128, 128), 2],),
        "placed_tiles_forgot_itemsize": ([r(128, 128), 2],), "two_placed_tensors_overlap": ([r(128, 256)],),
        "placed_on_other_partitions": ([r(64, 256)],),
        "transpose_scratch_on_a_rewritten_matmul_bank": ([r(128, 128), r(128, 128)],),
        "transpose_scratch_between_a_matmul_and_its_read": ([r(128, 128), r(128, 128)],),
        "scratch_between_two_matmuls_of_one_group": ([r(128, 128), r(128, 128)],),
        "scratch_before_a_narrower_rewrite": ([r(128, 128), r(128, 128)],),
        "scratch_placed_where_a_later_tile_goes": ([r(128, 256)],),
        "scratch_placed_where_a_live_tile_is": ([r(128, 256)],), "too_much_sbuf": ([r(128, 32768)],),
        "sbuf_reused_in_sequence": ([r(128, 32768)],), "tile_per_iteration": ([r(128, 1024)],),
        "too_many_psum_banks": ([r(128, 128)],), "scale_in_place": ([r(128, 512)],),
        "write_output_argument": ([r(128, 512), np.zeros((128, 512), F32)],),
        "placed_past_the_end": ([r(128, 1024)],), "placed_on_upper_partitions": ([r(96, 512)],),
        "pool_of_slots_partly_used": ([r(128, 8192)],), "pool_of_slots_all_used": ([r(128, 8192)],)},
    "b2_partitions.py": {"copy_rows": ([r(128, 64)],), "copy_rows_unchecked": ([r(256, 64)],),
                         "big_tile": ([r(256, 512)],), "scaled_exp_of_rows": ([r(96, 200)],),
                         "scaled_exp_of_too_many_rows": ([r(256, 200)],)},
    "b2_dtype_itemsize.py": {"transpose_into_a_half_bank": ([r(128, 128, dtype=np.float16)],),
                             "transpose_across_banks_for_four_bytes": ([r(128, 128)],),
                             "stage_in_a_compute_dtype": ([r(128, 512)],),
                             "stage_in_a_compute_dtype_of_any_input": ([r(128, 512).astype(np.int32)],)},
    "b2_tuple_params.py": {"rows_of_a_padded_window": ([r(64, 64), ((1, 1), (0, 0)), None, (1, 1), [0, 1]],),
                           "rows_of_a_window_one_too_many": ([r(64, 64), ((1, 1), (0, 0)), None, (1, 1)],)},
    "b2_dataclass_defaults.py": {"stages_of_rows": ([r(128, 64), 100],),
                                 "stages_of_rows_one_stage_too_many": ([r(160, 64), 128],)},
    "b2_power_of_two.py": {"row_in_equal_blocks": ([r(1, 128), 4],),
                           "row_in_equal_blocks_of_any_count": ([r(1, 128), 3],)},
    "b2_shapes_dtypes.py": {"add_tiles": ([r(128, 512), r(128, 512)],),
                            "row_of_64_kib_whatever_the_dtype": ([r(128, 16384)],),
                            "row_of_256_kib_whatever_the_dtype": ([r(128, 65536)],),
                            "add_tiles_mismatch": ([r(128, 512), r(128, 512)],),
                            "bitwise_on_floats": ([r(128, 512)],), "compute_on_hbm": ([r(128, 512)],),
                            "sign_bits_of_a_bf16_input": ([r(128, 512).astype(ml_dtypes.bfloat16)],),
                            "sign_bits_of_half_a_bf16_input": ([r(128, 512).astype(ml_dtypes.bfloat16)],)},
    "b2_tail_tiles.py": {"scale_rows": ([r(100, 1000)],), "scale_rows_unclamped": ([r(100, 128)],),
                         "last_rows_counted_from_the_end": ([r(300, 96)],),
                         "last_rows_counted_from_the_end_into_a_whole_tile": ([r(300, 96)],)},
    "b2_tensor_add.py": {"tensor_add": ([r(256, 512), r(256, 512)],),
                         "tensor_add_off_by_one": ([r(128, 512), r(128, 512)],)},
    "discovery_forms.py": {"wrapped_later": ([r(128, 512)],), "decorated_baremetal": ([r(128, 512)],),
                           "called_through_nki_call": ([r(128, 512)],), "jitted_at_call_site": ([r(128, 512)],)},
    "discovery_host_forms.py": {"Ops.copy_rows": ([r(128, 32)], None, "copy_rows"),
                                "scale_kernel": ([r(64, 256), r(64, 256)],),
                                "shift_kernel": ([r(64, 256), r(64, 256)],),
                                "other_kernel": ([r(128, 4), r(128, 4)],), "good_copy": ([r(128, 512), r(128, 512)],),
                                "add_heads": ([r(1, 256, 64), r(1, 256, 64, 1)],),
                                "make_pair_copier(96)": ([r(192, 64)], None, "copy_row_pairs_of")},
    "not_understood.py": {"dynamic_size": ([r(128, 512)],)},
    # (host functions that build their kernel and run it: the device runs them with these sizes)
    "b1_benchmark_launcher.py": {"bench_rows": ([300, 64],), "bench_rows_in_blocks_of": ([256, 64, 256],),
                                 "copy_block": ([r(64, 32)],)},
    "b2_optional_fields.py": {"scaled_copy": ([r(128, 512), True, SimpleNamespace(scale=r(128, 1))],),
                              "scaled_copy_one_past": ([r(128, 512), True, SimpleNamespace(scale=r(128, 1))],)},
    # (Scaling is an IntEnum: its member POST is the int 2)
    "b2_defaulted_modes.py": {"post_scaled_copy": ([r(128, 512), 2],), "post_scaled_copy_one_past": ([r(128, 512), 2],),
                              "transposed_only": ([r(128, 512), True],),
                              "copy_rows_aligned_past_the_row": ([r(128, 500), True],)},
    "b2_tiling_choices.py": {"rows_in_groups": ([r(4, 8, 512)],), "rows_in_groups_one_too_many": ([r(96, 1, 512)],)},
    "b2_keyword_objects.py": {"copy_sections": ([r(128, 1024)],), "copy_sections_one_past": ([r(128, 1024)],),
                              "dims_without_a_field_nothing_reads": ([r(128, 512)],)},
    "b2_failing_paths.py": {"sized_by_a_dtype_helper": ([r(128, 512)],),
                            "sized_by_a_dtype_helper_in_bounds": ([r(128, 512)],),
                            "one_of_two_optional_inputs": ([r(128, 256), None, r(128, 256)],),
                            "view_of_a_rank_four_input": ([r(4, 2, 128, 512)],),
                            "gate_and_up_of_the_same_shape": ([r(128, 4, 256), r(128, 4, 256)],)},
    "pkg_two_modules/kernel.py": {"double": ([r(256, 512)],), "double_shifted": ([r(256, 512)],)},
    "b2_rank_guesses.py": {"first_expert_as_a_block": ([r(2, 128, 4)],),
                           "first_expert_as_a_block_of_three_axes": ([r(2, 128, 4)],),
                           "first_expert_larger_than_the_block": ([r(2, 128, 16, 2)],)},
    "b2_optional_bias.py": {"add_an_optional_bias": ([r(128, 512), r(1, 512)],),
                            "add_an_optional_bias_one_row_late": ([r(128, 512), r(1, 512)],),
                            "scale_by_a_table_or_two": ([r(128, 256), None, None, r(128, 512)],),
                            "scale_by_a_table_or_two_half_late": ([r(128, 128), None, None, r(128, 256)],),
                            "no_bias_yet": ([r(128, 512)],)},
    "b2_dtype_tables.py": {"clamp_to_the_format": ([r(128, 512), r(4, dtype=ml_dtypes.float8_e4m3)],),
                           "clamp_to_the_format_one_past": ([r(128, 512), r(4, dtype=ml_dtypes.float8_e4m3)],),
                           "one_bank_of_elements": ([r(128, 2048, dtype=ml_dtypes.bfloat16)],),
                           "two_banks_of_elements": ([r(128, 2048, dtype=ml_dtypes.float8_e4m3)],)},
    "b2_packed_banks.py": {
        "transpose_blocks_packed_per_bank": ([r(5, 128 * 700, dtype=ml_dtypes.bfloat16)],),
        "transpose_blocks_packed_by_bytes": ([r(5, 128 * 2560, dtype=ml_dtypes.bfloat16)],)},
    "b2_loop_state.py": {"step_chosen_by_a_branch": ([r(128, 1000)],),
                         "step_of_either_sign": ([r(128, 512), r(65, 1)],),
                         "psum_banks_round_robin": ([r(128, 5120)],),
                         "psum_banks_round_robin_one_too_many": ([r(128, 4608)],),
                         "running_peak_width": ([r(128, 512)],), "scoped_allocations_in_a_loop": ([r(128, 1024)],),
                         "buffers_given_new_tiles_per_section": ([r(128, 1024)],),
                         "buffers_given_new_tiles_per_section_one_past": ([r(128, 1024)],),
                         "walk_with_an_unknown_field": ([r(128, 1024)],),
                         "walk_with_an_unknown_field_one_past": ([r(128, 1024)],),
                         "shuffle_mask_built_in_a_loop": ([r(20, 64), 20],),
                         "shuffle_mask_written_past_its_end": ([r(20, 64), 20],),
                         "weights_viewed_per_token": ([r(3, 64, 256), np.zeros((4, 2), np.int32)],),
                         "weights_viewed_per_token_one_past": ([r(3, 64, 256), np.zeros((4, 2), np.int32)],),
                         "running_total_with_a_tile_per_chunk": ([r(64, 300)],),
                         "running_total_with_a_tile_per_chunk_one_past": ([r(64, 300)],),
                         "running_max_over_tiles_when_flagged": ([r(2, 128, 1100), r(3, 1)],),
                         "running_max_over_tiles_when_flagged_one_past": ([r(2, 128, 1100), r(3, 1)],),
                         "plain_then_biased": ([r(128, 1100), r(128, 1100)],),
                         "plain_then_biased_one_past": ([r(128, 1100), r(128, 1100)],),
                         "aligned_stack_keeps_a_tile_per_iteration": ([r(128, 1024, dtype=np.int8), r(128, 63)],),
                         "aligned_stack_one_byte_short": ([r(128, 1024, dtype=np.int8), r(128, 63)],)},
    "b2_partial_tiles.py": {"offset_from_the_index": ([r(300, 64)],), "offset_from_itself": ([r(300, 64)],),
                            "offset_in_an_object": ([r(300, 64)],), "last_tile_one_row_too_long": ([r(300, 64)],),
                            "read_at_the_end_after_the_loop": ([r(300, 64)],),
                            "read_the_last_row_after_the_loop": ([r(300, 64)],),
                            "gap_after_every_tile": ([r(300, 64)],), "sizes_that_alternate": ([r(4096, 64)],)},
    "b2_invariant_branches.py": {"bias_shared_or_streamed": ([r(384, 256), r(384, 256)],),
                                 "bias_streamed_one_row_late": ([r(256, 128), r(256, 128)],),
                                 "bias_buffer_index_past_the_streamed_list": ([r(384, 128), r(384, 128)],),
                                 "batches_doubled_when_wide": ([r(2, 300, 384)],),
                                 "batches_doubled_without_asking": ([r(2, 300, 256)],)},
    "b2_while_chunks.py": {"copy_in_chunks": ([r(300, 64)],), "sum_in_chunks_from_an_offset": ([r(300, 64), 100],),
                           "reads_whole_tiles": ([r(300, 64)],), "reads_the_row_after_the_last": ([r(300, 64)],),
                           "reads_the_last_row": ([r(300, 64)],)},
    "b2_branch_loops.py": {
        "rows_realigned": ([r(128, 64), 32, 20],),
        "rows_realigned_past_the_staging_tile": ([r(128, 64), 5, 40], None, "realign")},
    "b2_validated_config.py": {
        "blocks_laid_out_in_one_buffer": ([r(64, 1152), 4, 1],),
        "blocks_laid_out_one_channel_short": ([r(64, 1152), 4, 1],)},
    "b2_allocator_loop.py": {
        "staged_rows_of_whole_words": ([r(128, 512)],),
        "staged_rows_of_any_width": ([r(128, 497, dtype=np.float16)],)},
    "b2_sectioned_stack.py": {
        "rows_double_buffered": ([r(384, 512)],),
        "rows_double_buffered_too_wide": ([r(256, 28672)],),
        "two_passes_through_the_same_sections": ([r(640, 256, dtype=np.float16)],),
        "second_pass_past_the_end": ([r(256, 8192, dtype=np.float16)],),
        "rows_triple_buffered_too_wide": ([r(384, 20000)],)},
    "b2_doubling_loops.py": {
        "prefix_sums_by_doubling": ([r(128, 300)],),
        "doubled_window_past_the_end": ([r(64, 3)],),
        "shrinking_window_later": ([r(64, 10)],)},
    "b2_while_register.py": {
        "rows_copied_while_flagged": ([r(128, 512), np.array([[2]], np.int32)],),
        "rows_copied_while_flagged_without_a_bound": ([r(256, 512), np.array([[1]], np.int32)],),
        "groups_of_columns_while_flagged": ([r(128, 768), np.array([[1]], np.int32)],),
        "groups_of_columns_while_flagged_any_width": ([r(128, 384), np.array([[1]], np.int32)],),
        "rows_copied_in_a_while_loop_helper": ([r(128, 512), np.array([[3]], np.int32)],),
        "rows_copied_in_a_while_loop_helper_without_a_bound": ([r(256, 512), np.array([[1]], np.int32)],)},
}
# reads of memory nothing wrote, in kernels written for other checks
KNOWN_UNINITIALISED = {("b1_dependencies.py", "prefix_rows"), ("b2_memory.py", "too_many_psum_banks"),
                       ("b2_lnc_races.py", "exchange_without_barrier")}


def _expected(path: str, function: str) -> set:
    """(code, path, line) of the runtime-checkable markers inside `function` (and the helper module of a
    package, whose markers belong to the kernel that calls them)."""
    out = set()
    files = [path]
    if os.path.isfile(os.path.join(os.path.dirname(path), "__init__.py")) and function.endswith("shifted"):
        files.append(os.path.join(os.path.dirname(path), "tiles.py"))
    for f in files:
        tree = ast.parse(open(f, encoding="utf-8").read())
        lo, hi = 1, 10 ** 9
        if f == path:
            fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
            lo, hi = fn.lineno, fn.end_lineno
        elif not function.endswith("shifted"):
            continue
        for line, items in parse(f).items():
            if lo <= line <= hi:
                out |= {(c, os.path.abspath(f), line) for c, _ in items if c in RUNTIME_CODES}
    return out


def _params() -> list:
    out = []
    for f, kernels in CASES.items():
        for k, spec in kernels.items():
            out.append(pytest.param(f, k, spec, id=f"{f}::{k}"))
    return out


@pytest.mark.parametrize("file, kernel, spec", _params())
def test_markers_are_device_faults(file: str, kernel: str, spec: tuple) -> None:
    path = os.path.join(KERNELS, file)
    inputs, grid, function = (list(spec) + [None, kernel])[:3] if len(spec) < 3 else spec
    res = device.execute(path, *inputs, kernel=kernel, grid=grid)
    got = {(f.code, os.path.abspath(f.path), f.line) for f in res.faults}
    expected = _expected(path, function or kernel)
    missing = expected - got
    assert not missing, f"no device fault for {sorted(missing)}; faults: {[f.describe() for f in res.faults]}"
    codes = {c for c, _, _ in expected}
    # (a fault the verifier folds into a more specific finding on the same line, as it reports them: an
    # NKI203 bank overrun of a matmul already too wide for the PE array, NKI202)
    folded = {g for g in got if SUBSUMED.get(g[0], set()) & {c for c, p, line in expected if (p, line) == g[1:]}}
    extra = {g for g in got - expected - folded if g[0] not in codes and
             (g[0] != "NKI404" or (file, kernel) not in KNOWN_UNINITIALISED)}
    assert not extra, [f.describe() for f in res.faults]


def test_every_marker_of_runtime_codes_is_covered() -> None:
    """Each runtime-checkable marker in tests/kernels is exercised by some case above."""
    covered = set()
    for f, kernels in CASES.items():
        path = os.path.join(KERNELS, f)
        for k, spec in kernels.items():
            function = spec[2] if len(spec) > 2 else k
            covered |= _expected(path, function)
    for f in sorted(os.listdir(KERNELS)) + ["pkg_two_modules/tiles.py"]:
        path = os.path.join(KERNELS, f)
        if not f.endswith(".py") or f in ("never_execute.py", "syntax_error.py"):
            continue
        for line, items in parse(path).items():
            for code, _ in items:
                if code in RUNTIME_CODES:
                    assert (code, os.path.abspath(path), line) in covered, f"{f}:{line} {code} has no device case"


def test_constants_built_with_numpy_match_numpy() -> None:
    path = os.path.join(KERNELS, "b1_numpy_constants.py")
    x = r(128, 64)
    want = x + np.repeat(np.arange(4) * 64, 32).reshape(128, 1)
    np.testing.assert_allclose(device.run(path, x, kernel="add_quadrant_offsets"), want, rtol=1e-6)
    y = r(128, 256)
    np.testing.assert_allclose(device.run(path, y, kernel="rotate_blocks"), 2 * y, rtol=1e-6)


def test_seed_tensor_add_kernels_match_numpy() -> None:
    a, b = r(256, 1024), r(256, 1024)
    out = device.run(os.path.join(HERE, "..", "examples", "tensor_add.py"), a, b, kernel="tensor_add")
    np.testing.assert_array_equal(out, a + b)
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    out = device.run(os.path.join(HERE, "..", "examples", "spmd_add_beta1.py"), a16, b16, kernel="nki_tensor_add")
    np.testing.assert_array_equal(out, a16 + b16)
    a2, b2 = r(512, 1024, dtype=np.float16), r(512, 1024, dtype=np.float16)
    out = device.run(os.path.join(KERNELS, "b1_spmd_races.py"), a2, b2, kernel="nki_tensor_add_nc2")
    np.testing.assert_array_equal(out, a2 + b2)


def test_rearranged_views_match_numpy() -> None:
    path = os.path.join(KERNELS, "b2_rearrange.py")
    x = r(128, 512)
    np.testing.assert_array_equal(device.run(path, x, kernel="heads_first"), x)
    y = r(128, 96)
    np.testing.assert_array_equal(device.run(path, y, kernel="swap_groups_on_chip"),
                                  y.reshape(128, 3, 32).transpose(0, 2, 1).reshape(128, 96))
    z = r(128, 4, 128)
    np.testing.assert_array_equal(device.run(path, z, kernel="heads_as_rows"), z.reshape(128, 512))


def test_tiled_matmuls_match_numpy() -> None:
    lhs_t, rhs = r(256, 256), r(256, 1024)
    out = device.run(os.path.join(KERNELS, "b2_matmul.py"), lhs_t, rhs, kernel="matmul_tiled")
    np.testing.assert_allclose(out, lhs_t.T @ rhs, rtol=1e-5)
    lhs_t, rhs = r(384, 128), r(384, 512)
    out = device.run(os.path.join(KERNELS, "b1_matmul.py"), lhs_t, rhs, kernel="matmul")
    np.testing.assert_allclose(out, lhs_t.T @ rhs, rtol=1e-5)


def test_lnc2_halves_and_masked_tail_match_numpy() -> None:
    x = r(256, 512)
    np.testing.assert_array_equal(device.run(os.path.join(KERNELS, "b2_lnc_races.py"), x, kernel="halves", grid=2), x)
    y = r(300, 64)
    np.testing.assert_array_equal(device.run(os.path.join(KERNELS, "b1_masks.py"), y, kernel="copy_masked"), y)


def test_getting_started_tensor_add_with_language_wrappers() -> None:
    """The getting-started seed's shape of kernel: nl.load / nl.add / nl.store on one small tile (Beta 2)."""
    from .device_support import KernelRunner
    src = """
@nki.jit
def k(a, b):
    assert a.shape == b.shape
    assert a.shape[0] <= nl.tile_size.pmax
    total = nl.add(nl.load(a), nl.load(b))
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=total)
    return out
"""
    a = np.ones((4, 3), dtype=np.float16)
    out = KernelRunner().run(src, a, a)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.full((4, 3), 2, np.float16))


def test_a_beta1_bias_column_is_a_warning_the_device_broadcasts() -> None:
    """Beta-1 `nisa.tensor_tensor(x, bias)` with a (P, 1) bias: the documentation asks for equal shapes, the
    compiler accepts the column (public conv2d kernels add their bias so): a warning, not an error, and the
    device broadcasts it.  A (P, 2) data2 is no column: an error, and a device fault."""
    from nki_verify import Options, analyze_source

    from .device_support import B1, KernelRunner
    src = """
@nki.jit
def k(x, bias):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nisa.tensor_tensor(nl.load(x), nl.load(bias), op=nl.add))
    return out
"""
    runner = KernelRunner()
    x = r(128, 512)
    for cols, severity in ((1, "warning"), (2, "error")):
        bias = r(128, cols)
        launch = f"\nk(np.zeros((128, 512), np.float32), np.zeros((128, {cols}), np.float32))\n"
        found = [d for d in analyze_source(B1 + src + launch, "bias.py", Options()).diagnostics if d.code == "NKI501"]
        assert [d.severity for d in found] == [severity], found
        res = runner.execute(src, x, bias, header=B1)
        if cols == 1:
            assert not res.faults
            np.testing.assert_allclose(res.outputs, x + bias, rtol=1e-6)
        else:
            assert [f.code for f in res.faults] == ["NKI501"]


def test_beta1_forms_of_aws_kernels_compute_on_the_device() -> None:
    """The Beta-1 forms the verifier accepts since AWS's own kernels use them run to the right values: a loop
    directive, reshape with par_dim, np.identity by keywords, a tensor_reduce over axis 1 of three, a parameter
    unpacked into sizes, an index that is a grid or 0 by the axis' length."""
    path = os.path.join(KERNELS, "b1_sdk_forms.py")
    x = r(1024, 64)
    np.testing.assert_array_equal(device.run(path, x, kernel="copy_rows_double_buffered"), x)
    y = r(128, 128)
    np.testing.assert_array_equal(device.run(path, y, kernel="second_quarter_of_each_row"), y[:, 32:64])
    np.testing.assert_array_equal(device.run(path, y, kernel="identity_from_numpy_keywords"), np.diag(np.diag(y)))
    z = r(128, 4, 64)
    np.testing.assert_array_equal(device.run(path, z, kernel="max_over_the_middle_axis"), z.max(axis=1))
    np.testing.assert_array_equal(device.run(path, y, (100, 64), kernel="crop_to"), y[:100, :64])
    for width in (1, 64):
        w = r(128, width)
        np.testing.assert_array_equal(device.run(path, w, kernel="copy_a_tile_of_any_width"), w)


def test_the_tracer_memory_names_allocate_on_the_device() -> None:
    """`sbuf.view(dtype=..., shape=...)` and `hbm.view(...)`, names the Beta-2 tracer gives kernel code (the
    verifier follows them too): tensors in those buffers."""
    from .device_support import KernelRunner
    src = """
@nki.jit
def k(a, b):
    ta = sbuf.view(dtype=a.dtype, shape=a.shape)  # noqa: F821
    nisa.dma_copy(dst=ta, src=a)
    tb = sbuf.view(dtype=b.dtype, shape=b.shape)  # noqa: F821
    nisa.dma_copy(dst=tb, src=b)
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    out = hbm.view(dtype=a.dtype, shape=a.shape)  # noqa: F821
    nisa.dma_copy(dst=out, src=ta)
    return out
"""
    a, b = r(128, 512), r(128, 512)
    res = KernelRunner().execute(src, a, b)
    assert not res.faults
    np.testing.assert_array_equal(res.outputs, a + b)
    wide = KernelRunner().execute(src, r(256, 512), r(256, 512))
    assert "NKI201" in {f.code for f in wide.faults}


def test_library_style_package_on_the_device() -> None:
    """Dataclass configs, enums, a tiled-range class and kernel_assert run as Python on the device: the good
    kernels compute exp(x), the bad ones fault with the codes and lines of their markers."""
    pkg = os.path.join(KERNELS, "pkg_library_style")
    path = os.path.join(pkg, "kernels.py")
    markers = {(c, os.path.abspath(f), line) for f in (path, os.path.join(pkg, "common.py"))
               for line, items in parse(f).items() for c, _ in items if c in RUNTIME_CODES}
    x = r(300, 256)
    np.testing.assert_allclose(device.run(path, x, kernel="scale_rows"), np.exp(x), rtol=1e-6)
    y = r(128, 768)
    np.testing.assert_allclose(device.run(path, y, kernel="column_blocks"), np.exp(y), rtol=1e-6)
    z = r(384, 64)
    want = z.copy()
    want[:256] += z[128:]
    np.testing.assert_allclose(device.run(path, z, 128, kernel="add_next_block"), want, rtol=1e-6)
    got = set()
    for kernel, args in (("scale_rows_unchecked", (r(300, 640),)), ("scale_rows_full_tiles", (r(300, 256),)),
                         ("tile_too_tall", (r(256, 64),)), ("add_next_block_past_the_end", (z, 128))):
        got |= {(f.code, os.path.abspath(f.path), f.line) for f in device.execute(path, *args, kernel=kernel).faults}
    assert markers and markers <= got, sorted(markers - got)


def test_beta1_gather_by_an_index_tile_matches_numpy() -> None:
    # `table[rows[i_p, 0], i_f]`: one row per partition of the index tile (the form of the Beta-1 API
    # examples), not the first index for every partition
    table, idx = r(128, 512), np.random.default_rng(3).integers(0, 128, size=(64, 1)).astype(np.int32)
    out = device.run(os.path.join(KERNELS, "b1_dynamic_index.py"), table, idx, kernel="gather_rows")
    np.testing.assert_array_equal(out, table[idx[:, 0]])


def test_loop_invariant_branches_match_numpy() -> None:
    """b2_invariant_branches.py's good kernels on both sides of their loop-invariant conditions: one block of bias
    loaded before the loop for every row tile, or one block per row tile loaded in each iteration."""
    path = os.path.join(KERNELS, "b2_invariant_branches.py")
    x, shared, streamed = r(384, 256), r(128, 256), r(384, 256)
    np.testing.assert_array_equal(device.run(path, x, shared, kernel="bias_shared_or_streamed"),
                                  x + np.tile(shared, (3, 1)))
    np.testing.assert_array_equal(device.run(path, x, streamed, kernel="bias_shared_or_streamed"), x + streamed)
    y = r(2, 300, 384), r(2, 300, 256)
    for z, factor in zip(y, (2, 1)):
        np.testing.assert_array_equal(device.run(path, z, kernel="batches_doubled_when_wide"), z * factor)


def test_an_error_at_a_guessed_rank_only_is_a_launch_that_works_at_another() -> None:
    """first_expert_as_a_block fails for every 3-D input (the rank the verifier guessed), so its finding is a
    warning: with a 4-D input whose last axis is 2 it runs and copies the first expert."""
    path = os.path.join(KERNELS, "b2_rank_guesses.py")
    x = r(2, 128, 4, 2)
    res = device.execute(path, x, kernel="first_expert_as_a_block")
    assert not res.faults, [f.describe() for f in res.faults]
    np.testing.assert_array_equal(res.outputs, x[0].reshape(128, 8))
    kinds = {(d.code, d.severity) for d in verify_source(open(path, encoding="utf-8").read(), path)
             if d.kernel == "first_expert_as_a_block"}
    assert kinds == {("NKI501", "warning")}, kinds
