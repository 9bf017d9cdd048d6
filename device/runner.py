"""`device.run` / `device.execute`: load a kernel file against the fake NKI modules and execute a kernel."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import uuid
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from compiler.spec.targets import get_target

from .core import Run, RunOptions
from .faults import DeviceFault, Site, is_user_file
from .kernels import Kernel, enter_run, is_host_function, leave_run, launch, to_host
from .memory import ArenaPool
from .modules import ModuleSet, installed

@dataclass
class Result:
    """What a run produced: the kernel's outputs (numpy), the faults (collect mode) and counters."""

    outputs: Any
    faults: list = field(default_factory=list)
    sound_faults: list = field(default_factory=list)  # faults up to the first hard one
    instructions: int = 0
    seconds: float = 0.0

    def codes(self) -> set:
        return {f.code for f in self.faults}

    def at(self, code: str, line: int) -> bool:
        return any(f.code == code and f.line == line for f in self.faults)


def load(path: str, target: str = "trn2") -> Any:
    """Import a kernel file with the device's NKI modules (this executes the file's top level)."""
    return Device(target).load(path)


@contextlib.contextmanager
def _importable(path: str) -> Iterator[None]:
    """The kernel's directory (or, for a package, its parent) on sys.path while it runs; the modules
    imported from there are forgotten afterwards (they were bound to this run's fake NKI modules)."""
    root, _ = _package_root(path)
    sys.path.insert(0, root)
    try:
        yield
    finally:
        if root in sys.path:
            sys.path.remove(root)
        prefix = root + os.sep
        for name, mod in list(sys.modules.items()):
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and f.startswith(prefix) and not name.startswith(("device.", "tests.")):
                del sys.modules[name]


def _package_root(path: str) -> tuple:
    """The directory to put on sys.path and the dotted package of the file ('' outside packages): the file
    is imported as part of its package, so that its relative imports work."""
    here = os.path.dirname(os.path.abspath(path))
    parts: list = []
    while os.path.isfile(os.path.join(here, "__init__.py")):
        parts.insert(0, os.path.basename(here))
        here = os.path.dirname(here)
    return here, ".".join(parts)


def _import(path: str) -> Any:
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    _, package = _package_root(path)
    if package:
        return importlib.import_module(f"{package}.{stem}")  # relative imports work
    name = f"_nki_device_kernel_{uuid.uuid4().hex[:12]}_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_kernel(module: Any, name: str | None) -> Any:
    if name is not None and name.endswith(")") and "(" in name:
        # `make_copier(96)`: a kernel a factory builds, called with literal arguments (the device runs code)
        import ast as _ast

        fn_name, _, rest = name.partition("(")
        args = _ast.literal_eval(f"({rest[:-1]},)") if rest[:-1].strip() else ()
        built = find_kernel(module, fn_name)(*args)
        for v in built if isinstance(built, tuple) else (built,):
            if isinstance(v, Kernel):
                return v
        raise LookupError(f"{module.__file__}: {name} does not return a kernel")
    if name is not None:
        obj = module
        for part in name.split("."):  # `Ops.copy_rows`: a kernel defined in a class
            if not hasattr(obj, part):
                raise LookupError(f"{module.__file__}: no kernel or function named {name!r}")
            obj = getattr(obj, part)
        return obj
    kernels = [v for v in vars(module).values() if isinstance(v, Kernel)]
    if len(kernels) != 1:
        names = ", ".join(sorted(k.__name__ for k in kernels)) or "none"
        raise LookupError(f"{module.__file__}: choose a kernel with kernel=... (kernels: {names})")
    return kernels[0]


