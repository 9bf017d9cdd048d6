"""An optional bias the kernel tests against None (`if bias is not None:`), the way most library kernels take
one: the run with the bias left at None never reaches the code that reads it, so the kernel is analysed a
second time with the bias given (a launch with a bias runs that code).  Only the run without it was analysed,
and a bug on the bias path went unseen with no word said."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def add_an_optional_bias(x, bias=None):
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if bias is not None:
        assert bias.shape == (1, F)
        b = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
        for p in range(P):
            nisa.dma_copy(dst=b[p:p + 1, :], src=bias)
        nisa.tensor_tensor(dst=t, data1=t, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def add_an_optional_bias_one_row_late(x, bias=None):
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if bias is not None:
        assert bias.shape == (1, F)
        b = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
        for p in range(P):
            nisa.dma_copy(dst=b[p + 1:p + 2, :], src=bias)  # expect: NKI101 error
        nisa.tensor_tensor(dst=t, data1=t, data2=b, op=nl.add)  # expect: NKI404 warning
    nisa.dma_copy(dst=out, src=t)
    return out


def _check_tables(x, table, cos, sin):
    # either one packed table (cos and sin side by side) or the two halves apart, never both
    if table is not None:
        assert cos is None and sin is None, "give either the packed table or cos and sin"
        assert table.shape == (x.shape[0], 2 * x.shape[1])
    else:
        assert cos is not None and sin is not None, "give the packed table or cos and sin"
        assert cos.shape == x.shape and sin.shape == x.shape


@nki.jit
def scale_by_a_table_or_two(x, cos=None, sin=None, table=None):
    # the run with cos and sin (every path without them fails) and, in their place, the run with the packed
    # table: given together, every path fails, which says nothing of a launch
    P, F = x.shape
    assert P <= 128 and F <= 256
    _check_tables(x, table, cos, sin)
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    c = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if table is not None:
        nisa.dma_copy(dst=c, src=table[:, 0:F])
    else:
        nisa.dma_copy(dst=c, src=cos)
    nisa.tensor_tensor(dst=t, data1=t, data2=c, op=nl.multiply)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scale_by_a_table_or_two_half_late(x, cos=None, sin=None, table=None):
    P, F = x.shape
    assert P <= 128 and F <= 256
    _check_tables(x, table, cos, sin)
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    c = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if table is not None:
        nisa.dma_copy(dst=c, src=table[:, F + 1:2 * F + 1])  # expect: NKI101 error
    else:
        nisa.dma_copy(dst=c, src=sin)
    nisa.tensor_tensor(dst=t, data1=t, data2=c, op=nl.multiply)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def no_bias_yet(x, bias=None):
    # a kernel that refuses an input it names: the run with the bias given fails on every path, and is dropped
    if bias is not None:
        assert False, "bias is not supported yet"
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out
