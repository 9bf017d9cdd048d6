"""Verifier speed: median milliseconds per kernel (warm, in process) and cold CLI time.

    python benchmarks/bench_verify.py [--repeat N] [--json]

Targets (issue 2): median <= 30 ms per kernel warm, cold CLI <= 300 ms on the examples.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nki_verify import analyze_source  # noqa: E402


def corpus() -> list:
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))
    files += sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "kernels", "*.py"))
                    if not p.endswith(("syntax_error.py", "never_execute.py")))
    return files


def warm(files: list, repeat: int) -> dict:
    per_kernel = []
    z3_share = []
    queries = []
    for path in files:
        text = open(path, encoding="utf-8").read()
        analyze_source(text, path)  # warm caches (imports, z3 load)
        times = []
        res = None
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = analyze_source(text, path)
            times.append(time.perf_counter() - t0)
        n = max(1, len(res.kernels))
        t = statistics.median(times)
        per_kernel.append(t / n * 1000)
        solver = sum(k.solver_seconds for k in res.kernels)
        z3_share.append(solver / t if t else 0.0)
        queries.extend(k.solver_queries for k in res.kernels)
    return {
        "files": len(files),
        "median_ms_per_kernel": round(statistics.median(per_kernel), 2),
        "max_ms_per_kernel": round(max(per_kernel), 2),
        "median_z3_share": round(statistics.median(z3_share), 3),
        "median_solver_queries_per_kernel": statistics.median(queries) if queries else 0,
    }


def cold(path: str, repeat: int) -> dict:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nki_verify.cli", path], capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    return {"file": os.path.relpath(path, ROOT), "median_ms": round(statistics.median(times) * 1000, 1),
            "min_ms": round(min(times) * 1000, 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    files = corpus()
    report = {"warm": warm(files, args.repeat),
              "cold": [cold(p, args.repeat) for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))]}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    w = report["warm"]
    print(f"warm, in process, {w['files']} files: median {w['median_ms_per_kernel']} ms/kernel "
          f"(worst {w['max_ms_per_kernel']} ms), z3 share {w['median_z3_share']:.0%}, "
          f"median {w['median_solver_queries_per_kernel']} solver queries/kernel")
    for c in report["cold"]:
        print(f"cold CLI {c['file']}: median {c['median_ms']} ms (min {c['min_ms']} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
