"""The SPMD tensor-add tutorial in NKI Beta 1 (neuronxcc.nki): one [128, 512] tile per program instance,
launched on a grid computed from the input shape.  The grid bounds the program ids, so every access is
proven in bounds for any [N*128, M*512] input.
"""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def nki_tensor_add_kernel(a_input, b_input):
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


def nki_tensor_add(a_input, b_input):
    grid_x = a_input.shape[0] // 128
    grid_y = a_input.shape[1] // 512
    return nki_tensor_add_kernel[grid_x, grid_y](a_input, b_input)


if __name__ == "__main__":
    a = np.random.rand(256, 1024).astype(np.float16)
    b = np.random.rand(256, 1024).astype(np.float16)
    print(nki_tensor_add(a, b))
