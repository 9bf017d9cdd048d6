"""A language server whose analysis crashes on documents containing CRASH_ME and never ends on documents
containing HANG_ME (for the robustness tests); its time budget is one second."""

from __future__ import annotations

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lsp import ServerOptions, create_server  # noqa: E402
from lsp.__main__ import run  # noqa: E402
from nki_verify import Options, VerifyResult, analyze_source  # noqa: E402


NEVER = threading.Event()


def analyze(text: str, path: str, options: Options) -> VerifyResult:
    if "CRASH_ME" in text:
        raise RuntimeError("simulated crash in the analysis")
    if "HANG_ME" in text:
        NEVER.wait()
    return analyze_source(text, path, options)


if __name__ == "__main__":
    run(create_server(ServerOptions(analyze=analyze, time_budget=1.0)))
