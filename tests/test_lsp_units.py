"""Unit tests of the language server's pure parts: conversion, code actions, hover, settings, arguments."""

from __future__ import annotations

import os

import pytest
from lsprotocol import types

from lsp import actions, convert, hover
from lsp.__main__ import _address, build_parser
from lsp.settings import ClientSettings, ConfigCache, ConfigProblem, parse_settings
from nki_verify import Diagnostic, Fix, Location, Note, Options, TextEdit, analyze_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUG = os.path.join(ROOT, "examples", "tensor_add_bug.py")


def diag(**kw) -> Diagnostic:
    loc = Location("/w/k.py", 3, 5, 3, 9)
    base = dict(code="NKI401", severity="error", message="a loop-carried dependency", location=loc, kernel="k",
                counterexample=(("a.shape[0]", 256), ("i", 1)), suggestion=None,
                notes=(Note(Location("/w/k.py", 2, 5, 2, 30), "the loop"),),
                fixes=(Fix("use nl.sequential_range", (TextEdit(Location("/w/k.py", 2, 14, 2, 29),
                                                               "nl.sequential_range"),)),))
    base.update(kw)
    return Diagnostic(**base)


def test_to_lsp_carries_code_link_evidence_notes_and_fixes() -> None:
    d = convert.to_lsp(diag())
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (2, 4, 8)
    assert d.code == "NKI401" and d.source == "nki-verify"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.code_description.href.endswith("#nki401")
    assert d.message == "a loop-carried dependency\ncounterexample: a.shape[0] = 256, i = 1"
    (rel,) = d.related_information
    assert rel.location.uri == "file:///w/k.py" and rel.location.range.start.line == 1 and rel.message == "the loop"
    (fix,) = d.data["fixes"]
    assert fix["title"] == "use nl.sequential_range"
    assert fix["edits"][0]["range"]["start"] == {"line": 1, "character": 13}
    assert convert.to_lsp(diag(severity="warning")).severity == types.DiagnosticSeverity.Warning


def test_suggestion_is_in_the_message_and_the_data() -> None:
    d = convert.to_lsp(diag(suggestion="assert a.shape[0] % 128 == 0", fixes=()))
    assert d.message.endswith("state it: `assert a.shape[0] % 128 == 0`")
    assert d.data == {"fixes": [], "suggestion": "assert a.shape[0] % 128 == 0", "kernel": "k"}


def test_columns_are_encoded_in_utf16_and_clamped() -> None:
    lines = {"/w/k.py": ["x = 1\n", "s = '\U0001F600' + t[0:4]\n", "y\n"]}
    encode = convert.make_encoder(lines.get, convert.utf16_units)
    r = convert.to_range(Location("/w/k.py", 2, 13, 2, 99), encode)
    # the emoji before column 13 is two UTF-16 code units; the end is clamped to the line
    assert (r.start.line, r.start.character, r.end.character) == (1, 13, 17)
    assert convert.to_range(Location("/w/k.py", 1, 1, 1, 1)).start == types.Position(line=0, character=0)
    assert convert.to_range(Location("/w/k.py", 0, 0, 0, 0)).start == types.Position(line=0, character=0)


def test_group_by_uri_uses_the_clients_uri_for_the_document() -> None:
    other = diag(location=Location("/w/tiles.py", 1, 1, 1, 2))
    grouped = convert.group_by_uri([diag(), other], uris={"/w/k.py": "file:///w/k%2Epy"})
    assert set(grouped) == {"file:///w/k%2Epy", "file:///w/tiles.py"}


def test_fix_actions_apply_the_carried_edits() -> None:
    d = convert.to_lsp(diag())
    (fix, suppress) = actions.code_actions("file:///w/k.py", "a\nb\nc = 1\n", [d])
    assert fix.title == "use nl.sequential_range" and fix.is_preferred
    assert fix.edit.changes["file:///w/k.py"][0].new_text == "nl.sequential_range"
    assert suppress.title == "suppress NKI401 on this line"
    assert suppress.edit.changes["file:///w/k.py"][0].new_text == "  # nki-verify: ignore[NKI401]"


def test_a_generic_fix_with_several_edits_in_several_files() -> None:
    edits = (TextEdit(Location("/w/k.py", 1, 1, 1, 4), "nki"), TextEdit(Location("/w/h.py", 2, 1, 2, 1), "x\n"))
    d = convert.to_lsp(diag(code="NKI602", fixes=(Fix("rewrite for Beta 2", edits),)))
    action = actions.code_actions("file:///w/k.py", "a\nb\nc\n", [d])[0]
    assert set(action.edit.changes) == {"file:///w/k.py", "file:///w/h.py"}


def test_suppression_joins_an_existing_comment() -> None:
    e = actions.suppression_edit("    x[i] = y  # nki-verify: ignore[NKI101]\n", 4, "NKI401")
    assert e.new_text == "# nki-verify: ignore[NKI101, NKI401]"
    assert (e.range.start.character, e.range.end.character) == (14, 42)
    e = actions.suppression_edit("x = '\U0001F600'   \n", 0, "NKI101")
    assert e.range.start.character == 8  # after the emoji's two UTF-16 units, trailing blanks replaced


