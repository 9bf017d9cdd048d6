"""Beta-1 matmul with PSUM accumulation through +=."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def matmul(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_ and K % 128 == 0 and M == 128 and N == 512
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res_psum = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        lt = nl.load(lhsT[k * 128:(k + 1) * 128, 0:M])
        rt = nl.load(rhs[k * 128:(k + 1) * 128, 0:N])
        res_psum += nl.matmul(lt, rt, transpose_x=True)
    nl.store(result, value=nl.copy(res_psum))
    return result


@nki.jit
def matmul_too_wide(lhsT, rhs):
    assert lhsT.shape == (128, 128) and rhs.shape == (128, 1024)
    result = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT[0:128, 0:128])
    rt = nl.load(rhs[0:128, 0:1024])
    res = nl.matmul(lt, rt, transpose_x=True)  # expect: NKI202 error
    nl.store(result, value=nl.copy(res))
    return result


@nki.jit
def block_dims(x):
    assert x.shape == (8, 128, 256)
    out = nl.ndarray((8, 128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    buf = nl.ndarray((8, nl.par_dim(128), 256), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(8):
        buf[i] = nl.load(x[i])
        nl.store(out[i], value=buf[i])
    return out


@nki.jit
def block_dims_too_tall(x):
    buf = nl.ndarray((2, nl.par_dim(256), 256), dtype=nl.float32, buffer=nl.sbuf)  # expect: NKI201 error
    return x


@nki.jit
def isa_matmul_into_blocks(lhsT, rhs):
    # nisa.nc_matmul in its Beta-1 form (the result returned, accumulated with +=): one bank-wide block of N
    # at a time
    assert lhsT.shape == (128, 128) and rhs.shape[0] == 128 and rhs.shape[1] % 512 == 0
    n = rhs.shape[1]
    result = nl.ndarray((128, n), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT[0:128, 0:128])
    for j in nl.affine_range(n // 512):
        rt = nl.load(rhs[0:128, j * 512:(j + 1) * 512])
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(lt, rt)
        nl.store(result[0:128, j * 512:(j + 1) * 512], value=nl.copy(acc))
    return result


@nki.jit
def isa_matmul_into_blocks_twice_as_wide(lhsT, rhs):
    assert lhsT.shape == (128, 128) and rhs.shape[0] == 128 and rhs.shape[1] % 1024 == 0
    n = rhs.shape[1]
    result = nl.ndarray((128, n), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT[0:128, 0:128])
    for j in nl.affine_range(n // 1024):
        rt = nl.load(rhs[0:128, j * 1024:(j + 1) * 1024])
        acc = nl.zeros((128, 1024), nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(lt, rt)  # expect: NKI202 error
        nl.store(result[0:128, j * 1024:(j + 1) * 1024], value=nl.copy(acc))
    return result


@nki.jit
def isa_matmul_accumulated_into_a_narrower_tile(lhsT, rhs):
    assert lhsT.shape == (128, 128) and rhs.shape == (128, 513)
    result = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    lt = nl.load(lhsT[0:128, 0:128])
    rt = nl.load(rhs[0:128, 0:513])
    acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
    acc += nisa.nc_matmul(lt, rt)  # expect: NKI202 error, NKI501 error
    nl.store(result, value=nl.copy(acc))
    return result
