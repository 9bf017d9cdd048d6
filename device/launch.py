"""Launching a kernel: every program instance of the grid (both cores of an LNC2 launch) is executed.

Beta-1 grid points run one after the other in the calling thread.  The two cores of a Beta-2 LNC2 launch
run in two threads that take turns (only one executes at a time, so runs are deterministic): a core gives
up its turn at `core_barrier` and `sendrecv`, and the other core runs until it gets there too.  Accesses
to shared tensors (inputs, outputs, shared_hbm) of different instances between two barriers are compared:
a conflict is NKI402.  A core that finishes while the other waits at a barrier is NKI402 too (divergent
control flow around a barrier).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from . import context
from .core import Program, Run
from .faults import DeviceFault, Site
from .hazards import AccessLog


class _Abort(BaseException):
    """Unwinds a waiting core when the other one failed."""


class Launch:
    def __init__(self, run: Run, name: str, dialect: str, grid: tuple, lnc: bool, grid_given: bool,
                 namespaces: Any) -> None:
        self.run = run
        self.name = name
        self.dialect = dialect
        self.grid = tuple(int(g) for g in grid) or (1,)
        self.grid_given = grid_given
        self.lnc = lnc
        self.ns = namespaces
        self.default_value = namespaces.default
        self.rule_cache = run.rule_cache
        self.shared_allocs: dict = {}
        self.programs = [Program(self, i, pid) for i, pid in enumerate(_points(self.grid))]
        self.size = len(self.programs)
        self.race_log = AccessLog()
        self.phase = 0
        self._coop: _Coop | None = None
        self.mailbox: dict = {}

    def execute(self, body: Callable[[Program], Any]) -> list:
        """Run `body` for every program instance; the results in program order."""
        order = self.run.shuffled(list(range(self.size)))
        if self.lnc and self.size > 1:
            self._coop = _Coop(self, body, order)
            results = self._coop.start()
        else:
            results = [None] * self.size
            for i in order:
                results[i] = _in_program(self.programs[i], body)
        return results

    # ------------------------------------------------------------------ synchronisation (LNC2)
    def barrier(self, program: Program, site: Site) -> None:
        if self._coop is None:
            return  # a single instance: nothing to wait for
        self._coop.barrier(program, site)

    def exchange(self, program: Program, key: Any, payload: Any) -> Any:
        """sendrecv: post `payload` under `key`, wait for the peer's, return it."""
        if self._coop is None:
            raise DeviceFault("NKI503", "sendrecv needs an LNC2 launch (kernel[2](...))")
        box = self.mailbox.setdefault(key, {})
        box[program.index] = payload
        peer = self._coop.peer_of(program.index)
        self._coop.wait(program.index, lambda: peer in box)
        value = box[peer]
        box.setdefault("taken", set()).add(program.index)
        if len(box["taken"]) == 2:
            del self.mailbox[key]
        return value


def _points(grid: tuple) -> list:
    pts = [()]
    for g in grid:
        pts = [p + (i,) for p in pts for i in range(g)]
    return pts


def _in_program(program: Program, body: Callable) -> Any:
    token = context.enter(program)
    try:
        result = body(program)
        program.finish()
        return result
    finally:
        context.leave(token)
        program.release()


class _Coop:
    """Cooperative threads: exactly one core runs; a core yields at a barrier or a receive."""

    def __init__(self, launch: Launch, body: Callable, order: list) -> None:
        self.launch = launch
        self.body = body
        self.order = order
        self.cv = threading.Condition()
        self.turn: int | None = None
        self.waits: dict = {}
        self.finished: set = set()
        self.results: list = [None] * launch.size
        self.errors: dict = {}
        self.abort = False
        self.at_barrier: dict = {}  # core -> site

    def peer_of(self, i: int) -> int:
        return 1 - i if self.launch.size == 2 else (i + 1) % self.launch.size

    def start(self) -> list:
        threads = [threading.Thread(target=self._thread, args=(i,), daemon=True) for i in range(self.launch.size)]
        for t in threads:
            t.start()
        with self.cv:
            while len(self.finished) < self.launch.size:
                i = self._pick()
                if i is None:
                    self._deadlock()
                    continue
                self.turn = i
                self.cv.notify_all()
                self.cv.wait_for(lambda: self.turn is None)
        for t in threads:
            t.join()
        for i in self.order:
            if i in self.errors:
                raise self.errors[i]
        return self.results

    def _pick(self) -> int | None:
        for i in self.order:
            if i in self.finished:
                continue
            pred = self.waits.get(i)
            if pred is None or self.abort or pred():
                return i
        return None

    def _deadlock(self) -> None:
        """Every live core waits: a barrier some core never reaches (it finished without it)."""
        for i, site in sorted(self.at_barrier.items()):
            prog = self.launch.programs[i]
            token = context.enter(prog)
            try:
                prog.fault("NKI402", "this core_barrier is not reached by every core (divergent control flow "
                           "around a barrier): the waiting core deadlocks", (("waiting core", i),), site)
            except DeviceFault as exc:
                self.errors.setdefault(i, exc)
                self.abort = True
            finally:
                context.leave(token)
        # let the waiters go on (collect mode) or unwind (raise mode)
        for i in list(self.waits):
            self.waits[i] = lambda: True
        self.at_barrier.clear()

    def _thread(self, i: int) -> None:
        prog = self.launch.programs[i]
        with self.cv:
            self.cv.wait_for(lambda: self.turn == i)
        try:
            if not self.abort:
                self.results[i] = _in_program(prog, self.body)
        except _Abort:
            pass
        except BaseException as exc:  # noqa: BLE001 - re-raised by start() in the main thread
            self.errors[i] = exc
            self.abort = True
        finally:
            with self.cv:
                self.finished.add(i)
                self.turn = None
                self.cv.notify_all()

    def wait(self, i: int, pred: Callable[[], bool]) -> None:
        with self.cv:
            self.waits[i] = pred
            self.turn = None
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn == i)
            self.waits.pop(i, None)
            if self.abort:
                raise _Abort()

    def barrier(self, program: Program, site: Site) -> None:
        i = program.index
        self.at_barrier[i] = site
        arrived = set(self.at_barrier)
        live = {j for j in range(self.launch.size) if j not in self.finished}
        if live <= arrived:
            self._release()
            return
        phase = self.launch.phase
        self.wait(i, lambda: self.launch.phase != phase)

    def _release(self) -> None:
        self.at_barrier.clear()
        self.launch.phase += 1
        self.launch.race_log = AccessLog()
