"""Beta-1 SPMD tensor add launched on a grid computed from the inputs (as in the seed tutorial)."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_kernel(a_input, b_input):
    assert a_input.shape == b_input.shape
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = a_tile + b_tile
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def add(a_input, b_input):
    grid_x = a_input.shape[0] // 128
    grid_y = a_input.shape[1] // 512
    return add_kernel[grid_x, grid_y](a_input, b_input)


@nki.jit
def add_kernel_overlapping(a_input, b_input):
    assert a_input.shape == b_input.shape and a_input.shape[1] == 512
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_i_x = nl.program_id(0) * 128
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])  # expect: NKI101 error
    b_tile = nl.load(b_input[ix, iy])  # expect: NKI101 error
    nl.store(c_output[ix, iy], value=a_tile + b_tile)  # expect: NKI101 error
    return c_output


def add_one_extra_program(a_input, b_input):
    grid_x = a_input.shape[0] // 128 + 1
    return add_kernel_overlapping[grid_x](a_input, b_input)


if __name__ == "__main__":
    a = np.random.rand(256, 1024).astype(np.float16)
    b = np.random.rand(256, 1024).astype(np.float16)
    add(a, b)
    add_one_extra_program(a[:, 0:512], b[:, 0:512])
