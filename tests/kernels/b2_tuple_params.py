"""Parameters that are tuples of numbers, as convolution kernels take them (`stride=None`, `dilation=None`,
`padding=((lo, hi), (lo, hi))`, `perm=None` compared with a list), with nothing but their use to say so: items
read in integer arithmetic or compared with ints (`(k - 1) * dilation[0] + 1`, `stride[0] == 1`), items unpacked
into names (`lo, hi = padding[0]`), the parameter compared with a list literal. They were taken for tensors (a
subscript of a parameter was evidence enough): an operator on `dilation[0]` was NKI609 "Beta-2 tensors have no
operators", an error, `padding[0]` unpacked was NKI902 "iterating over a tensor", the comparison with a list
NKI902, and the sizes computed from them unknown, so every check after them undecided."""
import nki
import nki.isa as nisa
import nki.language as nl


def dilated(k, dilation=None):
    if dilation:
        k = (k - 1) * dilation[0] + 1
    return k


@nki.jit
def rows_of_a_padded_window(x, padding=None, stride=None, dilation=None, perm=None):
    if stride is None:
        stride = [1, 1]
    if dilation is None:
        dilation = (1, 1)
    assert stride[0] == 1 and stride[1] == 1
    top, bottom = padding[0]
    assert top >= 0 and bottom >= 0
    keep_layout = perm == [0, 1]
    H, W = x.shape
    assert H <= 128 and W <= 512
    k = dilated(3, dilation)
    rows = H + top + bottom - k + 1
    assert rows >= 1 and rows <= H
    out = nl.ndarray((rows, W), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, W), dtype=x.dtype, buffer=nl.sbuf)
    if keep_layout:
        nisa.dma_copy(dst=t, src=x[0:rows, 0:W])
    else:
        nisa.dma_copy(dst=t, src=x[H - rows:H, 0:W])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def rows_of_a_window_one_too_many(x, padding=None, stride=None, dilation=None):
    if stride is None:
        stride = [1, 1]
    if dilation is None:
        dilation = (1, 1)
    assert stride[0] == 1 and stride[1] == 1
    top, bottom = padding[0]
    assert top >= 0 and bottom >= 0
    H, W = x.shape
    assert H <= 64 and W <= 512
    k = dilated(3, dilation)
    rows = H + top + bottom - k + 1
    assert rows >= 1 and rows <= H
    out = nl.ndarray((rows, W), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows + 1, W), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:rows + 1, 0:W])  # expect: NKI101 warning
    nisa.dma_copy(dst=out, src=t[0:rows, 0:W])
    return out
