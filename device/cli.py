"""`nki-verify run`: EXECUTE a kernel on the numpy reference device (the only command that runs user code).

    nki-verify run kernel.py --kernel tensor_add --shape a=256x1024 --shape b=256x1024:bfloat16
    nki-verify run kernel.py --kernel k --input x=x.npy --arg n_tiles=4 --grid 2 --target trn3

Inputs are random (seeded) unless given as .npy files; the outputs' shapes, dtypes and checksums are printed,
and every fault.  Exit codes: 0 the kernel ran without a fault, 1 it faulted, 2 usage error (or the kernel
rejected its inputs with an assert, or uses something the device does not implement).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import sys
from typing import Any, Sequence

import numpy as np

from compiler.spec.targets import ALIASES, TARGETS

from . import dtypes as DT
from .faults import DeviceFault, KernelPrecondition, Unsupported
from .runner import execute

SHAPE_RE = re.compile(r"^(?P<param>[A-Za-z_]\w*)=(?P<dims>\d+(?:x\d+)*)(?::(?P<dtype>\w+))?$")
KV_RE = re.compile(r"^(?P<param>[A-Za-z_]\w*)=(?P<value>.+)$")


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nki-verify run",
        description="EXECUTE a kernel on the numpy reference device. Unlike every other nki-verify command, this "
                    "imports the file (running its top level) and runs the kernel's Python code: only use it on "
                    "code you trust. Inputs are random unless given as .npy files.")
    p.add_argument("path", help="the kernel file (it is imported and executed)")
    p.add_argument("--kernel", required=False, metavar="NAME",
                   help="the kernel (or host launcher function) to run; optional when the file has one kernel")
    p.add_argument("--shape", action="append", default=[], metavar="PARAM=DxD[:DTYPE]",
                   help="a random input, e.g. --shape a=256x1024 or a=128x512:bfloat16 (default float32)")
    p.add_argument("--input", action="append", default=[], metavar="PARAM=FILE.npy", help="an input from a .npy file")
    p.add_argument("--arg", action="append", default=[], metavar="PARAM=VALUE",
                   help="a non-tensor argument (a Python literal), e.g. --arg n_tiles=4")
    p.add_argument("--grid", default=None, metavar="DxD",
                   help="launch grid (Beta 1, e.g. 2x4) or LNC degree (Beta 2, e.g. 2)")
    p.add_argument("--target", choices=sorted(TARGETS) + sorted(ALIASES), default="trn2")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--shuffle", type=int, default=None, metavar="SEED",
                   help="run affine_range iterations and program instances in a shuffled order")
    p.add_argument("--no-hazards", action="store_true",
                   help="skip shadow-memory and access-log checks (faster; bounds and spec checks remain)")
    p.add_argument("--keep-going", action="store_true", help="collect every fault instead of stopping at the first")
    p.add_argument("--save", default=None, metavar="DIR", help="write the outputs as .npy files into DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    try:
        return _run(args)
    except UsageError as exc:
        sys.stderr.write(f"nki-verify run: error: {exc}\n")
        return 2


def _run(args: argparse.Namespace) -> int:
    if not os.path.isfile(args.path):
        raise UsageError(f"no such file: {args.path}")
    name, params = _signature(args.path, args.kernel)
    inputs = _inputs(name, params, args)
    grid = tuple(int(x) for x in args.grid.split("x")) if args.grid else None
    print(f"running {name} from {args.path} on the reference device ({args.target}); this executes the "
          f"kernel's code")
    for pname, v in inputs.items():
        print(f"  input  {pname}: {_describe(v)}")
    try:
        res = execute(args.path, kernel=name, grid=grid, target=args.target,
                      mode="collect" if args.keep_going else "raise", shuffle=args.shuffle,
                      hazards=not args.no_hazards, **inputs)
    except DeviceFault as fault:
        print(f"fault: {_show(fault)}")
        return 1
    except KernelPrecondition as exc:
        print(f"not run: {exc}")
        return 2
    except (Unsupported, LookupError) as exc:
        print(f"unsupported: {exc}")
        return 2
    _print_outputs(res.outputs, args.save)
    for f in res.faults:
        print(f"fault: {_show(f)}")
    print(f"{res.instructions} instructions in {res.seconds:.3f}s; {len(res.faults)} fault(s)")
    return 1 if res.faults else 0


def _show(fault: DeviceFault) -> str:
    text = fault.describe()
    try:
        rel = os.path.relpath(fault.path)
    except ValueError:
        return text
    return text.replace(fault.path, rel, 1) if not rel.startswith("..") else text


def _signature(path: str, kernel: str | None) -> tuple:
    """The kernel's name and parameters (name -> has a default), read from the source without running it."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if kernel is None:
        decorated = [n for n in funcs.values() if n.decorator_list]
        if len(decorated) != 1:
            names = ", ".join(sorted(n.name for n in decorated)) or "none"
            raise UsageError(f"choose the kernel with --kernel (decorated functions: {names})")
        kernel = decorated[0].name
    fn = funcs.get(kernel)
    if fn is None:
        return kernel, None  # e.g. `k = torch_neuronx.nki_jit(f)`: parameters are not checked here
    a = fn.args
    positional = a.posonlyargs + a.args
    with_default = {p.arg for p in positional[len(positional) - len(a.defaults):]} if a.defaults else set()
    with_default |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
    params = {p.arg: p.arg in with_default for p in positional + a.kwonlyargs}
    return kernel, params