def test_no_suppression_action_for_unused_suppressions() -> None:
    d = convert.to_lsp(diag(code="NKI903", fixes=(Fix("remove", (TextEdit(Location("/w/k.py", 3, 5, 3, 9), ""),)),)))
    titles = [a.title for a in actions.code_actions("file:///w/k.py", "a\nb\nc = 1\n", [d])]
    assert titles == ["remove"]


KERNEL = '''import nki

@nki.jit
def k(x):
    """Doc."""
    P, F = x.shape
    for i in range(2):
        t = x[0:P, 0:512]
    return t
'''


def test_assert_is_inserted_before_the_kernel_statement_that_needs_it() -> None:
    e = actions.assert_edit(KERNEL, "k", 7, "assert x.shape[1] >= 512")  # line 8 (0-based 7) is in the loop
    assert e.range.start == types.Position(line=6, character=0)  # before the `for` statement
    assert e.new_text == "    assert x.shape[1] >= 512\n"
    assert actions.assert_edit(KERNEL, "nope", 7, "assert 1") is None
    assert actions.assert_edit("def k(:\n", "k", 0, "assert 1") is None


@pytest.fixture(scope="module")
def bug():
    text = open(BUG).read()
    return text, analyze_source(text, BUG, Options()).ir


def _hover_at(bug, line: int, word: str) -> str | None:
    text, kernels = bug
    col = text.splitlines()[line].index(word) + 1
    return hover.hover_markdown(text, BUG, line, col, kernels)


def test_hover_on_a_tensor_shows_buffer_shape_and_dtype(bug) -> None:
    h = _hover_at(bug, 16, "a_tile")
    assert "a_tile: sbuf [128, a.shape[1]] a.dtype" in h and "symbolic shape" in h
    assert "shared_hbm" in _hover_at(bug, 14, "out")


def test_hover_on_a_loop_index_shows_its_range(bug) -> None:
    assert "i in range(0, a.shape[0] // 128 + 1)" in _hover_at(bug, 18, "i *")


def test_hover_on_an_isa_call_shows_its_spec(bug) -> None:
    h = _hover_at(bug, 20, "tensor_tensor")
    assert h.startswith("```python\nisa.tensor_tensor(") and "engine" in h


def test_hover_on_a_rule_code_in_a_suppression_comment() -> None:
    h = hover.hover_markdown("x = 1  # nki-verify: ignore[NKI101, nki401]\n", "/w/k.py", 0, 38, [])
    assert h.startswith("## NKI401 ") and "Documentation" in h
    assert hover.hover_markdown("x = 1  # NKI101\n", "/w/k.py", 0, 10, []) is None


def test_hover_without_an_analysis_still_knows_instructions() -> None:
    text = "import nki.isa as isa_ops\nisa_ops.nc_matmul(dst=a, stationary=b, moving=c)\n"
    h = hover.hover_markdown(text, "/w/k.py", 1, 10, [])
    assert h is not None and "nc_matmul" in h
    assert hover.hover_markdown(text, "/w/k.py", 5, 0, []) is None


def test_client_settings_parse_and_apply() -> None:
    s, problems = parse_settings({"nkiVerify": {"target": "trn1", "severity": {"NKI403": "error", "NKI901": "off",
                                                                              "NKI777": "error"}}})
    assert s == ClientSettings(target="trn1", severity=(("NKI403", "error"), ("NKI901", "off")))
    assert len(problems) == 1 and "NKI777" in problems[0]
    opts = s.apply(Options())
    assert opts.target == "trn1" and "target" in opts.explicit
    assert opts.severity == {"NKI403": "error"} and opts.ignore == ("NKI901",)
    assert parse_settings({"target": "trn9"})[1] and parse_settings("x")[1]
    assert ClientSettings().apply(Options()) == Options()


def test_config_cache_rereads_a_changed_file(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.nki-verify]\ntarget = "trn1"\n')
    cache = ConfigCache()
    assert cache.config_for(str(tmp_path / "k.py")).target == "trn1"
    (tmp_path / "pyproject.toml").write_text('[tool.nki-verify]\ntarget = "trn3"  # a longer file\n')
    assert cache.config_for(str(tmp_path / "k.py")).target == "trn3"
    (tmp_path / "pyproject.toml").write_text('[tool.nki-verify]\ntarget = "nope"  # broken, and longer still\n')
    with pytest.raises(ConfigProblem) as err:
        cache.config_for(str(tmp_path / "k.py"))
    assert err.value.path == str(tmp_path / "pyproject.toml")


def test_arguments() -> None:
    assert build_parser().parse_args([]).tcp is None
    assert _address("127.0.0.1:2087") == ("127.0.0.1", 2087) and _address(":9") == ("127.0.0.1", 9)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--stdio", "--tcp", "h:1"])
