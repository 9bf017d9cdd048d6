"""Hazards found while executing: reads of unwritten memory (NKI404), cross-iteration conflicts (NKI401 /
NKI403), cross-program races (NKI402); the memory model (real addresses, aliasing, PSUM banks, capacity);
shuffled execution; typed faults with their values."""

from __future__ import annotations

import os

import numpy as np
import pytest

import device
from device import DeviceFault

from .device_support import B1, KernelRunner

RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def dev() -> KernelRunner:
    return KernelRunner()


def rand(*shape: int) -> np.ndarray:
    return RNG.random(shape, dtype=np.float32)


def faults(res: device.Result) -> set:
    return {(f.code, f.line) for f in res.faults}


# ----------------------------------------------------------------------------- unwritten memory


UNINIT = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:32], src=x[:, 0:32])
    nisa.dma_copy(dst=out, src=t)  # reads columns 32..63, never written
    return out
"""


def test_a_read_of_unwritten_memory_faults_at_the_reading_line(dev: KernelRunner) -> None:
    with pytest.raises(DeviceFault) as exc:
        dev.run(UNINIT, rand(128, 64))
    f = exc.value
    assert f.code == "NKI404" and f.line == dev.line_of(UNINIT, "never written")
    assert dict(f.values)["element"] == (0, 32)


def test_writing_first_clears_the_hazard(dev: KernelRunner) -> None:
    src = UNINIT.replace("t[:, 0:32], src=x[:, 0:32]", "t, src=x")
    np.testing.assert_array_equal(dev.run(src, x := rand(128, 64)), x)


# ----------------------------------------------------------------------------- affine_range iterations


CARRIED = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.{loop}(4):
        t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.{op})  # carried
    nisa.dma_copy(dst=out, src=acc)
    return out
"""


def test_a_carried_dependency_in_affine_range_is_nki401(dev: KernelRunner) -> None:
    x = rand(4, 128, 64)
    res = dev.execute(CARRIED.format(loop="affine_range", op="subtract"), x)
    assert faults(res) == {("NKI401", dev.line_of(CARRIED, "# carried"))}
    expected = np.zeros((128, 64), dtype=np.float32)
    for block in x:
        expected = block - expected
    np.testing.assert_allclose(res.outputs, expected, rtol=1e-5)  # the run goes on, in program order
    assert not dev.execute(CARRIED.format(loop="sequential_range", op="subtract"), x).faults


def test_a_beta2_accumulation_in_affine_range_is_not_a_hazard(dev: KernelRunner) -> None:
    """`acc = t + acc` with an op whose order does not matter: the iterations commute (as `+=` does)."""
    x = rand(4, 128, 64)
    res = dev.execute(CARRIED.format(loop="affine_range", op="add"), x)
    assert not res.faults
    np.testing.assert_allclose(res.outputs, x.sum(axis=0), rtol=1e-6)


def test_matmul_accumulation_into_psum_is_exempt(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a, b):
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.psum)
    for i in nl.affine_range(a.shape[0] // 128):
        s = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        m = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=m, src=b[i * 128:(i + 1) * 128, :])
        nisa.nc_matmul(dst=acc, stationary=s, moving=m)
    r = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=acc)
    nisa.dma_copy(dst=out, src=r)
    return out
"""
    a, b = rand(384, 128), rand(384, 256)
    res = dev.execute(src, a, b)
    assert not res.faults
    np.testing.assert_allclose(res.outputs, a.T @ b, rtol=1e-5)


def test_beta1_plus_equals_accumulation_is_exempt_but_a_tensor_tensor_one_is_not(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        acc[...] += nl.load(x[i])
    nl.store(out, value=acc)
    return out
"""
    x = rand(4, 128, 64)
    res = dev.execute(src, x, header=B1)
    assert not res.faults
    np.testing.assert_allclose(res.outputs, x.sum(axis=0), rtol=1e-6)
    bad = src.replace("acc[...] += nl.load(x[i])", "acc[...] = nisa.tensor_tensor(acc, nl.load(x[i]), op=nl.add)")
    assert {c for c, _ in faults(dev.execute(bad, x, header=B1))} == {"NKI401"}


