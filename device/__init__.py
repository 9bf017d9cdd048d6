"""The reference device: runs a kernel's own Python against a numpy implementation of the NKI modules.

    import device
    out = device.run("examples/tensor_add.py", a, b, kernel="tensor_add")          # raises DeviceFault
    res = device.execute("kernel.py", a, kernel="k", grid=2, mode="collect")      # res.outputs, res.faults

It is independent of the verifier's front end (a second semantics for the cross-check) and checks every
call against compiler/spec.  Only this package executes user code, and only when asked.
"""

from __future__ import annotations

from . import isa as _isa  # noqa: F401 - registers the instruction semantics
from . import language as _language  # noqa: F401
from .faults import (HAZARD_CODES, RUNTIME_CODES, DeviceFault, KernelPrecondition, Site,
                     Unsupported)
from .runner import Device, Result, execute, load, run

__all__ = ["Device", "DeviceFault", "HAZARD_CODES", "KernelPrecondition", "RUNTIME_CODES", "Result", "Site",
           "Unsupported", "execute", "load", "run"]
