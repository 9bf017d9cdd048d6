"""Tables keyed by a dtype the kernel is given, as library helpers keep them (the largest value of each fp8
format, the bytes of each element type), looked up with an input's dtype, which the verifier does not know: each
entry counts under the condition that the dtype is its key, the conditions the kernel's own dtype tests use.
With a key not known at all (one of two dtypes chosen by a condition), a table of floats gives a float not
known.  The integer lookup was 'not understood' (NKI902, "dict has no key") and every check after it undecided;
`get` gave its default (None) as if no key could match, or an operand not known (NKI902).  (A table of dtypes is
left as it was: its entries would be a dtype chosen by conditions, which views do not follow yet.)"""
import nki
import nki.isa as nisa
import nki.language as nl

_LARGEST = {nl.float8_e4m3: 240.0, nl.float8_e5m2: 57344.0}
_BYTES = {nl.float32: 4, nl.bfloat16: 2, nl.float16: 2, nl.float8_e4m3: 1}


def _largest(dtype):
    # the library's spelling check: the key is then one of two dtypes by a condition, not a dtype of the table
    if str(dtype) == "float8e4":
        dtype = nl.float8_e4m3
    return _LARGEST.get(dtype, None)


@nki.jit
def clamp_to_the_format(x, q):
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.minimum, operand0=_largest(q.dtype))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def clamp_to_the_format_one_past(x, q):
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.tensor_scalar(dst=t[:, 1:F + 1], data=t, op0=nl.minimum, operand0=_largest(q.dtype))  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def one_bank_of_elements(x):
    # 2 KiB of the input's elements per row: 512 to 2048 columns, each within the row of 2048
    P, F = x.shape
    assert P <= 128 and F == 2048
    cols = 2048 // _BYTES[x.dtype]
    out = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 0:cols])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def two_banks_of_elements(x):
    # 4 KiB per row: 1024 columns of float32 fit, 2048 of bfloat16 do, 4096 of fp8 do not (a warning: only
    # launches with an fp8 input fail)
    P, F = x.shape
    assert P <= 128 and F == 2048
    cols = 4096 // _BYTES[x.dtype]
    out = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 0:cols])  # expect: NKI101 warning
    nisa.dma_copy(dst=out, src=t)
    return out