def test_a_buffer_rewritten_by_every_iteration_is_nki403_at_its_allocation(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((8, 128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    buf = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)  # shared
    for i in nl.affine_range(8):
        nisa.dma_copy(dst=buf, src=x[i])
        nisa.dma_copy(dst=out[i], src=buf)
    return out
"""
    x = rand(8, 128, 64)
    res = dev.execute(src, x)
    assert faults(res) == {("NKI403", dev.line_of(src, "# shared"))}
    np.testing.assert_array_equal(res.outputs, x)
    used_after = src.replace("    return out", "    nisa.dma_copy(dst=out[0], src=buf)\n    return out")
    assert {c for c, _ in faults(dev.execute(used_after, x))} == {"NKI401"}


def test_disjoint_iterations_are_clean_in_any_order(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        for j in nl.affine_range(x.shape[1] // 64):
            t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, j * 64:(j + 1) * 64])
            nisa.activation(dst=t, op=nl.exp, data=t)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, j * 64:(j + 1) * 64], src=t)
    return out
"""
    x = rand(384, 256)
    first = dev.execute(src, x)
    assert not first.faults
    for seed in (1, 2, 3):
        res = dev.execute(src, x, shuffle=seed)
        assert not res.faults
        np.testing.assert_array_equal(res.outputs, first.outputs)


def test_shuffled_order_changes_the_result_of_a_racy_loop(dev: KernelRunner) -> None:
    # each iteration writes the same output rows: the last writer wins, and the order decides who is last
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(8):
        t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.dma_copy(dst=out, src=t)  # racy
    return out
"""
    x = rand(8, 128, 64)
    outs = [dev.execute(src, x, shuffle=seed) for seed in range(6)]
    assert all(faults(r) == {("NKI401", dev.line_of(src, "# racy"))} for r in outs)
    assert len({r.outputs.tobytes() for r in outs}) > 1


# ----------------------------------------------------------------------------- SPMD programs


def test_beta1_grid_programs_writing_the_same_rows_race(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 64 + nl.arange(128)[:, None]
    iy = nl.arange(64)[None, :]
    nl.store(out[ix, iy], value=nl.load(a[ix, iy]))  # overlap
    return out
"""
    res = dev.execute(src, rand(256, 64), grid=(3,), header=B1)
    (f,) = res.faults
    assert (f.code, f.line) == ("NKI402", dev.line_of(src, "# overlap"))
    assert dict(f.values)["program"] == (0,) and dict(f.values)["other program"] == (1,)


def test_lnc2_barrier_orders_the_exchange(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    swapped = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    nisa.core_barrier(out, (0, 1))  # barrier
    o = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=o, src=out[(1 - pid) * 128:(2 - pid) * 128, :])
    nisa.dma_copy(dst=swapped[pid * 128:(pid + 1) * 128, :], src=o)
    return swapped
"""
    a = rand(256, 64)
    for seed in (None, 1, 2):
        res = dev.execute(src, a, grid=2, shuffle=seed)
        assert not res.faults
        np.testing.assert_array_equal(res.outputs, np.concatenate([a[128:], a[:128]]))
    racy = dev.execute(src.replace("    nisa.core_barrier(out, (0, 1))  # barrier\n", ""), a, grid=2)
    assert "NKI402" in {f.code for f in racy.faults}


def test_a_barrier_one_core_skips_deadlocks(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    if nl.program_id(0) == 0:
        nisa.core_barrier(out, (0, 1))  # divergent
    return out
"""
    res = dev.execute(src, rand(256, 64), grid=2)
    assert faults(res) == {("NKI402", dev.line_of(src, "# divergent"))}


def test_identical_writes_by_both_cores_are_benign_and_sendrecv_swaps(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    z = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=z, value=0.0)
    nisa.dma_copy(dst=out[0:128, :], src=z)
    nisa.core_barrier(out, (0, 1))
    mine = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=mine, src=a[pid * 128:(pid + 1) * 128, :])
    theirs = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.sendrecv(src=mine, dst=theirs, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=theirs)
    return out
"""
    a = rand(256, 64)
    res = dev.execute(src, a, grid=2)
    assert not res.faults
    np.testing.assert_array_equal(res.outputs, np.concatenate([a[128:], a[:128]]))


# ----------------------------------------------------------------------------- the memory model


def test_overlapping_manual_placements_really_alias(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf, address=(0, 1024))
    b = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.sbuf, address=(0, 1024 + 128))  # alias
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=out[:, 0:32], src=b)
    nisa.dma_copy(dst=out[:, 32:64], src=a[:, 0:32])  # a is still live while b is used
    return out
"""
    x = rand(128, 64)
    res = dev.execute(src, x)
    np.testing.assert_array_equal(res.outputs[:, 0:32], x[:, 32:64])  # b starts 128 bytes = 32 floats into a
    assert faults(res) == {("NKI302", dev.line_of(src, "address=(0, 1024)"))}


def test_a_placed_tile_never_read_only_clobbers_where_it_is_written(dev: KernelRunner) -> None:
    # as the verifier (tests/test_api.py): acc is only written, so it conflicts with the scratch only when one
    # of its writes falls while the scratch holds a value still to be read
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    s = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    nisa.dma_copy(dst=acc, src=x)
    nisa.dma_copy(dst=s, src=x)
    nisa.dma_copy(dst=out, src=s)
    nisa.dma_copy(dst=acc, src=x)
    return out
"""
    x = rand(128, 64)
    res = dev.execute(src, x)
    assert faults(res) == set()
    inside = src.replace("""    nisa.dma_copy(dst=out, src=s)
    nisa.dma_copy(dst=acc, src=x)""", """    nisa.dma_copy(dst=acc, src=x)
    nisa.dma_copy(dst=out, src=s)""")
    assert inside != src
    assert {code for code, _ in faults(dev.execute(inside, x))} == {"NKI302"}


def test_a_scratch_between_a_tiles_read_and_its_rewrite_loses_nothing() -> None:
    # as the verifier (tests/kernels/b2_memory.py): the transpose scratch shares the matmul tile's bank; each
    # step's tile is a new allocation whose first matmul overwrites (not an accumulation onto the scratch)
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_memory.py")
    a, x = rand(128, 128), rand(128, 128)
    res = device.execute(path, a, x, kernel="transpose_scratch_on_a_rewritten_matmul_bank")
    assert faults(res) == set()
    np.testing.assert_allclose(res.outputs, 2 * (a.T @ x.T) + a.T @ x, rtol=1e-5)
    bad = device.execute(path, a, x, kernel="transpose_scratch_between_a_matmul_and_its_read")
    assert {code for code, _ in faults(bad)} == {"NKI302"}


def test_psum_geometry_banks_and_capacity(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    accs = []
    for i in range(N):
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)  # bank
        nisa.nc_matmul(dst=acc, stationary=t, moving=t)
        accs.append(acc)
    for i in range(N):
        nisa.tensor_copy(dst=t, src=accs[i])
    nisa.dma_copy(dst=out, src=t)
    return out
"""
    a = rand(128, 128)
    fits = dev.execute("N = 8\n" + src, a)
    assert not fits.faults
    over = dev.execute("N = 9\n" + src, a)
    assert {(f.code, f.line) for f in over.faults} == {("NKI204", dev.line_of("N = 9\n" + src, "# bank"))}
    assert dict(over.faults[0].values) == {"live": 9, "limit": 8}


def test_psum_misalignment_and_placement_range(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum, address=(0, 1024))  # misaligned
    s = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf, address=(0, 229376 - 64))  # past the end
    return out
