"""Per-document analysis scheduling: debounce, off-loop execution, a time budget, newest version wins.

Each open document has at most one pending analysis task.  An edit cancels the pending task (and so discards
an analysis still running for an older version: its thread finishes but its result is dropped) and schedules a
new one after the debounce delay.  A result is delivered only if the document is still open at the version that
was analysed, so a stale analysis is never published over a newer one.

Analyses run one at a time, in one worker thread: the analysis uses z3's global context, which is not safe to
use from two threads at once (two overlapping analyses deadlock).  An analysis past its time budget is
abandoned with its thread, and later ones get a new thread.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

from lsprotocol import types

from nki_verify import VerifyResult

logger = logging.getLogger(__name__)


@dataclass
class Analysis:
    """The outcome of analysing one version of one document."""

    uri: str
    version: int | None
    text: str
    result: VerifyResult | None
    by_uri: dict[str, list[types.Diagnostic]]  # LSP diagnostics per file they are located in
    error: str | None = None  # a crash or a timeout, for the log and the status item
    seconds: float = 0.0

    @property
    def read_paths(self) -> set[str]:
        return set(self.result.read_paths) if self.result is not None else set()


@dataclass
class DocState:
    task: asyncio.Task | None = None
    last: Analysis | None = None
    waiters: list[asyncio.Future] = field(default_factory=list)


# runs in a worker thread: (uri, version, text, overlays) -> Analysis; never raises
AnalyseFn = Callable[[str, "int | None", str, dict], Analysis]
# on the event loop: the current (version, text, overlays) of an open document, or None once it is closed
SnapshotFn = Callable[[str], "tuple[int | None, str, dict] | None"]


class Scheduler:
    def __init__(self, analyse: AnalyseFn, snapshot: SnapshotFn, deliver: Callable[[Analysis], None],
                 budget: float, on_busy: Callable[[int], None],
                 on_timeout: Callable[[str, int | None, str], Analysis]) -> None:
        self._analyse, self._snapshot, self._deliver = analyse, snapshot, deliver
        self._budget, self._on_busy, self._on_timeout = budget, on_busy, on_timeout
        self._executor = self._new_executor()
        self.docs: dict[str, DocState] = {}
        self.busy = 0

    def schedule(self, uri: str, delay: float) -> None:
        st = self.docs.setdefault(uri, DocState())
        if st.task is not None and not st.task.done():
            st.task.cancel()
        st.task = asyncio.ensure_future(self._run(uri, delay))

    @staticmethod
    def _new_executor() -> ThreadPoolExecutor:
        return ThreadPoolExecutor(1, thread_name_prefix="nki-analysis")

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def forget(self, uri: str) -> None:
        st = self.docs.pop(uri, None)
        if st is None:
            return
        if st.task is not None and not st.task.done():
            st.task.cancel()
        for w in st.waiters:
            if not w.done():
                w.cancel()

    def last(self, uri: str) -> Analysis | None:
        st = self.docs.get(uri)
        return st.last if st is not None else None

    async def current(self, uri: str) -> Analysis | None:
        """The analysis of the document's current version, waiting for it (pull diagnostics)."""
        snap = self._snapshot(uri)
        if snap is None:
            return None
        st = self.docs.setdefault(uri, DocState())
        if st.last is not None and st.last.version == snap[0]:
            return st.last
        if st.task is None or st.task.done():
            self.schedule(uri, 0.0)
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        st.waiters.append(fut)
        return await fut

    async def _run(self, uri: str, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        snap = self._snapshot(uri)
        if snap is None:
            return
        version, text, overlays = snap
        self._busy(+1)
        try:
            fut = asyncio.get_running_loop().run_in_executor(self._executor, self._analyse, uri, version, text,
                                                             overlays)
            try:
                analysis = await asyncio.wait_for(fut, self._budget)
            except asyncio.TimeoutError:
                analysis = self._on_timeout(uri, version, text)
                # the stuck thread cannot be stopped: leave it, and run the next analyses in a new one
                self._executor.shutdown(wait=False, cancel_futures=False)
                self._executor = self._new_executor()
        finally:
            self._busy(-1)
        self._land(analysis)

    def _land(self, analysis: Analysis) -> None:
        snap = self._snapshot(analysis.uri)
        st = self.docs.get(analysis.uri)
        if snap is None or st is None or snap[0] != analysis.version:
            logger.debug("discarding a stale analysis of %s (version %s)", analysis.uri, analysis.version)
            return
        st.last = analysis
        waiters, st.waiters = st.waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(analysis)
        try:
            self._deliver(analysis)
        except Exception:  # noqa: BLE001 - a failure to publish must not kill the scheduler
            logger.error("publishing diagnostics for %s failed:\n%s", analysis.uri, traceback.format_exc())

    def _busy(self, delta: int) -> None:
        before = self.busy
        self.busy += delta
        if (before == 0) != (self.busy == 0):
            self._on_busy(self.busy)
