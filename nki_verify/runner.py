"""Analysing many files: the cache first, then the misses in worker processes (`--jobs`), with a progress bar.

The analysis of one file depends only on its text, its options and the project modules it imports, so the
files are independent and their results are merged in the order the files were given.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable

from compiler.frontend.modules import SourceSet, reachable_source

from .analysis.solver import solver_used
from .api import analyze_source
from .process import HASH_SEED, tune_gc
from .cache import Cache
from .options import Options
from .report import FileResult

# A file of a run of several is analysed in a process where z3 has not run before (a fork of a server that has
# imported the verifier and z3): z3's search near its resource limit depends on process-wide state that
# outlives a file's context, even after Z3_reset_memory.  Measured on nki-library: fg_allgather needed 57
# solver queries and had no finding alone, 77 queries and 4 warnings after attention_bwd in the same process,
# so a file's findings depended on what the same worker had analysed before it.  A worker therefore takes
# files in order until one of them runs the solver, and hands the rest back; files that never reach z3 (most
# of a project's) share a process.  One file alone is analysed in the CLI's own process.
TASK_FILES = 16  # files offered to a worker at a time
@dataclass(frozen=True)
class Job:
    path: str  # absolute
    text: str
    options: Options


def analyse(job: Job) -> tuple[FileResult, list]:
    """One file (run in a worker process): its result and the project modules its analysis read."""
    t0 = time.perf_counter()
    res = analyze_source(job.text, job.path, job.options)
    result = FileResult(job.path, res.diagnostics, len({k.name for k in res.kernels}), time.perf_counter() - t0)
    return result, list(res.read_paths)


def analyse_until_solver(jobs: list) -> list:
    """Files in order, in a fresh worker process, until one of them has run the solver: their results."""
    tune_gc()  # a worker process: the CLI's collector settings
    out = []
    for job in jobs:
        out.append(analyse(job))
        if solver_used():
            break
    return out


def offer_size(pending: int, free: int) -> int:
    """How many of the pending files to offer the next free worker: an even share of what is left, at most
    TASK_FILES.  (A whole chunk offered to one worker near the end left the other idle while it went through
    the chunk's solver files one fresh process at a time: nki-library 37-40 s -> 30-32 s with 2 jobs.)"""
    return max(1, min(TASK_FILES, -(-pending // max(1, free))))


def next_offer(pending: list, kernels: list, free: int) -> int:
    """How many of the pending files (indices into `kernels`) to offer the next free worker: `offer_size`, but
    not past the first file with kernels.  A worker stops at the first file that runs the solver, and the files
    offered after it wait for it: over nki-library fgcc waited 5 s behind attention_bwd while the other worker
    was idle, 30 s in all; 25 s offered so."""
    size = offer_size(len(pending), free)
    return next((n + 1 for n, k in enumerate(pending[:size]) if kernels[k]), size)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def run_jobs(jobs: list, workers: int, cache: Cache | None, progress: bool) -> list:
    """FileResults in the order of `jobs`."""
    results: list = [None] * len(jobs)
    keys: list = [None] * len(jobs)
    todo = []
    for i, job in enumerate(jobs):
        if cache is not None:
            keys[i] = cache.key(job.path, job.text, job.options)
            hit = cache.get(keys[i])
            if hit is not None:
                results[i] = hit
                continue
        todo.append(i)
    bar = _progress(len(jobs), len(jobs) - len(todo), progress)

    def done(i: int, result: FileResult, read_paths: list) -> None:
        results[i] = result
        if cache is not None:
            cache.put(keys[i], result, read_paths)
        bar.update(1)

    try:
        _execute([jobs[i] for i in todo], todo, min(workers, len(todo)), done)
    finally:
        bar.close()
    return results


def _execute(jobs: list, indices: list, workers: int, done: Callable) -> None:
    if len(jobs) == 1:
        done(indices[0], *analyse(jobs[0]))
        return
    kernels = [_has_kernels(job.text) for job in jobs]
    pending = schedule(jobs, kernels)
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=_context(), max_tasks_per_child=1) as pool:
        running: dict = {}
        while pending or running:
            while pending and len(running) < max(1, workers):
                size = next_offer(pending, kernels, max(1, workers) - len(running))
                offered, pending = pending[:size], pending[size:]
                running[pool.submit(analyse_until_solver, [jobs[k] for k in offered])] = offered
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                offered = running.pop(fut)
                results = fut.result()
                for k, (result, read_paths) in zip(offered, results):
                    done(indices[k], result, read_paths)
                pending = offered[len(results):] + pending  # not reached: next, in a fresh worker


def schedule(jobs: list, kernels: list) -> list:
    """The order to offer the files in (indices into `jobs`): files with kernels first, the largest first (a
    directory's few heavy kernels then do not leave a worker idle at the end), then the rest, which rarely reach
    the solver and fill the gaps.  A kernel file's size is that of the project source its analysis reaches
    through imports: nki-library's longest analysis, moe_block_tkg's, is of a small file that was offered 24th
    (the library with 2 jobs: 435 s -> 300 s, the same findings)."""
    size = [_work(job) if kernels[k] else len(job.text) for k, job in enumerate(jobs)]
    return sorted(range(len(jobs)), key=lambda k: (not kernels[k], -size[k]))


def _work(job: Job) -> int:
    """How much the analysis of a file is likely to read (see modules.reachable_source)."""
    try:
        sources = SourceSet(dict(job.options.overlays), job.options.reader)  # as the analysis reads them
        return reachable_source(job.path, job.text, sources, tuple(job.options.search_path))
    except (OSError, RecursionError, ValueError):
        return len(job.text)


def _has_kernels(text: str) -> bool:
    """Likely to define a kernel (a scheduling guess only: `@nki.jit`, `nki_jit`, `@nki.baremetal`, ...)."""
    return "jit" in text or "baremetal" in text or "benchmark" in text


def _context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one: workers fork from a clean server that has already imported the verifier
    (fast start, and no fork of a process that has threads); spawn elsewhere."""
    # one hash seed for every worker: set iteration orders, and with them the order of z3's terms, are the same
    # in every run
    os.environ.setdefault("PYTHONHASHSEED", HASH_SEED)
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["nki_verify.api", "z3"])
        return ctx
    return multiprocessing.get_context("spawn")


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, initial: int, enabled: bool):
    """A tqdm bar on stderr when it is a terminal and there are several files; otherwise nothing."""
    if not enabled or total < 2 or initial == total or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError):
        size = os.terminal_size((0, 0))
    # a pseudo-terminal that reports no size (0 x 0, as some CI runners' do) would hide the bar
    return tqdm(total=total, initial=initial, unit="file", file=sys.stderr, leave=False,
                ncols=min(size.columns or 80, 100), nrows=size.lines or 24, desc="nki-verify")
