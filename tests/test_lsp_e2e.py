"""End-to-end tests of the language server over stdio with pytest-lsp: every wait is on a notification."""

from __future__ import annotations

import asyncio
import os
import sys
from concurrent.futures import Future
import textwrap

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig

from tests.lsp_client import ROOT, SERVER, RecordingClient, apply_edits, init_params, make_client, open_doc, \
    replace_text, uri_of

pytestmark = pytest.mark.asyncio(loop_scope="function")

BUG = os.path.join(ROOT, "examples", "tensor_add_bug.py")
B1_DEPS = os.path.join(ROOT, "tests", "kernels", "b1_dependencies.py")
PKG = os.path.join(ROOT, "tests", "kernels", "pkg_two_modules")
FIXED = open(BUG).read().replace("nl.affine_range(P // 128 + 1)", "nl.affine_range(P // 128)").replace(
    "    assert a.shape == b.shape\n", "    assert a.shape == b.shape\n    assert P % 128 == 0\n")
SUGGEST = textwrap.dedent("""\
    import nki
    import nki.isa as nisa
    import nki.language as nl

    @nki.jit
    def k(x):
        P, F = x.shape
        assert P <= 128
        t = nl.ndarray((P, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:P, 0:512])
        return t
""")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: RecordingClient, tmp_path):
    await lsp_client.initialize_session(init_params(str(tmp_path)))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def pull_client(lsp_client: RecordingClient, tmp_path):
    await lsp_client.initialize_session(init_params(str(tmp_path), "visual-studio-code", pull=True))
    yield
    await lsp_client.shutdown_session()


CRASH_SERVER = [sys.executable, os.path.join(ROOT, "tests", "lsp_crash_server.py")]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=CRASH_SERVER, client_factory=make_client))
async def crash_client(lsp_client: RecordingClient, tmp_path):
    await lsp_client.initialize_session(init_params(str(tmp_path)))
    yield
    await lsp_client.shutdown_session()


def errors(diags: list) -> list:
    return [d for d in diags if d.severity == types.DiagnosticSeverity.Error]


async def test_open_change_close(client: RecordingClient) -> None:
    uri = open_doc(client, BUG, open(BUG).read())
    diags = await client.diagnostics_for(uri, 1)
    assert [d.code for d in diags] == ["NKI101"] * 3
    d = diags[0]
    assert d.source == "nki-verify" and d.severity == types.DiagnosticSeverity.Error
    assert d.code_description.href.endswith("#nki101")
    assert "counterexample: a.shape[0] = 128" in d.message
    assert (d.range.start.line, d.range.start.character) == (18, 40)
    assert any("loop index i ranges over" in r.message and r.location.range.start.line == 15
               for r in d.related_information)
    replace_text(client, uri, FIXED, 2)
    assert await client.diagnostics_for(uri, 2) == []
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    await client.until(lambda: client.published[-1].uri == uri and not client.published[-1].diagnostics
                       and client.published[-1].version is None, "the diagnostics to be cleared on close")
    assert {"state": "analysing", "message": ""} in client.statuses


async def test_a_burst_of_edits_publishes_the_newest_version_only(client: RecordingClient) -> None:
    bad, good = open(BUG).read(), FIXED
    uri = open_doc(client, BUG, good)
    assert await client.diagnostics_for(uri, 1) == []
    for version in range(2, 52):  # 50 edits, faster than the debounce
        replace_text(client, uri, bad if version % 2 == 0 else good, version)
    last = await client.diagnostics_for(uri, 51)
    assert last == []  # version 51 is the good text
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions), "an older analysis was published over a newer one"
    assert len(versions) < 10, f"the debounce did not collapse the burst: {versions}"
    # the server still answers, with the newest text
    replace_text(client, uri, bad, 52)
    assert len(errors(await client.diagnostics_for(uri, 52))) == 3


def many_kernels(n: int) -> str:
    """A file of `n` copies of the buggy kernel (each with three findings)."""
    body = open(BUG).read().split("@nki.jit\n", 1)[1]
    return "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n" + "".join(
        "\n\n@nki.jit\n" + body.replace("def tensor_add_bug(", f"def k{i}(") for i in range(n))


