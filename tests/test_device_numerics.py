"""Every instruction the device implements computes what the NKI docs say: each is checked against a direct
numpy expression, low-precision rounding included (bf16 / fp8 through ml_dtypes, integers round half to
even and saturate)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from .device_support import B1, KernelRunner

BF16, E4M3, E5M2 = ml_dtypes.bfloat16, ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2
RNG = np.random.default_rng(3)


@pytest.fixture(scope="module")
def dev() -> KernelRunner:
    return KernelRunner()


def rand(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32)


# ----------------------------------------------------------------------------- data movement and casts


CAST = """
@nki.jit
def k(x):
    out = nl.ndarray(x.shape, dtype=nl.{dt}, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.{dt}, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out
"""


@pytest.mark.parametrize("dt, np_dt", [("bfloat16", BF16), ("float8_e4m3", E4M3), ("float8_e5m2", E5M2),
                                       ("float16", np.float16)])
def test_dma_copy_casts_floats_to_nearest_even(dev: KernelRunner, dt: str, np_dt: type) -> None:
    x = rand(128, 64, lo=-8, hi=8)
    out = dev.run(CAST.format(dt=dt), x)
    assert out.dtype == np.dtype(np_dt)
    np.testing.assert_array_equal(out.view(np.uint8), x.astype(np_dt).view(np.uint8))


def test_dma_copy_to_int_rounds_half_to_even_and_saturates(dev: KernelRunner) -> None:
    x = np.array([[0.5, 1.5, 2.5, -0.5, -1.5, 300.0, -300.0, np.nan]], dtype=np.float32).repeat(2, 0)
    out = dev.run(CAST.format(dt="int8"), x)
    np.testing.assert_array_equal(out[0], [0, 2, 2, 0, -2, 127, -128, 0])


def test_tfloat32_keeps_ten_mantissa_bits(dev: KernelRunner) -> None:
    x = np.array([[1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 1.0 + 2 ** -10]], dtype=np.float32)
    out = dev.run(CAST.format(dt="tfloat32"), x)
    np.testing.assert_array_equal(out[0], [1.0, 1.0 + 2 ** -9, 1.0 + 2 ** -10])


def test_dma_copy_reshapes_by_element_count(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out
"""
    x = rand(32, 64)
    np.testing.assert_array_equal(dev.run(src, x), x.reshape(64, 32))


def test_dma_transpose_and_tensor_copy(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((64, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((64, 16), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=x)
    u = nl.ndarray((64, 16), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=u, src=t)
    nisa.dma_copy(dst=out, src=u)
    return out
"""
    x = rand(16, 64).astype(BF16)
    np.testing.assert_array_equal(dev.run(src, x), x.T.astype(np.float32))


def test_memset_and_predicated_copy(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, p):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=t, value=7.0)
    xs = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    ps = nl.ndarray(x.shape, dtype=nl.uint8, buffer=nl.sbuf)
    nisa.dma_copy(dst=xs, src=x)
    nisa.dma_copy(dst=ps, src=p)
    nisa.tensor_copy_predicated(dst=t, src=xs, predicate=ps)
    nisa.dma_copy(dst=out, src=t)
    return out
"""
    x = rand(128, 32)
    p = (RNG.random((128, 32)) > 0.5).astype(np.uint8)
    np.testing.assert_array_equal(dev.run(src, x, p), np.where(p != 0, x, 7.0))


# ----------------------------------------------------------------------------- vector / scalar engines


TT = """
@nki.jit
def k(a, b):
    out = nl.ndarray(a.shape, dtype=nl.{dt}, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    r = nl.ndarray(a.shape, dtype=nl.{dt}, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=r, data1=ta, data2=tb, op=nl.{op})
    nisa.dma_copy(dst=out, src=r)
    return out
"""


@pytest.mark.parametrize("op, ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("maximum", np.maximum),
    ("minimum", np.minimum),
    ("greater", lambda a, b: (a > b).astype(np.float32)), ("equal", lambda a, b: (a == b).astype(np.float32))])
def test_tensor_tensor_in_fp32(dev: KernelRunner, op: str, ref: object) -> None:
    a, b = rand(128, 96), rand(128, 96, lo=0.5, hi=3)
    np.testing.assert_array_equal(dev.run(TT.format(dt="float32", op=op), a, b), ref(a, b))


def test_division_is_not_an_alu_operator(dev: KernelRunner) -> None:
    # the ISA's operator table has no division (the release notes: not a hardware instruction): the device
    # refuses it like the verifier, rather than computing what the hardware cannot
    a, b = rand(128, 96), rand(128, 96, lo=0.5, hi=3)
    res = dev.execute(TT.format(dt="float32", op="divide"), a, b)
    assert [f.code for f in res.faults] == ["NKI503"]


def test_tensor_tensor_rounds_into_a_bf16_destination(dev: KernelRunner) -> None:
    a, b = rand(128, 64).astype(BF16), rand(128, 64).astype(BF16)
    out = dev.run(TT.format(dt="bfloat16", op="multiply"), a, b)
    expected = (a.astype(np.float32) * b.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


def test_bitwise_ops_on_integers(dev: KernelRunner) -> None:
    a = RNG.integers(0, 1 << 20, (128, 16)).astype(np.int32)
    b = RNG.integers(0, 1 << 20, (128, 16)).astype(np.int32)
    np.testing.assert_array_equal(dev.run(TT.format(dt="int32", op="bitwise_xor"), a, b), a ^ b)
    np.testing.assert_array_equal(dev.run(TT.format(dt="int32", op="add"), a, b), a + b)


def test_tensor_scalar_with_scalar_and_column_operands(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, c):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    col = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=col, src=c)
    r = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=r, data=t, op0=nl.multiply, operand0=col, op1=nl.subtract, operand1=3.0, reverse1=True)
    nisa.dma_copy(dst=out, src=r)
    return out
"""
    x, c = rand(128, 40), rand(128, 1)
    np.testing.assert_array_equal(dev.run(src, x, c), np.float32(3.0) - x * c)


def test_scalar_tensor_tensor(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, y):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=b, src=y)
    nisa.scalar_tensor_tensor(dst=a, data=a, op0=nl.add, operand0=1.5, op1=nl.maximum, operand1=b)
    nisa.dma_copy(dst=out, src=a)
    return out
"""
    x, y = rand(64, 32), rand(64, 32)
    np.testing.assert_array_equal(dev.run(src, x, y), np.maximum(x + np.float32(1.5), y))


@pytest.mark.parametrize("op, ref", [("exp", np.exp), ("tanh", np.tanh),
                                     ("gelu_apprx_tanh", lambda v: 0.5 * v * (1 + np.tanh(
                                         np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3))))])
def test_activation_scale_bias_and_reduction(dev: KernelRunner, op: str, ref: object) -> None:
    src = f"""
@nki.jit
def k(x, b):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    red = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    bias = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=bias, src=b)
    r = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    s = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=r, op=nl.{op}, data=t, bias=bias, scale=0.5, reduce_op=nl.add, reduce_res=s,
                    reduce_cmd=nisa.reduce_cmd.reset_reduce)
    nisa.dma_copy(dst=out, src=r)
    nisa.dma_copy(dst=red, src=s)
    return out, red
"""
    x, b = rand(128, 48), rand(128, 1)
    out, red = dev.run(src, x, b)
    expected = ref(x * np.float32(0.5) + b).astype(np.float32)
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(red[:, 0], expected.sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize("op, axis, keep, negate, ref", [
    ("add", 1, False, False, lambda x: x.sum(axis=(1, 2)).reshape(-1, 1)),
    ("maximum", (2,), True, False, lambda x: x.max(axis=2, keepdims=True)),
    ("add", (1, 2), False, True, lambda x: -x.sum(axis=(1, 2)).reshape(-1, 1))])
def test_tensor_reduce(dev: KernelRunner, op: str, axis: object, keep: bool, negate: bool, ref: object) -> None:
    shape_out = "(x.shape[0], x.shape[1], 1)" if keep else "(x.shape[0], 1)"
    ax = "(1, 2)" if axis == 1 else repr(axis)
    src = f"""
@nki.jit
def k(x):
    out = nl.ndarray({shape_out}, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nl.ndarray({shape_out}, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r, op=nl.{op}, data=t, axis={ax}, negate={negate}, keepdims={keep})
    nisa.dma_copy(dst=out, src=r)
    return out
"""
    x = rand(32, 4, 8)
    np.testing.assert_allclose(dev.run(src, x), ref(x), rtol=1e-6)


def test_partition_reduce_reciprocal_and_iota(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((1, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    rec = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    io = nl.ndarray((8, 6), dtype=nl.int32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nl.ndarray((1, 16), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_partition_reduce(dst=r, op=nl.add, data=t)
    nisa.dma_copy(dst=out, src=r)
    q = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.reciprocal(dst=q, data=t)
    nisa.dma_copy(dst=rec, src=q)
    i = nl.ndarray((8, 6), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=i, pattern=[[3, 2], [1, 3]], offset=5, channel_multiplier=10)
    nisa.dma_copy(dst=io, src=i)
    return out, rec, io
"""
    x = rand(8, 16, lo=0.5, hi=2)
    out, rec, io = dev.run(src, x)
    np.testing.assert_allclose(out[0], x.sum(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(rec, np.float32(1) / x)
    expected = 5 + 10 * np.arange(8)[:, None] + (3 * np.arange(2)[:, None] + np.arange(3)[None, :]).ravel()[None, :]
    np.testing.assert_array_equal(io, expected)


def test_affine_select_keeps_the_lower_triangle(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.affine_select(dst=r, pattern=[[-1, x.shape[1]]], channel_multiplier=1, on_true_tile=t,
                       on_false_value=-9.0, cmp_op=nl.greater_equal)
    nisa.dma_copy(dst=out, src=r)
    return out
"""
    x = rand(16, 16)
    p, j = np.arange(16)[:, None], np.arange(16)[None, :]
    np.testing.assert_array_equal(dev.run(src, x), np.where(p - j >= 0, x, -9.0))


def test_scans(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a, b):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    cum = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor_scan(dst=r, data0=ta, data1=tb, initial=0.0, op0=nl.multiply, op1=nl.add)
    nisa.dma_copy(dst=out, src=r)
    c = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(dst=c, src=ta, op0=nl.multiply, op1=nl.add, imm0=2.0)
    nisa.dma_copy(dst=cum, src=c)
    return out, cum
"""
    a, b = rand(16, 12), rand(16, 12)
    out, cum = dev.run(src, a, b)
    expected = np.zeros_like(a)
    r = np.zeros(16, np.float32)
    for j in range(12):
        r = a[:, j] * r + b[:, j]
        expected[:, j] = r
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cum, np.cumsum(2 * a, axis=1), rtol=1e-5, atol=1e-6)


def test_statistics_and_top8(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    stats = nl.ndarray((x.shape[0], 2), dtype=nl.float32, buffer=nl.shared_hbm)
    top = nl.ndarray((x.shape[0], 8), dtype=nl.float32, buffer=nl.shared_hbm)
    where = nl.ndarray((x.shape[0], 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    s6 = nl.ndarray((x.shape[0], 6), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_stats(dst=s6, data=t)
    s2 = nl.ndarray((x.shape[0], 2), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_aggr(dst=s2, data=s6)
    nisa.dma_copy(dst=stats, src=s2)
    m8 = nl.ndarray((x.shape[0], 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=m8, src=t)
    nisa.dma_copy(dst=top, src=m8)
    i8 = nl.ndarray((x.shape[0], 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(dst=i8, data=t, vals=m8)
    nisa.dma_copy(dst=where, src=i8)
    return stats, top, where
"""
    x = rand(32, 100)
    stats, top, where = dev.run(src, x)
    np.testing.assert_allclose(stats[:, 0], x.mean(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[:, 1], x.var(axis=1), rtol=1e-4)
    np.testing.assert_array_equal(top, -np.sort(-x, axis=1)[:, :8])
    np.testing.assert_array_equal(where, np.argsort(-x, axis=1, kind="stable")[:, :8])


# ----------------------------------------------------------------------------- tensor engine


MATMUL = """
@nki.jit
def k(s, m):
    out = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    ts = nl.ndarray(s.shape, dtype=s.dtype, buffer=nl.sbuf)
    tm = nl.ndarray(m.shape, dtype=m.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ts, src=s)
    nisa.dma_copy(dst=tm, src=m)
    acc = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.psum)
    for i in range(3):
        nisa.nc_matmul(dst=acc, stationary=ts, moving=tm{acc})
    r = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=acc)
    nisa.dma_copy(dst=out, src=r)
    return out
"""


@pytest.mark.parametrize("acc, times", [("", 3), (", accumulate=(i > 0)", 3), (", accumulate=False", 1)])
def test_nc_matmul_accumulates_in_fp32_psum(dev: KernelRunner, acc: str, times: int) -> None:
    s, m = rand(128, 96).astype(BF16), rand(128, 200).astype(BF16)
    exact = s.astype(np.float64).T @ m.astype(np.float64)
    np.testing.assert_allclose(dev.run(MATMUL.format(acc=acc), s, m), times * exact, rtol=2e-6, atol=1e-4)


def test_nc_transpose_and_fp8_matmul(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, s, m):
    out = nl.ndarray((x.shape[1], x.shape[0]), dtype=nl.float32, buffer=nl.shared_hbm)
    mm = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    p = nl.ndarray((x.shape[1], x.shape[0]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_transpose(dst=p, data=t)
    r = nl.ndarray((x.shape[1], x.shape[0]), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=p)
    nisa.dma_copy(dst=out, src=r)
    ts = nl.ndarray(s.shape, dtype=s.dtype, buffer=nl.sbuf)
    tm = nl.ndarray(m.shape, dtype=m.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ts, src=s)
    nisa.dma_copy(dst=tm, src=m)
    acc = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=ts, moving=tm)
    q = nl.ndarray((s.shape[1], m.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=q, src=acc)
    nisa.dma_copy(dst=mm, src=q)
    return out, mm
"""
    x = rand(64, 100)
    s, m = rand(128, 32).astype(E4M3), rand(128, 64).astype(E5M2)
    out, mm = dev.run(src, x, s, m)
    np.testing.assert_array_equal(out, x.T)
    np.testing.assert_allclose(mm, s.astype(np.float64).T @ m.astype(np.float64), rtol=1e-6, atol=1e-5)


# ----------------------------------------------------------------------------- Beta 1: nl functions and masks


def test_beta1_language_functions(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, y):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    sm = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    mm = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.load(x)
    b = nl.load(y)
    e = nl.exp(a) * 2.0 - b
    nl.store(out, value=nl.max(e, axis=1, keepdims=True))
    nl.store(sm, value=nl.softmax(a, axis=1))
    nl.store(mm, value=nl.copy(nl.matmul(a[:, 0:128], b[:, 0:64], transpose_x=True)))
    return out, sm, mm
"""
    x, y = rand(128, 128), rand(128, 128)
    out, sm, mm = dev.run(src, x, y, header=B1)
    np.testing.assert_allclose(out[:, 0], (np.exp(x) * 2 - y).max(axis=1), rtol=1e-6)
    ex = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, ex / ex.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(mm, x.T.astype(np.float64) @ y[:, :64].astype(np.float64), rtol=1e-5, atol=1e-4)


def test_beta1_masks_iota_and_affine_select(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    n, f = x.shape
    out = nl.ndarray((n, f), dtype=nl.float32, buffer=nl.shared_hbm)
    tri = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(f)[None, :]
    t = nl.load(x[i_p, i_f], mask=(i_p < n))
    nl.store(out[i_p, i_f], value=t, mask=(i_p < n))
    j = nl.arange(128)[None, :]
    ones = nl.full((128, 128), 1.0, dtype=nl.float32)
    nl.store(tri, value=nisa.affine_select(i_p >= j, ones, -1.0))
    return out, tri
"""
    x = rand(100, 24)
    out, tri = dev.run(src, x, header=B1)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(tri, np.where(np.tril(np.ones((128, 128))) > 0, 1.0, -1.0))


# ----------------------------------------------------------------------------- registers and dynamic loops


def test_registers_and_dynamic_loops(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x, n):
    out = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    ns = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ns, src=n)
    r = nisa.register_alloc()
    nisa.register_load(r, ns)
    for i in nl.dynamic_range(r):
        row = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=row, src=x.ap([[8, 1], [1, 8]], scalar_offset=i, indirect_dim=0))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=row, op=nl.add)
    count = nisa.register_alloc(3)
    while count:
        nisa.tensor_scalar(dst=acc, data=acc, op0=nl.multiply, operand0=2.0)
        nisa.register_move(count, count.value - 1)
    nisa.dma_copy(dst=out, src=acc)
    return out
"""
    x = rand(10, 8)
    out = dev.run(src, x, np.array([[6]], dtype=np.int32))
    np.testing.assert_allclose(out[0], 8 * x[:6].sum(axis=0), rtol=1e-6)


def test_ap_views_read_the_documented_addresses(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((4, 3), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((4, 3), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[10, 4], [2, 3]], offset=1))
    nisa.dma_copy(dst=out, src=t)
    return out
"""
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    expected = np.array([[x.ravel()[1 + 10 * w + 2 * j] for j in range(3)] for w in range(4)])
    np.testing.assert_array_equal(dev.run(src, x), expected)


def test_loop_reduce_accumulates_into_the_assigned_view(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        acc[...] = nl.loop_reduce(nl.load(x[i]), op=np.add, loop_indices=[i], dtype=nl.float32)
    nl.store(out, value=acc)
    return out
"""
    x = rand(4, 128, 64)
    res = dev.execute(src, x, header=B1)
    assert not res.faults  # a loop reduction commutes: no loop-carried dependency
    np.testing.assert_allclose(res.outputs, x.sum(axis=0), rtol=1e-6)


# ----------------------------------------------------------------------------- views of the (rows, cols) layout

from hypothesis import given, strategies as st  # noqa: E402

from device.tensor import flat_indices, rect_of, strided  # noqa: E402


@given(rows=st.integers(1, 9), cols=st.integers(1, 9), offset=st.integers(0, 80),
       shape=st.tuples(st.integers(0, 5), st.integers(0, 5)), strides=st.tuples(st.integers(0, 30), st.integers(0, 12)),
       dtype=st.sampled_from([np.float32, ml_dtypes.bfloat16, np.uint8]))
def test_strided_view_is_the_gather_of_its_flat_indices(rows, cols, offset, shape, strides, dtype):
    base = np.arange(rows * cols).astype(dtype).reshape(rows, cols)
    flat = flat_indices(offset, shape, strides)
    inside = flat.size == 0 or (flat.max() < rows * cols)
    v = strided(base, offset, shape, strides)
    if v is None or not inside:
        return  # the pattern leaves the storage or does not decompose: callers gather (or fault) instead
    assert v.shape == tuple(shape)
    np.testing.assert_array_equal(v, base.reshape(-1)[flat])
    r = rect_of(cols, offset, shape, strides)
    if r is not None and flat.size:  # a rectangle names exactly the elements the view covers
        assert set(flat.ravel().tolist()) == {i * cols + j for i in range(r.r0, r.r1) for j in range(r.c0, r.c1)}