class Device:
    """A reference device: keeps what is worth keeping between runs (the fake modules per target, imported
    kernel files, on-chip memories).  `device.run` / `device.execute` use a fresh one each call."""

    def __init__(self, target: str = "trn2") -> None:
        self.target = target
        self._modules: dict = {}
        self._files: dict = {}
        self.arenas = ArenaPool()

    def modules(self, target: str) -> ModuleSet:
        key = get_target(target).name
        if key not in self._modules:
            self._modules[key] = ModuleSet(get_target(target))
        return self._modules[key]

    def load(self, path: str, target: str | None = None) -> Any:
        """Import a kernel file with this device's NKI modules (executing its top level), once per version."""
        target = target or self.target
        path = os.path.abspath(path)
        key = (path, get_target(target).name)
        stamp = os.stat(path).st_mtime_ns
        got = self._files.get(key)
        if got is None or got[0] != stamp:
            with installed(self.modules(target)), _importable(path):
                got = self._files[key] = (stamp, _import(path))
        return got[1]

    def execute(self, kernel_or_path: Any, *args: Any, kernel: str | None = None, grid: Any = None,
                target: str | None = None, mode: str = "collect", shuffle: int | None = None, hazards: bool = True,
                **kwargs: Any) -> Result:
        """Run a kernel.  `kernel_or_path` is a kernel (or host function) or a .py file (then `kernel=` names it).
        `grid` is the launch grid (Beta 1) or the LNC degree (Beta 2, `grid=2`).  In `collect` mode faults are
        gathered and execution continues; in `raise` mode the first one is raised."""
        target = target or self.target
        run = Run(RunOptions(get_target(target), mode, shuffle, hazards))
        run.modules = self.modules(target)
        run.arenas = self.arenas
        path = os.fspath(kernel_or_path) if isinstance(kernel_or_path, (str, os.PathLike)) else None
        t0 = time.perf_counter()
        token = enter_run(run)  # before importing: a file's top level may launch its kernel (nki.simulate)
        try:
            fn = find_kernel(self.load(path, target), kernel) if path else kernel_or_path
            with installed(run.modules), (_importable(path) if path else contextlib.nullcontext()):
                outputs = _call(fn, grid, args, kwargs)
                for p in run.pending:
                    p.decide()
        except DeviceFault as fault:
            if mode == "raise":
                raise
            run.faults.faults.append(fault)
            outputs = None
        except IndexError as exc:
            # a Python sequence indexed past its end in the kernel's own code (`tiles[i + 1]`): the trace fails
            # there, which the verifier reports as NKI101 at the same line
            site = _raising_user_site(exc)
            if site is None:
                raise
            fault = DeviceFault("NKI101", f"Python index out of range: {exc}", site)
            if mode == "raise":
                raise fault from exc
            run.faults.faults.append(fault)
            outputs = None
        finally:
            leave_run(token)
        return Result(outputs, list(run.faults.faults), run.faults.before_first_hard(), run.stats["instructions"],
                      time.perf_counter() - t0)

    def run(self, kernel_or_path: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("mode", "raise")
        return self.execute(kernel_or_path, *args, **kwargs).outputs


def execute(kernel_or_path: Any, *args: Any, **kwargs: Any) -> Result:
    """Run a kernel on a fresh device (see Device.execute)."""
    return Device(kwargs.get("target") or "trn2").execute(kernel_or_path, *args, **kwargs)


def run(kernel_or_path: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a kernel and return its outputs (numpy arrays); the first fault is raised as a DeviceFault."""
    kwargs.setdefault("mode", "raise")
    return execute(kernel_or_path, *args, **kwargs).outputs


def _call(fn: Any, grid: Any, args: tuple, kwargs: dict) -> Any:
    g = None if grid is None else (tuple(grid) if isinstance(grid, (tuple, list)) else (grid,))
    if isinstance(fn, Kernel):
        return launch(fn, g, args, kwargs)
    if callable(fn) and is_host_function(fn) and g is None:
        return to_host(fn(*args, **kwargs))
    from .kernels import dialect_of
    return launch(Kernel(fn, dialect_of(fn)), g, args, kwargs)


def _raising_user_site(exc: BaseException) -> Site | None:
    """The kernel line an exception was raised at: the innermost frame of its traceback in the user's code, when
    the exception comes from there (not from the device or a library it calls)."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None or not is_user_file(last.tb_frame.f_code.co_filename):
        return None
    return Site(last.tb_frame.f_code.co_filename, last.tb_lineno, last.tb_frame.f_code.co_name)
