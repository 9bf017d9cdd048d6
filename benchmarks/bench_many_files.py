"""Many files: wall time of `nki-verify` on a synthetic repository of kernel files, cold and warm cache,
with --jobs 1 and 2, and the per-file analysis time.

    python benchmarks/bench_many_files.py [--files 500] [--jobs 1,2] [--repeat 3] [--keep DIR] [--json]

The repository is generated (deterministically) in a temporary directory: a pyproject.toml with a
[tool.nki-verify] table (so the cache lands at its root), a shared helper module half of the kernels
import, and kernel files in both NKI dialects, a fifth of them with a bug.  Each configuration starts
from an empty cache (cold), then runs again on the cache it wrote (warm).  The per-file times come from
the JUnit report of the cold --jobs 1 run (its `time` per test suite is the file's analysis time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HELPER = '''"""Shared tiling constants and a helper the kernels import."""
TILE_P = 128


def row_tiles(rows):
    return rows // TILE_P
'''

BETA2 = '''"""Synthetic kernel {n}: row-tiled {op} of two [{rows}, {cols}] tensors (Beta 2)."""
import nki
import nki.isa as nisa
import nki.language as nl
{imp}

@nki.jit
def kernel_{n}(a, b):
    P, F = a.shape
    assert a.shape == b.shape and F == {cols}
    assert P % 128 == 0
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range({trips}):
        a_t = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        b_t = nl.ndarray((128, F), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_t, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=b_t, src=b[i * 128:(i + 1) * 128, :])
        nisa.tensor_tensor(dst=a_t, data1=a_t, data2=b_t, op=nl.{op})
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=a_t)
    return out


if __name__ == "__main__":
    import numpy as np

    x = np.zeros(({rows}, {cols}), dtype=np.float32)
    kernel_{n}(x, x)
'''

BETA1 = '''"""Synthetic kernel {n}: the SPMD tensor add of the tutorial on a [{rows}, {cols}] input (Beta 1)."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel_{n}(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.program_id(1) * {tile} + nl.arange({tile})[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    nl.store(c_output[ix, iy], value=a_tile + b_tile)
    return c_output


if __name__ == "__main__":
    a = np.zeros(({rows}, {cols}), dtype=np.float16)
    kernel_{n}[{gx}, {gy}](a, a)
'''


def kernel_source(n: int) -> str:
    rows = 128 * (1 + n % 4)
    bug = n % 5 == 4  # one file in five loads one tile too many / launches one program too many
    if n % 2:
        cols = 512 * (1 + n % 2)
        gy = cols // 512 + (1 if bug else 0)
        return BETA1.format(n=n, rows=rows, cols=cols, tile=512, gx=rows // 128, gy=gy)
    uses_helper = n % 4 == 0
    trips = ("row_tiles(P)" if uses_helper else "P // 128") + (" + 1" if bug else "")
    imp = "\nfrom helpers import row_tiles\n" if uses_helper else ""
    return BETA2.format(n=n, rows=rows, cols=256 * (1 + n % 3), op=("add", "multiply", "subtract")[n % 3],
                        trips=trips, imp=imp)


def make_repo(root: str, n_files: int) -> None:
    os.makedirs(os.path.join(root, "kernels"), exist_ok=True)
    with open(os.path.join(root, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write('[project]\nname = "synthetic-kernels"\nversion = "0"\n\n[tool.nki-verify]\ntarget = "trn2"\n')
    with open(os.path.join(root, "kernels", "helpers.py"), "w", encoding="utf-8") as f:
        f.write(HELPER)
    for n in range(n_files):
        with open(os.path.join(root, "kernels", f"k{n:04d}.py"), "w", encoding="utf-8") as f:
            f.write(kernel_source(n))


def cli(root: str, *args: str) -> tuple:
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=ROOT)
    env.pop("NKI_VERIFY_CACHE_DIR", None)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "nki_verify.cli", *args, "kernels"], cwd=root, env=env,
                       capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"nki-verify failed ({p.returncode}): {p.stderr}")
    return seconds, p.stdout


def per_file_seconds(junit_xml: str) -> list:
    return [float(s.get("time")) for s in ET.fromstring(junit_xml).iter("testsuite")]


SPIN = "import time\nt = time.perf_counter()\nx = 0\nfor i in range(10_000_000):\n    x += i\n" \
       "print(time.perf_counter() - t)"


def parallel_capacity() -> float:
    """How much faster two CPU-bound processes finish together than one after the other (2.0: two free cores)."""
    def spin(n: int) -> float:
        t0 = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL) for _ in range(n)]
        for p in procs:
            p.wait()
        return time.perf_counter() - t0

    one = spin(1)
    return round(2 * one / spin(2), 2)


def bench(root: str, jobs: list, repeat: int) -> dict:
    out: dict = {"runs": [], "parallel_capacity": parallel_capacity()}
    cache = os.path.join(root, ".nki_verify_cache")
    for j in jobs:
        colds, warms = [], []
        for _ in range(repeat):
            shutil.rmtree(cache, ignore_errors=True)
            cold, report = cli(root, "--jobs", str(j), "--output-format", "junit")
            warm, _ = cli(root, "--jobs", str(j), "--output-format", "junit")
            colds.append(cold)
            warms.append(warm)
        out["runs"].append({"jobs": j, "cold_s": round(statistics.median(colds), 2),
                            "warm_s": round(statistics.median(warms), 2),
                            "cold_all_s": [round(c, 2) for c in colds], "warm_all_s": [round(w, 2) for w in warms]})
        if j == jobs[0]:
            times = per_file_seconds(report)
            root_el = ET.fromstring(report)
            out["files"] = len(times)
            out["findings"] = int(root_el.get("failures"))
            out["per_file_ms"] = {"median": round(statistics.median(times) * 1000, 1),
                                  "p90": round(sorted(times)[int(len(times) * 0.9)] * 1000, 1),
                                  "max": round(max(times) * 1000, 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--jobs", default="1,2", help="comma-separated worker counts to time")
    ap.add_argument("--repeat", type=int, default=3, help="runs per configuration (the median is reported)")
    ap.add_argument("--keep", metavar="DIR", help="generate the repository here and keep it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = args.keep or tempfile.mkdtemp(prefix="nki-verify-bench-")
    try:
        make_repo(root, args.files)
        result = bench(root, [int(j) for j in args.jobs.split(",")], args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    result["cpus"] = os.cpu_count()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['files']} files ({result['findings']} findings), {result['cpus']} CPUs; two processes run "
          f"{result['parallel_capacity']}x as fast as one here")
    for r in result["runs"]:
        print(f"  --jobs {r['jobs']}: cold {r['cold_s']:.2f} s, warm {r['warm_s']:.2f} s  (median of "
              f"{len(r['cold_all_s'])}: cold {r['cold_all_s']}, warm {r['warm_all_s']})")
    pf = result["per_file_ms"]
    print(f"  per file (cold, --jobs {result['runs'][0]['jobs']}): median {pf['median']} ms, p90 {pf['p90']} ms, "
          f"max {pf['max']} ms")


if __name__ == "__main__":
    main()
