"""The fake `nki` / `neuronxcc.nki` modules a kernel file imports when the device runs it.

`installed(namespaces)` puts them in `sys.modules` (with a meta-path finder for any other submodule of
`nki` or `neuronxcc`, and harmless stand-ins for `torch_neuronx`, `jax_neuronx` and, when they are not
installed, `torch` and `jax`), and restores `sys.modules` afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, Iterator

import numpy as np

from compiler import spec
from compiler.spec.targets import Target, tile_size

from . import dtypes as DT
from . import grids
from . import language as L
from . import ops as O
from .dispatch import ParDim, instruction
from .faults import Unsupported
from .isa import Register
from .kernels import Kernel, jit_decorator, nki_call, simulate, simulate_kernel
from .nkitensor import BUFFERS, NkiTensor, buffer_name, is_hbm, is_on_chip

ENUMS = {
    "engine": {"unknown": 0, "tensor": 1, "scalar": 2, "gpsimd": 3, "dma": 4, "vector": 5, "sync": 6,
               "activation": 2, "pool": 3},
    "reduce_cmd": {"idle": 0, "reset": 1, "reduce": 2, "reset_reduce": 3, "load_reduce": 4},
    "dge_mode": {"unknown": 0, "swdge": 1, "hwdge": 2, "none": 3},
    "oob_mode": {"error": 0, "skip": 1},
    "matmul_perf_mode": {"none": "none", "double_row": "double_row", "double_row_gen3": "double_row_gen3",
                         "double_row_gen4": "double_row_gen4"},
    "nc_version": {"gen2": 2, "gen3": 3, "gen4": 4},
    "dma_engine": {"dma": 1, "gpsimd_dma": 2},
}
PREFIXES = ("nki", "neuronxcc")
SHIMS = ("torch_neuronx", "jax_neuronx")


class EnumMember:
    __slots__ = ("enum", "spec_name", "value")

    def __init__(self, enum: str, name: str, value: Any) -> None:
        self.enum, self.spec_name, self.value = enum, name, value

    def __repr__(self) -> str:
        return f"{self.enum}.{self.spec_name}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnumMember) and (other.enum, other.spec_name) == (self.enum, self.spec_name)

    def __hash__(self) -> int:
        return hash((self.enum, self.spec_name))


def _enum(name: str, members: dict) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{m: EnumMember(name, m, v) for m, v in members.items()})


class Finfo:
    """Beta-1 `nl.fp32` / `nl.bfp16`: `.min` / `.max` of a float type."""

    def __init__(self, dtype: Any) -> None:
        info = np.finfo(np.float32) if dtype == "float32" else None
        self.min = float(info.min) if info is not None else -3.3895313892515355e38
        self.max = float(info.max) if info is not None else 3.3895313892515355e38


_UNSET = object()


class _NKIObjectMeta(type):
    """A @dataclass on nl.NKIObject is built from the fields given: the NKI compiler sets one attribute per
    keyword, so a field left out stays unset (reading it fails) instead of failing the constructor call as
    CPython's dataclass __init__ would.  (The verifier's front end reads them so: compiler/frontend/calls.py
    _dataclass_init.)"""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        unset = []
        if dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls)[len(args):]:
                if f.init and f.name not in kwargs and f.default is dataclasses.MISSING and \
                        f.default_factory is dataclasses.MISSING:
                    kwargs[f.name] = _UNSET
                    unset.append(f.name)
        obj = super().__call__(*args, **kwargs)
        for name in unset:
            if obj.__dict__.get(name) is _UNSET:
                object.__delattr__(obj, name)
        return obj


class NKIObject(metaclass=_NKIObjectMeta):
    """Base class of kernel-side dataclasses (plain Python on the device)."""

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # class attributes without an annotation (`offset = None`) are fields of a @dataclass on it too, after the
        # annotated ones (the verifier's front end reads them so: compiler/frontend/calls.py _dataclass_fields)
        super().__init_subclass__(**kwargs)
        ann = dict(cls.__dict__.get("__annotations__", {}))
        for k, v in list(cls.__dict__.items()):
            if k.startswith("__") or k in ann or callable(v) or isinstance(v, (staticmethod, classmethod, property,
                                                                                  list, dict, set)):
                continue
            ann[k] = Any
        cls.__annotations__ = ann


class NkiValidationError(Exception):
    pass


class _Mutable:
    """`nt.mutable`: the qualifier of `nt.tensor[nt.mutable]`, an input the kernel may write in place."""


class _TypingTensor:
    """`nt.tensor[shape, dtype]` annotations: accepted, not enforced (`nt.tensor[nt.mutable]` is
    `nt.mutable_tensor`)."""

    def __class_getitem__(cls, item: Any) -> Any:
        items = item if isinstance(item, tuple) else (item,)
        return _MutableTensor if any(i is _Mutable for i in items) else cls

    def __getitem__(self, item: Any) -> Any:
        return self


class _MutableTensor(_TypingTensor):
    """`nt.mutable_tensor`: an input the kernel may write in place (Beta 1; device.kernels reads the annotation)."""


class Namespaces:
    """The language and ISA namespaces of one dialect on one target."""

    def __init__(self, dialect: str, target: Target) -> None:
        self.dialect = dialect
        self.target = target
        self.default_cache: dict = {}  # signature text -> resolved defaults (see device.calls)
        self.language = self._language()
        self.isa = self._isa()
        self._assign = instruction("language.__assign__", dialect)

    def _language(self) -> types.ModuleType:
        name = "nki.language" if self.dialect == "beta2" else "neuronxcc.nki.language"
        m = types.ModuleType(name)
        for ins in spec.all_instructions():
            if ins.module == "language" and not ins.name.startswith("__"):
                setattr(m, ins.name, instruction(ins.qualname, self.dialect))
        for n in DT.PUBLIC:
            setattr(m, n, DT.public(n))
        for n, b in BUFFERS.items():
            setattr(m, n, b)
        for n, op in O.ALL.items():
            if not hasattr(m, n):
                setattr(m, n, op)
        m.tile_size = types.SimpleNamespace(**tile_size(self.target))
        m.program_id, m.num_programs, m.program_ndim = L.program_id, L.num_programs, L.program_ndim
        m.affine_range, m.sequential_range, m.static_range = L.affine_range, L.sequential_range, L.static_range
        m.dynamic_range, m.fori_loop, m.while_loop = L.dynamic_range, L.fori_loop, L.while_loop
        m.no_reorder, m.ds = L.no_reorder, L.ds
        m.arange, m.mgrid, m.par_dim, m.nc, m.spmd_dim = grids.arange, grids.mgrid, ParDim, L.nc, L.spmd_dim
        m.is_hbm, m.is_on_chip = is_hbm, is_on_chip
        m.is_psum = lambda b: buffer_name(b) == "psum"
        m.is_sbuf = lambda b: buffer_name(b) == "sbuf"
        m.NKIObject, m.NkiTensor, m.tensor = NKIObject, NkiTensor, NkiTensor
        m.MemoryRegion = types.SimpleNamespace(**BUFFERS)
        m.fp32, m.bfp16 = Finfo("float32"), Finfo("bfloat16")
        m.finfo = Finfo
        return m

    def _isa(self) -> types.ModuleType:
        name = "nki.isa" if self.dialect == "beta2" else "neuronxcc.nki.isa"
        m = types.ModuleType(name)
        for ins in spec.all_instructions():
            if ins.module == "isa":
                setattr(m, ins.name, instruction(ins.qualname, self.dialect))
        for e, members in ENUMS.items():
            setattr(m, e, _enum(e, members))
        for old, new in (("tensor_engine", "tensor"), ("vector_engine", "vector"), ("scalar_engine", "scalar"),
                         ("gpsimd_engine", "gpsimd"), ("unknown_engine", "unknown")):
            setattr(m, old, getattr(m.engine, new))
        gen = {2: "gen2", 3: "gen3", 4: "gen4"}[self.target.gen]
        m.get_nc_version = lambda: getattr(m.nc_version, gen)
        m.get_nc_sub_version = lambda: 0
        m.NkiValidationError = NkiValidationError
        m.VirtualRegister = Register
        m.constants = types.ModuleType(name + ".constants")
        for e in ENUMS:
            setattr(m.constants, e, getattr(m, e))
        return m

    def default(self, text: str) -> Any:
        """A signature default spelled in compiler/spec (`engine.unknown`, `sbuf`, `np.amax`, `fp32.min`)."""
        if text == "fp32.min":
            return O.FP32_MIN
        head, _, tail = text.rpartition(".")
        if head == "np":
            return O.as_op(getattr(np, tail)) if tail not in ("float32", "uint8") else DT.public(tail)
        if head:
            obj = getattr(self.isa, head, None) or getattr(self.language, head, None)
            if obj is not None and hasattr(obj, tail):
                return getattr(obj, tail)
            raise Unsupported(f"unknown default {text!r}")
        for ns in (self.language, self.isa):
            if hasattr(ns, text):
                return getattr(ns, text)
        raise Unsupported(f"unknown default {text!r}")

    def assign(self) -> Any:
        return self._assign


class ModuleSet:
    """Every module a kernel file may import, for one run."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.b1 = Namespaces("beta1", target)
        self.b2 = Namespaces("beta2", target)
        self.modules = self._build()

    def namespaces(self, dialect: str) -> Namespaces:
        return self.b1 if dialect == "beta1" else self.b2

    def _build(self) -> dict:
        mods: dict = {}
        nki = _module("nki", jit=jit_decorator("beta2"), baremetal=jit_decorator("beta2"),
                      benchmark=jit_decorator("beta2"), profile=jit_decorator("beta2"), trace=jit_decorator("beta2"),
                      simulate=simulate, language=self.b2.language, isa=self.b2.isa, Kernel=Kernel,
                      tensor=_TypingTensor)
        mods["nki"], mods["nki.language"], mods["nki.isa"] = nki, self.b2.language, self.b2.isa
        mods["nki.isa.constants"] = self.b2.isa.constants
        mods["nki.typing"] = _module("nki.typing", tensor=_TypingTensor, mutable_tensor=_MutableTensor,
                                     mutable=_Mutable)
        nki.typing = mods["nki.typing"]
        b1 = _module("neuronxcc.nki", jit=jit_decorator("beta1"), baremetal=jit_decorator("beta1"),
                     benchmark=jit_decorator("beta1"), profile=jit_decorator("beta1"), trace=jit_decorator("beta1"),
                     simulate_kernel=simulate_kernel, simulate=simulate, language=self.b1.language, isa=self.b1.isa,
                     Kernel=Kernel, tensor=_TypingTensor)
        b1.typing = _module("neuronxcc.nki.typing", tensor=_TypingTensor, mutable_tensor=_MutableTensor,
                            mutable=_Mutable)
        # Beta-1 direct allocation (`nki.compiler.sbuf.mod_alloc(...)`): accepted, tiles are allocated as usual
        b1.compiler = _Shim("neuronxcc.nki.compiler")
        mods["neuronxcc.nki.compiler"] = b1.compiler
        mods["neuronxcc"] = _module("neuronxcc", nki=b1)
        mods["neuronxcc.nki"], mods["neuronxcc.nki.language"], mods["neuronxcc.nki.isa"] = \
            b1, self.b1.language, self.b1.isa
        mods["neuronxcc.nki.typing"] = b1.typing
        mods["torch_neuronx"] = _Shim("torch_neuronx", nki_jit=jit_decorator("beta1"))
        mods["jax_neuronx"] = _Shim("jax_neuronx", nki_call=nki_call)
        for name in ("torch", "jax", "jax.numpy"):
            if importlib.util.find_spec(name.split(".")[0]) is None:
                mods[name] = _Shim(name)
        if "jax" in mods and "jax.numpy" in mods:
            mods["jax"].numpy = mods["jax.numpy"]
        return mods


