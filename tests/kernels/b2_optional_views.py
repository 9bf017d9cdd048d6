"""Two things real kernels do with their inputs: an optional input (default None) that one kernel uses on every
path, so it is only ever launched with it (and one tested against None, analysed both ways); and a view class whose base tensor may have been reshaped by a
branch, so its shape is one of two tuples of different lengths, with code looping over `len(shape)`."""
from typing import Optional

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def bias_used_on_every_path(x, bias: Optional[nl.ndarray] = None):
    # `bias.dtype` would fail on a None bias: the kernel is analysed with the bias given
    assert x.shape == (128, 512)
    assert bias.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    b = nl.ndarray((128, 512), dtype=bias.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=bias[0:128, 0:512])
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def bias_used_past_its_end(x, bias: Optional[nl.ndarray] = None):
    assert x.shape == (128, 512)
    assert bias.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    b = nl.ndarray((128, 512), dtype=bias.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=bias[0:128, 1:513])  # expect: NKI101 error
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def bias_only_when_given(x, bias: Optional[nl.ndarray] = None):
    # guarded: the kernel is analysed as launched without the bias and again with it; the bias's shape is never
    # asserted, so a launch with a bias of another shape fails at the copy (a warning)
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if bias is not None:
        nisa.dma_copy(dst=t, src=bias)  # expect: NKI501 warning
    nisa.dma_copy(dst=out, src=t)
    return out


class View(nl.NKIObject):
    """A tensor with row-major strides, in the manner of a tensor-view helper."""

    def __init__(self, base):
        self.base = base
        self.shape = tuple(base.shape)
        self.strides = View.row_major(self.shape)

    @staticmethod
    def row_major(shape):
        inner = [1]
        for i in range(1, len(shape)):
            inner.append(inner[i - 1] * shape[len(shape) - i])
        out = []
        for i in range(len(shape)):
            out.append(inner[len(shape) - i - 1])
        return tuple(out)

    def dim_with_stride(self, stride):
        # a search that returns from inside the loop
        for i in range(len(self.strides) - 1, -1, -1):
            if self.strides[i] == stride:
                return i
        return -1


@nki.jit
def view_of_a_maybe_split_tensor(x, split: int):
    assert x.shape == (128, 1024)
    base = x.reshape((128, 2, 512)) if split == 1 else x
    v = View(base)
    row = v.strides[0]  # 1024 on both paths
    last = v.shape[v.dim_with_stride(1)]  # 512 or 1024
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:128, row - 512:row])
    nisa.dma_copy(dst=t[0:128, 0:256], src=x[0:128, last - 256:last])
    nisa.dma_copy(dst=t[0:128, 0:256 * len(v.shape) - 256], src=x[0:128, 0:256 * len(v.shape) - 256])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def view_of_a_maybe_split_tensor_past_the_end(x, split: int):
    assert x.shape == (128, 1024)
    base = x.reshape((128, 2, 512)) if split == 1 else x
    v = View(base)
    row = v.strides[0]
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:128, row - 256:row + 256])  # expect: NKI101 error
    # 512 elements on the unsplit path, 768 once split: only some inputs overrun t
    nisa.dma_copy(dst=t[0:128, 0:256 * len(v.shape)], src=x[0:128, 0:256 * len(v.shape)])  # expect: NKI101 warning
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def tile_height_from_an_optional_config(x, cfg=None):
    # getattr with a default on a config left at None: the default (no dereference of None)
    rows, cols = x.shape
    height = getattr(cfg, "height", 128)
    assert rows % height == 0 and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(rows // height):
        t = nl.ndarray((height, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * height:(i + 1) * height, :])
        nisa.dma_copy(dst=out[i * height:(i + 1) * height, :], src=t)
    return out


@nki.jit
def tile_height_from_an_optional_config_too_tall(x, cfg=None):
    rows, cols = x.shape
    height = getattr(cfg, "height", 256)
    assert rows % height == 0 and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(rows // height):
        t = nl.ndarray((height, cols), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI201 error
        nisa.dma_copy(dst=t, src=x[i * height:(i + 1) * height, :])
        nisa.dma_copy(dst=out[i * height:(i + 1) * height, :], src=t)
    return out
