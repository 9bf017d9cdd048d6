"""Every output format end to end through the CLI (a subprocess), and the exit-status flags."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from nki_verify import rules
from nki_verify.diagnostics import Diagnostic, Location
from nki_verify.report import github

from .cli_run import BAD, GOOD, KERNELS, ROOT, env, run

# the official SARIF 2.1.0 schema (OASIS, sarif-spec/Schemata/sarif-schema-2.1.0.json), kept with the tests so
# that the check runs on any clean clone
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sarif-schema-2.1.0.json")
WARNINGS_ONLY = os.path.join(KERNELS, "b2_dependencies.py")  # NKI401/NKI403 warnings, no error
FIXABLE = os.path.join(KERNELS, "b1_dependencies.py")


# ----------------------------------------------------------------------------- text


def test_text_has_code_frames_counterexamples_and_a_summary() -> None:
    p = run(BAD)
    assert p.returncode == 1
    assert re.search(r"^examples/tensor_add_bug\.py:19:41: NKI101 error: ", p.stdout, re.M)
    assert re.search(r"^19 \|         nisa\.dma_copy\(dst=a_tile, src=a\[i \* 128", p.stdout, re.M)
    assert re.search(r"^   \| {41}\^{21}$", p.stdout, re.M)  # carets under the slice, from column 41
    assert "= counterexample: a.shape[0] = 128, b.shape[0] = 128, i = 1" in p.stdout
    assert p.stdout.splitlines()[-1].startswith("Found 3 errors and 0 warnings in 1 file (1 kernel analysed)")
    assert "\033[" not in p.stdout


def _on_a_tty(*args: str, **extra_env: str) -> tuple:
    """Run the CLI with stdout and stderr on a pseudo-terminal; (exit code, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "nki_verify.cli", *args], stdout=slave, stderr=slave,
                            stdin=subprocess.DEVNULL, cwd=ROOT, env={k: v for k, v in env(**extra_env).items()
                                                                   if not (k == "NO_COLOR" and "NO_COLOR" not in
                                                                           extra_env)})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(), b"".join(chunks).decode("utf-8", "replace")


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    code, shown = _on_a_tty(BAD)
    assert code == 1 and "\033[1;31mNKI101 error:" in shown
    code, shown = _on_a_tty(BAD, NO_COLOR="1")
    assert code == 1 and "NKI101 error:" in shown and "\033[" not in shown


def test_progress_bar_on_a_terminal_only(tmp_path) -> None:
    code, shown = _on_a_tty("--no-cache", "--jobs", "1", os.path.join(KERNELS, "pkg_two_modules"), GOOD)
    assert code == 1 and re.search(r"nki-verify: +\d+%\|", shown), shown  # tqdm's bar
    p = run("--no-cache", "--jobs", "1", os.path.join(KERNELS, "pkg_two_modules"), GOOD)
    assert p.stderr == ""


# ----------------------------------------------------------------------------- exit status and output control


def test_fail_on_and_exit_zero() -> None:
    assert run(WARNINGS_ONLY).returncode == 0
    assert run("--fail-on", "warning", WARNINGS_ONLY).returncode == 1
    assert run("--fail-on", "warning", GOOD).returncode == 0
    assert run("--fail-on", "never", BAD).returncode == 0
    assert run("--exit-zero", BAD).returncode == 0
    assert run("--exit-zero", "does/not/exist.py").returncode == 2  # usage errors still fail
    assert run("--fail-on", "sometimes", GOOD).returncode == 2


def test_quiet_prints_findings_and_nothing_else() -> None:
    p = run("--quiet", GOOD)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = run("-q", BAD)
    assert p.returncode == 1 and "NKI101 error" in p.stdout and "Found" not in p.stdout


def test_statistics_count_per_code() -> None:
    p = run("--statistics", BAD, FIXABLE)
    lines = p.stdout.splitlines()
    assert p.returncode == 1
    assert re.fullmatch(r"3  NKI101      out-of-bounds-access", lines[0])
    assert re.fullmatch(r"2  NKI401  \[\*\] affine-loop-carried-dependency", lines[1])  # [*]: fixable
    assert lines[-1].startswith("Found 5 errors")
    doc = json.loads(run("--statistics", "--output-format", "json", BAD, FIXABLE).stdout)
    assert doc["statistics"] == [
        {"code": "NKI101", "name": "out-of-bounds-access", "count": 3, "fixable": 0},
        {"code": "NKI401", "name": "affine-loop-carried-dependency", "count": 2, "fixable": 2}]
    assert run("--statistics", "--output-format", "sarif", BAD).returncode == 2


