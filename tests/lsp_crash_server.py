"""A language server whose analysis crashes on documents containing CRASH_ME (for the robustness test)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lsp import ServerOptions, create_server  # noqa: E402
from nki_verify import Options, VerifyResult, analyze_source  # noqa: E402


def analyze(text: str, path: str, options: Options) -> VerifyResult:
    if "CRASH_ME" in text:
        raise RuntimeError("simulated crash in the analysis")
    return analyze_source(text, path, options)


if __name__ == "__main__":
    create_server(ServerOptions(analyze=analyze)).start_io()
