"""A pytest-lsp client that records every notification, and helpers to wait on them (never on sleeps)."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Callable

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = [sys.executable, "-m", "lsp", "--log-level", os.environ.get("NKI_LSP_LOG", "WARNING")]
# a guard against a hung test, not a timing assertion: the slowest wait is one analysis on a loaded machine
WAIT = 120.0


class RecordingClient(LanguageClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.statuses: list[dict] = []
        self.registrations: list[types.Registration] = []
        self._waiters: list[asyncio.Future] = []

    def arrived(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def until(self, predicate: Callable[[], Any], what: str = "a notification") -> Any:
        """Wait until `predicate()` is true, re-checking after every notification from the server."""

        async def loop() -> Any:
            while True:
                found = predicate()
                if found:
                    return found
                fut = asyncio.get_running_loop().create_future()
                self._waiters.append(fut)
                await fut

        try:
            return await asyncio.wait_for(loop(), WAIT)
        except asyncio.TimeoutError:
            seen = [(p.uri.rsplit('/', 1)[-1], p.version, len(p.diagnostics)) for p in self.published]
            raise AssertionError(f"timed out waiting for {what}; published: {seen}") from None

    async def diagnostics_for(self, uri: str, version: int | None) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` at `version` (the first such publication)."""
        found = await self.until(lambda: next((p for p in self.published if p.uri == uri and p.version == version),
                                              None), f"diagnostics of {uri} version {version}")
        return list(found.diagnostics)


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)

    def publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)
        client.arrived()

    def log_message(client: RecordingClient, params: types.LogMessageParams) -> None:
        client.log_messages.append(params)
        client.arrived()

    def show_message(client: RecordingClient, params: types.ShowMessageParams) -> None:
        client.messages.append(params)
        client.arrived()

    def status(client: RecordingClient, params: Any) -> None:
        client.statuses.append(params if isinstance(params, dict) else params._asdict())  # pygls' namedtuple
        client.arrived()

    def register_capability(client: RecordingClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WINDOW_LOG_MESSAGE] = log_message
    features[types.WINDOW_SHOW_MESSAGE] = show_message
    features["nkiVerify/status"] = status
    register_lsp_features(client, features)
    return client


def init_params(root: str, client: str = "neovim@0.7.0", pull: bool = False,
                **init_options: Any) -> types.InitializeParams:
    """Push-mode capabilities by default (Neovim 0.7 does not pull diagnostics); `pull` adds pull support."""
    caps = client_capabilities(client)
    if pull:
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
    return types.InitializeParams(capabilities=caps, root_uri=f"file://{root}",
                                  initialization_options={"statusNotifications": True, **init_options})


def uri_of(path: str) -> str:
    return f"file://{path}"


def open_doc(client: LanguageClient, path: str, text: str, version: int = 1) -> str:
    uri = uri_of(path)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


def replace_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (ASCII text: UTF-16 columns are characters) from the last to the first."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(p: types.Position) -> int:
        return offsets[min(p.line, len(lines))] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text
