"""The command line contract: formats, exit codes, options (docs/cli.md)."""

from __future__ import annotations

import json
import os

import pytest

from nki_verify.cli import UsageError, main, parse_grids, parse_shapes

from .cli_run import BAD, GOOD, KERNELS, run


def test_good_example_exits_zero() -> None:
    p = run(GOOD)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "No problems found" in p.stdout


def test_bad_example_exits_one_with_code_line_and_counterexample() -> None:
    p = run(BAD)
    assert p.returncode == 1, p.stdout
    first = p.stdout.splitlines()[0]
    assert "NKI101 error" in first and "tensor_add_bug.py:" in first
    assert "counterexample:" in p.stdout
    assert "^" in p.stdout  # code frame with carets


def test_check_is_the_default_command() -> None:
    assert run("check", BAD).stdout.splitlines()[:-1] == run(BAD).stdout.splitlines()[:-1]


def test_json_contract() -> None:
    p = run("--output-format", "json", BAD, GOOD)
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    assert doc["version"] == 1
    assert set(doc["summary"]) == {"files", "kernels", "errors", "warnings", "seconds"}
    assert doc["summary"]["files"] == 2
    d = doc["diagnostics"][0]
    for key in ("path", "line", "column", "end_line", "end_column", "code", "severity", "message", "kernel",
                "counterexample"):
        assert key in d
    assert d["line"] >= 1 and d["column"] >= 1
    assert isinstance(d["counterexample"], dict)


def test_usage_errors_exit_two(tmp_path) -> None:
    assert run("does/not/exist.py").returncode == 2
    assert run("--target", "trn9", GOOD).returncode == 2
    assert run("--shape", "nonsense", GOOD).returncode == 2
    bad = tmp_path / "latin1.py"
    bad.write_bytes(b"x = '\xe9'\n")
    p = run(str(bad))
    assert p.returncode == 2 and "not UTF-8" in p.stderr
    assert "Traceback" not in p.stderr


def test_directories_recurse() -> None:
    p = run("--output-format", "json", os.path.join(KERNELS, "pkg_two_modules"))
    doc = json.loads(p.stdout)
    assert doc["summary"]["files"] == 3
    assert any(d["path"].endswith("tiles.py") for d in doc["diagnostics"])


def test_shape_option_fixes_input_shapes() -> None:
    src = os.path.join(KERNELS, "b2_tail_tiles.py")
    p = run("--output-format", "json", "--shape", "scale_rows_unclamped.x=128x1024", "--kernel",
            "scale_rows_unclamped", src)
    doc = json.loads(p.stdout)
    assert doc["diagnostics"] == [] and p.returncode == 0
    p = run("--output-format", "json", "--shape", "scale_rows_unclamped.x=128x1000", "--kernel",
            "scale_rows_unclamped", src)
    doc = json.loads(p.stdout)
    assert p.returncode == 1 and {d["severity"] for d in doc["diagnostics"]} == {"error"}


def test_parse_shapes_and_grids() -> None:
    assert parse_shapes(["k.a=256x1024:bf16", "b=8"]) == {"k": {"a": ((256, 1024), "bfloat16")},
                                                          "*": {"b": ((8,), None)}}
    assert parse_grids(["k=2x2", "4"]) == {"k": (2, 2), "*": (4,)}
    with pytest.raises(UsageError):
        parse_shapes(["k.a=0x4"])
    with pytest.raises(UsageError):
        parse_shapes(["k.a=4:notadtype"])


def test_ir_command_dumps_the_understood_kernel() -> None:
    p = run("ir", GOOD)
    assert p.returncode == 0
    assert "kernel tensor_add" in p.stdout and "isa.dma_copy" in p.stdout and "affine_range" in p.stdout


def test_rule_command() -> None:
    p = run("rule", "NKI101")
    assert p.returncode == 0 and "out-of-bounds-access" in p.stdout and "Example" in p.stdout
    assert run("rule", "NKI000").returncode == 2
    assert "NKI902" in run("rule").stdout


def test_no_color_without_tty(capsys) -> None:
    main([BAD])
    out = capsys.readouterr().out
    assert "\033[" not in out


UNSTATED_SIZE = '''
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def blocks(a, b):
    n, m = a.shape
    out = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray((n, m), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b[0:n, 0:m])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out
'''


def test_text_digest_names_each_shared_precondition_once(tmp_path) -> None:
    # every tile spans a.shape[0] partitions: one unstated precondition behind several warnings, listed once
    # with the places it settles; the one-off suggestions (b at least as large as a) stay with their warnings
    path = tmp_path / "blocks.py"
    path.write_text(UNSTATED_SIZE)
    p = run(str(path))
    assert p.returncode == 0, p.stdout + p.stderr
    digest = p.stdout[p.stdout.index("Preconditions several warnings suggest"):].splitlines()
    assert digest[0].startswith("Preconditions several warnings suggest (1 condition behind 2 warnings)")
    assert digest[1].split() == ["assert", "a.shape[0]", "<=", "128", "2", "warnings", "in", "blocks:",
                                 "blocks.py:11,", "12"], digest
    assert digest[2] == ""  # (then the summary)
    assert run("--quiet", str(path)).stdout.count("Preconditions") == 0
    # a second kernel written for the same inputs relies on the same preconditions: each is named once, for both
    twice = UNSTATED_SIZE + UNSTATED_SIZE[UNSTATED_SIZE.index("@nki.jit"):].replace("def blocks(", "def blocks2(")
    path.write_text(twice)
    digest = run(str(path)).stdout.split("Preconditions several warnings suggest ")[1].splitlines()
    assert digest[0].startswith("(3 conditions behind 8 warnings)"), digest
    assert [line.split("  ")[1].strip() for line in digest[1:4]] == [
        "assert a.shape[0] <= 128", "assert a.shape[0] <= b.shape[0]", "assert a.shape[1] <= b.shape[1]"]
    assert digest[1].endswith("4 warnings in blocks, blocks2: blocks.py:11, 12, 22, 23"), digest
    # with the precondition stated, none is left to list
    path.write_text(UNSTATED_SIZE.replace("n, m = a.shape", "n, m = a.shape\n    assert n <= 128"))
    assert "Preconditions" not in run(str(path)).stdout
