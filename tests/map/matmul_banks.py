"""Kernels drawn by `nki-verify map` in tests/test_map.py: a K-tiled matmul whose two accumulators take two
PSUM banks while per-iteration SBUF tiles come and go, and the same with hand-placed accumulators that
share a bank (NKI301, NKI302)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_two_banks(lhsT, rhs):
    K, M = lhsT.shape
    N = rhs.shape[1]
    assert M == 128 and N == 1024 and rhs.shape[0] == K and K % 128 == 0
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc0 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    acc1 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        lt = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        rt = nl.ndarray((128, 1024), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lt, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=rt, src=rhs[k * 128:(k + 1) * 128, :])
        nisa.nc_matmul(dst=acc0, stationary=lt, moving=rt[:, 0:512])
        nisa.nc_matmul(dst=acc1, stationary=lt, moving=rt[:, 512:1024])
    res = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res[:, 0:512], src=acc0)
    nisa.tensor_copy(dst=res[:, 512:1024], src=acc1)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_placed_banks(lhsT, rhs):
    K, M = lhsT.shape
    N = rhs.shape[1]
    assert M == 128 and N == 1024 and rhs.shape[0] == K and K % 128 == 0
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc0 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 0))
    acc1 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 1024))  # half a bank on: overlaps
    for k in nl.affine_range(K // 128):
        lt = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        rt = nl.ndarray((128, 1024), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lt, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=rt, src=rhs[k * 128:(k + 1) * 128, :])
        nisa.nc_matmul(dst=acc0, stationary=lt, moving=rt[:, 0:512])
        nisa.nc_matmul(dst=acc1, stationary=lt, moving=rt[:, 512:1024])
    res = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res[:, 0:512], src=acc0)
    nisa.tensor_copy(dst=res[:, 512:1024], src=acc1)
    nisa.dma_copy(dst=out, src=res)
    return out