def _inputs(name: str, params: dict | None, args: argparse.Namespace) -> dict:
    rng = np.random.default_rng(args.seed)
    given: dict = {}
    for s in args.shape:
        m = SHAPE_RE.match(s)
        if not m:
            raise UsageError(f"bad --shape {s!r} (expected PARAM=DxD[:DTYPE])")
        dims = tuple(int(d) for d in m.group("dims").split("x"))
        given[m.group("param")] = _random(rng, dims, m.group("dtype") or "float32")
    for s in args.input:
        m = KV_RE.match(s)
        if not m:
            raise UsageError(f"bad --input {s!r} (expected PARAM=FILE.npy)")
        given[m.group("param")] = np.load(m.group("value"))
    for s in args.arg:
        m = KV_RE.match(s)
        if not m:
            raise UsageError(f"bad --arg {s!r} (expected PARAM=VALUE)")
        try:
            given[m.group("param")] = ast.literal_eval(m.group("value"))
        except (ValueError, SyntaxError):
            raise UsageError(f"--arg {s!r}: the value must be a Python literal") from None
    unknown = [k for k in given if params is not None and k not in params]
    if unknown:
        raise UsageError(f"{name} has no parameter {unknown[0]!r} (parameters: {', '.join(params)})")
    missing = [k for k, has_default in (params or {}).items() if k not in given and not has_default]
    if missing:
        raise UsageError(f"give {', '.join(missing)} with --shape, --input or --arg")
    return given


def _random(rng: np.random.Generator, dims: tuple, dtype: str) -> np.ndarray:
    try:
        name = DT.dtype_name(dtype)
    except DT.DTypeError:
        raise UsageError(f"unknown dtype {dtype!r}") from None
    np_dtype = DT.storage_dtype(name)
    if DT.is_int(name):
        return rng.integers(0, 100, size=dims).astype(np_dtype)
    return rng.random(dims, dtype=np.float32).astype(np_dtype)


def _describe(v: Any) -> str:
    if isinstance(v, np.ndarray):
        data = np.ascontiguousarray(v)
        digest = hashlib.sha256(data.tobytes()).hexdigest()[:12]
        try:
            total = float(v.astype(np.float64).sum())
        except (TypeError, ValueError):
            total = float("nan")
        return f"shape {v.shape} {DT.dtype_name(v.dtype)}  sum {total:.6g}  sha256 {digest}"
    return repr(v)


def _print_outputs(outputs: Any, save: str | None) -> None:
    items = _flatten(outputs)
    if not items:
        print("  (no outputs)")
    for name, v in items:
        print(f"  output {name}: {_describe(v)}")
        if save and isinstance(v, np.ndarray):
            os.makedirs(save, exist_ok=True)
            np.save(os.path.join(save, f"{name}.npy"), v)


def _flatten(v: Any, name: str = "out") -> list:
    if isinstance(v, (tuple, list)):
        return [x for i, item in enumerate(v) for x in _flatten(item, f"{name}{i}")]
    if isinstance(v, dict):
        return [x for k, item in v.items() for x in _flatten(item, f"{name}_{k}")]
    if v is None:
        return []
    return [(name, v)]


if __name__ == "__main__":
    sys.exit(main())
