"""Instructions a NeuronCore generation does not have (NKI503): a warning when the target is only the default
(trn2), clean when the kernel names a target that has them."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def exp_on_default_target(x):
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.exponential(dst=t, src=t)  # expect: NKI503 warning
    return t


@nki.jit(platform_target="trn3")
def exp_on_trn3(x):
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.exponential(dst=t, src=t)
    return t


@nki.jit
def exp_behind_a_hard_condition(x, a: int, b: int, c: int):
    # whether any input takes this branch is beyond the solver: 42 as a sum of three cubes (first found in
    # 2019, with 17-digit numbers); the instruction is missing on the target whenever it is reached, so the
    # finding stands as a warning that says so
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if a * a * a + b * b * b + c * c * c == 42:
        nisa.exponential(dst=t, src=t)  # expect: NKI503 warning
    return t


@nki.jit
def normalise_rows_by_the_reciprocal(x):
    # x / sum(x) as the hardware computes it: a multiplication by the reciprocal
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=total, op=nl.add, data=t, axis=1)
    inv = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.reciprocal(dst=inv, data=total)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=inv)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def normalise_rows_by_a_division(x):
    # division is not an instruction, on any target: whichever target is chosen, an error
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=total, op=nl.add, data=t, axis=1)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.divide, operand0=total)  # expect: NKI503 error
    nisa.dma_copy(dst=out, src=nl.divide(t, 2.0))  # expect: NKI503 error
    return out
