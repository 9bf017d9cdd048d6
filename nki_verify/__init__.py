"""nki-verify: a static verifier and linter for NKI kernels.

    from nki_verify import verify_source, Options
    diagnostics = verify_source(text, "kernel.py", Options(target="trn2"))
"""

from .api import VerifyResult, analyze_source, verify_source
from .diagnostics import Diagnostic, Fix, Location, Note, TextEdit
from .options import Options

__version__ = "0.1.0"

__all__ = ["Diagnostic", "Fix", "Location", "Note", "Options", "TextEdit", "VerifyResult", "analyze_source",
           "verify_source", "__version__"]
