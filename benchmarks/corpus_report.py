"""Run nki-verify over a directory of real kernels (e.g. a local clone of aws-neuron/nki-library) and report
what it understood: kernels analysed fully / with NKI901 / with NKI902, diagnostics per code, the NKI902
messages by class, and time per file (median, worst, total).

    python benchmarks/corpus_report.py PATH [PATH...] [--json] [--top 30] [--jobs 2]

Each file is analysed in a fresh worker process, as the CLI does (see nki_verify.runner): the numbers are
the CLI's, whatever the order of the files.

The corpus itself is never part of this repository.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nki_verify import Options  # noqa: E402
from nki_verify.cli import collect_files  # noqa: E402
from nki_verify.runner import Job, default_jobs, run_jobs  # noqa: E402


def classify(message: str) -> str:
    """A coarse class for an NKI902 message (numbers, names and quotes removed)."""
    m = re.sub(r"'[^']*'", "'…'", message)
    m = re.sub(r"\([^)]*\)", "(…)", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:110]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--slowest", type=int, default=5, help="how many of the slowest files to list")
    args = ap.parse_args()
    files = collect_files(args.paths)
    times, codes, severities = [], collections.Counter(), collections.Counter()
    kinds = collections.Counter()
    n902 = collections.Counter()
    kernels_total = 0
    errors = []
    t_all = time.perf_counter()
    jobs = [Job(os.path.abspath(p), open(p, encoding="utf-8").read(), Options()) for p in files]
    for path, res in zip(files, run_jobs(jobs, args.jobs, None, progress=False)):
        times.append((res.seconds, path))
        kernels_total += res.kernels
        by_kernel = collections.defaultdict(set)
        for d in res.diagnostics:
            codes[d.code] += 1
            severities[d.severity] += 1
            if d.kernel:
                by_kernel[d.kernel].add(d.code)
            if d.code == "NKI902":
                n902[classify(d.message)] += 1
            if d.severity == "error":
                errors.append(f"{os.path.relpath(d.path)}:{d.line}: {d.code} {d.message[:160]}")
        # (kernels without findings of either code have no name here: counted as fully analysed)
        partial = [c for c in by_kernel.values() if c & {"NKI901", "NKI902"}]
        for c in partial:
            kinds["not understood (NKI902)" if "NKI902" in c else "undecided (NKI901)"] += 1
        kinds["fully analysed"] += res.kernels - len(partial)
    total = time.perf_counter() - t_all
    per_file = sorted(t for t, _ in times)
    report = {
        "files": len(files), "kernels": kernels_total, "kernels_by_outcome": dict(kinds),
        "diagnostics_by_code": dict(sorted(codes.items())), "by_severity": dict(severities),
        "errors": errors, "nki902_classes": n902.most_common(args.top),
        "seconds_total": round(total, 2),
        "seconds_median_file": round(statistics.median(per_file), 3) if per_file else 0,
        "seconds_worst_file": round(per_file[-1], 3) if per_file else 0,
        "seconds_sum_files": round(sum(per_file), 2),
        "slowest": [(round(t, 2), os.path.relpath(p)) for t, p in sorted(times, reverse=True)[:args.slowest]],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['files']} files, {report['kernels']} kernels: {report['kernels_by_outcome']}")
    print(f"diagnostics: {report['diagnostics_by_code']}  {report['by_severity']}")
    print(f"time: total {report['seconds_total']}s, median {report['seconds_median_file']}s/file, "
          f"worst {report['seconds_worst_file']}s, sum over files {report['seconds_sum_files']}s")
    for t, p in report["slowest"]:
        print(f"  {t:7.2f}s {p}")
    print(f"errors ({len(errors)}):")
    for e in errors:
        print("  " + e)
    print("NKI902 classes:")
    for msg, n in report["nki902_classes"]:
        print(f"  {n:4d}  {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
