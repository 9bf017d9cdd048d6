"""Configuration files: discovery, validation, merging under CLI flags, select/ignore, per-file ignores."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from nki_verify import Options, verify_source
from nki_verify.config import Config, ConfigError, find_config, find_config_file, load_config, parse_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUG = os.path.join(ROOT, "examples", "tensor_add_bug.py")


def write(path: str, text: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


def test_nearest_pyproject_with_a_section_wins(tmp_path) -> None:
    write(str(tmp_path / "pyproject.toml"), '[tool.nki-verify]\ntarget = "trn1"\n')
    write(str(tmp_path / "pkg" / "pyproject.toml"), '[project]\nname = "x"\n')  # no section: skipped
    kernel = write(str(tmp_path / "pkg" / "k.py"), "x = 1\n")
    assert find_config_file(kernel) == str(tmp_path / "pyproject.toml")
    assert find_config(kernel).target == "trn1"


def test_nki_verify_toml_is_read_at_top_level(tmp_path) -> None:
    p = write(str(tmp_path / "nki-verify.toml"), 'ignore = ["NKI4"]\nsolver-timeout = 250\n')
    c = load_config(p)
    assert c.ignore == ("NKI4",) and c.solver_timeout_ms == 250


@pytest.mark.parametrize("table, fragment", [
    ({"targett": "trn2"}, "unknown key 'targett'"),
    ({"target": "trn9"}, "'trn9' is not a target"),
    ({"ignore": ["NKI777"]}, "'NKI777' is not a rule code"),
    ({"select": ["E501"]}, "'E501' is not a rule code"),
    ({"severity": {"NKI403": "fatal"}}, "is not \"error\" or \"warning\""),
    ({"shapes": {"k": {"a": [128, 0]}}}, "dimensions must be positive"),
    ({"shapes": {"k": {"a": [128, "float33"]}}}, "'float33' is not an NKI dtype"),
    ({"solver-timeout": -1}, "must be a positive integer"),
    ({"search-path": "vendor"}, "must be a list of directories"),
])
def test_bad_configuration_is_a_clear_error(table: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_table(table, "pyproject.toml", "[tool.nki-verify]")
    assert fragment in str(exc.value) and "pyproject.toml" in str(exc.value)


def test_search_path_entries_are_relative_to_the_file(tmp_path) -> None:
    p = write(str(tmp_path / "nki-verify.toml"), 'search-path = ["../vendor", "/opt/lib"]\n')
    c = load_config(p)
    assert c.search_path == (os.path.normpath(str(tmp_path / ".." / "vendor")), "/opt/lib")
    assert c.options(Options(search_path=("/mine",))).search_path == ("/mine",) + c.search_path


def test_explicit_options_win_over_the_file() -> None:
    c = parse_table({"target": "trn1", "solver-timeout": 50, "shapes": {"k": {"a": [256, 512]}}})
    merged = c.options(Options())
    assert merged.target == "trn1" and merged.target_explicit and merged.solver_timeout_ms == 50
    assert merged.shapes == {"k": {"a": ((256, 512), None)}}
    mine = Options(target="trn3", target_explicit=True, solver_timeout_ms=10, explicit=frozenset({"target",
                                                                                                  "solver_timeout_ms"}))
    merged = c.options(mine)
    assert merged.target == "trn3" and merged.solver_timeout_ms == 10


def test_select_and_ignore_use_the_longest_prefix() -> None:
    o = Options(select=("NKI1", "NKI401"), ignore=("NKI10",))
    assert o.reports("NKI401") and not o.reports("NKI402")
    assert not o.reports("NKI101") and not o.reports("NKI102")
    o = Options(ignore=("NKI1",), extend_select=("NKI101",))
    assert o.reports("NKI101") and not o.reports("NKI102") and o.reports("NKI401")


def test_ignore_and_severity_apply_to_diagnostics() -> None:
    text = open(BUG).read()
    base = verify_source(text, BUG)
    assert {d.code for d in base} == {"NKI101"}
    assert verify_source(text, BUG, Options(ignore=("NKI1",))) == []
    warned = verify_source(text, BUG, Options(severity={"NKI101": "warning"}))
    assert warned and all(d.severity == "warning" for d in warned)


def test_per_file_ignores_and_exclude(tmp_path) -> None:
    c = parse_table({"per-file-ignores": {"legacy/*.py": ["NKI101"]}, "exclude": ["build", "gen/**"]},
                    str(tmp_path / "nki-verify.toml"))
    assert c.ignores_for(str(tmp_path / "legacy" / "k.py")) == ("NKI101",)
    assert c.ignores_for(str(tmp_path / "src" / "k.py")) == ()
    assert c.is_excluded(str(tmp_path / "build" / "k.py"))
    assert c.is_excluded(str(tmp_path / "gen" / "a" / "k.py"))
    assert not c.is_excluded(str(tmp_path / "src" / "k.py"))


def test_cli_reads_the_project_configuration(tmp_path) -> None:
    kernel = write(str(tmp_path / "proj" / "kernels" / "bug.py"), open(BUG).read())
    run = [sys.executable, "-m", "nki_verify.cli", kernel]
    p = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1 and "NKI101" in p.stdout
    write(str(tmp_path / "proj" / "pyproject.toml"), '[tool.nki-verify]\nignore = ["NKI101"]\n')
    p = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and "NKI101" not in p.stdout, p.stdout
    p = subprocess.run(run + ["--isolated"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1
    write(str(tmp_path / "proj" / "pyproject.toml"), '[tool.nki-verify]\nignroe = ["NKI101"]\n')
    p = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2 and "unknown key 'ignroe'" in p.stderr


def test_defaults_are_neutral() -> None:
    assert Config().options(Options()) == Options()