"""
    res = dev.execute(src, rand(128, 64))
    assert faults(res) == {("NKI301", dev.line_of(src, "# misaligned")), ("NKI204", dev.line_of(src, "# past"))}


def test_matmul_result_view_must_sit_in_one_bank(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc[:, 256:768], stationary=ta, moving=tb)  # straddles
    return out
"""
    res = dev.execute(src, rand(128, 128), rand(128, 512))
    (f,) = res.faults
    assert (f.code, f.line) == ("NKI203", dev.line_of(src, "# straddles"))
    assert dict(f.values) == {"bytes": 2048, "offset in bank": 1024}


def test_writing_an_input_that_was_read_is_nki304_in_beta1_only(dev: KernelRunner) -> None:
    """Beta 1 has no in/out parameters (seed "getting started"); current NKI writes inputs in place."""
    src = """
@nki.jit
def k(x):
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=x, src=t)  # in place
    return x
"""
    res = dev.execute(src, rand(128, 64), header=B1)
    assert faults(res) == {("NKI304", dev.line_of(src, "# in place", header=B1))}
    x = rand(128, 64)
    res = dev.execute(src, x.copy())
    assert faults(res) == set()
    np.testing.assert_array_equal(res.outputs, x)


# ----------------------------------------------------------------------------- faults