async def test_a_large_file_under_a_burst_keeps_the_server_answering(client: RecordingClient, tmp_path) -> None:
    text = many_kernels(40)  # about 500 lines
    uri = open_doc(client, str(tmp_path / "big.py"), text)
    for version in range(2, 52):
        text = text.replace("nisa.tensor_tensor(", "nisa.tensor_tensor( ", 1) if version % 2 else text
        replace_text(client, uri, text, version)
    # the event loop answers while the analysis runs in a worker thread
    line = next(i for i, t in enumerate(text.splitlines()) if "dma_copy" in t)
    col = text.splitlines()[line].index("dma_copy") + 2
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(line=line, character=col)))
    assert h is not None and "dma_copy" in h.contents.value
    final = await client.diagnostics_for(uri, 51)
    assert [d.code for d in final] == ["NKI101"] * 3 * 40, [(d.code, d.message, d.range) for d in final
                                                             if d.code != "NKI101"]
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions) and versions[-1] == 51


async def test_hover(client: RecordingClient) -> None:
    text = open(BUG).read() + "# nki-verify: file-ignore[NKI403]\n"
    uri = open_doc(client, BUG, text)
    await client.diagnostics_for(uri, 1)

    async def hover(line: int, word: str, nth: int = 0) -> str:
        col = text.splitlines()[line].index(word) + 1
        h = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri), position=types.Position(line=line, character=col)))
        assert h is not None, f"no hover on {word!r}"
        return h.contents.value

    tile = await hover(16, "a_tile")
    assert "sbuf" in tile and "[128, a.shape[1]]" in tile
    assert "range(0, a.shape[0] // 128 + 1)" in await hover(18, "i *")
    assert "DMA" in await hover(18, "dma_copy")
    assert "NKI403" in await hover(len(text.splitlines()) - 1, "NKI403")


async def test_quick_fix_sequential_range_removes_the_finding(client: RecordingClient) -> None:
    text = open(B1_DEPS).read()
    uri = open_doc(client, B1_DEPS, text)
    diags = [d for d in await client.diagnostics_for(uri, 1) if d.code == "NKI401"]
    assert len(diags) == 2
    target = diags[0]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=target.range,
        context=types.CodeActionContext(diagnostics=[target])))
    fix = next(a for a in actions if "sequential_range" in a.title)
    assert fix.is_preferred
    fixed = apply_edits(text, fix.edit.changes[uri])
    assert "nl.sequential_range(4)" in fixed
    replace_text(client, uri, fixed, 2)
    after = [d for d in await client.diagnostics_for(uri, 2) if d.code == "NKI401"]
    assert len(after) == 1 and after[0].range.start.line != target.range.start.line


async def test_quick_fix_adds_the_missing_precondition(client: RecordingClient, tmp_path) -> None:
    path = str(tmp_path / "k.py")
    uri = open_doc(client, path, SUGGEST)
    (d,) = await client.diagnostics_for(uri, 1)
    assert d.code == "NKI101" and "state it: `assert x.shape[1] >= 512`" in d.message
    # a client that does not send `data` back still gets the fixes (from the last analysis)
    bare = types.Diagnostic(range=d.range, message=d.message, code=d.code, source=d.source)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=d.range,
        context=types.CodeActionContext(diagnostics=[bare])))
    add = next(a for a in actions if a.title.startswith("add `assert"))
    fixed = apply_edits(SUGGEST, add.edit.changes[uri])
    assert "    assert x.shape[1] >= 512\n    nisa.dma_copy" in fixed
    replace_text(client, uri, fixed, 2)
    assert await client.diagnostics_for(uri, 2) == []

    suppress = next(a for a in actions if a.title.startswith("suppress NKI101"))
    suppressed = apply_edits(SUGGEST, suppress.edit.changes[uri])
    assert "# nki-verify: ignore[NKI101]" in suppressed
    replace_text(client, uri, suppressed, 3)
    assert await client.diagnostics_for(uri, 3) == []


async def test_client_settings_apply_live(client: RecordingClient) -> None:
    uri = open_doc(client, BUG, open(BUG).read())
    assert len(errors(await client.diagnostics_for(uri, 1))) == 3
    n = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"nkiVerify": {"severity": {"NKI101": "warning"}}}))
    await client.until(lambda: len(client.published) > n, "a re-analysis after the settings changed")
    assert [d.severity for d in client.published[-1].diagnostics] == [types.DiagnosticSeverity.Warning] * 3
    n = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"nkiVerify": {"enable": False}}))
    await client.until(lambda: len(client.published) > n, "a re-analysis after disabling")
    assert not client.published[-1].diagnostics


