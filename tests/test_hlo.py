"""`--hlo`: shapes, dtypes, kernel names and grids from framework HLO dumps (the forms of the custom-operator
seed: JAX's one-line custom-call with nki_call metadata, torch-neuronx's multi-line one without a name)."""

from __future__ import annotations

import json
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


# ----------------------------------------------------------------------------- through the CLI


def _json(*args: str) -> tuple:
    from .cli_run import run

    p = run("--no-cache", "--output-format", "json", *args)
    return p, (json.loads(p.stdout) if p.stdout else None)


def test_jax_dump_verifies_the_named_kernel_at_each_calls_shapes_and_grid() -> None:
    p, doc = _json("--hlo", JAX, DATA)
    assert p.returncode == 1, p.stderr
    diags = doc["diagnostics"]
    # custom-call.0 ([256, 1024], grid 2x2) is in bounds; custom-call.1 ([128, 1024], grid 2x2) is not
    assert [(d["code"], d["severity"], d["line"]) for d in diags] == [("NKI101", "error", n) for n in (14, 15, 17)]
    assert {d["counterexample"]["program_id(0)"] for d in diags} == {1}
    for d in diags:
        (hlo_note,) = [r for r in d["related"] if r["path"] == JAX]
        assert hlo_note["line"] == 10 and "%custom-call.1(float32[128,1024], float32[128,1024]), grid (2, 2)" in \
            hlo_note["message"]
    assert doc["summary"]["kernels"] == 2  # one kernel, analysed at two shapes


def test_torch_dump_without_a_name_uses_the_kernel_whose_signature_fits() -> None:
    p, doc = _json("--hlo", TORCH, SCALE)
    assert p.returncode == 1, p.stderr
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == [("NKI101", 14), ("NKI101", 16)]
    assert "(size 200)" in doc["diagnostics"][0]["message"]


def test_torch_dump_with_several_fitting_kernels_needs_kernel() -> None:
    p, _ = _json("--hlo", TORCH, DATA)
    assert p.returncode == 2 and "choose with --kernel" in p.stderr and "scale_rows" in p.stderr
    p, doc = _json("--hlo", TORCH, "--kernel", "scale_rows", DATA)
    assert p.returncode == 1 and {d["kernel"] for d in doc["diagnostics"]} == {"scale_rows"}


def test_hlo_calling_kernels_that_are_not_there(tmp_path) -> None:
    p, _ = _json("--hlo", JAX, SCALE)
    assert p.returncode == 2 and "no kernel in the given files takes" in p.stderr
    assert "none of the HLO custom-calls calls a kernel" in p.stderr
    p, _ = _json("--hlo", str(tmp_path / "missing.hlo.txt"), SCALE)
    assert p.returncode == 2 and "cannot read" in p.stderr


def test_a_kernel_called_again_at_the_same_shapes_is_verified_once(tmp_path) -> None:
    text = open(JAX, encoding="utf-8").read()
    twice = text.replace("%custom-call.1 = f32[128,1024]{1,0} custom-call(f32[128,1024]{1,0} %Arg_2.3, "
                         "f32[128,1024]{1,0} %Arg_2.3)", "%custom-call.1 = f32[256,1024]{1,0} custom-call("
                         "f32[256,1024]{1,0} %Arg_0.1, f32[256,1024]{1,0} %Arg_1.2)")
    assert twice != text
    dump = tmp_path / "twice.hlo.txt"
    dump.write_text(twice)
    p, doc = _json("--hlo", str(dump), ADD)
    assert p.returncode == 0 and doc["summary"]["kernels"] == 1 and doc["diagnostics"] == []
