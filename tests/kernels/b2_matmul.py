"""Tiled matmul (good) and the limits of the Tensor Engine."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_tiled(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2
    assert K % 128 == 0 and M % 128 == 0 and N % 512 == 0
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lt = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
                rt = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lt, src=lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                nisa.dma_copy(dst=rt, src=rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                nisa.nc_matmul(dst=acc, stationary=lt, moving=rt)
            res = nl.ndarray((128, 512), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=result[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], src=res)
    return result


@nki.jit
def matmul_wide_moving(lhsT, rhs):
    assert lhsT.shape == (128, 128)
    assert rhs.shape == (128, 1024)
    result = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    rt = nl.ndarray((128, 1024), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=lt, src=lhsT)
    nisa.dma_copy(dst=rt, src=rhs)
    acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=lt, moving=rt)  # expect: NKI202 error
    res = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=result, src=res)
    return result


@nki.jit
def matmul_mismatched(lhsT, rhs):
    assert lhsT.shape == (128, 128) and rhs.shape == (128, 512)
    result = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    rt = nl.ndarray((64, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=lt, src=lhsT[0:128, 0:128])
    nisa.dma_copy(dst=rt, src=rhs[0:64, 0:512])
    acc = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=lt, moving=rt)  # expect: NKI501 error, NKI502 error
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=result, src=res)
    return result


@nki.jit
def matmul_operand_in_psum(lhsT, rhs):
    assert rhs.shape == (128, 512)
    result = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
    rt = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=lt, value=0.0)
    nisa.dma_copy(dst=rt, src=rhs[0:128, 0:512])
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=lt, moving=rt)  # expect: NKI303 error
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=result, src=res)
    return result


@nki.jit
def matmul_accumulating_from_the_second_step(lhsT, rhs):
    # accumulate=(k > 0): the first contraction step starts the accumulation group
    K, M = lhsT.shape
    assert rhs.shape == (K, 512) and M == 128 and K % 128 == 0 and K >= 128
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.sequential_range(K // 128):
        a = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, :])
        nisa.nc_matmul(dst=acc, stationary=a, moving=b, accumulate=(k > 0))
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_accumulating_from_the_first_step(lhsT, rhs):
    K, M = lhsT.shape
    assert rhs.shape == (K, 512) and M == 128 and K % 128 == 0 and K >= 128
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.sequential_range(K // 128):
        a = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, :])
        nisa.nc_matmul(dst=acc, stationary=a, moving=b, accumulate=True)  # expect: NKI404 error
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out
