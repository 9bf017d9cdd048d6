"""`--hlo`: shapes, dtypes, kernel names and grids from framework HLO dumps (the forms of the custom-operator
seed: JAX's one-line custom-call with nki_call metadata, torch-neuronx's multi-line one without a name)."""

from __future__ import annotations

import os

import pytest

from nki_verify import hlo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "hlo")
JAX = os.path.join(DATA, "jax_tensor_add.hlo.txt")
TORCH = os.path.join(DATA, "torch_scale_rows.hlo.txt")
ADD = os.path.join(DATA, "tensor_add_kernels.py")
SCALE = os.path.join(DATA, "scale_rows.py")


def test_jax_custom_calls_name_the_kernel_and_grid() -> None:
    calls = hlo.read(JAX)
    assert [(c.name, c.line, c.kernel, c.grid) for c in calls] == [
        ("custom-call.0", 8, "nki_tensor_add_kernel_", (2, 2)), ("custom-call.1", 10, "nki_tensor_add_kernel_", (2, 2))]
    assert calls[0].operands == (hlo.Array("float32", (256, 1024)),) * 2
    assert calls[1].results == (hlo.Array("float32", (128, 1024)),)


def test_torch_custom_call_spanning_lines_without_a_name() -> None:
    (call,) = hlo.read(TORCH)
    assert (call.name, call.line, call.kernel, call.grid) == ("custom-call.2", 6, None, None)
    assert call.operands == (hlo.Array("bfloat16", (200, 512)),) * 2


def test_untyped_operands_are_looked_up_and_tuple_results_split() -> None:
    text = ("ENTRY %e (p0: f16[4,8], p1: s32[16]) -> (f16[4,8], u8[2]) {\n"
            " %p0 = f16[4,8]{1,0} parameter(0)\n %p1 = s32[16]{0} parameter(1)\n"
            " %cc = (f16[4,8]{1,0}, u8[2]{0}) custom-call(%p0, %p1),"
            " custom_call_target=\"AwsNeuronCustomNativeKernel\"\n"
            " %other = f32[2]{0} custom-call(%p0), custom_call_target=\"SomethingElse\"\n}\n")
    (call,) = hlo.parse(text)
    assert call.operands == (hlo.Array("float16", (4, 8)), hlo.Array("int32", (16,)))
    assert call.results == (hlo.Array("float16", (4, 8)), hlo.Array("uint8", (2,)))


def test_binding_operands_and_pass_by_reference_outputs() -> None:
    call = hlo.read(JAX)[1]
    shape = ((128, 1024), "float32")
    assert hlo.bind(call, ("a", "b")) == {"a": shape, "b": shape}
    assert hlo.bind(call, ("a", "b", "out")) == {"a": shape, "b": shape, "out": shape}
    assert hlo.bind(call, ("a",)) is None
    assert hlo.function_params("def k(a, b, c=1):\n    pass\n") == {"k": ("a", "b")}


def test_a_file_without_kernel_calls_is_an_error(tmp_path) -> None:
    p = tmp_path / "plain.hlo.txt"
    p.write_text("HloModule m\nENTRY %e (p: f32[2]) -> f32[2] {\n ROOT %p = f32[2]{0} parameter(0)\n}\n")
    with pytest.raises(hlo.HloError, match="AwsNeuronCustomNativeKernel"):
        hlo.read(str(p))
