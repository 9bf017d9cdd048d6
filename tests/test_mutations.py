"""benchmarks/mutations.py: a saved sample replays the same mutants (how two trees are compared fairly)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "mutations.py")


def _run(*args: str) -> dict:
    out = subprocess.run([sys.executable, SCRIPT, *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_saved_sample_replays_the_same_mutants(tmp_path) -> None:
    corpus = tmp_path / "kernels"
    corpus.mkdir()
    for name in ("b2_tensor_add.py", "b2_matmul.py", "b2_loop_state.py"):
        shutil.copy(os.path.join(ROOT, "tests", "kernels", name), corpus / name)
    sample = tmp_path / "sample.json"
    first = _run(str(corpus), "--per-class", "3", "--save-mutants", str(sample))
    saved = json.loads(sample.read_text())
    # (these are Beta 2 kernels: a sequential_range made affine_range is of the class reported apart, since
    # affine_range is range there, and not in the total)
    classes = {m["cls"] for m in saved}
    assert classes <= {"off_by_one", "tile_past_128", "psum_wide", "seq_to_affine_b2"}
    assert len([m for m in saved if m["cls"] != "seq_to_affine_b2"]) == first["mutants"] > 0
    assert all(m["path"].startswith("kernels" + os.sep) for m in saved)
    # another seed would draw another sample; the replay ignores it and measures exactly the saved mutants
    again = _run(str(corpus), "--seed", "7", "--mutants", str(sample))
    assert again["mutants"] == first["mutants"] and again["caught"] == first["caught"]
    assert {c: (r["mutants"], r["caught"]) for c, r in again["classes"].items()} == \
        {c: (r["mutants"], r["caught"]) for c, r in first["classes"].items()}
    # the corpus itself is never modified
    for name in ("b2_tensor_add.py", "b2_matmul.py", "b2_loop_state.py"):
        assert (corpus / name).read_text() == open(os.path.join(ROOT, "tests", "kernels", name)).read()
