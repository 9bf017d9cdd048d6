"""The nki-verify language server: thin handlers around `nki_verify.analyze_source`.

`create_server(options)` builds a server; nothing is created at import time.  Diagnostics are pushed
(`textDocument/publishDiagnostics`, with the document version) or, for clients that support it, pulled
(`textDocument/diagnostic`).  Hover and code actions answer from the last analysis; they never start one.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
import traceback
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from nki_verify import Options, __version__
from nki_verify.diagnostics import Diagnostic, Location

from . import actions, convert, hover
from .analyses import Analysis, Scheduler
from .settings import SECTION, ClientSettings, ConfigCache, ConfigProblem, ServerOptions, is_config_file, \
    parse_settings

logger = logging.getLogger(__name__)
SOLVER_CACHE_ENTRIES = 50_000  # per open document; cleared when larger
STATUS = "nkiVerify/status"  # custom notification: {"state": "idle" | "analysing" | "error", "message": str}
WATCHED = ("**/pyproject.toml", "**/nki-verify.toml", "**/.nki-verify.toml")


class NkiProtocol(LanguageServerProtocol):
    """pygls drops a request whose parameters do not deserialize; answer it with the JSON-RPC error instead, so
    that the client is not left waiting."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                logger.warning("malformed %s request: %s", data.get("method"), exc)
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class NkiLanguageServer(LanguageServer):
    """The server's state; the LSP handlers that drive it are registered by `create_server`."""

    def __init__(self, options: ServerOptions) -> None:
        super().__init__("nki-verify", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=NkiProtocol)
        self.options = options
        self.settings = ClientSettings()
        self.configs = ConfigCache()
        self.pull_mode = False
        self.status_notifications = False
        self.shown_problems: set[str] = set()
        self.published: dict[str, dict[str, list[types.Diagnostic]]] = {}  # target uri -> owner uri -> diags
        # solver verdicts per document, kept across its edits (most queries of an edited kernel are unchanged)
        self.solver_caches: dict[str, dict] = {}
        self.scheduler = Scheduler(self._analyse, self._snapshot, self._deliver, options.time_budget,
                                   self._on_busy, self._timed_out)

    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(source, type) and issubclass(source, JsonRpcException):
            logger.warning("could not handle a message: %s", error)  # already answered with an error
            return
        super().report_server_error(error, source)

    # ------------------------------------------------------------------ documents

    def open_uris(self) -> list[str]:
        return list(self.workspace.text_documents.keys())

    def _snapshot(self, uri: str) -> tuple[int | None, str, dict] | None:
        docs = self.workspace.text_documents
        doc = docs.get(uri)
        if doc is None:
            return None
        overlays = {convert.uri_to_path(u): d.source for u, d in docs.items() if u != uri}
        return doc.version, doc.source, overlays

    def reanalyse(self, uri: str, delay: float) -> None:
        if uri in self.workspace.text_documents:
            self.scheduler.schedule(uri, delay)

    def reanalyse_dependents(self, uri: str, delay: float) -> None:
        """Open documents whose last analysis read `uri`'s module see its new text."""
        path = convert.uri_to_path(uri)
        for other in self.open_uris():
            last = self.scheduler.last(other)
            if other != uri and last is not None and path in last.read_paths:
                self.reanalyse(other, delay)

    def reanalyse_all(self) -> None:
        for uri in self.open_uris():
            self.reanalyse(uri, 0.0)
        if self.pull_mode and self._client_can("workspace.diagnostics.refresh_support"):
            self.workspace_diagnostic_refresh(None)

    def close(self, uri: str) -> None:
        self.scheduler.forget(uri)
        self.solver_caches.pop(uri, None)
        self._publish_owned(uri, {}, None, closing=True)
        if not self.pull_mode:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ------------------------------------------------------------------ analysis (worker thread)

    def options_for(self, path: str) -> tuple[Options | None, ConfigProblem | None]:
        """The options for one file (None: not analysed) and a configuration problem to report, if any."""
        if not self.settings.enable:
            return None, None
        base = self.settings.apply(self.options.base)
        try:
            cfg = self.configs.config_for(path)
        except ConfigProblem as problem:
            return base, problem
        if cfg.is_excluded(path):
            return None, None
        return cfg.options(base, path), None

    def _analyse(self, uri: str, version: int | None, text: str, overlays: dict) -> Analysis:
        t0 = time.perf_counter()
        path = convert.uri_to_path(uri)
        result, error, extra = None, None, []
        try:
            options, problem = self.options_for(path)
            if problem is not None:
                extra.append(_config_diagnostic(problem))
                error = f"configuration error: {problem.message}"
            if options is not None:
                cache = self.solver_caches.setdefault(uri, {})
                if len(cache) > SOLVER_CACHE_ENTRIES:
                    cache.clear()
                result = self.options.analyze(text, path, dataclasses.replace(options, overlays=overlays,
                                                                              solver_cache=cache))
        except Exception as exc:  # noqa: BLE001 - a crash on one document must not take the server down
            logger.error("analysing %s crashed:\n%s", path, traceback.format_exc())
            error = f"internal error while analysing {os.path.basename(path)} ({type(exc).__name__}: {exc})"
            extra = [convert.internal_error(path, error)]
        diags = (list(result.diagnostics) if result is not None else []) + extra
        by_uri = convert.group_by_uri(diags, self._encoder(path, text, overlays), {path: uri})
        by_uri.setdefault(uri, [])
        return Analysis(uri, version, text, result, by_uri, error, time.perf_counter() - t0)

    def _encoder(self, path: str, text: str, overlays: dict) -> convert.Encoder:
        cache: dict[str, list[str] | None] = {path: text.splitlines(keepends=True)}

        def lines_of(p: str) -> list[str] | None:
            if p not in cache:
                src = overlays.get(p)
                if src is None:
                    try:
                        with open(p, encoding="utf-8") as fh:
                            src = fh.read()
                    except (OSError, UnicodeDecodeError):
                        src = None
                cache[p] = src.splitlines(keepends=True) if src is not None else None
            return cache[p]

        return convert.make_encoder(lines_of, self.workspace.position_codec.client_num_units)

    def _timed_out(self, uri: str, version: int | None, text: str) -> Analysis:
        path = convert.uri_to_path(uri)
        error = f"the analysis of {os.path.basename(path)} took longer than {self.options.time_budget:g} s"
        diag = convert.to_lsp(convert.internal_error(path, error))
        return Analysis(uri, version, text, None, {uri: [diag]}, error)

    # ------------------------------------------------------------------ results (event loop)

    def _deliver(self, analysis: Analysis) -> None:
        if analysis.error:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=analysis.error))
        else:
            logger.info("analysed %s (version %s) in %.3f s", analysis.uri, analysis.version, analysis.seconds)
        if analysis.error and analysis.error.startswith("configuration error") \
                and analysis.error not in self.shown_problems:
            self.shown_problems.add(analysis.error)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                             message=f"nki-verify: {analysis.error}"))
        self._status("error" if analysis.error else "idle", analysis.error or "")
        if not self.pull_mode:
            self._publish_owned(analysis.uri, analysis.by_uri, analysis.version)

    def _publish_owned(self, owner: str, by_uri: dict, version: int | None, closing: bool = False) -> None:
        """Publish `owner`'s diagnostics per file, merged with other documents' findings in the same file (a
        helper module's finding is reported by every open kernel file that imports it)."""
        targets = set(by_uri) | {t for t, owners in self.published.items() if owner in owners}
        for target in sorted(targets):
            owners = self.published.setdefault(target, {})
            if target in by_uri:
                owners[owner] = by_uri[target]
            else:
                owners.pop(owner, None)
            merged = _merge(owners.values())
            if not owners:
                del self.published[target]
            if self.pull_mode or (closing and target == owner):
                continue
            doc = self.workspace.text_documents.get(target)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=target, diagnostics=merged, version=version if target == owner else doc and doc.version))

    def _on_busy(self, busy: int) -> None:
        self._status("analysing" if busy else "idle", "")

    def _status(self, state: str, message: str) -> None:
        if self.status_notifications:
            self.protocol.notify(STATUS, {"state": state, "message": message})

    def _client_can(self, dotted: str) -> bool:
        node: Any = self.client_capabilities
        for part in dotted.split("."):
            node = getattr(node, part, None)
            if node is None:
                return False
        return bool(node)

    def apply_settings(self, raw: Any) -> None:
        settings, problems = parse_settings(raw)
        for p in problems:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                             message=f"nki-verify: {p}"))
        if settings != self.settings:
            self.settings = settings
            logger.info("settings: %s", settings)
            self.reanalyse_all()

    # ------------------------------------------------------------------ queries

    def hover_at(self, uri: str, position: types.Position) -> types.Hover | None:
        doc = self.workspace.text_documents.get(uri)
        last = self.scheduler.last(uri)
        if doc is None:
            return None
        pos = doc.position_codec.position_from_client_units(doc.lines, position)
        kernels = last.result.ir if last is not None and last.result is not None else []
        text = hover.hover_markdown(doc.source, convert.uri_to_path(uri), pos.line, pos.character, kernels)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    def actions_for(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(uri)
        if doc is None:
            return []
        ours = [d for d in params.context.diagnostics if d.source == convert.SOURCE]
        last = self.scheduler.last(uri)
        known = last.by_uri.get(uri, []) if last is not None else []
        if ours:  # clients that do not round-trip `data` get it back from the last analysis
            ours = [d if isinstance(d.data, dict) else _same(d, known) or d for d in ours]
        else:
            ours = [d for d in known if _overlaps(d.range, params.range)]
        return actions.code_actions(uri, doc.source, ours, doc.position_codec.client_num_units)


def _merge(groups: Any) -> list[types.Diagnostic]:
    seen, out = set(), []
    for diags in groups:
        for d in diags:
            key = (d.range.start.line, d.range.start.character, d.code, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out


def _same(d: types.Diagnostic, known: list[types.Diagnostic]) -> types.Diagnostic | None:
    for k in known:
        if k.code == d.code and k.range == d.range and k.message == d.message:
            return k
    return None


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def _config_diagnostic(problem: ConfigProblem) -> Diagnostic:
    """The problem, on the configuration file's `[tool.nki-verify]` header (or its first line)."""
    line = 1
    try:
        with open(problem.path, encoding="utf-8") as fh:
            for n, text in enumerate(fh, 1):
                if text.strip().replace(" ", "").startswith("[tool.nki-verify]"):
                    line = n
                    break
    except OSError:
        pass
    return Diagnostic("NKI902", "error", f"nki-verify configuration: {problem.message}",
                      Location(problem.path, line, 1, line + 1, 1))


# ---------------------------------------------------------------------- handlers


def create_server(options: ServerOptions | None = None) -> NkiLanguageServer:
    """A new language server; start it with `.start_io()` or `.start_tcp(host, port)`."""
    server = NkiLanguageServer(options or ServerOptions())
    debounce = server.options.debounce

    @server.feature(types.INITIALIZE)
    def initialize(ls: NkiLanguageServer, params: types.InitializeParams) -> None:
        init = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        mode = init.get("diagnosticMode", "auto")
        ls.pull_mode = mode == "pull" or (mode == "auto" and ls._client_can("text_document.diagnostic"))
        ls.status_notifications = bool(init.get("statusNotifications"))
        if "settings" in init:
            ls.settings, problems = parse_settings(init["settings"])
            for p in problems:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                               message=f"nki-verify: {p}"))
        if ls.pull_mode:  # registered here so that push-only clients are not offered it
            ls.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
                identifier="nki-verify", inter_file_dependencies=True, workspace_diagnostics=False))(pull)

    async def pull(ls: NkiLanguageServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        analysis = await ls.scheduler.current(params.text_document.uri)
        items = analysis.by_uri.get(params.text_document.uri, []) if analysis is not None else []
        rid = f"{analysis.version}-{id(analysis)}" if analysis is not None else None
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: NkiLanguageServer, params: types.InitializedParams) -> None:
        if ls._client_can("workspace.did_change_watched_files.dynamic_registration"):
            watchers = [types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="nki-verify-config", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                           watchers=watchers))]))
            except Exception as exc:  # noqa: BLE001 - configuration changes are still seen on save and by mtime
                logger.warning("the client did not accept the file watchers: %s", exc)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NkiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.reanalyse(params.text_document.uri, 0.0)
        ls.reanalyse_dependents(params.text_document.uri, debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NkiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.reanalyse(params.text_document.uri, debounce)
        ls.reanalyse_dependents(params.text_document.uri, debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NkiLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        if is_config_file(convert.uri_to_path(params.text_document.uri)):
            ls.configs.invalidate()
            ls.reanalyse_all()
        else:
            ls.reanalyse(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NkiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)
        ls.reanalyse_dependents(params.text_document.uri, 0.0)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: NkiLanguageServer, params: types.DidChangeConfigurationParams) -> None:
        raw = params.settings
        if not (isinstance(raw, dict) and raw) and ls._client_can("workspace.configuration"):
            (raw,) = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
        ls.apply_settings(raw)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: NkiLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        changed = [convert.uri_to_path(c.uri) for c in params.changes]
        if any(is_config_file(p) for p in changed):
            ls.configs.invalidate()
            ls.shown_problems.clear()
            ls.reanalyse_all()
            return
        for c in params.changes:
            ls.reanalyse_dependents(c.uri, debounce)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: NkiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover_at(params.text_document.uri, params.position)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def on_code_action(ls: NkiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.actions_for(params)

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: NkiLanguageServer, params: None) -> None:
        ls.scheduler.shutdown()

    return server
