"""Checks inside a loop on a register (`while reg:`, `nl.while_loop`), whose trip count the data decides.  The
trip count is a value read at run time, as a register is: a check that fails for some input whenever the body
runs is a finding, since some data runs the body.  Before, the trip count was a value the verifier could not
determine, and such a check was undecided (NKI901 "it depends on <dynamic while trip count>")."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def rows_copied_while_flagged(x, flags):
    n, m = x.shape
    assert n <= 128 and m <= 512 and flags.shape == (1, 1)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)
    while reg:
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(reg, cond)
    return out


@nki.jit
def rows_copied_while_flagged_without_a_bound(x, flags):
    n, m = x.shape
    assert m <= 512 and flags.shape == (1, 1)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)
    while reg:
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(reg, cond)
    return out


@nki.jit
def groups_of_columns_while_flagged(x, flags):
    # m // 32 columns of 32 regrouped by up to 8: whole groups only when the count of 32s divides by its group
    n, m = x.shape
    assert n == 128 and m % 256 == 0 and m <= 2048 and flags.shape == (1, 1)
    g = min(8, m // 32)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)
    while reg:
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        grouped = t.reshape((n, m // 32 // g, 32 * g))
        nisa.dma_copy(dst=out.reshape((n, m // 32 // g, 32 * g)), src=grouped)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(reg, cond)
    return out


@nki.jit
def groups_of_columns_while_flagged_any_width(x, flags):
    n, m = x.shape
    assert n == 128 and m % 32 == 0 and m <= 2048 and flags.shape == (1, 1)
    g = min(8, m // 32)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)
    while reg:
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        grouped = t.reshape((n, m // 32 // g, 32 * g))  # expect: NKI501 warning
        nisa.dma_copy(dst=out, src=t)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(reg, cond)
    return out


@nki.jit
def rows_copied_in_a_while_loop_helper(x, flags):
    n, m = x.shape
    assert n <= 128 and m <= 512 and flags.shape == (1, 1)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)

    def body(r):
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(r, cond)
        return r

    nl.while_loop(reg, body)
    return out


@nki.jit
def rows_copied_in_a_while_loop_helper_without_a_bound(x, flags):
    n, m = x.shape
    assert m <= 512 and flags.shape == (1, 1)
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=flags)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)

    def body(r):
        t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 warning
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(r, cond)
        return r

    nl.while_loop(reg, body)
    return out
