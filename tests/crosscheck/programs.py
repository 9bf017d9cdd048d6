"""Generated kernel programs: a hypothesis strategy over `Spec`s (the generator's choices, which hypothesis
shrinks), each built into source text, admissible inputs and a numpy reference of the intended computation.

Templates (both dialects where the construct exists):
  Tiled      row/column tile loops over symbolic or concrete shapes; tail tiles with min()/masks or not;
             off-by-one slice perturbations; affine / sequential / range loops; a tile shared by iterations
  Matmul     K/M/N tilings with random tile sizes, PSUM inside or outside the loops, manual PSUM addresses,
             accumulate flags
  Carried    accumulations and shifted writes across affine vs sequential iterations
  Spmd       Beta-1 grids with disjoint or overlapping rows; LNC2 cores with and without a barrier
  Placement  manually placed SBUF tensors (random sizes and addresses, overlapping or not)
  Capacity   SBUF tiles near the capacity whose live ranges overlap or not, across a loop
  Pattern    `.ap()` access patterns with random steps and offsets
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

B2_HEADER = "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n\n"
B1_HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\nimport neuronxcc.nki.language as nl\n\n\n"
LOOPS = {"affine": "nl.affine_range", "sequential": "nl.sequential_range", "range": "range"}


@dataclass(frozen=True)
class Param:
    """A kernel input: a float32 array whose dims are named by shape variables (or a Python int)."""

    name: str
    dims: tuple = ()  # names of shape variables; () for an int argument


@dataclass
class Program:
    spec: Any
    source: str
    entry: str  # what the device runs: the kernel, or a host launcher that launches it
    kernel: str
    params: tuple
    shape_vars: dict  # shape variable -> admissible value used by default
    grid: Any = None  # device grid when the entry is the kernel itself
    verify_shapes: bool = False  # give the verifier the concrete shapes (--shape)
    reference: Callable[[dict], Any] | None = None
    intended: bool = True  # no bug was planted: a clean kernel must compute the reference
    rtol: float = 0.0
    atol: float = 0.0
    samples: list = field(default_factory=list)  # more admissible shape assignments for the soundness runs

    def inputs(self, values: dict, seed: int = 0) -> dict:
        rng = np.random.default_rng(seed)
        out = {}
        for p in self.params:
            if not p.dims:
                out[p.name] = int(values[p.name])
            else:
                out[p.name] = rng.uniform(-1.0, 1.0, tuple(int(values[d]) for d in p.dims)).astype(np.float32)
        return out

    def verifier_shapes(self) -> dict:
        if not self.verify_shapes:
            return {}
        shapes = {p.name: (tuple(self.shape_vars[d] for d in p.dims), "float32") for p in self.params if p.dims}
        return {self.kernel: shapes}


class Src:
    """Source lines with indentation."""

    def __init__(self, header: str) -> None:
        self.lines = header.rstrip("\n").split("\n") + ["", ""]
        self.depth = 0

    def add(self, text: str) -> "Src":
        self.lines.append("    " * self.depth + text)
        return self

    def indent(self) -> "Src":
        self.depth += 1
        return self

    def dedent(self, n: int = 1) -> "Src":
        self.depth -= n
        return self

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _header(dialect: str) -> str:
    return B2_HEADER if dialect == "beta2" else B1_HEADER


# ----------------------------------------------------------------------------- Tiled


@dataclass(frozen=True)
class Tiled:
    dialect: str
    op: str  # copy | add | scale | exp
    shape_mode: str  # concrete | divisible | free | given
    p: int  # admissible rows
    f: int  # admissible columns
    pt: int  # tile rows
    ft: int  # tile columns (0: the whole row)
    tail: str  # exact | min (beta2) / mask (beta1)
    loop: str
    extra_trip: int = 0  # one iteration too many
    perturb: tuple = (0, 0, 0, 0)  # added to src start, src end, dst start, dst end (rows)
    shared_tile: bool = False  # the SBUF tile is allocated once, outside the loops (beta2)
    # beta2: how a row tile's start is found: `i * pt` (index), a running start bumped to the tile's end
    # (running), or a `while r0 < P` loop doing the same (while; no extra trip)
    rows_by: str = "index"


@st.composite
def tiled(draw: Any) -> Tiled:
    dialect = draw(st.sampled_from(["beta2", "beta1"]))
    pt = draw(st.sampled_from([32, 64, 128, 128, 256]))
    ft = draw(st.sampled_from([0, 64, 128, 512, 1000]))
    mode = draw(st.sampled_from(["concrete", "divisible", "free", "given"]))
    tail = draw(st.sampled_from(["exact", "min" if dialect == "beta2" else "mask"]))
    if dialect == "beta1" and tail == "mask" and ft:
        # Known verifier gap (reported): `&` of two symbolic comparisons is NKI902, so a Beta-1 mask can only
        # bound the rows; column tiles are then whole tiles of a divisible width.
        mode = "divisible"
    if mode == "divisible" or tail == "exact" and draw(st.booleans()):
        p = pt * draw(st.integers(1, 3))
        f = (ft or 64) * draw(st.integers(1, 2)) if ft else draw(st.integers(1, 300))
    else:
        p = draw(st.integers(1, 400))
        f = draw(st.integers(1, 1100))
    perturb = (0, 0, 0, 0)
    if draw(st.integers(0, 3)) == 0:
        # no perturbation that makes a start negative: the same wrap-around gap as below
        perturb = draw(st.sampled_from([(1, 1, 0, 0), (0, 1, 0, 0), (0, 0, 1, 1), (0, 0, 0, -1), (1, 0, 1, 0)]))
    # Known verifier gap (reported): a slice bound computed at run time is not wrapped when negative (NKI
    # and the device wrap it like Python); one extra trip over min()-clamped tails makes r1 - r0 negative.
    extra = 0 if tail == "min" else draw(st.sampled_from([0, 0, 0, 1]))
    # Known verifier gap (reported): covers_whole is structural, so `t[0:min(r0 + T, P) - r0, :]` is never a
    # whole overwrite of t (NKI401 where the device sees NKI403): a shared tile only with exact tails.
    shared = dialect == "beta2" and tail == "exact" and draw(st.integers(0, 4)) == 0
    if shared and ft and f < 2 * ft:
        # NKI401 vs NKI403 depends on whether the front end keeps a single-trip inner loop (it drops one whose
        # trip count is a known constant 1, keeps a symbolic one): a shared tile gets two column tiles
        f = 2 * ft
    rows_by = draw(st.sampled_from(["index", "index", "running", "while"])) if dialect == "beta2" else "index"
    if rows_by == "while":
        extra = 0
    return Tiled(dialect, draw(st.sampled_from(["copy", "add", "scale", "exp"])), mode, p, f, pt, ft, tail,
                 draw(st.sampled_from(["affine", "sequential", "range"])), extra, perturb, shared, rows_by)


def build_tiled(s: Tiled) -> Program:
    src = Src(_header(s.dialect))
    two = s.op == "add"
    args = "x, y" if two else "x"
    src.add("@nki.jit").add(f"def k({args}):").indent()
    src.add("P, F = x.shape")
    if two:
        src.add("assert x.shape == y.shape")
    if s.shape_mode == "concrete":
        src.add(f"assert x.shape == ({s.p}, {s.f})")
    elif s.shape_mode == "divisible":
        src.add(f"assert P % {s.pt} == 0")
        if s.ft:
            src.add(f"assert F % {s.ft} == 0")
    if not s.ft:
        src.add("assert F <= 2048")
    src.add("out = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)")
    fw = str(s.ft) if s.ft else "F"
    exact = s.tail == "exact"
    rows = f"P // {s.pt}" if exact else f"(P + {s.pt - 1}) // {s.pt}"
    cols = (f"F // {s.ft}" if exact else f"(F + {s.ft - 1}) // {s.ft}") if s.ft else None
    if s.extra_trip:
        rows += " + 1"
    loop = LOOPS[s.loop]
    if s.dialect == "beta2":
        _tiled_b2(s, src, rows, cols, fw, loop, two)
    else:
        _tiled_b1(s, src, rows, cols, fw, loop, two)
    src.add("return out")
    divisible = s.p % s.pt == 0 and (not s.ft or s.f % s.ft == 0)
    intended = s.perturb == (0, 0, 0, 0) and not s.extra_trip and (not exact or divisible) and not s.shared_tile
    ops = {"copy": lambda v: v["x"], "add": lambda v: v["x"] + v["y"], "scale": lambda v: v["x"] * np.float32(2),
           "exp": lambda v: np.exp(v["x"])}
    params = (Param("x", ("P", "F")),) + ((Param("y", ("P", "F")),) if two else ())
    return Program(s, src.text(), "k", "k", params, {"P": s.p, "F": s.f}, verify_shapes=s.shape_mode == "given",
                   reference=lambda v, fn=ops[s.op]: fn(v), intended=intended, rtol=1e-6 if s.op == "exp" else 0,
                   samples=_tiled_samples(s))


def _tiled_samples(s: Tiled) -> list:
    """Other admissible shapes for the soundness runs (the kernel's asserts must hold)."""
    if s.shape_mode in ("concrete", "given"):
        return []
    out = []
    for p, f in ((s.pt, s.ft or 40), (3 * s.pt, 2 * (s.ft or 64)), (s.pt + 5, (s.ft or 64) + 3)):
        if s.shared_tile and s.ft:
            f += s.ft  # two column tiles at least (see tiled())
        if s.shape_mode == "divisible" and (p % s.pt or (s.ft and f % s.ft)):
            continue
        out.append({"P": p, "F": f})
    return out


def _tiled_b2(s: Tiled, src: Src, rows: str, cols: str | None, fw: str, loop: str, two: bool) -> None:
    dp0, dp1, dq0, dq1 = s.perturb
    if s.shared_tile:
        src.add(f"t = nl.ndarray(({s.pt}, {fw}), dtype=nl.float32, buffer=nl.sbuf)")
    end = f"r1 = min(r0 + {s.pt}, P)" if s.tail == "min" else f"r1 = r0 + {s.pt}"
    if s.rows_by != "index":
        src.add("r0 = 0")
    src.add("while r0 < P:" if s.rows_by == "while" else f"for i in {loop}({rows}):").indent()
    if s.rows_by != "index":
        src.add(end)  # (before the column loop: the start moves to it after that loop, which may not run)
    if cols:
        src.add(f"for j in {loop}({cols}):").indent()
    if s.rows_by == "index":
        src.add(f"r0 = i * {s.pt}").add(end)
    if cols:
        src.add(f"c0 = j * {s.ft}")
        src.add(f"c1 = min(c0 + {s.ft}, F)" if s.tail == "min" else f"c1 = c0 + {s.ft}")
    else:
        src.add("c0 = 0").add("c1 = F")
    if not s.shared_tile:
        src.add(f"t = nl.ndarray(({s.pt}, {fw}), dtype=nl.float32, buffer=nl.sbuf)")
    view = "t[0:r1 - r0, 0:c1 - c0]"
    src.add(f"nisa.dma_copy(dst={view}, src=x[r0{_off(dp0)}:r1{_off(dp1)}, c0:c1])")
    if two:
        src.add(f"u = nl.ndarray(({s.pt}, {fw}), dtype=nl.float32, buffer=nl.sbuf)")
        src.add("nisa.dma_copy(dst=u[0:r1 - r0, 0:c1 - c0], src=y[r0:r1, c0:c1])")
        src.add(f"nisa.tensor_tensor(dst={view}, data1={view}, data2=u[0:r1 - r0, 0:c1 - c0], op=nl.add)")
    elif s.op == "scale":
        src.add(f"nisa.tensor_scalar(dst={view}, data={view}, op0=nl.multiply, operand0=2.0)")
    elif s.op == "exp":
        src.add(f"nisa.activation(dst={view}, op=nl.exp, data={view})")
    src.add(f"nisa.dma_copy(dst=out[r0{_off(dq0)}:r1{_off(dq1)}, c0:c1], src={view})")
    if s.rows_by != "index":
        src.dedent(1 if cols else 0).add("r0 = r1").dedent(1)
    else:
        src.dedent(2 if cols else 1)


def _tiled_b1(s: Tiled, src: Src, rows: str, cols: str | None, fw: str, loop: str, two: bool) -> None:
    dp0, _, dq0, _ = s.perturb
    src.add(f"i_p = nl.arange({s.pt})[:, None]")
    src.add(f"i_f = nl.arange({fw})[None, :]")
    src.add(f"for i in {loop}({rows}):").indent()
    if cols:
        src.add(f"for j in {loop}({cols}):").indent()
        src.add(f"cols = j * {s.ft} + i_f")
    else:
        src.add("cols = i_f")
    src.add(f"rows = i * {s.pt} + i_p")
    masked = s.tail == "mask"
    if masked:
        src.add("m = rows < P")
    mask = ", mask=m" if masked else ""
    src.add(f"t = nl.load(x[rows{_off(dp0)}, cols]{mask})")
    if two:
        src.add(f"r = nl.add(t, nl.load(y[rows, cols]{mask}){mask})")
    elif s.op == "scale":
        src.add(f"r = nl.multiply(t, 2.0{mask})")
    elif s.op == "exp":
        src.add(f"r = nl.exp(t{mask})")
    else:
        src.add("r = t")
    src.add(f"nl.store(out[rows{_off(dq0)}, cols], value=r{mask})")
    src.dedent(2 if cols else 1)


def _off(d: int) -> str:
    return "" if d == 0 else (f" + {d}" if d > 0 else f" - {-d}")


# ----------------------------------------------------------------------------- Matmul


@dataclass(frozen=True)
class Matmul:
    dialect: str
    k: int
    m: int
    n: int
    tk: int
    tm: int
    tn: int
    kloop: str
    psum: str  # inside | outside | manual
    bank_offset: int = 0  # bytes added to bank * 2048 for a manual PSUM address
    accumulate: str = "none"  # none | first (accumulate=(kk > 0)) | plus (beta1 `acc += ...`) | assign
    dtype: str = "float32"
    shape_mode: str = "concrete"


@st.composite
def matmuls(draw: Any) -> Matmul:
    dialect = draw(st.sampled_from(["beta2", "beta1"]))
    tk = draw(st.sampled_from([64, 128, 128, 256]))
    tm = draw(st.sampled_from([64, 128, 128, 256]))
    tn = draw(st.sampled_from([128, 256, 512, 512, 1024]))
    psum = draw(st.sampled_from(["inside", "inside", "outside", "manual"] if dialect == "beta2" else ["inside"]))
    kloop = draw(st.sampled_from(["affine", "sequential"]))
    acc = draw(st.sampled_from(["none", "first"] if dialect == "beta2" else ["plus", "assign"]))
    if acc == "first":
        # Known verifier gap (reported): accumulate=(kk > 0) makes the iterations order-dependent (iteration 0
        # must overwrite first), yet every matmul into PSUM is exempt from NKI401: only with a sequential loop.
        kloop = "sequential"
    # a PSUM tile shared by the (m, n) iterations gets a K loop of two trips at least: see Tiled's shared tile
    k = tk * draw(st.integers(1 if psum == "inside" else 2, 3))
    m, n = tm * draw(st.integers(1, 2)), tn * draw(st.integers(1, 2))
    return Matmul(dialect, k, m, n, tk, tm, tn, kloop, psum,
                  draw(st.sampled_from([0, 0, 0, 1024, 512])) if psum == "manual" else 0, acc,
                  draw(st.sampled_from(["float32", "bfloat16"])), draw(st.sampled_from(["concrete", "divisible"])))


def build_matmul(s: Matmul) -> Program:
    src = Src(_header(s.dialect))
    src.add("@nki.jit").add("def k(lhsT, rhs):").indent()
    src.add("K, M = lhsT.shape").add("K2, N = rhs.shape").add("assert K == K2")
    if s.shape_mode == "concrete":
        src.add(f"assert lhsT.shape == ({s.k}, {s.m}) and rhs.shape == ({s.k}, {s.n})")
    else:
        src.add(f"assert K % {s.tk} == 0 and M % {s.tm} == 0 and N % {s.tn} == 0")
        src.add("assert K <= 1024 and M <= 1024 and N <= 4096")
    src.add("result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)")
    psum_alloc = f"acc = nl.ndarray(({s.tm}, {s.tn}), dtype=nl.float32, buffer=nl.psum"
    if s.psum == "outside":
        src.add(psum_alloc + ")")
    if s.psum == "manual":
        src.add(psum_alloc + f", address=(0, 2 * 2048 + {s.bank_offset}))")
    src.add(f"for m in nl.affine_range(M // {s.tm}):").indent()
    src.add(f"for n in nl.affine_range(N // {s.tn}):").indent()
    if s.dialect == "beta2":
        if s.psum == "inside":
            src.add(psum_alloc + ")")
        src.add(f"for kk in {LOOPS[s.kloop]}(K // {s.tk}):").indent()
        src.add(f"lt = nl.ndarray(({s.tk}, {s.tm}), dtype=nl.{s.dtype}, buffer=nl.sbuf)")
        src.add(f"rt = nl.ndarray(({s.tk}, {s.tn}), dtype=nl.{s.dtype}, buffer=nl.sbuf)")
        src.add(f"nisa.dma_copy(dst=lt, src=lhsT[kk * {s.tk}:(kk + 1) * {s.tk}, m * {s.tm}:(m + 1) * {s.tm}])")
        src.add(f"nisa.dma_copy(dst=rt, src=rhs[kk * {s.tk}:(kk + 1) * {s.tk}, n * {s.tn}:(n + 1) * {s.tn}])")
        flag = ", accumulate=(kk > 0)" if s.accumulate == "first" else ""
        src.add(f"nisa.nc_matmul(dst=acc, stationary=lt, moving=rt{flag})").dedent()
        src.add(f"res = nl.ndarray(({s.tm}, {s.tn}), dtype=nl.float32, buffer=nl.sbuf)")
        src.add("nisa.tensor_copy(dst=res, src=acc)")
        src.add(f"nisa.dma_copy(dst=result[m * {s.tm}:(m + 1) * {s.tm}, n * {s.tn}:(n + 1) * {s.tn}], src=res)")
    else:
        src.add(f"acc = nl.zeros(({s.tm}, {s.tn}), nl.float32, buffer=nl.psum)")
        src.add(f"for kk in {LOOPS[s.kloop]}(K // {s.tk}):").indent()
        src.add(f"lt = nl.load(lhsT[kk * {s.tk}:(kk + 1) * {s.tk}, m * {s.tm}:(m + 1) * {s.tm}], "
                f"dtype=nl.{s.dtype})")
        src.add(f"rt = nl.load(rhs[kk * {s.tk}:(kk + 1) * {s.tk}, n * {s.tn}:(n + 1) * {s.tn}], dtype=nl.{s.dtype})")
        target = "acc" if s.accumulate == "plus" else "acc[...]"
        src.add(f"{target} += nl.matmul(lt, rt, transpose_x=True)").dedent()
        src.add(f"nl.store(result[m * {s.tm}:(m + 1) * {s.tm}, n * {s.tn}:(n + 1) * {s.tn}], value=nl.copy(acc))")
    src.dedent(2).add("return result")
    low = s.dtype == "bfloat16"

    def reference(v: dict) -> np.ndarray:
        a, b = v["lhsT"], v["rhs"]
        if low:
            a, b = (z.astype(ml_dtypes.bfloat16).astype(np.float32) for z in (a, b))
        return (a.astype(np.float64).T @ b.astype(np.float64)).astype(np.float32)

    shared_psum = s.psum != "inside" and (s.m // s.tm) * (s.n // s.tn) > 1
    intended = not shared_psum and s.tk <= 128 and s.tm <= 128 and s.tn <= 512
    k_min = s.tk if s.psum == "inside" else 2 * s.tk
    samples = [] if s.shape_mode == "concrete" else [{"K": k_min, "M": s.tm, "N": s.tn},
                                                     {"K": 2 * s.tk, "M": 2 * s.tm, "N": 2 * s.tn}]
    return Program(s, src.text(), "k", "k", (Param("lhsT", ("K", "M")), Param("rhs", ("K", "N"))),
                   {"K": s.k, "M": s.m, "N": s.n}, reference=reference, intended=intended, rtol=2e-5, atol=2e-5,
                   samples=samples)


# ----------------------------------------------------------------------------- Carried


@dataclass(frozen=True)
class Carried:
    dialect: str
    kind: str  # accumulate | plus_equals (beta1) | reuse | prefix | shifted
    loop: str
    blocks: int
    p: int
    f: int


@st.composite
def carried(draw: Any) -> Carried:
    dialect = draw(st.sampled_from(["beta2", "beta1"]))
    kinds = ["accumulate", "reuse", "prefix", "shifted"] + (["plus_equals"] if dialect == "beta1" else [])
    return Carried(dialect, draw(st.sampled_from(kinds)), draw(st.sampled_from(["affine", "sequential"])),
                   draw(st.integers(2, 5)), draw(st.sampled_from([64, 128])), draw(st.sampled_from([32, 200])))


def build_carried(s: Carried) -> Program:
    src = Src(_header(s.dialect))
    loop = LOOPS[s.loop]
    b, p, f = s.blocks, s.p, s.f
    src.add("@nki.jit").add("def k(x):").indent()
    src.add(f"assert x.shape == ({b}, {p}, {f})")
    if s.kind in ("accumulate", "plus_equals"):
        src.add(f"out = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.shared_hbm)")
        if s.dialect == "beta2":
            src.add(f"acc = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add("nisa.memset(dst=acc, value=0.0)")
            src.add(f"for i in {loop}({b}):").indent()
            src.add(f"t = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add("nisa.dma_copy(dst=t, src=x[i])")
            src.add("nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)").dedent()
            src.add("nisa.dma_copy(dst=out, src=acc)")
        else:
            src.add(f"acc = nl.zeros(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add(f"for i in {loop}({b}):").indent()
            if s.kind == "plus_equals":
                src.add("acc[...] += nl.load(x[i])").dedent()
            else:
                src.add("acc[...] = nisa.tensor_tensor(acc, nl.load(x[i]), op=nl.add)").dedent()
            src.add("nl.store(out, value=acc)")
        def reference(v: dict) -> np.ndarray:
            return v["x"].sum(axis=0)
    elif s.kind == "reuse":
        src.add(f"out = nl.ndarray(({b}, {p}, {f}), dtype=nl.float32, buffer=nl.shared_hbm)")
        if s.dialect == "beta2":
            src.add(f"buf = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add(f"for i in {loop}({b}):").indent()
            src.add("nisa.dma_copy(dst=buf, src=x[i])").add("nisa.dma_copy(dst=out[i], src=buf)").dedent()
        else:
            src.add(f"buf = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add(f"for i in {loop}({b}):").indent()
            src.add("buf[...] = nl.load(x[i])").add("nl.store(out[i], value=buf)").dedent()
        def reference(v: dict) -> np.ndarray:
            return v["x"]
    elif s.kind == "prefix":
        src.add(f"out = nl.ndarray(({b}, {p}, {f}), dtype=nl.float32, buffer=nl.shared_hbm)")
        if s.dialect == "beta2":
            src.add(f"t0 = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add("nisa.dma_copy(dst=t0, src=x[0])").add("nisa.dma_copy(dst=out[0], src=t0)")
            src.add(f"for i in {loop}({b - 1}):").indent()
            src.add(f"t = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add("nisa.dma_copy(dst=t, src=out[i])").add("nisa.dma_copy(dst=out[i + 1], src=t)").dedent()
        else:
            src.add("nl.store(out[0], value=nl.load(x[0]))")
            src.add(f"for i in {loop}({b - 1}):").indent()
            src.add("t = nl.load(out[i])").add("nl.store(out[i + 1], value=t)").dedent()
        def reference(v: dict) -> np.ndarray:
            return np.broadcast_to(v["x"][0], v["x"].shape)
    else:  # shifted: iteration i writes rows [i * p/2, i * p/2 + p) of the output
        half = p // 2
        rows = half * (b + 1)
        src.add(f"out = nl.ndarray(({rows}, {f}), dtype=nl.float32, buffer=nl.shared_hbm)")
        src.add(f"for i in {loop}({b}):").indent()
        if s.dialect == "beta2":
            src.add(f"t = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf)")
            src.add("nisa.dma_copy(dst=t, src=x[i])")
            src.add(f"nisa.dma_copy(dst=out[i * {half}:i * {half} + {p}, :], src=t)").dedent()
        else:
            src.add(f"nl.store(out[i * {half}:i * {half} + {p}, :], value=nl.load(x[i]))").dedent()

        def reference(v: dict, half: int = half, rows: int = rows) -> np.ndarray:
            out = np.zeros((rows, v["x"].shape[2]), np.float32)
            for i in range(v["x"].shape[0]):
                out[i * half:i * half + v["x"].shape[1]] = v["x"][i]
            return out
    src.add("return out")
    # sequential order is the intended semantics; an affine loop with a real dependency is still computed
    # in program order by the device, and the Beta-2 buffer reuse is benign
    intended = s.loop == "sequential" or s.kind in ("plus_equals", "reuse")
    return Program(s, src.text(), "k", "k", (Param("x", ("B", "P", "F")),), {"B": b, "P": p, "F": f},
                   reference=reference, intended=intended, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- Spmd


@dataclass(frozen=True)
class Spmd:
    dialect: str
    programs: int  # beta1 grid size (beta2: 2 cores)
    tile_rows: int
    stride: int  # rows between consecutive programs' tiles (beta1)
    f: int
    shape_mode: str  # concrete | launcher (beta1 grid computed from the input)
    variant: str = "own"  # beta2: own | same_rows | exchange | exchange_no_barrier | read_first


@st.composite
def spmds(draw: Any) -> Spmd:
    dialect = draw(st.sampled_from(["beta1", "beta2"]))
    f = draw(st.sampled_from([64, 512]))
    if dialect == "beta2":
        return Spmd(dialect, 2, 128, 128, f, "concrete",
                    draw(st.sampled_from(["own", "same_rows", "exchange", "exchange_no_barrier", "read_first"])))
    tr = draw(st.sampled_from([64, 128]))
    stride = draw(st.sampled_from([tr, tr, tr // 2, tr * 2]))
    return Spmd(dialect, draw(st.integers(1, 4)), tr, stride, f, draw(st.sampled_from(["concrete", "launcher"])))


def build_spmd(s: Spmd) -> Program:
    src = Src(_header(s.dialect))
    if s.dialect == "beta1":
        rows = s.stride * (s.programs - 1) + s.tile_rows
        src.add("@nki.jit").add("def k(a):").indent()
        if s.shape_mode == "concrete":
            src.add(f"assert a.shape == ({rows}, {s.f})")
        else:
            src.add(f"assert a.shape[1] == {s.f}")
        src.add("out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)")
        src.add(f"ix = nl.program_id(0) * {s.stride} + nl.arange({s.tile_rows})[:, None]")
        src.add(f"iy = nl.arange({s.f})[None, :]")
        src.add("nl.store(out[ix, iy], value=nl.exp(nl.load(a[ix, iy])))")
        src.add("return out").dedent()
        src.add("").add("").add("def launch(a):").indent()
        grid = str(s.programs) if s.shape_mode == "concrete" else \
            f"(a.shape[0] - {s.tile_rows}) // {s.stride} + 1"
        src.add(f"return k[{grid}](a)")
        intended = s.stride >= s.tile_rows and s.stride == s.tile_rows
        return Program(s, src.text(), "launch", "k", (Param("a", ("R", "F")),), {"R": rows, "F": s.f},
                       reference=lambda v: np.exp(v["a"]), intended=intended, rtol=1e-6)
    src.add("@nki.jit").add("def k(a):").indent()
    src.add(f"assert a.shape == (256, {s.f})")
    src.add("out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)")
    src.add("pid = nl.program_id(0)")
    src.add(f"t = nl.ndarray((128, {s.f}), dtype=a.dtype, buffer=nl.sbuf)")
    src.add("nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])")
    rows = "0:128" if s.variant == "same_rows" else "pid * 128:(pid + 1) * 128"
    if s.variant == "read_first":  # the other core's half is read before this core writes its own
        src.add(f"o = nl.ndarray((128, {s.f}), dtype=a.dtype, buffer=nl.sbuf)")
        src.add("nisa.dma_copy(dst=o, src=out[(1 - pid) * 128:(2 - pid) * 128, :])")
        src.add(f"nisa.dma_copy(dst=out[{rows}, :], src=t)")

        def reference(v: dict) -> np.ndarray:
            return v["a"]
    elif s.variant.startswith("exchange"):
        src.add(f"nisa.dma_copy(dst=out[{rows}, :], src=t)")
        if s.variant == "exchange":
            src.add("nisa.core_barrier(out, (0, 1))")
        src.add(f"o = nl.ndarray((128, {s.f}), dtype=a.dtype, buffer=nl.sbuf)")
        src.add("nisa.dma_copy(dst=o, src=out[(1 - pid) * 128:(2 - pid) * 128, :])")
        src.add("nisa.activation(dst=o, op=nl.exp, data=o)")
        src.add("nisa.dma_copy(dst=t, src=o)")
        if s.variant == "exchange":
            src.add("nisa.core_barrier(out, (0, 1))")
        src.add("nisa.dma_copy(dst=out[(1 - pid) * 128:(2 - pid) * 128, :], src=t)")
        def reference(v: dict) -> np.ndarray:
            return np.exp(v["a"])
    else:
        src.add(f"nisa.dma_copy(dst=out[{rows}, :], src=t)")

        def reference(v: dict) -> np.ndarray:
            return v["a"]
    src.add("return out").dedent()
    src.add("").add("").add("def launch(a):").indent().add("return k[2](a)")
    return Program(s, src.text(), "launch", "k", (Param("a", ("R", "F")),), {"R": 256, "F": s.f},
                   reference=reference, intended=s.variant in ("own", "exchange"), rtol=1e-6)


# ----------------------------------------------------------------------------- Placement


@dataclass(frozen=True)
class Placement:
    p: int
    f: int
    a_address: tuple  # (partition, byte)
    b_address: tuple
    buffer_b: str = "sbuf"  # sbuf | psum (b then holds the transposed-free matmul result)


@st.composite
def placements(draw: Any) -> Placement:
    p = draw(st.sampled_from([32, 64, 128]))
    f = draw(st.sampled_from([16, 128, 512, 20000]))
    part = st.sampled_from([0, 0, 32, 64, 96])
    byte = st.sampled_from([0, 4, 512, 2048, 4096, 80000, 229376 - 2048])
    return Placement(p, f, (draw(part), draw(byte)), (draw(part), draw(byte)))


def build_placement(s: Placement) -> Program:
    src = Src(B2_HEADER)
    p, f = s.p, s.f
    src.add("@nki.jit").add("def k(x):").indent()
    src.add(f"assert x.shape == ({p}, {f})")
    src.add(f"out = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.shared_hbm)")
    src.add(f"a = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf, address={s.a_address})")
    src.add(f"b = nl.ndarray(({p}, {f}), dtype=nl.float32, buffer=nl.sbuf, address={s.b_address})")
    src.add("nisa.dma_copy(dst=a, src=x)")
    src.add("nisa.activation(dst=b, op=nl.exp, data=a)")
    src.add("nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)")
    src.add("nisa.dma_copy(dst=out, src=b)")
    src.add("return out")
    nbytes = f * 4
    fits = all(a[0] + p <= 128 and a[1] + nbytes <= 229376 for a in (s.a_address, s.b_address))
    (pa, oa), (pb, ob) = s.a_address, s.b_address
    overlap = pa < pb + p and pb < pa + p and oa < ob + nbytes and ob < oa + nbytes
    return Program(s, src.text(), "k", "k", (Param("x", ("P", "F")),), {"P": p, "F": f},
                   reference=lambda v: v["x"] + np.exp(v["x"]), intended=fits and not overlap, rtol=1e-6)


# ----------------------------------------------------------------------------- Capacity


@dataclass(frozen=True)
class Capacity:
    """Two SBUF tiles whose live ranges overlap or not: `a` is allocated before a loop and used in it (before
    or after `b` is allocated in the body), or used only before the loop; sizes near the per-partition
    capacity (229376 bytes on trn2)."""

    a_cols: int
    b_cols: int
    a_use: str  # before_loop | loop_start | loop_end
    trips: int


@st.composite
def capacities(draw: Any) -> Capacity:
    cols = st.sampled_from([1024, 8192, 20000, 30000, 40000])
    use = draw(st.sampled_from(["before_loop", "loop_start", "loop_end"]))
    trips = draw(st.integers(1, 3))
    return Capacity(draw(cols), draw(cols), use, trips)


def build_capacity(s: Capacity) -> Program:
    src = Src(B2_HEADER)
    src.add("@nki.jit").add("def k(x):").indent()
    src.add(f"assert x.shape == (128, {max(s.a_cols, s.b_cols)})")
    src.add(f"out = nl.ndarray((128, {s.b_cols}), dtype=nl.float32, buffer=nl.shared_hbm)")
    src.add(f"a = nl.ndarray((128, {s.a_cols}), dtype=nl.float32, buffer=nl.sbuf)")
    src.add(f"nisa.dma_copy(dst=a, src=x[:, 0:{s.a_cols}])")
    src.add(f"for i in nl.sequential_range({s.trips}):").indent()
    if s.a_use == "loop_start":
        src.add("nisa.activation(dst=a, op=nl.exp, data=a)")
    src.add(f"b = nl.ndarray((128, {s.b_cols}), dtype=nl.float32, buffer=nl.sbuf)")
    src.add(f"nisa.dma_copy(dst=b, src=x[:, 0:{s.b_cols}])")
    if s.a_use == "loop_end":
        src.add("nisa.activation(dst=a, op=nl.exp, data=a)")
    src.add("nisa.dma_copy(dst=out, src=b)").dedent()
    src.add("return out")
    return Program(s, src.text(), "k", "k", (Param("x", ("P", "F")),), {"P": 128, "F": max(s.a_cols, s.b_cols)},
                   reference=lambda v: v["x"][:, :s.b_cols], intended=(s.a_cols + s.b_cols) * 4 <= 229376)


# ----------------------------------------------------------------------------- Pattern


@dataclass(frozen=True)
class Pattern:
    rows: int
    cols: int
    pattern: tuple  # ((step, count), (step, count))
    offset: int


@st.composite
def patterns(draw: Any) -> Pattern:
    rows, cols = draw(st.sampled_from([(8, 16), (16, 64), (64, 32)]))
    nr = draw(st.integers(1, rows))
    nc = draw(st.integers(1, cols))
    sr = draw(st.sampled_from([cols, cols, 2 * cols, cols + 1]))
    sc = draw(st.sampled_from([1, 1, 2]))
    off = draw(st.sampled_from([0, 0, 1, cols, -1]))
    return Pattern(rows, cols, ((sr, nr), (sc, nc)), off)


def build_pattern(s: Pattern) -> Program:
    (sr, nr), (sc, nc) = s.pattern
    src = Src(B2_HEADER)
    src.add("@nki.jit").add("def k(x):").indent()
    src.add(f"assert x.shape == ({s.rows}, {s.cols})")
    src.add(f"out = nl.ndarray(({nr}, {nc}), dtype=x.dtype, buffer=nl.shared_hbm)")
    src.add(f"t = nl.ndarray(({nr}, {nc}), dtype=x.dtype, buffer=nl.sbuf)")
    src.add(f"nisa.dma_copy(dst=t, src=x.ap(pattern=[[{sr}, {nr}], [{sc}, {nc}]], offset={s.offset}))")
    src.add("nisa.dma_copy(dst=out, src=t)")
    src.add("return out")
    last = s.offset + sr * (nr - 1) + sc * (nc - 1)
    inside = s.offset >= 0 and last < s.rows * s.cols

    def reference(v: dict) -> np.ndarray:
        flat = v["x"].ravel()
        idx = s.offset + sr * np.arange(nr)[:, None] + sc * np.arange(nc)[None, :]
        return flat[idx]

    return Program(s, src.text(), "k", "k", (Param("x", ("R", "C")),), {"R": s.rows, "C": s.cols},
                   reference=reference, intended=inside)


# ----------------------------------------------------------------------------- all templates

BUILDERS = {Tiled: build_tiled, Matmul: build_matmul, Carried: build_carried, Spmd: build_spmd,
            Placement: build_placement, Pattern: build_pattern, Capacity: build_capacity}


def build(spec: Any) -> Program:
    return BUILDERS[type(spec)](spec)


def specs() -> Any:
    return st.one_of(tiled(), tiled(), matmuls(), carried(), spmds(), placements(), patterns(), capacities())