async def test_project_configuration_is_reread(client: RecordingClient, tmp_path) -> None:
    path = str(tmp_path / "kernel.py")
    text = open(BUG).read()
    with open(path, "w") as fh:
        fh.write(text)
    uri = open_doc(client, path, text)
    assert len(await client.diagnostics_for(uri, 1)) == 3
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.nki-verify]\nignore = ["NKI101"]\n')
    n = len(client.published)
    changed = types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri_of(str(pyproject)),
                                                                         type=types.FileChangeType.Created)])
    client.workspace_did_change_watched_files(changed)
    await client.until(lambda: len(client.published) > n, "a re-analysis after pyproject.toml changed")
    assert not client.published[-1].diagnostics
    # a broken configuration is reported (a message and a diagnostic on the file), and the server goes on
    pyproject.write_text('[tool.nki-verify]\ntarget = "trn9"\n')
    client.workspace_did_change_watched_files(changed)
    await client.until(lambda: any("trn9" in m.message for m in client.messages), "the configuration error")
    cfg = await client.until(lambda: next((p for p in client.published if p.uri.endswith("pyproject.toml")), None))
    assert "trn9" in cfg.diagnostics[0].message and cfg.diagnostics[0].range.start.line == 0
    replace_text(client, uri, FIXED, 2)
    assert await client.diagnostics_for(uri, 2) == []


async def test_open_sibling_module_buffers_are_analysed(client: RecordingClient) -> None:
    kernel, tiles = os.path.join(PKG, "kernel.py"), os.path.join(PKG, "tiles.py")
    kuri = open_doc(client, kernel, open(kernel).read())
    await client.diagnostics_for(kuri, 1)
    tiles_uri = uri_of(tiles)
    found = await client.until(lambda: client.diagnostics.get(tiles_uri), "the helper module's finding")
    assert [d.code for d in found] == ["NKI101"]
    # the unsaved, fixed helper module is what the kernel's analysis reads
    fixed = open(tiles).read().replace("row * TILE_P + 1:(row + 1) * TILE_P + 1", "row * TILE_P:(row + 1) * TILE_P")
    open_doc(client, tiles, fixed)
    await client.until(lambda: tiles_uri in client.diagnostics and not client.diagnostics[tiles_uri],
                       "the helper's finding to go away")
    assert not client.diagnostics[kuri]


async def test_a_crashing_analysis_is_one_diagnostic_not_a_dead_server(crash_client: RecordingClient,
                                                                       tmp_path) -> None:
    client = crash_client
    uri = open_doc(client, str(tmp_path / "crash.py"), "x = 1  # CRASH_ME\n")
    (d,) = await client.diagnostics_for(uri, 1)
    assert d.code == "NKI902" and "simulated crash" in d.message
    await client.until(lambda: any("simulated crash" in m.message and m.type == types.MessageType.Error
                                   for m in client.log_messages), "the crash in the log")
    assert client.statuses[-1]["state"] == "error"
    good = open_doc(client, BUG, open(BUG).read())
    assert len(await client.diagnostics_for(good, 1)) == 3


async def test_an_analysis_over_its_time_budget_is_reported_and_the_server_goes_on(
        crash_client: RecordingClient, tmp_path) -> None:
    client = crash_client
    uri = open_doc(client, str(tmp_path / "hang.py"), "x = 1  # HANG_ME\n")
    (d,) = await client.diagnostics_for(uri, 1)
    assert d.code == "NKI902" and "took longer than 1 s" in d.message
    good = open_doc(client, BUG, open(BUG).read())
    assert len(await client.diagnostics_for(good, 1)) == 3


async def raw_request(client: RecordingClient, msg_id: str, method: str, params: object) -> object:
    """Send a request the typed client could not build (malformed params); the response or its error."""
    fut: Future = Future()
    client.protocol._request_futures[msg_id] = fut
    client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(fut), 60)


async def test_malformed_requests_get_json_rpc_errors(client: RecordingClient) -> None:
    uri = open_doc(client, BUG, open(BUG).read())
    await client.diagnostics_for(uri, 1)
    with pytest.raises(JsonRpcException) as err:
        await raw_request(client, "bad-1", types.TEXT_DOCUMENT_HOVER, {"textDocument": 5, "position": "x"})
    assert err.value.code == -32602  # invalid params
    with pytest.raises(JsonRpcException) as err:
        await raw_request(client, "bad-2", "nkiVerify/noSuchMethod", {})
    assert err.value.code == -32601  # method not found
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(line=16, character=10)))
    assert h is not None and "a_tile" in h.contents.value


async def test_pull_diagnostics(pull_client: RecordingClient) -> None:
    client = pull_client
    uri = open_doc(client, BUG, open(BUG).read())
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri)))
    assert [d.code for d in report.items] == ["NKI101"] * 3
    replace_text(client, uri, FIXED, 2)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri)))
    assert not report.items
    assert client.registrations[0].method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert not [p for p in client.published if p.uri == uri], "a pull client must not also get pushes"