def _module(name: str, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    m.__path__ = []  # a package: submodules resolve through the finder
    return m


class _Shim(types.ModuleType):
    """A harmless stand-in: any attribute is another stand-in, calls return stand-ins."""

    def __init__(self, name: str, **attrs: Any) -> None:
        super().__init__(name)
        self.__dict__.update(attrs)
        self.__path__ = []

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        return _Stand(f"{self.__name__}.{item}")


class _Stand:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        return _Stand(f"{self._name}.{item}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return _Stand(f"{self._name}()")

    def __repr__(self) -> str:
        return f"<stand-in {self._name}>"


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every other `nki.*` / `neuronxcc.*` submodule as a stand-in module."""

    def __init__(self, mods: dict) -> None:
        self.mods = mods

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        top = fullname.split(".")[0]
        if fullname in self.mods or top in PREFIXES + SHIMS or isinstance(self.mods.get(top), _Shim):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec_: Any) -> Any:
        return self.mods.get(spec_.name) or _Shim(spec_.name)

    def exec_module(self, module: Any) -> None:
        pass


@contextlib.contextmanager
def installed(modset: ModuleSet) -> Iterator[None]:
    roots = set(PREFIXES + SHIMS) | {n.split(".")[0] for n in modset.modules}

    def ours(name: str) -> bool:
        return name.split(".")[0] in roots

    saved = {n: sys.modules[n] for n in list(sys.modules) if ours(n)}
    for n in saved:
        del sys.modules[n]
    sys.modules.update(modset.modules)
    finder = _Finder(modset.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for n in [n for n in sys.modules if ours(n)]:
            del sys.modules[n]
        sys.modules.update(saved)
