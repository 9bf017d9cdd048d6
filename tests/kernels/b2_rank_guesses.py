"""Inputs whose rank nothing in the kernel states: the verifier guesses it from the uses (`x.shape[2]` says three
axes or more), and a check that fails for every input at the guessed rank but not at a rank more is a warning,
since a launch with the other rank is correct.  Stated, the rank makes it an error."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def first_expert_as_a_block(x):
    # x[0] is (128, 4) at rank 3, which no (128, 8) block fits; at rank 4 it is (128, 4, x.shape[3]), which one
    # does when x.shape[3] == 2
    assert x.shape[1] == 128 and x.shape[2] == 4
    out = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0].reshape((128, 8)))  # expect: NKI501 warning
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def first_expert_as_a_block_of_three_axes(x):
    # the unpacking states rank 3: every launch fails
    experts, rows, cols = x.shape
    assert rows == 128 and cols == 4
    out = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0].reshape((128, 8)))  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def first_expert_larger_than_the_block(x):
    # 128 x 16 elements at rank 3, a multiple of them at any rank more: never the 1024 of the block
    assert x.shape[1] == 128 and x.shape[2] == 16
    out = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0].reshape((128, 8)))  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def first_expert_as_a_block_of_four_axes(x):
    # the good twin: four axes stated, the last of two elements
    experts, rows, cols, pairs = x.shape
    assert rows == 128 and cols == 4 and pairs == 2
    out = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0].reshape((128, 8)))
    nisa.dma_copy(dst=out, src=t)
    return out
