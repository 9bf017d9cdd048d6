"""A real editor: headless Neovim (Debian's 0.7.2 in CI) opens a bad kernel with the server attached.

CI installs neovim (.ci/run); the test skips only on a machine that has neither nvim nor apt-get."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INIT = os.path.join(ROOT, "tests", "nvim", "init.lua")
BUG = os.path.join(ROOT, "examples", "tensor_add_bug.py")

NVIM = shutil.which("nvim")
if NVIM is None and shutil.which("apt-get") is None:
    pytestmark = pytest.mark.skip(reason="neither nvim nor apt-get to install it (`apt-get install neovim`)")


def test_neovim_shows_the_nki_diagnostics(tmp_path) -> None:
    assert NVIM is not None, "nvim is missing: .ci/run installs it with `apt-get install -y neovim`"
    kernel = tmp_path / "tensor_add_bug.py"
    shutil.copy(BUG, kernel)
    out = tmp_path / "report.json"
    env = dict(os.environ, NKI_LSP_CMD=json.dumps([sys.executable, "-m", "lsp"]), NKI_FILE=str(kernel),
               NKI_OUT=str(out), XDG_STATE_HOME=str(tmp_path / "state"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([NVIM, "--headless", "--clean", "-n", "-i", "NONE", "-u", INIT], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert out.exists(), f"Neovim wrote no report (exit {proc.returncode}): {proc.stdout}{proc.stderr}"
    report = json.loads(out.read_text())
    assert report["error"] is None, report["error"]
    diags = report["diagnostics"]
    assert [d["code"] for d in diags] == ["NKI101"] * 3
    assert [d["lnum"] for d in diags] == [18, 19, 21] and diags[0]["col"] == 40
    assert all(d["severity"] == 1 and d["source"] == "nki-verify" for d in diags)  # 1 = ERROR
    assert "counterexample: a.shape[0] = 128" in diags[0]["message"]
    # the hover on the diagnostic's first character: the loop index of the slice start
    assert report["hover"] is not None and "i in range(0, a.shape[0] // 128 + 1)" in report["hover"]
