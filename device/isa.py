"""Numpy semantics of the `nki.isa` instructions (what the NKI API docs say each one computes).

Operands are read through the `Call` (which checks for unwritten memory and logs accesses) and written
back cast to the destination dtype.  Engine arithmetic is float32 (integers exact, see device.ops).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from compiler.spec.isa import REORDERABLE_OPS

from . import dtypes as DT
from . import ops as O
from .calls import Call
from .dispatch import semantics
from .faults import Unsupported
from .grids import IndexGrid, Mask
from .tensor import View


def _rows(a: np.ndarray, p: int) -> np.ndarray:
    """(P, free) view of a tile's values."""
    return a.reshape(p, a.size // p if p else 0)


def _copy_values(call: Call, src: str, dst: str) -> np.ndarray:
    """Values of `src` for `dst`: bit-exact when the dtypes agree (or are both integers), else converted
    through float32 as the engines and DMA do."""
    v = call.read(src)
    a, b = call.tensor(src).storage.dname, call.tensor(dst).storage.dname
    if a == b or (DT.is_int(a) and DT.is_int(b)):
        return v
    return DT.to_f32(v)


# ----------------------------------------------------------------------------- data movement


@semantics("isa.dma_copy", "isa.tensor_copy", "isa.tensor_copy_dynamic_src", "isa.tensor_copy_dynamic_dst")
def copy(call: Call) -> None:
    src = call.tensor("src")
    dst = call.tensor("dst")
    if _same_place(src, dst):
        return  # `dma_copy(out, out)` (a flush): every element keeps its value; no access to race with
    v = _copy_values(call, "src", "dst")
    if dst.numel != src.numel:
        v = _rows(v, src.shape[0])  # mismatched element counts were reported; copy what fits
    # elements a dynamic source cannot address are not transferred with oob_mode.skip; otherwise the fault is
    # reported and the destination holds whatever was read (later reads of it are not uninitialised reads)
    skip = getattr(call.get("oob_mode"), "spec_name", None) == "skip"
    call.write("dst", v, keep=src.valid_mask() if src.dynamic and skip else None)


def _same_place(a: Any, b: Any) -> bool:
    """Two views of the same elements in the same order (as the verifier's races.py `_self_copy`)."""
    return (a.storage is b.storage and a.shape == b.shape and a.strides == b.strides and a.offset == b.offset
            and a.grid is None and b.grid is None and not a.dynamic and not b.dynamic
            and a.storage.dname == b.storage.dname)


@semantics("isa.dma_transpose")
def dma_transpose(call: Call) -> None:
    v = call.read("src")
    axes = call.get("axes")
    out = np.transpose(v, tuple(axes)) if axes else np.transpose(v)
    call.write("dst", out)


@semantics("isa.dma_compute")
def dma_compute(call: Call) -> None:
    srcs = call.get("srcs")
    scales = call.get("scales") or [1.0] * len(srcs)
    op = O.as_op(call.get("reduce_op"))
    acc = None
    for s, k in zip(srcs, scales):
        v = DT.to_f32(call.program.load(s)).reshape(-1) * np.float32(k)
        acc = v if acc is None else O.apply_binary(op, acc, v)
    call.write("dst", acc)


@semantics("isa.tensor_copy_predicated")
def tensor_copy_predicated(call: Call) -> None:
    dst = call.tensor("dst")
    p = dst.shape[0]
    old = _rows(call.read("dst"), p)
    pred = _rows(call.read("predicate"), p) != 0
    if call.get("reverse_pred"):
        pred = ~pred
    src = _rows(_copy_values(call, "src", "dst"), p) if call.is_tensor("src") else call.operand("src")
    call.write("dst", np.where(pred, src, old))


@semantics("isa.memset")
def memset(call: Call) -> None:
    value = call.get("value")
    if isinstance(value, Register):
        value = value.value
    call.write("dst", np.full(call.tensor("dst").shape, value))


@semantics("isa.nc_stream_shuffle")
def nc_stream_shuffle(call: Call) -> None:
    src, dst = call.tensor("src"), call.tensor("dst")
    s = _rows(call.read("src"), src.shape[0])
    out = _rows(call.read("dst") if _partially(call, "dst") else np.zeros(dst.shape, s.dtype), dst.shape[0]).copy()
    mask = [int(m) for m in call.get("shuffle_mask")]
    for q in range(0, dst.shape[0], 32):
        for i, m in enumerate(mask):
            if m == 255 or q + i >= dst.shape[0] or q + m >= s.shape[0]:
                continue
            out[q + i] = s[q + m]
    call.write("dst", out)


def _partially(call: Call, role: str) -> bool:
    return call.written(role) is True


@semantics("isa.nc_n_gather")
def nc_n_gather(call: Call) -> None:
    data, idx = call.tensor("data"), call.tensor("indices")
    d = _rows(call.read("data"), data.shape[0])
    i = _rows(call.read("indices"), idx.shape[0]).astype(np.int64)
    if (i < 0).any() or (i >= d.shape[1]).any():
        call.fault("NKI102", "an index is outside the gathered rows", (("elements per partition", d.shape[1]),))
        i = np.clip(i, 0, d.shape[1] - 1)
    call.write("dst", np.take_along_axis(d, i, axis=1))


@semantics("isa.local_gather")
def local_gather(call: Call) -> None:
    raise Unsupported("nisa.local_gather is not implemented by the device (its index layout is documented "
                      "inconsistently, see docs/device.md)")


@semantics("isa.sendrecv")
def sendrecv(call: Call) -> None:
    prog = call.program
    mine = call.read("src").copy()
    key = ("sendrecv", call.get("pipe_id"))
    theirs = prog.launch.exchange(prog, key, mine)
    call.write("dst", theirs)


@semantics("isa.core_barrier")
def core_barrier(call: Call) -> None:
    prog = call.program
    prog.launch.barrier(prog, call.site)


# ----------------------------------------------------------------------------- tensor engine


def _matmul_operands(call: Call) -> tuple:
    st, mv = call.tensor("stationary"), call.tensor("moving")
    s = DT.to_f32(call.read("stationary"))
    m = DT.to_f32(call.read("moving"))
    if str(call.get("perf_mode", "none")).endswith("double_row") or \
            getattr(call.get("perf_mode"), "spec_name", "") in ("double_row", "double_row_gen3", "double_row_gen4"):
        # the contraction is split between the partitions and the first free dimension (of size 2)
        s = s.reshape(st.shape[0] * st.shape[1], -1)
        m = m.reshape(mv.shape[0] * mv.shape[1], -1)
    else:
        s = s.reshape(st.shape[0], -1)
        m = m.reshape(mv.shape[0], -1)
    return s, m


@semantics("isa.nc_matmul")
def nc_matmul(call: Call) -> None:
    """dst[M, N] (+)= stationary[K, M].T @ moving[K, N], in float32 (PSUM accumulation)."""
    s, m = _matmul_operands(call)
    k = min(s.shape[0], m.shape[0])
    prod = np.matmul(s[:k].T, m[:k])  # BLAS takes the SBUF's partition stride as the leading dimension
    accumulate_into(call, "dst", prod, call.get("accumulate"))


def accumulate_into(call: Call, role: str, values: np.ndarray, accumulate: Any) -> None:
    """Write a matmul result into PSUM: overwrite (False), add (True), or add where the location was already
    written (by this tile) and overwrite elsewhere (None: the compiler's inference, 'first write overwrites')."""
    dst = call.tensor(role)
    values = values.reshape(dst.shape) if values.size == dst.numel else values
    psum = dst.storage.buffer == "psum"
    if accumulate is False or (accumulate is None and not psum):
        # an explicit overwrite does not commute with the accumulations around it: it is ordered
        call.write(role, values, acc=psum and accumulate is None)
        return
    written = call.written(role)
    if accumulate is None and written is not False and dst.storage.tags is not None:
        # a placed tile shares its bytes with other placements: 'first write' is the tile's own first write
        # (what another tile left there is not an accumulation group of this one)
        own = dst.read(dst.storage.tags, call._mask_for(dst)) == dst.storage.tag
        written = own if not own.all() else True
    if accumulate is True and written is not True:
        call.fault("NKI404", "accumulate=True onto PSUM that no matmul wrote (undefined behaviour)",
                   (("tensor", dst.storage.name),))
    if written is True:
        call.program.on_read(dst, None, acc=True, check=False)
        if call.mask is None and call.program.compute_into(dst, lambda out: np.add(out, values, out=out), acc=psum):
            return
        out = DT.to_f32(dst.values()) + values
    elif written is False or not np.asarray(written).any():
        out = values
    else:
        call.program.on_read(dst, None, acc=True, check=False)
        out = np.where(written, DT.to_f32(dst.values()), 0) + values
    call.write(role, out, acc=psum)


@semantics("isa.nc_transpose")
def nc_transpose(call: Call) -> None:
    data = call.tensor("data")
    v = _rows(call.read("data"), data.shape[0])
    call.write("dst", v.T)


@semantics("isa.nc_matmul_mx", "isa.quantize_mx")
def mx(call: Call) -> None:
    raise Unsupported(f"{call.decl.name} (MX microscaled formats) is not implemented by the device")


# ----------------------------------------------------------------------------- element-wise


def _free(call: Call, role: str, like: View | None = None, acc: bool = False) -> np.ndarray:
    t = call.tensor(role)
    v = call.read(role, acc=acc)
    return _rows(v, t.shape[0])


def _arith_in(call: Call, role: str, acc: bool = False) -> np.ndarray:
    v = _free(call, role, acc=acc)
    return v if O.is_int_array(v) else DT.to_f32(v)


@semantics("isa.tensor_tensor")
def tensor_tensor(call: Call) -> None:
    op = O.as_op(call.get("op"))
    dst = call.tensor("dst")
    # Beta 2 runs affine_range iterations in order: `dst = dst op x` with an op whose order does not matter is an
    # accumulation, which commutes with the same accumulation of another iteration (as `t[...] += v` does)
    acc = call.dialect == "beta2" and op.spec_name in REORDERABLE_OPS and any(
        _same_view(call.tensor(r), dst) for r in ("data1", "data2") if isinstance(call.bound.get(r), View))
    a, b = (_arith_in(call, r, acc and _same_view(call.tensor(r), dst)) for r in ("data1", "data2"))
    if call.mask is None and op.kind == "arith" and a.dtype == np.float32 and b.dtype == np.float32 and \
            a.shape == b.shape and dst.numel == a.size and len(dst.shape) == 2 and a.shape == dst.shape:
        if call.program.compute_into(dst, lambda out: O.apply_binary_into(op, a, b, out), acc=acc):
            return
    call.write("dst", O.apply_binary(op, a, b), acc=acc)


def _same_view(a: View, b: View) -> bool:
    return a.storage is b.storage and a.shape == b.shape and a.strides == b.strides and a.offset == b.offset and \
        a.grid is None and b.grid is None


def _scalar_stage(op: Any, x: Any, operand: Any, reverse: bool) -> Any:
    if op is None:
        return x
    op = O.as_op(op)
    if op.kind == "unary":
        return O.apply_unary(op, x)
    return O.apply_binary(op, operand, x) if reverse else O.apply_binary(op, x, operand)


def _column(call: Call, role: str) -> Any:
    v = call.operand(role)
    if isinstance(v, np.ndarray):
        return v.reshape(v.shape[0], 1)
    return v


@semantics("isa.tensor_scalar")
def tensor_scalar(call: Call) -> None:
    x = _arith_in(call, "data")
    x = _scalar_stage(call.get("op0"), x, _column(call, "operand0"), bool(call.get("reverse0")))
    if call.get("op1") is not None:
        x = _scalar_stage(call.get("op1"), x, _column(call, "operand1"), bool(call.get("reverse1")))
    call.write("dst", x)


@semantics("isa.scalar_tensor_tensor")
def scalar_tensor_tensor(call: Call) -> None:
    x = _arith_in(call, "data")
    x = _scalar_stage(call.get("op0"), x, _column(call, "operand0"), bool(call.get("reverse0")))
    other = _arith_in(call, "operand1")
    op1 = O.as_op(call.get("op1"))
    x = O.apply_binary(op1, other, x) if call.get("reverse1") else O.apply_binary(op1, x, other)
    call.write("dst", x)


@semantics("isa.tensor_reduce")
def tensor_reduce(call: Call) -> None:
    data = call.tensor("data")
    v = call.read("data")
    v = v if O.is_int_array(v) else DT.to_f32(v)
    axis = call.get("axis")
    axes = tuple(int(a) % len(data.shape) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    out = O.reduce(O.as_op(call.get("op")), v, axes, keepdims=bool(call.get("keepdims")))
    if call.get("negate"):
        out = -out
    call.write("dst", out)


@semantics("isa.tensor_partition_reduce")
def tensor_partition_reduce(call: Call) -> None:
    v = call.read("data")
    v = v if O.is_int_array(v) else DT.to_f32(v)
    call.write("dst", O.reduce(O.as_op(call.get("op")), v, (0,), keepdims=True))


@semantics("isa.tensor_tensor_scan")
def tensor_tensor_scan(call: Call) -> None:
    a, b = DT.to_f32(_free(call, "data0")), DT.to_f32(_free(call, "data1"))
    init = call.operand("initial")
    r = np.broadcast_to(np.asarray(init, dtype=np.float32).reshape(-1), (a.shape[0],)).astype(np.float32)
    op0, op1 = O.as_op(call.get("op0")), O.as_op(call.get("op1"))
    rev0, rev1 = bool(call.get("reverse0")), bool(call.get("reverse1"))
    out = np.empty_like(a)
    for j in range(a.shape[1]):
        t = O.apply_binary(op0, r, a[:, j]) if rev0 else O.apply_binary(op0, a[:, j], r)
        r = O.apply_binary(op1, b[:, j], t) if rev1 else O.apply_binary(op1, t, b[:, j])
        out[:, j] = r
    call.write("dst", out)


_ACCUMULATE = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum}


@semantics("isa.tensor_scalar_cumulative")
def tensor_scalar_cumulative(call: Call) -> None:
    x = DT.to_f32(_free(call, "src"))
    x = _scalar_stage(call.get("op0"), x, _column(call, "imm0"), False)
    op1 = O.as_op(call.get("op1"))
    cmd = _enum(call.get("reduce_cmd"))
    prog = call.program
    if cmd == "load_reduce":
        start = np.broadcast_to(np.asarray(_column(call, "imm1"), dtype=np.float32).reshape(-1), (x.shape[0],))
    elif cmd == "reduce" and prog.vector_acc is not None and prog.vector_acc.shape[0] == x.shape[0]:
        start = prog.vector_acc
    else:
        start = np.full(x.shape[0], op1.identity, dtype=np.float32)
    if op1.spec_name in _ACCUMULATE:
        both = np.concatenate([start.reshape(-1, 1).astype(np.float32), x], axis=1)
        out = _ACCUMULATE[op1.spec_name].accumulate(both, axis=1)[:, 1:]
    else:
        out = np.empty_like(x)
        r = start.astype(np.float32)
        for j in range(x.shape[1]):
            r = O.apply_binary(op1, x[:, j], r)
            out[:, j] = r
    prog.vector_acc = out[:, -1].copy() if out.shape[1] else start
    call.write("dst", out)


def _enum(v: Any) -> str | None:
    if v is None:
        return None
    return getattr(v, "spec_name", v if isinstance(v, str) else str(v))


@semantics("isa.tensor_scalar_reduce")
def tensor_scalar_reduce(call: Call) -> None:
    x = _arith_in(call, "data")
    y = _scalar_stage(call.get("op0"), x, _column(call, "operand0"), bool(call.get("reverse0")))
    call.write("dst", y)
    if call.is_tensor("reduce_res"):
        rop = O.as_op(call.get("reduce_op"))
        r = O.reduce(rop, DT.to_f32(np.asarray(y)), (1,), keepdims=True)
        if _enum(call.get("reduce_cmd")) == "load_reduce" and call.get("reduce_init") is not None:
            r = O.apply_binary(rop, r, np.float32(call.get("reduce_init")))
        if call.get("reduce_res_negate"):
            r = -r
        call.write("reduce_res", r)


def _activation_values(call: Call) -> np.ndarray:
    data = call.tensor("data")
    x = DT.to_f32(_free(call, "data"))
    scale = call.operand("scale")
    if scale is not None:
        x = x * (scale.reshape(-1, 1) if isinstance(scale, np.ndarray) else scale)
    bias = call.operand("bias")
    if bias is not None:
        x = x + (bias.reshape(-1, 1) if isinstance(bias, np.ndarray) else bias)
    op = O.as_op(call.get("op"))
    _ = data
    return O.apply_unary(op, x) if op.kind == "unary" else O.apply_binary(op, x, x)


@semantics("isa.activation")
def activation(call: Call) -> None:
    y = _activation_values(call)
    call.write("dst", y)
    prog = call.program
    cmd = _enum(call.get("reduce_cmd"))
    p = y.shape[0]
    if prog.scalar_acc is None or prog.scalar_acc.shape[0] != p or cmd in ("reset", "reset_reduce"):
        prog.scalar_acc = np.zeros(p, dtype=np.float32)
    if cmd in ("reduce", "reset_reduce") or (call.get("reduce_op") is not None and cmd not in ("idle", "reset")):
        prog.scalar_acc = prog.scalar_acc + y.sum(axis=1, dtype=np.float32)
    if call.is_tensor("reduce_res"):
        call.write("reduce_res", prog.scalar_acc.reshape(p, 1))


@semantics("isa.activation_reduce")
def activation_reduce(call: Call) -> None:
    y = _activation_values(call)
    call.write("dst", y)
    rop = O.as_op(call.get("reduce_op"))
    call.write("reduce_res", O.reduce(rop, y, (1,), keepdims=True))


@semantics("isa.activate2")
def activate2(call: Call) -> None:
    x = DT.to_f32(_free(call, "data"))
    for op, imm, rev in (("op0", "imm0", "reverse0"), ("op1", "imm1", "reverse1")):
        o = call.get(op)
        if o is None or getattr(o, "spec_name", "") == "bypass":
            continue
        x = _scalar_stage(o, x, _column(call, imm), bool(call.get(rev)))
    f = O.as_op(call.get("op"))
    y = f.fn(x, np.float32(call.get("relu_param") or 0.0)) if f.spec_name == "prelu" else O.apply_unary(f, x)
    call.write("dst", y)
    if call.is_tensor("reduce_res"):
        call.write("reduce_res", O.reduce(O.as_op(call.get("reduce_op") or "add"), y, (1,), keepdims=True))


@semantics("isa.exponential")
def exponential(call: Call) -> None:
    x = DT.to_f32(_free(call, "src"))
    mx_ = call.operand("max_value")
    y = np.exp(x - (mx_.reshape(-1, 1) if isinstance(mx_, np.ndarray) else mx_))
    call.write("dst", y)
    if call.is_tensor("reduce_res"):
        call.write("reduce_res", y.sum(axis=1, keepdims=True, dtype=np.float32))


@semantics("isa.reciprocal")
def reciprocal(call: Call) -> None:
    with np.errstate(divide="ignore"):
        call.write("dst", np.float32(1.0) / DT.to_f32(call.read("data")))


def _affine_values(call: Call, shape: tuple) -> np.ndarray:
    """offset + c * channel_multiplier + sum(step * index) over the pattern, per partition (int32)."""
    pattern = [(int(s), int(n)) for s, n in call.get("pattern")]
    p = shape[0]
    counts = [n for _, n in pattern]
    val = np.full((p,) + tuple(counts), int(call.get("offset") or 0), dtype=np.int64)
    val += (np.arange(p, dtype=np.int64) * int(call.get("channel_multiplier") or 0)).reshape(
        (p,) + (1,) * len(counts))
    for axis, (s, n) in enumerate(pattern):
        idx = np.arange(n, dtype=np.int64) * s
        val += idx.reshape((1,) + (1,) * axis + (n,) + (1,) * (len(counts) - axis - 1))
    return val.reshape(p, -1)


@semantics("isa.iota")
def iota(call: Call) -> None:
    expr = call.get("expr")
    if isinstance(expr, IndexGrid) or (call.form == "beta1" and expr is not None):
        v = expr.values if isinstance(expr, IndexGrid) else np.asarray(expr)
        call.write("dst", np.broadcast_to(v, call.tensor("dst").shape).astype(np.int64))
        return
    dst = call.tensor("dst")
    call.write("dst", _affine_values(call, dst.shape))


@semantics("isa.affine_select")
def affine_select(call: Call) -> None:
    on_true = call.tensor("on_true_tile")
    t = _free(call, "on_true_tile")
    false_value = np.float32(call.get("on_false_value"))
    pred = call.get("pred")
    if isinstance(pred, Mask):
        keep = np.broadcast_to(pred.values, on_true.shape).reshape(on_true.shape[0], -1)
    else:
        cmp = O.as_op(call.get("cmp_op") or "equal")
        keep = O.apply_binary(cmp, _affine_values(call, on_true.shape), 0) != 0
    call.write("dst", np.where(keep, DT.to_f32(t), false_value))


@semantics("isa.range_select")
def range_select(call: Call) -> None:
    t = DT.to_f32(_free(call, "on_true_tile"))
    b0 = call.operand("bound0").reshape(-1, 1)
    b1 = call.operand("bound1").reshape(-1, 1)
    j = np.arange(t.shape[1], dtype=np.float32)[None, :] + np.float32(call.get("range_start") or 0)
    c0, c1 = O.as_op(call.get("comp_op0")), O.as_op(call.get("comp_op1"))
    keep = (O.apply_binary(c0, j, b0) != 0) & (O.apply_binary(c1, j, b1) != 0)
    fv = call.get("on_false_value")
    y = np.where(keep, t, np.float32(O.FP32_MIN if fv is None else fv))
    call.write("dst", y)
    if call.is_tensor("reduce_res"):
        call.write("reduce_res", y.max(axis=1, keepdims=True))


@semantics("isa.select_reduce")
def select_reduce(call: Call) -> None:
    pred = _free(call, "predicate") != 0
    if call.get("reverse_pred"):
        pred = ~pred
    on_true = DT.to_f32(_free(call, "on_true"))
    on_false = call.operand("on_false")
    y = np.where(pred, on_true, on_false.reshape(-1, 1) if isinstance(on_false, np.ndarray) else on_false)
    call.write("dst", y)
    if call.is_tensor("reduce_res"):
        call.write("reduce_res", y.max(axis=1, keepdims=True))


@semantics("isa.bn_stats")
def bn_stats(call: Call) -> None:
    x = DT.to_f32(_free(call, "data")).astype(np.float64)
    out = []
    for part in (x[:, 0::2], x[:, 1::2]):
        n = part.shape[1]
        mean = part.mean(axis=1) if n else np.zeros(x.shape[0])
        var = part.var(axis=1) if n else np.zeros(x.shape[0])
        out += [np.full(x.shape[0], n, dtype=np.float64), mean, var * n]
    call.write("dst", np.stack(out, axis=1))


@semantics("isa.bn_aggr")
def bn_aggr(call: Call) -> None:
    x = DT.to_f32(_free(call, "data")).astype(np.float64).reshape(call.tensor("data").shape[0], -1, 3)
    count, mean, m2 = x[:, :, 0], x[:, :, 1], x[:, :, 2]
    n = count.sum(axis=1)
    safe = np.where(n == 0, 1, n)
    mu = (count * mean).sum(axis=1) / safe
    var = (m2 + count * (mean - mu[:, None]) ** 2).sum(axis=1) / safe
    call.write("dst", np.stack([mu, var], axis=1))


@semantics("isa.max8")
def max8(call: Call) -> None:
    x = DT.to_f32(_free(call, "src"))
    call.write("dst", -np.sort(-x, axis=1)[:, :8])


@semantics("isa.nc_find_index8")
def nc_find_index8(call: Call) -> None:
    data = DT.to_f32(_free(call, "data"))
    vals = DT.to_f32(_free(call, "vals"))[:, :8]
    dst = call.tensor("dst")
    none = np.iinfo(DT.storage_dtype(dst.storage.dname)).max
    out = np.full(vals.shape, none, dtype=np.int64)
    for p in range(data.shape[0]):
        used: dict = {}
        for k in range(vals.shape[1]):
            hits = np.flatnonzero(data[p] == vals[p, k])
            n = used.get(float(vals[p, k]), 0)
            if n < hits.size:
                out[p, k] = hits[n]
                used[float(vals[p, k])] = n + 1
    call.write("dst", out)


@semantics("isa.nc_match_replace8")
def nc_match_replace8(call: Call) -> None:
    data = DT.to_f32(_free(call, "data")).copy()
    vals = DT.to_f32(_free(call, "vals"))[:, :8]
    imm = np.float32(call.get("imm"))
    idx = np.zeros(vals.shape, dtype=np.int64)
    for p in range(data.shape[0]):
        for k in reversed(range(vals.shape[1])):
            hits = np.flatnonzero(data[p] == vals[p, k])
            if hits.size:
                data[p, hits[0]] = imm
                idx[p, k] = hits[0]
    call.write("dst", data)
    if call.is_tensor("dst_idx"):
        call.write("dst_idx", idx)


@semantics("isa.sequence_bounds")
def sequence_bounds(call: Call) -> None:
    ids = _free(call, "segment_ids")[0].astype(np.int64)
    n = ids.size
    start = np.full(n, n, dtype=np.int64)
    end = np.full(n, -1, dtype=np.int64)
    for seg in np.unique(ids[ids != 0]):
        where = np.flatnonzero(ids == seg)
        start[ids == seg] = where[0]
        end[ids == seg] = where[-1] + 1
    call.write("dst", np.stack([start, end]).reshape(call.tensor("dst").shape))


@semantics("isa.dropout")
def dropout(call: Call) -> None:
    x = _free(call, "data")
    prob = call.operand("prob")
    rng = call.program.rng
    keep = rng.random(x.shape) >= (prob.reshape(-1, 1) if isinstance(prob, np.ndarray) else prob)
    call.write("dst", np.where(keep, DT.to_f32(x), 0))


@semantics("isa.rng")
def rng_bits(call: Call) -> None:
    dst = call.tensor("dst")
    bits = call.program.rng.integers(0, 2 ** 32, size=dst.shape, dtype=np.uint64)
    call.write("dst", bits.astype(DT.storage_dtype(dst.storage.dname)))


@semantics("isa.rand2")
def rand2(call: Call) -> None:
    dst = call.tensor("dst")
    lo, hi = call.operand("min"), call.operand("max")
    u = call.program.rng.random((dst.shape[0], int(np.prod(dst.shape[1:]))), dtype=np.float32)
    lo = lo.reshape(-1, 1) if isinstance(lo, np.ndarray) else lo
    hi = hi.reshape(-1, 1) if isinstance(hi, np.ndarray) else hi
    call.write("dst", lo + u * (hi - lo))


@semantics("isa.set_rng_seed", "isa.rand_set_state")
def set_seed(call: Call) -> None:
    seed = np.asarray(call.read("src_seeds")).astype(np.int64).ravel()
    call.program.rng = np.random.default_rng([int(s) & 0xFFFFFFFF for s in seed])


@semantics("isa.rand_get_state")
def rand_get_state(call: Call) -> None:
    dst = call.tensor("dst")
    call.write("dst", call.program.rng.integers(0, 2 ** 32, size=dst.shape, dtype=np.uint64).astype(np.uint32))


@semantics("isa.nonzero_with_count")
def nonzero_with_count(call: Call) -> None:
    src, dst = call.tensor("src"), call.tensor("dst")
    x = _free(call, "src")
    old = _rows(call.read("dst"), dst.shape[0]).astype(np.int64).copy() if call.written("dst") is True else \
        np.zeros((dst.shape[0], x.shape[1] + 1), dtype=np.int64)
    off, pad = int(call.get("index_offset") or 0), int(call.get("padding_val"))
    for p in range(0, src.shape[0], 16):
        nz = np.flatnonzero(x[p] != 0) + off
        row = np.full(x.shape[1] + 1, pad, dtype=np.int64)
        row[:nz.size] = nz
        row[-1] = nz.size
        old[p] = row
    call.write("dst", old)


@semantics("isa.topk")
def topk(call: Call) -> None:
    raise Unsupported("nisa.topk is not implemented by the device")


# ----------------------------------------------------------------------------- registers


class Register:
    """A 32-bit engine register (`nisa.register_alloc`); a frozen one is a dynamic loop's index."""

    __slots__ = ("value", "frozen")

    def __init__(self, value: int = 0, frozen: bool = False) -> None:
        self.value = int(value)
        self.frozen = frozen

    def __index__(self) -> int:
        return self.value

    __int__ = __index__

    def __bool__(self) -> bool:
        return self.value != 0

    def __repr__(self) -> str:
        return f"Register({self.value})"

    def set(self, v: int) -> None:
        if self.frozen:
            raise AssertionError("a dynamic loop's index register cannot be written")
        self.value = _wrap32(v)


def _wrap32(v: int) -> int:
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


@semantics("isa.register_alloc")
def register_alloc(call: Call) -> None:
    x = call.get("x")
    call.bound["__return__"] = Register(0 if x is None else (x.value if isinstance(x, Register) else int(x)))


@semantics("isa.register_move")
def register_move(call: Call) -> None:
    src = call.get("src")
    call.get("dst").set(src.value if isinstance(src, Register) else int(src))


@semantics("isa.register_load")
def register_load(call: Call) -> None:
    v = np.asarray(call.read("src")).ravel()[0]
    call.get("dst").set(int(v))


@semantics("isa.register_store")
def register_store(call: Call) -> None:
    call.write("dst", np.full(call.tensor("dst").shape, call.get("src").value, dtype=np.int64))

