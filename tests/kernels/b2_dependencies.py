"""Loop-carried dependencies and buffers reused across affine_range iterations (Beta 2: warnings).

The migration guide's sb_blocks_migrated (clean) and sb_blocks_migrated_incorrect (NKI403).  The block loops take
an alternating sum (each block minus the running value), which depends on the order of the iterations; a plain
sum into the accumulator is an accumulation (tests/kernels/b2_accumulations.py).
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sb_blocks_migrated(inp):
    assert inp.shape == (8, 128, 512)
    res = nl.ndarray(shape=(8, 128, 512), dtype=inp.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(8):
        add_buf = nl.ndarray(shape=(128, 512), dtype=inp.dtype, buffer=nl.sbuf)
        nisa.dma_copy(add_buf[0:128, 0:512], inp[i])
        nisa.dma_copy(res[i], add_buf[0:128, 0:512])
    return res


@nki.jit
def sb_blocks_migrated_incorrect(inp):
    assert inp.shape == (8, 128, 512)
    res = nl.ndarray(shape=(8, 128, 512), dtype=inp.dtype, buffer=nl.shared_hbm)
    add_buf = nl.ndarray(shape=(128, 512), dtype=inp.dtype, buffer=nl.sbuf)  # expect: NKI403 warning
    for i in nl.affine_range(8):
        nisa.dma_copy(add_buf[0:128, 0:512], inp[i])
        nisa.dma_copy(res[i], add_buf[0:128, 0:512])
    return res


@nki.jit
def sum_blocks_sequential(x):
    assert x.shape == (8, 128, 512)
    res = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.sequential_range(8):
        t = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.subtract)
    nisa.dma_copy(dst=res, src=acc)
    return res


@nki.jit
def sum_blocks_affine(x):
    assert x.shape == (8, 128, 512)
    res = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.affine_range(8):
        t = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.subtract)  # expect: NKI401 warning
    nisa.dma_copy(dst=res, src=acc)
    return res


@nki.jit
def matmul_psum_accumulation(lhsT, rhs):
    K, M = lhsT.shape
    assert M == 128 and rhs.shape == (K, 512) and K % 128 == 0
    result = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    psum = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        lt = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        rt = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lt, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=rt, src=rhs[k * 128:(k + 1) * 128, :])
        nisa.nc_matmul(dst=psum, stationary=lt, moving=rt)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=psum)
    nisa.dma_copy(dst=result, src=res)
    return result


@nki.jit
def shifted_rows(x):
    P, F = x.shape
    assert P % 128 == 0 and P >= 256 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(P // 128 - 1):
        t = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 64:i * 64 + 128, :], src=t)  # expect: NKI401 warning
    return out
