"""Beta 2 runs the iterations of an affine_range loop in order, so `tensor_tensor(dst=acc, data1=acc, data2=x)`
with an op whose order does not matter (add, multiply, maximum, ...) accumulates: no NKI401, as for `+=` in
Beta 1.  An op whose result depends on the order, or a dst that is not the operand itself, is still a
loop-carried dependency.  Also: a kernel input's `.buffer` compared with nl.hbm / nl.shared_hbm."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sum_of_blocks(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def max_of_blocks_into_a_half(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc[:, 0:256], value=-1.0)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i, :, 0:256])
        nisa.tensor_tensor(dst=acc[:, 0:256], data1=t, data2=acc[:, 0:256], op=nl.maximum)
    nisa.dma_copy(dst=out, src=acc[:, 0:256])
    return out


@nki.jit
def alternating_sum_of_blocks(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=t, data2=acc, op=nl.subtract)  # expect: NKI401 warning
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def sum_into_a_shifted_window(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.affine_range(4):
        t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i, :, 0:256])
        # reads the window the previous iteration wrote, one column to the left: not the operand itself
        nisa.tensor_tensor(dst=acc[:, i + 1:i + 257], data1=acc[:, i:i + 256], data2=t,  # expect: NKI401 warning
                           op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def copy_an_input_asserted_in_hbm(x, y):
    # a kernel input is in nl.hbm on one core and in nl.shared_hbm when the cores of a launch share it
    assert x.buffer == y.buffer == nl.hbm
    assert x.shape == (128, 512) and y.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def copy_an_input_asserted_on_chip(x):  # expect: NKI901 warning
    assert x.buffer == nl.sbuf
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    return out
