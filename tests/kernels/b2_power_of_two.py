"""A power-of-two precondition stated the usual way, `x > 0 and x & (x - 1) == 0` in a helper (as vLLM's
flash-attention kernel asserts its blocks per tile): the verifier reads `x & (x - 1)` as 0 exactly when x is 0
or a power of two, also where the `and` has not yet made x positive. It was a value not known, so every check
resting on the assert was undecided (NKI901 "depends on <x & x - 1>"). Without the assert, 3 blocks of 42
columns copy 126 elements into a row of 128."""
import nki
import nki.isa as nisa
import nki.language as nl


def is_power_of_2(x):
    return x > 0 and (x & (x - 1)) == 0


@nki.jit
def row_in_equal_blocks(x, blocks: int):
    assert is_power_of_2(blocks) and blocks <= 128
    assert x.shape[0] >= 1 and x.shape[1] >= 128
    width = 128 // blocks
    out = nl.ndarray((1, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((1, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:1, 0:width * blocks])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def row_in_equal_blocks_of_any_count(x, blocks: int):
    assert blocks > 0 and blocks <= 128
    assert x.shape[0] >= 1 and x.shape[1] >= 128
    width = 128 // blocks
    out = nl.ndarray((1, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((1, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:1, 0:width * blocks])  # expect: NKI501 warning
    nisa.dma_copy(dst=out, src=t)
    return out
