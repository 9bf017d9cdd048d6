"""A mode parameter whose default the kernel does not implement (`scaling: Scaling = Scaling.PRE` and
`if scaling == Scaling.PRE: kernel_assert(False, "not implemented")`): every launch passes another value, so
the kernel is analysed with each other member of the enum (or the other bool), and a value whose run fails
on every path too (here NONE, which leaves `scale` unbound) is dropped.  It was "every path fails" (NKI901)
and nothing checked.  A default that fails by a bug of the kernel instead (a name unbound on every path,
b2_language.py's width_misspelt_on_one_branch) is reported, not replaced."""
from enum import IntEnum

import nki
import nki.isa as nisa
import nki.language as nl


class Scaling(IntEnum):
    NONE = 0
    PRE = 1
    POST = 2


def _require(cond, msg):
    assert cond, msg


def _scaled(x, scaling):
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:128, 0:512])
    _require(scaling != Scaling.PRE, "PRE scaling is not implemented")
    if scaling == Scaling.POST:
        scale = 2.0
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=scale)
    return t


@nki.jit
def post_scaled_copy(x, scaling: Scaling = Scaling.PRE):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = _scaled(x, scaling)
    nisa.dma_copy(dst=out[0:128, 0:512], src=t)
    return out


@nki.jit
def post_scaled_copy_one_past(x, scaling: Scaling = Scaling.PRE):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = _scaled(x, scaling)
    nisa.dma_copy(dst=out[0:128, 1:513], src=t)  # expect: NKI101 error
    return out


@nki.jit
def transposed_only(x, transposed: bool = False):
    assert x.shape == (128, 512)
    _require(transposed, "only the transposed layout is implemented")
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:128, 0:512], src=x[0:128, 1:513])  # expect: NKI101 error
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def no_mode_gets_through(x, scaling: Scaling = Scaling.PRE):  # expect: NKI901 warning
    assert x.shape == (128, 512)
    _require(scaling == Scaling.PRE, "only PRE scaling is accepted")
    _require(scaling != Scaling.PRE, "PRE scaling is not implemented")
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    return out


@nki.jit
def copy_rows_aligned(x, tp: bool):
    # `align = 32 if tp else None; if align == None: align = 4`: align is 32 or 4 after the `if`, never None
    # (it was NKI902 "operator Add on symbolic int and NoneType")
    P, F = x.shape
    assert P == 128 and F == 512
    align = 32 if tp else None
    if align == None:  # noqa: E711 (NKI has no `is`)
        align = 4
    width = (F + align - 1) // align * align
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, width), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def copy_rows_aligned_past_the_row(x, tp: bool):
    P, F = x.shape
    assert P == 128 and F == 500
    align = 32 if tp else None
    if align == None:  # noqa: E711
        align = 4
    width = (F + align - 1) // align * align
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, width), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)  # expect: NKI501 warning
    nisa.dma_copy(dst=out, src=t[:, 0:F])
    return out
