"""SPMD on two NeuronCores (the seed tutorial): disjoint tiles per program (clean) vs overlapping ones."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def nki_tensor_add_kernel_(a_input, b_input):
    assert a_input.shape == b_input.shape
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    nl.store(c_output[ix, iy], value=a_tile + b_tile)
    return c_output


def nki_tensor_add_nc2(a_input, b_input):
    grid_x = a_input.shape[0] // (128 * 2)
    grid_y = a_input.shape[1] // 512
    return nki_tensor_add_kernel_[nl.spmd_dim(grid_x, nl.nc(2)), grid_y](a_input, b_input)


@nki.jit
def add_rows_overlapping(a_input, b_input):
    assert a_input.shape == b_input.shape and a_input.shape[1] == 512
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 64 + nl.arange(128)[:, None]
    iy = nl.arange(512)[None, :]
    total = nl.load(a_input[ix, iy]) + nl.load(b_input[ix, iy])
    nl.store(c_output[ix, iy], value=total)  # expect: NKI402 error
    return c_output


def add_rows_overlapping_launch(a_input, b_input):
    return add_rows_overlapping[nl.spmd_dim(a_input.shape[0] // 128 - 1, nl.nc(2))](a_input, b_input)


if __name__ == "__main__":
    a = np.random.rand(512, 1024).astype(np.float16)
    b = np.random.rand(512, 1024).astype(np.float16)
    nki_tensor_add_nc2(a, b)
    add_rows_overlapping_launch(a[:, 0:512], b[:, 0:512])
