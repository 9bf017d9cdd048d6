"""Blocks sized by a greatest common divisor of symbolic sizes (`math.gcd(cols, tile)`), as attention kernels
shrink a cache block to what divides every tile: the block divides the row, so the blocks cover it exactly and a
reshape through them keeps the number of elements; a least common multiple of the row and the tile is at least
the row, so a buffer that wide holds it. The verifier knows what any common divisor (multiple) satisfies: it
divides each argument (each non-zero argument divides it), and is at most each positive one. Before, the
reshape and the slice of the wide buffer were undecided (NKI901). A block one column too wide runs past the row
for every common divisor, but the verifier knows the block only as some common divisor, not as the greatest, so
a counterexample might pick one the kernel never computes: said undecided, never an error."""
import math

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def rows_in_common_blocks(x, tile: int):
    rows, cols = x.shape
    assert rows <= 128 and cols <= 4096 and tile >= 1
    block = math.gcd(cols, tile)
    n_blocks = cols // block
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.sbuf)
    for b in range(n_blocks):
        nisa.dma_copy(dst=t[0:rows, b * block:(b + 1) * block], src=x[0:rows, b * block:(b + 1) * block])
    nisa.dma_copy(dst=out, src=t.reshape((rows, n_blocks, block)).reshape((rows, cols)))
    return out


@nki.jit
def rows_in_blocks_one_column_wide(x, tile: int):
    rows, cols = x.shape
    assert rows <= 128 and cols <= 4096 and tile >= 1
    block = math.gcd(cols, tile)
    n_blocks = cols // block
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, cols + 1), dtype=x.dtype, buffer=nl.sbuf)
    for b in range(n_blocks):
        nisa.dma_copy(dst=t[0:rows, b * block:(b + 1) * block + 1],
                      src=x[0:rows, b * block:(b + 1) * block + 1])  # expect: NKI901 warning
    nisa.dma_copy(dst=out, src=t[0:rows, 0:cols])
    return out


@nki.jit
def rows_in_multiple_blocks(x, tile: int):
    rows, cols = x.shape
    assert rows <= 128 and cols <= 4096 and tile >= 1
    span = math.lcm(cols, tile)
    assert span <= 8192
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, span), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    nisa.dma_copy(dst=t[0:rows, 0:cols], src=x)
    nisa.dma_copy(dst=out, src=t[0:rows, 0:cols])
    return out
