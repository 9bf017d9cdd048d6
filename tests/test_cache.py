"""The result cache (.nki_verify_cache/) and the worker processes (`--jobs`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from nki_verify.cache import Cache, diagnostic_from_json, diagnostic_to_json
from nki_verify.diagnostics import Diagnostic, Fix, Location, Note, TextEdit
from nki_verify.options import Options
from nki_verify.report import FileResult
from nki_verify.runner import TASK_FILES, Job, _has_kernels, next_offer, offer_size, run_jobs, schedule

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(HERE, "kernels")
PKG = os.path.join(KERNELS, "pkg_two_modules")


def test_diagnostics_round_trip_through_json() -> None:
    loc = Location("/k.py", 3, 5, 3, 9)
    d = Diagnostic("NKI401", "error", "m", loc, "k", (("i_1", 0), ("a.shape[0]", 128)), "assert x",
                   (Note(Location("/k.py", 1, 1, 1, 4), "the loop"),),
                   (Fix("use range", (TextEdit(loc, "range"),)),))
    back = diagnostic_from_json(json.loads(json.dumps(diagnostic_to_json(d))))
    assert back == d


def test_cache_directory_is_tagged_and_ignored(tmp_path) -> None:
    cache = Cache(str(tmp_path / ".nki_verify_cache"))
    key = cache.key("/k.py", "text", Options())
    cache.put(key, FileResult("/k.py", [], 1), [])
    d = tmp_path / ".nki_verify_cache"
    assert (d / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (d / ".gitignore").read_text().splitlines()[-1] == "*"
    hit = cache.get(key)
    assert hit is not None and hit.cached and hit.kernels == 1


def test_key_covers_contents_path_and_options(tmp_path) -> None:
    cache = Cache(str(tmp_path))
    base = cache.key("/k.py", "text", Options())
    assert base == cache.key("/k.py", "text", Options(explicit=frozenset({"target"})))
    assert base != cache.key("/k.py", "text2", Options())
    assert base != cache.key("/j.py", "text", Options())
    assert base != cache.key("/k.py", "text", Options(target="trn1"))
    # an explicit --target turns NKI503 warnings into errors: the same target, another result
    assert base != cache.key("/k.py", "text", Options(target_explicit=True))
    shapes = {"k": {"a": ((128, 512), None), "b": ((128, 512), "float32")}}
    reordered = {"k": dict(reversed(list(shapes["k"].items())))}
    assert cache.key("/k.py", "t", Options(shapes=shapes)) == cache.key("/k.py", "t", Options(shapes=reordered))


def test_an_entry_is_stale_once_an_imported_module_changes(tmp_path) -> None:
    dep = tmp_path / "helper.py"
    dep.write_text("ROWS = 128\n")
    cache = Cache(str(tmp_path / "c"))
    cache.put("k" * 64, FileResult("/k.py", [], 1), ["/k.py", str(dep)])
    assert cache.get("k" * 64) is not None
    dep.write_text("ROWS = 256\n")
    assert cache.get("k" * 64) is None


def test_undecided_results_are_not_cached(tmp_path) -> None:
    cache = Cache(str(tmp_path))
    undecided = Diagnostic("NKI901", "warning", "undecided", Location("/k.py", 1, 1, 1, 2))
    cache.put("u" * 64, FileResult("/k.py", [undecided], 1), [])
    assert cache.get("u" * 64) is None


def test_entries_of_other_verifier_versions_are_pruned(tmp_path) -> None:
    stale = tmp_path / "0123456789abcdef"
    stale.mkdir()
    (tmp_path / "keep-me").mkdir()
    cache = Cache(str(tmp_path))
    cache.put("a" * 64, FileResult("/k.py", [], 0), [])
    assert not stale.exists() and (tmp_path / "keep-me").exists()


def _jobs(paths: list) -> list:
    return [Job(p, open(p, encoding="utf-8").read(), Options()) for p in paths]


def test_worker_processes_give_the_results_of_one_process(tmp_path) -> None:
    # every file of a run of several in a process of its own: its findings, counterexamples included, are
    # those of the file alone, whatever the number of workers and the order files reach them in
    paths = [os.path.join(KERNELS, n) for n in ("b1_dependencies.py", "b2_memory.py", "b2_tail_tiles.py")]
    one = run_jobs(_jobs(paths), 1, None, progress=False)
    two = run_jobs(_jobs(paths), 2, None, progress=False)
    assert [r.diagnostics for r in one] == [r.diagnostics for r in two] and any(r.diagnostics for r in one)
    alone = [run_jobs(_jobs([p]), 2, None, progress=False)[0] for p in paths]
    assert [r.diagnostics for r in alone] == [r.diagnostics for r in one]
    assert [r.path for r in two] == paths
    cache = Cache(str(tmp_path))
    cold = run_jobs(_jobs(paths), 2, cache, progress=False)
    warm = run_jobs(_jobs(paths), 2, cache, progress=False)
    assert [r.diagnostics for r in warm] == [r.diagnostics for r in cold] and all(r.cached for r in warm)


def test_the_last_files_are_shared_between_the_free_workers() -> None:
    # a long run offers whole chunks; what is left at the end is split so that no worker idles while another
    # goes through several solver files alone
    assert offer_size(173, 2) == TASK_FILES
    assert offer_size(9, 2) == 5 and offer_size(4, 2) == 2 and offer_size(1, 2) == 1
    assert offer_size(9, 1) == 9 and offer_size(5, 3) == 2


def test_a_worker_is_offered_files_up_to_the_first_with_kernels() -> None:
    # it stops at the first file that runs the solver: files offered after a kernel file would wait for it
    kernels = [False, False, True, True, False]
    assert next_offer([0, 1, 2, 3, 4], kernels, 1) == 3
    assert next_offer([3, 4], kernels, 1) == 1
    assert next_offer([0, 1, 4], kernels, 1) == 3
    assert next_offer([0, 1, 4], kernels, 2) == 2  # (and shared as before)
    assert _has_kernels("@nki.jit\ndef k(x): ...") and not _has_kernels("def helper(x): return x")


def test_a_small_kernel_file_that_imports_much_of_the_project_is_offered_first(tmp_path) -> None:
    # the work of an analysis is in the project modules it reaches through imports, not in its own text
    pkg = tmp_path / "pkg"
    (pkg / "utils").mkdir(parents=True)
    for d in (pkg, pkg / "utils"):
        (d / "__init__.py").write_text("")
    (pkg / "utils" / "tiles.py").write_text("import nki.language as nl\n" + "# helper\n" * 4000)
    (pkg / "utils" / "more.py").write_text("from . import tiles\n" + "# more\n" * 2000)
    texts = {
        "big.py": "import nki\n@nki.jit\ndef big(x):\n" + "    pass\n" * 3000,
        "small.py": "import nki\nfrom .utils.more import *\n@nki.jit\ndef small(x):\n    pass\n",
        "helper.py": "def helper(x):\n" + "    pass\n" * 9000,
        "deep.py": "import nki\nfrom pkg.utils import more\n@nki.jit\ndef deep(x):\n    from .utils import tiles\n",
    }
    jobs = []
    for name, text in texts.items():
        (pkg / name).write_text(text)
        jobs.append(Job(str(pkg / name), text, Options()))
    order = [os.path.basename(jobs[k].path) for k in schedule(jobs, [_has_kernels(j.text) for j in jobs])]
    # deep.py reaches more.py and tiles.py (absolute and in-function imports), small.py more.py and, through it,
    # tiles.py; big.py only itself; the helper file, without kernels, last
    assert order[2:] == ["big.py", "helper.py"] and set(order[:2]) == {"deep.py", "small.py"}
    assert len(texts["small.py"]) < len(texts["big.py"])


# ----------------------------------------------------------------------------- through the CLI


def _cli(*args: str, cwd: str = ROOT, **env: str) -> subprocess.CompletedProcess:
    from .cli_run import run

    return run(*args, cwd=cwd, **env)


def test_cli_cache_at_the_project_root_gives_the_same_report(tmp_path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PKG, project / "kernels")
    (project / "pyproject.toml").write_text("[tool.nki-verify]\ntarget = \"trn2\"\n")
    sub = project / "kernels"
    env = {"NKI_VERIFY_CACHE_DIR": ""}
    cold = _cli("--output-format", "json", "--jobs", "2", ".", cwd=str(sub), **env)
    cache = project / ".nki_verify_cache"
    assert (cache / "CACHEDIR.TAG").is_file() and (cache / ".gitignore").is_file()
    warm = _cli("--output-format", "json", ".", cwd=str(sub), **env)
    strip = lambda p: {**json.loads(p.stdout), "summary": None}  # noqa: E731 - the seconds differ
    assert strip(cold) == strip(warm) and json.loads(warm.stdout)["diagnostics"]
    # editing the imported module invalidates the importer's entry
    tiles = sub / "tiles.py"
    tiles.write_text(tiles.read_text().replace("+ 1:(row + 1) * TILE_P + 1", ":(row + 1) * TILE_P"))
    edited = _cli("--output-format", "json", ".", cwd=str(sub), **env)
    assert json.loads(edited.stdout)["diagnostics"] == []


def test_no_cache_writes_nothing(tmp_path) -> None:
    shutil.copy(os.path.join(KERNELS, "b1_dependencies.py"), tmp_path / "k.py")
    p = _cli("--no-cache", "k.py", cwd=str(tmp_path), NKI_VERIFY_CACHE_DIR="")
    assert p.returncode == 1 and sorted(os.listdir(tmp_path)) == ["k.py"]
    p = _cli("--cache-dir", str(tmp_path / "c"), "k.py", cwd=str(tmp_path))
    assert p.returncode == 1 and (tmp_path / "c" / "CACHEDIR.TAG").is_file()
