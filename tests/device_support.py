"""Helpers for device tests: run a kernel given as source text (written to a temporary file)."""

from __future__ import annotations

import os
import tempfile
import uuid
from typing import Any

import device

B2 = "import nki\nimport nki.isa as nisa\nimport nki.language as nl\nimport numpy as np\n\n\n"
B1 = ("import neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\nimport neuronxcc.nki.language as nl\n"
      "import numpy as np\n\n\n")


class KernelRunner:
    """Writes kernels to a scratch directory and runs them on one reusable device."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="nki_device_test_")
        self.device = device.Device()

    def write(self, source: str, header: str = B2) -> str:
        path = os.path.join(self.dir, f"k_{uuid.uuid4().hex[:12]}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(header + source)
        return path

    def run(self, source: str, *args: Any, header: str = B2, kernel: str = "k", **kw: Any) -> Any:
        return self.device.run(self.write(source, header), *args, kernel=kernel, **kw)

    def execute(self, source: str, *args: Any, header: str = B2, kernel: str = "k", **kw: Any) -> Any:
        return self.device.execute(self.write(source, header), *args, kernel=kernel, **kw)

    def line_of(self, source: str, needle: str, header: str = B2) -> int:
        """The file line (header included) of the first source line containing `needle`."""
        lines = (header + source).splitlines()
        return next(i + 1 for i, text in enumerate(lines) if needle in text)
