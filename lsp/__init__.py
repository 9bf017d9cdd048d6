"""The nki-verify language server (pygls): diagnostics, hover and quick fixes for NKI kernels in any editor.

    from lsp import create_server
    create_server().start_io()

Run it as `nki-verify lsp` or `python -m lsp` (stdio; `--tcp HOST:PORT` to debug).
"""

from __future__ import annotations

from .server import NkiLanguageServer, create_server
from .settings import ServerOptions

__all__ = ["NkiLanguageServer", "ServerOptions", "create_server"]