def test_output_file(tmp_path) -> None:
    out = tmp_path / "report.json"
    p = run("--output-format", "json", "-o", str(out), BAD)
    assert p.returncode == 1 and p.stdout == ""
    assert json.loads(out.read_text())["summary"]["errors"] == 3


# ----------------------------------------------------------------------------- SARIF


def _sarif(*paths: str) -> dict:
    p = run("--output-format", "sarif", *paths)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_sarif_is_valid_against_the_official_schema() -> None:
    import jsonschema

    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    doc = _sarif(BAD, FIXABLE, WARNINGS_ONLY, os.path.join(KERNELS, "syntax_error.py"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft7Validator)
    assert len(doc["runs"][0]["results"]) > 5


def test_sarif_rules_carry_help_and_results_carry_regions() -> None:
    doc = _sarif(BAD, FIXABLE)
    (run_,) = doc["runs"]
    assert doc["version"] == "2.1.0" and run_["columnKind"] == "unicodeCodePoints"
    driver = run_["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == sorted(rules.RULES)
    r101 = next(r for r in driver["rules"] if r["id"] == "NKI101")
    assert r101["helpUri"] == rules.RULES["NKI101"].help_uri
    assert r101["help"]["text"] == rules.RULES["NKI101"].text()
    assert r101["help"]["markdown"] == rules.RULES["NKI101"].markdown()
    assert r101["defaultConfiguration"]["level"] == "error"
    first = run_["results"][0]
    assert first["ruleId"] == "NKI101" and driver["rules"][first["ruleIndex"]]["id"] == "NKI101"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "examples/tensor_add_bug.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 19, "startColumn": 41, "endLine": 19, "endColumn": 62}
    assert first["properties"]["counterexample"] == {"a.shape[0]": 128, "b.shape[0]": 128, "i": 1}
    fixed = next(r for r in run_["results"] if r["ruleId"] == "NKI401")
    (change,) = fixed["fixes"][0]["artifactChanges"]
    assert change["replacements"][0]["insertedContent"]["text"] == "nl.sequential_range"


# ----------------------------------------------------------------------------- GitHub


ANNOTATION = re.compile(r"^::(error|warning) file=([^,]+),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),"
                        r"title=(NKI\d{3})::(.+)$")


def test_github_annotations() -> None:
    p = run("--output-format", "github", BAD, WARNINGS_ONLY)
    lines = p.stdout.splitlines()
    assert p.returncode == 1 and len(lines) == 6
    parsed = [ANNOTATION.match(line) for line in lines]
    assert all(parsed), lines
    assert parsed[0].groups()[:7] == ("error", "examples/tensor_add_bug.py", "19", "41", "19", "62", "NKI101")
    assert "%0Acounterexample: a.shape[0] = 128" in parsed[0].group(8)
    assert {m.group(1) for m in parsed[3:]} == {"warning"}


def test_github_escaping_follows_the_actions_toolkit() -> None:
    d = Diagnostic("NKI101", "error", "100% wrong\nsecond line", Location("/w/a,b:c.py", 3, 1, 3, 5))
    assert github.annotation(d, "/w") == \
        "::error file=a%2Cb%3Ac.py,line=3,col=1,endLine=3,endColumn=5,title=NKI101::100%25 wrong%0Asecond line"


# ----------------------------------------------------------------------------- JUnit


def test_junit_xml() -> None:
    p = run("--output-format", "junit", BAD, GOOD, FIXABLE)
    root = ET.fromstring(p.stdout)
    assert p.returncode == 1 and root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("6", "5")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["examples/tensor_add_bug.py", "examples/tensor_add.py",
                                               "tests/kernels/b1_dependencies.py"]
    assert [s.get("failures") for s in suites] == ["3", "0", "2"]
    case = suites[0].find("testcase")
    failure = case.find("failure")
    assert case.get("name") == "NKI101 tensor_add_bug:19:41" and failure.get("type") == "NKI101 error"
    assert "counterexample: a.shape[0] = 128" in failure.text
    assert suites[1].find("testcase").find("failure") is None


def test_a_file_named_twice_is_analysed_once() -> None:
    doc = json.loads(run("--output-format", "json", BAD, BAD, os.path.dirname(BAD)).stdout)
    assert doc["summary"]["files"] == 3 and doc["summary"]["errors"] == 3  # examples/ holds three files
