"""Mechanical fixes (`--fix`, `--diff`): applied whole or not at all, idempotent, never to an unparsable file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from nki_verify import analyze_source
from nki_verify.diagnostics import Diagnostic, Fix, Location, TextEdit
from nki_verify.fixes import apply_fixes, fix_all, fixes_by_file

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(HERE, "kernels")


def edit(line: int, col: int, end_line: int, end_col: int, new: str, path: str = "/k.py") -> TextEdit:
    return TextEdit(Location(path, line, col, end_line, end_col), new)


def test_edits_use_one_based_exclusive_character_columns() -> None:
    text = "for i in nl.affine_range(4):\n    x = 'é' + y\n"
    out, n = apply_fixes(text, [Fix("seq", (edit(1, 10, 1, 25, "nl.sequential_range"),)),
                                Fix("y", (edit(2, 15, 2, 16, "z"),))])
    assert n == 2
    assert out == "for i in nl.sequential_range(4):\n    x = 'é' + z\n"


def test_identical_fixes_apply_once_and_overlapping_ones_wait() -> None:
    text = "abcdef\n"
    a = Fix("a", (edit(1, 1, 1, 3, "XY"),))
    out, n = apply_fixes(text, [a, a, Fix("b", (edit(1, 2, 1, 4, "Q"),))])
    assert (out, n) == ("XYcdef\n", 1)


def test_a_fix_is_applied_whole_or_not_at_all() -> None:
    text = "one\ntwo\nthree\n"
    first = Fix("first", (edit(2, 1, 2, 4, "TWO"),))
    both = Fix("both", (edit(1, 1, 1, 4, "ONE"), edit(2, 2, 2, 3, "W")))  # overlaps `first` on line 2
    out, n = apply_fixes(text, [first, both])
    assert (out, n) == ("one\nTWO\nthree\n", 1)


def test_deleting_a_trailing_comment_takes_its_blanks_and_an_emptied_line() -> None:
    text = "x = 1  # nki-verify: ignore[NKI101]\n# nki-verify: file-ignore[NKI4]\ny = 2\n"
    out, n = apply_fixes(text, [Fix("rm", (edit(1, 8, 1, 36, ""),)), Fix("rm", (edit(2, 1, 2, 32, ""),))])
    assert (out, n) == ("x = 1\ny = 2\n", 2)


def test_crlf_line_endings_are_kept() -> None:
    text = "a = 1\r\nfor i in nl.affine_range(2):\r\n    pass\r\n"
    out, _ = apply_fixes(text, [Fix("s", (edit(2, 10, 2, 25, "nl.sequential_range"),))])
    assert out == "a = 1\r\nfor i in nl.sequential_range(2):\r\n    pass\r\n"


def _diag(fix: Fix, path: str = "/k.py") -> Diagnostic:
    return Diagnostic("NKI401", "error", "m", Location(path, 1, 1, 1, 2), fixes=(fix,))


def test_files_that_do_not_parse_are_never_touched() -> None:
    broken = "def f(:\n    pass\n"
    outcome = fix_all([_diag(Fix("x", (edit(2, 5, 2, 9, "return"),)))], lambda p: broken, lambda changed: [])
    assert outcome.fixed == {} and outcome.refused == [("/k.py", "the file has a syntax error")]


def test_a_fix_that_would_break_the_syntax_is_refused() -> None:
    text = "x = f(1)\n"
    outcome = fix_all([_diag(Fix("x", (edit(1, 8, 1, 9, ""),)))], lambda p: text, lambda changed: [])
    assert outcome.fixed == {} and outcome.refused == [("/k.py", "the fixes would leave the file unparsable")]


def test_fix_all_repeats_until_nothing_applies() -> None:
    texts = {"/k.py": "aaa\n"}
    calls = []

    def reanalyse(changed: dict) -> list:
        calls.append(dict(changed))
        t = changed["/k.py"]
        i = t.find("a")  # one more finding per pass while an 'a' is left
        return [_diag(Fix("b", (edit(1, i + 1, 1, i + 2, "b"),)))] if i >= 0 else []

    outcome = fix_all(reanalyse({"/k.py": "aaa\n"}), texts.get, reanalyse)
    assert outcome.fixed == {"/k.py": "bbb\n"} and outcome.applied == 3


def test_verifier_fixes_for_nki401_and_nki403_remove_their_findings() -> None:
    for name, code in (("b1_dependencies.py", "NKI401"), ("b2_dependencies.py", "NKI403")):
        path = os.path.join(KERNELS, name)
        text = open(path, encoding="utf-8").read()
        diags = analyze_source(text, path).diagnostics
        by_file = fixes_by_file([d for d in diags if d.code == code])
        assert list(by_file) == [path]
        new, n = apply_fixes(text, by_file[path])
        assert n >= 1
        assert not [d for d in analyze_source(new, path).diagnostics if d.code == code], name


# ----------------------------------------------------------------------------- through the CLI


def _project(tmp_path) -> dict:
    """A throwaway project with kernels that carry fixes (NKI401, NKI403, NKI903) and one that does not parse."""
    files = {}
    for name in ("b1_dependencies.py", "b2_dependencies.py", "suppressions.py", "syntax_error.py"):
        shutil.copy(os.path.join(KERNELS, name), tmp_path / name)
        files[name] = (tmp_path / name).read_bytes()
    return files


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    from .cli_run import run

    return run("--no-cache", *args, cwd=str(cwd))


def test_diff_shows_the_fixes_and_changes_nothing(tmp_path) -> None:
    before = _project(tmp_path)
    p = _cli("--diff", ".", cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert "--- a/b1_dependencies.py\n+++ b/b1_dependencies.py\n" in p.stdout
    assert "-    for i in nl.affine_range(4):\n+    for i in nl.sequential_range(4):\n" in p.stdout
    assert "+        add_buf = nl.ndarray(shape=(128, 512), dtype=inp.dtype, buffer=nl.sbuf)\n" in p.stdout
    assert "-    nisa.dma_copy(dst=t, src=a)  # nki-verify: ignore[NKI101]  # expect: NKI903 warning\n" in p.stdout
    assert "syntax_error.py" not in p.stdout
    assert "Would fix 6 problems in 3 files." in p.stderr
    assert {n: (tmp_path / n).read_bytes() for n in before} == before
    assert _cli("--diff", "--exit-zero", ".", cwd=tmp_path).returncode == 0


def test_fix_applies_reports_what_remains_and_is_idempotent(tmp_path) -> None:
    before = _project(tmp_path)
    p = _cli("--fix", "--output-format", "json", ".", cwd=tmp_path)
    doc = json.loads(p.stdout)
    assert doc["summary"]["fixed"] == 6
    assert {d["code"] for d in doc["diagnostics"]} == {"NKI999"}  # all that is left: the file that does not parse
    assert p.returncode == 1
    b1 = (tmp_path / "b1_dependencies.py").read_text()
    assert b1.count("nl.affine_range") == 1 and b1.count("nl.sequential_range") == 3  # the `+=` loop stays
    supp = (tmp_path / "suppressions.py").read_text()
    assert "    nisa.dma_copy(dst=t, src=a)  # expect: NKI903 warning\n" in supp  # the unused suppression went
    assert supp.count("# nki-verify: ignore[NKI101]") == 2  # the used ones stay
    assert (tmp_path / "syntax_error.py").read_bytes() == before["syntax_error.py"]
    after = {n: (tmp_path / n).read_bytes() for n in before}
    again = _cli("--fix", ".", cwd=tmp_path)
    assert {n: (tmp_path / n).read_bytes() for n in before} == after
    assert "Fixed" not in again.stdout
    assert _cli("--diff", ".", cwd=tmp_path).returncode == 0


def test_deleting_between_blanks_keeps_one_run_of_blanks() -> None:
    text = "f(x)  # nki-verify: ignore[NKI101]  # a note\n"
    out, _ = apply_fixes(text, [Fix("rm", (edit(1, 7, 1, 35, ""),))])
    assert out == "f(x)  # a note\n"


def test_fix_follows_the_configuration_and_suppressions(tmp_path) -> None:
    """Only reported findings are fixed: a code the project ignores, or a suppressed finding, keeps its code."""
    shutil.copy(os.path.join(KERNELS, "b2_dependencies.py"), tmp_path / "k.py")
    (tmp_path / "pyproject.toml").write_text('[tool.nki-verify]\nignore = ["NKI403"]\n')
    p = _cli("--diff", ".", cwd=tmp_path)
    assert p.returncode == 1 and "+    for i in range(8):\n" in p.stdout and "add_buf" not in p.stdout
    text = (tmp_path / "k.py").read_text()
    suppressed = "data2=acc, op=nl.subtract)  # nki-verify: ignore[NKI401]"
    (tmp_path / "k.py").write_text(text.replace("data2=acc, op=nl.subtract)  # expect: NKI401 warning", suppressed))
    _cli("--fix", ".", cwd=tmp_path)
    fixed = (tmp_path / "k.py").read_text()
    assert suppressed in fixed and fixed.count("for i in nl.affine_range(8):") == 3  # suppressed: not fixed
    assert "for i in range(P // 128 - 1):" in fixed and "add_buf = nl.ndarray(shape=(128, 512), dtype=inp.dtype, " \
        "buffer=nl.sbuf)  # expect: NKI403 warning" in fixed  # ignored by the configuration: not fixed
