"""Running the CLI as users do: a subprocess, no colour, a private cache directory."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(HERE, "kernels")
GOOD = os.path.join(ROOT, "examples", "tensor_add.py")
BAD = os.path.join(ROOT, "examples", "tensor_add_bug.py")
# one cache for the session's CLI runs, outside the checkout
CACHE_DIR = tempfile.mkdtemp(prefix="nki-verify-test-cache-")
atexit.register(shutil.rmtree, CACHE_DIR, True)


def env(**extra: str) -> dict:
    out = dict(os.environ, NO_COLOR="1", NKI_VERIFY_CACHE_DIR=CACHE_DIR)
    out.pop("FORCE_COLOR", None)
    out.pop("GITHUB_WORKSPACE", None)
    out.update(extra)
    return out


def run(*args: str, cwd: str = ROOT, **extra_env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nki_verify.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env(**extra_env))
