"""The verifier never executes the file it analyses: a kernel that would write a marker file if run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from nki_verify import verify_source

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "kernels", "never_execute.py")


def test_api_does_not_execute(tmp_path) -> None:
    path = tmp_path / "never_execute.py"
    shutil.copy(SOURCE, path)
    diags = verify_source(path.read_text(), str(path))
    assert not (tmp_path / "EXECUTED_MARKER").exists()
    assert any(d.code == "NKI902" for d in diags)  # the open() in the kernel is reported, not run


def test_cli_does_not_execute(tmp_path) -> None:
    path = tmp_path / "never_execute.py"
    shutil.copy(SOURCE, path)
    proc = subprocess.run([sys.executable, "-m", "nki_verify.cli", str(path)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "EXECUTED_MARKER").exists()


def test_imported_helper_module_is_not_executed(tmp_path) -> None:
    (tmp_path / "helper.py").write_text(
        "import os\nopen(os.path.join(os.path.dirname(__file__), 'HELPER_RAN'), 'w').write('x')\nTILE = 128\n")
    (tmp_path / "k.py").write_text(
        "import nki\nimport nki.isa as nisa\nimport nki.language as nl\nfrom helper import TILE\n\n"
        "@nki.jit\ndef k(x):\n    assert x.shape == (128, 512)\n"
        "    t = nl.ndarray((TILE, 512), dtype=x.dtype, buffer=nl.sbuf)\n"
        "    nisa.dma_copy(dst=t, src=x[0:TILE, :])\n    return t\n")
    diags = verify_source((tmp_path / "k.py").read_text(), str(tmp_path / "k.py"))
    assert not (tmp_path / "HELPER_RAN").exists()
    assert [d for d in diags if d.severity == "error"] == []
