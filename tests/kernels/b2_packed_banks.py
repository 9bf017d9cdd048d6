"""Tiles packed side by side in a PSUM bank: as many per bank as fit, at columns padded to 4 bytes."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transpose_blocks_packed_per_bank(x):
    # Each 128-column block of x ([rows, H]) is transposed into PSUM, `per_bank = 512 // padded` blocks side by
    # side at columns t*padded: inside one 2 KiB bank because t < 512 // padded (was: NKI901, the solver did not
    # find t*padded <= 512 - padded from it with padded a formula of the rows and the item size)
    rows, H = x.shape
    assert rows <= 128 and H % 128 == 0
    out = nl.ndarray((128, H // 128 * rows), dtype=x.dtype, buffer=nl.shared_hbm)
    n_blocks = H // 128
    size = 2 if x.dtype in [nl.float16, nl.bfloat16] else 4
    padded = (rows * size + 3) // 4 * 4 // size
    per_bank = 512 // padded
    for first in range(0, n_blocks, per_bank):
        count = min(per_bank, n_blocks - first)
        bank = (first // per_bank) % 8
        ps = nl.ndarray((128, count * padded), dtype=x.dtype, buffer=nl.psum, address=(0, bank * 2048))
        for t in range(count):
            blk = nl.ndarray((rows, 128), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=blk, src=x[0:rows, (first + t) * 128:(first + t + 1) * 128])
            nisa.nc_transpose(dst=ps[0:128, t * padded:t * padded + rows],
                              data=blk)
        sb = nl.ndarray((128, count * rows), dtype=x.dtype, buffer=nl.sbuf)
        for t in range(count):
            nisa.tensor_copy(dst=sb[0:128, t * rows:(t + 1) * rows], src=ps[0:128, t * padded:t * padded + rows])
        nisa.dma_copy(dst=out[0:128, first * rows:(first + count) * rows], src=sb)
    return out


@nki.jit
def transpose_blocks_packed_by_bytes(x):
    # The blocks per bank counted in bytes, not elements: a block straddles the end of a bank, and the last
    # banks' tiles run past PSUM
    rows, H = x.shape
    assert rows <= 128 and H % 128 == 0
    out = nl.ndarray((128, H // 128 * rows), dtype=x.dtype, buffer=nl.shared_hbm)
    n_blocks = H // 128
    size = 2 if x.dtype in [nl.float16, nl.bfloat16] else 4
    padded = (rows * size + 3) // 4 * 4 // size
    per_bank = 2048 // padded
    for first in range(0, n_blocks, per_bank):
        count = min(per_bank, n_blocks - first)
        bank = (first // per_bank) % 8
        at = (0, bank * 2048)
        ps = nl.ndarray((128, count * padded), dtype=x.dtype, buffer=nl.psum, address=at)  # expect: NKI204 warning
        for t in range(count):
            blk = nl.ndarray((rows, 128), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=blk, src=x[0:rows, (first + t) * 128:(first + t + 1) * 128])
            nisa.nc_transpose(dst=ps[0:128, t * padded:t * padded + rows],  # expect: NKI203 warning
                              data=blk)
        sb = nl.ndarray((128, count * rows), dtype=x.dtype, buffer=nl.sbuf)
        for t in range(count):
            nisa.tensor_copy(dst=sb[0:128, t * rows:(t + 1) * rows], src=ps[0:128, t * padded:t * padded + rows])
        nisa.dma_copy(dst=out[0:128, first * rows:(first + count) * rows], src=sb)
    return out
