"""Forms from AWS's own model kernels: tiles placed by hand at rotating addresses share their bytes (four PSUM
banks reused by sixteen tiles); a flag a loop sets on only some iterations is carried out of the loop; an
integer times a float constant (`int(n * 0.65)`) stays exact; a launcher's own parameter that the kernel only
computes with is a number, not an input tensor; a view kept in a variable is checked under the oob_mode of the
instruction that uses it; an `int = None` parameter the kernel compares with None is optional, not a placeholder;
`x & (x - 1) == 0` says x is a power of two."""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

BANK = 2048  # bytes per partition of one PSUM bank
SPLIT = 0.65


@nki.jit
def rotate_four_psum_banks(a, b):
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
    bt = nl.ndarray((128, 512), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a)
    nisa.dma_copy(dst=bt, src=b)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for j in range(16):
        ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, (j % 4) * BANK))
        nisa.nc_matmul(dst=ps, stationary=at, moving=bt)
        nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def copy_rows_that_exist(a):
    # the flag is set by the iterations whose rows exist (two of four for 256 rows): the final copy happens
    assert a.shape == (256, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    wrote = False
    for i in range(4):
        rows = min(a.shape[0] - i * 128, 128)
        if rows > 0:
            nisa.dma_copy(dst=t[0:rows, :], src=a[i * 128:i * 128 + rows, 0:128])
            wrote = True
    if wrote:
        nisa.tensor_copy(dst=res, src=t)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def copy_first_share_of_groups(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] == 64
    first = int(x.shape[0] // 128 * SPLIT)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for g in range(first):
        t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[g * 128:(g + 1) * 128, :])
        nisa.dma_copy(dst=out[g * 128:(g + 1) * 128, :], src=t)
    return out


@nki.jit
def copy_first_share_of_groups_and_one_more(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] == 64
    first = int(x.shape[0] // 128 * SPLIT)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for g in range(2 * first):
        t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[g * 128:(g + 1) * 128, :])  # expect: NKI101 warning
        nisa.dma_copy(dst=out[g * 128:(g + 1) * 128, :], src=t)  # expect: NKI101 warning
    return out


@nki.jit
def split_rows(x, parts):
    assert x.shape[0] % parts == 0 and x.shape[1] == 512
    rows = x.shape[0] // parts
    assert rows <= 128
    out = nl.ndarray((rows, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:rows, :])
    nisa.dma_copy(dst=out, src=t)
    return out


def split_rows_launcher(x, parts, lnc):
    return split_rows[lnc](x, parts)


@nki.jit
def scatter_row_unless_out_of_range(x, cache, idx):
    # idx may name a row another rank owns (past the cache): the copy skips it
    assert x.shape == (1, 512) and cache.shape == (8, 512) and idx.shape == (1, 1)
    idx_sb = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=idx_sb, src=idx)
    row = cache.ap(pattern=[[512, 1], [1, 512]], offset=0, scalar_offset=idx_sb, indirect_dim=0)
    nisa.dma_copy(dst=row, src=x, oob_mode=nisa.oob_mode.skip)
    return cache


@nki.jit
def copy_scaled_unless_split(x, scale: float = 1.0, cp_deg: int = None):
    if cp_deg is not None:
        assert scale == 1.0, "context parallel only supports scale=1.0"
    assert x.shape == (128, 64)
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out



def _is_power_of_2(x):
    return x > 0 and (x & (x - 1)) == 0


@nki.jit
def whole_tiles_across_the_row(a):
    # a power of two up to 128 divides 128: (128 // n) tiles of n columns fill the row exactly
    n = a.shape[1]
    assert a.shape[0] == 128 and n <= 128 and _is_power_of_2(n)
    t = nl.ndarray((128, (128 // n) * n), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def whole_tiles_across_the_row_of_any_width(a):
    n = a.shape[1]
    assert a.shape[0] == 128 and n <= 128
    t = nl.ndarray((128, (128 // n) * n), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)  # expect: NKI501 warning
    return out

if __name__ == "__main__":
    copy_scaled_unless_split(np.zeros((128, 64), np.float32), scale=0.5)
