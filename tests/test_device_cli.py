"""`nki-verify run`: the only command that executes a kernel, and it says so."""

from __future__ import annotations

import os

import numpy as np

from nki_verify.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "examples")
KERNELS = os.path.join(HERE, "kernels")


def test_help_says_it_executes_the_kernel(capsys) -> None:
    assert main(["run", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "EXECUTE" in out and "runs the kernel's Python code" in out


def test_clean_kernel_prints_outputs_and_exits_0(tmp_path, capsys) -> None:
    a, b = np.arange(256 * 512, dtype=np.float32).reshape(256, 512), np.ones((256, 512), np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    rc = main(["run", os.path.join(EXAMPLES, "tensor_add.py"), "--kernel", "tensor_add", "--input",
               f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}", "--save", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "output out: shape (256, 512) float32" in out and "0 fault(s)" in out
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "out.npy"), a + b)


def test_random_inputs_are_seeded(capsys) -> None:
    argv = ["run", os.path.join(EXAMPLES, "tensor_add.py"), "--shape", "a=128x64", "--shape", "b=128x64:bfloat16"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out.split("instructions")[0] == first.split("instructions")[0]
    assert "bfloat16" in first


def test_a_fault_is_printed_with_code_and_line_and_exits_1(capsys) -> None:
    rc = main(["run", os.path.join(EXAMPLES, "tensor_add_bug.py"), "--shape", "a=256x512", "--shape", "b=256x512"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "tensor_add_bug.py:19: NKI101" in out and "start = 256" in out


def test_keep_going_collects_every_fault(capsys) -> None:
    rc = main(["run", os.path.join(KERNELS, "b2_shapes_dtypes.py"), "--kernel", "add_tiles_mismatch",
               "--shape", "a=128x512", "--shape", "b=128x512", "--keep-going"])
    out = capsys.readouterr().out
    assert rc == 1
    assert ":28: NKI501" in out and ":29: NKI501" in out


def test_lnc2_grid_and_scalar_arguments(capsys) -> None:
    assert main(["run", os.path.join(KERNELS, "b2_lnc_races.py"), "--kernel", "same_rows", "--shape", "a=256x512",
                 "--grid", "2"]) == 1
    assert "NKI402" in capsys.readouterr().out
    assert main(["run", os.path.join(KERNELS, "b2_memory.py"), "--kernel", "psum_bank_from_argument",
                 "--shape", "a=128x128:bfloat16", "--arg", "bank=3"]) == 0


def test_usage_errors_exit_2(capsys) -> None:
    assert main(["run", os.path.join(EXAMPLES, "tensor_add.py"), "--shape", "a=128x64"]) == 2
    assert "give b" in capsys.readouterr().err
    assert main(["run", os.path.join(EXAMPLES, "tensor_add.py"), "--shape", "z=1x1", "--shape", "a=1x1",
                 "--shape", "b=1x1"]) == 2
    assert main(["run", os.path.join(KERNELS, "b2_matmul.py"), "--shape", "lhsT=128x128"]) == 2
    assert "--kernel" in capsys.readouterr().err


def test_an_inadmissible_input_is_not_a_fault(capsys) -> None:
    rc = main(["run", os.path.join(KERNELS, "b2_memory.py"), "--kernel", "psum_bank_from_argument",
               "--shape", "a=128x128", "--arg", "bank=9"])
    assert rc == 2
    assert "rejects these inputs" in capsys.readouterr().out


def test_framework_imports_are_harmless_and_restored(tmp_path) -> None:
    import sys

    import device
    (tmp_path / "k.py").write_text(
        "import torch\nimport torch.nn.functional as F\nimport torch_neuronx\nimport neuronxcc.nki as nki\n"
        "import neuronxcc.nki.language as nl\n\n\n@torch_neuronx.nki_jit\ndef k(a: nki.tensor):\n"
        "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    nl.store(out, value=nl.load(a))\n    return out\n")
    before = {n for n in sys.modules if n.split(".")[0] in ("torch", "torch_neuronx", "neuronxcc", "nki")}
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(device.run(str(tmp_path / "k.py"), a, kernel="k"), a)
    after = {n for n in sys.modules if n.split(".")[0] in ("torch", "torch_neuronx", "neuronxcc", "nki")}
    assert after == before


def test_a_file_that_launches_its_kernel_at_import_runs_on_the_device(tmp_path) -> None:
    import device
    (tmp_path / "k.py").write_text(
        "import numpy as np\nimport nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n\n"
        "@nki.jit\ndef k(a):\n    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    nl.store(out, value=nl.exp(nl.load(a)))\n    return out\n\n\n"
        "RESULT = nki.simulate(k)(np.zeros((4, 4), dtype=np.float32))\n")
    dev = device.Device()
    a = np.ones((2, 2), np.float32)
    np.testing.assert_allclose(dev.run(str(tmp_path / "k.py"), a, kernel="k"), np.exp(a))
    np.testing.assert_array_equal(dev.load(str(tmp_path / "k.py")).RESULT, np.ones((4, 4), np.float32))
