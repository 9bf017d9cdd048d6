"""The pre-commit hook works as a pre-commit user gets it, and the CI recipes in docs/ci.md use real flags."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

from nki_verify.cli import build_parser

from .cli_run import BAD, GOOD, ROOT

CI_DOC = os.path.join(ROOT, "docs", "ci.md")


def _git(cwd, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_pre_commit_hook_on_a_throwaway_repo(tmp_path) -> None:
    """`pre-commit try-repo` installs this checkout as pre-commit would install the hook from GitHub (its
    .pre-commit-hooks.yaml, a fresh virtualenv, `pip install .`) and runs it on a repository's files."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(BAD, project / "bad.py")
    shutil.copy(GOOD, project / "good.py")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    env.pop("NKI_VERIFY_CACHE_DIR", None)
    _git(project, "init", "-q")
    _git(project, "add", ".")

    def hook(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", ROOT, "nki-verify", "--files", *files],
                              cwd=project, env=env, capture_output=True, text=True, timeout=600)

    p = hook("bad.py", "good.py")
    assert p.returncode == 1, p.stdout + p.stderr
    assert re.search(r"^nki-verify\.+Failed$", p.stdout, re.M)
    assert "bad.py:19:41: NKI101 error" in p.stdout and "good.py:" not in p.stdout
    p = hook("good.py")
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"^nki-verify\.+Passed$", p.stdout, re.M)


def test_the_documented_pre_commit_config_is_valid(tmp_path) -> None:
    text = open(CI_DOC, encoding="utf-8").read()
    block = text.split("```yaml\nrepos:")[1].split("```")[0]
    cfg = tmp_path / ".pre-commit-config.yaml"
    cfg.write_text("repos:" + block)
    assert len(block.strip().splitlines()) == 3  # three lines
    p = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(cfg)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_ci_recipes_use_real_flags() -> None:
    text = open(CI_DOC, encoding="utf-8").read()
    parser = build_parser()
    commands = re.findall(r"run: (nki-verify [^\n]+)", text)
    assert len(commands) == 2
    for cmd in commands:
        assert parser.parse_args(["check", *shlex.split(cmd)[1:]]).paths == ["kernels/"]
    fragments = re.findall(r"`(--[a-z-]+(?: [^`-][^`]*)?)`", text)
    assert len(fragments) >= 5
    for frag in fragments:
        parser.parse_args(["check", "kernels/", *shlex.split(frag.replace(" N", " 2"))])
