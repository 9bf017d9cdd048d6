"""Optional inputs a kernel accepts one at a time: a bias, or a block-wise dequantisation scale with its block
size, but not both (`if scale is not None: assert bias is None`).  The verifier analyses each optional input
the kernel tests against None as given; given together they fail on every path, so each is given on its own,
and a None-default tuple of sizes (`block`) that the scale path needs is given with it.  Before, that launch
was one NKI901 "every path fails", and the scale path was never checked."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def project(x, w, bias=None, scale=None, block=None):
    M, K = x.shape
    _, N = w.shape
    assert M <= 128 and K <= 128 and N <= 512 and w.shape[0] == K
    if scale is not None:
        assert block is not None, "a scale needs its block size"
        assert bias is None, "dequantisation with a bias is not supported"
        assert scale.shape[0] == K and N == scale.shape[1] * block[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.ndarray((K, M), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x.ap([[1, K], [K, M]], offset=0))
    wt = nl.ndarray((K, N), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=wt, src=w)
    if scale is not None:
        nb = N // block[1]
        st = nl.ndarray((K, nb), dtype=scale.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=st, src=scale[0:K, 0:nb])
        for j in nl.affine_range(nb):
            cols = wt[0:K, j * block[1]:(j + 1) * block[1]]
            nisa.tensor_scalar(dst=cols, data=cols, op0=nl.multiply, operand0=st[0:K, j:j + 1])
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=xt, moving=wt)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    if bias is not None:
        assert bias.shape == (1, N)
        bt = nl.ndarray((M, N), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=bt, src=bias.ap([[0, M], [1, N]], offset=0))
        nisa.tensor_tensor(dst=res, data1=res, data2=bt, op=nl.add)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def project_scale_past_its_block(x, w, bias=None, scale=None, block=None):
    M, K = x.shape
    _, N = w.shape
    assert M <= 128 and K <= 128 and N <= 512 and w.shape[0] == K
    if scale is not None:
        assert block is not None, "a scale needs its block size"
        assert bias is None, "dequantisation with a bias is not supported"
        assert scale.shape[0] == K and N == scale.shape[1] * block[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.ndarray((K, M), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x.ap([[1, K], [K, M]], offset=0))
    wt = nl.ndarray((K, N), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=wt, src=w)
    if scale is not None:
        nb = N // block[1]
        st = nl.ndarray((K, nb + 1), dtype=scale.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=st, src=scale[0:K, 0:nb + 1])  # expect: NKI101 error
        for j in nl.affine_range(nb):
            cols = wt[0:K, j * block[1]:(j + 1) * block[1]]
            nisa.tensor_scalar(dst=cols, data=cols, op0=nl.multiply, operand0=st[0:K, j:j + 1])
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=xt, moving=wt)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out