def test_faults_carry_code_line_and_values_and_collect_mode_goes_on(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.sbuf)  # too tall
    u = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=u, src=a[64:192, :])  # past the end
    nisa.dma_copy(dst=out, src=u)
    return out
"""
    res = dev.execute(src, rand(128, 64))
    assert faults(res) == {("NKI201", dev.line_of(src, "# too tall")), ("NKI101", dev.line_of(src, "# past"))}
    oob = next(f for f in res.faults if f.code == "NKI101")
    assert dict(oob.values) == {"start": 64, "end": 192, "size": 128}
    assert "NKI101" in oob.describe() and f":{oob.line}:" in oob.describe()
    with pytest.raises(DeviceFault) as exc:
        dev.run(src, rand(128, 64))
    assert exc.value.code == "NKI201"


def test_a_kernel_assert_is_a_precondition_not_a_fault(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    assert a.shape[0] % 128 == 0, "rows must be a multiple of 128"
    return a
"""
    with pytest.raises(device.KernelPrecondition, match="multiple of 128"):
        dev.run(src, rand(100, 8))


DYNAMIC = """
@nki.jit
def k(x, n):
    out = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=t, value=-1.0)
    ns = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ns, src=n)
    r = nisa.register_alloc()
    nisa.register_load(r, ns)
    nisa.dma_copy(dst=t, src=x.ap([[8, 1], [1, 8]], scalar_offset=r, indirect_dim=0){mode})  # dynamic
    nisa.dma_copy(dst=out, src=t)
    return out
"""


def test_a_dynamic_access_out_of_bounds_faults_unless_oob_mode_skips_it(dev: KernelRunner) -> None:
    x = rand(4, 8)
    src = DYNAMIC.format(mode="")
    np.testing.assert_array_equal(dev.run(src, x, np.array([[2]], np.int32))[0], x[2])
    res = dev.execute(src, x, np.array([[20]], np.int32))
    assert faults(res) == {("NKI102", dev.line_of(src, "# dynamic"))}
    skipped = dev.execute(DYNAMIC.format(mode=", oob_mode=nisa.oob_mode.skip"), x, np.array([[20]], np.int32))
    assert not skipped.faults
    np.testing.assert_array_equal(skipped.outputs[0], np.full(8, -1.0, np.float32))  # the transfer was skipped


def test_a_multi_line_call_faults_at_its_first_line_and_a_slice_at_its_own(dev: KernelRunner) -> None:
    src = """
@nki.jit
def k(a):
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t,  # call
                  src=a[0:128,
                        0:600])  # slice
    nisa.dma_copy(dst=out, src=t)
    return out
"""
    res = dev.execute(src, rand(128, 512))
    assert faults(res) == {("NKI501", dev.line_of(src, "# call")), ("NKI101", dev.line_of(src, "# slice"))}


def test_an_nkiobject_dataclass_leaves_a_field_not_given_unset() -> None:
    # the NKI compiler sets one attribute per keyword given; CPython's dataclass __init__ would raise instead
    import dataclasses

    from device.modules import NKIObject

    @dataclasses.dataclass
    class Dims(NKIObject):
        rows: int
        cols: int
        spare: int
        scale: int = 2

    d = Dims(128, cols=512)
    assert (d.rows, d.cols, d.scale) == (128, 512, 2)
    with pytest.raises(AttributeError):
        assert d.spare is None  # not reached: reading it raises
    assert Dims(1, 2, 3).spare == 3
